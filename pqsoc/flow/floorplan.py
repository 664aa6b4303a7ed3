# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""Macro floorplans: placed by a script from the macros' abstracts, checked by a separate checker.

Knows no block by name. A floorplan is a core area on a placement grid (site width x row
height), macros (each an abstract read from its LEF, or made for a block still to be hardened),
their placements (x, y, orientation), the standard-cell rows left where no macro or halo is,
the logic area those rows must hold, and the power straps the macros' power pins must meet.

- `read_lef`: a macro's size, signal pins (layer, edge) and power pins from its LEF;
- `place_shelves`: a placer: macros in shelves from one edge of the core, each pin edge facing
  a routing channel, the space left over spread over the channels, on the grid;
- `cell_rows`: the standard-cell rows where no macro or halo is;
- `check`: the checker, independent of the placer: inside the core, no overlap (halos
  included), on grid, N/S/FN/FS only, every pin edge facing a channel, every macro's power pins
  crossed by a strap of its net, rows clear of macros and halos, utilisation of the rows;
- `plot`: the picture.
"""
import math
import re
from dataclasses import dataclass, field, replace
from pathlib import Path

from pqsoc import FlowError

EDGES = ("W", "E", "S", "N")
ORIENTATIONS = ("N", "S", "FN", "FS")       # what OpenLane places macros in without rotation
# where an abstract's edge ends up in each allowed orientation
_EDGE_AFTER = {"N": {"W": "W", "E": "E", "S": "S", "N": "N"},
               "S": {"W": "E", "E": "W", "S": "N", "N": "S"},
               "FN": {"W": "E", "E": "W", "S": "S", "N": "N"},
               "FS": {"W": "W", "E": "E", "S": "N", "N": "S"}}
_ROTATED = ("R90", "R270", "E", "W", "FE", "FW")   # refused; their footprint is w and h swapped
EPS = 1e-6


@dataclass(frozen=True)
class Rect:
    x0: float
    y0: float
    x1: float
    y1: float

    @property
    def w(self) -> float:
        return self.x1 - self.x0

    @property
    def h(self) -> float:
        return self.y1 - self.y0

    @property
    def area(self) -> float:
        return self.w * self.h

    def inflate(self, d: float, dy: float | None = None) -> "Rect":
        """Grown by d on the west and east sides and dy (default d) on the south and north."""
        dy = d if dy is None else dy
        return Rect(self.x0 - d, self.y0 - dy, self.x1 + d, self.y1 + dy)

    def overlaps(self, o: "Rect") -> bool:
        """A common area (touching edges do not count)."""
        return (min(self.x1, o.x1) - max(self.x0, o.x0) > EPS
                and min(self.y1, o.y1) - max(self.y0, o.y0) > EPS)

    def contains(self, o: "Rect") -> bool:
        return (o.x0 >= self.x0 - EPS and o.y0 >= self.y0 - EPS
                and o.x1 <= self.x1 + EPS and o.y1 <= self.y1 + EPS)

    def as_list(self) -> list[float]:
        return [round(v, 4) for v in (self.x0, self.y0, self.x1, self.y1)]


@dataclass(frozen=True)
class Pin:
    name: str
    layer: str
    rect: Rect


@dataclass(frozen=True)
class Abstract:
    """What the floorplan needs of a macro: its size, signal pins and power pins."""
    cell: str
    w: float
    h: float
    pins: tuple[Pin, ...]
    power: tuple[Pin, ...]      # name = the net (vccd1, vssd1, ...)
    source: str

    def edge_of(self, r: Rect) -> str | None:
        for edge, touches in (("W", r.x0 <= EPS), ("E", r.x1 >= self.w - 1e-3),
                              ("S", r.y0 <= EPS), ("N", r.y1 >= self.h - 1e-3)):
            if touches:
                return edge
        return None

    def edge_pins(self) -> dict[str, dict[str, int]]:
        """edge -> {layer: number of pins} of the signal pins on the macro's boundary."""
        out: dict[str, dict[str, int]] = {}
        for p in self.pins:
            e = self.edge_of(p.rect)
            if e:
                out.setdefault(e, {}).setdefault(p.layer, 0)
                out[e][p.layer] += 1
        return out


def read_lef(path: Path, cell: str | None = None) -> Abstract:
    """A macro's abstract from its LEF (the first MACRO, or `cell`): SIZE, every PIN's PORT
    rectangles (signal pins; USE POWER / GROUND pins as power pins)."""
    text = path.read_text()
    macros = re.findall(r"^\s*MACRO\s+(\S+)(.*?)^\s*END\s+\1\b", text, re.S | re.M)
    if not macros:
        raise FlowError(f"{path}: no MACRO")
    found = [m for m in macros if cell in (None, m[0])]
    if not found:
        raise FlowError(f"{path}: no MACRO {cell}")
    name, body = found[0]
    size = re.search(r"^\s*SIZE\s+([\d.]+)\s+BY\s+([\d.]+)", body, re.M)
    if not size:
        raise FlowError(f"{path}: MACRO {name} has no SIZE")
    pins, power = [], []
    for pname, pbody in re.findall(r"^\s*PIN\s+(\S+)(.*?)^\s*END\s+(?:\1)\s*$", body, re.S | re.M):
        use = re.search(r"USE (\w+)", pbody)
        is_power = use is not None and use.group(1) in ("POWER", "GROUND")
        layer = None
        for kind, arg in re.findall(r"(LAYER|RECT)\s+([^;]*);", pbody):
            if kind == "LAYER":
                layer = arg.strip()
            else:
                x0, y0, x1, y1 = map(float, arg.split()[-4:])
                (power if is_power else pins).append(Pin(pname, layer, Rect(x0, y0, x1, y1)))
    return Abstract(name, float(size.group(1)), float(size.group(2)), tuple(pins), tuple(power), str(path))


