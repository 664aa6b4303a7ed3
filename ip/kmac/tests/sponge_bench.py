# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""Testbench helpers that drive the sponge's stream ports (also the side-load port)."""
import random

from ip.kmac.model.transaction import CSHAKE, SHA3, SHAKE
from ip.kmac.rtl.sideload import OP_FINISH, OP_PAD, OP_START

STRENGTH_CODE = {128: 0, 224: 1, 256: 2, 384: 3, 512: 4}
MODE_CODE = {"sha3": SHA3, "shake": SHAKE, "cshake": CSHAKE}
TIMEOUT = 2000


async def wait_ready(ctx, ready, what):
    for _ in range(TIMEOUT):
        if ctx.get(ready):
            return
        await ctx.tick()
    raise AssertionError(f"{what}: no ready within {TIMEOUT} cycles")


async def command(ctx, port, op, mode=0, strength=0, msg_len=0):
    ctx.set(port.cmd.op, op)
    ctx.set(port.cmd.mode, mode)
    ctx.set(port.cmd.strength, strength)
    ctx.set(port.cmd.msg_len, msg_len)
    ctx.set(port.cmd.valid, 1)
    await wait_ready(ctx, port.cmd.ready, "cmd")
    await ctx.tick()
    ctx.set(port.cmd.valid, 0)


async def word(ctx, port, data: bytes, lo: int, mask=None):
    """Send bytes at byte offset lo of a word (mask overrides the computed one)."""
    buf = bytearray(random.randbytes(32))           # junk outside the mask must not leak in
    buf[lo:lo + len(data)] = data
    if mask is None:
        mask = ((1 << len(data)) - 1) << lo
    ctx.set(port.msg.data, int.from_bytes(buf, "little"))
    ctx.set(port.msg.mask, mask)
    ctx.set(port.msg.valid, 1)
    await wait_ready(ctx, port.msg.ready, "msg")
    await ctx.tick()
    ctx.set(port.msg.valid, 0)


async def message(ctx, port, msg: bytes, rng=None):
    """Stream msg; with rng, in random contiguous chunks at random offsets."""
    i = 0
    while i < len(msg):
        if rng is None:
            n, lo = min(32, len(msg) - i), 0
        else:
            n = rng.randint(1, min(32, len(msg) - i))
            lo = rng.randint(0, 32 - n)
        await word(ctx, port, msg[i:i + n], lo)
        i += n


async def segments(ctx, port, segs, rng=None):
    for s in segs:
        if s == "PAD":
            await command(ctx, port, OP_PAD)
        else:
            await message(ctx, port, s, rng)


async def read(ctx, port, nbytes: int, every=1):
    """Take ceil(n/32) digest words; `every` > 1 reads slower (a word every N cycles)."""
    out = bytearray()
    ctx.set(port.digest.ready, 0)
    while len(out) < nbytes:
        for _ in range(TIMEOUT):
            if ctx.get(port.digest.valid):
                break
            await ctx.tick()
        else:
            raise AssertionError("digest never valid")
        out += ctx.get(port.digest.data).to_bytes(32, "little")
        ctx.set(port.digest.ready, 1)
        await ctx.tick()
        ctx.set(port.digest.ready, 0)
        for _ in range(every - 1):
            await ctx.tick()
    return bytes(out[:nbytes])


async def run_op(ctx, port, mode, strength, segs, outlen, msg_len=0, rng=None, finish=True):
    await command(ctx, port, OP_START, MODE_CODE[mode], STRENGTH_CODE[strength], msg_len)
    await segments(ctx, port, segs, rng)
    if finish:
        await command(ctx, port, OP_FINISH)
    return await read(ctx, port, outlen)
