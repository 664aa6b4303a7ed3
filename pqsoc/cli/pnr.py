# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""`pqsoc pnr check [BLOCK ...] [--floorplan] [--json PATH]`: every check of the LibreLane
configurations that needs no OpenROAD (README "Hardening"), a line each, non-zero on any failure.

Per block: the committed configuration is the generated one and LibreLane's loader resolves it;
pdngen's strap rules, power reach and (for a hard macro of the wrapper) no met5
(pqsoc/flow/pdn_rules.py); the routing-capacity estimate (pqsoc/flow/route_capacity.py with the
nets of soc/route_model.py); LibreLane's own steps before place-and-route (pqsoc/flow/prepnr.py).
Without blocks (or with --floorplan) first the floorplan check of the current memory plan.
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
        check_block(name, root, pdk_root, res)
    if getattr(args, "json", None):
        res.write(Path(args.json))
    if failed := res.failed():
        print(f"pqsoc pnr check: failed: {' '.join(failed)}", file=sys.stderr)
        return 1
    return 0


def check_block(name: str, root: Path, pdk_root: Path, res: Results) -> None:
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
    librelane_steps(name, r["config_file"], root, res)


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
    """The routing-capacity estimate of a configuration with macros."""
    from pqsoc.flow.route_capacity import MARGIN
    if not cfg.get("MACROS"):
        return
    lines = route_estimate(cfg)
    bad = sorted((ln for ln in lines if not ln["ok"]), key=lambda ln: -ln["ratio"])
    worst = max(lines, key=lambda ln: ln["ratio"])
    for ln in bad[:4]:
        print(f"pqsoc pnr check: error: {name}: routing: {ln['line']} ({ln['axis']} = {ln['at']} um): "
              f"{ln['demand']} nets cross, {ln['capacity']} tracks ({ln['ratio']:.2f} of them; at most "
              f"{MARGIN:.0%}): {', '.join(f'{k} {v}' for k, v in ln['crossing'].items())}", file=sys.stderr)
    detail = (f"{len(bad)} of {len(lines)} cut lines over {MARGIN:.0%} of their tracks; worst "
              f"{worst['ratio']:.2f} ({worst['demand']} nets, {worst['capacity']} tracks, {worst['line']})") if bad else \
        f"{len(lines)} cut lines within {MARGIN:.0%} of their tracks (worst {worst['ratio']:.2f}, {worst['line']})"
    res.add(name, "routing capacity", not bad, detail)


def route_estimate(cfg) -> list[dict]:
    from pqsoc.flow import floorplan as fpm
    from pqsoc.flow import route_capacity
    from pqsoc.flow.pdk import SCL, SRAM_MACROS, find_pdk
    from pqsoc.flow.pdn_rules import ROW_H, SITE_W
    from soc import route_model
    from soc.caravel_openlane import HARD_MACROS, hardened_ports, _width, pin_order
    pdk = find_pdk()
    abstracts = {}
    for cell in SRAM_MACROS:
        a = fpm.read_lef(pdk.sram(cell, "lef"))
        abstracts[a.cell] = a
    sizes = macro_sizes()
    hard = {}
    for name in HARD_MACROS:
        top = blocks.get(name).top
        if top in (cfg.get("MACROS") or {}):
            hard[top] = {"size": sizes[top], "face": pin_order(name).splitlines()[0].lstrip("#"),
                         "ports": {p: _width(d) for p, d in hardened_ports(name).items()}}
    bodies, nets = route_model.nets(cfg, abstracts, hard)
    core = fpm.Rect(*[float(v) for v in cfg["CORE_AREA"]])
    hh = float(cfg.get("FP_MACRO_HORIZONTAL_HALO") or 0)
    vh = float(cfg.get("FP_MACRO_VERTICAL_HALO") or 0)
    rows = fpm.cell_rows(core, ROW_H, SITE_W, [fpm.Rect(b.x0 - hh, b.y0 - vh, b.x1 + hh, b.y1 + vh)
                                               for b in bodies.values()])
    tech = fpm.read_tech_lef(pdk.base / "libs.ref" / SCL / "techlef" / f"{SCL}.tlef")
    return route_capacity.estimate(core, bodies, rows, ROW_H, nets, tech["routing"], cfg)


def macro_sizes() -> dict:
    """Cell -> (w, h) of every macro a configuration may place: the SRAM macros' LEFs, and the
    hard macros' dies from their configurations (their LEFs exist only after `make harden`)."""
    from pqsoc.flow import openlane
    from pqsoc.flow import floorplan as fpm
    from pqsoc.flow.pdk import SRAM_MACROS, find_pdk
    from soc.caravel_openlane import HARD_MACROS
    pdk = find_pdk()
    out = {}
    for cell in SRAM_MACROS:
        a = fpm.read_lef(pdk.sram(cell, "lef"))
        out[a.cell] = (a.w, a.h)
    for name in HARD_MACROS:
        b = blocks.get(name)
        d = [float(v) for v in openlane.config(b)["DIE_AREA"]]
        out[b.top] = (d[2] - d[0], d[3] - d[1])
    return out


def librelane_steps(name: str, config_file, pdk_root, res: Results) -> None:
    """LibreLane's steps before place-and-route on one configuration (pqsoc/flow/prepnr.py)."""
    from pqsoc.flow import prepnr
    from pqsoc.flow.pdk import PDK, SCL
    r = prepnr.run(name, config_file, pdk_root, PDK, SCL)
    shown = r["run_dir"].relative_to(REPO) if r["run_dir"].is_relative_to(REPO) else r["run_dir"]
    for step, state in r["steps"]:
        detail = state if state == "passed" else f"{state}: {r['error']} (logs under {shown})"
        res.add(name, f"LibreLane {step}", state == "passed", detail)


def floorplan_check(ctx=None) -> tuple[bool, str]:
    """The current memory plan's floorplans (ACC macro, Caravel wrapper), checked; printed."""
    from soc import caravel_floorplan
    p = caravel_floorplan.plan(ctx or caravel_floorplan.context(), options=False)
    acc, _ = next((a, r) for a, r in p["accs"] if a is p["chosen"]["acc"])
    print(f"[floorplan] ACC macro {acc.die.w:.1f} x {acc.die.h:.1f} um ({len(acc.placements)} SRAM macros, "
          f"{acc.notes['per_shelf']} per shelf): every check passes")
    c = p["chosen"]
    for r in c["results"]:
        print(f"[floorplan] wrapper {r['name']}: {'pass' if r['ok'] else 'FAIL'}: {r['detail']}")
    plan = f"CPU boot RAM {p['boot'] // 1024} KiB + main SRAM {p['main'] // 1024} KiB"
    if c["fits"]:
        return True, f"user_project_wrapper with {plan}: fits, every floorplan check passes"
    return False, (f"user_project_wrapper with {plan} does NOT fit: "
                   + ", ".join(r["name"] for r in c["results"] if not r["ok"]))
