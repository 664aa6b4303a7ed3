# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""ML-KEM encodings and roundings on the ACC (FIPS 203 4.2.1, 4.2.2): ByteDecode_d (by
bn.unpk) with Decompress_d on the way, Compress_d compared lane by lane
with a decoded ciphertext (the re-encryption check), and Compress_1 + ByteEncode_1 of the
message. The generators take their buffer addresses as arguments and the addresses of
their constant words as `ka` (name -> DMEM address of the words of `const_words()`).

* ByteDecode_d, any d of ML-KEM (s_hat, t_hat: 12; u: 10, 11; v: 4, 5; `decode_unpk`):
  VMODE 0, one bn.unpk per output word (16 coefficients = 2d bytes) from the pair of
  32-byte input words holding its bytes, at byte offset 2dk mod 32; a loopi over periods
  of unpk_period(d) output words, after which the offsets repeat (d = 12: 4 words from 3
  loads); ~2 + 2d/32 cycles per 16 coefficients (bn.unpk, store, loads; + 1 for the
  shift of u / v below). A hash's message words can be fed to the KMAC in its shadow
  (kmac_words).
* Decoded u / v are kept as y << (16 - d) (d = 10 / 11, 4 / 5) in 16-bit lanes: the
  re-encryption check (`compress_compare`) compares Compress_d(u') << (16 - d) with them
  lane by lane (c' = c iff all compressed coefficients are equal, ByteEncode_d being a
  bijection), so c' is never encoded. Compress_d(x) = ((2^d x + q/2) - ((2^d x + q/2) mod
  q)) / q exactly: the remainder comes from bn.mulvm / bn.addvm, the exact division is a
  bn.mulv.lo by q^-1 mod 2^16 (times 2^(16-d), which also gives the mod 2^d).
