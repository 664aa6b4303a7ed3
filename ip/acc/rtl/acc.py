# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""ACC top: core + IMEM + DMEM + Wishbone host interface (ip/acc/data/acc_regs.yml).

Host view (byte offsets inside the slave's region): 0x00000 registers, 0x10000 IMEM,
0x20000 DMEM (32-bit words; DMEM is 256 bits wide inside). The memories are single-ported
(one access per cycle, as the sky130 SRAM macros' read-write port): the core owns them while
it runs or wipes, the DMA (ip/acc/rtl/dma.py, master port `dma` on the system bus) while it
copies; host accesses then are ignored and flagged in HOST_ERR.

Memories are SramBank instances (ip/common/sram.py): behavioural Amaranth memories (any size)
with sram_macro=None, or tiles of a sky130 OpenRAM macro (sram_macro=<macro name>).

The core runs on its own gated clock (ip/common/clock_gate.py): it gets clock edges in reset,
while it runs or wipes, in the cycle of START / WIPE / an ENTROPY write (RND's pool is the
core's) and in the cycle after it stops (which
clears its `done` pulse); an idle core holds every flop, so it is not clocked. The memories,
registers and host interface stay on the ungated clock. Nothing the core does is cycle-visible
to the gate (the ISS counts the same cycles); it saves the idle core's clock power and, in the
SoC simulation, Verilator's evaluation of the wide ALU while the ACC is idle.
clock_gate: "generic" (behavioural, RTL simulation), "sky130" (the ICG cell, synthesis) or None
(no gate: Amaranth's simulator, where a derived clock races its source domain's flops).
"""

from amaranth import ClockDomain, ClockSignal, DomainRenamer, Module, Mux, ResetSignal, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from ip.acc import REGS_YML
from ip.common.clock_gate import KINDS as CLOCK_GATE_KINDS, ClockGate
from ip.common.regbank import RegBank
from ip.common.wishbone import WishboneSignature
from ip.kmac.rtl.sideload import SideloadSignature
from ip.common.regtool import load

from ip.acc.rtl.core import ST_IDLE, ST_WIPE, AccCore
from ip.acc.rtl.dma import AccDma
from ip.common.sram import SramBank

REGION_REGS, REGION_IMEM, REGION_DMEM = 0, 1, 2


class Acc(wiring.Component):
    def __init__(self, imem_size: int = 32 * 1024, dmem_size: int = 32 * 1024,
                 addr_width: int = 30, isa=None, sram_macro: str | None = None,
                 clock_gate: str | None = "generic"):
        if imem_size % 1024 or not 0 < imem_size <= 64 * 1024:
            raise ValueError(f"IMEM size {imem_size} must be a multiple of 1 KiB up to 64 KiB")
        if dmem_size % 1024 or not 0 < dmem_size <= 64 * 1024:
            raise ValueError(f"DMEM size {dmem_size} must be a multiple of 1 KiB up to 64 KiB")
        self.imem_size = imem_size
        self.dmem_size = dmem_size
        self.regmap = load(REGS_YML)
        self.isa = isa
        self.sram_macro = sram_macro       # None: behavioural memories; else an OpenRAM macro name
        self.clock_gate = clock_gate
        if clock_gate is not None and clock_gate not in CLOCK_GATE_KINDS:
            raise ValueError(f"ACC clock gate {clock_gate!r}: known kinds are "
                             f"{', '.join(CLOCK_GATE_KINDS)} or None")
        super().__init__({"bus": In(WishboneSignature(addr_width)),
                          "sideload": Out(SideloadSignature()),
                          # the DMA's master port on the system bus (word address, LiteX's)
                          "dma": Out(WishboneSignature(30, burst=True)),
                          "irq": Out(1),
                          # the core runs or the DMA copies: the SoC's bus guard refuses outside
                          # masters the ACC's window then (soc/access.py)
                          "busy": Out(1)})

    def elaborate(self, platform):
        m = Module()
        imem_words, dmem_words = self.imem_size // 4, self.dmem_size // 32
        core = AccCore(imem_words, dmem_words, self.isa)
        if self.clock_gate is None:
            m.submodules.core = core
        else:
            m.domains.acc_core = ClockDomain(local=True)
            m.submodules.core_gate = gate = ClockGate(self.clock_gate)
            m.submodules.core = DomainRenamer("acc_core")(core)
            m.d.comb += [ClockSignal("acc_core").eq(gate.gclk),
                         ResetSignal("acc_core").eq(ResetSignal()),
                         gate.en.eq((core.state != ST_IDLE) | core.start | core.wipe | core.done
                                    | core.entropy_we | ResetSignal())]
        m.submodules.imem = imem = SramBank(imem_words, 32, self.sram_macro)
        m.submodules.dmem = dmem = SramBank(dmem_words, 256, self.sram_macro)
        m.submodules.regs = rb = RegBank(self.regmap, len(self.bus.adr))
        m.submodules.dma = dma = AccDma(self.imem_size, self.dmem_size, len(self.dma.adr))
        wiring.connect(m, dma.bus, wiring.flipped(self.dma))

        # ------------------------------------------------------------------ bus decode
        bus = self.bus
        region = bus.adr[14:16]
        req = Signal()
        m.d.comb += req.eq(bus.cyc & bus.stb)
        rbus = rb.bus
        m.d.comb += [rbus.adr.eq(bus.adr), rbus.dat_w.eq(bus.dat_w), rbus.sel.eq(bus.sel),
                     rbus.we.eq(bus.we), rbus.cyc.eq(bus.cyc & (region == REGION_REGS)),
                     rbus.stb.eq(bus.stb & (region == REGION_REGS))]

        core_idle, idle = Signal(), Signal()     # idle: the host may use the memories
        m.d.comb += [core_idle.eq(core.state == ST_IDLE), idle.eq(core_idle & ~dma.busy),
                     self.busy.eq(~idle)]
        mem_req = Signal()                 # a host IMEM/DMEM access is waiting
        m.d.comb += mem_req.eq(req & ((region == REGION_IMEM) | (region == REGION_DMEM)))
        mem_phase = Signal()               # 1: read data arrive this cycle
        mem_ack = Signal()
        mem_dat = Signal(32)
        host_busy = Signal()
        mem_err = Signal()                 # a refused access while the DMA copies: err
        m.d.sync += [mem_ack.eq(0), mem_phase.eq(0), mem_err.eq(0)]
        word = bus.adr[:3]                 # 32-bit word inside a 256-bit DMEM word
        host_imem = mem_req & ~mem_ack & ~mem_err & idle & (region == REGION_IMEM)
        host_dmem = mem_req & ~mem_ack & ~mem_err & idle & (region == REGION_DMEM)

        # IMEM: the core fetches; the host reads/writes while idle
        m.d.comb += [imem.addr.eq(core.imem_addr), core.imem_rdata.eq(imem.rdata), imem.en.eq(1)]
        m.d.comb += [dmem.addr.eq(core.dmem_addr), core.dmem_rdata.eq(dmem.rdata),
                     dmem.en.eq(core.dmem_re), dmem.wdata.eq(core.dmem_wdata), dmem.we.eq(core.dmem_we)]
        with m.If(host_imem & ~mem_phase):
            m.d.comb += [imem.addr.eq(bus.adr[:len(imem.addr)]), imem.wdata.eq(bus.dat_w)]
            with m.If(bus.we):
                m.d.comb += imem.we.eq(bus.sel)
                m.d.sync += mem_ack.eq(1)
            with m.Else():
                m.d.sync += mem_phase.eq(1)
        with m.If(host_dmem & ~mem_phase):
            daddr = bus.adr[3:3 + len(dmem.addr)]
            m.d.comb += [dmem.addr.eq(daddr), dmem.wdata.eq(bus.dat_w.replicate(8))]
            with m.If(bus.we):
                m.d.comb += dmem.we.eq(bus.sel << (word * 4))
                m.d.sync += mem_ack.eq(1)
            with m.Else():
                m.d.comb += dmem.en.eq(1)
                m.d.sync += mem_phase.eq(1)
        # the DMA, while it copies (the core is idle, host accesses are refused)
        dword = dma.mem_addr[:3]
        read_dword = Signal(3)              # the word of the DMEM row read in the last cycle
        m.d.sync += read_dword.eq(dword)    # (the DMA reads a word ahead: mem_addr moves on)
        with m.If(dma.copying & dma.mem_imem):
            m.d.comb += [imem.addr.eq(dma.mem_addr[:len(imem.addr)]), imem.wdata.eq(dma.mem_wdata),
                         imem.we.eq(dma.mem_we.replicate(4))]
        with m.If(dma.copying & ~dma.mem_imem):
            m.d.comb += [dmem.addr.eq(dma.mem_addr[3:3 + len(dmem.addr)]),
                         dmem.wdata.eq(dma.mem_wdata.replicate(8)),
                         dmem.we.eq(dma.mem_we.replicate(4) << (dword * 4)),
                         dmem.en.eq(dma.mem_re | dma.mem_we)]
        m.d.comb += dma.mem_rdata.eq(Mux(dma.mem_imem, imem.rdata, (dmem.rdata >> (read_dword * 32))[:32]))
        with m.If(mem_phase):               # read data of the previous cycle's address
            m.d.sync += [mem_ack.eq(1),
                         mem_dat.eq(Mux(region == REGION_IMEM, imem.rdata,
                                        (dmem.rdata >> (word * 32))[:32]))]
        with m.If(mem_req & ~mem_ack & ~mem_err & ~idle & ~mem_phase):
            # refused: while the core runs it reads 0 (the bus masters have no error path,
            # soc/access.py); while the DMA copies, an error, so that a transfer from or to this
            # window (the DMA's own access) fails with DMA_BUS instead of copying zeros
            with m.If(dma.busy):
                m.d.sync += mem_err.eq(1)
            with m.Else():
                m.d.sync += [mem_ack.eq(1), mem_dat.eq(0)]
            m.d.comb += host_busy.eq(1)
        with m.If(mem_ack):
            m.d.sync += mem_dat.eq(0)

        # WIPED.CLEAN: DMEM and registers are zero since the last wipe ended (no run, no write)
        clean, was_wipe = Signal(), Signal()
        m.d.sync += was_wipe.eq(core.state == ST_WIPE)
        with m.If(was_wipe & core_idle):
            m.d.sync += clean.eq(1)
        # A wipe clears the DMEM rows that may be nonzero: those below the highest row written
        # (by anyone: every write goes through this port) since the last wipe; all of them
        # after reset, when DMEM holds anything. An ML-KEM call on the 32 KiB DMEM of the
        # simulation SoC then wipes the ~500 rows it used, not 1024. Which rows a program
        # writes is public (its addresses are: tools/constant_time.py).
        written = Signal(range(dmem_words + 1), init=dmem_words)
        m.d.comb += core.wipe_rows.eq(written)
        with m.If(was_wipe & core_idle):
            m.d.sync += written.eq(0)
        with m.If((dmem.we != 0) & (core.state != ST_WIPE) & (dmem.addr >= written)):
            m.d.sync += written.eq(dmem.addr + 1)
        with m.If((core.state != ST_IDLE) & (core.state != ST_WIPE)
                  | (host_dmem & ~mem_phase & bus.we) | (dma.mem_we & ~dma.mem_imem)):
            m.d.sync += clean.eq(0)
        m.d.comb += rb.wiped_clean.eq(clean)

        m.d.comb += [bus.ack.eq(rbus.ack | mem_ack), bus.err.eq(mem_err),
                     bus.dat_r.eq(Mux(mem_ack, mem_dat, rbus.dat_r))]

        # ------------------------------------------------------------------ registers
        # An ENTROPY write reaches RND's pool (the core's, on the gated clock) a cycle later,
        # from flops: the gate's enable must be stable while the clock is low, which a bus
        # strobe is not (a write is ignored unless idle; START comes by a later bus access)
        ent_pend, ent_word = Signal(), Signal(32)
        m.d.sync += ent_pend.eq(rb.entropy_we & idle)
        with m.If(rb.entropy_we & idle):
            m.d.sync += ent_word.eq(rb.entropy_word)
        with m.Elif(ent_pend):
            m.d.sync += ent_word.eq(0)            # in the pool now: not kept here
        start = rb.ctrl_we & rb.ctrl_start
        dma_start = rb.dma_ctrl_we & (rb.dma_ctrl_to_acc | rb.dma_ctrl_from_acc | rb.dma_ctrl_list)
        wipe = rb.ctrl_we & rb.ctrl_wipe
        m.d.comb += [core.start.eq((start & idle) | dma.core_start),
                     core.wipe.eq(wipe | dma.core_wipe),
                     dma.core_done.eq(core.done), dma.core_error.eq(core.err_bits != 0),
                     dma.start.eq(dma_start & idle), dma.to_acc.eq(rb.dma_ctrl_to_acc),
                     dma.list_mode.eq(rb.dma_ctrl_list),
                     dma.abort.eq(wipe), dma.sys_addr.eq(rb.dma_addr_addr),
                     dma.win_addr.eq(rb.dma_mem_addr), dma.length.eq(rb.dma_len_bytes),
                     rb.status_dma.eq(dma.busy),
                     rb.host_err_dma_range_set.eq(dma.err_range),
                     rb.host_err_dma_bus_set.eq(dma.err_bus),
                     rb.status_state.eq(core.state), rb.err_bits_bits.eq(core.err_bits),
                     rb.stop_pc_pc.eq(core.stop_pc), rb.cycles_count.eq(core.cycles),
                     rb.insns_count.eq(core.insns),
                     # a list's run or wipe is the list's: DONE when the list ends
                     rb.intr_state_done_set.eq((core.done & ~dma.busy) | dma.done),
                     rb.host_err_busy_access_set.eq(host_busy | (rb.entropy_we & ~idle)),
                     core.entropy_we.eq(ent_pend), core.entropy.eq(ent_word),
                     rb.entropy_fresh_words.eq(core.entropy_fresh),
                     rb.host_err_busy_start_set.eq((start | dma_start) & ~idle),
                     rb.mem_size_imem_kib.eq(self.imem_size // 1024),
                     rb.mem_size_dmem_kib.eq(self.dmem_size // 1024),
                     self.irq.eq(rb.intr_state_done & rb.intr_enable_done)]

        # side-load master: the core's kmac.* instructions
        wiring.connect(m, core.sideload, wiring.flipped(self.sideload))
        m.d.comb += rb.err_kmac_code.eq(core.err_kmac)
        return m
