# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""cocotb test of the entropy source (`entropy_src`, the silicon kind with the rings' simulation
model in place of their cells: ip/entropy/dv/gls.py), for its RTL and gate-level runs.

Through the registers as firmware would: EN with DIV = 0, the first words after the start-up
window, no error. The expected words come from the model's definition (tests/model_ref.py);
the polls to the first word go to $PQSOC_FIGURES for the RTL / gate-level comparison.
"""
import json
import os

import cocotb
from cocotb.clock import Clock
from cocotb.triggers import FallingEdge, RisingEdge

from ip.common.cocotb_wishbone import wb
from ip.common.regtool import load
from ip.entropy import REGS_YML
from ip.entropy.health import APT_WINDOW
from ip.entropy.tests.model_ref import expected_words

RM = load(REGS_YML)
OFF = {r.name: r.offset for r in RM.registers}
READY = 1 << RM.field("STATUS", "READY").lo
WORDS = 4


async def reg(dut, name, data=0, we=False):
    return await wb(dut, OFF[name], data, we=we)


@cocotb.test()
async def words_follow_the_ring_model(dut):
    cocotb.start_soon(Clock(dut.clk, 10, units="ns").start())
    for name in ("bus__cyc", "bus__stb", "bus__we"):
        getattr(dut, name).value = 0
    dut.rst.value = 1
    for _ in range(3):
        await RisingEdge(dut.clk)
    await FallingEdge(dut.clk)
    dut.rst.value = 0
    assert await reg(dut, "ERR_CODE") == 0
    await reg(dut, "CTRL", 1, we=True)                 # EN, DIV = 0
    polls, words = 0, []
    while len(words) < WORDS:
        polls += 1
        assert polls < 4 * (APT_WINDOW + 32 * WORDS), "no word from the entropy source"
        if await reg(dut, "STATUS") & READY:
            words.append(await reg(dut, "DATA"))
            if len(words) == 1:
                first = polls
    assert words == expected_words(WORDS), [hex(w) for w in words]
    assert await reg(dut, "ERR_CODE") == 0
    path = os.environ.get("PQSOC_FIGURES")
    if path:
        with open(path, "w") as f:
            json.dump({"status_polls_to_first_word": first, "words": len(words)}, f)
