# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""cocotb test of the masked Keccak-f core, run on the emitted RTL and on the gate-level netlist.

The testbench seeds the core's PRNG, absorbs messages block by block with a fresh share split of
every block (share 0 ^= block ^ r, share 1 ^= r), and compares the XOR of the squeezed shares
with hashlib. Cycle counts go to $PQSOC_FIGURES for the RTL/GLS comparison.
"""
import json
import os
import random

import cocotb
from cocotb.clock import Clock
from cocotb.triggers import FallingEdge, ReadOnly, RisingEdge

from ip.kmac.tests.cocotb_keccak import CASES, padded_blocks


async def permute(dut, s0: int, s1: int) -> tuple[int, int, int]:
    await FallingEdge(dut.clk)
    dut.load_data0.value = s0
    dut.load_data1.value = s1
    dut.load.value = 1
    dut.start.value = 1
    await FallingEdge(dut.clk)
    dut.load.value = 0
    dut.start.value = 0
    cycles = 1
    while True:
        await RisingEdge(dut.clk)
        await ReadOnly()
        if dut.done.value.is_resolvable and int(dut.done.value):
            break
        cycles += 1
        assert cycles < 400, "permutation did not finish"
    return int(dut.state0.value), int(dut.state1.value), cycles


@cocotb.test()
async def masked_absorb_and_squeeze_match_hashlib(dut):
    cocotb.start_soon(Clock(dut.clk, 10, units="ns").start())
    rng = random.Random(38)
    dut.rst.value = 1
    for sig in (dut.load, dut.start, dut.reseed, dut.load_data0, dut.load_data1, dut.seed):
        sig.value = 0
    dut.masked.value = 1
    for _ in range(3):
        await RisingEdge(dut.clk)
    await FallingEdge(dut.clk)
    dut.rst.value = 0
    assert int(dut.seeded.value) == 0, "seeded before any reseed"
    dut.seed.value = rng.getrandbits(256)
    dut.reseed.value = 1
    await FallingEdge(dut.clk)
    dut.reseed.value = 0
    assert int(dut.seeded.value) == 1
    figures = {}
    for name, rate, ds, msg, ref in CASES:
        s0 = s1 = total = 0
        for block in padded_blocks(msg, rate, ds):
            r = rng.getrandbits(1600)
            s0, s1, cycles = await permute(dut, s0 ^ block ^ r, s1 ^ r)
            total += cycles
        out = (s0 ^ s1).to_bytes(200, "little")
        want = ref(msg)
        assert out[:len(want)] == want, f"{name}: the shares' XOR differs from hashlib"
        figures[name] = total
    path = os.environ.get("PQSOC_FIGURES")
    if path:
        with open(path, "w") as f:
            json.dump(figures, f)
