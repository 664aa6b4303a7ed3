# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""The silicon SoC: the configuration `pqsoc synth soc` / `pqsoc sta soc` measure (whole-SoC PPA).

Every memory is on sky130 OpenRAM macros (black boxes in synthesis, LEF area in the report): the
ACC's IMEM and DMEM (16 KiB each, the sizes the ACC block is synthesized with), a 6 KiB boot RAM
at the CPU's reset address and 2 KiB of main SRAM (soc/target.py SILICON_*, the memory plan). The boot RAM holds
nothing at power-up: the CPU waits in reset (`boot_hold`) until the host has loaded it over the
UART bridge. Real UART pins, no simulation control.

Yosys reads Ibex and the LiteX top with `read_slang` (Ibex is SystemVerilog with packages) and
the Amaranth-emitted files with `read_verilog` (`yosys_read`).
"""
import re
from pathlib import Path

from ip.acc import block as acc_block
from pqsoc import FlowError, write_if_changed
from pqsoc.flow import locks
from soc import ibex
from soc.target import SILICON_ROM_SIZE, SILICON_SRAM_SIZE

# Every memory of the silicon SoC is on the ACC's OpenRAM macro; the ACC's memories are the
# ACC block's (ip/acc/block.py).
SRAM_MACRO = acc_block.SRAM_MACRO
ACC_IMEM_SIZE, ACC_DMEM_SIZE = acc_block.IMEM_SIZE, acc_block.DMEM_SIZE
# The same SoC with the anchor's ACC memories (32 KiB IMEM + 32 KiB DMEM, 32 macros for the ACC,
# 44 in all): what ML-DSA-65 signing needs (program 23.1 KB, DMEM 32.1 KB); far beyond Caravel's
# user area, measured so that the memory choice is made on figures (block soc_acc32k).
ACC32K_IMEM_SIZE, ACC32K_DMEM_SIZE = acc_block.LARGE_IMEM_SIZE, acc_block.LARGE_DMEM_SIZE


def _fix_ibex_top(src: Path, dst: Path) -> Path:
    """ibex_top.sv declares `logic unused_scramble_inputs = <expression of inputs>;` at module
    level: a variable initialised once at time 0, which Yosys' read_slang refuses ("reading net
    state during design initialization"). Ibex means a continuous assignment of an unused value,
    i.e. a `wire` declaration; the copy in the build folder says so (checked against
    pythondata-cpu-ibex 0.0.post2937, the only such declaration in the sources we read)."""
    text, n = re.subn(r"^(\s*)logic(\s+unused_scramble_inputs\s*=)", r"\1wire\2",
                      src.read_text(), flags=re.M)
    if n != 1:
        raise FlowError(f"{src}: expected one `logic unused_scramble_inputs =` declaration, "
                           f"found {n}: the Ibex sources changed, review soc/silicon.py")
    write_if_changed(dst, text)
    return dst


_HIERARCHY = re.compile(r"^// Hierarchy\n(?://[^\n]*\n)*\n*/\*\n(?:(?!\*/)[^\n]*\n)*\*/\n", re.M)


def emit(out: Path, acc_imem_size: int = ACC_IMEM_SIZE, acc_dmem_size: int = ACC_DMEM_SIZE,
         caravel: bool = False) -> list[Path]:
    """Generate the silicon SoC into OUT (soc.build.build) and return every source file in
    reading order: Ibex (packages first; ibex_top.sv from the fixed copy), the PQC subsystem,
    the memories, then the LiteX top (pqsoc_synth.v). caravel: the top that Caravel's
    user_project_wrapper holds (soc/caravel.py)."""
    out = Path(out).resolve()
    with locks.exclusive(out):      # one writer per folder (pytest-xdist workers, campaign tasks)
        return _emit(out, acc_imem_size, acc_dmem_size, caravel)


def _emit(out: Path, acc_imem_size: int, acc_dmem_size: int, caravel: bool) -> list[Path]:
    import logging
    logging.getLogger("litex").setLevel(logging.WARNING)
    from soc.build import build
    files = build(out, sram_size=SILICON_SRAM_SIZE, rom_size=SILICON_ROM_SIZE, sim=False,
                  acc_imem_size=acc_imem_size, acc_dmem_size=acc_dmem_size, sram_macro=SRAM_MACRO,
                  caravel=caravel)
    gateware = out / "gateware"
    top = gateware / files["verilog"][0]
    # LiteX's identifier ROM is `$readmemh("pqsoc_mem.init")`, a path relative to the reader's
    # working folder: make it absolute in the file synthesis reads.
    # Without LiteX's date and commit stamps, so that the RTL hash that synthesis records
    # changes only with the design.
    from soc.build import _STAMP
    text = _STAMP.sub("", top.read_text())
    # LiteX's module-hierarchy comment lists the black boxes (pqc, soc_memories) in set order,
    # which changes from run to run (Python's string hashing): drop it, so that an unchanged
    # design hashes the same (`pqsoc gls soc` refuses a netlist whose RTL hash changed).
    text, n = _HIERARCHY.subn("", text)
    if n != 1:
        raise FlowError(f"{top}: expected one module-hierarchy comment from LiteX, found {n}")
    text = re.sub(r'\$readmemh\("(\w+\.init)"', lambda m: f'$readmemh("{gateware / m[1]}"', text)
    synth_top = out / "pqsoc_synth.v"
    write_if_changed(synth_top, text)
    sources = []
    for s in files["sources"]:
        p = Path(s)
        if p.name == "ibex_top.sv":
            p = _fix_ibex_top(p, out / "ibex_top.sv")
        sources.append(p)
    return [*sources, synth_top]


# Files emitted by Amaranth (soc.build: the PQC subsystem and the memories). Yosys' own
# read_verilog reads them, as it reads blocks acc and kmac: read_slang elaborates everything it
# reads into one flat module, while read_verilog keeps one Yosys module per Amaranth module, so
# that Block.keep_hierarchy can name one (`pqc.acc`). read_slang then takes them as modules
# already in the design when it elaborates the LiteX top.
AMARANTH_FILES = ("pqc.v", "soc_memories.v")


def yosys_read(files: list[Path], top: str = "pqsoc", include_dirs=()) -> list[str]:
    """read_verilog for the Amaranth files, then one read_slang call over the other files (Ibex
    and the LiteX top, and for the Caravel wrapper Caravel's defines and the wrapper; SystemVerilog
    packages are shared between them), elaborating `top`."""
    incs = " ".join(f"-I {p}" for p in [*ibex.include_paths(), *include_dirs])
    amaranth = [f for f in files if Path(f).name in AMARANTH_FILES]
    if len(amaranth) != len(AMARANTH_FILES):
        raise FlowError(f"expected {', '.join(AMARANTH_FILES)} among the SoC's sources, "
                           f"found {', '.join(Path(f).name for f in amaranth) or 'none'}")
    rest = [f for f in files if f not in amaranth]
    return [f"read_verilog -sv {f}" for f in amaranth] + [
        f"read_slang -D SYNTHESIS {incs} --top {top} " + " ".join(str(f) for f in rest)]
