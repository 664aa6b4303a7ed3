# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""One Wishbone classic access from a cocotb testbench, on a block's `bus__*` ports (Amaranth's
flattening of a `bus` member): set at a falling edge, the ack and read data taken at the rising
edge that shows the ack, released at the next falling edge. For the blocks' cocotb tests, which
run on their RTL and on their gate-level netlists."""
from cocotb.triggers import FallingEdge, ReadOnly, RisingEdge

TIMEOUT = 1000           # cycles an access may wait for its ack


async def wb(dut, offset: int, data: int = 0, sel: int = 0xF, we: bool = False,
             timeout: int = TIMEOUT) -> int:
    await FallingEdge(dut.clk)
    dut.bus__adr.value = offset >> 2
    dut.bus__dat_w.value = data
    dut.bus__sel.value = sel
    dut.bus__we.value = int(we)
    dut.bus__cyc.value = 1
    dut.bus__stb.value = 1
    for _ in range(timeout):
        await RisingEdge(dut.clk)
        await ReadOnly()
        if int(dut.bus__ack.value):
            val = int(dut.bus__dat_r.value)
            break
    else:
        raise AssertionError(f"no ack at {offset:#x}")
    await FallingEdge(dut.clk)
    dut.bus__cyc.value = 0
    dut.bus__stb.value = 0
    dut.bus__we.value = 0
    return val
