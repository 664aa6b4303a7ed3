# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""A routing-capacity estimate of a placed floorplan, before any router runs (issue #35
findings 8 and 11).

Macros (SRAMs, hard macros) obstruct every layer up to the configuration's RT_MAX_LAYER, so a net
that must get past one goes through the gaps beside it. The estimate cuts the core with a line
through the middle of every macro, horizontal and vertical, and compares, on each open segment
of a line (a channel: the stretch between two macros, or a macro and the core's edge):
- capacity: the segment's length, times the tracks per micron of the
  routing layers (RT_MIN_LAYER .. RT_MAX_LAYER, tech LEF pitches) that cross it, each reduced by
  the global router's adjustment (GRT_ADJUSTMENT, or the layer's GRT_LAYER_ADJUSTMENTS entry when
  larger), as OpenROAD's global router derates its gcells;
- demand: the nets that cross it. A net group joins two endpoints: a macro pin edge (its pins'
  middle) or the design's cell rows (the logic, spread over the rows in proportion to their
  area, since no placement exists yet). A group of n nets between endpoints a and b crosses the
  line n * (P(a below) P(b above) + P(a above) P(b below)) times, P of a pin edge 0 or 1, of the
  rows the share of row area on that side. A net between two points takes the segment its
  straight path meets (or the nearest), a net to the rows is shared over the segments by length.
A line passes when every segment's demand <= MARGIN * its capacity: the other half of the tracks are left to the
cells' own wiring, detours and the power grid's vias, which this estimate does not model. What
it does not show: congestion inside a region of cells, pin access, and detailed routing; those
only a real global route measures.
"""
from dataclasses import dataclass

from pqsoc.flow.floorplan import Rect

MARGIN = 0.5
LAYERS = ("li1", "met1", "met2", "met3", "met4", "met5")


@dataclass(frozen=True)
class Endpoint:
    name: str
    at: tuple[float, float] | None       # a pin edge's middle; None: the cell rows


ROWS = Endpoint("cells", None)


@dataclass(frozen=True)
class Nets:
    a: Endpoint
    b: Endpoint
    count: int


def tracks_per_um(routing: dict, cfg, direction: str) -> float:
    """Usable tracks per micron of the layers routed in `direction` (HORIZONTAL / VERTICAL),
    RT_MIN_LAYER .. RT_MAX_LAYER, after the global router's adjustments."""
    names = [n for n in routing if n in LAYERS]
    lo, hi = names.index(cfg["RT_MIN_LAYER"]), names.index(cfg["RT_MAX_LAYER"])
    adjust = float(cfg.get("GRT_ADJUSTMENT") or 0)
    per_layer = [float(v) for v in (cfg.get("GRT_LAYER_ADJUSTMENTS") or [])]
    total = 0.0
    for name in names[lo:hi + 1]:
        d, pitch = routing[name]
        if d != direction:
            continue
        k = LAYERS.index(name)
        a = max(adjust, per_layer[k] if k < len(per_layer) else 0.0)
        total += (1 - a) / pitch
    return total


def _open_length(span: tuple[float, float], blocks: list[tuple[float, float]]) -> float:
    """Length of span outside the union of the blocks (intervals)."""
    lo, hi = span
    free, x = 0.0, lo
    for b0, b1 in sorted(blocks):
        b0, b1 = max(b0, lo), min(b1, hi)
        if b1 <= b0:
            continue
        if b0 > x:
            free += b0 - x
        x = max(x, b1)
    return free + max(0.0, hi - x)


def _rows_below(rows: list[tuple[float, float, float]], row_h: float, axis: str, c: float) -> float:
    """Share of the row area below (axis y) or left of (axis x) the line at c."""
    total = sum((x1 - x0) * row_h for _, x0, x1 in rows)
    if total <= 0:
        return 0.0
    if axis == "y":
        part = sum((x1 - x0) * row_h * min(1.0, max(0.0, (c - y) / row_h)) for y, x0, x1 in rows)
    else:
        part = sum(max(0.0, min(x1, c) - x0) * row_h for _, x0, x1 in rows)
    return part / total


def _open_segments(span: tuple[float, float], blocks: list[tuple[float, float]]) -> list[tuple[float, float]]:
    """The parts of span outside the union of the blocks (intervals), in order."""
    lo, hi = span
    out, x = [], lo
    for b0, b1 in sorted(blocks):
        b0, b1 = max(b0, lo), min(b1, hi)
        if b1 <= b0:
            continue
        if b0 > x:
            out.append((x, b0))
        x = max(x, b1)
    if hi > x:
        out.append((x, hi))
    return out


