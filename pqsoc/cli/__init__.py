"""`pqsoc`: the project's one command-line entry point. Each subcommand lives in its own module."""
import argparse
import sys

from pqsoc import REPO, FlowError
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
    from pqsoc.flow import harden
    for block in args.blocks:
        harden.harden(block)


def _pnr_config(args):
    from pqsoc.flow import openlane
    names = args.blocks or [b.name for b in blocks.BLOCKS.values() if b.openlane is not None]
    for name in names:
        print(openlane.write(blocks.get(name)).relative_to(REPO))


def _gls(args):
    import json
    from pathlib import Path
    from pqsoc.flow import gls
    results = {b: gls.gls(b, seeds=tuple(range(1, args.seeds + 1))) for b in args.blocks}
    if args.json:
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        Path(args.json).write_text(json.dumps(results, indent=2) + "\n")


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

    p = sub.add_parser("harden", help="OpenLane 2 place-and-route (needs the Nix shell for OpenROAD)")
    p.add_argument("blocks", nargs="+")
    p.set_defaults(func=_harden)

    p = sub.add_parser("pnr-config", help="write pnr/<block>/config.json (OpenLane 2) from the block's declaration")
    p.add_argument("blocks", nargs="*", help="default: every block with an OpenLane configuration")
    p.set_defaults(func=_pnr_config)

    p = sub.add_parser("gls", help="gate-level simulation of a synthesized block against its RTL")
    p.add_argument("blocks", nargs="+")
    p.add_argument("--seeds", type=int, default=3, help="random initial states to try (default 3)")
    p.add_argument("--json", help="write RTL vs gate-level cycle counts to this file")
    p.set_defaults(func=_gls)

    p = sub.add_parser("blocks", help="list the blocks the flow knows")
    p.set_defaults(func=_list_blocks)
    from pqsoc.cli import acc, kmac, regtool, sim, soc
    soc.add_subcommands(sub)
    sim.add_subcommands(sub)
    kmac.add_parser(sub)
    regtool.add_parser(sub)
    acc.add_parser(sub)
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
