# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""The nets the routing-capacity estimate (pqsoc/flow/route_capacity.py) routes for the chip's
configurations, from what the design connects:
- an SRAM macro: every signal pin of its LEF to the cell rows (its controller and data path are
  standard cells), grouped by the placed edge the pin sits on;
- a hard macro in the wrapper (acc, kmac): its ports, on the edge its pin order file names (the
  floorplan's face, turned by its orientation): the side-load port between the two (their
  `sideload__*` ports), the rest to the cell rows.
Caravel's own pins (the wrapper's die edges) are not modelled: they sit outside the core, and
their nets reach the rows along the core's edge.
"""
from pqsoc.flow import floorplan as fpm
from pqsoc.flow import route_capacity as rc
from pqsoc.flow.pdn_rules import macro_rects

SIDELOAD = "sideload"


def _edge_middle(r: fpm.Rect, edge: str) -> tuple[float, float]:
    return {"S": ((r.x0 + r.x1) / 2, r.y0), "N": ((r.x0 + r.x1) / 2, r.y1),
            "W": (r.x0, (r.y0 + r.y1) / 2), "E": (r.x1, (r.y0 + r.y1) / 2)}[edge]


def nets(cfg, abstracts: dict, hard_macros: dict) -> tuple[dict, list]:
    """(bodies, net groups) of a resolved configuration. abstracts: cell -> floorplan Abstract of
    each SRAM macro (with its pins); hard_macros: cell -> {'size': (w, h), 'face': edge,
    'ports': {name: width}} of each hard macro."""
    sizes = {c: (a.w, a.h) for c, a in abstracts.items()}
    sizes.update({c: m["size"] for c, m in hard_macros.items()})
    bodies = macro_rects(cfg, sizes)
    groups: list[rc.Nets] = []
    faces = {}
    for cell, m in (cfg.get("MACROS") or {}).items():
        instances = m.get("instances") if isinstance(m, dict) else m.instances
        for name, inst in instances.items():
            orient = str(inst["orientation"] if isinstance(inst, dict) else inst.orientation)
            if cell in abstracts:
                a = abstracts[cell]
                by_edge: dict[str, int] = {}
                for pin in a.pins:
                    e = a.edge_of(pin.rect)
                    if e:
                        placed = fpm._EDGE_AFTER[orient][e]
                        by_edge[placed] = by_edge.get(placed, 0) + 1
                for edge, n in sorted(by_edge.items()):
                    ep = rc.Endpoint(f"{name} {edge}", _edge_middle(bodies[name], edge))
                    groups.append(rc.Nets(ep, rc.ROWS, n))
            elif cell in hard_macros:
                h = hard_macros[cell]
                edge = fpm._EDGE_AFTER[orient][h["face"]]
                faces[cell] = rc.Endpoint(f"{cell} {edge}", _edge_middle(bodies[name], edge))
                rest = sum(w for n, w in h["ports"].items() if not n.startswith(SIDELOAD + "__"))
                groups.append(rc.Nets(faces[cell], rc.ROWS, rest))
    sideload = [c for c, h in hard_macros.items() if c in faces
                and any(n.startswith(SIDELOAD + "__") for n in h["ports"])]
    if len(sideload) == 2:
        a, b = sideload
        width = sum(w for n, w in hard_macros[a]["ports"].items() if n.startswith(SIDELOAD + "__"))
        groups.append(rc.Nets(faces[a], faces[b], width))
    return bodies, groups
