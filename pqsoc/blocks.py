"""The hardware blocks the flow knows: how to emit each one's Verilog and how to constrain it.

A block is registered once here; `pqsoc synth/sta/ppa` and the reports read this table.
"""
import argparse
import dataclasses
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from . import BUILD, FlowError


@dataclass(frozen=True)
class Block:
    name: str
    top: str
    description: str
    emit: Callable[[Path], list[Path]]   # writes the block's Verilog into a folder, returns the files
    period_ns: float = 10.0              # synthesis / STA target clock period
    clock: str = "clk"
    reset: str = "rst"
    macros: tuple[str, ...] = ()         # SRAM macro cell names kept as black boxes
    bench: Callable[[], dict] | None = None   # measured figures (cycles, bytes/cycle) for reports
    cocotb_test: str | None = None            # cocotb module run on the RTL and on the netlist
    # ABC's `&dch -f` (choice computation) improves mapping but did not finish in 34 min on the
    # ACC's 395 k AND nodes; large blocks map without it (recorded in the report's notes).
    abc_dch: bool = True
    # Full adders (3-input XOR + majority of the same inputs, as in carry-save trees) extracted
    # by Yosys' `extract_fa -fa` before ABC and mapped to sky130_fd_sc_hd__fa_1 (20.0 um2) instead
    # of ABC's gates (xnor3 is a DRC-excluded cell: two xnor2 + a majority); the same mapping as
    # OpenLane's SYNTH_ADDER_TYPE=FA (its fa_map.v), but slower per level. The value is the Yosys
    # selection of the logic to extract from (None: no extraction). Half adders are left to ABC
    # (ha_* are excluded cells).
    full_adders: str | None = None
    notes: str = ""
    # The area the block must fit (width, height in um; the report says whether it does)
    die_um: tuple[float, float] | None = None
    # Yosys commands that read the emitted files; None: `read_verilog -sv` of each file.
    yosys_read: Callable[[list[Path]], list[str]] | None = None
    # Modules synthesized as their own hierarchy (Yosys module names, e.g. "pqc.acc"): they get
    # the keep_hierarchy attribute before `synth -flatten`, which flattens everything else, so
    # ABC maps each of them on its own (as a hardened macro would be) and the netlist holds one
    # module per kept module plus the top. Each must be in the design (checked after synthesis).
    keep_hierarchy: tuple[str, ...] = ()

    def rtl_dir(self) -> Path:
        return BUILD / "rtl" / self.name


def _emit_amaranth(factory, top: str):
    def emit(out: Path) -> list[Path]:
        from amaranth.back import verilog
        out.mkdir(parents=True, exist_ok=True)
        dut = factory()
        text = verilog.convert(dut, name=top, emit_src=False)
        path = out / f"{top}.v"
        path.write_text(text)
        return [path]
    return emit


def _keccak():
    from ip.kmac.keccak import KeccakCore
    return KeccakCore(rounds_per_cycle=1)


BLOCKS: dict[str, Block] = {}


def register(block: Block) -> Block:
    BLOCKS[block.name] = block
    return block


register(Block(
    name="keccak",
    top="keccak_core",
    description="Keccak-f[1600] permutation core, 1 round/cycle (ip/kmac/keccak.py)",
    emit=_emit_amaranth(_keccak, "keccak_core"),
    period_ns=10.0,
    cocotb_test="ip.kmac.tests.cocotb_keccak",
))


def _kmac():
    from ip.kmac.kmac import Kmac
    return Kmac(rounds_per_cycle=1)


def _kmac_bench() -> dict:
    from ip.kmac.bench import measure
    return measure(rounds_per_cycle=1)


register(Block(
    name="kmac",
    top="kmac",
    description="KMAC block: sponge, Wishbone registers, side-load port (ip/kmac/kmac.py)",
    emit=_emit_amaranth(_kmac, "kmac"),
    period_ns=10.0,
    bench=_kmac_bench,
    cocotb_test="ip.kmac.tests.cocotb_kmac",
))


ACC_SRAM_MACRO = "sky130_sram_2kbyte_1rw1r_32x512_8"


# 16 KiB each: what the ML-KEM-768 decaps program needs (13.7 KB code, 16.0 KB data,
# ip/acc/kernels/mlkem.py); the taped-out sizes are the floorplan's choice.
ACC_IMEM, ACC_DMEM = 16 * 1024, 16 * 1024


def _acc():
    from ip.acc.rtl.acc import Acc
    return Acc(imem_size=ACC_IMEM, dmem_size=ACC_DMEM, sram_macro=ACC_SRAM_MACRO, clock_gate="sky130")


def _acc_bench() -> dict:
    from ip.acc.bench import measure
    return measure(rtl=True)


# The ACC's full adders mapped to fa_1 (Block.full_adders), in blocks acc and soc: the wide ALU's
# partial-product trees (wires `csa*`, ip/acc/rtl/wide_alu.py) and their input cones, in its first
# stage; not the second stage (the critical path: Montgomery trees and CT add/subtract): with
# every full adder of the design mapped, fmax tt fell from 56.8 to 51.3 MHz (logic 2.26 -> 2.07 mm2)
ACC_FULL_ADDERS = "w:*csa* %ci9"


