# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""ACC disassembler, driven only by ip/acc/data/isa.yml.

    python -m ip.acc.tools.dis prog.hex          # one hex word per line

Output re-assembles to the same words: pcrel operands are printed as byte offsets (with the
target address in a comment), CSRs/WSRs by name when known, words that decode to nothing
(or to an enum value outside the list) as `.word 0x...`; when the word would be an
instruction but for a wdr field beyond the register count (ILLEGAL_INSN), a comment names it.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ip.acc.tools.isa import Isa, load_isa


class Disassembler:
    def __init__(self, isa: Isa | None = None):
        self.isa = isa or load_isa()
        self._csr = {int(r["addr"]): n for n, r in self.isa.csrs.items()}
        self._wsr = {int(r["addr"]): n for n, r in self.isa.wsrs.items()}

    def line(self, word: int, pc: int = 0) -> str:
        got = self.isa.decode(word)
        if got is None:
            raw = self.isa.decode(word, any_wdr=True)
            text = self._format(word, pc, *raw) if raw else None
            if text and not text.startswith(".word"):
                return (f".word {word:#010x}  # {text}: ILLEGAL_INSN, the ACC has {self.isa.wdrs} "
                        "wide registers")
            return f".word {word:#010x}"
        return self._format(word, pc, *got)

    def _format(self, word: int, pc: int, insn, vals: dict) -> str:
        out, note = [], ""
        for kind, text in insn.syntax_tokens():
            if kind != "op":
                out.append(text)
                continue
            op = insn.operands[text]
            v = vals[text]
            if op.kind == "gpr":
                out.append(f"x{v}")
            elif op.kind == "wdr":
                out.append(f"w{v}")
            elif op.kind == "csr":
                out.append(self._csr.get(v, f"{v:#x}"))
            elif op.kind == "wsr":
                out.append(self._wsr.get(v, f"{v:#x}"))
            elif op.kind == "enum":
                if v >= len(op.values):
                    return f".word {word:#010x}"
                out.append(op.values[v])
            elif op.kind == "pcrel":
                out.append(str(v))
                note = f"  # -> {pc + v:#x}"
            else:
                out.append(str(v))
        ops = "".join(out)
        return (insn.mnemonic + (" " + ops if ops else "")) + note


def disassemble(words, base: int = 0, isa: Isa | None = None) -> list[str]:
    d = Disassembler(isa)
    return [d.line(w, base + 4 * i) for i, w in enumerate(words)]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description="ACC disassembler")
    ap.add_argument("hexfile")
    a = ap.parse_args(argv)
    words = [int(t, 16) for t in Path(a.hexfile).read_text().split()]
    for i, text in enumerate(disassemble(words)):
        print(f"{4 * i:06x}: {words[i]:08x}  {text}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
