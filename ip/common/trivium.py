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


def trivium_rounds(state, n: int, m=None, name: str = "trivium"):
    """(output bits z_0..z_{n-1}, {k: the state after k rounds, as a list of 1-bit values}
    for k = 32 and n), from a 288-bit state value: the specification's loop, unrolled. Works on
    Amaranth values and on lists of 0 / 1. Given a module m, the stages are named signals every
    64 rounds, so a long unrolling is a chain of shared nets, not one expression tree."""
    s = [None] + [state[k - 1] for k in range(1, STATE_BITS + 1)]
    z, after = [], {}
    for i in range(n):
        if i == 32:
            after[32] = s[1:]
        if m is not None and i and i % 64 == 0:
            from amaranth.hdl import Cat, Signal
            mid = Signal(STATE_BITS, name=f"{name}_{i}")
            m.d.comb += mid.eq(Cat(*s[1:]))
            s = [None] + [mid[k] for k in range(STATE_BITS)]
        t1 = s[66] ^ s[93]
        t2 = s[162] ^ s[177]
        t3 = s[243] ^ s[288]
        z.append(t1 ^ t2 ^ t3)
        t1 = t1 ^ (s[91] & s[92]) ^ s[171]
        t2 = t2 ^ (s[175] & s[176]) ^ s[264]
        t3 = t3 ^ (s[286] & s[287]) ^ s[69]
        s = [None, t3] + s[1:93] + [t1] + s[94:177] + [t2] + s[178:288]
    after[n] = s[1:]
    return z, after


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
