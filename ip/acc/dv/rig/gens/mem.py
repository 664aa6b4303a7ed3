# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""Memory snippets: a GPR or WDR load / store (lw, sw, bn.lw[.pi], bn.sw[.pi]) whose
effective address is a data-area address, reached through a random base register and offset.
The error constructs reuse it with a bad address (BAD_DATA_ADDR)."""
from __future__ import annotations

from ip.acc.dv.rig.config import MASK32, _li
from ip.acc.dv.rig.state import State

MEM_OPS = ("lw", "sw", "bn.lw", "bn.lw.pi", "bn.sw", "bn.sw.pi")


def mem_item(g: State, op: str | None = None, addr: int | None = None) -> list[str]:
    """`op` (random if None) at effective address `addr` (a random aligned data-area address
    if None): the base register is loaded with addr - offset, so the offset field takes its
    extremes too."""
    r = g.rng
    op = op or r.choice(MEM_OPS)
    wide = op.startswith("bn.")
    size = 32 if wide else 4
    if addr is None:
        addr = r.randrange(0, g.lay.data_end, size)
    if wide:
        off = r.choice((0, 0, 32, -32, 16352, -16384, 32 * r.randint(-512, 511)))
    else:
        off = r.choice((0, 0, 4, -4, 2047, -2048, 1, -1, r.randint(-2048, 2047)))
    base = (addr - off) & MASK32
    pre = []
    if not wide and 0 <= addr < 2048 and r.random() < 0.15:     # absolute: x0 + 12-bit offset
        breg, off = 0, addr
    else:
        breg = r.randint(1, 31)
        pre = _li(breg, base)
    if op == "lw":
        line = f"lw x{g.gd()}, {off}(x{breg})"
    elif op == "sw":
        line = f"sw x{g.gs()}, {off}(x{breg})"
    else:
        line = f"{op} w{g.w()}, {off}(x{breg})"
    g.features[op] += 1
    return pre + [line]
