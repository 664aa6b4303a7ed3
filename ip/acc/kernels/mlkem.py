"""ML-KEM-768 on the ACC: complete programs for K-PKE.Decrypt (FIPS 203 Alg. 15) and
ML-KEM.Decaps_internal (Alg. 18), with the DMEM image layout and helpers.

    src = decaps_program()                 # assembly text
    dm = image(dk, c)                      # {addr: bytes} (inputs + constant tables)
    ... run on the ISS ...; K = dmem[K_OUT:K_OUT + 32]

Design (see the module functions for details):
* ByteDecode12 / ByteDecode10 (s_hat, t_hat, u): VMODE 1 (8 x 32-bit lanes). Output word w
  (16 coefficients = 2d bytes at byte 2dw) holds coefficient pairs (2q, 2q+1) in 32-bit lane
  q, i.e. the 2d-bit field at bit 2dq of the window. The granules (32-bit words of the input)
  that hold each field are gathered with `lw` + `bn.ins` into X (low granule) and Y (high
  granule, or the only one when the field starts at bit 0); then
  E = bn.mulv.hi(X, 2^(32-off)) | bn.mulv.lo(Y, 2^(32-off) or 1) is the field at bit 0 of each
  lane (per-lane shift amounts by multiplication), split into two 16-bit lanes with
  shift/and/or. Two output words per loopi iteration: X, Y of both words are bn.trn1 /
  bn.trn2 of 2 (d = 12) or 3 (d = 10) words filled by bn.ins (16 / 18 insertions instead of
  24, see _TRN): ~25 cycles per 16 coefficients, of which ~16 are lw + bn.ins.
* ByteDecode4 (v): VMODE 0, bn.bcastl of each halfword + bn.mulv.lo by per-lane powers of
  two (shift and lane select at once).
* Decoded u / v are kept as y << 6 (d = 10) and y << 12 (d = 4) in 16-bit lanes: the
  re-encryption check compares Compress_d(u') << (16 - d) with them lane by lane (c' = c iff
  all compressed coefficients are equal, ByteEncode_d being a bijection), so c' is never
  encoded. Compress_d(x) = ((2^d x + q/2) - ((2^d x + q/2) mod q)) / q exactly: the
  remainder comes from bn.mulvm / bn.addvm, the exact division is a bn.mulv.lo by q^-1 mod
  2^16 (times 2^(16-d), which also gives the mod 2^d).
* Decompress_d from y << (16-d): bn.mulv.hi / bn.mulv.lo by q and the rounding bit.
* Compress1 + ByteEncode1 of m': two compares give the bit masks (kept: they are
  Decompress1(m') after an AND with 1665), AND with 1 << lane, then a 15-step
  unzip.lo / unzip.hi / or tree packs 256 bits into one word.
* NTT / INTT: the ntt_mlkem schedules with a base register (loopi over polynomials). The
  NTT of u decompresses on the way in; the NTTs of u and y store the base-case transposed
  layout (bn.trn1 / bn.trn2 of word pairs), so the base-case multiply-accumulate
  (`basemul_loop`, pointwise.mlkem_basemul_program's arithmetic as a loopi over 8 blocks)
  transposes only a; products carry 2^-16, removed by the INTT scale word
  (pointwise.mlkem_iscale_mont_word()).
* Hashes on the KMAC side-load (port held for the whole program). J(z || c) is absorbed
  during the u decode (one message word per half iteration), its digest read before G.
  A_hat^T entries (uni12) and PRF + cbd2 run on the stream unit in the background of core
  work (`_pair`: start job, core chunk, smp.wait); see decaps_phases() for the schedule.
* Select: bn.or.acc accumulates c' xor c into ACC; x9 = number of non-zero lanes; a
  bn.ltv mask and bn.sel pick K' or K_bar without a branch.
* Buffers of the decryption are reused by the re-encryption (layout below).
"""
from ip.acc.kernels.asm_util import li as _li, loop as _loop, mem as _m, u32 as _u32
from ip.acc.kernels import ntt_mlkem, pointwise
from ip.acc.tools import sched

