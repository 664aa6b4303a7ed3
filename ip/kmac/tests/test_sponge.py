# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""Sponge engine (ip/kmac/rtl/sponge.py) on its stream ports against hashlib / pycryptodome."""
import random

import pytest
from amaranth.sim import Simulator

from ip.kmac.dv import sp800_185
from ip.kmac.model.transaction import ERR_MASK, ERR_MODE, ERR_OVERSIZE, ERR_SEQUENCE, ERR_UNDERSIZE
from ip.kmac.rtl.sideload import OP_FINISH, OP_PAD, OP_START
from ip.kmac.rtl.sponge import Sponge

from ip.kmac.tests import sponge_bench as sb
from ip.kmac.tests.refs import reference


def simulate(bench_fn, rpc=1):
    """Run bench_fn(ctx, dut); returns the list of error codes the engine pulsed."""
    dut = Sponge(rounds_per_cycle=rpc)
    errors = []

    async def errmon(ctx):
        while True:
            await ctx.tick()
            if ctx.get(dut.err):
                errors.append(ctx.get(dut.err_code))

    async def bench(ctx):
        await bench_fn(ctx, dut)

    sim = Simulator(dut)
    sim.add_clock(1e-8)
    sim.add_testbench(bench)
    sim.add_testbench(errmon, background=True)
    sim.run()
    return errors


def run_cases(cases, rpc=1, rng_seed=None):
    """Run several operations back to back in one simulation; compare each."""
    results = []

    async def bench(ctx, dut):
        rng = random.Random(rng_seed) if rng_seed is not None else None
        for (mode, strength, msg, outlen, extra) in cases:
            emode, es, segs = sp800_185.segments(mode, strength, msg, outlen=outlen, **extra)
            out = await sb.run_op(ctx, dut, emode, es, segs, max(outlen, 1), rng=rng)
            results.append(out[:outlen])

    assert simulate(bench, rpc) == []
    for (mode, strength, msg, outlen, extra), got in zip(cases, results):
        want = reference(mode, strength, msg, outlen, **extra)
        assert got == want, f"{mode}{strength} len={len(msg)} out={outlen}"


def _lengths(rate):
    return [0, rate - 1, rate, rate + 1, 2 * rate + 5]


