# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""`pqsoc`: the project's one command-line entry point. Each subcommand lives in its own module."""
import argparse
import sys
from pathlib import Path

from pqsoc import REPO, FlowError, positive
from pqsoc.cli import blocks  # registers every block with the flow


def _pdk(args):
    from pqsoc.flow import pdk
    pdk.check(install=args.install)


def _synth(args):
    from pqsoc.flow import synth
    for block in args.blocks:
        synth.synth(block, period_ns=args.period)


def _sta(args):
    from pqsoc.flow import sta
    for block in args.blocks:
        sta.sta(block)


def _ppa(args):
    from pqsoc.flow import report
    report.ppa(args.blocks or None, reuse=args.reuse)


def _harden(args):
    """`pqsoc harden [BLOCK ...]`: without blocks the chip's, in dependency order (the hard
    macros, then the wrapper that places them: soc/caravel_openlane.py HARDEN_ORDER)."""
    from pqsoc.flow import harden
    from soc.caravel_openlane import HARDEN_ORDER
    names = args.blocks or list(HARDEN_ORDER)
    for k, block in enumerate(names):
        print(f"[harden] block {k + 1}/{len(names)}: {block}", flush=True)
        harden.harden(block)


def _pnr_config(args):
    from pqsoc.flow import openlane
    names = args.blocks or [b.name for b in blocks.BLOCKS.values() if b.openlane is not None]
    for name in names:
        print(openlane.write(blocks.get(name)).relative_to(REPO))


def _pnr(args) -> int:
    """`pqsoc pnr check [BLOCK ...] [--floorplan]`: without blocks (or with --floorplan) the
    current memory plan's floorplan check (soc/caravel_floorplan.py); then each OpenLane config
    is the generated one and LibreLane's Classic flow loads it with the PDK (or, for the old 2021
    subset, the overlay under build/)."""
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
    failed = []
    if args.floorplan or not args.blocks:
        try:
            if not _floorplan_check():
                failed.append("floorplan")
        except FlowError as e:
            print(f"pqsoc pnr check: error: floorplan check not run: {e}", file=sys.stderr)
            failed.append("floorplan")
    for name in names:
        block = blocks.get(name)
        if block.openlane is None:
            raise FlowError(f"block {name} has no OpenLane configuration (Block.openlane)")
        print(f"[pnr check] {name}: generating its configuration and the files it names", flush=True)
        try:
            problems = openlane.prepare(block)   # VERILOG_FILES and the other build files must exist
            r = openlane.check(block, root, pdk_root)
        except FlowError as e:
            print(f"pqsoc pnr check: error: {e}", file=sys.stderr)
            failed.append(name)
            continue
        keys = " ".join(f"{k}={r[k]}" for k in openlane.KEY_VARIABLES
                        if not (k == "FP_CORE_UTIL" and r["FP_SIZING"] == "absolute"))
        print(f"[pnr check] {name}: OK, {r['variables']} variables resolved; {keys}")
        for path, why in r["stand_ins"]:
            shown = Path(path).relative_to(REPO) if Path(path).is_relative_to(REPO) else path
            print(f"[pnr check] {name}:   stood in (empty file) for {shown}: {why}")
        for p in problems:
            print(f"pqsoc pnr check: error: {name}: {p}", file=sys.stderr)
        if problems:
            failed.append(name)
            continue
        if not _power_rules(name, r["config"]):
            failed.append(name)
        if not _routing(name, r["config"]):
            failed.append(name)
        if not _librelane_steps(name, r["config_file"], root):
            failed.append(name)
    if failed:
        print(f"pqsoc pnr check: failed: {' '.join(dict.fromkeys(failed))}", file=sys.stderr)
        return 1
    return 0


def _power_rules(name: str, cfg) -> bool:
    """pdngen's strap rules on the block's grid, and for a hard macro of the wrapper the metal it
    may use under the wrapper's grid (pqsoc/flow/pdn_rules.py); False when one is broken."""
    from pqsoc.flow import pdn_rules
    from soc.caravel_openlane import HARD_MACROS
    problems = pdn_rules.strap_problems(cfg)
    if name in HARD_MACROS:
        problems += pdn_rules.macro_metal_problems(name, cfg)
    reach = pdn_rules.power_reach(cfg, _macro_sizes()) if cfg.get("MACROS") else None
    if reach and reach["unpowered"]:
        ys = sorted({u[0] for u in reach["unpowered"]})
        problems.append(f"{len({u[:3] for u in reach['unpowered']})} of {reach['rows']} cell row segments "
                        f"({reach['unpowered_um2'] / 1e6:.3f} mm2, rows at y {ys[0]:.2f} .. {ys[-1]:.2f} um) "
                        "have no met4 strap reaching a met5 strap of each net through the macros (power reach)")
    for p in problems:
        print(f"pqsoc pnr check: error: {name}: power grid: {p}", file=sys.stderr)
    if not problems:
        print(f"[pnr check] {name}: power grid: pdngen's strap rules hold"
              + (", every cell row reaches both nets" if reach else "")
              + (", no met5 under the wrapper's grid" if name in HARD_MACROS else ""))
    return not problems


