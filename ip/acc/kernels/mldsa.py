"""ML-DSA-65 signing (FIPS 204 Alg. 7, Sign_internal) on the ACC: the expensive phases of
one rejection-loop iteration as ACC programs that share one DMEM layout, each checked on
the ISS against dilithium-py's intermediates (ip/acc/tests/test_mldsa_program.py).

    src = expand_mask_program()        # y = ExpandMask(rho'', kappa), y_hat = NTT(y)
    src = aw_program()                 # w = INTT(A_hat o y_hat), A_hat streamed by uni23
    src = highbits_program()           # w1 = HighBits(w), w1Encode(w1) -> W1E (768 B),
                                       # c_tilde = H(mu || w1Encode(w1)) -> CTIL
    src = challenge_program()          # + c = SampleInBall(c_tilde), c_hat = NTT(c) -> CH
    src = z_program()                  # z = y + INTT(c_hat o s1_hat), ||z|| check (ACC)
    src = r0_program()                 # w - c s2 (kept), ||LowBits(w - c s2)|| check

Status: these are standalone programs on this module's DMEM layout (peak END bytes) with
the inputs placed by the host, each tested against dilithium-py's intermediates. The whole
signing program is kernels/mldsa_sign.py: these generators take their addresses as
parameters and are assembled there, with mldsa_sign_parts.py's, on one 32 KiB layout with
the loop control (there aw_phases is replaced by a per-entry A-tile version and z_phases by
z = INTT(c_hat o s1_hat + y_hat o 1) over y_hat, so y is not kept). Measured (ISS, one
program, each signature equal to dilithium-py's): ML-DSA-65 sign median 118 896 cycles, mean
141 737, min 45 889, max 492 343 over 200 signatures (median 4 iterations, mean 5.08); see
doc/architecture.md 3.4 (which keeps the first-order estimate written before those parts
existed).

All programs run in VMODE 1 (8 x 32-bit lanes, q = 8380417); a polynomial is 32 words,
word r = coefficients 8r..8r+7 (natural order, values in [0, q)).

Design:
* NTT / INTT: the ntt_mldsa schedules with base registers (x{src} load, x{dst} store).
  Pointwise products are bn.mulvm of plain operands (A_hat from the sampler, y_hat / c_hat
  from the NTT) and carry 2^-32, removed by the INTT with itwiddle_words(mont=True).
* A_hat o y_hat (aw_program): row i of A_hat (5 RejNTTPoly, uni23 on the stream unit)
  is sampled into one of two row buffers while the core computes row i-1: the 5-term
  multiply-accumulate of 8 words (20 instructions per word: 10 bn.lw.pi, 5 bn.mulvm,
  4 bn.addvm, bn.sw.pi) for jobs 0-3, the INTT of the row for job 4.
* ExpandMask: SHAKE256(rho'' || kappa + r) with declared length 66, 20 digest words
  (kmac.dig) per polynomial, 5 words (160 B) -> 8 output words at a time: the 40
  granules go once by bn.ext + bn.ins into Y_0..Y_4 with lane o = granule 5o + k, so
  field q of all 8 words is one uniform shift / or / and of Y_a, Y_a+1 (T_q lane o), and
  an 8 x 8 lane transpose (bn.unzip) gives the words (~150 cycles per 8 words; per-word
  gathers with per-lane shifts by multiplication, as mlkem.decode_wide, took ~217);
  masked to 20 bits, y = gamma1 -q E (bn.subvm).
* Registers: only w0..w15 (the ACC has 16 wide registers); the denser pieces are written
  on virtual registers and allocated / scheduled by pointwise._Prog.
* HighBits (gamma2 = (q-1)/32): r1 = (((r + 127) >> 7) * 1025 + 2^21) >> 22 (& 15 not
  needed, r < q); w1Encode: r1 << 4 lane (bn.mulv.lo by 16^lane) and a 3-level
  unzip.lo / unzip.hi / or tree per 8 words -> one word (lane k = coefficients 8k..8k+7).
* Norm checks: |x| < B  <=>  (x + B - 1) mod q < 2B - 1: bn.addvm, bn.ltv, bn.or.acc
  against all-ones; x9 (= popcount of non-zero ACC lanes) is 0 iff every coefficient
  passes.
"""
from ip.acc.kernels.asm_util import li as _li, loop as _loop, mem as _m, u32 as _u32
from ip.acc.kernels import ntt_mldsa, pointwise