@pytest.mark.parametrize("strength", [224, 256, 384, 512])
def test_sha3(strength):
    rate = sp800_185.RATE[("sha3", strength)]
    rng = random.Random(strength)
    run_cases([("sha3", strength, rng.randbytes(n), strength // 8, {}) for n in _lengths(rate)])


@pytest.mark.parametrize("strength", [128, 256])
def test_shake(strength):
    rate = sp800_185.RATE[("shake", strength)]
    rng = random.Random(strength)
    run_cases([("shake", strength, rng.randbytes(n), 64, {}) for n in _lengths(rate)])


KEY = bytes(range(0x40, 0x60))


@pytest.mark.parametrize("strength", [128, 256])
def test_cshake_kmac(strength):
    rate = sp800_185.RATE[("cshake", strength)]
    rng = random.Random(strength + 1)
    cases = []
    for n in _lengths(rate):
        msg = rng.randbytes(n)
        cases.append(("cshake", strength, msg, 48, {"name": b"N", "custom": b"Email Signature"}))
        cases.append(("kmac", strength, msg, 32, {"key": KEY, "custom": b"My Tagged Application"}))
        cases.append(("kmacxof", strength, msg, 40, {"key": KEY[:5], "custom": b""}))
    # cSHAKE with empty N and S is SHAKE; a key longer than a block; a prefix exactly a block
    cases.append(("cshake", strength, b"abc", 32, {"name": b"", "custom": b""}))
    cases.append(("kmac", strength, b"abc", 64, {"key": bytes(rate + 3), "custom": b"c"}))
    cases.append(("cshake", strength, b"x", 32, {"name": b"", "custom": bytes(rate - 4)}))
    run_cases(cases)


@pytest.mark.parametrize("seed", [1, 2])
def test_random_masks(seed):
    """Random contiguous chunks at random byte offsets (side-load partial writes)."""
    rng = random.Random(seed)
    cases = [("shake", 128, rng.randbytes(rng.randint(0, 500)), 32, {}) for _ in range(3)]
    cases += [("sha3", 256, rng.randbytes(rng.randint(0, 300)), 32, {}),
              ("kmac", 256, rng.randbytes(77), 32, {"key": KEY, "custom": b"S"})]
    run_cases(cases, rng_seed=seed)


def test_long_message_and_rpc2():
    rng = random.Random(7)
    run_cases([("shake", 256, rng.randbytes(2000), 32, {}),
               ("sha3", 512, rng.randbytes(200), 64, {})], rpc=2)


@pytest.mark.parametrize("every", [1, 5, 40])
def test_long_xof(every):
    """Several blocks of output, words straddling rate-block boundaries, various read rates."""
    got = {}

    async def bench(ctx, dut):
        for strength in (128, 256):
            await sb.command(ctx, dut, OP_START, sb.MODE_CODE["shake"], sb.STRENGTH_CODE[strength])
            await sb.message(ctx, dut, b"xof")
            await sb.command(ctx, dut, OP_FINISH)
            got[strength] = await sb.read(ctx, dut, 32 * 23, every=every)

    assert simulate(bench) == []
    for strength in (128, 256):
        assert got[strength] == reference("shake", strength, b"xof", 32 * 23)


def test_pad_block():
    """PAD_BLOCK zero-fills the block (no-op when empty); checked against SHAKE128 of the
    zero-filled message."""
    got = []
    m1, m2 = b"A" * 10, b"B" * 168

    async def bench(ctx, dut):
        await sb.command(ctx, dut, OP_START, sb.MODE_CODE["shake"], 0)
        await sb.command(ctx, dut, OP_PAD)          # empty block: nothing happens
        await sb.message(ctx, dut, m1)
        await sb.command(ctx, dut, OP_PAD)
        await sb.message(ctx, dut, m2)              # exactly one block: PAD is then a no-op
        await sb.command(ctx, dut, OP_PAD)
        await sb.message(ctx, dut, b"C")
        await sb.command(ctx, dut, OP_FINISH)
        got.append(await sb.read(ctx, dut, 32))

    assert simulate(bench) == []
    assert got[0] == reference("shake", 128, m1 + bytes(158) + m2 + b"C", 32)


def test_declared_length():
    """With MSG_LEN the engine finishes by itself; too many / too few bytes are errors."""
    got = []
    msg = bytes(range(200))

    async def bench(ctx, dut):
        # exact: finishes on its own, no FINISH command
        got.append(await sb.run_op(ctx, dut, "sha3", 256, [msg], 32, msg_len=200, finish=False))
        # oversized: 201st byte
        await sb.command(ctx, dut, OP_START, 0, 2, msg_len=50)
        await sb.word(ctx, dut, msg[:32], 0)
        await sb.word(ctx, dut, msg[32:64], 0)
        # undersized: FINISH early
        await sb.command(ctx, dut, OP_START, 0, 2, msg_len=50)
        await sb.word(ctx, dut, msg[:10], 3)
        await sb.command(ctx, dut, OP_FINISH)
        # declared length reached inside a word's last byte, then a stray word
        got.append(await sb.run_op(ctx, dut, "shake", 128, [msg[:50]], 32, msg_len=50,
                                   finish=False, rng=random.Random(3)))
        await sb.word(ctx, dut, b"z", 0)
        got.append(await sb.run_op(ctx, dut, "sha3", 256, [b"ok"], 32))

    errs = simulate(bench)
    assert errs == [ERR_OVERSIZE, ERR_UNDERSIZE, ERR_SEQUENCE]
    assert got == [reference("sha3", 256, msg, 32), reference("shake", 128, msg[:50], 32),
                   reference("sha3", 256, b"ok", 32)]


def test_errors_recover():
    """Each bad request gives its error, aborts, and the next operation is right."""
    got = []

    async def bench(ctx, dut):
        for mode, sc in ((0, 0), (1, 1), (2, 3), (1, 4), (3, 2)):   # SHA3-128, SHAKE224, ...
            await sb.command(ctx, dut, OP_START, mode, sc)
            assert ctx.get(dut.phase) == 0
        await sb.command(ctx, dut, OP_FINISH)                       # nothing started
        await sb.word(ctx, dut, b"x", 0)                            # message while idle
        await sb.command(ctx, dut, OP_START, 1, 0)
        await sb.word(ctx, dut, b"abcd", 0, mask=0b1011)            # non-contiguous
        await sb.command(ctx, dut, OP_START, 1, 0)
        await sb.word(ctx, dut, b"", 0, mask=0)                     # empty
        await sb.command(ctx, dut, OP_START, 1, 0)
        await sb.word(ctx, dut, b"abc", 0)
        await sb.command(ctx, dut, OP_FINISH)
        await sb.word(ctx, dut, b"late", 0)                         # message after finish
        assert not ctx.get(dut.digest.valid)
        got.append(await sb.run_op(ctx, dut, "sha3", 384, [b"next"], 48))
        # START in the middle of a squeeze (permutation in flight) restarts cleanly
        await sb.command(ctx, dut, OP_START, 1, 0)
        await sb.word(ctx, dut, b"abc", 0)
        await sb.command(ctx, dut, OP_FINISH)
        await sb.read(ctx, dut, 32)
        got.append(await sb.run_op(ctx, dut, "shake", 256, [b"again"], 32))

    errs = simulate(bench)
    assert errs == [ERR_MODE] * 5 + [ERR_SEQUENCE] * 2 + [ERR_MASK] * 2 + [ERR_SEQUENCE]
    assert got == [reference("sha3", 384, b"next", 48), reference("shake", 256, b"again", 32)]
