# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""The ACC's DMA: copies 32-bit words between the system bus and the ACC's IMEM / DMEM while the
core is idle, so that firmware moves a program, its constant tables and a call's inputs and
outputs without a CPU load and store per word (registers DMA_*, ip/acc/data/acc_regs.yml).

Why in the ACC: the CPU fetches its code over the same bus with no cache, so a CPU copy costs
~20 cycles a word (firmware/lib/acc.c); here a word costs one bus access and one memory access.
The accesses are incrementing bursts (cti, ip/common/wishbone.py): a slave that knows them
(LiteX's SRAM and ROM on the SoC's bursting bus) acks a word a cycle, so a tenure of BURST
words takes BURST + 1 cycles either way; a classic slave acks every other cycle. Into the
ACC, the word is written to memory in its ack cycle; out of it, the memory is read a word
ahead (the word after the one on the bus is read every cycle until the ack), so the next
word is ready in the ack cycle.

Transfer: `start` with `to_acc` (bus -> memory) or not (memory -> bus), `sys_addr` (bus byte
address), `win_addr` (byte address in the ACC's window: 0x10000 + IMEM offset or 0x20000 + DMEM
offset) and `length` (bytes). All three must be multiples of 4 and the range must lie inside the
memory, else `err_range` and nothing moves. A transfer ends with `done`; a bus error, or no
answer within TIMEOUT cycles (an unmapped address: nobody acks), ends it early with `err_bus`
(the words before it were copied). `abort` (the ACC's WIPE) stops it at once, even inside a
burst: a bursting slave then raises the ack of the next word it already read in the cycle cyc
drops, which the SoC's arbiter still routes to the DMA (its round-robin grant moves at the end
of that cycle) and the DMA ignores.

List: `start` with `list_mode`: `sys_addr` is the bus address of `length` descriptors of
three words, run in order (the firmware's whole call: constant tables and inputs in, the run,
status and outputs out, the wipe, with one set-up and one DONE):
  word 0  bus byte address of the transfer
  word 1  bits 17:0 the window byte address; bit 31 FROM_ACC (memory -> bus, else bus ->
          memory); bit 30 RUN: start the core (as CTRL.START) and wait for its halt, and stop
          the list there if it halted with an error (ERR_BITS; the core has wiped itself);
          bit 29 WIPE: wipe the core and DMEM (as CTRL.WIPE) and wait for the end. With RUN or
          WIPE words 0 and 2 and the address are ignored.
  word 2  length in bytes
A descriptor's range is checked as a single transfer's (`err_range` stops the list before
it moves anything); a bus error or timeout on a descriptor fetch gives `err_bus`. `done` comes
once, at the end of the list; `core_done` of a RUN or WIPE in a list is the list's, not the
host's (acc.py raises INTR_STATE.DONE from `done` only while the DMA is busy).

Fairness: the SoC's shared-bus arbiter keeps a master that holds cyc, and the CPU's bus bridge
faults after 256 cycles without an answer (soc/ibex.py): the DMA ends its burst (CTI_END) after
every BURST words and drops cyc for one cycle, which lets the CPU's pending access through.