def _routing(name: str, cfg) -> bool:
    """The routing-capacity estimate of a configuration with macros (pqsoc/flow/route_capacity.py,
    the nets of soc/route_model.py): the worst cut lines, a line each; False when one is over."""
    if not cfg.get("MACROS"):
        return True
    lines = _route_estimate(cfg)
    bad = [ln for ln in lines if not ln["ok"]]
    from pqsoc.flow.route_capacity import MARGIN
    worst = max(lines, key=lambda ln: ln["ratio"])
    for ln in sorted(bad, key=lambda ln: -ln["ratio"])[:4]:
        print(f"pqsoc pnr check: error: {name}: routing: {ln['line']} ({ln['axis']} = {ln['at']} um): "
              f"{ln['demand']} nets cross, {ln['capacity']} tracks ({ln['ratio']:.2f} of them; at most "
              f"{MARGIN:.0%}): {', '.join(f'{k} {v}' for k, v in ln['crossing'].items())}", file=sys.stderr)
    if bad:
        print(f"pqsoc pnr check: error: {name}: routing: {len(bad)} of {len(lines)} cut lines over capacity",
              file=sys.stderr)
    else:
        print(f"[pnr check] {name}: routing: {len(lines)} cut lines within {MARGIN:.0%} of their tracks "
              f"(worst {worst['ratio']:.2f}, {worst['line']})")
    return not bad


def _route_estimate(cfg) -> list[dict]:
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
    sizes = _macro_sizes()
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


def _macro_sizes() -> dict:
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


def _librelane_steps(name: str, config_file, pdk_root) -> bool:
    """LibreLane's steps before place-and-route on one configuration (pqsoc/flow/prepnr.py),
    a line each; False when one fails."""
    from pqsoc.flow import prepnr
    from pqsoc.flow.pdk import PDK, SCL
    r = prepnr.run(name, config_file, pdk_root, PDK, SCL)
    for step, state in r["steps"]:
        print(f"[pnr check] {name}: LibreLane {step}: {state}")
    shown = r["run_dir"].relative_to(REPO) if r["run_dir"].is_relative_to(REPO) else r["run_dir"]
    if not r["ok"]:
        print(f"pqsoc pnr check: error: {name}: LibreLane's steps before place-and-route failed: "
              f"{r['error']} (logs under {shown})", file=sys.stderr)
    return r["ok"]


def _floorplan_check(ctx=None) -> bool:
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
        print(f"[floorplan] user_project_wrapper with {plan}: fits, every check passes")
    else:
        print(f"floorplan check: user_project_wrapper with {plan} does NOT fit: "
              + ", ".join(r["name"] for r in c["results"] if not r["ok"]), file=sys.stderr)
    return c["fits"]


def _floorplan(args) -> int:
    """`pqsoc floorplan`: reports/floorplan.{json,png,md}; non-zero when the plan does not fit.
    --update-inputs: first rewrite pnr/floorplan_inputs.json from the stored syntheses."""
    from soc import caravel_floorplan
    if args.update_inputs:
        path = caravel_floorplan.update_inputs()
        print(f"[floorplan] wrote {path.relative_to(REPO)} from build/synth (commit it)")
    print("[floorplan] reading the blocks' logic areas, Caravel's wrapper and the macros' LEFs", flush=True)
    ctx = caravel_floorplan.context()
    print("[floorplan] placing and checking the current plan and the memory options (~1 min)", flush=True)
    data = caravel_floorplan.report(ctx)
    for o in data["memory_options"]:
        print(f"[floorplan] option boot RAM {o['boot_ram_kib']:2d} KiB + main SRAM {o['main_sram_kib']} KiB: "
              f"{o['macros']} macros, " + ("fits" if o["fits"] else "does not fit"))
    print(f"[floorplan] wrote {caravel_floorplan.REPORT_NAME}, floorplan.md and floorplan.png")
    if not data["fits"]:
        failed = ", ".join(r["name"] for r in data["wrapper"]["checks"] if not r["ok"])
        print(f"pqsoc floorplan: the current memory plan does NOT fit Caravel's user_project_wrapper "
              f"(failed: {failed}); see reports/floorplan.md", file=sys.stderr)
        return 1
    print("[floorplan] the current memory plan fits Caravel's user_project_wrapper; every check passes")
    return 0


