# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""Error snippets: one construct per error class, placed where an error program ends
(ILLEGAL_INSN, BAD_INSN_ADDR, BAD_DATA_ADDR, LOOP, RND; KMAC and SAMPLER with cfg.kmac)."""
from __future__ import annotations

from ip.acc.tools.dis import Disassembler
from ip.acc.dv.rig.config import FUZZ_GROUPS, LANES, MASK32, SMP_MISUSE, _li, _ninsns
from ip.acc.dv.rig.gens.kmac import KMAC_MISUSE, kmac_item
from ip.acc.dv.rig.gens.mem import MEM_OPS, mem_item
from ip.acc.dv.rig.gens.straight_line import plain_item
from ip.acc.dv.rig.state import State


def error_item(g: State, cls: str) -> list[str]:
    """A construct that raises error class `cls`."""
    r = g.rng
    g.features["err_" + cls] += 1
    if cls == "KMAC":
        return kmac_item(g, r.choice(KMAC_MISUSE))
    if cls == "SAMPLER":
        return kmac_item(g, r.choice(SMP_MISUSE[:-1]))
    if cls == "ILLEGAL_INSN":
        return illegal_insn(g)
    if cls == "BAD_INSN_ADDR":
        return bad_insn_addr(g)
    if cls == "BAD_DATA_ADDR":
        return bad_data_addr(g)
    if cls == "LOOP":
        return loop_error(g)
    if cls == "RND":
        # whatever the pool holds (this program's 8 words, an earlier program's leftovers or
        # nothing), one of the two reads finds too few fresh words
        return [f"csrrs x{g.gd()}, RND, x0", f"bn.wsrr w{g.w()}, RND"]
    raise ValueError(cls)


def illegal_insn(g: State) -> list[str]:
    """An undecodable word, an unknown / read-only CSR, an unknown WSR (or RND written), a
    lane or shift amount or butterfly distance out of range for the VMODE, a wdr field
    beyond the registers."""
    r = g.rng
    isa = g.isa
    k = r.randrange(10)
    if k == 9 and isa.wdrs < 32:                # a wdr field beyond the registers
        # the disassembler's `.word` line names the instruction in a comment
        return [Disassembler(isa).line(bad_wdr_word(g))]
    if k == 0 and g.chance(0.5):                # a valid encoding with 1-2 bits flipped
        while True:
            wrd = random_encoding(g, r.choice(isa.insns))
            for _ in range(r.randint(1, 2)):
                wrd ^= 1 << r.randrange(32)
            if isa.decode(wrd) is None:
                return [f".word {wrd:#010x}"]
    if k == 0:                                  # random bits, all ones / zeros, custom opcodes
        while True:
            wrd = r.choice((r.getrandbits(32), MASK32, 0,
                            (r.getrandbits(25) << 7) | r.choice((0x0B, 0x2B, 0x5B, 0x7B, 0x73, 0x33))))
            if isa.decode(wrd) is None:
                return [f".word {wrd:#010x}"]
    if k == 1:
        known = {c["addr"] for c in isa.csrs.values()}
        a = r.choice([x for x in (0, 0x7C4, 0x7FF, 0xFC1, 0x300, r.getrandbits(12)) if x not in known]
                     or [0x123])
        return [f"{r.choice(('csrrw', 'csrrs', 'csrrc'))} x{g.gd()}, {a:#x}, x{g.gs()}"]
    if k == 2:                                  # a write to a read-only CSR
        ro = [n for n, c in isa.csrs.items() if c["desc"].lower().startswith("read-only")]
        m = r.choice(("csrrw", "csrrs", "csrrc"))
        src = g.gs() if m == "csrrw" else r.randint(1, 31)
        return [f"{m} x{g.gd()}, {r.choice(ro)}, x{src}"]
    if k == 3:
        known = {c["addr"] for c in isa.wsrs.values()}
        a = r.choice([x for x in range(256) if x not in known])
        return [r.choice((f"bn.wsrr w{g.w()}, {a:#x}", f"bn.wsrw {a:#x}, w{g.w()}",
                          f"bn.wsrw RND, w{g.w()}"))]
    if k == 4:
        m = r.choice(("bn.ins", "bn.ext"))
        lane = r.choice((8, 9, 1023, r.randint(8, 1023)))
        return [f"bn.ins w{g.w()}, x{g.gs()}, {lane}" if m == "bn.ins"
                else f"bn.ext x{g.gd()}, w{g.w()}, {lane}"]
    mode = r.randrange(2)
    pre = g.set_vmode(mode)                     # (drawn even where a fixed VMODE follows)
    if k == 5:                                  # the 5-bit shamt reaches 32 only in VMODE 0
        return g.set_vmode(0) + [f"bn.shlv w{g.w()}, w{g.w()}, {r.randint(16, 31)}"]
    if k == 6:
        return pre + [f"bn.bcastl w{g.w()}, w{g.w()}, {r.randint(LANES[mode], 31)}"]
    m = r.choice(("bn.bfly.ct", "bn.bfly.gs"))
    if k == 7 or mode == 0:                     # distance l8 needs 16 lanes
        return g.set_vmode(1) + [f"{m} w{g.w()}, w{g.w()}, w{g.w()}, l8, {r.randint(0, 15)}"]
    return pre + [f"{m} w{g.w()}, w{g.w()}, w{g.w()}, r, {r.randint(8, 15)}"]


def bad_insn_addr(g: State) -> list[str]:
    """A jump / branch / jalr to a misaligned or out-of-IMEM address, or (k == 4) a jump to
    the tail that runs off the end of IMEM (the program builder pads up to it)."""
    r = g.rng
    imem = g.cfg.imem_size
    k = r.randrange(5)
    if k == 4:
        g.falloff = True
        return [f"jal x{g.gd()}, LTAIL"]
    if k == 0:
        off = r.choice((imem, imem + 4, 2, 6, -(imem + 4), min(4094, imem + 2)))
        if abs(off) < 4096 and g.chance(0.5):   # (a branch only reaches +-4 KiB)
            a = g.gs()
            return [f"beq x{a}, x{a}, {off}"]
        return [f"jal x{g.gd()}, {off}"]
    t = r.randint(1, 31)
    tgt = r.choice((imem, imem + 4, MASK32 - 3, 0x8000_0000, 2, 6, 0x7FE, r.getrandbits(32) | imem,
                    r.randrange(0, imem, 4) + 2))
    if (tgt & ~1) % 4 == 0 and (tgt & ~1) < imem:   # jalr clears bit 0: that one is valid
        tgt = imem
    return _li(t, tgt) + [f"jalr x{g.gd()}, 0(x{t})"]


def bad_data_addr(g: State) -> list[str]:
    """A misaligned or out-of-DMEM load / store, or a post-incremented pointer that walks
    off the end of DMEM in a loop."""
    r = g.rng
    lay = g.lay
    k = r.randrange(3)
    op = r.choice(MEM_OPS)
    size = 32 if op.startswith("bn.") else 4
    if k == 0:                                  # misaligned
        addr = r.randrange(0, lay.data_end - 32, size) + r.randint(1, size - 1)
        return mem_item(g, op, addr)
    if k == 1:                                  # outside DMEM
        addr = r.choice((lay.dmem_size, lay.dmem_size + size, MASK32 + 1 - size,
                         0x8000_0000, (r.getrandbits(32) | 0x1_0000) & ~(size - 1)))
        return mem_item(g, op, addr)
    breg = r.randint(1, 31)
    steps = r.randint(1, 4)
    m = r.choice(("bn.lw.pi", "bn.sw.pi"))
    return _li(breg, lay.dmem_size - 32 * steps) + \
        [f"loopi {steps + r.randint(1, 3)}, 1", f"{m} w{g.w()}, 0(x{breg})"]


def loop_error(g: State) -> list[str]:
    """A zero iteration count (loopi or loop), an empty body, 9+ nested loops (also 8 valid
    ones and one more), control flow as the last body instruction, an inner body that ends
    after its outer one."""
    r = g.rng
    k = r.randrange(7)
    body = plain_item(g) + plain_item(g)
    if k == 0:
        return [f"loopi 0, {_ninsns(body)}"] + body
    if k == 1:                                  # count 0 in a GPR (x0 or a cleared one)
        reg = r.randint(1, 31)
        pre = [] if g.chance(0.3) else [f"addi x{reg}, x0, 0"]
        return pre + [f"loop x{reg if pre else 0}, {_ninsns(body)}"] + body
    if k == 2:
        return [r.choice(("loopi 3, 0", "loopi 1023, 0"))] + body
    if k == 3:
        depth = r.randint(9, 10)
        return [f"loopi {r.randint(1, 2)}, {depth - d + 1}" for d in range(depth)] + \
            ["addi x1, x1, 1", "addi x2, x2, 1"]
    if k == 4:
        lab = g.label()
        a = g.gs()
        last = r.choice((f"beq x{a}, x{g.gs()}, {lab}", f"bne x{a}, x{a}, {lab}",
                         f"jal x{g.gd()}, {lab}", f"jalr x0, {lab}(x0)",
                         "loopi 2, 1", f"loop x{r.randint(1, 31)}, 1"))
        body = body + [last]
        return [f"loopi {r.randint(1, 3)}, {_ninsns(body)}"] + body + [f"{lab}:", "addi x3, x3, 1"]
    if k == 5:
        return ["loopi 2, 2", "loopi 2, 2", "addi x1, x1, 1", "addi x1, x1, 1"]
    return [f"loopi 1, {9 - d}" for d in range(8)] + ["loopi 1, 1", "addi x1, x1, 1"]


def random_encoding(g: State, insn) -> int:
    """insn.encode with random in-range operand values (may be an illegal variant)."""
    vals = {}
    for op in insn.operands.values():
        lo, hi = op.value_range()
        step = 1 << op.align
        vals[op.name] = g.rng.randrange(lo - lo % step, hi + 1, step)
    return insn.encode(vals)


def bad_wdr_word(g: State) -> int:
    """A legal instruction but for one or more wdr operands in wdrs..31 (ILLEGAL_INSN)."""
    r = g.rng
    isa = g.isa
    insn = r.choice([i for i in isa.insns if i.group in FUZZ_GROUPS
                     and any(op.kind == "wdr" for op in i.operands.values())])
    vals = {}
    for name, op in insn.operands.items():
        lo, hi = op.value_range()
        vals[name] = r.randrange(lo >> op.align, (hi >> op.align) + 1) << op.align
        if op.kind == "wdr":
            vals[name] = g.w()
    wdrs = [n for n, op in insn.operands.items() if op.kind == "wdr"]
    for name in r.sample(wdrs, r.randint(1, len(wdrs))):
        vals[name] = r.choice((isa.wdrs, 31, r.randint(isa.wdrs, 31)))
    g.features["bad_wdr"] += 1
    return insn.encode(vals)
