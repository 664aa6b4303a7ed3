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
  rows the share of row area on that side; a net to the rows is shared over the segments by
  length. A net between two points is routed as a path through the shelves from the south: at
  each it takes the nearest channel with room and bends there, so that a detour to a farther
  gap is counted where it runs along a band (estimate's docstring).
A line passes when every segment's demand <= MARGIN * its capacity: the other half of the tracks are left to the
cells' own wiring and the power grid's vias, which this estimate does not model. What
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


def _dist(seg: tuple[float, float], p: float) -> float:
    return 0.0 if seg[0] <= p <= seg[1] else min(abs(p - seg[0]), abs(p - seg[1]))


def estimate(core: Rect, bodies: dict[str, Rect], rows: list, row_h: float, nets: list[Nets],
             routing: dict, cfg) -> list[dict]:
    """Every cut line: {'line', 'axis', 'at', 'demand', 'capacity', 'ratio', 'ok', 'crossing',
    'segment', 'segments', 'channels'}, the figures those of its worst open segment (the stretch
    of the line between two macros, or a macro and the core's edge: a channel); 'channels': every
    segment's [from, to, demand, capacity].

    A net to the cell rows (ROWS, no placement yet) is shared over a line's segments by their
    length. A net between two points is a path from its lower end to its upper one, routed
    through the horizontal lines (the shelves) from the south: where its straight leg meets a
    line, it takes the nearest segment with room (demand under MARGIN of its tracks, the nets to
    the rows counted first), the next nearest when that one is full (a group of nets may split),
    the nearest when all are full, as a global router spreads a congested channel's nets over its
    neighbours; it bends there (at the point of the segment nearest its straight leg) and goes on
    straight. The lateral travel to a farther gap is thereby counted on the vertical lines its
    legs cross (a vertical line's crossing takes the segment nearest it)."""
    cap_h = tracks_per_um(routing, cfg, "VERTICAL")      # cross a horizontal line
    cap_v = tracks_per_um(routing, cfg, "HORIZONTAL")    # cross a vertical line
    names_at: dict = {}       # one line per distinct position, named by the macros it passes
    for name, b in sorted(bodies.items()):
        for axis, c in (("y", (b.y0 + b.y1) / 2), ("x", (b.x0 + b.x1) / 2)):
            names_at.setdefault((axis, round(c, 3)), []).append(name)
    segs, demand, crossing = {}, {}, {}
    for key in names_at:
        axis, c = key
        if axis == "y":
            segs[key] = _open_segments((core.x0, core.x1), [(r.x0, r.x1) for r in bodies.values() if r.y0 < c < r.y1])
        else:
            segs[key] = _open_segments((core.y0, core.y1), [(r.y0, r.y1) for r in bodies.values() if r.x0 < c < r.x1])
        demand[key] = [0.0] * len(segs[key])
        crossing[key] = [dict() for _ in segs[key]]

    def add(key, i, label, n):
        demand[key][i] += n
        crossing[key][i][label] = crossing[key][i].get(label, 0.0) + n

    # the nets to the rows, shared over each line's segments by length
    for key, ss in segs.items():
        axis, c = key
        open_len = sum(b - a for a, b in ss)
        rows_lo = _rows_below(rows, row_h, axis, c)

        def below(e: Endpoint) -> float:
            if e.at is None:
                return rows_lo
            return 1.0 if (e.at[1] if axis == "y" else e.at[0]) < c else 0.0
        for n in nets:
            if n.a.at is not None and n.b.at is not None or not open_len:
                continue
            pa, pb = below(n.a), below(n.b)
            d = n.count * (pa * (1 - pb) + (1 - pa) * pb)
            for i, (a, b) in enumerate(ss):
                if d > 0:
                    add(key, i, f"{n.a.name} - {n.b.name}", d * (b - a) / open_len)
    # the point-to-point nets: paths (points so far, end, count, label) bent at each shelf line
    paths = []
    for n in nets:
        if n.a.at is not None and n.b.at is not None and n.count > 0:
            lo, hi = sorted((n.a.at, n.b.at), key=lambda q: q[1])
            paths.append(([lo], hi, float(n.count), f"{n.a.name} - {n.b.name}"))
    for key in sorted(k for k in segs if k[0] == "y"):
        c, ss = key[1], segs[key]
        room = [MARGIN * (b - a) * cap_h - demand[key][i] for i, (a, b) in enumerate(ss)]
        here, rest = [], []
        for path in paths:
            (x0, y0), (x1, y1) = path[0][-1], path[1]
            if y0 < c <= y1 and ss:
                p = x0 + (c - y0) / (y1 - y0) * (x1 - x0)
                here.append((min(_dist(g, p) for g in ss), p, path))
            else:
                rest.append(path)
        for _, p, (pts, end, count, label) in sorted(here, key=lambda h: h[0]):
            order = sorted(range(len(ss)), key=lambda i: _dist(ss[i], p))
            takes, left = {}, count
            for i in order:
                t = min(left, max(0.0, room[i]))
                if t > 1e-9:
                    takes[i], left = t, left - t
            if left > 1e-9:
                takes[order[0]] = takes.get(order[0], 0.0) + left
            for i, t in takes.items():
                room[i] -= t
                add(key, i, label, t)
                rest.append((pts + [(min(max(p, ss[i][0]), ss[i][1]), c)], end, t, label))
        paths = rest
    for key in sorted(k for k in segs if k[0] == "x"):
        c, ss = key[1], segs[key]
        for pts, end, count, label in paths:
            pts = pts + [end]
            for (x0, y0), (x1, y1) in zip(pts, pts[1:]):
                if (x0 < c) != (x1 < c) and ss:
                    y = y0 + (c - x0) / (x1 - x0) * (y1 - y0)
                    add(key, min(range(len(ss)), key=lambda i: _dist(ss[i], y)), label, count)
    out = []
    for key, names in sorted(names_at.items()):
        axis, c = key
        ss, dm, cr = segs[key], demand[key], crossing[key]
        per_um = cap_h if axis == "y" else cap_v
        name = names[0] + (f" (+{len(names) - 1} more)" if len(names) > 1 else "")
        if not ss:
            ss, dm, cr = [(c, c)], [0.0], [{}]
        ratios = [d / ((b - a) * per_um) if (b - a) * per_um > 0 else (float("inf") if d > 0 else 0.0)
                  for d, (a, b) in zip(dm, ss)]
        k = max(range(len(ss)), key=lambda i: ratios[i])
        out.append({"line": f"{'horizontal' if axis == 'y' else 'vertical'} through {name}",
                    "axis": axis, "at": round(c, 2), "demand": round(dm[k]),
                    "capacity": round((ss[k][1] - ss[k][0]) * per_um), "ratio": round(ratios[k], 3),
                    "ok": all(d <= MARGIN * (b - a) * per_um + 1e-9 for d, (a, b) in zip(dm, ss)),
                    "segment": [round(v, 2) for v in ss[k]], "segments": len(ss),
                    "channels": [[round(a, 2), round(b, 2), round(d, 1), round((b - a) * per_um)]
                                 for d, (a, b) in zip(dm, ss)],
                    "crossing": {kk: round(v) for kk, v in sorted(cr[k].items(), key=lambda kv: -kv[1])[:4]}})
    return out
