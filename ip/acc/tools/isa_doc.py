# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""Generate ip/acc/doc/isa.md from ip/acc/data/isa.yml.

    python -m ip.acc.tools.isa_doc            # writes ip/acc/doc/isa.md
    python -m ip.acc.tools.isa_doc --check    # exit 1 if the committed file is stale
    python -m ip.acc.tools.isa_doc -o FILE    # write elsewhere ('-' = stdout)
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ip.acc.tools.isa import ALWAYS_ERRORS, ISA_YML, Insn, Isa, load_isa
from pqsoc import REPO

ISA_MD = REPO / "ip" / "acc" / "doc" / "isa.md"


def _esc(text: str) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def _layout(insn: Insn) -> str:
    """Field table, MSB first: bits, field, content."""
    rows = ["| bits | field | value |", "|---|---|---|"]
    for f in sorted(insn.scheme.fields.values(), key=lambda f: -f.hi):
        rng = f"{f.hi}" if f.hi == f.lo else f"{f.hi}:{f.lo}"
        rows.append(f"| {rng} | {f.name} | `{_esc(insn.mapping[f.name])}` |")
    return "\n".join(rows)


def _operand_desc(isa: Isa, insn: Insn) -> list:
    out = []
    for op in insn.operands.values():
        lo, hi = op.value_range()
        if op.kind == "enum":
            rng = ", ".join(f"`{v}`={i}" for i, v in enumerate(op.values))
        elif op.kind in ("gpr", "wdr"):
            rng = "x0..x31" if op.kind == "gpr" else f"w0..w{isa.wdrs - 1}"
        else:
            rng = f"{lo}..{hi}"
            if op.align:
                rng += f", multiple of {1 << op.align}"
        out.append(f"| `{op.name}` | {op.kind} | {rng} |")
    return out


def render(isa: Isa) -> str:
    L = ["# ACC instruction set", "",
         f"<!-- Generated from {ISA_YML.relative_to(REPO)} by `python -m ip.acc.tools.isa_doc`. "
         "Do not edit. -->", "",
         "Every instruction is one 32-bit word. Vector instructions work on 16 x 16-bit lanes "
         "(VMODE = 0, q = 3329) or 8 x 32-bit lanes (VMODE = 1, q = 8380417). "
         "Cycle counts are issue cycles without stalls. Any instruction can raise "
         + " and ".join(ALWAYS_ERRORS) + ". "
         "A word that matches no instruction below, whose enum field holds a code beyond the "
         f"listed values, or whose wdr field names a register beyond w{isa.wdrs - 1} (the ACC has "
         f"{isa.wdrs} wide registers; the fields are 5 bits), is ILLEGAL_INSN. Instruction-specific operand limits stated in the "
         "descriptions (lane numbers, shift amounts) are also ILLEGAL_INSN when violated.", ""]

    L += ["## Summary", "", "| mnemonic | syntax | group | cycles | latency | unit | match / mask |",
          "|---|---|---|---|---|---|---|"]
    for i in isa.insns:
        L.append(f"| [`{i.mnemonic}`](#{_anchor(i.mnemonic)}) | `{_esc(i.syntax)}` | {i.group} | "
                 f"{i.cycles} | {i.latency} | {i.unit or '-'} | `{i.match:08x}` / `{i.mask:08x}` |")
    L.append("")
    L += ["## Timing", "",
          "An instruction issues when every register it reads is ready and its unit is free; "
          "its results are ready `latency` cycles after its (last) cycle. A later write to a "
          "register replaces a pending result (writers never wait).", ""]
    if isa.units:
        L += ["| unit | interval | description |", "|---|---|---|"]
        for name, u in isa.units.items():
            L.append(f"| {name} | {u['interval']} | {_esc(u.get('desc', ''))} |")
        L.append("")

    L += ["## Errors", "", "| bit | name | cause |", "|---|---|---|"]
    for name, e in isa.errors.items():
        L.append(f"| {e.get('bit')} | {name} | {_esc(e.get('desc', ''))} |")
    L.append("")
    for title, table in (("CSRs", isa.csrs), ("WSRs", isa.wsrs)):
        L += [f"## {title}", "", "| address | name | description |", "|---|---|---|"]
        for name, r in table.items():
            L.append(f"| `{r['addr']:#05x}` | {name} | {_esc(r.get('desc', ''))} |")
        L.append("")
    L += ["## Operand kinds", "", "| kind | meaning |", "|---|---|"]
    for k, d in isa.kinds.items():
        L.append(f"| {k} | {_esc(d)} |")
    L.append("")
    L += ["## Encoding schemes", "", "| scheme | fields (MSB first) |", "|---|---|"]
    for s in isa.schemes.values():
        fs = ", ".join(f"{f.name}[{f.hi}:{f.lo}]" if f.hi != f.lo else f"{f.name}[{f.hi}]"
                       for f in sorted(s.fields.values(), key=lambda f: -f.hi))
        L.append(f"| {s.name} | {fs} |")
    L.append("")

    for g, gdesc in isa.groups.items():
        members = [i for i in isa.insns if i.group == g]
        if not members:
            continue
        L += [f"## Group `{g}`", "", gdesc, ""]
        for i in members:
            usage = i.mnemonic + (" " + i.syntax if i.syntax else "")
            L += [f"### {i.mnemonic}", "", f"`{usage}`", "", i.doc, ""]
            if i.operands:
                L += ["| operand | kind | values |", "|---|---|---|", *_operand_desc(isa, i), ""]
            L += [f"Encoding (scheme {i.scheme.name}; match `{i.match:#010x}`, mask `{i.mask:#010x}`):",
                  "", _layout(i), ""]
            cyc = f"Cycles: {i.cycles}" + (f" ({i.cycles_note})" if i.cycles_note else "") + "."
            if i.latency > 1 or i.unit:
                cyc += f" Latency {i.latency}" + (f", unit {i.unit}" if i.unit else "") + "."
            errs = ", ".join(i.errors) if i.errors else "none beyond the common ones"
            L += [cyc + f" Errors: {errs}.", ""]
            ct = _ct_line(i)
            if ct:
                L += [ct, ""]
    return "\n".join(L).rstrip() + "\n"


