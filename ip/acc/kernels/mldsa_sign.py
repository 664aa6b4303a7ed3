"""ML-DSA-65 signing (FIPS 204 Alg. 7, ML-DSA.Sign_internal) as ONE ACC program: the phase
generators of mldsa.py / mldsa_sign_parts.py on one DMEM layout in 32 KiB, the pre-loop
hashes on the KMAC, and the rejection loop with its control inside the program. Checked on
the ISS against dilithium-py, the signature byte for byte (ip/acc/tests/test_mldsa_sign.py);
cycles measured by ip/acc/dv/jobs.py (measure_mldsa_sign, `python -m ip.acc.dv.jobs
mldsa65_sign`).

    src = sign_program()
    img = image(sk, msg, rnd)           # {address: bytes}: constants + inputs
    ... run (ISS: 32 KiB IMEM and DMEM) ...
    sig = dmem[SIG:SIG + SIG_LEN]       # 3309 bytes

Measured (ISS, `python -m ip.acc.dv.jobs mldsa65_sign --n 200 --seed 2`: a fresh key, 33-byte
M' and rnd per signature, each signature equal to dilithium-py's and verified): median
118 896 cycles, mean 141 737, min 45 889 (accepted at once), max 492 343 (20 iterations);
iterations median 4, mean 5.08. IMEM 21 428 B, peak DMEM 31 776 B, registers w0..w15. Per
iteration ~20.4 k when rejected at z, ~26.3 k at r0; pre-loop 5.2 k, c t0 + hint 10.7 k,
sigEncode 3.8 k (doc/architecture.md 3.4). The norm checks always run over all coefficients (no early exit
inside a check).

Inputs placed by the host: the secret key (4032 B) at SK, M' (the formatted message, as
dilithium-py's _sign_internal takes it; at most MSG_MAX bytes) at MSG, its length in bytes
(32-bit word) at MLEN, rnd (32 B) at RND, and the constants of const_image(). Everything
else is computed by the program: mu = H(tr || M', 64) and rho'' = H(K || rnd || mu, 64) on
the KMAC (SHAKE256 with a declared length; the message tail by the kmac.msg byte mask), rho
copied out of the key, kappa = 0.

Program (all VMODE 1; each phase as in mldsa.py / mldsa_sign_parts.py):

    pre-loop   mu, rho''; skDecode s1, s2 + NTT -> S1H, S2H (t0 stays packed at T0P)
    loop:      y = ExpandMask(rho'', kappa) -> YH, NTT in place (y is not kept); kappa += 5
               w = INTT(A_hat o y_hat) -> W, A_hat[i][j] sampled per entry into one of two
                   1 KiB tiles while the core multiply-accumulates the other one
               HighBits, w1Encode, c_tilde -> CTIL, SampleInBall, c_hat -> CH
               z = INTT(c_hat o s1_hat + y_hat o 1) over YH (the Montgomery product with 1
                   carries the same 2^-32 as c_hat o s1_hat; the INTT removes it: z = y + c s1
                   without keeping y), ||z|| check; fail -> loop
               w - c s2 over W, ||r0|| check; fail -> loop
               per polynomial: t0_r decoded from T0P + NTT, c t0_r, ||c t0||, MakeHint, count
                   -> HB bitmaps, FLAG; fail -> loop
    sigEncode  z packed first, over z itself (SIG = YH + 16), then c_tilde and the hint

DMEM layout (bytes; peak = END = 31 776 of 32 768):

| region | address | bytes | lifetime |
|---|---|---|---|
| RHO, RHOPP, MU, KAPPA, RND, MLEN | 0..256 | 256 | whole run |
| TWID, ITWID, KC constants (mldsa) | 256..2848 | 2592 | whole run |
| CTIL (c_tilde) | 2848 | 64 | iteration -> sigEncode |
| MC (constant 1 word), CNT (hint count save) | 2912 | 64 | |
| free | 2976 | 736 | |
| S1H s1_hat | 3712 | 5120 | whole loop |
| S2H s2_hat | 8832 | 6144 | whole loop |
| YH y_hat -> z -> signature (SIG = YH + 16, 3309 B) | 14976 | 5120 | iteration; M' (input, <= 7168 B with ABUF) before the loop |
| ABUF: A tiles 2 x 1 KiB (aw); then CH c_hat (ABUF) + W1E/SIB (ABUF + 1024, challenge), then CH + T (ABUF + 1024, c s2 / c t0 scratch) | 20096 | 2048 | iteration |
| W w, then w - c s2 | 22144 | 6144 | iteration; holds SK's rho/K/tr/s1/s2 (input) before the loop |
| T0P t0 packed (SK + 1536: the key's own t0 bytes) | 28288 | 2496 | whole run |
| XC constants, DBT, HB bitmaps, FLAG, CNTS, HW (mldsa_sign_parts) | 30784..31776 | 992 | whole run |

SK = T0P - 1536 = 26752: the host writes the whole key there; rho, K, tr, s1, s2 lie in W
(dead before the loop), t0 at T0P.
"""
from ip.acc.kernels.asm_util import li as _li, loop as _loop, mem as _m, u32 as _u32
from ip.acc.kernels import mldsa, mldsa_sign_parts as sp
from ip.acc.tools import sched
from ip.acc.kernels.mldsa import K, L, KA, VMODE1, SHAKE128, SHAKE256, intt_body, ntt_body

