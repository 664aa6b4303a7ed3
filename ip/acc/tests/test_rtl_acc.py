# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""The ACC RTL (emitted Verilog under Verilator, driven through its host bus) against the ISS.

- lockstep fuzz: random programs (every base/loop/wide/vector/NTT instruction, KMAC side-load
  sessions against a real KMAC block, every error class, both VMODEs, hazards) on the ISS and
  the RTL; halt, ERR_BITS, cycles, instructions,
  stop PC and the whole DMEM (which holds the final registers) must be equal;
- kernels: the NTT / INTT kernels and the ML-KEM programs give kyber-py's / dilithium-py's
  results on the RTL, in exactly the ISS's cycle count.
"""
import random

import pytest

from ip.acc.dv import lockstep
from ip.acc.dv.rig import FuzzConfig

FUZZ_COUNT = 200


@pytest.fixture(scope="module")
def rtl_small():
    from ip.acc.dv.rtl_runner import RtlBackend
    return RtlBackend(2048, 2048)


def test_fuzz_lockstep_rtl_vs_iss(rtl_small):
    cfg = FuzzConfig(kmac=True)     # with KMAC sessions and misuse: the RTL has a KMAC
    passed, failed, failures = lockstep.fuzz(FUZZ_COUNT, 11, lockstep.IssBackend(2048, 2048), rtl_small, cfg)
    msg = "\n".join(f"program {f.index} ({f.program.desc}):\n  " + "\n  ".join(f.diffs)
                    for f in failures[:3])
    assert failed == 0 and passed == FUZZ_COUNT, msg


def test_wdr_beyond_the_count_is_illegal_then_next_program_runs(rtl_small):
    """isa.yml wdrs: 16. Each word with a wdr field >= 16 (several formats) faults with
    ILLEGAL_INSN in the same cycle as on the ISS (no operand stall behind the pending w1),
    and the next program, started without any reset, computes correctly; back to back in
    one RTL simulation, every run equal to the ISS's."""
    from ip.acc.tests.iss_util import BAD_WDR
    from ip.acc.tools.asm import assemble
    good = assemble("addi x1, x0, 3\nbn.bcast w15, x1\nbn.addv w14, w15, w15\n"
                    "bn.sw w14, 64(x0)\necall\n")
    dmem = bytes(range(256)) * 8
    jobs = []
    for bad in BAD_WDR:
        jobs += [(assemble("bn.lw w1, 0(x0)\n" + bad + "ecall\n"), dmem, 1000), (good, dmem, 1000)]
    iss = lockstep.IssBackend(2048, 2048)
    rtl = rtl_small.run_many(jobs)
    for k, (job, r) in enumerate(zip(jobs, rtl)):
        ref = iss.run(*job)
        assert lockstep.compare(ref, r, ("iss", "rtl")) == [], (k, lockstep.compare(ref, r, ("iss", "rtl")))
        if k % 2 == 0:
            assert (r.halt, r.err_bits, r.stop_pc, r.insns) == ("error", 1, 4, 1), (k, r)
            assert r.dmem == bytes(2048)                  # wiped
        else:
            assert r.halt == "ecall" and r.err_bits == 0
            assert r.dmem[64:96] == (6 * sum(1 << 16 * i for i in range(16))).to_bytes(32, "little")