Q = 3329
K = 3
QINV16 = pow(Q, -1, 1 << 16)

# KMAC START codes: mode | strength << 2
SHA3_512 = 0 | 4 << 2
SHAKE128 = 1 | 0 << 2
SHAKE256 = 1 | 2 << 2

# ------------------------------------------------------------------ DMEM layout (bytes)
DK = 0                       # 2400 B: s_hat enc | t_hat enc | rho | h | z
DK_T = DK + 1152
DK_RHO = DK + 2304
DK_H = DK + 2336
DK_Z = DK + 2368
CT = 2400                    # 1088 B: u enc (960) | v enc (128); z || c contiguous (J input)
CT_V = CT + 960
TWID = 3488                  # 8 words NTT twiddles
ITWID = TWID + 256           # 8 words INTT twiddles
ISCALE = ITWID + 256         # 1 word
BMC = ISCALE + 32            # 9 words base-case multiply constants
KC = BMC + 9 * 32            # my constant words (see _CONSTS)
_CONST_NAMES = ["cx12", "cy12", "m12", "m12h", "cx10", "cy10", "m10", "m10h",
                "d4c0", "d4c1", "d4c2", "d4c3", "f000", "q", "c8", "c833", "c1664",
                "bits", "c1665", "one", "mc10", "qi10", "mc4", "qi4"]
KA = {n: KC + 32 * i for i, n in enumerate(_CONST_NAMES)}
WORK = KC + 32 * len(_CONST_NAMES)
# After the first step (ByteDecode12 of s_hat) the s_hat encoding DK[0:1152] is dead: the
# small outputs and the u' buffer live there (the program overwrites that part of dk).
UP = DK                      # u' = INTT input, one polynomial at a time (512 B)
MOUT = DK + 512              # m' (32 B)
KP = MOUT + 32               # K'
RSEED = KP + 32              # r
KBAR = RSEED + 32            # J(z || c)
K_OUT = KBAR + 32            # shared secret (decaps output)
# decrypt buffers
S_HAT = WORK                 # 3 polys (decoded, plain)
U = S_HAT + 1536             # 3 polys: Decompress10(u) -> NTT (transposed layout)
V = U + 1536                 # Decompress4(v)
W = V + 512                  # s_hat . u_hat -> INTT
UC = W + 512                 # 3 polys: decoded u, y << 6 (kept for the compare)
VC = UC + 1536               # v: y << 12 (kept)
MSK = VC + 512               # compress1 masks of m' (16 words, kept: mu = MSK & 1665)
T_HAT = MSK + 512            # 3 polys
# re-encryption buffers: S_HAT, U, V, W are dead after decrypt and reused
YV = S_HAT                   # y (3 polys) -> NTT in place (transposed layout)
E1 = U                       # e1 (3 polys)
E2 = V                       # e2
VP = W                       # v' accumulator
AM = T_HAT + 1536            # 2 row buffers of A_hat^T (3 polys each); row 2 reuses row 0's
END = AM + 2 * 1536          # peak DMEM use (bytes)


def _u16(vals):
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


def _const_words() -> dict:
    c = {}
    c["cx12"], c["cy12"] = [_u32(x) for x in _cxy(12)]
    c["m12"] = _u32([0xFFF] * 8)
    c["m12h"] = _u32([0x0FFF0000] * 8)
    c["cx10"], c["cy10"] = [_u32(x) for x in _cxy(10)]
    c["m10"] = _u32([0xFFC0] * 8)
    c["m10h"] = _u32([0xFFC00000] * 8)
    for h in range(4):
        c[f"d4c{h}"] = _u16([(1 << (12 - 4 * (lane & 3))) if lane >> 2 == h else 0
                             for lane in range(16)])
    c["f000"] = _u16([0xF000] * 16)
    c["q"] = _u16([Q] * 16)
    c["c8"] = _u16([8] * 16)
    c["c833"] = _u16([833] * 16)
    c["c1664"] = _u16([1664] * 16)
    c["bits"] = _u16([1 << lane for lane in range(16)])
    c["c1665"] = _u16([1665] * 16)
    c["one"] = _u16([1] * 16)
    c["mc10"] = _u16([(1 << 10) * (1 << 16) % Q] * 16)
    c["qi10"] = _u16([QINV16 * (1 << 6)] * 16)
    c["mc4"] = _u16([(1 << 4) * (1 << 16) % Q] * 16)
    c["qi4"] = _u16([QINV16 * (1 << 12)] * 16)
    return c


