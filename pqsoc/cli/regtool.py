# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""`pqsoc regtool YML --c OUT.h --md OUT.md`: a register description as a C header and Markdown
(ip/common/regtool.py; the RTL register bank is built from the same YAML)."""
import sys
from pathlib import Path

from ip.common.regtool import c_header, load, markdown


def main(args) -> int:
    rm = load(args.yml)
    if args.c:
        Path(args.c).parent.mkdir(parents=True, exist_ok=True)
        Path(args.c).write_text(c_header(rm))
    if args.md:
        Path(args.md).parent.mkdir(parents=True, exist_ok=True)
        Path(args.md).write_text(markdown(rm))
    if not args.c and not args.md:
        sys.stdout.write(c_header(rm))
    return 0


def add_parser(sub) -> None:
    p = sub.add_parser("regtool", help="generate a C header / Markdown from a register YAML")
    p.add_argument("yml")
    p.add_argument("--c", help="write the C header here")
    p.add_argument("--md", help="write the Markdown register document here")
    p.set_defaults(func=main)
