# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""ACC host interface (ip/acc/data/acc_regs.yml) in the Amaranth simulator: loading, START,
status, counters, interrupt, WIPE/abort, and host misuse (flagged, nothing lost)."""
from amaranth.sim import Simulator

from ip.acc.rtl.acc import REGS_YML, Acc
from ip.kmac.dv.wb_driver import wb_access
from ip.acc.tools.asm import assemble
from ip.common.regtool import load

RM = load(REGS_YML)
OFF = {r.name: r.offset for r in RM.registers}
STATE = RM.field("STATUS", "STATE").values
IMEM, DMEM = 0x10000, 0x20000


class wb:
    """Register accesses by name (acc_regs.yml) or by byte offset."""
    @staticmethod
    async def write(ctx, bus, reg, value, sel=0xF):
        await wb_access(ctx, bus, OFF[reg] if isinstance(reg, str) else reg, value, sel, True)

    @staticmethod
    async def read(ctx, bus, reg):
        return await wb_access(ctx, bus, OFF[reg] if isinstance(reg, str) else reg)


class SharedAccSim:
    """One simulator of an ACC (1 KiB IMEM and DMEM) for a test module: building it
    (elaborating the whole ACC for Amaranth's simulator) is ~20 of the ~22 s a test took. Each
    run after the first resets it (Simulator.reset: every signal and memory back to its
    initial value, every process and testbench restarted from its beginning), then runs the
    test's bench(ctx, dut). bus: also a process that runs the current `model` on the DMA's
    master port (test_rtl_dma)."""

    def __init__(self, bus=False):
        self.dut = Acc(1024, 1024, clock_gate=None)     # see ip/common/clock_gate.py
        self.bench_fn = self.model = None
        self.sim = Simulator(self.dut)
        self.sim.add_clock(1e-8)
        self.runs = 0

        async def bench(ctx):
            await self.bench_fn(ctx, self.dut)

        async def bus_process(ctx):
            await self.model.run(ctx, self.dut.dma)

        if bus:
            self.sim.add_process(bus_process)
        self.sim.add_testbench(bench)

    def run(self, bench_fn, model=None):
        self.bench_fn, self.model = bench_fn, model
        if self.runs:
            self.sim.reset()
        self.runs += 1
        self.sim.run()


_SHARED = []


def _sim(bench_fn):
    if not _SHARED:
        _SHARED.append(SharedAccSim())
    _SHARED[0].run(bench_fn)


async def _load(ctx, bus, src):
    for i, w in enumerate(assemble(src, "t.s")):
        await wb.write(ctx, bus, IMEM + 4 * i, w)


async def _wait_idle(ctx, bus, limit=5000):
    for _ in range(limit):
        if await wb.read(ctx, bus, "STATUS") == STATE["IDLE"]:
            return
    raise AssertionError("core never returned to IDLE")


def test_program_run_counters_irq_and_memories():
    async def bench(ctx, dut):
        bus = dut.bus
        size = await wb.read(ctx, bus, "MEM_SIZE")
        assert size == 1 | 1 << 16                       # 1 KiB IMEM, 1 KiB DMEM
        await wb.write(ctx, bus, DMEM + 8, 0x1234_5678)
        await wb.write(ctx, bus, DMEM + 9, 0xAB00, sel=0b0010)   # byte write
        assert await wb.read(ctx, bus, DMEM + 8) == 0x1234_AB78
        await _load(ctx, bus, "lw x1, 8(x0)\naddi x0, x0, 0\naddi x1, x1, 1\nsw x1, 36(x0)\necall\n")
        assert await wb.read(ctx, bus, IMEM + 16) == 0x73             # ecall read back
        await wb.write(ctx, bus, "INTR_ENABLE", 1)
        assert not ctx.get(dut.irq)
        await wb.write(ctx, bus, "CTRL", 1)
        await _wait_idle(ctx, bus)
        assert ctx.get(dut.irq)
        assert await wb.read(ctx, bus, "ERR_BITS") == 0
        assert await wb.read(ctx, bus, "CYCLES") == 5 and await wb.read(ctx, bus, "INSNS") == 5
        assert await wb.read(ctx, bus, "STOP_PC") == 16
        assert await wb.read(ctx, bus, DMEM + 36) == 0x1234_AB79
        await wb.write(ctx, bus, "INTR_STATE", 1)
        assert not ctx.get(dut.irq)
        assert await wb.read(ctx, bus, "HOST_ERR") == 0
    _sim(bench)


def test_busy_access_and_start_are_flagged_and_ignored_then_abort_by_wipe():
    async def bench(ctx, dut):
        bus = dut.bus
        await wb.write(ctx, bus, DMEM + 4, 0xCAFE)
        await _load(ctx, bus, "spin:\njal x0, spin\n")
        await wb.write(ctx, bus, "CTRL", 1)
        assert await wb.read(ctx, bus, "STATUS") == STATE["RUN"]
        assert await wb.read(ctx, bus, DMEM + 4) == 0             # busy: reads 0
        await wb.write(ctx, bus, IMEM, 0xFFFF_FFFF)                # busy: ignored
        await wb.write(ctx, bus, "CTRL", 1)                        # START while running
        assert await wb.read(ctx, bus, "HOST_ERR") == 0b11
        await wb.write(ctx, bus, "HOST_ERR", 0b11)
        assert await wb.read(ctx, bus, "HOST_ERR") == 0
        await wb.write(ctx, bus, "CTRL", 2)                        # WIPE aborts and wipes
        await _wait_idle(ctx, bus)
        assert await wb.read(ctx, bus, DMEM + 4) == 0
        assert await wb.read(ctx, bus, IMEM) == assemble("spin:\njal x0, spin\n", "t.s")[0]
    _sim(bench)


def test_error_wipes_and_next_program_runs_without_reset():
    async def bench(ctx, dut):
        bus = dut.bus
        await wb.write(ctx, bus, DMEM + 0, 7)
        await _load(ctx, bus, "addi x1, x0, 3\nlw x2, 0(x1)\necall\n")   # misaligned load
        await wb.write(ctx, bus, "CTRL", 1)
        await _wait_idle(ctx, bus)
        assert await wb.read(ctx, bus, "ERR_BITS") == 1 << 2          # BAD_DATA_ADDR
        assert await wb.read(ctx, bus, "STOP_PC") == 4
        assert await wb.read(ctx, bus, "CYCLES") == 1
        assert await wb.read(ctx, bus, DMEM + 0) == 0                 # secure wipe
        await wb.write(ctx, bus, DMEM + 0, 41)
        await _load(ctx, bus, "lw x2, 0(x0)\naddi x0, x0, 0\naddi x2, x2, 1\nsw x2, 4(x0)\necall\n")
        await wb.write(ctx, bus, "CTRL", 1)
        await _wait_idle(ctx, bus)
        assert await wb.read(ctx, bus, "ERR_BITS") == 0
        assert await wb.read(ctx, bus, DMEM + 4) == 42
    _sim(bench)


def test_entropy_fills_the_pool_only_while_idle_and_the_wipe_empties_it():
    async def bench(ctx, dut):
        bus = dut.bus
        for w in (0x11, 0x22, 0x33):
            await wb.write(ctx, bus, "ENTROPY", w)
        assert await wb.read(ctx, bus, "ENTROPY_FRESH") == 3
        # a RND read takes the oldest fresh word (isa.yml RND) and the count drops
        await _load(ctx, bus, "csrrs x1, RND, x0\nsw x1, 0(x0)\necall\n")
        await wb.write(ctx, bus, "CTRL", 1)
        await _wait_idle(ctx, bus)
        assert await wb.read(ctx, bus, "ERR_BITS") == 0
        assert await wb.read(ctx, bus, DMEM) == 0x11
        assert await wb.read(ctx, bus, "ENTROPY_FRESH") == 2
        # while the core runs a write is ignored and flagged
        await _load(ctx, bus, "spin:\njal x0, spin\n")
        await wb.write(ctx, bus, "CTRL", 1)
        await wb.write(ctx, bus, "ENTROPY", 0x44)
        assert await wb.read(ctx, bus, "HOST_ERR") == 0b01
        assert await wb.read(ctx, bus, "ENTROPY_FRESH") == 2
        await wb.write(ctx, bus, "CTRL", 2)                        # WIPE: the pool too
        await _wait_idle(ctx, bus)
        assert await wb.read(ctx, bus, "ENTROPY_FRESH") == 0
    _sim(bench)
