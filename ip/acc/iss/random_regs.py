# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""The ACC's two sources of randomness (isa.yml csrs/wsrs RND and URND), modelled exactly.

RND: the entropy pool. The host writes 32-bit words into its ENTROPY register (ACC host
registers) while the core is idle; the pool keeps the last 8. A CSR read takes the oldest
fresh word, a WSR read takes all 8 (the first written in bits 31:0) and needs all 8 fresh.
A read of a word that is not fresh is the RND error. A word read is zeroed; the wipe
empties the pool.

URND: the masking PRNG, Trivium's state update (De Canniere and Preneel, eSTREAM) on a
288-bit state s1..s288 that a program seeds whole: `bn.wsrw URND, w` sets s1..s256 to w
(bit i of w is s(i+1)) and s257..s288 to the constant 0xffffffff, which keeps the state
away from all-zero (a fixed point). START and the wipe set every bit to 1 (a public state:
masks drawn before a reseed protect nothing). Each round gives one output bit
z = s66 ^ s93 ^ s162 ^ s177 ^ s243 ^ s288 and shifts the three registers; a CSR read is the
next 32 output bits (the first in bit 0), a WSR read the next 256.

Here the state is kept as three integers, one per register, bit j of a register of length L
being its stage L - j (so the last stage is bit 0): n <= 64 rounds then read every tap from
the state before them (the nearest tap is 66 stages from a register's input), as a few shifts.
"""
from ip.acc.iss.errors import AccError

POOL_WORDS = 8
SEED_FILL = 0xFFFF_FFFF           # s257..s288 after a reseed
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


class RandomRegs:
    def __init__(self):
        self.urnd = Trivium()
        self.pool = [0] * POOL_WORDS     # pool[0] the oldest of the last 8 words written
        self.fresh = 0
        self.wipe()

    def start(self):
        """CTRL.START: URND to its public reset state; the pool is the host's and stays."""
        self.urnd.reset()

    def wipe(self):
        self.urnd.reset()
        self.pool = [0] * POOL_WORDS
        self.fresh = 0

    def write_entropy(self, word: int):
        """The host's ENTROPY write (the core idle)."""
        self.pool = self.pool[1:] + [word & 0xFFFF_FFFF]
        self.fresh = min(POOL_WORDS, self.fresh + 1)

    def rnd32(self) -> int:
        if self.fresh == 0:
            raise AccError("RND", "RND CSR read with no fresh entropy word (host: ENTROPY)")
        word = self.pool[POOL_WORDS - self.fresh]
        self.pool[POOL_WORDS - self.fresh] = 0          # read once: not kept
        self.fresh -= 1
        return word

    def rnd256(self) -> int:
        if self.fresh != POOL_WORDS:
            raise AccError("RND", f"RND WSR read with {self.fresh} of 8 entropy words fresh "
                                  "(host: ENTROPY)")
        value = sum(w << (32 * i) for i, w in enumerate(self.pool))
        self.pool, self.fresh = [0] * POOL_WORDS, 0
        return value

    def reseed(self, value: int):
        self.urnd.load((value & ((1 << 256) - 1)) | (SEED_FILL << 256))
