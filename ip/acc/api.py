# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""Host API of the ACC's ML-KEM programs (FIPS 203 KeyGen_internal, Encaps_internal,
Decaps_internal) and ML-DSA programs (FIPS 204 KeyGen_internal, Sign, Verify): what `pqsoc
mlkem` and `pqsoc mldsa` run, and what a host script calls.

    from ip.acc import api
    r = api.mlkem_keygen(768, d, z)             # {"ek", "dk", "cycles"}
    r = api.mlkem_encaps(768, ek, m)            # {"K", "c", "cycles"}
    r = api.mlkem_decaps(768, dk, c)            # {"K", "cycles"}
    r = api.mlkem_decaps(768, dk, c, masked=True)   # the same, first-order masked
    r = api.mldsa_keygen(65, xi)                # {"pk", "sk", "cycles"}
    r = api.mldsa_sign(65, sk, msg, ctx=b"", rnd=None)  # {"sig", "cycles", "iterations"}
    r = api.mldsa_verify(65, pk, msg, sig, ctx=b"")   # {"valid", "status", "cycles"}
    r = api.mlkem_check_ek(768, ek)             # {"valid", "check", "reason"} (host-side)
    r = api.mlkem_check_dk(768, dk)             # {"valid", "check", "reason"} (host-side)

