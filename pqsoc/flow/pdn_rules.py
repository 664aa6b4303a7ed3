# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""pdngen's rules for a configuration's power grid, computed from the variables LibreLane
resolved, before OpenROAD ever reads them (issue #35 finding 6), and the metal a hard macro may
use under the wrapper's grid (finding 9).

The rules, read from OpenROAD's pdn sources (src/pdn/src/straps.cpp, Straps::
checkLayerSpecifications and checkLayerOffsetSpecification): LibreLane's grid puts one strap
of each net of the domain (power, then ground: two) in a group; the group is
`n * width + (n - 1) * spacing` wide and a pitch must hold the group and one more spacing
(error PDN-0175, "Pitch ... is too small"); width, spacing, pitch and offset lie on the
manufacturing grid; the grid's extent must hold `offset + group width` (PDN-0185). The layers'
minimum width and spacing (checkLayerWidth / checkLayerSpacing) are the tech LEF's and are not
checked here: every grid here uses straps of a micron and more.

A hard macro placed under the wrapper's met5 straps: LibreLane's PDN documentation says a macro
meant for integration has no power or signal on met5 (pdngen cuts the top grid's met5 over the
macro's box and halo when it does, and no via reaches the macro): PDN_MULTILAYER false and
RT_MAX_LAYER met4 at most.
"""
from decimal import Decimal

MANUFACTURING_GRID = Decimal("0.005")     # sky130 (tech LEF MANUFACTURINGGRID)
NETS_PER_GROUP = 2                        # LibreLane's pdn_cfg.tcl: one power and one ground net
LAYER_ORDER = ("li1", "met1", "met2", "met3", "met4", "met5")


def _on_grid(v: Decimal) -> bool:
    return (Decimal(v) / MANUFACTURING_GRID) % 1 == 0


def strap_problems(cfg) -> list[str]:
    """pdngen's errors for the core grid of a resolved configuration (a librelane Config or a
    dict with the PDN_* variables): one line per broken rule, naming the variables."""
    out = []
    grids = [("V", cfg["PDN_VERTICAL_LAYER"])]
    if cfg.get("PDN_MULTILAYER", True):
        grids.append(("H", cfg["PDN_HORIZONTAL_LAYER"]))
    core = cfg.get("CORE_AREA")
    for d, layer in grids:
        w, s, p, o = (Decimal(str(cfg[f"PDN_{d}{k}"])) for k in ("WIDTH", "SPACING", "PITCH", "OFFSET"))
        group = NETS_PER_GROUP * w + (NETS_PER_GROUP - 1) * s
        if p < group + s:
            out.append(f"PDN_{d}PITCH {p} on {layer} is below pdngen's minimum {group + s} for "
                       f"{NETS_PER_GROUP} nets of width {w} at spacing {s} (PDN-0175)")
        for k, v in (("WIDTH", w), ("SPACING", s), ("PITCH", p), ("OFFSET", o)):
            if not _on_grid(v):
                out.append(f"PDN_{d}{k} {v} is off the {MANUFACTURING_GRID} um manufacturing grid")
        if core:
            extent = Decimal(str(core[2])) - Decimal(str(core[0])) if d == "V" else \
                Decimal(str(core[3])) - Decimal(str(core[1]))
            if extent < o + group:
                out.append(f"the core is {extent} um across; PDN_{d}OFFSET {o} + the strap group {group} "
                           f"do not fit (PDN-0185)")
    return out


def macro_metal_problems(name: str, cfg) -> list[str]:
    """What keeps hard macro `name` (its resolved configuration) from being powered and routed
    under the wrapper's met5 grid."""
    out = []
    if cfg.get("PDN_MULTILAYER", True):
        out.append(f"{name}: PDN_MULTILAYER is true: its met5 straps make the wrapper's pdngen cut its "
                   "own met5 over the macro, which then has no power (a macro for integration has no met5)")
    top = cfg.get("RT_MAX_LAYER")
    if top in LAYER_ORDER and LAYER_ORDER.index(top) > LAYER_ORDER.index("met4"):
        out.append(f"{name}: RT_MAX_LAYER {top}: signals on met5 under the wrapper's straps")
    return out


# --- power reach: every cell row meets both nets ----------------------------------------------------
ROW_H, SITE_W = 2.72, 0.46          # sky130_fd_sc_hd's unithd site


def _centres(origin: float, offset: float, k: int, width: float, spacing: float, pitch: float,
             end: float) -> list[float]:
    c, out = origin + offset + k * (width + spacing), []
    while c + width / 2 <= end + 1e-9:
        out.append(c)
        c += pitch
    return out


