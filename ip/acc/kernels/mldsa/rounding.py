# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""ML-DSA-65 rounding and rejection checks on the ACC (VMODE 1, gamma2 = (q-1)/32):
HighBits + w1Encode + the c_tilde hash, the norm checks of z, of LowBits(w - c s2) and of
c t0, and MakeHint with the hint count; each with the product + INTT that feeds it.

    src = highbits_program()    # w1 = HighBits(w), w1Encode(w1) -> W1E (768 B),
                                # c_tilde = H(mu || w1Encode(w1)) -> CTIL
    src = z_program()           # z = y + INTT(c_hat o s1_hat), ||z|| check (ACC)
    src = r0_program()          # w - c s2 (kept), ||LowBits(w - c s2)|| check
    src = ct0_hint_program()    # c t0 = INTT(c_hat o t0_hat), ||c t0|| < gamma2,
                                # MakeHint(-c t0, w - c s2 + c t0), count <= omega -> HB, FLAG

Standalone on the phase-program layout (layout.py), each checked on the ISS against
dilithium-py's intermediates (ip/acc/tests/test_mldsa_program.py,
test_mldsa_sign_parts.py); `z_sum_phases` and `ct0_hint_t0_phases` are the versions of the
one-program signer (sign.py), which passes its addresses.

Design:
* HighBits: r1 = (((r + 127) >> 7) * 1025 + 2^21) >> 22 (& 15 not needed, r < q);
  w1Encode: r1 << 4 lane (bn.mulv.lo by 16^lane) and a 3-level unzip.lo / unzip.hi / or
  tree per 8 words -> one word (lane k = coefficients 8k..8k+7).
* Norm checks: |x| < B  <=>  (x + B - 1) mod q < 2B - 1: bn.addvm, bn.ltv, bn.or.acc
  against all-ones; x9 (= popcount of non-zero ACC lanes) is 0 iff every coefficient
  passes. They always run over all coefficients (no early exit inside a check).
* MakeHint: h = HighBits(v + c t0) != HighBits(v) with v = w - c s2 (FIPS 204 Alg. 39 with
  r = v + c t0, z = -c t0). HighBits(r) = floor((r + gamma2 - 1) / alpha) (mod 16 for
  the q - 1 wrap) is bits 11..14 of mulv.hi(r + gamma2 - 1, ceil(2^43 / alpha)) (exact on
  [0, q), layout.HB_M), so h = ((x_u xor x_v) << 17) > 2^28 - 1: 7 vector ops for both
  HighBits and the compare, against 12 with r0_phases' formula. The masks (all-ones where
  h = 1) are summed in w15 (bn.subv) and ANDed with 2^(8 s + lane) for word 4t + s, ORed
  per 4 words and reduced by the 3-level unzip tree of w1Encode to the bitmap.
