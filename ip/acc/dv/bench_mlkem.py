# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""ML-KEM benchmark: every operation of every parameter set on the ACC ISS for N random cases,
each result compared with two independent implementations, and the cycle counts collected to
show what they depend on (issue 23 items 6 and 7).

    python -m ip.acc.dv.bench_mlkem --n 1000 --seed 1 --json reports/mlkem_bench.json

Per case and set: random d, z, m; KeyGen_internal(d, z) -> (ek, dk) equal to kyber-py's, and ek
equal to the `cryptography` package's (OpenSSL) key from the seed d || z; Encaps_internal(ek, m)
-> (K, c) equal to kyber-py's, and `cryptography` decapsulates our c to our K; Decaps_internal
(dk, c) for our c and for c with one random bit flipped (implicit rejection) -> K equal to
kyber-py's and to `cryptography`'s. OpenSSL has no ML-KEM-512: that set is checked against
kyber-py alone (reported as such).

Cycles: decaps must take the same count for every key and ciphertext, valid or rejected (the
report fails otherwise); keygen and encaps may vary only with public data (rho's rejection
sampling), so their spread is reported with the number of distinct counts. The programs are
assembled once per (operation, set) and run on the cycle-accurate ISS (ISS = RTL is checked by
the tests and ip/acc/dv/jobs.py); cases run in worker processes (--jobs).
"""
import random
import statistics
import sys
import time
from concurrent.futures import ProcessPoolExecutor

from ip.acc import block as acc_block
from ip.acc.dv import bench_cases
from ip.acc.dv.jobs import image

PARAMS = (512, 768, 1024)
MAX_CYCLES = 200_000
_CACHE = {}


def _programs(param: int) -> dict:
    """{op: (kernel object, assembled words)} for one set, built once per worker process."""
    if param not in _CACHE:
        from ip.acc.kernels.mlkem.decaps import decaps
        from ip.acc.kernels.mlkem.encaps import encaps
        from ip.acc.kernels.mlkem.keygen import keygen
        from ip.acc.tools.asm import assemble
        progs = {}
        for op, make in (("keygen", keygen), ("encaps", encaps), ("decaps", decaps)):
            obj = make(param)
            progs[op] = (obj, assemble(obj.program(), f"mlkem{param}_{op}.s"))
        _CACHE[param] = progs
    return _CACHE[param]


def _run(words, dm: dict, what: str, obj=None):
    """Run on the ISS; the program must end in ecall with its status word OK (status.py)."""
    from ip.acc.dv.lockstep import IssBackend
    from ip.acc.kernels.mlkem import status
    r = IssBackend(acc_block.IMEM_SIZE, acc_block.DMEM_SIZE).run(
        words, image(dm, acc_block.DMEM_SIZE), MAX_CYCLES)
    if r.halt != "ecall":
        raise RuntimeError(f"{what}: the program stopped by {r.halt} (ERR_BITS {r.err_bits:#x})")
    if obj is not None and status.read(r.dmem, obj.status_addr) != status.OK:
        raise AssertionError(f"{what}: status word {status.read(r.dmem, obj.status_addr):#x}, not OK")
    return r


def _decaps_k(obj, dmem: bytes) -> bytes:
    return obj.outputs(dmem) if hasattr(obj, "outputs") else dmem[obj.K_OUT:obj.K_OUT + 32]


def one_case(param: int, seed: int) -> dict:
    """One random case of one set: every result checked; returns the cycle counts, or raises
    with the first mismatch named."""
    from kyber_py.ml_kem import ML_KEM_512, ML_KEM_768, ML_KEM_1024
    ref = {512: ML_KEM_512, 768: ML_KEM_768, 1024: ML_KEM_1024}[param]
    ossl = _openssl(param)
    progs = _programs(param)
    rnd = random.Random(seed)
    d, z, m = rnd.randbytes(32), rnd.randbytes(32), rnd.randbytes(32)
    name = f"ML-KEM-{param} case seed {seed}"

    kg, w = progs["keygen"]
    r = _run(w, kg.image(d, z), f"{name} keygen", kg)
    ek, dk = kg.outputs(r.dmem)
    if (ek, dk) != ref._keygen_internal(d, z):
        raise AssertionError(f"{name}: keygen differs from kyber-py")
    if ossl and ek != ossl.from_seed_bytes(d + z).public_key().public_bytes_raw():
        raise AssertionError(f"{name}: ek differs from cryptography's")
    cycles = {"keygen": r.cycles}

    en, w = progs["encaps"]
    r = _run(w, en.image(ek, m), f"{name} encaps", en)
    K, c = en.outputs(r.dmem)
    if (K, c) != ref._encaps_internal(ek, m):
        raise AssertionError(f"{name}: encaps differs from kyber-py")
    if ossl and ossl.from_seed_bytes(d + z).decapsulate(c) != K:
        raise AssertionError(f"{name}: cryptography decapsulates our c to another K")
    cycles["encaps"] = r.cycles

    de, w = progs["decaps"]
    bad = bytearray(c)
    bit = rnd.randrange(8 * len(c))
    bad[bit // 8] ^= 1 << (bit % 8)
    for kind, ct in (("decaps", c), ("decaps_reject", bytes(bad))):
        r = _run(w, de.image(dk=dk, c=ct), f"{name} {kind}", de)
        got = _decaps_k(de, r.dmem)
        if got != ref._decaps_internal(dk, ct):
            raise AssertionError(f"{name}: {kind} K differs from kyber-py")
        if ossl and got != ossl.from_seed_bytes(d + z).decapsulate(ct):
            raise AssertionError(f"{name}: {kind} K differs from cryptography's")
        cycles[kind] = r.cycles
    return cycles


def _openssl(param: int):
    from cryptography.hazmat.primitives.asymmetric import mlkem
    return {768: getattr(mlkem, "MLKEM768PrivateKey", None),
            1024: getattr(mlkem, "MLKEM1024PrivateKey", None)}.get(param)


def _summary(counts: list) -> dict:
    return {"min": min(counts), "median": statistics.median(counts), "mean": round(statistics.mean(counts), 1),
            "max": max(counts), "distinct": len(set(counts))}


def bench(n: int, seed: int, params=PARAMS, jobs: int = 2, progress=print) -> dict:
    out = {"cases_per_set": n, "seed": seed, "engine": "ISS (cycle-accurate; ISS = RTL checked elsewhere)",
           "references": {}, "sets": {}, "problems": []}
    results, out["problems"], t0 = bench_cases.run(_safe_case, n, seed, params, jobs, "bench_mlkem",
                                                   progress, chunksize=8, pool=ProcessPoolExecutor)
    for p in params:
        out["references"][str(p)] = ["kyber-py", "cryptography (OpenSSL)"] if _openssl(p) else ["kyber-py"]
        runs = results[p]
        if not runs:
            continue
        s = {op: _summary([r[op] for r in runs]) for op in runs[0]}
        s["checked"] = len(runs)
        out["sets"][str(p)] = s
        dec = {r[k] for r in runs for k in ("decaps", "decaps_reject")}
        if len(dec) != 1:
            out["problems"].append(f"ML-KEM-{p} decaps: {len(dec)} different cycle counts over keys and "
                                   f"ciphertexts (valid and rejected): {sorted(dec)[:5]}")
    out["ok"] = not out["problems"]
    out["seconds"] = round(time.time() - t0, 1)
    return out


def _safe_case(param: int, seed: int):
    return bench_cases.safe(one_case, param, seed)


def main(argv=None) -> int:
    a = bench_cases.args("ip.acc.dv.bench_mlkem", __doc__, PARAMS, argv)
    out = bench(a.n, a.seed, a.param, a.jobs)
    for p, s in out["sets"].items():
        print(f"ML-KEM-{p}: {s['checked']} cases checked; " + ", ".join(
            f"{op} {v['min']}..{v['max']} cycles ({v['distinct']} distinct)" for op, v in s.items() if op != "checked"))
    return bench_cases.finish(out, a.json, "bench_mlkem")


if __name__ == "__main__":
    sys.exit(main())
