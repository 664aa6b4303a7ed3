# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""Single-ported SRAM bank: a behavioural Amaranth memory, or a tiling of sky130 OpenRAM macros.

Ports (all synchronous to the bank's clock domain):
- addr:  word address
- en:    read enable; the word at `addr` appears on `rdata` the cycle after
- we:    write enable, one bit per byte (a write of the bytes whose bit is set)
- wdata: write data
- rdata: read data, valid the cycle after a cycle with `en` set and no `we` bit set
  (after a write cycle, or a cycle without `en`, rdata is not specified in macro mode;
  the behavioural memory holds its last read value)

`macro=None` gives a behavioural `amaranth.lib.memory.Memory` of any depth. Otherwise `macro` names
an OpenRAM macro (see MACROS) and the bank is an array of macro instances: width/32 macros side by
side per row (each owns 32 bits and 4 byte-write bits), depth/macro_words rows selected by the
high address bits; the row of a read is registered so that the read data of that row are muxed out
the next cycle. Port 0 (read-write: csb0/web0 active low, wmask0 per byte) is used; port 1
(read-only) is disabled (csb1 tied high).
"""
from amaranth import Cat, ClockSignal, Const, Instance, Module, Signal
from amaranth.lib import wiring
from amaranth.lib.memory import Memory
from amaranth.lib.wiring import In, Out

# macro name -> (words, bits per word, write-mask granularity in bits)
MACROS = {
    "sky130_sram_1kbyte_1rw1r_32x256_8": (256, 32, 8),
    "sky130_sram_2kbyte_1rw1r_32x512_8": (512, 32, 8),
}


# The macro outputs no instance connects (port 1 is disabled): no net, nothing to route.
OPEN_PORTS = ("dout1",)


def _abits(depth: int) -> int:
    return max(1, (depth - 1).bit_length())


class SramBank(wiring.Component):
    def __init__(self, depth: int, width: int = 32, macro: str | None = None, domain: str = "sync"):
        self._MustUse__silence = True          # no "never used" warning if a check below fails
        if width not in (32, 256):
            raise ValueError(f"SramBank width must be 32 or 256 bits, not {width}")
        if depth < 1:
            raise ValueError(f"SramBank depth must be positive, not {depth}")
        if macro is not None:
            if macro not in MACROS:
                raise ValueError(f"unknown SRAM macro {macro!r}; known: {', '.join(MACROS)}")
            mwords, mbits, _ = MACROS[macro]
            if depth % mwords:
                raise ValueError(
                    f"SramBank depth {depth} is not a multiple of the {mwords}-word depth of macro "
                    f"{macro}; use a depth of k*{mwords} words or another macro")
        self._MustUse__silence = False
        self.depth = depth
        self.width = width
        self.macro = macro
        self.domain = domain
        super().__init__({
            "addr": In(_abits(depth)),
            "en": In(1),
            "we": In(width // 8),
            "wdata": In(width),
            "rdata": Out(width),
        })

    @property
    def tiles(self) -> tuple[int, int]:
        """(rows, columns) of macro instances; (0, 0) for a behavioural bank."""
        if self.macro is None:
            return (0, 0)
        mwords, mbits, _ = MACROS[self.macro]
        return (self.depth // mwords, self.width // mbits)

    def elaborate(self, platform):
        m = Module()
        if self.macro is None:
            m.submodules.mem = mem = Memory(shape=self.width, depth=self.depth, init=[])
            rd = mem.read_port(domain=self.domain)
            wr = mem.write_port(domain=self.domain, granularity=8)
            m.d.comb += [rd.addr.eq(self.addr), rd.en.eq(self.en), self.rdata.eq(rd.data),
                         wr.addr.eq(self.addr), wr.data.eq(self.wdata), wr.en.eq(self.we)]
            return m

        mwords, mbits, mgran = MACROS[self.macro]
        mabits = _abits(mwords)
        rows, cols = self.tiles
        nmask = mbits // mgran
        low = self.addr[:mabits]
        row = self.addr[mabits:] if rows > 1 else Const(0, 1)
        rd_row = Signal(max(1, _abits(rows)))          # row of the last read, for the output mux
        if rows > 1:
            with m.If(self.en & ~self.we.any()):
                m.d[self.domain] += rd_row.eq(row)
        douts = []
        for r in range(rows):
            dout_row = []
            sel = (row == r) if rows > 1 else Const(1, 1)
            for c in range(cols):
                wmask = self.we[c * nmask:(c + 1) * nmask]
                dout = Signal(mbits, name=f"dout_r{r}_c{c}")
                write = wmask.any()
                m.submodules[f"ram_r{r}_c{c}"] = Instance(
                    self.macro,
                    i_clk0=ClockSignal(self.domain),
                    i_csb0=~(sel & (self.en | write)),
                    i_web0=~write,
                    i_wmask0=wmask,
                    i_addr0=low,
                    i_din0=self.wdata[c * mbits:(c + 1) * mbits],
                    o_dout0=dout,
                    i_clk1=ClockSignal(self.domain),
                    i_csb1=Const(1, 1),
                    i_addr1=Const(0, mabits),
                )
                dout_row.append(dout)
            douts.append(Cat(*dout_row))
        if rows == 1:
            m.d.comb += self.rdata.eq(douts[0])
        else:
            with m.Switch(rd_row):
                for r in range(rows):
                    with m.Case(r):
                        m.d.comb += self.rdata.eq(douts[r])
        return m
