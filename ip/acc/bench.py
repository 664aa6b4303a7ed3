"""Cycle figures of the ACC kernels, measured on the ISS and on the RTL (Verilator): the
two counts must be equal (the ISS is the golden model), else the benchmark fails.

    from ip.acc.bench import measure; measure()  ->  {"ntt_mlkem_cycles": 97, ...}

Every kernel's output is also checked against kyber-py / dilithium-py here, so a figure is
only reported for a correct run.
"""
import random

from dilithium_py.polynomials.polynomials import PolynomialRing as DilithiumRing
from kyber_py.polynomials.polynomials import PolynomialRing as KyberRing

from ip.acc.kernels import ntt_mldsa, ntt_mlkem, sample
from pqsoc.acc.asm import assemble

KEM = (16, 16, 3329)
DSA = (8, 32, 8380417)
SET_VMODE1 = "addi x31, x0, 1\ncsrrw x0, VMODE, x31\n"
DMEM_SIZE = 4096


def pack(vals, mode) -> bytes:
    lanes, w, _ = mode
    return sum((v % (1 << w)) << (w * i) for i, v in enumerate(vals)).to_bytes(32, "little")


def unpack(blob: bytes, mode) -> list:
    lanes, w, _ = mode
    word = int.from_bytes(blob, "little")
    return [(word >> (w * i)) & ((1 << w) - 1) for i in range(lanes)]


