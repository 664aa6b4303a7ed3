# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""SP 800-90B section 4.4's two continuous health tests on a binary noise source: their cutoffs
from the entropy claimed per raw bit, and the tests themselves on a bit sequence (the reference
the RTL, rtl/entropy_src.py, is checked against, sample for sample).

- Repetition count test (4.4.1): a run of C equal samples fails, C = 1 + ceil(-log2(alpha) / H).
- Adaptive proportion test (4.4.2): windows of W = 1024 samples, one after the other; the first
  sample A of a window counts itself, then each of the next W - 1 equal to A; the window fails
  when the count reaches C. The count less the first sample is Binomial(W - 1, 2^-H) for a
  source with H bits of min-entropy per sample, so C = 2 + the smallest k with
  P(Binomial(W - 1, 2^-H) <= k) >= 1 - alpha. (SP 800-90B's text writes 1 + CRITBINOM(W, ...),
  which counts the first sample as a draw too; the form here is the exact one for the false
  positive rate alpha, as public comments on the standard pointed out.)

alpha = 2^-20 per test and sample, the value SP 800-90B recommends as the largest (the range
it names is 2^-20 .. 2^-40): a healthy source fails about once per 2^20 samples in the worst
case, 1 s of sampling at the default rate.
"""
import math

ALPHA_LOG2 = 20           # the false-positive probability is 2^-ALPHA_LOG2
APT_WINDOW = 1024         # SP 800-90B's window for binary samples
# The entropy claimed per raw bit, from which the reset cutoffs come. A claim, not a measurement:
# a ring oscillator's jitter is analog and cannot be simulated here; bring-up measures the raw
# bits (SP 800-90B's non-IID estimators) and firmware sets the cutoffs for the measured figure.
H_CLAIM = 0.5


# SP 800-90C's rule for full entropy: a vetted conditioning function's (SP 800-90B 3.1.5.1.1:
# SHA-3 is one) n-bit output counts as full entropy when its input holds at least n + 64 bits.
FULL_ENTROPY_MARGIN = 64


def raw_bits_for(n_out: int, h: float = H_CLAIM) -> int:
    """Raw bits of h bits of entropy each that a vetted conditioning function needs for an n_out-bit
    output of full entropy."""
    if not 0 < h <= 1:
        raise ValueError(f"entropy per bit {h}: must be in (0, 1]")
    return math.ceil((n_out + FULL_ENTROPY_MARGIN) / h)


def rct_cutoff(h: float, alpha_log2: int = ALPHA_LOG2) -> int:
    """Samples in a run that fail the repetition count test."""
    if not 0 < h <= 1:
        raise ValueError(f"entropy per bit {h}: must be in (0, 1]")
    return 1 + math.ceil(alpha_log2 / h)


def _log_pmf(n: int, k: int, p: float) -> float:
    return (math.lgamma(n + 1) - math.lgamma(k + 1) - math.lgamma(n - k + 1)
            + k * math.log(p) + (n - k) * math.log1p(-p))


def apt_cutoff(h: float, window: int = APT_WINDOW, alpha_log2: int = ALPHA_LOG2) -> int:
    """The count of the window's first value (itself included) that fails the window."""
    if not 0 < h <= 1:
        raise ValueError(f"entropy per bit {h}: must be in (0, 1]")
    n, p, alpha = window - 1, 2.0 ** -h, 2.0 ** -alpha_log2
    tail = 0.0                      # P(X > k), summed from the top down
    for k in range(n, -1, -1):
        tail_with_k = tail + math.exp(_log_pmf(n, k, p))
        if tail_with_k > alpha:     # P(X > k - 1) > alpha: k is the smallest with P(X > k) <= alpha
            return min(2 + k, window + 1)
        tail = tail_with_k
    return 2


class HealthTests:
    """Both tests on a stream of bits, one sample at a time (`push` returns which failed)."""

    def __init__(self, rct: int, apt: int, window: int = APT_WINDOW):
        self.rct, self.apt, self.window = rct, apt, window
        self.last, self.run = None, 0
        self.first, self.count, self.seen = None, 0, 0
        self.rct_max, self.apt_max = 0, 0       # the longest run, the highest count so far

    def push(self, bit: int) -> tuple[bool, bool]:
        self.run = self.run + 1 if bit == self.last else 1
        self.last = bit
        self.rct_max = max(self.rct_max, self.run)
        if self.seen == 0:
            self.first, self.count = bit, 1
        elif bit == self.first:
            self.count += 1
        self.seen = (self.seen + 1) % self.window
        self.apt_max = max(self.apt_max, self.count)
        return self.run >= self.rct, self.count >= self.apt
