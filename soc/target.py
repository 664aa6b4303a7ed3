# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""The pqsoc SoC: Ibex (rv32imc) + boot ROM + main SRAM + UART, timer, GPIO, UART bridge
(+ sim control in the simulation variant) + the PQC subsystem (KMAC block, ACC coprocessor and
entropy source, one Verilog module `pqc`, ip/acc/rtl/pqc.py).

Memory map (LiteX's default SoCCore map; csr.json / generated/mem.h are the source of truth):
  0x0000_0000 rom      boot ROM holding the firmware (rom_size, default ROM_SIZE = 128 KiB)
  0x0100_0000 sram     main SRAM: data, bss, stack (sram_size, default 32 KiB)
  0x8000_0000 ext0     first of our Wishbone windows (16 MiB each, EXT_BASE): the KMAC block's
                       registers (region "kmac", 4 KiB), port kmac_bus of `pqc`; after them the
                       entropy source's (region "entropy", 4 KiB at +0x1000), port entropy_bus
  0x8100_0000 ext1     EXT_BASE + EXT_STRIDE: the ACC coprocessor (region "acc", 256 KiB:
                       registers +0, IMEM +0x10000, DMEM +0x20000; 32 KiB each by default,
                       ACC_IMEM_SIZE / ACC_DMEM_SIZE), port acc_bus of `pqc`
  0x8200_0000 csr      LiteX CSR bank (ctrl, uart, timer0, gpio_in/out, simctrl)
Interrupts (Ibex fast irq n = mcause 16 + n): uart 0, timer0 1, gpio_in 2, then added blocks
(kmac 3, acc 4 in the default build).
The ACC drives the KMAC's side-load port inside `pqc`: the CPU (through region kmac) and the
ACC (kmac.* instructions) share the one KMAC block, which arbitrates between them.
"""
from pathlib import Path

from migen import Cat, ClockDomain, Mux, ResetSignal, Signal

from litex.soc.interconnect.csr import AutoCSR, CSRStorage

from litex.gen import LiteXModule
from litex.soc.integration.soc_core import SoCCore
from litex.soc.cores.gpio import GPIOOut, GPIOIn

from ip.acc import block as acc_block
from ip.common import SYS_CLK_PERIOD_NS
from soc import ibex
from soc.platform import Platform
from soc.simctrl import SimCtrl
from soc.access import ExtAccess, ExtGuard
from soc.extslave import MasterPort, SlavePort, WishboneBlock, WishboneSlave, add_ext

SYS_CLK_FREQ = round(1e9 / SYS_CLK_PERIOD_NS)
BRINGUP_BAUDRATE = 1_000_000   # UART bridge; the host side reads it from csr.json
# Console UART of the silicon SoC (uart_tx/rx pins; the simulation SoC's console is a stream):
# 1 Mbaud like the bridge (50 cycles per bit at 50 MHz; USB-UART adapters take it), so that a
# gate-level simulation of the firmware spends ~500 cycles per character instead of ~4 300 at
# 115 200. Exported as the constant UART_BAUDRATE (csr.json, generated/soc.h).
UART_BAUDRATE = 1_000_000
UART_FIFO_DEPTH = 4
EXT_BASE = 0x8000_0000          # first external Wishbone block; one 16 MiB window per block
EXT_STRIDE = 0x0100_0000
# Boot ROM of the simulation SoC (`pqsoc soc build`): 128 KiB, because firmware/programs/pqc_ops
# carries the whole ML-KEM-768 decaps and ML-DSA-65 signing programs with their inputs and
# expected outputs (~72 KB). The ROM is a behavioural memory ($readmemh) in simulation.
ROM_SIZE = 128 * 1024


# The Caravel top's debug probes (la_data_out[0..7], soc/caravel.py) and interrupts (user_irq)
PROBES = ("sys_rst", "boot_hold", "acc_busy", "locked", "acc_irq", "kmac_irq", "notify")
USER_IRQ = ("acc_irq", "kmac_irq", "notify")


class _CRG(LiteXModule):
    def __init__(self, platform):
        self.cd_sys = ClockDomain()
        self.comb += [
            self.cd_sys.clk.eq(platform.request("sys_clk")),
            self.cd_sys.rst.eq(platform.request("sys_rst")),
        ]


class _CaravelCRG(LiteXModule):
    """Caravel's clocks: the SoC runs on wb_clk_i, or on user_clock2 while `clk_sel` is 1 (a
    plain multiplexer, as in Caravel's example project: change it only while the SoC is held
    in reset). The SoC's reset is the management reset or `user_rst`, released synchronously
    to the selected clock (two flops). Domain `mgmt` is the management Wishbone's (wb_clk_i,
    wb_rst_i); `port_rst` is wb_rst_i synchronised to the SoC clock (soc/mgmt_port.py)."""

    def __init__(self, platform):
        self.cd_sys = ClockDomain()
        self.cd_mgmt = ClockDomain()
        wb = platform.request("wb")
        sel, clk2 = platform.request("clk_sel"), platform.request("user_clock2")
        rst_req = Signal()
        self.comb += [self.cd_mgmt.clk.eq(wb.clk_i), self.cd_mgmt.rst.eq(wb.rst_i),
                      self.cd_sys.clk.eq(Mux(sel, clk2, wb.clk_i)),
                      rst_req.eq(wb.rst_i | platform.request("user_rst"))]
        # Power-up value 0 (a simulator needs one; silicon has a random one): the management
        # reset, asserted at power-up, then makes an edge on the SoC's reset, which Ibex's
        # asynchronous reset needs behind its clock gate (as sim/silicon_harness.cpp explains).
        sys_rst = [Signal(reset_less=True) for _ in range(2)]
        port_rst = [Signal(reset_less=True) for _ in range(2)]
        self.port_rst = port_rst[1]
        self.sync += [sys_rst[0].eq(rst_req), sys_rst[1].eq(sys_rst[0]),
                      port_rst[0].eq(wb.rst_i), port_rst[1].eq(port_rst[0])]
        self.comb += self.cd_sys.rst.eq(sys_rst[1])


class BootHold(LiteXModule, AutoCSR):
    """Silicon SoC: the CPU fetches no instruction from power-up until the host clears `hold`
    over the UART bridge, having loaded the boot RAM (which holds nothing at power-up)."""
    def __init__(self):
        self.hold = CSRStorage(1, reset=1, description="1: the CPU fetches no instruction "
                               "(Ibex fetch_enable off; reset value)")


class PQSoC(SoCCore):
    def __init__(self, rom_init=None, rom_size=ROM_SIZE, sram_size=32 * 1024, sim=True,
                 ext_slaves: tuple[WishboneBlock | WishboneSlave, ...] = (),
                 memories: WishboneBlock | None = None, caravel: bool = False):
        """memories: the silicon SoC's boot RAM and main SRAM on SRAM macros (a WishboneBlock
        with ports "rom" at 0 and "sram" at SRAM_BASE, see memories_block()); they replace
        LiteX's integrated ROM / SRAM, and the CPU then waits for the host (BootHold).
        caravel: the top for Caravel's user_project_wrapper (soc/caravel.py): its clocks and
        reset, the management Wishbone as a second outside master, interrupts and probes."""
        ibex.register()
        platform = Platform()
        if caravel and memories is None:
            raise ValueError("the Caravel top needs the silicon memories (boot RAM, boot_hold)")
        self.crg = _CaravelCRG(platform) if caravel else _CRG(platform)
        if memories is not None:
            rom_size, sram_size, rom_init = 0, 0, []
        elif rom_init is None:
            # A non-empty placeholder makes LiteX emit $readmemh for the ROM, so a simulation
            # can load any firmware through the .init file without regenerating the Verilog.
            rom_init = [0x0000_006f] * (rom_size // 4)   # `j .` everywhere
        SoCCore.__init__(self, platform, SYS_CLK_FREQ,
            ident="pqsoc", cpu_type=ibex.NAME, cpu_reset_address=0,
            integrated_rom_size=rom_size, integrated_rom_init=rom_init,
            integrated_sram_size=sram_size,
            uart_name="sim" if sim else "uart", uart_baudrate=UART_BAUDRATE,
            # the console's FIFOs 4 deep, not LiteX's 16: the firmware polls TX and reads no
            # input (the host's path to the bus is the bring-up UART's bridge), and their
            # registers' area went to the ACC's masked interval unit (docs/side_channels.md)
            uart_fifo_depth=UART_FIFO_DEPTH,
            with_timer=True, timer_uptime=True,
            # Our Ibex bridge answers unmapped accesses with a bus error after 256 cycles;
            # LiteX's own timeout would instead "ack" with 0xffffffff and hide the fault.
            bus_timeout=None,
            # LiteX's ROM and SRAM answer incrementing bursts a word a cycle (the ACC's DMA
            # bursts; the CPU's bridge makes classic accesses, answered as before).
            bus_bursting=True, bus_interconnect="crossbar",
        )
        # Bring-up path: a host reaches the whole bus (ROM, SRAM, CSRs, our blocks) through the
        # LiteX UART bridge, independent of the CPU. Protocol: litex/tools/remote/comm_uart.py.
        self.add_constant("BRINGUP_UART_BAUDRATE", BRINGUP_BAUDRATE)
        if not sim:
            self.add_constant("UART_BAUDRATE", UART_BAUDRATE)
        self.gpio_out = GPIOOut(platform.request("gpio_out"))
        self.gpio_in = GPIOIn(platform.request("gpio_in"), with_irq=True)
        self.irq.add("gpio_in", use_loc_if_exists=True)
        if sim:
            self.simctrl = SimCtrl(platform.request("simctrl"))
        if memories is not None:
            add_ext(self, memories)
            self.boot = BootHold()
            self.comb += self.cpu.hold.eq(self.boot.hold.storage)
        for s in ext_slaves:
            add_ext(self, s)
        self._add_outside_masters(platform, caravel)

    def probes(self) -> list:
        """(name, signal) of the logic analyzer's probes in PROBES order, bit 0 first (the
        wrapper puts them on la_data_out, soc/caravel.py)."""
        outs = getattr(self, "block_outputs", {})
        zero = Signal()
        sig = {"sys_rst": ResetSignal("sys"), "boot_hold": self.boot.hold.storage,
               "acc_busy": self.extaccess.acc_busy, "locked": self.extaccess.locked,
               "acc_irq": outs.get("acc_irq", zero), "kmac_irq": outs.get("kmac_irq", zero),
               "notify": self.extaccess.notify.storage}
        return [(n, sig[n]) for n in PROBES]

    def _add_outside_masters(self, platform, caravel: bool) -> None:
        """The UART bridge (and in Caravel the management Wishbone), each behind an ExtGuard
        (soc/access.py): the bus access policy for masters other than the CPU."""
        from litex.soc.cores.uart import UARTBone, UARTPHY
        from soc.mgmt_port import MgmtPort
        masters = {}
        self.uartbone_phy = UARTPHY(platform.request("bringup"), SYS_CLK_FREQ, BRINGUP_BAUDRATE)
        self.uartbone = UARTBone(phy=self.uartbone_phy, clk_freq=SYS_CLK_FREQ,
                                 address_width=self.bus.address_width)
        masters["bridge"] = self.uartbone.wishbone
        if caravel:
            self.mgmt_port = port = MgmtPort()
            wbs = platform.request("wbs")
            self.comb += [port.wbs_cyc_i.eq(wbs.cyc_i), port.wbs_stb_i.eq(wbs.stb_i),
                          port.wbs_we_i.eq(wbs.we_i), port.wbs_sel_i.eq(wbs.sel_i),
                          port.wbs_adr_i.eq(wbs.adr_i), port.wbs_dat_i.eq(wbs.dat_i),
                          wbs.ack_o.eq(port.wbs_ack_o), wbs.dat_o.eq(port.wbs_dat_o),
                          port.port_rst.eq(self.crg.port_rst)]
            masters["mgmt"] = port.master
        self.csr.add("extaccess", use_loc_if_exists=True)
        self.extaccess = ext = ExtAccess(tuple(masters))
        status = (self.mem_map["csr"] + self.csr.locs["extaccess"] * self.csr.paging, self.csr.paging)
        acc_busy = getattr(self, "block_outputs", {}).get("acc_busy")
        if acc_busy is not None:
            self.comb += ext.acc_busy.eq(acc_busy)
        # without an ACC (test SoCs), an empty window: nothing to refuse there
        acc = (ACC_BASE, ACC_SIZE) if acc_busy is not None else (0, 0)
        for name, master in masters.items():
            guard = ExtGuard(master, acc, status, ext.acc_busy, ext.locked)
            setattr(self, f"{name}_guard", guard)
            self.comb += ext.refused_set[name].eq(guard.refused)
            self.bus.add_master(name=name, master=guard.bus)
        if caravel:
            probes = dict(self.probes())
            self.comb += [
                platform.request("user_irq").eq(Cat(*[probes[n] for n in USER_IRQ])),
                platform.request("probe").eq(Cat(*probes.values())),
            ]


KMAC_SIZE = 0x1000    # registers end at 0x5c; the block decodes only the low address bits
ENTROPY_SIZE = 0x1000  # registers end at 0x1c; the block decodes only the low address bits
ENTROPY_BASE = EXT_BASE + KMAC_SIZE   # in the KMAC's 16 MiB slot: no slot of its own needed
ACC_SIZE = 0x40000    # registers, IMEM window (+0x10000), DMEM window (+0x20000)
ACC_BASE = EXT_BASE + EXT_STRIDE
# ACC memories of the simulation SoC (behavioural in simulation): large enough for the real
# operations run from firmware (pqc_ops): ML-DSA-65 signing needs a ~23 KB program and
# 31.3 KiB of DMEM, ML-KEM-768 decaps 13.4 KiB / 16.0 KiB. The taped-out sizes are the
# floorplan's choice (ip/acc/README.md), not these.
ACC_IMEM_SIZE, ACC_DMEM_SIZE = acc_block.LARGE_IMEM_SIZE, acc_block.LARGE_DMEM_SIZE


def pqc_block(verilog: "Path", entropy: bool = True) -> WishboneBlock:
    """The PQC subsystem (Verilog from soc.build.emit_pqc, top `pqc`): the KMAC at ext slot 0
    with the entropy source after it (if `entropy`), the ACC at ext slot 1, irqs kmac and acc,
    the ACC's DMA a bus master. The side-load port is internal (ACC -> KMAC)."""
    entropy_port = (SlavePort("entropy", ENTROPY_BASE, ENTROPY_SIZE, port_prefix="entropy_bus__", irq=None),)
    return WishboneBlock(instance="pqc", module="pqc", sources=(verilog,), ports=(
        SlavePort("kmac", EXT_BASE, KMAC_SIZE, port_prefix="kmac_bus__", irq="kmac_irq"),
        *(entropy_port if entropy else ()),
        SlavePort("acc", ACC_BASE, ACC_SIZE, port_prefix="acc_bus__", irq="acc_irq"),
    ), outputs=("acc_busy",), masters=(MasterPort("acc_dma", port_prefix="acc_dma__", burst=True),))


