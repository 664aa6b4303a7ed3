# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""A study of the `flat` physical architecture (soc/README.md "The physical architecture"): every
SRAM macro at the wrapper level, all logic flat, checked with the same checks `pqsoc pnr check`
runs on a configuration. Not the chip's configuration yet: `pqsoc floorplan` reports it (reports/floorplan.json
`flat_study`).

The layout, from the south edge (Caravel's Wishbone and logic-analyzer pins) up: three
"sandwiches", each a shelf of SRAMs with port 0's edge (72 pins, the abstract's south edge) turned
up, a band of standard cells, and a shelf with that edge turned down, so that every SRAM's data
pins face the cells that use them: the CPU's memories around the CPU's band (Ibex, LiteX: beside
Caravel's pins), the ACC's IMEM around its control, the DMEM around its 256-bit datapath and the
KMAC. Between sandwiches the shelves stand back to back (their north edges carry only port 1,
which the SoC leaves unused: outputs open, inputs tied), a gap no wider than two halos so that no
cell row (which no strap could reach) is left in it. The bands share the height left in proportion
to the logic they hold (BAND_SHARE); the wrapper's met5 strap pitch is Caravel's.
"""
import math

from ip.acc import block as acc_block
from pqsoc import FlowError
from pqsoc.flow import floorplan as fpm
from pqsoc.flow import pdn_rules
from pqsoc.flow import route_capacity as rc
from soc import caravel_floorplan as cf

# The SRAMs' halo here: wide enough that a back-to-back gap of two halos holds port 1's channel
# (15.9 um for its 35 pins) and no cell row, and that the gaps between the SRAMs of a full shelf
# (the core's width less four macros, over three gaps) hold no sliver of row that no strap reaches.
HALO_UM = 25.0
PER_SHELF = 4
# The share of the ACC's logic in the IMEM band (control: fetch, decode, GPRs, loops) against the
# DMEM band (the wide datapath: WDRs, the wide ALU, the stream unit); a planning figure, to be
# replaced by the synthesized split once the hierarchy reports it.
ACC_CONTROL_SHARE = 0.3
# Nets between bands (an estimate: no netlist is partitioned yet): control <-> datapath (decoded
# operation, register indices, GPR values, flags, loop state), CPU <-> ACC (the ACC's and the
# KMAC's ports other than the side-load: bus, DMA, interrupts).
CONTROL_DATAPATH_NETS = 250


def _sram(ctx: cf.Context, name: str) -> fpm.Macro:
    ch = fpm.channel_widths(ctx.sram, ctx.tech["routing"], ctx.wrapper.rt_max_layer, cf.TRACK_USE, HALO_UM)
    return fpm.Macro(name, ctx.sram, HALO_UM, ch, face="S")


def _shelf(ctx, names, y, orient, core) -> dict:
    """A shelf of SRAMs at y: the outer ones a halo from the core's edges, the rest of the width
    shared by the gaps between them (site grid)."""
    w = ctx.sram.w
    site = ctx.wrapper.site_w
    n = len(names)
    gap = (core.w - n * w - 2 * HALO_UM) / (n - 1) if n > 1 else 0.0
    out = {}
    for k, name in enumerate(names):
        x = fpm._snap_up(core.x0 + HALO_UM + (gap + w) * k, core.x0, site)
        out[name] = fpm.Placement(name, round(x, 4), round(y, 4), orient)
    return out


def floorplan(ctx: cf.Context, boot: int, main: int) -> tuple[fpm.Floorplan, dict]:
    """The flat wrapper floorplan for CPU memories boot + main bytes: (floorplan, bands), bands:
    name -> (y0, y1, logic um2 it is to hold)."""
    w = ctx.wrapper
    core = fpm.Rect(*w.core)
    per = acc_block.MACRO_BYTES
    cpu = [f"boot_ram{k}" for k in range(boot // per)] + [f"main_sram{k}" for k in range(main // per)]
    imem = [f"imem{k}" for k in range(acc_block.IMEM_SIZE // per)]
    dmem = [f"dmem{k}" for k in range(acc_block.DMEM_SIZE // per)]
    sandwiches = [("cpu", cpu), ("control", imem), ("datapath", dmem)]
    macros = {n: _sram(ctx, n) for _, names in sandwiches for n in names}
    h = ctx.sram.h
    need_s = max(macros[cpu[0]].channel.get("S", HALO_UM), HALO_UM)
    need_n = max(macros[cpu[0]].channel.get("N", HALO_UM), HALO_UM)
    logic = ctx.logic_um2
    wants = {"cpu": logic["top"], "control": ACC_CONTROL_SHARE * logic["acc"],
             "datapath": (1 - ACC_CONTROL_SHARE) * logic["acc"] + logic["kmac"]}
    shelves = []
    for name, names in sandwiches:
        if len(names) > 2 * PER_SHELF:
            raise FlowError(f"{name}: {len(names)} SRAMs do not fit two shelves of {PER_SHELF}")
        # two shelves facing each other across the band, or one above it facing down
        lower = names[:len(names) // 2] if len(names) > PER_SHELF else []
        shelves.append((name, lower, names[len(lower):]))
    fixed = (need_n * (1 + bool(shelves[0][1])) + sum(h * (bool(lo) + bool(up)) for _, lo, up in shelves)
             + 2 * HALO_UM * (len(shelves) - 1))
    left = core.h - fixed
    if left <= 0:
        raise FlowError(f"the shelves alone take {fixed:.1f} um of the core's {core.h:.1f} um")
    # each band at least its two SRAM edges' channels; the rest in proportion to its logic
    minimum = 2 * need_s
    spare = left - minimum * len(shelves)
    total = sum(wants.values())
    heights = {n: minimum + max(0.0, spare) * wants[n] / total for n, _, _ in shelves}
    row = w.row_h
    placements, bands = {}, {}
    y = core.y0 + (need_n if shelves[0][1] else 0)
    for k, (name, lower, upper) in enumerate(shelves):
        y = fpm._snap_up(y, core.y0, row)
        if lower:
            placements.update(_shelf(ctx, lower, y, "FS", core))     # port 0 up, into the band
            band0 = y + h
        else:
            band0 = y if k else core.y0                               # the band from the core's edge
        band1 = fpm._snap_down(band0 + heights[name], core.y0, row)
        bands[name] = (round(band0, 4), round(band1, 4), wants[name])
        if upper:
            placements.update(_shelf(ctx, upper, band1, "N", core))   # port 0 down
            y = band1 + h + 2 * HALO_UM
        else:
            y = band1
    fp = fpm.Floorplan(name="user_project_wrapper (flat)", die=fpm.Rect(*w.die), core=core, site_w=w.site_w,
                       row_h=row, mfg_grid=ctx.tech["manufacturing_grid"], macros=macros,
                       placements=placements, logic_um2=sum(logic.values()), max_util=cf.ARCH_MAX_UTIL,
                       straps=cf.wrapper_straps(ctx), pin_layers=cf.SIGNAL_PIN_LAYERS,
                       notes={"boot_ram_bytes": boot, "main_sram_bytes": main, "halo_um": HALO_UM})
    return fpm.fill_rows(fp), bands


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
            "FP_MACRO_HORIZONTAL_HALO": HALO_UM, "FP_MACRO_VERTICAL_HALO": HALO_UM,
            "PDN_HORIZONTAL_HALO": cf.HALO_UM, "PDN_VERTICAL_HALO": cf.HALO_UM,
            "RT_MIN_LAYER": "met1", "RT_MAX_LAYER": ctx.wrapper.rt_max_layer, "GRT_ADJUSTMENT": 0.3,
            "GRT_LAYER_ADJUSTMENTS": [0.99, 0, 0, 0, 0, 0],
            "MACROS": {cell: {"instances": {n: {"location": [pl.x, pl.y], "orientation": pl.orient}
                                            for n, pl in fp.placements.items()}}}}


def nets(ctx: cf.Context, fp: fpm.Floorplan, bands: dict, sideload: int, acc_ports: int,
         kmac_ports: int) -> list[rc.Nets]:
    """The net groups of the study: each SRAM's pin edges to the band they face (the cells that
    drive and take them sit there), the side-load port inside the datapath band, the bands
    between them (CONTROL_DATAPATH_NETS; CPU <-> ACC and KMAC: their ports but the side-load)."""
    def band_ep(name):
        y0, y1, _ = bands[name]
        return rc.Endpoint(f"{name} band", ((fp.core.x0 + fp.core.x1) / 2, (y0 + y1) / 2))
    out = []
    for n, pl in fp.placements.items():
        r = pl.rect(ctx.sram)
        for edge, layers in fpm.placed_edge_pins(fp.macros[n], pl.orient).items():
            at = {"S": ((r.x0 + r.x1) / 2, r.y0), "N": ((r.x0 + r.x1) / 2, r.y1),
                  "W": (r.x0, (r.y0 + r.y1) / 2), "E": (r.x1, (r.y0 + r.y1) / 2)}[edge]
            # the band whose rows are nearest this edge's middle
            near = min(bands, key=lambda b: 0 if bands[b][0] <= at[1] <= bands[b][1]
                       else min(abs(at[1] - bands[b][0]), abs(at[1] - bands[b][1])))
            out.append(rc.Nets(rc.Endpoint(f"{n} {edge}", at), band_ep(near), sum(layers.values())))
    out.append(rc.Nets(band_ep("control"), band_ep("datapath"), CONTROL_DATAPATH_NETS))
    out.append(rc.Nets(band_ep("cpu"), band_ep("control"), acc_ports - sideload))
    out.append(rc.Nets(band_ep("cpu"), band_ep("datapath"), kmac_ports - sideload))
    return out


def study(ctx: cf.Context, boot: int, main: int, ports: dict | None = None) -> dict:
    """The flat floorplan for these CPU memories with every check: the floorplan's own (fpm.check),
    power reach, and the routing estimate of its nets. ports: {'acc': n, 'kmac': n, 'sideload': n}
    (the hard blocks' port bits; default the stored syntheses' with the 600-bit side-load)."""
    fp, bands = floorplan(ctx, boot, main)
    results = fpm.check(fp)
    cfg = as_config(ctx, fp)
    reach = pdn_rules.power_reach(cfg, {ctx.sram.cell: (ctx.sram.w, ctx.sram.h)})
    ports = ports or {"acc": ctx.port_bits.get("acc", 0), "kmac": ctx.port_bits.get("kmac", 0), "sideload": 600}
    groups = nets(ctx, fp, bands, ports["sideload"], ports["acc"], ports["kmac"])
    bodies = {n: pl.rect(ctx.sram) for n, pl in fp.placements.items()}
    lines = rc.estimate(fp.core, bodies, fp.rows, fp.row_h, groups, ctx.tech["routing"], cfg)
    band_util = {}
    for name, (y0, y1, want) in bands.items():
        area = sum((x1 - x0) * fp.row_h for y, x0, x1 in fp.rows if y0 - 1e-6 <= y < y1 - 1e-6)
        band_util[name] = round(want / area, 4) if area else math.inf
    worst = max(lines, key=lambda ln: ln["ratio"])
    ok = (all(r["ok"] for r in results) and not reach["unpowered"] and all(ln["ok"] for ln in lines)
          and all(u <= cf.ARCH_MAX_UTIL for u in band_util.values()))
    return {"fits": ok, "fp": fp, "results": results, "bands": bands, "band_utilisation": band_util,
            "unpowered_um2": reach["unpowered_um2"], "routing_worst": worst,
            "routing_over": [ln for ln in lines if not ln["ok"]]}


def summary(s: dict) -> dict:
    """The study's figures for reports/floorplan.json."""
    fp = s["fp"]
    return {"fits": s["fits"], "memory": fp.notes,
            "checks": [{"name": r["name"], "ok": r["ok"], "detail": r["detail"]} for r in s["results"]],
            "bands_um": {n: [b[0], b[1]] for n, b in s["bands"].items()},
            "band_utilisation": s["band_utilisation"], "unpowered_rows_um2": s["unpowered_um2"],
            "routing_worst": {k: s["routing_worst"][k] for k in ("line", "demand", "capacity", "ratio")},
            "routing_lines_over": len(s["routing_over"]),
            "assumptions": {"acc_control_share": ACC_CONTROL_SHARE, "control_datapath_nets": CONTROL_DATAPATH_NETS,
                            "halo_um": HALO_UM, "max_band_utilisation": cf.ARCH_MAX_UTIL}}


def study_plans(ctx: cf.Context, boot: int, main: int) -> dict:
    """The study for the current CPU memories and for the one-shelf 4 + 4 KiB, as
    reports/floorplan.json `flat_study` holds it (caravel_floorplan.report's `studies`)."""
    out = {}
    for b, m in dict.fromkeys(((boot, main), (4096, 4096))):
        try:
            out[f"{b // 1024}+{m // 1024} KiB"] = summary(study(ctx, b, m))
        except FlowError as e:       # a plan the study's layout cannot hold at all
            out[f"{b // 1024}+{m // 1024} KiB"] = {"fits": False, "error": str(e)}
    return out
