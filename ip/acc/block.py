# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""The ACC as a block: its constants, declared once, and the flow's view of it.

The SoC (soc/), the ISS jobs and benchmarks (ip/acc/dv/), the firmware, the reports and the
OpenLane configuration (pnr/) read these. The verification hooks (benchmark, gate-level run)
live in ip/acc/dv/ and are wired to the block by the registry (pqsoc/cli/blocks.py).
"""
from ip.common import SYS_CLK_PERIOD_NS
from pqsoc.flow.block import Block, amaranth_emit_key, emit_amaranth

# Every ACC memory is built of this OpenRAM macro (2 KiB, 32 x 512, one rw and one r port).
SRAM_MACRO = "sky130_sram_2kbyte_1rw1r_32x512_8"
MACRO_BYTES = 2048

# The taped-out ACC (block acc, silicon SoC `soc`): 16 KiB each, what the ML-KEM-768 decaps
# program needs (13.7 KB code, 16.0 KB data, ip/acc/kernels/mlkem/decaps.py); the taped-out
# sizes are the floorplan's choice.
IMEM_SIZE = DMEM_SIZE = 16 * 1024
# The anchor's ACC memories (soc_acc32k and the simulation SoC): what ML-DSA-65 signing needs
# (program ~23 KB, DMEM 32.1 KB).
LARGE_IMEM_SIZE = LARGE_DMEM_SIZE = 32 * 1024

PERIOD_NS = SYS_CLK_PERIOD_NS     # synthesis, STA and hardening target: the SoC's clock

# The ACC hard macro's standard-cell utilisation (its die is sized for it, soc/caravel_floorplan.py):
# the memory plan's choice (soc/doc/caravel.md, "The memory plan"). At the project's 45 % the ACC macro is 7.48 mm2 and
# the CPU's 8 KiB boot RAM + 4 KiB main SRAM do not fit beside it in Caravel's user area; at 60 %
# they do (reports/floorplan.md). The risk taken: routing congestion in the ACC's cell region.
CELL_UTIL = 0.60

# The ACC's full adders mapped to fa_1 (Block.full_adders), in blocks acc and soc: the wide ALU's
# partial-product trees (wires `csa*`, ip/acc/rtl/wide_alu.py) and their input cones, in its first
# stage; not the second stage (the critical path: Montgomery trees and CT add/subtract): with
# every full adder of the design mapped, fmax tt fell from 56.8 to 51.3 MHz (logic 2.26 -> 2.07 mm2)
FULL_ADDERS = "w:*csa* %ci9"


def _acc():
    # the bus address width is the SoC's (the wrapper instantiates this cell as the SoC's ACC)
    from ip.acc.rtl.acc import Acc
    from ip.acc.rtl.pqc import ACC_ADDR_WIDTH
    return Acc(imem_size=IMEM_SIZE, dmem_size=DMEM_SIZE, addr_width=ACC_ADDR_WIDTH, sram_macro=SRAM_MACRO,
               clock_gate="sky130")


# The ACC's modules that synthesis keeps (Yosys names, below the block's top `acc`); the SoC keeps
# the same ones below its `pqc.acc` (soc/block.py).
ACC_MODULES = ("acc.core.walu", "acc.core.smp", "acc.core.rnd")


ACC = Block(
    name="acc",
    top="acc",
    description=("PQC coprocessor ACC (ip/acc/rtl/acc.py): core, 256-bit wide ALU, KMAC side-load "
                 f"master, stream unit; IMEM {IMEM_SIZE // 1024} KiB ({IMEM_SIZE // MACRO_BYTES} x 2 KiB "
                 f"macros) and DMEM {DMEM_SIZE // 1024} KiB ({DMEM_SIZE // MACRO_BYTES} macros side by side, "
                 f"256 bits) on {SRAM_MACRO} ({(IMEM_SIZE + DMEM_SIZE) // MACRO_BYTES} macros, black boxes)"),
    emit=emit_amaranth(_acc, "acc"),
    emit_key=amaranth_emit_key,
    period_ns=PERIOD_NS,
    macros=(SRAM_MACRO,),
    # The core's wide ALU, sampler and RND pool stay modules of their own: ABC maps each (and the
    # rest, flat) with &dch in minutes, where the flat ACC did not finish in 34 min. Measured
    # 4 Dec: logic -90 k um2 (7 %), 67.5 / 15.1 MHz tt / ss against 70.1 / 15.7 flat without &dch;
    # keeping acc.core too: -84 k, 65.5 / 14.8 (its paths into the wide ALU cross one more boundary).
    keep_hierarchy=ACC_MODULES,
    full_adders=FULL_ADDERS,
    notes=("macro area is the LEF SIZE of the 16 macros (logic area excludes it); the OpenRAM Liberty "
           "launches dout0 at the falling clock edge, so paths from the macros get half a period; "
           "mapped with ABC's &dch module by module (the wide ALU, sampler and RND pool kept, the "
           "rest flat; all flat it does not finish); the core's clock comes through one "
           "sky130_fd_sc_hd__dlclkp_1 (idle clock gate; an ideal clock in STA, its enable timed as "
           "a clock-gating check); the wide ALU's partial-product trees map their full adders to "
           "sky130_fd_sc_hd__fa_1 (extract_fa); cycles: ip/acc/dv/jobs.py, ISS = RTL"),
)