register(Block(
    name="acc",
    top="acc",
    description=("PQC coprocessor ACC (ip/acc/rtl/acc.py): core, 256-bit wide ALU, KMAC side-load "
                 "master, stream unit; IMEM 16 KiB (8 x 2 KiB macros) and DMEM 16 KiB (8 macros "
                 f"side by side, 256 bits) on {ACC_SRAM_MACRO} (16 macros, black boxes)"),
    emit=_emit_amaranth(_acc, "acc"),
    period_ns=20.0,
    macros=(ACC_SRAM_MACRO,),
    bench=_acc_bench,
    abc_dch=False,
    full_adders=ACC_FULL_ADDERS,
    notes=("macro area is the LEF SIZE of the 16 macros (logic area excludes it); the OpenRAM Liberty "
           "launches dout0 at the falling clock edge, so paths from the macros get half a period; "
           "mapped without ABC's &dch (too slow at this size); the core's clock comes through one "
           "sky130_fd_sc_hd__dlclkp_1 (idle clock gate; an ideal clock in STA, its enable timed as "
           "a clock-gating check); the wide ALU's partial-product trees map their full adders to "
           "sky130_fd_sc_hd__fa_1 (extract_fa); cycles: ip/acc/bench.py, ISS = RTL"),
))


def _soc_emit(out: Path) -> list[Path]:
    from soc import silicon
    return silicon.emit(out)


def _soc_read(files: list[Path]) -> list[str]:
    from soc import silicon
    return silicon.yosys_read(files)


register(Block(
    name="soc",
    top="pqsoc",
    description=("the whole silicon SoC (soc/silicon.py): Ibex, LiteX bus/UART/timer/GPIO/UART bridge, "
                 f"KMAC, ACC (kept as its own module); 28 x {ACC_SRAM_MACRO}: ACC IMEM/DMEM 16 KiB "
                 "each, boot RAM 16 KiB, main SRAM 8 KiB (black boxes)"),
    emit=_soc_emit,
    period_ns=20.0,
    clock="sys_clk",
    reset="sys_rst",
    macros=(ACC_SRAM_MACRO,),
    abc_dch=False,
    die_um=(2920.0, 3520.0),   # Caravel's user project area
    yosys_read=_soc_read,
    # The ACC stays its own module, as it would be hardened (soc/README.md, "The silicon SoC":
    # with the former combinational ACC <-> KMAC side-load loop it measured 40.2 MHz tt against
    # 42.3 flat, the loop being the critical path either way; with the loop cut, 53.3).
    keep_hierarchy=("pqc.acc",),
    full_adders=ACC_FULL_ADDERS,        # the ACC's, as in block acc
    notes=("Ibex and LiteX's top read with Yosys read_slang, the PQC subsystem and memories with "
           "read_verilog; the ACC (pqc.acc) is kept as its own module (ABC maps it alone, as a "
           "hardened ACC), the rest is flat; critical path: ACC side-load msg (mask) -> KMAC byte "
           "packing -> KMAC flop, which block acc does not time (kmac.msg registers the KMAC's "
           "msg.ready: no combinational loop back into the ACC); the ACC core's clock comes through "
           "sky130_fd_sc_hd__dlclkp_1 (its idle clock gate); Ibex' clock gate is the generic latch + AND "
           "(prim_generic_clock_gating), timed as an ideal clock like every clock here; "
           "the ACC's partial-product trees map their full adders to sky130_fd_sc_hd__fa_1 (as block acc); "
           "macro area is the LEF SIZE of the 28 macros; no ACC cycle benchmark here (block acc)"),
))


def _soc_acc32k_emit(out: Path) -> list[Path]:
    from soc import silicon
    return silicon.emit(out, silicon.ACC32K_IMEM_SIZE, silicon.ACC32K_DMEM_SIZE)


# Block soc with the ACC memories at 32 KiB each: everything else as block soc.
register(dataclasses.replace(
    BLOCKS["soc"],
    name="soc_acc32k",
    description=("the silicon SoC with the anchor's ACC memories (soc/silicon.py ACC32K_*): as block soc, "
                 f"but ACC IMEM and DMEM 32 KiB each, which ML-DSA-65 signing needs; 44 x {ACC_SRAM_MACRO} "
                 "(ACC 16 + 16, boot RAM 8, main SRAM 4; black boxes)"),
    emit=_soc_acc32k_emit,
    notes=("the flow and notes of block soc; only the ACC's IMEM/DMEM sizes differ (address widths, "
           "macro count); macro area is the LEF SIZE of the 44 macros"),
))


def get(name: str) -> Block:
    if name not in BLOCKS:
        raise FlowError(f"unknown block {name!r}; known blocks: {', '.join(sorted(BLOCKS))}")
    return BLOCKS[name]


def add_subcommands(sub) -> None:
    """Block-specific tools (pqsoc kmac, pqsoc acc, ...) register their subcommands here."""
    from . import soc_cli, sim_cli
    soc_cli.add_subcommands(sub)
    sim_cli.add_subcommands(sub)
    from . import kmac_cli, regtool
    kmac_cli.add_parser(sub)
    regtool.add_parser(sub)
    p = sub.add_parser("acc", help="coprocessor tools: asm, dis, run (ISS), fuzz (ISS vs RTL), "
                                   "all driven by ip/acc/data/isa.yml")
    p.add_argument("tool", choices=["asm", "dis", "run", "fuzz"])
    p.add_argument("args", nargs=argparse.REMAINDER, help="arguments of the tool (see `pqsoc acc asm -h`)")
    p.set_defaults(func=_acc_tool)
    p = sub.add_parser("blocks", help="list the blocks the flow knows")
    p.set_defaults(func=_list_blocks)
    from bringup import cli as bringup_cli   # host-side chip bring-up (bringup/)
    bringup_cli.add_parser(sub)


def _acc_tool(args) -> int:
    from .acc import asm, dis, fuzz, run
    return {"asm": asm.main, "dis": dis.main, "run": run.main, "fuzz": fuzz.main}[args.tool](args.args)


def _list_blocks(args) -> int:
    for b in BLOCKS.values():
        print(f"{b.name:10s} {b.top:16s} {b.description}")
    return 0