def test_jobs_read_back_fewer_words_and_wipe_when_asked(rtl_small):
    """run_many's readback and wipe (what a leakage trace asks): a job may read back fewer DMEM
    words and may end with CTRL.WIPE; either way the next job runs on exactly its own image:
    after a wipe the driver writes only the image's nonzero words (the wipe must have cleared
    the rest), after a shorter read-back it writes again every word it did not read."""
    from ip.acc.tools.asm import assemble
    from pqsoc import FlowError
    seed = assemble("addi x5, x0, 77\nsw x5, 8(x0)\nsw x5, 1020(x0)\necall\n")
    plain = assemble("ecall\n")
    image = bytes(range(1, 65)) + bytes(2048 - 64)             # word 255 (1020) is zero
    runs = rtl_small.run_many([(seed, image, 100, (), 2048, True), (plain, image, 100),
                               (seed, image, 100, (), 12), (plain, image, 100)])
    word = lambda r, i: int.from_bytes(r.dmem[4 * i:4 * i + 4], "little")
    assert word(runs[0], 2) == 77 and word(runs[0], 255) == 77
    assert runs[1].dmem == image                               # word 255 wiped, not written
    assert len(runs[2].dmem) == 12 and word(runs[2], 2) == 77
    assert runs[3].dmem == image                               # word 255 written again
    iss = lockstep.IssBackend(2048, 2048)
    for job, r in zip([seed, plain], runs):
        assert lockstep.compare(iss.run(job, image, 100), r) == []
    with pytest.raises(FlowError, match="read back"):
        rtl_small.run_many([(plain, image, 100, (), 2)])


@pytest.mark.parametrize("mn", ["bn.unpk", "bn.pk"])
def test_field_insn_through_the_core_equals_iss(rtl_small, mn):
    """bn.unpk / bn.pk decoded and executed by the core (d and off routed from the word): every
    legal d in its VMODE at several byte offsets, each result stored, equal to the ISS
    (DMEM, cycles); then an illegal d in each VMODE and a reserved d code fault with
    ILLEGAL_INSN on both, the next program running clean."""
    import random
    from ip.acc.tools.asm import assemble
    from ip.acc.tools.isa import load_isa
    from ip.acc.iss.insn import UNPK_WIDTHS
    rng = random.Random(203)
    dmem = bytes(rng.getrandbits(8) for _ in range(2048))
    jobs, legal_runs = [], 0
    for vmode, lane_w in ((0, 16), (1, 32)):
        head = f"addi x1, x0, {vmode}\ncsrrw x0, VMODE, x1\nbn.lw w1, 0(x0)\nbn.lw w2, 32(x0)\n"
        body, n = "", 0
        for d in UNPK_WIDTHS[lane_w]:
            for off in sorted({0, 1, 2, 30, 31, rng.randrange(32)}):
                body += f"{mn} w{3 + n % 8}, w1, w2, {d}, {off}\n"
                body += f"bn.sw w{3 + n % 8}, {64 + 32 * n}(x0)\n"
                n += 1
        jobs.append((assemble(head + body + "ecall\n"), dmem, 2000))
        legal_runs += 1
        bad = 11 if vmode == 1 else 13
        jobs.append((assemble(head + f"{mn} w3, w1, w2, {bad}, 5\necall\n"), dmem, 1000))
    insn = load_isa().by_mnemonic[mn]
    reserved = insn.encode({"wrd": 3, "wrs1": 1, "wrs2": 2, "d": 0, "off": 7}) | 14 << 28
    jobs.append(([reserved, assemble("ecall")[0]], dmem, 1000))
    jobs.append((assemble(f"bn.lw w1, 0(x0)\nbn.lw w2, 32(x0)\n{mn} w3, w1, w2, 12, 8\n"
                          "bn.sw w3, 64(x0)\necall\n"), dmem, 1000))
    iss = lockstep.IssBackend(2048, 2048)
    rtl = rtl_small.run_many(jobs)
    for k, (job, r) in enumerate(zip(jobs, rtl)):
        ref = iss.run(*job)
        assert lockstep.compare(ref, r, ("iss", "rtl")) == [], (k, lockstep.compare(ref, r, ("iss", "rtl")))
        if k in (1, 3, 4):
            assert (r.halt, r.err_bits) == ("error", 1), (k, r)
        else:
            assert r.halt == "ecall" and r.err_bits == 0, (k, r)
    if mn == "bn.unpk":      # 16 12-bit fields from byte 8 on
        x = int.from_bytes(dmem[:64], "little") >> 64
        want = sum(((x >> 12 * i) & 0xFFF) << 16 * i for i in range(16))
    else:                    # bytes 8..39 of w2 || the 16 lanes' low 12 bits
        lanes = [int.from_bytes(dmem[2 * i:2 * i + 2], "little") & 0xFFF for i in range(16)]
        x = int.from_bytes(dmem[32:64], "little") | sum(v << 12 * i for i, v in enumerate(lanes)) << 256
        want = (x >> 64) & ((1 << 256) - 1)
    assert int.from_bytes(rtl[-1].dmem[64:96], "little") == want