def block_abstract(cell: str, w: float, h: float, pin_edges: dict[str, tuple[str, int]],
                   power_nets: tuple[str, str], strap_layer: str, strap_width: float,
                   strap_pitch: float, strap_offset: float, strap_spacing: float,
                   source: str) -> Abstract:
    """The abstract of a block still to be hardened: w x h, `count` pins of `layer` spread along
    each edge of pin_edges (edge -> (layer, count)), and its power grid's straps on strap_layer
    as power pins (vertical, the full height; vdd at offset + k * pitch, gnd width + spacing
    further), as an OpenLane macro without core ring exposes them."""
    pins = []
    for edge, (layer, count) in pin_edges.items():
        along = w if edge in ("S", "N") else h
        for k in range(count):
            c = along * (k + 1) / (count + 1)
            r = {"S": Rect(c - 0.1, 0, c + 0.1, 1), "N": Rect(c - 0.1, h - 1, c + 0.1, h),
                 "W": Rect(0, c - 0.1, 1, c + 0.1), "E": Rect(w - 1, c - 0.1, w, c + 0.1)}[edge]
            pins.append(Pin(f"{edge.lower()}{k}", layer, r))
    power = []
    for k, net in enumerate(power_nets):
        x = strap_offset + k * (strap_width + strap_spacing)
        while x + strap_width / 2 <= w:
            power.append(Pin(net, strap_layer, Rect(x - strap_width / 2, 0, x + strap_width / 2, h)))
            x += strap_pitch
    return Abstract(cell, w, h, tuple(pins), tuple(power), source)


@dataclass(frozen=True)
class Macro:
    """One macro instance to place."""
    name: str                 # instance name
    abstract: Abstract
    halo: float               # no standard cell closer than this to the macro (south, north)
    # the routing channel (body to body) each pin edge of the abstract needs in front of it
    channel: dict             # abstract edge -> um (channel_widths)
    face: str | None = None   # the abstract's edge that should face the open cell region
    # the halo on the west and east sides when it differs (LibreLane's FP_MACRO_HORIZONTAL_HALO
    # against FP_MACRO_VERTICAL_HALO)
    halo_x: float | None = None

    def keepout(self, body: "Rect") -> "Rect":
        """The placed body with its halos: no cell row inside."""
        return body.inflate(self.halo if self.halo_x is None else self.halo_x, self.halo)

    def halo_on(self, placed_edge: str) -> float:
        return self.halo if placed_edge in ("S", "N") or self.halo_x is None else self.halo_x

    def need(self, orient: str, placed_edge: str) -> float:
        """The channel the placed edge asks for (0 without pins). Every allowed orientation maps
        edges by an involution, so the abstract's edge is the same map applied again."""
        return self.channel.get(_EDGE_AFTER[orient][placed_edge], 0.0)


@dataclass(frozen=True)
class Placement:
    name: str
    x: float
    y: float
    orient: str

    def rect(self, a: Abstract) -> Rect:
        w, h = (a.h, a.w) if self.orient in _ROTATED else (a.w, a.h)
        return Rect(self.x, self.y, self.x + w, self.y + h)

    def transform(self, a: Abstract, r: Rect) -> Rect:
        """A rectangle of the abstract in placed coordinates (allowed orientations only)."""
        fx = self.orient in ("S", "FN")
        fy = self.orient in ("S", "FS")
        x0, x1 = (a.w - r.x1, a.w - r.x0) if fx else (r.x0, r.x1)
        y0, y1 = (a.h - r.y1, a.h - r.y0) if fy else (r.y0, r.y1)
        return Rect(self.x + x0, self.y + y0, self.x + x1, self.y + y1)


def channel_widths(a: Abstract, routing: dict[str, tuple[str, float]], max_layer: str,
                   track_use: float, minimum: float, min_layer: str = "met1") -> dict[str, float]:
    """The channel each pin edge of `a` needs: its pins leave the edge and run along it, on the
    routing layers min_layer..max_layer (OpenLane routes from met1: li1 is the cells' own)
    whose direction is parallel to the edge (routing: layer -> (HORIZONTAL / VERTICAL, pitch),
    from the tech LEF); track_use of their tracks are usable. At least `minimum`; rounded up
    to 0.1 um."""
    names = list(routing)
    for layer in (min_layer, max_layer):
        if layer not in names:
            raise FlowError(f"routing layer {layer} is not in the tech LEF's {', '.join(names)}")
    usable = names[names.index(min_layer):names.index(max_layer) + 1]
    out = {}
    for edge, layers in a.edge_pins().items():
        along = "HORIZONTAL" if edge in ("S", "N") else "VERTICAL"
        per_um = sum(1 / pitch for name in usable for d, pitch in [routing[name]] if d == along)
        if per_um == 0:
            raise FlowError(f"no {along.lower()} routing layer up to {max_layer}")
        need = sum(layers.values()) / (per_um * track_use)
        out[edge] = max(minimum, math.ceil(need * 10 - 1e-9) / 10)
    return out


