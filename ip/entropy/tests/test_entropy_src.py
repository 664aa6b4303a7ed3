# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""The entropy source's RTL in Amaranth's simulator, driven through its registers as firmware
would. With chosen noise (kind "external"), the raw bits, the words delivered, the failures and
the watermarks follow the sample timing doc/spec.md gives and the reference health tests
(ip/entropy/health.py); with the simulation model of the rings, words flow with no failure."""
import random

import pytest

from amaranth.sim import Simulator

from ip.common.regtool import load
from ip.entropy import REGS_YML
from ip.entropy.health import APT_WINDOW, HealthTests
from ip.entropy.rtl.entropy_src import EntropySource
from ip.entropy.tests.model_ref import expected_words

RM = load(REGS_YML)
OFF = {r.name: r.offset for r in RM.registers}
BIT = {(r.name, f.name): 1 << f.lo for r in RM.registers for f in r.fields}
READY, STARTUP, FAILED = (BIT[("STATUS", n)] for n in ("READY", "STARTUP", "FAILED"))
E_RCT, E_APT, E_EMPTY = (BIT[("ERR_CODE", n)] for n in ("RCT", "APT", "EMPTY"))


class Bench:
    """Every clock edge goes through tick(): it counts edges and drives the noise input with
    stream(edge) for the next cycle (kind "external")."""

    def __init__(self, ctx, dut, stream=None):
        self.ctx, self.dut, self.stream, self.edge = ctx, dut, stream, 0

    async def tick(self):
        await self.ctx.tick()
        self.edge += 1
        if self.stream is not None:
            self.ctx.set(self.dut.noise, self.stream(self.edge))

    async def access(self, reg, data=0, we=False):
        ctx, bus = self.ctx, self.dut.bus
        for port, value in ((bus.adr, OFF[reg] >> 2), (bus.dat_w, data), (bus.sel, 0xF), (bus.we, int(we)),
                            (bus.cyc, 1), (bus.stb, 1)):
            ctx.set(port, value)
        for _ in range(20):
            await self.tick()
            if ctx.get(bus.ack):
                break
        else:
            raise AssertionError(f"{reg} never acknowledged")
        value = ctx.get(bus.dat_r)
        for port in (bus.cyc, bus.stb, bus.we):
            ctx.set(port, 0)
        return value

    async def write(self, reg, value):
        await self.access(reg, value, we=True)

    async def read(self, reg):
        return await self.access(reg)


def run(dut, body, stream=None):
    async def bench(ctx):
        b = Bench(ctx, dut, stream)
        for _ in range(4):          # the noise of the cycles before the first sample is the stream's
            await b.tick()
        await body(b)
    sim = Simulator(dut)
    sim.add_clock(1e-8)
    sim.add_testbench(bench)
    sim.run()


def raw_bit(stream, enabled_at: int, div: int, k: int) -> int:
    """Raw sample k: taken k(DIV + 1) cycles after the cycle the EN write's ack is seen in (after
    edge `enabled_at`), the XOR of the noise two cycles before."""
    return bin(stream(enabled_at + k * (div + 1) - 2)).count("1") & 1


def words_of(bits):
    return [sum(b << i for i, b in enumerate(bits[j:j + 32])) for j in range(0, len(bits) - 31, 32)]


def random_stream(seed, width=2):
    rng = random.Random(seed)
    table = [rng.getrandbits(width) for _ in range(1 << 16)]
    return lambda edge: table[edge % len(table)]


def test_words_are_the_raw_bits_after_the_startup_window_and_watermarks_follow():
    for div, nwords in ((0, 6), (3, 3)):
        dut = EntropySource(kind="external", lengths=(3, 5))
        stream = random_stream(div)
        got = {}

        async def body(b):
            await b.write("CTRL", 1 | div << 8)
            got["at"] = b.edge
            status = await b.read("STATUS")
            assert status & STARTUP and not status & (READY | FAILED)
            got["words"] = []
            while len(got["words"]) < nwords:
                if await b.read("STATUS") & READY:
                    got["words"].append(await b.read("DATA"))
            await b.write("CTRL", div << 8)
            got["off"] = b.edge
            got["watermark"] = await b.read("WATERMARK")
            got["err"] = await b.read("ERR_CODE")
            got["status"] = await b.read("STATUS")

        run(dut, body, stream)
        at = got["at"]
        bits = [raw_bit(stream, at, div, k) for k in range(APT_WINDOW + 32 * nwords)]
        assert got["words"] == words_of(bits[APT_WINDOW:])
        assert got["err"] == 0 and got["status"] == 0
        # the samples taken while EN was 1: sample k is in the cycle after edge at + k(DIV + 1),
        # EN is 1 up to the cycle that ends with edge `off`
        taken = (got["off"] - at - 1) // (div + 1) + 1
        ref = HealthTests(rct=41, apt=793)
        for k in range(taken):
            assert ref.push(raw_bit(stream, at, div, k)) == (False, False)
        assert got["watermark"] == min(ref.rct_max, 255) | ref.apt_max << 16


def test_div_written_while_running_sets_the_wait_after_the_next_raw_bit():
    """The sample after edge e waits DIV + 1 cycles for the next, DIV as it is in that cycle:
    a DIV written while EN is 1 (its ack after edge w) counts from the first sample after w."""
    dut = EntropySource(kind="external", lengths=(3,))
    stream = random_stream(21, width=1)
    got = {}

    async def body(b):
        await b.write("CTRL", 1 | 1 << 8)
        got["at"] = b.edge
        while b.edge < got["at"] + 301:
            await b.tick()
        await b.write("CTRL", 1 | 4 << 8)
        got["w"] = b.edge
        got["words"] = []
        while len(got["words"]) < 3:
            if await b.read("STATUS") & READY:
                got["words"].append(await b.read("DATA"))

    run(dut, body, stream)
    edges, e = [], got["at"]
    while len(edges) < APT_WINDOW + 96:
        edges.append(e)
        e += (4 if e >= got["w"] else 1) + 1
    bits = [stream(e - 2) for e in edges]
    assert got["words"] == words_of(bits[APT_WINDOW:])


def test_stuck_noise_fails_repetition_count_at_the_cutoff_and_enable_recovers():
    dut = EntropySource(kind="external", lengths=(3,))
    cutoff = 12
    state = {"stuck": True}
    rng = random.Random(3)
    stream = lambda edge: 0 if state["stuck"] else rng.getrandbits(1)
    seen = {}

    async def body(b):
        await b.write("RCT_CUTOFF", cutoff)
        await b.write("CTRL", 1)                           # DIV = 0: a sample every cycle
        at = b.edge
        # sample k is taken in cycle k + 1 after the ack: sample cutoff - 1 fails
        while b.edge < at + cutoff - 1:
            await b.tick()
        seen["before"] = await b.read("STATUS")             # sampled at cycle at + cutoff - 1 + 1
        seen["after"] = await b.read("STATUS")
        seen["err"] = await b.read("ERR_CODE")
        seen["data"] = await b.read("DATA")
        seen["err2"] = await b.read("ERR_CODE")
        await b.write("CTRL", 0)
        await b.write("ERR_CODE", E_RCT | E_EMPTY)
        state["stuck"] = False
        await b.write("CTRL", 1)
        seen["restart"] = await b.read("STATUS")
        while not await b.read("STATUS") & READY:
            pass
        seen["final"] = await b.read("STATUS")
        seen["final_err"] = await b.read("ERR_CODE")
        seen["watermark"] = await b.read("WATERMARK")

    run(dut, body, stream)
    assert not seen["before"] & FAILED and seen["after"] & FAILED
    assert seen["err"] == E_RCT
    assert seen["data"] == 0 and seen["err2"] == E_RCT | E_EMPTY
    assert seen["restart"] & STARTUP and not seen["restart"] & FAILED
    assert seen["final"] & READY and not seen["final"] & (FAILED | STARTUP) and seen["final_err"] == 0
    # the stuck run's watermark (at least the cutoff) went with the restart
    assert (seen["watermark"] & 0xFF) < cutoff


def test_a_disproportionate_window_fails_adaptive_proportion_only():
    """Noise 1, 1, 0 repeated: runs of two at most, two thirds of each window equal to its
    first sample; with APT_CUTOFF at 600 the window fails where the reference says."""
    dut = EntropySource(kind="external", lengths=(3,))
    stream = lambda edge: int(edge % 3 != 0)
    seen = {}

    async def body(b):
        await b.write("APT_CUTOFF", 600)
        await b.write("CTRL", 1)
        seen["at"] = b.edge
        while not await b.read("STATUS") & FAILED:
            pass
        seen["failed_by"] = b.edge
        seen["err"] = await b.read("ERR_CODE")

    run(dut, body, stream)
    at = seen["at"]
    ref = HealthTests(rct=41, apt=600)
    k = 0
    while ref.push(raw_bit(stream, at, 0, k)) == (False, False):
        k += 1
    assert ref.count == 600 and k < APT_WINDOW
    # sample k is taken in cycle at + k + 1; a STATUS read takes 2 edges to show it
    assert at + k + 1 < seen["failed_by"] <= at + k + 1 + 2 + 2
    assert seen["err"] == E_APT


def test_reads_before_ready_are_errors_and_disable_clears_the_word():
    dut = EntropySource(kind="external", lengths=(3,))
    stream = random_stream(9, width=1)
    seen = {}

    async def body(b):
        seen["idle"] = (await b.read("DATA"), await b.read("ERR_CODE"))
        await b.write("ERR_CODE", E_EMPTY)
        await b.write("CTRL", 1)
        seen["early"] = (await b.read("DATA"), await b.read("ERR_CODE"))
        await b.write("ERR_CODE", E_EMPTY)
        while not await b.read("STATUS") & READY:
            pass
        await b.write("CTRL", 0)
        seen["off"] = (await b.read("STATUS"), await b.read("DATA"), await b.read("ERR_CODE"))
        await b.write("DATA", 0xFFFFFFFF)                   # a write to DATA changes nothing
        seen["written"] = (await b.read("STATUS"), await b.read("ERR_CODE"))

    run(dut, body, stream)
    assert seen["idle"] == (0, E_EMPTY) and seen["early"] == (0, E_EMPTY)
    assert seen["off"] == (0, 0, E_EMPTY)
    assert seen["written"] == (0, E_EMPTY)


@pytest.mark.parametrize("div", [0, 15])
def test_ring_model_delivers_the_words_of_its_definition(div):
    """The Amaranth model gives the words the Verilog model gives at RTL and gate level
    (cocotb_entropy_src.py) and the simulation SoC's firmware reads (sim/tests/test_entropy.py):
    all against tests/model_ref.py, at DIV 0 and at its reset value."""
    dut = EntropySource(kind="model")
    got = []

    async def body(b):
        await b.write("CTRL", 1 | div << 8)
        while len(got) < 4:
            if await b.read("STATUS") & READY:
                got.append(await b.read("DATA"))
        got.append(await b.read("ERR_CODE"))
        got.append(await b.read("STATUS"))

    run(dut, body)
    words, err, status = got[:4], got[4], got[5]
    assert err == 0 and not status & FAILED
    assert words == expected_words(4, div)


def test_dropped_counts_the_words_lost_while_data_was_held_and_enable_clears_it():
    """A word completed while DATA holds an unread one is lost and counted: after the held word
    the reader gets the word after the lost ones (the model's sequence tells which), and the
    count stays while the reader keeps up; EN 0 clears it."""
    dut = EntropySource(kind="model")
    seen = {}

    async def body(b):
        await b.write("CTRL", 1)                            # DIV 0: a word every 32 cycles
        while not await b.read("STATUS") & READY:
            pass
        seen["before"] = await b.read("DROPPED")
        for _ in range(32 * 5):                             # ~5 words' time unread
            await b.tick()
        seen["held"] = await b.read("DATA")
        seen["dropped"] = await b.read("DROPPED")
        words = []
        while len(words) < 3:
            if await b.read("STATUS") & READY:
                words.append(await b.read("DATA"))
        seen["next"] = words
        seen["after"] = await b.read("DROPPED")
        await b.write("CTRL", 0)
        seen["off"] = await b.read("DROPPED")

    run(dut, body)
    d = seen["dropped"]
    exp = expected_words(d + 4)
    assert seen["before"] == 0 and 4 <= d <= 6
    assert seen["held"] == exp[0] and seen["next"] == exp[d + 1:d + 4]
    assert seen["after"] == d and seen["off"] == 0


def test_dropped_saturates():
    """Unread for 2^16 + 2 words (DIV 0: 32 cycles each, after the 1 024-cycle start-up): the
    count stops at 0xFFFF and stays there."""
    dut = EntropySource(kind="model")
    seen = []

    async def body(b):
        await b.write("CTRL", 1)
        await b.ctx.tick().repeat(1024 + 32 * (0xFFFF + 2) + 64)
        seen.append(await b.read("DROPPED"))
        await b.ctx.tick().repeat(32 * 4)
        seen.append(await b.read("DROPPED"))

    run(dut, body)
    assert seen == [0xFFFF, 0xFFFF]


def test_registers_md_is_regtools_output():
    from ip.common.regtool import markdown
    from pqsoc import REPO
    rel = REGS_YML.relative_to(REPO)
    doc = (REPO / "ip" / "entropy" / "doc" / "registers.md").read_text()
    assert doc == markdown(load(rel)), f"run: pqsoc regtool {rel} --md ip/entropy/doc/registers.md"


def test_forced_failures_are_the_silicon_self_test_of_both_tests():
    """On silicon the failure paths are tested by cutoffs no source passes: RCT_CUTOFF 2 (two equal
    raw bits in a row) and APT_CUTOFF 2 (a window's first value seen again); with the ring model
    each fails within the start-up window, and a restart with the reset cutoffs delivers again."""
    dut = EntropySource(kind="model")
    rm = load(REGS_YML)
    seen = []

    async def body(b):
        for reg, err in (("RCT_CUTOFF", E_RCT), ("APT_CUTOFF", E_APT)):
            await b.write(reg, 2)
            await b.write("CTRL", 1 | 0 << 8)
            while not await b.read("STATUS") & FAILED:
                pass
            seen.append((await b.read("ERR_CODE")) & err)
            await b.write("CTRL", 0)
            await b.write(reg, rm.field(reg, "C").reset)
            await b.write("ERR_CODE", E_RCT | E_APT)
        await b.write("CTRL", 1 | 0 << 8)
        while not await b.read("STATUS") & READY:
            pass
        seen.append(await b.read("ERR_CODE"))

    run(dut, body)
    assert seen == [E_RCT, E_APT, 0]
