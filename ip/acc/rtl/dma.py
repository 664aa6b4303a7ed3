"""The ACC's DMA: copies 32-bit words between the system bus and the ACC's IMEM / DMEM while the
core is idle, so that firmware moves a program, its constant tables and a call's inputs and
outputs without a CPU load and store per word (registers DMA_*, ip/acc/data/acc_regs.yml).

Why in the ACC: the CPU fetches its code over the same bus with no cache, so a CPU copy costs
~20 cycles a word (firmware/lib/acc.c); here a word costs one bus read and a memory write in its
ack cycle (2 cycles with LiteX's registered-ack SRAM), or a memory read, a latch and a bus write
out of the ACC (4 cycles).

Transfer: `start` with `to_acc` (bus -> memory) or not (memory -> bus), `sys_addr` (bus byte
address), `win_addr` (byte address in the ACC's window: 0x10000 + IMEM offset or 0x20000 + DMEM
offset) and `length` (bytes). All three must be multiples of 4 and the range must lie inside the
memory, else `err_range` and nothing moves. A transfer ends with `done`; a bus error, or no
answer within TIMEOUT cycles (an unmapped address: nobody acks), ends it early with `err_bus`
(the words before it were copied). `abort` (the ACC's WIPE) stops it at once.

Fairness: the SoC's shared-bus arbiter keeps a master that holds cyc, and the CPU's bus bridge
faults after 256 cycles without an answer (soc/ibex.py): the DMA drops cyc for one cycle after
every BURST words, which lets the CPU's pending access through.

Secrets: the word latched on the way out is cleared when the transfer ends, and dat_w is 0 but
while a write is offered.
"""
from amaranth import Module, Mux, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from ip.common.wishbone import WishboneSignature

REGION_IMEM, REGION_DMEM = 1, 2     # win_addr[16:18], as the host window (ip/acc/rtl/acc.py)
WIN_BITS = 18                       # byte address bits of the host window's three regions
BURST = 16                          # words per bus tenure
# cycles an access may wait for ack / err: the shared bus is the DMA's meanwhile, and the CPU's
# bus bridge gives up after 256 cycles (soc/ibex.py), so a burst plus this stays well below it
TIMEOUT = 100


class AccDma(wiring.Component):
    def __init__(self, imem_bytes: int, dmem_bytes: int, addr_width: int = 30):
        self.imem_bytes, self.dmem_bytes = imem_bytes, dmem_bytes
        super().__init__({
            "bus": Out(WishboneSignature(addr_width)),
            "start": In(1), "to_acc": In(1), "abort": In(1),
            "sys_addr": In(32), "win_addr": In(WIN_BITS), "length": In(WIN_BITS),
            "busy": Out(1), "done": Out(1), "err_range": Out(1), "err_bus": Out(1),
            # the memory port: a 32-bit word of IMEM (mem_imem) or DMEM, word index mem_addr
            "mem_imem": Out(1), "mem_addr": Out(14), "mem_we": Out(1), "mem_re": Out(1),
            "mem_wdata": Out(32), "mem_rdata": In(32),
        })

    def elaborate(self, platform):
        m = Module()
        bus = self.bus
        region = self.win_addr[16:WIN_BITS]
        offset = self.win_addr[:16]
        size = Mux(region == REGION_IMEM, self.imem_bytes, self.dmem_bytes)
        legal = (((region == REGION_IMEM) | (region == REGION_DMEM))
                 & ((self.sys_addr[:2] | self.win_addr[:2] | self.length[:2]) == 0)
                 & (offset + self.length <= size)
                 & (self.sys_addr + self.length <= 1 << 32))   # no wrap past the bus's end

        to_acc = Signal()
        imem = Signal()
        adr = Signal(len(bus.adr))          # next bus word
        word = Signal(14)                   # next memory word
        left = Signal(WIN_BITS - 2)         # words left
        burst = Signal(range(BURST + 1))
        wait = Signal(range(TIMEOUT + 1))
        latch = Signal(32)                  # memory -> bus: the word on its way out
        m.d.comb += [self.mem_imem.eq(imem), self.mem_addr.eq(word), bus.adr.eq(adr),
                     bus.sel.eq(0b1111), bus.we.eq(~to_acc)]

        def finish(err_bus=False):
            m.d.comb += self.done.eq(1)
            if err_bus:
                m.d.comb += self.err_bus.eq(1)
            m.d.sync += latch.eq(0)
            m.next = "IDLE"

        def next_word(then):
            m.d.sync += [adr.eq(adr + 1), word.eq(word + 1), left.eq(left - 1),
                         burst.eq(burst + 1), wait.eq(0)]
            with m.If(left == 1):
                finish()
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

        def running(body):
            """A state of a transfer: busy; WIPE (abort) ends it at once."""
            m.d.comb += self.busy.eq(1)
            with m.If(self.abort):
                m.d.sync += latch.eq(0)
                m.next = "IDLE"
            with m.Else():
                body()

        def go_on():
            with m.If(to_acc):
                m.next = "READ"
            with m.Else():
                m.next = "FETCH"

        def store():                        # bus -> memory: the word is written in its ack cycle
            m.d.comb += [self.mem_we.eq(1), self.mem_wdata.eq(bus.dat_r)]
            next_word("READ")

        def fetch():                        # memory -> bus: read the word ...
            m.d.comb += self.mem_re.eq(1)
            m.next = "LATCH"

        def latch_word():                   # ... its data arrive a cycle later
            m.d.sync += latch.eq(self.mem_rdata)
            m.next = "WRITE"

        def write():
            m.d.comb += bus.dat_w.eq(latch)
            bus_access(lambda: next_word("FETCH"))

        with m.FSM():
            with m.State("IDLE"):
                with m.If(self.start & ~self.abort):
                    with m.If(~legal):
                        m.d.comb += self.err_range.eq(1)
                    with m.Elif(self.length == 0):
                        m.d.comb += self.done.eq(1)
                    with m.Else():
                        m.d.sync += [to_acc.eq(self.to_acc), imem.eq(region == REGION_IMEM),
                                     adr.eq(self.sys_addr[2:]), word.eq(offset[2:]),
                                     left.eq(self.length[2:]), burst.eq(0), wait.eq(0)]
                        with m.If(self.to_acc):
                            m.next = "READ"
                        with m.Else():
                            m.next = "FETCH"
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
