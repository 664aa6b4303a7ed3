# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""Caravel's user_project_wrapper as the floorplan sees it, read from ChipFoundry's fixed files.

`CARAVEL_ROOT` points at a caravel_user_project checkout (CI: ../shared/caravel); nothing of it
is copied into the repository. Read here: the die (fixed_wrapper_cfgs.tcl DIE_AREA), the core
area and placement grid (the golden wrapper DEF's ROWs), the power grid (strap width, spacing,
pitch, offset and the power nets from the two wrapper .tcl files), the core ring and the top
routing layer (the example wrapper's config.json).
"""
import ast
import json
import operator
import os
import re
from dataclasses import dataclass
from pathlib import Path

from pqsoc import FlowError

WRAPPER_DIR = Path("openlane") / "user_project_wrapper"
FIXED_CFG = WRAPPER_DIR / "fixed_dont_change" / "fixed_wrapper_cfgs.tcl"
DEFAULT_CFG = WRAPPER_DIR / "fixed_dont_change" / "default_wrapper_cfgs.tcl"
GOLDEN_DEF = WRAPPER_DIR / "fixed_dont_change" / "user_project_wrapper.def"
EXAMPLE_CONFIG = WRAPPER_DIR / "config.json"
WRAPPER_LEF = Path("lef") / "user_project_wrapper.lef"


def caravel_root() -> Path:
    env = os.environ.get("CARAVEL_ROOT")
    if not env:
        raise FlowError("CARAVEL_ROOT is not set: point it at a caravel_user_project checkout "
                        "(CI uses CARAVEL_ROOT=../shared/caravel)")
    root = Path(env).expanduser().resolve()
    if not (root / FIXED_CFG).is_file():
        raise FlowError(f"CARAVEL_ROOT={env} does not hold {FIXED_CFG}: not a caravel_user_project checkout")
    return root


# --- the wrapper's Tcl settings: `set ::env(NAME) value` with $::env(X), $::unit and [expr ...] --
_ARITH = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv}


def _arith(text: str) -> float:
    """An arithmetic expression of numbers and + - * / (what the wrapper's [expr] uses)."""
    def ev(node):
        if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)):
            return node.value
        if isinstance(node, ast.BinOp) and type(node.op) in _ARITH:
            return _ARITH[type(node.op)](ev(node.left), ev(node.right))
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            return -ev(node.operand)
        raise FlowError(f"unsupported expression in a Caravel .tcl file: {text!r}")
    return ev(ast.parse(text, mode="eval").body)


def read_tcl_env(paths: list[Path]) -> dict:
    """The `::env` settings of the wrapper's .tcl files, in order (a later file overrides):
    numbers as float, `[list {a} {b}]` as a list of str, anything else as str."""
    env: dict = {}
    scalars: dict = {}

    def subst(text: str, strict: bool) -> str:
        def var(m):
            name = m.group(1) or m.group(2)
            table = env if m.group(1) else scalars
            if name not in table:
                if strict:   # a number we need cannot be computed
                    raise FlowError(f"Caravel .tcl: ${name} used before it is set")
                return m.group(0)   # a path such as $::env(DESIGN_DIR)/...: left as written
            return str(table[name])
        return re.sub(r"\$::env\((\w+)\)|\$::(\w+)", var, text)

    def value(raw: str):
        raw = raw.strip()
        if m := re.fullmatch(r"\[expr\s+(.*)\]", raw):
            return _arith(subst(m.group(1), strict=True))
        if m := re.fullmatch(r"\[list\s+(.*)\]", raw):
            return re.findall(r"\{([^}]*)\}", m.group(1))
        raw = subst(raw.strip('"'), strict=False)
        try:
            return float(raw)
        except ValueError:
            return raw
    for path in paths:
        for line in path.read_text().splitlines():
            line = line.strip()
            if m := re.match(r"set\s+::env\((\w+)\)\s+(.*)$", line):
                env[m.group(1)] = value(m.group(2))
            elif m := re.match(r"set\s+::(\w+)\s+(.*)$", line):
                scalars[m.group(1)] = value(m.group(2))
    return env


@dataclass(frozen=True)
class StrapSet:
    """Straps of one direction: net k's (k in `nets` order) first strap centre is at
    origin + offset + k * (width + spacing), then every `pitch` up to `end`."""
    layer: str
    width: float
    spacing: float
    pitch: float
    offset: float
    origin: float      # the core area's edge the offset counts from
    end: float         # the core area's far edge


@dataclass(frozen=True)
class Pdn:
    nets: tuple[str, ...]             # vdd1, gnd1, vdd2, gnd2, ... (the order the straps repeat in)
    vertical: StrapSet                # met4
    horizontal: StrapSet              # met5
    ring_width: float
    ring_offset: float
    ring_spacing: float

    def strap_centres(self, net: str, direction: str) -> list[float]:
        s = self.vertical if direction == "v" else self.horizontal
        k = self.nets.index(net)
        first = s.origin + s.offset + k * (s.width + s.spacing)
        out, c = [], first
        while c + s.width / 2 <= s.end + 1e-9:
            out.append(round(c, 4))
            c += s.pitch
        return out


@dataclass(frozen=True)
class Wrapper:
    die: tuple[float, float, float, float]
    core: tuple[float, float, float, float]   # the golden DEF's rows: where standard cells go
    site_w: float
    row_h: float
    pdn: Pdn
    rt_max_layer: str
    sources: dict


