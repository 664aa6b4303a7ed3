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

Masked schedule (`masked` high; t = 0 .. 24*slices, busy for 24*slices + 1 cycles; `done` in
the cycle after). The slice being worked on is always at bits [0, W) of every lane: each cycle
the shares' lanes rotate by W (bit b takes bit b + W), which is wiring, so chi needs no slice
multiplexers. A round (theta, rho, pi, chi) commutes with rotating every lane alike; only
iota's constant is placed for the state's offset (a small table indexed by t). In each cycle:
- the slice pending from cycle t-1 (at [0, W)) is compressed (inner terms, its c, iota's bits
  of its round);
- the lanes rotate by W; in a round's first cycle (t % slices == 0) both shares then go through
  theta, rho and pi (the linear layer; the last slice of the round before is compressed);
- the cross terms of bits [0, W) of that state (the next slice) are registered in c0 / c1 with
  25 * W fresh bits;
- the last cycle only compresses (24*slices rotations: the state is in place), zeroes c0 / c1.
With slices = 4: 97 cycles a permutation and 400 fresh bits a cycle.

Unmasked schedule (`masked` low: share 1 and the cross terms hold zeros, the PRNG does not
step): the same compression logic done on every slice at once is chi and iota of the whole
share 0, so share 0 alone does one round a cycle through the same gates. The start cycle takes
the first round's rotation and linear layer (on the loaded value), each busy cycle t = 0 .. 23
then compresses round t and, but in the last, rotates and takes round t + 1's linear layer
(24 rotations: in place at the end): 24 cycles a permutation, `done` when KeccakCore's would be
(ip/kmac/rtl/keccak.py), the same result. So the KMAC needs no second core for public hashing
(the matrix A, H(ek), ML-DSA's expansions).

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

SLICES = 4       # chi in four quarters: 97 cycles a permutation, 400 fresh bits a cycle


def _row(i: int, k: int) -> int:
    """Lane index of (x + k, y) for lane i = x + 5y: chi's neighbours in a row."""
    return (i % 5 + k) % 5 + 5 * (i // 5)


class MaskedKeccakCore(wiring.Component):
    """load / start / busy / done as KeccakCore's (ip/kmac/rtl/keccak.py), with the state in two
    shares; `masked` (held for the whole permutation) chooses the schedule; `reseed` loads `seed`
    into the PRNG (s1..s256, s257..s288 ones) while idle."""
    masked: In(1)
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
        msk = self.masked
        m.d.comb += [self.state0.eq(s[0]), self.state1.eq(s[1])]

        zv, after = trivium_rounds(prng, NB, m, name="prng")

        def piece(v, j):
            return v[j * W:(j + 1) * W]

        def rotate(v):
            """every lane of a 1600-bit value rotated by W (bit b takes bit b + W): wiring"""
            return Cat(*[Cat(v[64 * i + W:64 * (i + 1)], v[64 * i:64 * i + W]) for i in range(LANES)])

        # iota's bits for cycle t's compression, placed for the state's offset (t rotations
        # masked, t + 1 unmasked): masked, the pending slice's W bits at [0, W); unmasked, the
        # whole round's constant.
        rcx = Signal(64)
        with m.Switch(Cat(t, msk)):
            for tt in range(NROUNDS):
                with m.Case(tt):
                    off = (tt + 1) * W % 64
                    m.d.comb += rcx.eq(((RC[tt] >> off) | (RC[tt] << (64 - off))) & ((1 << 64) - 1))
            for tt in range(1, last + 1):
                with m.Case(tt | (1 << len(t))):
                    m.d.comb += rcx.eq(piece(Const(RC[(tt - 1) // S], 64), tt % S))

        # Compress the pending slice (at [0, W); unmasked: every slice of share 0) into the
        # shares: `merged` is the state with it done.
        a0, a1 = lanes_of(s[0]), lanes_of(s[1])
        flat = [[a[i % 5][i // 5] for i in range(LANES)] for a in (a0, a1)]
        merged = [Signal(1600, name="merged0"), Signal(1600, name="merged1")]
        pend = Signal()
        m.d.comb += pend.eq(Mux(msk, t != 0, self.busy))
        out = [[], []]
        for i in range(LANES):
            cc = [c[0][i * W:(i + 1) * W], c[1][i * W:(i + 1) * W]]
            pieces = []
            for j in range(S):
                v0 = piece(flat[0][i], j)
                p0, y0 = piece(flat[0][_row(i, 1)], j), piece(flat[0][_row(i, 2)], j)
                o0 = v0 ^ (~p0 & y0)
                if j == 0:
                    o0 = o0 ^ cc[0]
                if i == 0:
                    o0 = o0 ^ piece(rcx, j)
                pieces.append(Mux(pend & ((j == 0) | ~msk), o0, v0))
            out[0].append(Cat(*pieces))
            v1 = flat[1][i]
            o1 = piece(v1, 0) ^ (piece(flat[1][_row(i, 1)], 0) & piece(flat[1][_row(i, 2)], 0)) ^ cc[1]
            out[1].append(Cat(Mux(pend, o1, piece(v1, 0)), v1[W:]))
        m.d.comb += [merged[k].eq(Cat(*out[k])) for k in range(2)]

        # Rotation, then the linear layer on each share: in a masked round's first cycle, in
        # every unmasked cycle but the last, and (share 0, unmasked) on the loaded value at the
        # start.
        first = Mux(msk, (t[:sb] == 0) if sb else Const(1, 1), 1)
        lin_in0 = Signal(1600, name="lin_in0")
        m.d.comb += lin_in0.eq(Mux(self.busy, merged[0], Mux(self.load, self.load_data0, s[0])))
        rot = [rotate(lin_in0), rotate(merged[1])]
        lin = []
        for k in range(2):
            b = theta_rho_pi(m, lanes_of(rot[k]), f"lin{k}")
            v = Signal(1600, name=f"lin{k}_out")
            m.d.comb += v.eq(Cat(*[b[i % 5][i // 5] for i in range(LANES)]))
            lin.append(v)
        nxt = []
        for k in range(2):
            n = Signal(1600, name=f"next{k}")
            m.d.comb += n.eq(Mux(first, lin[k], rot[k]))
            nxt.append(n)

        # The cross terms of the next slice, at [0, W) of the next state, masked by fresh bits.
        sel = [[piece(nxt[k][64 * i:64 * (i + 1)], 0) for i in range(LANES)] for k in range(2)]
        nc = [[], []]
        for i in range(LANES):
            zz = zv[i * W:(i + 1) * W]
            nc[0].append((~sel[0][_row(i, 1)] & sel[1][_row(i, 2)]) ^ zz)
            nc[1].append((sel[1][_row(i, 1)] & sel[0][_row(i, 2)]) ^ zz)

        m.d.sync += self.done.eq(0)
        with m.If(self.busy):
            with m.If(t == Mux(msk, last, NROUNDS - 1)):
                m.d.sync += [s[0].eq(merged[0]), s[1].eq(merged[1]), c[0].eq(0), c[1].eq(0),
                             t.eq(0), self.busy.eq(0), self.done.eq(1)]
            with m.Else():
                m.d.sync += [s[0].eq(nxt[0]), s[1].eq(nxt[1]), t.eq(t + 1)]
                with m.If(msk):
                    m.d.sync += [c[0].eq(Cat(*nc[0])), c[1].eq(Cat(*nc[1])), prng.eq(after[NB])]
        with m.Else():
            with m.If(self.load):
                m.d.sync += [s[0].eq(self.load_data0), s[1].eq(self.load_data1)]
            with m.If(self.start):
                m.d.sync += self.busy.eq(1)
                with m.If(~msk):
                    m.d.sync += s[0].eq(lin[0])
            with m.If(self.reseed):
                m.d.sync += [prng.eq(Cat(self.seed, Const(SEED_FILL, STATE_BITS - SEED_BITS))),
                             self.seeded.eq(1)]
        return m
