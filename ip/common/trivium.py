# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""Trivium's state update (De Canniere and Preneel, eSTREAM 2005), the masking PRNG of the ACC's
URND and of the masked Keccak core: the hardware form (rounds unrolled into one cycle) and the
exact software model the ISS and the Keccak model use. Blocks share it from here (the floors let
ip.acc and ip.kmac read ip.common, not each other).

The state is s1..s288, bit k-1 of a 288-bit value being s_k. Each round gives one output bit
z = s66 ^ s93 ^ s162 ^ s177 ^ s243 ^ s288 and shifts the three registers s1..s93, s94..s177,
s178..s288. A seed fills s1..s256 and s257..s288 are ones (SEED_FILL), which keeps the state
away from all-zero (a fixed point); the reset state is all ones (public).
"""
STATE_BITS = 288
SEED_BITS = 256
SEED_FILL = 0xFFFF_FFFF           # s257..s288 after a reseed


def trivium_rounds(state, n: int, m, name: str = "trivium", stops=()):
    """(z, after) for n rounds from a 288-bit Amaranth value `state`: z the n output bits (round
    0 in bit 0), after[k] the state after k rounds for k in `stops` and n (named signals of m).

    Word-parallel, as the model's _rounds: no tap lies closer than 66 stages to where its
    register's new bits enter, so up to 64 rounds read only bits of the chunk's starting state
    and are a handful of 64-bit XORs / ANDs. Within a chunk of k rounds, tap(j) is s_j over the
    rounds with the last round in bit 0 (a plain slice), so the new bits of each register come
    out in the order they take in the state, and only z is put back into round order."""
    from amaranth.hdl import Cat, Signal
    s = state
    z, after, done = [], {}, 0
    bounds = sorted({*stops, n})
    while done < n:
        nxt = min([b for b in bounds if b > done] + [done + 64])
        k = nxt - done

        def tap(j, s=s, k=k):
            return s[j - k:j]
        t1 = tap(66) ^ tap(93)
        t2 = tap(162) ^ tap(177)
        t3 = tap(243) ^ tap(288)
        zr = Signal(k, name=f"{name}_z{done}")
        m.d.comb += zr.eq(t1 ^ t2 ^ t3)
        z += [zr[k - 1 - i] for i in range(k)]
        t1 = t1 ^ (tap(91) & tap(92)) ^ tap(171)
        t2 = t2 ^ (tap(175) & tap(176)) ^ tap(264)
        t3 = t3 ^ (tap(286) & tap(287)) ^ tap(69)
        nxs = Signal(STATE_BITS, name=f"{name}_{nxt}")
        m.d.comb += nxs.eq(Cat(t3, s[:93 - k], t1, s[93:177 - k], t2, s[177:288 - k]))
        s, done = nxs, nxt
        if nxt in bounds:
            after[nxt] = s
    zv = Signal(n, name=f"{name}_z")
    m.d.comb += zv.eq(Cat(*z))
    return zv, after


_LA, _LB, _LC = 93, 84, 111         # register lengths: s1..s93, s94..s177, s178..s288


def _tap(reg: int, length: int, stage: int, n: int) -> int:
    """Bits 0..n-1: the register's stage `stage` in rounds 0..n-1 (stage - i of the start)."""
    return (reg >> (length - stage)) & ((1 << n) - 1)


class Trivium:
    """State as (a, b, c); stages numbered within each register from 1."""

    def __init__(self):
        self.reset()

    def reset(self):
        self.a, self.b, self.c = (1 << _LA) - 1, (1 << _LB) - 1, (1 << _LC) - 1

    def __eq__(self, other):
        return isinstance(other, Trivium) and (self.a, self.b, self.c) == (other.a, other.b, other.c)

    def seed(self, value: int):
        """s1..s256 from value (bit i is s(i+1)), s257..s288 SEED_FILL."""
        self.load((value & ((1 << SEED_BITS) - 1)) | (SEED_FILL << SEED_BITS))

    def load(self, state: int):
        """state: bit k-1 is s_k (k = 1..288)."""
        def reg(first, length):
            return sum(((state >> (first - 1 + k)) & 1) << (length - 1 - k) for k in range(length))
        self.a, self.b, self.c = reg(1, _LA), reg(94, _LB), reg(178, _LC)

    def state(self) -> int:
        """The inverse of load()."""
        out = 0
        for first, length, reg in ((1, _LA, self.a), (94, _LB, self.b), (178, _LC, self.c)):
            for k in range(length):
                out |= ((reg >> (length - 1 - k)) & 1) << (first - 1 + k)
        return out

    def _rounds(self, n: int) -> int:
        a, b, c = self.a, self.b, self.c
        t1 = _tap(a, _LA, 66, n) ^ _tap(a, _LA, 93, n)
        t2 = _tap(b, _LB, 69, n) ^ _tap(b, _LB, 84, n)          # s162, s177
        t3 = _tap(c, _LC, 66, n) ^ _tap(c, _LC, 111, n)         # s243, s288
        z = t1 ^ t2 ^ t3
        t1 ^= (_tap(a, _LA, 91, n) & _tap(a, _LA, 92, n)) ^ _tap(b, _LB, 78, n)     # s171
        t2 ^= (_tap(b, _LB, 82, n) & _tap(b, _LB, 83, n)) ^ _tap(c, _LC, 87, n)     # s264
        t3 ^= (_tap(c, _LC, 109, n) & _tap(c, _LC, 110, n)) ^ _tap(a, _LA, 69, n)
        # round i's new bit enters stage 1 and is at stage n - i after n rounds (bit L-n+i)
        self.a = (a >> n) | (t3 << (_LA - n))
        self.b = (b >> n) | (t1 << (_LB - n))
        self.c = (c >> n) | (t2 << (_LC - n))
        return z

    def output(self, nbits: int) -> int:
        """The next nbits output bits, the first in bit 0."""
        out, done = 0, 0
        while done < nbits:
            n = min(64, nbits - done)
            out |= self._rounds(n) << done
            done += n
        return out
