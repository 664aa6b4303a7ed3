# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""ML-DSA NTT-domain products on the ACC (VMODE 1): standalone pointwise kernels, and the
product loops of the signing programs: w = INTT(A_hat o y_hat) with A_hat sampled in the
background, and c_hat o s_hat + INTT.

Montgomery factors (bn.mulvm(a, b) = a * b * 2^-32 mod q). `pointwise_program`:
c = [c +] sum_j bn.mulvm(a_j, b_j) = sum_j a_j o b_j * 2^-32.
  * exact dilithium-py product when each b_j is in Montgomery form (b * 2^32 mod q), e.g.
    s1_hat / s2_hat / t0_hat converted once after their NTT by `to_mont_program` (32
    bn.mulvm by 2^64 mod q, table `pointwise_const_words()`), or
  * plain operands (A_hat from the sampler, y_hat / c_hat from the NTT): the 2^-32 is
    removed for free by the inverse NTT with ntt.itwiddle_words(mont=True) (its 256^-1
    scale and last-layer twiddle carry an extra 2^32), as the reference invntt_tomont
    does. The signing programs use this form.

A_hat o y_hat: row i of A_hat (5 RejNTTPoly, uni23 on the stream unit, sample.start) is
sampled while the core multiply-accumulates what was sampled before:
  * `aw_phases` (the standalone phase program): by rows, into one of two row buffers,
    while the core computes row i-1: the 5-term multiply-accumulate of 8 words (20
    instructions per word: 10 bn.lw.pi, 5 bn.mulvm, 4 bn.addvm, bn.sw.pi) for jobs 0-3,
    the INTT of the row for job 4;
  * `aw_tile_phases` (sign.py): entry by entry into two 1 KiB tiles, words 0..7 of the row
    accumulated in registers (2 KiB of A_hat instead of 10 KiB).