* Decompress_d from y << (16-d): bn.mulv.hi / bn.mulv.lo by q and the rounding bit
  (`decompress10_load`: inside the NTT's first pass).
* ByteEncode12 (t_hat, s_hat of keygen; `encode12`): VMODE 1, four input words (64
  coefficients, 96 output bytes) per loopi iteration. Each 32-bit lane becomes the 24-bit
  field F = c_even | c_odd << 12 of its coefficient pair (and / shift / or; from the
  base-case transposed layout the pair is the low or high halves of two words, at no extra
  cost). Two bn.unzip levels sort the 32 fields of the chunk into P_i (lane l = field
  4l + i); the three 32-bit granules of the 96-bit block l are then uniform shifts / ors,
  G0 = P0 | P1 << 24, G1 = P1 >> 8 | P2 << 16, G2 = P2 >> 16 | P3 << 8, and each granule
  leaves by bn.ext + sw (byte 4 (3l + j) of the chunk): ~86 instructions per 64
  coefficients, 48 of them ext / sw.
* Compress_d + ByteEncode_d of the ciphertext (encaps, d = 4, 5, 10, 11; `compress`,
  `encode`): Compress_d as in compress_compare but LSB-aligned (q^-1 mod 2^16; the mod
  2^d taken by the encoder's masks), with e and Decompress1(m) added on the way; the encoding in VMODE 1 as encode12
  (pair fields, two unzip levels, a block of 8 coefficients per lane), the granules of the
  blocks leaving by bn.ext + sw (d = 4: whole words; d = 10: blocks paired into 5 whole
  granules; d = 5, 11: blocks merged into the byte stream in GPRs).
* Compress1 + ByteEncode1 of m' (`message_fin`, inside the INTT of w): two compares give
  the bit masks (kept: they are Decompress1(m') after an AND with 1665), AND with 1 << lane,
  then a 15-step unzip.lo / unzip.hi / or tree packs 256 bits into one word.
"""
from ip.acc.kernels.asm_util import li as _li, loop as _loop, mem as _m, u32 as _u32
from ip.acc.kernels.prog import Prog

Q = 3329
QINV16 = pow(Q, -1, 1 << 16)

# the constant words, in their DMEM order ("one" is the decaps select's)
CONST_NAMES = ["q", "c833", "c1664", "bits", "c1665", "one", "mc10", "qi10", "mc4", "qi4"]


def u16(vals) -> bytes:
    """16-bit little-endian halfwords (values reduced mod 2^16)."""
    return b"".join((v % (1 << 16)).to_bytes(2, "little") for v in vals)


def const_words() -> dict:
    """name -> the 32 bytes of that constant word."""
    c = {}
    c["m12"] = _u32([0xFFF] * 8)
    c["q"] = u16([Q] * 16)
    c["c833"] = u16([833] * 16)
    c["c1664"] = u16([1664] * 16)
    c["bits"] = u16([1 << lane for lane in range(16)])
    c["c1665"] = u16([1665] * 16)
    c["one"] = u16([1] * 16)
    c["mc10"] = u16([(1 << 10) * (1 << 16) % Q] * 16)
    c["qi10"] = u16([QINV16 * (1 << 6)] * 16)
    c["mc4"] = u16([(1 << 4) * (1 << 16) % Q] * 16)
    c["qi4"] = u16([QINV16 * (1 << 12)] * 16)
    c["m24h"] = _u32([0xFFF000] * 8)
    # Compress_d + ByteEncode_d (encaps: d = 10, 11 for u; 4, 5 for v)
    c["qinv"] = u16([QINV16] * 16)
    for d in ENCODE_DS:
        c[f"mc{d}"] = u16([(1 << d) * (1 << 16) % Q] * 16)
        c[f"qi{d}"] = u16([QINV16 * (1 << (16 - d))] * 16)
        c[f"fl{d}"] = _u32([(1 << d) - 1] * 8)
        c[f"fh{d}"] = _u32([((1 << d) - 1) << d] * 8)
    return c


# the constant words of encode12 (not in CONST_NAMES: the decaps layout stays as it is)
ENCODE_CONST_NAMES = ["m12", "m24h"]

# the d of Compress_d / ByteEncode_d in a ciphertext (du, dv of the three parameter sets)
ENCODE_DS = (4, 5, 10, 11)


def compress_const_names(d) -> list:
    """The constant words `compress(d, ...)` and `encode(d, ...)` read."""
    return ["c1664", "c1665", "bits", "qinv", f"mc{d}", f"fl{d}", f"fh{d}"]


def decompress10_load(dsrc, ka):
    """Pass-1 loader of the NTT (mlkem.ntt.ntt_body's load): words y << 6 from base
    register x{dsrc}, Decompress10 on the way in (virtual registers: q, temporaries).
    The same code is Decompress_d of words y << (16 - d) for any d (round(y q / 2^d) =
    mulv.hi(y << (16 - d), q) + bit 15 of mulv.lo): decaps of ML-KEM-1024 (d = 11)."""
    def load(words, base, regs):
        q = f"%dq{words[0]}"
        L = [f"bn.lw {reg}, {32 * r}(x{dsrc})" for reg, r in zip(regs, words)]
        L.append(f"bn.lw {q}, {_m(ka['q'])}")
        for i in range(0, 8, 2):
            hi0, lo0, hi1, lo1 = (f"%d{k}_{words[i]}" for k in range(4))
            L += [f"bn.mulv.hi {hi0}, {regs[i]}, {q}", f"bn.mulv.lo {lo0}, {regs[i]}, {q}",
                  f"bn.mulv.hi {hi1}, {regs[i + 1]}, {q}", f"bn.mulv.lo {lo1}, {regs[i + 1]}, {q}",
                  f"bn.shrv {lo0}, {lo0}, 15", f"bn.shrv {lo1}, {lo1}, 15",
                  f"bn.addv {regs[i]}, {hi0}, {lo0}", f"bn.addv {regs[i + 1]}, {hi1}, {lo1}"]
        return L
    return load


def message_fin(v, msk, mout, ka, mem, d=None):
    """VMODE 0: m' = ByteEncode1(Compress1(v - w)) -> mout, the masks -> msk, fused into the
    INTT of w (ntt.intt_body's fin): (consume(r, reg), loads), word r of w taken from the
    register reg (no store and load of w). Compress1: (v - w) - 833 < 1664 (two compares in
    one bn.subv / bn.ltv) gives the mask, AND with 1 << lane; a 15-step unzip.lo / unzip.hi
    / or tree (neighbours combined as soon as both exist: few values live) packs the 256
    bits, m' stored after the last word. d: the words at v are the
    decoded y << (16 - d), Decompress_d taken on the way (decompress10_load's formula)."""
    loads = {"%k833": f"bn.lw %k833, {mem(ka['c833'])}",
             "%k1664": f"bn.lw %k1664, {mem(ka['c1664'])}",
             "%kbits": f"bn.lw %kbits, {mem(ka['bits'])}"}
    if d is not None:
        loads["%kq"] = f"bn.lw %kq, {mem(ka['q'])}"
    for r in range(16):
        loads[f"%mv{r}"] = f"bn.lw %mv{r}, {mem(v + 32 * r)}"
    stacks, done = ([], []), []

    def combine(a, b, name):
        return [f"bn.unzip.lo {name}l, {a}, {b}", f"bn.unzip.hi {name}h, {a}, {b}",
                f"bn.or {name}, {name}l, {name}h"]

    def consume(r, reg):
        vr, L = f"%mv{r}", []
        if d is not None:
            L = [f"bn.mulv.hi %dh{r}, %mv{r}, %kq", f"bn.mulv.lo %dl{r}, %mv{r}, %kq",
                 f"bn.shrv %dl{r}, %dl{r}, 15", f"bn.addv %dv{r}, %dh{r}, %dl{r}"]
            vr = f"%dv{r}"
        L += [f"bn.subvm %md{r}, {vr}, {reg}", f"bn.subv %md{r}, %md{r}, %k833",
             f"bn.ltv %md{r}, %md{r}, %k1664", f"bn.sw %md{r}, {mem(msk + 32 * r)}",
             f"bn.and %ma{r}, %md{r}, %kbits"]
        st = stacks[r // 8]
        st.append((0, f"%ma{r}"))
        while len(st) > 1 and st[-1][0] == st[-2][0]:
            (lv, b), (_, a) = st.pop(), st.pop()
            name = f"%mt{r}_{lv}"
            L += combine(a, b, name)
            st.append((lv + 1, name))
        if len(st) == 1 and st[0][0] == 3:
            done.append(r // 8)
        if len(done) == 2:
            L += combine(stacks[0][0][1], stacks[1][0][1], "%mm")
            L.append(f"bn.sw %mm, {mem(mout)}")
        return L
    return consume, loads


def compress_compare(kind, src, e, cmp, ka, msk=None, d=None):
    """After an INTT (result at src, one polynomial): add e (and, kind "v", mu = the
    compress1 masks at msk AND 1665), Compress_d (d = 10 for kind "u", 4 for "v"), OR the
    difference to the decoded c at cmp (y << (16 - d)) into ACC: x9 = 0 iff all equal.
    d: another d of ENCODE_DS (ML-KEM-1024: 11, 5). Constants in w12..w15, values
    allocated in w0..w11."""
    if d is None:
        d = 10 if kind == "u" else 4
    p = Prog([f"w{n}" for n in range(12)])
    p.lw("w12", ka["c1664"])
    p.lw("w13", ka[f"mc{d}"])
    p.lw("w14", ka[f"qi{d}"])
    if kind == "v":
        p.lw("w15", ka["c1665"])
    for r in range(16):
        p.lw(f"%in{r}", src + 32 * r)
        p.lw(f"%e{r}", e + 32 * r)
        p.op("bn.addvm", f"%x{r}", f"%in{r}", f"%e{r}")
        if kind == "v":
            p.lw(f"%mk{r}", msk + 32 * r)
            p.op("bn.and", f"%mu{r}", f"%mk{r}", "w15")
            p.op("bn.addvm", f"%xx{r}", f"%x{r}", f"%mu{r}")
            xr = f"%xx{r}"
        else:
            xr = f"%x{r}"
        _compress_ops(p, r, xr, d, mc="w13", half="w12", qinv="w14")
        p.lw(f"%c{r}", cmp + 32 * r)
        p.op("bn.or.acc", "x9", f"%y{r}", f"%c{r}")
    return p.text().splitlines()


def compare_fin(kind, e, cmp, ka, mem, msk=None, d=None):
    """compress_compare fused into the INTT that makes its input (ntt.intt_body's fin):
    (consume(r, reg), loads) on virtual registers, the result word r taken from the
    register reg instead of DMEM (no store and load of u' / v'): the same arithmetic and
    result (ACC, x9 = 0 iff all equal)."""
    if d is None:
        d = 10 if kind == "u" else 4
    loads = {"%kh": f"bn.lw %kh, {mem(ka['c1664'])}", "%kmc": f"bn.lw %kmc, {mem(ka[f'mc{d}'])}",
             "%kqi": f"bn.lw %kqi, {mem(ka[f'qi{d}'])}"}
    if kind == "v":
        loads["%k1665"] = f"bn.lw %k1665, {mem(ka['c1665'])}"
    for r in range(16):
        loads[f"%fe{r}"] = f"bn.lw %fe{r}, {mem(e + 32 * r)}"
        loads[f"%fc{r}"] = f"bn.lw %fc{r}, {mem(cmp + 32 * r)}"
        if kind == "v":
            loads[f"%fm{r}"] = f"bn.lw %fm{r}, {mem(msk + 32 * r)}"

    def consume(r, reg):
        x = f"%fx{r}"
        L = [f"bn.addvm {x}, {reg}, %fe{r}"]
        if kind == "v":
            L += [f"bn.and %fu{r}, %fm{r}, %k1665", f"bn.addvm %fxx{r}, {x}, %fu{r}"]
            x = f"%fxx{r}"
        L += [f"bn.mulvm %fzm{r}, {x}, %kmc", f"bn.shlv %fzl{r}, {x}, {d}",
              f"bn.addv %fzl{r}, %fzl{r}, %kh", f"bn.addvm %fzm{r}, %fzm{r}, %kh",
              f"bn.subv %fzl{r}, %fzl{r}, %fzm{r}", f"bn.mulv.lo %fzl{r}, %fzl{r}, %kqi",
              f"bn.or.acc x9, %fzl{r}, %fc{r}"]
        return L
    return consume, loads


def compress_compare_loop(kind, src, e, cmp, ka, msk=None, d=None, per=2):
    """compress_compare as a loopi of `per` words per iteration (16 / per iterations,
    post-increment pointers x10 src, x11 e, x12 cmp, x13 msk): the same arithmetic and
    result (x9 = 0 iff all equal) in ~1/8 of the code, for the programs short of IMEM
    (ML-KEM-1024 decaps)."""
    if d is None:
        d = 10 if kind == "u" else 4
    L = [f"bn.lw w12, {_m(ka['c1664'])}", f"bn.lw w13, {_m(ka[f'mc{d}'])}",
         f"bn.lw w14, {_m(ka[f'qi{d}'])}"]
    L += _li(10, src) + _li(11, e) + _li(12, cmp)
    if kind == "v":
        L += [f"bn.lw w15, {_m(ka['c1665'])}"] + _li(13, msk)
    p = Prog([f"w{n}" for n in range(12)])
    for r in range(per):
        p.lw_pi(f"%in{r}", "x10")
        p.lw_pi(f"%e{r}", "x11")
        p.op("bn.addvm", f"%x{r}", f"%in{r}", f"%e{r}")
        xr = f"%x{r}"
        if kind == "v":
            p.lw_pi(f"%mk{r}", "x13")
            p.op("bn.and", f"%mu{r}", f"%mk{r}", "w15")
            p.op("bn.addvm", f"%xx{r}", xr, f"%mu{r}")
            xr = f"%xx{r}"
        _compress_ops(p, r, xr, d, mc="w13", half="w12", qinv="w14")
        p.lw_pi(f"%c{r}", "x12")
        p.op("bn.or.acc", "x9", f"%y{r}", f"%c{r}")
    return L + _loop(16 // per, p.text().splitlines())


def encode12(src, dst, npolys, ka, transposed=False):
    """VMODE 1: ByteEncode12 of npolys polynomials at src (16 words each, coefficients
    < 4096: fully reduced mod q for FIPS 203) -> 384 bytes each at dst (32-byte aligned).
    transposed: src in the base-case layout (basemul.transposed_store) instead of natural.
    Constants ka["m12"], ka["m24h"] in w14 / w15; uses x5, x6, x18..x25, w0..w15."""
    L = _li(5, src) + _li(6, dst) + [f"bn.lw w14, {_m(ka['m12'])}",
                                       f"bn.lw w15, {_m(ka['m24h'])}"]
    p = Prog([f"w{n}" for n in range(14)])
    for w in range(4):
        p.lw_pi(f"%x{w}", "x5")
    for w in range(0, 4, 2):
        a, b = f"%x{w}", f"%x{w + 1}"
        if transposed:
            # word 2s: (c[32s+2i], c[32s+16+2i]) in lane i, word 2s+1: the odd partners
            p.op("bn.and", f"%l{w}", a, "w14")
            p.op("bn.shlv", f"%m{w}", b, "12")
            p.op("bn.and", f"%n{w}", f"%m{w}", "w15")
            p.op("bn.or", f"%E{w}", f"%l{w}", f"%n{w}")
            p.op("bn.shrv", f"%l{w + 1}", a, "16")
            p.op("bn.shrv", f"%m{w + 1}", b, "4")
            p.op("bn.and", f"%n{w + 1}", f"%m{w + 1}", "w15")
            p.op("bn.or", f"%E{w + 1}", f"%l{w + 1}", f"%n{w + 1}")
        else:
            for x in (w, w + 1):
                p.op("bn.and", f"%l{x}", f"%x{x}", "w14")
                p.op("bn.shrv", f"%m{x}", f"%x{x}", "4")
                p.op("bn.and", f"%n{x}", f"%m{x}", "w15")
                p.op("bn.or", f"%E{x}", f"%l{x}", f"%n{x}")
    # fields 0..31 of the chunk: U0 even of 0..15, U1 odd, U2 even of 16..31, U3 odd
    p.op("bn.unzip.lo", "%U0", "%E0", "%E1")
    p.op("bn.unzip.hi", "%U1", "%E0", "%E1")
    p.op("bn.unzip.lo", "%U2", "%E2", "%E3")
    p.op("bn.unzip.hi", "%U3", "%E2", "%E3")
    p.op("bn.unzip.lo", "%P0", "%U0", "%U2")
    p.op("bn.unzip.hi", "%P2", "%U0", "%U2")
    p.op("bn.unzip.lo", "%P1", "%U1", "%U3")
    p.op("bn.unzip.hi", "%P3", "%U1", "%U3")
    p.op("bn.shlv", "%h1", "%P1", "24")
    p.op("bn.or", "%G0", "%P0", "%h1")
    p.op("bn.shrv", "%h2", "%P1", "8")
    p.op("bn.shlv", "%h3", "%P2", "16")
    p.op("bn.or", "%G1", "%h2", "%h3")
    p.op("bn.shrv", "%h4", "%P2", "16")
    p.op("bn.shlv", "%h5", "%P3", "8")
    p.op("bn.or", "%G2", "%h4", "%h5")
    n = 0
    for j in range(3):
        for lane in range(8):
            gpr = f"x{18 + n % 8}"
            p.raw(f"bn.ext {{0}}, {{1}}, {lane}", [gpr], [f"%G{j}"])
            p.raw(f"sw {{0}}, {4 * (3 * lane + j)}({{1}})", [], [gpr, "x6"])
            n += 1
    p.raw("addi {0}, {1}, 96", ["x6"], ["x6"])
    return L + _loop(4 * npolys, p.text().splitlines())


def compress(d, src, adds, dst, ka, m=None):
    """VMODE 0: dst = Compress_d(src + sum of the polynomials at adds [+ Decompress1 of the
    32-byte message at m]) (one polynomial, 16 words, natural layout, every input < q),
    as LSB-aligned values <= 2^d in 16-bit lanes, the value 2^d standing for 0 (the input
    of `encode`, whose masks take the mod 2^d for free); dst may equal src. Compress_d
    exactly as compress_compare: ((2^d x + 1664) - ((2^d x + 1664) mod q)) / q by a
    multiplication with q^-1 mod 2^16 (mod 2^d left to the encoder). Decompress1: halfword r of m
    (lw + bn.bcast, srli for the odd one), AND with 1 << lane, nonzero -> 1665 (bn.ltv
    against zero). A loopi of 8 iterations of 2 words (post-increment pointers x10 src,
    x11.. adds, x16 dst, x17 m; IMEM: the encaps of ML-KEM-1024 has five of them).
    Uses w0..w15, x10..x17 (and x18, x19 with m)."""
    assert len(adds) <= 5
    L = _li(10, src) + [x for t, a in enumerate(adds) for x in _li(11 + t, a)] + \
        _li(16, dst) + [f"bn.lw w15, {_m(ka['c1664'])}", f"bn.lw w14, {_m(ka[f'mc{d}'])}",
                        f"bn.lw w13, {_m(ka['qinv'])}"]
    if m is not None:
        L += _li(17, m) + [f"bn.lw w10, {_m(ka['bits'])}", f"bn.lw w9, {_m(ka['c1665'])}",
                           "bn.xor w8, w8, w8"]
    p = Prog([f"w{n}" for n in range(8 if m is not None else 13)])
    if m is not None:
        p.raw("lw {0}, 0({1})", ["x18"], ["x17"])
        p.raw("addi {0}, {1}, 4", ["x17"], ["x17"])
        p.raw("srli {0}, {1}, 16", ["x19"], ["x18"])
    for r in range(2):
        p.lw_pi(f"%x{r}", "x10")
        x = f"%x{r}"
        for t in range(len(adds)):
            p.lw_pi(f"%e{t}_{r}", f"x{11 + t}")
            p.op("bn.addvm", f"%s{t}_{r}", x, f"%e{t}_{r}")
            x = f"%s{t}_{r}"
        if m is not None:
            p.raw("bn.bcast {0}, {1}", [f"%h{r}"], [f"x{18 + r}"])
            p.op("bn.and", f"%b{r}", f"%h{r}", "w10")
            p.op("bn.ltv", f"%k{r}", "w8", f"%b{r}")
            p.op("bn.and", f"%mu{r}", f"%k{r}", "w9")
            p.op("bn.addvm", f"%xm{r}", x, f"%mu{r}")
            x = f"%xm{r}"
        _compress_ops(p, r, x, d, mc="w14", half="w15", qinv="w13")
        p.sw_pi(f"%y{r}", "x16")
    return L + _loop(8, p.text().splitlines())


def _compress_ops(p, r, x, d, mc, half, qinv):
    """Compress_d of the lanes of x into %y{r}: the operation sequence the compress kernels
    share (mc, half, qinv: the registers holding their constants)."""
    p.op("bn.mulvm", f"%zm{r}", x, mc)
    p.op("bn.shlv", f"%zl{r}", x, str(d))
    p.op("bn.addv", f"%zl2{r}", f"%zl{r}", half)
    p.op("bn.addvm", f"%zm2{r}", f"%zm{r}", half)
    p.op("bn.subv", f"%df{r}", f"%zl2{r}", f"%zm2{r}")
    p.op("bn.mulv.lo", f"%y{r}", f"%df{r}", qinv)


def _granules(fields, nbits):
    """The 32-bit granules of a bit string made of fields [(register, first bit, width)]:
    [(bits in the granule, [(register, shift: > 0 left, < 0 right)])]."""
    out = []
    for j in range((nbits + 31) // 32):
        terms = [(r, b - 32 * j) for r, b, w in fields if b < 32 * j + 32 and b + w > 32 * j]
        out.append((min(32, nbits - 32 * j), terms))
    return out


def _or_shifted(p, name, terms):
    """name = OR of the registers shifted (uniform lane shifts); a lone unshifted register
    is returned as it is."""
    acc = None
    for k, (r, sh) in enumerate(terms):
        t = r
        if sh:
            t = f"{name}_t{k}"
            p.op("bn.shlv" if sh > 0 else "bn.shrv", t, r, str(abs(sh)))
        if acc is None:
            acc = t
        else:
            p.op("bn.or", f"{name}_o{k}", acc, t)
            acc = f"{name}_o{k}"
    return acc


def _blocks(p, d, tag):
    """4 words from DMEM[x5] (post-increment) -> P_i (i = 0..3), lane l = field 4l + i of
    the 32 pair fields c_even | c_odd << d (w14 = fl_d, w15 = fh_d; the masks also take
    each value mod 2^d): the names."""
    for w in range(4):
        p.lw_pi(f"%x{tag}{w}", "x5")
    for x in range(4):
        p.op("bn.and", f"%l{tag}{x}", f"%x{tag}{x}", "w14")
        p.op("bn.shrv", f"%m{tag}{x}", f"%x{tag}{x}", str(16 - d))
        p.op("bn.and", f"%n{tag}{x}", f"%m{tag}{x}", "w15")
        p.op("bn.or", f"%E{tag}{x}", f"%l{tag}{x}", f"%n{tag}{x}")
    U = [f"%U{tag}{i}" for i in range(4)]
    p.op("bn.unzip.lo", U[0], f"%E{tag}0", f"%E{tag}1")
    p.op("bn.unzip.hi", U[1], f"%E{tag}0", f"%E{tag}1")
    p.op("bn.unzip.lo", U[2], f"%E{tag}2", f"%E{tag}3")
    p.op("bn.unzip.hi", U[3], f"%E{tag}2", f"%E{tag}3")
    P = [f"%P{tag}{i}" for i in range(4)]
    p.op("bn.unzip.lo", P[0], U[0], U[2])
    p.op("bn.unzip.hi", P[2], U[0], U[2])
    p.op("bn.unzip.lo", P[1], U[1], U[3])
    p.op("bn.unzip.hi", P[3], U[1], U[3])
    return P


def encode(d, src, dst, npolys, ka):
    """VMODE 1: ByteEncode_d (d < 12) of npolys polynomials at src (16 words each, LSB-
    aligned values <= 2^d in 16-bit lanes, as `compress` leaves them) -> 32 d bytes each at
    dst (4-byte aligned); a value 2^d counts as 0 (`compress`). Each 32-bit lane becomes
    the 2d-bit field c_even | c_odd << d (and / shift / and / or, the masks taking the
    values mod 2^d); two bn.unzip levels sort the 32 fields of 4 words into P_i
    (lane l = field 4l + i, as encode12), so lane l holds block l (coefficients 8l..8l+7 of
    the 64, 8d bits); the 32-bit granules of a block are uniform shifts / ors of the P_i.
    * d = 4: a block is one granule, in lane order: one bn.sw per 4 words.
    * d = 10 (a block is 2.5 granules): two chunks of 4 words per iteration, whose P_i are
      split by bn.unzip.lo / .hi into even and odd blocks; lane p then holds the pair of
      blocks (2p, 2p+1) of chunk 1 (p < 4) or 2, 16 coefficients = 5 whole granules, which
      leave by bn.ext + sw.
    * d = 5, 11: per chunk, the granules of each block leave by bn.ext, and the blocks that
      do not start on a 32-bit boundary are merged into the byte stream in GPRs (slli / or
      / srli), stored by sw.
    Uses x5, x6, x18..x29, w0..w15."""
    assert d in ENCODE_DS
    L = _li(5, src) + _li(6, dst) + [f"bn.lw w14, {_m(ka[f'fl{d}'])}",
                                       f"bn.lw w15, {_m(ka[f'fh{d}'])}"]
    p = Prog([f"w{n}" for n in range(14)])
    ring = [f"x{n}" for n in range(18, 30)]
    nxt = [0]

    def gpr():
        r = ring[nxt[0] % len(ring)]
        nxt[0] += 1
        return r
    if d == 4:
        P = _blocks(p, d, "a")
        (_, terms), = _granules([(P[i], 8 * i, 8) for i in range(4)], 32)
        g = _or_shifted(p, "%G", terms)
        p.raw("bn.sw {0}, 0({1})", [], [g, "x6"])
        p.raw("addi {0}, {1}, 32", ["x6"], ["x6"])
        return L + _loop(4 * npolys, p.text().splitlines())
    if 8 * d % 32 == 16:
        PA, PB = _blocks(p, d, "a"), _blocks(p, d, "b")
        fields = []
        for i in range(4):
            p.op("bn.unzip.lo", f"%Ev{i}", PA[i], PB[i])
            fields.append((f"%Ev{i}", 2 * d * i, 2 * d))
        for i in range(4):
            p.op("bn.unzip.hi", f"%Od{i}", PA[i], PB[i])
            fields.append((f"%Od{i}", 8 * d + 2 * d * i, 2 * d))
        gran = _granules(fields, 16 * d)
        for j, (nb, terms) in enumerate(gran):
            assert nb == 32
            g = _or_shifted(p, f"%G{j}", terms)
            for lane in range(8):
                x = gpr()
                p.raw(f"bn.ext {{0}}, {{1}}, {lane}", [x], [g])
                p.raw(f"sw {{0}}, {2 * d * lane + 4 * j}({{1}})", [], [x, "x6"])
        p.raw(f"addi {{0}}, {{1}}, {16 * d}", ["x6"], ["x6"])
        return L + _loop(2 * npolys, p.text().splitlines())
    P = _blocks(p, d, "a")
    pieces = [(nb, _or_shifted(p, f"%G{j}", terms)) for j, (nb, terms) in
              enumerate(_granules([(P[i], 2 * d * i, 2 * d) for i in range(4)], 8 * d))]
    # scalar merge of the pieces into the byte stream (bit 8 d l + 32 j for piece j of
    # lane l); GPRs from a ring of 12
    acc, s, g = None, 0, 0
    for lane in range(8):
        for nb, reg in pieces:
            x = gpr()
            p.raw(f"bn.ext {{0}}, {{1}}, {lane}", [x], [reg])
            if s == 0:
                new = x
            else:
                t, new = gpr(), gpr()
                p.raw(f"slli {{0}}, {{1}}, {s}", [t], [x])
                p.raw("or {0}, {1}, {2}", [new], [acc, t])
            if s + nb >= 32:
                p.raw(f"sw {{0}}, {4 * g}({{1}})", [], [new, "x6"])
                g += 1
                if s + nb > 32:
                    acc = gpr()
                    p.raw(f"srli {{0}}, {{1}}, {32 - s}", [acc], [x])
                else:
                    acc = None
                s = s + nb - 32
            else:
                acc, s = new, s + nb
    assert s == 0 and g == 2 * d, (s, g)
    p.raw(f"addi {{0}}, {{1}}, {8 * d}", ["x6"], ["x6"])
    return L + _loop(4 * npolys, p.text().splitlines())


def unpk_period(d) -> int:
    """Output words (16 coefficients, 2d bytes each) after which the byte offsets of
    decode_unpk repeat: 2 d P is a multiple of 32."""
    p = 1
    while 2 * d * p % 32:
        p += 1
    return p


def _unpk_body(d, phase, shift):
    """One period of decode_unpk (x5: the 32-byte word holding the period's first byte,
    phase: that byte's offset in it; x6: dst, post-increment) on virtual registers."""
    p = Prog([f"w{n}" for n in range(14)])
    loaded = set()
    post = phase == 0                        # words read once each, in order: bn.lw.pi

    def word(a):
        if a not in loaded:
            loaded.add(a)
            if post:
                p.lw_pi(f"%i{a}", "x5")
            else:
                p.raw(f"bn.lw {{0}}, {32 * a}({{1}})", [f"%i{a}"], ["x5"])
        return f"%i{a}"
    for k in range(unpk_period(d)):
        a, off = divmod(phase + 2 * d * k, 32)
        lo = word(a)
        if off + 2 * d > 32:
            p.raw(f"bn.unpk {{0}}, {{1}}, {{2}}, {d}, {off}", [f"%u{k}"], [lo, word(a + 1)])
        else:                                # the high word unused (Prog: a source once)
            p.raw(f"bn.unpk {{0}}, {{1}}, {{1}}, {d}, {off}", [f"%u{k}"], [lo])
        y = f"%u{k}"
        if shift:
            p.op("bn.shlv", f"%y{k}", y, str(shift))
            y = f"%y{k}"
        p.sw_pi(y, "x6")
    if not post:
        p.raw(f"addi {{0}}, {{1}}, {2 * d * unpk_period(d)}", ["x5"], ["x5"])
    return p.text().splitlines()


def _with_messages(body, n):
    """body with n message words fed to the KMAC spread over it: each loaded from DMEM[x7]
    (post-increment) into w14 / w15 a segment before its kmac.msg (mask x3)."""
    if not n:
        return body
    out, step = [], len(body) / n
    for j in range(n):
        reg = f"w{14 + j % 2}"
        seg = body[round(j * step):round((j + 1) * step)]
        out += [f"bn.lw.pi {reg}, 0(x7)"] + seg + [f"kmac.msg {reg}, x3"]
    return out


def absorb_loop(nwords):
    """nwords message words from DMEM[x7] (post-increment) to the KMAC (mask x3)."""
    if nwords == 1:
        return ["bn.lw.pi w14, 0(x7)", "kmac.msg w14, x3"]
    body = ["bn.lw.pi w14, 0(x7)", "bn.lw.pi w15, 0(x7)", "kmac.msg w14, x3",
            "kmac.msg w15, x3"]
    return _loop(nwords // 2, body) + (absorb_loop(1) if nwords % 2 else [])


def decode_unpk(d, src, dst, nwords, shift=0, kmac_words=0):
    """VMODE 0: ByteDecode_d (FIPS 203 Alg. 6, any d of ML-KEM) of nwords output words
    (16 coefficients = 2d bytes each, from byte src on; src even) -> dst (post-increment
    x6; dst None: x6 runs on from a previous call), each lane y << shift (decaps keeps u, v
    as y << (16 - d) for its compare). One bn.unpk per output word from the pair of
    32-byte words holding its 2d bytes (byte offset (src + 2dk) mod 32), a loopi over
    periods of unpk_period(d) words (d = 12: 4 output words from 3 loads, 10: 8 from 5, 11
    and 5: 16 from 11 / 5, 4: 4 from 1): ~2 + 2d/32 (+ 1 with shift) cycles per 16
    coefficients. kmac_words: that many 32-byte message words from DMEM[x7] (mask x3) are
    fed to the KMAC, spread over the periods (a hash absorbed in the shadow of the
    decode), the rest after it. Uses x5, x6, w0..w15 (w14, w15: message words)."""
    per = unpk_period(d)
    assert nwords % per == 0 and src % 2 == 0, (d, nwords, src)
    it = nwords // per
    phase = src % 32
    body = _unpk_body(d, phase, shift)
    L = _li(5, src - phase) + ([] if dst is None else _li(6, dst))
    each = kmac_words // it
    L += _loop(it, _with_messages(body, each))
    if kmac_words - each * it:
        L += absorb_loop(kmac_words - each * it)
    return L
