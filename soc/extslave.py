# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""Hook for our own Verilog Wishbone blocks (the PQC subsystem: KMAC + coprocessor).

They are Amaranth designs emitted as Verilog. One Verilog module (a `WishboneBlock`) may expose
several Wishbone *classic* slave ports (word address, 32-bit data, byte selects,
cyc/stb/we/ack/err), each with its own bus region and optionally its own interrupt line
(`SlavePort`). `add_wishbone_block` instantiates the module once, maps every port on the SoC
bus at its origin and routes each irq, so the ports appear in csr.json / mem.h like any LiteX
region and their irqs as <NAME>_INTERRUPT.

A block may also have Wishbone master ports (`MasterPort`, e.g. the ACC's DMA), added to the
SoC bus as masters beside the CPU; a burst master also drives cti (incrementing bursts, which
the SoC's bursting bus lets LiteX's SRAM and ROM answer a word a cycle).

`WishboneSlave` / `add_wishbone_slave` are the single-port shorthand (one module, one region,
one irq), e.g. for a test block.
"""
import math
from dataclasses import dataclass

from migen import Signal, ClockSignal, ResetSignal, Instance, Constant
from litex.soc.interconnect import wishbone
from litex.soc.integration.soc import SoCRegion


@dataclass(frozen=True)
class SlavePort:
    name: str              # SoC region / interrupt name (lower case C identifier)
    origin: int            # bus address (byte), aligned to the window (next power of two of size)
    # bytes, a multiple of 4. LiteX decodes a region to the next power of two (SoCRegion.size_pow2)
    # and writes the size itself to csr.json, mem.h and regions.ld (the linker's limit); the port
    # gets the window's address bits, and the block must answer the tail past `size` itself
    # (ip/common/wb_sram.py answers err), or that tail would alias or read garbage.
    size: int
    port_prefix: str = "bus__"   # Amaranth's flattened name of the port's members: bus__adr, ...
    irq: str | None = "irq"      # name of this port's interrupt output, None if none
    # LiteX maps uncached regions only inside the CPU's io region (0x8000_0000 up); memories
    # below it (the silicon SoC's boot RAM and main SRAM) are "cached" (Ibex has no cache).
    cached: bool = False


@dataclass(frozen=True)
class MasterPort:
    name: str              # the master's name on the SoC bus
    port_prefix: str       # Amaranth's flattened name of the port's members: acc_dma__adr, ...
    burst: bool = False    # the port drives cti (ip/common/wishbone.py, burst=True)


@dataclass(frozen=True)
class WishboneBlock:
    instance: str          # Verilog instance name in the SoC
    module: str            # Verilog module name
    sources: tuple         # Verilog files
    ports: tuple           # SlavePort, ...
    clock: str = "clk"
    reset: str = "rst"
    # Further input ports held at a constant: ((port, width, value), ...), e.g. a port whose
    # master does not exist. Outputs not named by a SlavePort are left unconnected.
    tie_inputs: tuple = ()
    # Further 1-bit output ports the SoC reads (e.g. the ACC's busy line for the bus guard):
    # each becomes soc.block_outputs[port], a Signal (as does each port's irq, "<port>_irq").
    outputs: tuple = ()
    # Feed the block's reset from the system reset through one flop (the reset then lasts one
    # cycle longer). Amaranth's Verilog folds the reset into the combinational next-state logic
    # of every register; driven straight from the top-level sys_rst input, Verilator would
    # re-evaluate all of that logic on every clock edge (its input-combinational region),
    # which made the SoC model with the ACC ~2-3x slower.
    registered_reset: bool = True
    masters: tuple = ()    # MasterPort, ...: 32-bit data, 30-bit word address (the SoC bus's)


@dataclass(frozen=True)
class WishboneSlave:
    """A block with a single slave port: region, irq and instance all called `name`."""
    name: str
    module: str
    sources: tuple
    origin: int
    size: int
    port_prefix: str = "bus__"
    irq: str | None = "irq"
    clock: str = "clk"
    reset: str = "rst"
    tie_inputs: tuple = ()

    def block(self) -> WishboneBlock:
        return WishboneBlock(instance=self.name, module=self.module, sources=self.sources,
                             ports=(SlavePort(self.name, self.origin, self.size,
                                              self.port_prefix, self.irq),),
                             clock=self.clock, reset=self.reset, tie_inputs=self.tie_inputs)


def _window(size: int) -> int:
    """The bytes LiteX's decoder gives a region of `size`: the next power of two."""
    return 1 << max(0, (size - 1).bit_length())


def _check(b: WishboneBlock) -> None:
    if not b.ports:
        raise ValueError(f"{b.instance}: a Wishbone block needs at least one slave port")
    for s in b.ports:
        if s.size < 4 or s.size % 4 or s.origin % _window(s.size):
            raise ValueError(f"{s.name}: size {s.size:#x} must be a multiple of 4 and origin "
                             f"{s.origin:#x} aligned to {_window(s.size):#x}, the decoded window")
    for port, width, value in b.tie_inputs:
        if not 0 <= value < 1 << width:
            raise ValueError(f"{b.instance}: tie-off {port}={value} does not fit {width} bits")


def add_wishbone_block(soc, b: WishboneBlock) -> dict:
    """Instantiate `b` once, map each of its slave ports and wire their irqs.
    Returns {port name: the LiteX wishbone.Interface of that port}."""
    _check(b)
    rst = ResetSignal("sys")
    if b.registered_reset:
        rst = Signal(name=f"{b.instance}_rst", reset_less=True)
        soc.sync += rst.eq(ResetSignal("sys"))
    conns = {f"i_{b.clock}": ClockSignal("sys"), f"i_{b.reset}": rst}
    if not hasattr(soc, "block_outputs"):
        soc.block_outputs = {}
    buses, irqs = {}, []
    for s in b.ports:
        # LiteX's address_width counts byte-address bits; adr gets log2(window) - 2 word bits.
        bus = wishbone.Interface(data_width=32, address_width=int(math.log2(_window(s.size))),
                                 addressing="word")
        p = s.port_prefix
        conns.update({
            f"i_{p}adr": bus.adr, f"i_{p}dat_w": bus.dat_w, f"o_{p}dat_r": bus.dat_r,
            f"i_{p}sel": bus.sel, f"i_{p}cyc": bus.cyc, f"i_{p}stb": bus.stb, f"i_{p}we": bus.we,
            f"o_{p}ack": bus.ack, f"o_{p}err": bus.err,
        })
        if s.irq is not None:
            irq = Signal(name=f"{s.name}_irq")
            conns[f"o_{s.irq}"] = irq
            soc.block_outputs[f"{s.name}_irq"] = irq
            irqs.append((s.name, irq))
        buses[s.name] = bus
    masters = {}
    for mp in b.masters:
        bus = wishbone.Interface(data_width=32, address_width=32, addressing="word")
        p = mp.port_prefix
        conns.update({
            f"o_{p}adr": bus.adr, f"o_{p}dat_w": bus.dat_w, f"i_{p}dat_r": bus.dat_r,
            f"o_{p}sel": bus.sel, f"o_{p}cyc": bus.cyc, f"o_{p}stb": bus.stb, f"o_{p}we": bus.we,
            f"i_{p}ack": bus.ack, f"i_{p}err": bus.err,
        })
        if mp.burst:
            conns[f"o_{p}cti"] = bus.cti
        masters[mp.name] = bus
    for port, width, value in b.tie_inputs:
        conns[f"i_{port}"] = Constant(value, width)
    for port in b.outputs:
        soc.block_outputs[port] = conns[f"o_{port}"] = Signal(name=port)
    soc.specials += Instance(b.module, name=b.instance, **conns)
    for f in b.sources:
        soc.platform.add_source(str(f))
    for s in b.ports:
        soc.bus.add_slave(s.name, buses[s.name],
                          SoCRegion(origin=s.origin, size=s.size, cached=s.cached))
    for name, bus in masters.items():
        soc.bus.add_master(name=name, master=bus)
    for name, irq in irqs:
        # Reserve an IRQ number (exported as <NAME>_INTERRUPT) and wire the line ourselves:
        # LiteX only auto-wires SoC attributes that carry an EventManager, which we have not.
        soc.irq.add(name)
        soc.comb += soc.cpu.interrupt[soc.irq.locs[name]].eq(irq)
    return buses


def add_wishbone_slave(soc, s: WishboneSlave):
    """Single-port shorthand; returns the port's wishbone.Interface."""
    return add_wishbone_block(soc, s.block())[s.name]


def add_ext(soc, block) -> None:
    """Add a WishboneBlock or a WishboneSlave."""
    add_wishbone_block(soc, block.block() if isinstance(block, WishboneSlave) else block)