def _layout(args) -> int:
    """`pqsoc layout BLOCK ...`: place, route and DRC-check each block with Coriolis; every block
    is tried, and the command fails if any did not give a routed, DRC-clean layout."""
    from pqsoc.flow import layout
    failed = []
    for name in args.blocks:
        blocks.get(name)
        try:
            r = layout.layout(name, utilisation=args.utilisation, timeout_s=args.timeout)
            print(f"[layout] {name}: routed, {r['drc']['errors']} DRC errors, "
                  f"{r.get('wire_length_um', 0):.0f} um of wire")
        except FlowError as e:
            print(f"pqsoc layout: error: {e}", file=sys.stderr)
            failed.append(name)
    if (layout.REPORTS / "layout.json").is_file():
        print(f"[layout] results: {layout.REPORTS / 'layout.json'}")
    if failed:
        print(f"pqsoc layout: failed: {' '.join(failed)}", file=sys.stderr)
        return 1
    return 0


def _gls(args):
    import json
    from pathlib import Path
    from pqsoc.flow import gls, provenance
    stamp = provenance.stamp()      # the design as the runs start (tapeout.json's staleness rule)
    results = {b: gls.gls(b, seeds=tuple(range(1, args.seeds + 1))) | {"provenance": stamp}
               for b in args.blocks}
    if args.json:
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        Path(args.json).write_text(json.dumps(results, indent=2) + "\n")


def _signoff(args) -> int:
    """`pqsoc signoff LAYOUT --netlist V --top NAME`: DRC (Magic, KLayout), LVS (Netgen) and
    extraction + STA (OpenSTA, tt/ss) of a DEF or GDS; non-zero exit unless every check passes."""
    from pathlib import Path
    from pqsoc import REPO
    from pqsoc.flow import signoff
    period, clock = args.period, args.clock
    block = next((b for b in blocks.BLOCKS.values() if b.top == args.top), None)
    if block is not None:        # a registered block: its period and clock port unless given
        period = period if period is not None else block.period_ns
        clock = clock if clock is not None else block.clock
    report = signoff.signoff(Path(args.layout), Path(args.netlist), args.top, period_ns=period, clock=clock,
                             json_path=Path(args.json) if args.json else None,
                             work=Path(args.workdir) if args.workdir else None,
                             must_meet=tuple(args.must_meet.split(",")), timeout_s=args.timeout)
    bad = {k: c for k, c in report["checks"].items() if c["status"] != "pass"}
    shown = args.json or (REPO / "reports" / "signoff" / f"{args.top}.json")
    print(f"[signoff] {args.top}: {len(report['checks']) - len(bad)}/{len(report['checks'])} checks passed; "
          f"report {shown}")
    for name, c in bad.items():
        where = f" (log {c['log']})" if c.get("log") else ""
        print(f"pqsoc signoff: {name} {c['status']}: {c.get('reason', '')}{where}", file=sys.stderr)
    return 1 if bad else 0


