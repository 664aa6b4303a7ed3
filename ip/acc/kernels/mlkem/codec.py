"""ML-KEM encodings and roundings on the ACC (FIPS 203 4.2.1, 4.2.2): ByteDecode_12 /
ByteDecode_10 / ByteDecode_4 with Decompress_d on the way, Compress_d compared lane by lane
with a decoded ciphertext (the re-encryption check), and Compress_1 + ByteEncode_1 of the
message. The generators take their buffer addresses as arguments and the addresses of
their constant words as `ka` (name -> DMEM address of the words of `const_words()`).

* ByteDecode12 / ByteDecode10 (s_hat, t_hat, u; `decode_wide`): VMODE 1 (8 x 32-bit
  lanes). Output word w (16 coefficients = 2d bytes at byte 2dw) holds coefficient pairs
  (2q, 2q+1) in 32-bit lane q, i.e. the 2d-bit field at bit 2dq of the window. The granules
  (32-bit words of the input) that hold each field are gathered with `lw` + `bn.ins` into X
  (low granule) and Y (high granule, or the only one when the field starts at bit 0); then
  E = bn.mulv.hi(X, 2^(32-off)) | bn.mulv.lo(Y, 2^(32-off) or 1) is the field at bit 0 of
  each lane (per-lane shift amounts by multiplication), split into two 16-bit lanes with
  shift/and/or. Two output words per loopi iteration: X, Y of both words are bn.trn1 /
  bn.trn2 of 2 (d = 12) or 3 (d = 10) words filled by bn.ins (16 / 18 insertions instead of
  24, see _TRN): ~25 cycles per 16 coefficients, of which ~16 are lw + bn.ins.
* ByteDecode4 (v; `decode4`): VMODE 0, an unzip / trn network spreads each input halfword
  over 4 lanes, one bn.mulv.lo by per-lane powers of two shifts each nibble to the top.
* Decoded u / v are kept as y << 6 (d = 10) and y << 12 (d = 4) in 16-bit lanes: the
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
CONST_NAMES = ["cx12", "cy12", "m12", "m12h", "cx10", "cy10", "m10", "m10h",
               "d4s", "f000", "q", "c8", "c833", "c1664",
               "bits", "c1665", "one", "mc10", "qi10", "mc4", "qi4"]


def u16(vals) -> bytes:
    """16-bit little-endian halfwords (values reduced mod 2^16)."""
    return b"".join((v % (1 << 16)).to_bytes(2, "little") for v in vals)


def _fields(d):
    """Per 32-bit output lane q: (granule a, bit offset, crosses into a+1)."""
    out = []
    for q in range(8):
        b = 2 * d * q
        a, off = divmod(b, 32)
        out.append((a, off, off + 2 * d > 32))
    return out


def _cxy(d):
    cx, cy = [], []
    for a, off, cross in _fields(d):
        if off == 0:
            cx.append(0)
            cy.append(1)
        else:
            cx.append(1 << (32 - off))
            cy.append((1 << (32 - off)) if cross else 0)
    return cx, cy


def const_words() -> dict:
    """name -> the 32 bytes of that constant word."""
    c = {}
    c["cx12"], c["cy12"] = [_u32(x) for x in _cxy(12)]
    c["m12"] = _u32([0xFFF] * 8)
    c["m12h"] = _u32([0x0FFF0000] * 8)
    c["cx10"], c["cy10"] = [_u32(x) for x in _cxy(10)]
    c["m10"] = _u32([0xFFC0] * 8)
    c["m10h"] = _u32([0xFFC00000] * 8)
    c["d4s"] = u16([1 << (12 - 4 * (lane & 3)) for lane in range(16)])
    c["f000"] = u16([0xF000] * 16)
    c["q"] = u16([Q] * 16)
    c["c8"] = u16([8] * 16)
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


# Two output words per iteration: the 2 x 2 gather targets (X, Y of word A, X, Y of word B)
# are single VMODE 1 bn.trn1 / bn.trn2 of 2 or 3 words Z filled by bn.ins (16 instead of 24
# insertions for d = 12, 18 for d = 10; found by exhaustive search over the permutations).
# _TRN[d] = (ops for XA, YA, XB, YB as (mnemonic, z_a, z_b)), slots {(z, lane): granule}
# (granules 0..ng-1 belong to word A, ng..2ng-1 to word B).
_TRN = {
    12: ((("bn.trn1", 0, 1), ("bn.trn1", 1, 0), ("bn.trn2", 0, 1), ("bn.trn2", 1, 0)),
         {(1, 0): 0, (0, 2): 1, (1, 2): 2, (1, 4): 3, (0, 6): 4, (1, 6): 5, (0, 0): 1,
          (0, 4): 4, (1, 1): 6, (0, 3): 7, (1, 3): 8, (1, 5): 9, (0, 7): 10, (1, 7): 11,
          (0, 1): 7, (0, 5): 10}),
    10: ((("bn.trn1", 0, 1), ("bn.trn1", 1, 2), ("bn.trn2", 0, 1), ("bn.trn2", 1, 2)),
         {(1, 0): 0, (0, 2): 1, (1, 2): 1, (0, 4): 2, (1, 4): 3, (0, 6): 3, (1, 6): 4,
          (2, 0): 1, (2, 2): 2, (1, 1): 5, (0, 3): 6, (1, 3): 6, (0, 5): 7, (1, 5): 8,
          (0, 7): 8, (1, 7): 9, (2, 1): 6, (2, 3): 7}),
}


def _trn_src(m, a, b):
    if m == "bn.trn1":
        return [(a, 0), (b, 0), (a, 2), (b, 2), (a, 4), (b, 4), (a, 6), (b, 6)]
    return [(a, 1), (b, 1), (a, 3), (b, 3), (a, 5), (b, 5), (a, 7), (b, 7)]


def _check_trn(d):
    """The Z slots and permutations give every needed X / Y lane."""
    f = _fields(d)
    ng = max(a + (1 if cr else 0) for a, off, cr in f) + 1
    ops, slots = _TRN[d]
    for k, word in enumerate((0, 0, 1, 1)):
        src = _trn_src(*ops[k])
        for q, (a, off, cr) in enumerate(f):
            is_x = k % 2 == 0
            need = None
            if off == 0:
                need = None if is_x else a
            else:
                need = a if is_x else (a + 1 if cr else None)
            if need is not None:
                assert slots[src[q]] == need + ng * word, (d, k, q)
    return ng


def _chain(d, X, Y, c):
    """E = mulv.hi(X, CX) | mulv.lo(Y, CY) (in place), split into 16-bit lanes -> c
    (constants CX, CY, M, MH in w12..w15)."""
    head = [f"bn.mulv.hi {X}, {X}, w12", f"bn.mulv.lo {Y}, {Y}, w13"]
    if d == 12:
        tail = [f"bn.or {c}, {X}, {Y}", f"bn.and {X}, {c}, w14", f"bn.shlv {Y}, {c}, 4",
                f"bn.and {Y}, {Y}, w15", f"bn.or {c}, {X}, {Y}"]
    else:
        tail = [f"bn.or {c}, {X}, {Y}", f"bn.shlv {X}, {c}, 6", f"bn.shlv {Y}, {c}, 12",
                f"bn.and {X}, {X}, w14", f"bn.and {Y}, {Y}, w15", f"bn.or {c}, {X}, {Y}"]
    return head, tail


def decode_wide(d, src, dst, nwords, ka, kmac_words=0, setup=True):
    """ByteDecode_d (d = 12 or 10) of nwords output words (VMODE 1), two per iteration.
    d = 12: plain values; d = 10: y << 6 in each 16-bit lane. kmac_words: that many 32-byte
    message words from DMEM[x7] (post-increment, mask x3) are fed to the KMAC during the
    first iterations (a hash absorbed in the shadow of the decode). setup=False: a
    continuation of a decode_wide of the same d whose constants (w12..w15) are still
    loaded; dst None: x6 still points at dst (the previous call's end)."""
    assert nwords % 2 == 0
    ng = _check_trn(d)
    ops, slots = _TRN[d]
    nz = 1 + max(z for z, _ in slots)
    sfx = str(d)
    L = _li(5, src) + ([] if dst is None else _li(6, dst))
    if setup:
        L += [f"bn.lw w12, {_m(ka['cx' + sfx])}", f"bn.lw w13, {_m(ka['cy' + sfx])}",
              f"bn.lw w14, {_m(ka['m' + sfx])}", f"bn.lw w15, {_m(ka['m' + sfx + 'h'])}"]
    lws = [f"lw x{10 + g}, {4 * g}(x5)" for g in range(2 * ng)]
    ins = [f"bn.ins w{8 + z}, x{10 + g}, {lane}" for (z, lane), g in
           sorted(slots.items(), key=lambda kv: (kv[1], kv[0]))]
    assert nz <= 3
    trn = [f"{m} w{k}, w{8 + za}, w{8 + zb}" for k, (m, za, zb) in enumerate(ops)]
    ha, ta = _chain(d, "w0", "w1", "w4")
    hb, tb = _chain(d, "w2", "w3", "w5")
    vec = ha + hb + [x for pair in zip(ta, tb) for x in pair]
    tail = ["bn.sw.pi w4, 0(x6)", "bn.sw.pi w5, 0(x6)"]
    inc = [f"addi x5, x5, {4 * d}"]

    def body(nmsg):
        pre = ["bn.lw.pi w6, 0(x7)", "bn.lw.pi w7, 0(x7)"][:nmsg]
        msg = ["kmac.msg w6, x3", "kmac.msg w7, x3"][:nmsg]
        # message loads with the granule loads; the two kmac.msg half an iteration apart
        # (a word that completes a rate block makes the next one wait for the permutation)
        b = lws + pre + ins + trn + vec + inc
        mid = len(b) // 2
        return b[:mid] + msg[:1] + b[mid:] + msg[1:] + tail
    it = nwords // 2
    if not kmac_words:
        return L + _loop(it, body(0))
    full, rest = divmod(kmac_words, 2)
    assert full + rest <= it
    out = L + _loop(full, body(2))
    if rest:
        out += body(1)
    if it - full - rest:
        out += _loop(it - full - rest, body(0))
    return out


def decode4(src, dstc, dst, ka):
    """See _decode4; dst None: only y << 12 (message_fin decompresses on the way)."""
    return _decode4(src, dstc, dst, ka)


def _decode4(src, dstc, dst, ka):
    """VMODE 0: ByteDecode4 of 128 B -> dstc (y << 12) and dst (Decompress4), a loopi of 4
    iterations of one input word (64 coefficients = 4 output words). Halfword j of the input
    holds coefficients 4j..4j+3 (a nibble each); output word k needs halfwords 4k..4k+3,
    each in 4 consecutive lanes (R_k). Three unzip levels and a trn level give R_0..R_3
    (A, B = unzip(W, W); C, D = unzip(A, B); G, H = unzip(C, D); R_0 / R_2 = trn1 / trn2
    (G, G), R_1 / R_3 = trn1 / trn2 (H, H)); one bn.mulv.lo by the per-lane powers 2^(12 -
    4 (lane mod 4)) (constant d4s) and an AND with 0xF000 give y << 12 (the nibble shifted
    to the top, the rest of the halfword shifted out), then Decompress4 = ((y q) + 8) >> 4.
    ~11 cycles per 16 coefficients."""
    L = _li(5, src) + _li(6, dstc) + ([] if dst is None else _li(7, dst))
    L += [f"bn.lw w12, {_m(ka['d4s'])}", f"bn.lw w13, {_m(ka['f000'])}"]
    if dst is not None:
        L += [f"bn.lw w14, {_m(ka['q'])}", f"bn.lw w15, {_m(ka['c8'])}"]
    p = Prog([f"w{n}" for n in range(12)])
    p.lw_pi("%W", "x5")
    p.raw("bn.unzip.lo {0}, {1}, {1}", ["%A"], ["%W"])     # (Prog: one source named once)
    p.raw("bn.unzip.hi {0}, {1}, {1}", ["%B"], ["%W"])
    p.op("bn.unzip.lo", "%C", "%A", "%B")
    p.op("bn.unzip.hi", "%D", "%A", "%B")
    p.op("bn.unzip.lo", "%G", "%C", "%D")
    p.op("bn.unzip.hi", "%H", "%C", "%D")
    for k, (m, x) in enumerate((("bn.trn1", "%G"), ("bn.trn1", "%H"),
                                ("bn.trn2", "%G"), ("bn.trn2", "%H"))):
        p.raw(m + " {0}, {1}, {1}", [f"%R{k}"], [x])
        p.op("bn.mulv.lo", f"%s{k}", f"%R{k}", "w12")
        p.op("bn.and", f"%c{k}", f"%s{k}", "w13")
        p.sw_pi(f"%c{k}", "x6")
        if dst is None:
            continue
        p.op("bn.shrv", f"%y{k}", f"%c{k}", "12")
        p.op("bn.mulv.lo", f"%z{k}", f"%y{k}", "w14")
        p.op("bn.addv", f"%e{k}", f"%z{k}", "w15")
        p.op("bn.shrv", f"%v{k}", f"%e{k}", "4")
        p.sw_pi(f"%v{k}", "x7")
    return L + _loop(4, p.text().splitlines())


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


def _gather_lanes(d, word):
    """Per 32-bit lane q of output word `word` (0, 1) of a 2-word step: (granule a, bit
    offset, crosses into a + 1) of its 2d-bit field."""
    out = []
    for q in range(8):
        a, off = divmod(2 * d * (8 * word + q), 32)
        out.append((a, off, off + 2 * d > 32))
    return out


def decode_gather(d, src, dst, nwords, ka, kmac_words=0):
    """VMODE 1: ByteDecode_d of nwords output words (2 per iteration, 4d input bytes), each
    16-bit lane y << (16 - d) (the form decaps keeps the ciphertext in for its compare and
    decompresses from), for any d < 12 (ML-KEM-1024's d = 11, 5: the two words of a step
    need their own lane multipliers, unlike decode_wide's d = 10, 12). The fields as in
    decode_wide, the gather by lw + bn.ins: for d = 11 into 3 words whose bn.trn1 / bn.trn2
    are X, Y of both words (_GATHER_TRN: 20 insertions a step instead of 26), else plain
    (each granule a lane needs), E = mulv.hi(X, 2^(32-off)) | mulv.lo(Y, 2^(32-off) or 1), split into the two
    16-bit lanes by two shifts and masks (constants: `gather_const_words(d)`).
    kmac_words: as decode_wide's (message words from DMEM[x7], mask x3, two per iteration
    in w9, which then leaves the pool). Uses x5, x6, x10..x20, w0..w15."""
    assert nwords % 2 == 0 and d < 12
    if kmac_words:
        it = nwords // 2
        full, rest = divmod(kmac_words, 2)
        assert full + rest <= it
        L = _li(5, src) + _li(6, dst) + _gather_consts(d, ka)
        out = L + _loop(full, _gather_body(d, 2))
        if rest:
            out += _gather_body(d, 1)
        if it - full - rest:
            out += _loop(it - full - rest, _gather_body(d, 0))
        return out
    return _li(5, src) + _li(6, dst) + _gather_consts(d, ka) + \
        _loop(nwords // 2, _gather_body(d, 0))


def _gather_consts(d, ka):
    return [f"bn.lw w10, {_m(ka[f'gx{d}_0'])}", f"bn.lw w11, {_m(ka[f'gy{d}_0'])}",
            f"bn.lw w12, {_m(ka[f'gx{d}_1'])}", f"bn.lw w13, {_m(ka[f'gy{d}_1'])}",
            f"bn.lw w14, {_m(ka[f'gl{d}'])}", f"bn.lw w15, {_m(ka[f'gh{d}'])}"]


# d = 11: the 2 x 2 gather targets (X, Y of both words) as bn.trn1 / bn.trn2 of 3 words Z
# filled by bn.ins (20 insertions instead of 26; found by a search over the trn / unzip
# pairings as _TRN): ops for X0, Y0, X1, Y1 as (mnemonic, z_a, z_b), slots {(z, lane):
# granule of the step}
_GATHER_TRN = {
    11: ((("bn.trn1", 0, 1), ("bn.trn1", 1, 2), ("bn.trn2", 0, 1), ("bn.trn2", 1, 2)),
         {(1, 0): 0, (0, 2): 1, (1, 2): 2, (0, 4): 2, (1, 4): 3, (0, 6): 4, (1, 6): 4,
          (2, 0): 1, (2, 4): 4, (2, 6): 5, (0, 1): 5, (1, 1): 6, (0, 3): 6, (1, 3): 7,
          (0, 5): 8, (1, 5): 8, (0, 7): 9, (1, 7): 10, (2, 3): 8, (2, 5): 9}),
}


def _gather_needs(d, word):
    """Per lane of output word `word` of a step: (granule the X register needs or None,
    granule Y needs or None)."""
    return [(None, a) if off == 0 else (a, a + 1 if cross else None)
            for a, off, cross in _gather_lanes(d, word)]


def _check_gather_trn(d):
    ops, slots = _GATHER_TRN[d]
    for t, (word, xy) in enumerate(((0, 0), (0, 1), (1, 0), (1, 1))):
        src = _trn_src(*ops[t])
        for q, need in enumerate(_gather_needs(d, word)):
            if need[xy] is not None:
                assert slots[src[q]] == need[xy], (d, t, q)


def _gather_plain(p, d):
    """X, Y of both words of a step, each lane gathered by its own bn.ins."""
    for word in range(2):
        X, Y = f"%X{word}", f"%Y{word}"
        started = set()
        for q, (a, off, cross) in enumerate(_gather_lanes(d, word)):
            need = [(Y, a)] if off == 0 else [(X, a)] + ([(Y, a + 1)] if cross else [])
            for reg, gran in need:
                if reg in started:
                    p.raw(f"bn.ins {{0}}, {{2}}, {q}", [reg], [reg, f"x{10 + gran}"])
                else:                        # the other lanes of a fresh register: don't care
                    p.raw(f"bn.ins {{0}}, {{1}}, {q}", [reg], [f"x{10 + gran}"])
                    started.add(reg)
        assert started == {X, Y}


def _gather_body(d, nmsg):
    """One step of decode_gather (2 output words); nmsg message words fed to the KMAC
    through w9, half a step apart."""
    p = Prog([f"w{n}" for n in range(9 if nmsg else 10)])
    for g in range(d):                       # 2 words = 4d bytes = d granules
        p.raw(f"lw {{0}}, {4 * g}({{1}})", [f"x{10 + g}"], ["x5"])
    if d in _GATHER_TRN:
        _check_gather_trn(d)
        ops, slots = _GATHER_TRN[d]
        started = set()
        for (z, lane), g in sorted(slots.items(), key=lambda kv: (kv[1], kv[0])):
            reg = f"%Z{z}"
            if reg in started:
                p.raw(f"bn.ins {{0}}, {{2}}, {lane}", [reg], [reg, f"x{10 + g}"])
            else:
                p.raw(f"bn.ins {{0}}, {{1}}, {lane}", [reg], [f"x{10 + g}"])
                started.add(reg)
        for t, name in enumerate(("%X0", "%Y0", "%X1", "%Y1")):
            m, za, zb = ops[t]
            p.op(m, name, f"%Z{za}", f"%Z{zb}")
    else:
        _gather_plain(p, d)
    for word in range(2):
        X, Y = f"%X{word}", f"%Y{word}"
        p.op("bn.mulv.hi", f"%hx{word}", X, f"w{10 + 2 * word}")
        p.op("bn.mulv.lo", f"%ly{word}", Y, f"w{11 + 2 * word}")
        p.op("bn.or", f"%E{word}", f"%hx{word}", f"%ly{word}")
        p.op("bn.shlv", f"%a{word}", f"%E{word}", str(16 - d))
        p.op("bn.shlv", f"%b{word}", f"%E{word}", str(32 - 2 * d))
        p.op("bn.and", f"%c{word}", f"%a{word}", "w14")
        p.op("bn.and", f"%e{word}", f"%b{word}", "w15")
        p.op("bn.or", f"%o{word}", f"%c{word}", f"%e{word}")
        p.sw_pi(f"%o{word}", "x6")
    p.raw(f"addi {{0}}, {{1}}, {4 * d}", ["x5"], ["x5"])
    body = p.text().splitlines()
    if not nmsg:
        return body
    # each message word loaded half a step before its kmac.msg (no load-use stall)
    mid = len(body) // 2
    ld, msg = ["bn.lw.pi w9, 0(x7)"], ["kmac.msg w9, x3"]
    if nmsg == 1:
        return ld + body[:mid] + msg + body[mid:]
    return ld + body[:mid] + msg + ld + body[mid:] + msg


def gather_const_words(d) -> dict:
    """name -> 32 bytes: the constant words of decode_gather(d) (per-lane multipliers of
    both words of a step, split masks)."""
    c = {}
    for word in range(2):
        cx, cy = [], []
        for a, off, cross in _gather_lanes(d, word):
            cx.append(0 if off == 0 else 1 << (32 - off))
            cy.append(1 if off == 0 else ((1 << (32 - off)) if cross else 0))
        c[f"gx{d}_{word}"], c[f"gy{d}_{word}"] = _u32(cx), _u32(cy)
    c[f"gl{d}"] = _u32([((1 << d) - 1) << (16 - d)] * 8)
    c[f"gh{d}"] = _u32([((1 << d) - 1) << (32 - d)] * 8)
    return c


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
    and 5: 16 from 11 / 5, 4: 4 from 1): ~1 + 2d/32 (+ 1 with shift) cycles per 16
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