def read_tech_lef(path: Path) -> dict:
    """Manufacturing grid, sites (name -> (w, h)) and routing layers (name -> (direction,
    pitch)) from a tech LEF, lowest layer first."""
    text = path.read_text()
    grid = re.search(r"^MANUFACTURINGGRID\s+([\d.]+)", text, re.M)
    sites = {n: (float(w), float(h)) for n, w, h in
             re.findall(r"^SITE\s+(\S+).*?SIZE\s+([\d.]+)\s+BY\s+([\d.]+)", text, re.S | re.M)}
    routing = {}
    for name, body in re.findall(r"^LAYER\s+(\S+)(.*?)^END\s+\1", text, re.S | re.M):
        if re.search(r"TYPE\s+ROUTING", body):
            d = re.search(r"DIRECTION\s+(\w+)", body)
            pitch = re.search(r"^\s*PITCH\s+([\d.]+)", body, re.M)
            if d and pitch:
                routing[name] = (d.group(1), float(pitch.group(1)))
    if not grid or not routing:
        raise FlowError(f"{path}: no MANUFACTURINGGRID or routing layers")
    return {"manufacturing_grid": float(grid.group(1)), "sites": sites, "routing": routing}


def placed_edge(edge: str, orient: str) -> str:
    """Where an abstract's edge lands once placed in `orient`."""
    return _EDGE_AFTER[orient][edge]


def placed_edge_pins(m: Macro, orient: str) -> dict[str, dict[str, int]]:
    return {_EDGE_AFTER[orient][e]: v for e, v in m.abstract.edge_pins().items()}


@dataclass(frozen=True)
class Straps:
    """Horizontal power straps the macros' vertical power pins (one layer below) must meet:
    net -> strap rectangles, on one layer."""
    layer: str
    by_net: dict


@dataclass
class Floorplan:
    name: str
    die: Rect
    core: Rect
    site_w: float
    row_h: float
    mfg_grid: float
    macros: dict[str, Macro]
    placements: dict[str, Placement]
    logic_um2: float
    max_util: float
    straps: Straps | None = None
    power_pins: tuple[str, ...] = ("vccd1", "vssd1")
    pin_layers: tuple[str, ...] = ()      # the signal-pin layers whose edges need a channel
    rows: list = field(default_factory=list)   # (y, x0, x1) standard-cell row segments
    notes: dict = field(default_factory=dict)


# --- the placer ---------------------------------------------------------------------------------
def _snap_up(v: float, origin: float, step: float) -> float:
    return origin + math.ceil((v - origin) / step - 1e-6) * step


def _snap_down(v: float, origin: float, step: float) -> float:
    return origin + math.floor((v - origin) / step + 1e-6) * step


def gap_needed(a: Macro, a_orient: str, a_edge: str, b: Macro, b_orient: str, b_edge: str) -> float:
    """Body-to-body distance between two facing edges: both channels (each pin edge has its
    own), and at least either halo."""
    return max(a.halo_on(a_edge), b.halo_on(b_edge), a.need(a_orient, a_edge) + b.need(b_orient, b_edge))


def orientation_for(m: Macro, from_edge: str) -> str:
    """The allowed orientation that turns m.face towards the open region (away from from_edge);
    N when m.face is None or on a side (rotating is not allowed)."""
    want = "N" if from_edge == "S" else "S"
    if m.face in ("S", "N"):
        return next(o for o in ("N", "FS") if _EDGE_AFTER[o][m.face] == want)
    return "N"


_ID = r"(\\\S+|[A-Za-z_][\w$]*)"


def macro_instances(verilog: str, top: str, cells: tuple[str, ...]) -> list[tuple[str, str]]:
    """(instance path with dots, cell) of every instance of `cells` under module `top` of a
    Verilog netlist or emitted RTL, walking the module hierarchy (the names OpenLane's `MACROS`
    and `PDN_MACRO_CONNECTIONS` take once its synthesis has flattened the design)."""
    bodies = {}
    for m in re.finditer(rf"^module\s+{_ID}\s*[(#;](.*?)^endmodule", verilog, re.S | re.M):
        bodies[m.group(1).lstrip("\\")] = m.group(2)
    if top not in bodies:
        raise FlowError(f"module {top} not in the Verilog")
    out = []

    def walk(mod: str, prefix: str) -> None:
        for cell, inst in re.findall(rf"^\s*{_ID}\s+{_ID}\s*\(", bodies[mod], re.M):
            cell, inst = cell.lstrip("\\"), inst.lstrip("\\")
            if cell in cells:
                out.append((prefix + inst, cell))
            elif cell in bodies:
                walk(cell, f"{prefix}{inst}.")
    walk(top, "")
    return out