def _list_blocks(args) -> int:
    for b in blocks.BLOCKS.values():
        print(f"{b.name:10s} {b.top:16s} {b.description}")
    return 0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="pqsoc", description=__doc__)
    sub = ap.add_subparsers(dest="cmd", required=True)

    p = sub.add_parser("pdk", help="check (and optionally install) the sky130A PDK")
    p.add_argument("action", choices=["check"])
    p.add_argument("--install", action="store_true", help="install the pinned PDK with ciel if missing")
    p.set_defaults(func=_pdk)

    p = sub.add_parser("synth", help="synthesize blocks to sky130_fd_sc_hd (Yosys via pyosys)")
    p.add_argument("blocks", nargs="+")
    p.add_argument("--period", type=float, default=None, help="clock period in ns (default: the block's)")
    p.set_defaults(func=_synth)

    p = sub.add_parser("sta", help="static timing analysis of a synthesized block (OpenSTA, tt and ss)")
    p.add_argument("blocks", nargs="+")
    p.set_defaults(func=_sta)

    p = sub.add_parser("ppa", help="synthesize + STA blocks and write reports/ppa.json and ppa.md")
    p.add_argument("blocks", nargs="*")
    p.add_argument("--reuse", action="store_true",
                   help="take the stored results of `pqsoc synth` and `pqsoc sta` (refused when stale) "
                        "instead of running them again")
    p.set_defaults(func=_ppa)

    p = sub.add_parser("harden", help="OpenLane 2 place-and-route (needs the Nix shell for OpenROAD); "
                                      "without blocks: kmac, acc, then the Caravel wrapper")
    p.add_argument("blocks", nargs="*")
    p.set_defaults(func=_harden)

    p = sub.add_parser("pnr-config", help="write pnr/<block>/config.json (OpenLane 2) from the block's declaration")
    p.add_argument("blocks", nargs="*", help="default: every block with an OpenLane configuration")
    p.set_defaults(func=_pnr_config)

    p = sub.add_parser("pnr", help="check the LibreLane configurations: its loader, its steps before "
                       "place-and-route (lint, synthesis front end, SDC files), the floorplan")
    p.add_argument("action", choices=["check"])
    p.add_argument("blocks", nargs="*", help="default: every block with an OpenLane configuration, "
                                             "and the floorplan check")
    p.add_argument("--floorplan", action="store_true",
                   help="also check the floorplan when blocks are named (pqsoc floorplan's checks, no report)")
    p.set_defaults(func=_pnr)

    p = sub.add_parser("floorplan", help="place and check the ACC macro and Caravel wrapper floorplans; "
                                         "reports/floorplan.{json,png,md}")
    p.add_argument("--update-inputs", action="store_true",
                   help="first write pnr/floorplan_inputs.json (logic areas, port bits, hashes) from the "
                        "stored syntheses of acc, kmac and soc")
    p.set_defaults(func=_floorplan)

    p = sub.add_parser("layout", help="place and route with Coriolis (coriolis-eda), Magic DRC; "
                                      "build/layout/<block>/ and reports/layout.json")
    p.add_argument("blocks", nargs="+")
    p.add_argument("--utilisation", type=positive(float), default=0.5,
                   help="target core utilisation (default 0.5)")
    p.add_argument("--timeout", type=positive(float), default=3600.0,
                   help="seconds allowed for each step (default 3600)")
    p.set_defaults(func=_layout)

    p = sub.add_parser("gls", help="gate-level simulation of a synthesized block against its RTL")
    p.add_argument("blocks", nargs="+")
    p.add_argument("--seeds", type=int, default=3, help="random initial states to try (default 3)")
    p.add_argument("--json", help="write RTL vs gate-level cycle counts to this file")
    p.set_defaults(func=_gls)

    p = sub.add_parser("signoff", help="DRC (Magic, KLayout), LVS (Netgen) and extraction + STA (OpenSTA) "
                                       "of a DEF or GDS layout")
    p.add_argument("layout", help="the layout: a .def (cells from the PDK) or a .gds")
    p.add_argument("--netlist", required=True, help="gate-level Verilog netlist of the layout (LVS, STA)")
    p.add_argument("--top", required=True, help="top cell / module name")
    p.add_argument("--period", type=positive(float), default=None,
                   help="clock period in ns (default: the registered block with this top's)")
    p.add_argument("--clock", default=None, help="clock port (default: the block's; none: a virtual clock)")
    p.add_argument("--must-meet", default="tt",
                   help="corners whose setup and hold slack must be >= 0 for STA to pass (default tt)")
    p.add_argument("--timeout", type=positive(float), default=3600, help="seconds per tool run (default 3600)")
    p.add_argument("--json", help="report path (default reports/signoff/<top>.json)")
    p.add_argument("--workdir", help="tool scripts, logs, GDS, netlists (default build/signoff/<top>)")
    p.set_defaults(func=_signoff)

    p = sub.add_parser("blocks", help="list the blocks the flow knows")
    p.set_defaults(func=_list_blocks)
    from pqsoc.cli import acc, acvp, kmac, mlkem, regtool, sim, soc, tapeout
    soc.add_subcommands(sub)
    sim.add_subcommands(sub)
    kmac.add_parser(sub)
    regtool.add_parser(sub)
    acc.add_parser(sub)
    mlkem.add_parser(sub)
    acvp.add_parser(sub)
    tapeout.add_parser(sub)
    from bringup import cli as bringup_cli   # host-side chip bring-up (bringup/)
    bringup_cli.add_parser(sub)

    args = ap.parse_args(argv)
    try:
        rc = args.func(args)
    except FlowError as e:
        print(f"pqsoc {args.cmd}: error: {e}", file=sys.stderr)
        return 1
    except OSError as e:   # a missing or unreadable input file: name it, no traceback
        print(f"pqsoc {args.cmd}: error: {e.strerror or e}: {e.filename or ''}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    return int(rc or 0)


if __name__ == "__main__":
    sys.exit(main())