# the multiplier unit (isa.yml unit mul: interval 2, latency 3): (body, ISS stall cycles)
MUL_UNIT_CASES = [
    ("bn.mulvm w4, w1, w2\nbn.addv w5, w4, w1\n", 2),
    ("bn.mulvm w4, w1, w2\nbn.addv w5, w1, w2\nbn.addv w6, w4, w1\n", 1),
    ("bn.mulvm w4, w1, w2\nbn.addv w5, w1, w2\nbn.addv w6, w1, w1\nbn.addv w7, w4, w1\n", 0),
    ("bn.bfly.ct w1, w2, w3, r, 0\nbn.bfly.gs w4, w5, w3, l1, 1\n", 1),
    ("bn.bfly.ct w1, w2, w3, r, 0\nbn.lw w6, 64(x0)\nbn.bfly.gs w4, w5, w3, l1, 1\n", 0),
    ("bn.mulvm w4, w1, w2\nbn.xor w4, w1, w2\n", 0),           # the xor's value stays
    ("bn.mulv.hi w4, w1, w2\nbn.lw w4, 64(x0)\n", 0),          # the load's value stays
    ("bn.bfly.ct w1, w2, w3, l2, 3\nbn.xor w2, w3, w3\n", 0),   # wb replaced, wa written
    ("bn.bfly.gs w1, w1, w3, r, 2\nbn.addv w5, w1, w1\n", 2),   # wa = wb
]


def test_mul_unit_interlocks_and_replaced_results(rtl_small):
    """Each multiplier-unit timing case (reader 1..3 cycles later, a second multiplier op right
    behind, a write or load to a register whose result is in flight) in both VMODEs: the RTL
    counts the ISS's cycles (base + the listed stall) and leaves the ISS's registers, which
    hold the later write's value where one replaced an in-flight result."""
    from ip.acc.tools.asm import assemble
    import random
    rng = random.Random(5)
    dmem = bytes(rng.getrandbits(8) for _ in range(2048))
    dump = "".join(f"bn.sw w{n}, {512 + 32 * n}(x0)\n" for n in range(8))
    jobs, expect = [], []
    for vmode in (0, 1):
        head = f"addi x1, x0, {vmode}\ncsrrw x0, VMODE, x1\n" \
               "bn.lw w1, 0(x0)\nbn.lw w2, 32(x0)\nbn.lw w3, 96(x0)\n"
        base = assemble(head + "addi x0, x0, 0\n" + dump + "ecall\n")
        jobs.append((base, dmem, 1000))
        expect.append(None)
        for body, stall in MUL_UNIT_CASES:
            jobs.append((assemble(head + "addi x0, x0, 0\n" + body + dump + "ecall\n"), dmem, 1000))
            expect.append((body, stall, len(body.splitlines())))
    iss = lockstep.IssBackend(2048, 2048)
    rtl = rtl_small.run_many(jobs)
    base_cycles = {}
    for k, (job, r, exp) in enumerate(zip(jobs, rtl, expect)):
        ref = iss.run(*job)
        assert lockstep.compare(ref, r, ("iss", "rtl")) == [], (exp, lockstep.compare(ref, r, ("iss", "rtl")))
        assert r.halt == "ecall", (exp, r)
        vmode = k // (len(MUL_UNIT_CASES) + 1)
        if exp is None:
            base_cycles[vmode] = r.cycles
            continue
        body, stall, n = exp
        assert r.cycles == base_cycles[vmode] + n + stall, (vmode, body, r.cycles)
        w = [int.from_bytes(r.dmem[512 + 32 * i:544 + 32 * i], "little") for i in range(8)]
        a = int.from_bytes(dmem[0:32], "little")
        b = int.from_bytes(dmem[32:64], "little")
        if "bn.xor w4" in body:
            assert w[4] == a ^ b
        if "bn.lw w4" in body:
            assert w[4] == int.from_bytes(dmem[64:96], "little")
        if "bn.xor w2" in body:
            assert w[2] == 0 and w[1] != a


