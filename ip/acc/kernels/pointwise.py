"""NTT-domain products as straight-line ACC assembly: ML-DSA pointwise multiplication
(VMODE 1) and ML-KEM base-case multiplication (FIPS 203 Algorithm 11 MultiplyNTTs /
Algorithm 12 BaseCaseMultiply, VMODE 0), each optionally accumulating.

Layouts are those of the NTT kernels (ntt_mldsa.py / ntt_mlkem.py): a polynomial is 32
words of 8 x 32-bit lanes (ML-DSA) or 16 words of 16 x 16-bit lanes (ML-KEM), word r =
coefficients lanes*r .. lanes*r + lanes-1, natural (kyber-py / dilithium-py) NTT order.
Addresses are DMEM byte addresses (32-byte aligned, < 32768).

Montgomery factors (bn.mulvm(a, b) = a * b * R^-1 mod q, R = 2^32 / 2^16):

ML-DSA `mldsa_program`: c = [c +] sum_j bn.mulvm(a_j, b_j) = sum_j a_j o b_j * 2^-32.
  * exact dilithium-py product when each b_j is in Montgomery form (b * 2^32 mod q), e.g.
    s1_hat / s2_hat / t0_hat converted once after their NTT by `mldsa_to_mont_program`
    (32 bn.mulvm by 2^64 mod q, table `mldsa_const_words()`), or
  * plain operands (A_hat from the sampler, y_hat from the NTT): the 2^-32 is removed for
    free by the inverse NTT with ntt_mldsa.itwiddle_words(mont=True) (its 256^-1 scale and
    last-layer twiddle carry an extra 2^32), as the reference invntt_tomont does.

ML-KEM `mlkem_basemul_program`: the pairs (a0, a1), (b0, b1) of word 2s and 2s+1 are
transposed with bn.trn1 / bn.trn2 (lane 2i <- pair 16s+i, lane 2i+1 <- pair 16s+8+i: all a0
in one register, all a1 in another); 5 bn.mulvm + 2 bn.addvm give r0 = a0 b0 + gamma a1 b1
and r1 = a0 b1 + a1 b0 for 16 pairs; bn.trn1 / bn.trn2 of (r0, r1) is the natural order
again (the 2x2 lane transpose is its own inverse). gamma words (8, Montgomery form,
`mlkem_const_words()`) are loaded once per block. Two forms of b:
  * b_prepared=True: b was converted once by `mlkem_prepare_program` into the transposed
    layout times 2^16 (Montgomery form), at the same addresses: the products are then exact
    (kyber-py's ntt_multiplication) at 17 instructions per 32 coefficients. This is the form
    for r_hat / s_hat, which are used by k rows.
  * b_prepared=False: b in natural layout, plain; the kernel transposes it too and
    multiplies the results by 2^32 mod q (bn.mulvm with R^2) to be exact (21 per 32), or
    with mont_out=True leaves the 2^-16 in (19 per 32), to be removed by the ML-KEM INTT
    when its scale word (ntt_mlkem.ISCALE) holds 128^-1 * 2^32 mod q instead of
    128^-1 * 2^16 (`mlkem_iscale_mont_word()`).

Instructions are generated in program order with virtual registers, allocated FIFO from a
pool and list-scheduled by the shared core of sched.py (the ISS's timing model: result
latencies and the multiplier's issue interval), see `_Prog.text`.
"""
from collections import deque

from ip.acc.kernels import ntt_mlkem
from ip.acc.tools import sched

Q_DSA, R_DSA = 8380417, 1 << 32
Q_KEM, R_KEM = 3329, 1 << 16

