# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""Cycle figures of the KMAC block, measured in the Amaranth simulator on the side-load port.

    from ip.kmac.dv.bench import measure; measure()  ->  {"cycles_per_permutation": 24, ...}
"""
from amaranth.sim import Simulator

from ip.kmac.rtl.kmac import Kmac
from ip.kmac.rtl.sideload import OP_FINISH, OP_START


def measure(rounds_per_cycle: int = 1, squeeze_words: int = 48, stream: list | None = None) -> dict:
    """SHAKE128 on the side-load: START, a 32-byte seed, FINISH, then the digest word taken in
    every cycle it is valid. Throughput is steady state: from the first word that needs the
    2nd output block to the last word taken. `stream`, if given, receives the output bytes
    (seed = bytes(range(32))) so a test can check them at full rate."""
    dut = Kmac(rounds_per_cycle)
    core = dut.engine.core
    r = {}
    busy_runs = []

    async def handshake(ctx, valid, ready):
        ctx.set(valid, 1)
        n = 0
        while not ctx.get(ready):
            await ctx.tick()
            n += 1
        await ctx.tick()
        ctx.set(valid, 0)
        return n + 1

    async def bench(ctx):
        sl = dut.sideload
        ctx.set(sl.hold, 1)
        await ctx.tick().repeat(2)
        ctx.set(sl.cmd.op, OP_START)
        ctx.set(sl.cmd.mode, 1)
        ctx.set(sl.cmd.strength, 0)
        await handshake(ctx, sl.cmd.valid, sl.cmd.ready)
        ctx.set(sl.msg.data, int.from_bytes(bytes(range(32)), "little"))
        ctx.set(sl.msg.mask, 0xFFFFFFFF)
        await handshake(ctx, sl.msg.valid, sl.msg.ready)
        ctx.set(sl.cmd.op, OP_FINISH)
        t = await handshake(ctx, sl.cmd.valid, sl.cmd.ready)
        while not ctx.get(sl.digest.valid):
            await ctx.tick()
            t += 1
        r["seed32_finish_to_first_word_cycles"] = t
        ctx.set(sl.digest.ready, 1)
        times, cycle = [], 0
        while len(times) < squeeze_words:
            if ctx.get(sl.digest.valid):
                times.append(cycle)
                if stream is not None:
                    stream.append(ctx.get(sl.digest.data).to_bytes(32, "little"))
            await ctx.tick()
            cycle += 1
        ctx.set(sl.digest.ready, 0)
        first = 168 // 32 + 1          # word 6 is the first with bytes of output block 2
        r["shake128_squeeze_bytes_per_cycle"] = round(
            32 * (len(times) - 1 - first) / (times[-1] - times[first]), 3)

    async def monitor(ctx):
        n = 0
        while True:
            await ctx.tick()
            if ctx.get(core.busy):
                n += 1
            elif n:
                busy_runs.append(n)
                n = 0

    sim = Simulator(dut)
    sim.add_clock(1e-8)
    sim.add_testbench(bench)
    sim.add_testbench(monitor, background=True)
    sim.run()
    r["cycles_per_permutation"] = max(busy_runs)
    r["rounds_per_cycle"] = rounds_per_cycle
    # A block every max(permutation + copy, 21 lane shifts + copy) cycles.
    r["shake128_squeeze_bound_bytes_per_cycle"] = round(168 / max(24 // rounds_per_cycle + 1, 22), 3)
    return r


if __name__ == "__main__":
    print(measure())
    print(measure(2))
