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
from ip.common.trivium import SEED_FILL, Trivium

POOL_WORDS = 8


class RandomRegs:
    def __init__(self):
        self.urnd = Trivium()
        self.busy = lambda: False        # URND in use by the stream unit (set by the machine)
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

    def check_free(self, what: str):
        """The core's URND access while the stream unit's masked mode steps it: SAMPLER."""
        if self.busy():
            raise AccError("SAMPLER", f"{what} while the stream unit runs a masked mode "
                                      "(it draws URND every cycle)")

    def draw(self, nbits: int) -> int:
        """The core's read of URND's next nbits (the URND CSR / WSR)."""
        self.check_free("URND read")
        return self.urnd.output(nbits)

    def reseed(self, value: int):
        self.check_free("URND reseed")
        self.urnd.load((value & ((1 << 256) - 1)) | (SEED_FILL << 256))
