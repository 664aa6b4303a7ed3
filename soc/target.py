"""The pqsoc SoC: Ibex (rv32imc) + boot ROM + main SRAM + UART, timer, GPIO, UART bridge
(+ sim control in the simulation variant).

Memory map (LiteX's default SoCCore map; csr.json / generated/mem.h are the source of truth):
  0x0000_0000 rom      boot ROM holding the firmware (rom_size, default 32 KiB)
  0x0100_0000 sram     main SRAM: data, bss, stack (sram_size, default 32 KiB)
  0x8000_0000 ext0     first of our Wishbone blocks, 16 MiB window: EXT_BASE; the KMAC block
                       (4 KiB, kmac_slave(), added by soc.build.build)
  0x8100_0000 ext1     second (coprocessor): EXT_BASE + EXT_STRIDE
  0x8200_0000 csr      LiteX CSR bank (ctrl, uart, timer0, gpio_in/out, simctrl)
Interrupts (Ibex fast irq n = mcause 16 + n): uart 0, timer0 1, gpio_in 2, then added blocks
(kmac 3 in the default build).
"""
from migen import ClockDomain

from litex.gen import LiteXModule
from litex.soc.integration.soc_core import SoCCore
from litex.soc.cores.gpio import GPIOOut, GPIOIn

from . import ibex
from .platform import Platform
from .simctrl import SimCtrl
from .extslave import WishboneSlave, add_wishbone_slave

SYS_CLK_FREQ = int(50e6)
BRINGUP_BAUDRATE = 1_000_000   # UART bridge; the host side reads it from csr.json
EXT_BASE = 0x8000_0000          # first external Wishbone block; one 16 MiB window per block
EXT_STRIDE = 0x0100_0000


class _CRG(LiteXModule):
    def __init__(self, platform):
        self.cd_sys = ClockDomain()
        self.comb += [
            self.cd_sys.clk.eq(platform.request("sys_clk")),
            self.cd_sys.rst.eq(platform.request("sys_rst")),
        ]


class PQSoC(SoCCore):
    def __init__(self, rom_init=None, rom_size=32 * 1024, sram_size=32 * 1024, sim=True,
                 ext_slaves: tuple[WishboneSlave, ...] = ()):
        ibex.register()
        platform = Platform()
        self.crg = _CRG(platform)
        if rom_init is None:
            # A non-empty placeholder makes LiteX emit $readmemh for the ROM, so a simulation
            # can load any firmware through the .init file without regenerating the Verilog.
            rom_init = [0x0000_006f] * (rom_size // 4)   # `j .` everywhere
        SoCCore.__init__(self, platform, SYS_CLK_FREQ,
            ident="pqsoc", cpu_type=ibex.NAME, cpu_reset_address=0,
            integrated_rom_size=rom_size, integrated_rom_init=rom_init,
            integrated_sram_size=sram_size,
            uart_name="sim" if sim else "uart",
            with_timer=True, timer_uptime=True,
            # Our Ibex bridge answers unmapped accesses with a bus error after 256 cycles;
            # LiteX's own timeout would instead "ack" with 0xffffffff and hide the fault.
            bus_timeout=None,
        )
        # Bring-up path: a host reaches the whole bus (ROM, SRAM, CSRs, our blocks) through the
        # LiteX UART bridge, independent of the CPU. Protocol: litex/tools/remote/comm_uart.py.
        self.add_uartbone(name="uartbone", uart_name="bringup", baudrate=BRINGUP_BAUDRATE)
        self.add_constant("BRINGUP_UART_BAUDRATE", BRINGUP_BAUDRATE)
        self.gpio_out = GPIOOut(platform.request("gpio_out"))
        self.gpio_in = GPIOIn(platform.request("gpio_in"), with_irq=True)
        self.irq.add("gpio_in", use_loc_if_exists=True)
        if sim:
            self.simctrl = SimCtrl(platform.request("simctrl"))
        for s in ext_slaves:
            add_wishbone_slave(self, s)


KMAC_SIZE = 0x1000   # registers end at 0x5c; the block decodes only the low address bits

# The KMAC block's side-load port (ip/kmac/doc/spec.md) is for the PQC coprocessor, which does
# not exist yet: tied off inactive (hold=0, no command, no message, digest never taken), so the
# CPU is always granted the block. Its outputs (granted, readies, digest, error) stay unconnected.
KMAC_SIDELOAD_TIE_OFF = (
    ("sideload__hold", 1, 0),
    ("sideload__cmd__valid", 1, 0), ("sideload__cmd__op", 2, 0), ("sideload__cmd__mode", 2, 0),
    ("sideload__cmd__strength", 3, 0), ("sideload__cmd__msg_len", 32, 0),
    ("sideload__msg__valid", 1, 0), ("sideload__msg__data", 256, 0),
    ("sideload__msg__mask", 32, 0),
    ("sideload__digest__ready", 1, 0),
)


def kmac_slave(verilog: "Path") -> WishboneSlave:
    """The KMAC block (Verilog emitted by pqsoc.blocks "kmac", top `kmac`) at ext slot 0."""
    return WishboneSlave(name="kmac", module="kmac", sources=(verilog,), origin=EXT_BASE,
                         size=KMAC_SIZE, tie_inputs=KMAC_SIDELOAD_TIE_OFF)