def _sites(v: float, site_w: float) -> float:
    """v rounded up to whole sites."""
    return math.ceil(v / site_w - 1e-6) * site_w


def shelf_width(ms: list[Macro], orients: list[str], site_w: float) -> float:
    """The width a shelf of these macros needs: their widths, the gaps between them and the
    channels to the core edges, each in whole sites (macro x on the site grid)."""
    w = _sites(ms[0].need(orients[0], "W"), site_w) + _sites(ms[-1].need(orients[-1], "E"), site_w)
    w += sum(_sites(m.abstract.w, site_w) for m in ms)
    w += sum(_sites(gap_needed(a, oa, "E", b, ob, "W"), site_w)
             for (a, oa), (b, ob) in zip(zip(ms, orients), zip(ms[1:], orients[1:])))
    return w


def place_shelves(core: Rect, macros: list[Macro], site_w: float, row_h: float,
                  from_edge: str = "S", per_shelf: int | None = None) -> dict[str, Placement]:
    """Macros in the given order, left to right in shelves stacked from the core's south (or
    north) edge; at most per_shelf per shelf. Gaps: gap_needed between neighbours and rows, a
    pin edge's channel to the core edge; the width left in a shelf is spread evenly over its
    gaps (wider channels, room for cells). Everything on the site / row grid. Shelves that do
    not fit the core's height are placed beyond it (the checker reports them); FlowError when
    a macro is wider than the core."""
    if from_edge not in ("S", "N"):
        raise FlowError(f"place_shelves: from_edge must be S or N, not {from_edge!r}")
    orient = {m.name: orientation_for(m, from_edge) for m in macros}

    def row_width(ms: list[Macro]) -> float:
        return shelf_width(ms, [orient[m.name] for m in ms], site_w)
    shelves: list[list[Macro]] = []
    for m in macros:
        if m.abstract.w + m.need(orient[m.name], "W") + m.need(orient[m.name], "E") > core.w + EPS:
            raise FlowError(f"macro {m.name} ({m.abstract.w} um wide with its channels) is wider than "
                            f"the core ({core.w:.2f} um)")
        if shelves and (per_shelf is None or len(shelves[-1]) < per_shelf) \
                and row_width(shelves[-1] + [m]) <= core.w + EPS:
            shelves[-1].append(m)
        else:
            shelves.append([m])
    out: dict[str, Placement] = {}
    low_edge, high_edge = ("S", "N") if from_edge == "S" else ("N", "S")
    # `level`: how far the shelves reach so far (the top of the last shelf when stacking from
    # the south, its bottom from the north); each shelf starts a gap further
    level = core.y0 if from_edge == "S" else core.y1
    prev: list[Macro] = []
    for shelf in shelves:
        if prev:
            gap = max(gap_needed(a, orient[a.name], high_edge, b, orient[b.name], low_edge)
                      for a in prev for b in shelf)
        else:
            gap = max(m.need(orient[m.name], low_edge) for m in shelf)
        # x: the shelf's minimal gaps, plus the slack spread evenly (whole sites)
        gaps = [_sites(shelf[0].need(orient[shelf[0].name], "W"), site_w)]
        gaps += [_sites(gap_needed(a, orient[a.name], "E", b, orient[b.name], "W"), site_w)
                 for a, b in zip(shelf, shelf[1:])]
        slack_sites = int((core.w - row_width(shelf)) / site_w + 1e-6)
        extra = slack_sites // (len(shelf) + 1)
        x = core.x0
        ys = []
        for m, g in zip(shelf, gaps):
            x = _snap_up(x + g + extra * site_w, core.x0, site_w)
            if from_edge == "S":
                py = _snap_up(level + gap, core.y0, row_h)
            else:
                py = _snap_down(level - gap - m.abstract.h, core.y0, row_h)
            out[m.name] = Placement(m.name, round(x, 4), round(py, 4), orient[m.name])
            ys.append((py, py + m.abstract.h))
            x += _sites(m.abstract.w, site_w)
        if x + shelf[-1].need(orient[shelf[-1].name], "E") > core.x1 + EPS:
            raise FlowError(f"shelf of {', '.join(m.name for m in shelf)} does not fit the core width "
                            "(placer error)")
        level = max(y1 for _, y1 in ys) if from_edge == "S" else min(y0 for y0, _ in ys)
        prev = shelf
    return out


def cell_rows(core: Rect, row_h: float, site_w: float, blockages: list[Rect]) -> list[tuple[float, float, float]]:
    """Standard-cell row segments (y, x0, x1) of the core where no blockage (a macro with its
    halo) is, trimmed to whole sites."""
    rows = []
    n = int(round(core.h / row_h))
    for k in range(n):
        y0 = core.y0 + k * row_h
        y1 = y0 + row_h
        cuts = sorted((b.x0, b.x1) for b in blockages if min(y1, b.y1) - max(y0, b.y0) > EPS)
        x = core.x0
        for c0, c1 in cuts + [(core.x1, core.x1)]:
            seg0 = _snap_up(x, core.x0, site_w)
            seg1 = _snap_down(min(c0, core.x1), core.x0, site_w)
            if seg1 - seg0 > EPS:
                rows.append((round(y0, 4), round(seg0, 4), round(seg1, 4)))
            x = max(x, c1)
    return rows


