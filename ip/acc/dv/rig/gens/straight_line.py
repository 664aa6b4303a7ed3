# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""Straight-line snippets: one plain instruction with random operands (every instruction of
the fuzzed groups without special handling), a constant load (li / bn.bcast), a CSR or WSR
access."""
from __future__ import annotations

from ip.acc.dv.rig.config import _li
from ip.acc.dv.rig.state import State


def operands(g: State, m: str) -> tuple[str, list[str]]:
    """Random operand text for a 'plain' instruction; returns (line, prefix lines)."""
    insn = g.isa.by_mnemonic[m]
    r = g.rng
    pre = []
    vals = {}
    for name, op in insn.operands.items():
        if op.kind == "gpr":
            vals[name] = f"x{g.gd() if name == 'grd' else g.gs()}"
        elif op.kind == "wdr":
            vals[name] = f"w{g.w()}"
        elif op.kind == "enum":
            vals[name] = r.choice(op.values)
        elif op.kind in ("csr", "wsr"):
            vals[name] = "ACC"
        elif op.kind == "simm":
            vals[name] = str(r.choice((0, 1, -1, 2047, -2048, r.randint(-2048, 2047))))
        elif op.kind == "uimm":
            lo, hi = op.value_range()
            vals[name] = str(r.choice((lo, hi, r.randint(lo, hi))))
        else:
            raise AssertionError(f"{m}: operand kind {op.kind}")
    # operands whose legal range depends on VMODE get a VMODE write in front (so they stay
    # legal); shift amounts and lanes are biased to their edges
    if m in ("slli", "srli", "srai"):
        vals["shamt"] = str(r.choice((0, 1, 15, 16, 31, r.randint(0, 31))))
    elif m == "lui":
        vals["imm"] = hex(r.choice((0, 1, 0xFFFFF, 0x80000, 0x7FFFF, r.getrandbits(20))))
    elif m in ("bn.ins", "bn.ext"):
        vals["lane"] = str(r.randint(0, 7))
    elif m == "bn.shlv":
        n = r.randint(0, 31)
        if n >= 16:
            pre = g.set_vmode(1)
        vals["shamt"] = str(n)
    elif m in ("bn.shrv", "bn.srav"):
        vals["shamt"] = str(r.choice((0, 1, 15, 16, 31, r.randint(0, 31))))
    elif m == "bn.bcastl":
        n = r.randint(0, 15)
        if n >= 8:
            pre = g.set_vmode(0)
        vals["lane"] = str(n)
    elif m in ("bn.bfly.ct", "bn.bfly.gs"):
        n = r.randint(0, 15)
        if vals["dist"] == "l8" or (vals["dist"] == "r" and n >= 8):
            pre = g.set_vmode(0)
        vals["tidx"] = str(n)
    elif m in ("bn.unpk", "bn.pk"):
        # d legal in one VMODE only (the others are legal in both): that VMODE in front
        d = int(vals["d"])
        if d in (1, 5, 11, 12):
            pre = g.set_vmode(0)
        elif d in (3, 6, 13, 18, 20):
            pre = g.set_vmode(1)
    elif m in ("bn.wsrr", "bn.wsrw"):
        vals["wsr"] = "ACC"
    return fmt(insn, vals), pre


def fmt(insn, vals: dict) -> str:
    """The assembly line of `insn` with operand texts `vals` (isa.yml syntax)."""
    out = insn.mnemonic
    if insn.syntax:
        s = ""
        for kind, text in insn.syntax_tokens():
            s += vals[text] if kind == "op" else text
        out += " " + s
    return out


def plain_item(g: State) -> list[str]:
    """One instruction picked uniformly from State.plain (+ a VMODE write it may need)."""
    m = g.rng.choice(g.plain)
    line, pre = operands(g, m)
    g.features[m] += 1
    return pre + [line]


def li_item(g: State) -> list[str]:
    """A GPR set to an interesting value, or a GPR broadcast into a WDR."""
    g.features["li"] += 1
    if g.chance(0.2):
        return [f"bn.bcast w{g.w()}, x{g.gs()}"]
    return _li(g.rng.randint(1, 31), g.value())


def rnd_item(g: State) -> list[str]:
    """At the top level (never repeated by a loop): a URND read (CSR / WSR) or reseed, or,
    when the program wrote entropy, a RND read that the pool can serve. g.rnd_fresh counts
    the fresh words at least left (a read skipped by a branch only leaves more)."""
    r = g.rng
    if g.rnd_fresh and g.chance(0.5):
        g.features["rnd"] += 1
        if g.rnd_fresh == 8 and g.chance(0.3):
            g.rnd_fresh = 0
            return [f"bn.wsrr w{g.w()}, RND"]
        g.rnd_fresh -= 1
        return [f"csrrs x{g.gd()}, RND, x0"]
    g.features["urnd"] += 1
    return [r.choice((f"csrrs x{g.gd()}, URND, x0", f"bn.wsrr w{g.w()}, URND",
                      f"bn.wsrw URND, w{g.w()}"))]


def csr_item(g: State) -> list[str]:
    """VMODE / ERR_BITS reads and writes, ACC read / write (RND and URND: rnd_item)."""
    r = g.rng
    k = r.randrange(5)
    g.features["csr"] += 1
    if k == 0:
        return g.set_vmode(r.randrange(2))
    if k == 1:
        return [f"{r.choice(('csrrw', 'csrrs', 'csrrc'))} x{g.gd()}, VMODE, x{g.gs()}"]
    if k == 2:
        return [f"{r.choice(('csrrs', 'csrrc'))} x{g.gd()}, ERR_BITS, x0"]
    if k == 3:
        return [f"csrrs x{g.gd()}, {r.choice(('VMODE', 'ERR_BITS'))}, x0"]
    return [f"bn.wsrr w{g.w()}, ACC" if g.chance(0.5) else f"bn.wsrw ACC, w{g.w()}"]
