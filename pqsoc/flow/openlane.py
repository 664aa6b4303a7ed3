# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""OpenLane 2 configurations (pnr/<block>/config.json), written from the block's declaration.

The clock, the design name, the Verilog the flow emits and the cells synthesis may not use come
from the Block (one source: `pqsoc synth`/`sta` and OpenLane see the same period and exclusion
list); the floorplan knobs are the defaults below, overridden per block by `Block.openlane`.
`pqsoc pnr-config` writes the files; tests/test_openlane.py checks the committed ones against it.
"""
import functools
import json
import os
import re
from pathlib import Path

from pqsoc import REPO, FlowError, write_if_changed
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
    extra = block.openlane() if callable(block.openlane) else block.openlane
    cfg = {
        "meta": {"version": 2, "flow": "Classic"},
        "DESIGN_NAME": block.top,
        "VERILOG_FILES": _dir_rel(block.rtl_dir() / f"{block.top}.v", folder),
        "CLOCK_PORT": block.clock,
        "CLOCK_PERIOD": block.period_ns,
    }
    cfg.update(DEFAULTS)
    cfg["SYNTH_EXCLUDED_CELL_FILE"] = _dir_rel(SYNTH_EXCLUDE_CELLS, folder)
    cfg.update(extra)
    if cfg["FP_SIZING"] == "absolute":     # a given die: no utilisation target
        del cfg["FP_CORE_UTIL"]
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
KEY_VARIABLES = ("DESIGN_NAME", "CLOCK_PERIOD", "CLOCK_PORT", "FP_SIZING", "FP_CORE_UTIL", "PDK", "STD_CELL_LIBRARY")


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


@functools.lru_cache(maxsize=1)
def _librelane_variables() -> dict:
    """Every variable of LibreLane's Classic flow by its name and by each deprecated name."""
    from librelane.config import flow as lflow
    from librelane.flows import Flow
    classic = Flow.factory.get("Classic")
    out = {}
    for v in [*lflow.flow_common_variables, *lflow.pdk_variables, *lflow.scl_variables,
              *lflow.option_variables, *classic.config_vars, *(v for s in classic.Steps for v in s.config_vars)]:
        out.setdefault(v.name, v)
        for old in v.deprecated_names:
            out.setdefault(old[0] if isinstance(old, tuple) else old, v)
    return out


def librelane_variable(name: str):
    """LibreLane's Variable for a (possibly OpenLane 1) name; None when LibreLane has none."""
    return _librelane_variables().get(name)


def typed(var, value):
    """A value read from a Tcl file (numbers as float) in the JSON form of var's type."""
    if var.type is bool:
        return bool(value)
    if isinstance(value, float) and value.is_integer():   # 180.0 -> 180, as Caravel writes it
        return int(value)
    return value


def _shown(path: Path) -> Path:
    return path.relative_to(REPO) if path.is_relative_to(REPO) else path


def prepare(block: Block) -> list[str]:
    """The build files the configuration names: the emitted Verilog (when missing) and whatever
    the block's openlane_inputs makes (LibreLane's loader checks that every path exists).
    Returns the problems openlane_inputs found."""
    if not (block.rtl_dir() / f"{block.top}.v").is_file():
        block.emit_rtl()
    return block.openlane_inputs() if block.openlane_inputs is not None else []


# Files a configuration names that cannot exist before `make harden` (another block's hardened
# views, collected into the Caravel submission's folders) or that the PDK in use lacks (the 2021
# subset has no SRAM GDS): the loader check stands in an empty file for each and says so.
HARDEN_VIEW_DIRS = ("gds", "lef", "verilog/gl", "lib", "spef")


def pending_reason(path: Path, pdk_roots: tuple[Path, ...]) -> str | None:
    """Why a missing path may be missing at check time, or None (then it is an error)."""
    path = Path(os.path.abspath(path))
    for d in HARDEN_VIEW_DIRS:
        if path.is_relative_to(REPO / d):
            return f"made by `make harden` ({path.relative_to(REPO)})"
    for root in pdk_roots:
        if path.is_relative_to(Path(os.path.abspath(root))):
            return f"not in the PDK in use, {pdk_roots[-1]} (a full {PDK_NAME} install has it)"
    return None


