# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""ML-DSA-65 bit packing on the ACC (VMODE 1): skDecode of s1, s2, t0 (FIPS 204 Alg. 25)
with their NTTs, and sigEncode (Alg. 26: c_tilde || BitPack(z) || HintBitPack(h)), plus the
lane tools the unpacking and packing pieces share (8 x 8 lane transpose, OR tree).

    src = keydec_program()      # skDecode (s1, s2, t0) + NTT -> S1H, S2H, T0H
    src = sig_encode_program()  # c_tilde || z (20-bit) || hint (omega + k bytes) -> SIG

Standalone on the phase-program layout (layout.py), checked on the ISS against
dilithium-py in ip/acc/tests/test_mldsa_sign_parts.py; sign.py runs the same pieces on its
own layout.
* keydec (before the loop, so Y / YH / W / ABUF are free): the host puts the whole secret
  key (4032 B: rho | K | tr | s1 | s2 | t0) at SK; s1_hat -> S1H (= Y, 5 polys), s2_hat ->
  S2H (6 polys), t0_hat -> T0H (6 polys), plain NTT-domain values in [0, q), i.e. what
  rounding.z_program / r0_program expect at layout.SH (and ct0_hint_program at SH).
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
  on virtual registers and allocated / scheduled by prog.Prog.
* HintBitPack: per non-zero bitmap granule, lowest set bit b = x & -x, index by a de
  Bruijn multiply (bn.bcast + bn.mulv.lo, the base ISA has no multiply) and a 32-entry
  table; one byte value per word into HW, packed to bytes at the end by bn.mulv.lo by
  256^(lane % 4) and a 2-level unzip tree.
* z pack, 8 words at a time: f = gamma1 - z (bn.subvm), the 8 x 8 lane transpose so that
  lane m holds word m; then the 5 output granules of every word are uniform shifts / ORs
  of the fields (8 words at once), and each granule goes out by bn.ext + sw (the 8 words'
  40 granules are not lane-aligned with the 5 output words).
