# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""The ACC's DMA (ip/acc/rtl/dma.py, registers DMA_* of ip/acc/data/acc_regs.yml) in the Amaranth
simulator, with a model of the system bus on its master port: a word memory that acks one cycle
after a request (as LiteX's SRAM), answers err at ERR_WORD and never answers at DEAD_WORD.
Copies both ways and into IMEM (then run), bursts that let another master in, bad ranges,
bus errors and timeouts, host misuse while it copies, WIPE aborting it."""
import random

import pytest

from ip.acc.rtl.dma import BURST, DESC_FROM_ACC, DESC_RUN, DESC_WIPE, TIMEOUT
from ip.acc.tests.test_rtl_host import DMEM, IMEM, RM, STATE, SharedAccSim, _wait_idle, wb
from ip.acc.tools.asm import assemble
from ip.common.wishbone import CTI_INCR

SYS = 0x4000_0000            # bus byte address of the model memory
WORDS = 1024                 # its size
ERR_WORD = WORDS - 8         # the model answers err here
DEAD_WORD = WORDS - 4        # and nothing here
ERR = {f.name: f.mask for f in RM.reg("HOST_ERR").fields}
STATUS_DMA = RM.field("STATUS", "DMA").mask
TO_ACC, FROM_ACC = 1, 2


class BusModel:
    """A word memory behind a registered ack, as LiteX's SRAM: ack (or err) the cycle after a
    request. With `bursting`, as LiteX's SRAM on a bursting bus: during an incrementing burst
    (cti CTI_INCR) it acks every cycle, having read ahead at adr + 1; it then checks that the
    master did move on to adr + 1, and that a tenure never ends right after an acked
    CTI_INCR access (the slave would raise a stray ack): `violations` lists any breach."""

    def __init__(self, seed=1, bursting=False):
        rnd = random.Random(seed)
        self.mem = [rnd.getrandbits(32) for _ in range(WORDS)]
        self.bursting = bursting
        self.tenures = 0         # cyc rising edges
        self.longest = 0         # the longest run of cycles with cyc high
        self.requests = 0
        self.violations = []

    async def run(self, ctx, bus):
        cyc_before, run, answer, expect, incr_acked = 0, 0, None, None, False
        async for _clk, _rst, cyc, stb, adr, we, dat_w, cti in ctx.tick().sample(
                bus.cyc, bus.stb, bus.adr, bus.we, bus.dat_w, bus.cti):
            # the cycle just ended: the master's (cyc, stb, adr, ...) and our `answer` to it
            if cyc and not cyc_before:
                self.tenures += 1
            if not cyc and cyc_before and incr_acked:
                self.violations.append(f"tenure ended after an acked CTI_INCR access at {adr:#x}")
            run = run + 1 if cyc else 0
            self.longest = max(self.longest, run)
            cyc_before = cyc
            acked = answer == "ack" and cyc and stb
            if acked and expect is not None and adr != expect:
                self.violations.append(f"burst went to {adr:#x}, not {expect:#x}")
            if acked and we:
                self.mem[adr - SYS // 4] = dat_w
            incr_acked = acked and cti == CTI_INCR
            ctx.set(bus.ack, 0)
            ctx.set(bus.err, 0)
            if not (cyc and stb) or (answer is not None and not (self.bursting and incr_acked)):
                answer, expect = None, None
                continue
            nxt = adr + 1 if answer else adr     # the address the master shows next cycle
            expect = nxt if answer else None
            answer = None
            word = nxt - SYS // 4
            if word == DEAD_WORD:
                continue
            self.requests += 1
            if word == ERR_WORD or not 0 <= word < WORDS:
                ctx.set(bus.err, 1)
                answer = "err"
            else:
                if not we:
                    ctx.set(bus.dat_r, self.mem[word])
                ctx.set(bus.ack, 1)
                answer = "ack"


_SHARED = []          # one simulator for the module (test_rtl_host.SharedAccSim)


def _sim(bench_fn, model=None):
    if not _SHARED:
        _SHARED.append(SharedAccSim(bus=True))
    model = model or BusModel(bursting=True)     # as the SoC's bus

    async def bench(ctx, dut):
        await bench_fn(ctx, dut, model)
    _SHARED[0].run(bench, model)
    assert model.violations == []


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


@pytest.mark.parametrize("bursting", (False, True), ids=("classic", "bursting"))
def test_copy_into_dmem_and_back_out_in_bursts(bursting):
    async def bench(ctx, dut, model):
        bus = dut.bus
        await _dma(ctx, bus, TO_ACC, SYS + 64, DMEM, 1024)          # all of DMEM
        assert await wb.read(ctx, bus, "STATUS") & STATUS_DMA
        cycles = await _wait_dma(ctx, dut)
        for i in range(0, 256, 17):
            assert await wb.read(ctx, bus, DMEM + 4 * i) == model.mem[16 + i], i
        assert await wb.read(ctx, bus, "HOST_ERR") == 0
        assert await wb.read(ctx, bus, "INTR_STATE") == 1          # DONE
        # a word a cycle from a bursting slave (every 2 cycles from a classic one), one more
        # cycle a burst and one idle cycle after it, in which the arbiter may switch: no
        # tenure near the 256 cycles after which the CPU's bus bridge gives up (soc/ibex.py)
        per_word = 1 if bursting else 2
        assert cycles <= 256 * per_word + 2 * (256 // BURST) + 4, cycles
        assert model.tenures > 1 and model.longest <= 2 * BURST + 2, (model.tenures, model.longest)
        # and out again, to another place: an odd offset in the row, and a length that ends
        # inside a burst
        await _dma(ctx, bus, FROM_ACC, SYS + 4 * 600, DMEM + 44, 4 * 150)
        cycles = await _wait_dma(ctx, dut)
        assert model.mem[600:750] == model.mem[16 + 11:16 + 161]
        assert cycles <= 150 * per_word + 2 * (150 // BURST + 1) + 4, cycles
        assert await wb.read(ctx, bus, "HOST_ERR") == 0
        # out of IMEM (a word wide, no row to pick from)
        await _dma(ctx, bus, FROM_ACC, SYS + 4 * 800, IMEM + 8, 4 * 20)
        await _wait_dma(ctx, dut)
        assert model.mem[800:820] == [await wb.read(ctx, bus, IMEM + 8 + 4 * i) for i in range(20)]
        assert model.violations == []
    _sim(bench, BusModel(bursting=bursting))


def test_program_copied_into_imem_runs():
    src = "lw x1, 8(x0)\naddi x0, x0, 0\naddi x1, x1, 1\nsw x1, 36(x0)\necall\n"
    words = assemble(src, "t.s")
    model = BusModel(bursting=True)
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
        # at once, in the middle of a burst: the slave's ack of the next word comes in the
        # cycle cyc drops, while the arbiter still grants the DMA (dma.py): the one breach
        assert len(model.violations) == 1 and "tenure ended" in model.violations[0]
        model.violations.clear()
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


# ---- descriptor lists (DMA_CTRL.LIST) ----------------------------------------------------------
LIST = 4
RUN, WIPE, OUT = 1 << DESC_RUN, 1 << DESC_WIPE, 1 << DESC_FROM_ACC
INC_PROG = "lw x1, 8(x0)\naddi x0, x0, 0\naddi x1, x1, 1\nsw x1, 36(x0)\necall\n"


def _put_list(model, at, descs):
    """Descriptors (bus address, window word, length) as words at model word `at`; returns
    the list's bus address."""
    for i, (a, w, n) in enumerate(descs):
        model.mem[at + 3 * i:at + 3 * i + 3] = [a, w, n]
    return SYS + 4 * at


async def _list(ctx, dut, model, addr, n):
    """Runs a list; returns (cycles, DONE interrupts seen while it ran, after it)."""
    bus = dut.bus
    await wb.write(ctx, bus, "INTR_STATE", 1)
    await wb.write(ctx, bus, "INTR_ENABLE", 1)
    await _dma(ctx, bus, LIST, addr, 0, n)
    during = 0
    for cycles in range(50000):
        if not ctx.get(dut.busy):
            break
        during += ctx.get(dut.irq)
        await ctx.tick()
    else:
        raise AssertionError("the list never ended")
    return cycles, during, ctx.get(dut.irq)


def test_list_copies_in_runs_copies_out_and_wipes():
    words = assemble(INC_PROG, "t.s")
    model = BusModel(bursting=True)
    model.mem[100:100 + len(words)] = words
    model.mem[200:208] = [7, 8, 41, 10, 11, 12, 13, 14]
    addr = _put_list(model, 300, [
        (SYS + 400, IMEM, 4 * len(words)),        # the program
        (SYS + 800, DMEM, 32),                    # its input row
        (0, RUN, 0),
        (SYS + 4 * 500, OUT | (DMEM + 32), 8),    # words 8, 9 of DMEM: 0, the result
        (SYS + 4 * 600, OUT | (DMEM + 36), 0),    # nothing
        (0, WIPE, 0)])

    async def bench(ctx, dut, model):
        bus = dut.bus
        before = model.mem[502]
        cycles, during, after = await _list(ctx, dut, model, addr, 6)
        assert (during, after) == (0, 1)               # one DONE, at the end of the list
        assert model.mem[500:503] == [0, 42, before]   # copied out after the run, no more
        assert await wb.read(ctx, bus, "ERR_BITS") == 0
        assert await wb.read(ctx, bus, "HOST_ERR") == 0
        assert await wb.read(ctx, bus, "CYCLES") > 0
        assert await wb.read(ctx, bus, "WIPED") == 1   # the list's wipe
        assert await wb.read(ctx, bus, DMEM + 8) == 0
        assert await wb.read(ctx, bus, IMEM) == words[0]
        assert cycles < 1024 // 32 + 200, cycles      # the wipe of 32 rows and a short run
    _sim(bench, model)


def test_list_stops_at_an_error_halt_a_bad_descriptor_or_a_bus_error():
    model = BusModel(bursting=True)
    model.mem[100] = 0                                 # an illegal instruction
    model.mem[120:128] = list(range(1, 9))
    halt = _put_list(model, 300, [(SYS + 400, IMEM, 4), (0, RUN, 0),
                                  (SYS + 4 * 500, OUT | DMEM, 32)])
    bad = _put_list(model, 320, [(SYS + 480, DMEM, 32), (SYS + 480, DMEM + 1020, 8),
                                 (SYS + 480, DMEM + 64, 32)])
    broken = (ERR_WORD - 4) * 4 + SYS                  # its second descriptor spans ERR_WORD

    async def bench(ctx, dut, model):
        bus = dut.bus
        dest = model.mem[500:508]
        _, during, after = await _list(ctx, dut, model, halt, 3)
        assert (during, after) == (0, 1)
        assert await wb.read(ctx, bus, "ERR_BITS") != 0
        assert model.mem[500:508] == dest                # the copy out never ran
        assert await wb.read(ctx, bus, "HOST_ERR") == 0
        await _list(ctx, dut, model, bad, 3)
        assert await wb.read(ctx, bus, "HOST_ERR") == ERR["DMA_RANGE"]
        assert await wb.read(ctx, bus, DMEM + 4) == 2  # the first copy ran ...
        assert await wb.read(ctx, bus, DMEM + 64) == 0  # ... the third did not
        await wb.write(ctx, bus, "HOST_ERR", ERR["DMA_RANGE"])
        model.mem[ERR_WORD - 4:ERR_WORD - 1] = [SYS + 480, DMEM + 96, 32]
        _, during, after = await _list(ctx, dut, model, broken, 2)
        assert (during, after) == (0, 1)
        assert await wb.read(ctx, bus, "HOST_ERR") == ERR["DMA_BUS"]
        assert await wb.read(ctx, bus, DMEM + 96) == 1  # the first descriptor's copy
        await wb.write(ctx, bus, "HOST_ERR", ERR["DMA_BUS"])
        await _dma(ctx, bus, LIST, halt + 2, 0, 1)       # a list address not word-aligned
        assert await wb.read(ctx, bus, "HOST_ERR") == ERR["DMA_RANGE"]
        assert await wb.read(ctx, bus, "STATUS") == STATE["IDLE"]
    _sim(bench, model)


def test_wipe_aborts_a_list_while_the_core_runs():
    spin = assemble("spin:\njal x0, spin\n", "t.s")
    model = BusModel(bursting=True)
    model.mem[100] = spin[0]
    addr = _put_list(model, 300, [(SYS + 400, IMEM, 4), (SYS + 400, DMEM, 4), (0, RUN, 0),
                                  (SYS + 4 * 500, OUT | DMEM, 4)])

    async def bench(ctx, dut, model):
        bus = dut.bus
        await _dma(ctx, bus, LIST, addr, 0, 4)
        for _ in range(200):
            await ctx.tick()
        assert await wb.read(ctx, bus, "STATUS") & STATUS_DMA
        assert (await wb.read(ctx, bus, "STATUS") & 3) == STATE["RUN"]
        assert (await _access(ctx, bus, DMEM))[0] == "err"   # refused while the list runs
        await wb.write(ctx, bus, "HOST_ERR", 0xF)
        await wb.write(ctx, bus, "CTRL", 2)
        await _wait_idle(ctx, bus)
        assert not ctx.get(dut.busy)
        assert await wb.read(ctx, bus, DMEM) == 0
        assert model.mem[500] != spin[0]                   # never copied out
        assert await wb.read(ctx, bus, "WIPED") == 1
    _sim(bench, model)


def test_wipe_clears_the_rows_written_since_the_last_one():
    """A wipe covers DMEM up to the highest row written since the previous wipe (by the host,
    the DMA or the core): all rows after reset, one row when only row 0 was written."""
    prog = assemble("addi x1, x0, 7\nsw x1, 512(x0)\necall\n", "t.s")   # row 16

    async def wipe_cycles(ctx, dut):
        await wb.write(ctx, dut.bus, "CTRL", 2)
        n = 0
        while ctx.get(dut.busy):
            await ctx.tick()
            n += 1
        return n

    async def bench(ctx, dut, model):
        bus = dut.bus
        rows = 1024 // 32
        first = await wipe_cycles(ctx, dut)                   # after reset: every row
        assert first >= rows, first
        assert await wipe_cycles(ctx, dut) < 4                 # nothing written since
        await wb.write(ctx, bus, DMEM + 4 * 8 * 9 + 4, 0xAB)    # row 9, by the host
        assert 9 < await wipe_cycles(ctx, dut) < 14
        assert await wb.read(ctx, bus, DMEM + 4 * 8 * 9 + 4) == 0
        model.mem[0:4] = [1, 2, 3, 4]
        await _dma(ctx, bus, TO_ACC, SYS, DMEM + 32 * 20, 16)  # row 20, by the DMA
        await _wait_dma(ctx, dut)
        assert 20 < await wipe_cycles(ctx, dut) < 25
        assert await wb.read(ctx, bus, DMEM + 32 * 20 + 12) == 0
        for i, w in enumerate(prog):
            await wb.write(ctx, bus, IMEM + 4 * i, w)
        await wb.write(ctx, bus, "CTRL", 1)                     # row 16, by the core
        await _wait_idle(ctx, bus)
        assert await wb.read(ctx, bus, DMEM + 512) == 7
        assert 16 < await wipe_cycles(ctx, dut) < 21
        assert await wb.read(ctx, bus, DMEM + 512) == 0
    _sim(bench)
