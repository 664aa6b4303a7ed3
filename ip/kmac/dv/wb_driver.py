# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""The register sequence firmware uses, as amaranth.sim testbench coroutines on the Kmac top.

Offsets and codes come from the register map (ip/kmac/data/kmac_regs.yml), as in C.
"""
import random

from ip.kmac.rtl.kmac import REGS_YML
from ip.common.regtool import load

RM = load(REGS_YML)
OFF = {r.name: r.offset for r in RM.registers}
OPS = RM.field("CMD", "OP").values
BUS_TIMEOUT = 500


async def wb_access(ctx, bus, offset, data=0, sel=0xF, we=False, waited=None):
    """waited: a list that gets the access's cycles up to its ack appended."""
    ctx.set(bus.adr, offset >> 2)
    ctx.set(bus.dat_w, data)
    ctx.set(bus.sel, sel)
    ctx.set(bus.we, int(we))
    ctx.set(bus.cyc, 1)
    ctx.set(bus.stb, 1)
    for n in range(1, BUS_TIMEOUT + 1):
        await ctx.tick()
        if ctx.get(bus.ack) or ctx.get(bus.err):
            break
    else:
        raise AssertionError(f"bus access at {offset:#x} never acknowledged")
    if waited is not None:
        waited.append(n)
    val = ctx.get(bus.dat_r)
    ctx.set(bus.cyc, 0)
    ctx.set(bus.stb, 0)
    ctx.set(bus.we, 0)
    return val


async def write(ctx, bus, reg, value, sel=0xF, waited=None):
    await wb_access(ctx, bus, OFF[reg] if isinstance(reg, str) else reg, value, sel, True, waited)


async def read(ctx, bus, reg):
    return await wb_access(ctx, bus, OFF[reg] if isinstance(reg, str) else reg)


async def cmd(ctx, bus, name, waited=None):
    await write(ctx, bus, "CMD", OPS[name], waited=waited)


async def send(ctx, bus, data: bytes, rng: random.Random | None = None):
    """Stream bytes into MSG: words, or with rng random byte / halfword / word stores."""
    i = 0
    while i < len(data):
        if rng is None:
            lo, n = 0, min(4, len(data) - i)
        else:
            lo = rng.randrange(4)
            n = rng.randint(1, min(4 - lo, len(data) - i))
        word = bytearray(rng.randbytes(4) if rng else bytes(4))
        word[lo:lo + n] = data[i:i + n]
        await write(ctx, bus, "MSG", int.from_bytes(word, "little"), ((1 << n) - 1) << lo)
        i += n


async def read_output(ctx, bus, nbytes: int) -> bytes:
    out = bytearray()
    while True:
        for k in range(8):
            out += (await read(ctx, bus, f"DIGEST{k}")).to_bytes(4, "little")
        if len(out) >= nbytes:
            return bytes(out[:nbytes])
        await cmd(ctx, bus, "NEXT")


async def operation(ctx, bus, mode: int, strength: int, segs, outlen: int, msg_len=0,
                    rng=None, release=True) -> bytes:
    """CFG, MSG_LEN, START, message / PAD_BLOCK segments, FINISH, digest, DONE."""
    await write(ctx, bus, "CFG", mode | (strength << 4))
    await write(ctx, bus, "MSG_LEN", msg_len)
    await cmd(ctx, bus, "START")
    for s in segs:
        if s == "PAD":
            await cmd(ctx, bus, "PAD_BLOCK")
        else:
            await send(ctx, bus, s, rng)
    if not msg_len:
        await cmd(ctx, bus, "FINISH")
    out = await read_output(ctx, bus, outlen)
    if release:
        await cmd(ctx, bus, "DONE")
    return out