"""
from ip.acc.kernels import sample
from ip.acc.kernels.asm_util import li as _li, loop as _loop, phase_program
from ip.acc.kernels.mldsa.layout import ABUF, CH, RHO, SH, VMODE1, W, YH, inv_ntt
from ip.acc.kernels.mldsa.params import K, L, Q
from ip.acc.kernels.prog import Prog
from ip.acc.kernels.sample import SHAKE128

R = 1 << 32
L_ = L


# ------------------------------------------------------------------ standalone pointwise
def pointwise_const_words() -> list[list[int]]:
    """One word: 2^64 mod q in every lane (bn.mulvm by it multiplies by 2^32)."""
    return [[R * R % Q] * 8]


def pointwise_program(terms, c, accumulate=False, ecall=True) -> str:
    """c = [c +] sum over (a, b) in terms of bn.mulvm(a, b), word by word (VMODE 1).
    terms: list of (a_addr, b_addr). c may alias an a or b of the terms."""
    p = Prog([f"w{i}" for i in range(16)])
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


def to_mont_program(src, dst, const_addr, ecall=True) -> str:
    """dst = src * 2^32 mod q (Montgomery form), 32 words; const table at const_addr."""
    p = Prog([f"w{i}" for i in range(15)])
    p.lw("w15", const_addr)
    for r in range(32):
        p.lw(f"%x{r}", src + 32 * r)
        p.op("bn.mulvm", f"%y{r}", f"%x{r}", "w15")
        p.sw(f"%y{r}", dst + 32 * r)
    return p.text() + ("ecall\n" if ecall else "")


# ------------------------------------------------------------------ A_hat o y_hat by rows
def _start_a(i, j, dst):
    """RejNTTPoly(rho || j || i) -> dst on the stream unit (uni23, VMODE 1)."""
    return sample.start(SHAKE128, RHO, j | i << 8, 2, dst, "uni23")


def _start_a_x21(off, dst):
    """As _start_a with rho || (x21 + off) as 2 bytes j, i: x21 = i << 8, a loop
    variable."""
    return sample.start(SHAKE128, RHO, off, 2, dst, "uni23", suffix_base="x21")


def _abuf(i, j):
    return ABUF + 5120 * (i % 2) + 1024 * j


def _mac_ptrs(i):
    """x10..x14: A row i polys, x15..x19: y_hat polys, x20: w_i."""
    L = []
    for j in range(L_):
        L += _li(10 + j, _abuf(i, j)) + _li(15 + j, YH + 1024 * j)
    return L + _li(20, W + 1024 * i)


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
    return _li(8, W + 1024 * i) + inv_ntt(8, 8)


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
                job = _start_a_x21(c, _abuf(par + 1, c))
                if c == 0:
                    work = sum((_li(10 + j, _abuf(par, j)) + _li(15 + j, YH + 1024 * j)
                                for j in range(L_)), []) + _loop(8, _mac_word())
                elif c < 4:
                    work = _loop(8, _mac_word())
                else:
                    work = ["addi x8, x20, -1024"] + inv_ntt(8, 8) + ["addi x21, x21, 256"]
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


def aw_program() -> str:
    return phase_program(aw_phases())


# ------------------------------------------------------------------ A_hat o y_hat by tiles
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
    return out + _loop((32 - N_RACC) // 2, mac_pair_body())


def mac_pair_body() -> list[str]:
    """Two words of a DMEM accumulator: acc (x20 read, x23 write) += tile (x10) o operand (x15),
    on w0..w5, all four pointers post-incremented (a loop body)."""
    b = []
    for k in range(2):
        b += [f"bn.lw.pi w{k}, 0(x10)", f"bn.lw.pi w{2 + k}, 0(x15)",
              f"bn.lw.pi w{4 + k}, 0(x20)"]
    b += [f"bn.mulvm w{k}, w{k}, w{2 + k}" for k in range(2)]
    b += [f"bn.addvm w{k}, w{k}, w{4 + k}" for k in range(2)]
    b += [f"bn.sw.pi w{k}, 0(x23)" for k in range(2)]
    return b


def aw_tile_phases(yh, w, abuf):
    """w = INTT(A_hat o y_hat) (y_hat at yh, 5 polys) -> w (6 polys). A_hat[i][j] is
    sampled entry by entry into two 1 KiB tiles: entry e + 1 into one while the core
    multiply-accumulates entry e from the other (the INTT of row i runs while A[i+1][0]
    is sampled). Words 0..7 of w_i accumulate in w8..w15 (4 cycles per word and entry
    instead of 6: no accumulator load / store), words 8..31 in DMEM. Two rows per loopi
    iteration (tile parity); the last one samples an unused A[6][0]."""
    tiles = (abuf, abuf + 1024)
    ph = [("init", VMODE1 + ["kmac.acq", "addi x21, x0, 0"] + _start_a_x21(0, tiles[0]) +
           ["smp.wait"] + _li(22, w))]
    body = []
    for p in (0, 1):
        for j in range(L):
            e = 5 * p + j
            cur, nxt = tiles[e % 2], tiles[(e + 1) % 2]
            body += _start_a_x21(j + 1 if j < L - 1 else 256, nxt) + _li(10, cur)
            if j == 0:
                body += _li(15, yh) + [f"addi x20, x22, {32 * N_RACC}"] + _mac_first()
            else:
                body += [f"addi x20, x22, {32 * N_RACC}", f"addi x23, x22, {32 * N_RACC}"] + \
                    _mac_acc()
            if j == L - 1:
                body += [f"bn.sw {r}, {32 * k}(x22)" for k, r in enumerate(R_ACC)]
                body += ["addi x8, x22, 0"] + inv_ntt(8, 8) + \
                    ["addi x22, x22, 1024", "addi x21, x21, 256"]
            body.append("smp.wait")
    ph.append(("6 rows x 5 entries: sample next entry | MAC (+ INTT)", _loop(K // 2, body)))
    ph.append(("release", ["kmac.rel"]))
    return ph


# ------------------------------------------------------------------ c_hat o s_hat
def cs_prod(n, dst, ch=CH, sh=SH):
    """dst[r] = INTT(c_hat o s_hat[r]) (the INTT removes the 2^-32), r < n; c_hat at ch,
    s_hat at sh."""
    b = []
    for k in range(4):                       # 4 words per iteration (no load-use stalls)
        b += [f"bn.lw.pi w{k}, 0(x12)", f"bn.lw.pi w{4 + k}, 0(x10)"]
    b += [f"bn.mulvm w{8 + k}, w{k}, w{4 + k}" for k in range(4)]
    b += [f"bn.sw.pi w{8 + k}, 0(x11)" for k in range(4)]
    body = _li(12, ch) + _loop(8, b) + inv_ntt(8, 8) + ["addi x8, x8, 1024"]
    return _li(10, sh) + _li(11, dst) + _li(8, dst) + _loop(n, body)


# ------------------------------------------------------------------ loop bodies (sign16.py)
def pw_inplace_body():
    """4 words of buf = c_hat o buf: c_hat at x12, buf read at x10, written at x11 (all
    post-incremented; x10 = x11 in place). w0..w11."""
    b = []
    for k in range(4):
        b += [f"bn.lw.pi w{k}, 0(x12)", f"bn.lw.pi w{4 + k}, 0(x10)"]
    b += [f"bn.mulvm w{8 + k}, w{k}, w{4 + k}" for k in range(4)]
    return b + [f"bn.sw.pi w{8 + k}, 0(x11)" for k in range(4)]


def mac_acc_body(per=4):
    """`per` words of acc += tile o y_hat (x 2^-32): tile at x10, y_hat at x15, acc read at
    x20 and written at x23 (all post-incremented; x20 = x23 at the start). w0..w{3 per}."""
    R = range(per)
    b = [f"bn.lw.pi w{3 * q + h}, 0(x{(10, 15, 20)[h]})" for q in R for h in (0, 1, 2)]
    b += [f"bn.mulvm w{3 * q}, w{3 * q}, w{3 * q + 1}" for q in R]
    b += [f"bn.addvm w{3 * q}, w{3 * q}, w{3 * q + 2}" for q in R]
    return b + [f"bn.sw.pi w{3 * q}, 0(x23)" for q in R]


# ------------------------------------------------------------------ w packed 24-bit
# (sign16_plan.plan(87): the ML-DSA-87 signer's w fits 16 KiB only packed.) Lane-split packing:
# a group of 4 words (a, b, c, d: 32 coefficients, each < 2^24) is kept as 3 words,
# P0 = a | d << 24, P1 = b | (d << 16) & 0xFF000000, P2 = c | (d << 8) & 0xFF000000:
# lane-wise shifts and masks only (no lane moves), 768 B a polynomial instead of 1024.
def pack24(coeffs) -> bytes:
    """256 coefficients (each < 2^24) -> the 768 bytes of the lane-split packing."""
    assert len(coeffs) == 256 and all(0 <= c < 1 << 24 for c in coeffs)
    words = [coeffs[8 * r:8 * r + 8] for r in range(32)]
    out = []
    for g in range(8):
        a, b, c, d = words[4 * g:4 * g + 4]
        out += [[a[i] | (d[i] << 24) & 0xFF000000 for i in range(8)],
                [b[i] | (d[i] << 16) & 0xFF000000 for i in range(8)],
                [c[i] | (d[i] << 8) & 0xFF000000 for i in range(8)]]
    return b"".join(x.to_bytes(4, "little") for w in out for x in w)


def unpack24(blob: bytes) -> list:
    """pack24's inverse: 768 bytes -> 256 coefficients."""
    assert len(blob) == 768
    ws = [[int.from_bytes(blob[32 * r + 4 * i:32 * r + 4 * i + 4], "little") for i in range(8)]
          for r in range(24)]
    out = []
    for g in range(8):
        p0, p1, p2 = ws[3 * g:3 * g + 3]
        out += [[x & 0xFFFFFF for x in p] for p in (p0, p1, p2)]
        out.append([p0[i] >> 24 | (p1[i] >> 24) << 8 | (p2[i] >> 24) << 16 for i in range(8)])
    return [c for w in out for c in w]


