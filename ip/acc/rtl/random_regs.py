# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""RND's entropy pool and URND's masking PRNG (isa.yml csrs / wsrs RND, URND; the ISS's
ip/acc/iss/random_regs.py models both exactly).

Pool: the host's last 8 ENTROPY words, word 7 the newest; the `fresh` newest are unread. A
CSR read takes the oldest fresh word (7 - fresh + 1), a WSR read all 8; a word read becomes 0.

PRNG: Trivium's round (De Canniere and Preneel) unrolled 256 times, all in one cycle: a URND
WSR read takes 256 output bits and the state after 256 rounds, a CSR read the first 32 and the
state after 32. State bit k-1 is stage s_k. Its registers toggle only when a program reads or
reseeds it, so an idle ACC adds no switching here.
"""
from amaranth.hdl import Cat, Const, Module, Mux, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

POOL_WORDS = 8
STATE_BITS = 288


def trivium_rounds(state, n: int):
    """(output bits z_0..z_{n-1}, {k: the state after k rounds, as a list of 1-bit values}
    for k = 32 and n), from a 288-bit state value: the specification's loop, unrolled."""
    s = [None] + [state[k - 1] for k in range(1, STATE_BITS + 1)]
    z, after = [], {}
    for i in range(n):
        if i == 32:
            after[32] = s[1:]
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


class RandomRegs(wiring.Component):
    def __init__(self):
        super().__init__({
            "entropy_we": In(1), "entropy": In(32),       # the host's ENTROPY write
            "start": In(1),                               # URND to its public state
            "wipe": In(1),                                # ... and the pool emptied
            "fresh": Out(4), "rnd_word": Out(32), "rnd_all": Out(256),
            "take_word": In(1), "take_all": In(1),        # a RND CSR / WSR read retires
            "urnd32": Out(32), "urnd256": Out(256),
            "step32": In(1), "step256": In(1),            # a URND CSR / WSR read retires
            "reseed": In(1), "seed": In(256),             # bn.wsrw URND retires
        })

    def elaborate(self, platform):
        m = Module()
        pool = [Signal(32, name=f"pool{i}") for i in range(POOL_WORDS)]
        fresh = Signal(4)
        ones = (1 << STATE_BITS) - 1
        state = Signal(STATE_BITS, init=ones)

        oldest = Signal(range(POOL_WORDS))          # index of the oldest fresh word
        m.d.comb += [oldest.eq(POOL_WORDS - fresh), self.fresh.eq(fresh),
                     self.rnd_all.eq(Cat(*pool))]
        with m.Switch(oldest):
            for i in range(POOL_WORDS):
                with m.Case(i):
                    m.d.comb += self.rnd_word.eq(pool[i])

        z, after = trivium_rounds(state, 256)
        m.d.comb += [self.urnd256.eq(Cat(*z)), self.urnd32.eq(Cat(*z[:32]))]

        with m.If(self.take_word):
            m.d.sync += fresh.eq(fresh - 1)
            with m.Switch(oldest):
                for i in range(POOL_WORDS):
                    with m.Case(i):
                        m.d.sync += pool[i].eq(0)
        with m.If(self.take_all):
            m.d.sync += fresh.eq(0)
            m.d.sync += [p.eq(0) for p in pool]
        with m.If(self.entropy_we):                   # the core is idle: no read this cycle
            m.d.sync += [pool[i].eq(pool[i + 1]) for i in range(POOL_WORDS - 1)]
            m.d.sync += [pool[-1].eq(self.entropy), fresh.eq(Mux(fresh == POOL_WORDS, fresh, fresh + 1))]

        with m.If(self.step256):
            m.d.sync += state.eq(Cat(*after[256]))
        with m.Elif(self.step32):
            m.d.sync += state.eq(Cat(*after[32]))
        with m.Elif(self.reseed):
            m.d.sync += state.eq(Cat(self.seed, Const(0xFFFF_FFFF, 32)))

        with m.If(self.start | self.wipe):
            m.d.sync += state.eq(ones)
        with m.If(self.wipe):
            m.d.sync += fresh.eq(0)
            m.d.sync += [p.eq(0) for p in pool]
        return m
