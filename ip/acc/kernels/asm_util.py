# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""Assembly-text helpers shared by the kernels of both schemes: constants into GPRs, DMEM
operands, zero-overhead loops, phases joined into one program, and the pieces the NTT
generators are built from (butterfly layers, virtual-register loads / stores, placement
and scheduling)."""
from ip.acc.tools import sched


def u32(vals) -> bytes:
    """32-bit little-endian words (values reduced mod 2^32)."""
    return b"".join((v % (1 << 32)).to_bytes(4, "little") for v in vals)



def a32(x: int) -> int:
    """x rounded up to a multiple of 32 (a wide word)."""
    return (x + 31) // 32 * 32

def li(reg: int, val: int) -> list[str]:
    """Load a 32-bit constant into x{reg}: addi, or lui + addi."""
    hi, lo = (val + 0x800) >> 12, val & 0xFFF
    lo = lo - 0x1000 if lo >= 0x800 else lo
    if hi == 0:
        return [f"addi x{reg}, x0, {lo}"]
    return [f"lui x{reg}, {hi & 0xFFFFF}"] + ([f"addi x{reg}, x{reg}, {lo}"] if lo else [])


def mem(addr: int) -> str:
    """Wide memory operand for an absolute DMEM address: offsets reach 16 KiB from x0, the
    upper 16 KiB go through x30 = 16384 (the programs set it at the start)."""
    assert addr % 32 == 0 and 0 <= addr < 32768, addr
    return f"{addr}(x0)" if addr < 16384 else f"{addr - 16384}(x30)"


def loop(n: int, body: list[str]) -> list[str]:
    """`body` n times with a zero-overhead loopi (no loop for n = 1)."""
    if n == 1:
        return body
    return [f"loopi {n}, {len(body)}"] + body


def bcast(w: str, val: int) -> list[str]:
    """WDR w = val in every 32-bit lane (through x1)."""
    return li(1, val) + [f"bn.bcast {w}, x1"]


_INV = {"beq": "bne", "bne": "beq", "bltu": "bgeu", "bgeu": "bltu", "blt": "bge", "bge": "blt"}
_N_FAR = [0]


def far(op: str, a: str, b: str, target: str) -> list[str]:
    """A branch to a label out of the +-4 KiB branch range: the inverse branch over a jal
    (labels far_1, far_2, ... numbered across every program generated in this process)."""
    _N_FAR[0] += 1
    skip = f"far_{_N_FAR[0]}"
    return [f"{_INV[op]} {a}, {b}, {skip}", f"jal x0, {target}", f"{skip}:"]


def phase_program(phases, schedule: bool = False, head=()) -> str:
    """[(name, lines)] run in order, then ecall, as one program: after `head`, with schedule
    the straight-line stretches list-scheduled across the phases' seams too (sched.schedule),
    else in the phases' own order."""
    lines = list(head)
    for _, body in phases:
        lines += body
    return "\n".join((sched.schedule(lines) if schedule else lines) + ["ecall"]) + "\n"


