"""ML-DSA-65 signing parts missing from mldsa.py, as ACC programs on its DMEM layout
(VMODE 1, polynomial = 32 words, word r = coefficients 8r..8r+7, values in [0, q)); checked
on the ISS against dilithium-py in ip/acc/tests/test_mldsa_sign_parts.py.

    src = keydec_program()      # skDecode (s1, s2, t0) + NTT -> S1H, S2H, T0H
    src = ct0_hint_program()    # c t0 = INTT(c_hat o t0_hat), ||c t0|| < gamma2,
                                # MakeHint(-c t0, w - c s2 + c t0), count <= omega -> HB, FLAG
    src = sig_encode_program()  # c_tilde || z (20-bit) || hint (omega + k bytes) -> SIG

DMEM (bytes; mldsa.py's layout, plus a small area past mldsa.END):
* keydec (before the loop, so Y / YH / W / ABUF are free): the host puts the whole secret
  key (4032 B: rho | K | tr | s1 | s2 | t0) at SK; s1_hat -> S1H (= Y, 5 polys), s2_hat ->
  S2H (6 polys), t0_hat -> T0H (6 polys). The outputs are plain NTT-domain values in [0, q),
  i.e. what z_program / r0_program expect at mldsa.SH (and ct0_hint_program at SH); the
  addresses are arguments of keydec_program (the one-program layout, with s1_hat / s2_hat
  persistent, is still open: see mldsa.py's docstring).
* ct0_hint: c_hat at CH, t0_hat at SH (6 polys, as r0_program's s2_hat), w - c s2 at W (as
  r0_program leaves it); scratch T = YH (one polynomial). Output: the hint as 6 bitmaps
  (HB + 32 i: bit j of the 256-bit word = h_i[j]), FLAG word 0 = x9 = 0 iff the iteration
  passes (bit 0: ||c t0|| >= gamma2, bit 1: more than omega hints), FLAG word 1 = number
  of hints.
* sigEncode: c_tilde at CTIL, z at ZO (= Y), bitmaps at HB (count <= omega, as ct0_hint
  checked); the 3309-byte signature at SIG = YH + 16 (so that z's part, at SIG + 48, and
  the hint part, at SIG + 3248, are 32-byte aligned; 3 zero bytes follow it). HW (64 words)
  is the hint byte buffer, one byte value per 32-bit word.

Design:
* eta = 4 fields (4 bit, one 32-bit granule = one output word): bn.bcastl of the granule,
  bn.mulv.lo by 2^(28 - 4 lane) (per-lane shift) and bn.shrv 28 give field `lane`;
  s = 4 - field by bn.subvm.
* t0 (13 bit), transposed: the words 4m + c (m = 0..7) all start at bit 8c of
  granule 13m + 3c, so with Y_j lane m = granule 13m + j (lw + bn.ins, 208 of the ~450
  cycles per polynomial) field q of these 8 words is one uniform shift / or / and; an 8 x 8
  lane transpose (3 rounds of bn.unzip.lo / .hi) gives the words; t0 = 2^12 - field by
  bn.subvm. (Per-word gathers with per-lane shifts by multiplication took ~590 cycles.)
* Registers: only w0..w15 (the ACC has 16 wide registers); the denser pieces are written
  on virtual registers and allocated / scheduled by pointwise._Prog.
* MakeHint: h = HighBits(v + c t0) != HighBits(v) with v = w - c s2 (FIPS 204 Alg. 39 with
  r = v + c t0, z = -c t0). HighBits(r) = floor((r + gamma2 - 1) / alpha) (mod 16 for
  the q - 1 wrap) is bits 11..14 of mulv.hi(r + gamma2 - 1, ceil(2^43 / alpha)) (exact on
  [0, q)), so h = ((x_u xor x_v) << 17) > 2^28 - 1: 7 vector ops for both HighBits and
  the compare, against 12 with r0_program's formula. The masks
  (all-ones where h = 1) are summed in w15 (bn.subv) and ANDed with 2^(8 s + lane) for word
  4t + s, ORed per 4 words and reduced by the 3-level unzip tree of w1Encode to the bitmap.
* HintBitPack: per non-zero bitmap granule, lowest set bit b = x & -x, index by a de
  Bruijn multiply (bn.bcast + bn.mulv.lo, the base ISA has no multiply) and a 32-entry
  table; one byte value per word into HW, packed to bytes at the end by bn.mulv.lo by
  256^(lane % 4) and a 2-level unzip tree.
* z pack, 8 words at a time: f = gamma1 - z (bn.subvm), the 8 x 8 lane transpose so that
  lane m holds word m; then the 5 output granules of
  every word are uniform shifts / ORs of the fields (8 words at once), and each granule
  goes out by bn.ext + sw (the 8 words' 40 granules are not lane-aligned with the 5 output
  words).
"""
from ip.acc.kernels.asm_util import li as _li, loop as _loop, mem as _m, u32 as _u32
from ip.acc.kernels import mldsa
from ip.acc.kernels.mldsa import Q, K, L, ETA, GAMMA1, GAMMA2, OMEGA, KA, VMODE1, _BR3, transpose8
from ip.acc.kernels.pointwise import _Prog

