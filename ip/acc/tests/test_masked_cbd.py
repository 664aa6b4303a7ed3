# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""The masked CBD gadget (ip/acc/iss/masked_cbd.py): its shares add up to kyber-py's
SamplePolyCBD_eta, its probes are independent of the secret bits (exhaustively, mod a small
q), the variants that save randomness are caught, and its randomness is within q / 2^32 of
uniform."""
import os
import random

import pytest
from kyber_py.ml_kem.default_parameters import ML_KEM_768

from ip.acc.iss import masked_cbd as mc

R = ML_KEM_768.R


@pytest.mark.parametrize("eta,seed", [(2, 1), (2, 2), (3, 3)])
def test_the_shares_add_up_to_kyber_py_s_cbd(eta, seed):
    rng = random.Random(seed)
    b = rng.randbytes(64 * eta)
    b0 = rng.randbytes(64 * eta)
    b1 = bytes(x ^ y for x, y in zip(b, b0))
    words = [rng.getrandbits(32) for _ in range(512 * eta)]
    e0, e1 = mc.masked_cbd(b0, b1, eta, words)
    want = R.cbd(b, eta).coeffs
    assert [(x + y) % mc.Q for x, y in zip(e0, e1)] == want
    # each share on its own is not the polynomial, and fresh words give fresh shares
    assert e0 != want and e1 != want
    f0, _ = mc.masked_cbd(b0, b1, eta, [rng.getrandbits(32) for _ in range(512 * eta)])
    assert sum(x != y for x, y in zip(e0, f0)) > 200


def test_every_probe_is_independent_of_the_secret_bits():
    assert mc.first_order_leaks(mc.gadget, eta=2, q=7) == []


def test_one_r_for_all_bits_or_a_short_r_leaks():
    """Sharing one r across a coefficient's bits makes a_j - a_k = x1_j - x1_k; a one-bit r
    leaves x1_j in a_j: E1's logic sees x's bits either way."""
    shared = lambda x0, x1, r, q: mc.gadget(x0, x1, [r[0]] * len(r), q)       # noqa: E731
    short = lambda x0, x1, r, q: mc.gadget(x0, x1, [v & 1 for v in r], q)      # noqa: E731
    assert "e1 logic" in mc.first_order_leaks(shared, eta=2, q=7)
    assert "e1 logic" in mc.first_order_leaks(short, eta=2, q=7)


def test_the_randomness_is_within_q_over_2_to_the_32_of_uniform():
    assert 0 < mc.bias(mc.Q) <= mc.Q / 2 ** 32
    assert mc.bias(8) == 0                      # 8 divides 2^32: exactly uniform
    assert mc.r_of_word(0) == 0 and mc.r_of_word(2 ** 32 - 1) == mc.Q - 1


def test_bad_inputs_are_named():
    b = os.urandom(128)
    with pytest.raises(ValueError, match="eta must be 2 or 3"):
        mc.masked_cbd(b, b, 4, [])
    with pytest.raises(ValueError, match="share 1: 128 bytes expected"):
        mc.masked_cbd(b, b[:-1], 2, [])
    with pytest.raises(ValueError, match="1024 random words needed, got 8"):
        mc.masked_cbd(b, b, 2, [1] * 10)
    with pytest.raises(ValueError, match="is not 32 bits"):
        mc.r_of_word(1 << 32)
    with pytest.raises(ValueError, match="differ in length"):
        mc.gadget([0, 1], [0, 1], [3])
