# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""ip/acc/rtl/decode.py: Decoder.encode, combinational and predecoded (registered with the
match flags when the word loads into IR), against the mnemonic the assembler encoded."""
from amaranth.hdl import Module, Signal
from amaranth.sim import Simulator

from ip.acc.rtl.core import IMPLEMENTED_GROUPS
from ip.acc.rtl.decode import Decoder
from ip.acc.rtl.wide_alu import WIDE_OP_OF_MNEMONIC
from ip.acc.tools.asm import assemble
from ip.acc.tools.isa import load_isa

PROGRAM = ("bn.addvm w1, w2, w3\nbn.bfly.gs w0, w1, w2, l4, 3\nbn.pk w4, w5, w6, 12, 7\n"
           "addi x1, x0, 5\nbn.or.acc x6, w1, w2\nbn.mulv.hi w7, w8, w9\n.word 0\n"
           "bn.bfly.ct w3, w4, w5, r, 0\necall\n")
VALUES = {mn: op.value + 3 for mn, op in WIDE_OP_OF_MNEMONIC.items()}   # no 0 among them


def _expected(word, isa):
    hits = [i.mnemonic for i in isa.insns
            if i.group in IMPLEMENTED_GROUPS and (word & i.dec_mask) == i.match]
    return VALUES.get(hits[0], 0) if hits else 0


def _run(predecode):
    isa = load_isa()
    words = assemble(PROGRAM)
    m = Module()
    ir, word, load = Signal(32), Signal(32), Signal()
    if predecode:
        with m.If(load):
            m.d.sync += ir.eq(word)
        dec = Decoder(m, ir, isa, IMPLEMENTED_GROUPS, word=word, load=load)
    else:
        dec = Decoder(m, ir, isa, IMPLEMENTED_GROUPS)
    enc = dec.encode(VALUES, 5, "enc")
    seen = []

    async def bench(ctx):
        for w in words:
            if predecode:
                ctx.set(word, w)
                ctx.set(load, 1)
                await ctx.tick()
                ctx.set(load, 0)
                ctx.set(word, 0xFFFF_FFFF)        # junk while not loading: IR and enc hold
                await ctx.tick()
            else:
                ctx.set(ir, w)
                await ctx.delay(1e-9)
            assert ctx.get(enc) == _expected(w, isa), hex(w)
            seen.append(ctx.get(enc))

    sim = Simulator(m)
    if predecode:
        sim.add_clock(1e-6)
    sim.add_testbench(bench)
    sim.run()
    return seen


def test_encode_combinational_and_predecoded_agree():
    comb, pre = _run(False), _run(True)
    assert comb == pre
    # the wide ops of the program, then 0 for addi, .word 0 and ecall
    assert [v for v in pre if v] == [VALUES[mn] for mn in (
        "bn.addvm", "bn.bfly.gs", "bn.pk", "bn.or.acc", "bn.mulv.hi", "bn.bfly.ct")]
    assert pre.count(0) == 3