"""
from ip.acc.kernels.asm_util import li as _li, loop as _loop, mem as _m, phase_program
from ip.acc.kernels.mldsa.layout import (CTIL, KA, S1H, S2H, SIG, SIG_LEN, SK, T0H, VMODE1,
                                         XA, XC, ZO, fwd_ntt, x_area)
from ip.acc.kernels.mldsa.params import K, L, OMEGA
from ip.acc.kernels.prog import Prog


# ------------------------------------------------------------------ lane tools
BR3 = [int(f"{i:03b}"[::-1], 2) for i in range(8)]


def transpose8(p, rows, tag):
    """8 x 8 lane transpose on virtual registers of the prog.Prog p, by 3 rounds of
    bn.unzip.lo / .hi: with word m in rows[bitrev(m)], returns names `out` such that lane q
    of word m ends in out[bitrev(q)] lane m. Pair by pair, so 9 registers suffice."""
    return unzip_rounds(p, rows, tag, 3)


def unzip_rounds(p, rows, tag, rounds):
    """`rounds` rounds of transpose8 (each: unzip.lo / .hi of rows q and q + 4)."""
    src = list(rows)
    for rnd in range(rounds):
        dst = []
        for q in range(4):
            lo, hi = f"%{tag}{rnd}_{2 * q}", f"%{tag}{rnd}_{2 * q + 1}"
            p.op("bn.unzip.lo", lo, src[q], src[q + 4])
            p.op("bn.unzip.hi", hi, src[q], src[q + 4])
            dst += [lo, hi]
        src = dst
    return src


def or_tree(n=8, tmp=("w8", "w9")):
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


# ------------------------------------------------------------------ keydec
def dec_eta_poly():
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


def dec_t0_poly():
    """416 B at x5 -> 32 words at x6, transposed: Y_j lane m = granule 13m + j (lw +
    bn.ins); for c = 0..3 the words 4m + c (m = 0..7) all start at bit 8c of Y_{3c}, so
    field q of all 8 is one uniform shift / or / and of Y_{3c..3c+4} (T_q, lane m), and an
    8 x 8 transpose gives the 8 words. Each Y_j is gathered just before the first chunk
    that reads it, so at most 5 are live. w14 = m13, w15 = t0c; w0..w13 allocated by
    prog.Prog."""
    p = Prog([f"w{k}" for k in range(14)])
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
            rows[BR3[q]] = t
        out = transpose8(p, rows, f"c{c}_")
        for m in range(8):
            p.op("bn.subvm", f"%o{c}_{m}", "w15", out[BR3[m]])
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
        dec_t0_poly()
    ntt = ["addi x8, x6, -1024"] + fwd_ntt(8, 8)
    ph = [("init", VMODE1 + _li(5, sk + 128))]
    ph.append(("s1: 5 x [decode (eta 4), NTT]",
               _li(6, s1h) + _loop(L, eta_c + dec_eta_poly() + ntt)))
    ph.append(("s2: 6 x [decode (eta 4), NTT]",
               _li(6, s2h) + _loop(K, eta_c + dec_eta_poly() + ntt)))
    if t0:
        ph.append(("t0: 6 x [decode (13 bit), NTT]",
                   _li(6, t0h) + _loop(K, dec_t0 + ntt)))
    return ph


def keydec_program(**kw) -> str:
    return phase_program(keydec_phases(**kw))


# ------------------------------------------------------------------ sigEncode
# granule g of a z word: (field, shift) parts, shift > 0: left, < 0: right
_ZGRAN = [[(0, 0), (1, 20)], [(1, -12), (2, 8), (3, 28)], [(3, -4), (4, 16)],
          [(4, -16), (5, 4), (6, 24)], [(6, -8), (7, 12)]]


def zpack_group():
    """8 z words at x5 -> 40 granules (160 B) at x6; w15 = gamma1. f = gamma1 - z, lanes
    transposed (T_q lane m = field q of word m), granule g of every word by uniform
    shifts / ors (G_g lane m = granule 5m + g), then bn.ext + sw per granule. Registers
    allocated in w0..w14 by prog.Prog."""
    p = Prog([f"w{k}" for k in range(15)])
    rows = [None] * 8
    for m in range(8):
        rows[BR3[m]] = f"%f{m}"
        p.lw_pi(f"%z{m}", "x5")
        p.op("bn.subvm", f"%f{m}", "w15", f"%z{m}")
    B = transpose8(p, rows, "t")
    T = lambda q: B[BR3[q]]
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


def sig_encode_phases(ctil=CTIL, z=ZO, sig=SIG, xc=XC, k=K, l=L, omega=OMEGA, ctil_len=48,
                      zbits=20, hw_words=64, hb=None, hw=None):
    """c_tilde at ctil, z at z (5 polys), bitmaps at HB -> the signature at sig (sig + 48
    32-byte aligned). z is packed first, so the signature may lie over z itself when
    sig + 48 <= z + 96 (each 160-byte output group is written after its 256 input bytes
    are read, and never reaches the next group's input), as in sign.py's layout.
    z = None: z is already packed at sig + ctil_len (per polynomial, sign16.py);
    xc: the XC area (layout.x_area, hw_words hint words) with HB, HW, DBT. The set's k, l,
    omega, c_tilde bytes and z field bits (default ML-DSA-65's); the hint bytes go out 32
    at a time (zeros after the last count up to hw_words / 8 wide words). hb, hw: the
    bitmaps and the hint words elsewhere than the XC area's."""
    xar = x_area(xc, k, hw_words)
    XA, HB, HW, DBT = xar["XA"], xar["HB"], xar["HW"], xar["DBT"]
    HB, HW = HB if hb is None else hb, HW if hw is None else hw
    sig_z = sig + ctil_len
    sig_h = sig_z + l * 32 * zbits
    assert sig_z % 32 == 0 and sig_h % 32 == 0 and hw_words % 32 == 0
    assert z is None or (zbits, ctil_len) == (20, 48)
    L, K, OMEGA = l, k, omega
    ph = [("init", VMODE1)]
    if z is not None:
        assert not (z < sig + SIG_LEN and sig < z + L * 1024) or sig_z <= z + 96
        ph.append(("z: gamma1 - z, 20-bit pack (5 polys)",
                   [f"bn.lw w15, {_m(KA['g1'])}"] + _li(5, z) + _li(6, sig_z) +
                   _loop(L * 4, zpack_group())))
    ct = _li(1, ctil) + _li(2, sig)
    ct += [f"lw x{3 + k}, {4 * k}(x1)" for k in range(ctil_len // 4)]
    ct += [f"sw x{3 + k}, {4 * k}(x2)" for k in range(ctil_len // 4)]
    ph.append(("c_tilde", ct))
    # HintBitPack: indices into HW (one per word), cumulative counts at HW + 4 (omega + i)
    hp = [f"bn.lw w0, {_m(KA['zero'])}"] + _li(20, HW) + \
        _loop(hw_words // 8, ["bn.sw.pi w0, 0(x20)"]) + \
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
    for half in range(hw_words // 32):
        pk += [f"bn.lw w{k}, {_m(HW + 128 * half + 32 * k)}" for k in range(4)]
        pk += [f"bn.mulv.lo w{k}, w{k}, w9" for k in range(4)]
        pk += or_tree(4, ("w10", "w11")) + [f"bn.sw w0, {_m(sig_h + 32 * half)}"]
    ph.append(("hint: bytes", pk))
    return ph


def sig_encode_program() -> str:
    return phase_program(sig_encode_phases())


def zpack_bits(bits):
    """BitPack(z, gamma1 - 1, gamma1) of one polynomial (fields gamma1 - z, `bits` bits;
    18 for ML-DSA-44): 32 words at x5 -> 32 b bytes at x6 (neither moved); w15 = gamma1."""
    def field(p, src, d):
        p.op("bn.subvm", d, "w15", src)
    return pack_bits(bits, field)


def dec_eta_bits(bits):
    """BitUnpack of a packed s polynomial (eta - s in `bits` bits; 3 for eta = 2): 32 b
    bytes at x5 (post-incremented) -> 32 words at x6 (not moved), s = eta - field mod q.
    w15 = 2^b - 1, w14 = eta; uses w0..w13, x10..x17."""
    def field(p, src, d):
        p.op("bn.subvm", d, "w14", src)
    return unpack_fields(bits, field, pool=14) + [f"addi x5, x5, {32 * bits}"]


# ------------------------------------------------------------------ generic b-bit pack
def pack_fields(load, outs, pool=14):
    """SimpleBitPack of one polynomial into one or more b-bit encodings (FIPS 204 Alg. 16)
    in one pass: load(p, r, dst) emits the prog.Prog ops that bring input word r (VMODE 1,
    natural order: coefficients 8r..8r+7) into dst; outs: [(b, field, base GPR)], where
    field(p, src, dst) turns a (transposed) word into its b-bit fields (lane-wise, so it
    commutes with the transpose; None: the word itself) and 32 b bytes go to the base GPR
    (4-byte aligned). Lane m of the output works on coefficients 32m..32m+31, i.e.
    granules b m .. b m + b - 1 of each encoding: for each c = 0..3 the words 4m + c
    (m = 0..7) are transposed (T_i lane m = coefficient 32m + 8c + i = field 8c + i of
    lane m), so granule j of every lane is one uniform shift / or of the fields; each
    finished granule goes out by bn.ext + sw. Registers: w0..w{pool-1}; x10..x17."""
    p = Prog([f"w{k}" for k in range(pool)])
    G = [{} for _ in outs]               # per encoding: granule j -> partial register
    n_out = 0
    for c in range(4):
        rows = [None] * 8
        for m in range(8):
            load(p, 4 * m + c, f"%l{c}_{m}")
            rows[BR3[m]] = f"%l{c}_{m}"
        tr = transpose8(p, rows, f"t{c}_")
        for i in range(8):
            k = 8 * c + i
            for e, (b, field, _) in enumerate(outs):
                t = tr[BR3[i]]
                if field is not None:
                    field(p, t, f"%F{e}_{k}")
                    t = f"%F{e}_{k}"
                for j in range((b * k) // 32, (b * k + b - 1) // 32 + 1):
                    pos = b * k - 32 * j
                    part = t
                    if pos:
                        part = f"%s{e}_{k}_{j}"
                        p.op("bn.shlv" if pos > 0 else "bn.shrv", part, t, str(abs(pos)))
                    if j in G[e]:
                        p.op("bn.or", f"%g{e}_{k}_{j}", G[e][j], part)
                        G[e][j] = f"%g{e}_{k}_{j}"
                    else:
                        G[e][j] = part
        for e, (b, _, base) in enumerate(outs):
            # granules complete once every field reaching into them is in
            done = (b * 8 * (c + 1)) // 32
            for j in sorted(g for g in G[e] if g < done):
                for m in range(8):
                    x = f"x{10 + n_out % 8}"
                    n_out += 1
                    p.raw(f"bn.ext {{0}}, {{1}}, {m}", [x], [G[e][j]])
                    p.raw(f"sw {{0}}, {4 * (b * m + j)}({{1}})", [], [x, base])
                del G[e][j]
    assert not any(G)
    return p.text().splitlines()


def pack_bits(b, field, pool=14):
    """pack_fields of one encoding: 32 words at x5 -> 32 b bytes at x6, field(p, src, dst)
    applied to each loaded word."""
    def load(p, r, dst):
        p.raw(f"bn.lw {{0}}, {32 * r}({{1}})", [f"%w{r}"], ["x5"])
        field(p, f"%w{r}", dst)
    return pack_fields(load, [(b, None, "x6")], pool)


def pack_eta4():
    """BitPack of an eta = 4 polynomial (4-bit fields eta - s, FIPS 204 skEncode): 32 words
    at x5 -> 128 B at x6 (32-byte aligned). Word r is granule r: lane i shifted by 4 i
    (bn.mulv.lo by 16^i) and the 8 lanes ORed by the unzip tree (or_tree: lane t = word t),
    8 words -> one output word. w12 = eta, w13 = 16^lane; w0..w11."""
    body = [f"bn.lw.pi w{k}, 0(x5)" for k in range(8)]
    body += [f"bn.subvm w{k}, w12, w{k}" for k in range(8)]
    body += [f"bn.mulv.lo w{k}, w{k}, w13" for k in range(8)]
    body += or_tree() + ["bn.sw.pi w0, 0(x6)"]
    return _loop(4, body)


# ------------------------------------------------------------------ generic b-bit unpack
def unpack_fields(b, field, mask="w15", pool=14, out_stride=1024):
    """SimpleBitUnpack / BitUnpack of one polynomial (FIPS 204 Alg. 18 / 19 without the
    final map): 32 b bytes at x5 (4-byte aligned) -> 32 words at x6 (natural order; x5 and
    x6 are not moved). dec_t0_poly's scheme for any b: lane m works on coefficients
    32m..32m+31 (granules b m .. b m + b - 1), Y_j lane m = granule b m + j (lw + bn.ins);
    for chunk c the field i of all 8 lanes (coefficient 32m + 8c + i) is one uniform
    shift / or of Y_k, Y_k+1 and an AND with `mask` (2^b - 1 in every lane); an 8 x 8
    transpose gives the words 4m + c, and field(p, src, dst) (lane-wise, on prog.Prog p)
    maps each before its store. Registers: w0..w{pool-1}, x10..x17."""
    p = Prog([f"w{k}" for k in range(pool)])
    Y = [f"%y{j}" for j in range(b)]
    built = 0
    n_ld = 0
    for c in range(4):
        need = max((b * (8 * c + i) + b - 1) // 32 for i in range(8))
        for j in range(built, need + 1):
            for m in range(8):
                x = f"x{10 + n_ld % 8}"
                n_ld += 1
                p.raw(f"lw {{0}}, {4 * (b * m + j)}({{1}})", [x], ["x5"])
                p.raw(f"bn.ins {{0}}, {{1}}, {m}", [Y[j]], [x] + ([Y[j]] if m else []))
        built = need + 1
        rows = [None] * 8
        for i in range(8):
            k, off = divmod(b * (8 * c + i), 32)
            t = f"%t{c}_{i}"
            src = Y[k]
            if off:
                p.op("bn.shrv", t, src, str(off))
                src = t
            if off + b > 32:
                p.op("bn.shlv", f"%u{c}_{i}", Y[k + 1], str(32 - off))
                p.op("bn.or", t, src, f"%u{c}_{i}")
                src = t
            if off + b != 32:
                p.op("bn.and", t, src, mask)
                src = t
            rows[BR3[i]] = src
        out = transpose8(p, rows, f"c{c}_")
        for m in range(8):
            d = f"%o{c}_{m}"
            field(p, out[BR3[m]], d)
            p.raw(f"bn.sw {{0}}, {128 * m + 32 * c}({{1}})", [], [d, "x6"])
    return p.text().splitlines()