def pack24_consts() -> list[list[int]]:
    """The two mask words mac_acc24_body expects in w14, w15."""
    return [[0xFFFFFF] * 8, [0xFF000000] * 8]


def unpack24_group(p=(8, 9, 10), d=11, t=(12, 13), m24="w14", mhi="w15"):
    """w{p} = the 3 packed words of a group -> a, b, c in w{p} and d in w{d} (m24 =
    0x00FFFFFF, mhi = 0xFF000000 lanes; w{t} scratch): 10 instructions."""
    p0, p1, p2 = (f"w{x}" for x in p)
    t0, t1 = (f"w{x}" for x in t)
    return [f"bn.shrv w{d}, {p0}, 24", f"bn.and {t0}, {p1}, {mhi}", f"bn.shrv {t0}, {t0}, 16",
            f"bn.and {t1}, {p2}, {mhi}", f"bn.shrv {t1}, {t1}, 8", f"bn.or w{d}, w{d}, {t0}",
            f"bn.or w{d}, w{d}, {t1}"] + [f"bn.and {x}, {x}, {m24}" for x in (p0, p1, p2)]


def pack24_group(abc=(0, 1, 2), d=3, t=(4, 5, 6)):
    """a, b, c, d (each lane < 2^24) in w{abc}, w{d} -> the 3 packed words in w{abc} (w15 =
    0xFF000000 lanes; w{t} scratch): 8 instructions."""
    a, b, c = (f"w{x}" for x in abc)
    t0, t1, t2 = (f"w{x}" for x in t)
    return [f"bn.shlv {t0}, w{d}, 24", f"bn.shlv {t1}, w{d}, 16", f"bn.shlv {t2}, w{d}, 8",
            f"bn.and {t1}, {t1}, w15", f"bn.and {t2}, {t2}, w15", f"bn.or {a}, {a}, {t0}",
            f"bn.or {b}, {b}, {t1}", f"bn.or {c}, {c}, {t2}"]


def mac_acc24_body():
    """One group (4 words) of w += tile o y_hat (x 2^-32) with w packed (pack24): tile at
    x10, y_hat at x15, packed w read at x20 and written at x23 (3 words; all
    post-incremented). w14, w15: pack24_consts(). Uses w0..w13."""
    b = [f"bn.lw.pi w{q}, 0(x10)" for q in range(4)] + \
        [f"bn.lw.pi w{4 + q}, 0(x15)" for q in range(4)] + \
        [f"bn.lw.pi w{8 + q}, 0(x20)" for q in range(3)]
    b += [f"bn.mulvm w{q}, w{q}, w{4 + q}" for q in range(4)]
    b += unpack24_group()
    b += [f"bn.addvm w{q}, w{q}, w{8 + q}" for q in range(4)]
    return b + pack24_group() + [f"bn.sw.pi w{q}, 0(x23)" for q in range(3)]
