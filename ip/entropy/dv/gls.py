# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""The entropy source's RTL and gate-level runs (`pqsoc gls entropy_src`, its Block.gls hook).

A ring oscillator is a combinational loop, which a cycle-based simulator cannot run, so both
runs put the rings' simulation model (ip/entropy/rtl/rings.py model_verilog: the same module
names and ports) in place of the modules of cells: in the emitted RTL the appended cells text
is swapped, in the synthesized netlist (which keeps each ring its own module, block.py) the ring
modules are. Everything else is the netlist as synthesized, each cell its Liberty function and
every flop from a random initial state (pqsoc.flow.gls). The cocotb test
(tests/cocotb_entropy_src.py) checks the words against the model's definition; the runs'
figures must be equal.
"""
import re
from pathlib import Path

from pqsoc import BUILD, FlowError
from pqsoc.flow import block as blocks_mod
from pqsoc.flow import locks
from pqsoc.flow.gls import check_cells, flat_netlist, rtl_against_seeds
from pqsoc.flow.pdk import find_pdk
from pqsoc.flow.synth import load_manifest, synth_dir
from pqsoc.flow.verilator import GL_CXX, X_RANDOM, gl_cxx, run_cocotb

from ip.entropy.rtl.rings import LENGTHS, cells_verilog, model_verilog, module_name

NAME = "entropy_src"
TEST = "ip.entropy.tests.cocotb_entropy_src"


def with_model(text: str, where: str) -> str:
    """TEXT with every ring module's definition replaced by the model's; refused when a ring
    module is not defined exactly once (a netlist that flattened its rings)."""
    for n in LENGTHS:
        found = re.findall(rf"^module {module_name(n)}\b.*?^endmodule\n?", text, re.M | re.S)
        if len(found) != 1:
            raise FlowError(f"{where}: {len(found)} definitions of {module_name(n)}, one expected "
                            "(the rings must stay modules of their own to be simulated)")
        text = text.replace(found[0], "")
    return text + "\n" + model_verilog()


def rtl_sources(out: Path) -> list[Path]:
    """The emitted RTL with the model in place of the rings' cells."""
    block = blocks_mod.get(NAME)
    (emitted,) = block.emit_rtl()
    text = emitted.read_text()
    if cells_verilog() not in text:
        raise FlowError(f"{emitted}: the rings' cells are not where the emission puts them")
    path = out / f"{NAME}_sim.v"
    out.mkdir(parents=True, exist_ok=True)
    new = with_model(text, str(emitted))
    if not path.is_file() or path.read_text() != new:
        path.write_text(new)
    return [path]


def gls_entropy(seeds=(1, 2, 3)) -> dict:
    block = blocks_mod.get(NAME)
    pdk = find_pdk()
    gl_cxx()
    manifest = load_manifest(NAME, check_rtl=True)
    netlist = synth_dir(NAME) / "netlist.v"
    check_cells(netlist, pdk)
    build = BUILD / "vsim" / NAME
    gl_dir = build / f"gls-{manifest['netlist_sha256'][:12]}"
    with locks.exclusive(build):
        modelled = gl_dir / "netlist_ring_model.v"
        gl_dir.mkdir(parents=True, exist_ok=True)
        text = with_model(netlist.read_text(), str(netlist))
        if not modelled.is_file() or modelled.read_text() != text:
            modelled.write_text(text)
        flat = flat_netlist(modelled, block.top, pdk, gl_dir, log=print)
    return rtl_against_seeds(
        NAME, manifest,
        lambda: run_cocotb(sources=rtl_sources(build / "rtl"), top=block.top, test_module=TEST,
                           build_dir=build / "rtl", label=f"{NAME} RTL (the rings' model)"),
        lambda seed: run_cocotb(sources=[flat], top=block.top, test_module=TEST, build_dir=gl_dir,
                                build_args=X_RANDOM, seed=seed,
                                plusargs=["+verilator+rand+reset+2", f"+verilator+seed+{seed}"],
                                label=f"{NAME} gate level (the rings' model)", cxx=GL_CXX),
        tuple(seeds))
