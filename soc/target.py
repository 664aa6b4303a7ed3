"""The pqsoc SoC: Ibex (rv32imc) + boot ROM + main SRAM + UART, timer, GPIO, UART bridge
(+ sim control in the simulation variant) + the PQC subsystem (KMAC block and the ACC
coprocessor, one Verilog module `pqc`, ip/acc/rtl/pqc.py).

Memory map (LiteX's default SoCCore map; csr.json / generated/mem.h are the source of truth):
  0x0000_0000 rom      boot ROM holding the firmware (rom_size, default ROM_SIZE = 128 KiB)
  0x0100_0000 sram     main SRAM: data, bss, stack (sram_size, default 32 KiB)
  0x8000_0000 ext0     first of our Wishbone windows (16 MiB each, EXT_BASE): the KMAC block's
                       registers (region "kmac", 4 KiB), port kmac_bus of `pqc`
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

from migen import ClockDomain

from litex.soc.interconnect.csr import AutoCSR, CSRStorage

from litex.gen import LiteXModule
from litex.soc.integration.soc_core import SoCCore
from litex.soc.cores.gpio import GPIOOut, GPIOIn

from ip.acc import block as acc_block
from ip.common import SYS_CLK_PERIOD_NS
from soc import ibex
from soc.platform import Platform
from soc.simctrl import SimCtrl
from soc.extslave import SlavePort, WishboneBlock, WishboneSlave, add_ext

SYS_CLK_FREQ = round(1e9 / SYS_CLK_PERIOD_NS)
BRINGUP_BAUDRATE = 1_000_000   # UART bridge; the host side reads it from csr.json
# Console UART of the silicon SoC (uart_tx/rx pins; the simulation SoC's console is a stream):
# 1 Mbaud like the bridge (50 cycles per bit at 50 MHz; USB-UART adapters take it), so that a
# gate-level simulation of the firmware spends ~500 cycles per character instead of ~4 300 at
# 115 200. Exported as the constant UART_BAUDRATE (csr.json, generated/soc.h).
UART_BAUDRATE = 1_000_000
EXT_BASE = 0x8000_0000          # first external Wishbone block; one 16 MiB window per block
EXT_STRIDE = 0x0100_0000
# Boot ROM of the simulation SoC (`pqsoc soc build`): 128 KiB, because firmware/programs/pqc_ops
# carries the whole ML-KEM-768 decaps and ML-DSA-65 signing programs with their inputs and
# expected outputs (~72 KB). The ROM is a behavioural memory ($readmemh) in simulation.
ROM_SIZE = 128 * 1024


class _CRG(LiteXModule):
    def __init__(self, platform):
        self.cd_sys = ClockDomain()
        self.comb += [
            self.cd_sys.clk.eq(platform.request("sys_clk")),
            self.cd_sys.rst.eq(platform.request("sys_rst")),
        ]


class BootHold(LiteXModule, AutoCSR):
    """Silicon SoC: the CPU fetches no instruction from power-up until the host clears `hold`
    over the UART bridge, having loaded the boot RAM (which holds nothing at power-up)."""
    def __init__(self):
        self.hold = CSRStorage(1, reset=1, description="1: the CPU fetches no instruction "
                               "(Ibex fetch_enable off; reset value)")


class PQSoC(SoCCore):
    def __init__(self, rom_init=None, rom_size=ROM_SIZE, sram_size=32 * 1024, sim=True,
                 ext_slaves: tuple[WishboneBlock | WishboneSlave, ...] = (),
                 memories: WishboneBlock | None = None):
        """memories: the silicon SoC's boot RAM and main SRAM on SRAM macros (a WishboneBlock
        with ports "rom" at 0 and "sram" at SRAM_BASE, see memories_block()); they replace
        LiteX's integrated ROM / SRAM, and the CPU then waits for the host (BootHold)."""
        ibex.register()
        platform = Platform()
        self.crg = _CRG(platform)
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
            with_timer=True, timer_uptime=True,
            # Our Ibex bridge answers unmapped accesses with a bus error after 256 cycles;
            # LiteX's own timeout would instead "ack" with 0xffffffff and hide the fault.
            bus_timeout=None,
        )
        # Bring-up path: a host reaches the whole bus (ROM, SRAM, CSRs, our blocks) through the
        # LiteX UART bridge, independent of the CPU. Protocol: litex/tools/remote/comm_uart.py.
        self.add_uartbone(name="uartbone", uart_name="bringup", baudrate=BRINGUP_BAUDRATE)
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


KMAC_SIZE = 0x1000    # registers end at 0x5c; the block decodes only the low address bits
ACC_SIZE = 0x40000    # registers, IMEM window (+0x10000), DMEM window (+0x20000)
# ACC memories of the simulation SoC (behavioural in simulation): large enough for the real
# operations run from firmware (pqc_ops): ML-DSA-65 signing needs a ~23 KB program and
# 31.3 KiB of DMEM, ML-KEM-768 decaps 13.4 KiB / 16.0 KiB. The taped-out sizes are the
# floorplan's choice (ip/acc/README.md), not these.
ACC_IMEM_SIZE, ACC_DMEM_SIZE = acc_block.LARGE_IMEM_SIZE, acc_block.LARGE_DMEM_SIZE


def pqc_block(verilog: "Path") -> WishboneBlock:
    """The PQC subsystem (Verilog from soc.build.emit_pqc, top `pqc`): the KMAC at ext slot 0,
    the ACC at ext slot 1, irqs kmac and acc. The side-load port is internal (ACC -> KMAC)."""
    return WishboneBlock(instance="pqc", module="pqc", sources=(verilog,), ports=(
        SlavePort("kmac", EXT_BASE, KMAC_SIZE, port_prefix="kmac_bus__", irq="kmac_irq"),
        SlavePort("acc", EXT_BASE + EXT_STRIDE, ACC_SIZE, port_prefix="acc_bus__", irq="acc_irq"),
    ))


SRAM_BASE = 0x0100_0000   # LiteX's default main SRAM origin (SoCCore.mem_map["sram"])
# Silicon SoC (`memories_block`, `soc.build.build(sram_macro=...)`): boot RAM and main SRAM on
# 2 KiB OpenRAM macros. 16 KiB of boot RAM because our smallest firmware (picolibc stdio, trap
# reporting) is ~12.7 KB; 8 KiB of main SRAM for data, bss and stack.
SILICON_ROM_SIZE = 16 * 1024
SILICON_SRAM_SIZE = 8 * 1024


def memories_block(verilog: "Path", rom_size: int, sram_size: int) -> WishboneBlock:
    """Boot RAM ("rom", at the CPU's reset address 0) and main SRAM: the Verilog that
    soc.build.emit_memories wrote for these sizes (top `soc_memories`, ip/common/wb_sram.py)."""
    return WishboneBlock(instance="memories", module="soc_memories", sources=(verilog,), ports=(
        SlavePort("rom", 0, rom_size, port_prefix="rom_bus__", irq=None, cached=True),
        SlavePort("sram", SRAM_BASE, sram_size, port_prefix="sram_bus__", irq=None, cached=True),
    ))
