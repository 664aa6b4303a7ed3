# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""ACC assembler, driven only by ip/acc/data/isa.yml.

    python -m ip.acc.tools.asm prog.s -o prog.hex     # one 32-bit word per line, hex

Source: one instruction per line; `label:` (any number, before an instruction or alone);
comments start with `#` or `//`; `.word N` emits a raw word. Operands follow each
instruction's syntax in isa.yml. Registers x0..x31 / w0..w15 (isa.yml wdrs); CSRs and WSRs by name or
number; immediates in decimal, 0x.., 0b.., negative allowed; a pcrel operand is a label or a
byte offset; other immediates may also be a label (its byte address). Errors name the file,
line and problem.
"""
from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

from ip.acc.tools.isa import Insn, Isa, load_isa

_LABEL = re.compile(r"^\s*([A-Za-z_.][A-Za-z0-9_.$]*)\s*:")
_NAME = re.compile(r"^[A-Za-z_.][A-Za-z0-9_.$]*$")


class AsmError(ValueError):
    pass


def _strip_comment(line: str) -> str:
    for mark in ("#", "//"):
        i = line.find(mark)
        if i >= 0:
            line = line[:i]
    return line.strip()


def _syntax_regex(insn: Insn) -> re.Pattern:
    parts = []
    for kind, text in insn.syntax_tokens():
        if kind == "op":
            parts.append(r"\s*([^,()\s]+)\s*")
        else:
            parts.append("".join(r"\s*" if c.isspace() else r"\s*" + re.escape(c) + r"\s*"
                                 for c in text))
    return re.compile("^" + "".join(parts) + "$")


class Assembler:
    def __init__(self, isa: Isa | None = None):
        self.isa = isa or load_isa()
        self._regex = {i.mnemonic: _syntax_regex(i) for i in self.isa.insns}

    # ------------------------------------------------------------------ operands
    def _int(self, text: str, labels: dict, where: str) -> int:
        try:
            return int(text, 0)
        except ValueError:
            pass
        if text in labels:
            return labels[text]
        if _NAME.match(text):
            raise AsmError(f"{where}: undefined label {text!r}")
        raise AsmError(f"{where}: bad number {text!r}")

    def _operand(self, insn: Insn, op, text: str, pc: int, labels: dict, where: str) -> int:
        kind = op.kind
        if kind in ("gpr", "wdr"):
            prefix = "x" if kind == "gpr" else "w"
            m = re.fullmatch(prefix + r"(\d+)", text)
            last = 31 if kind == "gpr" else self.isa.wdrs - 1
            if not m or int(m.group(1)) > 31:
                raise AsmError(f"{where}: {insn.mnemonic} operand {op.name}: expected "
                               f"{prefix}0..{prefix}{last}, got {text!r}")
            n = int(m.group(1))
            if kind == "wdr" and n >= self.isa.wdrs:
                # encodable in the 5-bit field, but ILLEGAL_INSN on the ACC
                raise AsmError(f"{where}: {insn.mnemonic} operand {op.name}: {text}: the ACC has "
                               f"{self.isa.wdrs} wide registers (w0..w{self.isa.wdrs - 1})")
            return n
        if kind in ("csr", "wsr"):
            table = self.isa.csrs if kind == "csr" else self.isa.wsrs
            if text in table:
                return int(table[text]["addr"])
            try:
                return int(text, 0)
            except ValueError:
                raise AsmError(f"{where}: {insn.mnemonic} operand {op.name}: unknown {kind.upper()} "
                               f"{text!r}") from None
        if kind == "enum":
            if text not in op.values:
                raise AsmError(f"{where}: {insn.mnemonic} operand {op.name}: expected one of "
                               f"{', '.join(op.values)}, got {text!r}")
            return op.values.index(text)
        if kind == "pcrel":
            try:
                return int(text, 0)
            except ValueError:
                pass
            if text not in labels:
                raise AsmError(f"{where}: undefined label {text!r}")
            return labels[text] - pc
        return self._int(text, labels, where)

    # ------------------------------------------------------------------ program
    def assemble(self, source: str, name: str = "<asm>") -> list[int]:
        return self.listing(source, name)[0]

    def listing(self, source: str, name: str = "<asm>"):
        """(words, labels {name: byte address}, texts [instruction text per word])."""
        lines = []        # (lineno, pc, text)
        labels, pc = {}, 0
        for n, raw in enumerate(source.splitlines(), 1):
            text = _strip_comment(raw)
            while True:
                m = _LABEL.match(text)
                if not m:
                    break
                lab = m.group(1)
                if lab in labels:
                    raise AsmError(f"{name}:{n}: label {lab!r} defined twice")
                labels[lab] = pc
                text = text[m.end():].strip()
            if text:
                lines.append((n, pc, text))
                pc += 4
        words = []
        for n, pc, text in lines:
            words.append(self.assemble_line(text, pc, labels, f"{name}:{n}"))
        return words, labels, [text for _, _, text in lines]

    def assemble_line(self, text: str, pc: int = 0, labels: dict | None = None,
                      where: str = "<asm>") -> int:
        labels = labels or {}
        parts = _strip_comment(text).split(None, 1)
        if not parts:
            raise AsmError(f"{where}: empty line")
        mn, rest = parts[0], (parts[1].strip() if len(parts) > 1 else "")
        if mn == ".word":
            v = self._int(rest, labels, where)
            if not -(1 << 31) <= v < 1 << 32:
                raise AsmError(f"{where}: .word {rest} does not fit in 32 bits")
            return v & 0xFFFFFFFF
        insn = self.isa.by_mnemonic.get(mn)
        if insn is None:
            raise AsmError(f"{where}: unknown instruction {mn!r}")
        m = self._regex[mn].match(rest)
        if not m:
            raise AsmError(f"{where}: {mn}: operands {rest!r} do not match syntax "
                           f"'{mn} {insn.syntax}'".rstrip())
        vals = {}
        for op, txt in zip(insn.operands.values(), m.groups()):
            vals[op.name] = self._operand(insn, op, txt, pc, labels, where)
        try:
            return insn.encode(vals)
        except ValueError as exc:
            raise AsmError(f"{where}: {exc}") from None


def assemble(source: str, name: str = "<asm>", isa: Isa | None = None) -> list[int]:
    return Assembler(isa).assemble(source, name)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description="ACC assembler")
    ap.add_argument("source")
    ap.add_argument("-o", "--output", default="-")
    a = ap.parse_args(argv)
    try:
        words = assemble(Path(a.source).read_text(), a.source)
    except AsmError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    out = "".join(f"{w:08x}\n" for w in words)
    if a.output == "-":
        sys.stdout.write(out)
    else:
        Path(a.output).write_text(out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