def test_kernels_on_rtl_match_reference_and_iss_cycles():
    """ip/acc/bench.measure checks each kernel's output against kyber-py / dilithium-py on the
    ISS and on the RTL, and that both count the same cycles (it raises otherwise)."""
    from ip.acc.dv.jobs import measure
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


def test_mlkem768_keygen_on_rtl_equals_iss():
    """The ML-KEM-768 keygen program (kernels/mlkem/keygen.py) on the RTL with the taped-out
    memories: ek / dk equal kyber-py's, and the RTL counts the ISS's cycles and leaves its
    DMEM (measure_mlkem_keygen raises otherwise)."""
    from ip.acc.dv.jobs import measure_mlkem_keygen
    figures = measure_mlkem_keygen(rtl=True, params=(768,))
    print(f"\nML-KEM-768 keygen: {figures['mlkem768_keygen_cycles']} cycles on the RTL = ISS")
    assert figures["mlkem_keygen_cycles_source"].startswith("ISS = RTL")
    assert figures["mlkem768_keygen_cycles"] <= 7_000      # issue 23's target


def test_mldsa65_keygen_on_rtl_equals_iss():
    """The ML-DSA-65 keygen program (kernels/mldsa/keygen.py) on the RTL with the taped-out
    memories: pk / sk equal dilithium-py's, and the RTL counts the ISS's cycles and leaves
    its DMEM (measure_mldsa_keygen raises otherwise)."""
    from ip.acc.dv.jobs import measure_mldsa_keygen
    figures = measure_mldsa_keygen(rtl=True, params=(65,))
    print(f"\nML-DSA-65 keygen: {figures['mldsa65_keygen_cycles']} cycles on the RTL = ISS")
    assert figures["mldsa_keygen_cycles_source"].startswith("ISS = RTL")


def test_mlkem768_encaps_on_rtl_equals_iss():
    """The ML-KEM-768 encaps program (kernels/mlkem/encaps.py) on the RTL with the taped-out
    memories: K / c equal kyber-py's, and the RTL counts the ISS's cycles and leaves its
    DMEM (measure_mlkem_encaps raises otherwise)."""
    from ip.acc.dv.jobs import measure_mlkem_encaps
    figures = measure_mlkem_encaps(rtl=True, params=(768,))
    print(f"\nML-KEM-768 encaps: {figures['mlkem768_encaps_cycles']} cycles on the RTL = ISS")
    assert figures["mlkem_encaps_cycles_source"].startswith("ISS = RTL")
    assert figures["mlkem768_encaps_cycles"] <= 8_000      # issue 23's target


def test_mlkem1024_decaps_on_rtl_equals_iss():
    """The ML-KEM-1024 decaps program (kernels/mlkem/decaps.py, Decaps(4)) on the RTL with
    the taped-out memories: K equals kyber-py's, and the RTL counts the ISS's cycles and
    leaves its DMEM (measure_mlkem_decaps_sets raises otherwise)."""
    from ip.acc.dv.jobs import measure_mlkem_decaps_sets
    figures = measure_mlkem_decaps_sets(rtl=True, params=(1024,))
    print(f"\nML-KEM-1024 decaps: {figures['mlkem1024_decaps_cycles']} cycles on the RTL = ISS")
    assert figures["mlkem_decaps_cycles_source"].startswith("ISS = RTL")
    assert figures["mlkem1024_decaps_imem_bytes"] <= 16 * 1024
    assert figures["mlkem1024_decaps_dmem_bytes"] <= 16 * 1024


