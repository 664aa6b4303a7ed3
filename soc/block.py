# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""The silicon SoC as blocks of the flow: `soc` (the ACC's 16 KiB memories) and `soc_acc32k`
(the anchor's 32 KiB ones). Declared once; the registry (pqsoc/cli/blocks.py) wires their
gate-level run (firmware on sim/'s harness: sim/silicon.py)."""
import dataclasses
from pathlib import Path

from ip.acc import block as acc_block
from ip.entropy import block as entropy_block
from ip.common import SYS_CLK_PERIOD_NS
from pqsoc.flow.block import Block
from soc import silicon
from soc.target import SILICON_ENTROPY, SILICON_ROM_SIZE, SILICON_SRAM_SIZE

PERIOD_NS = SYS_CLK_PERIOD_NS            # one clock for the whole SoC


def _soc_emit(out: Path) -> list[Path]:
    return silicon.emit(out)


def _soc_acc32k_emit(out: Path) -> list[Path]:
    return silicon.emit(out, silicon.ACC32K_IMEM_SIZE, silicon.ACC32K_DMEM_SIZE)


def _macros(acc_imem: int, acc_dmem: int) -> int:
    return (acc_imem + acc_dmem + SILICON_ROM_SIZE + SILICON_SRAM_SIZE) // acc_block.MACRO_BYTES


def _kib(n: int) -> str:
    return f"{n // 1024} KiB"


SOC = Block(
    name="soc",
    top="pqsoc",
    description=("the whole silicon SoC (soc/silicon.py): Ibex, LiteX bus/UART/timer/GPIO/UART bridge, "
                 f"KMAC and ACC (kept as modules of their own)"
                 f"{', the entropy source (its rings sky130 cells)' if SILICON_ENTROPY else ''}; "
                 f"{_macros(silicon.ACC_IMEM_SIZE, silicon.ACC_DMEM_SIZE)} x {silicon.SRAM_MACRO}: "
                 f"ACC IMEM/DMEM {_kib(silicon.ACC_IMEM_SIZE)} each, boot RAM {_kib(SILICON_ROM_SIZE)}, "
                 f"main SRAM {_kib(SILICON_SRAM_SIZE)} (black boxes)"),
    emit=_soc_emit,
    period_ns=PERIOD_NS,
    clock="sys_clk",
    reset="sys_rst",
    macros=(silicon.SRAM_MACRO,),
    # floorplan: the Caravel wrapper's, wired by the registry (soc/caravel_floorplan.py)
    yosys_read=silicon.yosys_read,
    # The ACC stays its own module, as it would be hardened (soc/README.md, "The silicon SoC":
    # with the former combinational ACC <-> KMAC side-load loop it measured 40.2 MHz tt against
    # 42.3 flat, the loop being the critical path either way; with the loop cut, 53.3).
    # Its modules and the KMAC are kept as in blocks acc and kmac, so ABC maps them as there (with
    # &dch: the KMAC mapped flat into the top without it was 0.09 mm2 larger, which the
    # floorplan counted as top-level logic).
    # The entropy source stays a module of its own (flat, it moved the top's mapping: 0.0156 mm2
    # more against 0.0120 kept, 6 Dec), its rings too, so that the netlist's simulations can put
    # the rings' model in their place (ip/entropy/dv/sim_model.py), as in block entropy_src.
    keep_hierarchy=("pqc.acc", *(f"pqc.{m}" for m in acc_block.ACC_MODULES), "pqc.kmac",
                    *(("pqc.entropy", *entropy_block.RING_MODULES) if SILICON_ENTROPY else ())),
    full_adders=acc_block.FULL_ADDERS,        # the ACC's, as in block acc
    notes=("Ibex and LiteX's top read with Yosys read_slang, the PQC subsystem and memories with "
           "read_verilog; the ACC (pqc.acc, and its modules as in block acc) and the KMAC (pqc.kmac) "
           "are kept as modules of their own (ABC maps each alone, with &dch), the rest is flat; critical path: the ACC's own, "
           "into its wide ALU's module (as in block acc); the ACC's side-load msg and the CPU's KMAC writes end in the "
           "KMAC's message intake register and command flop, so neither reaches the sponge's mask "
           "checks or the Keccak state in the same cycle; the ACC core's clock comes through "
           "sky130_fd_sc_hd__dlclkp_1 (its idle clock gate); Ibex' clock gate is the generic latch + AND "
           "(prim_generic_clock_gating), timed as an ideal clock like every clock here; "
           "the ACC's partial-product trees map their full adders to sky130_fd_sc_hd__fa_1 (as block acc); "
           f"macro area is the LEF SIZE of the {_macros(silicon.ACC_IMEM_SIZE, silicon.ACC_DMEM_SIZE)} "
           "macros; no ACC cycle benchmark here (block acc)"),
)

def _caravel_emit(out: Path) -> list[Path]:
    """Caravel's defines (MPRJ_IO_PADS), the SoC's files, the wrapper (soc/caravel.py)."""
    from pqsoc.flow.caravel import caravel_root
    from soc import caravel
    return [caravel_root() / "verilog" / "rtl" / "defines.v", *caravel.emit(out)["sources"]]


def _caravel_read(files: list[Path]) -> list[str]:
    """The SoC's reading, elaborating the wrapper; its `include of Caravel's defines.v (the first
    file) is found in that file's folder."""
    return silicon.yosys_read(files[1:], top="user_project_wrapper", include_dirs=(files[0].parent,))


# The chip as taped out: Caravel's user_project_wrapper around block soc (soc/caravel.py), for its
# gate-level run (sim/caravel.py: booted through the management Wishbone) and the wrapper's PPA.
CARAVEL = dataclasses.replace(
    SOC,
    name="caravel",
    top="user_project_wrapper",
    description=("Caravel's user_project_wrapper around the silicon SoC (soc/caravel.py): block soc with "
                 "the management Wishbone as a second outside master, the bus access policy, Caravel's "
                 "clocks, pins and logic-analyzer probes"),
    emit=_caravel_emit,
    clock="wb_clk_i",
    reset="wb_rst_i",
    yosys_read=_caravel_read,
    notes=("block soc's flow; clock wb_clk_i (user_clock2 through the LA-selected multiplexer is not "
           "timed); the management Wishbone's clock-domain crossing is a toggle handshake "
           "(soc/mgmt_port.py)"),
)

# Block soc with the ACC memories at 32 KiB each: everything else as block soc.
SOC_ACC32K = dataclasses.replace(
    SOC,
    name="soc_acc32k",
    description=("the silicon SoC with the anchor's ACC memories (soc/silicon.py ACC32K_*): as block soc, "
                 "but ACC IMEM and DMEM 32 KiB each, which ML-DSA-65 signing needs; "
                 f"{_macros(silicon.ACC32K_IMEM_SIZE, silicon.ACC32K_DMEM_SIZE)} x {silicon.SRAM_MACRO} "
                 f"(ACC {silicon.ACC32K_IMEM_SIZE // acc_block.MACRO_BYTES} + "
                 f"{silicon.ACC32K_DMEM_SIZE // acc_block.MACRO_BYTES}, boot RAM "
                 f"{SILICON_ROM_SIZE // acc_block.MACRO_BYTES}, main SRAM "
                 f"{SILICON_SRAM_SIZE // acc_block.MACRO_BYTES}; black boxes)"),
    emit=_soc_acc32k_emit,
    notes=("the flow and notes of block soc; only the ACC's IMEM/DMEM sizes differ (address widths, "
           f"macro count); macro area is the LEF SIZE of the "
           f"{_macros(silicon.ACC32K_IMEM_SIZE, silicon.ACC32K_DMEM_SIZE)} macros"),
)