def blockages(fp: Floorplan) -> list[Rect]:
    return [fp.macros[n].keepout(p.rect(fp.macros[n].abstract)) for n, p in fp.placements.items()]


def fill_rows(fp: Floorplan) -> Floorplan:
    fp.rows = cell_rows(fp.core, fp.row_h, fp.site_w, blockages(fp))
    return fp


def cell_area(fp: Floorplan) -> float:
    return sum((x1 - x0) * fp.row_h for _, x0, x1 in fp.rows)


# --- the checker --------------------------------------------------------------------------------
def _on_grid(v: float, origin: float, step: float) -> bool:
    q = (v - origin) / step
    return abs(q - round(q)) < 1e-6


def channels(fp: Floorplan) -> list[dict]:
    """For every placed macro edge with signal pins (on fp.pin_layers, or any layer if empty):
    the nearest obstacle in front of it (another macro's body, or the core edge), the channel
    width to it and the width needed (this edge's channel, plus the facing edge's when it has
    pins too, at least either halo)."""
    out = []
    placed = {n: (fp.macros[n], p, p.rect(fp.macros[n].abstract)) for n, p in fp.placements.items()
              if p.orient in ORIENTATIONS}
    for n, (m, p, r) in placed.items():
        edges = {e: v for e, v in placed_edge_pins(m, p.orient).items()
                 if not fp.pin_layers or set(v) & set(fp.pin_layers)}
        for e, layers in sorted(edges.items()):
            fronts = []
            core_gap = {"W": r.x0 - fp.core.x0, "E": fp.core.x1 - r.x1,
                        "S": r.y0 - fp.core.y0, "N": fp.core.y1 - r.y1}[e]
            fronts.append(("core edge", core_gap, m.need(p.orient, e)))
            facing = {"W": "E", "E": "W", "S": "N", "N": "S"}[e]
            for o, (om, op, orr) in placed.items():
                if o == n:
                    continue
                if e in ("W", "E"):
                    side = min(r.y1, orr.y1) - max(r.y0, orr.y0) > EPS
                    gap = r.x0 - orr.x1 if e == "W" else orr.x0 - r.x1
                else:
                    side = min(r.x1, orr.x1) - max(r.x0, orr.x0) > EPS
                    gap = r.y0 - orr.y1 if e == "S" else orr.y0 - r.y1
                if side and gap >= -EPS:
                    fronts.append((o, gap, gap_needed(m, p.orient, e, om, op.orient, facing)))
            name, gap, need = min(fronts, key=lambda f: f[1])
            ok = all(g >= nd - EPS for _, g, nd in fronts)
            worst = min(fronts, key=lambda f: f[1] - f[2])
            out.append({"macro": n, "edge": e, "pins": layers, "faces": name, "width_um": round(gap, 3),
                        "needed_um": round(need, 3), "ok": ok,
                        **({} if ok else {"short_against": worst[0], "short_um": round(worst[2] - worst[1], 3)})})
    return out