Q = 8380417
K, L = 6, 5
ETA, TAU = 4, 49
BETA = TAU * ETA
GAMMA1 = 1 << 19
GAMMA2 = (Q - 1) // 32
OMEGA = 55

SHAKE128 = 1 | 0 << 2
SHAKE256 = 1 | 2 << 2

# ------------------------------------------------------------------ DMEM layout (bytes)
RHO = 0                      # 32 B
RHOPP = 32                   # rho'' (64 B)
MU = 96                      # 64 B
KAPPA = 160                  # 16-bit nonce (word; the program reads it with lw)
TWID = 256                   # 32 words NTT twiddles
ITWID = TWID + 1024          # 33 words INTT twiddles (mont=True)
KC = ITWID + 33 * 32         # constant words (see _CONST_NAMES)
_CONST_NAMES = ["m20", "g1", "c127", "c1025", "c2p21", "sh4", "c15", "ones",
                "zb", "z2b", "rb", "r2b", "alpha", "zero"]
KA = {n: KC + 32 * i for i, n in enumerate(_CONST_NAMES)}
Y = 3072                     # y: 5 polys (plain, kept for z)
YH = Y + 5 * 1024            # y_hat: 5 polys; also c_hat * s products (scratch)
W = YH + 5 * 1024            # w: 6 polys
ABUF = W + 6 * 1024          # 2 row buffers of 5 polys (A_hat rows); reused as s1_hat etc.
W1E = ABUF + 10 * 1024       # w1Encode(w1): 768 B
SIB = W1E + 768              # SampleInBall: 8 digest words of SHAKE256(c_tilde)
CTIL = SIB + 256             # c_tilde (48 B, 2 words)
END = CTIL + 64              # peak DMEM (bytes) of these programs
# z / r0 programs (after the A rows are dead): inputs at ABUF
CH = ABUF                    # c_hat (1 poly)
SH = ABUF + 1024             # s1_hat (5) or s2_hat (6)
ZO = Y                       # z written over y (z_program) -- y is dead once z passes


def _const_words():
    c = {}
    c["m20"] = _u32([(1 << 20) - 1] * 8)
    c["g1"] = _u32([GAMMA1] * 8)
    c["c127"] = _u32([127] * 8)
    c["c1025"] = _u32([1025] * 8)
    c["c2p21"] = _u32([1 << 21] * 8)
    c["sh4"] = _u32([1 << (4 * q) for q in range(8)])
    c["c15"] = _u32([15] * 8)
    c["ones"] = _u32([0xFFFFFFFF] * 8)
    bz, br = GAMMA1 - BETA, GAMMA2 - BETA
    c["zb"], c["z2b"] = _u32([bz - 1] * 8), _u32([2 * bz - 1] * 8)
    c["rb"], c["r2b"] = _u32([br - 1] * 8), _u32([2 * br - 1] * 8)
    c["alpha"] = _u32([2 * GAMMA2] * 8)
    c["zero"] = _u32([0] * 8)
    return c


def const_image() -> dict:
    img = {TWID: b"".join(_u32(w) for w in ntt_mldsa.twiddle_words()),
           ITWID: b"".join(_u32(w) for w in ntt_mldsa.itwiddle_words(mont=True))}
    cw = _const_words()
    img[KC] = b"".join(cw[n] for n in _CONST_NAMES)
    return img


def poly_bytes(coeffs) -> bytes:
    return _u32([c % Q for c in coeffs])


def read_poly(blob: bytes) -> list:
    return [int.from_bytes(blob[4 * k:4 * k + 4], "little") for k in range(256)]


# ------------------------------------------------------------------ code pieces



VMODE1 = ["lui x30, 4", "addi x31, x0, 1", "csrrw x0, VMODE, x31"]


def ntt_body(s, d):
    """ntt_mldsa's forward NTT: polynomial at x{s} -> NTT at x{d} (may be equal)."""
    return ntt_mldsa.ntt_body(f"x{s}", f"x{d}", _m, 0, TWID)


def intt_body(s, d):
    """ntt_mldsa's inverse (twiddles at ITWID, mont=True: also removes 2^-32):
    polynomial at x{s} -> x{d}."""
    return ntt_mldsa.intt_body(f"x{s}", f"x{d}", _m, 0, ITWID)