class _Prog:
    """Program-order ops on virtual ("%name") and fixed ("w15") registers; `text()` allocates
    and schedules. Memory operands are byte addresses (mem=...)."""

    def __init__(self, pool):
        self.ops = []          # (mnemonic, dst regs, src regs, mem addr or None, is_store)
        self.pool = list(pool)
        self.far = False

    def lw(self, dst, addr):
        self.ops.append(("bn.lw", [dst], [], addr, False))

    def sw(self, src, addr):
        self.ops.append(("bn.sw", [], [src], addr, True))

    def op(self, mnem, dst, *srcs):
        self.ops.append((mnem, [dst], list(srcs), None, False))

    def lw_pi(self, dst, ptr):
        """bn.lw.pi dst, 0(ptr): ordered with the other uses of the pointer GPR ptr (no
        memory dependence is tracked for it: its buffer must not be written by the block)."""
        self.ops.append(("bn.lw.pi", [dst, ptr], [ptr], None, False))

    def sw_pi(self, src, ptr):
        """bn.sw.pi src, 0(ptr) (as lw_pi: ordered only through ptr)."""
        self.ops.append(("bn.sw.pi", [ptr], [src, ptr], None, False))

    def raw(self, fmt, dsts, srcs):
        """Any instruction: fmt.format(*dsts, *srcs) after allocation, e.g.
        raw("bn.ext {0}, {1}, 3", ["x10"], ["%d"]). Ordering only through the named
        registers (GPRs included; a pseudo-register such as "@kmac" orders a stream)."""
        self.ops.append((fmt, list(dsts), list(srcs), None, False))

    def _alloc(self):
        last_use = {}
        for i, (_, d, s, _, _) in enumerate(self.ops):
            for r in d + s:
                if r.startswith("%"):
                    last_use[r] = i
        free = deque(self.pool)
        phys, out = {}, []
        for i, (m, d, s, a, st) in enumerate(self.ops):
            s2 = [phys[r] if r.startswith("%") else r for r in s]
            for r in s:                      # sources dying here free their register first
                if r.startswith("%") and last_use[r] == i and r not in d:
                    free.append(phys.pop(r))
            d2 = []
            for r in d:
                if r.startswith("%"):
                    if r not in phys:
                        if not free:
                            raise ValueError(f"op {i} ({m}): {r} needs a register, but all "
                                             f"{len(self.pool)} of the pool hold live values")
                        phys[r] = free.popleft()
                    d2.append(phys[r])
                    if last_use[r] == i:     # written, never read
                        free.append(phys.pop(r))
                else:
                    d2.append(r)
            out.append((m, d2, s2, a, st))
        return out

    def text(self, window=48):
        """Allocated, then list-scheduled by the shared core (sched.list_schedule: the ISS
        timing model of isa.yml) on the dependences below, which are this class's own:
        registers by name (pseudo-registers included), memory by absolute address, and
        nothing else (see lw_pi / raw). The program order is kept if not slower."""
        ops = self._alloc()
        n = len(ops)
        preds = [{} for _ in range(n)]         # j -> whether i reads j's result
        last_w, readers = {}, {}
        for i, (m, d, s, a, st) in enumerate(ops):
            rs = list(s) + ([] if a is None or st else [("m", a)])
            ws = list(d) + ([("m", a)] if a is not None and st else [])
            for r in rs:
                if r in last_w:
                    preds[i][last_w[r]] = True
            for r in ws:
                if r in last_w:
                    preds[i].setdefault(last_w[r], False)
                for j in readers.get(r, ()):
                    if j != i:
                        preds[i].setdefault(j, False)
            for r in rs:
                readers.setdefault(r, set()).add(i)
            for r in ws:
                last_w[r] = i
                readers[r] = set()
        lines = [self._line(op) for op in ops]
        items = [sched.decode(t) for t in lines]
        order = sched.list_schedule(items, preds, window)
        if sched.cycles(items, order) >= sched.cycles(items):
            order = range(n)
        head = ["lui x30, 4"] if any(o[3] is not None and o[3] >= 16384 for o in ops) else []
        return "\n".join(head + [lines[i] for i in order]) + "\n"

    @staticmethod
    def _line(op) -> str:
        m, d, s, a, st = op
        if "{" in m:
            return m.format(*d, *s)
        if m == "bn.lw.pi":
            return f"{m} {d[0]}, 0({d[1]})"
        if m == "bn.sw.pi":
            return f"{m} {s[0]}, 0({d[0]})"
        if a is not None:
            assert a % 32 == 0 and 0 <= a < 32768, a
            loc = f"{a}(x0)" if a < 16384 else f"{a - 16384}(x30)"
            return f"{m} {(s if st else d)[0]}, {loc}"
        return f"{m} {', '.join(d + s)}"


# ---------------------------------------------------------------------------- ML-DSA

