# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""ML-DSA-65 sampling on the ACC (VMODE 1): y = ExpandMask(rho'', kappa) (FIPS 204 Alg.
34) with y_hat = NTT(y), and the challenge c = SampleInBall(c_tilde) (Alg. 29) with
c_hat = NTT(c); the matrix A_hat is sampled inside the product loop (products.py).

    src = expand_mask_program()        # y = ExpandMask(rho'', kappa), y_hat = NTT(y)
    src = challenge_program()          # w1Encode + c_tilde (rounding.highbits_phases),
                                       # c = SampleInBall(c_tilde), c_hat = NTT(c) -> CH

Standalone on the phase-program layout (layout.py), each checked on the ISS against
dilithium-py's intermediates (ip/acc/tests/test_mldsa_program.py); sign.py runs the same
phases on its addresses.

* ExpandMask: SHAKE256(rho'' || kappa + r) with declared length 66, 20 digest words
  (kmac.dig) per polynomial, 5 words (160 B) -> 8 output words at a time: the 40
  granules go once by bn.ext + bn.ins into Y_0..Y_4 with lane o = granule 5o + k, so
  field q of all 8 words is one uniform shift / or / and of Y_a, Y_a+1 (T_q lane o), and
  an 8 x 8 lane transpose (bn.unzip, packing.transpose8) gives the words (~150 cycles per
  8 words; per-word gathers with per-lane shifts by multiplication, as
  mlkem.codec.decode_wide, took ~217); masked to 20 bits, y = gamma1 -q E (bn.subvm).
* SampleInBall: the digest words in DMEM, the rejection loop on the base core (byte loads,
  swap, sign from the first 8 bytes).
