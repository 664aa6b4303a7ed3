# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""KMAC top: CPU register interface, side-load port, arbitration, against hashlib/pycryptodome."""
import random

from amaranth.sim import Simulator

from ip.kmac.dv import sp800_185
from ip.kmac.dv import wb_driver as wb
from ip.kmac.rtl.kmac import OWNER_SL, Kmac
from ip.kmac.model.transaction import (ERR_DIGEST_EARLY, ERR_MASK, ERR_MODE, ERR_OVERSIZE, ERR_OWNER, ERR_SEQUENCE, ERR_UNDERSIZE)
from ip.kmac.rtl.sideload import OP_FINISH, OP_START

from ip.kmac.tests import sponge_bench as sb
from ip.kmac.tests.refs import reference

KEY = bytes(range(0x40, 0x60))


def simulate(bench_fn):
    dut = Kmac()

    async def bench(ctx):
        await bench_fn(ctx, dut)

    sim = Simulator(dut)
    sim.add_clock(1e-8)
    sim.add_testbench(bench)
    sim.run()
    return dut


def cpu_cases(cases, rng_seed=None):
    got = []

    async def bench(ctx, dut):
        rng = random.Random(rng_seed) if rng_seed is not None else None
        for mode, strength, msg, outlen, extra in cases:
            em, es, segs = sp800_185.segments(mode, strength, msg, outlen=outlen, **extra)
            got.append(await wb.operation(ctx, dut.bus, sb.MODE_CODE[em], sb.STRENGTH_CODE[es],
                                          segs, outlen, rng=rng))
            assert await wb.read(ctx, dut.bus, "ERR_CODE") == 0

    simulate(bench)
    for (mode, strength, msg, outlen, extra), g in zip(cases, got):
        assert g == reference(mode, strength, msg, outlen, **extra), f"{mode}{strength}"


def test_cpu_all_modes():
    rng = random.Random(11)
    cpu_cases([("sha3", 224, b"", 28, {}), ("sha3", 256, rng.randbytes(135), 32, {}),
               ("sha3", 384, rng.randbytes(105), 48, {}), ("sha3", 512, rng.randbytes(72), 64, {}),
               ("shake", 128, rng.randbytes(169), 100, {}), ("shake", 256, b"abc", 40, {}),
               ("cshake", 128, b"msg", 32, {"name": b"N", "custom": b"S"}),
               ("cshake", 256, b"msg", 32, {"name": b"", "custom": b"S"}),
               ("kmac", 128, rng.randbytes(50), 32, {"key": KEY, "custom": b"app"}),
               ("kmac", 256, rng.randbytes(20), 64, {"key": KEY, "custom": b""}),
               ("kmacxof", 256, b"x", 40, {"key": KEY, "custom": b"c"})])


def test_cpu_byte_halfword_writes():
    rng = random.Random(5)
    cpu_cases([("sha3", 256, rng.randbytes(150), 32, {}),
               ("kmac", 128, rng.randbytes(40), 32, {"key": KEY, "custom": b"z"})], rng_seed=3)


def test_cpu_declared_length_and_irq():
    msg = bytes(range(100))
    got = {}

    async def bench(ctx, dut):
        await wb.write(ctx, dut.bus, "INTR_ENABLE", 1)
        got["a"] = await wb.operation(ctx, dut.bus, 0, 2, [msg], 32, msg_len=100, release=False)
        got["irq"] = ctx.get(dut.irq)
        await wb.write(ctx, dut.bus, "INTR_STATE", 1)
        got["irq2"] = ctx.get(dut.irq)
        await wb.cmd(ctx, dut.bus, "DONE")
        got["err"] = await wb.read(ctx, dut.bus, "ERR_CODE")

    simulate(bench)
    assert got == {"a": reference("sha3", 256, msg, 32), "irq": 1, "irq2": 0, "err": 0}