# ------------------------------------------------------------------ DMEM layout (bytes)
RHO, RHOPP, MU, KAPPA = mldsa.RHO, mldsa.RHOPP, mldsa.MU, mldsa.KAPPA
RND = 192                    # rnd (32 B), input
MLEN = 224                   # len(M') in bytes (word), input
CTIL = mldsa.KC + 32 * len(mldsa._CONST_NAMES)
MC = CTIL + 64               # constant word: 1 in every lane
CNT = MC + 32                # hint-count lanes (sp.CNT_REG) saved across decode / NTTs
S1H = 3712
S2H = S1H + L * 1024
YH = S2H + K * 1024
ABUF = YH + L * 1024
CH = ABUF                    # c_hat (after the A tiles are dead)
T = ABUF + 1024              # one-polynomial scratch (c s2, c t0)
W1E = ABUF + 1024            # w1Encode output (written only; the hash absorbs from WDRs)
SIB = W1E + 768              # SampleInBall digest words (256 B)
W = ABUF + 2048
T0P = W + K * 1024           # t0 packed (6 x 416 B)
SK = T0P - 128 - 11 * 128    # the key: rho | K | tr | s1 | s2 | t0 (t0 at T0P)
SK_LEN = 128 + 11 * 128 + K * 416
MSG = YH                     # M' (input)
MSG_MAX = W - MSG
SIG = YH + 16                # signature (3309 B; z part at SIG + 48, hint at SIG + 3248)
SIG_LEN = sp.SIG_LEN
END = sp.XEND                # peak DMEM

assert CNT + 32 <= S1H and T0P + K * 416 <= sp.XC and SK >= W and SK % 32 == 0
assert all(a % 32 == 0 for a in (S1H, S2H, YH, ABUF, W, T0P, CTIL, MC, RND))


def const_image() -> dict:
    img = sp.const_image()
    img[MC] = _u32([1] * 8)
    return img


def image(sk: bytes, msg: bytes, rnd: bytes) -> dict:
    """DMEM image {address: bytes}: constants and the inputs (M' = msg as given to
    dilithium-py's _sign_internal)."""
    assert len(sk) == SK_LEN and len(rnd) == 32 and len(msg) <= MSG_MAX
    img = const_image()
    img[SK] = sk
    img[MSG] = msg
    img[MLEN] = len(msg).to_bytes(4, "little")
    img[RND] = rnd
    return img