# ------------------------------------------------------------------ DMEM layout (bytes)
# keydec (pre-loop)
S1H = mldsa.Y                # s1_hat: 5 polys
S2H = S1H + 5 * 1024         # s2_hat: 6 polys
T0H = S2H + 6 * 1024         # t0_hat: 6 polys
SK = T0H + 6 * 1024          # secret key (4032 B), placed by the host
SK_S1 = SK + 128             # s1 (5 x 128 B) | s2 (6 x 128 B) | t0 (6 x 416 B)
SK_LEN = 128 + 11 * 128 + K * 416
assert SK + SK_LEN <= mldsa.W1E
# ct0 + hint
T = mldsa.YH                 # c t0[r] scratch (1 poly)
# sigEncode output
SIG = mldsa.YH + 16          # 3309 B (+ 3 zero bytes)
SIG_LEN = 48 + L * 640 + OMEGA + K
SIG_Z = SIG + 48
SIG_H = SIG_Z + L * 640
assert SIG_Z % 32 == 0 and SIG_H % 32 == 0 and SIG_H + 64 <= mldsa.W
# past mldsa.END
XC = mldsa.END               # constant words (_XC_NAMES), then the de Bruijn table
_XC_NAMES = ["sh4e", "eta", "m13", "t0c", "g2m1", "g2x2m1", "hbit0", "deb", "bsh", "hbm",
             "c28m1"]
XA = {n: XC + 32 * i for i, n in enumerate(_XC_NAMES)}
DBT = XC + 32 * len(_XC_NAMES)   # 32 words: de Bruijn index table
HB = DBT + 128               # 6 hint bitmaps (32 B each)
FLAG = HB + 6 * 32           # word 0: flag (0 = pass), word 1: hint count
CNTS = FLAG + 32             # the hint count lanes, saved across the INTT
HW = CNTS + 32               # 64 words: hint bytes, one per word
XEND = HW + 256
assert XEND <= 32 * 1024

