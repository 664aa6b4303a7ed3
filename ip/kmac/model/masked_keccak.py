# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""Cycle model of the masked Keccak-f core (ip/kmac/rtl/keccak_masked.py): the value of every
register (s0, s1, c0, c1) after every clock edge, vectorised over many independent runs.

Written from the schedule in the RTL's docstring, not from its code; the tests compare the two
register for register, and the shares' XOR with hashlib. The leakage assessment of the core
(ip/kmac/dv/tvla_keccak.py) runs this model for its traces: it is the RTL's registers, so their
Hamming distances are the RTL power model's for this core.

Arrays are numpy uint64 of shape (n, 25): run k's lane x + 5y. c0 / c1 hold one slice's W bits
per lane in the low bits (their register's layout: lane i at bits [W*i, W*(i+1))).
"""
from typing import Callable, Iterator

import numpy as np

from ip.kmac.rtl.keccak import RC, RHO

NROUNDS = 24
_U = np.uint64
_P1 = np.array([(i % 5 + 1) % 5 + 5 * (i // 5) for i in range(25)])   # (x+1, y)
_P2 = np.array([(i % 5 + 2) % 5 + 5 * (i // 5) for i in range(25)])   # (x+2, y)


def _rot(v, n: int):
    return v if n % 64 == 0 else (v << _U(n)) | (v >> _U(64 - n))


def linear(a: np.ndarray) -> np.ndarray:
    """theta, rho, pi on (n, 25) lanes."""
    c = a[:, 0:5] ^ a[:, 5:10] ^ a[:, 10:15] ^ a[:, 15:20] ^ a[:, 20:25]
    d = np.stack([c[:, (x - 1) % 5] ^ _rot(c[:, (x + 1) % 5], 1) for x in range(5)], axis=1)
    a = a ^ np.tile(d, (1, 5))
    b = np.empty_like(a)
    for x in range(5):
        for y in range(5):
            b[:, y + 5 * ((2 * x + 3 * y) % 5)] = _rot(a[:, x + 5 * y], RHO[(x, y)])
    return b


def permute(s0: np.ndarray, s1: np.ndarray, fresh: Callable[[], np.ndarray], slices: int = 2,
            no_fresh: bool = False) -> Iterator[tuple[np.ndarray, ...]]:
    """Yields (s0, s1, c0, c1) after each of the permutation's 24*slices + 1 clock edges. The
    shares' lanes rotate by W every edge but the last (the RTL's: the slice worked on is at
    bits [0, W); theta, rho, pi and chi commute with it, iota's constant is placed for it), so
    after t edges they are t*W bits off, and in place after the last.

    fresh() gives one cycle's fresh bits, (n, 25) values of W bits (lane i: the PRNG's bits
    [W*i, W*(i+1)) of that cycle). no_fresh drops them (a seeded leak: the DOM ANDs without
    their z); fresh() is still drawn, so the schedule is the same."""
    w = 64 // slices
    wm = _U((1 << w) - 1)
    c0 = np.zeros_like(s0)
    c1 = np.zeros_like(s0)
    last = NROUNDS * slices
    for t in range(last + 1):
        m0, m1 = s0, s1
        if t > 0:        # compress the pending slice, at [0, W): offset t, canonical slice t % S
            j, r = t % slices, (t - 1) // slices
            a0, a1 = s0 & wm, s1 & wm
            o0 = a0 ^ (~a0[:, _P1] & a0[:, _P2] & wm) ^ c0
            o0[:, 0] ^= _U((RC[r] >> (j * w)) & ((1 << w) - 1))
            o1 = a1 ^ (a1[:, _P1] & a1[:, _P2]) ^ c1
            m0, m1 = (s0 & ~wm) | o0, (s1 & ~wm) | o1
        if t == last:
            s0, s1 = m0, m1
            c0, c1 = np.zeros_like(c0), np.zeros_like(c1)
        else:
            m0, m1 = _rot(m0, 64 - w), _rot(m1, 64 - w)    # the next slice to [0, W)
            n0, n1 = (linear(m0), linear(m1)) if t % slices == 0 else (m0, m1)
            z = fresh()
            if no_fresh:
                z = np.zeros_like(z)
            a0, a1 = n0 & wm, n1 & wm
            c0 = (~a0[:, _P1] & a1[:, _P2] & wm) ^ z
            c1 = (a1[:, _P1] & a0[:, _P2]) ^ z
            s0, s1 = n0, n1
        yield s0, s1, c0, c1


def prng_fresh(trivium, slices: int = 2) -> Callable[[], np.ndarray]:
    """fresh() for one run from the core's PRNG (a ip.common.trivium.Trivium, seeded as the
    core's): 25 * W output bits a cycle, lane i's bits [W*i, W*(i+1))."""
    w = 64 // slices

    def fresh():
        bits = trivium.output(25 * w)
        return np.array([[(bits >> (w * i)) & ((1 << w) - 1) for i in range(25)]], dtype=np.uint64)
    return fresh


def to_lanes(state: int) -> np.ndarray:
    """A 1600-bit integer (byte k = bits [8k, 8k+8)) as (1, 25) lanes."""
    return np.array([[(state >> (64 * i)) & ((1 << 64) - 1) for i in range(25)]], dtype=np.uint64)


def from_lanes(lanes: np.ndarray) -> int:
    return sum(int(v) << (64 * i) for i, v in enumerate(lanes))


def slice_bits(c: np.ndarray, slices: int = 2) -> int:
    """A c register's value as the RTL's integer (lane i at bits [W*i, W*(i+1)))."""
    w = 64 // slices
    return sum(int(v) << (w * i) for i, v in enumerate(c))