def const_image() -> dict:
    img = {}
    img[TWID] = b"".join(_u16(w) for w in ntt_mlkem.twiddle_words())
    img[ITWID] = b"".join(_u16(w) for w in ntt_mlkem.itwiddle_words())
    img[ISCALE] = _u16(pointwise.mlkem_iscale_mont_word())
    img[BMC] = b"".join(_u16(w) for w in pointwise.mlkem_const_words())
    cw = _const_words()
    img[KC] = b"".join(cw[n] for n in _CONST_NAMES)
    return img


def image(dk: bytes = None, c: bytes = None, dk_pke: bytes = None) -> dict:
    """DMEM image {addr: bytes}: inputs (dk or just dk_pke = s_hat encoding) and constants."""
    img = const_image()
    if dk is not None:
        assert len(dk) == 2400
        img[DK] = dk
    if dk_pke is not None:
        assert len(dk_pke) == 1152
        img[DK] = dk_pke
    if c is not None:
        assert len(c) == 1088
        img[CT] = c
    return img


# ------------------------------------------------------------------ code pieces


def _vmode(v):
    return [f"addi x31, x0, {v}", "csrrw x0, VMODE, x31"]



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


def decode_wide(d, src, dst, nwords, kmac_words=0):
    """ByteDecode_d (d = 12 or 10) of nwords output words (VMODE 1), two per iteration.
    d = 12: plain values; d = 10: y << 6 in each 16-bit lane. kmac_words: that many 32-byte
    message words from DMEM[x7] (post-increment, mask x3) are fed to the KMAC during the
    first iterations (a hash absorbed in the shadow of the decode)."""
    assert nwords % 2 == 0
    ng = _check_trn(d)
    ops, slots = _TRN[d]
    nz = 1 + max(z for z, _ in slots)
    sfx = str(d)
    L = _li(5, src) + _li(6, dst)
    L += [f"bn.lw w12, {_m(KA['cx' + sfx])}", f"bn.lw w13, {_m(KA['cy' + sfx])}",
          f"bn.lw w14, {_m(KA['m' + sfx])}", f"bn.lw w15, {_m(KA['m' + sfx + 'h'])}"]
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


def decode4(src, dstc, dst):
    """VMODE 0: ByteDecode4 of 128 B -> dstc (y << 12) and dst (Decompress4)."""
    L = _li(5, src) + _li(6, dstc) + _li(7, dst)
    L += [f"bn.lw w{8 + h}, {_m(KA[f'd4c{h}'])}" for h in range(4)]
    L += [f"bn.lw w12, {_m(KA['f000'])}", f"bn.lw w13, {_m(KA['q'])}",
          f"bn.lw w14, {_m(KA['c8'])}"]
    for i in range(4):
        L.append("bn.lw.pi w0, 0(x5)")
        for k in range(4):
            for h in range(4):
                L.append(f"bn.bcastl w{1 + h}, w0, {4 * k + h}")
            for h in range(4):
                L.append(f"bn.mulv.lo w{1 + h}, w{1 + h}, w{8 + h}")
            L += ["bn.or w5, w1, w2", "bn.or w6, w3, w4", "bn.or w5, w5, w6",
                  "bn.and w5, w5, w12", "bn.shrv w6, w5, 12",
                  "bn.mulv.lo w6, w6, w13", "bn.sw.pi w5, 0(x6)", "bn.addv w6, w6, w14",
                  "bn.shrv w6, w6, 4", "bn.sw.pi w6, 0(x7)"]
    return L