# ------------------------------------------------------------------ pre-loop
def pre_phases():
    """mu = SHAKE256(tr || M', 64), rho'' = SHAKE256(K || rnd || mu, 64), rho -> RHO,
    kappa = 0; skDecode s1, s2 + NTT -> S1H, S2H."""
    L_ = VMODE1 + ["kmac.acq", f"lw x4, {MLEN}(x0)", f"addi x1, x0, {SHAKE256}",
                   "addi x2, x4, 64", "kmac.start x1, x2", "addi x3, x0, -1",
                   f"bn.lw w1, {_m(SK + 64)}", f"bn.lw w2, {_m(SK + 96)}",
                   "kmac.msg w1, x3", "kmac.msg w2, x3",
                   "srli x5, x4, 5", "andi x6, x4, 31"] + _li(7, MSG)
    L_ += ["beq x5, x0, mu_tail", "loop x5, 2", "bn.lw.pi w1, 0(x7)", "kmac.msg w1, x3",
           "mu_tail:", "beq x6, x0, mu_dig", "addi x8, x0, 1", "sll x8, x8, x6",
           "addi x8, x8, -1", "bn.lw w1, 0(x7)", "kmac.msg w1, x8",
           "mu_dig:", "kmac.dig w1", "kmac.dig w2", f"bn.sw w1, {_m(MU)}",
           f"bn.sw w2, {_m(MU + 32)}"]
    ph = [("mu = H(tr || M')", L_)]
    L_ = ["addi x2, x0, 128", "kmac.start x1, x2", f"bn.lw w3, {_m(SK + 32)}",
          f"bn.lw w4, {_m(RND)}", "kmac.msg w3, x3", "kmac.msg w4, x3", "kmac.msg w1, x3",
          "kmac.msg w2, x3", f"bn.lw w5, {_m(SK)}", "kmac.dig w1", "kmac.dig w2",
          f"bn.sw w1, {_m(RHOPP)}", f"bn.sw w2, {_m(RHOPP + 32)}", "kmac.rel",
          f"bn.sw w5, {_m(RHO)}", f"sw x0, {KAPPA}(x0)"]
    ph.append(("rho'' = H(K || rnd || mu), rho, kappa = 0", L_))
    ph += sp.keydec_phases(s1h=S1H, s2h=S2H, t0h=None, sk=SK, t0=False)
    return ph


# ------------------------------------------------------------------ w = INTT(A_hat o y_hat)
def _start_a(off, dst):
    """RejNTTPoly(rho || (x21 + off) as 2 bytes j, i) -> dst (uni23), x21 = i << 8."""
    return [f"bn.lw w1, {_m(RHO)}", f"addi x1, x0, {SHAKE128}", "addi x2, x0, 34",
            "kmac.start x1, x2", "addi x3, x0, -1", "kmac.msg w1, x3",
            f"addi x4, x21, {off}", "bn.ins w2, x4, 0", "addi x3, x0, 3",
            "kmac.msg w2, x3"] + _li(5, dst) + ["addi x4, x0, 256", "smp.run x5, x4, uni23"]


N_RACC = 8
R_ACC = [f"w{8 + k}" for k in range(N_RACC)]   # w_i words 0..7 during a row (aw)