def check(fp: Floorplan) -> list[dict]:
    """Every check of the floorplan: [{name, ok, detail}]; independent of how it was placed."""
    results = []

    def add(name, failures, what):
        more = f"; ... ({len(failures)} in all)" if len(failures) > 6 else ""
        results.append({"name": name, "ok": not failures,
                        "detail": "; ".join(failures[:6]) + more if failures else what})
    rects = {n: p.rect(fp.macros[n].abstract) for n, p in fp.placements.items()}
    missing = sorted(set(fp.macros) - set(fp.placements))
    add("placed", [f"{n} has no placement" for n in missing], f"{len(fp.placements)} macros placed")
    add("inside_core", [f"{n} at {r.as_list()} leaves the core {fp.core.as_list()}"
                        for n, r in rects.items() if not fp.core.contains(r)], "every macro inside the core area")
    over = []
    names = sorted(rects)
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            if rects[a].overlaps(fp.macros[b].keepout(rects[b])) or \
                    rects[b].overlaps(fp.macros[a].keepout(rects[a])):
                what = "overlaps" if rects[a].overlaps(rects[b]) else "is inside the halo of"
                over.append(f"{a} {what} {b}")
    add("no_overlap", over, "no macro overlaps another or its halo")
    grid = [f"{n} at ({p.x}, {p.y}) is off the placement grid (site {fp.site_w}, row {fp.row_h} from "
            f"({fp.core.x0}, {fp.core.y0}))" for n, p in fp.placements.items()
            if not (_on_grid(p.x, fp.core.x0, fp.site_w) and _on_grid(p.y, fp.core.y0, fp.row_h))]
    grid += [f"{n} at ({p.x}, {p.y}) is off the manufacturing grid {fp.mfg_grid}"
             for n, p in fp.placements.items()
             if not (_on_grid(p.x, 0, fp.mfg_grid) and _on_grid(p.y, 0, fp.mfg_grid))]
    add("on_grid", grid, "every macro on the placement and manufacturing grid")
    add("orientation", [f"{n} is placed {p.orient} (allowed: {', '.join(ORIENTATIONS)})"
                        for n, p in fp.placements.items() if p.orient not in ORIENTATIONS],
        f"orientations only {'/'.join(ORIENTATIONS)}")
    ch = channels(fp)
    add("pin_channels", [f"{c['macro']} {c['edge']} edge ({', '.join(c['pins'])} pins) has {c['width_um']} um "
                         f"to {c['faces']}, short by {c['short_um']} um against {c['short_against']}"
                         for c in ch if not c["ok"]],
        f"{len(ch)} pin edges face a channel at least as wide as needed")
    if fp.straps is not None:
        unpowered = []
        for n, p in fp.placements.items():
            if p.orient not in ORIENTATIONS:
                continue
            a = fp.macros[n].abstract
            for net in fp.power_pins:
                pins = [p.transform(a, q.rect) for q in a.power if q.name == net
                        and q.layer == _pin_layer_under(fp.straps.layer)]
                if not pins:
                    unpowered.append(f"{n} has no {net} pin on {_pin_layer_under(fp.straps.layer)}")
                    continue
                straps = fp.straps.by_net.get(net, [])
                for q in pins:
                    if not any(_crosses(s, q) for s in straps):
                        unpowered.append(f"{n} {net} pin at {q.as_list()} crossed by no {fp.straps.layer} "
                                         f"{net} strap")
        add("power", unpowered, f"every macro's {'/'.join(fp.power_pins)} pins crossed by "
                                f"{fp.straps.layer} straps of their net")
    blk = {n: fp.macros[n].keepout(r) for n, r in rects.items()}
    bad_rows = []
    for y, x0, x1 in fp.rows:
        seg = Rect(x0, y, x1, y + fp.row_h)
        if not fp.core.contains(seg):
            bad_rows.append(f"row segment {seg.as_list()} leaves the core")
        for n, b in blk.items():
            if seg.overlaps(b):
                bad_rows.append(f"row segment {seg.as_list()} crosses {n} or its halo")
        if not (_on_grid(y, fp.core.y0, fp.row_h) and _on_grid(x0, fp.core.x0, fp.site_w)):
            bad_rows.append(f"row segment {seg.as_list()} off the row/site grid")
    add("cell_rows", bad_rows, f"{len(fp.rows)} row segments, none under a macro or halo")
    area = cell_area(fp)
    util = fp.logic_um2 / area if area > 0 else math.inf
    add("utilisation", [] if util <= fp.max_util + 1e-9 else
        [f"logic {fp.logic_um2 / 1e6:.3f} mm2 in {area / 1e6:.3f} mm2 of cell rows is {util:.1%}, "
         f"above {fp.max_util:.0%}"],
        f"logic {fp.logic_um2 / 1e6:.3f} mm2 in {area / 1e6:.3f} mm2 of cell rows: {util:.1%} "
        f"(at most {fp.max_util:.0%})")
    return results


def _pin_layer_under(strap_layer: str) -> str:
    """Straps on metN meet macro power pins on metN-1 (met5 straps over met4 pins)."""
    m = re.fullmatch(r"met(\d)", strap_layer)
    if not m:
        raise FlowError(f"strap layer {strap_layer!r} is not a metal")
    return f"met{int(m.group(1)) - 1}"


def _crosses(strap: Rect, pin: Rect) -> bool:
    """A horizontal strap crosses a vertical pin: its whole width within the pin's height, and
    it spans the pin's width (a via needs the full overlap)."""
    return (strap.y0 >= pin.y0 - EPS and strap.y1 <= pin.y1 + EPS
            and strap.x0 <= pin.x0 + EPS and strap.x1 >= pin.x1 - EPS)


def horizontal_straps(layer: str, nets: tuple[str, ...], width: float, spacing: float, pitch: float,
                      offset: float, core: Rect) -> Straps:
    """Horizontal straps across the core: net k's first at core.y0 + offset + k * (width +
    spacing), then every pitch (OpenLane's pdngen stripes with -starts_with POWER)."""
    by_net = {}
    for k, net in enumerate(nets):
        c = core.y0 + offset + k * (width + spacing)
        rs = []
        while c + width / 2 <= core.y1 + EPS:
            rs.append(Rect(core.x0, c - width / 2, core.x1, c + width / 2))
            c += pitch
        by_net[net] = rs
    return Straps(layer, by_net)


