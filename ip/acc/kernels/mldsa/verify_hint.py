# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""The hint and w1 side of ML-DSA verification (verify.py steps 5 and 6): the signature's
hint checked (HintBitUnpack, FIPS 204 Alg. 21: counts, index order, zero padding), UseHint
(Alg. 40) on each row's hinted coefficients, and one HighBits + w1Encode pass over the row
by bn.pk (pk_stream). Each generator takes the verify.Verify whose layout (HINT, ACC, HDR,
omega, gamma2, m) it works on; the reasons and the measured cycles are in verify.py's
docstring (HighBits / UseHint there).
"""
from ip.acc.kernels.asm_util import bcast, far, li as _li
from ip.acc.kernels.mldsa.layout import hb_mult
from ip.acc.kernels.prog import Prog


def hw1_mult(gamma2: int) -> int:
    """floor(2^43 / (2 gamma2)): mulv.hi((r + gamma2) mod q, it) >> 11 = HighBits(r) on
    [0, q) (the q - 1 wrap included: checked exhaustively in the tests)."""
    return (1 << 43) // (2 * gamma2)



def pk_stream(p, load, d, base):
    """SimpleBitPack of a polynomial by bn.pk (VMODE 1: a chunk of d bytes per word):
    load(p, r, dst) emits the prog.Prog ops that bring word r (coefficients 8r..8r+7, d-bit
    values) into dst; its lanes are appended to a byte stream whose full 32-byte words go
    to base + 32 n (bn.sw). The pending register holds f bytes on top; a chunk that does
    not fit gives the full word (off = 32 - f) and the next one (off = d), as isa.yml's
    bn.pk says. The first chunk of each word shifts in wrs2's stale bytes,
    which the following chunks push out."""
    f, cur, n_out = 0, None, 0

    def store(reg):
        nonlocal n_out
        p.raw(f"bn.sw {{0}}, {32 * n_out}({{1}})", [], [reg, base])
        n_out += 1
    for k in range(32):
        w = f"%pkw{k}"
        load(p, k, w)
        prev = cur or w
        if f + d > 32:
            p.op("bn.pk", f"%pkf{k}", w, prev, str(d), str(32 - f))
            store(f"%pkf{k}")
            f -= 32
        p.op("bn.pk", f"%pk{k}", w, prev, str(d), str(d))
        cur, f = f"%pk{k}", f + d
        if f == 32:
            store(cur)
            cur, f = None, 0
    assert f == 0 and n_out == d, (f, n_out)


def hint_byte(dst, idx, tmp):
    """x{dst} = hint byte idx (a GPR name); x{tmp} scratch; x7 = HINT."""
    return [f"andi x{tmp}, {idx}, -4", f"add x{tmp}, x{tmp}, x7", f"lw x{dst}, 0(x{tmp})",
            f"andi x{tmp}, {idx}, 3", f"slli x{tmp}, x{tmp}, 3",
            f"srl x{dst}, x{dst}, x{tmp}", f"andi x{dst}, x{dst}, 255"]



def hint_tail(v):
    """The last count <= omega and the bytes after the last index (up to omega) zero, a
    word at a time (the first word shifted past the indices, the last masked to
    the bytes below omega); x7 = HINT."""
    om = v.omega
    L = _li(7, v.HINT) + [f"addi x9, x0, {om + v.k - 1}"] + hint_byte(8, "x9", 1)
    L += [f"addi x2, x0, {om}", *far("bltu", "x2", "x8", "exit_count"),
          "bgeu x8, x2, tail_done", "andi x9, x8, -4", "add x9, x9, x7",
          "andi x10, x8, 3", "slli x10, x10, 3", "lw x3, 0(x9)", "srl x3, x3, x10",
          "sll x3, x3, x10"] + _li(11, v.HINT + ((om - 1) & ~3))
    L += ["tail_loop:", "beq x9, x11, tail_last", *far("bne", "x3", "x0", "exit_pad"),
          "addi x9, x9, 4", "lw x3, 0(x9)", "jal x0, tail_loop", "tail_last:"]
    if om % 4:
        L += _li(12, (1 << (8 * (om % 4))) - 1) + ["and x3, x3, x12"]
    return L + [*far("bne", "x3", "x0", "exit_pad"), "tail_done:"]

def hint_fix(v):
    """UseHint for row x22's hinted coefficients (HighBits of the rest is the plain
    pass, _hw1_encode): count = byte omega + x22 checked (HINT + count >= x18, the
    previous one's byte address, and count <= omega), the index bytes x18 .. HINT +
    count - 1 checked strictly increasing (their coefficients' addresses); each hinted r
    at ACC + 4 idx is replaced by alpha r1' (r1' = UseHint(1, r)), whose HighBits is r1'.
    Eight at a time: lane k of w0 gathered from the address in x(10 + k) (lw +
    bn.ins), the formula on the 8 lanes, scattered back (bn.ext + sw); the lanes of a
    last partial batch go to a dummy word (HDR + 12). x18 = HINT + count after.
    Constants in w8..w15 (w8, w9 set even without hints when m = 16: the HighBits pass
    reads them); x7 = HINT."""
    C = _fix_consts(v)
    L = _li(7, v.HINT) + [f"addi x9, x22, {v.omega}"] + hint_byte(8, "x9", 1)
    L += ["add x8, x8, x7", *far("bltu", "x8", "x18", "exit_count"),
          f"addi x2, x7, {v.omega}", *far("bltu", "x2", "x8", "exit_count"),
          "bgeu x18, x8, fix_done"]
    if v.m == 16:                    # set for the HighBits pass too: before the exit
        L = L[:-1] + hb_consts(v) + L[-1:]
    else:
        L += hb_consts(v)
    L += bcast("w10", 2) + bcast("w11", -1) + \
        bcast("w12", 2 * v.gamma2)
    L += bcast("w13", 15) if v.m == 16 else \
        bcast("w13", 43) + bcast("w14", 44) + bcast("w15", 45)
    L += _li(6, v.ACC) + _li(2, v.HDR + 12) + ["addi x4, x0, -1", "fix_batch:"] + \
        [f"addi x{10 + k}, x2, 0" for k in range(8)]
    for k in range(8):
        a, prev = f"x{10 + k}", "x4" if k == 0 else f"x{9 + k}"
        # the index byte at x18 (srl takes the shift amount mod 32: 8 (x18 mod 4)),
        # its coefficient's address ACC + 4 idx; addresses strictly increasing
        L += ["bgeu x18, x8, fix_last", "andi x1, x18, -4", "lw x3, 0(x1)",
              "slli x1, x18, 3", "srl x3, x3, x1", "andi x3, x3, 255", "slli x3, x3, 2",
              f"add {a}, x3, x6", *far("bge", prev, a, "exit_order"),
              f"lw x5, 0({a})", f"bn.ins w0, x5, {k}", "addi x18, x18, 1"]
    # another batch only if indices remain (none after exactly 8)
    L += ["sltu x9, x18, x8", "jal x0, fix_go", "fix_last:", "addi x9, x0, 0", "fix_go:"]
    L += ["bn.addv w1, w0, w8", "bn.mulv.hi w2, w1, w9", "bn.shrv w3, w2, 11",
          "bn.shrv w4, w2, 9", "bn.and w4, w4, w10", "bn.addv w3, w3, w4",
          "bn.addv w3, w3, w11"] + C + ["bn.mulv.lo w5, w3, w12"]
    for k in range(8):
        L += [f"bn.ext x5, w5, {k}", f"sw x5, 0(x{10 + k})"]
    L += ["addi x4, x17, 0", "bne x9, x0, fix_batch", "fix_done:"]
    return L

def _fix_consts(v):
    """w3 = t + 2 [r0 > 0] - 1 in [-1, m + 1] -> mod m (w13.. constants)."""
    if v.m == 16:
        return ["bn.and w3, w3, w13"]
    # m = 44: - 44 [w3 >= 44 unsigned, -1 included], + 88 [w3 = -1]
    return ["bn.ltv w6, w13, w3", "bn.ltv w7, w15, w3", "bn.and w6, w6, w14",
            "bn.and w7, w7, w14", "bn.subv w3, w3, w6", "bn.addv w3, w3, w7",
            "bn.addv w3, w3, w7"]


def hb_consts(v):
    """w8 = gamma2 - 1, w9 = hb_mult: UseHint's p = mulv.hi(r + gamma2 - 1, hb_mult)."""
    return bcast("w8", v.gamma2 - 1) + bcast("w9", hb_mult(v.gamma2))

def hw1_encode(v):
    """w1 = HighBits(ACC) (x5) and w1Encode -> x6 (32 w1bits bytes, 32-byte aligned) by
    bn.pk (pk_stream). m = 16 (ML-DSA-65 / -87): r1 = (p >> 11) mod 16 with UseHint's p
    (w8, w9 as _hint_fix left them; p >> 11 is r1, or m = 16 in the q - 1 wrap) and
    bn.pk's 4-bit fields taking the mod. m = 44: r1 = mulv.hi((r + gamma2) mod q,
    hw1_mult) >> 11, in [0, m) with no wrap fix-up (the q - 1 wrap's r give (r + gamma2)
    mod q < gamma2: r1 = 0)."""
    if v.m == 16:
        consts, add, k_add, k_mul = [], "bn.addv", "w8", "w9"
        pool = [f"w{k}" for k in range(16) if k not in (8, 9)]
    else:
        consts = bcast("w10", v.gamma2) + \
            bcast("w11", hw1_mult(v.gamma2))
        add, k_add, k_mul = "bn.addvm", "w10", "w11"
        pool = [f"w{k}" for k in range(10)]

    def load(p, r, dst):
        u, t = f"%hu{r}", f"%ht{r}"
        p.raw(f"bn.lw {{0}}, {32 * r}({{1}})", [u], ["x5"])
        p.op(add, u, u, k_add)
        p.op("bn.mulv.hi", t, u, k_mul)
        p.op("bn.shrv", dst, t, "11")
    p = Prog(pool)
    pk_stream(p, load, v.w1bits, "x6")
    return consts + p.text().splitlines()
