"""The ACC RTL (emitted Verilog under Verilator, driven through its host bus) against the ISS.

- lockstep fuzz: random programs (every base/loop/wide/vector/NTT instruction, KMAC side-load
  sessions against a real KMAC block, every error class, both VMODEs, hazards) on the ISS and
  the RTL; halt, ERR_BITS, cycles, instructions,
  stop PC and the whole DMEM (which holds the final registers) must be equal;
- kernels: the NTT / INTT kernels give kyber-py's / dilithium-py's results on the RTL, in
  exactly the ISS's cycle count.
"""
import pytest

from pqsoc.acc import fuzz

FUZZ_COUNT = 200


@pytest.fixture(scope="module")
def rtl_small():
    from ip.acc.rtl.fuzz_backend import RtlBackend
    return RtlBackend(2048, 2048)


def test_fuzz_lockstep_rtl_vs_iss(rtl_small):
    cfg = fuzz.FuzzConfig(kmac=True)     # with KMAC sessions and misuse: the RTL has a KMAC
    passed, failed, failures = fuzz.fuzz(FUZZ_COUNT, 11, fuzz.IssBackend(2048, 2048), rtl_small, cfg)
    msg = "\n".join(f"program {f.index} ({f.program.desc}):\n  " + "\n  ".join(f.diffs)
                    for f in failures[:3])
    assert failed == 0 and passed == FUZZ_COUNT, msg


def test_wdr_beyond_the_count_is_illegal_then_next_program_runs(rtl_small):
    """isa.yml wdrs: 16. Each word with a wdr field >= 16 (several formats) faults with
    ILLEGAL_INSN in the same cycle as on the ISS (no operand stall behind the pending w1),
    and the next program, started without any reset, computes correctly; back to back in
    one RTL simulation, every run equal to the ISS's."""
    from ip.acc.tests.iss_util import BAD_WDR
    from pqsoc.acc.asm import assemble
    good = assemble("addi x1, x0, 3\nbn.bcast w15, x1\nbn.addv w14, w15, w15\n"
                    "bn.sw w14, 64(x0)\necall\n")
    dmem = bytes(range(256)) * 8
    jobs = []
    for bad in BAD_WDR:
        jobs += [(assemble("bn.lw w1, 0(x0)\n" + bad + "ecall\n"), dmem, 1000), (good, dmem, 1000)]
    iss = fuzz.IssBackend(2048, 2048)
    rtl = rtl_small.run_many(jobs)
    for k, (job, r) in enumerate(zip(jobs, rtl)):
        ref = iss.run(*job)
        assert fuzz.compare(ref, r, ("iss", "rtl")) == [], (k, fuzz.compare(ref, r, ("iss", "rtl")))
        if k % 2 == 0:
            assert (r.halt, r.err_bits, r.stop_pc, r.insns) == ("error", 1, 4, 1), (k, r)
            assert r.dmem == bytes(2048)                  # wiped
        else:
            assert r.halt == "ecall" and r.err_bits == 0
            assert r.dmem[64:96] == (6 * sum(1 << 16 * i for i in range(16))).to_bytes(32, "little")


def test_kernels_on_rtl_match_reference_and_iss_cycles():
    """ip/acc/bench.measure checks each kernel's output against kyber-py / dilithium-py on the
    ISS and on the RTL, and that both count the same cycles (it raises otherwise)."""
    from ip.acc.bench import measure
    figures = measure(rtl=True)
    for key in ("ntt_mlkem", "intt_mlkem", "ntt_mldsa", "intt_mldsa", "sample_ntt_mlkem",
                "sample_ntt_mldsa"):
        print(f"\n{key}: {figures[key + '_cycles']} cycles on the RTL = ISS")
    assert figures["ntt_mldsa_cycles"] <= 400 and figures["intt_mldsa_cycles"] <= 400
    # ML-DSA RejNTTPoly: 5 SHAKE128 blocks (~5 x 25 cycles of Keccak) + fixed costs, well
    # within "150 cycles beyond Keccak time"
    assert figures["sample_ntt_mldsa_cycles"] <= 5 * 25 + 150
    # the whole ML-KEM-768 decapsulation, K checked against kyber-py (valid and rejected c)
    print(f"ML-KEM-768 decaps: {figures['mlkem768_decaps_cycles']} cycles on the RTL = ISS")
    assert figures["mlkem768_decaps_cycles"] <= 20_000
    assert figures["mlkem768_decaps_reject_cycles"] == figures["mlkem768_decaps_cycles"]