def test_cpu_errors():
    """Each bad request sets its ERR_CODE bit, never hangs, and the next hash is right."""
    log = []

    async def expect(ctx, dut, bit):
        v = await wb.read(ctx, dut.bus, "ERR_CODE")
        log.append(v == bit or (v, bit))
        await wb.write(ctx, dut.bus, "ERR_CODE", 0xFF)

    async def bench(ctx, dut):
        bus = dut.bus
        await wb.read(ctx, bus, "DIGEST0")                  # nobody owns the block
        await expect(ctx, dut, ERR_DIGEST_EARLY)
        await wb.write(ctx, bus, "CFG", 0 | (0 << 4))       # SHA3-128: unsupported
        await wb.cmd(ctx, bus, "START")
        await expect(ctx, dut, ERR_MODE)
        await wb.write(ctx, bus, "CFG", 1)                  # SHAKE128
        await wb.cmd(ctx, bus, "START")
        await wb.write(ctx, bus, "MSG", 0x11223344)
        log.append(await wb.read(ctx, bus, "DIGEST3") == 0)  # read while absorbing
        await expect(ctx, dut, ERR_DIGEST_EARLY)
        await wb.write(ctx, bus, "MSG", 0x11223344, sel=0b0101)   # non-contiguous
        await expect(ctx, dut, ERR_MASK)
        await wb.cmd(ctx, bus, "START")
        await wb.cmd(ctx, bus, "FINISH")
        await wb.write(ctx, bus, "MSG", 1)                  # message after finish
        await expect(ctx, dut, ERR_SEQUENCE)
        await wb.write(ctx, bus, "MSG_LEN", 3)
        await wb.cmd(ctx, bus, "START")
        await wb.write(ctx, bus, "MSG", 0x01020304)         # 4 > 3 bytes
        await expect(ctx, dut, ERR_OVERSIZE)
        await wb.cmd(ctx, bus, "START")
        await wb.write(ctx, bus, "MSG", 0x01, sel=1)
        await wb.cmd(ctx, bus, "FINISH")                    # 1 < 3 bytes
        await expect(ctx, dut, ERR_UNDERSIZE)
        await wb.cmd(ctx, bus, "DONE")
        log.append(await wb.operation(ctx, bus, 1, 2, [b"after errors"], 32)
                   == reference("shake", 256, b"after errors", 32))

    simulate(bench)
    assert all(x is True for x in log), log


def test_sideload_and_arbitration():
    log = []

    async def bench(ctx, dut):
        sl, bus = dut.sideload, dut.bus
        rng = random.Random(9)
        ctx.set(sl.hold, 1)
        await ctx.tick().repeat(2)
        log.append(ctx.get(sl.granted) == 1)
        msg = rng.randbytes(400)
        log.append(await sb.run_op(ctx, sl, "shake", 128, [msg], 600, rng=rng)
                   == reference("shake", 128, msg, 600))
        # CPU tries while the side-load owns: refused, side-load state untouched
        await sb.command(ctx, sl, OP_START, 1, 2)
        await sb.message(ctx, sl, b"side")
        await wb.cmd(ctx, bus, "START")
        await wb.write(ctx, bus, "MSG", 0xdeadbeef)
        await wb.cmd(ctx, bus, "FINISH")
        log.append(await wb.read(ctx, bus, "DIGEST0") == 0)
        log.append(await wb.read(ctx, bus, "ERR_CODE") == ERR_OWNER)
        log.append((await wb.read(ctx, bus, "STATUS") >> 4) & 3 == OWNER_SL)
        await wb.write(ctx, bus, "ERR_CODE", 0xFF)
        await sb.message(ctx, sl, b"load")
        await sb.command(ctx, sl, OP_FINISH)
        log.append(await sb.read(ctx, sl, 32) == reference("shake", 256, b"sideload", 32))
        log.append(ctx.get(sl.error) == 0)
        # unsupported mode on the side-load: error code, then a good START clears it
        await sb.command(ctx, sl, OP_START, 0, 0)
        await ctx.tick()
        log.append((ctx.get(sl.error), ctx.get(sl.error_code)) == (1, ERR_MODE))
        log.append(await sb.run_op(ctx, sl, "sha3", 224, [b"q"], 28) == reference("sha3", 224, b"q", 28))
        log.append(ctx.get(sl.error) == 0)
        ctx.set(sl.hold, 0)                                 # release: wiped, CPU may own
        await ctx.tick().repeat(2)
        log.append(ctx.get(sl.granted) == 0)
        await wb.write(ctx, bus, "CFG", 2 << 4)
        await wb.cmd(ctx, bus, "START")
        ctx.set(sl.hold, 1)                                 # side-load waits, not granted
        await sb.command(ctx, sl, OP_START, 1, 0)           # request while CPU owns: refused
        await ctx.tick()
        log.append((ctx.get(sl.granted), ctx.get(sl.error_code)) == (0, ERR_OWNER))
        await wb.send(ctx, bus, b"cpu")
        await wb.cmd(ctx, bus, "FINISH")
        log.append(await wb.read_output(ctx, bus, 32) == reference("sha3", 256, b"cpu", 32))
        await wb.cmd(ctx, bus, "DONE")
        await ctx.tick().repeat(2)
        log.append(ctx.get(sl.granted) == 1)                # granted once the CPU releases
        log.append(await sb.run_op(ctx, sl, "shake", 256, [b"x"], 32) == reference("shake", 256, b"x", 32))
        log.append(ctx.get(sl.error) == 0)

    simulate(bench)
    assert all(x is True for x in log), log


