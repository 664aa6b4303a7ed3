"""ip/kmac/rtl/sponge.py: the message mask's lo / hi encoders (prefix ORs + one-hot AND-ORs)
give the lowest set bit and the highest set bit + 1 (0 for an empty mask) for any mask."""
import random

from amaranth.hdl import Cat, Module, Signal
from amaranth.sim import Simulator

from ip.kmac.rtl.sponge import _mask_bounds, _prefix_or


def test_prefix_or_and_mask_encoders():
    m = Module()
    mask, lo, hi = Signal(32), Signal(6), Signal(6)
    pre = Signal(32)
    lo_v, hi_v = _mask_bounds(mask)
    m.d.comb += [pre.eq(Cat(*_prefix_or([mask[i] for i in range(32)]))), lo.eq(lo_v), hi.eq(hi_v)]
    rng = random.Random(3)
    vals = ([0, 0xFFFF_FFFF] + [1 << i for i in range(32)] + [rng.getrandbits(32) for _ in range(500)]
            + [(((1 << n) - 1) << a) & 0xFFFF_FFFF for a in range(32) for n in range(1, 33)])

    async def bench(ctx):
        for v in vals:
            ctx.set(mask, v)
            await ctx.delay(1e-9)
            bits = [i for i in range(32) if v >> i & 1]
            assert ctx.get(lo) == min(bits, default=0), hex(v)
            assert ctx.get(hi) == max(bits, default=-1) + 1, hex(v)
            assert ctx.get(pre) == sum(1 << i for i in range(32) if v & ((2 << i) - 1)), hex(v)

    sim = Simulator(m)
    sim.add_testbench(bench)
    sim.run()