def summary(fp: Floorplan, results: list[dict]) -> dict:
    area = cell_area(fp)
    return {
        "fits": all(r["ok"] for r in results),
        "die_um": fp.die.as_list(),
        "core_um": fp.core.as_list(),
        "grid": {"site_um": fp.site_w, "row_um": fp.row_h, "manufacturing_um": fp.mfg_grid},
        "macros": {n: {"cell": fp.macros[n].abstract.cell, "x_um": p.x, "y_um": p.y, "orientation": p.orient,
                       "w_um": fp.macros[n].abstract.w, "h_um": fp.macros[n].abstract.h,
                       "halo_um": fp.macros[n].halo,
                       **({"halo_x_um": fp.macros[n].halo_x} if fp.macros[n].halo_x is not None else {}),
                       "pin_edges": {e: v for e, v in sorted(placed_edge_pins(fp.macros[n], p.orient).items())}
                       if p.orient in ORIENTATIONS else {}}
                   for n, p in fp.placements.items()},
        "macro_um2": round(sum(m.abstract.w * m.abstract.h for m in fp.macros.values()), 1),
        "logic_um2": round(fp.logic_um2, 1),
        "cell_rows_um2": round(area, 1),
        "utilisation": round(fp.logic_um2 / area, 4) if area else None,
        "max_utilisation": fp.max_util,
        "channels": channels(fp),
        "checks": results,
        **({"notes": fp.notes} if fp.notes else {}),
    }


def fits_core(fp: "Floorplan") -> bool:
    return all(fp.core.contains(p.rect(fp.macros[n].abstract)) for n, p in fp.placements.items())


def size_core(macros: list[Macro], logic_um2: float, max_util: float, site_w: float, row_h: float,
              width: float, from_edge: str = "S", per_shelf: int | None = None,
              max_height: float | None = None) -> tuple[Rect, dict[str, Placement], list]:
    """The lowest core of the given width (whole sites) that holds the macros (place_shelves)
    and enough rows for logic_um2 at max_util: (core from (0, 0), placements, rows)."""
    width = _snap_up(width, 0, site_w)
    if max_height is None:   # far more than enough: twice everything's area spread over the width
        need = sum((m.abstract.w + 2 * m.halo) * (m.abstract.h + 2 * m.halo) for m in macros) + logic_um2 / max_util
        max_height = 2 * need / width + sum(m.abstract.h + 2 * max(m.channel.values(), default=0) for m in macros)
    def attempt(n_rows):
        core = Rect(0, 0, width, n_rows * row_h)
        pl = place_shelves(core, macros, site_w, row_h, from_edge, per_shelf) if macros else {}
        if not all(core.contains(pl[m.name].rect(m.abstract)) for m in macros):
            return None
        blk = [m.keepout(pl[m.name].rect(m.abstract)) for m in macros]
        rows = cell_rows(core, row_h, site_w, blk)
        area = sum((x1 - x0) * row_h for _, x0, x1 in rows)
        return (core, pl, rows) if logic_um2 <= max_util * area + EPS else None
    lo, hi = 1, int(max_height / row_h)
    if attempt(hi) is None:
        raise FlowError(f"no core {width} um wide and up to {max_height} um high holds the macros and "
                        f"{logic_um2 / 1e6:.3f} mm2 of logic at {max_util:.0%}")
    while lo < hi:   # cell area grows with the height once the macros fit
        mid = (lo + hi) // 2
        if attempt(mid) is None:
            lo = mid + 1
        else:
            hi = mid
    return attempt(lo)


def fit_in_die(name: str, die_w: float, die_h: float, abstract: Abstract, count: int, logic_um2: float,
               max_util: float, site_w: float, row_h: float, mfg_grid: float, halo: float,
               channel: dict) -> dict:
    """`count` macros of one abstract and logic_um2 of cells in a die of their own (core = die,
    no power grid): placed in shelves, checked; the summary (with 'fits')."""
    core = Rect(0, 0, _snap_down(die_w, 0, site_w), _snap_down(die_h, 0, row_h))
    macros = [Macro(f"{name}_m{k}", abstract, halo, channel) for k in range(count)]
    fp = Floorplan(name, Rect(0, 0, die_w, die_h), core, site_w, row_h, mfg_grid, {m.name: m for m in macros},
                   place_shelves(core, macros, site_w, row_h), logic_um2, max_util)
    fill_rows(fp)
    return summary(fp, check(fp))


def moved(fp: Floorplan, *placements: Placement) -> Floorplan:
    """A copy with these placements instead of those of the same name (seeded-error tests)."""
    pl = dict(fp.placements)
    pl.update({p.name: p for p in placements})
    return replace(fp, placements=pl)