# ------------------------------------------------------------------ A_hat o y_hat
def _start_a(i, j, dst):
    """RejNTTPoly(rho || j || i) -> dst on the stream unit (uni23, VMODE 1)."""
    return [f"bn.lw w1, {_m(RHO)}", f"addi x1, x0, {SHAKE128}", "addi x2, x0, 34",
            "kmac.start x1, x2", "addi x3, x0, -1", "kmac.msg w1, x3",
            f"addi x4, x0, {j | i << 8}", "bn.ins w2, x4, 0", "addi x3, x0, 3",
            "kmac.msg w2, x3"] + _li(5, dst) + ["addi x4, x0, 256", "smp.run x5, x4, uni23"]


def _abuf(i, j):
    return ABUF + 5120 * (i % 2) + 1024 * j


def _mac_ptrs(i):
    """x10..x14: A row i polys, x15..x19: y_hat polys, x20: w_i."""
    L = []
    for j in range(L_):
        L += _li(10 + j, _abuf(i, j)) + _li(15 + j, YH + 1024 * j)
    return L + _li(20, W + 1024 * i)


L_ = L


def _mac_word():
    """One word of w_i = sum_j A[i][j] o y_hat[j] (bn.mulvm, x 2^-32): 20 cycles."""
    a = [f"w{j}" for j in range(5)]
    b = [f"w{5 + j}" for j in range(5)]
    p = [f"w{10 + j}" for j in range(5)]
    s = "w15"
    ld = lambda j: [f"bn.lw.pi {a[j]}, 0(x{10 + j})", f"bn.lw.pi {b[j]}, 0(x{15 + j})"]
    mul = lambda j: f"bn.mulvm {p[j]}, {a[j]}, {b[j]}"
    return (ld(0) + ld(1) + [mul(0)] + ld(2) + [mul(1)] + ld(3) + [mul(2)] +
            [f"bn.addvm {s}, {p[0]}, {p[1]}"] + ld(4) + [mul(3), mul(4)] +
            [f"bn.addvm {s}, {s}, {p[2]}", f"bn.addvm {s}, {s}, {p[3]}",
             f"bn.addvm {s}, {s}, {p[4]}", f"bn.sw.pi {s}, 0(x20)"])


def _row_chunk(c, i):
    """Core work chunk c (0..4) for row i: words 8c..8c+7 of the MAC, or the INTT."""
    if c < 4:
        return (_mac_ptrs(i) if c == 0 else []) + _loop(8, _mac_word())
    return _li(8, W + 1024 * i) + intt_body(8, 8)


def _start_a_reg(j, dst):
    """As _start_a with i << 8 in x21 (loop variable)."""
    return [f"bn.lw w1, {_m(RHO)}", f"addi x1, x0, {SHAKE128}", "addi x2, x0, 34",
            "kmac.start x1, x2", "addi x3, x0, -1", "kmac.msg w1, x3",
            f"addi x4, x21, {j}", "bn.ins w2, x4, 0", "addi x3, x0, 3",
            "kmac.msg w2, x3"] + _li(5, dst) + ["addi x4, x0, 256", "smp.run x5, x4, uni23"]


