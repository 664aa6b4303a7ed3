"""PQC subsystem: the ACC coprocessor and the KMAC block, with the ACC's side-load master port
wired to the KMAC inside (as in ip/acc/dv/rtl_top.py), so the SoC instantiates one Verilog
module with two Wishbone slave ports and two interrupt lines.

Ports (Amaranth flattens them to kmac_bus__adr, ..., acc_bus__adr, ..., kmac_irq, acc_irq):
  kmac_bus  Wishbone slave, the KMAC registers (ip/kmac/data/kmac_regs.yml), a 4 KiB window
  acc_bus   Wishbone slave, the ACC host interface (ip/acc/data/acc_regs.yml: registers at 0,
            IMEM at 0x10000, DMEM at 0x20000), a 256 KiB window
  kmac_irq, acc_irq
The CPU (kmac_bus) and the ACC (side-load) share the KMAC; the KMAC arbitrates between them
(ip/kmac/doc/spec.md): while the ACC holds the side-load port, CPU commands are refused.
"""
from amaranth import Module
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from ip.common.wishbone import WishboneSignature
from ip.kmac.rtl.kmac import Kmac

from ip.acc.rtl.acc import Acc

KMAC_ADDR_WIDTH = 10   # word address bits of the 4 KiB KMAC window
ACC_ADDR_WIDTH = 16    # word address bits of the 256 KiB ACC window (regs, IMEM, DMEM)


class PqcSubsystem(wiring.Component):
    def __init__(self, imem_size: int = 8 * 1024, dmem_size: int = 16 * 1024,
                 sram_macro: str | None = None, clock_gate: str | None = "generic"):
        self.acc = Acc(imem_size, dmem_size, addr_width=ACC_ADDR_WIDTH, sram_macro=sram_macro,
                       clock_gate=clock_gate)
        self.kmac = Kmac(rounds_per_cycle=1, addr_width=KMAC_ADDR_WIDTH)
        super().__init__({"kmac_bus": In(WishboneSignature(KMAC_ADDR_WIDTH)),
                          "acc_bus": In(WishboneSignature(ACC_ADDR_WIDTH)),
                          "kmac_irq": Out(1), "acc_irq": Out(1)})

    def elaborate(self, platform):
        m = Module()
        m.submodules.acc = self.acc
        m.submodules.kmac = self.kmac
        wiring.connect(m, wiring.flipped(self.kmac_bus), self.kmac.bus)
        wiring.connect(m, wiring.flipped(self.acc_bus), self.acc.bus)
        wiring.connect(m, self.acc.sideload, self.kmac.sideload)
        m.d.comb += [self.kmac_irq.eq(self.kmac.irq), self.acc_irq.eq(self.acc.irq)]
        return m
