# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""Simulation top: the ACC with a KMAC block on its side-load port (the KMAC's CPU bus idle),
as in the SoC (the hookup is ip/acc/rtl/pqc.py's kmac_on_sideload, the SoC's own). Emitted
under the name `acc` with the ACC's ports, so the host driver (ip/acc/dv/acc_host.cpp) runs it
unchanged."""
from amaranth import Module
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from ip.common.wishbone import WishboneSignature
from ip.kmac.rtl.kmac import Kmac

from ip.acc.rtl.acc import Acc
from ip.acc.rtl.pqc import DV_KMAC_MASKED, KMAC_ROUNDS_PER_CYCLE, kmac_on_sideload


class AccWithKmac(wiring.Component):
    def __init__(self, imem_size: int, dmem_size: int, addr_width: int = 30):
        self.acc = Acc(imem_size, dmem_size, addr_width=addr_width)
        self.kmac = Kmac(rounds_per_cycle=KMAC_ROUNDS_PER_CYCLE, masked=DV_KMAC_MASKED)
        super().__init__({"bus": In(WishboneSignature(addr_width)), "irq": Out(1), "busy": Out(1)})

    def elaborate(self, platform):
        m = Module()
        m.submodules.acc = self.acc
        wiring.connect(m, wiring.flipped(self.bus), self.acc.bus)
        kmac_on_sideload(m, self.acc.sideload, self.kmac)
        m.d.comb += [self.irq.eq(self.acc.irq), self.busy.eq(self.acc.busy)]
        return m
