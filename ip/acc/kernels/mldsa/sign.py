# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""ML-DSA-65 signing (FIPS 204 Alg. 7, ML-DSA.Sign_internal) as ONE ACC program: the phase
generators of sampling.py / products.py / rounding.py / packing.py on one DMEM layout in
32 KiB, the pre-loop
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
inside a check). The M' length check (STATUS) added 5 cycles to every signature and 28 B of
IMEM (21 456 B; measured on 20 signatures, `--n 20 --seed 2`: every count +5). The end
wipe (end_wipe: all of the 32 KiB DMEM but the signature, kappa and the status word, every
register; issue #24 item 5) adds 993 cycles to every signature (mldsa_preloaded: 122 147 ->
123 140) and 572 B of IMEM (22 028 B); the length refusal wipes too.

Inputs placed by the host: the secret key (4032 B) at SK, M' (the formatted message, as
dilithium-py's _sign_internal takes it; at most MSG_MAX bytes) at MSG, its length in bytes
(32-bit word) at MLEN, rnd (32 B) at RND, and the constants of const_image() (a length
beyond MSG_MAX is refused: STATUS_MSG_LENGTH, nothing hashed or signed; image() raises; a signature ends with
STATUS_OK = 0x600D, so a program that never ran never reads as signed). Everything
else is computed by the program: mu = H(tr || M', 64) and rho'' = H(K || rnd || mu, 64) on
the KMAC (SHAKE256 with a declared length; the message tail by the kmac.msg byte mask), rho
copied out of the key, kappa = 0.

Program (all VMODE 1; each phase from the module named):

    pre-loop   mu, rho'' (here); skDecode s1, s2 + NTT -> S1H, S2H (packing; t0 stays
               packed at T0P)
    loop:      y = ExpandMask(rho'', kappa) -> YH, NTT in place (sampling; y is not
                   kept); kappa += 5
               w = INTT(A_hat o y_hat) -> W, A_hat[i][j] sampled per entry into one of two
                   1 KiB tiles while the core multiply-accumulates the other one
                   (products.aw_tile_phases)
               HighBits, w1Encode, c_tilde -> CTIL (rounding), SampleInBall, c_hat -> CH
                   (sampling)
               z = INTT(c_hat o s1_hat + y_hat o 1) over YH (the Montgomery product with 1
                   carries the same 2^-32 as c_hat o s1_hat; the INTT removes it: z = y + c s1
                   without keeping y), ||z|| check (rounding.z_sum_phases); fail -> loop
               w - c s2 over W, ||r0|| check (rounding.r0_phases); fail -> loop
               per polynomial: t0_r decoded from T0P + NTT, c t0_r, ||c t0||, MakeHint, count
                   -> HB bitmaps, FLAG (rounding.ct0_hint_t0_phases); fail -> loop
    sigEncode  z packed first, over z itself (SIG = YH + 16), then c_tilde and the hint
               (packing)

DMEM layout (bytes; peak = END = 31 776 of 32 768):

| region | address | bytes | lifetime |
|---|---|---|---|
| RHO, RHOPP, MU, KAPPA, RND, MLEN, STATUS | 0..256 | 256 | whole run |
| TWID, ITWID, KC constants (layout) | 256..2848 | 2592 | whole run |
| CTIL (c_tilde) | 2848 | 64 | iteration -> sigEncode |
| MC (constant 1 word), CNT (hint count save) | 2912 | 64 | |
| free | 2976 | 736 | |
| S1H s1_hat | 3712 | 5120 | whole loop |
| S2H s2_hat | 8832 | 6144 | whole loop |
| YH y_hat -> z -> signature (SIG = YH + 16, 3309 B) | 14976 | 5120 | iteration; M' (input, <= 7168 B with ABUF) before the loop |
| ABUF: A tiles 2 x 1 KiB (aw); then CH c_hat (ABUF) + W1E/SIB (ABUF + 1024, challenge), then CH + T (ABUF + 1024, c s2 / c t0 scratch) | 20096 | 2048 | iteration |
| W w, then w - c s2 | 22144 | 6144 | iteration; holds SK's rho/K/tr/s1/s2 (input) before the loop |
| T0P t0 packed (SK + 1536: the key's own t0 bytes) | 28288 | 2496 | whole run |
| XC constants, DBT, HB bitmaps, FLAG, CNTS, HW (layout) | 30784..31776 | 992 | whole run |

SK = T0P - 1536 = 26752: the host writes the whole key there; rho, K, tr, s1, s2 lie in W
(dead before the loop), t0 at T0P.
"""
from ip.acc.block import LARGE_DMEM_SIZE
from ip.acc.kernels.asm_util import li as _li, mem as _m, u32 as _u32, wipe_all_but
from ip.acc.kernels.mldsa import layout, packing, products, rounding, sampling
from ip.acc.kernels.mldsa.layout import KAPPA, VMODE1
from ip.acc.kernels.mldsa.params import K, L
from ip.acc.kernels.sample import SHAKE256
from ip.acc.tools import sched

# ------------------------------------------------------------------ DMEM layout (bytes)
RHO, RHOPP, MU = layout.RHO, layout.RHOPP, layout.MU
RND = 192                    # rnd (32 B), input
MLEN = 224                   # len(M') in bytes (word), input
STATUS = 228                 # word: STATUS_NAMES (0 until the program ends)
# The status word's values (one source: the API, the firmware header and the tests read
# them here). OK is non-zero so that a program that never ran, or stopped early, never
# reads as a signature.
STATUS_NOT_RUN, STATUS_MSG_LENGTH, STATUS_OK = 0, 1, 0x600D
STATUS_NAMES = {STATUS_NOT_RUN: "not run (the program did not end)",
                STATUS_MSG_LENGTH: "M' longer than the program's buffer (MSG_MAX): nothing signed",
                STATUS_OK: "ok"}
CTIL = layout.KC + 32 * len(layout.CONST_NAMES)
MC = CTIL + 64               # constant word: 1 in every lane
CNT = MC + 32                # hint-count lanes (rounding.CNT_REG) saved across decode / NTTs
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
SIG_LEN = layout.SIG_LEN
END = layout.XEND            # peak DMEM
DMEM = LARGE_DMEM_SIZE       # the memories this program runs in (the end wipe covers all)

assert CNT + 32 <= S1H and T0P + K * 416 <= layout.XC and SK >= W and SK % 32 == 0
assert all(a % 32 == 0 for a in (S1H, S2H, YH, ABUF, W, T0P, CTIL, MC, RND))


def const_image() -> dict:
    img = layout.const_image()
    img[MC] = _u32([1] * 8)
    return img


def check_inputs(sk: bytes, msg: bytes, rnd: bytes, msg_max: int) -> None:
    """ValueError naming the input a signing program cannot take: sk or rnd of a wrong
    length, M' longer than the program's buffer (msg_max bytes)."""
    if len(sk) != SK_LEN or len(rnd) != 32:
        raise ValueError(f"ML-DSA-65 sign: sk must be {SK_LEN} bytes and rnd 32, got "
                         f"{len(sk)} and {len(rnd)}")
    if len(msg) > msg_max:
        raise ValueError(f"ML-DSA-65 sign: M' of {len(msg)} bytes exceeds the program's "
                         f"buffer ({msg_max} bytes); hash it outside (external mu) or split")


def image(sk: bytes, msg: bytes, rnd: bytes) -> dict:
    """DMEM image {address: bytes}: constants and the inputs (M' = msg as given to
    dilithium-py's _sign_internal)."""
    check_inputs(sk, msg, rnd, MSG_MAX)
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
    ph = [("status = 0", [f"sw x0, {STATUS}(x0)"])]
    ph += hash_phases(SK, MSG, head=length_check(MSG_MAX, DMEM))
    ph += packing.keydec_phases(s1h=S1H, s2h=S2H, t0h=None, sk=SK, t0=False)
    return ph


def length_check(msg_max, dmem):
    """After x4 = len(M') (public; the KMAC held): a length beyond the M' buffer is
    refused: STATUS_MSG_LENGTH, the KMAC released, all of DMEM (dmem bytes) but the status word and
    every register zeroed (the key the host placed does not outlive the refusal), and the
    program stops (no byte past the buffer is hashed)."""
    return _li(5, msg_max) + ["bgeu x5, x4, len_ok", f"addi x5, x0, {STATUS_MSG_LENGTH}",
                              f"sw x5, {STATUS}(x0)", "kmac.rel"] + \
        wipe_all_but([(STATUS, STATUS + 4)], dmem) + ["ecall", "len_ok:"]


def end_wipe(sig, dmem):
    """The end of a signing program (the KMAC already released): all of DMEM (dmem bytes)
    zeroed but the signature at sig (with the 3 bytes after it, which the hint packing
    writes as zeros: the keep ranges are 4-byte aligned), kappa (the host reads the
    iteration count) and the status word, set to STATUS_OK first; then every register
    (asm_util.wipe_all_but)."""
    end = sig + SIG_LEN + 3
    assert end % 4 == 0
    return _li(5, STATUS_OK) + [f"sw x5, {STATUS}(x0)"] + wipe_all_but([(sig, end), (KAPPA, KAPPA + 4), (STATUS, STATUS + 4)], dmem)


def hash_phases(sk, msg, head=()):
    """mu = SHAKE256(tr || M', 64), rho'' = SHAKE256(K || rnd || mu, 64), rho -> RHO,
    kappa = 0 (the key at sk, M' at msg, its length at MLEN, rnd at RND); head: lines run
    after x4 = len(M') is loaded (e.g. a length check)."""
    SK, MSG = sk, msg
    L_ = VMODE1 + ["kmac.acq", f"lw x4, {MLEN}(x0)"] + list(head) + [
                   f"addi x1, x0, {SHAKE256}",
                   "addi x2, x4, 64", "kmac.start x1, x2", "addi x3, x0, -1",
                   f"bn.lw w1, {_m(SK + 64)}", f"bn.lw w2, {_m(SK + 96)}",
                   "kmac.msg w1, x3", "kmac.msg w2, x3",
                   "srli x5, x4, 5", "andi x6, x4, 31"] + _li(7, MSG)
    L_ += ["mu_msg:", "beq x5, x0, mu_tail", "loop x5, 2", "bn.lw.pi w1, 0(x7)", "kmac.msg w1, x3",
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
    return ph


# ------------------------------------------------------------------ the program
def _reject(tag):
    """Back to the start of the iteration unless x9 = 0 (jal: the loop is longer than a
    branch reaches)."""
    return [f"beq x9, x0, pass_{tag}", "jal x0, sign_iter", f"pass_{tag}:"]


def sign_phases():
    """[(name, lines)] of the whole program; the loop body starts at label sign_iter."""
    ph = pre_phases()
    it = sampling.expand_mask_phases(y=YH, yh=YH)
    it[0] = (it[0][0], ["sign_iter:"] + it[0][1])
    ph += it
    ph.append(("kappa += l", [f"lw x1, {KAPPA}(x0)", f"addi x1, x1, {L}",
                              f"sw x1, {KAPPA}(x0)"]))
    ph += products.aw_tile_phases(yh=YH, w=W, abuf=ABUF)
    ph += rounding.highbits_phases(w=W, w1e=W1E, ctil=CTIL)
    ph += sampling.challenge_phases(ctil=CTIL, sib=SIB, ch=CH)
    ph.append(("release", ["kmac.rel"]))
    ph += rounding.z_sum_phases(s1h=S1H, ch=CH, yh=YH, one=MC)
    ph.append(("z rejected?", _reject("z")))
    ph += rounding.r0_phases(s2h=S2H, ch=CH, w=W, t=T)
    ph.append(("r0 rejected?", _reject("r0")))
    ph += rounding.ct0_hint_t0_phases(ch=CH, t=T, w=W, t0p=T0P, cnt=CNT)
    ph.append(("c t0 / hint rejected?", _reject("ct0")))
    ph += packing.sig_encode_phases(ctil=CTIL, z=YH, sig=SIG)
    ph.append(("wipe: DMEM but the signature, kappa, status; every register",
               end_wipe(SIG, DMEM)))
    return ph


def sign_program() -> str:
    lines = []
    for _, body in sign_phases():
        lines += body
    # the phases' straight-line stretches list-scheduled across their seams too
    return "\n".join(sched.schedule(lines) + ["ecall"]) + "\n"


def ct_policy() -> dict:
    """What the constant-time check (ip/acc/tools/constant_time.py) takes as secret at entry,
    and the timing exceptions FIPS 204 signing needs (issue #24 item 8): see sign_policy."""
    sk_s = SK + 128 + (L + K) * 128
    return sign_policy(SK, (SK + 128, sk_s), (sk_s, sk_s + K * 416), MSG, MSG_MAX, MLEN, CH, SIB,
                       const_image(), ctil=(CTIL, CTIL + 64), hb=(layout.HB, layout.HB + 32 * K),
                       dbt=layout.DBT, accept="pass_ct0")


def sign_policy(sk, s12, t0, msg, msg_max, mlen, ch, sib, consts, ctil, hb, dbt,
                accept) -> dict:
    """The constant-time policy of a signing program on its layout (s12, t0: the DMEM ranges
    of the key's packed s1|s2 and t0; the key's head rho | K | tr at sk, rnd at RND; ctil:
    c_tilde's 64 bytes; hb: the hint bitmaps; dbt: HintBitPack's de Bruijn table; accept:
    the label after the last rejection check): K, s1, s2, t0 and rnd secret; rho, tr, M',
    its length and the constants public; other DMEM bytes secret.
    Declared exception: the rejection loop's iteration count (the three branches that accept
    an iteration). Declassified, as mldsa-native does, on the Dilithium round-3
    specification's argument (section 5.5):
    * c_tilde = H(mu || w1Encode(w1)), released where it is stored: an output of H (a random
      oracle) that the accepted iteration publishes in sigma; a rejected iteration's tells
      nothing about the key. SampleInBall's rejection count and its c[j] accesses follow
      from it, so they are public (this covers item 8's SampleInBall exception).
    * the hint bitmaps at `accept`, where the last rejection check has passed: from there on
      they are the published signature's h (HintBitPack branches on them)."""
    public = {"sk.rho": (sk, sk + 32), "sk.tr": (sk + 64, sk + 128), "M'": (msg, msg + msg_max),
              "len(M')": (mlen, mlen + 4)}
    for addr, blob in sorted(consts.items()):
        public[f"constants@{addr}"] = (addr, addr + len(blob))
    secret = {"sk.K": (sk + 32, sk + 64), "sk.s1|s2": s12, "sk.t0": t0, "rnd": (RND, RND + 32)}
    rej = "rejection-loop iteration count (FIPS 204 Alg. 7 rejection sampling; issue #24 item 8)"
    allow = [{"kind": "branch", "target": t, "reason": rej}
             for t in ("pass_z", "pass_r0", "pass_ct0")]
    release = [{"dmem": ctil, "reason": "c_tilde = H(mu || w1Encode(w1)): a random-oracle output, "
                                        "published for the accepted iteration (round-3 spec 5.5)"}]
    declassify = [{"at": accept, "dmem": hb,
                   "reason": "every check passed: the hint bitmaps are the signature's h"}]
    # pointer ranges the analysis cannot derive (it tracks constants, not ranges): the
    # message loop's pointer, SampleInBall's digest pointer (x14) and c[j] / c[i] (x16 / x18:
    # CH + 4 j, j < 256)
    bounds = [{"within": ("sib_loop", "sib_done"), "base": ("x14",), "dmem": (sib, sib + 256),
               "reason": "SampleInBall reads its candidate bytes from the digest words at SIB"},
              {"within": ("sib_loop", "sib_done"), "base": ("x16", "x18"), "dmem": (ch, ch + 1024),
               "reason": "SampleInBall reads and writes c at CH (index < 256)"},
              {"within": ("hp_poly", "hp_next"), "base": ("x22",), "dmem": hb,
               "reason": "HintBitPack reads the bitmaps' words in order"},
              {"within": ("hp_poly", "hp_next"), "base": ("x27",), "dmem": (dbt, dbt + 128),
               "reason": "HintBitPack's index lookup stays in its 32-word table"},
              {"within": ("mu_msg", "mu_dig"), "dmem": (msg, msg + msg_max),
               "reason": "mu = H(tr || M') reads M' only (len(M') <= MSG_MAX, checked by the "
                         "program)"}]
    return {"secret": secret, "public": public, "rest": "secret", "allow": allow,
            "bounds": bounds, "release": release, "declassify": declassify}
