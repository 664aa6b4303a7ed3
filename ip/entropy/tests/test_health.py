# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""The health tests' cutoffs against SP 800-90B's definitions computed another way (the
binomial distribution by repeated convolution, not from log-gamma), the tests on sequences whose
verdict the definitions give by hand, and the register map's reset cutoffs."""
import random

import pytest

from ip.common.regtool import load
from ip.entropy import REGS_YML
from ip.entropy.health import (ALPHA_LOG2, APT_WINDOW, H_CLAIM, HealthTests, apt_cutoff,
                               raw_bits_for, rct_cutoff)


def binomial_upper_tails(n: int, p: float) -> list[float]:
    """tails[k] = P(Binomial(n, p) >= k), the distribution built one draw at a time."""
    dist = [1.0]
    for _ in range(n):
        nxt = [0.0] * (len(dist) + 1)
        for k, q in enumerate(dist):
            nxt[k] += q * (1 - p)
            nxt[k + 1] += q * p
        dist = nxt
    tails, acc = [0.0] * (n + 2), 0.0
    for k in range(n, -1, -1):
        acc += dist[k]
        tails[k] = acc
    return tails


@pytest.mark.parametrize("h", [0.25, 0.5, 0.8, 1.0])
def test_apt_cutoff_is_the_first_count_rarer_than_alpha(h):
    """C fails with probability at most alpha (the count less the first sample is
    Binomial(W - 1, 2^-h)); C - 1 would fail more often than alpha."""
    c = apt_cutoff(h)
    tails = binomial_upper_tails(APT_WINDOW - 1, 2 ** -h)
    alpha = 2.0 ** -ALPHA_LOG2
    assert tails[c - 1] <= alpha < tails[c - 2]


def test_raw_bits_for_a_full_entropy_output():
    # (n + 64) / H raw bits, rounded up: 640 at the claim for a 256-bit seed (firmware's 20 words)
    assert raw_bits_for(256) == raw_bits_for(256, H_CLAIM) == 640
    assert [raw_bits_for(256, h) for h in (1.0, 0.3)] == [320, 1067]
    with pytest.raises(ValueError):
        raw_bits_for(256, 0)


def test_rct_cutoff_by_the_formula():
    # 1 + ceil(20 / H): SP 800-90B 4.4.1 with alpha = 2^-20
    assert [rct_cutoff(h) for h in (1.0, 0.5, 0.3, 0.1)] == [21, 41, 68, 201]
    with pytest.raises(ValueError):
        rct_cutoff(0)
    with pytest.raises(ValueError):
        apt_cutoff(1.5)


def test_reset_cutoffs_are_the_claims():
    rm = load(REGS_YML)
    assert rm.field("RCT_CUTOFF", "C").reset == rct_cutoff(H_CLAIM)
    assert rm.field("APT_CUTOFF", "C").reset == apt_cutoff(H_CLAIM)


def first_failures(bits, rct, apt):
    t, out = HealthTests(rct, apt), [None, None]
    for i, b in enumerate(bits):
        for j, failed in enumerate(t.push(b)):
            if failed and out[j] is None:
                out[j] = i
    return out, t


def test_repetition_count_fails_at_the_cutoffs_run():
    ok = [0, 1] * 5 + [1] * 8 + [0]             # the longest run: 9 ones (the 1 before and 8)
    assert first_failures(ok, rct=10, apt=APT_WINDOW + 1)[0] == [None, None]
    bad = [0, 1] * 5 + [1] * 9 + [0]            # 10 ones in a row, the tenth at index 18
    assert first_failures(bad, rct=10, apt=APT_WINDOW + 1)[0] == [18, None]


def test_adaptive_proportion_counts_the_first_value_per_window():
    window = [1, 1, 0] * 341 + [1]              # 1024 samples, 683 ones, runs of two at most
    ones = [i for i, b in enumerate(window) if b]
    assert len(window) == APT_WINDOW and len(ones) == 683
    (rct, apt), t = first_failures(window, rct=50, apt=683)
    assert (rct, apt) == (None, ones[682]) and t.apt_max == 683
    assert first_failures(window, rct=50, apt=684)[0] == [None, None]
    # the second window starts with a 0: its count is of zeros (341 + ...), ones do not carry over
    (_, apt), t = first_failures(window + [0] + window[1:], rct=50, apt=684)
    assert apt is None and t.apt_max == 683


def test_fair_bits_pass_and_biased_bits_fail_at_the_claim():
    rng = random.Random(5)
    fair = [rng.getrandbits(1) for _ in range(100_000)]
    assert first_failures(fair, rct_cutoff(H_CLAIM), apt_cutoff(H_CLAIM))[0] == [None, None]
    biased = [int(rng.random() < 0.85) for _ in range(20_000)]      # H = 0.23 bit per sample
    assert first_failures(biased, rct_cutoff(H_CLAIM), apt_cutoff(H_CLAIM))[0][1] is not None
