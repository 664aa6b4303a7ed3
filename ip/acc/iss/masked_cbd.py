# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""The masked CBD gadget (issue #38): SamplePolyCBD_eta on a PRF output given in two Boolean
shares, giving the polynomial in two arithmetic shares mod q.

This is the reference the stream unit's masked modes cbd2m / cbd3m are built to: the ISS's
model (ip/acc/iss/stream_unit.py) computes its two stages with stage1 / stage2, and the RTL
(ip/acc/rtl/stream_unit.py) is checked against that model cycle for cycle.

Coefficient i of CBD_eta is e = sum_j s_j x_j over its 2 eta bits x_j (s_j = +1 for the first
eta, -1 for the last eta), each bit given as x_j = x0_j ^ x1_j. For one bit,
x0 ^ x1 = x0 + x1 (1 - 2 x0); with a fresh r_j uniform mod q per bit, two register stages:

* stage 1, domain 0:  E0 = sum_j s_j (x0_j + r_j (1 - 2 x0_j))      from (x0, r)
* stage 1, domain 1:  a_j = x1_j - r_j                               from (x1_j, r_j)
* stage 2, domain 1:  E1 = sum_j s_j a_j (1 - 2 x0_j)                from (a, x0)

so E0 + E1 = sum_j s_j (x0_j + x1_j (1 - 2 x0_j)) = e mod q. Each stage's inputs (what a
probe on its logic can see, glitches included, as far as they stop at the registers) are
independent of x: x0 alone and x1 alone are uniform, and a = x1 - r is uniform whatever x1 is
when the r_j are independent and uniform mod q. One r shared by the bits would not do: a_j -
a_k = x1_j - x1_k, which with x0 gives x_j ^ x_k (`first_order_leaks` finds it; the tests
show it). E0 is uniform (it holds +- r_j), so (E0, E1) is a fresh sharing of e.

