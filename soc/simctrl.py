# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""Simulation control: firmware writes an exit code here to end a simulation.

A LiteX core like any other: one CSR, so its address lands in csr.h/csr.json. Only the
simulation variant of the SoC (PQSoC(sim=True)) has it; the harness watches its two ports.
"""
from litex.gen import LiteXModule
from litex.soc.interconnect.csr import CSRStorage


class SimCtrl(LiteXModule):
    def __init__(self, pads):
        self.finish = CSRStorage(32, description=(
            "Write to end the simulation: bits 7:0 = exit code (0 = success), "
            "bit 8 = abnormal end (trap or bus error, diagnosed on the UART before)."))
        self.comb += [
            pads.valid.eq(self.finish.re),
            pads.code.eq(self.finish.storage),
        ]
