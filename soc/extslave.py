"""Hook for our own Verilog Wishbone slaves (the KMAC block, the coprocessor).

They are Amaranth designs emitted as Verilog with a Wishbone *classic* slave port (word address,
32-bit data, byte selects, cyc/stb/we/ack/err) plus one interrupt line. `add_wishbone_slave`
instantiates such a module, maps it on the SoC bus at `origin` and routes its irq, so a new block
is one call in the target and appears in csr.json / mem.h like any LiteX region.
"""
import math
from dataclasses import dataclass

from migen import Signal, ClockSignal, ResetSignal, Instance, Constant
from litex.soc.interconnect import wishbone
from litex.soc.integration.soc import SoCRegion


@dataclass(frozen=True)
class WishboneSlave:
    name: str              # SoC region / interrupt name (lower case C identifier)
    module: str            # Verilog module name
    sources: tuple         # Verilog files
    origin: int            # bus address (byte), aligned to size
    size: int              # bytes, power of two
    port_prefix: str = "bus__"   # Amaranth's flattened name of a `bus` member: bus__adr, ...
    irq: str | None = "irq"      # name of the interrupt output, None if the block has none
    clock: str = "clk"
    reset: str = "rst"
    # Further input ports held at a constant: ((port, width, value), ...), e.g. a port whose
    # master does not exist yet. Outputs not named here are left unconnected.
    tie_inputs: tuple = ()


def add_wishbone_slave(soc, s: WishboneSlave):
    if s.size < 4 or s.size & (s.size - 1) or s.origin % s.size:
        raise ValueError(f"{s.name}: size {s.size:#x} must be a power of two and origin "
                         f"{s.origin:#x} aligned to it")
    adr_width = int(math.log2(s.size)) - 2
    bus = wishbone.Interface(data_width=32, address_width=adr_width, addressing="word")
    p = s.port_prefix
    ports = {
        f"i_{s.clock}": ClockSignal("sys"), f"i_{s.reset}": ResetSignal("sys"),
        f"i_{p}adr": bus.adr, f"i_{p}dat_w": bus.dat_w, f"o_{p}dat_r": bus.dat_r,
        f"i_{p}sel": bus.sel, f"i_{p}cyc": bus.cyc, f"i_{p}stb": bus.stb, f"i_{p}we": bus.we,
        f"o_{p}ack": bus.ack, f"o_{p}err": bus.err,
    }
    for port, width, value in s.tie_inputs:
        if not 0 <= value < 1 << width:
            raise ValueError(f"{s.name}: tie-off {port}={value} does not fit {width} bits")
        ports[f"i_{port}"] = Constant(value, width)
    irq = None
    if s.irq is not None:
        irq = Signal(name=f"{s.name}_irq")
        ports[f"o_{s.irq}"] = irq
    soc.specials += Instance(s.module, name=s.name, **ports)
    for f in s.sources:
        soc.platform.add_source(str(f))
    soc.bus.add_slave(s.name, bus, SoCRegion(origin=s.origin, size=s.size, cached=False))
    if irq is not None:
        # Reserve an IRQ number (exported as <NAME>_INTERRUPT) and wire the line ourselves:
        # LiteX only auto-wires SoC attributes that carry an EventManager, which we have not.
        soc.irq.add(s.name)
        soc.comb += soc.cpu.interrupt[soc.irq.locs[s.name]].eq(irq)
    return bus
