# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""The `flat` physical architecture (soc/doc/caravel.md "The physical architecture"): every SRAM
macro at the wrapper level, all logic flat in the one wrapper run, checked with the same checks
`pqsoc pnr check` runs on a configuration; `pqsoc floorplan` reports it (reports/floorplan.json
`wrapper` for the chip's layout, `flat_study` for every layout; floorplan.png), and
soc/caravel_openlane.py makes the chip's LibreLane configuration from CHIP_LAYOUT's.

Shelves of SRAMs alternate with bands of standard cells; each shelf is turned so that port 0's
edge (72 pins, the abstract's south edge) faces its band, and two shelves between bands stand back
to back (their north edges carry port 1's few connected pins). A shelf of up to PER_SHELF macros
leaves a street of cells STREET_AFTER macros from the west edge; the streets line up into one
vertical spine that joins the bands, so the nets between bands cross no shelf. The LAYOUTS:
- comb: seven shelves of three (the top one four), the lowest facing down into a band on the
  south edge;
- hybrid: a band of rows along the south edge for Caravel's pins (the pin band), a full shelf
  of four on it facing up, four shelves of three, and a full shelf of four at the top facing
  down: three bands of logic.
The macros fill the shelves in the order CPU memories, DMEM, IMEM from the south (MEMORY_ORDER:
the CPU's logic beside Caravel's pins, the ACC's datapath in the middle, its control at the top).
Each band's logic is that of its memories' owners in proportion to the macros it faces, and the
KMAC's, which owns no memory, wherever there is room (spread); a band is at least as high as its
facing edges' channels and as the horizontal tracks (within the routing margin) that carry the
nets of the macros west of the street to it; the rest of the height goes to the bands so that
they have about the same utilisation. The study then runs the routing estimate and raises a band whose
channel is over to the height its nets need (SIZING_ROUNDS), taking it from the others.

Back-to-back shelves stand two vertical halos apart and the macros of a shelf two horizontal
halos apart: the halos meet, no cell row is left between them, and each gap holds the channels of
the pin edges that face it.
"""
import functools
import math
from pathlib import Path

from ip.acc import block as acc_block
from ip.common import sram
from pqsoc import FlowError
from pqsoc.flow import caravel
from pqsoc.flow import floorplan as fpm
from pqsoc.flow import pdn_rules
from pqsoc.flow import route_capacity as rc
from soc import caravel as caravel_soc
from soc import caravel_floorplan as cf

# The SRAMs' halos (keep-outs for cells; each pin edge's routing channel is its own, from its
# pins, floorplan.channel_widths): vertical, half the gap between back-to-back shelves, which must
# hold two north edges' channels (15.9 um each); horizontal, half the gap between the macros of a
# shelf (at least a west and an east edge's channels, 10 um each) and a full shelf's gaps and
# edges (four macros: 176 um of the core's width left, over three gaps and two edges: 22.1 um
# each at least), so that no sliver of row is left beside a macro for no strap to reach.
HALO_Y_UM = 16.0
HALO_X_UM = 23.0
# A shelf of up to PER_SHELF macros leaves a street STREET_AFTER macros from the west edge; a
# fuller one stands wall to wall.
PER_SHELF = 3
STREET_AFTER = 2
# The layouts studied: macros per shelf from the south, and whether the lowest shelf faces up
# (over the pin band, its back to Caravel's pins) or down (into a band of logic below it).
LAYOUTS = {"comb": ((3, 3, 3, 3, 3, 3, 4), False),
           "hybrid": ((4, 3, 3, 3, 3, 4), True)}
# The layout the chip is built on (soc/caravel_openlane.py makes its configuration).
CHIP_LAYOUT = "hybrid"
# The share of the ACC's logic that sits with the IMEM (control: fetch, decode, GPRs, loops)
# against the DMEM (the wide datapath: WDRs, the wide ALU, the stream unit); a planning figure,
# to be replaced by the synthesized split once the hierarchy reports it.
ACC_CONTROL_SHARE = 0.3
# Nets between the owners' logic (an estimate: no netlist is partitioned yet): control <->
# datapath (decoded operation, register indices, GPR values, flags, loop state), CPU <-> ACC and
# KMAC (their ports other than the side-load: bus, DMA, interrupts).
CONTROL_DATAPATH_NETS = 250
# The ACC -> KMAC side-load port's nets (the datapath's logic to the KMAC's).
SIDELOAD_NETS = 600
# The owners of logic: those of memories (their logic in the bands their SRAMs face) and the
# KMAC, which has none: its logic sits wherever the bands have room, as a global placer that
# spreads cells to one density would put it (its nets: the side-load to the datapath, its bus
# and interrupt to the CPU's logic).
MEMORY_OWNERS = ("cpu", "control", "datapath")
FREE_OWNER = "kmac"
OWNERS = (*MEMORY_OWNERS, FREE_OWNER)
# The owners' memories from the south: the CPU's beside Caravel's pins, then the DMEM (its
# datapath, the most logic, in the middle bands, which have the street beside their shelves),
# then the IMEM (the ACC's control) at the top. With the IMEM second the
# datapath's band at the top holds 7 of the 8 DMEM macros' logic (70 %, over ARCH_MAX_UTIL).
MEMORY_ORDER = ("cpu", "datapath", "control")
# The global router's settings the routing estimate assumes (the wrapper's LibreLane config).
# Times the study may place again with a band raised to what the routing estimate found its
# channel needs (a fixed point: a higher band takes height from the others).
SIZING_ROUNDS = 6
ROUTING = {"RT_MIN_LAYER": "met1", "GRT_ADJUSTMENT": 0.3, "GRT_LAYER_ADJUSTMENTS": [0.99, 0, 0, 0, 0, 0]}


def _sram(ctx: cf.Context, name: str) -> fpm.Macro:
    ch = fpm.channel_widths(ctx.sram, ctx.tech["routing"], ctx.wrapper.rt_max_layer, cf.TRACK_USE, cf.HALO_UM)
    return fpm.Macro(name, ctx.sram, HALO_Y_UM, ch, face="S", halo_x=HALO_X_UM)


def routed_edge_pins(m: fpm.Macro, orient: str) -> dict[str, int]:
    """placed edge -> the signal pins on it that carry a net: every pin but the outputs the SoC
    leaves open (sram.OPEN_PORTS: port 1's read data), each pin once however many shapes it has."""
    names: dict[str, set] = {}
    for p in m.abstract.pins:
        e = m.abstract.edge_of(p.rect)
        if e and p.name.split("[")[0] not in sram.OPEN_PORTS:
            names.setdefault(fpm.placed_edge(e, orient), set()).add(p.name)
    return {e: len(v) for e, v in names.items()}


def owner(name: str) -> str:
    return "cpu" if name.startswith(("boot_ram", "main_sram")) else "control" if name.startswith("imem") else "datapath"


def memories(boot: int, main: int) -> list[str]:
    """The SRAM instances in shelf order (MEMORY_ORDER by owner): the CPU's boot RAM and main
    SRAM, the ACC's DMEM, the ACC's IMEM."""
    per = acc_block.MACRO_BYTES
    names = {"cpu": [f"boot_ram{k}" for k in range(boot // per)] + [f"main_sram{k}" for k in range(main // per)],
             "datapath": [f"dmem{k}" for k in range(acc_block.DMEM_SIZE // per)],
             "control": [f"imem{k}" for k in range(acc_block.IMEM_SIZE // per)]}
    return [n for o in MEMORY_ORDER for n in names[o]]


def shelves(names: list[str], sizes: tuple[int, ...]) -> list[list[str]]:
    """The names by shelf from the south, sizes[k] to shelf k (the last ones may stay empty)."""
    if len(names) > sum(sizes):
        raise FlowError(f"{len(names)} SRAMs do not fit shelves of {'+'.join(map(str, sizes))}")
    out, k = [], 0
    for n in sizes:
        if k < len(names):
            out.append(names[k:k + n])
        k += n
    return out


def _shelf_x(ctx: cf.Context, n: int, core: fpm.Rect) -> list[float]:
    """The x of n macros (site grid): a full shelf (n > PER_SHELF) wall to wall, centred, two
    halos apart (the last placed from the east); otherwise STREET_AFTER from the west edge, the
    rest from the east edge, a halo from the edges and two halos apart."""
    w, site = ctx.sram.w, ctx.wrapper.site_w
    step = w + 2 * HALO_X_UM
    if n > PER_SHELF:
        edge = (core.w - n * w - (n - 1) * 2 * HALO_X_UM) / 2
        if edge < 0:
            raise FlowError(f"{n} SRAMs two halos apart are wider than the core")
        west = n - 1
    else:
        edge, west = HALO_X_UM, min(n, STREET_AFTER)
    xs = [fpm._snap_up(core.x0 + edge + step * k, core.x0, site) for k in range(west)]
    east = [fpm._snap_down(core.x1 - edge - step * k - w, core.x0, site) for k in range(n - west)]
    return xs + east[::-1]


def floorplan(ctx: cf.Context, boot: int, main: int, layout: str = "hybrid",
              least: dict | None = None) -> tuple[fpm.Floorplan, dict]:
    """The flat wrapper floorplan (LAYOUTS[layout]) for CPU memories boot + main bytes: (floorplan, bands), bands:
    name -> {'strip': (y0, y1) of the band's own rows across the core, 'region': (y0, y1) the band
    with the shelves that face it (the street beside them), 'faces': the SRAMs whose port 0
    faces it, 'logic': {owner: um2} it is to hold}. least: band index -> a height (um) it must
    have at least (study's: what the routing estimate found its channel needs)."""
    w = ctx.wrapper
    core = fpm.Rect(*w.core)
    names = memories(boot, main)
    macros = {n: _sram(ctx, n) for n in names}
    sizes, first_up = LAYOUTS[layout]
    sh = shelves(names, sizes)
    h, row = ctx.sram.h, w.row_h
    m0 = macros[names[0]]
    need_s, need_n = m0.channel["S"], max(m0.channel["N"], HALO_Y_UM)
    # the band each shelf faces, and whether it faces up (FS: port 0 at the top) or down (N); a
    # lowest shelf facing up stands on band 0, the pin band: rows along the south edge that
    # carry Caravel's Wishbone and logic-analyzer pins to the shelf's gaps and hold the tie
    # cells of its constant outputs
    lift = 2 if first_up else 1
    band_of = [(i + lift) // 2 for i in range(len(sh))]
    up = [(i + lift) % 2 == 0 for i in range(len(sh))]
    nb = max(band_of) + 1
    faces = [[] for _ in range(nb)]
    for i, group in enumerate(sh):
        faces[band_of[i]] += group
    count = {o: sum(owner(n) == o for n in names) for o in OWNERS}
    wants = {"cpu": ctx.logic_um2["top"], "control": ACC_CONTROL_SHARE * ctx.logic_um2["acc"],
             "datapath": (1 - ACC_CONTROL_SHARE) * ctx.logic_um2["acc"]}
    logic = [{o: wants[o] * sum(owner(n) == o for n in f) / count[o] for o in MEMORY_OWNERS if count[o]}
             for f in faces]
    free = ctx.logic_um2["kmac"]              # the KMAC's: no memory of its own (FREE_OWNER)
    # the street beside each shelf belongs to the band the shelf faces
    street = [0.0] * nb
    for i, group in enumerate(sh):
        if len(group) <= PER_SHELF:
            street[band_of[i]] += max(0.0, core.w - len(group) * (ctx.sram.w + 2 * HALO_X_UM)) * h
    # a shelf facing down with another facing up above it: back to back
    pairs = sum(1 for i in range(len(sh) - 1) if not up[i] and up[i + 1])
    bottom_gap = need_n if up[0] else 0.0    # a lowest shelf facing up turns its back to the pin band
    top_gap = need_n if not up[-1] else 0.0
    left = (core.h - len(sh) * h - pairs * 2 * HALO_Y_UM - bottom_gap - top_gap
            - (nb + pairs + 1) * row)         # a row for every position snapped up to the grid
    # each band at least both facing edges' channels, and the height whose horizontal tracks
    # (within the routing margin) carry the nets of the macros west of the street to it
    per_um = rc.tracks_per_um(ctx.tech["routing"], {**ROUTING, "RT_MAX_LAYER": w.rt_max_layer}, "HORIZONTAL")
    pins = sum(routed_edge_pins(m0, "N").values())
    far = [0] * nb
    for i, group in enumerate(sh):
        if len(group) <= PER_SHELF:
            far[band_of[i]] += min(len(group), STREET_AFTER) * pins
    minimum = [max(2 * need_s if faces[k] else row, f / (per_um * rc.MARGIN), (least or {}).get(k, 0.0))
               for k, f in enumerate(far)]
    if left < sum(minimum):
        raise FlowError(f"{len(sh)} shelves leave {left:.1f} um of the core's {core.h:.1f} um; its {nb} bands "
                        f"need {sum(minimum):.1f} um for their channels")

    # the free owner's logic may sit in any band that faces memories (the pin band keeps Caravel's
    # pins' cells): first in the room a band at its minimum height has left at utilisation u, the
    # rest in height added to the bands that grow with their logic, so all end at u
    takes = [bool(f) for f in faces]

    def heights(u):
        hs = [max(mn, (sum(lg.values()) / u - st) / core.w) for mn, lg, st in zip(minimum, logic, street)]
        room = sum(h * core.w + st - sum(lg.values()) / u for h, lg, st, t in zip(hs, logic, street, takes) if t)
        grow = [t and h > mn for h, mn, t in zip(hs, minimum, takes)]
        if not any(grow):
            grow = takes
        extra = max(0.0, free / u - room) / core.w
        weight = sum(h for h, g in zip(hs, grow) if g)
        return [h + extra * h / weight if g else h for h, g in zip(hs, grow)]
    lo, hi = 1e-3, 10.0                      # the utilisation at which the bands fill the height
    for _ in range(60):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if sum(heights(mid)) > left else (lo, mid)
    hs = heights(hi)
    hs = [x + (left - sum(hs)) * x / sum(hs) for x in hs]
    placements, strips = {}, []
    y = core.y0
    for i, group in enumerate(sh):
        if not up[i]:                         # the band below this shelf ends here
            if i == 0 or up[i - 1]:
                y0 = fpm._snap_up(y, core.y0, row)
                y = fpm._snap_down(y0 + hs[band_of[i]], core.y0, row)
                strips.append((round(y0, 4), round(y, 4)))
            orient = "N"
        else:
            if i == 0:                        # the pin band below it, then its back's channel
                y1 = fpm._snap_down(core.y0 + hs[0], core.y0, row)
                strips.append((round(core.y0, 4), round(y1, 4)))
                y = y1 + bottom_gap
            elif not up[i - 1]:               # back to back with the shelf below
                y += 2 * HALO_Y_UM
            y = fpm._snap_up(y, core.y0, row)
            orient = "FS"
        for n, x in zip(group, _shelf_x(ctx, len(group), core)):
            placements[n] = fpm.Placement(n, round(x, 4), round(y, 4), orient)
        y += h
        if up[i] and (i == len(sh) - 1):      # the top band above a last shelf facing up
            y0 = fpm._snap_up(y, core.y0, row)
            y = fpm._snap_down(y0 + hs[band_of[i]], core.y0, row)
            strips.append((round(y0, 4), round(y, 4)))
    if y > core.y1 - top_gap + 1e-6:
        raise FlowError(f"the flat floorplan ends at y {y:.2f}, above the core's {core.y1 - top_gap:.2f}")
    regions = []
    for k, (y0, y1) in enumerate(strips):
        pin_band = first_up and k == 0
        below = core.y0 if k == 0 else y0 - h - HALO_Y_UM
        above = (y1 + bottom_gap if pin_band else y1 + h + HALO_Y_UM) if k < nb - 1 or not up[-1] else core.y1
        regions.append((round(max(below, core.y0), 4), round(min(above, core.y1), 4)))
    bands = {f"band{k}": {"strip": strips[k], "region": regions[k], "faces": faces[k], "logic": logic[k]}
             for k in range(nb)}
    fp = fpm.fill_rows(fpm.Floorplan(name="user_project_wrapper (flat)", die=fpm.Rect(*w.die), core=core, site_w=w.site_w,
                       row_h=row, mfg_grid=ctx.tech["manufacturing_grid"], macros=macros,
                       placements=placements, logic_um2=sum(ctx.logic_um2.values()), max_util=cf.ARCH_MAX_UTIL,
                       straps=cf.wrapper_straps(ctx), pin_layers=cf.SIGNAL_PIN_LAYERS,
                       notes={"boot_ram_bytes": boot, "main_sram_bytes": main,
                              "halo_x_um": HALO_X_UM, "halo_y_um": HALO_Y_UM}))
    spread(bands, band_rows(fp, bands), free, takes)
    return fp, bands


def spread(bands: dict, rows: dict, free: float, takes: list[bool]) -> None:
    """The free owner's logic into the bands that take it (bands, in place): water-filled on their
    rows, so that those it reaches end at one utilisation and none above it gets any."""
    names = [n for n, t in zip(bands, takes) if t]
    fixed = {n: sum(bands[n]["logic"].values()) for n in names}

    def need(u):
        return sum(max(0.0, u * rows[n]["area"] - fixed[n]) for n in names)
    if not free or not names:
        return
    lo, hi = 0.0, 10.0
    for _ in range(60):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if need(mid) < free else (lo, mid)
    for n in names:
        bands[n]["logic"][FREE_OWNER] = max(0.0, hi * rows[n]["area"] - fixed[n]) * free / need(hi)


def as_config(ctx: cf.Context, fp: fpm.Floorplan) -> dict:
    """The variables the power-reach and routing checks read, as a LibreLane configuration of this
    floorplan would hold them (the wrapper's grid from Caravel's files)."""
    p = ctx.wrapper.pdn
    v, h = p.vertical, p.horizontal
    cell = ctx.sram.cell
    return {"CORE_AREA": fp.core.as_list(), "VDD_NETS": [p.nets[0]], "GND_NETS": [p.nets[1]],
            "PDN_MULTILAYER": True, "PDN_CORE_RING": True, "PDN_EXTEND_TO": "core_ring",
            "PDN_VWIDTH": v.width, "PDN_VSPACING": v.spacing, "PDN_VPITCH": v.pitch, "PDN_VOFFSET": v.offset,
            "PDN_HWIDTH": h.width, "PDN_HSPACING": h.spacing, "PDN_HPITCH": h.pitch, "PDN_HOFFSET": h.offset,
            "PDN_VERTICAL_LAYER": v.layer, "PDN_HORIZONTAL_LAYER": h.layer,
            "FP_MACRO_HORIZONTAL_HALO": HALO_X_UM, "FP_MACRO_VERTICAL_HALO": HALO_Y_UM,
            "PDN_HORIZONTAL_HALO": cf.HALO_UM, "PDN_VERTICAL_HALO": cf.HALO_UM,
            **ROUTING, "RT_MAX_LAYER": ctx.wrapper.rt_max_layer,
            "MACROS": {cell: {"instances": {n: {"location": [pl.x, pl.y], "orientation": pl.orient}
                                            for n, pl in fp.placements.items()}}}}


def _in_region(y: float, region: tuple) -> bool:
    return region[0] - 1e-6 <= y < region[1] - 1e-6


def band_rows(fp: fpm.Floorplan, bands: dict) -> dict:
    """band -> its row area (um2) and the centroid of its rows (where its logic is, on average)."""
    out = {}
    for name, b in bands.items():
        segs = [(y, x0, x1) for y, x0, x1 in fp.rows if _in_region(y, b["region"])]
        area = sum((x1 - x0) * fp.row_h for _, x0, x1 in segs)
        cx = sum((x1 - x0) * (x0 + x1) / 2 for _, x0, x1 in segs) * fp.row_h / area if area else 0.0
        cy = sum((x1 - x0) * (y + fp.row_h / 2) for y, x0, x1 in segs) * fp.row_h / area if area else 0.0
        out[name] = {"area": area, "at": (cx, cy)}
    return out


@functools.lru_cache(maxsize=1)
def wrapper_pins() -> dict:
    """Caravel's wrapper pins (name -> point, um) from its golden DEF (CARAVEL_ROOT)."""
    return caravel.read_pins(caravel.caravel_root() / caravel.GOLDEN_DEF)


def nets(ctx: cf.Context, fp: fpm.Floorplan, bands: dict, sideload: int, acc_ports: int,
         kmac_ports: int) -> list[rc.Nets]:
    """The net groups of the study: each SRAM's connected pins to the band it faces (the cells
    that drive and take them sit there), Caravel's pins that reach the SoC's logic to the CPU's,
    and the nets between the owners' logic (CONTROL_DATAPATH_NETS; CPU <-> ACC and KMAC: their
    ports but the side-load; the side-load between the datapath and the KMAC), each owner at the
    centroid of its logic over the bands."""
    rows = band_rows(fp, bands)
    where = {n: b for b, v in bands.items() for n in v["faces"]}
    out = []
    for n, pl in fp.placements.items():
        r = pl.rect(ctx.sram)
        band = rc.Endpoint(f"{where[n]} cells", rows[where[n]]["at"])
        for edge, count in routed_edge_pins(fp.macros[n], pl.orient).items():
            at = {"S": ((r.x0 + r.x1) / 2, r.y0), "N": ((r.x0 + r.x1) / 2, r.y1),
                  "W": (r.x0, (r.y0 + r.y1) / 2), "E": (r.x1, (r.y0 + r.y1) / 2)}[edge]
            out.append(rc.Nets(rc.Endpoint(f"{n} {edge}", at), band, count))
    ends = {}
    for o in OWNERS:
        weights = {b: v["logic"].get(o, 0.0) for b, v in bands.items()}
        total = sum(weights.values())
        if total:
            ends[o] = rc.Endpoint(f"{o} logic", tuple(sum(weights[b] * rows[b]["at"][i] for b in bands) / total
                                                      for i in (0, 1)))
    # Caravel's pins that reach the SoC's logic (soc/caravel.py used_pins), each to the CPU's
    pins = wrapper_pins()
    for name in caravel_soc.used_pins():
        out.append(rc.Nets(rc.Endpoint(f"pin {name}", pins[name]), ends["cpu"], 1))
    out.append(rc.Nets(ends["control"], ends["datapath"], CONTROL_DATAPATH_NETS))
    out.append(rc.Nets(ends["cpu"], ends["control"], acc_ports - sideload))
    # the KMAC's: with no logic of its own (a fixture) it sits with the datapath, as before
    kmac = ends.get(FREE_OWNER, ends["datapath"])
    out.append(rc.Nets(ends["cpu"], kmac, kmac_ports - sideload))
    if kmac is not ends["datapath"]:
        out.append(rc.Nets(ends["datapath"], kmac, sideload))
    return out


def study(ctx: cf.Context, boot: int, main: int, ports: dict | None = None, layout: str = "hybrid") -> dict:
    """The flat floorplan for these CPU memories with every check: the floorplan's own (fpm.check),
    power reach, the routing estimate of its nets and each band's utilisation. ports: {'acc': n,
    'kmac': n, 'sideload': n} (the blocks' port bits; default the stored syntheses' with the
    600-bit side-load)."""
    ports = ports or {"acc": ctx.port_bits.get("acc", 0), "kmac": ctx.port_bits.get("kmac", 0),
                      "sideload": SIDELOAD_NETS}
    least: dict = {}
    for _ in range(SIZING_ROUNDS):
        fp, bands = floorplan(ctx, boot, main, layout, least)
        cfg = as_config(ctx, fp)
        groups = nets(ctx, fp, bands, ports["sideload"], ports["acc"], ports["kmac"])
        bodies = {n: pl.rect(ctx.sram) for n, pl in fp.placements.items()}
        lines = rc.estimate(fp.core, bodies, fp.rows, fp.row_h, groups, ctx.tech["routing"], cfg)
        # a vertical line's worst channel inside a band: that band is too low for the nets
        # that run along it; give it the height they need and place again
        strips = [b["strip"] for b in bands.values()]
        grow = {}
        for ln in lines:
            if ln["ok"] or ln["axis"] != "x":
                continue
            y0, y1 = ln["segment"]
            mid = (y0 + y1) / 2
            k = min(range(len(bands)), key=lambda j: 0.0 if strips[j][0] <= mid <= strips[j][1]
                    else min(abs(mid - strips[j][0]), abs(mid - strips[j][1])))
            # the strip's height for these nets, plus what of the channel is not the strip (halos)
            per_um = ln["capacity"] / (y1 - y0)
            extra = (y1 - y0) - (strips[k][1] - strips[k][0])
            grow[k] = max(grow.get(k, 0.0), ln["demand"] / (per_um * rc.MARGIN) - extra + fp.row_h)
        if not grow or all(least.get(k, 0.0) >= v for k, v in grow.items()):
            break
        least.update({k: max(least.get(k, 0.0), v) for k, v in grow.items()})
    results = fpm.check(fp)
    reach = pdn_rules.power_reach(cfg, {ctx.sram.cell: (ctx.sram.w, ctx.sram.h)})
    rows = band_rows(fp, bands)
    band_util = {n: round(sum(b["logic"].values()) / rows[n]["area"], 4) if rows[n]["area"] else math.inf
                 for n, b in bands.items()}
    worst = max(lines, key=lambda ln: ln["ratio"])
    placed = all(r["ok"] for r in results) and not reach["unpowered"]
    ok = placed and all(ln["ok"] for ln in lines) and all(u <= cf.ARCH_MAX_UTIL for u in band_util.values())
    return {"fits": ok, "placed": placed, "layout": layout, "fp": fp, "results": results, "bands": bands, "band_utilisation": band_util,
            "unpowered_um2": reach["unpowered_um2"], "routing_worst": worst, "routing_lines": len(lines),
            "routing": lines,
            "routing_over": [ln for ln in lines if not ln["ok"]]}


def summary(s: dict) -> dict:
    """The study's figures for reports/floorplan.json."""
    fp = s["fp"]
    return {"fits": s["fits"], "placed": s["placed"], "memory": fp.notes, "layout": s["layout"],
            "checks": [{"name": r["name"], "ok": r["ok"], "detail": r["detail"]} for r in s["results"]],
            "bands": {n: {"strip_um": list(b["strip"]), "region_um": list(b["region"]), "faces": b["faces"],
                          "logic_um2": {o: round(v, 1) for o, v in b["logic"].items()}}
                      for n, b in s["bands"].items()},
            "band_utilisation": s["band_utilisation"], "unpowered_rows_um2": s["unpowered_um2"],
            "routing_worst": {k: s["routing_worst"][k] for k in ("line", "demand", "capacity", "ratio")},
            "routing_lines": s["routing_lines"], "routing_lines_over": len(s["routing_over"]),
            "assumptions": {"acc_control_share": ACC_CONTROL_SHARE, "control_datapath_nets": CONTROL_DATAPATH_NETS,
                            "halo_x_um": HALO_X_UM, "halo_y_um": HALO_Y_UM, "per_shelf": PER_SHELF,
                            "street_after": STREET_AFTER, "shelves": list(LAYOUTS[s["layout"]][0]),
                            "max_band_utilisation": cf.ARCH_MAX_UTIL, "routing_margin": rc.MARGIN}}


def chip(ctx: cf.Context, boot: int, main: int, path=None) -> dict:
    """The chip's floorplan (CHIP_LAYOUT) for these CPU memories, as reports/floorplan.json
    `wrapper` holds it: the floorplan's summary, the study's figures, and every check (the
    floorplan's own, power reach, band utilisation, routing) in `checks`; drawn into path."""
    try:
        s = study(ctx, boot, main, layout=CHIP_LAYOUT)
    except FlowError as e:        # the layout cannot hold these memories at all
        if path is not None and Path(path).exists():
            Path(path).unlink()       # no picture of an earlier plan left beside this verdict
        return {"fits": False, "architecture": "flat", "layout": CHIP_LAYOUT, "error": str(e),
                "checks": [{"name": "layout", "ok": False, "detail": str(e)}]}
    w = s["routing_worst"]
    over = s["routing_over"]
    util = s["band_utilisation"]
    checks = [*({"name": r["name"], "ok": r["ok"], "detail": r["detail"]} for r in s["results"]),
              {"name": "power_reach", "ok": not s["unpowered_um2"],
               "detail": f"{s['unpowered_um2'] / 1e6:.3f} mm2 of rows reach no met5 strap of each net"
               if s["unpowered_um2"] else "every cell row reaches a met5 strap of vccd1 and of vssd1"},
              {"name": "band_utilisation", "ok": all(u <= cf.ARCH_MAX_UTIL for u in util.values()),
               "detail": ", ".join(f"{n} {u:.1%}" for n, u in util.items()) + f" (at most {cf.ARCH_MAX_UTIL:.0%})"},
              {"name": "routing", "ok": not over,
               "detail": (f"{len(over)} of {s['routing_lines']} cut lines have a channel over {rc.MARGIN:.0%} of its "
                          "tracks" if over else f"every channel of {s['routing_lines']} cut lines within "
                          f"{rc.MARGIN:.0%} of its tracks") + f"; worst {w['ratio']:.2f} ({w['line']})"}]
    if path is not None:
        fpm.plot([(s["fp"], s["results"])], path, ring=cf.ring_rects(ctx), title=(
            f"Flat ({CHIP_LAYOUT}): CPU boot RAM {boot // 1024} KiB + main SRAM {main // 1024} KiB, ACC IMEM / "
            f"DMEM at the wrapper level ({len(s['fp'].placements)} SRAMs): "
            + ("every check passes" if s["fits"] else "FAILS: " + ", ".join(c["name"] for c in checks if not c["ok"]))))
    return {**fpm.summary(s["fp"], s["results"]), **summary(s), "architecture": "flat", "checks": checks}


def ppa_entry(entry: dict) -> dict:
    """Block soc's `floorplan` in reports/ppa.json: the chip's floorplan for the current memory
    plan in short (the whole of it: `pqsoc floorplan`, reports/floorplan.json)."""
    ctx = cf.context()
    boot, main = cf.current_sizes()
    c = chip(ctx, boot, main)
    return {"fits": c["fits"], "report": f"{cf.REPORT_NAME} (`pqsoc floorplan`)", "architecture": "flat",
            "layout": CHIP_LAYOUT,
            "memory_plan": {"boot_ram_bytes": boot, "main_sram_bytes": main,
                            "acc_imem_bytes": acc_block.IMEM_SIZE, "acc_dmem_bytes": acc_block.DMEM_SIZE},
            "utilisation": c.get("utilisation"),
            "checks": [{"name": r["name"], "ok": r["ok"]} for r in c["checks"]]}


def study_plans(ctx: cf.Context, boot: int, main: int) -> dict:
    """The study of each layout for the current CPU memories and the smaller plans beside it, as
    reports/floorplan.json `flat_study` holds it (caravel_floorplan.report's `studies`)."""
    out = {}
    for layout in LAYOUTS:
        for b, m in dict.fromkeys(((boot, main), (8192, 2048), (6144, 2048), (4096, 4096))):
            key = f"{layout} {b // 1024}+{m // 1024} KiB"
            try:
                out[key] = summary(study(ctx, b, m, layout=layout))
            except FlowError as e:       # a plan the layout cannot hold at all
                out[key] = {"fits": False, "layout": layout, "error": str(e)}
    return out