def _poly(coeffs, mode) -> dict:
    n = mode[0]
    return {32 * r: pack(coeffs[n * r:n * r + n], mode) for r in range(256 // n)}


def kernel_jobs(seed: int = 5) -> list:
    """(key, source, {addr: bytes}, lane mode, expected 256 coefficients, their DMEM address)."""
    rng = random.Random(seed)
    jobs = []
    c = [rng.randrange(3329) for _ in range(256)]
    dm = _poly(c, KEM)
    dm.update({ntt_mlkem.TWID + 32 * t: pack(w, KEM) for t, w in enumerate(ntt_mlkem.twiddle_words())})
    jobs.append(("ntt_mlkem", ntt_mlkem.program(), dm, KEM, KyberRing()(list(c)).to_ntt().coeffs))
    dm = _poly(c, KEM)
    dm.update({ntt_mlkem.ITWID + 32 * t: pack(w, KEM) for t, w in enumerate(ntt_mlkem.itwiddle_words())})
    dm[ntt_mlkem.ISCALE] = pack(ntt_mlkem.iscale_word(), KEM)
    jobs.append(("intt_mlkem", ntt_mlkem.intt_program(), dm, KEM,
                 KyberRing()(list(c), is_ntt=True).from_ntt().coeffs))
    q = ntt_mldsa.Q
    d = [rng.randrange(q) for _ in range(256)]
    dm = _poly(d, DSA)
    dm.update({ntt_mldsa.TWID + 32 * t: pack(w, DSA) for t, w in enumerate(ntt_mldsa.twiddle_words())})
    jobs.append(("ntt_mldsa", SET_VMODE1 + ntt_mldsa.program(), dm, DSA,
                 [x % q for x in DilithiumRing()(list(d)).to_ntt().coeffs]))
    dm = _poly(d, DSA)
    dm.update({ntt_mldsa.ITWID + 32 * t: pack(w, DSA) for t, w in enumerate(ntt_mldsa.itwiddle_words())})
    jobs.append(("intt_mldsa", SET_VMODE1 + ntt_mldsa.intt_program(), dm, DSA,
                 [x % q for x in DilithiumRing()(list(d), is_ntt=True).from_ntt().coeffs]))
    jobs = [j + (0,) for j in jobs]
    # A_hat[i][j] from (rho, i, j): KMAC side-load + stream unit (uni12 / uni23)
    from dilithium_py.ml_dsa import ML_DSA_65
    from kyber_py.ml_kem import ML_KEM_768
    rho = rng.randbytes(32)
    i, j = 1, 2
    seed_dm = {sample.SEED: rho, sample.SEED + 32: bytes([j, i])}
    ref = list(ML_KEM_768.R.ntt_sample(ML_KEM_768._xof(rho, bytes([j]), bytes([i]))).coeffs)
    jobs.append(("sample_ntt_mlkem", sample.program(sample.SHAKE128, 2, "uni12"), seed_dm, KEM,
                 ref, sample.OUT))
    ref = [x % q for x in ML_DSA_65.R.rejection_sample_ntt_poly(rho, i, j).coeffs]
    jobs.append(("sample_ntt_mldsa", sample.program(sample.SHAKE128, 2, "uni23", vmode=1),
                 seed_dm, DSA, ref, sample.OUT))
    return jobs


def image(dm: dict, size: int = DMEM_SIZE) -> bytes:
    img = bytearray(size)
    for addr, blob in dm.items():
        img[addr:addr + len(blob)] = blob
    return bytes(img)


def measure(rtl: bool = True) -> dict:
    from pqsoc.acc.fuzz import IssBackend, compare
    jobs = kernel_jobs()
    progs = [(assemble(src, f"{key}.s"), image(dm), 20_000) for key, src, dm, *_ in jobs]
    iss = IssBackend(DMEM_SIZE, DMEM_SIZE)
    iss_runs = [iss.run(*p) for p in progs]
    rtl_runs = None
    if rtl:
        from ip.acc.rtl.fuzz_backend import RtlBackend
        rtl_runs = RtlBackend(DMEM_SIZE, DMEM_SIZE).run_many(progs)
    out = {}
    for k, (key, _, _, mode, ref, base) in enumerate(jobs):
        runs = [iss_runs[k]] + ([rtl_runs[k]] if rtl_runs else [])
        for r in runs:
            got = []
            for w in range(256 // mode[0]):
                got += unpack(r.dmem[base + 32 * w:base + 32 * w + 32], mode)
            if r.halt != "ecall" or got != ref:
                raise AssertionError(f"{key}: wrong result ({r.halt}, err {r.err_bits:#x})")
        if rtl_runs:
            diffs = compare(iss_runs[k], rtl_runs[k], ("iss", "rtl"))
            if diffs:
                raise AssertionError(f"{key}: ISS and RTL differ: {diffs[:3]}")
        out[f"{key}_cycles"] = iss_runs[k].cycles
    out.update(measure_mlkem_decaps(rtl))
    out["cycles_source"] = "ISS = RTL (Verilator), equal by check" if rtl else "ISS only"
    out["sample_ntt_note"] = ("A_hat[i][j] from (rho, i, j): whole program (acquire, absorb 34 B, "
                              "squeeze, sample 256 coefficients into DMEM, release)")
    return out


MLKEM_MEM = 16 * 1024        # IMEM and DMEM the decaps program needs (ip/acc/kernels/mlkem.py)


def measure_mlkem_decaps(rtl: bool = True, seed: int = 7) -> dict:
    """ML-KEM-768 Decaps_internal as one ACC program (KMAC side-load, stream unit, kernels),
    a valid and an implicitly rejected ciphertext; K checked against kyber-py."""
    from kyber_py.ml_kem import ML_KEM_768 as KEM
    from ip.acc.kernels import mlkem
    from pqsoc.acc.fuzz import IssBackend, compare
    ek, dk = KEM._keygen_internal(bytes([seed]) * 32, bytes([seed + 1]) * 32)
    _, c = KEM._encaps_internal(ek, bytes([seed + 2]) * 32)
    bad = bytearray(c)
    bad[5] ^= 1
    words = assemble(mlkem.decaps_program(), "decaps.s")
    jobs = [(words, image(mlkem.image(dk=dk, c=ct), MLKEM_MEM), 100_000) for ct in (c, bytes(bad))]
    iss = IssBackend(MLKEM_MEM, MLKEM_MEM)
    runs = [iss.run(*j) for j in jobs]
    if rtl:
        from ip.acc.rtl.fuzz_backend import RtlBackend
        for r_iss, r_rtl in zip(runs, RtlBackend(MLKEM_MEM, MLKEM_MEM).run_many(jobs)):
            diffs = compare(r_iss, r_rtl, ("iss", "rtl"))
            if diffs:
                raise AssertionError(f"ML-KEM decaps: ISS and RTL differ: {diffs[:3]}")
    for r, ct in zip(runs, (c, bytes(bad))):
        got = r.dmem[mlkem.K_OUT:mlkem.K_OUT + 32]
        if r.halt != "ecall" or got != KEM._decaps_internal(dk, ct):
            raise AssertionError(f"ML-KEM decaps: wrong K ({r.halt}, err {r.err_bits:#x})")
    return {"mlkem768_decaps_cycles": runs[0].cycles,
            "mlkem768_decaps_reject_cycles": runs[1].cycles,
            "mlkem768_decaps_imem_bytes": 4 * len(words),
            "mlkem768_decaps_dmem_bytes": mlkem.END}
