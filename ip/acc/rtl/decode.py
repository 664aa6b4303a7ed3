# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""Instruction decoder built at elaboration time from ip/acc/data/isa.yml.

No encoding is written here: every instruction's mask/match and every operand's bit slices
come from ip.acc.tools.isa (the same loader the assembler, disassembler and ISS use).

    dec = Decoder(m, ir, isa)
    dec.is_("bn.addvm")       # 1 when ir is that instruction
    dec.any_of(["beq", ...])  # OR of is_
    dec.operand("grs1")       # value of the operand named grs1 in whichever instruction
                              # matched (32 bits, sign-extended for simm/pcrel); 0 otherwise
    dec.index(["wrs1", "wa"]) # register-file read/write port index: the field of whichever
                              # of these operands the instruction has; don't-care otherwise
    dec.valid                 # ir is some instruction of the ISA

A word whose wdr field names a register beyond isa.yml `wdrs` matches no instruction (its
flags use Insn.dec_mask: the fixed bits plus the wdr fields' upper bits), so it is an
undefined encoding like any other: no operands, no stall, ILLEGAL_INSN.

Predecode: Decoder(m, ir, isa, word=w, load=l) matches `w` (the word that goes into the
register `ir` when `l`) and registers the match flags under the same condition, so the
mask/match logic runs in the fetch stage and execute sees one flop per instruction; the
port indices of `index` and the values of `encode` are registered the same way (execute's
register-file read muxes and the wide ALU's op then start from flops).
"""
from amaranth import Cat, Const, Mux, Signal


def _sig_name(mnemonic: str) -> str:
    return "is_" + mnemonic.replace(".", "_")


class Decoder:
    def __init__(self, m, ir, isa, groups=None, word=None, load=None):
        """groups: only instructions of these isa.yml groups decode (others are illegal)."""
        self.isa = isa
        self.insns = [i for i in isa.insns if groups is None or i.group in groups]
        self._is = {}
        self._next = {}        # predecode: the match flags of `word` (before the register)
        for insn in self.insns:
            s = Signal(name=_sig_name(insn.mnemonic))
            if word is None:
                m.d.comb += s.eq((ir & insn.dec_mask) == insn.match)
            else:
                nx = Signal(name="nx_" + _sig_name(insn.mnemonic)[3:])
                m.d.comb += nx.eq((word & insn.dec_mask) == insn.match)
                with m.If(load):
                    m.d.sync += s.eq(nx)
                self._next[insn.mnemonic] = nx
            self._is[insn.mnemonic] = s
        self.valid = Signal()
        m.d.comb += self.valid.eq(Cat(*self._is.values()).any())
        self._m = m
        self._ir = ir
        self._word, self._load = word, load
        self._ops = {}

    def is_(self, mnemonic: str):
        return self._is[mnemonic] if mnemonic in self._is else Const(0)

    def any_of(self, mnemonics):
        sigs = [self._is[m] for m in mnemonics if m in self._is]
        return Cat(*sigs).any() if sigs else Const(0)

    def encode(self, values: dict, width: int, name: str):
        """values[mnemonic] for the instruction in ir (0 for any other) as a `width`-bit
        signal: an OR of the match flags (at most one is set), not a priority chain. With
        predecode it is computed from `word` and registered with the flags, so execute reads
        a flop (a wide control field, e.g. the wide ALU's op, then costs no decode time)."""
        flags = self._is if self._word is None else self._next
        expr = Const(0, width)
        for mn, v in values.items():
            if mn in flags:
                expr = expr | Mux(flags[mn], Const(v, width), 0)
        return self._drive(Signal(width, name=name), expr)

    def _drive(self, out: Signal, value) -> Signal:
        """out = value: combinational, or (predecoded) a flop loaded with the next word's."""
        if self._word is None:
            self._m.d.comb += out.eq(value)
        else:
            with self._m.If(self._load):
                self._m.d.sync += out.eq(value)
        return out

    def with_operand(self, name: str, kind: str | None = None) -> list:
        """Mnemonics that have an operand of this name (and kind)."""
        return [i.mnemonic for i in self.insns if name in i.operands
                and (kind is None or i.operands[name].kind == kind)]

    def operand(self, name: str, kind: str | None = None):
        key = (name, kind)
        if key in self._ops:
            return self._ops[key]
        variants = {}          # bit layout -> mnemonics that use it
        for insn in self.insns:
            op = insn.operands.get(name)
            if op is None or (kind is not None and op.kind != kind):
                continue
            layout = (tuple((f.lo, f.width, olo) for f, _, olo in op.slices), op.width, op.signed)
            variants.setdefault(layout, []).append(insn.mnemonic)
        out = Signal(32, name=f"op_{name}" + (f"_{kind}" if kind else ""))
        value = Const(0, 32)
        for (slices, width, signed), mnems in variants.items():
            raw = Signal(width, name=f"{out.name}_v{len(mnems)}_{mnems[0].replace('.', '_')}")
            for lo, w, olo in slices:
                self._m.d.comb += raw[olo:olo + w].eq(self._ir[lo:lo + w])
            ext = raw.as_signed() if signed else raw
            value = value | Mux(self.any_of(mnems), ext.as_unsigned() if not signed
                                else Cat(ext, ext[-1].replicate(32 - width))[:32], 0)
        self._m.d.comb += out.eq(value)
        self._ops[key] = out
        return out

    def index(self, names, kind: str | None = None, width: int = 5):
        """A register port index: the field of whichever operand in `names` the instruction
        has. Unlike `operand` it is not forced to 0 for instructions without one (the
        caller gates its use), so the common layout needs no select at all; the rarer
        layouts are selected by their few instructions' match flags."""
        return self._drive(Signal(width, name="idx_" + "_".join(names)), self._index_value(names, kind, width))

    def select(self, names, kind: str, count: int, mnemonics, name: str) -> Signal:
        """A one-hot register select: bit k set when the instruction is one of MNEMONICS and
        its `index(names)` field is k, all zero for any other instruction (predecoded like
        `index`). A read port muxed by it carries a register only while an instruction reads
        it, and its AND-OR mux has no node that two unread registers meet in."""
        value = self._index_value(names, kind, max(1, (count - 1).bit_length()))
        flags = self._is if self._word is None else self._next
        reads = Cat(*[flags[mn] for mn in sorted(set(mnemonics)) if mn in flags]).any()
        return self._drive(Signal(count, name=name), Cat(*[reads & (value == k) for k in range(count)]))

    def _index_value(self, names, kind: str | None, width: int):
        layouts = {}           # (lo, width) -> mnemonics
        for insn in self.insns:
            for name in names:
                op = insn.operands.get(name)
                if op is None or (kind is not None and op.kind != kind):
                    continue
                assert len(op.slices) == 1 and op.slices[0][2] == 0, (insn.mnemonic, name)
                f = op.slices[0][0]
                layouts.setdefault((f.lo, f.width), []).append(insn.mnemonic)
        order = sorted(layouts, key=lambda k: -len(layouts[k]))
        word = self._ir if self._word is None else self._word
        by_mnem = {i.mnemonic: i for i in self.insns}
        value = word[order[0][0]:order[0][0] + width]
        for lo, w in order[1:]:
            hit = Cat(*((word & by_mnem[mn].mask) == by_mnem[mn].match
                        for mn in layouts[lo, w])).any()
            value = Mux(hit, word[lo:lo + width], value)
        return value
