"""cocotb driver of the emitted ACC top (`acc`): runs a batch of programs through the host
bus, as firmware would, and records what the host can see. Used for the RTL and the netlist.

Jobs come from the JSON file $PQSOC_ACC_JOBS: a list of {"words": [...], "dmem": hex,
"max_cycles": N}; results go to $PQSOC_ACC_RESULTS: a list of {"halt", "err_bits", "cycles",
"insns", "stop_pc", "dmem": hex}. Programs run back to back with no reset in between
(the hardware contract: after an error the core wipes itself and the next program runs).
Register offsets come from ip/acc/data/acc_regs.yml.
"""
import json
import os

import cocotb
from cocotb.clock import Clock
from cocotb.triggers import ClockCycles, FallingEdge, First, ReadOnly, RisingEdge

from pqsoc.regtool import load

from ip.acc.rtl.acc import REGS_YML

RM = load(REGS_YML)
OFF = {r.name: r.offset for r in RM.registers}
IMEM_BASE, DMEM_BASE = 0x10000, 0x20000
STATE_IDLE = RM.field("STATUS", "STATE").values["IDLE"]
BUS_TIMEOUT = 100


async def wb(dut, offset, data=0, we=False, sel=0xF):
    dut.bus__adr.value = offset >> 2
    dut.bus__dat_w.value = data
    dut.bus__sel.value = sel
    dut.bus__we.value = int(we)
    dut.bus__cyc.value = 1
    dut.bus__stb.value = 1
    for _ in range(BUS_TIMEOUT):
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


async def run_job(dut, job, known_dmem):
    words = job["words"]
    dmem = bytes.fromhex(job["dmem"])
    for i, w in enumerate(words):
        await wb(dut, IMEM_BASE + 4 * i, w, we=True)
    for i in range(0, len(dmem), 4):
        if known_dmem is None or dmem[i:i + 4] != known_dmem[i:i + 4]:
            await wb(dut, DMEM_BASE + i, int.from_bytes(dmem[i:i + 4], "little"), we=True)
    await wb(dut, OFF["INTR_STATE"], 1, we=True)
    await wb(dut, OFF["CTRL"], 1, we=True)                      # START
    done = RisingEdge(dut.irq)
    res = await First(done, ClockCycles(dut.clk, job["max_cycles"] + 16))
    await FallingEdge(dut.clk)
    halt = None
    if res is not done and not int(dut.irq.value):
        await wb(dut, OFF["CTRL"], 2, we=True)                  # WIPE aborts the program
        await First(RisingEdge(dut.irq), ClockCycles(dut.clk, 100_000))
        await FallingEdge(dut.clk)
        halt = "cycle_limit"
    err = await wb(dut, OFF["ERR_BITS"])
    out = {"halt": halt or ("error" if err else "ecall"), "err_bits": err,
           "cycles": await wb(dut, OFF["CYCLES"]), "insns": await wb(dut, OFF["INSNS"]),
           "stop_pc": await wb(dut, OFF["STOP_PC"])}
    blob = bytearray()
    for i in range(0, len(dmem), 4):
        blob += (await wb(dut, DMEM_BASE + i)).to_bytes(4, "little")
    out["dmem"] = blob.hex()
    state = await wb(dut, OFF["STATUS"])
    assert state == STATE_IDLE, f"core not idle after the program (STATUS {state:#x})"
    return out, bytes(blob)


@cocotb.test()
async def run_jobs(dut):
    jobs = json.loads(open(os.environ["PQSOC_ACC_JOBS"]).read())
    cocotb.start_soon(Clock(dut.clk, 10, units="ns").start())
    dut.rst.value = 1
    dut.bus__cyc.value = 0
    dut.bus__stb.value = 0
    await ClockCycles(dut.clk, 3)
    await FallingEdge(dut.clk)
    dut.rst.value = 0
    await wb(dut, OFF["INTR_ENABLE"], 1, we=True)
    results = []
    known = None
    for job in jobs:
        out, known = await run_job(dut, job, known)
        results.append(out)
    with open(os.environ["PQSOC_ACC_RESULTS"], "w") as f:
        json.dump(results, f)