def test_bus_decode_and_rw_byte_enables():
    """Low address bits only (LiteX passes the region base through), sel on rw registers,
    unmapped offsets read 0, CMD/MSG/DIGEST reads do not hang."""
    log = []

    async def bench(ctx, dut):
        bus = dut.bus
        base = 0x1234 << 8                                 # a region base in the upper bits
        await wb.write(ctx, bus, base | wb.OFF["MSG_LEN"], 0x11223344)
        await wb.write(ctx, bus, wb.OFF["MSG_LEN"], 0xAA00, sel=0b0010)
        log.append(await wb.read(ctx, bus, base | wb.OFF["MSG_LEN"]) == 0x1122AA44)
        log.append(await wb.read(ctx, bus, 0x7C) == 0)       # unmapped
        log.append(await wb.read(ctx, bus, "CMD") == 0)
        log.append(await wb.read(ctx, bus, "MSG") == 0)
        log.append(await wb.read(ctx, bus, "CFG") == 0x20)   # reset: SHA3, strength 256

    simulate(bench)
    assert all(x is True for x in log), log


def test_cpu_start_while_squeezing():
    """CMD.START right after a NEXT (the digest word reassembling, obuf lanes left) and with
    the refill permutation over: the new operation's digest is right from its first word."""
    rng = random.Random(4)
    cases = [(rng.randbytes(40), rng.randbytes(60), gap) for gap in (0, 1, 2, 3)]
    got = []

    async def bench(ctx, dut):
        bus = dut.bus
        for m1, m2, gap in cases:
            a = await wb.operation(ctx, bus, 1, 0, [m1], 64, release=False)   # SHAKE128
            await ctx.tick().repeat(30)                  # refill permutation over
            await wb.write(ctx, bus, "CFG", 1 | 2 << 4)  # SHAKE256 next (latched at START)
            await wb.cmd(ctx, bus, "NEXT")               # take word 1: the shift restarts
            for _ in range(gap):
                await ctx.tick()
            await wb.cmd(ctx, bus, "START")              # while the lanes shift
            await wb.send(ctx, bus, m2)
            await wb.cmd(ctx, bus, "FINISH")
            b = await wb.read_output(ctx, bus, 96)
            got.append((a, b, await wb.read(ctx, bus, "ERR_CODE")))
            await wb.cmd(ctx, bus, "DONE")

    simulate(bench)
    for (m1, m2, gap), (a, b, err) in zip(cases, got):
        assert a == reference("shake", 128, m1, 64), gap
        assert b == reference("shake", 256, m2, 96), gap
        assert err == 0, gap


def test_sideload_start_while_squeezing():
    """The same on the side-load port: START presented in the cycle a digest word is taken
    and right after it, with obuf lanes left; digests against hashlib."""
    log = []

    async def bench(ctx, dut):
        sl = dut.sideload
        rng = random.Random(6)
        ctx.set(sl.hold, 1)
        await ctx.tick().repeat(2)
        for gap in (None, 0, 1, 2):
            m1, m2 = rng.randbytes(30), rng.randbytes(200)
            await sb.command(ctx, sl, OP_START, 1, 0)
            await sb.message(ctx, sl, m1)
            await sb.command(ctx, sl, OP_FINISH)
            a = await sb.read(ctx, sl, 32)
            await ctx.tick().repeat(30)                  # refill over, obuf holds 17 lanes
            if gap is None:                              # START with the take (same cycle)
                ctx.set(sl.digest.ready, 1)
                await sb.command(ctx, sl, OP_START, 1, 2)
                ctx.set(sl.digest.ready, 0)
            else:
                await sb.read(ctx, sl, 32)
                for _ in range(gap):
                    await ctx.tick()
                await sb.command(ctx, sl, OP_START, 1, 2)
            await sb.message(ctx, sl, m2)
            await sb.command(ctx, sl, OP_FINISH)
            b = await sb.read(ctx, sl, 200)
            log.append((a == reference("shake", 128, m1, 32),
                        b == reference("shake", 256, m2, 200), ctx.get(sl.error)))

    simulate(bench)
    assert log == [(True, True, 0)] * 4, log


def test_cpu_msg_ack_after_intake_register():
    """A CPU MSG write goes through the engine's intake register: it is taken in the cycle it
    arrives and acked in the cycle after the register is empty again (the word packed or
    refused), so its ERR_CODE bit is set when the next access reads it, as before the register;
    a 4-byte word's access takes 4 cycles to its ack (2 before the register). A CMD write is
    acted on from the cycle after it arrives (the bus never reaches the engine's command
    logic in the same cycle): START on a free block 4 cycles (the claim, then the START), a
    PAD_BLOCK with nothing to pad 3 (one more each than before)."""
    got = {}

    async def bench(ctx, dut):
        bus = dut.bus
        await wb.write(ctx, bus, "CFG", 1)                  # SHAKE128
        waited = []
        await wb.cmd(ctx, bus, "START", waited)
        await wb.cmd(ctx, bus, "PAD_BLOCK", waited)
        await wb.write(ctx, bus, "MSG", 0x11223344, waited=waited)
        await wb.write(ctx, bus, "MSG", 0x11223344, sel=0b0101, waited=waited)
        got.update(zip(("start", "pad", "word", "bad"), waited))
        got["err"] = await wb.read(ctx, bus, "ERR_CODE")

    simulate(bench)
    assert got == {"start": 4, "pad": 3, "word": 4, "bad": 4, "err": ERR_MASK}, got
