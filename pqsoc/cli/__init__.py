# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""`pqsoc`: the project's one command-line entry point. Each subcommand lives in its own module."""
import argparse
import sys

from pqsoc import REPO, FlowError, positive
from pqsoc.cli import blocks  # registers every block with the flow
from pqsoc.cli import pnr


def _pdk(args):
    from pqsoc.flow import pdk
    pdk.check(install=args.install)


def _synth(args):
    """`pqsoc synth BLOCK...`; with --dir, one PPA point of one block in a folder of its own (a
    sweep's task: `pqsoc campaign sweep`), --sta its timing, --json its figures."""
    import json
    from pathlib import Path
    from pqsoc.flow import locks, sta, synth
    abc_dch = {"on": True, "off": False, None: None}[args.abc_dch]
    if args.dir is None:
        if args.sta or args.json:
            raise FlowError("--sta and --json belong to a PPA point: give --dir DIR (and one block)")
        for block in args.blocks:
            synth.synth(block, period_ns=args.period, abc_dch=abc_dch)
        return
    if len(args.blocks) != 1:
        raise FlowError(f"--dir holds one block's point; got {len(args.blocks)} blocks")
    name, out = args.blocks[0], Path(args.dir)
    with locks.exclusive(out):       # two campaigns asking for one point take turns
        m = synth.synth(name, period_ns=args.period, out=out / "synth", abc_dch=abc_dch)
        point = {"block": name, "period_ns": m["period_ns"], "abc_dch": m["abc_dch"], "cells": m["cells"],
                 "area_um2": m["area_um2"], "netlist_sha256": m["netlist_sha256"], "synth_s": m["seconds"]}
        if args.sta:
            r = sta.sta(name, synth_out=out / "synth", out=out / "sta")
            point["corners"] = {c: {k: v[k] for k in ("fmax_mhz", "wns_ns", "critical_path_ns")}
                                for c, v in r["corners"].items()}
    if args.json:
        Path(args.json).write_text(json.dumps(point, indent=2) + "\n")


def _sta(args):
    from pqsoc.flow import sta
    for block in args.blocks:
        sta.sta(block)


def _ppa(args):
    from pqsoc.flow import report
    report.ppa(args.blocks or None, reuse=args.reuse)


def _harden(args):
    """`pqsoc harden [BLOCK ...]`: without blocks the chip's, in dependency order
    (soc/caravel_openlane.py HARDEN_ORDER: the wrapper alone, the flat architecture)."""
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
    from soc import flat_floorplan
    data = caravel_floorplan.report(ctx, studies=flat_floorplan.study_plans, chip=flat_floorplan.chip)
    for plan, st in data["flat_study"].items():
        print(f"[floorplan] flat layout study {plan}: " + ("fits" if st["fits"] else "does not fit"))
    for o in data["nested"]["memory_options"]:
        print(f"[floorplan] nested (rejected) option boot RAM {o['boot_ram_kib']:2d} KiB + main SRAM "
              f"{o['main_sram_kib']} KiB: {o['macros']} macros, " + ("fits" if o["fits"] else "does not fit"))
    print(f"[floorplan] wrote {caravel_floorplan.REPORT_NAME}, floorplan.md, floorplan.png and floorplan_nested.png")
    mp = data["memory_plan"]
    plan = f"CPU boot RAM {mp['boot_ram_bytes'] // 1024} KiB + main SRAM {mp['main_sram_bytes'] // 1024} KiB"
    if not data["fits"]:
        failed = ", ".join(r["name"] for r in data["wrapper"]["checks"] if not r["ok"])
        print(f"pqsoc floorplan: the chip's floorplan (flat, {flat_floorplan.CHIP_LAYOUT}) with {plan} does NOT "
              f"fit Caravel's user_project_wrapper (failed: {failed}); see reports/floorplan.md", file=sys.stderr)
        return 1
    print(f"[floorplan] the chip's floorplan (flat, {flat_floorplan.CHIP_LAYOUT}) with {plan} fits Caravel's "
          "user_project_wrapper; every check passes")
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
    seeds = tuple(args.seed) if args.seed else tuple(range(1, args.seeds + 1))
    results = {b: gls.gls(b, seeds=seeds) | {"provenance": stamp} for b in args.blocks}
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
    p.add_argument("--period", type=positive(float), default=None, help="clock period in ns (default: the block's)")
    p.add_argument("--abc-dch", choices=["on", "off"], help="ABC's choice computation (default: the block's)")
    p.add_argument("--dir", help="one PPA point: synthesize into DIR/synth (not build/synth/BLOCK, which "
                                 "the flow reads), STA into DIR/sta")
    p.add_argument("--sta", action="store_true", help="with --dir: STA of the point (tt and ss)")
    p.add_argument("--json", help="with --dir: write the point's figures (cells, area, fmax per corner)")
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

    p = sub.add_parser("harden", help="LibreLane place-and-route (needs the Nix shell for OpenROAD); "
                                      "without blocks: the Caravel wrapper (the flat architecture's one run)")
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
    p.add_argument("--synth", action="store_true",
                   help="also run LibreLane's synthesis (Yosys.Synthesis and its checkers) and check the "
                        "floorplan with the logic area it gives (the wrapper's: hours)")
    p.add_argument("--json", metavar="PATH", help="also write every check's verdict to PATH (make report: "
                   "reports/pnr_check.json, which tapeout.json reads)")
    p.set_defaults(func=pnr.check_command)

    p = sub.add_parser("floorplan", help="place and check the chip's floorplan (flat: every SRAM in "
                                         "Caravel's wrapper) and the layouts studied; reports/floorplan.{json,png,md}")
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
    p.add_argument("--seeds", type=positive(int), default=3, help="random initial states to try: 1..N (default 3)")
    p.add_argument("--seed", type=positive(int), action="append",
                   help="this random initial state (repeatable; instead of --seeds)")
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
    from pqsoc.cli import acc, acvp, campaign, kmac, mlkem, regtool, sca, sim, soc, tapeout
    soc.add_subcommands(sub)
    sim.add_subcommands(sub)
    kmac.add_parser(sub)
    regtool.add_parser(sub)
    acc.add_parser(sub)
    mlkem.add_parser(sub)
    acvp.add_parser(sub)
    tapeout.add_parser(sub)
    campaign.add_parser(sub)
    sca.add_parser(sub)
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