Secrets: the word latched on the way out is cleared when the transfer ends, and dat_w is 0 but
while a write is offered.
"""
from amaranth import Module, Mux, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from ip.common.wishbone import CTI_END, CTI_INCR, WishboneSignature

REGION_IMEM, REGION_DMEM = 1, 2     # win_addr[16:18], as the host window (ip/acc/rtl/acc.py)
WIN_BITS = 18                       # byte address bits of the host window's three regions
BURST = 64                          # words per bus tenure (~65 cycles)
# a list descriptor's word 1: flag bits above the window address (firmware: acc_regs.h)
DESC_FROM_ACC, DESC_RUN, DESC_WIPE = 31, 30, 29
# cycles an access may wait for ack / err: the shared bus is the DMA's meanwhile, and the CPU's
# bus bridge gives up after 256 cycles (soc/ibex.py), so a burst plus this stays well below it
TIMEOUT = 100


class AccDma(wiring.Component):
    def __init__(self, imem_bytes: int, dmem_bytes: int, addr_width: int = 30):
        self.imem_bytes, self.dmem_bytes = imem_bytes, dmem_bytes
        super().__init__({
            "bus": Out(WishboneSignature(addr_width, burst=True)),
            "start": In(1), "to_acc": In(1), "abort": In(1),
            "sys_addr": In(32), "win_addr": In(WIN_BITS), "length": In(WIN_BITS),
            "busy": Out(1), "done": Out(1), "err_range": Out(1), "err_bus": Out(1),
            # the memory port: a 32-bit word of IMEM (mem_imem) or DMEM, word index mem_addr,
            # the DMA's while `copying` (the core's while a list runs or wipes it)
            "copying": Out(1),
            "mem_imem": Out(1), "mem_addr": Out(14), "mem_we": Out(1), "mem_re": Out(1),
            "mem_wdata": Out(32), "mem_rdata": In(32),
            # a list's RUN / WIPE: start / wipe the core, its halt (core_done) and its error
            "list_mode": In(1), "core_start": Out(1), "core_wipe": Out(1),
            "core_done": In(1), "core_error": In(1),
        })

    def _legal(self, sys_addr, win_addr, length):
        region, offset = win_addr[16:WIN_BITS], win_addr[:16]
        size = Mux(region == REGION_IMEM, self.imem_bytes, self.dmem_bytes)
        return (((region == REGION_IMEM) | (region == REGION_DMEM))
                & ((sys_addr[:2] | win_addr[:2] | length[:2]) == 0)
                & (offset + length <= size)
                & (sys_addr + length <= 1 << 32))   # no wrap past the bus's end

    def elaborate(self, platform):
        m = Module()
        bus = self.bus

        to_acc = Signal()
        imem = Signal()
        adr = Signal(len(bus.adr))          # next bus word
        word = Signal(14)                   # next memory word
        left = Signal(WIN_BITS - 2)         # words left
        burst = Signal(range(BURST + 1))
        wait = Signal(range(TIMEOUT + 1))
        latch = Signal(32)                  # memory -> bus: the word on its way out
        ahead = Signal(2)                   # memory -> bus: read `word + ahead`
        # a list: the next descriptor's bus word, descriptors left, the one being fetched
        in_list = Signal()
        desc_adr = Signal(len(bus.adr))
        descs = Signal(WIN_BITS)
        d_word = Signal(2)
        d_sys, d_win, d_len = Signal(32), Signal(32), Signal(WIN_BITS)
        d_last = Signal()                   # the descriptor's last word is on the bus
        m.d.comb += [d_last.eq(d_word == 2),
                     self.mem_imem.eq(imem), self.mem_addr.eq(word + ahead), bus.adr.eq(adr),
                     bus.sel.eq(0b1111), bus.we.eq(~to_acc),
                     bus.cti.eq(Mux((left == 1) | (burst == BURST - 1), CTI_END, CTI_INCR))]

        def finish(err_bus=False):
            m.d.comb += self.done.eq(1)
            if err_bus:
                m.d.comb += self.err_bus.eq(1)
            m.d.sync += [latch.eq(0), in_list.eq(0)]
            m.next = "IDLE"

        def transfer_done():                # the next descriptor, or the end
            with m.If(in_list & (descs != 0)):
                m.d.sync += [d_word.eq(0), wait.eq(0)]
                m.next = "DESC"
            with m.Else():
                finish()

        def next_word(then):
            m.d.sync += [adr.eq(adr + 1), word.eq(word + 1), left.eq(left - 1),
                         burst.eq(burst + 1), wait.eq(0)]
            with m.If(left == 1):
                m.d.sync += latch.eq(0)
                transfer_done()
            with m.Elif(burst == BURST - 1):
                m.d.sync += burst.eq(0)
                m.next = "YIELD"
            with m.Else():
                m.next = then

        def bus_access(then):
            m.d.comb += [bus.cyc.eq(1), bus.stb.eq(1)]
            m.d.sync += wait.eq(wait + 1)
            with m.If(bus.err | (wait == TIMEOUT)):
                finish(err_bus=True)
            with m.Elif(bus.ack):
                then()

        def running(body, copying=True):
            """A state of a transfer or list: busy; WIPE (abort) ends it at once."""
            m.d.comb += self.busy.eq(1)
            if copying:
                m.d.comb += self.copying.eq(1)
            with m.If(self.abort):
                m.d.sync += [latch.eq(0), in_list.eq(0)]
                m.next = "IDLE"
            with m.Else():
                body()

        def begin(sys_addr, win_addr, length, from_acc):
            """A transfer: its range checked (err_range: nothing moves, a list stops)."""
            with m.If(~self._legal(sys_addr, win_addr, length)):
                m.d.comb += [self.err_range.eq(1), self.done.eq(in_list)]   # a list ends
                m.d.sync += in_list.eq(0)
                m.next = "IDLE"
            with m.Elif(length == 0):
                transfer_done()
            with m.Else():
                m.d.sync += [to_acc.eq(~from_acc), imem.eq(win_addr[16:WIN_BITS] == REGION_IMEM),
                             adr.eq(sys_addr[2:]), word.eq(win_addr[2:16]),
                             left.eq(length[2:]), burst.eq(0), wait.eq(0)]
                with m.If(from_acc):
                    m.next = "FETCH"
                with m.Else():
                    m.next = "READ"

        def read_ahead():                   # memory -> bus: mem_rdata is `word + 1` next cycle
            m.d.comb += [self.mem_re.eq(1), ahead.eq(1)]

        def written():                      # ... as `word` moves on at an ack: read 2 ahead
            m.d.comb += ahead.eq(2)
            m.d.sync += latch.eq(self.mem_rdata)
            next_word("WRITE")

        def go_on():
            with m.If(to_acc):
                m.next = "READ"
            with m.Else():
                read_ahead()
                m.next = "WRITE"

        def store():                        # bus -> memory: the word is written in its ack cycle
            m.d.comb += [self.mem_we.eq(1), self.mem_wdata.eq(bus.dat_r)]
            next_word("READ")

        def fetch():                        # memory -> bus: read the first word ...
            m.d.comb += self.mem_re.eq(1)
            m.next = "LATCH"

        def latch_word():                   # ... its data arrive a cycle later
            m.d.sync += latch.eq(self.mem_rdata)
            read_ahead()
            m.next = "WRITE"

        def write():
            m.d.comb += bus.dat_w.eq(latch)
            read_ahead()
            bus_access(written)

        def desc_fetch():                   # the descriptor's three words, one burst
            m.d.comb += [bus.adr.eq(desc_adr), bus.we.eq(0),
                         bus.cti.eq(Mux(d_last, CTI_END, CTI_INCR))]

            def got():
                m.d.sync += [desc_adr.eq(desc_adr + 1), d_word.eq(d_word + 1), wait.eq(0)]
                with m.Switch(d_word):
                    with m.Case(0):
                        m.d.sync += d_sys.eq(bus.dat_r)
                    with m.Case(1):
                        m.d.sync += d_win.eq(bus.dat_r)
                    with m.Case(2):
                        m.d.sync += [d_len.eq(bus.dat_r[:WIN_BITS]), descs.eq(descs - 1)]
                        m.next = "DESC_GO"
            bus_access(got)

        def desc_go():
            with m.If(d_win[DESC_RUN]):
                m.d.comb += self.core_start.eq(1)
                m.next = "CORE"
            with m.Elif(d_win[DESC_WIPE]):
                m.d.comb += self.core_wipe.eq(1)
                m.next = "CORE"
            with m.Else():
                begin(d_sys, d_win[:WIN_BITS], d_len, d_win[DESC_FROM_ACC])

        def core_wait():                    # a list's RUN / WIPE: until the core halts
            with m.If(self.core_done):
                with m.If(self.core_error):
                    finish()
                with m.Else():
                    transfer_done()

        with m.FSM():
            with m.State("IDLE"):
                with m.If(self.start & ~self.abort):
                    with m.If(self.list_mode):
                        with m.If(self.sys_addr[:2] != 0):
                            m.d.comb += self.err_range.eq(1)
                        with m.Elif(self.length == 0):
                            m.d.comb += self.done.eq(1)
                        with m.Else():
                            m.d.sync += [in_list.eq(1), desc_adr.eq(self.sys_addr[2:]),
                                         descs.eq(self.length), d_word.eq(0), wait.eq(0)]
                            m.next = "DESC"
                    with m.Else():
                        m.d.sync += in_list.eq(0)
                        begin(self.sys_addr, self.win_addr, self.length, ~self.to_acc)
            with m.State("DESC"):
                running(desc_fetch, copying=False)
            with m.State("DESC_GO"):
                running(desc_go, copying=False)
            with m.State("CORE"):
                running(core_wait, copying=False)
            with m.State("READ"):
                running(lambda: bus_access(store))
            with m.State("FETCH"):
                running(fetch)
            with m.State("LATCH"):
                running(latch_word)
            with m.State("WRITE"):
                running(write)
            with m.State("YIELD"):          # one cycle without cyc: the arbiter may switch
                running(go_on)
        return m
