# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""Integrated clock gate: `gclk` follows the `sync` clock in the cycles whose `en` is 1.

`en` is sampled while the clock is low (as a latch-based ICG does), so `gclk` has no glitch and
a cycle's `en` decides that cycle's closing rising edge: like a flop's enable, with the same
setup requirement before the edge (STA times it as a clock-gating check on the ICG's GATE pin).

kind (OpenTitan's prim_clock_gating pattern: one behavioural model, one per technology):
- "generic": Amaranth logic, `en` captured at the falling edge by a flop, AND-ed with the
  clock. Equivalent to the latch for an `en` that is stable while the clock is low, which a
  synchronous design guarantees. For RTL simulation (Verilator, Icarus).
- "sky130": an instance of `sky130_fd_sc_hd__dlclkp_1` (latch + AND in one cell; Yosys keeps
  it, OpenSTA propagates the clock through it). For synthesis. Its simulation model is the
  gate-level flow's hand model (pqsoc.flow.gls.clock_gate_models).

Amaranth's own simulator updates a clock derived combinationally from another domain's clock
one delta after that domain's flops, so logic clocked by `gclk` would see their new values:
designs simulated there are built without a gate (see Acc's clock_gate=None).
"""
from amaranth import ClockDomain, ClockSignal, Instance, Module, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

KINDS = ("generic", "sky130")
SKY130_CELL = "sky130_fd_sc_hd__dlclkp_1"


class ClockGate(wiring.Component):
    en: In(1)
    gclk: Out(1)

    def __init__(self, kind: str = "generic"):
        self._MustUse__silence = True          # no "never used" warning if the check fails
        if kind not in KINDS:
            raise ValueError(f"clock gate kind {kind!r}: known kinds are {', '.join(KINDS)}")
        self.kind = kind
        super().__init__()

    def elaborate(self, platform):
        m = Module()
        if self.kind == "sky130":
            m.submodules.icg = Instance(SKY130_CELL, i_CLK=ClockSignal(), i_GATE=self.en,
                                        o_GCLK=self.gclk)
            return m
        m.domains.gate_fall = ClockDomain(clk_edge="neg", reset_less=True, local=True)
        m.d.comb += ClockSignal("gate_fall").eq(ClockSignal())
        en_q = Signal()
        m.d.gate_fall += en_q.eq(self.en)
        m.d.comb += self.gclk.eq(ClockSignal() & en_q)
        return m