def _paths_missing(errors: list[str]) -> tuple[list[str], list[Path]]:
    """LibreLane's errors split into (other errors, paths it says do not exist)."""
    other, missing = [], []
    for e in errors:
        m = re.search(r"'([^']+)' does not exist", e)
        (missing.append(Path(m.group(1))) if m else other.append(e))
    return other, missing


def _rerooted(value, folder: Path, new_folder: Path, pdk_dir: Path, stand_ins: dict):
    """value with `dir::` paths made relative to new_folder and the paths in stand_ins
    (resolved path -> stand-in file) replaced by their stand-in."""
    if isinstance(value, dict):
        return {k: _rerooted(v, folder, new_folder, pdk_dir, stand_ins) for k, v in value.items()}
    if isinstance(value, list):
        return [_rerooted(v, folder, new_folder, pdk_dir, stand_ins) for v in value]
    if isinstance(value, str) and value.startswith(("dir::", "pdk_dir::")):
        dir_form = value.startswith("dir::")
        rest = value.split("::", 1)[1]
        target = Path(os.path.abspath((folder if dir_form else pdk_dir) / rest))
        if target in stand_ins:
            return str(stand_ins[target])
        return "dir::" + os.path.relpath(target, new_folder) if dir_form else value
    return value


def check(block: Block, pdk_root: Path, real_pdk_root: Path | None = None) -> dict:
    """`pqsoc pnr check` for one block: the committed file is the generated one, and LibreLane
    loads it. A file the loader misses that only `make harden` or a full PDK gives
    (pending_reason) is stood in by an empty file in build/pnr_check/<block>/ and listed; any
    other refusal is an error. Returns {'variables': n, 'stand_ins': [(path, reason)], 'config_file':
    the file LibreLane loaded (the committed one, or its copy with the stand-ins), KEY_VARIABLES...}."""
    from librelane.config import InvalidConfig
    from librelane.flows import Flow
    from pqsoc import BUILD
    path = config_path(block)
    if not path.is_file():
        raise FlowError(f"{block.name}: no OpenLane config {_shown(path)}: run `pqsoc pnr-config {block.name}`")
    if block.openlane_check is not None:
        try:
            committed = json.loads(path.read_text())
        except ValueError as e:
            raise FlowError(f"{block.name}: {_shown(path)} is not JSON: {e}") from None
        if errors := block.openlane_check(committed):
            raise FlowError(f"{block.name}: {_shown(path)} does not match its floorplan and RTL:\n  "
                            + "\n  ".join(errors))
    if path.read_text() != render(block):
        raise FlowError(f"{block.name}: {_shown(path)} differs from the block's declaration: "
                        f"run `pqsoc pnr-config {block.name}`")
    roots = tuple(r for r in (pdk_root, real_pdk_root) if r is not None)
    work = BUILD / "pnr_check" / block.name
    data = json.loads(path.read_text())
    reasons: dict[Path, str] = {}
    stand_ins: dict[Path, Path] = {}
    target = path
    # LibreLane names one missing file of a macro at a time: stand in and load again until the
    # only refusals left, if any, are real ones
    for _ in range(200):
        try:
            cfg = Flow.factory.get("Classic")(str(target), pdk_root=str(pdk_root), pdk=PDK_NAME,
                                              scl=SCL_NAME).config
            break
        except InvalidConfig as e:
            other, missing = _paths_missing(list(e.errors))
        new = {Path(os.path.abspath(p)): pending_reason(p, roots) for p in missing}
        other += [f"'{p}' does not exist" for p, r in new.items() if r is None or p in stand_ins.values()]
        if other or not new:
            raise FlowError(f"{block.name}: LibreLane refuses {_shown(path)}:\n  " + "\n  ".join(other))
        (work / "stand_in").mkdir(parents=True, exist_ok=True)
        for p, why in new.items():
            reasons[p] = why
            stand_ins[p] = work / "stand_in" / f"{len(stand_ins)}_{p.name}"
            stand_ins[p].write_text("")
        target = work / "config.json"
        target.write_text(json.dumps(_rerooted(data, path.parent, work, pdk_root / PDK_NAME, stand_ins), indent=1))
    else:
        raise FlowError(f"{block.name}: more than 200 rounds of missing files in {_shown(path)}")
    return {"variables": len(cfg), "stand_ins": [(str(p), r) for p, r in sorted(reasons.items())],
            "config_file": target, "config": cfg, **{k: cfg.get(k) for k in KEY_VARIABLES}}


