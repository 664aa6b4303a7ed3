# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""ML-KEM NTT-domain products (FIPS 203 Algorithm 11 MultiplyNTTs / Algorithm 12
BaseCaseMultiply, VMODE 0) as straight-line ACC assembly, optionally accumulating, and the
looped form the decapsulation program uses.

Layout: that of the NTT (mlkem/ntt.py): a polynomial is 16 words of 16 x 16-bit lanes,
word r = coefficients 16r .. 16r+15, natural (kyber-py) NTT order. Addresses are DMEM byte
addresses (32-byte aligned, < 32768). bn.mulvm(a, b) = a * b * 2^-16 mod q.

`basemul_program`: the pairs (a0, a1), (b0, b1) of word 2s and 2s+1 are transposed with
bn.trn1 / bn.trn2 (lane 2i <- pair 16s+i, lane 2i+1 <- pair 16s+8+i: all a0 in one
register, all a1 in another); 5 bn.mulvm + 2 bn.addvm give r0 = a0 b0 + gamma a1 b1 and
r1 = a0 b1 + a1 b0 for 16 pairs; bn.trn1 / bn.trn2 of (r0, r1) is the natural order again
(the 2x2 lane transpose is its own inverse). gamma words (8, Montgomery form,
`const_words()`) are loaded once per block. Two forms of b:
  * b_prepared=True: b was converted once by `prepare_program` into the transposed layout
    times 2^16 (Montgomery form), at the same addresses: the products are then exact
    (kyber-py's ntt_multiplication) at 17 instructions per 32 coefficients. This is the
    form for r_hat / s_hat, which are used by k rows.
  * b_prepared=False: b in natural layout, plain; the kernel transposes it too and
    multiplies the results by 2^32 mod q (bn.mulvm with R^2) to be exact (21 per 32), or
    with mont_out=True leaves the 2^-16 in (19 per 32), to be removed by the ML-KEM INTT
    when its scale word (ntt.ISCALE) holds 128^-1 * 2^32 mod q instead of 128^-1 * 2^16
    (`iscale_mont_word()`).

Instructions are generated in program order on virtual registers and allocated /
scheduled by prog.Prog.
"""
from ip.acc.kernels.asm_util import li as _li, loop as _loop
from ip.acc.kernels.mlkem import ntt
from ip.acc.kernels.prog import Prog

Q, R = 3329, 1 << 16


def _gamma(j: int) -> int:
    """gamma of pair j (coefficients 2j, 2j+1) in kyber-py's ntt_multiplication:
    zeta^(2 BitRev7(j) + 1) = (-1)^j zetas[64 + j // 2]."""
    z = ntt.zetas()[64 + j // 2]
    return z if j % 2 == 0 else (-z) % Q


def const_words() -> list[list[int]]:
    """9 words: 8 gamma words (Montgomery form, transposed order: word s lane 2i = pair
    16s+i, lane 2i+1 = pair 16s+8+i), then R^2 mod q = 2^32 mod q in every lane."""
    words = []
    for s in range(8):
        w = []
        for i in range(8):
            w += [_gamma(16 * s + i) * R % Q, _gamma(16 * s + 8 + i) * R % Q]
        words.append(w)
    words.append([R * R % Q] * 16)
    return words


def iscale_mont_word() -> list[int]:
    """ML-KEM INTT scale word (ntt.ISCALE) that also removes one 2^-16."""
    return [pow(128, -1, Q) * R * R % Q] * 16


def prepare_program(src, dst, const_addr, ecall=True) -> str:
    """dst = transposed Montgomery form of src (16 words): for each block s, word 2s = all b0
    of pairs 16s..16s+15 (trn1 order) * 2^16 mod q, word 2s+1 = all b1 * 2^16."""
    p = Prog([f"w{i}" for i in range(15)])
    p.lw("w15", const_addr + 32 * 8)
    for s in range(8):
        p.lw(f"%x{s}", src + 64 * s)
        p.lw(f"%y{s}", src + 64 * s + 32)
        p.op("bn.trn1", f"%t{s}", f"%x{s}", f"%y{s}")
        p.op("bn.trn2", f"%u{s}", f"%x{s}", f"%y{s}")
        p.op("bn.mulvm", f"%m{s}", f"%t{s}", "w15")
        p.op("bn.mulvm", f"%n{s}", f"%u{s}", "w15")
        p.sw(f"%m{s}", dst + 64 * s)
        p.sw(f"%n{s}", dst + 64 * s + 32)
    return p.text() + ("ecall\n" if ecall else "")


def basemul_program(terms, c, const_addr, accumulate=False, b_prepared=True,
                    mont_out=False, ecall=True) -> str:
    """c = [c +] sum over (a, b) in terms of MultiplyNTTs(a, b) (VMODE 0).
    a: natural layout, plain. b: see the module doc (b_prepared). Constant table
    (const_words(), 9 words) at const_addr. mont_out (only with b_prepared=False):
    leave the result times 2^-16."""
    assert not (mont_out and b_prepared)
    fix = not b_prepared and not mont_out
    p = Prog([f"w{i}" for i in range(15 if fix else 16)])
    if fix:
        p.lw("w15", const_addr + 32 * 8)
    for s in range(8):
        p.lw(f"%g{s}", const_addr + 32 * s)       # gamma word of block s
        acc0 = acc1 = None
        for j, (a, b) in enumerate(terms):
            v = f"{s}_{j}"
            p.lw(f"%ar{v}", a + 64 * s)
            p.lw(f"%as{v}", a + 64 * s + 32)
            p.op("bn.trn1", f"%a0{v}", f"%ar{v}", f"%as{v}")
            p.op("bn.trn2", f"%a1{v}", f"%ar{v}", f"%as{v}")
            if b_prepared:
                p.lw(f"%b0{v}", b + 64 * s)
                p.lw(f"%b1{v}", b + 64 * s + 32)
            else:
                p.lw(f"%br{v}", b + 64 * s)
                p.lw(f"%bs{v}", b + 64 * s + 32)
                p.op("bn.trn1", f"%b0{v}", f"%br{v}", f"%bs{v}")
                p.op("bn.trn2", f"%b1{v}", f"%br{v}", f"%bs{v}")
            p.op("bn.mulvm", f"%p00{v}", f"%a0{v}", f"%b0{v}")
            p.op("bn.mulvm", f"%p11{v}", f"%a1{v}", f"%b1{v}")
            p.op("bn.mulvm", f"%p01{v}", f"%a0{v}", f"%b1{v}")
            p.op("bn.mulvm", f"%p10{v}", f"%a1{v}", f"%b0{v}")
            p.op("bn.mulvm", f"%t{v}", f"%p11{v}", f"%g{s}")
            p.op("bn.addvm", f"%r0{v}", f"%p00{v}", f"%t{v}")
            p.op("bn.addvm", f"%r1{v}", f"%p01{v}", f"%p10{v}")
            if acc0 is None:
                acc0, acc1 = f"%r0{v}", f"%r1{v}"
            else:
                p.op("bn.addvm", f"%s0{v}", acc0, f"%r0{v}")
                p.op("bn.addvm", f"%s1{v}", acc1, f"%r1{v}")
                acc0, acc1 = f"%s0{v}", f"%s1{v}"
        if fix:
            p.op("bn.mulvm", f"%f0{s}", acc0, "w15")
            p.op("bn.mulvm", f"%f1{s}", acc1, "w15")
            acc0, acc1 = f"%f0{s}", f"%f1{s}"
        p.op("bn.trn1", f"%o0{s}", acc0, acc1)
        p.op("bn.trn2", f"%o1{s}", acc0, acc1)
        out0, out1 = f"%o0{s}", f"%o1{s}"
        if accumulate:
            p.lw(f"%c0{s}", c + 64 * s)
            p.lw(f"%c1{s}", c + 64 * s + 32)
            p.op("bn.addvm", f"%d0{s}", f"%c0{s}", out0)
            p.op("bn.addvm", f"%d1{s}", f"%c1{s}", out1)
            out0, out1 = f"%d0{s}", f"%d1{s}"
        p.sw(out0, c + 64 * s)
        p.sw(out1, c + 64 * s + 32)
    return p.text() + ("ecall\n" if ecall else "")


# ------------------------------------------------------------------ in whole programs
def transposed_store(words, base, regs):
    """Pass-2 storer of the NTT (ntt.ntt_body's store): each word pair (2s, 2s+1) as
    bn.trn1 / bn.trn2 of it, the layout of a prepared b operand (prepare_program without
    the Montgomery factor), for a b operand used by several products."""
    L = []
    for t in range(4):
        s = words[2 * t] // 2
        tmp = f"%tr{words[2 * t]}"
        L += [f"bn.trn1 {tmp}, {regs[2 * t]}, {regs[2 * t + 1]}",
              f"bn.trn2 {regs[2 * t + 1]}, {regs[2 * t]}, {regs[2 * t + 1]}",
              f"bn.sw {tmp}, {64 * s}({base})", f"bn.sw {regs[2 * t + 1]}, {64 * s + 32}({base})"]
    return L


def pointers(terms, c, const_addr, first=0) -> list[str]:
    """basemul_loop's pointers: x10 + 2 j = term j's a, x11 + 2 j its b, then the constant
    table's and c's (from block `first` on)."""
    n, L = len(terms), []
    for j, (a, b) in enumerate(terms):
        L += _li(10 + 2 * j, a + 64 * first) + _li(11 + 2 * j, b + 64 * first)
    return L + _li(10 + 2 * n, const_addr + 32 * first) + _li(11 + 2 * n, c + 64 * first)


def basemul_loop(terms, c, const_addr, add=None, one_gamma=False, blocks=(0, 8)):
    """c = sum over (a, b) of MultiplyNTTs(a, b) * 2^-16 (VMODE 0), a natural, b transposed
    (transposed_store); the arithmetic of basemul_program with a prepared b, as a loopi
    over the 8 blocks of 32 coefficients with post-increment pointers (x10.. a, b, gamma,
    c), constant table (const_words()) at const_addr, registers allocated and scheduled
    by Prog in w0..w15: ~48 cycles per block for 3 terms.
    add (keygen's t_hat = A_hat o s_hat + e_hat): the address of a natural polynomial
    (< q) added to the exact sum (the 2^-16 removed by one more bn.mulvm by R^2 per
    word); it may equal c (read before written, block by block).
    one_gamma (decaps): the a1 b1 products of all terms summed first (bn.addv: < 4 q, a
    valid bn.mulvm input, whose result is then reduced) and multiplied by gamma once:
    4 n + 1 instead of 5 n bn.mulvm per block (the loop is issue-bound: 2 cycles a block
    fewer for 3 terms).
    blocks = (first, n): only the blocks first..first + n - 1 (a product in two pieces, to
    fill two shadows of sampler jobs).
    c None: no pointer is set (terms' addresses unused, only their number): the loop alone,
    a subroutine for several products whose callers set the pointers (pointers())."""
    n = len(terms)
    assert 1 <= n <= 4
    first, nblocks = blocks
    assert 0 <= first and first + nblocks <= 8 and (add is None or blocks == (0, 8))
    L = [] if c is None else pointers(terms, c, const_addr, first)
    xg, xc = f"x{10 + 2 * n}", f"x{11 + 2 * n}"
    xe = f"x{12 + 2 * n}"
    if add is not None:
        L += _li(12 + 2 * n, add)
    p = Prog([f"w{i}" for i in range(16)])
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
        if one_gamma:
            p.op("bn.addvm", f"%r1{j}", f"%p01{j}", f"%p10{j}")
            if j == 0:
                s0, s1, u = f"%p00{j}", f"%r1{j}", f"%p11{j}"
            else:
                p.op("bn.addvm", f"%s0{j}", s0, f"%p00{j}")
                p.op("bn.addvm", f"%s1{j}", s1, f"%r1{j}")
                p.op("bn.addv", f"%u{j}", u, f"%p11{j}")
                s0, s1, u = f"%s0{j}", f"%s1{j}", f"%u{j}"
            continue
        p.op("bn.mulvm", f"%tt{j}", f"%p11{j}", "%g")
        p.op("bn.addvm", f"%r1{j}", f"%p01{j}", f"%p10{j}")
        p.op("bn.addvm", f"%r0{j}", f"%p00{j}", f"%tt{j}")
        if j == 0:
            s0, s1 = f"%r0{j}", f"%r1{j}"
        else:
            p.op("bn.addvm", f"%s0{j}", s0, f"%r0{j}")
            p.op("bn.addvm", f"%s1{j}", s1, f"%r1{j}")
            s0, s1 = f"%s0{j}", f"%s1{j}"
    if one_gamma:
        assert n <= 4 and add is None       # the sum of n values < q stays < 2^16
        p.op("bn.mulvm", "%tg", u, "%g")
        p.op("bn.addvm", "%sg", s0, "%tg")
        s0 = "%sg"
    if add is not None:
        p.lw("%r2", const_addr + 32 * 8)
        p.op("bn.mulvm", "%f0", s0, "%r2")
        p.op("bn.mulvm", "%f1", s1, "%r2")
        s0, s1 = "%f0", "%f1"
    p.op("bn.trn1", "%o0", s0, s1)
    p.op("bn.trn2", "%o1", s0, s1)
    if add is not None:
        p.lw_pi("%e0", xe)
        p.lw_pi("%e1", xe)
        p.op("bn.addvm", "%v0", "%o0", "%e0")
        p.op("bn.addvm", "%v1", "%o1", "%e1")
        p.sw_pi("%v0", xc)
        p.sw_pi("%v1", xc)
    else:
        p.sw_pi("%o0", xc)
        p.sw_pi("%o1", xc)
    body = p.text().splitlines()
    return L + _loop(nblocks, body)