def test_mldsa65_verify_on_rtl_equals_iss():
    """The ML-DSA-65 verify program (kernels/mldsa/verify.py) on the RTL with the taped-out
    memories: a dilithium-py signature verifies, and the RTL counts the ISS's cycles and
    leaves its DMEM (measure_mldsa_verify raises otherwise)."""
    from ip.acc.dv.jobs import measure_mldsa_verify
    figures = measure_mldsa_verify(rtl=True, params=(65,))
    print(f"\nML-DSA-65 verify: {figures['mldsa65_verify_cycles']} cycles on the RTL = ISS")
    assert figures["mldsa_verify_cycles_source"].startswith("ISS = RTL")


@pytest.mark.parametrize("param,seed", [(65, 4), (44, 0), (87, 3)])
def test_mldsa_sign16_on_rtl_equals_iss(param, seed):
    """The 16 KiB signing program (kernels/mldsa/sign16.py, its s1 / s2 / t0 / y unpacked by
    bn.unpk) on the RTL with the taped-out memories, one signature accepted at once per
    set: the signature equals dilithium-py's, and halt, cycles, instructions and the whole
    DMEM equal the ISS's."""
    import random
    from dilithium_py.ml_dsa import ML_DSA_44, ML_DSA_65, ML_DSA_87
    from ip.acc import block as acc_block
    from ip.acc.dv.jobs import image
    from ip.acc.dv.rtl_runner import RtlBackend
    from ip.acc.kernels.mldsa import sign16
    from ip.acc.tools.asm import assemble
    dsa = {44: ML_DSA_44, 65: ML_DSA_65, 87: ML_DSA_87}[param]
    ms, mem = sign16.signer(param), acc_block.DMEM_SIZE
    rnd = random.Random(seed)
    _, sk = dsa._keygen_internal(rnd.randbytes(32))
    msg, r = rnd.randbytes(45), rnd.randbytes(32)
    job = (assemble(ms.program(), f"sign16_{param}.s"), image(ms.image(sk, msg, r), mem),
           2_000_000)
    iss = lockstep.IssBackend(mem, mem).run(*job)
    (rtl,) = RtlBackend(mem, mem).run_many([job])
    assert not lockstep.compare(iss, rtl, ("iss", "rtl"))
    assert rtl.halt == "ecall"
    assert bytes(rtl.dmem[ms.SIG:ms.SIG + ms.SIG_LEN]) == dsa._sign_internal(sk, msg, r)
    print(f"\nML-DSA-{param} sign16 (seed {seed}): {rtl.cycles} cycles on the RTL = ISS")


def _iss_equals_rtl(rtl, srcs: list[str], dmem: bytes) -> list[str]:
    """Each program on the ISS and the RTL from the same DMEM image: halt, cycles and DMEM
    equal (asserted); returns the halts."""
    from ip.acc.tools.asm import assemble
    jobs = [(assemble(s), dmem, 20_000) for s in srcs]
    iss = lockstep.IssBackend(2048, 2048)
    halts = []
    for k, (job, r) in enumerate(zip(jobs, rtl.run_many(jobs))):
        diffs = lockstep.compare(iss.run(*job), r, ("iss", "rtl"))
        assert diffs == [], (k, diffs)
        halts.append(r.halt)
    return halts


