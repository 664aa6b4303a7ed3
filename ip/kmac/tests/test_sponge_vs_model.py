# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""Random command sequences (good and bad) on the RTL engine and the model in lock step:
the same error bits for every request and the same output words. The model's own hash
values are checked against hashlib in test_bench_model.py."""
import random

import pytest
from amaranth.sim import Simulator

from ip.kmac.model.transaction import ABSORB, SQUEEZE, SpongeModel
from ip.kmac.rtl.sideload import OP_FINISH, OP_PAD, OP_START
from ip.kmac.rtl.sponge import Sponge

from ip.kmac.tests import sponge_bench as sb


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_random_sequences(seed):
    rng = random.Random(seed)
    dut = Sponge()
    md = SpongeModel()
    errs = []
    log = []
    errs_seen = []

    async def errmon(ctx):
        while True:
            await ctx.tick()
            if ctx.get(dut.err):
                errs.append(ctx.get(dut.err_code))

    async def settle(ctx):
        await ctx.tick().repeat(2)
        got = list(errs)
        errs_seen.extend(got)
        errs.clear()
        return got

    async def bench(ctx):
        for step in range(150):
            # Mostly legal steps for the phase, some illegal ones.
            act = {0: ["start"] * 8 + ["msg", "pad", "fin"],
                   ABSORB: ["start"] + ["msg"] * 13 + ["pad"] * 2 + ["fin"] * 4,
                   SQUEEZE: ["read"] * 12 + ["start"] * 5 + ["msg", "pad", "fin"]}[md.phase]
            act = rng.choice(act)
            if act == "start":
                mode, sc = rng.choice([(0, 1), (0, 2), (0, 3), (0, 4), (1, 0), (1, 2), (2, 0),
                                       (2, 2), (0, 0), (1, 3), (3, 2)])
                ln = rng.choice([0, 0, 0, rng.randint(1, 400)])
                want = md.start(mode, sc, ln)
                await sb.command(ctx, dut, OP_START, mode, sc, ln)
            elif act == "read":
                for _ in range(rng.randint(1, 8)):
                    log.append((step, await sb.read(ctx, dut, 32) == md.digest_word()))
                want = 0
            elif act == "msg":
                n = rng.randint(1, 32)
                lo = rng.randint(0, 32 - n)
                mask = ((1 << n) - 1) << lo
                if rng.random() < 0.05:
                    mask = rng.choice([0, mask | (1 << ((lo + n + 1) % 32)) if n < 30 else 0b101])
                data = rng.randbytes(32)
                want = md.message(data, mask)
                ctx.set(dut.msg.data, int.from_bytes(data, "little"))
                ctx.set(dut.msg.mask, mask)
                ctx.set(dut.msg.valid, 1)
                await sb.wait_ready(ctx, dut.msg.ready, "msg")
                await ctx.tick()
                ctx.set(dut.msg.valid, 0)
            elif act == "pad":
                want = md.pad_block()
                await sb.command(ctx, dut, OP_PAD)
            else:
                want = md.finish()
                await sb.command(ctx, dut, OP_FINISH)
            got = await settle(ctx)
            log.append((step, got == ([want] if want else []) or (got, want)))

    sim = Simulator(dut)
    sim.add_clock(1e-8)
    sim.add_testbench(bench)
    sim.add_testbench(errmon, background=True)
    sim.run()
    bad = [x for x in log if x[1] is not True]
    print(f"\n{len(log)} checks, {sum(1 for e in errs_seen if e)} errors")
    assert not bad, bad[:5]
