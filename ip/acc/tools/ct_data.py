# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""What the constant-time check (constant_time.py) takes and gives: the program (Program:
words, their text, labels), the declared policy (Policy, its exceptions Allow), the
findings (Violation) and the Report with the text the command line prints; CtError for
bad input. The module docstring of constant_time.py says what each policy field means.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from ip.acc.tools.isa import Isa

KINDS = ("branch", "loop-count", "address", "timing")


class CtError(ValueError):
    """Bad input: the program, a range, a policy or a jump the analysis cannot follow."""


@dataclass(frozen=True)
class Allow:
    """A declared exception: violations of `kind` at a branch to label `target`, or at a PC
    in [label within[0], label within[1]), are expected; `reason` says why."""
    kind: str
    reason: str
    target: str = ""
    within: tuple = ()


@dataclass
class Policy:
    secret: dict = field(default_factory=dict)     # name -> (lo, hi) DMEM bytes at entry
    public: dict = field(default_factory=dict)     # name -> (lo, hi)
    rest: str = "secret"                           # DMEM bytes neither list declares
    secret_regs: tuple = ()                        # "x5", "w3" secret at entry
    allow: tuple = ()                              # Allow
    # assumptions: {within: (label1, label2), dmem: (lo, hi), reason[, base: ("x5", ...)]}:
    # loads and stores at PCs in [label1, label2) (through one of the base GPRs, if given)
    # whose address is unknown stay inside DMEM[lo:hi) (instead of anywhere)
    bounds: tuple = ()
    # declared releases: {dmem: (lo, hi), reason}: values stored there are published
    release: tuple = ()
    # declassifications: {at: label, dmem: (lo, hi), reason}: the range is public from there on
    declassify: tuple = ()

    @classmethod
    def from_dict(cls, d: dict) -> "Policy":
        allow = tuple(a if isinstance(a, Allow) else Allow(**a) for a in d.get("allow", ()))
        return cls(dict(d.get("secret", {})), dict(d.get("public", {})), d.get("rest", "secret"),
                   tuple(d.get("secret_regs", ())), allow, tuple(d.get("bounds", ())),
                   tuple(d.get("release", ())), tuple(d.get("declassify", ())))


@dataclass
class Violation:
    pc: int
    text: str
    kind: str
    why: str
    path: list
    allowed_by: Allow | None = None

    def __str__(self):
        s = f"{self.pc:#06x}  {self.text:<28} {self.kind}: {self.why}"
        if self.allowed_by:
            s += f"  [allowed: {self.allowed_by.reason}]"
        return s + "".join(f"\n          <- {p}" for p in self.path)


@dataclass
class Report:
    violations: list
    warnings: list
    unused_allows: list
    insns: int
    blocks: int
    contexts: int
    steps: int
    seconds: float

    @property
    def failures(self) -> list:
        return [v for v in self.violations if v.allowed_by is None]

    @property
    def ok(self) -> bool:
        return not self.failures and not self.unused_allows

    def text(self) -> str:
        L = [f"{self.insns} instructions, {self.blocks} basic blocks, {self.contexts} contexts, "
             f"{self.steps} instruction steps analysed in {self.seconds:.1f} s"]
        L += [f"warning: {w}" for w in self.warnings]
        allowed = [v for v in self.violations if v.allowed_by]
        if allowed:
            L.append(f"{len(allowed)} declared exception(s) matched:")
            L += [str(v) for v in allowed]
        for a in self.unused_allows:
            L.append(f"error: declared exception matches nothing (stale?): {a.kind} "
                     f"{a.target or a.within}: {a.reason}")
        if self.failures:
            L.append(f"{len(self.failures)} violation(s):")
            L += [str(v) for v in self.failures]
        L.append("constant-time check: " + ("PASS" if self.ok else "FAIL"))
        return "\n".join(L)


# ---------------------------------------------------------------------------- program
@dataclass
class Program:
    words: list
    texts: list
    labels: dict = field(default_factory=dict)

    @classmethod
    def from_asm(cls, source: str, name: str = "<asm>", isa: Isa | None = None) -> "Program":
        from ip.acc.tools.asm import AsmError, Assembler
        try:
            words, labels, texts = Assembler(isa).listing(source, name)
        except AsmError as exc:
            raise CtError(str(exc)) from None
        return cls(words, texts, labels)

    @classmethod
    def from_file(cls, path: str, isa: Isa | None = None) -> "Program":
        p = Path(path)
        if not p.is_file():
            raise CtError(f"{path}: no such file")
        if p.suffix in (".hex", ".txt"):
            from ip.acc.tools.dis import Disassembler
            from ip.acc.tools.run import read_hex
            try:
                words = read_hex(path)
            except (ValueError, OSError) as exc:
                raise CtError(f"{path}: {exc}") from None
            d = Disassembler(isa)
            return cls(words, [d.line(w, 4 * i) for i, w in enumerate(words)], {})
        return cls.from_asm(p.read_text(), path, isa)
