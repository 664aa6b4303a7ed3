"""OpenLane 2 configurations (pnr/<block>/config.json), written from the block's declaration.

The clock, the design name, the Verilog the flow emits and the cells synthesis may not use come
from the Block (one source: `pqsoc synth`/`sta` and OpenLane see the same period and exclusion
list); the floorplan knobs are the defaults below, overridden per block by `Block.openlane`.
`pqsoc pnr-config` writes the files; tests/test_openlane.py checks the committed ones against it.
"""
import json
import os
import re
from pathlib import Path

from pqsoc import REPO, FlowError
from pqsoc.flow.block import Block
from pqsoc.flow.pdk import PDK as PDK_NAME, SCL as SCL_NAME
from pqsoc.flow.synth import SYNTH_EXCLUDE_CELLS

PNR = REPO / "pnr"

# A relative floorplan at 45 % utilisation and 55 % placement density: room for the fanout
# buffers, taps and routing that the pre-layout area (reports/ppa.json) does not hold.
DEFAULTS = {
    "FP_SIZING": "relative",
    "FP_CORE_UTIL": 45,
    "PL_TARGET_DENSITY_PCT": 55,
    "SYNTH_STRATEGY": "DELAY 1",
    "MAX_FANOUT_CONSTRAINT": 16,          # as the flow's fanout repair (pqsoc/flow/fanout.py)
    "RUN_HEURISTIC_DIODE_INSERTION": True,
}


def config_path(block: Block) -> Path:
    return PNR / block.name / "config.json"


def _dir_rel(path: Path, folder: Path) -> str:
    """OpenLane's `dir::` form of a path relative to the config's folder."""
    return "dir::" + os.path.relpath(path, folder)


def config(block: Block) -> dict:
    """The OpenLane 2 configuration of a block that has one (Block.openlane is not None)."""
    if block.openlane is None:
        raise FlowError(f"block {block.name} has no OpenLane configuration (Block.openlane)")
    folder = config_path(block).parent
    cfg = {
        "meta": {"version": 2, "flow": "Classic"},
        "DESIGN_NAME": block.top,
        "VERILOG_FILES": _dir_rel(block.rtl_dir() / f"{block.top}.v", folder),
        "CLOCK_PORT": block.clock,
        "CLOCK_PERIOD": block.period_ns,
    }
    cfg.update(DEFAULTS)
    cfg["SYNTH_EXCLUDED_CELL_FILE"] = _dir_rel(SYNTH_EXCLUDE_CELLS, folder)
    cfg.update(block.openlane)
    return cfg


def render(block: Block) -> str:
    return json.dumps(config(block), indent=2) + "\n"


def write(block: Block) -> Path:
    path = config_path(block)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(render(block))
    return path


# --- `pqsoc pnr check`: the configurations as LibreLane's own loader resolves them -------------
# LibreLane (PyPI `librelane`, OpenLane 2's continuation) is the flow ChipFoundry runs for the
# Caravel shuttles; its Classic flow's config loader checks every variable's name, type and paths
# against the PDK's configuration. Nothing here runs a step of the flow (no OpenROAD needed).
KEY_VARIABLES = ("DESIGN_NAME", "CLOCK_PERIOD", "CLOCK_PORT", "FP_CORE_UTIL", "PDK", "STD_CELL_LIBRARY")


def loader_pdk_root(pdk_root: Path) -> tuple[Path, str | None]:
    """The PDK root LibreLane is given: pdk_root when LibreLane accepts its PDK configuration,
    else (an OpenLane 1 era PDK such as the 2021 subset) the overlay, made when missing or stale.
    Returns (root, None) or (overlay root, 'generated' / 'up to date'). A PDK that LibreLane
    refuses and that is not of that old kind is an error: it is not patched."""
    from pqsoc.flow import pdk_overlay
    errors = _pdk_errors(pdk_root)
    if not errors:
        return pdk_root, None
    if not pdk_overlay.is_old_openlane_pdk(pdk_root):
        raise FlowError(f"LibreLane refuses the PDK at {pdk_root}:\n  " + "\n  ".join(errors))
    root, state = pdk_overlay.loader_pdk_root(pdk_root)
    errors = _pdk_errors(root)
    if errors:
        raise FlowError(f"LibreLane refuses the PDK overlay {root}:\n  " + "\n  ".join(errors))
    return root, state


