# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""ip/acc/rtl/wide_alu.py against the ISS, bit for bit.

One stream of random vectors (every WideOp, both VMODEs, every dist, several tidx / shamt /
lane values, every bn.unpk / bn.pk d code (legal, illegal in the VMODE, reserved) at several offsets, lane values >= q, zeros and all-ones) is issued back to back, shuffled, with a
few idle cycles and never two multiplier-unit ops in consecutive cycles (isa.yml interval
2): each multiplier result is checked two cycles after its issue (res2_valid), while later
instructions are already on the inputs. Expected values: one instruction run on the ISS.
"""
import functools
import random

from amaranth.back import verilog
from amaranth.sim import Simulator

from ip.acc.rtl.wide_alu import (DIST_NAMES, MODES, MUL_UNIT_OPS, UNPK_LEGAL, UNPK_WIDTHS,
                                 WIDE_OP_OF_MNEMONIC, WideAlu, WideOp, uses_mul_unit)
from ip.acc.tools.asm import assemble
from ip.acc.tools.isa import load_isa
from ip.acc.iss import Iss

ISA = load_isa()
_SIM = Iss(ISA)
_WORDS = {}


def _lane_word(rng, vmode):
    lanes, w, q = MODES[vmode]
    kind = rng.randrange(4)
    if kind == 0:                            # anything, including >= q
        return rng.getrandbits(256)
    vals = []
    for _ in range(lanes):
        c = rng.randrange(8)
        vals.append([rng.randrange(q), rng.randrange(q), rng.getrandbits(w), 0, q - 1, q,
                     (1 << w) - 1, q + rng.randrange((1 << w) - q)][c])
    if kind == 1:                            # mostly reduced
        vals = [v % q if rng.random() < 0.7 else v for v in vals]
    return sum(v << (w * i) for i, v in enumerate(vals))


def _iss(vec):
    """Run the vector's instruction on the ISS: expected outputs, or {'illegal': True}."""
    mn, vmode, imm, dist = vec["mn"], vec["vmode"], vec["imm"], vec["dist"]
    word = None
    if mn in ("bn.unpk", "bn.pk"):
        # codes past the d list are not writable in assembly: encoded by hand
        insn = ISA.by_mnemonic[mn]
        word = insn.encode({"wrd": 4, "wrs1": 1, "wrs2": 2, "d": 0, "off": imm})
        word |= vec["width"] << insn.operands["d"].slices[0][0].lo
        src = f".word {word}"
    elif mn.startswith("bn.bfly"):
        if dist >= len(DIST_NAMES):
            # not encodable by the assembler; the ISS raises IndexError on such a word
            return {"illegal": True}
        src = f"{mn} w1, w2, w3, {DIST_NAMES[dist]}, {imm & 15}"
    elif mn == "bn.sel":
        src = "bn.sel w3, w1, w2"
    elif mn == "bn.or.acc":
        src = "bn.or.acc x6, w1, w2"
    elif mn in ("bn.shlv", "bn.shrv", "bn.srav", "bn.bcastl"):
        src = f"{mn} w4, w1, {imm}"
    elif mn == "bn.bcast":
        src = "bn.bcast w4, x5"
    else:
        src = f"{mn} w4, w1, w2"
    if src not in _WORDS:
        _WORDS[src] = assemble(src, "t.s", ISA)
    sim = _SIM
    sim.reset()
    sim.csr.values["VMODE"] = vmode
    sim.wdr.regs[1], sim.wdr.regs[2], sim.wdr.regs[3] = vec["a"], vec["b"], vec["t"]
    sim.gpr.regs[5] = vec["gpr"]
    sim.wsr.values["ACC"] = vec["acc"]
    sim.load_program(_WORDS[src])
    halt = sim.step()
    if halt is not None:
        assert halt.errors == ["ILLEGAL_INSN"], halt
        return {"illegal": True}
    if mn.startswith("bn.bfly"):
        return {"illegal": False, "res2_a": sim.wdr.regs[1], "res2_b": sim.wdr.regs[2]}
    if mn == "bn.or.acc":
        return {"illegal": False, "acc_next": sim.wsr.values["ACC"], "popcnt": sim.gpr.regs[6]}
    d = sim.wdr.regs[3 if mn == "bn.sel" else 4]
    return {"illegal": False, ("res2_a" if uses_mul_unit(vec["op"]) else "res"): d}


