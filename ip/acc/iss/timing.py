# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""Issue timing from isa.yml's `latency` and `unit` fields (the ISS's stalls; the RTL's
interlocks do the same, checked in lockstep by the fuzzer).

Cycles are numbered as the ISS counts them (`Iss.cycles` before an instruction = the first
cycle it could issue in). An instruction waits until every register it reads is ready and
its unit (if any) is free; its results are ready `latency` cycles after the cycle it
completes in, its unit free `interval` cycles after. A later write replaces a pending one:
the register's readiness is then the later writer's.
"""
from ip.acc.iss.insn import operand_reads, wdr_writes, gpr_writes


class Scoreboard:
    def __init__(self, isa):
        self.interval = {name: u["interval"] for name, u in (isa.units or {}).items()}
        self.reset()

    def reset(self):
        self.ready = {}          # ('w'|'g', n) -> first cycle a reader issues without a stall
        self.free = {}           # unit -> first cycle it accepts an instruction
        self.horizon = 0         # no stall at all from this cycle on

    def stall(self, insn, ops, now: int) -> int:
        """Cycles the instruction waits before its first cycle, if it issues at `now`."""
        if now >= self.horizon:
            return 0
        s = 0
        if insn.unit:
            s = self.free.get(insn.unit, 0) - now
        for r in operand_reads(insn, ops):
            s = max(s, self.ready.get(r, 0) - now)
        return max(s, 0)

    def issue(self, insn, ops, done: int):
        """The instruction completed in cycle `done` (its last cycle)."""
        if insn.latency == 1 and not insn.unit and done + 1 >= self.horizon:
            return                       # nothing pending outlives this instruction's writes
        for r in ({("w", n) for n in wdr_writes(insn, ops)}
                  | {("g", n) for n in gpr_writes(insn, ops)}):
            if insn.latency > 1 or self.ready.get(r, 0) > done + 1:
                self.ready[r] = done + insn.latency
        if insn.unit:
            self.free[insn.unit] = done + self.interval[insn.unit]
        if insn.latency > 1 or insn.unit:
            self.horizon = max(self.horizon, done + insn.latency,
                               done + self.interval.get(insn.unit, 0))
