"""The ACC's DMA (ip/acc/rtl/dma.py, registers DMA_* of ip/acc/data/acc_regs.yml) in the Amaranth
simulator, with a model of the system bus on its master port: a word memory that acks one cycle
after a request (as LiteX's SRAM), answers err at ERR_WORD and never answers at DEAD_WORD.
Copies both ways and into IMEM (then run), bursts that let another master in, bad ranges,
bus errors and timeouts, host misuse while it copies, WIPE aborting it."""
import random

from amaranth.sim import Simulator

from ip.acc.rtl.acc import Acc
from ip.acc.rtl.dma import BURST, TIMEOUT
from ip.acc.tests.test_rtl_host import DMEM, IMEM, OFF, RM, STATE, _wait_idle, wb
from ip.acc.tools.asm import assemble

SYS = 0x4000_0000            # bus byte address of the model memory
WORDS = 1024                 # its size
ERR_WORD = WORDS - 8         # the model answers err here
DEAD_WORD = WORDS - 4        # and nothing here
ERR = {f.name: f.mask for f in RM.reg("HOST_ERR").fields}
STATUS_DMA = RM.field("STATUS", "DMA").mask
TO_ACC, FROM_ACC = 1, 2


class BusModel:
    def __init__(self, seed=1):
        rnd = random.Random(seed)
        self.mem = [rnd.getrandbits(32) for _ in range(WORDS)]
        self.tenures = 0         # cyc rising edges
        self.longest = 0         # the longest run of cycles with cyc high
        self.requests = 0

    async def run(self, ctx, bus):
        cyc_before, run = 0, 0
        async for _clk, _rst, cyc, stb, adr, we, dat_w in ctx.tick().sample(
                bus.cyc, bus.stb, bus.adr, bus.we, bus.dat_w):
            ctx.set(bus.ack, 0)
            ctx.set(bus.err, 0)
            if cyc and not cyc_before:
                self.tenures += 1
            run = run + 1 if cyc else 0
            self.longest = max(self.longest, run)
            cyc_before = cyc
            if not (cyc and stb) or self._answered:
                self._answered = False
                continue
            word = adr - SYS // 4
            if word == DEAD_WORD:
                continue
            self.requests += 1
            self._answered = True
            if word == ERR_WORD or not 0 <= word < WORDS:
                ctx.set(bus.err, 1)
            elif we:
                self.mem[word] = dat_w
                ctx.set(bus.ack, 1)
            else:
                ctx.set(bus.dat_r, self.mem[word])
                ctx.set(bus.ack, 1)

    _answered = False


def _sim(bench_fn, model=None):
    dut = Acc(1024, 1024, clock_gate=None)
    model = model or BusModel()

    async def bench(ctx):
        await bench_fn(ctx, dut, model)

    sim = Simulator(dut)
    sim.add_clock(1e-8)
    async def bus(ctx):
        await model.run(ctx, dut.dma)

    sim.add_process(bus)
    sim.add_testbench(bench)
    sim.run()


async def _dma(ctx, bus, cmd, sys_addr, win_addr, length):
    await wb.write(ctx, bus, "DMA_ADDR", sys_addr)
    await wb.write(ctx, bus, "DMA_MEM", win_addr)
    await wb.write(ctx, bus, "DMA_LEN", length)
    await wb.write(ctx, bus, "DMA_CTRL", cmd)


async def _access(ctx, bus, offset):
    """One read: ("ack" or "err", data)."""
    ctx.set(bus.adr, offset >> 2)
    ctx.set(bus.we, 0)
    ctx.set(bus.cyc, 1)
    ctx.set(bus.stb, 1)
    for _ in range(100):
        await ctx.tick()
        if ctx.get(bus.ack) or ctx.get(bus.err):
            break
    out = ("err" if ctx.get(bus.err) else "ack", ctx.get(bus.dat_r))
    ctx.set(bus.cyc, 0)
    ctx.set(bus.stb, 0)
    return out


async def _wait_dma(ctx, dut, limit=20000):
    """Cycles until STATUS.DMA drops, watched on the port (no bus traffic in between)."""
    for n in range(limit):
        if not ctx.get(dut.busy):
            return n
        await ctx.tick()
    raise AssertionError("the DMA never finished")