def _decompress10_load(dsrc):
    """Pass-1 loader of the NTT (ntt_mlkem.ntt_body): words y << 6 from base register
    x{dsrc}, Decompress10 on the way in (virtual registers: q, temporaries)."""
    def load(words, base, regs):
        q = f"%dq{words[0]}"
        L = [f"bn.lw {reg}, {32 * r}(x{dsrc})" for reg, r in zip(regs, words)]
        L.append(f"bn.lw {q}, {_m(KA['q'])}")
        for i in range(0, 8, 2):
            hi0, lo0, hi1, lo1 = (f"%d{k}_{words[i]}" for k in range(4))
            L += [f"bn.mulv.hi {hi0}, {regs[i]}, {q}", f"bn.mulv.lo {lo0}, {regs[i]}, {q}",
                  f"bn.mulv.hi {hi1}, {regs[i + 1]}, {q}", f"bn.mulv.lo {lo1}, {regs[i + 1]}, {q}",
                  f"bn.shrv {lo0}, {lo0}, 15", f"bn.shrv {lo1}, {lo1}, 15",
                  f"bn.addv {regs[i]}, {hi0}, {lo0}", f"bn.addv {regs[i + 1]}, {hi1}, {lo1}"]
        return L
    return load


def _transposed_store(words, base, regs):
    """Pass-2 storer of the NTT: each word pair (2s, 2s+1) as bn.trn1 / bn.trn2 of it, the
    layout of a prepared base-case multiply operand (pointwise.mlkem_prepare_program
    without the Montgomery factor), for a b operand used by several products."""
    L = []
    for t in range(4):
        s = words[2 * t] // 2
        tmp = f"%tr{words[2 * t]}"
        L += [f"bn.trn1 {tmp}, {regs[2 * t]}, {regs[2 * t + 1]}",
              f"bn.trn2 {regs[2 * t + 1]}, {regs[2 * t]}, {regs[2 * t + 1]}",
              f"bn.sw {tmp}, {64 * s}({base})", f"bn.sw {regs[2 * t + 1]}, {64 * s + 32}({base})"]
    return L


def ntt_polys(addr, n, transpose=False, dsrc=None):
    """n NTTs in place at addr (or from Decompress10 of the words y << 6 at dsrc into addr);
    transpose: store the base-case layout (_transposed_store)."""
    load = None if dsrc is None else _decompress10_load(9)
    store = _transposed_store if transpose else None
    body = ntt_mlkem.ntt_body("x8", TWID, load, store, _m) + ["addi x8, x8, 512"]
    L = _li(8, addr)
    if dsrc is not None:
        L += _li(9, dsrc)
        body.append("addi x9, x9, 512")
    return L + _loop(n, body)


