# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""Free-running ring oscillators, the entropy source's noise: `out[i]` is ring i's output while
`en` is 1, asynchronous to every clock.

kind (as ip/common/clock_gate.py: one model for simulation, one per technology):
- "sky130": ring i is an instance of module `pqsoc_ring<n>` (n stages), whose Verilog
  (`cells_verilog`) is a `sky130_fd_sc_hd__nand2_1` with `en` on its other input (the ring
  stops at 0) and n - 1 `sky130_fd_sc_hd__inv_1`, every cell marked `keep`, so synthesis
  neither maps nor removes them. Rings of different prime lengths run at unrelated
  frequencies; their jitter against the system clock is the entropy. That is analog behaviour:
  no simulator here models it (a cycle-based one cannot run a combinational loop at all), so
  the entropy per bit is a claim until bring-up measures the raw bits (doc/spec.md). The module
  has a `clk` port that only its simulation model (`model_verilog`) uses: the silicon SoC's RTL
  and netlist simulations put the model in place of the cells (ip/entropy/dv/gls.py).
- "model": the same model in Amaranth, for the Amaranth simulator and the simulation SoC: a
  32-bit xorshift generator per ring stepped every cycle while `en`, its low bit the output, the
  seed from the ring's length. It has no entropy: the same bits every run.
"""
from amaranth import ClockSignal, Instance, Module, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

KINDS = ("model", "sky130")
NAND, INV = "sky130_fd_sc_hd__nand2_1", "sky130_fd_sc_hd__inv_1"
# Stages per ring (odd: the loop inverts), primes so that no two rings lock to a common multiple.
LENGTHS = (31, 37, 41, 43)


def module_name(n: int) -> str:
    return f"pqsoc_ring{n}"


def model_seed(n: int) -> int:
    """The model's start state for a ring of n stages (never 0: xorshift stays at 0)."""
    return (0x9E3779B9 * n) & 0xFFFFFFFF or 1


def cells_verilog(lengths: tuple[int, ...] = LENGTHS) -> str:
    """The rings as silicon: one module per length, the cells kept."""
    out = ["// The entropy source's ring oscillators as sky130 cells (ip/entropy/rtl/rings.py).",
           "// `clk` is used only by their simulation model (rings.model_verilog)."]
    for n in sorted(set(lengths)):
        out += ["/* verilator lint_off UNUSEDSIGNAL */",
                f"module {module_name(n)}(input clk, input en, output out);",
                "/* verilator lint_on UNUSEDSIGNAL */",
                f"  wire [{n - 1}:0] n;",
                f"  (* keep *) {NAND} nand0 (.A(en), .B(n[{n - 1}]), .Y(n[0]));"]
        out += [f"  (* keep *) {INV} inv{j} (.A(n[{j - 1}]), .Y(n[{j}]));" for j in range(1, n)]
        out += [f"  assign out = n[{n - 1}];", "endmodule", ""]
    return "\n".join(out)


def model_verilog(lengths: tuple[int, ...] = LENGTHS) -> str:
    """The rings' simulation model, the same module names and ports: the Amaranth model's
    generator, stepped on `clk` while `en`. No entropy: for RTL and gate-level simulation only."""
    out = ["// Simulation model of the entropy source's ring oscillators (ip/entropy/rtl/rings.py):",
           "// a 32-bit xorshift per ring, no entropy. Never synthesized."]
    for n in sorted(set(lengths)):
        out += [f"module {module_name(n)}(input clk, input en, output out);",
                f"  reg [31:0] x = 32'h{model_seed(n):08x};",
                "  wire [31:0] t1 = x ^ (x << 13);",
                "  wire [31:0] t2 = t1 ^ (t1 >> 17);",
                "  always @(posedge clk) if (en) x <= t2 ^ (t2 << 5);",
                "  assign out = x[0] & en;", "endmodule", ""]
    return "\n".join(out)


class Rings(wiring.Component):
    def __init__(self, kind: str = "model", lengths: tuple[int, ...] = LENGTHS):
        if kind not in KINDS:
            raise ValueError(f"ring oscillator kind {kind!r}: known kinds are {', '.join(KINDS)}")
        if not lengths or any(n < 3 or n % 2 == 0 for n in lengths) or len(set(lengths)) != len(lengths):
            raise ValueError(f"ring lengths {lengths}: each must be odd, at least 3, and differ")
        self.kind, self.lengths = kind, tuple(lengths)
        super().__init__({"en": In(1), "out": Out(len(lengths))})

    def elaborate(self, platform):
        m = Module()
        for i, n in enumerate(self.lengths):
            if self.kind == "sky130":
                # a named output, so that the net closing the ring keeps a name of the ring's
                # (`rings.ring<i>_out`) where synthesis flattens it (block.RING_NAME_RX)
                ring_out = Signal(name=f"ring{i}_out")
                m.submodules[f"ring{i}"] = Instance(module_name(n), i_clk=ClockSignal(), i_en=self.en,
                                                    o_out=ring_out)
                m.d.comb += self.out[i].eq(ring_out)
            else:
                # no reset, as the Verilog model: both start from the seed at power-up only
                x = Signal(32, init=model_seed(n), reset_less=True, name=f"ring{i}_model")
                t1 = Signal(32, name=f"ring{i}_t1")
                t2 = Signal(32, name=f"ring{i}_t2")
                m.d.comb += [t1.eq(x ^ (x << 13)[:32]), t2.eq(t1 ^ (t1 >> 17))]
                with m.If(self.en):
                    m.d.sync += x.eq(t2 ^ (t2 << 5)[:32])
                m.d.comb += self.out[i].eq(x[0] & self.en)
        return m