def mldsa_const_words() -> list[list[int]]:
    """One word: 2^64 mod q in every lane (bn.mulvm by it multiplies by 2^32)."""
    return [[R_DSA * R_DSA % Q_DSA] * 8]


def mldsa_program(terms, c, accumulate=False, ecall=True) -> str:
    """c = [c +] sum over (a, b) in terms of bn.mulvm(a, b), word by word (VMODE 1).
    terms: list of (a_addr, b_addr). c may alias an a or b of the terms."""
    p = _Prog([f"w{i}" for i in range(16)])
    for r in range(32):
        acc = None
        for j, (a, b) in enumerate(terms):
            p.lw(f"%a{r}_{j}", a + 32 * r)
            p.lw(f"%b{r}_{j}", b + 32 * r)
            p.op("bn.mulvm", f"%p{r}_{j}", f"%a{r}_{j}", f"%b{r}_{j}")
            if acc is None:
                acc = f"%p{r}_{j}"
            else:
                p.op("bn.addvm", f"%s{r}_{j}", acc, f"%p{r}_{j}")
                acc = f"%s{r}_{j}"
        if accumulate:
            p.lw(f"%c{r}", c + 32 * r)
            p.op("bn.addvm", f"%o{r}", f"%c{r}", acc)
            acc = f"%o{r}"
        p.sw(acc, c + 32 * r)
    return p.text() + ("ecall\n" if ecall else "")


def mldsa_to_mont_program(src, dst, const_addr, ecall=True) -> str:
    """dst = src * 2^32 mod q (Montgomery form), 32 words; const table at const_addr."""
    p = _Prog([f"w{i}" for i in range(15)])
    p.lw("w15", const_addr)
    for r in range(32):
        p.lw(f"%x{r}", src + 32 * r)
        p.op("bn.mulvm", f"%y{r}", f"%x{r}", "w15")
        p.sw(f"%y{r}", dst + 32 * r)
    return p.text() + ("ecall\n" if ecall else "")


# ---------------------------------------------------------------------------- ML-KEM

def _gamma(j: int) -> int:
    """gamma of pair j (coefficients 2j, 2j+1) in kyber-py's ntt_multiplication:
    zeta^(2 BitRev7(j) + 1) = (-1)^j zetas[64 + j // 2]."""
    z = ntt_mlkem.zetas()[64 + j // 2]
    return z if j % 2 == 0 else (-z) % Q_KEM


def mlkem_const_words() -> list[list[int]]:
    """9 words: 8 gamma words (Montgomery form, transposed order: word s lane 2i = pair
    16s+i, lane 2i+1 = pair 16s+8+i), then R^2 mod q = 2^32 mod q in every lane."""
    words = []
    for s in range(8):
        w = []
        for i in range(8):
            w += [_gamma(16 * s + i) * R_KEM % Q_KEM, _gamma(16 * s + 8 + i) * R_KEM % Q_KEM]
        words.append(w)
    words.append([R_KEM * R_KEM % Q_KEM] * 16)
    return words


def mlkem_iscale_mont_word() -> list[int]:
    """ML-KEM INTT scale word (ntt_mlkem.ISCALE) that also removes one 2^-16."""
    return [pow(128, -1, Q_KEM) * R_KEM * R_KEM % Q_KEM] * 16


def mlkem_prepare_program(src, dst, const_addr, ecall=True) -> str:
    """dst = transposed Montgomery form of src (16 words): for each block s, word 2s = all b0
    of pairs 16s..16s+15 (trn1 order) * 2^16 mod q, word 2s+1 = all b1 * 2^16."""
    p = _Prog([f"w{i}" for i in range(15)])
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


def mlkem_basemul_program(terms, c, const_addr, accumulate=False, b_prepared=True,
                          mont_out=False, ecall=True) -> str:
    """c = [c +] sum over (a, b) in terms of MultiplyNTTs(a, b) (VMODE 0).
    a: natural layout, plain. b: see the module doc (b_prepared). Constant table
    (mlkem_const_words(), 9 words) at const_addr. mont_out (only with b_prepared=False):
    leave the result times 2^-16."""
    assert not (mont_out and b_prepared)
    fix = not b_prepared and not mont_out
    p = _Prog([f"w{i}" for i in range(15 if fix else 16)])
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