def basemul_loop(terms, c):
    """c = sum over (a, b) of MultiplyNTTs(a, b) * 2^-16 (VMODE 0), a natural, b transposed
    (ntt_polys(transpose=True)); same arithmetic as pointwise.mlkem_basemul_program with a
    prepared b, as a loopi over the 8 blocks of 32 coefficients with post-increment
    pointers (x10.. a, b, gamma, c), registers allocated and scheduled by pointwise._Prog
    in w0..w15: ~48 cycles per block for 3 terms."""
    n = len(terms)
    assert 1 <= n <= 3
    L = []
    for j, (a, b) in enumerate(terms):
        L += _li(10 + 2 * j, a) + _li(11 + 2 * j, b)
    xg, xc = f"x{10 + 2 * n}", f"x{11 + 2 * n}"
    L += _li(10 + 2 * n, BMC) + _li(11 + 2 * n, c)
    p = pointwise._Prog([f"w{i}" for i in range(16)])
    p.lw_pi("%g", xg)
    s0 = s1 = None
    for j in range(n):
        xa, xb = f"x{10 + 2 * j}", f"x{11 + 2 * j}"
        for v, x in ((f"%a0{j}", xa), (f"%a1{j}", xa), (f"%b0{j}", xb), (f"%b1{j}", xb)):
            p.lw_pi(v, x)
        # trn2 first, then trn1 in place: a0 -> %t0, a1 -> %t1
        p.op("bn.trn2", f"%t1{j}", f"%a0{j}", f"%a1{j}")
        p.op("bn.trn1", f"%t0{j}", f"%a0{j}", f"%a1{j}")
        p.op("bn.mulvm", f"%p00{j}", f"%t0{j}", f"%b0{j}")
        p.op("bn.mulvm", f"%p01{j}", f"%t0{j}", f"%b1{j}")
        p.op("bn.mulvm", f"%p11{j}", f"%t1{j}", f"%b1{j}")
        p.op("bn.mulvm", f"%p10{j}", f"%t1{j}", f"%b0{j}")
        p.op("bn.mulvm", f"%tt{j}", f"%p11{j}", "%g")
        p.op("bn.addvm", f"%r1{j}", f"%p01{j}", f"%p10{j}")
        p.op("bn.addvm", f"%r0{j}", f"%p00{j}", f"%tt{j}")
        if j == 0:
            s0, s1 = f"%r0{j}", f"%r1{j}"
        else:
            p.op("bn.addvm", f"%s0{j}", s0, f"%r0{j}")
            p.op("bn.addvm", f"%s1{j}", s1, f"%r1{j}")
            s0, s1 = f"%s0{j}", f"%s1{j}"
    p.op("bn.trn1", "%o0", s0, s1)
    p.op("bn.trn2", "%o1", s0, s1)
    p.sw_pi("%o0", xc)
    p.sw_pi("%o1", xc)
    body = p.text().splitlines()
    return L + _loop(8, body)


def intt_poly(addr):
    return _li(8, addr) + ntt_mlkem.intt_body("x8", ITWID, ISCALE, _m)