def aw_phases(compact=True):
    """[(name, lines)]: w = INTT(A_hat o y_hat) with y_hat at YH -> W (6 polys).
    compact: rows as a loopi over row pairs (IMEM / 3); the last pair samples a dummy
    row 6 (5 extra RejNTTPoly in the background, ~90 cycles)."""
    if compact:
        ph = [("init", VMODE1 + ["kmac.acq"])]
        L = []
        for j in range(L_):
            L += _start_a(0, j, _abuf(0, j)) + ["smp.wait"]
        ph.append(("sample A row 0 (core idle)", L + _li(21, 256) + _li(20, W)))
        body = []
        for par in (0, 1):
            for c in range(5):
                job = _start_a_reg(c, _abuf(par + 1, c))
                if c == 0:
                    work = sum((_li(10 + j, _abuf(par, j)) + _li(15 + j, YH + 1024 * j)
                                for j in range(L_)), []) + _loop(8, _mac_word())
                elif c < 4:
                    work = _loop(8, _mac_word())
                else:
                    work = ["addi x8, x20, -1024"] + intt_body(8, 8) + ["addi x21, x21, 256"]
                body += job + work + ["smp.wait"]
        ph.append(("rows 0-5: MAC + INTT | sample next row", _loop(K // 2, body)))
        ph.append(("release", ["kmac.rel"]))
        return ph
    ph = [("init", VMODE1 + ["kmac.acq"])]
    L = []
    for j in range(L_):
        L += _start_a(0, j, _abuf(0, j)) + ["smp.wait"]
    ph.append(("sample A row 0 (core idle)", L))
    for i in range(K):
        L = []
        for c in range(5):
            job = _start_a(i + 1, c, _abuf(i + 1, c)) if i + 1 < K else []
            L += job + _row_chunk(c, i) + (["smp.wait"] if job else [])
        ph.append((f"row {i}: MAC + INTT" + (f" | sample row {i + 1}" if i + 1 < K else ""), L))
    ph.append(("release", ["kmac.rel"]))
    return ph


def _program(phases):
    lines = []
    for _, L in phases:
        lines += L
    return "\n".join(lines + ["ecall"]) + "\n"


def aw_program() -> str:
    return _program(aw_phases())


# ------------------------------------------------------------------ ExpandMask + NTT(y)
_BR3 = [int(f"{i:03b}"[::-1], 2) for i in range(8)]


def transpose8(p, rows, tag):
    """8 x 8 lane transpose on virtual registers of the pointwise._Prog p, by 3 rounds of
    bn.unzip.lo / .hi: with word m in rows[bitrev(m)], returns names `out` such that lane q
    of word m ends in out[bitrev(q)] lane m. Pair by pair, so 9 registers suffice."""
    src = list(rows)
    for rnd in range(3):
        dst = []
        for q in range(4):
            lo, hi = f"%{tag}{rnd}_{2 * q}", f"%{tag}{rnd}_{2 * q + 1}"
            p.op("bn.unzip.lo", lo, src[q], src[q + 4])
            p.op("bn.unzip.hi", hi, src[q], src[q + 4])
            dst += [lo, hi]
        src = dst
    return src


def _mask_group():
    """5 digest words (160 B; granule g = digest word g // 8, lane g % 8) -> 8 output words,
    transposed: Y_k lane o = granule 5o + k (bn.ext + bn.ins); field q of every output word
    o starts at bit 20q of Y_0..Y_4's lane o, so T_q = field q of all 8 words is one
    uniform shift / or / and (w14 = 2^20 - 1); an 8 x 8 lane transpose gives the words;
    y = gamma1 - field (w15 = gamma1); stored at x6 (post-increment). ~150 cycles.
    Registers allocated in w0..w13 by pointwise._Prog."""
    p = pointwise._Prog([f"w{k}" for k in range(14)])
    D = [f"%d{k}" for k in range(5)]
    Y = [f"%y{k}" for k in range(5)]
    for d in D:
        p.raw("kmac.dig {0}", [d, "@kmac"], ["@kmac"])
    for i in range(40):
        o, k = divmod(i, 5)
        g = 5 * o + k
        x = f"x{10 + i % 8}"
        p.raw(f"bn.ext {{0}}, {{1}}, {g % 8}", [x], [D[g // 8]])
        p.raw(f"bn.ins {{0}}, {{1}}, {o}", [Y[k]], [x] + ([Y[k]] if o else []))
    rows = [None] * 8
    for q in range(8):
        a, off = divmod(20 * q, 32)
        t = f"%t{q}"
        src = Y[a]
        if off:
            p.op("bn.shrv", t, src, str(off))
            src = t
        if off + 20 > 32:
            p.op("bn.shlv", f"%u{q}", Y[a + 1], str(32 - off))
            p.op("bn.or", t, src, f"%u{q}")
            src = t
        if off + 20 != 32:
            p.op("bn.and", t, src, "w14")
        rows[_BR3[q]] = t
    out = transpose8(p, rows, "x")
    for o in range(8):
        p.op("bn.subvm", f"%z{o}", "w15", out[_BR3[o]])
        p.sw_pi(f"%z{o}", "x6")
    return p.text().splitlines()


def expand_mask_phases(ntt=True, compact=True, y=Y, yh=YH):
    """y[r] = ExpandMask(rho'', kappa + r) -> Y (5 polys), y_hat = NTT(y) -> YH.
    KAPPA holds the 16-bit nonce (lw). y = yh is allowed (NTT in place). The next SHAKE256 is started before the NTT of
    the previous polynomial (its permutations run in the NTT's shadow). compact: one
    loopi over the 5 polynomials (the last one starts an unused 6th SHAKE256). The 20-bit
    unpack is _mask_group's (a per-word gather variant, ~217 cycles per 8 words against
    ~150, was measured and dropped)."""
    group = _mask_group()
    consts = [f"bn.lw w14, {_m(KA['m20'])}", f"bn.lw w15, {_m(KA['g1'])}"]
    pre = VMODE1 + ["kmac.acq"] + consts + [f"lw x7, {KAPPA}(x0)"] + _li(6, y)
    start = [f"bn.lw w3, {_m(RHOPP)}", f"bn.lw w4, {_m(RHOPP + 32)}",
             f"addi x1, x0, {SHAKE256}", "addi x2, x0, 66", "kmac.start x1, x2",
             "addi x3, x0, -1", "kmac.msg w3, x3", "kmac.msg w4, x3",
             "bn.ins w5, x7, 0", "addi x3, x0, 3", "kmac.msg w5, x3", "addi x7, x7, 1"]
    ph = [("init", pre + start)]
    if compact and ntt:
        body = _loop(4, group) + start + ntt_body(8, 9) + \
            ["addi x8, x8, 1024", "addi x9, x9, 1024"] + consts
        ph.append(("5 x [ExpandMask y_r, start SHAKE256 y_r+1, NTT y_r]",
                   _li(8, y) + _li(9, yh) + _loop(L_, body)))
        ph.append(("release", ["kmac.rel"]))
        return ph
    for r in range(L_):
        L = _loop(4, group)
        ph.append((f"ExpandMask y{r} (unpack)", L))
        if r + 1 < L_:
            ph.append((f"start SHAKE256 y{r + 1}", start))
        if ntt:
            ph.append((f"NTT y{r}", _li(8, y + 1024 * r) + _li(9, yh + 1024 * r) +
                       ntt_body(8, 9) + consts))
    ph.append(("release", ["kmac.rel"]))
    return ph


def expand_mask_program(ntt=True) -> str:
    return _program(expand_mask_phases(ntt))


# ------------------------------------------------------------------ HighBits + w1Encode
def highbits_phases(hash=True, w=W, w1e=W1E, ctil=CTIL):
    """w1 = HighBits(w) (gamma2 = (q-1)/32) for the 6 polys at W, w1Encode -> W1E.
    hash: c_tilde = H(mu || w1Encode(w1), 48) on the KMAC, each w1Encode word absorbed as
    it is produced (the permutations run in the shadow of the HighBits loop) -> CTIL."""
    pre = VMODE1 + [f"bn.lw w{11 + k}, {_m(KA[n])}" for k, n in
                    enumerate(["c127", "c1025", "c2p21", "sh4", "c15"])]
    pre += _li(5, w) + _li(6, w1e)
    body = []
    for k in range(8):                       # 8 words -> one output word
        x = f"w{k}"
        body += [f"bn.lw.pi {x}, 0(x5)"]
    # in place in w0..w7; constants in w11..w15; w8, w9 tree temps; w10 the word absorbed
    body += [f"bn.addv w{k}, w{k}, w11" for k in range(8)]
    body += [f"bn.shrv w{k}, w{k}, 7" for k in range(8)]
    body += [f"bn.mulv.lo w{k}, w{k}, w12" for k in range(8)]
    body += [f"bn.addv w{k}, w{k}, w13" for k in range(8)]
    body += [f"bn.shrv w{k}, w{k}, 22" for k in range(8)]
    body += [f"bn.and w{k}, w{k}, w15" for k in range(8)]
    body += [f"bn.mulv.lo w{k}, w{k}, w14" for k in range(8)]
    n = 8
    while n > 1:
        for i in range(n // 2):
            body += [f"bn.unzip.lo w8, w{2 * i}, w{2 * i + 1}",
                     f"bn.unzip.hi w9, w{2 * i}, w{2 * i + 1}",
                     f"bn.or w{i}, w8, w9"]
        n //= 2
    body.append("bn.sw.pi w0, 0(x6)")
    if not hash:
        return [("init", pre), ("HighBits + w1Encode (6 polys)", _loop(24, body))]
    body.insert(len(body) - 8, "kmac.msg w10, x3")    # previous word, mid-body
    body.insert(0, "bn.mov w10, w0")
    hs = ["kmac.acq", f"addi x1, x0, {SHAKE256}", "addi x2, x0, 832", "kmac.start x1, x2",
          "addi x3, x0, -1", f"bn.lw w1, {_m(MU)}", f"bn.lw w2, {_m(MU + 32)}",
          "kmac.msg w1, x3", "kmac.msg w2, x3"]
    # iteration t absorbs word t-1 (bn.mov w7, w0 at its top); the first one absorbs
    # nothing: peel it (no msg), the last word is absorbed after the loop
    first = [x for x in body if x != "kmac.msg w10, x3"]
    fin = ["kmac.msg w0, x3", "kmac.dig w1", "kmac.dig w2", f"bn.sw w1, {_m(ctil)}",
           f"bn.sw w2, {_m(ctil + 32)}"]
    return [("init", pre + hs), ("HighBits + w1Encode + absorb (6 polys)",
                                 first + _loop(23, body)), ("c_tilde", fin)]


def highbits_program() -> str:
    return _program(highbits_phases())


# ------------------------------------------------------------------ z and r0 checks
def _cs_prod(n, dst):
    """dst[r] = INTT(c_hat o s_hat[r]) (the INTT removes the 2^-32), r < n; s_hat at SH."""
    b = []
    for k in range(4):                       # 4 words per iteration (no load-use stalls)
        b += [f"bn.lw.pi w{k}, 0(x12)", f"bn.lw.pi w{4 + k}, 0(x10)"]
    b += [f"bn.mulvm w{8 + k}, w{k}, w{4 + k}" for k in range(4)]
    b += [f"bn.sw.pi w{8 + k}, 0(x11)" for k in range(4)]
    body = _li(12, CH) + _loop(8, b) + intt_body(8, 8) + ["addi x8, x8, 1024"]
    return _li(10, SH) + _li(11, dst) + _li(8, dst) + _loop(n, body)


def z_phases():
    """c_hat at CH, s1_hat at SH (5 polys), y at Y: z = y + INTT(c_hat o s1_hat) -> ZO,
    x9 = 0 iff ||z||inf < gamma1 - beta (add and check fused, 2 words per iteration)."""
    ph = [("init", VMODE1 + [f"bn.lw w15, {_m(KA['zero'])}", "bn.wsrw ACC, w15"])]
    ph.append(("c s1: 5 pointwise + 5 INTT", _cs_prod(5, YH)))
    b = ["bn.lw.pi w0, 0(x10)", "bn.lw.pi w1, 0(x11)", "bn.lw.pi w5, 0(x10)",
         "bn.lw.pi w6, 0(x11)", "bn.addvm w2, w0, w1", "bn.addvm w3, w2, w12",
         "bn.addvm w7, w5, w6", "bn.sw.pi w2, 0(x12)", "bn.addvm w8, w7, w12",
         "bn.ltv w3, w3, w13", "bn.sw.pi w7, 0(x12)", "bn.ltv w8, w8, w13",
         "bn.or.acc x9, w3, w14", "bn.or.acc x9, w8, w14"]
    ph.append(("z = y + c s1, ||z|| check",
               [f"bn.lw w12, {_m(KA['zb'])}", f"bn.lw w13, {_m(KA['z2b'])}",
                f"bn.lw w14, {_m(KA['ones'])}"] + _li(10, Y) + _li(11, YH) + _li(12, ZO) +
               _loop(80, b)))
    return ph


def z_program() -> str:
    return _program(z_phases())


def challenge_phases(ctil=CTIL, sib=SIB, ch=CH):
    """c = SampleInBall(c_tilde) -> CH (plain), then NTT(c) in place. c_tilde at CTIL,
    KMAC port held. 8 digest words (256 B: 8 sign bytes + 248 candidates) are read; needing
    more than 248 candidates for the 49 accepts (each accepted with probability >= 207/256)
    has probability far below 2^-200 and is not handled."""
    L = VMODE1 + [f"addi x1, x0, {SHAKE256}", "addi x2, x0, 48", "kmac.start x1, x2",
                  f"bn.lw w1, {_m(ctil)}", f"bn.lw w2, {_m(ctil + 32)}", "addi x3, x0, -1",
                  "kmac.msg w1, x3"] + _li(3, 0xFFFF) + ["kmac.msg w2, x3"]
    L += _li(6, sib) + _loop(8, ["kmac.dig w3", "bn.sw.pi w3, 0(x6)"])
    L += _li(7, ch) + [f"bn.lw w4, {_m(KA['zero'])}"] + _loop(32, ["bn.sw.pi w4, 0(x7)"])
    ph = [("SHAKE256(c_tilde) + clear c", L)]
    L = _li(7, ch) + _li(25, sib) + ["lw x10, 0(x25)", "lw x11, 4(x25)"] + _li(12, sib + 8) + \
        [f"addi x13, x0, {256 - TAU}", "addi x24, x0, 256"] + _li(21, Q - 2)
    L += ["sib_loop:",
          "andi x14, x12, -4", "andi x16, x12, 3", "lw x15, 0(x14)", "slli x16, x16, 3",
          "addi x12, x12, 1", "srl x15, x15, x16", "andi x15, x15, 255",
          "bltu x13, x15, sib_loop",
          "slli x16, x15, 2", "slli x18, x13, 2", "add x16, x16, x7", "add x18, x18, x7",
          "lw x17, 0(x16)", "andi x19, x10, 1", "sub x20, x0, x19", "and x20, x20, x21",
          "sw x17, 0(x18)", "addi x20, x20, 1", "sw x20, 0(x16)",
          "srli x10, x10, 1", "slli x22, x11, 31", "or x10, x10, x22", "srli x11, x11, 1",
          "addi x13, x13, 1", "bne x13, x24, sib_loop"]
    ph.append(("SampleInBall (core)", L))
    ph.append(("NTT(c)", _li(8, ch) + ntt_body(8, 8)))
    return ph


def challenge_program(with_highbits=True) -> str:
    ph = (highbits_phases() if with_highbits else [("acq", ["kmac.acq"])]) + \
        challenge_phases()
    return _program(ph + [("release", ["kmac.rel"])])


def r0_phases(s2h=SH, ch=CH, w=W, t=YH):
    """c_hat at CH, s2_hat at SH (6 polys), w at W: w - c s2 -> W (in place, kept for the
    hint), x9 = 0 iff ||LowBits(w - c s2)||inf < gamma2 - beta. One poly at a time:
    c_hat o s2_hat[r] -> T (= YH), INTT, then a fused loop subtract / HighBits /
    r0 = x - r1 alpha / bound check."""
    T = t
    ph = [("init", VMODE1 + [f"bn.lw w15, {_m(KA['zero'])}", "bn.wsrw ACC, w15"] + _li(10, s2h))]
    consts = [f"bn.lw w{8 + k}, {_m(KA[n])}" for k, n in
              enumerate(["rb", "r2b", "ones", "c127", "c1025", "c2p21", "alpha", "c15"])]
    chk = ["bn.lw.pi w0, 0(x13)", "bn.lw.pi w1, 0(x14)", "bn.subvm w2, w0, w1",
           "bn.addv w3, w2, w11", "bn.sw.pi w2, 0(x15)", "bn.shrv w3, w3, 7",
           "bn.mulv.lo w3, w3, w12", "bn.addv w3, w3, w13", "bn.shrv w3, w3, 22",
           "bn.and w3, w3, w15", "bn.mulv.lo w3, w3, w14", "bn.addvm w4, w2, w8",
           "bn.subvm w4, w4, w3", "bn.ltv w4, w4, w9", "bn.or.acc x9, w4, w10"]
    L = _li(12, ch) + _li(11, T)
    b = []
    for k in range(4):
        b += [f"bn.lw.pi w{k}, 0(x12)", f"bn.lw.pi w{4 + k}, 0(x10)"]
    b += [f"bn.mulvm w{8 + k}, w{k}, w{4 + k}" for k in range(4)]
    b += [f"bn.sw.pi w{8 + k}, 0(x11)" for k in range(4)]
    L += _loop(8, b) + _li(8, T) + intt_body(8, 8) + consts + _li(14, T) + _loop(32, chk)
    ph.append(("6 x [c s2[r] (pw + INTT) + r0 check]",
               _li(13, w) + _li(15, w) + _loop(K, L)))
    return ph


def r0_program() -> str:
    return _program(r0_phases())
