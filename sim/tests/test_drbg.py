# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""The firmware's DRBG (firmware/lib/drbg.c: SP 800-90A HMAC_DRBG, HMAC-SHA3-256 on the KMAC
block) on the simulated SoC against OpenSSL's HMAC-DRBG (firmware/drbg_vectors.py), and that
reference against the standard's algorithm written out here. The DRBG's use by the PQC API
(keys and signatures from DRBG output equal to kyber-py's / dilithium-py's) is the "api_drbg"
test of test_mlkem_api.py and test_mldsa_api.py."""
import hashlib
import hmac
import random

import pytest

from firmware import drbg_vectors

TESTS = [f"drbg_kat{i}" for i in range(5)] + [
    "drbg_not_instantiated", "drbg_short_entropy", "drbg_bad_lengths", "drbg_reseed_interval",
    "drbg_kmac_failure", "drbg_instantiate_generate32"]


def test_drbg_firmware_matches_openssl(sim_run_json):
    """programs/drbg_kat.c: five known-answer cases (both outputs of each), then the error paths:
    before instantiate, short entropy / nonce, bad lengths (the state unchanged), the reseed
    interval, a KMAC failure (the instance zeroized)."""
    res = sim_run_json("drbg_kat", timeout_s=300)
    assert [t["test"] for t in res["tests"]] == TESTS
    assert all(t["pass"] for t in res["tests"])


def _spec_hmac_drbg(hash_name, entropy, nonce, pers, steps):
    """SP 800-90A Rev. 1 10.1.2 written out from the standard, for the reference's own check."""
    outlen = hashlib.new(hash_name).digest_size
    key, v = bytes(outlen), b"\x01" * outlen

    def mac(k, m):
        return hmac.new(k, m, hash_name).digest()

    def update(data):
        nonlocal key, v
        key = mac(key, v + b"\x00" + data)
        v = mac(key, v)
        if data:
            key = mac(key, v + b"\x01" + data)
            v = mac(key, v)

    update(entropy + nonce + pers)
    outs = []
    for kind, a, add in steps:
        if kind == "reseed":
            update(a + add)
            continue
        if add:
            update(add)
        t = b""
        while len(t) < a:
            v = mac(key, v)
            t += v
        update(add)
        outs.append(t[:a])
    return outs


@pytest.mark.parametrize("digest,hash_name", [("SHA3-256", "sha3_256"), ("SHA256", "sha256")])
def test_openssl_reference_agrees_with_the_standard(digest, hash_name):
    """The known answers' source: OpenSSL's HMAC-DRBG through ctypes, fed fixed entropy by its
    TEST-RAND parent, equals the standard's algorithm for random inputs, reseeds and
    additional inputs (SHA-256 too: the binding selects the digest it is told)."""
    rng = random.Random(7)
    for _ in range(6):
        b = lambda n: bytes(rng.randrange(256) for _ in range(n))   # noqa: E731
        steps = [("generate", rng.choice([1, 31, 32, 33, 100]), b(rng.choice([0, 5, 40]))),
                 ("reseed", b(32 + rng.randrange(20)), b(rng.choice([0, 9]))),
                 ("generate", rng.choice([32, 64, 65]), b(rng.choice([0, 140])))]
        entropy, nonce, pers = b(32 + rng.randrange(24)), b(16 + rng.randrange(8)), b(rng.choice([0, 7, 137]))
        assert drbg_vectors.run(entropy, nonce, pers, steps, digest) == \
            _spec_hmac_drbg(hash_name, entropy, nonce, pers, steps)

