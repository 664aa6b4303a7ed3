# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""`pqsoc pnr check [BLOCK ...] [--floorplan] [--synth] [--json PATH]`: every check of the
LibreLane configurations that needs no OpenROAD (README "Hardening"), a line each, non-zero on any
failure.

Per block: the committed configuration is the generated one and LibreLane's loader resolves it;
pdngen's strap rules, power reach and (for a hard macro of the wrapper, none in the flat
architecture) no met5 (pqsoc/flow/pdn_rules.py); the routing-capacity estimate of the wrapper
(pqsoc/flow/route_capacity.py with the nets of the flat floorplan, soc/flat_floorplan.py);
LibreLane's own steps before place-and-route (pqsoc/flow/prepnr.py); with --synth its synthesis
too, and the floorplan checked again with the logic area LibreLane synthesized (the wrapper's:
hours, by hand: neither CI nor `make report` runs it). Without blocks (or with --floorplan) first the
floorplan check of the current memory plan.
`--json` writes every verdict, which tapeout.json reads as each macro's checks passed here.
"""
import json
import sys
from pathlib import Path

from pqsoc import REPO, FlowError
from pqsoc.cli import blocks

# What only a real LibreLane run (OpenROAD) can pass, per macro: tapeout.json lists it beside the
# checks passed here.
ONLY_A_REAL_RUN = ("floorplan and PDN generation (pdngen)", "global placement and its density",
                   "clock-tree synthesis", "global routing congestion", "detailed routing (0 DRC)",
                   "post-route STA (every corner, SPEF)", "IR drop (PSM)", "Magic / KLayout DRC",
                   "LVS", "antenna", "GDS XOR")


class Results:
    """Every check's verdict, by block: printed as it comes, written with --json."""

    def __init__(self):
        self.blocks: dict[str, list[dict]] = {}

    def add(self, block: str, check: str, ok: bool, detail: str) -> bool:
        self.blocks.setdefault(block, []).append({"check": check, "ok": bool(ok), "detail": detail})
        if ok:
            print(f"[pnr check] {block}: {check}: {detail}")
        else:
            print(f"pqsoc pnr check: error: {block}: {check}: {detail}", file=sys.stderr)
        return ok

    def failed(self) -> list[str]:
        return [b for b, cs in self.blocks.items() if not all(c["ok"] for c in cs)]

    def write(self, path: Path) -> None:
        from pqsoc.flow import provenance
        path.parent.mkdir(parents=True, exist_ok=True)
        data = {"provenance": provenance.stamp(), "only_a_real_run": list(ONLY_A_REAL_RUN),
                "blocks": {b: {"ok": all(c["ok"] for c in cs), "checks": cs} for b, cs in self.blocks.items()}}
        path.write_text(json.dumps(data, indent=2) + "\n")


def check_command(args) -> int:
    from pqsoc.flow import openlane
    from pqsoc.flow.pdk import find_pdk
    names = args.blocks or [b.name for b in blocks.BLOCKS.values() if b.openlane is not None]
    pdk_root = find_pdk().root
    root, state = openlane.loader_pdk_root(pdk_root)
    if state is None:
        print(f"[pnr check] PDK {pdk_root} (LibreLane accepts its configuration as it is)")
    else:
        shown = root.relative_to(REPO) if root.is_relative_to(REPO) else root
        print(f"[pnr check] PDK {pdk_root} has an OpenLane 1 configuration: LibreLane loads it "
              f"through the overlay {shown} ({state})")
    res = Results()
    if args.floorplan or not args.blocks:
        try:
            ok, detail = floorplan_check()
        except FlowError as e:
            ok, detail = False, f"not run: {e}"
        res.add("floorplan", "memory plan", ok, detail)
    for name in names:
        check_block(name, root, pdk_root, res, getattr(args, "synth", False))
    if getattr(args, "json", None):
        res.write(Path(args.json))
    if failed := res.failed():
        print(f"pqsoc pnr check: failed: {' '.join(failed)}", file=sys.stderr)
        return 1
    return 0


def check_block(name: str, root: Path, pdk_root: Path, res: Results, synth: bool = False) -> None:
    from pqsoc.flow import openlane
    block = blocks.get(name)
    if block.openlane is None:
        raise FlowError(f"block {name} has no OpenLane configuration (Block.openlane)")
    print(f"[pnr check] {name}: generating its configuration and the files it names", flush=True)
    try:
        problems = openlane.prepare(block)   # VERILOG_FILES and the other build files must exist
        r = openlane.check(block, root, pdk_root)
    except FlowError as e:
        res.add(name, "LibreLane config loader", False, str(e))
        return
    keys = " ".join(f"{k}={r[k]}" for k in openlane.KEY_VARIABLES
                    if not (k == "FP_CORE_UTIL" and r["FP_SIZING"] == "absolute"))
    res.add(name, "LibreLane config loader", True, f"OK, {r['variables']} variables resolved; {keys}")
    for path, why in r["stand_ins"]:
        shown = Path(path).relative_to(REPO) if Path(path).is_relative_to(REPO) else path
        print(f"[pnr check] {name}:   stood in (empty file) for {shown}: {why}")
    if problems:
        res.add(name, "configuration inputs", False, "; ".join(problems))
        return
    power_rules(name, r["config"], res)
    routing(name, r["config"], res)
    librelane_steps(name, r["config_file"], root, res, synth)