def macro_errors(cfg: dict, placements: dict[str, tuple[float, float, str]], instances: list[str]) -> list[str]:
    """A configuration's macros against the floorplan (instance -> (x, y, orientation)) and the
    RTL's macro instances: each instance must be in `MACROS` at its floorplan place and be matched
    by exactly one `PDN_MACRO_CONNECTIONS` entry; each entry must match an instance."""
    errors = []
    placed = {}
    for cell, m in (cfg.get("MACROS") or {}).items():
        for name, inst in (m.get("instances") or {}).items():
            placed[name] = (cell, inst)
    for name in instances:
        if name not in placed:
            errors.append(f"macro instance {name} is not in MACROS")
    for name, (cell, inst) in placed.items():
        if name not in placements:
            errors.append(f"MACROS {cell} instance {name} is not in the floorplan")
            continue
        x, y, orient = placements[name]
        loc = inst.get("location") or []
        if len(loc) != 2 or abs(float(loc[0]) - x) > 1e-6 or abs(float(loc[1]) - y) > 1e-6 \
                or inst.get("orientation") != orient:
            errors.append(f"MACROS {cell} instance {name} at {loc} {inst.get('orientation')}; "
                          f"the floorplan has [{x}, {y}] {orient}")
    entries = [e.split()[0] for e in cfg.get("PDN_MACRO_CONNECTIONS") or []]
    for name in instances:
        n = sum(bool(re.fullmatch(rx, name)) for rx in entries)
        if n != 1:
            errors.append(f"macro instance {name} matches {n} PDN_MACRO_CONNECTIONS entries, not one")
    for rx in entries:
        if not any(re.fullmatch(rx, name) for name in instances):
            errors.append(f"PDN_MACRO_CONNECTIONS entry {rx} matches no macro instance")
    return errors


# --- a checked floorplan as OpenLane variables --------------------------------------------------
def floorplan_variables(fp, views: dict, power: tuple[str, str] = ("vccd1", "vssd1")) -> dict:
    """The OpenLane 2 / LibreLane variables that place a checked floorplan (pqsoc/flow/floorplan.py)
    as it is: absolute die and core, every macro instance's location (lower-left corner of the
    placed macro, um) and orientation (`MACROS`, grouped by cell with its views: cell -> {'gds':
    [...], 'lef': [...], ...} as LibreLane's Macro takes them), one `PDN_MACRO_CONNECTIONS` entry per instance (its vdd/gnd pins
    on the grid's first power pair), and the halos the floorplan was checked with."""
    macros: dict = {}
    for name, p in sorted(fp.placements.items()):
        m = fp.macros[name]
        cell = m.abstract.cell
        if cell not in views:
            raise FlowError(f"no GDS / LEF given for macro cell {cell} (instance {name})")
        entry = macros.setdefault(cell, {**json.loads(json.dumps(views[cell])), "instances": {}})
        entry["instances"][name] = {"location": [p.x, p.y], "orientation": p.orient}
    # LibreLane cuts rows with one halo per direction (cut_rows.tcl -halo_width_x / _y)
    halos = {(m.halo_on("E"), m.halo) for m in fp.macros.values()}
    if len(halos) != 1:
        raise FlowError(f"OpenLane has one macro halo per direction; the floorplan has {sorted(halos)}")
    halo_x, halo_y = halos.pop()
    vdd, gnd = power
    return {
        "FP_SIZING": "absolute",
        "DIE_AREA": fp.die.as_list(),
        "CORE_AREA": fp.core.as_list(),
        "MACROS": macros,
        "PDN_MACRO_CONNECTIONS": [f"{re.escape(n)} {vdd} {gnd} {vdd} {gnd}" for n in sorted(fp.placements)],
        "FP_MACRO_HORIZONTAL_HALO": halo_x,
        "FP_MACRO_VERTICAL_HALO": halo_y,
    }


