# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""DMEM layout and constant words of the ML-DSA-65 signing programs (VMODE 1: a polynomial
is 32 words of 8 x 32-bit lanes, word r = coefficients 8r..8r+7, natural order, values in
[0, q)), and the NTT bound to its twiddle tables.

Two kinds of regions:
* shared by every program, the one-program signer (sign.py) included: the seeds and
  nonce (RHO, RHOPP, MU, KAPPA), the twiddle tables (TWID, ITWID), the constant words of
  the sampling / rounding / packing pieces (KC / KA, XC / XA, the de Bruijn table DBT), and
  the hint area (HB bitmaps, FLAG, CNTS, HW);
* the layout of the standalone phase programs (peak END; Y, YH, W, ABUF, W1E, SIB, CTIL,
  CH, SH, ZO, and the keydec / ct0 + hint / sigEncode buffers S1H .. SIG): the generators'
  default addresses, on which each phase is tested alone against dilithium-py
  (ip/acc/tests/test_mldsa_program.py, test_mldsa_sign_parts.py). sign.py passes its own.
"""
from ip.acc.kernels.asm_util import mem as _m, u32 as _u32
from ip.acc.kernels.mldsa import ntt
from ip.acc.kernels.mldsa.params import BETA, ETA, FULL, GAMMA1, GAMMA2, K, L, OMEGA, Q

VMODE1 = ["lui x30, 4", "addi x31, x0, 1", "csrrw x0, VMODE, x31"]

# ------------------------------------------------------------------ DMEM layout (bytes)
RHO = 0                      # 32 B
RHOPP = 32                   # rho'' (64 B)
MU = 96                      # 64 B
KAPPA = 160                  # 16-bit nonce (word; the program reads it with lw)
TWID = 256                   # 32 words NTT twiddles
ITWID = TWID + 1024          # 33 words INTT twiddles (mont=True)
KC = ITWID + 33 * 32         # constant words (see CONST_NAMES)
CONST_NAMES = ["m20", "g1", "c127", "c1025", "c2p21", "sh4", "c15", "ones",
               "zb", "z2b", "rb", "r2b", "alpha", "zero"]
KA = {n: KC + 32 * i for i, n in enumerate(CONST_NAMES)}
Y = 3072                     # y: 5 polys (plain, kept for z)
YH = Y + 5 * 1024            # y_hat: 5 polys; also c_hat * s products (scratch)
W = YH + 5 * 1024            # w: 6 polys
ABUF = W + 6 * 1024          # 2 row buffers of 5 polys (A_hat rows); reused as s1_hat etc.
W1E = ABUF + 10 * 1024       # w1Encode(w1): 768 B
SIB = W1E + 768              # SampleInBall: 8 digest words of SHAKE256(c_tilde)
CTIL = SIB + 256             # c_tilde (48 B, 2 words)
END = CTIL + 64              # peak DMEM (bytes) of the phase programs
# z / r0 programs (after the A rows are dead): inputs at ABUF
CH = ABUF                    # c_hat (1 poly)
SH = ABUF + 1024             # s1_hat (5) or s2_hat (6)
ZO = Y                       # z written over y (z_program) -- y is dead once z passes
# keydec (pre-loop): the key at SK, placed by the host
S1H = Y                      # s1_hat: 5 polys
S2H = S1H + 5 * 1024         # s2_hat: 6 polys
T0H = S2H + 6 * 1024         # t0_hat: 6 polys
SK = T0H + 6 * 1024          # secret key (4032 B), placed by the host
SK_S1 = SK + 128             # s1 (5 x 128 B) | s2 (6 x 128 B) | t0 (6 x 416 B)
SK_LEN = 128 + 11 * 128 + K * 416
assert SK + SK_LEN <= W1E
# ct0 + hint
T = YH                       # c t0[r] scratch (1 poly)
# sigEncode output
SIG = YH + 16                # 3309 B (+ 3 zero bytes)
SIG_LEN = 48 + L * 640 + OMEGA + K
SIG_Z = SIG + 48
SIG_H = SIG_Z + L * 640
assert SIG_Z % 32 == 0 and SIG_H % 32 == 0 and SIG_H + 64 <= W
# past END
XC = END                     # constant words (_XC_NAMES), then the de Bruijn table
_XC_NAMES = ["sh4e", "eta", "m13", "t0c", "g2m1", "g2x2m1", "hbit0", "deb", "bsh", "hbm",
             "c28m1"]


def x_area(xc: int, k: int = K, hw_words: int = 64) -> dict:
    """The addresses of the area that starts with the XC constant words at xc (a program
    may place it elsewhere, e.g. sign16.py inside 16 KiB): XA (name -> word), DBT (32
    words: de Bruijn index table), HB (k hint bitmaps, 32 B each), FLAG (word 0: flag,
    0 = pass; word 1: hint count), CNTS (the hint count lanes, saved across the INTT), HW
    (hw_words words, a multiple of 8 >= omega + k: hint bytes, one per word), XEND (its
    end)."""
    xa = {n: xc + 32 * i for i, n in enumerate(_XC_NAMES)}
    dbt = xc + 32 * len(_XC_NAMES)
    hb = dbt + 128
    flag = hb + k * 32
    cnts = flag + 32
    hw = cnts + 32
    return {"XA": xa, "DBT": dbt, "HB": hb, "FLAG": flag, "CNTS": cnts, "HW": hw,
            "XEND": hw + 4 * hw_words}


_XAREA = x_area(XC)
XA, DBT, HB, FLAG = _XAREA["XA"], _XAREA["DBT"], _XAREA["HB"], _XAREA["FLAG"]
CNTS, HW, XEND = _XAREA["CNTS"], _XAREA["HW"], _XAREA["XEND"]
assert XEND <= 32 * 1024

DEBRUIJN = 0x077CB531
# HighBits(r) = floor((r + gamma2 - 1) / (2 gamma2)) (16 -> 0) = bits 11.. of
# mulv.hi(r + gamma2 - 1, HB_M), exact for every r in [0, q) (checked in the tests)
def hb_mult(gamma2: int) -> int:
    """ceil(2^43 / (2 gamma2)): HighBits(r) = bits 11.. of mulv.hi(r + gamma2 - 1, it)."""
    return -(-(1 << 43) // (2 * gamma2))


HB_M = hb_mult(GAMMA2)


def _const_words(gamma1=GAMMA1, gamma2=GAMMA2, beta=BETA):
    """name -> the 32 bytes of that constant word (at KC), of a set (default ML-DSA-65's;
    m20 is the z field mask, 2^bitlen(gamma1) - 1: 20 or 18 bits)."""
    GAMMA1, GAMMA2, BETA = gamma1, gamma2, beta
    c = {}
    c["m20"] = _u32([(1 << GAMMA1.bit_length()) - 1] * 8)
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


def _xc_words(eta=ETA, gamma2=GAMMA2):
    """name -> the 32 bytes of that constant word (past END), of a set (default
    ML-DSA-65's)."""
    ETA, GAMMA2 = eta, gamma2
    HB_M = hb_mult(gamma2)
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


def const_image(xc: bool = True, xc_at: int = XC, param: int = 65) -> dict:
    """{address: bytes}: the twiddle tables, the constant words at KC and (xc) those of the
    XC area with the de Bruijn table, at xc_at; the set's values (param: 44 or 65; the
    words the ML-DSA-65-only pieces use keep their values)."""
    P = FULL[param]
    img = {TWID: b"".join(_u32(w) for w in ntt.twiddle_words()),
           ITWID: b"".join(_u32(w) for w in ntt.itwiddle_words(mont=True))}
    cw = _const_words(P["gamma1"], P["gamma2"], P["beta"])
    img[KC] = b"".join(cw[n] for n in CONST_NAMES)
    if xc:
        cw = _xc_words(P["eta"], P["gamma2"])
        img[xc_at] = b"".join(cw[n] for n in _XC_NAMES) + _u32(_debruijn_table())
    return img


def poly_bytes(coeffs) -> bytes:
    return _u32([c % Q for c in coeffs])


def read_poly(blob: bytes) -> list:
    return [int.from_bytes(blob[4 * k:4 * k + 4], "little") for k in range(256)]


# calls of the NTT / INTT in place at x8 as subroutines (labels ntt_x8, intt_x8: fwd_ntt(8,
# 8), inv_ntt(8, 8), each followed by jalr x0, 0(x28))
NTT_X8, INTT_X8 = ["jal x28, ntt_x8"], ["jal x28, intt_x8"]


def fwd_ntt(s, d):
    """mldsa.ntt's forward NTT on this layout's twiddles: polynomial at x{s} -> NTT at x{d}
    (may be equal)."""
    return ntt.ntt_body(f"x{s}", f"x{d}", _m, 0, TWID)


def inv_ntt(s, d):
    """mldsa.ntt's inverse (twiddles at ITWID, mont=True: also removes 2^-32): polynomial
    at x{s} -> x{d}."""
    return ntt.intt_body(f"x{s}", f"x{d}", _m, 0, ITWID)
