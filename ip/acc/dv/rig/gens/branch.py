# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""Branch snippets: a forward conditional branch, jal or jalr over a small sub-block.

Control flow only ever goes forward (the hardware loop is the only way back), so every
program terminates; the skipped sub-block is random code that may or may not run."""
from __future__ import annotations

from ip.acc.dv.rig.state import State

BRANCHES = ("beq", "bne", "blt", "bge", "bltu", "bgeu")


def skip_item(g: State, depth: int, budget: int) -> tuple[list[str], int]:
    """A branch / jal / jalr to a label after a 1-4 item sub-block: (lines, dynamic cost)."""
    r = g.rng
    lab = g.label()
    k = r.randrange(10)
    if k < 6:
        m = r.choice(BRANCHES)
        a = g.gs()
        b = a if g.chance(0.2) else g.gs()         # equal registers: always / never taken
        head = [f"{m} x{a}, x{b}, {lab}"]
        if a and g.chance(0.2):                     # the branch reads a load result: stall
            head.insert(0, f"lw x{a}, {r.randrange(0, g.lay.data_end, 4)}(x0)")
        g.features[m] += 1
    elif k < 8:
        head = [f"jal x{g.gd()}, {lab}"]
        g.features["jal"] += 1
    else:
        head = _jalr(g, lab)
        g.features["jalr"] += 1
    n = r.randint(1, 4)
    sub, cost = g.block(n, depth, max(1, budget - 4), top=False)
    return head + sub + [f"{lab}:"], cost + len(head)


def _jalr(g: State, lab: str) -> list[str]:
    """jalr to `lab`: as an absolute offset from x0, or through a register holding the
    label's address (+ an offset the jalr immediate undoes)."""
    r = g.rng
    t = r.randint(1, 31)
    v = r.randrange(3)
    if v == 0:
        return [f"jalr x{g.gd()}, {lab}(x0)"]
    if v == 1:
        bias = r.choice((1, -8, 16))
        off = {1: 0, -8: 8, 16: -16}[bias]          # jalr clears bit 0: +1 needs no undoing
        return [f"addi x{t}, x0, {lab}", f"addi x{t}, x{t}, {bias}", f"jalr x{g.gd()}, {off}(x{t})"]
    return [f"addi x{t}, x0, {lab}", f"jalr x{g.gd()}, 0(x{t})"]