def test_masked_sampling_and_its_errors_equal_the_iss(rtl_small):
    """smp.run cbd2m / cbd3m (two shares written; with core stores beside them, which wait
    for the unit's writes and make it wait: the write port's separation) and the SAMPLER
    cases of the masked modes (URND read / reseed while one runs, VMODE 1, share 1's words
    past DMEM), then a clean program: the RTL's halts, cycles and DMEM equal the ISS's."""
    from ip.acc.tests.test_iss_stream_unit import MASKED_ERRORS, PORT_DURING, _masked_program
    dmem = random.Random(5).randbytes(32) + bytes(2048 - 32)
    srcs = [_masked_program("cbd2m"), _masked_program("cbd3m")]
    srcs += [_masked_program(m, prefix="bn.lw w3, 0(x0)\n", during=d) for m in ("cbd2m", "cbd3m")
             for d in PORT_DURING.values()]
    srcs += [src for what, src, _ in MASKED_ERRORS if what != "share 1 past DMEM"]
    srcs.append(_masked_program("cbd2m").replace("addi x5, x0, 1024", "addi x5, x0, 1536"))
    srcs.append(_masked_program("cbd2m"))
    halts = _iss_equals_rtl(rtl_small, srcs, dmem)
    assert halts == ["ecall"] * (2 + 2 * len(PORT_DURING)) + ["error"] * 5 + ["ecall"]


def test_intm_and_its_errors_equal_the_iss(rtl_small):
    """smp.run intm reads its groups' words through the DMEM port the core leaves free (core
    loads and stores beside it too) and writes ok's two shares; its SAMPLER cases: the RTL's
    halts, cycles and DMEM equal the ISS's."""
    from ip.acc.tests.test_masked_interval import _intm_dmem, _intm_program, intm_errors
    rng = random.Random(12)
    xs = [rng.randrange(3329) for _ in range(64)]
    x0 = [rng.randrange(3329) for _ in xs]
    x1 = [(x - a) % 3329 for x, a in zip(xs, x0)]
    lo = [rng.randrange(3329) for _ in xs]
    delta = [rng.randrange(2) for _ in xs]
    kw = {"src": 512, "pub": 1024, "out": 1536}
    img = bytearray(2048)
    for a, b in _intm_dmem(x0, x1, lo, delta, src=512, pub=1024).items():
        img[a:a + len(b)] = b
    srcs = [_intm_program(64, 208, **kw), _intm_program(32, 208, stride0=True, **kw),
            _intm_program(64, 208, during="bn.lw w3, 64(x0)\nbn.sw w3, 96(x0)\n", **kw)]
    errors = intm_errors(2048, **kw)
    srcs += [s for _, s in errors]
    halts = _iss_equals_rtl(rtl_small, srcs, bytes(img))
    assert halts == ["ecall"] * 3 + ["error"] * len(errors)


def test_b2a1m_and_its_errors_equal_the_iss(rtl_small):
    """smp.run b2a1m reads its three source words through the DMEM port the core leaves free
    (a load beside it too) and writes two arithmetic shares; its SAMPLER cases: the RTL's
    halts, cycles and DMEM equal the ISS's."""
    from ip.acc.tests.test_iss_stream_unit import B2A_ERRORS, _b2a_dmem, _b2a_program
    img = bytearray(2048)
    for a, b in _b2a_dmem(random.Random(3).getrandbits(256), random.Random(4).getrandbits(256),
                          src=1536).items():
        img[a:a + len(b)] = b
    srcs = [_b2a_program(src=1536, count=40), _b2a_program(src=1536, count=256).replace(
        "addi x5, x0, 1024", "addi x5, x0, 512"),
        _b2a_program(src=1536, count=40, during="bn.lw w3, 64(x0)\nbn.sw w3, 96(x0)\n")]
    srcs += [s.replace("slli x6, x6, 11\naddi x6, x6, 0", "slli x6, x6, 11\naddi x6, x6, -512")
             for _, s in B2A_ERRORS]
    halts = _iss_equals_rtl(rtl_small, srcs, bytes(img))
    assert halts == ["ecall"] * 3 + ["error"] * len(B2A_ERRORS)