def _mac_first():
    """w_i = A_i0 o y_hat_0 (x10 tile, x15 y_hat): words 0..7 into R_ACC (unrolled),
    words 8..31 to DMEM at x20 (4 words per loop iteration)."""
    out = []
    for g in range(N_RACC // 4):
        for k in range(4):
            out += [f"bn.lw.pi w{k}, 0(x10)", f"bn.lw.pi w{4 + k}, 0(x15)"]
        out += [f"bn.mulvm {R_ACC[4 * g + k]}, w{k}, w{4 + k}" for k in range(4)]
    b = []
    for k in range(4):
        b += [f"bn.lw.pi w{k}, 0(x10)", f"bn.lw.pi w{4 + k}, 0(x15)"]
    b += [f"bn.mulvm w{k}, w{k}, w{4 + k}" for k in range(4)]
    b += [f"bn.sw.pi w{k}, 0(x20)" for k in range(4)]
    return out + _loop((32 - N_RACC) // 4, b)


def _mac_acc():
    """w_i += A_ij o y_hat_j (x10 tile, x15 y_hat): words 0..7 in R_ACC, words 8..31
    in DMEM (x20 read, x23 write), 2 words per loop iteration (w0..w5: the other 8
    registers hold R_ACC)."""
    out = []
    for g in range(N_RACC // 4):
        for k in range(4):
            out += [f"bn.lw.pi w{k}, 0(x10)", f"bn.lw.pi w{4 + k}, 0(x15)"]
        out += [f"bn.mulvm w{k}, w{k}, w{4 + k}" for k in range(4)]
        out += [f"bn.addvm {R_ACC[4 * g + k]}, {R_ACC[4 * g + k]}, w{k}"
                for k in range(4)]
    b = []
    for k in range(2):
        b += [f"bn.lw.pi w{k}, 0(x10)", f"bn.lw.pi w{2 + k}, 0(x15)",
              f"bn.lw.pi w{4 + k}, 0(x20)"]
    b += [f"bn.mulvm w{k}, w{k}, w{2 + k}" for k in range(2)]
    b += [f"bn.addvm w{k}, w{k}, w{4 + k}" for k in range(2)]
    b += [f"bn.sw.pi w{k}, 0(x23)" for k in range(2)]
    return out + _loop((32 - N_RACC) // 2, b)


def aw_phases(yh=YH, w=W, abuf=ABUF):
    """w = INTT(A_hat o y_hat) (y_hat at yh, 5 polys) -> w (6 polys). A_hat[i][j] is
    sampled entry by entry into two 1 KiB tiles: entry e + 1 into one while the core
    multiply-accumulates entry e from the other (the INTT of row i runs while A[i+1][0]
    is sampled). Words 0..7 of w_i accumulate in w8..w15 (4 cycles per word and entry
    instead of 6: no accumulator load / store), words 8..31 in DMEM. Two rows per loopi
    iteration (tile parity); the last one samples an unused A[6][0]."""
    tiles = (abuf, abuf + 1024)
    ph = [("init", VMODE1 + ["kmac.acq", "addi x21, x0, 0"] + _start_a(0, tiles[0]) +
           ["smp.wait"] + _li(22, w))]
    body = []
    for p in (0, 1):
        for j in range(L):
            e = 5 * p + j
            cur, nxt = tiles[e % 2], tiles[(e + 1) % 2]
            body += _start_a(j + 1 if j < L - 1 else 256, nxt) + _li(10, cur)
            if j == 0:
                body += _li(15, yh) + [f"addi x20, x22, {32 * N_RACC}"] + _mac_first()
            else:
                body += [f"addi x20, x22, {32 * N_RACC}", f"addi x23, x22, {32 * N_RACC}"] + \
                    _mac_acc()
            if j == L - 1:
                body += [f"bn.sw {r}, {32 * k}(x22)" for k, r in enumerate(R_ACC)]
                body += ["addi x8, x22, 0"] + intt_body(8, 8) + \
                    ["addi x22, x22, 1024", "addi x21, x21, 256"]
            body.append("smp.wait")
    ph.append(("6 rows x 5 entries: sample next entry | MAC (+ INTT)", _loop(K // 2, body)))
    ph.append(("release", ["kmac.rel"]))
    return ph


# ------------------------------------------------------------------ z
def z_phases(s1h=S1H, ch=CH, yh=YH):
    """z = INTT(c_hat o s1_hat + y_hat o 1) in place over y_hat (both products carry
    2^-32, removed by the INTT), x9 = 0 iff ||z||inf < gamma1 - beta."""
    ph = [("init", VMODE1 + [f"bn.lw w15, {_m(KA['zero'])}", "bn.wsrw ACC, w15"] +
           _li(10, s1h) + _li(11, yh) + _li(13, yh) + _li(8, yh))]
    b = []
    for k in range(4):
        b += [f"bn.lw.pi w{k}, 0(x12)", f"bn.lw.pi w{4 + k}, 0(x10)",
              f"bn.lw.pi w{8 + k}, 0(x11)"]
    b += [f"bn.mulvm w{k}, w{k}, w{4 + k}" for k in range(4)]
    b += [f"bn.mulvm w{8 + k}, w{8 + k}, w12" for k in range(4)]
    b += [f"bn.addvm w{k}, w{k}, w{8 + k}" for k in range(4)]
    b += [f"bn.sw.pi w{k}, 0(x13)" for k in range(4)]
    chk = ["bn.lw.pi w0, 0(x14)", "bn.lw.pi w5, 0(x14)", "bn.addvm w3, w0, w12",
           "bn.addvm w8, w5, w12", "bn.ltv w3, w3, w13", "bn.ltv w8, w8, w13",
           "bn.or.acc x9, w3, w14", "bn.or.acc x9, w8, w14"]
    poly = _li(12, ch) + [f"bn.lw w12, {_m(MC)}"] + _loop(8, b) + intt_body(8, 8) + \
        [f"bn.lw w12, {_m(KA['zb'])}", f"bn.lw w13, {_m(KA['z2b'])}",
         f"bn.lw w14, {_m(KA['ones'])}", "addi x14, x8, 0"] + _loop(16, chk) + \
        ["addi x8, x8, 1024"]
    ph.append(("5 x [c s1 + y (pw), INTT, ||z|| check]", _loop(L, poly)))
    return ph


# ------------------------------------------------------------------ c t0 + hint
def ct0_phases(ch=CH, t=T, w=W, t0p=T0P):
    """Per polynomial r: t0_r decoded from t0p + 416 r -> t, NTT, c t0_r = INTT(c_hat o
    t0_hat_r) in place, then mldsa_sign_parts' fused norm check / MakeHint / count /
    bitmap pass (v = w - c s2 at w) -> HB. x9 = FLAG word 0 = 0 iff the iteration passes."""
    ph = [("init", VMODE1 + [f"bn.lw w15, {_m(KA['zero'])}", "bn.wsrw ACC, w15",
                             f"bn.sw w15, {_m(CNT)}"] +
           _li(5, t0p) + _li(23, w) + _li(24, sp.HB))]
    prod = []
    for k in range(4):
        prod += [f"bn.lw.pi w{k}, 0(x12)", f"bn.lw.pi w{4 + k}, 0(x10)"]
    prod += [f"bn.mulvm w{8 + k}, w{k}, w{4 + k}" for k in range(4)]
    prod += [f"bn.sw.pi w{8 + k}, 0(x11)" for k in range(4)]
    tree = [f"bn.lw w{k}, {_m(t + 32 * k)}" for k in range(8)] + sp._or_tree() + \
        ["bn.sw.pi w0, 0(x24)"]
    body = [f"bn.lw w14, {_m(sp.XA['m13'])}", f"bn.lw w15, {_m(sp.XA['t0c'])}"] + \
        _li(6, t) + sp._dec_t0_poly_tr() + _li(8, t) + ntt_body(8, 8) + \
        _li(12, ch) + _li(10, t) + _li(11, t) + _loop(8, prod) + \
        _li(8, t) + intt_body(8, 8) + sp.hint_consts() + [f"bn.lw {sp.CNT_REG}, {_m(CNT)}"] + \
        _li(14, t) + _li(15, t) + ["addi x13, x23, 0"] + _loop(8, sp._hint_body()) + \
        ["addi x23, x13, 0", f"bn.sw {sp.CNT_REG}, {_m(CNT)}"] + tree
    ph.append(("6 x [t0 decode + NTT, c t0 (pw + INTT), norm + MakeHint + count, bitmap]",
               _loop(K, body)))
    fin = [f"bn.ext x{1 + k}, {sp.CNT_REG}, {k}" for k in range(8)]
    fin += [f"add x1, x1, x{2 + k}" for k in range(7)]
    fin += ["sltu x2, x0, x9", "sltiu x3, x1, 56", "xori x3, x3, 1", "slli x3, x3, 1",
            "or x9, x2, x3"] + _li(4, sp.FLAG) + ["sw x9, 0(x4)", "sw x1, 4(x4)"]
    ph.append(("hint count, flag", fin))
    return ph


# ------------------------------------------------------------------ the program
def _reject(tag):
    """Back to the start of the iteration unless x9 = 0 (jal: the loop is longer than a
    branch reaches)."""
    return [f"beq x9, x0, pass_{tag}", "jal x0, sign_iter", f"pass_{tag}:"]


def sign_phases():
    """[(name, lines)] of the whole program; the loop body starts at label sign_iter."""
    ph = pre_phases()
    it = mldsa.expand_mask_phases(y=YH, yh=YH)
    it[0] = (it[0][0], ["sign_iter:"] + it[0][1])
    ph += it
    ph.append(("kappa += l", [f"lw x1, {KAPPA}(x0)", f"addi x1, x1, {L}",
                              f"sw x1, {KAPPA}(x0)"]))
    ph += aw_phases()
    ph += mldsa.highbits_phases(w=W, w1e=W1E, ctil=CTIL)
    ph += mldsa.challenge_phases(ctil=CTIL, sib=SIB, ch=CH)
    ph.append(("release", ["kmac.rel"]))
    ph += z_phases()
    ph.append(("z rejected?", _reject("z")))
    ph += mldsa.r0_phases(s2h=S2H, ch=CH, w=W, t=T)
    ph.append(("r0 rejected?", _reject("r0")))
    ph += ct0_phases()
    ph.append(("c t0 / hint rejected?", _reject("ct0")))
    ph += sp.sig_encode_phases(ctil=CTIL, z=YH, sig=SIG)
    return ph


def sign_program() -> str:
    lines = []
    for _, body in sign_phases():
        lines += body
    # the phases' straight-line stretches list-scheduled across their seams too
    return "\n".join(sched.schedule(lines) + ["ecall"]) + "\n"