@functools.cache
def _vectors():
    rng = random.Random(2026)
    out = []

    def add(mn, vmode, imm=0, dist=0, n=1, width=0):
        for _ in range(n):
            vec = {"mn": mn, "op": WIDE_OP_OF_MNEMONIC[mn], "vmode": vmode,
                   "a": _lane_word(rng, vmode), "b": _lane_word(rng, vmode),
                   "t": _lane_word(rng, vmode), "imm": imm, "dist": dist,
                   "gpr": rng.getrandbits(32), "acc": 0}
            # ACC: often zero lanes so that popcnt varies
            sparse = rng.getrandbits(256) & rng.getrandbits(256) & rng.getrandbits(256)
            vec["acc"] = rng.choice([0, rng.getrandbits(256), sparse])
            vec["width"] = width
            if mn == "bn.or.acc" and rng.random() < 0.5:      # a ^ b with zero lanes
                mask = rng.getrandbits(256) & rng.getrandbits(256)
                vec["b"] = vec["a"] ^ mask
            vec["exp"] = _iss(vec)
            out.append(vec)

    shifts = ("bn.shlv", "bn.shrv", "bn.srav")
    for vmode in (0, 1):
        lanes, w, _ = MODES[vmode]
        for mn in WIDE_OP_OF_MNEMONIC:
            if mn in shifts:
                for shamt in sorted({0, 1, 5, w - 1, 15, 16, 17, 31}):
                    add(mn, vmode, imm=shamt)
            elif mn == "bn.bcastl":
                for lane in (0, 1, 3, 7, 8, 15, 16, 31):
                    add(mn, vmode, imm=lane)
            elif mn in ("bn.unpk", "bn.pk"):
                for code in range(16):
                    legal = code < len(UNPK_WIDTHS) and UNPK_WIDTHS[code] in UNPK_LEGAL[vmode]
                    offs = (0, 31, rng.randrange(32)) if legal else \
                        (rng.randrange(32),)
                    for off in offs:
                        add(mn, vmode, imm=off, width=code)
            elif mn.startswith("bn.bfly"):
                for dist in range(8):
                    for tidx in (0, 7, 8, 15):          # the ends of 8 and 16 lanes
                        add(mn, vmode, imm=tidx | (rng.getrandbits(1) << 4), dist=dist)
            else:
                add(mn, vmode, n=5 if mn.startswith("bn.mul") else 3)
    rng.shuffle(out)
    return out


def test_enum_and_tables():
    assert {o.name for o in WideOp} == {
        "ADDVM", "SUBVM", "ADDV", "SUBV", "MULVM", "MULV_LO", "MULV_HI", "LTV", "AND", "OR",
        "XOR", "SEL", "OR_ACC", "SHLV", "SHRV", "SRAV", "TRN1", "TRN2", "UNZIP_LO", "UNZIP_HI",
        "BCASTL", "BCAST", "BFLY_CT", "BFLY_GS", "UNPK", "PK"}
    assert set(WIDE_OP_OF_MNEMONIC.values()) == set(WideOp)
    for mn in WIDE_OP_OF_MNEMONIC:
        insn = ISA.by_mnemonic[mn]
        assert (insn.unit == "mul") == uses_mul_unit(WIDE_OP_OF_MNEMONIC[mn]), mn
        assert insn.latency == (3 if insn.unit == "mul" else 1), mn
    assert MUL_UNIT_OPS == {o for o in WideOp if uses_mul_unit(o)}
    assert ISA.units["mul"]["interval"] == 2
    # bn.unpk's d enum and legal sets as isa.yml and the ISS have them
    from ip.acc.iss.insn import UNPK_WIDTHS as ISS_WIDTHS
    for mn in ("bn.unpk", "bn.pk"):
        assert ISA.by_mnemonic[mn].operands["d"].values == tuple(map(str, UNPK_WIDTHS))
    assert UNPK_LEGAL == (ISS_WIDTHS[16], ISS_WIDTHS[32])


