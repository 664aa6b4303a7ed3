# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""The entropy source's RTL and gate-level runs (`pqsoc gls entropy_src`, its Block.gls hook).

A ring oscillator is a combinational loop, which a cycle-based simulator cannot run, so both
runs put the rings' simulation model in place of the ring modules of the emitted RTL and of the
synthesized netlist (which keeps each ring its own module, block.py): dv/sim_model.py.
Everything else is the netlist as synthesized, each cell its Liberty function and every flop
from a random initial state (pqsoc.flow.gls). The cocotb test
(tests/cocotb_entropy_src.py) checks the words against the model's definition; the runs'
figures must be equal.
"""
from pathlib import Path

from pqsoc import BUILD
from pqsoc.flow import block as blocks_mod
from pqsoc.flow import locks
from pqsoc.flow.gls import check_cells, flat_netlist, rtl_against_seeds
from pqsoc.flow.pdk import find_pdk
from pqsoc.flow.synth import load_manifest, synth_dir
from pqsoc.flow.verilator import GL_CXX, X_RANDOM, gl_cxx, run_cocotb

from ip.entropy.dv.sim_model import simulable

NAME = "entropy_src"
TEST = "ip.entropy.tests.cocotb_entropy_src"


def rtl_sources(out: Path) -> list[Path]:
    """The emitted RTL with the model in place of the rings' cells."""
    return simulable(blocks_mod.get(NAME).emit_rtl(), out)


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
        (modelled,) = simulable([netlist], gl_dir)
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