def read_rows(def_path: Path) -> tuple[tuple[float, float, float, float], float, float]:
    """Core area (x0, y0, x1, y1 um), site width and row height from a DEF's ROW statements."""
    text = def_path.read_text()
    m = re.search(r"^UNITS DISTANCE MICRONS (\d+)", text, re.M)
    if not m:
        raise FlowError(f"{def_path}: no UNITS DISTANCE MICRONS")
    dbu = float(m.group(1))
    rows = [(float(x), float(y), int(n), float(step)) for x, y, n, step in
            re.findall(r"^ROW \S+ \S+ (\d+) (\d+) \S+ DO (\d+) BY 1 STEP (\d+) 0 ;", text, re.M)]
    if len(rows) < 2:
        raise FlowError(f"{def_path}: no placement rows")
    ys = sorted({r[1] for r in rows})
    row_h = (ys[1] - ys[0]) / dbu
    site_w = rows[0][3] / dbu
    x0 = min(r[0] for r in rows) / dbu
    x1 = max(r[0] + r[2] * r[3] for r in rows) / dbu
    return (x0, ys[0] / dbu, x1, ys[-1] / dbu + row_h), site_w, row_h


def read_pins(def_path: Path) -> dict[str, tuple[float, float]]:
    """Each placed PIN of a DEF by name (`wbs_adr_i[3]`) -> its point (x, y um)."""
    text = def_path.read_text()
    m = re.search(r"^UNITS DISTANCE MICRONS (\d+)", text, re.M)
    section = re.search(r"^PINS \d+ ;(.*?)^END PINS", text, re.S | re.M)
    if not m or not section:
        raise FlowError(f"{def_path}: no UNITS DISTANCE MICRONS or PINS section")
    dbu = float(m.group(1))
    out = {}
    for entry in re.split(r"^\s*-\s+", section.group(1), flags=re.M)[1:]:
        at = re.search(r"\+\s+PLACED\s+\(\s*(-?\d+)\s+(-?\d+)\s*\)", entry)
        if at:
            out[entry.split()[0].replace("\\", "")] = (int(at.group(1)) / dbu, int(at.group(2)) / dbu)
    if not out:
        raise FlowError(f"{def_path}: no placed PINS")
    return out


def wrapper(root: Path | None = None) -> Wrapper:
    root = root or caravel_root()
    fixed, default = root / FIXED_CFG, root / DEFAULT_CFG
    env = read_tcl_env([default, fixed])
    die = tuple(float(v) for v in str(env["DIE_AREA"]).split())
    if len(die) != 4:
        raise FlowError(f"{fixed}: DIE_AREA is not four numbers: {env['DIE_AREA']!r}")
    core, site_w, row_h = read_rows(root / GOLDEN_DEF)
    cfg = json.loads((root / EXAMPLE_CONFIG).read_text())
    rt_max = cfg.get("pdk::sky130*", {}).get("RT_MAX_LAYER") or cfg.get("RT_MAX_LAYER")
    if not rt_max:
        raise FlowError(f"{root / EXAMPLE_CONFIG}: no RT_MAX_LAYER for sky130")
    vdd, gnd = env["VDD_NETS"], env["GND_NETS"]
    if len(vdd) != len(gnd):
        raise FlowError(f"{fixed}: VDD_NETS and GND_NETS differ in length")
    nets = tuple(n for pair in zip(vdd, gnd) for n in pair)
    # The wrapper's PDN: vertical straps on met4, horizontal on met5 (RT_MAX_LAYER met4 leaves
    # met5 to the grid); each direction's offset counts from the core area's edge.
    pdn = Pdn(nets=nets,
              vertical=StrapSet("met4", env["FP_PDN_VWIDTH"], env["FP_PDN_VSPACING"], env["FP_PDN_VPITCH"],
                                env["FP_PDN_VOFFSET"], core[0], core[2]),
              horizontal=StrapSet("met5", env["FP_PDN_HWIDTH"], env["FP_PDN_HSPACING"], env["FP_PDN_HPITCH"],
                                  env["FP_PDN_HOFFSET"], core[1], core[3]),
              ring_width=env["FP_PDN_CORE_RING_VWIDTH"], ring_offset=env["FP_PDN_CORE_RING_VOFFSET"],
              ring_spacing=env["FP_PDN_CORE_RING_VSPACING"])
    return Wrapper(die=die, core=core, site_w=site_w, row_h=row_h, pdn=pdn, rt_max_layer=rt_max,
                   sources={"die": str(FIXED_CFG), "core_rows": str(GOLDEN_DEF),
                            "pdn": f"{DEFAULT_CFG} (pitch, offset), {FIXED_CFG} (width, spacing, ring, nets)",
                            "rt_max_layer": str(EXAMPLE_CONFIG)})


def lef_straps(root: Path, net: str) -> dict[str, list[float]]:
    """The centres of the golden wrapper LEF's `net` straps (met4 x, met5 y) inside the die, to
    check the PDN model above against ChipFoundry's own abstract."""
    text = (root / WRAPPER_LEF).read_text()
    m = re.search(rf"^\s*PIN {re.escape(net)}\n(.*?)^\s*END {re.escape(net)}", text, re.S | re.M)
    if not m:
        raise FlowError(f"{root / WRAPPER_LEF}: no pin {net}")
    out: dict[str, list[float]] = {"met4": [], "met5": []}
    for layer, rect in re.findall(r"LAYER (met[45]) ;\s*RECT ([-\d. ]+);", m.group(1)):
        x0, y0, x1, y1 = map(float, rect.split())
        if layer == "met4" and x0 >= 0 and x1 - x0 < 5:
            out["met4"].append(round((x0 + x1) / 2, 4))
        if layer == "met5" and y0 >= 0 and y1 - y0 < 5:
            out["met5"].append(round((y0 + y1) / 2, 4))
    return {k: sorted(v) for k, v in out.items()}
