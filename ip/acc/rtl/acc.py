"""ACC top: core + IMEM + DMEM + Wishbone host interface (ip/acc/data/acc_regs.yml).

Host view (byte offsets inside the slave's region): 0x00000 registers, 0x10000 IMEM,
0x20000 DMEM (32-bit words; DMEM is 256 bits wide inside). The memories are single-ported
(one access per cycle, as the sky130 SRAM macros' read-write port): the core owns them while
it runs or wipes; host accesses then are ignored and flagged in HOST_ERR.

Memories are behavioural Amaranth memories here (any size); synthesis maps them onto SRAM
macros through a wrapper with the macros' ports (see ip/acc/doc/).
"""
from pathlib import Path

from amaranth import Cat, Const, Module, Mux, Signal
from amaranth.lib import wiring
from amaranth.lib.memory import Memory
from amaranth.lib.wiring import In, Out

from ip.common.regbank import RegBank
from ip.common.wishbone import WishboneSignature
from ip.kmac.sideload import SideloadSignature
from pqsoc.regtool import load

from .core import ST_IDLE, AccCore

REGS_YML = Path(__file__).resolve().parents[1] / "data" / "acc_regs.yml"
REGION_REGS, REGION_IMEM, REGION_DMEM = 0, 1, 2


class Acc(wiring.Component):
    def __init__(self, imem_size: int = 32 * 1024, dmem_size: int = 32 * 1024,
                 addr_width: int = 30, isa=None):
        if imem_size % 1024 or not 0 < imem_size <= 64 * 1024:
            raise ValueError(f"IMEM size {imem_size} must be a multiple of 1 KiB up to 64 KiB")
        if dmem_size % 1024 or not 0 < dmem_size <= 64 * 1024:
            raise ValueError(f"DMEM size {dmem_size} must be a multiple of 1 KiB up to 64 KiB")
        self.imem_size = imem_size
        self.dmem_size = dmem_size
        self.regmap = load(REGS_YML)
        self.isa = isa
        super().__init__({"bus": In(WishboneSignature(addr_width)),
                          "sideload": Out(SideloadSignature()),
                          "irq": Out(1)})

    def elaborate(self, platform):
        m = Module()
        imem_words, dmem_words = self.imem_size // 4, self.dmem_size // 32
        m.submodules.core = core = AccCore(imem_words, dmem_words, self.isa)
        m.submodules.imem = imem = Memory(shape=32, depth=imem_words, init=[])
        m.submodules.dmem = dmem = Memory(shape=256, depth=dmem_words, init=[])
        i_rd = imem.read_port()
        i_wr = imem.write_port(granularity=8)
        d_rd = dmem.read_port()
        d_wr = dmem.write_port(granularity=8)
        m.submodules.regs = rb = RegBank(self.regmap, len(self.bus.adr))

        # ------------------------------------------------------------------ bus decode
        bus = self.bus
        region = bus.adr[14:16]
        req = Signal()
        m.d.comb += req.eq(bus.cyc & bus.stb)
        rbus = rb.bus
        m.d.comb += [rbus.adr.eq(bus.adr), rbus.dat_w.eq(bus.dat_w), rbus.sel.eq(bus.sel),
                     rbus.we.eq(bus.we), rbus.cyc.eq(bus.cyc & (region == REGION_REGS)),
                     rbus.stb.eq(bus.stb & (region == REGION_REGS))]

        idle = Signal()
        m.d.comb += idle.eq(core.state == ST_IDLE)
        mem_req = Signal()                 # a host IMEM/DMEM access is waiting
        m.d.comb += mem_req.eq(req & ((region == REGION_IMEM) | (region == REGION_DMEM)))
        mem_phase = Signal()               # 1: read data arrive this cycle
        mem_ack = Signal()
        mem_dat = Signal(32)
        host_busy = Signal()
        m.d.sync += [mem_ack.eq(0), mem_phase.eq(0)]
        word = bus.adr[:3]                 # 32-bit word inside a 256-bit DMEM word
        host_imem = mem_req & ~mem_ack & idle & (region == REGION_IMEM)
        host_dmem = mem_req & ~mem_ack & idle & (region == REGION_DMEM)

        # IMEM: the core fetches; the host reads/writes while idle
        m.d.comb += [i_rd.addr.eq(core.imem_addr), core.imem_rdata.eq(i_rd.data), i_rd.en.eq(1)]
        m.d.comb += [d_rd.addr.eq(core.dmem_addr), core.dmem_rdata.eq(d_rd.data),
                     d_rd.en.eq(core.dmem_re), d_wr.addr.eq(core.dmem_addr),
                     d_wr.data.eq(core.dmem_wdata), d_wr.en.eq(core.dmem_we)]
        with m.If(host_imem & ~mem_phase):
            m.d.comb += [i_rd.addr.eq(bus.adr[:len(i_rd.addr)]), i_wr.addr.eq(bus.adr[:len(i_wr.addr)]),
                         i_wr.data.eq(bus.dat_w)]
            with m.If(bus.we):
                m.d.comb += i_wr.en.eq(bus.sel)
                m.d.sync += mem_ack.eq(1)
            with m.Else():
                m.d.sync += mem_phase.eq(1)
        with m.If(host_dmem & ~mem_phase):
            daddr = bus.adr[3:3 + len(d_rd.addr)]
            m.d.comb += [d_rd.addr.eq(daddr), d_wr.addr.eq(daddr),
                         d_wr.data.eq(bus.dat_w.replicate(8))]
            with m.If(bus.we):
                m.d.comb += d_wr.en.eq(bus.sel << (word * 4))
                m.d.sync += mem_ack.eq(1)
            with m.Else():
                m.d.comb += d_rd.en.eq(1)
                m.d.sync += mem_phase.eq(1)
        with m.If(mem_phase):               # read data of the previous cycle's address
            m.d.sync += [mem_ack.eq(1),
                         mem_dat.eq(Mux(region == REGION_IMEM, i_rd.data,
                                        (d_rd.data >> (word * 32))[:32]))]
        with m.If(mem_req & ~mem_ack & ~idle & ~mem_phase):
            m.d.sync += [mem_ack.eq(1), mem_dat.eq(0)]
            m.d.comb += host_busy.eq(1)
        with m.If(mem_ack):
            m.d.sync += mem_dat.eq(0)

        m.d.comb += [bus.ack.eq(rbus.ack | mem_ack), bus.err.eq(0),
                     bus.dat_r.eq(Mux(mem_ack, mem_dat, rbus.dat_r))]

        # ------------------------------------------------------------------ registers
        start = rb.ctrl_we & rb.ctrl_start
        m.d.comb += [core.start.eq(start & idle), core.wipe.eq(rb.ctrl_we & rb.ctrl_wipe),
                     rb.status_state.eq(core.state), rb.err_bits_bits.eq(core.err_bits),
                     rb.stop_pc_pc.eq(core.stop_pc), rb.cycles_count.eq(core.cycles),
                     rb.insns_count.eq(core.insns),
                     rb.intr_state_done_set.eq(core.done),
                     rb.host_err_busy_access_set.eq(host_busy),
                     rb.host_err_busy_start_set.eq(start & ~idle),
                     rb.mem_size_imem_kib.eq(self.imem_size // 1024),
                     rb.mem_size_dmem_kib.eq(self.dmem_size // 1024),
                     self.irq.eq(rb.intr_state_done & rb.intr_enable_done)]

        # side-load master: idle until the KMAC instructions are implemented in the RTL
        m.d.comb += self.sideload.hold.eq(0)
        return m