def _pdk_errors(pdk_root: Path) -> list[str]:
    """LibreLane's errors about the PDK's own configuration (none: it accepts it)."""
    from librelane.config import InvalidConfig
    from librelane.flows import Flow
    probe = {"meta": {"version": 2}, "DESIGN_NAME": "pdk_probe", "VERILOG_FILES": [],
             "CLOCK_PORT": "clk", "CLOCK_PERIOD": 10}
    try:   # the PDK's configuration is checked before the design's
        Flow.factory.get("Classic")(probe, design_dir=str(pdk_root), pdk=PDK_NAME,
                                    pdk_root=str(pdk_root), scl=SCL_NAME)
    except InvalidConfig as e:
        if "PDK" in e.config:
            return list(e.errors)
    return []


def load(block: Block, pdk_root: Path, path: Path | None = None):
    """The block's configuration (its committed file, or path) as LibreLane's Classic flow
    resolves it with the PDK at pdk_root: a librelane Config. FlowError names the variables."""
    from librelane.config import InvalidConfig
    from librelane.flows import Flow
    path = path or config_path(block)
    classic = Flow.factory.get("Classic")
    try:
        flow = classic(str(path), pdk_root=str(pdk_root), pdk=PDK_NAME, scl=SCL_NAME)
    except InvalidConfig as e:
        raise FlowError(f"{block.name}: LibreLane refuses {_shown(path)}:\n  " + "\n  ".join(e.errors)) from None
    return flow.config


def _shown(path: Path) -> Path:
    return path.relative_to(REPO) if path.is_relative_to(REPO) else path


def check(block: Block, pdk_root: Path) -> dict:
    """`pqsoc pnr check` for one block: the committed file is the generated one, and LibreLane
    loads it. Returns {'variables': n, KEY_VARIABLES...}."""
    path = config_path(block)
    if not path.is_file():
        raise FlowError(f"{block.name}: no OpenLane config {_shown(path)}: run `pqsoc pnr-config {block.name}`")
    if path.read_text() != render(block):
        raise FlowError(f"{block.name}: {_shown(path)} differs from the block's declaration: "
                        f"run `pqsoc pnr-config {block.name}`")
    cfg = load(block, pdk_root, path)
    return {"variables": len(cfg), **{k: cfg.get(k) for k in KEY_VARIABLES}}


# --- a checked floorplan as OpenLane variables --------------------------------------------------
def floorplan_variables(fp, views: dict, power: tuple[str, str] = ("vccd1", "vssd1")) -> dict:
    """The OpenLane 2 / LibreLane variables that place a checked floorplan (pqsoc/flow/floorplan.py)
    as it is: absolute die and core, every macro instance's location (lower-left corner of the
    placed macro, um) and orientation (`MACROS`, grouped by cell with its views: cell -> {'gds':
    [...], 'lef': [...]}), one `PDN_MACRO_CONNECTIONS` entry per instance (its vdd/gnd pins
    on the grid's first power pair), and the halos the floorplan was checked with."""
    macros: dict = {}
    for name, p in sorted(fp.placements.items()):
        m = fp.macros[name]
        cell = m.abstract.cell
        if cell not in views:
            raise FlowError(f"no GDS / LEF given for macro cell {cell} (instance {name})")
        entry = macros.setdefault(cell, {"gds": list(views[cell]["gds"]), "lef": list(views[cell]["lef"]),
                                         "instances": {}})
        entry["instances"][name] = {"location": [p.x, p.y], "orientation": p.orient}
    halos = {m.halo for m in fp.macros.values()}
    if len(halos) != 1:
        raise FlowError(f"OpenLane has one macro halo; the floorplan has {sorted(halos)}")
    halo = halos.pop()
    vdd, gnd = power
    return {
        "FP_SIZING": "absolute",
        "DIE_AREA": fp.die.as_list(),
        "CORE_AREA": fp.core.as_list(),
        "MACROS": macros,
        "PDN_MACRO_CONNECTIONS": [f"{re.escape(n)} {vdd} {gnd} {vdd} {gnd}" for n in sorted(fp.placements)],
        "FP_MACRO_HORIZONTAL_HALO": halo,
        "FP_MACRO_VERTICAL_HALO": halo,
    }
