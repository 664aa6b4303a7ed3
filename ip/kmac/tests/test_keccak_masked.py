# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""The masked Keccak-f core (ip/kmac/rtl/keccak_masked.py) and its cycle model: the shares' XOR
against hashlib, the RTL's registers against the model's in every cycle, the PRNG's seeding."""
import hashlib
import random

import numpy as np
import pytest
from amaranth.sim import Simulator

from ip.common.trivium import Trivium
from ip.kmac.model import masked_keccak as mk
from ip.kmac.rtl.keccak_masked import MaskedKeccakCore


def _blocks(msg: bytes, rate: int, ds: int) -> list[int]:
    data = bytearray(msg) + bytes([ds]) + bytes((-len(msg) - 1) % rate)
    data[-1] |= 0x80
    return [int.from_bytes(data[i:i + rate], "little") for i in range(0, len(data), rate)]


def _model_hash(msg: bytes, rate: int, ds: int, slices: int, rng) -> bytes:
    """The sponge by hand on the model, a fresh share split for every block."""
    w = 64 // slices
    s0 = s1 = np.zeros((1, 25), dtype=np.uint64)
    for block in _blocks(msg, rate, ds):
        r = int(rng.integers(0, 2 ** 63)) * (1 << 1537) ^ random.Random(block).getrandbits(1600)
        s0 = s0 ^ mk.to_lanes(block ^ r)
        s1 = s1 ^ mk.to_lanes(r)

        def fresh():
            return rng.integers(0, 1 << w, size=(1, 25), dtype=np.uint64) if w < 64 else \
                rng.integers(0, 1 << 62, size=(1, 25), dtype=np.uint64) << np.uint64(2)
        for s0, s1, _, _ in mk.permute(s0, s1, fresh, slices):
            pass
    return (mk.from_lanes(s0[0]) ^ mk.from_lanes(s1[0])).to_bytes(200, "little")


@pytest.mark.parametrize("slices", [1, 2, 4])
def test_the_model_hashes_as_hashlib(slices):
    rng = np.random.default_rng(slices)
    for msg in (b"", b"abc", bytes(range(200)) * 2):
        assert _model_hash(msg, 136, 0x06, slices, rng)[:32] == hashlib.sha3_256(msg).digest()
        assert _model_hash(msg, 168, 0x1F, slices, rng)[:168] == hashlib.shake_128(msg).digest(168)


def _run_rtl(slices: int, x: int, mask: int, seed: int):
    """One permutation of x (shares x ^ mask, mask) after a reseed: (every cycle's registers,
    the final shares, cycles from start to done, seeded before / after)."""
    dut = MaskedKeccakCore(slices=slices)
    res = {"regs": []}

    async def bench(ctx):
        res["seeded_at_reset"] = ctx.get(dut.seeded)
        ctx.set(dut.seed, seed)
        ctx.set(dut.reseed, 1)
        await ctx.tick()
        ctx.set(dut.reseed, 0)
        res["seeded"] = ctx.get(dut.seeded)
        ctx.set(dut.masked, 1)
        ctx.set(dut.load_data0, x ^ mask)
        ctx.set(dut.load_data1, mask)
        ctx.set(dut.load, 1)
        ctx.set(dut.start, 1)
        await ctx.tick()
        ctx.set(dut.load, 0)
        ctx.set(dut.start, 0)
        cycles = 0
        while not ctx.get(dut.done):
            assert ctx.get(dut.busy)
            await ctx.tick()
            cycles += 1
            assert cycles < 400, "permutation never finished"
            res["regs"].append(tuple(ctx.get(sig) for sig in (dut.state0, dut.state1, dut.c0, dut.c1)))
        res["cycles"] = cycles
        res["out"] = (ctx.get(dut.state0), ctx.get(dut.state1))
        # idle: the PRNG does not step, the state stays
        prng = ctx.get(dut.prng)
        for _ in range(3):
            await ctx.tick()
        res["idle"] = (ctx.get(dut.state0), ctx.get(dut.state1), ctx.get(dut.busy), ctx.get(dut.prng) == prng)
        res["prng"] = prng

    sim = Simulator(dut)
    sim.add_clock(1e-8)
    sim.add_testbench(bench)
    sim.run()
    return res