def test_copy_into_dmem_and_back_out_in_bursts():
    async def bench(ctx, dut, model):
        bus = dut.bus
        await _dma(ctx, bus, TO_ACC, SYS + 64, DMEM, 1024)          # all of DMEM
        assert await wb.read(ctx, bus, "STATUS") & STATUS_DMA
        cycles = await _wait_dma(ctx, dut)
        for i in range(0, 256, 17):
            assert await wb.read(ctx, bus, DMEM + 4 * i) == model.mem[16 + i], i
        assert await wb.read(ctx, bus, "HOST_ERR") == 0
        assert await wb.read(ctx, bus, "INTR_STATE") == 1          # DONE
        # one word every 2 cycles, one idle cycle per burst, in which the arbiter may switch:
        # no tenure near the 256 cycles after which the CPU's bus bridge gives up (soc/ibex.py)
        assert cycles <= 256 * 2 + 256 // BURST + 4, cycles
        assert model.tenures > 1 and model.longest <= 64, (model.tenures, model.longest)
        # and out again, to another place
        await _dma(ctx, bus, FROM_ACC, SYS + 4 * 600, DMEM + 40, 200)
        await _wait_dma(ctx, dut)
        assert model.mem[600:650] == model.mem[16 + 10:16 + 60]
        assert await wb.read(ctx, bus, "HOST_ERR") == 0
    _sim(bench)


def test_program_copied_into_imem_runs():
    src = "lw x1, 8(x0)\naddi x0, x0, 0\naddi x1, x1, 1\nsw x1, 36(x0)\necall\n"
    words = assemble(src, "t.s")
    model = BusModel()
    model.mem[100:100 + len(words)] = words

    async def bench(ctx, dut, model):
        bus = dut.bus
        await _dma(ctx, bus, TO_ACC, SYS + 400, IMEM, 4 * len(words))
        await _wait_dma(ctx, dut)
        await wb.write(ctx, bus, DMEM + 8, 41)
        await wb.write(ctx, bus, "CTRL", 1)
        await _wait_idle(ctx, bus)
        assert await wb.read(ctx, bus, "ERR_BITS") == 0
        assert await wb.read(ctx, bus, DMEM + 36) == 42
    _sim(bench, model)


def test_bad_ranges_are_refused_and_copy_nothing():
    async def bench(ctx, dut, model):
        bus = dut.bus
        await wb.write(ctx, bus, DMEM + 4, 0x1111)
        for sys_addr, win, length in ((SYS + 2, DMEM, 8),      # bus address not word-aligned
                                      (SYS, DMEM + 2, 8),      # window address not aligned
                                      (SYS, DMEM, 6),          # length not a multiple of 4
                                      (SYS, 0x0, 8),           # the register region
                                      (SYS, 0x30000, 8),       # no region
                                      (SYS, DMEM + 1020, 8),   # past DMEM's end
                                      (SYS, IMEM + 1024, 4),   # past IMEM's end
                                      (0xFFFF_FFFC, DMEM, 8)):  # past the bus's end
            await _dma(ctx, bus, TO_ACC, sys_addr, win, length)
            assert await wb.read(ctx, bus, "HOST_ERR") == ERR["DMA_RANGE"], (sys_addr, win, length)
            assert await wb.read(ctx, bus, "STATUS") == STATE["IDLE"]
            await wb.write(ctx, bus, "HOST_ERR", ERR["DMA_RANGE"])
        assert await wb.read(ctx, bus, DMEM + 4) == 0x1111
        assert model.requests == 0
        await _dma(ctx, bus, TO_ACC, SYS, DMEM, 0)                # nothing to do: done at once
        assert await wb.read(ctx, bus, "HOST_ERR") == 0
        assert await wb.read(ctx, bus, "INTR_STATE") == 1
    _sim(bench)