def power_rules(name: str, cfg, res: Results) -> None:
    """pdngen's strap rules, a hard macro's metal under the wrapper's grid, power reach."""
    from pqsoc.flow import pdn_rules
    from soc.caravel_openlane import HARD_MACROS
    problems = pdn_rules.strap_problems(cfg)
    res.add(name, "pdngen strap rules", not problems, "; ".join(problems) or
            "pitch, width, spacing, offset as pdngen requires (PDN-0175, PDN-0185, the 5 nm grid)")
    if name in HARD_MACROS:
        problems = pdn_rules.macro_metal_problems(name, cfg)
        res.add(name, "no met5 under the wrapper's grid", not problems, "; ".join(problems) or
                "PDN_MULTILAYER false, RT_MAX_LAYER met4")
    if cfg.get("MACROS"):
        reach = pdn_rules.power_reach(cfg, macro_sizes())
        if reach["unpowered"]:
            ys = sorted({u[0] for u in reach["unpowered"]})
            detail = (f"{len({u[:3] for u in reach['unpowered']})} of {reach['rows']} cell row segments "
                      f"({reach['unpowered_um2'] / 1e6:.3f} mm2, rows at y {ys[0]:.2f} .. {ys[-1]:.2f} um) have "
                      "no met4 strap reaching a met5 strap of each net through the macros")
        else:
            detail = (f"every one of {reach['rows']} cell row segments reaches both nets"
                      + (" (met4 only: from the level above)" if reach.get("from_above") else ""))
        res.add(name, "power reach", not reach["unpowered"], detail)


def routing(name: str, cfg, res: Results) -> None:
    """The routing-capacity estimate of the wrapper: the flat floorplan's nets (soc/flat_floorplan.py)
    on the places its configuration gives the macros (the configuration's check holds them equal)."""
    from pqsoc.flow.route_capacity import MARGIN
    from soc.caravel_openlane import WRAPPER_BLOCK
    if not cfg.get("MACROS"):
        return
    if name != WRAPPER_BLOCK:
        res.add(name, "routing capacity", False, "no net model for a configuration with macros other than the wrapper's")
        return
    lines = route_estimate()
    bad = sorted((ln for ln in lines if not ln["ok"]), key=lambda ln: -ln["ratio"])
    worst = max(lines, key=lambda ln: ln["ratio"])
    for ln in bad[:4]:
        print(f"pqsoc pnr check: error: {name}: routing: {ln['line']} ({ln['axis']} = {ln['at']} um, channel "
              f"{ln['segment'][0]} .. {ln['segment'][1]}): {ln['demand']} nets cross, {ln['capacity']} tracks "
              f"({ln['ratio']:.2f} of them; at most {MARGIN:.0%}): "
              f"{', '.join(f'{k} {v}' for k, v in ln['crossing'].items())}", file=sys.stderr)
    detail = (f"{len(bad)} of {len(lines)} cut lines have a channel over {MARGIN:.0%} of its tracks; worst "
              f"{worst['ratio']:.2f} ({worst['demand']} nets, {worst['capacity']} tracks, {worst['line']})") if bad else \
        (f"{len(lines)} cut lines, every channel within {MARGIN:.0%} of its tracks (worst {worst['ratio']:.2f}, "
         f"{worst['line']})")
    res.add(name, "routing capacity", not bad, detail)


def route_estimate() -> list[dict]:
    """The flat floorplan's routing estimate (its study, soc/flat_floorplan.py) for the current
    CPU memories."""
    from pqsoc.flow import route_capacity
    from soc import caravel_openlane, flat_floorplan
    ctx, study = caravel_openlane.checked_plan()
    fp = study["fp"]
    groups = flat_floorplan.nets(ctx, fp, study["bands"], flat_floorplan.SIDELOAD_NETS,
                                 ctx.port_bits.get("acc", 0), ctx.port_bits.get("kmac", 0))
    bodies = {n: pl.rect(ctx.sram) for n, pl in fp.placements.items()}
    return route_capacity.estimate(fp.core, bodies, fp.rows, fp.row_h, groups, ctx.tech["routing"],
                                   flat_floorplan.as_config(ctx, fp))


def macro_sizes() -> dict:
    """Cell -> (w, h) of every macro a configuration may place: the SRAM macros' LEFs."""
    from pqsoc.flow import floorplan as fpm
    from pqsoc.flow.pdk import SRAM_MACROS, find_pdk
    pdk = find_pdk()
    out = {}
    for cell in SRAM_MACROS:
        a = fpm.read_lef(pdk.sram(cell, "lef"))
        out[a.cell] = (a.w, a.h)
    return out


