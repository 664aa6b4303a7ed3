# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""`pqsoc bringup PORT [--csr FILE] [--baud N] [--timeout S] [CHECK ...]` (also
`python -m bringup`): runs the bring-up checks over the chip's bring-up UART and prints one
JSON line per check and a summary; exit status 1 if any check fails, 2 on bad arguments."""
import argparse
import json
import sys
import time
from pathlib import Path

from pqsoc import REPO, positive

from bringup.checks import CHECKS, EXTRA_CHECKS

DEFAULT_CSR = REPO / "build" / "soc" / "csr.json"


def run_checks(bus, soc, names, out=print) -> list[dict]:
    """Runs the named checks in order and prints their lines. A bridge that stops answering
    fails the check it happened in; the later ones are not run (each would only wait for its
    own timeout) and are reported as failed."""
    from bringup.uartbone import BridgeError
    results, dead = [], None
    for name in names:
        t0 = time.monotonic()
        b0 = getattr(bus, "tx_bytes", 0) + getattr(bus, "rx_bytes", 0)
        if dead:
            r = {"pass": False, "problems": [f"not run: {dead}"]}
        else:
            try:
                r = {**CHECKS, **EXTRA_CHECKS}[name](bus, soc)
            except BridgeError as e:
                dead = "the bridge stopped answering"
                r = {"pass": False, "problems": [str(e)]}
        line = {"test": name, "pass": r["pass"], **{k: v for k, v in r.items() if k not in ("pass", "problems")}}
        line["seconds"] = round(time.monotonic() - t0, 3)
        line["bridge_bytes"] = getattr(bus, "tx_bytes", 0) + getattr(bus, "rx_bytes", 0) - b0
        if r["problems"]:
            line["problems"] = r["problems"]
        out(json.dumps(line))
        results.append(line)
    failed = sum(not r["pass"] for r in results)
    out(json.dumps({"summary": "bringup", "tests": len(results), "passed": len(results) - failed,
                    "failed": failed}))
    return results


def _check_name(text: str) -> str:
    if text not in CHECKS and text not in EXTRA_CHECKS:
        raise argparse.ArgumentTypeError(f"unknown check {text!r} (choose from "
                                         f"{', '.join([*CHECKS, *EXTRA_CHECKS])})")
    return text


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("port", metavar="PORT", nargs="?",
                   help="serial port of the bring-up UART (/dev/ttyUSB0) or a pyserial URL "
                        "(socket://127.0.0.1:N for `pqsoc sim run FW --bridge-tcp N`)")
    p.add_argument("--csr", default=str(DEFAULT_CSR),
                   help="csr.json of the chip's SoC build (default build/soc/csr.json)")
    p.add_argument("--baud", type=positive(int),
                   help="baud rate (default: bringup_uart_baudrate from --csr)")
    p.add_argument("--timeout", type=positive(float), default=2.0,
                   help="seconds without a reply byte before a read fails (default 2)")
    p.add_argument("--boot", metavar="IMAGE",
                   help="silicon SoC: load this firmware image into the boot memory over the "
                        "bridge, verify it and release the CPU (boot_hold); then only the CHECKs named run")
    p.add_argument("--mgmt-image", metavar="DIR",
                   help="Caravel: instead of the UART, write the management core's path for --boot "
                        "IMAGE into DIR (pqsoc_boot.h/.c: load over its Wishbone, release the CPU; "
                        "bringup/mgmt.py); --csr must be the Caravel SoC's (build/rtl/caravel/soc/csr.json)")
    p.add_argument("--raw-entropy", metavar="FILE",
                   help="instead of the checks: collect the entropy source's raw bits into FILE (one "
                        "sample per byte, for NIST's ea_non_iid) and FILE.json, from "
                        "firmware/programs/entropy_collect.c running on the chip (--boot it; "
                        "bringup/entropy_raw.py)")
    p.add_argument("--raw-bits", type=positive(int), default=1_000_000,
                   help="raw bits to collect (default 1000000, SP 800-90B's)")
    p.add_argument("--raw-div", type=int, default=None,
                   help="CTRL.DIV to collect at: a raw bit every DIV + 1 cycles (default: its reset value)")
    p.add_argument("--raw-block", type=positive(int), default=None,
                   help="words per block of consecutive raw bits (default: the ACC DMEM's)")
    p.add_argument("checks", nargs="*", metavar="CHECK", type=_check_name,
                   help=f"checks to run, in this order (default: {' '.join(CHECKS)}; also "
                        f"{' '.join(EXTRA_CHECKS)}, only when named)")


def _mgmt_image(args) -> int:
    from firmware.build import FirmwareError
    from bringup.mgmt import write_boot_sources
    if not args.boot or args.port or args.checks:
        print("bringup: --mgmt-image needs --boot IMAGE and takes no PORT or CHECK", file=sys.stderr)
        return 2
    try:
        image = Path(args.boot).read_bytes()
        files = write_boot_sources(image, Path(args.boot).stem, Path(args.csr).parent, Path(args.mgmt_image))
    except (OSError, KeyError, ValueError, FirmwareError) as e:
        print(f"bringup: --mgmt-image: {e}", file=sys.stderr)
        return 1
    for f in files:
        print(f)
    return 0


def main_args(args) -> int:
    if args.mgmt_image:
        return _mgmt_image(args)
    if not args.port:
        print("bringup: PORT is required (or --mgmt-image DIR)", file=sys.stderr)
        return 2
    if args.raw_entropy and args.checks:
        print("bringup: --raw-entropy takes no CHECK (run the checks on their own)", file=sys.stderr)
        return 2
    from bringup.socmap import MapError, SocMap
    from bringup.uartbone import BridgeError, UartBone
    try:
        soc = SocMap.load(args.csr)
        baud = args.baud or soc.baudrate
        image = None
        if args.boot:
            try:
                image = Path(args.boot).read_bytes()
            except OSError as e:
                print(f"bringup: cannot read the boot image: {e}", file=sys.stderr)
                return 1
        with UartBone(args.port, baud, timeout=args.timeout) as bus:
            if image is not None:
                from bringup.boot import boot
                r = boot(bus, soc, image)
                print(json.dumps({"test": "boot", **r}))
                if not r["pass"]:
                    return 1
                if not args.checks and not args.raw_entropy:   # the firmware runs now: checks only when named
                    return 0
            if args.raw_entropy:
                return _raw_entropy(bus, soc, args)
            results = run_checks(bus, soc, args.checks or list(CHECKS))
    except (MapError, BridgeError) as e:
        print(f"bringup: {e}", file=sys.stderr)
        return 1
    return 0 if all(r["pass"] for r in results) else 1


def _raw_entropy(bus, soc, args) -> int:
    """The entropy source's raw bits (bringup/entropy_raw.py): one JSON line, exit 1 on failure."""
    from bringup import entropy_raw
    from ip.common.regtool import load
    from ip.entropy import REGS_YML
    div = args.raw_div if args.raw_div is not None else load(REGS_YML).field("CTRL", "DIV").reset
    t0 = time.monotonic()
    try:
        res = entropy_raw.collect(bus, soc, args.raw_bits, div, args.raw_block,
                                  log=lambda m: print(m, file=sys.stderr))
        summary = entropy_raw.write(Path(args.raw_entropy), res, div, soc)
        entropy_raw.finish(bus, soc)
        line = {"test": "entropy_raw", "pass": True, **{k: v for k, v in summary.items() if k != "blocks"},
                "block_count": len(summary["blocks"])}
    except entropy_raw.CollectError as e:
        line = {"test": "entropy_raw", "pass": False, "problems": [str(e)]}
    line["seconds"] = round(time.monotonic() - t0, 3)
    print(json.dumps(line))
    return 0 if line["pass"] else 1


def add_parser(sub) -> None:
    """`pqsoc bringup` (pqsoc/cli/blocks.py add_subcommands). The arguments go to main() as they
    are: its parser takes the checks before or after the options (parse_intermixed_args),
    which a subparser of pqsoc's parser cannot."""
    p = sub.add_parser("bringup", add_help=False, prefix_chars="+",
                       help="bring-up checks over the chip's UART bridge (ident scratch sram "
                            "timer kmac acc); `pqsoc bringup -h` for the options")
    p.add_argument("args", nargs="*")
    p.set_defaults(func=lambda args: main(args.args, prog="pqsoc bringup"))


def main(argv=None, prog="python -m bringup") -> int:
    p = argparse.ArgumentParser(prog=prog, description=__doc__.split("\n\n")[0])
    add_arguments(p)
    return main_args(p.parse_intermixed_args(argv))
