# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""Free-running ring oscillators, the entropy source's noise: `out[i]` is ring i's output while
`en` is 1, asynchronous to every clock.

kind (as ip/common/clock_gate.py: one model for simulation, one per technology):
- "sky130": each ring a NAND2 (its second input is `en`: the ring stops at 0) and an even
  number of inverters, `sky130_fd_sc_hd__nand2_1` / `__inv_1` instances marked `keep`, so
  synthesis neither maps nor removes them. Rings of different prime lengths run at unrelated
  frequencies; their jitter against the system clock is the entropy. That is analog behaviour:
  no simulator here models it (a cycle-based one cannot run a combinational loop at all), so
  the entropy per bit is a claim until bring-up measures the raw bits (doc/spec.md).
- "model": for RTL simulation, a 32-bit xorshift generator per ring stepped every cycle
  while `en` (the output its low bit; each ring its own seed), so the sampler, the health
  tests and the software above them run; it has no entropy: the same bits every run.
"""
from amaranth import Instance, Module, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

KINDS = ("model", "sky130")
NAND, INV = "sky130_fd_sc_hd__nand2_1", "sky130_fd_sc_hd__inv_1"
# Stages per ring (odd: the loop inverts), primes so that no two rings lock to a common multiple.
LENGTHS = (31, 37, 41, 43)


class Rings(wiring.Component):
    def __init__(self, kind: str = "model", lengths: tuple[int, ...] = LENGTHS, seed: int = 1):
        if kind not in KINDS:
            raise ValueError(f"ring oscillator kind {kind!r}: known kinds are {', '.join(KINDS)}")
        if not lengths or any(n < 3 or n % 2 == 0 for n in lengths):
            raise ValueError(f"ring lengths {lengths}: each must be odd and at least 3")
        self.kind, self.lengths, self.seed = kind, tuple(lengths), seed
        super().__init__({"en": In(1), "out": Out(len(lengths))})

    def elaborate(self, platform):
        m = Module()
        for i, n in enumerate(self.lengths):
            if self.kind == "sky130":
                nodes = [Signal(name=f"ring{i}_n{j}") for j in range(n)]
                m.submodules[f"ring{i}_nand"] = Instance(NAND, a_keep=1, i_A=self.en, i_B=nodes[-1],
                                                         o_Y=nodes[0])
                for j in range(1, n):
                    m.submodules[f"ring{i}_inv{j}"] = Instance(INV, a_keep=1, i_A=nodes[j - 1], o_Y=nodes[j])
                m.d.comb += self.out[i].eq(nodes[-1])
            else:
                seed = (0x9E3779B9 * (self.seed + i + 1)) & 0xFFFFFFFF or 1
                x = Signal(32, init=seed, name=f"ring{i}_model")
                t1 = Signal(32, name=f"ring{i}_t1")
                t2 = Signal(32, name=f"ring{i}_t2")
                m.d.comb += [t1.eq(x ^ (x << 13)[:32]), t2.eq(t1 ^ (t1 >> 17))]
                with m.If(self.en):
                    m.d.sync += x.eq(t2 ^ (t2 << 5)[:32])
                m.d.comb += self.out[i].eq(x[0] & self.en)
        return m