"""
import re

from ip.acc.kernels.asm_util import li as _li, loop as _loop, mem as _m, phase_program
from ip.acc.kernels.mldsa.layout import (CH, CNTS, CTIL, FLAG, HB, KA, MU, SH, T, VMODE1, W,
                                         W1E, XA, XC, Y, YH, ZO, fwd_ntt, inv_ntt,
                                         x_area)
from ip.acc.kernels.mldsa.packing import dec_t0_poly, or_tree, pack_fields
from ip.acc.kernels.mldsa.params import K, L, OMEGA
from ip.acc.kernels.mldsa.products import cs_prod
from ip.acc.kernels.prog import Prog
from ip.acc.kernels.sample import SHAKE256


# ------------------------------------------------------------------ HighBits + w1Encode
def highbits_consts():
    """The constants highbits_word expects in w11..w15."""
    return [f"bn.lw w{11 + k}, {_m(KA[n])}" for k, n in
            enumerate(["c127", "c1025", "c2p21", "sh4", "c15"])]


def highbits_word():
    """8 words of w at x5 (post-incremented) -> their w1Encode word in w0 (gamma2 =
    (q-1)/32; highbits_consts in w11..w15; w8, w9 tree temps)."""
    body = [f"bn.lw.pi w{k}, 0(x5)" for k in range(8)]
    # in place in w0..w7; constants in w11..w15; w8, w9 tree temps; w10 the word absorbed
    body += [f"bn.addv w{k}, w{k}, w11" for k in range(8)]
    body += [f"bn.shrv w{k}, w{k}, 7" for k in range(8)]
    body += [f"bn.mulv.lo w{k}, w{k}, w12" for k in range(8)]
    body += [f"bn.addv w{k}, w{k}, w13" for k in range(8)]
    body += [f"bn.shrv w{k}, w{k}, 22" for k in range(8)]
    body += [f"bn.and w{k}, w{k}, w15" for k in range(8)]
    body += [f"bn.mulv.lo w{k}, w{k}, w14" for k in range(8)]
    return body + or_tree()


def highbits_phases(hash=True, w=W, w1e=W1E, ctil=CTIL):
    """w1 = HighBits(w) (gamma2 = (q-1)/32) for the 6 polys at W, w1Encode -> W1E.
    hash: c_tilde = H(mu || w1Encode(w1), 48) on the KMAC, each w1Encode word absorbed as
    it is produced (the permutations run in the shadow of the HighBits loop) -> CTIL."""
    pre = VMODE1 + [f"bn.lw w{11 + k}, {_m(KA[n])}" for k, n in
                    enumerate(["c127", "c1025", "c2p21", "sh4", "c15"])]
    pre += _li(5, w) + _li(6, w1e)
    body = highbits_word()
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


def highbits_pack_phases(w, w1e, ctil, k, m, xa):
    """w1 = HighBits(w) for any gamma2 (m = (q - 1) / alpha; 44 for ML-DSA-44: 6-bit w1)
    for the k polys at w, w1Encode (packing.pack_fields) -> w1e (k x 32 bitlen(m - 1)
    bytes), then c_tilde = H(mu || w1Encode(w1)) (64 B squeezed; the set keeps its
    lambda / 4) -> ctil; the KMAC port acquired (and held). HighBits: t = bits 11.. of
    mulv.hi(r + gamma2 - 1, HB_M) (xa: the XC words), in [0, m], t = m (the q - 1 wrap)
    -> 0."""
    bits = (m - 1).bit_length()

    def load(p, r, dst):
        u, t, g = f"%hu{r}", f"%ht{r}", f"%hg{r}"
        p.raw(f"bn.lw {{0}}, {32 * r}({{1}})", [u], ["x5"])
        p.op("bn.addv", u, u, "w10")
        p.op("bn.mulv.hi", t, u, "w11")
        p.op("bn.shrv", t, t, "11")
        p.op("bn.ltv", g, "w12", t)
        p.op("bn.and", g, g, t)
        p.op("bn.xor", dst, t, g)
    pre = VMODE1 + [f"bn.lw w10, {_m(xa['g2m1'])}", f"bn.lw w11, {_m(xa['hbm'])}"] + \
        _bcast("w12", m - 1) + _li(5, w) + _li(6, w1e)
    body = pack_fields(load, [(bits, None, "x6")], pool=10) + \
        ["addi x5, x5, 1024", f"addi x6, x6, {32 * bits}"]
    hs = ["kmac.acq", f"addi x1, x0, {SHAKE256}"] + _li(2, 64 + 32 * bits * k) + \
        ["kmac.start x1, x2", "addi x3, x0, -1", f"bn.lw w1, {_m(MU)}",
         f"bn.lw w2, {_m(MU + 32)}", "kmac.msg w1, x3", "kmac.msg w2, x3"] + _li(7, w1e) + \
        _loop(bits * k, ["bn.lw.pi w1, 0(x7)", "kmac.msg w1, x3"]) + \
        ["kmac.dig w1", "kmac.dig w2", f"bn.sw w1, {_m(ctil)}", f"bn.sw w2, {_m(ctil + 32)}"]
    return [(f"{k} x [HighBits + w1Encode ({bits} bit)]", pre + _loop(k, body)),
            ("c_tilde = H(mu || w1Encode(w1))", hs)]


def highbits_program() -> str:
    return phase_program(highbits_phases())


# ------------------------------------------------------------------ z and r0 checks
def z_phases():
    """c_hat at CH, s1_hat at SH (5 polys), y at Y: z = y + INTT(c_hat o s1_hat) -> ZO,
    x9 = 0 iff ||z||inf < gamma1 - beta (add and check fused, 2 words per iteration)."""
    ph = [("init", VMODE1 + [f"bn.lw w15, {_m(KA['zero'])}", "bn.wsrw ACC, w15"])]
    ph.append(("c s1: 5 pointwise + 5 INTT", cs_prod(5, YH)))
    ph.append(("z = y + c s1, ||z|| check",
               z_add_check(L * 32, _li(10, Y) + _li(11, YH) + _li(12, ZO))))
    return ph


def z_add_check(words, head=()):
    """z = y (x10) + c s1 (x11) -> x12 (all post-incremented; head: lines run after the
    constant loads, e.g. the pointers), `words` words (even), and
    ||z||inf < gamma1 - beta into ACC / x9 (add and check fused, 2 words per iteration);
    w12..w14 constants, w0..w8 temporaries."""
    b = ["bn.lw.pi w0, 0(x10)", "bn.lw.pi w1, 0(x11)", "bn.lw.pi w5, 0(x10)",
         "bn.lw.pi w6, 0(x11)", "bn.addvm w2, w0, w1", "bn.addvm w3, w2, w12",
         "bn.addvm w7, w5, w6", "bn.sw.pi w2, 0(x12)", "bn.addvm w8, w7, w12",
         "bn.ltv w3, w3, w13", "bn.sw.pi w7, 0(x12)", "bn.ltv w8, w8, w13",
         "bn.or.acc x9, w3, w14", "bn.or.acc x9, w8, w14"]
    return [f"bn.lw w12, {_m(KA['zb'])}", f"bn.lw w13, {_m(KA['z2b'])}",
            f"bn.lw w14, {_m(KA['ones'])}"] + list(head) + _loop(words // 2, b)


def z_program() -> str:
    return phase_program(z_phases())


def z_sum_phases(s1h, ch, yh, one):
    """z = INTT(c_hat o s1_hat + y_hat o 1) in place over y_hat (both products carry
    2^-32, removed by the INTT; so y need not be kept), x9 = 0 iff ||z||inf < gamma1 -
    beta. one: a constant word of 1 in every lane."""
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
    poly = _li(12, ch) + [f"bn.lw w12, {_m(one)}"] + _loop(8, b) + inv_ntt(8, 8) + \
        [f"bn.lw w12, {_m(KA['zb'])}", f"bn.lw w13, {_m(KA['z2b'])}",
         f"bn.lw w14, {_m(KA['ones'])}", "addi x14, x8, 0"] + _loop(16, chk) + \
        ["addi x8, x8, 1024"]
    ph.append(("5 x [c s1 + y (pw), INTT, ||z|| check]", _loop(L, poly)))
    return ph


def r0_phases(s2h=SH, ch=CH, w=W, t=YH):
    """c_hat at CH, s2_hat at SH (6 polys), w at W: w - c s2 -> W (in place, kept for the
    hint), x9 = 0 iff ||LowBits(w - c s2)||inf < gamma2 - beta. One poly at a time:
    c_hat o s2_hat[r] -> T (= YH), INTT, then a fused loop subtract / HighBits /
    r0 = x - r1 alpha / bound check."""
    T = t
    ph = [("init", VMODE1 + [f"bn.lw w15, {_m(KA['zero'])}", "bn.wsrw ACC, w15"] + _li(10, s2h))]
    L = _li(12, ch) + _li(11, T)
    b = []
    for k in range(4):
        b += [f"bn.lw.pi w{k}, 0(x12)", f"bn.lw.pi w{4 + k}, 0(x10)"]
    b += [f"bn.mulvm w{8 + k}, w{k}, w{4 + k}" for k in range(4)]
    b += [f"bn.sw.pi w{8 + k}, 0(x11)" for k in range(4)]
    L += _loop(8, b) + _li(8, T) + inv_ntt(8, 8) + r0_check(_li(14, T))
    ph.append(("6 x [c s2[r] (pw + INTT) + r0 check]",
               _li(13, w) + _li(15, w) + _loop(K, L)))
    return ph


def r0_check(head=(), m=16, xa=XA, subtract=True):
    """One polynomial: v = w (x13) - c s2 (x14) -> x15 (kept for the hint; pointers
    post-incremented; head: lines run after the constant loads), ||LowBits(v)||inf < gamma2 - beta into ACC / x9 (subtract /
    HighBits / r0 = v - r1 alpha / bound check fused); w0..w15. m = (q - 1) / alpha: 16
    (ML-DSA-65, the constants' formula), else (44, ML-DSA-44) HighBits as the hint's
    (mulv.hi by HB_M, xa: the XC words) with the q - 1 wrap m -> 0."""
    if m != 16:
        return _r0_check_hbm(head, m, xa)
    consts = [f"bn.lw w{8 + k}, {_m(KA[n])}" for k, n in
              enumerate(["rb", "r2b", "ones", "c127", "c1025", "c2p21", "alpha", "c15"])]
    chk = ["bn.lw.pi w0, 0(x13)", "bn.lw.pi w1, 0(x14)", "bn.subvm w2, w0, w1",
           "bn.addv w3, w2, w11", "bn.sw.pi w2, 0(x15)", "bn.shrv w3, w3, 7",
           "bn.mulv.lo w3, w3, w12", "bn.addv w3, w3, w13", "bn.shrv w3, w3, 22",
           "bn.and w3, w3, w15", "bn.mulv.lo w3, w3, w14", "bn.addvm w4, w2, w8",
           "bn.subvm w4, w4, w3", "bn.ltv w4, w4, w9", "bn.or.acc x9, w4, w10"]
    if not subtract:
        chk = ["bn.lw.pi w2, 0(x13)"] + [x for x in chk[3:] if x != "bn.sw.pi w2, 0(x15)"]
    return consts + list(head) + _loop(32, chk)


def _bcast(w, val):
    return _li(1, val) + [f"bn.bcast {w}, x1"]


def r0_check16(xa, head=(), subtract=True):
    """rounding.r0_check for gamma2 = (q-1)/32 with HighBits by mulv.hi (pack.hb_ops; bits
    11.. of it are 16 only at the q - 1 wrap, & 15 -> 0): 10 instructions a word instead
    of 12 (subtract=False). One polynomial: v = w (x13) - c s2 (x14) -> x15, or v read
    at x13 (subtract=False); ||LowBits(v)||inf < gamma2 - beta into ACC / x9. Constants
    in w8..w14; w0..w4 temporaries (w5..w7 free for two_words)."""
    consts = [f"bn.lw w{8 + k}, {_m(KA[n])}" for k, n in
              enumerate(["rb", "r2b", "ones"])] + \
        [f"bn.lw w11, {_m(xa['g2m1'])}", f"bn.lw w12, {_m(xa['hbm'])}",
         f"bn.lw w13, {_m(KA['alpha'])}", f"bn.lw w14, {_m(KA['c15'])}"]
    load = ["bn.lw.pi w0, 0(x13)", "bn.lw.pi w1, 0(x14)", "bn.subvm w2, w0, w1",
            "bn.sw.pi w2, 0(x15)"] if subtract else ["bn.lw.pi w2, 0(x13)"]
    chk = load + ["bn.addv w3, w2, w11", "bn.mulv.hi w3, w3, w12", "bn.shrv w3, w3, 11",
                  "bn.and w3, w3, w14", "bn.mulv.lo w3, w3, w13", "bn.addvm w4, w2, w8",
                  "bn.subvm w4, w4, w3", "bn.ltv w4, w4, w9", "bn.or.acc x9, w4, w10"]
    return consts + list(head) + _loop(32, chk)


_TWIN = {"w0": "w5", "w1": "w6", "w2": "w7", "w3": "w0", "w4": "w1"}


def two_words(lines):
    """rounding.r0_check (one word an iteration, w0..w4 its temporaries, w5..w7 unused)
    with its loop body twice an iteration, the second copy on w5, w6, w7, w0, w1: the
    list scheduler interleaves the two dependence chains (one word alone stalls on the
    multiplies' latency)."""
    i = max(j for j, x in enumerate(lines) if x.startswith("loopi "))
    cnt, size = (int(v) for v in lines[i][6:].split(","))
    body = lines[i + 1:]
    assert cnt % 2 == 0 and size == len(body) and not any(
        w in x for x in body for w in ("w5", "w6", "w7"))
    twin = [re.sub(r"\bw[0-4]\b", lambda m: _TWIN[m.group(0)], x) for x in body]
    return lines[:i] + [f"loopi {cnt // 2}, {2 * size}"] + body + twin



def _r0_check_hbm(head, m, xa):
    """r0_check for any gamma2: t = mulv.hi(v + gamma2 - 1, HB_M) >> 11 = floor((v + gamma2
    - 1) / alpha) in [0, m], r1 = t mod m (t = m only at the q - 1 wrap), r0 = v - r1 alpha
    (mod q: v - q at the wrap, FIPS 204 Alg. 36)."""
    consts = [f"bn.lw w8, {_m(KA['rb'])}", f"bn.lw w9, {_m(KA['r2b'])}",
              f"bn.lw w10, {_m(KA['ones'])}", f"bn.lw w11, {_m(xa['g2m1'])}",
              f"bn.lw w12, {_m(xa['hbm'])}", f"bn.lw w15, {_m(KA['alpha'])}"] + \
        _bcast("w13", m - 1) + _bcast("w14", m)
    chk = ["bn.lw.pi w0, 0(x13)", "bn.lw.pi w1, 0(x14)", "bn.subvm w2, w0, w1",
           "bn.addv w3, w2, w11", "bn.sw.pi w2, 0(x15)", "bn.mulv.hi w3, w3, w12",
           "bn.shrv w3, w3, 11", "bn.ltv w4, w13, w3", "bn.and w4, w4, w14",
           "bn.subv w3, w3, w4", "bn.mulv.lo w3, w3, w15", "bn.addvm w4, w2, w8",
           "bn.subvm w4, w4, w3", "bn.ltv w4, w4, w9", "bn.or.acc x9, w4, w10"]
    return consts + list(head) + _loop(32, chk)


def r0_program() -> str:
    return phase_program(r0_phases())


# ------------------------------------------------------------------ c t0 + MakeHint
# constants of the fused c t0 / MakeHint pass (hint_consts), P = the word's hint bits,
# CNT = the hint count (lanes), both carried across the loop
HC = {"g2m1": "w8", "g2x2m1": "w9", "ones": "w11", "hbm": "w12", "c28m1": "w13",
      "hbit0": "w14"}
P, CNT_REG = "w10", "w15"


def hint_consts(xa=XA, m=16):
    """The constants of hint_body(m) (m != 16: w13 = m - 1 instead of c28m1)."""
    if m == 16:
        return [f"bn.lw {r}, {_m(KA[n] if n == 'ones' else xa[n])}" for n, r in HC.items()]
    return [f"bn.lw {r}, {_m(KA[n] if n == 'ones' else xa[n])}" for n, r in HC.items()
            if n != "c28m1"] + _bcast(HC["c28m1"], m - 1)


def hint_body(m=16):
    """4 words: ct0 from x14, v = w - c s2 from x13 (post-increment); norm check into ACC
    (x9), hint mask counted in CNT_REG, its bits (2^(8 s + lane) for word s) ORed into P,
    stored at x15. HighBits(r) mod 16 = bits 11..14 of mulv.hi(r + gamma2 - 1, HB_M):
    h = 1 iff those bits differ for r = v + c t0 and r = v, i.e. iff (xor << 17) >
    2^28 - 1. Temporaries allocated in w0..w7 by prog.Prog.
    m != 16 (ML-DSA-44, m = 44): HighBits t = bits 11.. of the same product, in [0, m]
    with m only at the q - 1 wrap, reduced (t xor= t and [t > m - 1]; w13 = m - 1) and
    h = [t_r != t_v] = [t_r < t_v] or [t_v < t_r]."""
    if m != 16:
        return _hint_body_mod(m)
    p = Prog([f"w{k}" for k in range(8)])
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


def _hint_body_mod(m):
    p = Prog([f"w{k}" for k in range(8)])
    c = HC
    for s in range(4):
        X, V, A, U, T1, T2, D, E = (f"%{n}{s}" for n in ("x", "v", "a", "u", "t", "r", "d", "e"))
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
        for t in (T1, T2):
            p.op("bn.shrv", t, t, "11")
            p.op("bn.ltv", f"{t}g", c["c28m1"], t)          # w13 = m - 1: t = m
            p.op("bn.and", f"{t}g", f"{t}g", t)
            p.op("bn.xor", t, t, f"{t}g")
        p.op("bn.ltv", D, T1, T2)
        p.op("bn.ltv", E, T2, T1)
        p.op("bn.or", D, D, E)
        p.op("bn.subv", CNT_REG, CNT_REG, D)
        p.op("bn.and", D if s else P, D, c["hbit0"])
        if s:
            p.op("bn.shlv", D, D, str(8 * s))
            p.op("bn.or", P, P, D)
    p.sw_pi(P, "x15")                    # P_t over ct0 word t (already read)
    return p.text().splitlines()


def _hint_flag(flag=FLAG, omega=OMEGA):
    """x1 = the hint count (sum of the CNT_REG lanes); x9 = FLAG word 0 = bit 0: the norm
    check failed (x9 was non-zero), bit 1: more than omega hints; FLAG word 1 = x1."""
    fin = [f"bn.ext x{1 + k}, {CNT_REG}, {k}" for k in range(8)]
    fin += [f"add x1, x1, x{2 + k}" for k in range(7)]
    fin += ["sltu x2, x0, x9", f"sltiu x3, x1, {omega + 1}", "xori x3, x3, 1", "slli x3, x3, 1",
            "or x9, x2, x3"]
    return fin + _li(4, flag) + ["sw x9, 0(x4)", "sw x1, 4(x4)"]


def ct0_hint_phases():
    """c_hat at CH, t0_hat at SH (6 polys), v = w - c s2 at W: per polynomial
    c t0 = INTT(c_hat o t0_hat) -> T, then one fused pass: norm check, MakeHint, count,
    bitmap -> HB. x9 = FLAG = 0 iff ||c t0|| < gamma2 and #hints <= omega."""
    ph = [("init", VMODE1 + [f"bn.lw {CNT_REG}, {_m(KA['zero'])}", f"bn.wsrw ACC, {CNT_REG}",
                             f"bn.sw {CNT_REG}, {_m(CNTS)}"] +
           _li(10, SH) + _li(13, W) + _li(16, HB))]
    prod = []
    for k in range(4):
        prod += [f"bn.lw.pi w{k}, 0(x12)", f"bn.lw.pi w{4 + k}, 0(x10)"]
    prod += [f"bn.mulvm w{8 + k}, w{k}, w{4 + k}" for k in range(4)]
    prod += [f"bn.sw.pi w{8 + k}, 0(x11)" for k in range(4)]
    tree = [f"bn.lw w{k}, {_m(T + 32 * k)}" for k in range(8)] + or_tree() + \
        ["bn.sw.pi w0, 0(x16)"]
    body = _li(12, CH) + _li(11, T) + _loop(8, prod) + _li(8, T) + \
        inv_ntt(8, 8) + hint_consts() + [f"bn.lw {CNT_REG}, {_m(CNTS)}"] + \
        _li(14, T) + _li(15, T) + _loop(8, hint_body()) + \
        [f"bn.sw {CNT_REG}, {_m(CNTS)}"] + tree
    ph.append(("6 x [c t0 (pw + INTT), norm + MakeHint + count, bitmap]", _loop(K, body)))
    fin = _hint_flag()
    ph.append(("hint count, flag", fin))
    return ph


def ct0_hint_program() -> str:
    return phase_program(ct0_hint_phases())


def ct0_hint_t0_phases(ch, t, w, t0p, cnt, xc=None, ntt_x8=None, intt_x8=None, k=K,
                       omega=OMEGA, m=16, hw_words=64):
    """ct0_hint_phases with t0 still packed: per polynomial r, t0_r decoded from
    t0p + 416 r -> t, NTT, c t0_r = INTT(c_hat o t0_hat_r) in place, then the fused norm
    check / MakeHint / count / bitmap pass (v = w - c s2 at w) -> HB; the count lanes
    saved at cnt. x9 = FLAG word 0 = 0 iff the iteration passes. xc: the XC area's
    address (layout.x_area; default layout's); ntt_x8 / intt_x8: the lines of the
    in-place transforms of the polynomial at x8 (default: inline, e.g. a call instead).
    k, omega, m = (q - 1) / alpha, hw_words (the x_area's): the set's (default ML-DSA-65's)."""
    xar = x_area(XC if xc is None else xc, k, hw_words)
    ntt_x8 = fwd_ntt(8, 8) if ntt_x8 is None else ntt_x8
    intt_x8 = inv_ntt(8, 8) if intt_x8 is None else intt_x8
    ph = [("init", VMODE1 + [f"bn.lw w15, {_m(KA['zero'])}", "bn.wsrw ACC, w15",
                             f"bn.sw w15, {_m(cnt)}"] +
           _li(5, t0p) + _li(23, w) + _li(24, xar["HB"]))]
    prod = []
    for n in range(4):
        prod += [f"bn.lw.pi w{n}, 0(x12)", f"bn.lw.pi w{4 + n}, 0(x10)"]
    prod += [f"bn.mulvm w{8 + k}, w{k}, w{4 + k}" for k in range(4)]
    prod += [f"bn.sw.pi w{8 + k}, 0(x11)" for k in range(4)]
    tree = [f"bn.lw w{k}, {_m(t + 32 * k)}" for k in range(8)] + or_tree() + \
        ["bn.sw.pi w0, 0(x24)"]
    body = [f"bn.lw w14, {_m(xar['XA']['m13'])}", f"bn.lw w15, {_m(xar['XA']['t0c'])}"] + \
        _li(6, t) + dec_t0_poly() + _li(8, t) + ntt_x8 + \
        _li(12, ch) + _li(10, t) + _li(11, t) + _loop(8, prod) + \
        _li(8, t) + intt_x8 + hint_consts(xar["XA"], m) + [f"bn.lw {CNT_REG}, {_m(cnt)}"] + \
        _li(14, t) + _li(15, t) + ["addi x13, x23, 0"] + _loop(8, hint_body(m)) + \
        ["addi x23, x13, 0", f"bn.sw {CNT_REG}, {_m(cnt)}"] + tree
    ph.append((f"{k} x [t0 decode + NTT, c t0 (pw + INTT), norm + MakeHint + count, bitmap]",
               _loop(k, body)))
    fin = _hint_flag(xar["FLAG"], omega)
    ph.append(("hint count, flag", fin))
    return ph