# --- a macro's port-only Verilog header (LibreLane's `vh` view) ------------------------------------
# LibreLane's Verilator.Lint and Yosys steps know a macro only through its Verilog views (`vh`,
# `pnl`, `nl`); one with gds / lef / lib alone is an unresolved module and stops the lint. The
# OpenRAM models in the PDK are behavioural (delays, $display), so the view given is a header
# with the model's ports and nothing else, made from the PDK's model by Yosys itself.
POWER_PINS = ("vccd1", "vssd1")


def blackbox_header(model: Path, cell: str, power_pins=POWER_PINS) -> str:
    """A port-only `(* blackbox *)` module of cell from its Verilog model (read by Yosys with
    `-lib`: parameters resolved to the port widths); the power pins under `USE_POWER_PINS`."""
    import subprocess
    import sys
    import tempfile
    with tempfile.TemporaryDirectory() as tmp:
        out, script = Path(tmp) / "bb.v", Path(tmp) / "bb.ys"
        script.write_text(f"read_verilog -sv -lib {model}\nwrite_verilog -noattr -blackboxes {out}\n")
        r = subprocess.run([sys.executable, "-m", "pqsoc.flow.yosys_run", str(script)],
                           capture_output=True, text=True, timeout=300)
        if r.returncode != 0 or "@@done" not in r.stdout:
            raise FlowError(f"Yosys could not read {model}: {(r.stdout + r.stderr)[-800:]}")
        text = out.read_text()
    ports = module_ports(text, cell)
    if not ports:
        raise FlowError(f"{model} has no module {cell} with ports")
    lines = [f"// {cell}: ports only (pqsoc/flow/openlane.py blackbox_header, from the PDK's model",
             f"// {model.name}); LibreLane's `vh` view for lint and synthesis",
             "(* blackbox *)", f"module {cell} ("]
    power = [p for p in power_pins if p not in ports]
    if power:
        lines += ["`ifdef USE_POWER_PINS", *[f"    inout {p}," for p in power], "`endif"]
    body = [f"    {decl} {name}" for name, decl in ports.items()]
    lines += [",\n".join(body), ");", "endmodule", ""]
    return "\n".join(lines)


def module_ports(verilog: str, module: str) -> dict[str, str]:
    """A module's ports in order with their direction and range, e.g. {'bus__adr': 'input [15:0]'}
    (Verilog as Amaranth and Yosys write it: one declaration a line)."""
    for m in re.finditer(r"^module\s+(\\\S+|\w+)\s*\(.*?\);(.*?)^endmodule", verilog, re.S | re.M):
        if m.group(1).lstrip("\\") == module:
            return {name.lstrip("\\"): f"{d}{(' ' + r) if r else ''}" for d, r, name in
                    re.findall(r"^\s*(input|output|inout)\s+(?:wire\s+|reg\s+)?(\[[^\]]+\])?\s*(\\?\S+)\s*;",
                               m.group(2), re.M)}
    raise FlowError(f"module {module} not in the Verilog")


def macro_header_path(cell: str) -> Path:
    from pqsoc import BUILD
    return BUILD / "pnr" / "macros" / f"{cell}.vh"


def write_macro_header(cell: str, model: Path) -> Path:
    """The header of cell at macro_header_path (rewritten only when it changes)."""
    path = macro_header_path(cell)
    text = blackbox_header(model, cell)
    path.parent.mkdir(parents=True, exist_ok=True)
    write_if_changed(path, text)
    return path