# --- the picture --------------------------------------------------------------------------------
def plot(fps: list[tuple[Floorplan, list[dict]]], path: Path, ring: list[Rect] | None = None,
         vstraps: list[Rect] | None = None, title: str = "", inner: dict | None = None) -> None:
    """One panel per floorplan: die, core (ring), halos, macros with name, orientation and
    pin edges (met3 blue, met4 red ticks), cell rows (green), straps (thin), result in the title.
    inner: macro instance -> its own Floorplan, whose macros are drawn faintly inside it."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.patches import Rectangle
    fig, axes = plt.subplots(1, len(fps), figsize=(6.5 * len(fps), 8.5))
    axes = [axes] if len(fps) == 1 else list(axes)
    colors = {"met2": "tab:purple", "met3": "tab:blue", "met4": "tab:red"}
    for k, (ax, (fp, results)) in enumerate(zip(axes, fps)):
        ax.add_patch(Rectangle((fp.die.x0, fp.die.y0), fp.die.w, fp.die.h, fill=False, lw=1.5, ec="k"))
        ax.add_patch(Rectangle((fp.core.x0, fp.core.y0), fp.core.w, fp.core.h, fill=False, lw=0.6,
                               ec="gray", ls="--"))
        if k == 0 and ring:
            for r in ring:
                ax.add_patch(Rectangle((r.x0, r.y0), r.w, r.h, fc="orange", ec="none", alpha=0.8))
        # cell rows: merge consecutive rows with the same x span into one band
        bands: dict = {}
        for y, x0, x1 in fp.rows:
            bands.setdefault((x0, x1), []).append(y)
        for (x0, x1), ys in bands.items():
            ys.sort()
            start = prev = ys[0]
            for y in ys[1:] + [None]:
                if y is None or y - prev > fp.row_h + EPS:
                    ax.add_patch(Rectangle((x0, start), x1 - x0, prev + fp.row_h - start, fc="#cfe8cf",
                                           ec="none"))
                    if y is not None:
                        start = y
                if y is not None:
                    prev = y
        # straps as lines: a few um wide, they would vanish at this scale
        if fp.straps is not None:
            for net in fp.power_pins:
                for r in fp.straps.by_net.get(net, []):
                    ax.plot([r.x0, r.x1], [(r.y0 + r.y1) / 2] * 2, color="goldenrod", lw=0.5, alpha=0.9, zorder=3)
        if k == 0 and vstraps:
            for r in vstraps:
                ax.plot([(r.x0 + r.x1) / 2] * 2, [r.y0, r.y1], color="goldenrod", lw=0.3, alpha=0.5)
        for n, p in fp.placements.items():
            m = fp.macros[n]
            r = p.rect(m.abstract)
            h = m.keepout(r)
            ax.add_patch(Rectangle((h.x0, h.y0), h.w, h.h, fill=False, ec="gray", lw=0.5, ls=":"))
            outside = not fp.core.contains(r)
            ax.add_patch(Rectangle((r.x0, r.y0), r.w, r.h, fc="#f4b6b6" if outside else "#c9d7ea",
                                   ec="darkred" if outside else "navy", lw=0.8))
            if p.orient in ORIENTATIONS:
                for e, layers in placed_edge_pins(m, p.orient).items():
                    layer = max(layers, key=layers.get)
                    t = fp.die.w * 0.006
                    seg = {"W": ([r.x0 + t, r.x0 + t], [r.y0, r.y1]), "E": ([r.x1 - t, r.x1 - t], [r.y0, r.y1]),
                           "S": ([r.x0, r.x1], [r.y0 + t, r.y0 + t]), "N": ([r.x0, r.x1], [r.y1 - t, r.y1 - t])}[e]
                    ax.plot(*seg, color=colors.get(layer, "k"), lw=2.2)
            if inner and n in inner and p.orient in ORIENTATIONS:
                sub = inner[n]
                for q in sub.placements.values():
                    a = sub.macros[q.name].abstract
                    s = p.transform(m.abstract, q.rect(a))
                    ax.add_patch(Rectangle((s.x0, s.y0), s.w, s.h, fc="none", ec="navy", lw=0.4, alpha=0.5))
            label = f"{n}\n{p.orient}" if r.w > 250 else f"{n} {p.orient}"
            ax.text((r.x0 + r.x1) / 2, (r.y0 + r.y1) / 2, label, ha="center", va="center",
                    fontsize=7 if r.w > 250 else 5)
        s = summary(fp, results)
        failed = [r["name"] for r in results if not r["ok"]]
        ax.set_title(f"{fp.name}: {'fits, all checks pass' if s['fits'] else 'FAILS: ' + ', '.join(failed)}\n"
                     f"cell rows {s['cell_rows_um2'] / 1e6:.2f} mm2, utilisation "
                     f"{(s['utilisation'] or 0):.1%} (max {fp.max_util:.0%})", fontsize=9)
        pad = 30
        boxes = [fp.die] + [p.rect(fp.macros[n].abstract) for n, p in fp.placements.items()]
        ax.set_xlim(min(b.x0 for b in boxes) - pad, max(b.x1 for b in boxes) + pad)
        ax.set_ylim(min(b.y0 for b in boxes) - pad, max(b.y1 for b in boxes) + pad)
        ax.set_aspect("equal")
        ax.tick_params(labelsize=7)
        ax.set_xlabel("um", fontsize=7)
    from matplotlib.lines import Line2D
    handles = [Line2D([], [], color=c, lw=2.2, label=f"pins on {l}") for l, c in colors.items()]
    handles += [Rectangle((0, 0), 1, 1, fc="#cfe8cf", label="standard-cell rows"),
                Line2D([], [], color="goldenrod", lw=0.8, label="met5 vccd1/vssd1 straps"),
                Rectangle((0, 0), 1, 1, fill=False, ec="gray", ls=":", label="halo")]
    if ring:
        handles.append(Rectangle((0, 0), 1, 1, fc="orange", label="core ring"))
    fig.legend(handles=handles, loc="lower center", ncol=len(handles), fontsize=8)
    if title:
        fig.suptitle(title, fontsize=10)
    fig.tight_layout(rect=(0, 0.04, 1, 0.97))
    fig.savefig(path, dpi=110, format="png")
    plt.close(fig)