def message_bits():
    """VMODE 0: m' = ByteEncode1(Compress1(V - W)) -> MOUT; masks -> MSK. Two halves of 8
    words, each packed by a 7-step unzip.lo / unzip.hi / or tree, then one more step."""
    L = [f"bn.lw w13, {_m(KA['c833'])}", f"bn.lw w14, {_m(KA['c1664'])}",
         f"bn.lw w15, {_m(KA['bits'])}"]
    for h in range(2):
        for i in range(8):
            r = 8 * h + i
            L += [f"bn.lw w8, {_m(V + 32 * r)}", f"bn.lw w9, {_m(W + 32 * r)}",
                  f"bn.subvm w{i}, w8, w9", f"bn.subv w{i}, w{i}, w13",
                  f"bn.ltv w{i}, w{i}, w14", f"bn.sw w{i}, {_m(MSK + 32 * r)}",
                  f"bn.and w{i}, w{i}, w15"]
        n = 8
        while n > 1:
            for i in range(n // 2):
                out = f"w{i}" if n > 2 or h else "w10"
                L += [f"bn.unzip.lo w8, w{2 * i}, w{2 * i + 1}",
                      f"bn.unzip.hi w9, w{2 * i}, w{2 * i + 1}",
                      f"bn.or {out}, w8, w9"]
            n //= 2
    L += ["bn.unzip.lo w8, w10, w0", "bn.unzip.hi w9, w10, w0", "bn.or w0, w8, w9",
          f"bn.sw w0, {_m(MOUT)}"]
    return L


def decrypt_core(j_hash=False):
    """j_hash (decaps): absorb J(z || c) during the u decode (port held; digest read later
    by _g_hash)."""
    L = ["lui x30, 4"]
    L += _vmode(1)
    L += decode_wide(12, DK, S_HAT, 48)
    if j_hash:
        L += [f"addi x1, x0, {SHAKE256}"] + _li(2, 1120) + ["kmac.start x1, x2"] + \
            _li(7, DK_Z) + ["addi x3, x0, -1"]
    L += decode_wide(10, CT, UC, 48, kmac_words=35 if j_hash else 0)
    L += _vmode(0)
    L += decode4(CT_V, VC, V)
    L += ntt_polys(U, 3, transpose=True, dsrc=UC)
    L += basemul_loop([(S_HAT + 512 * j, U + 512 * j) for j in range(3)], W)
    L += intt_poly(W)
    L += message_bits()
    return L


def decrypt_program() -> str:
    """K-PKE.Decrypt: dk_PKE at DK, c at CT -> m at MOUT."""
    return "\n".join(decrypt_core() + ["ecall"]) + "\n"


# ------------------------------------------------------------------ decaps
def _start_prf(n, dst):
    """SHAKE256(r || n) -> cbd2 -> dst (256 coefficients), in the background (VMODE 0)."""
    return [f"bn.lw w1, {_m(RSEED)}", f"addi x1, x0, {SHAKE256}", "addi x2, x0, 33",
            "kmac.start x1, x2", "addi x3, x0, -1", "kmac.msg w1, x3",
            f"addi x4, x0, {n}", "bn.ins w2, x4, 0", "addi x3, x0, 1", "kmac.msg w2, x3"] + \
        _li(5, dst) + ["addi x4, x0, 256", "smp.run x5, x4, cbd2"]


def _start_a(i, j, dst):
    """SampleNTT(SHAKE128(rho || i || j)) -> dst (= A_hat^T[i][j] = A_hat[j][i])."""
    return [f"bn.lw w1, {_m(DK_RHO)}", f"addi x1, x0, {SHAKE128}", "addi x2, x0, 34",
            "kmac.start x1, x2", "addi x3, x0, -1", "kmac.msg w1, x3",
            f"addi x4, x0, {i | j << 8}", "bn.ins w2, x4, 0", "addi x3, x0, 3",
            "kmac.msg w2, x3"] + _li(5, dst) + ["addi x4, x0, 256", "smp.run x5, x4, uni12"]


def _g_hash():
    """Read J's digest (K_bar), then (K', r) = G(m' || h), SHA3-512 on the side-load."""
    return ["kmac.dig w9", f"bn.sw w9, {_m(KBAR)}",
            f"addi x1, x0, {SHA3_512}", "addi x2, x0, 64", "kmac.start x1, x2",
            f"bn.lw w1, {_m(MOUT)}", f"bn.lw w2, {_m(DK_H)}", "addi x3, x0, -1",
            "kmac.msg w1, x3", "kmac.msg w2, x3", "kmac.dig w3", "kmac.dig w4",
            f"bn.sw w3, {_m(KP)}", f"bn.sw w4, {_m(RSEED)}"]


def _finish(kind, src, i=None):
    """After an INTT (result at src): add e (and mu for v), Compress_d, compare with the
    decoded c (ACC). Constants in w12..w15, values allocated in w0..w11."""
    d = 10 if kind == "u" else 4
    p = pointwise._Prog([f"w{n}" for n in range(12)])
    p.lw("w12", KA["c1664"])
    p.lw("w13", KA["mc10" if d == 10 else "mc4"])
    p.lw("w14", KA["qi10" if d == 10 else "qi4"])
    if kind == "v":
        p.lw("w15", KA["c1665"])
    e = E1 + 512 * i if kind == "u" else E2
    cmp = UC + 512 * i if kind == "u" else VC
    for r in range(16):
        p.lw(f"%in{r}", src + 32 * r)
        p.lw(f"%e{r}", e + 32 * r)
        p.op("bn.addvm", f"%x{r}", f"%in{r}", f"%e{r}")
        if kind == "v":
            p.lw(f"%mk{r}", MSK + 32 * r)
            p.op("bn.and", f"%mu{r}", f"%mk{r}", "w15")
            p.op("bn.addvm", f"%xx{r}", f"%x{r}", f"%mu{r}")
            xr = f"%xx{r}"
        else:
            xr = f"%x{r}"
        p.op("bn.mulvm", f"%zm{r}", xr, "w13")
        p.op("bn.shlv", f"%zl{r}", xr, str(d))
        p.op("bn.addv", f"%zl2{r}", f"%zl{r}", "w12")
        p.op("bn.addvm", f"%zm2{r}", f"%zm{r}", "w12")
        p.op("bn.subv", f"%df{r}", f"%zl2{r}", f"%zm2{r}")
        p.op("bn.mulv.lo", f"%y{r}", f"%df{r}", "w14")
        p.lw(f"%c{r}", cmp + 32 * r)
        p.op("bn.or.acc", "x9", f"%y{r}", f"%c{r}")
    return p.text().splitlines()


def _select():
    """K = K' if c' = c (ACC clean: x9 = 0) else K_bar (w2), constant time."""
    return ["bn.bcast w3, x9", f"bn.lw w4, {_m(KA['one'])}", f"bn.lw w6, {_m(KP)}",
            f"bn.lw w2, {_m(KBAR)}",
            "bn.ltv w5, w3, w4", "bn.sel w5, w6, w2", f"bn.sw w5, {_m(K_OUT)}"]


def _abuf(i, j):
    """Row buffer of A_hat^T[i][j]: rows 0 and 2 share a buffer (row 0 is dead when row 2
    is sampled, during basemul of row 1)."""
    return AM + 1536 * (i % 2) + 512 * j


def _pair(job, chunk):
    """Start a sampler job, run core work, wait for the job."""
    return job + chunk + ["smp.wait"]


def decaps_phases():
    """[(name, lines)] of ML-KEM.Decaps_internal; run in order, then ecall."""
    ph = [("init", ["bn.xor w15, w15, w15", "bn.wsrw ACC, w15", "kmac.acq"])]
    ph.append(("decrypt (+ J absorb)", decrypt_core(j_hash=True)))
    ph.append(("G", _g_hash()))
    # t_hat decode in 6 chunks of 8 words, PRF y0..y2, e1_0..e1_2 in their shadow
    prf = [(0, YV), (1, YV + 512), (2, YV + 1024), (3, E1), (4, E1 + 512), (5, E1 + 1024)]
    L = []
    for c, (n, dst) in enumerate(prf):
        L += _vmode(0) + _start_prf(n, dst) + _vmode(1) + \
            decode_wide(12, DK_T + 192 * c, T_HAT + 256 * c, 8) + ["smp.wait"]
    L += _vmode(0)
    ph.append(("decode t_hat + PRF y, e1", L))
    L = []
    for j in range(3):
        L += _pair(_start_a(0, j, _abuf(0, j)), ntt_polys(YV + 512 * j, 1, transpose=True))
    ph.append(("NTT(y) + A row 0", L))

    def bm_u(i):
        return basemul_loop([(_abuf(i, j), YV + 512 * j) for j in range(3)], UP)

    def intt_fin_u(i):
        return intt_poly(UP) + _finish("u", UP, i)
    bm_v = basemul_loop([(T_HAT + 512 * j, YV + 512 * j) for j in range(3)], VP)
    L = _pair(_start_a(1, 0, _abuf(1, 0)), bm_u(0))
    L += _pair(_start_a(1, 1, _abuf(1, 1)), intt_fin_u(0))
    L += _pair(_start_a(1, 2, _abuf(1, 2)), bm_v)
    L += _pair(_start_a(2, 0, _abuf(2, 0)), bm_u(1))
    L += _pair(_start_a(2, 1, _abuf(2, 1)), intt_fin_u(1))
    L += _pair(_start_a(2, 2, _abuf(2, 2)), intt_poly(VP))
    L += _pair(_start_prf(6, E2), bm_u(2))
    ph.append(("A rows 1-2 + e2 | basemul, INTT, compress, compare u0, u1, v", L))
    L = intt_fin_u(2) + _finish("v", VP)
    ph.append(("INTT u2, compress + compare u2, v", L))
    ph.append(("select", _select() + ["kmac.rel"]))
    return ph


def decaps_program() -> str:
    """ML-KEM.Decaps_internal: dk at DK, c at CT -> K at K_OUT."""
    lines = ["lui x30, 4"]
    for _, L in decaps_phases():
        lines += L
    # the phases' straight-line stretches list-scheduled across their seams too
    return "\n".join(sched.schedule(lines) + ["ecall"]) + "\n"
