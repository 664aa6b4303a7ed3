# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""`pqsoc soc build` and `pqsoc soc firmware`: generate the LiteX SoC and build firmware for it."""
import json

from pqsoc import BUILD, REPO, FlowError

SOC_DIR = BUILD / "soc"
FIRMWARE_DIR = BUILD / "firmware"


def _size(text: str) -> int:
    try:
        n = int(text, 0)
    except ValueError:
        raise FlowError(f"bad size {text!r}: give bytes, e.g. 32768 or 0x8000") from None
    if n <= 0 or n & (n - 1) or n < 4096:
        raise FlowError(f"size {n} must be a power of two of at least 4096 bytes")
    return n


def memory_map(soc_dir=SOC_DIR) -> list[tuple[str, int, int]]:
    d = json.loads((soc_dir / "csr.json").read_text())
    return sorted((name, m["base"], m["size"]) for name, m in d["memories"].items())


def _build(args):
    import logging
    # LiteX logs its whole build at INFO unless logging is already configured; keep it quiet.
    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING,
                        format="%(name)s: %(message)s")
    from soc.build import build
    from soc.target import ROM_SIZE
    rom_size = ROM_SIZE if args.rom_size is None else _size(args.rom_size)
    build(SOC_DIR, sram_size=_size(args.sram_size), rom_size=rom_size)
    print(f"soc: generated {SOC_DIR.relative_to(REPO)}/ (gateware/pqsoc.v, csr.json, csr.csv, "
          "software/include/generated/)")
    for name, base, size in memory_map():
        print(f"  {name:8s} 0x{base:08x}  {size // 1024:6d} KiB")
    return 0


def _firmware(args):
    from firmware import build as fw
    names = args.programs or fw.programs()
    soc_dir, out = SOC_DIR, FIRMWARE_DIR
    if args.block and not args.silicon:
        raise FlowError("--block selects a silicon SoC block: use it with --silicon")
    if args.silicon:   # the silicon SoC's headers (generated as `pqsoc synth soc` does)
        from sim import silicon
        block = args.block or "soc"
        soc_dir, out = silicon.silicon_headers(block), silicon.firmware_dir(block)
    try:
        for name in names:
            path = fw.build(name, soc_dir, out)
            print(f"firmware: {path.relative_to(REPO)} ({path.stat().st_size} bytes)")
    except fw.FirmwareError as e:
        raise FlowError(str(e)) from None
    return 0


def _caravel(args):
    import logging
    logging.basicConfig(level=logging.WARNING, format="%(name)s: %(message)s")
    from sim import caravel as csim
    e = csim.emit()
    for key in ("wrapper", "user_defines", "pins"):
        print(f"caravel: {e[key].relative_to(REPO)}")
    print(f"caravel: the SoC inside: {e['soc_dir'].relative_to(REPO)}/ (csr.json: the management "
          "core's view is soc/mgmt_port.py's map of it)")
    return 0


def add_subcommands(sub) -> None:
    p = sub.add_parser("soc", help="LiteX SoC (Ibex, ROM, SRAM, UART, timer, GPIO) and its firmware")
    s = p.add_subparsers(dest="soc_cmd", required=True)
    b = s.add_parser("build", help="generate Verilog, csr.json/csv and C headers into build/soc/")
    b.add_argument("--sram-size", default="32768", help="main SRAM bytes (default 32768)")
    b.add_argument("--rom-size", default=None,
                   help="boot ROM bytes (default soc.target.ROM_SIZE, 131072)")
    b.add_argument("-v", "--verbose", action="store_true", help="show LiteX's build log")
    b.set_defaults(func=_build)
    f = s.add_parser("firmware", help="build firmware programs (firmware/programs/*.c) into build/firmware/")
    f.add_argument("programs", nargs="*", help="program names (default: all)")
    f.add_argument("--silicon", action="store_true",
                   help="for the silicon SoC (build/rtl/soc: 6 KiB boot RAM, 2 KiB SRAM, console "
                        "on pins) into build/firmware/silicon/")
    f.add_argument("--block", default=None,
                   help="with --silicon: the silicon SoC block (soc, the default, or soc_acc32k: ACC "
                        "memories 32 KiB each, into build/firmware/silicon-soc_acc32k/)")
    f.set_defaults(func=_firmware)
    c = s.add_parser("caravel", help="generate Caravel's user_project_wrapper around the silicon SoC, "
                                     "user_defines.v and the pin plan into build/rtl/caravel/ (needs CARAVEL_ROOT)")
    c.set_defaults(func=_caravel)