@pytest.mark.parametrize("slices", [1, 2, 4])
def test_rtl_equals_the_model_in_every_cycle_and_hashlib(slices):
    """SHA3-256 of one block; every register (the shares, the cross terms, the PRNG at the end)
    compared with the model's after every clock edge, the model drawing from the same PRNG,
    seeded alike. The block's core is slices = 4."""
    msg = b"masked keccak"
    x = _blocks(msg, 136, 0x06)[0]
    rng = random.Random(5 + slices)
    mask, seed = rng.getrandbits(1600), rng.getrandbits(256)
    res = _run_rtl(slices, x, mask, seed)
    assert not res["seeded_at_reset"] and res["seeded"]
    triv = Trivium()
    triv.seed(seed)
    model = list(mk.permute(mk.to_lanes(x ^ mask), mk.to_lanes(mask), mk.prng_fresh(triv, slices), slices))
    assert res["cycles"] == len(model) == 24 * slices + 1
    for t, (rtl, (m0, m1, c0, c1)) in enumerate(zip(res["regs"], model)):
        assert rtl == (mk.from_lanes(m0[0]), mk.from_lanes(m1[0]), mk.slice_bits(c0[0], slices), mk.slice_bits(c1[0], slices)), \
            f"cycle {t}"
    assert res["regs"][-1][2:] == (0, 0)           # the cross terms are not left behind
    assert res["prng"] == triv.state()              # 24 * slices steps, as the model drew
    o0, o1 = res["out"]
    assert (o0 ^ o1).to_bytes(200, "little")[:32] == hashlib.sha3_256(msg).digest()
    assert o1 != mask and o0 != x ^ mask            # the shares were refreshed, not just carried
    assert res["idle"] == (o0, o1, 0, True)


def test_the_unmasked_mode_is_keccak_core_cycle_for_cycle():
    """masked low: the same core permutes share 0 alone in KeccakCore's 24 cycles, with
    `busy` / `done` in the same cycles and the same state between permutations, share 1 and the
    cross terms at zero and the PRNG not stepping. Sponge-like use: a load and start together
    (absorb), a start without a load (eager refill in the squeeze), a load without a start."""
    from ip.kmac.rtl.keccak import KeccakCore
    from amaranth import Elaboratable, Module

    class Both(Elaboratable):
        def __init__(self):
            self.mk, self.kc = MaskedKeccakCore(), KeccakCore()

        def elaborate(self, platform):
            m = Module()
            m.submodules.mk, m.submodules.kc = self.mk, self.kc
            return m

    top = Both()
    dut, ref = top.mk, top.kc
    rng = random.Random(38)
    seen = {"cycles": 0, "done": 0}

    async def bench(ctx):
        ctx.set(dut.seed, rng.getrandbits(256))
        ctx.set(dut.reseed, 1)
        await ctx.tick()
        ctx.set(dut.reseed, 0)
        prng = ctx.get(dut.prng)
        # (load, start) per step: absorb a block and permute, refill without a load, a lone load
        for load, start in [(1, 1), (0, 1), (1, 0), (0, 1), (1, 1)]:
            data = rng.getrandbits(1600)
            for sig, v in ((dut.load, load), (ref.load, load), (dut.start, start), (ref.start, start),
                           (dut.load_data0, data), (ref.load_data, data)):
                ctx.set(sig, v)
            await ctx.tick()
            for sig in (dut.load, ref.load, dut.start, ref.start):
                ctx.set(sig, 0)
            for _ in range(27):
                assert (ctx.get(dut.busy), ctx.get(dut.done)) == (ctx.get(ref.busy), ctx.get(ref.done))
                seen["cycles"] += ctx.get(dut.busy)
                seen["done"] += ctx.get(dut.done)
                if not ctx.get(dut.busy):
                    assert ctx.get(dut.state0) == ctx.get(ref.state)
                assert (ctx.get(dut.state1), ctx.get(dut.c0), ctx.get(dut.c1)) == (0, 0, 0)
                await ctx.tick()
        assert ctx.get(dut.prng) == prng

    sim = Simulator(top)
    sim.add_clock(1e-8)
    sim.add_testbench(bench)
    sim.run()
    assert seen == {"cycles": 4 * 24, "done": 4}


def test_rejects_bad_slices():
    with pytest.raises(ValueError):
        MaskedKeccakCore(slices=3)