def _ct_line(i: Insn) -> str:
    """Information flow and constant-time sinks (isa.yml flow / mem / control / timing /
    stream), read by ip/acc/tools/constant_time.py."""
    parts = []
    if i.flow:
        parts.append("flow " + "; ".join(
            " ".join(map(str, d)) + " <- " + (" ".join(map(str, s)) or "(constant)")
            for d, s in i.flow))
    sinks = []
    if i.mem:
        sinks.append(f"address {i.mem['base']} ({i.mem['op']} {i.mem['bytes']} bytes)")
    c = i.control or {}
    if c.get("kind") == "branch":
        sinks.append("branch condition " + ", ".join(c["cond"]))
    if c.get("kind") == "jump-reg":
        sinks.append(f"jump target {c['base']}")
    if c.get("kind") == "loop" and i.operands[c["count"]].kind == "gpr":
        sinks.append(f"loop count {c['count']}")
    if i.timing:
        sinks.append("duration " + ", ".join(i.timing))
    if isinstance(i.stream, dict):
        sinks.append(f"address {i.stream['dst']}; data-dependent duration in modes "
                     + ", ".join(i.stream["data_dependent"]))
    if sinks:
        parts.append("Must not be secret: " + "; ".join(sinks))
    return ("Information flow: " + ". ".join(parts) + ".") if parts else ""


def _anchor(mnemonic: str) -> str:
    return mnemonic.replace(".", "").lower()


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("-o", "--output", default=str(ISA_MD))
    ap.add_argument("--check", action="store_true", help="fail if the output file is out of date")
    ap.add_argument("--isa", default=str(ISA_YML))
    a = ap.parse_args(argv)
    text = render(load_isa(a.isa))
    if a.check:
        old = Path(a.output).read_text() if Path(a.output).exists() else ""
        if old != text:
            print(f"{a.output} is out of date: run python -m ip.acc.tools.isa_doc", file=sys.stderr)
            return 1
        return 0
    if a.output == "-":
        sys.stdout.write(text)
    else:
        Path(a.output).write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
