# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""ML-DSA-87's pieces of the 16 KiB signer (sign16.py), on plan(87)["chosen"]
(sign16_plan.py): w = A y with w packed 24-bit (products.pack24) and one A tile the MAC
follows through the sampler's count, HighBits + w1Encode absorbed word by word, r0 on
w_hat - c_hat o s2_hat by one INTT, and the hint with its polynomials in reverse order.
Each takes the sign16.Sign16 whose layout (lay_out) it reads; Sign16 calls these in place
of its own phases when Sign16.packed. Cycles and the reasons: sign16.py's docstring.
"""
import re

from ip.acc.kernels.asm_util import a32, li as _li, loop as _loop, mem as _m
from ip.acc.kernels.mldsa import layout, pack, packing, products, rounding, sampling, unpack
from ip.acc.kernels.mldsa.layout import INTT_X8 as INTT, KA, KAPPA, MU, NTT_X8 as NTT, RHO, VMODE1
from ip.acc.kernels.mldsa.sign16_plan import DMEM, plan
from ip.acc.kernels.sample import SHAKE128, SHAKE256, start as _smp_start


def _loop_l(n, body):
    """asm_util.loop for a body holding labels (the loop counts instructions only)."""
    return [f"loopi {n}, {sum(not x.endswith(':') for x in body)}"] + body


def _mac_set24_body():
    """products.mac_acc24_body for w = 0 (column 0): one group of w = tile o y_hat packed
    (pack24), w not read: tile at x10, y_hat at x15, w written at x23 (post-incremented);
    w15 = 0xFF000000 lanes. Uses w0..w7."""
    return [f"bn.lw.pi w{q}, 0(x10)" for q in range(4)] + \
        [f"bn.lw.pi w{4 + q}, 0(x15)" for q in range(4)] + \
        [f"bn.mulvm w{q}, w{q}, w{4 + q}" for q in range(4)] + products.pack24_group() + \
        [f"bn.sw.pi w{q}, 0(x23)" for q in range(3)]


def _wdr_renamed(lines, names):
    """lines with the WDRs w<a> renamed w<b> for a, b in names (a code piece moved into a
    stretch where its own WDRs are live)."""
    def rename(m):
        return f"w{names.get(int(m.group(1)), int(m.group(1)))}"
    return [re.sub(r"\bw(\d+)\b", rename, x) for x in lines]


def lay_out(s):
    """plan(87)["chosen"]: one A tile (TILEA) over the hint scratch and the key's head;
    w packed 24-bit (products.pack24) at W; YJ (y_hat_j, the unpack + INTT scratch, then
    c_hat); CTIL, CNT past it. TILEA is also SIB, T (c s2_r; c t0_r packed in place
    with the hint's 4-word unpack scratch SCR0 / SCR1 above it), SB (c s1_j), FLAG and
    the hint words HW; the bitmaps HB lie in w_(k-1)'s last 256 B (the hint runs the
    polynomials in reverse order), above the signature and YB."""
    k, l = s.k, s.l
    s.XC = layout.KC + 32 * len(layout.CONST_NAMES)
    s.XAREA = xar = layout.x_area(s.XC, k=k, hw_words=s.hw_words)
    s.XA = xar["XA"]
    s.TILE2 = s.TILE = s.TILEA = xar["HB"]
    s.KEYP = s.TILEA + 1024
    sb = 32 * s.sbits
    s.S1P, s.S2P = s.KEYP, s.KEYP + l * sb
    s.T0P = s.KEYP + (l + k) * sb
    s.SK = s.KEYP - 128
    s.SK_LEN = 128 + (l + k) * sb + k * 416
    s.W = s.T0P + k * 416
    s.YJ = s.CH = s.W + 768 * k
    s.CTIL = s.YJ + 1024
    s.CNT = s.CTIL + 64
    s.END = s.CNT + 32
    s.W1E = None                          # w1Encode absorbed word by word
    s.SIB = s.T = s.SB = s.FLAG = s.HW = s.TILEA
    s.SCR0, s.SCR1 = s.T + 768, s.T + 896
    s.SCRV = s.W + 768 * (k - 1)       # w_(k-1)'s head: dead once r = k-1 is done
    s.HB = s.YJ - 32 * k
    s.MSG = s.W
    s.MSG_MAX = DMEM - s.MSG
    s.SIG = s.W + (-s.ctil_len) % 32
    s.SIG_Z = s.SIG + s.ctil_len
    s.SIG_LEN = s.ctil_len + l * 32 * s.zbits + s.omega + k
    s.SIG_PAD = s.SIG_Z + l * 32 * s.zbits + a32(s.omega + k) - \
        s.SIG - s.SIG_LEN
    s.YB = a32(s.SIG + s.SIG_LEN + s.SIG_PAD)
    assert s.zbits == 20 and s.m == 16
    assert s.YB + 1024 <= s.HB and s.END == plan(87)["chosen"]["END"] <= DMEM
    assert s.hw_words * 4 <= 1024 and s.SK + s.SK_LEN == s.W
    assert all(a % 32 == 0 for a in (s.TILEA, s.KEYP, s.W, s.YJ, s.CTIL,
                                     s.CNT, s.SIG_Z, s.YB, s.HB))


def masks(m24="w14", mhi="w15"):
    return _li(1, 0xFFFFFF) + [f"bn.bcast {m24}, x1"] + _li(1, 0xFF000000) + \
        [f"bn.bcast {mhi}, x1"]


def unpack_poly(src, dst):
    """Packed w at x{src} (post-incremented by 768) -> 32 words at x{dst} (post-
    incremented); w14, w15 the masks."""
    g = [f"bn.lw.pi w{8 + q}, 0(x{src})" for q in range(3)] + products.unpack24_group() + \
        [f"bn.sw.pi w{8 + q}, 0(x{dst})" for q in range(4)]
    return _loop(8, g)


def pack_poly(src, dst):
    """32 words at x{src} -> packed at x{dst} (both post-incremented; in place
    allowed: each group's 3 words are written after its 4 are read); w15 the mask."""
    g = [f"bn.lw.pi w{q}, 0(x{src})" for q in range(4)] + products.pack24_group() + \
        [f"bn.sw.pi w{q}, 0(x{dst})" for q in range(3)]
    return _loop(8, g)


def aw_phases(s):
    """w = A_hat o y_hat (NTT domain, packed): column by column, y_j = ExpandMask + NTT
    -> YJ, then A_hat[i][j] for i < k sampled into the one tile and multiply-
    accumulated into the packed w_i (products.mac_acc24_body); A_0j is sampled while
    the NTT runs, the next column's SHAKE256 starts after the column's last A entry.
    x21 = j + 256 i (the sampler's suffix), x22 -> w_i."""
    K, L, W, YJ, TA = s.k, s.l, s.W, s.YJ, s.TILEA
    start_a = _smp_start(SHAKE128, RHO, 0, 2, TA, "uni23", suffix_base="x21")
    def poll(tag):
        # wait until the unit has written x16 coefficients (SMP_STATUS[31:16])
        return [f"aw_poll_{tag}:", "csrrs x1, SMP_STATUS, x0", "srli x1, x1, 16",
                f"bltu x1, x16, aw_poll_{tag}"]

    def mac(tag, restart, first):
        # the MAC follows the sampler through the one tile: groups 0..2 each once the
        # unit has written it, then (the unit twice as fast as the MAC) all 256; the
        # unit restarts (`restart`) once the last group's tile words are loaded.
        # first (column 0): w_i = A_i0 o y_0 packed, w not read (no w = 0 pass)
        grp = _mac_set24_body() if first else products.mac_acc24_body()
        # the last group's 4 tile loads, then the restart (its WDRs w4..w6 are the
        # y words', loaded after it), then the rest of the group
        nhead = 4
        head = grp[:nhead]
        assert head == [f"bn.lw.pi w{q}, 0(x10)" for q in range(4)]
        if first:      # 25-cycle groups: each of 0..2 waits for its own 32
            follow = ["addi x16, x0, 0"] + \
                _loop_l(3, ["addi x16, x16, 32"] + poll(tag) + grp)
        else:          # 40-cycle groups: the unit is ahead of group 1 by then
            follow = ["addi x16, x0, 32"] + poll(tag) + grp + ["addi x16, x0, 96"] + \
                poll(tag + "b") + _loop(2, grp)
        return _li(10, TA) + _li(15, YJ) + ["addi x20, x22, 0", "addi x23, x22, 0"] + \
            follow + ["addi x16, x0, 256"] + poll(tag + "a") + _loop(4, grp) + \
            head + ["smp.wait"] + restart + grp[nhead:] + \
            [f"addi x22, x{23 if first else 20}, 0"]

    def col(first):
        t = "f" if first else ""
        # the restarts use w4..w6 (the y words', loaded after the restart)
        entry = mac("e" + t, ["addi x21, x21, 256"] + _wdr_renamed(start_a, {1: 4, 2: 5}),
                    first)
        return s.mask_unpack(YJ) + start_a + _li(8, YJ) + NTT + masks() + \
            _li(22, W) + _loop_l(K - 1, entry) + \
            mac("l" + t, _wdr_renamed(sampling.mask_start(), {3: 4, 4: 5, 5: 6}), first) + \
            [f"addi x21, x21, {1 - 256 * (K - 1)}"]
    return [(f"{L} columns: ExpandMask y_j + NTT, {K} x [sample A_ij, w_i += A_ij o y_j "
             "(packed; column 0: w_i = A_i0 o y_0)]",
             VMODE1 + ["kmac.acq", f"lw x7, {KAPPA}(x0)", "addi x21, x0, 0"] +
             sampling.mask_start() + col(True) + _loop_l(L - 1, col(False)) +
             ["kmac.rel"])]


def highbits_phases(s):
    """Per polynomial: w_i unpacked into YJ, INTT; HighBits + w1Encode of YJ absorbed
    word by word into c_tilde = H(mu || w1Encode(w1)) (no buffer) -> CTIL. w_i stays
    w_hat_i (NTT domain): r0 takes w_hat_r - c_hat o s2_hat_r before its INTT."""
    K, YJ = s.k, s.YJ
    pre = VMODE1 + ["kmac.acq", f"addi x1, x0, {SHAKE256}"] + _li(2, 64 + 128 * K) + \
        ["kmac.start x1, x2", "addi x3, x0, -1", f"bn.lw w1, {_m(MU)}",
         f"bn.lw w2, {_m(MU + 32)}", "kmac.msg w1, x3", "kmac.msg w2, x3"] + _li(22, s.W)
    regs = [f"w{q}" for q in range(8)]
    # w11 / w12 HighBits' constants; w1Encode built in w14 (the unpack's mask until
    # then)
    word = [f"bn.lw.pi {r}, 0(x5)" for r in regs] + pack.hb4_word(regs, "w14") + \
        ["kmac.msg w14, x3"]
    poly = masks() + _li(23, YJ) + unpack_poly(22, 23) + \
        _li(8, YJ) + INTT + \
        [f"bn.lw w11, {_m(s.XA['g2m1'])}", f"bn.lw w12, {_m(s.XA['hbm'])}"] + \
        _li(5, YJ) + _loop(4, word)
    fin = ["kmac.dig w1", "kmac.dig w2", f"bn.sw w1, {_m(s.CTIL)}",
           f"bn.sw w2, {_m(s.CTIL + 32)}"]
    return [("init: c_tilde hash", pre),
            (f"{K} x [unpack w_i, INTT; HighBits + w1Encode absorbed]",
             _loop(K, poly)),
            ("c_tilde", fin)]


def r0_phases(s):
    """Per polynomial r: s2_r decoded + NTT -> T; T = w_hat_r (unpacked) - c_hat o T
    in one pass (both carry 2^-32, which the INTT removes), INTT: T = w_r - c s2_r, the
    ||LowBits(T)|| check, and T packed into w_r (x24 -> w_r) for the hint. One INTT a
    polynomial for w - c s2 besides HighBits' of w."""
    T = s.T
    sub = [f"bn.lw.pi w{q}, 0(x12)" for q in range(4)] + \
        [f"bn.lw.pi w{4 + q}, 0(x10)" for q in range(4)] + \
        [f"bn.lw.pi w{8 + q}, 0(x20)" for q in range(3)] + \
        [f"bn.mulvm w{q}, w{q}, w{4 + q}" for q in range(4)] + products.unpack24_group() + \
        [f"bn.subvm w{q}, w{8 + q}, w{q}" for q in range(4)] + \
        [f"bn.sw.pi w{q}, 0(x11)" for q in range(4)]
    body = s.dec_eta(T) + masks() + ["addi x20, x24, 0"] + _li(12, s.CH) + \
        _li(10, T) + _li(11, T) + _loop(8, sub) + _li(8, T) + INTT + \
        rounding.two_words(rounding.r0_check16(s.XA, _li(13, T), subtract=False)) + \
        masks() + _li(20, T) + ["addi x23, x24, 0"] + pack_poly(20, 23) + \
        ["addi x24, x23, 0"]
    return [(f"{s.k} x [s2_r decode + NTT, w_hat_r - c_hat o s2_hat_r, INTT, r0 check, "
              "packed]",
             VMODE1 + [f"bn.lw w15, {_m(KA['zero'])}", "bn.wsrw ACC, w15"] +
             _li(5, s.S2P) + _li(24, s.W) + _loop(s.k, body))]


def hint_phases(s):
    """rounding.ct0_hint_t0_phases on packed w, the polynomials in reverse order (HB
    over w_(k-1), dead once read): per r, t0_r decoded + NTT -> T, c t0_r = INTT(c_hat
    o .); per 4-word group, v = w - c s2 unpacked and rounding.hint_body run on c t0
    and v (P words over T's words, read); the bitmap -> HB_r. r = k-1 first: c t0
    packed in place in T and both unpacked into SCR0 / SCR1 (T's last 256 B); the
    others (_hint_poly(False)): c t0 read unpacked from T, v unpacked into w_(k-1)'s
    dead head (SCRV), no pack. x9 = FLAG word 0 = 0 iff the iteration passes."""
    k = s.k
    init = VMODE1 + [f"bn.lw w15, {_m(KA['zero'])}", "bn.wsrw ACC, w15",
                     f"bn.sw w15, {_m(s.CNT)}"] + \
        _li(5, s.T0P + 416 * (k - 1)) + _li(25, s.W + 768 * (k - 1)) + \
        _li(24, s.HB + 32 * (k - 1))
    return [("init", init),
            (f"r = {k - 1}: t0 decode + NTT, c t0, packed; per group unpack + norm + "
             "MakeHint + count; bitmap", _hint_poly(s, True)),
            (f"{k - 1} x [t0 decode + NTT, c t0; per group v unpacked + norm + MakeHint "
             f"+ count; bitmap] (r = {k - 2} .. 0)", _loop(k - 1, _hint_poly(s, False))),
            ("hint count, flag", rounding._hint_flag(s.FLAG, s.omega))]


def _hint_poly(s, first):
    """One polynomial of _hint_packed (x5 -> t0_r packed, x25 -> w_r packed, x24 ->
    HB_r; each moved to r - 1)."""
    T, xa = s.T, s.XA
    prod = []
    for n in range(4):
        prod += [f"bn.lw.pi w{n}, 0(x12)", f"bn.lw.pi w{4 + n}, 0(x10)"]
    prod += [f"bn.mulvm w{8 + q}, w{q}, w{4 + q}" for q in range(4)]
    prod += [f"bn.sw.pi w{8 + q}, 0(x11)" for q in range(4)]
    pairs = (("x20", s.SCR0), ("x21", s.SCR1)) if first else (("x21", s.SCRV),)
    unp = []
    for src, dst in pairs:
        unp += [f"bn.lw.pi w{2 + q}, 0({src})" for q in range(3)] + \
            products.unpack24_group((2, 3, 4), 5, (6, 7), "w0", "w1") + \
            [f"bn.sw w{2 + q}, {_m(dst + 32 * q)}" for q in range(4)]
    # first: c t0 from SCR0 each group; else straight through T (x14 not reset)
    group = ["bn.bcast w0, x18", "bn.bcast w1, x19"] + unp + \
        (_li(14, s.SCR0) + _li(13, s.SCR1) if first else _li(13, s.SCRV)) + \
        rounding.hint_body(16)
    tree = [f"bn.lw w{q}, {_m(T + 32 * q)}" for q in range(8)] + packing.or_tree() + \
        ["bn.sw.pi w0, 0(x24)", "addi x24, x24, -64"]
    pack = masks() + _li(20, T) + _li(21, T) + pack_poly(20, 21) if first \
        else []
    return [f"bn.lw w15, {_m(xa['t0c'])}"] + \
        _li(6, T) + unpack.unpack_t0() + ["addi x5, x5, -832"] + _li(8, T) + NTT + \
        _li(12, s.CH) + _li(10, T) + _li(11, T) + _loop(8, prod) + _li(8, T) + INTT + \
        pack + _li(18, 0xFFFFFF) + _li(19, 0xFF000000) + _li(20, T) + _li(14, T) + \
        ["addi x21, x25, 0"] + \
        rounding.hint_consts(xa, 16) + [f"bn.lw {rounding.CNT_REG}, {_m(s.CNT)}"] + \
        _li(15, T) + _loop(8, group) + [f"bn.sw {rounding.CNT_REG}, {_m(s.CNT)}",
                                        "addi x25, x25, -768"] + tree
