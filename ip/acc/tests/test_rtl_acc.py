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