def librelane_steps(name: str, config_file, pdk_root, res: Results, synth: bool = False) -> None:
    """LibreLane's steps before place-and-route on one configuration (pqsoc/flow/prepnr.py); synth:
    with its synthesis, whose area is then checked (synth_area_check)."""
    from pqsoc.flow import prepnr
    from pqsoc.flow.pdk import PDK, SCL
    r = prepnr.run(name, config_file, pdk_root, PDK, SCL, synth=synth)
    shown = r["run_dir"].relative_to(REPO) if r["run_dir"].is_relative_to(REPO) else r["run_dir"]
    for step, state in r["steps"]:
        detail = state if state == "passed" else f"{state}: {r['error']} (logs under {shown})"
        res.add(name, f"LibreLane {step}", state == "passed", detail)
    if synth and r["synth"] is not None:
        ok, detail = synth_area_check(name, r["synth"])
        res.add(name, "LibreLane synthesis area", ok, detail)


def synth_area_check(name: str, figures: dict) -> tuple[bool, str]:
    """LibreLane's netlist against what the project planned with. The wrapper (block caravel): the
    flat floorplan studied again with every owner's logic scaled by LibreLane's logic over the
    planned (pnr/floorplan_inputs.json); it must still fit. Another block: its area beside `pqsoc
    synth`'s (build/synth/BLOCK/stat.json), reported."""
    from pqsoc.flow import synth as synth_mod
    from soc.caravel_openlane import WRAPPER_BLOCK
    area, cells = figures["area_um2"], figures["cells"]
    if name != WRAPPER_BLOCK:
        stat = synth_mod.synth_dir(name) / "stat.json"
        if not stat.is_file():
            return True, f"{cells} cells, {area:.0f} um2 (no `pqsoc synth {name}` to compare with)"
        ours = float(json.loads(stat.read_text())["design"]["area"])
        return True, f"{cells} cells, {area:.0f} um2; `pqsoc synth {name}`: {ours:.0f} um2 ({area / ours - 1:+.1%})"
    from soc import caravel_floorplan as cf, flat_floorplan as ff
    logic, _, ports = cf.logic_figures()
    planned = sum(logic.values())
    # the SRAM macros: in the area when their Liberty was given to the stat command
    from pqsoc.flow import floorplan as fpm
    from pqsoc.flow.pdk import find_pdk
    pdk, macros = find_pdk(), 0.0
    for cell, count in figures["cells_by_type"].items():
        if cell.startswith("sky130_sram_") and cell in figures["invocation"]:
            a = fpm.read_lef(pdk.sram(cell, "lef"))
            macros += count * a.w * a.h
    actual = area - macros
    ratio = actual / planned
    ctx = cf.context(logic_um2={k: v * ratio for k, v in logic.items()}, port_bits=ports)
    boot, main = cf.current_sizes()
    s = ff.study(ctx, boot, main, layout=ff.CHIP_LAYOUT)
    util = ", ".join(f"{k} {v:.1%}" for k, v in s["band_utilisation"].items())
    return s["fits"], (f"{cells} cells, logic {actual / 1e6:.3f} mm2 ({ratio - 1:+.1%} on the "
                       f"{planned / 1e6:.3f} mm2 the floorplan is planned with); the flat floorplan with "
                       f"it {'fits' if s['fits'] else 'does NOT fit'}: bands {util} (at most "
                       f"{cf.ARCH_MAX_UTIL:.0%}), routing worst {s['routing_worst']['ratio']:.2f}")


def floorplan_check(ctx=None) -> tuple[bool, str]:
    """The current memory plan's flat floorplan (soc/flat_floorplan.py, the chip's layout),
    checked; printed."""
    from soc import caravel_floorplan, flat_floorplan
    ctx = ctx or caravel_floorplan.context()
    boot, main = caravel_floorplan.current_sizes()
    s = flat_floorplan.study(ctx, boot, main, layout=flat_floorplan.CHIP_LAYOUT)
    for r in s["results"]:
        print(f"[floorplan] wrapper {r['name']}: {'pass' if r['ok'] else 'FAIL'}: {r['detail']}")
    util = ", ".join(f"{b} {u:.1%}" for b, u in s["band_utilisation"].items())
    w = s["routing_worst"]
    print(f"[floorplan] wrapper power reach: {s['unpowered_um2'] / 1e6:.3f} mm2 of rows unpowered; bands {util}; "
          f"routing worst {w['ratio']:.2f} of its tracks ({w['line']})")
    plan = f"CPU boot RAM {boot // 1024} KiB + main SRAM {main // 1024} KiB, {flat_floorplan.CHIP_LAYOUT} layout"
    if s["fits"]:
        return True, f"user_project_wrapper (flat) with {plan}: fits, every floorplan check passes"
    failed = [r["name"] for r in s["results"] if not r["ok"]] + (["power reach"] if s["unpowered_um2"] else []) \
        + (["routing"] if s["routing_over"] else []) \
        + [f"{b} utilisation" for b, u in s["band_utilisation"].items() if u > caravel_floorplan.ARCH_MAX_UTIL]
    return False, f"user_project_wrapper (flat) with {plan} does NOT fit: " + ", ".join(failed)
