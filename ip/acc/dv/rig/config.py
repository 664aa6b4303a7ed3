# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""What a random program may touch: the knobs (FuzzConfig), the DMEM layout of the
data area and register dump (Layout), the program record, value helpers."""
from __future__ import annotations

from dataclasses import dataclass

from ip.acc.tools.isa import Isa, load_isa

MASK32 = 0xFFFF_FFFF
Q = (3329, 8380417)             # q for VMODE 0 / 1
WIDTH = (16, 32)                # lane width
LANES = (16, 8)
ERROR_CLASSES = ("ILLEGAL_INSN", "BAD_INSN_ADDR", "BAD_DATA_ADDR", "LOOP", "RND")
FUZZ_GROUPS = ("base", "loop", "wide-mem", "vec", "ntt")
KMAC_GROUPS = ("kmac", "smp")
# stream-unit misuse constructs (smp_dig is a KMAC error: kmac.dig / kmac.rel while it runs)
SMP_MISUSE = ("smp_mode", "smp_dst", "smp_busy", "smp_early", "smp_urnd", "smp_dig")

_ISA: Isa | None = None


def _isa() -> Isa:
    global _ISA
    if _ISA is None:
        _ISA = load_isa()
    return _ISA


# ---------------------------------------------------------------------------------- config
@dataclass
class FuzzConfig:
    imem_size: int = 2048
    dmem_size: int = 2048
    max_cycles: int = 20_000        # cycle limit per program; generated programs stay below
    budget: int = 4_000             # bound on the dynamic instruction count of a program
    min_items: int = 8              # random items in the main body (static length ~20-150)
    max_items: int = 40
    error_fraction: float = 0.25    # programs that end in an error
    kmac: bool = False              # also generate KMAC side-load sequences and misuse


@dataclass(frozen=True)
class Layout:
    dmem_size: int
    data_end: int = 0x300
    wdr_base: int = 0x300
    acc_addr: int = 0x700
    gpr_base: int = 0x720           # x1 at gpr_base, x31 at gpr_base + 120
    vmode_addr: int = 0x79C
    errbits_addr: int = 0x7A0

    def __post_init__(self):
        if self.dmem_size < 0x800 or self.dmem_size % 32:
            raise ValueError(f"fuzzing needs DMEM >= 2 KiB (a multiple of 32), got {self.dmem_size}")

    def name(self, addr: int) -> str:
        """What a (32-bit word) DMEM address holds in the dump, for difference messages."""
        if addr < self.data_end:
            return "data"
        if self.wdr_base <= addr < self.wdr_base + 32 * _isa().wdrs:
            n, off = divmod(addr - self.wdr_base, 32)
            return f"w{n} word {off // 4}"
        if self.acc_addr <= addr < self.acc_addr + 32:
            return f"ACC word {(addr - self.acc_addr) // 4}"
        if self.gpr_base <= addr < self.gpr_base + 31 * 4:
            return f"x{(addr - self.gpr_base) // 4 + 1}"
        if addr == self.vmode_addr:
            return "VMODE"
        if addr == self.errbits_addr:
            return "ERR_BITS"
        return "unused"


@dataclass
class Program:
    text: str                       # assembly source
    words: list                     # assembled words
    dmem: bytes                     # initial DMEM image (whole DMEM)
    desc: str                       # short description (expected end, features)
    expect: str = "ecall"           # "ecall" or the error class the program aims at
    entropy: tuple = ()             # words the host writes to ENTROPY before START


# ---------------------------------------------------------------------------------- values
def _li(rd: int, v: int) -> list[str]:
    """Load a 32-bit constant: addi, or lui (+ addi)."""
    v &= MASK32
    lo = ((v & 0xFFF) ^ 0x800) - 0x800
    if v == lo & MASK32:
        return [f"addi x{rd}, x0, {lo}"]
    hi = ((v - lo) >> 12) & 0xFFFFF
    out = [f"lui x{rd}, {hi:#x}"]
    if lo:
        out.append(f"addi x{rd}, x{rd}, {lo}")
    return out


def _ninsns(lines) -> int:
    return sum(1 for s in lines if not s.endswith(":") and not s.startswith("#"))