DEBRUIJN = 0x077CB531
# HighBits(r) = floor((r + gamma2 - 1) / (2 gamma2)) (16 -> 0) = bits 11.. of
# mulv.hi(r + gamma2 - 1, HB_M), exact for every r in [0, q) (checked in the tests)
HB_M = -(-(1 << 43) // (2 * GAMMA2))


def _xc_words():
    c = {}
    c["sh4e"] = _u32([1 << (28 - 4 * q) for q in range(8)])
    c["eta"] = _u32([ETA] * 8)
    c["m13"] = _u32([(1 << 13) - 1] * 8)
    c["t0c"] = _u32([1 << 12] * 8)
    c["g2m1"] = _u32([GAMMA2 - 1] * 8)
    c["g2x2m1"] = _u32([2 * GAMMA2 - 1] * 8)
    c["hbit0"] = _u32([1 << q for q in range(8)])
    c["deb"] = _u32([DEBRUIJN] * 8)
    c["bsh"] = _u32([1 << (8 * (q % 4)) for q in range(8)])
    c["hbm"] = _u32([HB_M] * 8)
    c["c28m1"] = _u32([(1 << 28) - 1] * 8)
    return c


def _debruijn_table():
    t = [0] * 32
    for k in range(32):
        t[((DEBRUIJN << k) & 0xFFFFFFFF) >> 27] = k
    return t


def const_image() -> dict:
    """mldsa.const_image() plus this module's constants (at XC, DBT)."""
    img = mldsa.const_image()
    cw = _xc_words()
    img[XC] = b"".join(cw[n] for n in _XC_NAMES) + _u32(_debruijn_table())
    return img


def _program(phases):
    lines = []
    for _, body in phases:
        lines += body
    return "\n".join(lines + ["ecall"]) + "\n"


# ------------------------------------------------------------------ keydec
def _dec_eta_poly():
    """128 B at x5 -> 32 words at x6 (both post-incremented); w10 = sh4e, w11 = eta."""
    body = ["bn.lw.pi w0, 0(x5)", "bn.lw.pi w1, 0(x5)"]
    for h in (0, 1):
        regs = [f"w{2 + g}" for g in range(8)]
        body += [f"bn.bcastl {r}, w{h}, {g}" for g, r in enumerate(regs)]
        body += [f"bn.mulv.lo {r}, {r}, w10" for r in regs]
        body += [f"bn.shrv {r}, {r}, 28" for r in regs]
        body += [f"bn.subvm {r}, w11, {r}" for r in regs]
        body += [f"bn.sw.pi {r}, 0(x6)" for r in regs]
    return _loop(2, body)


def _dec_t0_poly_tr():
    """416 B at x5 -> 32 words at x6, transposed: Y_j lane m = granule 13m + j (lw +
    bn.ins); for c = 0..3 the words 4m + c (m = 0..7) all start at bit 8c of Y_{3c}, so
    field q of all 8 is one uniform shift / or / and of Y_{3c..3c+4} (T_q, lane m), and an
    8 x 8 transpose gives the 8 words. Each Y_j is gathered just before the first chunk
    that reads it, so at most 5 are live. w14 = m13, w15 = t0c; w0..w13 allocated by
    pointwise._Prog."""
    p = _Prog([f"w{k}" for k in range(14)])
    Y = [f"%y{j}" for j in range(13)]
    built = 0
    for c in range(4):
        need = max(3 * c + (8 * c + 13 * q) // 32 + ((8 * c + 13 * q) % 32 + 13 > 32)
                   for q in range(8))
        for j in range(built, need + 1):
            for m in range(8):
                x = f"x{10 + (8 * j + m) % 13}"
                p.raw(f"lw {{0}}, {52 * m + 4 * j}({{1}})", [x], ["x5"])
                p.raw(f"bn.ins {{0}}, {{1}}, {m}", [Y[j]], [x] + ([Y[j]] if m else []))
        built = need + 1
        rows = [None] * 8
        for q in range(8):
            k, off = divmod(8 * c + 13 * q, 32)
            t = f"%t{c}_{q}"
            src = Y[3 * c + k]
            if off:
                p.op("bn.shrv", t, src, str(off))
                src = t
            if off + 13 > 32:
                p.op("bn.shlv", f"%u{c}_{q}", Y[3 * c + k + 1], str(32 - off))
                p.op("bn.or", t, src, f"%u{c}_{q}")
                src = t
            p.op("bn.and", t, src, "w14")
            rows[_BR3[q]] = t
        out = transpose8(p, rows, f"c{c}_")
        for m in range(8):
            p.op("bn.subvm", f"%o{c}_{m}", "w15", out[_BR3[m]])
            p.raw(f"bn.sw {{0}}, {128 * m + 32 * c}({{1}})", [], [f"%o{c}_{m}", "x6"])
    p.raw("addi {0}, {1}, 416", ["x5"], ["x5"])
    p.raw("addi {0}, {1}, 1024", ["x6"], ["x6"])
    return p.text().splitlines()


def keydec_phases(s1h=S1H, s2h=S2H, t0h=T0H, sk=SK, t0=True):
    """skDecode of s1, s2, t0 from the secret key at sk, each polynomial NTT'd in place
    right after its decode (plain NTT-domain values in [0, q)). t0=False: s1 and s2
    only."""
    eta_c = [f"bn.lw w10, {_m(XA['sh4e'])}", f"bn.lw w11, {_m(XA['eta'])}"]
    dec_t0 = [f"bn.lw w14, {_m(XA['m13'])}", f"bn.lw w15, {_m(XA['t0c'])}"] + \
        _dec_t0_poly_tr()
    ntt = ["addi x8, x6, -1024"] + mldsa.ntt_body(8, 8)
    ph = [("init", VMODE1 + _li(5, sk + 128))]
    ph.append(("s1: 5 x [decode (eta 4), NTT]",
               _li(6, s1h) + _loop(L, eta_c + _dec_eta_poly() + ntt)))
    ph.append(("s2: 6 x [decode (eta 4), NTT]",
               _li(6, s2h) + _loop(K, eta_c + _dec_eta_poly() + ntt)))
    if t0:
        ph.append(("t0: 6 x [decode (13 bit), NTT]",
                   _li(6, t0h) + _loop(K, dec_t0 + ntt)))
    return ph


def keydec_program(**kw) -> str:
    return _program(keydec_phases(**kw))


# ------------------------------------------------------------------ c t0 + MakeHint
# constants of the fused c t0 / MakeHint pass (hint_consts), P = the word's hint bits,
# CNT = the hint count (lanes), both carried across the loop
HC = {"g2m1": "w8", "g2x2m1": "w9", "ones": "w11", "hbm": "w12", "c28m1": "w13",
      "hbit0": "w14"}
P, CNT_REG = "w10", "w15"


def hint_consts():
    return [f"bn.lw {r}, {_m(KA[n] if n == 'ones' else XA[n])}" for n, r in HC.items()]


def _hint_body():
    """4 words: ct0 from x14, v = w - c s2 from x13 (post-increment); norm check into ACC
    (x9), hint mask counted in CNT_REG, its bits (2^(8 s + lane) for word s) ORed into P,
    stored at x15. HighBits(r) mod 16 = bits 11..14 of mulv.hi(r + gamma2 - 1, HB_M):
    h = 1 iff those bits differ for r = v + c t0 and r = v, i.e. iff (xor << 17) >
    2^28 - 1. Temporaries allocated in w0..w7 by pointwise._Prog."""
    p = _Prog([f"w{k}" for k in range(8)])
    c = HC
    for s in range(4):
        X, V, A, U, T1, T2, D = (f"%{n}{s}" for n in ("x", "v", "a", "u", "t", "r", "d"))
        p.lw_pi(X, "x14")
        p.lw_pi(V, "x13")
        p.op("bn.addvm", A, X, c["g2m1"])
        p.op("bn.addvm", U, V, X)
        p.op("bn.addv", T2, V, c["g2m1"])
        p.op("bn.ltv", A, A, c["g2x2m1"])
        p.op("bn.addv", T1, U, c["g2m1"])
        p.op("bn.mulv.hi", T2, T2, c["hbm"])
        p.op("bn.mulv.hi", T1, T1, c["hbm"])
        p.raw("bn.or.acc {0}, {2}, {3}", ["x9", "@acc"], [A, c["ones"], "@acc"])
        p.op("bn.xor", D, T1, T2)
        p.op("bn.shlv", D, D, "17")
        p.op("bn.ltv", D, c["c28m1"], D)
        p.op("bn.subv", CNT_REG, CNT_REG, D)
        p.op("bn.and", D if s else P, D, c["hbit0"])
        if s:
            p.op("bn.shlv", D, D, str(8 * s))
            p.op("bn.or", P, P, D)
    p.sw_pi(P, "x15")                    # P_t over ct0 word t (already read)
    return p.text().splitlines()


def _or_tree(n=8, tmp=("w8", "w9")):
    """w0..w{n-1} -> w0: lane t = OR of the lanes of input word t (n = 8) or of input
    words' lane pairs / quads (n = 2, 4: see sig_encode's byte packing)."""
    out = []
    while n > 1:
        for i in range(n // 2):
            out += [f"bn.unzip.lo {tmp[0]}, w{2 * i}, w{2 * i + 1}",
                    f"bn.unzip.hi {tmp[1]}, w{2 * i}, w{2 * i + 1}",
                    f"bn.or w{i}, {tmp[0]}, {tmp[1]}"]
        n //= 2
    return out


def ct0_hint_phases():
    """c_hat at CH, t0_hat at SH (6 polys), v = w - c s2 at W: per polynomial
    c t0 = INTT(c_hat o t0_hat) -> T, then one fused pass: norm check, MakeHint, count,
    bitmap -> HB. x9 = FLAG = 0 iff ||c t0|| < gamma2 and #hints <= omega."""
    ph = [("init", VMODE1 + [f"bn.lw {CNT_REG}, {_m(KA['zero'])}", f"bn.wsrw ACC, {CNT_REG}",
                             f"bn.sw {CNT_REG}, {_m(CNTS)}"] +
           _li(10, mldsa.SH) + _li(13, mldsa.W) + _li(16, HB))]
    prod = []
    for k in range(4):
        prod += [f"bn.lw.pi w{k}, 0(x12)", f"bn.lw.pi w{4 + k}, 0(x10)"]
    prod += [f"bn.mulvm w{8 + k}, w{k}, w{4 + k}" for k in range(4)]
    prod += [f"bn.sw.pi w{8 + k}, 0(x11)" for k in range(4)]
    tree = [f"bn.lw w{k}, {_m(T + 32 * k)}" for k in range(8)] + _or_tree() + \
        ["bn.sw.pi w0, 0(x16)"]
    body = _li(12, mldsa.CH) + _li(11, T) + _loop(8, prod) + _li(8, T) + \
        mldsa.intt_body(8, 8) + hint_consts() + [f"bn.lw {CNT_REG}, {_m(CNTS)}"] + \
        _li(14, T) + _li(15, T) + _loop(8, _hint_body()) + \
        [f"bn.sw {CNT_REG}, {_m(CNTS)}"] + tree
    ph.append(("6 x [c t0 (pw + INTT), norm + MakeHint + count, bitmap]", _loop(K, body)))
    fin = [f"bn.ext x{1 + k}, {CNT_REG}, {k}" for k in range(8)]
    fin += [f"add x1, x1, x{2 + k}" for k in range(7)]
    fin += ["sltu x2, x0, x9", "sltiu x3, x1, 56", "xori x3, x3, 1", "slli x3, x3, 1",
            "or x9, x2, x3"] + _li(4, FLAG) + ["sw x9, 0(x4)", "sw x1, 4(x4)"]
    assert OMEGA == 55
    ph.append(("hint count, flag", fin))
    return ph


def ct0_hint_program() -> str:
    return _program(ct0_hint_phases())


# ------------------------------------------------------------------ sigEncode
# granule g of a z word: (field, shift) parts, shift > 0: left, < 0: right
_ZGRAN = [[(0, 0), (1, 20)], [(1, -12), (2, 8), (3, 28)], [(3, -4), (4, 16)],
          [(4, -16), (5, 4), (6, 24)], [(6, -8), (7, 12)]]


def _zpack_group():
    """8 z words at x5 -> 40 granules (160 B) at x6; w15 = gamma1. f = gamma1 - z, lanes
    transposed (T_q lane m = field q of word m), granule g of every word by uniform
    shifts / ors (G_g lane m = granule 5m + g), then bn.ext + sw per granule. Registers
    allocated in w0..w14 by pointwise._Prog."""
    p = _Prog([f"w{k}" for k in range(15)])
    rows = [None] * 8
    for m in range(8):
        rows[_BR3[m]] = f"%f{m}"
        p.lw_pi(f"%z{m}", "x5")
        p.op("bn.subvm", f"%f{m}", "w15", f"%z{m}")
    B = transpose8(p, rows, "t")
    T = lambda q: B[_BR3[q]]
    G = []
    for g, parts in enumerate(_ZGRAN):
        acc = None
        for k, (q, sh) in enumerate(parts):
            t = T(q)
            if sh:
                t = f"%s{g}_{k}"
                p.op(f"bn.{'shlv' if sh > 0 else 'shrv'}", t, T(q), str(abs(sh)))
            if acc is None:
                acc = t
            else:
                p.op("bn.or", f"%g{g}_{k}", acc, t)
                acc = f"%g{g}_{k}"
        G.append(acc)
    for i, (m, g) in enumerate((m, g) for m in range(8) for g in range(5)):
        x = f"x{10 + i % 8}"
        p.raw(f"bn.ext {{0}}, {{1}}, {m}", [x], [G[g]])
        p.raw(f"sw {{0}}, {4 * (5 * m + g)}({{1}})", [], [x, "x6"])
    p.raw("addi {0}, {1}, 160", ["x6"], ["x6"])
    return p.text().splitlines()


def sig_encode_phases(ctil=mldsa.CTIL, z=mldsa.ZO, sig=SIG):
    """c_tilde at ctil, z at z (5 polys), bitmaps at HB -> the signature at sig (sig + 48
    32-byte aligned). z is packed first, so the signature may lie over z itself when
    sig + 48 <= z + 96 (each 160-byte output group is written after its 256 input bytes
    are read, and never reaches the next group's input), as in mldsa_sign's layout."""
    sig_z, sig_h = sig + 48, sig + 48 + L * 640
    assert sig_z % 32 == 0
    assert not (z < sig + SIG_LEN and sig < z + L * 1024) or sig_z <= z + 96
    ph = [("init", VMODE1)]
    ph.append(("z: gamma1 - z, 20-bit pack (5 polys)",
               [f"bn.lw w15, {_m(KA['g1'])}"] + _li(5, z) + _li(6, sig_z) +
               _loop(L * 4, _zpack_group())))
    ct = _li(1, ctil) + _li(2, sig)
    ct += [f"lw x{3 + k}, {4 * k}(x1)" for k in range(12)]
    ct += [f"sw x{3 + k}, {4 * k}(x2)" for k in range(12)]
    ph.append(("c_tilde", ct))
    # HintBitPack: indices into HW (one per word), cumulative counts at HW + 4 (omega + i)
    hp = [f"bn.lw w0, {_m(KA['zero'])}"] + _li(20, HW) + \
        _loop(8, ["bn.sw.pi w0, 0(x20)"]) + \
        _li(20, HW) + _li(21, HW + 4 * OMEGA) + _li(22, HB) + _li(7, DBT) + \
        [f"bn.lw w2, {_m(XA['deb'])}", "addi x23, x0, 0", "addi x28, x0, 256",
         f"addi x29, x0, {K}"]
    hp += ["hp_poly:", "addi x24, x0, 0",
           "hp_gran:", "lw x25, 0(x22)", "addi x22, x22, 4", "beq x25, x0, hp_next",
           # b = x & -x; index = table[(b * DEBRUIJN mod 2^32) >> 27] (xor / addi fill
           # the mulv.lo and lw result latencies)
           "hp_bit:", "sub x26, x0, x25", "and x26, x25, x26", "bn.bcast w1, x26",
           "bn.mulv.lo w1, w1, w2", "xor x25, x25, x26", "bn.ext x27, w1, 0",
           "srli x27, x27, 27", "slli x27, x27, 2", "add x27, x27, x7", "lw x27, 0(x27)",
           "addi x20, x20, 4", "add x27, x27, x24", "sw x27, -4(x20)",
           "bne x25, x0, hp_bit",
           "hp_next:", "addi x24, x24, 32", "bne x24, x28, hp_gran"]
    hp += _li(27, HW) + ["sub x27, x20, x27", "srli x27, x27, 2", "sw x27, 0(x21)",
                         "addi x21, x21, 4", "addi x23, x23, 1", "bne x23, x29, hp_poly"]
    ph.append(("hint: HintBitPack indices", hp))
    pk = [f"bn.lw w9, {_m(XA['bsh'])}"]
    for half in (0, 1):
        pk += [f"bn.lw w{k}, {_m(HW + 128 * half + 32 * k)}" for k in range(4)]
        pk += [f"bn.mulv.lo w{k}, w{k}, w9" for k in range(4)]
        pk += _or_tree(4, ("w10", "w11")) + [f"bn.sw w0, {_m(sig_h + 32 * half)}"]
    ph.append(("hint: bytes", pk))
    return ph


def sig_encode_program() -> str:
    return _program(sig_encode_phases())
