# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""Wishbone-classic slave memories on sky130 OpenRAM macros: the silicon SoC's boot RAM and main
SRAM (soc/target.py, `macro_memories`), where LiteX's own memories would become flip-flops.

`WishboneSram`: one 32-bit Wishbone port on an `SramBank` (ip/common/sram.py: rows of macros).
Every access takes two cycles: the macro samples address / data / byte mask at the first clock
edge, and ack (with the read word) follows one cycle later. A write with no byte selected is a
no-op that is still acknowledged. The size need not be a power of two (the silicon boot RAM is
6 KiB, three macros): the port's window is the next power of two, as LiteX decodes the region
(SoCRegion.size_pow2, soc/extslave.py), and an access to the window's tail touches no macro and
answers err one cycle later (the CPU takes an access fault), so it neither aliases nor reads
garbage.

`SocMemories`: the two memories in one Verilog module (top `soc_memories`), ports `rom_bus`
and `sram_bus`, as the SoC maps them (soc/extslave.py WishboneBlock).
"""
from amaranth import Module, Mux, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import In

from ip.common.sram import MACROS, SramBank

from ip.common.wishbone import WishboneSignature


class WishboneSram(wiring.Component):
    def __init__(self, size_bytes: int, macro: str | None = None):
        self._MustUse__silence = True          # no "never used" warning if a check below fails
        if size_bytes < 4 or size_bytes % 4:
            raise ValueError(f"WishboneSram size {size_bytes} must be a multiple of 4 bytes")
        if macro is not None:
            words, bits, _ = MACROS[macro]
            if size_bytes % (words * bits // 8):
                raise ValueError(f"WishboneSram size {size_bytes} is not a multiple of macro "
                                 f"{macro}'s {words * bits // 8} bytes")
        self._MustUse__silence = False
        self.size_bytes = size_bytes
        self.macro = macro
        self.words = size_bytes // 4
        self.addr_width = max(1, (self.words - 1).bit_length())   # the power-of-two window
        super().__init__({"bus": In(WishboneSignature(self.addr_width))})

    def elaborate(self, platform):
        m = Module()
        m.submodules.bank = bank = SramBank(self.words, 32, self.macro)
        bus = self.bus
        ack, err = Signal(), Signal()
        # one answer per stb: take the request in the cycle it comes, never in its answer's cycle
        request = bus.cyc & bus.stb & ~ack & ~err
        inside = bus.adr < self.words if self.words < 1 << self.addr_width else 1
        start = request & inside
        m.d.sync += [ack.eq(start), err.eq(request & ~inside)]
        m.d.comb += [
            bank.addr.eq(bus.adr),
            bank.en.eq(start & ~bus.we),
            bank.we.eq(Mux(start & bus.we, bus.sel, 0)),
            bank.wdata.eq(bus.dat_w),
            bus.dat_r.eq(bank.rdata),
            bus.ack.eq(ack),
            bus.err.eq(err),
        ]
        return m


class SocMemories(wiring.Component):
    """Boot RAM (the "rom" region: the CPU's reset address, loaded by the host over the UART
    bridge before it releases the CPU) and main SRAM, both on macros."""
    def __init__(self, rom_size: int, sram_size: int, macro: str | None = None):
        self.rom = WishboneSram(rom_size, macro)
        self.sram = WishboneSram(sram_size, macro)
        super().__init__({"rom_bus": In(WishboneSignature(self.rom.addr_width)),
                          "sram_bus": In(WishboneSignature(self.sram.addr_width))})

    def elaborate(self, platform):
        m = Module()
        m.submodules.rom = self.rom
        m.submodules.sram = self.sram
        wiring.connect(m, wiring.flipped(self.rom_bus), self.rom.bus)
        wiring.connect(m, wiring.flipped(self.sram_bus), self.sram.bus)
        return m
