# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""Keccak-f[1600] core against hashlib: one padded block absorbed by hand, one permutation."""
import hashlib

import pytest
from amaranth.sim import Simulator

from ip.kmac.rtl.keccak import KeccakCore


def _padded_block(msg: bytes, rate: int, dsbyte: int) -> int:
    block = bytearray(msg) + bytes([dsbyte]) + bytes(rate - len(msg) - 1)
    block[rate - 1] |= 0x80
    return int.from_bytes(block, "little")


def _permute(dut, state: int) -> tuple[int, int]:
    result = {}

    async def bench(ctx):
        ctx.set(dut.load_data, state)
        ctx.set(dut.load, 1)
        ctx.set(dut.start, 1)
        await ctx.tick()
        ctx.set(dut.load, 0)
        ctx.set(dut.start, 0)
        cycles = 0
        while not ctx.get(dut.done):
            await ctx.tick()
            cycles += 1
            assert cycles < 100, "permutation never finished"
        result["state"] = ctx.get(dut.state)
        result["cycles"] = cycles

    sim = Simulator(dut)
    sim.add_clock(1e-8)
    sim.add_testbench(bench)
    sim.run()
    return result["state"], result["cycles"]


@pytest.mark.parametrize("rpc", [1, 2])
@pytest.mark.parametrize("msg", [b"", b"abc", bytes(range(100))], ids=["empty", "abc", "100B"])
def test_sha3_256_single_block(rpc, msg):
    dut = KeccakCore(rounds_per_cycle=rpc)
    state, cycles = _permute(dut, _padded_block(msg, 136, 0x06))
    assert state.to_bytes(200, "little")[:32] == hashlib.sha3_256(msg).digest()
    assert cycles == 24 // rpc


def test_shake128_single_block():
    msg = b"side-load"
    state, _ = _permute(KeccakCore(), _padded_block(msg, 168, 0x1F))
    assert state.to_bytes(200, "little")[:168] == hashlib.shake_128(msg).digest(168)


def test_rejects_bad_unroll():
    with pytest.raises(ValueError):
        KeccakCore(rounds_per_cycle=5)
