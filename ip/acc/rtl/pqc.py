# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""PQC subsystem: the ACC coprocessor, the KMAC block and the entropy source, with the ACC's
side-load master port wired to the KMAC inside (`kmac_on_sideload`, which the test tops
ip/acc/dv/rtl_top.py and ip/acc/dv/gls_top.py use too), so the SoC instantiates one Verilog
module with three Wishbone slave ports and two interrupt lines.

Ports (Amaranth flattens them to kmac_bus__adr, ..., acc_bus__adr, ..., kmac_irq, acc_irq):
  kmac_bus  Wishbone slave, the KMAC registers (ip/kmac/data/kmac_regs.yml), a 4 KiB window
  acc_bus   Wishbone slave, the ACC host interface (ip/acc/data/acc_regs.yml: registers at 0,
            IMEM at 0x10000, DMEM at 0x20000), a 256 KiB window
  acc_dma   Wishbone master, the ACC's DMA on the system bus (ip/acc/rtl/dma.py), word address
  entropy_bus  Wishbone slave, the entropy source's registers (ip/entropy/data/entropy_regs.yml),
            a 4 KiB window; its rings are `entropy_kind`'s (ip/entropy/rtl/rings.py: "model" for
            the simulation SoC, "sky130" cells for silicon); entropy_kind None: no entropy source
  kmac_irq, acc_irq
  acc_busy  the ACC's core runs or its DMA copies (the SoC's bus guard, soc/access.py)
The CPU (kmac_bus) and the ACC (side-load) share the KMAC; the KMAC arbitrates between them
(ip/kmac/doc/spec.md): while the ACC holds the side-load port, CPU commands are refused.
"""
from amaranth import Module
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from ip.common.wishbone import WishboneSignature
from ip.entropy import block as entropy_block
from ip.entropy.rtl.entropy_src import EntropySource
from ip.kmac import block as kmac_block
from ip.kmac.rtl.kmac import Kmac

from ip.acc.rtl.acc import Acc

KMAC_ADDR_WIDTH = kmac_block.ADDR_WIDTH   # word address bits of the 4 KiB KMAC window (block kmac's)
ENTROPY_ADDR_WIDTH = entropy_block.ADDR_WIDTH   # the entropy source's 4 KiB window (block entropy_src's)
ACC_ADDR_WIDTH = 16    # word address bits of the 256 KiB ACC window (regs, IMEM, DMEM)
KMAC_ROUNDS_PER_CYCLE = 1
# The ACC's test tops (ip/acc/dv: the lockstep fuzzer's RTL, the power model, the gate-level top)
# hold a KMAC with its masked mode, so the ACC's masked instructions are tested against it (the
# ISS's KMAC model has it too, ip/acc/iss/machine.py), as the SoC's (kmac_block.MASKED).
DV_KMAC_MASKED = True


def add_submodule(m: Module, name: str, component) -> None:
    m.submodules[name] = component


def kmac_on_sideload(m: Module, sideload, kmac: Kmac | None = None, cpu_bus_idle: bool = True,
                     add=add_submodule) -> Kmac:
    """The ACC's side-load hookup, the one place it is written: adds `kmac` (None: a new Kmac)
    to `m` as submodule `kmac` (through `add`) and connects its side-load port to `sideload`,
    the ACC's master port (`Acc.sideload`, or a SideloadSignature interface that stands for a
    netlist's ports). cpu_bus_idle holds the KMAC's CPU bus idle (the ACC test tops, where only
    the ACC uses the KMAC); the SoC connects that bus itself."""
    if kmac is None:
        kmac = Kmac(rounds_per_cycle=KMAC_ROUNDS_PER_CYCLE, masked=DV_KMAC_MASKED)
    add(m, "kmac", kmac)
    wiring.connect(m, sideload, kmac.sideload)
    if cpu_bus_idle:
        m.d.comb += [kmac.bus.cyc.eq(0), kmac.bus.stb.eq(0)]
    return kmac


class PqcSubsystem(wiring.Component):
    def __init__(self, imem_size: int = 8 * 1024, dmem_size: int = 16 * 1024,
                 sram_macro: str | None = None, clock_gate: str | None = "generic",
                 entropy_kind: str | None = "model"):
        self.acc = Acc(imem_size, dmem_size, addr_width=ACC_ADDR_WIDTH, sram_macro=sram_macro,
                       clock_gate=clock_gate)
        self.kmac = Kmac(rounds_per_cycle=KMAC_ROUNDS_PER_CYCLE, addr_width=KMAC_ADDR_WIDTH,
                         masked=kmac_block.MASKED)
        self.entropy = None if entropy_kind is None else EntropySource(kind=entropy_kind,
                                                                       addr_width=ENTROPY_ADDR_WIDTH)
        ports = {"kmac_bus": In(WishboneSignature(KMAC_ADDR_WIDTH))}
        if self.entropy is not None:
            ports["entropy_bus"] = In(WishboneSignature(ENTROPY_ADDR_WIDTH))
        super().__init__({**ports,
                          "acc_bus": In(WishboneSignature(ACC_ADDR_WIDTH)),
                          "acc_dma": Out(WishboneSignature(30, burst=True)),
                          "kmac_irq": Out(1), "acc_irq": Out(1), "acc_busy": Out(1)})

    def add_block(self, m: Module, name: str, component) -> None:
        """Adds the ACC or the KMAC to the subsystem (a subclass may put a black box instead,
        for a flow that hardens them on their own)."""
        add_submodule(m, name, component)

    def elaborate(self, platform):
        m = Module()
        self.add_block(m, "acc", self.acc)
        wiring.connect(m, wiring.flipped(self.kmac_bus), self.kmac.bus)
        wiring.connect(m, wiring.flipped(self.acc_bus), self.acc.bus)
        if self.entropy is not None:
            m.submodules.entropy = self.entropy
            wiring.connect(m, wiring.flipped(self.entropy_bus), self.entropy.bus)
        wiring.connect(m, self.acc.dma, wiring.flipped(self.acc_dma))
        kmac_on_sideload(m, self.acc.sideload, self.kmac, cpu_bus_idle=False, add=self.add_block)
        m.d.comb += [self.kmac_irq.eq(self.kmac.irq), self.acc_irq.eq(self.acc.irq),
                     self.acc_busy.eq(self.acc.busy)]
        return m
