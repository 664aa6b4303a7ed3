# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""Cycle figures of the ACC kernels, measured on the ISS and on the RTL (Verilator): the
two counts must be equal (the ISS is the golden model), else the benchmark fails.

    from ip.acc.dv.jobs import measure; measure()  ->  {"ntt_mlkem_cycles": 97, ...}

Every kernel's output is also checked against kyber-py / dilithium-py here, so a figure is
only reported for a correct run.
"""
import random

from dilithium_py.polynomials.polynomials import PolynomialRing as DilithiumRing
from kyber_py.polynomials.polynomials import PolynomialRing as KyberRing

from ip.acc import block as acc_block
from ip.acc.kernels import sample
from ip.acc.kernels.mldsa import ntt as ntt_mldsa
from ip.acc.kernels.mlkem import ntt as ntt_mlkem
from ip.acc.tools.asm import assemble

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
    """The DMEM of `size` bytes holding the blobs {addr: bytes}; ValueError for a blob past
    the end (a bytearray slice would grow silently)."""
    img = bytearray(size)
    for addr, blob in dm.items():
        if not 0 <= addr <= addr + len(blob) <= size:
            raise ValueError(f"DMEM image: {len(blob)} bytes at {addr:#x} pass the end of "
                             f"the {size}-byte memory")
        img[addr:addr + len(blob)] = blob
    return bytes(img)


def kernel_check(mode, ref, base):
    """check(result) -> error or None: the run ended in ecall and the 256 coefficients at DMEM
    `base` (lane mode `mode`) are `ref` (from kyber-py / dilithium-py)."""
    def check(r):
        got = []
        for w in range(256 // mode[0]):
            got += unpack(r.dmem[base + 32 * w:base + 32 * w + 32], mode)
        return None if r.halt == "ecall" and got == ref else f"wrong result ({r.halt}, err {r.err_bits:#x})"
    return check


def measure(rtl: bool = True) -> dict:
    from ip.acc.dv.lockstep import IssBackend, compare
    jobs = kernel_jobs()
    progs = [(assemble(src, f"{key}.s"), image(dm), 20_000) for key, src, dm, *_ in jobs]
    iss = IssBackend(DMEM_SIZE, DMEM_SIZE)
    iss_runs = [iss.run(*p) for p in progs]
    rtl_runs = None
    if rtl:
        from ip.acc.dv.rtl_runner import RtlBackend
        rtl_runs = RtlBackend(DMEM_SIZE, DMEM_SIZE).run_many(progs)
    out = {}
    for k, (key, _, _, mode, ref, base) in enumerate(jobs):
        runs = [iss_runs[k]] + ([rtl_runs[k]] if rtl_runs else [])
        check = kernel_check(mode, ref, base)
        for r in runs:
            err = check(r)
            if err:
                raise AssertionError(f"{key}: {err}")
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


MLKEM_MEM = acc_block.IMEM_SIZE   # IMEM and DMEM of the decaps program (kernels/mlkem/decaps.py)


def mlkem_decaps_jobs(seed: int = 7, mem: int = MLKEM_MEM) -> list:
    """ML-KEM-768 Decaps_internal, one valid and one implicitly rejected ciphertext (byte 5 of
    the valid one flipped), key and message from `seed`: (key, words, DMEM image of `mem`
    bytes, max cycles, check(result) -> error or None), K checked against kyber-py."""
    from kyber_py.ml_kem import ML_KEM_768 as KEM
    from ip.acc.kernels.mlkem import decaps as mlkem
    ek, dk = KEM._keygen_internal(bytes([seed]) * 32, bytes([seed + 1]) * 32)
    _, c = KEM._encaps_internal(ek, bytes([seed + 2]) * 32)
    bad = bytearray(c)
    bad[5] ^= 1
    words = assemble(mlkem.decaps_program(), "decaps.s")
    jobs = []
    for key, ct in (("mlkem768_decaps", c), ("mlkem768_decaps_reject", bytes(bad))):
        def check(r, ct=ct):
            k = r.dmem[mlkem.K_OUT:mlkem.K_OUT + 32]
            return None if r.halt == "ecall" and k == KEM._decaps_internal(dk, ct) else \
                f"wrong K ({r.halt}, err {r.err_bits:#x})"
        jobs.append((key, words, image(mlkem.image(dk=dk, c=ct), mem), 100_000, check))
    return jobs


def measure_mlkem_decaps(rtl: bool = True, seed: int = 7) -> dict:
    """ML-KEM-768 Decaps_internal as one ACC program (KMAC side-load, stream unit, kernels),
    a valid and an implicitly rejected ciphertext; K checked against kyber-py."""
    from ip.acc.kernels.mlkem import decaps as mlkem
    from ip.acc.dv.lockstep import IssBackend, compare
    jobs = mlkem_decaps_jobs(seed)
    progs = [(w, img, cyc) for _, w, img, cyc, _ in jobs]
    iss = IssBackend(MLKEM_MEM, MLKEM_MEM)
    runs = [iss.run(*j) for j in progs]
    if rtl:
        from ip.acc.dv.rtl_runner import RtlBackend
        for r_iss, r_rtl in zip(runs, RtlBackend(MLKEM_MEM, MLKEM_MEM).run_many(progs)):
            diffs = compare(r_iss, r_rtl, ("iss", "rtl"))
            if diffs:
                raise AssertionError(f"ML-KEM decaps: ISS and RTL differ: {diffs[:3]}")
    for r, (*_, check) in zip(runs, jobs):
        err = check(r)
        if err:
            raise AssertionError(f"ML-KEM decaps: {err}")
    return {"mlkem768_decaps_cycles": runs[0].cycles,
            "mlkem768_decaps_reject_cycles": runs[1].cycles,
            "mlkem768_decaps_imem_bytes": 4 * len(progs[0][0]),
            "mlkem768_decaps_dmem_bytes": mlkem.END}


def mlkem_decaps_set_jobs(param: int, seed: int = 7, mem: int = MLKEM_MEM) -> list:
    """ML-KEM-<param> Decaps_internal(dk, c) (kernels/mlkem/decaps.py), keys and message from
    `seed`: one job, K checked against kyber-py (measure_programs' form)."""
    from kyber_py.ml_kem import ML_KEM_512, ML_KEM_768, ML_KEM_1024
    from ip.acc.kernels.mlkem.decaps import decaps
    ref = {512: ML_KEM_512, 768: ML_KEM_768, 1024: ML_KEM_1024}[param]
    de = decaps(param)
    rnd = random.Random(seed)
    ek, dk = ref._keygen_internal(rnd.randbytes(32), rnd.randbytes(32))
    want, c = ref._encaps_internal(ek, rnd.randbytes(32))
    words = assemble(de.program(), f"mlkem{param}_decaps.s")

    def check(r):
        if r.halt != "ecall":
            return f"halted by {r.halt} (err {r.err_bits:#x})"
        return None if de.outputs(r.dmem) == want else "K != kyber-py's"
    return [(f"mlkem{param}_decaps", words, image(de.image(dk=dk, c=c), mem), 100_000, check)]


def measure_mlkem_decaps_sets(rtl: bool = False, seed: int = 7, params=(512, 768, 1024)) -> dict:
    """ML-KEM decaps per parameter set as one ACC program (measure_programs); K checked
    against kyber-py."""
    from ip.acc.kernels.mlkem.decaps import decaps
    jobs = [j for p in params for j in mlkem_decaps_set_jobs(p, seed)]
    return measure_programs("mlkem_decaps", jobs, params, lambda p: decaps(p).END, MLKEM_MEM, rtl)


def mlkem_keygen_jobs(param: int, seed: int = 7, mem: int = MLKEM_MEM) -> list:
    """ML-KEM-<param> KeyGen_internal(d, z) (kernels/mlkem/keygen.py), d and z from `seed`:
    [(key, words, DMEM image of `mem` bytes, max cycles, check(result) -> error or None)],
    ek and dk checked against kyber-py."""
    from kyber_py.ml_kem import ML_KEM_512, ML_KEM_768, ML_KEM_1024
    from ip.acc.kernels.mlkem.keygen import keygen
    ref = {512: ML_KEM_512, 768: ML_KEM_768, 1024: ML_KEM_1024}[param]
    kg = keygen(param)
    rnd = random.Random(seed)
    d, z = rnd.randbytes(32), rnd.randbytes(32)
    want = ref._keygen_internal(d, z)
    words = assemble(kg.program(), f"mlkem{param}_keygen.s")

    def check(r):
        if r.halt != "ecall":
            return f"halted by {r.halt} (err {r.err_bits:#x})"
        ek, dk = kg.outputs(r.dmem)
        return None if (ek, dk) == want else \
            f"ek {'=' if ek == want[0] else '!='} kyber-py, dk {'=' if dk == want[1] else '!='} kyber-py"
    return [(f"mlkem{param}_keygen", words, image(kg.image(d, z), mem), 100_000, check)]


def measure_programs(kind: str, jobs: list, params, end, mem: int, rtl: bool = False) -> dict:
    """Whole-program figures for the jobs of each parameter set (one job per set, in params'
    order): cycles on the ISS (with rtl, also on the RTL in Verilator, which must count the same
    and leave the same DMEM), IMEM bytes and peak DMEM bytes (end(param)); every job's check
    must pass. `kind` names the figures' source key ("<kind>_cycles_source")."""
    from ip.acc.dv.lockstep import IssBackend, compare
    progs = [(w, img, cyc) for _, w, img, cyc, _ in jobs]
    runs = [IssBackend(mem, mem).run(*j) for j in progs]
    if rtl:
        from ip.acc.dv.rtl_runner import RtlBackend
        for (key, *_), r_iss, r_rtl in zip(jobs, runs, RtlBackend(mem, mem).run_many(progs)):
            diffs = compare(r_iss, r_rtl, ("iss", "rtl"))
            if diffs:
                raise AssertionError(f"{key}: ISS and RTL differ: {diffs[:3]}")
    out = {}
    for p, r, (key, words, *_, check) in zip(params, runs, jobs):
        err = check(r)
        if err:
            raise AssertionError(f"{key}: {err}")
        out[f"{key}_cycles"] = r.cycles
        out[f"{key}_imem_bytes"] = 4 * len(words)
        out[f"{key}_dmem_bytes"] = end(p)
    out[f"{kind}_cycles_source"] = "ISS = RTL (Verilator), equal by check" if rtl else "ISS only"
    return out


def measure_mlkem_keygen(rtl: bool = False, seed: int = 7, params=(512, 768, 1024)) -> dict:
    """ML-KEM keygen per parameter set as one ACC program (measure_programs); ek / dk checked
    against kyber-py."""
    from ip.acc.kernels.mlkem.keygen import keygen
    jobs = [j for p in params for j in mlkem_keygen_jobs(p, seed)]
    return measure_programs("mlkem_keygen", jobs, params, lambda p: keygen(p).END, MLKEM_MEM, rtl)


def mlkem_encaps_jobs(param: int, seed: int = 7, mem: int = MLKEM_MEM) -> list:
    """ML-KEM-<param> Encaps_internal(ek, m) (kernels/mlkem/encaps.py), ek from kyber-py's
    keygen and m from `seed`: [(key, words, DMEM image of `mem` bytes, max cycles,
    check(result) -> error or None)], K and c checked against kyber-py."""
    from kyber_py.ml_kem import ML_KEM_512, ML_KEM_768, ML_KEM_1024
    from ip.acc.kernels.mlkem.encaps import encaps
    ref = {512: ML_KEM_512, 768: ML_KEM_768, 1024: ML_KEM_1024}[param]
    en = encaps(param)
    rnd = random.Random(seed)
    ek, _ = ref._keygen_internal(rnd.randbytes(32), rnd.randbytes(32))
    m = rnd.randbytes(32)
    want = ref._encaps_internal(ek, m)
    words = assemble(en.program(), f"mlkem{param}_encaps.s")

    def check(r):
        if r.halt != "ecall":
            return f"halted by {r.halt} (err {r.err_bits:#x})"
        K, c = en.outputs(r.dmem)
        return None if (K, c) == want else \
            f"K {'=' if K == want[0] else '!='} kyber-py, c {'=' if c == want[1] else '!='} kyber-py"
    return [(f"mlkem{param}_encaps", words, image(en.image(ek, m), mem), 100_000, check)]


def measure_mlkem_encaps(rtl: bool = False, seed: int = 7, params=(512, 768, 1024)) -> dict:
    """ML-KEM encaps per parameter set as one ACC program (measure_programs); K and c checked
    against kyber-py."""
    from ip.acc.kernels.mlkem.encaps import encaps
    jobs = [j for p in params for j in mlkem_encaps_jobs(p, seed)]
    return measure_programs("mlkem_encaps", jobs, params, lambda p: encaps(p).END, MLKEM_MEM, rtl)


MLDSA_KEYGEN_MEM = acc_block.DMEM_SIZE   # IMEM and DMEM of the keygen programs (taped out)


def mldsa_keygen_jobs(param: int, seed: int = 7, mem: int = MLDSA_KEYGEN_MEM) -> list:
    """ML-DSA-<param> KeyGen_internal(xi) (kernels/mldsa/keygen.py), xi from `seed`:
    [(key, words, DMEM image of `mem` bytes, max cycles, check(result) -> error or None)],
    pk and sk checked against dilithium-py."""
    from dilithium_py.ml_dsa import ML_DSA_44, ML_DSA_65, ML_DSA_87
    from ip.acc.kernels.mldsa.keygen import keygen
    ref = {44: ML_DSA_44, 65: ML_DSA_65, 87: ML_DSA_87}[param]
    kg = keygen(param)
    xi = random.Random(seed).randbytes(32)
    want = ref._keygen_internal(xi)
    words = assemble(kg.program(), f"mldsa{param}_keygen.s")

    def check(r):
        if r.halt != "ecall":
            return f"halted by {r.halt} (err {r.err_bits:#x})"
        pk, sk = kg.outputs(r.dmem)
        return None if (pk, sk) == want else \
            f"pk {'=' if pk == want[0] else '!='} dilithium-py, sk {'=' if sk == want[1] else '!='} dilithium-py"
    return [(f"mldsa{param}_keygen", words, image(kg.image(xi), mem), 500_000, check)]


def measure_mldsa_keygen(rtl: bool = False, seed: int = 7, params=(44, 65, 87)) -> dict:
    """ML-DSA keygen per parameter set as one ACC program (measure_programs); pk / sk checked
    against dilithium-py. The count depends on rho only (public: RejNTTPoly's and
    RejBoundedPoly's rejections) up to the measured sampler stalls of ip/acc/README.md."""
    from ip.acc.kernels.mldsa.keygen import keygen
    jobs = [j for p in params for j in mldsa_keygen_jobs(p, seed)]
    return measure_programs("mldsa_keygen", jobs, params, lambda p: keygen(p).END, MLDSA_KEYGEN_MEM, rtl)


def mldsa_verify_jobs(param: int, seed: int = 7, mem: int = MLDSA_KEYGEN_MEM) -> list:
    """ML-DSA-<param> Verify_internal(pk, M', sigma) (kernels/mldsa/verify.py) on a signature
    by dilithium-py (key, M' and rnd from `seed`): [(key, words, DMEM image of `mem` bytes,
    max cycles, check(result) -> error or None)]; the check wants STATUS_VALID."""
    from dilithium_py.ml_dsa import ML_DSA_44, ML_DSA_65, ML_DSA_87
    from ip.acc.kernels.mldsa.verify import STATUS_NAMES, STATUS_VALID, verify
    ref = {44: ML_DSA_44, 65: ML_DSA_65, 87: ML_DSA_87}[param]
    v = verify(param)
    rnd = random.Random(seed)
    pk, sk = ref._keygen_internal(rnd.randbytes(32))
    msg = bytes([0, 3]) + b"ctx" + rnd.randbytes(33)
    sig = ref._sign_internal(sk, msg, rnd.randbytes(32))
    words = assemble(v.program(), f"mldsa{param}_verify.s")

    def check(r):
        if r.halt != "ecall":
            return f"halted by {r.halt} (err {r.err_bits:#x})"
        st = v.status(r.dmem)
        return None if st == STATUS_VALID else \
            f"status {st} ({STATUS_NAMES.get(st, '?')}), want valid"
    return [(f"mldsa{param}_verify", words, image(v.image(pk, sig, msg_prime=msg), mem), 500_000,
             check)]


def measure_mldsa_verify(rtl: bool = False, seed: int = 7, params=(44, 65, 87)) -> dict:
    """ML-DSA verify per parameter set as one ACC program (measure_programs), a valid
    signature by dilithium-py. The count depends on public data only (the signature's hint
    count, SampleInBall's rejections, the message length)."""
    from ip.acc.kernels.mldsa.verify import verify
    jobs = [j for p in params for j in mldsa_verify_jobs(p, seed)]
    return measure_programs("mldsa_verify", jobs, params, lambda p: verify(p).END,
                            MLDSA_KEYGEN_MEM, rtl)


def dsa_sign_stages(sk: bytes, msg: bytes, rnd: bytes, param: int = 65):
    """dilithium-py's ML-DSA-<param> (44 or 65) sign_internal loop, instrumented (same steps
    as its _sign_internal; the signature is checked equal to it): the stage each iteration
    ended at ('z', 'r0', 'ct0', 'hint' = rejected there, 'ok') and the signature."""
    from dilithium_py import ml_dsa
    DSA = {44: ml_dsa.ML_DSA_44, 65: ml_dsa.ML_DSA_65, 87: ml_dsa.ML_DSA_87}[param]
    rho, key, tr, s1, s2, t0 = DSA._unpack_sk(sk)
    s1_hat, s2_hat, t0_hat = s1.to_ntt(), s2.to_ntt(), t0.to_ntt()
    A_hat = DSA._expand_matrix_from_seed(rho)
    mu = DSA._h(tr + msg, 64)
    rhopp = DSA._h(key + rnd + mu, 64)
    kappa, alpha, out = 0, 2 * DSA.gamma_2, []
    while True:
        y = DSA._expand_mask_vector(rhopp, kappa)
        w = (A_hat @ y.to_ntt()).from_ntt()
        kappa += DSA.l
        c_tilde = DSA._h(mu + w.high_bits(alpha).bit_pack_w(DSA.gamma_2), DSA.c_tilde_bytes)
        c_hat = DSA.R.sample_in_ball(c_tilde, DSA.tau).to_ntt()
        z = y + s1_hat.scale(c_hat).from_ntt()
        if z.check_norm_bound(DSA.gamma_1 - DSA.beta):
            out.append("z")
            continue
        w_cs2 = w - s2_hat.scale(c_hat).from_ntt()
        if w_cs2.low_bits(alpha).check_norm_bound(DSA.gamma_2 - DSA.beta):
            out.append("r0")
            continue
        c_t0 = t0_hat.scale(c_hat).from_ntt()
        if c_t0.check_norm_bound(DSA.gamma_2):
            out.append("ct0")
            continue
        h = (-c_t0).make_hint(w_cs2 + c_t0, alpha)
        if h.sum_hint() > DSA.omega:
            out.append("hint")
            continue
        out.append("ok")
        sig = DSA._pack_sig(c_tilde, z, h)
        if sig != DSA._sign_internal(sk, msg, rnd):
            raise AssertionError("instrumented loop differs from dilithium-py's sign")
        return out, sig


MLDSA_MEM = acc_block.LARGE_DMEM_SIZE   # IMEM and DMEM of the signing program (kernels/mldsa/sign.py)
# program -> (module, IMEM = DMEM bytes of its ACC): sign16 fits the taped-out memories
SIGN_PROGRAMS = {"sign": ("sign", MLDSA_MEM), "sign16": ("sign16", acc_block.DMEM_SIZE)}


def measure_mldsa_sign(n: int = 50, seed: int = 1, msg_len: int = 33, progress=None,
                       program: str = "sign", param: int = 65) -> dict:
    """ML-DSA-65 Sign_internal as one ACC program on the ISS (RTL not run: ~100 k+ cycles
    per signature): n signatures, a fresh key, message (msg_len bytes, as M') and rnd each
    from random.Random(seed); every signature compared byte for byte with dilithium-py's
    and verified. Cycles: min / median / mean / max; iteration counts from dilithium-py's
    loop (and the program's final kappa = 5 x iterations). program: "sign" (kernels/mldsa/
    sign.py, 32 KiB memories; keys mldsa65_sign_*) or "sign16" (sign16.py, the 16 KiB
    ones; keys mldsa65_sign16_*). param 44 / 87: ML-DSA-44 / -87 by sign16 (keys
    mldsa44_sign16_* / mldsa87_sign16_*; final kappa = l x iterations)."""
    import importlib
    import statistics
    from dilithium_py import ml_dsa
    from ip.acc.iss import Iss
    if param != 65 and program != "sign16":
        raise ValueError(f"ML-DSA-{param} signing: only the sign16 program takes that set")
    DSA = {44: ml_dsa.ML_DSA_44, 65: ml_dsa.ML_DSA_65, 87: ml_dsa.ML_DSA_87}[param]
    modname, mem = SIGN_PROGRAMS[program]
    mod = importlib.import_module(f"ip.acc.kernels.mldsa.{modname}")
    ms = mod.signer(param) if program == "sign16" else mod
    src = ms.program() if program == "sign16" else ms.sign_program()
    words = assemble(src, f"mldsa{param}_{modname}.s")
    assert 4 * len(words) <= mem and ms.END <= mem
    rng = random.Random(seed)
    cycles, iters, stages = [], [], {}
    for k in range(n):
        pk, sk = DSA._keygen_internal(rng.randbytes(32))
        msg, rnd = rng.randbytes(msg_len), rng.randbytes(32)
        st, ref = dsa_sign_stages(sk, msg, rnd, param)
        sim = Iss(dmem_size=mem, imem_size=mem)
        sim.load_program(words)
        for a, b in ms.image(sk, msg, rnd).items():
            sim.dmem.write_bytes(a, b)
        h = sim.run(max_cycles=10_000_000)
        sig = sim.dmem.read_bytes(ms.SIG, ms.SIG_LEN)
        kappa = int.from_bytes(sim.dmem.read_bytes(mod.KAPPA, 4), "little")
        if not h.ok or sig != ref or kappa != DSA.l * len(st) or \
                not DSA._verify_internal(pk, msg, sig):
            raise AssertionError(f"ML-DSA-{param} sign #{k}: wrong result ({h}, kappa {kappa}, "
                                 f"{len(st)} iterations)")
        cycles.append(h.cycles)
        iters.append(len(st))
        for s in st[:-1]:
            stages[s] = stages.get(s, 0) + 1
        if progress:
            progress(k, h.cycles, len(st))
    dist = {i: iters.count(i) for i in sorted(set(iters))}
    p = f"mldsa{param}_{modname}"
    return {k.replace("mldsa65_sign", p, 1): v for k, v in {
            "mldsa65_sign_n": n,
            "mldsa65_sign_cycles_median": statistics.median(cycles),
            "mldsa65_sign_cycles_mean": round(statistics.mean(cycles)),
            "mldsa65_sign_cycles_min": min(cycles),
            "mldsa65_sign_cycles_max": max(cycles),
            "mldsa65_sign_iterations_median": statistics.median(iters),
            "mldsa65_sign_iterations_mean": round(statistics.mean(iters), 2),
            "mldsa65_sign_iterations_dist": dist,
            "mldsa65_sign_rejections_by_stage": stages,
            "mldsa65_sign_imem_bytes": 4 * len(words),
            "mldsa65_sign_dmem_bytes": ms.END,
            "mldsa65_sign_cycles_source": "ISS only (cycle-accurate golden model)",
            "mldsa65_sign_note": ("one ACC program: mu, rho'' (KMAC), skDecode + NTT, the "
                                  "rejection loop with its control, sigEncode; M' of "
                                  f"{msg_len} bytes, a fresh key per signature; IMEM and "
                                  f"DMEM of {mem // 1024} KiB")}.items()}


def main(argv=None):
    import argparse
    import json
    import sys
    import time
    ap = argparse.ArgumentParser(prog="python -m ip.acc.dv.jobs",
                                 description="ACC cycle figures (ISS / RTL)")
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("mldsa65_sign", help="ML-DSA-65 signing program, N signatures (ISS)")
    p.add_argument("--n", type=int, default=50)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--msg-len", type=int, default=33)
    p.add_argument("--program", choices=sorted(SIGN_PROGRAMS), default="sign",
                   help="sign: 32 KiB memories; sign16: the taped-out 16 KiB ones")
    p.add_argument("--json", help="write the figures to this file")
    for param in (44, 87):
        p = sub.add_parser(f"mldsa{param}_sign", help=f"ML-DSA-{param} signing program (sign16, "
                           "the 16 KiB memories), N signatures (ISS)")
        p.add_argument("--n", type=int, default=50)
        p.add_argument("--seed", type=int, default=1)
        p.add_argument("--msg-len", type=int, default=33)
        p.add_argument("--json", help="write the figures to this file")
    p = sub.add_parser("mlkem_keygen", help="ML-KEM-512/768/1024 keygen programs (ISS, --rtl: also RTL)")
    p.add_argument("--rtl", action="store_true")
    p.add_argument("--seed", type=int, default=7)
    p = sub.add_parser("mlkem_encaps", help="ML-KEM-512/768/1024 encaps programs (ISS, --rtl: also RTL)")
    p.add_argument("--rtl", action="store_true")
    p.add_argument("--seed", type=int, default=7)
    p = sub.add_parser("mlkem_decaps", help="ML-KEM-512/768/1024 decaps programs (ISS, --rtl: also RTL)")
    p.add_argument("--rtl", action="store_true")
    p.add_argument("--seed", type=int, default=7)
    p.add_argument("--param", type=int, action="append", choices=(512, 768, 1024),
                   help="only these sets (repeatable; default all)")
    p = sub.add_parser("mldsa_keygen", help="ML-DSA-44/65/87 keygen programs (ISS, --rtl: also RTL)")
    p.add_argument("--rtl", action="store_true")
    p.add_argument("--seed", type=int, default=7)
    p = sub.add_parser("mldsa_verify", help="ML-DSA-44/65/87 verify programs (ISS, --rtl: also RTL)")
    p.add_argument("--rtl", action="store_true")
    p.add_argument("--seed", type=int, default=7)
    a = ap.parse_args(argv)
    if a.cmd == "mldsa_verify":
        print(json.dumps(measure_mldsa_verify(a.rtl, a.seed), indent=1))
        return
    if a.cmd == "mldsa_keygen":
        print(json.dumps(measure_mldsa_keygen(a.rtl, a.seed), indent=1))
        return
    if a.cmd == "mlkem_keygen":
        print(json.dumps(measure_mlkem_keygen(a.rtl, a.seed), indent=1))
        return
    if a.cmd == "mlkem_decaps":
        print(json.dumps(measure_mlkem_decaps_sets(a.rtl, a.seed, tuple(a.param or (512, 768, 1024))),
                         indent=1))
        return
    if a.cmd == "mlkem_encaps":
        print(json.dumps(measure_mlkem_encaps(a.rtl, a.seed), indent=1))
        return
    t0 = time.time()

    def progress(k, cyc, it):
        print(f"  {k + 1:4d}/{a.n}: {cyc:7d} cycles, {it:2d} iterations "
              f"({time.time() - t0:.0f} s)", file=sys.stderr, flush=True)
    if a.cmd in ("mldsa44_sign", "mldsa87_sign"):
        out = measure_mldsa_sign(a.n, a.seed, a.msg_len, progress, "sign16", int(a.cmd[5:7]))
    else:
        out = measure_mldsa_sign(a.n, a.seed, a.msg_len, progress, a.program)
    print(json.dumps(out, indent=1))
    if a.json:
        with open(a.json, "w") as f:
            json.dump(out, f, indent=1)


if __name__ == "__main__":
    main()
