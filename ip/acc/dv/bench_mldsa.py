# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""ML-DSA benchmark: keygen, sign and verify of every parameter set on the ACC ISS for N random
cases, each result compared with two independent implementations, and the cycle counts
collected as issue 24 items 7 and 8 ask (sign: min / median / mean / p90 / max and the
histogram of rejection-loop iterations).

    python -m ip.acc.dv.bench_mldsa --n 1000 --seed 1 --json reports/mldsa_bench.json

Per case and set, through the host API (ip/acc/api.py, engine iss; the programs and checks the
CLI and the bring-up use): random xi, message (0..256 bytes), context (empty or 1..64 bytes)
and rnd (hedged, or the deterministic variant every other case):
- KeyGen_internal(xi) -> (pk, sk) equal to dilithium-py's, pk equal to the `cryptography`
  package's (OpenSSL) key from the seed xi;
- Sign (the sets api.MLDSA_SIGN_PARAMS has a program for; the others are reported as not
  run) -> sigma equal to dilithium-py's Sign_internal(sk, M', rnd), accepted by
  `cryptography`'s verifier;
- Verify of `cryptography`'s own (randomized) signature of the message -> valid; of that
  signature with one random bit flipped -> not valid.
Cycles: keygen and verify depend on public data only (rho's rejection sampling, the hints,
SampleInBall, M''s length), so their spread is reported with the number of distinct counts;
sign's with the iteration histogram. Cases run in worker processes (--jobs); progress lines
go to stdout.
"""
import random
import statistics
import sys
import time
from collections import Counter
from concurrent.futures import ProcessPoolExecutor

from ip.acc.dv import bench_cases

PARAMS = (44, 65, 87)


def _refs(param: int):
    """(dilithium-py's set, cryptography's private-key class)."""
    from cryptography.hazmat.primitives.asymmetric import mldsa
    from dilithium_py import ml_dsa
    return getattr(ml_dsa, f"ML_DSA_{param}"), getattr(mldsa, f"MLDSA{param}PrivateKey")


def _m_prime(msg: bytes, ctx: bytes) -> bytes:
    """FIPS 204 Alg. 2: M' = 0 || len(ctx) || ctx || M (formed here independently of the API)."""
    return bytes([0, len(ctx)]) + ctx + msg


def one_case(param: int, seed: int) -> dict:
    """One random case of one set: every result checked; returns the cycle counts (and the
    signing iterations), or raises with the first mismatch named."""
    from ip.acc import api
    dsa, ossl_cls = _refs(param)
    rnd = random.Random(seed)
    xi = rnd.randbytes(32)
    msg = rnd.randbytes(rnd.randrange(257))
    ctx = rnd.randbytes(rnd.randrange(1, 65)) if rnd.random() < 0.5 else b""
    r_sign = bytes(32) if seed % 2 else rnd.randbytes(32)
    name = f"ML-DSA-{param} case seed {seed}"
    ossl = ossl_cls.from_seed_bytes(xi)
    ossl_pub = ossl.public_key()

    kg = api.mldsa_keygen(param, xi)
    pk, sk = kg["pk"], kg["sk"]
    if (pk, sk) != dsa._keygen_internal(xi):
        raise AssertionError(f"{name}: keygen differs from dilithium-py")
    if pk != ossl_pub.public_bytes_raw():
        raise AssertionError(f"{name}: pk differs from cryptography's")
    out = {"keygen": kg["cycles"]}

    if param in api.MLDSA_SIGN_PARAMS:
        sg = api.mldsa_sign(param, sk, msg, ctx, r_sign)
        if sg["sig"] != dsa._sign_internal(sk, _m_prime(msg, ctx), r_sign):
            raise AssertionError(f"{name}: signature differs from dilithium-py's")
        try:
            ossl_pub.verify(sg["sig"], msg, ctx)
        except Exception:
            raise AssertionError(f"{name}: cryptography rejects our signature") from None
        out["sign"], out["iterations"] = sg["cycles"], sg["iterations"]

    theirs = ossl.sign(msg, ctx)
    v = api.mldsa_verify(param, pk, msg, theirs, ctx)
    if not v["valid"]:
        raise AssertionError(f"{name}: our verify rejects cryptography's signature ({v['status']})")
    out["verify"] = v["cycles"]
    bad = bytearray(theirs)
    bit = rnd.randrange(8 * len(bad))
    bad[bit // 8] ^= 1 << (bit % 8)
    v = api.mldsa_verify(param, pk, msg, bytes(bad), ctx)
    if v["valid"]:
        raise AssertionError(f"{name}: our verify accepts a signature with bit {bit} flipped")
    out["verify_reject"] = v["cycles"]
    return out


def _summary(counts: list) -> dict:
    s = sorted(counts)
    return {"min": s[0], "median": statistics.median(s), "mean": round(statistics.mean(s), 1),
            "p90": s[min(len(s) - 1, (9 * len(s)) // 10)], "max": s[-1], "distinct": len(set(s))}


def _safe_case(param: int, seed: int):
    return bench_cases.safe(one_case, param, seed)


def bench(n: int, seed: int, params=PARAMS, jobs: int = 2, progress=print) -> dict:
    from ip.acc import api
    out = {"cases_per_set": n, "seed": seed,
           "engine": "ISS through ip.acc.api (cycle-accurate; ISS = RTL checked elsewhere)",
           "references": ["dilithium-py", "cryptography (OpenSSL)"], "sets": {}, "problems": [],
           "sign_not_run": [p for p in params if p not in api.MLDSA_SIGN_PARAMS]}
    results, out["problems"], t0 = bench_cases.run(_safe_case, n, seed, params, jobs, "bench_mldsa",
                                                   progress, pool=ProcessPoolExecutor)
    for p in params:
        runs = results[p]
        if not runs:
            continue
        s = {op: _summary([r[op] for r in runs]) for op in runs[0] if op != "iterations"}
        if "iterations" in runs[0]:
            s["iterations"] = dict(sorted(Counter(r["iterations"] for r in runs).items()))
        s["checked"] = len(runs)
        out["sets"][str(p)] = s
    out["ok"] = not out["problems"] and all(str(p) in out["sets"] for p in params)
    out["seconds"] = round(time.time() - t0, 1)
    return out


def main(argv=None) -> int:
    a = bench_cases.args("ip.acc.dv.bench_mldsa", __doc__, PARAMS, argv)
    out = bench(a.n, a.seed, a.param, a.jobs)
    for p, s in out["sets"].items():
        print(f"ML-DSA-{p}: {s['checked']} cases checked; " + ", ".join(
            f"{op} {v['min']}..{v['max']} cycles (median {v['median']})"
            for op, v in s.items() if isinstance(v, dict) and "min" in v))
        if "iterations" in s:
            print(f"ML-DSA-{p} sign iterations: {s['iterations']}")
    for p in out["sign_not_run"]:
        print(f"ML-DSA-{p}: no signing program on the ACC yet: sign not benchmarked")
    return bench_cases.finish(out, a.json, "bench_mldsa")


if __name__ == "__main__":
    sys.exit(main())
