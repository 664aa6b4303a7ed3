# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""Run an ACC program on the ISS.

    python -m ip.acc.tools.run PROGRAM.hex [--dmem-in FILE] [--dmem-out FILE] [--max-cycles N]

PROGRAM.hex: one 32-bit instruction word per line (ip.acc.tools.asm output). DMEM images are
raw little-endian bytes loaded at / dumped from address 0 (a file shorter than DMEM fills
its start). Prints cycles, instructions and the halt reason; exits 0 only on ecall,
1 on an error halt, 2 on the cycle limit, 3 on an instruction not yet modelled, 4 on bad
input files.
"""
import argparse
import sys
from pathlib import Path

from ip.acc.iss import Iss

EXIT = {"ecall": 0, "error": 1, "cycle_limit": 2, "unmodelled": 3}


def read_hex(path: str) -> list[int]:
    words = []
    for n, line in enumerate(Path(path).read_text().splitlines(), 1):
        text = line.split("#")[0].split("//")[0].strip()
        if not text:
            continue
        try:
            w = int(text, 16)
        except ValueError:
            raise ValueError(f"{path}:{n}: {text!r} is not a hex word") from None
        if not 0 <= w <= 0xFFFF_FFFF:
            raise ValueError(f"{path}:{n}: {text!r} does not fit 32 bits")
        words.append(w)
    return words


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m ip.acc.tools.run", description="ACC ISS runner")
    ap.add_argument("program", help="hex file, one 32-bit word per line")
    ap.add_argument("--dmem-in", help="raw DMEM image loaded at address 0")
    ap.add_argument("--dmem-out", help="write the whole DMEM here after the run")
    ap.add_argument("--max-cycles", type=int, default=1_000_000)
    ap.add_argument("--dmem-size", type=int, default=32 * 1024)
    ap.add_argument("--imem-size", type=int, default=32 * 1024)
    a = ap.parse_args(argv)
    try:
        sim = Iss(dmem_size=a.dmem_size, imem_size=a.imem_size)
        sim.load_program(read_hex(a.program))
        if a.dmem_in:
            sim.dmem.write_bytes(0, Path(a.dmem_in).read_bytes())
    except (OSError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 4
    halt = sim.run(max_cycles=a.max_cycles)
    print(f"cycles: {halt.cycles}")
    print(f"instructions: {halt.insns}")
    print(f"halt: {halt.reason} at pc {halt.pc:#x}")
    if halt.err_bits:
        print(f"ERR_BITS: {halt.err_bits:#x} ({', '.join(halt.errors)})")
    if a.dmem_out:
        Path(a.dmem_out).write_bytes(sim.dmem.read_bytes())
    if not halt.ok:
        print(f"error: {halt}", file=sys.stderr)
    return EXIT[halt.reason]


if __name__ == "__main__":
    sys.exit(main())