def macro_rects(cfg, sizes: dict) -> dict:
    """Instance -> placed body (floorplan Rect) of every MACROS instance; sizes: cell -> (w, h)."""
    from pqsoc.flow.floorplan import Rect
    out = {}
    for cell, m in (cfg.get("MACROS") or {}).items():
        w, h = sizes[cell]
        for name, inst in (m.get("instances") if isinstance(m, dict) else m.instances).items():
            loc = inst["location"] if isinstance(inst, dict) else inst.location
            orient = str(inst["orientation"] if isinstance(inst, dict) else inst.orientation)
            x, y = float(loc[0]), float(loc[1])
            rw, rh = (h, w) if orient.endswith(("E", "W")) else (w, h)
            out[name] = Rect(x, y, x + rw, y + rh)
    return out


def power_reach(cfg, sizes: dict) -> dict:
    """Which standard-cell row segments of a configuration have a path to each power net through
    its own grid: a met4 strap of the net inside the segment whose column, cut by the macros and
    their PDN halo (an SRAM obstructs met1-met4 over its whole body), reaches a met5 strap of the
    net (met5 crosses the SRAMs). Needs the grid's
    met5 (PDN_MULTILAYER); a met4-only macro is powered from the level above, which the wrapper's
    check covers. Returns {'rows': n, 'unpowered': [(y, x0, x1, net)], 'unpowered_um2': a}."""
    from pqsoc.flow.floorplan import cell_rows
    nets = [*cfg["VDD_NETS"][:1], *cfg["GND_NETS"][:1]]
    core = [float(v) for v in cfg["CORE_AREA"]]
    x0c, y0c, x1c, y1c = core
    bodies = list(macro_rects(cfg, sizes).values())
    hh = float(cfg.get("FP_MACRO_HORIZONTAL_HALO") or 0)
    vh = float(cfg.get("FP_MACRO_VERTICAL_HALO") or 0)
    from pqsoc.flow.floorplan import Rect
    halos = [Rect(b.x0 - hh, b.y0 - vh, b.x1 + hh, b.y1 + vh) for b in bodies]
    # pdngen removes the core grid's met4 over a macro's met4 obstruction (an SRAM's whole body)
    # and its PDN halo (LibreLane's macro grid, pdn_cfg.tcl `define_pdn_grid -macro -halo`)
    ph, pv = float(cfg.get("PDN_HORIZONTAL_HALO") or 0), float(cfg.get("PDN_VERTICAL_HALO") or 0)
    cuts = [Rect(b.x0 - ph, b.y0 - pv, b.x1 + ph, b.y1 + pv) for b in bodies]
    rows = cell_rows(Rect(*core), ROW_H, SITE_W, halos)
    v = {k: float(cfg[f"PDN_V{k}"]) for k in ("WIDTH", "SPACING", "PITCH", "OFFSET")}
    h = {k: float(cfg[f"PDN_H{k}"]) for k in ("WIDTH", "SPACING", "PITCH", "OFFSET")}
    if not cfg.get("PDN_MULTILAYER", True):
        return {"rows": len(rows), "unpowered": [], "unpowered_um2": 0.0, "from_above": True}
    straps_v = {n: _centres(x0c, v["OFFSET"], k, v["WIDTH"], v["SPACING"], v["PITCH"], x1c) for k, n in enumerate(nets)}
    straps_h = {n: _centres(y0c, h["OFFSET"], k, h["WIDTH"], h["SPACING"], h["PITCH"], y1c) for k, n in enumerate(nets)}
    # with a core ring and PDN_EXTEND_TO core_ring the met4 straps run on to the ring, whose
    # horizontal sides are met5 of every net: a column open to the core's south or north edge
    # reaches it (the rails stop at the core edge: pdngen's followpins take the core area)
    ring = bool(cfg.get("PDN_CORE_RING")) and cfg.get("PDN_EXTEND_TO") == "core_ring"
    unpowered = []
    for y, sx0, sx1 in rows:
        for n in nets:
            ok = False
            for x in straps_v[n]:
                if not (sx0 + v["WIDTH"] / 2 <= x <= sx1 - v["WIDTH"] / 2):
                    continue
                # the strap's column: cut by every macro body it would cross
                lo, hi = y0c, y1c
                for b in cuts:
                    if b.x0 - v["WIDTH"] / 2 < x < b.x1 + v["WIDTH"] / 2:
                        if b.y1 <= y + 1e-9:
                            lo = max(lo, b.y1)
                        elif b.y0 >= y + ROW_H - 1e-9:
                            hi = min(hi, b.y0)
                if ring and (lo <= y0c + 1e-9 or hi >= y1c - 1e-9):
                    ok = True
                    break
                if any(lo <= c - h["WIDTH"] / 2 and c + h["WIDTH"] / 2 <= hi for c in straps_h[n]):
                    ok = True
                    break
            if not ok:
                unpowered.append((y, sx0, sx1, n))
    area = sum((x1 - x0) * ROW_H for (y, x0, x1) in {(y, x0, x1) for y, x0, x1, _ in unpowered})
    return {"rows": len(rows), "unpowered": unpowered, "unpowered_um2": round(area, 1)}