The randomness: r_j = floor(R_j q / 2^32) from a 32-bit word R_j of the masking PRNG (URND),
within q / 2^32 (7.8e-7 for ML-KEM) of uniform in statistical distance (`bias`): 4 words a
coefficient for eta = 2, 6 for eta = 3. The words are used in order: coefficient by
coefficient, bit by bit (bit j of coefficient i takes word 2 eta i + j).
"""
from collections.abc import Callable, Iterable, Sequence
from itertools import product

__all__ = ["Q", "WORD_BITS", "r_of_word", "bias", "stage1", "stage2", "gadget", "masked_cbd", "probes", "first_order_leaks"]

Q = 3329
WORD_BITS = 32


def r_of_word(word: int, q: int = Q) -> int:
    """A value mod q from a 32-bit random word: floor(word q / 2^32)."""
    if not 0 <= word < 1 << WORD_BITS:
        raise ValueError(f"random word {word:#x} is not {WORD_BITS} bits")
    return (word * q) >> WORD_BITS


def bias(q: int = Q) -> float:
    """Statistical distance between r_of_word of a uniform word and the uniform distribution
    mod q, computed exactly (value v is hit by the ceil((v + 1) 2^32 / q) - ceil(v 2^32 / q)
    words that map to it)."""
    n = 1 << WORD_BITS

    def first(v):                    # the least word that maps to v or above: ceil(v n / q)
        return -(-v * n // q)

    return sum(abs((first(v + 1) - first(v)) * q - n) for v in range(q)) / (2 * n * q)


def _signs(eta: int) -> list[int]:
    return [1] * eta + [-1] * eta


def stage1(x0: Sequence[int], x1: Sequence[int], r: Sequence[int], q: int = Q,
           signs: Sequence[int] | None = None) -> tuple[int, tuple]:
    """The first register stage: E0 (domain 0, from x0 and r) and a_j = x1_j - r_j (domain 1).
    signs: s_j (default CBD's, + for the first half of the bits, - for the rest); (1,) for one
    bit alone is the B2A of that bit."""
    s = signs or _signs(len(x0) // 2)
    e0 = sum(sj * (b0 + rj * (1 - 2 * b0)) for sj, b0, rj in zip(s, x0, r)) % q
    return e0, tuple((b1 - rj) % q for b1, rj in zip(x1, r))


def stage2(a: Sequence[int], x0: Sequence[int], q: int = Q, signs: Sequence[int] | None = None) -> int:
    """The second register stage: E1 = sum_j s_j a_j (1 - 2 x0_j) (domain 1, from a and x0)."""
    s = signs or _signs(len(x0) // 2)
    return sum(sj * aj * (1 - 2 * b0) for sj, aj, b0 in zip(s, a, x0)) % q


def gadget(x0: Sequence[int], x1: Sequence[int], r: Sequence[int], q: int = Q) -> dict:
    """One coefficient: bits x0, x1 (2 eta each, a's then b's) and r (one value mod q a bit).
    Returns every value the hardware registers, by stage: `e0` (stage 1, domain 0), `a`
    (stage 1, domain 1, one per bit), `e1` (stage 2, domain 1)."""
    if not len(x0) == len(x1) == len(r) or len(x0) % 2:
        raise ValueError(f"bits and randomness differ in length ({len(x0)}, {len(x1)}, {len(r)})")
    e0, a = stage1(x0, x1, r, q)
    return {"e0": e0, "a": a, "e1": stage2(a, x0, q)}


def _bits(data: bytes, n: int) -> list[int]:
    v = int.from_bytes(data, "little")
    return [(v >> k) & 1 for k in range(n)]


def masked_cbd(b0: bytes, b1: bytes, eta: int, words: Iterable[int], q: int = Q) -> tuple[list[int], list[int]]:
    """SamplePolyCBD_eta(b0 ^ b1) as (E0, E1), E0[i] + E1[i] = the coefficient mod q. b0, b1:
    64 eta bytes each; words: the 32-bit random words, 2 eta a coefficient (512 eta in all)."""
    if eta not in (2, 3):
        raise ValueError(f"eta must be 2 or 3 (FIPS 203), got {eta}")
    for name, b in (("share 0", b0), ("share 1", b1)):
        if len(b) != 64 * eta:
            raise ValueError(f"{name}: {64 * eta} bytes expected for eta = {eta}, got {len(b)}")
    n = 2 * eta
    x0, x1 = _bits(b0, 256 * n), _bits(b1, 256 * n)
    it = iter(words)
    e0, e1 = [], []
    for i in range(256):
        try:
            r = [r_of_word(next(it), q) for _ in range(n)]
        except StopIteration:
            raise ValueError(f"{256 * n} random words needed, got {i * n}") from None
        v = gadget(x0[n * i:n * i + n], x1[n * i:n * i + n], r, q)
        e0.append(v["e0"])
        e1.append(v["e1"])
    return e0, e1


def probes(v: dict, x0: Sequence[int]) -> dict:
    """What a first-order probe sees, per stage's logic: its inputs and its registered output
    (E1's logic reads a and x0)."""
    return {"e0": v["e0"], "a": v["a"], "e1 logic": (v["a"], tuple(x0)), "e1": v["e1"]}


def first_order_leaks(fn: Callable = gadget, eta: int = 2, q: int = 7) -> list[str]:
    """The probes whose distribution depends on the secret bits x, over every x, every
    sharing x0 and every r (uniform mod a small q, so the enumeration is exact). Empty for a
    first-order secure gadget."""
    n = 2 * eta
    seen: dict[str, dict] = {}
    for x in product((0, 1), repeat=n):
        counts: dict[str, dict] = {}
        for x0 in product((0, 1), repeat=n):
            x1 = [a ^ b for a, b in zip(x, x0)]
            for r in product(range(q), repeat=n):
                for name, val in probes(fn(x0, x1, r, q), x0).items():
                    c = counts.setdefault(name, {})
                    c[val] = c.get(val, 0) + 1
        for name, c in counts.items():
            seen.setdefault(name, {})[x] = c
    return [name for name, by_x in seen.items() if len({tuple(sorted(c.items())) for c in by_x.values()}) > 1]
