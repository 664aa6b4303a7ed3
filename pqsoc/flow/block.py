# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""What the flow knows of a hardware block, and the table of blocks by name.

A block declares itself once, in its own home (`ip/<block>/block.py`, `soc/block.py`): its
top, clock, period, memories and how to emit its Verilog. The command line's registry
(`pqsoc/cli/blocks.py`) registers them here; the flow's steps (synth, sta, gls, report,
harden) look a block up by name and know none of them by name.
"""
import hashlib
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from pqsoc import BUILD, REPO, FlowError, write_if_changed
from pqsoc.flow import locks


@dataclass(frozen=True)
class Block:
    name: str
    top: str
    description: str
    emit: Callable[[Path], list[Path]]   # writes the block's Verilog into a folder, returns the files
    # A hash of everything `emit` reads (None: not known). With it, the check that a netlist was
    # synthesized from today's RTL (synth.load_manifest(check_rtl=True)) emits again only when
    # the key or the emitted files changed since the last check passed: the ACC's emission is
    # ~25 s, and every task of a gate-level campaign makes that check.
    emit_key: Callable[[], str] | None = None
    period_ns: float = 10.0              # synthesis / STA target clock period
    clock: str = "clk"
    reset: str = "rst"
    macros: tuple[str, ...] = ()         # SRAM macro cell names kept as black boxes
    bench: Callable[[], dict] | None = None   # measured figures (cycles, bytes/cycle) for reports
    # (block, what): the block this one is with one feature more (the masked KMAC: the KMAC
    # without its masked mode); reports/ppa.json gives what the feature adds when both are in it
    baseline: tuple[str, str] | None = None
    cocotb_test: str | None = None            # cocotb module run on the RTL and on the netlist
    # The block's own gate-level run (`pqsoc gls`) where a cocotb test does not fit: called with
    # the random initial-state seeds, returns the report entry (RTL vs gate-level cycles).
    gls: Callable[[tuple[int, ...]], dict] | None = None
    # What every gate-level run of the block shares, made once before a campaign's tasks start
    # (models, firmware); None with a gls hook: its first run builds them (`pqsoc campaign gls`)
    gls_prepare: Callable[..., None] | None = None
    # ABC's `&dch -f` (choice computation) improves mapping but did not finish in 34 min on the
    # ACC's 395 k AND nodes flat; large blocks keep modules (keep_hierarchy) so that ABC maps
    # each with it, or map without it (recorded in the report's notes).
    abc_dch: bool = True
    # Full adders (3-input XOR + majority of the same inputs, as in carry-save trees) extracted
    # by Yosys' `extract_fa -fa` before ABC and mapped to sky130_fd_sc_hd__fa_1 (20.0 um2) instead
    # of ABC's gates (xnor3 is a DRC-excluded cell: two xnor2 + a majority); the same mapping as
    # OpenLane's SYNTH_ADDER_TYPE=FA (its fa_map.v), but slower per level. The value is the Yosys
    # selection of the logic to extract from (None: no extraction). Half adders are left to ABC
    # (ha_* are excluded cells).
    full_adders: str | None = None
    notes: str = ""
    # The block's checked floorplan (pqsoc/flow/floorplan.py): called with the block's PPA entry
    # (logic and macro areas), returns a summary with 'fits' for reports/ppa.json; wired by the
    # registry where the floorplan lives on a higher floor (the Caravel wrapper's: soc/).
    floorplan: Callable[[dict], dict] | None = None
    # Yosys commands that read the emitted files; None: `read_verilog -sv` of each file.
    yosys_read: Callable[[list[Path]], list[str]] | None = None
    # Modules synthesized as their own hierarchy (Yosys module names, e.g. "pqc.acc"): they get
    # the keep_hierarchy attribute before `synth -flatten`, which flattens everything else, so
    # ABC maps each of them on its own (as a hardened macro would be) and the netlist holds one
    # module per kept module plus the top. Each must be in the design (checked after synthesis).
    keep_hierarchy: tuple[str, ...] = ()
    # OpenLane 2 variables of this block beyond the flow's defaults (pqsoc/flow/openlane.py), or
    # a function returning them (computed from a floorplan, wired by the registry where that
    # floorplan lives on a higher floor); None: the block has no OpenLane configuration
    # (pnr/<name>/config.json) of its own.
    openlane: dict | Callable[[], dict] | None = None
    # Makes the build files the OpenLane configuration names besides the emitted Verilog (the
    # Caravel wrapper's sources in reading order, the SRAM's header, Caravel's fixed files):
    # called by `pqsoc pnr check` and `pqsoc harden` before LibreLane reads the configuration;
    # returns the problems found making them (each fails the check and stops the hardening).
    openlane_inputs: Callable[[], list[str]] | None = None
    # Checks a configuration (the committed one, as a dict) against what it was made from (the
    # floorplan, the RTL's macro instances): returns the errors; run by `pqsoc pnr check`.
    openlane_check: Callable[[dict], list[str]] | None = None

    def rtl_dir(self) -> Path:
        return BUILD / "rtl" / self.name

    def emit_rtl(self) -> list[Path]:
        """The block's Verilog written into rtl_dir(), under that folder's lock: processes that
        run at once (a campaign's tasks, test workers) emit into the one folder."""
        with locks.exclusive(self.rtl_dir()):
            return self.emit(self.rtl_dir())


def emit_amaranth(factory, top: str):
    """An `emit` for an Amaranth component: factory() -> the component, written as `top`.v."""
    def emit(out: Path) -> list[Path]:
        from amaranth.back import verilog
        out.mkdir(parents=True, exist_ok=True)
        text = verilog.convert(factory(), name=top, emit_src=False)
        path = out / f"{top}.v"
        write_if_changed(path, text)
        return [path]
    return emit


def amaranth_emit_key() -> str:
    """emit_key of an Amaranth block: every file of the packages its Python reads (ip/, pqsoc/),
    the installed distributions' versions (Amaranth, its Yosys), the Python version and
    Amaranth's environment variables. Coarse on purpose: any edit there counts as a change."""
    from importlib import metadata
    h = hashlib.sha256()
    for root in (REPO / "ip", REPO / "pqsoc"):
        for path in sorted(p for p in root.rglob("*") if p.is_file() and "__pycache__" not in p.parts):
            h.update(str(path.relative_to(REPO)).encode() + b"\0" + path.read_bytes() + b"\0")
    dists = sorted(f"{d.metadata['Name']}=={d.version}" for d in metadata.distributions())
    env = sorted(f"{k}={v}" for k, v in os.environ.items() if k.startswith("AMARANTH"))
    h.update("\n".join([sys.version, *dists, *env]).encode())
    return h.hexdigest()


BLOCKS: dict[str, Block] = {}


def register(block: Block) -> Block:
    BLOCKS[block.name] = block
    return block


def get(name: str) -> Block:
    if name not in BLOCKS:
        raise FlowError(f"unknown block {name!r}; known blocks: {', '.join(sorted(BLOCKS)) or 'none registered'}")
    return BLOCKS[name]