"""
from ip.acc.kernels.asm_util import li as _li, loop as _loop, mem as _m, phase_program
from ip.acc.kernels.mldsa.layout import (CH, CTIL, KA, KAPPA, RHOPP, SIB, VMODE1, Y, YH,
                                         fwd_ntt)
from ip.acc.kernels.mldsa.packing import BR3, transpose8, unpack_fields
from ip.acc.kernels.mldsa.params import L, Q, TAU
from ip.acc.kernels.mldsa.rounding import highbits_phases
from ip.acc.kernels.prog import Prog
from ip.acc.kernels.sample import SHAKE256

L_ = L


# ------------------------------------------------------------------ ExpandMask + NTT(y)
def mask_group():
    """5 digest words (160 B; granule g = digest word g // 8, lane g % 8) -> 8 output words,
    transposed: Y_k lane o = granule 5o + k (bn.ext + bn.ins); field q of every output word
    o starts at bit 20q of Y_0..Y_4's lane o, so T_q = field q of all 8 words is one
    uniform shift / or / and (w14 = 2^20 - 1); an 8 x 8 lane transpose gives the words;
    y = gamma1 - field (w15 = gamma1); stored at x6 (post-increment). ~150 cycles.
    Registers allocated in w0..w13 by prog.Prog."""
    p = Prog([f"w{k}" for k in range(14)])
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
        rows[BR3[q]] = t
    out = transpose8(p, rows, "x")
    for o in range(8):
        p.op("bn.subvm", f"%z{o}", "w15", out[BR3[o]])
        p.sw_pi(f"%z{o}", "x6")
    return p.text().splitlines()


def mask_start():
    """Start SHAKE256(rho'' || x7 as 2 bytes) with declared length 66 (the stream of one
    ExpandMask polynomial; the KMAC port held), x7 += 1. Uses x1..x3, w3..w5."""
    return [f"bn.lw w3, {_m(RHOPP)}", f"bn.lw w4, {_m(RHOPP + 32)}",
            f"addi x1, x0, {SHAKE256}", "addi x2, x0, 66", "kmac.start x1, x2",
            "addi x3, x0, -1", "kmac.msg w3, x3", "kmac.msg w4, x3",
            "bn.ins w5, x7, 0", "addi x3, x0, 3", "kmac.msg w5, x3", "addi x7, x7, 1"]


def mask_unpack_bits(bits):
    """y = ExpandMask(rho'', kappa) with `bits`-bit fields (18 for ML-DSA-44, gamma1 =
    2^17): the 32 b bytes of the SHAKE256 started by mask_start squeezed to the buffer at
    x5 (b digest words), then unpacked (packing.unpack_fields) to the polynomial at x6,
    y = gamma1 - field (bn.subvm); x5, x6 not moved. Needs w15 = 2^b - 1, w14 = gamma1;
    uses w0..w13, x4, x10..x17. Straight-line code."""
    def field(p, src, d):
        p.op("bn.subvm", d, "w14", src)
    # straight-line (no hardware loop): a subroutine called inside a loop body
    return ["addi x4, x5, 0"] + bits * ["kmac.dig w3", "bn.sw.pi w3, 0(x4)"] + \
        unpack_fields(bits, field, pool=14)


def expand_mask_phases(ntt=True, compact=True, y=Y, yh=YH):
    """y[r] = ExpandMask(rho'', kappa + r) -> Y (5 polys), y_hat = NTT(y) -> YH.
    KAPPA holds the 16-bit nonce (lw). y = yh is allowed (NTT in place). The next SHAKE256 is started before the NTT of
    the previous polynomial (its permutations run in the NTT's shadow). compact: one
    loopi over the 5 polynomials (the last one starts an unused 6th SHAKE256). The 20-bit
    unpack is mask_group's (a per-word gather variant, ~217 cycles per 8 words against
    ~150, was measured and dropped)."""
    group = mask_group()
    consts = [f"bn.lw w14, {_m(KA['m20'])}", f"bn.lw w15, {_m(KA['g1'])}"]
    pre = VMODE1 + ["kmac.acq"] + consts + [f"lw x7, {KAPPA}(x0)"] + _li(6, y)
    start = mask_start()
    ph = [("init", pre + start)]
    if compact and ntt:
        body = _loop(4, group) + start + fwd_ntt(8, 9) + \
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
                       fwd_ntt(8, 9) + consts))
    ph.append(("release", ["kmac.rel"]))
    return ph


def expand_mask_program(ntt=True) -> str:
    return phase_program(expand_mask_phases(ntt))


# ------------------------------------------------------------------ SampleInBall + NTT(c)
def sib_step() -> list:
    """One candidate of SampleInBall's loop (its label sib_loop before it): byte x12 of the
    digest (x12 = its address) rejected while > i (x13); else c[i] = c[j], c[j] = +-1 from the
    sign bits x11:x10 (x21 = q - 2), i += 1 until x24 (256). c at x7."""
    return [
        "andi x14, x12, -4", "andi x16, x12, 3", "lw x15, 0(x14)", "slli x16, x16, 3",
        "addi x12, x12, 1", "srl x15, x15, x16", "andi x15, x15, 255",
        "bltu x13, x15, sib_loop",
        "slli x16, x15, 2", "slli x18, x13, 2", "add x16, x16, x7", "add x18, x18, x7",
        "lw x17, 0(x16)", "andi x19, x10, 1", "sub x20, x0, x19", "and x20, x20, x21",
        "sw x17, 0(x18)", "addi x20, x20, 1", "sw x20, 0(x16)",
        "srli x10, x10, 1", "slli x22, x11, 31", "or x10, x10, x22", "srli x11, x11, 1",
        "addi x13, x13, 1", "bne x13, x24, sib_loop"]


def challenge_phases(ctil=CTIL, sib=SIB, ch=CH, ctil_len=48, tau=TAU):
    """c = SampleInBall(c_tilde) -> CH (plain), then NTT(c) in place. c_tilde (ctil_len
    bytes: 48 for ML-DSA-65, 32 for -44, 64 for -87; tau = 49 or 39) at CTIL, KMAC port held. 8 digest
    words (256 B: 8 sign bytes + 248 candidates) are read; needing more than 248
    candidates for the tau accepts (each accepted with probability >= 207/256) has
    probability far below 2^-200 and is not handled."""
    assert ctil_len in (32, 48, 64)
    if ctil_len == 64:
        L = VMODE1 + [f"addi x1, x0, {SHAKE256}", "addi x2, x0, 64", "kmac.start x1, x2",
                      f"bn.lw w1, {_m(ctil)}", f"bn.lw w2, {_m(ctil + 32)}", "addi x3, x0, -1",
                      "kmac.msg w1, x3", "kmac.msg w2, x3"]
    elif ctil_len == 48:
        L = VMODE1 + [f"addi x1, x0, {SHAKE256}", "addi x2, x0, 48", "kmac.start x1, x2",
                      f"bn.lw w1, {_m(ctil)}", f"bn.lw w2, {_m(ctil + 32)}", "addi x3, x0, -1",
                      "kmac.msg w1, x3"] + _li(3, 0xFFFF) + ["kmac.msg w2, x3"]
    else:
        L = VMODE1 + [f"addi x1, x0, {SHAKE256}", "addi x2, x0, 32", "kmac.start x1, x2",
                      f"bn.lw w1, {_m(ctil)}", "addi x3, x0, -1", "kmac.msg w1, x3"]
    L += _li(6, sib) + _loop(8, ["kmac.dig w3", "bn.sw.pi w3, 0(x6)"])
    L += _li(7, ch) + [f"bn.lw w4, {_m(KA['zero'])}"] + _loop(32, ["bn.sw.pi w4, 0(x7)"])
    ph = [("SHAKE256(c_tilde) + clear c", L)]
    L = _li(7, ch) + _li(25, sib) + ["lw x10, 0(x25)", "lw x11, 4(x25)"] + _li(12, sib + 8) + \
        [f"addi x13, x0, {256 - tau}", "addi x24, x0, 256"] + _li(21, Q - 2)
    L += ["sib_loop:"] + sib_step() + ["sib_done:"]
    ph.append(("SampleInBall (core)", L))
    ph.append(("NTT(c)", _li(8, ch) + fwd_ntt(8, 8)))
    return ph


def challenge_program(with_highbits=True) -> str:
    ph = (highbits_phases() if with_highbits else [("acq", ["kmac.acq"])]) + \
        challenge_phases()
    return phase_program(ph + [("release", ["kmac.rel"])])
