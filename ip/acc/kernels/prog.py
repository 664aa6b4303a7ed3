# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""Straight-line ACC code on virtual registers: `Prog` takes instructions in program order on
virtual ("%name") and fixed ("w15", "x10") registers, allocates the virtual ones FIFO from a
pool of WDRs and list-schedules the block on the ISS's timing model (result latencies and
the multiplier's issue interval, ip.acc.tools.sched). The product, decode and packing
kernels of both schemes are written on it.
"""
from collections import deque

from ip.acc.tools import sched


class Prog:
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
            for r in dict.fromkeys(s):       # sources dying here free their register first
                                             # (once, if an op reads it twice)
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
