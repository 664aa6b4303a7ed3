# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""Random ACC program generator (as OpenTitan otbn's rig).

Generator (`generate(rng, cfg) -> Program`): assembly text (replayable with `pqsoc acc asm`),
its words, and an initial DMEM image. Programs cover every instruction of the groups base,
loop, wide-mem, vec and ntt (kmac / smp only with cfg.kmac), both VMODEs, the isa.yml `wdrs`
wide registers (a wdr field beyond them only as an ILLEGAL_INSN case), registers biased to
interesting values (0, 1, q-1, q, all ones, lane boundaries, DMEM addresses), loops nested up
to 8 deep (and 9+ deep as an error), forward branches / jal / jalr (the only backward control
flow is the hardware loop, so every program terminates: the generator bounds the dynamic
instruction count by cfg.budget), result-latency hazards, and a fraction cfg.error_fraction
of programs that end in one error class (ILLEGAL_INSN, BAD_INSN_ADDR, BAD_DATA_ADDR, LOOP).

DMEM layout (Layout; DMEM must be >= 2 KiB):
    [0, 0x300)        data area: random initial contents; the only target of generated
                      (non-faulting) loads and stores
    0x300 .. 0x6ff    dump of w0..w<wdrs-1> (32 bytes each; room for 32)
    0x700 .. 0x71f    dump of WSR ACC
    0x720 .. 0x79b    dump of x1..x31
    0x79c, 0x7a0      dump of CSR VMODE, CSR ERR_BITS
    rest              untouched (random initial bytes)
The dump area also starts with random bytes, so a dump store that does not happen shows up.
Normal programs end with the epilogue that writes the dump, then `ecall`; so the final
register state is part of the DMEM comparison. After an error both backends wipe DMEM.
RND and URND are read at the top level only (a loop would repeat the reads): RND as far as
the 8 entropy words the program's host writes (Program.entropy) go; URND, which both
backends model exactly, freely, and reseeded from any WDR.

Each program is generated from random.Random(f"acc-fuzz:{seed}:{index}"), so (seed, index)
replays one program.

Code: config.py (knobs, layout, program record), state.py (the per-program state and its
register / value helpers), gens/ (one module per snippet kind), gen.py (the program builder).
"""
from __future__ import annotations

import random

from ip.acc.dv.rig.config import (ERROR_CLASSES, FUZZ_GROUPS, KMAC_GROUPS, SMP_MISUSE, FuzzConfig, Layout,
                                  Program)
from ip.acc.dv.rig.gen import _Gen
from ip.acc.dv.rig.state import TooLong

__all__ = ["ERROR_CLASSES", "FUZZ_GROUPS", "KMAC_GROUPS", "SMP_MISUSE", "FuzzConfig", "Layout", "Program",
           "generate", "program_rng"]


def generate(rng: random.Random, cfg: FuzzConfig | None = None) -> Program:
    """One random program (deterministic for the rng state)."""
    cfg = cfg or FuzzConfig()
    for _ in range(20):
        try:
            return _Gen(rng, cfg).program()
        except TooLong:
            continue
    raise RuntimeError("could not generate a program that fits IMEM; raise imem_size")


def program_rng(seed: int, index: int) -> random.Random:
    return random.Random(f"acc-fuzz:{seed}:{index}")
