# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""Keccak-f[1600] on two Boolean shares: first-order masking with domain-oriented (DOM) ANDs in
chi and its own masking PRNG (issue #38, the masked KMAC's permutation).

The state x is held as x = s0 ^ s1. Theta, rho, pi and iota are linear and run on each share
alone. Chi's AND, out = a ^ (~p & y) per bit, is a DOM-independent AND (Gross, Mangard, Korak
2016) with one fresh bit z per state bit:

    cross terms, registered:  c0 = (~p0 & y1) ^ z      c1 = (p1 & y0) ^ z
    inner terms, then:        o0 = a0 ^ (~p0 & y0) ^ c0   o1 = a1 ^ (p1 & y1) ^ c1

so o0 ^ o1 = a ^ (~p & y), and no register ever holds a value of both shares that is not
masked by a fresh z. Chi works on rows (5 bits of one plane and one z position), so the state
splits into `slices` groups of z positions (slice j: bits [j*W, (j+1)*W) of every lane,
W = 64 / slices) that are done one after the other: the cross-term registers c0 / c1 and the
randomness per cycle are one slice's (25 * W bits), not the state's.

Schedule (t = 0 .. 24*slices, busy for 24*slices + 1 cycles; `done` in the cycle after):
- the slice pending from cycle t-1 is compressed (inner terms, its c, iota's bits of its round)
  and written back into s0 / s1;
- in a round's first cycle (t % slices == 0) both shares then go through theta, rho and pi
  (the linear layer, from the state with the last slice just compressed);
- the cross terms of slice t % slices of that state are registered in c0 / c1 with 25 * W
  fresh bits;
- the last cycle only compresses, and zeroes c0 / c1.
With slices = 2: 49 cycles a permutation (the unmasked core's 24 + 1 per round + 1) and 800
fresh bits a cycle.

Randomness: Trivium (ip/common/trivium.py) unrolled to 25 * W rounds a cycle, stepped only in
the cycles that register cross terms. Reset leaves it all ones, a public state: masks from an
unseeded PRNG protect nothing, so `seeded` says whether `reseed` has loaded a seed since reset
(its user refuses masked work before). The ISS-side model is ip/kmac/model/masked_keccak.py,
equal to this register for register (ip/kmac/tests/test_keccak_masked.py).
"""
from amaranth import Cat, Const, Module, Mux, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from ip.common.trivium import SEED_BITS, SEED_FILL, STATE_BITS, trivium_rounds
from ip.kmac.rtl.keccak import LANES, NROUNDS, RC, lanes_of, theta_rho_pi

SLICES = 2       # chi in two halves: 49 cycles a permutation, 800 fresh bits a cycle


def _row(i: int, k: int) -> int:
    """Lane index of (x + k, y) for lane i = x + 5y: chi's neighbours in a row."""
    return (i % 5 + k) % 5 + 5 * (i // 5)


class MaskedKeccakCore(wiring.Component):
    """load / start / busy / done as KeccakCore's (ip/kmac/rtl/keccak.py), with the state in two
    shares; `reseed` loads `seed` into the PRNG (s1..s256, s257..s288 ones) while idle."""
    load: In(1)
    load_data0: In(1600)
    load_data1: In(1600)
    start: In(1)
    busy: Out(1)
    done: Out(1)
    state0: Out(1600)
    state1: Out(1600)
    reseed: In(1)
    seed: In(SEED_BITS)
    seeded: Out(1)

    def __init__(self, slices: int = SLICES):
        if slices not in (1, 2, 4, 8):
            self._MustUse__silence = True   # a rejected core is never elaborated: no warning
            raise ValueError(f"slices must be 1, 2, 4 or 8, got {slices}")
        self.slices = slices
        self.width = 64 // slices                     # z positions per slice
        self.rand_bits = LANES * self.width           # fresh bits a cycle
        self.cycles = NROUNDS * slices + 1
        super().__init__()
        # inner registers, made here so that benches can read them
        self.c0 = Signal(self.rand_bits, name="c0")
        self.c1 = Signal(self.rand_bits, name="c1")
        self.prng = Signal(STATE_BITS, init=(1 << STATE_BITS) - 1, name="prng")

    def elaborate(self, platform):
        m = Module()
        S, W, NB = self.slices, self.width, self.rand_bits
        sb = (S - 1).bit_length()                     # bits of the slice index
        last = NROUNDS * S
        s = [Signal(1600, name="s0"), Signal(1600, name="s1")]
        c = [self.c0, self.c1]
        t = Signal(range(last + 1))
        prng = self.prng
        m.d.comb += [self.state0.eq(s[0]), self.state1.eq(s[1])]

        zv, after = trivium_rounds(prng, NB, m, name="prng")

        # The pending slice (registered in cycle t-1) and its round; iota's bits of that round.
        tm1 = Signal(range(last + 1))
        m.d.comb += tm1.eq(t - 1)
        pj = tm1[:sb] if sb else Const(0, 1)
        pr = tm1[sb:] if sb else tm1
        rc = Signal(64)
        with m.Switch(pr):
            for r in range(NROUNDS):
                with m.Case(r):
                    m.d.comb += rc.eq(RC[r])

        def piece(lane, j):
            return lane[j * W:(j + 1) * W]

        # Compress the pending slice into the shares: `merged` is the state with it done.
        a0, a1 = lanes_of(s[0]), lanes_of(s[1])
        flat = [[a[i % 5][i // 5] for i in range(LANES)] for a in (a0, a1)]
        merged = [Signal(1600, name="merged0"), Signal(1600, name="merged1")]
        out = [[], []]
        for i in range(LANES):
            pieces = [[], []]
            cc = [c[0][i * W:(i + 1) * W], c[1][i * W:(i + 1) * W]]
            for j in range(S):
                v0, v1 = piece(flat[0][i], j), piece(flat[1][i], j)
                p0, p1 = piece(flat[0][_row(i, 1)], j), piece(flat[1][_row(i, 1)], j)
                y0, y1 = piece(flat[0][_row(i, 2)], j), piece(flat[1][_row(i, 2)], j)
                o0 = v0 ^ (~p0 & y0) ^ cc[0]
                if i == 0:
                    o0 = o0 ^ piece(rc, j)
                o1 = v1 ^ (p1 & y1) ^ cc[1]
                pend = (t != 0) & (pj == j)
                pieces[0].append(Mux(pend, o0, v0))
                pieces[1].append(Mux(pend, o1, v1))
            out[0].append(Cat(*pieces[0]))
            out[1].append(Cat(*pieces[1]))
        m.d.comb += [merged[k].eq(Cat(*out[k])) for k in range(2)]

        # A round's first cycle: the linear layer on each share.
        first = (t[:sb] == 0) if sb else Const(1, 1)
        nxt = []
        for k in range(2):
            b = theta_rho_pi(m, lanes_of(merged[k]), f"lin{k}")
            lin = Signal(1600, name=f"lin{k}_out")
            m.d.comb += lin.eq(Cat(*[b[i % 5][i // 5] for i in range(LANES)]))
            n = Signal(1600, name=f"next{k}")
            m.d.comb += n.eq(Mux(first, lin, merged[k]))
            nxt.append(n)

        # The cross terms of slice t % slices of the next state, each masked by its fresh bit.
        cj = t[:sb] if sb else Const(0, 1)
        sel = [[], []]
        for k in range(2):
            for i in range(LANES):
                lane = nxt[k][64 * i:64 * (i + 1)]
                v = piece(lane, 0)
                for j in range(1, S):
                    v = Mux(cj == j, piece(lane, j), v)
                sv = Signal(W, name=f"sel{k}_{i}")
                m.d.comb += sv.eq(v)
                sel[k].append(sv)
        nc = [[], []]
        for i in range(LANES):
            zz = zv[i * W:(i + 1) * W]
            nc[0].append((~sel[0][_row(i, 1)] & sel[1][_row(i, 2)]) ^ zz)
            nc[1].append((sel[1][_row(i, 1)] & sel[0][_row(i, 2)]) ^ zz)

        m.d.sync += self.done.eq(0)
        with m.If(self.busy):
            with m.If(t == last):
                m.d.sync += [s[0].eq(merged[0]), s[1].eq(merged[1]), c[0].eq(0), c[1].eq(0),
                             t.eq(0), self.busy.eq(0), self.done.eq(1)]
            with m.Else():
                m.d.sync += [s[0].eq(nxt[0]), s[1].eq(nxt[1]), c[0].eq(Cat(*nc[0])),
                             c[1].eq(Cat(*nc[1])), t.eq(t + 1), prng.eq(after[NB])]
        with m.Else():
            with m.If(self.load):
                m.d.sync += [s[0].eq(self.load_data0), s[1].eq(self.load_data1)]
            with m.If(self.start):
                m.d.sync += self.busy.eq(1)
            with m.If(self.reseed):
                m.d.sync += [prng.eq(Cat(self.seed, Const(SEED_FILL, STATE_BITS - SEED_BITS))),
                             self.seeded.eq(1)]
        return m
