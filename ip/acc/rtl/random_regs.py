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

from ip.common.trivium import STATE_BITS, trivium_rounds

POOL_WORDS = 8


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

        z, after = trivium_rounds(state, 256, m, name="urnd", stops=(32,))
        m.d.comb += [self.urnd256.eq(z), self.urnd32.eq(z[:32])]

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
            m.d.sync += state.eq(after[256])
        with m.Elif(self.step32):
            m.d.sync += state.eq(after[32])
        with m.Elif(self.reseed):
            m.d.sync += state.eq(Cat(self.seed, Const(0xFFFF_FFFF, 32)))

        with m.If(self.start | self.wipe):
            m.d.sync += state.eq(ones)
        with m.If(self.wipe):
            m.d.sync += fresh.eq(0)
            m.d.sync += [p.eq(0) for p in pool]
        return m
