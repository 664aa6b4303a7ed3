# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""Place and route one gate netlist with Coriolis (Etesian placer, Katana router).

Run in its own process (`python -m pqsoc.flow.layout.pnr JOB.json`): Coriolis keeps one global
database per process and can abort the process on an internal error. JOB.json (written by
pqsoc.flow.layout) names the netlist (BLIF), the top, the PDK files, the engine settings and the
floorplan targets; the results go to JOB["out"]: <top>_export.def, <top>.gds (routing, cells as
abstracts) and pnr.json (cells, taps, fillers, rows, routing status, the time of each step).
Exit status: 0 done (routed, or placed only with JOB["route"] false), 1 routing incomplete,
2 a flow error printed as `[pnr] ERROR: ...`. Prints `[pnr] <step>` before each step so a
failure names it.

Floorplan, fill and pins are done here, not by Coriolis' block plugin, because its placer
(Coloquinte) lays rows on a grid of the site width: a 2.72 um row is not a multiple of the
0.46 um site, so it would stack rows 2.76 um apart (6 sites). The placer gets an area of rows
2.76 um apart; after placement each row is moved down to its true height (row k at k x 2.72 um),
which keeps the placement legal (cells never span rows) and lines the cells' pins up with the
met1 tracks. Well taps then go into free sites so that every point of a row is within the PDK's
tap distance of one (fixed tap columns before placement made Coloquinte's legaliser fail:
"Not all cells have been placed"); fillers and decaps close every remaining gap, so the supply
rails and wells are continuous.
"""
import json
import math
import os
import sys
import time
from pathlib import Path

from pqsoc.flow.layout import techlef


def step(name: str) -> None:
    print(f"[pnr] {name}", flush=True)


def main(job_path: str) -> int:
    job = json.loads(Path(job_path).read_text())
    out = Path(job["out"])
    times = {}
    t = time.time()

    step("setup: technology and cell library")
    from coriolis import CRL, Etesian, Katana, Anabatic
    from coriolis.helpers.overlay import UpdateSession
    from coriolis.Hurricane import (Box, DbU, Instance, Net, NetExternalComponents, Pin,
                                    Transformation)
    from coriolis.helpers import u
    from pqsoc.flow.layout import coriolis_tech as ct

    lef = techlef.read(Path(job["tech_lef"]))
    ct.setup_technology(lef, job["gds_layers"])
    ct.setup_gauges(lef, job["site"], job["pin_layer"], job["top_layer"], tuple(job["power_layers"]))
    ct.configure(job["site"], job["net_builder"], job["power"], job["ground"], job["fill_cells"],
                 (job["tie_cell"], job["tie_cell"]), job["buffer_cell"], job["clock_regex"],
                 job["route_top_layer"], 0.0, job["placement_effort"],
                 job.get("coriolis_overrides"))
    lib = ct.load_cells(Path(job["tech_lef"]), Path(job["cell_lef"]), out, lef.masterslice)
    times["setup_s"] = time.time() - t

    step("read netlist")
    t = time.time()
    os.chdir(out)           # Coriolis' BLIF reader takes a name and reads <name>.blif here
    cell = CRL.Blif.load(job["top"])
    if cell is None or not list(cell.getInstances()):
        print(f"[pnr] ERROR: {job['blif']} gave no cell or no instances", flush=True)
        return 2
    instances = list(cell.getInstances())
    site = lef.sites[job["site"]]
    row_h = u(site.height)
    step_x = u(site.width)
    # the placer's row pitch: the row height rounded to whole sites (see the module docstring)
    q_row = round(site.height / site.width) * step_x
    cell_area = sum(i.getMasterCell().getAbutmentBox().getWidth() * 1.0 *
                    i.getMasterCell().getAbutmentBox().getHeight() for i in instances)

    step("floorplan")
    tap = lib.getCell(job["tap_cell"])
    tap_w = tap.getAbutmentBox().getWidth()
    # a tap within tap_reach of every point of a row: one tap per 2 x tap_reach at least
    tap_reach = u(job["tap_distance_um"])
    core = cell_area / job["utilisation"] * (1 + tap_w / tap_reach)
    rows = max(2, math.ceil(math.sqrt(core / job["aspect"]) / row_h))
    width = math.ceil(core / (rows * row_h) / step_x) * step_x
    widest = max(i.getMasterCell().getAbutmentBox().getWidth() for i in instances)
    width = max(width, widest + 2 * tap_w)
    with UpdateSession():
        cell.setAbutmentBox(Box(0, 0, width, rows * q_row))
    print(f"[pnr] core {DbU.toPhysical(width, DbU.UnitPowerMicro):.2f} x "
          f"{DbU.toPhysical(rows * row_h, DbU.UnitPowerMicro):.2f} um, {rows} rows, "
          f"{len(instances)} cells, utilisation {cell_area / (width * rows * row_h):.3f}", flush=True)
    times["floorplan_s"] = time.time() - t

    step("place (Etesian)")
    t = time.time()
    etesian = Etesian.EtesianEngine.create(cell)
    etesian.place()
    etesian.destroy()
    times["place_s"] = time.time() - t

    step("rows to their height, well taps, fill")
    t = time.time()
    fills = sorted((lib.getCell(n) for n in job["fill_cells"]),
                   key=lambda c: -c.getAbutmentBox().getWidth())
    fill_names = {c.getName() for c in fills}
    with UpdateSession():
        for inst in list(cell.getInstances()):
            if inst.getMasterCell().getName() in fill_names:
                inst.destroy()          # the placer's own fillers follow the 2.76 um rows
        by_row = {}
        for inst in cell.getInstances():
            ab = inst.getAbutmentBox()
            r = round(ab.getYMin() / q_row)
            if ab.getYMin() != r * q_row:
                print(f"[pnr] ERROR: {inst.getName()} is off the placer's rows", flush=True)
                return 2
            tr = inst.getTransformation()
            orient = tr.getOrientation()
            flipped = orient == Transformation.Orientation.MY
            if flipped != (r % 2 == 1):
                print(f"[pnr] ERROR: {inst.getName()} has orientation {orient} in row {r}",
                      flush=True)
                return 2
            ty = r * row_h + (row_h if flipped else 0)
            inst.setTransformation(Transformation(tr.getTx(), ty, orient))
            by_row.setdefault(r, []).append(inst)
        cell.setAbutmentBox(Box(0, 0, width, rows * row_h))
        ntap = nfill = 0
        for r in range(rows):
            # the row as [x, width, instance] (instance None: a tap still to create)
            items = sorted(([i.getAbutmentBox().getXMin(), i.getAbutmentBox().getWidth(), i]
                            for i in by_row.get(r, [])), key=lambda it: it[0])
            for a, b in zip(items, items[1:]):
                if a[0] + a[1] > b[0]:
                    print(f"[pnr] ERROR: overlap in row {r} at "
                          f"x={DbU.toPhysical(b[0], DbU.UnitPowerMicro)} um", flush=True)
                    return 2
            orient = Transformation.Orientation.ID if r % 2 == 0 else Transformation.Orientation.MY
            ty = r * row_h + (row_h if r % 2 else 0)

            def gaps():
                x, out_ = 0, []
                for it in items:
                    if it[0] > x:
                        out_.append((x, it[0]))
                    x = it[0] + it[1]
                if x < width:
                    out_.append((x, width))
                return out_

            def make_room(xa):
                """One free site at a cell boundary xa: the cells from xa on move right by a tap
                width as far as the next gap, or else the cells before xa move left. Returns
                the tap's x, or None if the row has no free site."""
                j = next((k for k, it in enumerate(items) if it[0] >= xa), len(items))
                free_right = width - sum(it[1] for it in items[j:]) - xa
                free_left = xa - sum(it[1] for it in items[:j])
                if free_right >= tap_w:
                    shift, k = tap_w, j
                    while k < len(items) and shift > 0:
                        items[k][0] += shift
                        nxt = items[k + 1][0] if k + 1 < len(items) else width
                        shift = max(0, items[k][0] + items[k][1] - nxt)
                        k += 1
                    return xa
                if free_left >= tap_w:
                    shift, k = tap_w, j - 1
                    while k >= 0 and shift > 0:
                        items[k][0] -= shift
                        prev = items[k - 1][0] + items[k - 1][1] if k > 0 else 0
                        shift = max(0, prev - items[k][0])
                        k -= 1
                    return xa - tap_w
                return None

            # well taps: every point of the row within tap_reach of a tap
            last = -tap_reach          # a virtual tap left of the row
            while last + tap_reach < width:
                limit = last + 2 * tap_reach if last >= 0 else tap_reach
                best = None
                for g0, g1 in gaps():
                    xa = (min(g1 - tap_w, limit - tap_w // 2) // step_x) * step_x
                    if xa >= g0 and xa + tap_w // 2 > last and (best is None or xa > best):
                        best = xa
                if best is None:
                    # no free site in reach: open one at the last cell boundary in reach
                    bounds = [it[0] for it in items
                              if last < it[0] + tap_w // 2 and it[0] + tap_w // 2 <= limit]
                    best = make_room(max(bounds)) if bounds else None
                    if best is None:
                        print(f"[pnr] ERROR: no room for a well tap in row {r} within "
                              f"{DbU.toPhysical(max(last, 0), DbU.UnitPowerMicro):.2f}.."
                              f"{DbU.toPhysical(limit, DbU.UnitPowerMicro):.2f} um", flush=True)
                        return 2
                items.append([best, tap_w, None])
                items.sort(key=lambda it: it[0])
                last = best + tap_w // 2

            def put(master, name, xa):
                inst = Instance.create(cell, name, master)
                inst.setTransformation(Transformation(xa, ty, orient))
                inst.setPlacementStatus(Instance.PlacementStatus.FIXED)

            for x, w, inst in items:
                if inst is None:
                    put(tap, f"tap_{ntap}", x)
                    ntap += 1
                elif inst.getAbutmentBox().getXMin() != x:
                    inst.setTransformation(Transformation(x, ty, orient))
            for a, b in gaps():
                while a < b:
                    f = next((c for c in fills if c.getAbutmentBox().getWidth() <= b - a), None)
                    if f is None:
                        print(f"[pnr] ERROR: a gap of {b - a} DbU in row {r} cannot be filled",
                              flush=True)
                        return 2
                    put(f, f"fill_{nfill}", a)
                    nfill += 1
                    a += f.getAbutmentBox().getWidth()
    # a margin of free tracks around the rows, so the router never needs a track at the die
    # edge; whole rows high and whole met2/met4 pitches wide, so the tracks stay on the pins
    margin = u(job.get("margin_um", 0.0))
    mx = math.ceil(margin / (2 * step_x)) * 2 * step_x
    my = math.ceil(margin / row_h) * row_h
    die_w, die_h = width + 2 * mx, rows * row_h + 2 * my
    if mx or my:
        with UpdateSession():
            for inst in cell.getInstances():
                tr = inst.getTransformation()
                inst.setTransformation(Transformation(tr.getTx() + mx, tr.getTy() + my,
                                                      tr.getOrientation()))
            cell.setAbutmentBox(Box(0, 0, die_w, die_h))
    times["fill_s"] = time.time() - t

    step("I/O pins")
    t = time.time()
    af = CRL.AllianceFramework.get()
    rg = af.getRoutingGauge()
    io_nets = sorted((n for n in cell.getNets() if n.isExternal()
                      and n.getType() not in (Net.Type.POWER, Net.Type.GROUND)),
                     key=lambda n: str(n.getName()))
    height = die_h

    def gauge_of(name):
        return next(g for g in rg.getLayerGauges() if g.getLayer().getName() == name)

    def track_range(g, length):
        return [g.getOffset() + k * g.getPitch()
                for k in range(1, (length - g.getOffset()) // g.getPitch())]

    def access(g):
        """The router reaches a pin along a perpendicular layer's track: the pin sits on that
        layer's first (last) track inside the edge and is stretched to the edge after routing."""
        below = [x for x in rg.getLayerGauges() if x.getDepth() == g.getDepth() - 1
                 and x.getType() != CRL.RoutingLayerGauge.PinOnly]
        above = [x for x in rg.getLayerGauges() if x.getDepth() == g.getDepth() + 1]
        return (below or above)[0]

    # sides: (layer, side, edge-normal axis); N/S on the vertical pin layer, W/E on the horizontal
    v_g, h_g = gauge_of(job["pin_layer_ns"]), gauge_of(job["pin_layer_ew"])
    slots = []
    for side in ("S", "N"):
        a = access(v_g)
        ys = track_range(a, height)
        y = ys[0] if side == "S" else ys[-1]
        slots.append([(v_g, side, x, y) for x in track_range(v_g, die_w)])
    for side in ("W", "E"):
        a = access(h_g)
        xs = track_range(a, die_w)
        x = xs[0] if side == "W" else xs[-1]
        slots.append([(h_g, side, x, y) for y in track_range(h_g, height)])
    capacity = sum(len(s) for s in slots)
    if len(io_nets) > capacity:
        print(f"[pnr] ERROR: {len(io_nets)} pins do not fit on the {capacity} edge tracks",
              flush=True)
        return 2
    # spread the pins evenly over the four sides, in name order
    per_side = [len(s) * len(io_nets) // capacity for s in slots]
    for i in range(len(io_nets) - sum(per_side)):
        per_side[i % 4] += 1
    chosen = []
    for s, n in zip(slots, per_side):
        if n:
            stride = len(s) / n
            chosen += [s[int(i * stride)] for i in range(n)]
    direction = {"N": Pin.Direction.NORTH, "S": Pin.Direction.SOUTH,
                 "E": Pin.Direction.EAST, "W": Pin.Direction.WEST}
    pins = []
    with UpdateSession():
        for net, (g, side, x, y) in zip(io_nets, chosen):
            w = g.getWireWidth()
            pin = Pin.create(net, f"{net.getName()}.0", direction[side], Pin.PlacementStatus.FIXED,
                             g.getLayer(), x, y, w, w)
            NetExternalComponents.setExternal(pin)
            pins.append((pin, side))
    times["pins_s"] = time.time() - t

    # what is known before routing, written now so a router failure still leaves it
    result = {
        "top": job["top"],
        "cells": len(instances),
        "taps": ntap,
        "fillers": nfill,
        "rows": rows,
        "core_um": [DbU.toPhysical(width, DbU.UnitPowerMicro),
                    DbU.toPhysical(rows * row_h, DbU.UnitPowerMicro)],
        "die_um": [DbU.toPhysical(die_w, DbU.UnitPowerMicro),
                   DbU.toPhysical(die_h, DbU.UnitPowerMicro)],
        "cell_area_um2": cell_area / (u(1.0) ** 2),
        "io_pins": len(io_nets),
        "detailed_routing_success": None,
        "complete": False,
        "seconds": {k: round(v, 2) for k, v in times.items()},
    }
    (out / "pnr.json").write_text(json.dumps(result, indent=2) + "\n")

    routed = None
    if job.get("route", True):
        step("route (Katana)")
        t = time.time()
        katana = Katana.KatanaEngine.create(cell)
        katana.digitalInit()
        katana.runGlobalRouter(Katana.Flags.NoFlags)
        katana.loadGlobalRouting(Anabatic.EngineLoadGrByNet)
        katana.layerAssign(Anabatic.EngineNoNetLayerAssign)
        katana.runNegociate(Katana.Flags.NoFlags)
        routed = bool(katana.isDetailedRoutingSuccess())
        katana.finalizeLayout()
        katana.destroy()
        times["route_s"] = time.time() - t
    with UpdateSession():
        for pin, side in pins:      # stretch each pin to its edge of the die
            if side in "WE":
                reach = pin.getX() if side == "W" else die_w - pin.getX()
                pin.setWidth(2 * reach)
            else:
                reach = pin.getY() if side == "S" else height - pin.getY()
                pin.setHeight(2 * reach)

    step("write DEF")
    t = time.time()
    CRL.DefExport.drive(cell, 0)
    times["def_s"] = time.time() - t
    step("write GDS (routing; cells by reference)")
    t = time.time()
    CRL.Gds.save(cell)
    times["gds_s"] = time.time() - t
    result["detailed_routing_success"] = routed
    result["complete"] = True
    result["seconds"] = {k: round(v, 2) for k, v in times.items()}
    (out / "pnr.json").write_text(json.dumps(result, indent=2) + "\n")
    step(f"done: routed={routed}")
    return 0 if routed is not False else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
