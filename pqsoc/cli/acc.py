# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""`pqsoc acc asm|dis|run|ct|shares|fuzz`: the ACC's tools (ip/acc/tools: ct is the
constant-time check, shares the share-domain check of masked programs) and its lockstep fuzzer
(ip/acc/dv)."""
import argparse


def _acc_tool(args) -> int:
    from ip.acc.dv import fuzz
    from ip.acc.tools import asm, ct_cli, dis, run, share_cli
    return {"asm": asm.main, "dis": dis.main, "run": run.main, "ct": ct_cli.main,
            "shares": share_cli.main, "fuzz": fuzz.main}[args.tool](args.args)


def add_parser(sub) -> None:
    p = sub.add_parser("acc", help="coprocessor tools: asm, dis, run (ISS), ct (constant-time "
                                   "check), shares (share-domain check of masked programs), "
                                   "fuzz (ISS vs RTL), all driven by ip/acc/data/isa.yml")
    p.add_argument("tool", choices=["asm", "dis", "run", "ct", "shares", "fuzz"])
    p.add_argument("args", nargs=argparse.REMAINDER, help="arguments of the tool (see `pqsoc acc asm -h`)")
    p.set_defaults(func=_acc_tool)