def estimate(core: Rect, bodies: dict[str, Rect], rows: list, row_h: float, nets: list[Nets],
             routing: dict, cfg, detour_um: float = 0.0) -> list[dict]:
    """Every cut line: {'line', 'axis', 'at', 'demand', 'capacity', 'ratio', 'ok', 'crossing',
    'segment', 'segments'}, the figures those of its worst open segment (the stretch of the line
    between two macros, or a macro and the core's edge: a channel). A net between two points
    crosses the line in the segment its straight path meets (or the nearest one) and, through a
    shelf of macros (a horizontal line), in every segment within detour_um of that point too,
    shared by their length, as a global router spreads a congested channel's nets over its
    neighbours; a net to the cell rows (ROWS, no placement yet) is shared over the segments by
    their length."""
    cap_h = tracks_per_um(routing, cfg, "VERTICAL")      # cross a horizontal line
    cap_v = tracks_per_um(routing, cfg, "HORIZONTAL")    # cross a vertical line
    lines: dict = {}          # one line per distinct position, named by the macros it passes
    for name, b in sorted(bodies.items()):
        for axis, c in (("y", (b.y0 + b.y1) / 2), ("x", (b.x0 + b.x1) / 2)):
            lines.setdefault((axis, round(c, 3)), []).append(name)
    out = []
    for (axis, c), names in sorted(lines.items()):
        name = names[0] + (f" (+{len(names) - 1} more)" if len(names) > 1 else "")
        if axis == "y":
            segs = _open_segments((core.x0, core.x1), [(r.x0, r.x1) for r in bodies.values() if r.y0 < c < r.y1])
            per_um = cap_h
        else:
            segs = _open_segments((core.y0, core.y1), [(r.y0, r.y1) for r in bodies.values() if r.x0 < c < r.x1])
            per_um = cap_v
        open_len = sum(b - a for a, b in segs)
        rows_lo = _rows_below(rows, row_h, axis, c)

        def below(e: Endpoint) -> float:
            if e.at is None:
                return rows_lo
            return 1.0 if (e.at[1] if axis == "y" else e.at[0]) < c else 0.0

        def along(e: Endpoint) -> float:
            return e.at[0] if axis == "y" else e.at[1]

        def across(e: Endpoint) -> float:
            return e.at[1] if axis == "y" else e.at[0]
        demand = [0.0] * len(segs)
        crossing = [dict() for _ in segs]
        for n in nets:
            pa, pb = below(n.a), below(n.b)
            d = n.count * (pa * (1 - pb) + (1 - pa) * pb)
            if d <= 0 or not segs:
                continue
            if n.a.at is not None and n.b.at is not None:
                ta, tb = across(n.a), across(n.b)
                t = (c - ta) / (tb - ta) if tb != ta else 0.5
                p = along(n.a) + t * (along(n.b) - along(n.a))
                def dist(i):
                    return 0.0 if segs[i][0] <= p <= segs[i][1] else min(abs(p - segs[i][0]), abs(p - segs[i][1]))
                k = min(range(len(segs)), key=dist)
                near = [i for i in range(len(segs)) if axis == "y" and dist(i) <= detour_um] or [k]
                total = sum(segs[i][1] - segs[i][0] for i in near)
                shares = {i: (segs[i][1] - segs[i][0]) / total for i in near} if total > 0 else {k: 1.0}
            else:
                shares = {i: (b - a) / open_len for i, (a, b) in enumerate(segs)} if open_len else {}
            for i, f in shares.items():
                demand[i] += d * f
                key = f"{n.a.name} - {n.b.name}"
                crossing[i][key] = crossing[i].get(key, 0.0) + d * f
        if not segs:
            segs, demand, crossing = [(c, c)], [0.0], [{}]
        ratios = [dm / ((b - a) * per_um) if (b - a) * per_um > 0 else (float("inf") if dm > 0 else 0.0)
                  for dm, (a, b) in zip(demand, segs)]
        k = max(range(len(segs)), key=lambda i: ratios[i])
        capacity = (segs[k][1] - segs[k][0]) * per_um
        out.append({"line": f"{'horizontal' if axis == 'y' else 'vertical'} through {name}",
                    "axis": axis, "at": round(c, 2), "demand": round(demand[k]), "capacity": round(capacity),
                    "ratio": round(ratios[k], 3), "ok": all(dm <= MARGIN * (b - a) * per_um + 1e-9
                                                           for dm, (a, b) in zip(demand, segs)),
                    "segment": [round(v, 2) for v in segs[k]], "segments": len(segs),
                    "crossing": {kk: round(v) for kk, v in sorted(crossing[k].items(), key=lambda kv: -kv[1])[:4]}})
    return out
