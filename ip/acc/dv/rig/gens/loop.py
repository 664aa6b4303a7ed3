# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""Loop snippets: a hardware loop (loopi, or loop with the count in a GPR) around a random
block, and nests of loops directly inside each other (deep nesting, shared loop ends).

The cost returned with each snippet is its dynamic instruction count (iterations times the
body cost), so the caller can keep the program within cfg.budget."""
from __future__ import annotations

from ip.acc.dv.rig.config import _li, _ninsns
from ip.acc.dv.rig.gens.branch import BRANCHES
from ip.acc.dv.rig.gens.straight_line import plain_item
from ip.acc.dv.rig.state import State


def loop_item(g: State, depth: int, budget: int) -> tuple[list[str], int]:
    """A loop around a 1-5 item block one level deeper (sometimes with a hazard across the
    loop-back); the iteration count is bounded by the budget."""
    r = g.rng
    body, bcost = g.block(r.randint(1, 5), depth + 1, max(2, budget // 2), top=False)
    body = fix_body_end(g, body)
    if g.chance(0.2):                     # hazard across the loop-back
        g.features["hazard"] += 1
        if g.chance(0.5):                 # the last insn loads a GPR the first one reads
            x = r.randint(1, 31)
            body = [f"add x{g.gd()}, x{x}, x{g.gs()}"] + body + \
                [f"lw x{x}, {r.randrange(0, g.lay.data_end, 4)}(x0)"]
        else:                             # ... or a multiplier result the first one reads
            x = g.w()
            m = r.choice(("bn.mulvm", "bn.mulv.hi", "bn.mulv.lo"))
            body = [f"bn.addvm w{g.w()}, w{g.w()}, w{x}"] + body + \
                [f"{m} w{x}, w{g.w()}, w{g.w()}"]
        bcost += 2
    bcost = max(bcost, 1)
    size = _ninsns(body)
    maxn = max(1, (budget - 3) // bcost)
    n = min(maxn, r.choice((1, 2, 3, r.randint(1, 8), r.randint(1, 1023))))
    g.features["loop_depth_%d" % (depth + 1)] += 1
    if n <= 1023 and g.chance(0.6):
        head = [f"loopi {n}, {size}"]
        g.features["loopi"] += 1
    else:
        reg = r.randint(1, 31)
        head = _li(reg, n) + [f"loop x{reg}, {size}"]
        g.features["loop"] += 1
    return head + body, len(head) + n * bcost


def nest_item(g: State, levels: int, budget: int) -> tuple[list[str], int]:
    """`levels` loopi nested directly in each other, each with an optional plain
    instruction before / after the inner loop (so some loops end together)."""
    r = g.rng
    if levels == 0:
        lines = []
        for _ in range(r.randint(1, 2)):
            lines += plain_item(g)
        return lines, _ninsns(lines)
    n = r.choice((1, 2, 2, 3))
    while n > 1 and (2 ** (levels - 1)) * 4 * n > budget:
        n -= 1
    pre = plain_item(g) if g.chance(0.4) else []
    inner, icost = nest_item(g, levels - 1, max(1, budget // n - 4))
    post = plain_item(g) if g.chance(0.4) else []
    body = pre + inner + post
    g.features["loopi"] += 1
    return [f"loopi {n}, {_ninsns(body)}"] + body, 1 + n * (_ninsns(pre) + icost + _ninsns(post))


def fix_body_end(g: State, body: list[str]) -> list[str]:
    """A loop body must not end with a branch / jump / loop, nor with a label: append a
    plain instruction if it does."""
    last = [s for s in body if not s.endswith(":")]
    if (not last or body[-1].endswith(":")
            or last[-1].split()[0] in BRANCHES + ("jal", "jalr", "loop", "loopi")):
        body = body + plain_item(g)
    return body