def test_bus_error_and_timeout_stop_the_transfer():
    async def bench(ctx, dut, model):
        bus = dut.bus
        start = ERR_WORD - 3
        await _dma(ctx, bus, TO_ACC, SYS + 4 * start, DMEM, 32)
        await _wait_dma(ctx, dut)
        assert await wb.read(ctx, bus, "HOST_ERR") == ERR["DMA_BUS"]
        assert await wb.read(ctx, bus, "INTR_STATE") == 1
        for i in range(3):                                          # the words before it
            assert await wb.read(ctx, bus, DMEM + 4 * i) == model.mem[start + i]
        assert await wb.read(ctx, bus, DMEM + 12) == 0
        await wb.write(ctx, bus, "HOST_ERR", ERR["DMA_BUS"])
        await _dma(ctx, bus, FROM_ACC, SYS + 4 * DEAD_WORD, DMEM, 8)   # nobody answers
        cycles = await _wait_dma(ctx, dut)
        assert TIMEOUT <= cycles <= TIMEOUT + 8, cycles
        assert await wb.read(ctx, bus, "HOST_ERR") == ERR["DMA_BUS"]
        assert await wb.read(ctx, bus, "STATUS") == STATE["IDLE"]
    _sim(bench)


def test_host_misuse_while_copying_is_flagged_and_wipe_aborts():
    async def bench(ctx, dut, model):
        bus = dut.bus
        await _dma(ctx, bus, TO_ACC, SYS, DMEM, 1024)
        # refused with a bus error (the DMA's own access to this window would fail so)
        assert await _access(ctx, bus, DMEM + 4) == ("err", 0)
        await wb.write(ctx, bus, "CTRL", 1)                         # START while copying
        await wb.write(ctx, bus, "DMA_CTRL", FROM_ACC)              # a second transfer
        assert await wb.read(ctx, bus, "HOST_ERR") == ERR["BUSY_ACCESS"] | ERR["BUSY_START"]
        await wb.write(ctx, bus, "HOST_ERR", 0xF)
        await wb.write(ctx, bus, "CTRL", 2)                         # WIPE aborts it
        await _wait_idle(ctx, bus)
        assert not ctx.get(dut.busy)
        for i in range(0, 256, 31):
            assert await wb.read(ctx, bus, DMEM + 4 * i) == 0
        # a transfer while the core runs is refused
        spin = assemble("spin:\njal x0, spin\n", "t.s")
        await wb.write(ctx, bus, IMEM, spin[0])
        await wb.write(ctx, bus, "CTRL", 1)
        requests = model.requests
        await _dma(ctx, bus, TO_ACC, SYS, DMEM, 8)
        assert await wb.read(ctx, bus, "HOST_ERR") == ERR["BUSY_START"]
        assert model.requests == requests
        await wb.write(ctx, bus, "CTRL", 2)
        await _wait_idle(ctx, bus)
    _sim(bench)


def test_wiped_clean_until_a_run_or_a_dmem_write():
    async def bench(ctx, dut, model):
        bus = dut.bus
        assert await wb.read(ctx, bus, "WIPED") == 0                # DMEM unknown after reset
        await wb.write(ctx, bus, "CTRL", 2)
        await _wait_idle(ctx, bus)
        assert await wb.read(ctx, bus, "WIPED") == 1
        await wb.write(ctx, bus, IMEM, 0x73)                        # IMEM: still clean
        await wb.read(ctx, bus, DMEM)
        assert await wb.read(ctx, bus, "WIPED") == 1
        await wb.write(ctx, bus, DMEM + 4, 1)                       # a host write to DMEM
        assert await wb.read(ctx, bus, "WIPED") == 0
        await wb.write(ctx, bus, "CTRL", 2)
        await _wait_idle(ctx, bus)
        await _dma(ctx, bus, TO_ACC, SYS, IMEM, 8)                  # DMA into IMEM: clean
        await _wait_dma(ctx, dut)
        assert await wb.read(ctx, bus, "WIPED") == 1
        await _dma(ctx, bus, TO_ACC, SYS, DMEM, 8)                  # into DMEM: not
        await _wait_dma(ctx, dut)
        assert await wb.read(ctx, bus, "WIPED") == 0
        await wb.write(ctx, bus, "CTRL", 2)
        await _wait_idle(ctx, bus)
        await wb.write(ctx, bus, IMEM, 0x73)                        # ecall
        await wb.write(ctx, bus, "CTRL", 1)                         # a run
        await _wait_idle(ctx, bus)
        assert await wb.read(ctx, bus, "WIPED") == 0
        await wb.write(ctx, bus, IMEM, 0)                           # illegal: the error wipe
        await wb.write(ctx, bus, "CTRL", 1)
        await _wait_idle(ctx, bus)
        assert await wb.read(ctx, bus, "ERR_BITS") != 0
        assert await wb.read(ctx, bus, "WIPED") == 1
    _sim(bench)