def across(words, regs, length, lanes, zeta) -> list[str]:
    """CT butterflies (dist r) of one across-register NTT layer on the chunk `words` (word
    index -> register name via regs, e.g. "w3" or a virtual "%x3"); the partner of word r
    is r + length // lanes; zeta(word) -> (twiddle register name, tidx)."""
    dist = length // lanes
    out = []
    for r in words:
        if r + dist in words and (r // dist) % 2 == 0:
            t, tidx = zeta(r)
            out.append(f"bn.bfly.ct {regs[r]}, {regs[r + dist]}, {t}, r, {tidx}")
    return out


def base_of(operand: str) -> str:
    """The base register of a memory operand "off(xN)"."""
    return operand.split("(")[1].rstrip(")")


def poly_io(loads, stores, name, words, off, src, dst):
    """Wide load from src / store to dst of the polynomial words r (at off + 32 r), as the
    virtual registers name{r}: entries of the loads / stores tables of place_and_schedule."""
    for r in words:
        loads[f"{name}{r}"] = f"bn.lw {name}{r}, {off + 32 * r}({src})"
        stores[f"{name}{r}"] = f"bn.sw {name}{r}, {off + 32 * r}({dst})"


def twiddle_loads(mem, table, n):
    """Load lines of the twiddle words 0..n-1 of the table at DMEM table, as the virtual
    registers %t{word}: entries of the loads table of place_and_schedule."""
    return {f"%t{w}": f"bn.lw %t{w}, {mem(table + 32 * w)}" for w in range(n)}


def place_and_schedule(lines, loads, stores, noalias=()) -> list[str]:
    """A kernel body on virtual registers ("%name") made real: loads and stores placed next
    to their uses (sched.just_in_time), w0..w15 allocated (sched.allocate), list-scheduled
    (sched.schedule; noalias: pairs of base registers that never address the same bytes
    in the body, pairs of one register ignored)."""
    noalias = [p for p in noalias if p[0] != p[1]]
    out = sched.just_in_time(lines, loads, stores)
    return sched.schedule(sched.allocate(out, [f"w{i}" for i in range(16)]), noalias)


def gaps(keep, size: int, start: int = 0) -> list[tuple[int, int]]:
    """[(lo, hi)] of [start, size) outside the 32-byte aligned, disjoint ranges `keep`."""
    out, at = [], start
    for lo, hi in sorted(keep) + [(size, size)]:
        assert lo % 32 == 0 and hi % 32 == 0 and at <= lo <= hi <= size, (lo, hi)
        if lo > at:
            out.append((at, lo))
        at = hi
    return out


def wipe_dmem(keep, size: int, zero: str = "w0", ptr: int = 5) -> list[str]:
    """Zero DMEM [0, size) but the 32-byte aligned ranges `keep` [(lo, hi)] (the outputs
    and the status slot): zero_dmem over the gaps."""
    return zero_dmem(gaps(keep, size), zero, ptr)


def zero_dmem(ranges, zero: str = "w0", ptr: int = 5, spaced: bool = False) -> list[str]:
    """Zero the 32-byte aligned DMEM ranges [(lo, hi)]: one loopi of wide stores of the zero
    register `zero` (which the caller has cleared) per range, 1 cycle a word. spaced: a nop
    after each store (2 cycles a word), so that the stream unit's reads, which wait for any
    core access to DMEM, find the port free every other cycle while the loop runs."""
    out = []
    body = [f"bn.sw.pi {zero}, 0(x{ptr})"] + (["addi x0, x0, 0"] if spaced else [])
    for lo, hi in ranges:
        assert lo % 32 == 0 and hi % 32 == 0 and lo <= hi, (lo, hi)
        at, n = lo, (hi - lo) // 32
        while n:
            step = min(n, 1023)
            out += li(ptr, at) + loop(step, body) if step > 1 else [f"bn.sw {zero}, {mem(at)}"]
            at += 32 * step
            n -= step
    return out


def zero_registers(wdrs: int = 16) -> list[str]:
    """Every WDR, the ACC WSR and every GPR (x1..x31) to zero: what a program ends with
    before its ecall, so that no secret outlives it in the registers."""
    return ["bn.xor w0, w0, w0", "bn.wsrw ACC, w0"] + \
        [f"bn.mov w{i}, w0" for i in range(1, wdrs)] + [f"addi x{i}, x0, 0" for i in range(1, 32)]


def wipe_all_but(keep, size: int, ptr: int = 5) -> list[str]:
    """The end of an operation (before its ecall; the KMAC released by the caller): DMEM
    [0, size) zeroed but the byte ranges `keep` [(lo, hi)], 4-byte aligned (outputs, a
    status word, a counter the host reads), then every register zeroed (zero_registers).
    Whole 32-byte words outside keep go by wipe_dmem; the rest of a word keep only partly
    covers by 32-bit stores of x0 (the words of an unaligned output's first and last
    32 bytes)."""
    words = []
    for lo, hi in sorted(keep):
        assert lo % 4 == 0 and hi % 4 == 0 and 0 <= lo < hi <= size, (lo, hi)
        lo, hi = lo // 32 * 32, -(-hi // 32) * 32
        if words and lo <= words[-1][1]:
            words[-1] = (words[-1][0], max(hi, words[-1][1]))
        else:
            words.append((lo, hi))
    partial = [a for lo, hi in words for a in range(lo, hi, 4)
               if not any(k0 <= a < k1 for k0, k1 in keep)]
    out = ["bn.xor w0, w0, w0"] + wipe_dmem(words, size, ptr=ptr)
    base = None
    for a in partial:
        if a < 2048:                                  # x0-based reaches the low 2 KiB
            out.append(f"sw x0, {a}(x0)")
            continue
        if base is None or not 0 <= a - base < 2048:
            base = a
            out += li(ptr, base)
        out.append(f"sw x0, {a - base}(x{ptr})")
    return out + zero_registers()
