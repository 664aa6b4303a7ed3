# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""List scheduler for straight-line ACC assembly (lines of text on physical registers).

    from ip.acc.tools import sched
    lines = sched.schedule(lines)              # same program, fewer stall cycles
    lines = sched.allocate(lines, pool)        # "%name" virtual WDRs -> registers of pool

The timing model is the ISS's own (ip.acc.iss.timing.Scoreboard, driven by isa.yml's
`cycles`, `latency` and `unit`), the operand sets are the ISS's (wdr_reads / wdr_writes /
gpr_reads / gpr_writes) and lines are parsed by the assembler and decoded by isa.decode,
so a change to isa.yml changes the schedules with it.

Only regions free of labels, comments and barriers are reordered; a barrier keeps its place
and no instruction crosses it. Barriers: branches and jumps, loop / loopi, ecall, csr*,
bn.wsrr / bn.wsrw, kmac.*, smp.* and any line the assembler cannot take on its own (e.g. a
label as an immediate). The body of a loop (its `bodysize` instructions) is scheduled as a
region of its own, so the body keeps its start and end. Every region keeps its instruction
count, hence every PC, label and branch offset stays valid.

Dependences inside a region: read-after-write (with the producer's result latency),
write-after-read and write-after-write on WDRs and GPRs (x0 never), bn.or.acc among itself
(it reads and writes the ACC WSR), and two DMEM accesses of which one is a store unless they
are provably disjoint: the same base register, not written between them, and byte ranges
that do not overlap (wide: 32 bytes, lw / sw: 4 bytes). Post-increment (.pi) forms write
their base register. The caller may also promise that two base registers never address
the same bytes inside the lines (`noalias`).

Each region is list-scheduled cycle by cycle (`list_schedule`): of the instructions whose
predecessors are placed, the one that issues soonest under the scoreboard, ties broken by
priority (the longer of the latency-weighted path to the region's end and the unit work
that depends on it), then by original position. The original order is kept where it is
not slower (`cycles`). The result is deterministic.
"""
from dataclasses import dataclass
import re

from ip.acc.tools.asm import Assembler, AsmError, _LABEL, _strip_comment
from ip.acc.tools.isa import load_isa
from ip.acc.iss.insn import gpr_reads, gpr_writes, wdr_reads, wdr_writes
from ip.acc.iss.timing import Scoreboard

# DMEM accesses: mnemonic -> (bytes, is_store)
MEM = {"lw": (4, False), "sw": (4, True), "bn.lw": (32, False), "bn.lw.pi": (32, False),
       "bn.sw": (32, True), "bn.sw.pi": (32, True)}
BARRIER_GROUPS = ("loop", "kmac", "smp")
BARRIER_MNEMONICS = ("ecall", "jalr")     # besides any insn with a pcrel, csr or wsr operand
ACC_WSR = ("acc",)                        # pseudo-register: the ACC WSR of bn.or.acc

_asm = None


def assembler() -> Assembler:
    global _asm
    if _asm is None:
        _asm = Assembler(load_isa())
    return _asm


@dataclass
class Op:
    """One decoded instruction line."""
    text: str
    insn: object
    ops: dict
    reads: frozenset = frozenset()     # ('w', n), ('g', n) or ACC_WSR
    writes: frozenset = frozenset()
    mem: tuple = None                  # (base GPR, base version, first byte, end byte, store)


def decode(text: str):
    """(Insn, operand values) of one instruction line, or None for anything else (blank,
    comment, label, .word, or a line that does not assemble without context)."""
    if not _strip_comment(text) or _LABEL.match(text):
        return None
    asm = assembler()
    try:
        word = asm.assemble_line(text)
    except AsmError:
        return None
    if text.split()[0] == ".word":
        return None
    return asm.isa.decode(word)


def is_barrier(insn) -> bool:
    kinds = {op.kind for op in insn.operands.values()}
    return (insn.group in BARRIER_GROUPS or insn.mnemonic in BARRIER_MNEMONICS
            or bool(kinds & {"pcrel", "csr", "wsr"}))


def make_op(text: str, insn, ops: dict, version: dict) -> Op:
    """Op with its register sets; version[base] counts the writes to each GPR so far in the
    region (two accesses through one base compare offsets only under the same version)."""
    reads = {("w", n) for n in wdr_reads(insn, ops)} | {("g", n) for n in gpr_reads(insn, ops)}
    writes = {("w", n) for n in wdr_writes(insn, ops)} | {("g", n) for n in gpr_writes(insn, ops)}
    if insn.mnemonic.endswith(".pi") and ops["grs1"] != 0:
        writes.add(("g", ops["grs1"]))
    if insn.mnemonic == "bn.or.acc":
        reads.add(ACC_WSR)
        writes.add(ACC_WSR)
    mem = None
    if insn.mnemonic in MEM:
        size, store = MEM[insn.mnemonic]
        base = ops["grs1"]
        mem = (base, version.get(base, 0), ops["offset"], ops["offset"] + size, store)
    for kind, n in (w for w in writes if w != ACC_WSR):
        if kind == "g":
            version[n] = version.get(n, 0) + 1
    return Op(text, insn, ops, frozenset(reads), frozenset(writes), mem)


def _disjoint(a: tuple, b: tuple, noalias) -> bool:
    if a[0] != b[0]:
        return frozenset((f"x{a[0]}", f"x{b[0]}")) in noalias
    return a[1] == b[1] and (a[3] <= b[2] or b[3] <= a[2])


def dependences(ops: list, noalias=()) -> list:
    """preds[i] = {j: raw} for every j < i that i must follow; raw: i reads j's result."""
    noalias = {frozenset(p) for p in noalias}
    preds = [{} for _ in ops]
    last_write, readers = {}, {}
    mems = []
    for i, op in enumerate(ops):
        for r in op.reads:
            if r in last_write:
                preds[i][last_write[r]] = True
        for r in op.writes:
            if r in last_write:
                preds[i].setdefault(last_write[r], False)
            for j in readers.get(r, ()):
                if j != i:
                    preds[i].setdefault(j, False)
        for r in op.reads:
            readers.setdefault(r, []).append(i)
        for r in op.writes:
            last_write[r] = i
            readers[r] = []
        if op.mem:
            for j in mems:
                if (op.mem[4] or ops[j].mem[4]) and not _disjoint(op.mem, ops[j].mem, noalias):
                    preds[i].setdefault(j, False)
            mems.append(i)
    return preds


# ------------------------------------------------------------------------------ the core
def _priorities(items: list, preds: list) -> list:
    """Per instruction: max(latency-weighted longest path to the end, the unit cycles of
    its unit-using descendants (itself included)); the unit is the NTT's bottleneck, so
    work that unblocks more of it goes first."""
    isa = assembler().isa
    interval = {u: d["interval"] for u, d in (isa.units or {}).items()}
    succs = [[] for _ in items]
    for i, p in enumerate(preds):
        for j, raw in p.items():
            succs[j].append((i, raw))
    height = [0] * len(items)
    below = [dict() for _ in items]          # unit -> bitset of dependent unit instructions
    for i in reversed(range(len(items))):
        insn = items[i][0]
        h = insn.cycles
        bits = {insn.unit: 1 << i} if insn.unit else {}
        for s, raw in succs[i]:
            w = insn.cycles - 1 + insn.latency if raw else insn.cycles
            h = max(h, w + height[s])
            for u, b in below[s].items():
                bits[u] = bits.get(u, 0) | b
        height[i] = h
        below[i] = bits
    return [max([height[i]] + [interval[u] * b.bit_count() for u, b in below[i].items()])
            for i in range(len(items))]


def list_schedule(items: list, preds: list, window: int = None) -> list:
    """Issue order (indices) of items = [(Insn, operand values)] under preds (as from
    `dependences`): cycle-driven greedy list scheduling on the ISS scoreboard. window:
    consider only instructions less than `window` places after the first unplaced one
    (bounds the work on long blocks and how far a load is hoisted)."""
    prio = _priorities(items, preds)
    waiting = [len(p) for p in preds]
    succs = [[] for _ in items]
    for i, p in enumerate(preds):
        for j in p:
            succs[j].append(i)
    ready = [i for i, w in enumerate(waiting) if w == 0]
    sb = Scoreboard(assembler().isa)
    now, order = 0, []
    placed = [False] * len(items)
    first = 0
    while ready:
        while placed[first]:
            first += 1
        cands = [i for i in ready if window is None or i < first + window]
        best = min(cands, key=lambda i: (sb.stall(*items[i], now), -prio[i], i))
        placed[best] = True
        ready.remove(best)
        order.append(best)
        insn, ops = items[best]
        now += sb.stall(insn, ops, now) + insn.cycles
        sb.issue(insn, ops, now - 1)
        for s in succs[best]:
            waiting[s] -= 1
            if waiting[s] == 0:
                ready.append(s)
    assert len(order) == len(items), "dependence cycle"
    return order


def cycles(items: list, order=None) -> int:
    """Cycles of items in order, from an idle scoreboard, until the last result is ready."""
    sb = Scoreboard(assembler().isa)
    now = 0
    for i in (range(len(items)) if order is None else order):
        insn, ops = items[i]
        now += sb.stall(insn, ops, now) + insn.cycles
        sb.issue(insn, ops, now - 1)
    return max(now, sb.horizon)


# ------------------------------------------------------------------------------ programs
def schedule_region(ops: list, noalias=()) -> list:
    """Ops of one straight-line region, reordered (or as they were, if not slower)."""
    if len(ops) < 2:
        return ops
    items = [(op.insn, op.ops) for op in ops]
    order = list_schedule(items, dependences(ops, noalias))
    if cycles(items, order) < cycles(items):
        return [ops[i] for i in order]
    return ops


def _is_insn_line(text: str) -> bool:
    """Whether the line holds an instruction (counts for a loop body), labels stripped."""
    text = _strip_comment(text)
    while (m := _LABEL.match(text)):
        text = text[m.end():].strip()
    return bool(text)


def schedule(lines: list, noalias=()) -> list:
    """The lines with every straight-line region list-scheduled (see the module doc).
    noalias: pairs of base registers ("x8", "x9") the caller promises never address the
    same DMEM bytes within these lines."""
    out, region, version = [], [], {}

    def flush():
        out.extend(op.text for op in schedule_region(region, noalias))
        region.clear()
        version.clear()

    k = 0
    while k < len(lines):
        text = lines[k]
        k += 1
        dec = decode(text)
        if dec is not None and not is_barrier(dec[0]):
            region.append(make_op(text, *dec, version))
            continue
        flush()
        out.append(text)
        if dec is not None and dec[0].group == "loop":
            # the body: the next bodysize instructions, a region (or more) of its own
            start, n = k, 0
            while k < len(lines) and n < dec[1]["bodysize"]:
                n += _is_insn_line(lines[k])
                k += 1
            out.extend(schedule(lines[start:k], noalias))
    flush()
    return out


# ------------------------------------------------------------------------------ registers
_VIRTUAL = re.compile(r"%[A-Za-z0-9_.]+")


def allocate(lines: list, pool: list) -> list:
    """Replace virtual WDR names ("%name") by registers of pool ("w3", ...): each virtual
    register holds from the line of its first mention to the line of its last, and takes
    the register that has been free the longest (FIFO), which leaves the scheduler the most
    room between two uses of one register."""
    last = {}
    for i, text in enumerate(lines):
        for v in _VIRTUAL.findall(text):
            last[v] = i
    free = list(pool)
    phys, out = {}, []
    for i, text in enumerate(lines):
        names = list(dict.fromkeys(_VIRTUAL.findall(text)))
        for v in names:
            if v not in phys:
                if not free:
                    raise ValueError(f"line {i} ({text!r}): no register left for {v} "
                                     f"(pool of {len(pool)})")
                phys[v] = free.pop(0)
        out.append(_VIRTUAL.sub(lambda m: phys[m.group(0)], text))
        for v in names:
            if last[v] == i:
                free.append(phys.pop(v))
    return out


def just_in_time(lines: list, loads: dict, stores: dict) -> list:
    """Program order for a block on virtual registers: the load of a register (loads[name])
    right before the first line that names it, its store (stores[name]) right after the
    last. Each value then holds a register for as short a stretch of the program as
    possible, so `allocate` leaves more registers free for the neighbouring work, which is
    what lets the scheduler overlap it."""
    last = {}
    for i, text in enumerate(lines):
        for v in _VIRTUAL.findall(text):
            last[v] = i
    out, loaded = [], set()
    for i, text in enumerate(lines):
        names = list(dict.fromkeys(_VIRTUAL.findall(text)))
        for v in names:
            if v in loads and v not in loaded:
                loaded.add(v)
                out.append(loads[v])
        out.append(text)
        out += [stores[v] for v in names if last[v] == i and v in stores]
    return out