SRAM_BASE = 0x0100_0000   # LiteX's default main SRAM origin (SoCCore.mem_map["sram"])
# Silicon SoC (`memories_block`, `soc.build.build(sram_macro=...)`): boot RAM and main SRAM on
# 2 KiB OpenRAM macros, sized for the Caravel memory plan (soc/doc/caravel.md, "The memory plan"): ACC programs and
# their inputs come from outside (the management core's flash or the host), not from CPU memory,
# so the boot RAM holds the firmware only (the silicon programs are 3-6 KB with picolibc's
# integer printf; every build fails when an image exceeds the "rom" region). 6 KiB of boot RAM
# (3 macros) and 2 KiB of main SRAM (1 macro: data and bss, at most 396 B, and link.ld's 1408 B
# stack reserve, which firmware/stack.py checks every program against): 4 macros for the CPU,
# 20 in all with the ACC's 16, what the hybrid flat floorplan holds (soc/flat_floorplan.py; 8 + 4
# KiB, 22 macros, did not fit the Caravel floorplan).
# The boot RAM is not a power of two: LiteX decodes 8 KiB at 0, and accesses to 0x1800-0x1fff
# answer a bus error (ip/common/wb_sram.py; soc/extslave.py SlavePort).
SILICON_ROM_SIZE = 6 * 1024
SILICON_SRAM_SIZE = 2 * 1024
# The entropy source (ip/entropy) in the silicon SoC too. Kept as a module, it adds 0.0120 mm2 of
# logic (`pqsoc synth soc`, 6 Dec: 293 763 cells, 7 815 991 um2 against 291 915, 7 804 006
# without it), over what the flat floorplan's bands had left under their 60 %; Ibex's slow
# multiplier instead of the fast one (soc/ibex.py RV32M) gave back 0.0150 (292 074 cells,
# 7 800 952 um2 with both; with the source's DROPPED counter 292 760, 7 803 824): bands at
# 59.9 % (`pqsoc floorplan`). False leaves it out of
# everything the silicon SoC is made into (its RTL, synthesis, simulations, the wrapper's
# LibreLane configuration), the simulation SoC keeping it.
SILICON_ENTROPY = True


def memories_block(verilog: "Path", rom_size: int, sram_size: int) -> WishboneBlock:
    """Boot RAM ("rom", at the CPU's reset address 0) and main SRAM: the Verilog that
    soc.build.emit_memories wrote for these sizes (top `soc_memories`, ip/common/wb_sram.py)."""
    return WishboneBlock(instance="memories", module="soc_memories", sources=(verilog,), ports=(
        SlavePort("rom", 0, rom_size, port_prefix="rom_bus__", irq=None, cached=True),
        SlavePort("sram", SRAM_BASE, sram_size, port_prefix="sram_bus__", irq=None, cached=True),
    ))
