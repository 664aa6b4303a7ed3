# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""Hazard snippets: a result-latency producer (lw, a multiplier-unit op, a butterfly,
bn.lw.pi's pointer) followed by a reader of its result, so the RTL's interlocks and
forwarding are exercised."""
from __future__ import annotations

from ip.acc.dv.rig.config import _li
from ip.acc.dv.rig.gens.straight_line import plain_item
from ip.acc.dv.rig.state import State


def hazard_item(g: State) -> list[str]:
    """A producer and a reader of its result (right after it, or after a few instructions
    for the multiplier unit)."""
    r = g.rng
    k = r.randrange(5)
    g.features["hazard"] += 1
    if k == 0:
        return _load_gpr(g)
    if k == 1:                                       # bn.lw -> WDR reader
        wd = g.w()
        addr = r.randrange(0, g.lay.data_end, 32)
        prod = [f"bn.lw w{wd}, {addr}(x0)"]
    elif k == 2:
        wd = g.w()
        m = r.choice(("bn.mulvm", "bn.mulvm", "bn.mulv.lo", "bn.mulv.hi"))
        prod = [f"{m} w{wd}, w{g.w()}, w{g.w()}"]
    elif k == 3:
        wa, wb = g.w(), g.w()
        d = r.choice(("r", "l1", "l2", "l4"))
        m = r.choice(("bn.bfly.ct", "bn.bfly.gs"))
        prod = [f"{m} w{wa}, w{wb}, w{g.w()}, {d}, {r.randint(0, 7)}"]
        wd = r.choice((wa, wb))
    else:                                            # k == 4, bn.lw.pi: pointer is not late
        breg = r.randint(1, 31)
        prod = _li(breg, r.randrange(0, g.lay.data_end - 32, 32)) + \
            [f"bn.lw.pi w{g.w()}, 0(x{breg})"]
        return prod + [f"add x{g.gd()}, x{breg}, x{breg}"]
    # a multiplier-unit result read 2-3 cycles later (60 %) or right behind it (40 %: the
    # full interlock); a load's WDR read right behind it (the load-latency interlock)
    if k in (2, 3) and g.chance(0.6):
        prod += _mul_gap(g, wd)
    return prod + [_wdr_reader(g, wd)]


def _load_gpr(g: State) -> list[str]:
    """lw, then an instruction that may read the loaded GPR."""
    r = g.rng
    rd = r.randint(1, 31)
    addr = r.randrange(0, g.lay.data_end, 4)
    prod = _li(rd, addr) + [f"lw x{rd}, 0(x{rd})"] if g.chance(0.5) else \
        [f"lw x{rd}, {addr}(x0)"]
    cons = r.choice((f"add x{g.gd()}, x{rd}, x{g.gs()}",
                     f"sw x{rd}, {r.randrange(0, g.lay.data_end, 4)}(x0)",
                     f"bn.bcast w{g.w()}, x{rd}",
                     f"bn.ins w{g.w()}, x{rd}, {r.randint(0, 7)}",
                     f"csrrw x0, VMODE, x{rd}",
                     f"xori x{rd}, x{rd}, -1",
                     f"add x{g.gd()}, x{g.gs()}, x{r.randint(1, 31)}"))  # maybe no hazard
    return prod + [cons]


def _mul_gap(g: State, wd: int) -> list[str]:
    """1-2 instructions between a multiplier-unit producer and its reader: the unit has
    latency 3 and takes one op per 2 cycles, so this puts the reader 2 or 3 cycles later,
    another multiplier op right behind, or a write to the same register while the result
    is in flight (the later write must win)."""
    r = g.rng
    out = []
    for _ in range(r.randint(1, 2)):
        j = r.randrange(4)
        if j == 0:
            out += plain_item(g)
        elif j == 1:
            out.append(f"bn.mulvm w{g.w()}, w{g.w()}, w{g.w()}")
        elif j == 2:
            out.append(f"bn.lw w{wd}, {r.randrange(0, g.lay.data_end, 32)}(x0)")
        else:
            out.append(f"bn.xor w{wd}, w{g.w()}, w{g.w()}")
    return out


def _wdr_reader(g: State, wd: int) -> str:
    """An instruction reading (or, last choice, only writing) WDR `wd`."""
    r = g.rng
    x = g.w()
    return r.choice((f"bn.addvm w{g.w()}, w{wd}, w{x}", f"bn.subv w{g.w()}, w{x}, w{wd}",
                     f"bn.sel w{wd}, w{x}, w{g.w()}", f"bn.mov w{g.w()}, w{wd}",
                     f"bn.ext x{g.gd()}, w{wd}, {r.randint(0, 7)}",
                     f"bn.sw w{wd}, {r.randrange(0, g.lay.data_end, 32)}(x0)",
                     f"bn.ins w{wd}, x{g.gs()}, {r.randint(0, 7)}",
                     f"bn.or.acc x{g.gd()}, w{x}, w{wd}",
                     f"bn.wsrw ACC, w{wd}",
                     f"bn.bfly.ct w{wd}, w{x}, w{g.w()}, l1, 0",
                     f"bn.addv w{wd}, w{x}, w{x}"))          # writes only: no stall
