# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""Count ML-DSA-65 signing-loop iterations with dilithium-py (FIPS 204 Algorithm 7).

Usage: .venv/bin/python ip/acc/scripts/count_sign_iterations.py [N]
Counts calls of ExpandMask (one per iteration of the rejection loop) over N signatures
of random 32-byte messages under one key and prints mean/median/p90/max.
"""
import os
import statistics
import sys

from dilithium_py.ml_dsa import ML_DSA_65 as SCHEME


def main(n: int) -> None:
    calls = [0]
    orig = SCHEME._expand_mask_vector

    def counted(*args, **kwargs):
        calls[0] += 1
        return orig(*args, **kwargs)

    SCHEME._expand_mask_vector = counted
    _pk, sk = SCHEME.keygen()
    its = []
    for _ in range(n):
        calls[0] = 0
        SCHEME.sign(sk, os.urandom(32))
        its.append(calls[0])
    its.sort()
    print(f"N={n} mean={statistics.mean(its):.3f} median={statistics.median(its)} "
          f"p90={its[int(0.9 * n)]} max={its[-1]}")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 200)
