# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""ML-DSA bit packing by bn.pk (VMODE 1), for sign16.py's rejection loop and keygen.py's
key packing: the inverse of unpack.py, one bn.pk per chunk appended to a byte stream (two where the chunk crosses a
32-byte word), no lane transposes.

    Stream(p, d, sink)           # prog.Prog helper: append d-bit fields of a word, each
                                 # finished 32-byte word to sink (store, store_at, absorb)
    hb4_word(...)                # 8 words -> HighBits + w1Encode (4-bit) in one word
    highbits_phases(...)         # ML-DSA-65: HighBits + w1Encode absorbed into c_tilde
    highbits6_phases(...)        # ML-DSA-44: the same with 6-bit w1 (44 values)
    z_check_pack(bits)           # z = ExpandMask y + c s1, ||z|| check, BitPack(z) in one
                                 # pass over the SHAKE256 digest words

A chunk of one word is d bytes (8 lanes of d bits). The stream register holds the f
pending bytes on its top (isa.yml bn.pk): off = d appends a chunk while f + d <= 32; when
f + d > 32, off = 32 - f gives the finished word and off = d the next one. Every count
and address is fixed: nothing depends on the (secret) values, as bn.pk itself.

HighBits for gamma2 = (q-1)/32 is bits 11.. of mulv.hi(r + gamma2 - 1, ceil(2^43 / alpha))
(layout.hb_mult; 16 at the q - 1 wrap), so its low 4 bits, which bn.pk keeps, are w1
mod 16, the wrap included (checked over every r in [0, q): test_mldsa_sign16.py
test_highbits_mulhi_exact): 3 lane-wise ops a word, against 7 and the lane shift + unzip tree
of rounding.highbits_word.
"""
from ip.acc.kernels.asm_util import li as _li, loop as _loop, mem as _m
from ip.acc.kernels.mldsa.layout import MU, VMODE1
from ip.acc.kernels.mldsa.unpack import LEGAL, period
from ip.acc.kernels.prog import Prog
from ip.acc.kernels.sample import SHAKE256


def store(ptr):
    """Stream sink: bn.sw.pi to the GPR ptr (post-incremented by 32)."""
    def sink(p, reg):
        p.sw_pi(reg, ptr)
    return sink


def store_at(base):
    """Stream sink: bn.sw to 32 n(base) for the n-th word, base not moved (the stores are
    ordered only through registers: the block must not read what it writes)."""
    n = []

    def sink(p, reg):
        p.raw(f"bn.sw {{0}}, {32 * len(n)}({{1}})", [], [reg, base])
        n.append(reg)
    return sink


def absorb(mask="x3"):
    """Stream sink: kmac.msg of the whole word (mask = -1 in the GPR), in stream order."""
    def sink(p, reg):
        p.raw(f"kmac.msg {{1}}, {mask}", ["@kmac"], [reg, "@kmac"])
    return sink


class Stream:
    """A bn.pk byte stream on a prog.Prog: put(v) appends the low d bits of v's 8 lanes
    (d bytes); each finished word goes to sink(p, reg). f: bytes pending."""

    def __init__(self, p, d, sink, tag="s"):
        if d not in LEGAL:
            raise ValueError(f"bn.pk: no {d}-bit fields in VMODE 1 (legal: {LEGAL})")
        self.p, self.d, self.sink, self.tag = p, d, sink, tag
        self.f, self.cur, self.n = 0, None, 0

    def put(self, v):
        p, d, f = self.p, self.d, self.f
        self.n += 1
        new = f"%{self.tag}c{self.n}"
        if f == 0:                   # the register's old bytes fall off: any source
            p.raw(f"bn.pk {{0}}, {{1}}, {{1}}, {d}, {d}", [new], [v])
        else:
            if f + d > 32:
                full = f"%{self.tag}o{self.n}"
                p.raw(f"bn.pk {{0}}, {{1}}, {{2}}, {d}, {32 - f}", [full], [v, self.cur])
                self.sink(p, full)
            p.raw(f"bn.pk {{0}}, {{1}}, {{2}}, {d}, {d}", [new], [v, self.cur])
        self.f = (f + d) % 32 if f + d != 32 else 32
        self.cur = new
        if self.f == 32:
            self.sink(p, new)
            self.f = 0

    def close(self):
        """The stream must end on a word boundary (nothing left unstored)."""
        assert self.f == 0, "the packed string must end on a word boundary"


# ------------------------------------------------------------------ HighBits + w1Encode
def hb_ops(src, g2m1, hbm):
    """HighBits (mod 16 for gamma2 = (q-1)/32) of the word in src, in place: bits 11.. of
    mulv.hi(r + gamma2 - 1, hbm)."""
    return [f"bn.addv {src}, {src}, {g2m1}", f"bn.mulv.hi {src}, {src}, {hbm}",
            f"bn.shrv {src}, {src}, 11"]


def hb4_word(regs, out, g2m1="w11", hbm="w12"):
    """The 8 words in regs (HighBits in place) -> their w1Encode word (4-bit w1; lane t =
    coefficients 8t..8t+7) in out, by 8 bn.pk appending 4 bytes each."""
    body = [x for r in regs for x in hb_ops(r, g2m1, hbm)]
    body += [f"bn.pk {out}, {regs[0]}, {regs[0]}, 4, 4"]
    body += [f"bn.pk {out}, {r}, {out}, 4, 4" for r in regs[1:]]
    return body


def _hash_start(nbytes):
    """c_tilde = H(mu || ...) started (nbytes in all), mu absorbed; x3 = -1."""
    return ["kmac.acq", f"addi x1, x0, {SHAKE256}"] + _li(2, nbytes) + \
        ["kmac.start x1, x2", "addi x3, x0, -1", f"bn.lw w1, {_m(MU)}",
         f"bn.lw w2, {_m(MU + 32)}", "kmac.msg w1, x3", "kmac.msg w2, x3"]


def _hash_end(ctil):
    return ["kmac.dig w1", "kmac.dig w2", f"bn.sw w1, {_m(ctil)}", f"bn.sw w2, {_m(ctil + 32)}"]


def highbits_phases(w, ctil, k, xa):
    """w1 = HighBits(w) (gamma2 = (q-1)/32) of the k polys at w (32-bit words), w1Encode
    absorbed word by word into c_tilde = H(mu || w1Encode(w1)) (64 B squeezed) -> ctil;
    the KMAC port acquired (and held). xa: the XC words (g2m1, hbm)."""
    regs = [f"w{q}" for q in range(8)]
    body = [f"bn.lw.pi {r}, 0(x5)" for r in regs] + hb4_word(regs, "w8") + ["kmac.msg w8, x3"]
    pre = VMODE1 + [f"bn.lw w11, {_m(xa['g2m1'])}", f"bn.lw w12, {_m(xa['hbm'])}"] + \
        _li(5, w) + _hash_start(64 + 128 * k)
    return [("init: c_tilde hash", pre),
            (f"HighBits + w1Encode (bn.pk) absorbed ({k} polys)", _loop(4 * k, body)),
            ("c_tilde", _hash_end(ctil))]


def highbits6_phases(w, ctil, k, m, xa):
    """w1 = HighBits(w) for gamma2 = (q-1)/88 (m = 44 values, 6-bit w1: t = bits 11.. of
    mulv.hi(r + gamma2 - 1, hbm), t = m (the q - 1 wrap) -> 0) of the k polys at w,
    w1Encode by a bn.pk stream absorbed word by word into c_tilde = H(mu || w1Encode(w1))
    -> ctil; the KMAC port acquired (and held)."""
    bits = (m - 1).bit_length()
    p = Prog([f"w{q}" for q in range(11)])
    st = Stream(p, bits, absorb(), "h")
    for r in range(period(bits)):
        u, t, g, v = f"%u{r}", f"%t{r}", f"%g{r}", f"%v{r}"
        p.lw_pi(u, "x5")
        p.op("bn.addv", u, u, "w11")
        p.op("bn.mulv.hi", t, u, "w12")
        p.op("bn.shrv", t, t, "11")
        p.op("bn.ltv", g, "w13", t)          # all-ones where t = m (> m - 1)
        p.op("bn.and", g, g, t)
        p.op("bn.xor", v, t, g)
        st.put(v)
    assert st.f == 0
    body = p.text().splitlines()
    pre = VMODE1 + [f"bn.lw w11, {_m(xa['g2m1'])}", f"bn.lw w12, {_m(xa['hbm'])}"] + \
        _li(1, m - 1) + ["bn.bcast w13, x1"] + _li(5, w) + _hash_start(64 + 32 * bits * k)
    return [("init: c_tilde hash", pre),
            (f"HighBits + w1Encode ({bits}-bit, bn.pk) absorbed ({k} polys)",
             _loop(32 * k // period(bits), body)),
            ("c_tilde", _hash_end(ctil))]


# ------------------------------------------------------------------ z
def z_check_pack(bits, cs="x11", out="x27", g1="w15", zb="w12", z2b="w13", ones="w14"):
    """One polynomial of z = y + c s1 with y = ExpandMask(rho'', kappa + j) read straight
    from the SHAKE256 started by sampling.mask_start (bits digest words, bn.unpk, y =
    gamma1 - field; KMAC port held), c s1 at cs (post-incremented): ||z||inf < gamma1 -
    beta into ACC / x9 (bn.or.acc; ACC zeroed by the caller), and BitPack(z, gamma1 - 1,
    gamma1) (fields gamma1 - z, `bits` bits) by a bn.pk stream to out (32 bits bytes,
    post-incremented). No DMEM buffer for y or z. Constants g1 = gamma1, zb, z2b (layout
    KA) and all-ones in the named WDRs; uses w0..w11."""
    p = Prog([f"w{q}" for q in range(12)])
    st = Stream(p, bits, store(out), "z")
    got = {}

    def word(a):
        if a not in got:
            got[a] = f"%i{a}"
            p.raw("kmac.dig {0}", [got[a], "@kmac"], ["@kmac"])
        return got[a]
    for r in range(period(bits)):
        a, off = divmod(bits * r, 32)
        lo = word(a)
        u, y, c, z, t, f = (f"%{n}{r}" for n in "uycztf")
        if off + bits > 32:
            p.raw(f"bn.unpk {{0}}, {{1}}, {{2}}, {bits}, {off}", [u], [lo, word(a + 1)])
        else:
            p.raw(f"bn.unpk {{0}}, {{1}}, {{1}}, {bits}, {off}", [u], [lo])
        p.op("bn.subvm", y, g1, u)
        p.lw_pi(c, cs)
        p.op("bn.addvm", z, y, c)
        p.op("bn.addvm", t, z, zb)
        p.op("bn.ltv", t, t, z2b)
        p.raw(f"bn.or.acc x9, {{2}}, {ones}", ["x9", "@acc"], [t, "@acc"])
        p.op("bn.subvm", f, g1, z)
        st.put(f)
    assert st.f == 0
    body = p.text().splitlines()
    n = 32 // period(bits)
    return body if n == 1 else _loop(n, body)
