# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""The pieces of ML-DSA verification's row loop (verify.py step 6) that are plain code
generators, independent of the verifier's DMEM layout: a b-bit polynomial unpacked by bn.unpk
straight into the forward NTT (and on into the row's first multiply-accumulate), the
multiply-accumulates with the accumulator's first words kept in registers (r_acc), the
row's last one fused with the inverse NTT, and the register allocator with reserved and
claimed registers that these fused bodies need. verify.Verify places them (pointers,
addresses, which piece where); the reasons and the measured cycles are in verify.py's
docstring.
"""
import re

from ip.acc.kernels.asm_util import loop as _loop, mem as _m, poly_io, twiddle_loads
from ip.acc.kernels.mldsa import ntt, products
from ip.acc.kernels.prog import Prog
from ip.acc.tools import sched


def r_acc(n):
    """The row accumulator's words 0..n-1 live in w(16-n)..w15; w0..w(15-n) are the
    multiply-accumulates' temporaries."""
    return [f"w{16 - n + k}" for k in range(n)], [f"w{k}" for k in range(16 - n)]


def _mac_regs(racc):
    """Words 0..n-1 of acc += tile o z_hat (x10 tile, x15 z_hat, both post-incremented)
    in registers (word k in racc[k]); temporaries allocated by prog.Prog."""
    n = len(racc)
    tmp = r_acc(n)[1]
    p = Prog(tmp)
    for w in range(n):
        a, b = f"%a{w}", f"%b{w}"
        p.lw_pi(a, "x10")
        p.lw_pi(b, "x15")
        p.op("bn.mulvm", f"%p{w}", a, b)
        p.op("bn.addvm", racc[w], racc[w], f"%p{w}")
    return p.text().splitlines()


def mac_pair(racc):
    """acc += tile o z_hat + tile' o z_hat' (tiles at x10, x11, z_hat at x15, z_hat' at x12,
    all post-incremented): words 0..n-1 in registers, words n..31 in DMEM (x20 read, x23
    write): 5 instructions a product instead of 6. Unrolled; temporaries allocated by
    prog.Prog."""
    n = len(racc)
    tmp = r_acc(n)[1]
    p = Prog(tmp)
    for w in range(32):
        a, z, b, y = (f"%{x}{w}" for x in "azby")
        for r, ptr in ((a, "x10"), (z, "x15"), (b, "x11"), (y, "x12")):
            p.lw_pi(r, ptr)
        p.op("bn.mulvm", f"%p{w}", a, z)
        p.op("bn.mulvm", f"%q{w}", b, y)
        p.op("bn.addvm", f"%s{w}", f"%p{w}", f"%q{w}")
        if w < n:
            p.op("bn.addvm", racc[w], racc[w], f"%s{w}")
        else:
            p.lw_pi(f"%c{w}", "x20")
            p.op("bn.addvm", f"%d{w}", f"%c{w}", f"%s{w}")
            p.sw_pi(f"%d{w}", "x23")
    return p.text().splitlines()


def mac_acc_unrolled(racc, tile="x26", acc="x25"):
    """acc += tile o z_hat (the tile at `tile`, z_hat at x15, post-incremented): words
    0..n-1 in registers (racc), words n..31 in DMEM from `acc` on (read and written back at
    offsets: no pointer set per entry), unrolled on the 16 - n other registers (prog.Prog)."""
    n = len(racc)
    p = Prog(r_acc(n)[1])
    for w in range(32):
        a, b = f"%a{w}", f"%b{w}"
        p.raw(f"bn.lw {{0}}, {32 * w}({{1}})", [a], [tile])
        p.lw_pi(b, "x15")
        p.op("bn.mulvm", f"%p{w}", a, b)
        if w < n:
            p.op("bn.addvm", racc[w], racc[w], f"%p{w}")
        else:
            c, d = f"%c{w}", f"%d{w}"
            p.raw(f"bn.lw {{0}}, {32 * (w - n)}({{1}})", [c], [acc])
            p.op("bn.addvm", d, c, f"%p{w}")
            p.raw(f"bn.sw {{0}}, {32 * (w - n)}({{1}})", [], [d, acc])
    return p.text().splitlines()


def mac_acc(racc):
    """acc += tile o z_hat (x10, x15): words 0..n-1 in registers (racc), words n..31 in
    DMEM (x20 read, x23 write), 2 words a loop iteration (n even, <= 10: w0..w5 free)."""
    n = len(racc)
    assert n % 2 == 0 and n <= 10
    return _mac_regs(racc) + _loop((32 - n) // 2, products.mac_pair_body())


def unpk_chunk_lines(b, c, out_names, tag, field=None):
    """Chunk c of a b-bit polynomial packed at x5 (32-byte aligned) by bn.unpk: word r = 4 m
    + c (coefficients 8 r .. 8 r + 7) is the b bytes at b r, from the pair of packed words
    holding them (each loaded when the chunk first needs it), field(src, dst, tag) lines
    after (None: the fields themselves) -> out_names[m]."""
    out, got = [], {}

    def word(a):
        if a not in got:
            got[a] = f"%{tag}k{a}"
            out.append(f"bn.lw {got[a]}, {32 * a}(x5)")
        return got[a]
    for m in range(8):
        a, off = divmod(b * (4 * m + c), 32)
        lo = word(a)
        hi = word(a + 1) if off + b > 32 else lo
        dst = out_names[m] if field is None else f"%{tag}f{m}"
        out.append(f"bn.unpk {dst}, {lo}, {hi}, {b}, {off}")
        if field is not None:
            out += field(dst, out_names[m], f"{tag}g{m}")
    return out


def unpack_ntt_body(b, twid, chunk=None, pool=15, mac=None, placed=None):
    """SimpleBitUnpack of a b-bit polynomial packed at x5 fused with the forward NTT into
    x8 (ntt.ntt_body's passes): chunk c of the unpack (unpk_chunk_lines by default) is
    exactly pass 1's group c (the words 4 m + c), so pass 1 takes the unpacked words in
    registers (no store / load between them). chunk(c, names): the lines of chunk c,
    names[m] the word 4 m + c. w0..w(pool-1) allocated. mac = (c_hat address, n): pass
    2's outputs t1_hat are not stored but go on into the row's first multiply-accumulate,
    acc = t1_hat o c_hat + tile o z_hat (tile at x10, z_hat at x15; x15 += 1024 after)
    -> x8, its words 0..n-1 left in registers instead (chosen among r_acc(n)'s: placed[
    "%s<k>"] is word k's)."""
    chunk = chunk or (lambda c, names: unpk_chunk_lines(b, c, names, f"u{c}"))
    mem = _m
    loads, stores, out = twiddle_loads(mem, twid, 32), {}, []
    for g in range(4):                                   # pass 1
        words = [g + 4 * i for i in range(8)]
        regs = {r: f"%a{r}" for r in words}
        out += chunk(g, [f"%a{4 * m + g}" for m in range(8)])
        for r in words:
            stores[f"%a{r}"] = f"bn.sw %a{r}, {32 * r}(x8)"
        out += ntt.ntt_pass1(words, regs)
    racc = r_acc(mac[1])[0] if mac else []
    # with mac, chunk 0 last: the accumulator's register words are computed last, straight
    # into their registers (r_acc); the tile and z_hat read at offsets (x15 += 1024 after)
    for c in ((3, 2, 1, 0) if mac else range(4)):       # pass 2 (as ntt.ntt_body)
        words = list(range(8 * c, 8 * c + 8))
        regs = {r: f"%b{r}" for r in words}
        poly_io(loads, stores, "%b", words, 0, "x8", "x8")
        out += ntt.ntt_pass2(words, regs)
        if mac:
            for r in words:
                del stores[f"%b{r}"]
                out += [f"bn.lw %cc{r}, {_m(mac[0] + 32 * r)}", f"bn.lw %A{r}, {32 * r}(x10)",
                        f"bn.lw %Z{r}, {32 * r}(x15)", f"bn.mulvm %p{r}, %b{r}, %cc{r}",
                        f"bn.mulvm %q{r}, %A{r}, %Z{r}", f"bn.addvm %s{r}, %p{r}, %q{r}"]
                if r >= mac[1]:
                    out.append(f"bn.sw %s{r}, {32 * r}(x8)")
    out = sched.just_in_time(out, loads, stores)
    out = _allocate_reserved(out, [f"w{i}" for i in range(pool)], placed=placed,
                             claims={f"%s{k}": set(racc) for k in range(len(racc))})
    if mac:
        out.append("addi x15, x15, 1024")
    return sched.schedule(out, [("x0", "x8"), ("x5", "x8"), ("x10", "x8"), ("x15", "x8")])


_VIRTUAL = re.compile(r"%[A-Za-z0-9_.]+")


def _allocate_reserved(lines, pool, reserved=(), claims=None, placed=None, near=60):
    """sched.allocate (virtual registers FIFO from pool) with the fixed registers `reserved`
    (holding values on entry) kept out of the pool until the last line that names them,
    and the virtual registers of `claims` ({name: set of registers}: outputs, kept to the
    end) each given a register of its set (-> placed[name]), which the other virtual
    registers avoid within `near` lines before the claim."""
    claims = claims or {}
    placed = {} if placed is None else placed
    last, first = {}, {}
    for i, text in enumerate(lines):
        for v in _VIRTUAL.findall(text):
            last[v] = i
            first.setdefault(v, i)
        for r in reserved:
            if re.search(rf"\b{r}\b", text):
                last[r] = i
    for v in claims:
        last[v] = len(lines)
    free = [w for w in pool if w not in reserved]
    phys, out = {}, []
    for i, text in enumerate(lines):
        names = list(dict.fromkeys(_VIRTUAL.findall(text)))
        for v in names:
            if v in phys:
                continue
            if v in claims:                  # any free register of the claimed set
                pick = next((w for w in free if w in claims[v]), None)
                if pick is None:
                    raise ValueError(f"line {i}: none of {sorted(claims[v])} free for {v}")
                free.remove(pick)
                phys[v] = pick
                placed[v] = pick
                continue
            avoid = set().union(*(claims[c] for c in claims
                                  if c not in phys and first[c] - i < near))
            pick = next((w for w in free if w not in avoid), None) or \
                next(iter(free), None)
            if pick is None:
                raise ValueError(f"line {i} ({text!r}): no register left for {v}")
            free.remove(pick)
            phys[v] = pick
        out.append(_VIRTUAL.sub(lambda m: phys[m.group(0)], text))
        free += [phys.pop(v) for v in names if last[v] == i]
        free += [r for r in reserved if last.get(r) == i]
    return out


def mac_intt_body(itwid, tiles, racc=()):
    """A row's last multiply-accumulate fused with its inverse NTT (ntt.intt_body's passes),
    in place at x8 = ACC: word w of pass A's chunk = acc[w] + sum over tiles (x10, x11) of
    tile o z_hat (x15, x12), kept in registers for the INTT (no store / load between them);
    the accumulator's words 0..n_racc-1 are taken from their registers (r_acc), in place.
    The other registers allocated from w0..w15."""
    loads, stores, out = twiddle_loads(_m, itwid, 33), {}, []
    ptrs = [("x10", "x15"), ("x11", "x12")][:tiles]
    n_racc = len(racc)
    fixed = {}
    for c in range(4):                                   # pass A
        words = list(range(8 * c, 8 * c + 8))
        regs = [racc[r] if r < n_racc else f"%a{r}" for r in words]
        for r, reg in zip(words, regs):
            if r < n_racc:
                acc = reg
            else:
                acc = f"%c{r}"
                out.append(f"bn.lw {acc}, {32 * r}(x8)")
            for k, (ta, tz) in enumerate(ptrs):
                out += [f"bn.lw.pi %x{r}_{k}, 0({ta})", f"bn.lw.pi %y{r}_{k}, 0({tz})",
                        f"bn.mulvm %x{r}_{k}, %x{r}_{k}, %y{r}_{k}"]
            if tiles == 2:
                out.append(f"bn.addvm %x{r}_0, %x{r}_0, %x{r}_1")
            out.append(f"bn.addvm {reg}, {acc}, %x{r}_0")
            if r < n_racc:
                fixed[reg] = f"bn.sw {reg}, {32 * r}(x8)"
            else:
                stores[reg] = f"bn.sw {reg}, {32 * r}(x8)"
        out += ntt.intt_pass_a(regs, c)
    for reg, st in fixed.items():                        # after the register's last use
        i = max(k for k, t in enumerate(out) if re.search(rf"\b{reg}\b", t))
        out.insert(i + 1, st)
    for g in range(4):                                   # pass B (as ntt.intt_body)
        words = [g + 4 * i for i in range(8)]
        regs = [f"%b{r}" for r in words]
        poly_io(loads, stores, "%b", words, 0, "x8", "x8")
        out += ntt.intt_pass_b(words, regs)
    out = sched.just_in_time(out, loads, stores)
    out = _allocate_reserved(out, [f"w{i}" for i in range(16)], racc)
    return sched.schedule(out, [("x0", "x8")] + [(x, "x8") for pr in ptrs for x in pr])