def _run_stream(stream, checked=None):
    """stream: vectors or None (an idle cycle with junk on the inputs), one per cycle. Each
    multiplier-unit result is checked in the cycle res2_valid says, two after its issue."""
    dut = WideAlu()
    rng = random.Random(7)
    checked = {"res": 0, "res2": 0, "illegal": 0} if checked is None else checked

    async def bench(ctx):
        inflight = [None, None]                  # legal ops issued 1 and 2 cycles ago
        for vec in stream + [None, None]:
            if vec is None:
                ctx.set(dut.issue, 0)
                ctx.set(dut.op, rng.choice(list(WideOp)))
                ctx.set(dut.a, rng.getrandbits(256))
            else:
                for name in ("op", "vmode", "a", "b", "t", "imm", "dist", "width", "gpr", "acc"):
                    ctx.set(getattr(dut, name), vec[name])
                ctx.set(dut.issue, 1)
            old = inflight[1]
            if old is not None:
                assert ctx.get(dut.res2_valid)                   # issued two cycles ago, new inputs applied
                for key in ("res2_a", "res2_b"):
                    if key in old["exp"]:
                        got = ctx.get(getattr(dut, key))
                        assert got == old["exp"][key], (old["mn"], old["vmode"], old["dist"],
                                                        old["imm"], key, hex(got),
                                                        hex(old["exp"][key]))
                checked["res2"] += 1
            if vec is not None:
                exp = vec["exp"]
                assert ctx.get(dut.illegal) == exp["illegal"], vec["mn"]
                checked["illegal"] += 1
                for key in ("res", "acc_next", "popcnt"):
                    if key in exp:
                        assert ctx.get(getattr(dut, key)) == exp[key], (vec["mn"], vec["vmode"], key)
                        checked["res"] += 1
            await ctx.tick()
            mul = vec is not None and uses_mul_unit(vec["op"]) and not vec["exp"]["illegal"]
            inflight = [vec if mul else None, inflight[0]]

    sim = Simulator(dut)
    sim.add_clock(1e-6)
    sim.add_testbench(bench)
    sim.run()
    return checked


def test_wide_alu_matches_iss():
    rng = random.Random(7)
    stream, last_mul = [], False
    for vec in _vectors():
        mul = uses_mul_unit(vec["op"])
        if rng.random() < 0.08 or (mul and last_mul):    # idle cycle (the unit's interval)
            stream.append(None)
            last_mul = False
        stream.append(vec)
        last_mul = mul
    checked = _run_stream(stream)
    assert checked["res2"] > 80 and checked["res"] > 120    # 98 multiplier results with these vectors
    for mn in ("bn.unpk", "bn.pk"):
        vecs = [v for v in stream if v is not None and v["mn"] == mn]
        assert sum(not v["exp"]["illegal"] for v in vecs) == 3 * 13   # every legal d, 3 offsets
        assert sum(v["exp"]["illegal"] for v in vecs) == 16 * 2 - 13


def test_mul_unit_every_other_cycle():
    """Multiplier ops at the unit's full rate (one every 2 cycles) with one-cycle ops in the
    cycles between, every result checked against its own operands."""
    muls = [v for v in _vectors() if uses_mul_unit(v["op"]) and not v["exp"]["illegal"]][:40]
    others = [v for v in _vectors() if not uses_mul_unit(v["op"])][:40]
    stream = [v for pair in zip(muls, others) for v in pair]
    checked = _run_stream(stream)
    assert checked["res2"] == 40
