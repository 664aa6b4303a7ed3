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