Each call builds the program for the parameter set (ip/acc/kernels/mlkem: keygen.py,
encaps.py, decaps.py; ip/acc/kernels/mldsa: keygen.py, sign16.py, verify.py), loads it and
its inputs into the taped-out memories (ip/acc/block.py: 16 KiB IMEM, 16 KiB DMEM) and runs it
on an engine: "iss" (the cycle-accurate ISS), "rtl" (the ACC's RTL in Verilator: the same
cycles, checked against the ISS) or "gls" (the ACC's synthesized netlist, `pqsoc synth acc`,
at gate level in Verilator: the same cycles, checked against the ISS; slow to build once). ML-DSA signing and verifying: pure ML-DSA with a context
(M' = 0 || len(ctx) || ctx || M formed by the host), M' given by the caller (mprime=:
Sign_internal / Verify_internal, FIPS 204 Alg. 7 / 8, e.g. HashML-DSA's M' formed by the
caller), HashML-DSA (prehash=: the pre-hash M' formed by the host, hash_mldsa_mprime) or from
an external mu; signing hedged (rnd given) or deterministic (rnd None: 32 zero
bytes), for ML-DSA-44, -65 and -87 (kernels/mldsa/sign16.py). The ML-KEM key checks of FIPS
203 7.2 / 7.3 as standalone calls (mlkem_check_ek / mlkem_check_dk) run on the host in Python,
no program. Inputs of a wrong length (FIPS 203 7.2 / 7.3 type checks: the host's), a
parameter set without a program, a run that does not end in `ecall`, or a program whose
status word (ip/acc/kernels/mlkem/status.py, at its layout's `status_addr`; sign16's STATUS)
is not OK raise ApiError with a message naming the problem (BadInput, a subclass, for the
caller's inputs), e.g. "mlkem768_encaps: ek check failed: a coefficient >= q (FIPS 203 7.2)"
(encaps checks ek's modulus, decaps the H(ek) inside dk, in the programs). The SoC engine
(the firmware API on the simulated SoC) is a floor up: the mlkem_* and mldsa_* functions take
engine="soc" themselves (after the same input checks) through MLKEM_SOC_ENGINE /
MLDSA_SOC_ENGINE, which the command line plugs in from a floor up (sim/mlkem_soc.py,
sim/mldsa_soc.py: the firmware's pqc_* calls; they add "cpu_cycles"). There an M' over the
program's buffer is taken too (up to SOC_MPRIME_MAX): the firmware streams its mu through the
KMAC block and runs the program from mu.
"""
import hashlib

from ip.acc import block as acc_block

PARAMS = (512, 768, 1024)
ENGINES = ("iss", "rtl", "gls")
MEM = acc_block.DMEM_SIZE


class ApiError(ValueError):
    pass


class BadInput(ApiError):
    """The caller's input is unusable (length, range); the program was not run."""


def _k(param: int) -> int:
    if param not in PARAMS:
        raise ApiError(f"ML-KEM-{param}: no such parameter set (one of {', '.join(map(str, PARAMS))})")
    return {512: 2, 768: 3, 1024: 4}[param]


def _need(name: str, value: bytes, length: int) -> None:
    if len(value) != length:
        raise ApiError(f"{name} is {len(value)} bytes, ML-KEM needs {length}")


def sizes(param: int) -> dict:
    """FIPS 203 byte lengths of ek, dk and c for the parameter set."""
    k = _k(param)
    du, dv = (11, 5) if k == 4 else (10, 4)
    return {"ek": 384 * k + 32, "dk": 768 * k + 96, "c": 32 * (du * k + dv), "seed": 32}


def _image(dm: dict, name: str) -> bytes:
    """The DMEM image of the taped-out memory; a blob past its end is refused (never a
    silent grow or overlap)."""
    from ip.acc.dv.jobs import image
    try:
        return image(dm, MEM)
    except ValueError as e:
        raise ApiError(f"{name}: {e}") from None


def _status(prog, r, name: str) -> None:
    """The program's status word (ip/acc/kernels/mlkem/status.py): ApiError naming the
    failed FIPS 203 section 7 check unless OK."""
    from ip.acc.kernels.mlkem import status
    code = status.read(r.dmem, prog.status_addr)
    if code != status.OK:
        raise ApiError(f"{name}: {status.message(code)}")


_RTL = []


def _rtl_backend():
    """One RTL backend per process: making one emits the ACC's Verilog (seconds), which the
    calls of a session share."""
    if not _RTL:
        from ip.acc.dv.rtl_runner import RtlBackend
        _RTL.append(RtlBackend(acc_block.IMEM_SIZE, MEM))
    return _RTL[0]


_GLS = []


def _gls_backend():
    """One gate-level backend per process: the netlist `pqsoc synth acc` wrote (refused when
    missing or stale), in the harness of `pqsoc gls acc` (ip/acc/dv/gls.py; its model cached by
    the netlist's hash), random initial state seed 1."""
    if not _GLS:
        import sys
        from ip.acc.dv.gls import acc_backend
        from pqsoc import FlowError
        try:
            _GLS.append(acc_backend(1, log=lambda s: print(s, file=sys.stderr, flush=True)))
        except FlowError as e:
            raise ApiError(f"engine gls: {e}") from None
    return _GLS[0]


def _run(program: str, dm: dict, engine: str, name: str, max_cycles: int = 1_000_000, entropy=()):
    from ip.acc.dv.lockstep import IssBackend, compare
    from ip.acc.tools.asm import assemble
    if engine not in ENGINES:
        raise ApiError(f"engine {engine!r}: one of {', '.join(ENGINES)}")
    words = assemble(program, f"{name}.s")
    if 4 * len(words) > acc_block.IMEM_SIZE:
        raise ApiError(f"{name}: the program is {4 * len(words)} bytes, IMEM holds {acc_block.IMEM_SIZE}")
    job = (words, _image(dm, name), max_cycles, tuple(entropy))
    r = IssBackend(acc_block.IMEM_SIZE, MEM).run(*job)
    if engine in ("rtl", "gls"):
        other = (_rtl_backend() if engine == "rtl" else _gls_backend()).run_many([job])[0]
        diffs = compare(r, other, ("iss", engine))
        if diffs:
            what = "RTL" if engine == "rtl" else "gate-level netlist"
            raise ApiError(f"{name}: the {what} differs from the ISS: {diffs[:3]}")
        r = other
    if r.halt != "ecall":
        raise ApiError(f"{name}: the program stopped by {r.halt} (ERR_BITS {r.err_bits:#x})")
    return r


# engine "soc" for ML-KEM: as MLDSA_SOC_ENGINE below (sim/mlkem_soc.py, plugged in by
# pqsoc/cli/mlkem.py): run(op, param, (in1, in2)) -> dict, raising ApiError for its failures.
MLKEM_SOC_ENGINE = None


def _mlkem_soc(op: str, param: int, ins: tuple, **kw) -> dict:
    if MLKEM_SOC_ENGINE is None:
        raise ApiError("engine soc: not plugged in at this floor (ip.acc.api.MLKEM_SOC_ENGINE; "
                       "`pqsoc mlkem ... --engine soc` plugs in sim/mlkem_soc.py)")
    return MLKEM_SOC_ENGINE(op, param, ins, **kw)


def mlkem_keygen(param: int, d: bytes, z: bytes, engine: str = "iss") -> dict:
    from ip.acc.kernels.mlkem.keygen import keygen
    _need("d", d, 32)
    _need("z", z, 32)
    _k(param)
    if engine == "soc":
        return _mlkem_soc("keygen", param, (d, z))
    kg = keygen(param)
    r = _run(kg.program(), kg.image(d, z), engine, f"mlkem{param}_keygen")
    _status(kg, r, f"mlkem{param}_keygen")
    ek, dk = kg.outputs(r.dmem)
    return {"ek": ek, "dk": dk, "cycles": r.cycles}


def mlkem_encaps(param: int, ek: bytes, m: bytes, engine: str = "iss") -> dict:
    from ip.acc.kernels.mlkem.encaps import encaps
    _need("ek", ek, sizes(param)["ek"])
    _need("m", m, 32)
    if engine == "soc":
        return _mlkem_soc("encaps", param, (ek, m))
    en = encaps(param)
    r = _run(en.program(), en.image(ek, m), engine, f"mlkem{param}_encaps")
    _status(en, r, f"mlkem{param}_encaps")
    K, c = en.outputs(r.dmem)
    return {"K": K, "c": c, "cycles": r.cycles}


def mlkem_decaps(param: int, dk: bytes, c: bytes, engine: str = "iss", masked: bool = False,
                 rng=None) -> dict:
    """masked: the first-order masked program (ip/acc/kernels/mlkem/masked_decaps.py): dk's
    s_hat and z split into fresh shares on the host (mask_dk: what a key store keeping dk
    masked would hold), 256 bits of entropy for URND's seed, K = K0 ^ K1 of its shares; rng
    (default secrets.SystemRandom()) gives the shares and the entropy (engine soc: the
    firmware's pqc_mlkem_decaps_masked, its DRBG seeded from 48 bytes of rng)."""
    from ip.acc.kernels.mlkem.decaps import decaps
    n = sizes(param)
    _need("dk", dk, n["dk"])
    _need("c", c, n["c"])
    if masked:
        return _mlkem_decaps_masked(param, dk, c, engine, rng)
    if engine == "soc":
        return _mlkem_soc("decaps", param, (dk, c))
    de = decaps(param)
    r = _run(de.program(), de.image(dk, c), engine, f"mlkem{param}_decaps")
    _status(de, r, f"mlkem{param}_decaps")
    return {"K": de.outputs(r.dmem), "cycles": r.cycles}


def _mlkem_decaps_masked(param: int, dk: bytes, c: bytes, engine: str, rng) -> dict:
    import secrets
    from ip.acc.kernels.mlkem.masked_decaps import MaskedDecaps
    rng = rng or secrets.SystemRandom()
    md = MaskedDecaps(param)
    name = f"mlkem{param}_decaps_masked"
    if engine == "soc":       # the firmware's pqc_mlkem_decaps_masked, its DRBG seeded from rng
        r = _mlkem_soc("decaps_masked", param, (md.mask_dk(dk, rng), c), drbg_seed=rng.randbytes(48))
        return {"K": bytes(a ^ b for a, b in zip(r.pop("K0"), r.pop("K1"))), **r}
    r = _run(md.program(), md.image(md.mask_dk(dk, rng), c), engine, name,
             entropy=[rng.getrandbits(32) for _ in range(8)])
    _status(md, r, name)
    k0, k1 = md.outputs(r.dmem)
    return {"K": bytes(a ^ b for a, b in zip(k0, k1)), "cycles": r.cycles}


Q = 3329


def _byte_decode12(b: bytes) -> list[int]:
    """ByteDecode_12 (FIPS 203 Alg. 6, d = 12: each 12-bit value taken mod q)."""
    out = []
    for i in range(0, len(b), 3):
        x = b[i] | b[i + 1] << 8 | b[i + 2] << 16
        out += [(x & 0xFFF) % Q, (x >> 12) % Q]
    return out


def _byte_encode12(f: list[int]) -> bytes:
    """ByteEncode_12 (FIPS 203 Alg. 5, d = 12): two 12-bit values in three bytes."""
    out = bytearray()
    for i in range(0, len(f), 2):
        out += (f[i] | f[i + 1] << 12).to_bytes(3, "little")
    return bytes(out)


def mlkem_check_ek(param: int, ek: bytes) -> dict:
    """FIPS 203 7.2 encapsulation key check, computed on the host in Python (no program on the
    ACC; hashlib only, written from FIPS 203, not kyber-py): the type check (ek is 384k + 32
    bytes: BadInput naming ek otherwise) and the modulus check ByteEncode_12(ByteDecode_12(
    ek[0:384k])) == ek[0:384k], i.e. every 12-bit coefficient of t_hat below q. Returns
    {"valid", "check", "reason"} ("reason": the first coefficient >= q, or "")."""
    k = _k(param)
    n = sizes(param)["ek"]
    if len(ek) != n:
        raise BadInput(f"ek is {len(ek)} bytes, ML-KEM-{param} needs {n}")
    t = bytes(ek[:384 * k])
    valid = _byte_encode12(_byte_decode12(t)) == t
    reason = ""
    if not valid:
        raw = [(t[i] | t[i + 1] << 8 | t[i + 2] << 16) >> s & 0xFFF
               for i in range(0, len(t), 3) for s in (0, 12)]
        j = next(i for i, v in enumerate(raw) if v >= Q)
        reason = f"coefficient {j} of t_hat is {raw[j]} >= q = {Q}"
    return {"valid": valid, "check": "FIPS 203 7.2 modulus check", "reason": reason}


def mlkem_check_dk(param: int, dk: bytes) -> dict:
    """FIPS 203 7.3 decapsulation key check, computed on the host in Python (no program on the
    ACC; hashlib's SHA3-256 as H, written from FIPS 203, not kyber-py): the type check (dk is
    768k + 96 bytes: BadInput naming dk otherwise) and the hash check H(dk[384k : 768k + 32])
    == dk[768k + 32 : 768k + 64], the H(ek) stored in dk. Returns {"valid", "check",
    "reason"}."""
    import hashlib
    k = _k(param)
    n = sizes(param)["dk"]
    if len(dk) != n:
        raise BadInput(f"dk is {len(dk)} bytes, ML-KEM-{param} needs {n}")
    ek = bytes(dk[384 * k:768 * k + 32])
    valid = hashlib.sha3_256(ek).digest() == bytes(dk[768 * k + 32:768 * k + 64])
    return {"valid": valid, "check": "FIPS 203 7.3 hash check",
            "reason": "" if valid else "H(ek) differs from the hash stored in dk"}


MLDSA_PARAMS = (44, 65, 87)
MLDSA_ENGINES = ENGINES + ("soc",)


# engine "soc": the firmware API on the simulated SoC lives a floor up (sim/mldsa_soc.py), so
# the floor that uses it plugs it in here (pqsoc/cli/mlkem.py): run(op, param, ins) -> dict,
# raising ApiError for its failures.
MLDSA_SOC_ENGINE = None


def _mldsa_soc(op: str, param: int, ins: dict) -> dict:
    if MLDSA_SOC_ENGINE is None:
        raise ApiError("engine soc: not plugged in at this floor (ip.acc.api.MLDSA_SOC_ENGINE; "
                       "`pqsoc mldsa ... --engine soc` plugs in sim/mldsa_soc.py)")
    return MLDSA_SOC_ENGINE(op, param, ins)


def _mldsa_engine(engine: str) -> None:
    if engine not in MLDSA_ENGINES:
        raise ApiError(f"engine {engine!r}: one of {', '.join(MLDSA_ENGINES)}")


def mldsa_keygen(param: int, xi: bytes, engine: str = "iss") -> dict:
    from ip.acc.kernels.mldsa.keygen import keygen
    if param not in MLDSA_PARAMS:
        raise ApiError(f"ML-DSA-{param}: no such parameter set (one of {', '.join(map(str, MLDSA_PARAMS))})")
    if len(xi) != 32:
        raise ApiError(f"xi is {len(xi)} bytes, ML-DSA needs 32")
    _mldsa_engine(engine)
    if engine == "soc":
        return _mldsa_soc("keygen", param, {"xi": bytes(xi)})
    kg = keygen(param)
    r = _run(kg.program(), kg.image(xi), engine, f"mldsa{param}_keygen")
    pk, sk = kg.outputs(r.dmem)
    return {"pk": pk, "sk": sk, "cycles": r.cycles}


# HashML-DSA's pre-hash functions (FIPS 204 5.4, named as in NIST's ACVP vectors): hashlib's
# name, its output bytes (None: the hash's own), the last arc n of the hash's OID
# 2.16.840.1.101.3.4.2.n (DER: PREHASH_OID_PREFIX || n).
PREHASH = {
    "SHA2-256": ("sha256", None, 1), "SHA2-384": ("sha384", None, 2),
    "SHA2-512": ("sha512", None, 3), "SHA2-224": ("sha224", None, 4),
    "SHA2-512/224": ("sha512_224", None, 5), "SHA2-512/256": ("sha512_256", None, 6),
    "SHA3-224": ("sha3_224", None, 7), "SHA3-256": ("sha3_256", None, 8),
    "SHA3-384": ("sha3_384", None, 9), "SHA3-512": ("sha3_512", None, 10),
    "SHAKE-128": ("shake_128", 32, 11), "SHAKE-256": ("shake_256", 64, 12),
}
PREHASH_OID_PREFIX = bytes.fromhex("06096086480165030402")


def hash_mldsa_mprime(prehash: str, msg: bytes, ctx: bytes = b"") -> bytes:
    """HashML-DSA's M' (FIPS 204 Alg. 4 / 5): 1 || len(ctx) || ctx || OID(PH) || PH(msg), PH
    computed on the host (hashlib; the firmware API computes the SHA-3 / SHAKE ones on the KMAC
    block, firmware/lib/pqc_mldsa_msg.c). BadInput for an unknown pre-hash or a context over
    255 bytes."""
    if prehash not in PREHASH:
        raise BadInput(f"pre-hash {prehash!r}: one of {', '.join(PREHASH)}")
    if len(ctx) > 255:
        raise BadInput(f"the context is {len(ctx)} bytes, ML-DSA allows at most 255")
    name, out, n = PREHASH[prehash]
    h = hashlib.new(name, bytes(msg))
    return bytes([1, len(ctx)]) + bytes(ctx) + PREHASH_OID_PREFIX + bytes([n]) + \
        (h.digest(out) if out else h.digest())


# Engine "soc": the firmware streams mu = H(tr || M', 64) of an M' over the program's buffer
# through the KMAC block (firmware/lib/pqc.h pqc_mldsa_mu_*), so M' is bounded only by the
# simulation ROM that carries the call's inputs (NIST's vectors: at most 8 192 + 257 bytes).
SOC_MPRIME_MAX = 16384


def _msg_limit(engine: str, program_max: int, program: str) -> tuple[int, str]:
    """The longest M' an engine takes and what sets it: the program's buffer, or on the SoC
    SOC_MPRIME_MAX."""
    return (SOC_MPRIME_MAX, "soc engine's ROM") if engine == "soc" else (program_max, program)


def _m_prime(msg, ctx: bytes, mu, msg_max: int, program: str, mprime=None, prehash=None) -> bytes:
    """M' = 0 || len(ctx) || ctx || msg (FIPS 204 Alg. 2 / 3, pure ML-DSA), HashML-DSA's M' of
    msg and ctx with a pre-hash (Alg. 4 / 5), mprime itself when given (Sign_internal /
    Verify_internal on the caller's M'), b"" with an external mu; BadInput for a missing or
    doubled input, a context over 255 bytes, an unknown pre-hash, a mu not 64 bytes, or an M'
    over the program's buffer (msg_max bytes)."""
    if prehash is not None:
        if mprime is not None or mu is not None or msg is None:
            raise BadInput("a pre-hash goes with the message (and context), not with M' or mu")
        mprime, msg, ctx = hash_mldsa_mprime(prehash, msg, ctx), None, b""
    if mprime is not None:
        if msg is not None or ctx or mu is not None:
            raise BadInput("give M' (mprime) alone, not with the message, context or mu")
        if len(mprime) > msg_max:
            raise BadInput(f"M' is {len(mprime)} bytes, the {program} takes at most {msg_max} "
                           "(give mu instead)")
        return bytes(mprime)
    if mu is not None:
        if msg is not None or ctx:
            raise BadInput("give either mu or the message (and context), not both")
        if len(mu) != 64:
            raise BadInput(f"mu is {len(mu)} bytes, ML-DSA needs 64")
        return b""
    if msg is None:
        raise BadInput("give the message (or mu)")
    if len(ctx) > 255:
        raise BadInput(f"the context is {len(ctx)} bytes, ML-DSA allows at most 255")
    m_prime = bytes([0, len(ctx)]) + bytes(ctx) + bytes(msg)
    if len(m_prime) > msg_max:
        raise BadInput(f"M' (0 || len(ctx) || ctx || msg) is {len(m_prime)} bytes, the "
                       f"{program} takes at most {msg_max} (give mu instead)")
    return m_prime


def mldsa_verify(param: int, pk: bytes, msg: bytes | None, sig: bytes, ctx: bytes = b"",
                 engine: str = "iss", mu: bytes | None = None, mprime: bytes | None = None,
                 prehash: str | None = None) -> dict:
    """ML-DSA.Verify (FIPS 204 Alg. 3, pure: M' = 0 || len(ctx) || ctx || msg, formed here)
    by the program of kernels/mldsa/verify.py, which computes tr and mu itself; with prehash
    (a PREHASH name) HashML-DSA.Verify (Alg. 5: M' = hash_mldsa_mprime(prehash, msg, ctx));
    with mprime (msg None, no context) Verify_internal (Alg. 8) on the caller's M'; or, with mu (64
    bytes, msg None), Verify_internal from the external mu. A signature of the
    right length that does not verify (malformed hint, z out of range, c_tilde mismatch) is
    {"valid": False}; wrong lengths, a context over 255 bytes or an M' longer than the
    program's buffer (MSG_MAX of the set; use mu instead; engine soc: SOC_MPRIME_MAX, the
    firmware streams the mu) raise BadInput."""
    from ip.acc.kernels.mldsa.verify import STATUS_NAMES, STATUS_VALID, Verify
    if param not in MLDSA_PARAMS:
        raise BadInput(f"ML-DSA-{param}: no such parameter set (one of {', '.join(map(str, MLDSA_PARAMS))})")
    v = Verify(param)
    for name, value, length in (("pk", pk, v.pk_len), ("sig", sig, v.sig_len)):
        if len(value) != length:
            raise BadInput(f"{name} is {len(value)} bytes, ML-DSA-{param} needs {length}")
    m_prime = _m_prime(msg, ctx, mu, *_msg_limit(engine, v.MSG_MAX, f"ML-DSA-{param} program"), mprime,
                       prehash)
    _mldsa_engine(engine)
    if engine == "soc":
        return _mldsa_soc("verify", param, {"pk": bytes(pk), "sig": bytes(sig),
                                            **({"mu": bytes(mu)} if mu is not None else {"msg": m_prime})})
    img = v.image(pk, sig, mu=mu) if mu is not None else v.image(pk, sig, msg_prime=m_prime)
    r = _run(v.program(), img, engine, f"mldsa{param}_verify")
    status = v.status(r.dmem)
    return {"valid": status == STATUS_VALID, "status": STATUS_NAMES.get(status, str(status)),
            "cycles": r.cycles}


# Signing programs on the ACC: kernels/mldsa/sign16.py (the taped-out 16 KiB memories),
# one generator for ML-DSA-44, -65 and -87 (87 on sign16_plan.plan(87)'s packed-w layout).
MLDSA_SIGN_PARAMS = (44, 65, 87)
# the signing programs' STATUS word (kernels/mldsa/sign.py: one source)
# The rejection loop has no bound of its own (FIPS 204 Alg. 7); an iteration costs at most
# ~53 k cycles for ML-DSA-65 (sign16's docstring; ML-DSA-44 less, -87 ~100 k), so this is
# ~190 (87: ~100) iterations, each accepted with p ~ 0.2 (ML-DSA-44 ~ 0.25, -87 ~ 0.26):
# never reached by a correct run (as ip/acc/dv/jobs.py measure_mldsa_sign).
SIGN_MAX_CYCLES = 10_000_000


def mldsa_sign(param: int, sk: bytes, msg: bytes | None = None, ctx: bytes = b"",
               rnd: bytes | None = None, engine: str = "iss", mu: bytes | None = None,
               mprime: bytes | None = None, prehash: str | None = None) -> dict:
    """ML-DSA.Sign (FIPS 204 Alg. 2, pure: M' = 0 || len(ctx) || ctx || msg, formed here) by
    the program of kernels/mldsa/sign16.py (Sign_internal, Alg. 7: tr, mu, rho'' and the
    rejection loop on the ACC); with prehash (a PREHASH name) HashML-DSA.Sign (Alg. 4: M' =
    hash_mldsa_mprime(prehash, msg, ctx)); with mprime (msg None, no context) Sign_internal on the
    caller's M' (e.g. HashML-DSA's 1 || len(ctx) || ctx || OID || PH(M)); or, with mu (64
    bytes = H(tr || M', 64), msg None, no context), Sign_internal from the external mu. rnd:
    32 bytes (hedged), or None for the deterministic variant (rnd = 32 zero bytes, FIPS 204
    3.4 / Alg. 2). Returns {"sig", "cycles", "iterations"} (iterations of the rejection loop:
    the program's final kappa / l). ML-DSA-44, -65 and -87; wrong lengths, a context over 255
    bytes or an M' longer than the program's buffer (MSG_MAX; give mu instead; engine soc:
    SOC_MPRIME_MAX, the firmware streams the mu) raise BadInput; a status word other than OK raises ApiError naming it."""
    from ip.acc.kernels.mldsa import sign as sign32, sign16, sign16_plan
    from ip.acc.kernels.mldsa.layout import KAPPA
    if param not in MLDSA_PARAMS:
        raise BadInput(f"ML-DSA-{param}: no such parameter set (one of {', '.join(map(str, MLDSA_PARAMS))})")
    if param not in MLDSA_SIGN_PARAMS:
        raise BadInput(f"ML-DSA-{param} signing: no program on the ACC (its DMEM needs "
                       f"{sign16_plan.plan(param)['END']} B of {sign16_plan.DMEM}; issue 24)")
    name = f"mldsa{param}_sign"
    signer = sign16.signer(param)
    L = signer.l
    if len(sk) != signer.SK_LEN:
        raise BadInput(f"sk is {len(sk)} bytes, ML-DSA-{param} needs {signer.SK_LEN}")
    if rnd is None:
        rnd = bytes(32)
    elif len(rnd) != 32:
        raise BadInput(f"rnd is {len(rnd)} bytes, ML-DSA needs 32")
    m_prime = _m_prime(msg, ctx, mu, *_msg_limit(engine, signer.MSG_MAX,
                                                 f"ML-DSA-{param} signing program"), mprime, prehash)
    _mldsa_engine(engine)
    if engine == "soc":
        return _mldsa_soc("sign", param, {"sk": bytes(sk), "rnd": bytes(rnd),
                                          **({"mu": bytes(mu)} if mu is not None else {"msg": m_prime})})
    program = signer.program(external_mu=mu is not None)
    try:
        img = signer.image(sk, m_prime, rnd, mu=mu)
    except ValueError as e:            # the checks above come first; this is a backstop
        raise BadInput(f"{name}: {e}") from None
    r = _run(program, img, engine, name, max_cycles=SIGN_MAX_CYCLES)

    def word(addr):
        return int.from_bytes(r.dmem[addr:addr + 4], "little")
    status = word(sign16.STATUS)
    if status != sign32.STATUS_OK:
        raise ApiError(f"{name}: status {status:#x}: "
                       f"{sign32.STATUS_NAMES.get(status, 'not a status the program writes')}")
    kappa = word(KAPPA)
    # kappa starts at 0 and advances by l in every iteration, the accepted one included
    if kappa == 0 or kappa % L:
        raise ApiError(f"{name}: final kappa {kappa} is not a positive multiple of l = {L}")
    return {"sig": bytes(r.dmem[signer.SIG:signer.SIG + signer.SIG_LEN]), "cycles": r.cycles,
            "iterations": kappa // L}
