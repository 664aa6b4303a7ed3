# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""ip/acc/data/isa.yml: validator (ip.acc.tools.isa) and generated doc (ip.acc.tools.isa_doc)."""
import random

import pytest

from ip.acc.tools import isa_doc
from ip.acc.tools.isa import ISA_YML, IsaError, load_isa, parse_isa

# A minimal valid document; the bad cases below each change one thing.
GOOD = """
errors:
  ILLEGAL_INSN: {bit: 0, desc: x}
  BAD_INSN_ADDR: {bit: 1, desc: x}
operand-kinds: {gpr: x, uimm: x, simm: x}
groups: {base: x}
encoding-schemes:
  R: {funct7: "31:25", rs2: "24:20", rs1: "19:15", funct3: "14:12", rd: "11:7", opcode: "6:0"}
  I: {imm: "31:20", rs1: "19:15", funct3: "14:12", rd: "11:7", opcode: "6:0"}
insns:
  - {mnemonic: add, group: base, syntax: "grd, grs1, grs2",
     operands: {grd: {kind: gpr}, grs1: {kind: gpr}, grs2: {kind: gpr}},
     encoding: {scheme: R, mapping: {funct7: "0b0000000", rs2: grs2, rs1: grs1, funct3: "0b000", rd: grd, opcode: "0b0110011"}},
     cycles: 1, doc: "add"}
  - {mnemonic: addi, group: base, syntax: "grd, grs1, imm",
     operands: {grd: {kind: gpr}, grs1: {kind: gpr}, imm: {kind: simm}},
     encoding: {scheme: I, mapping: {imm: imm, rs1: grs1, funct3: "0b000", rd: grd, opcode: "0b0010011"}},
     cycles: 1, doc: "addi"}
"""


def test_good_snippet_loads():
    isa = parse_isa(GOOD)
    assert [i.mnemonic for i in isa.insns] == ["add", "addi"]


def test_timing_fields():
    """latency / unit parse with their defaults; a unit needs a positive interval."""
    isa = parse_isa(GOOD.replace("groups:", "units: {mul: {interval: 2, desc: x}}\ngroups:")
                    .replace('cycles: 1, doc: "add"}', 'cycles: 1, latency: 3, unit: mul, doc: "add"}'))
    add, addi = isa.by_mnemonic["add"], isa.by_mnemonic["addi"]
    assert (add.latency, add.unit, addi.latency, addi.unit) == (3, "mul", 1, "")
    assert isa.units["mul"]["interval"] == 2
    with pytest.raises(IsaError, match=r"unit mul: 'interval' must be a positive integer"):
        parse_isa(GOOD.replace("groups:", "units: {mul: {interval: 0}}\ngroups:"))


def test_real_isa_loads():
    isa = load_isa()
    assert len(isa.insns) > 60
    groups = {i.group for i in isa.insns}
    assert {"base", "loop", "wide-mem", "vec", "ntt", "kmac", "smp"} <= groups
    for must in ("loop", "loopi", "ecall", "bn.lw.pi", "bn.sw.pi", "bn.bfly.ct", "bn.bfly.gs",
                 "bn.mulvm", "bn.addvm", "bn.subvm", "kmac.start", "kmac.msg", "kmac.dig",
                 "kmac.finish", "smp.run"):
        assert must in isa.by_mnemonic, must


def test_overlapping_encoding_is_caught():
    bad = GOOD.replace('mnemonic: addi', 'mnemonic: addx').replace('"0b0010011"', '"0b0110011"')
    bad = bad.replace('encoding: {scheme: I, mapping: {imm: imm, rs1: grs1, funct3: "0b000"',
                      'encoding: {scheme: I, mapping: {imm: imm, rs1: grs1, funct3: "0b000"')
    with pytest.raises(IsaError, match=r"instruction addx: encoding overlaps add"):
        parse_isa(bad)


def test_field_overflow_is_caught():
    # funct3 is 3 bits; a 4-bit literal overflows it
    bad = GOOD.replace('funct3: "0b000", rd: grd, opcode: "0b0010011"',
                       'funct3: "0b1000", rd: grd, opcode: "0b0010011"')
    with pytest.raises(IsaError, match=r"instruction addi: field funct3 .*field overflow"):
        parse_isa(bad)
    # an operand slice wider than its field
    bad = GOOD.replace("mapping: {imm: imm,", 'mapping: {imm: "imm[12:0]",')
    with pytest.raises(IsaError, match=r"instruction addi: field imm .*field overflow"):
        parse_isa(bad)
    # a scheme field beyond bit 31
    bad = GOOD.replace('I: {imm: "31:20"', 'I: {imm: "32:20"')
    with pytest.raises(IsaError, match=r"scheme I.*32 bits"):
        parse_isa(bad)


def test_unknown_operand_kind_is_caught():
    bad = GOOD.replace("imm: {kind: simm}", "imm: {kind: fancyimm}")
    with pytest.raises(IsaError, match=r"instruction addi: operand imm has unknown operand kind 'fancyimm'"):
        parse_isa(bad)


@pytest.mark.parametrize("edit, msg", [
    (("cycles: 1, doc: \"addi\"", "doc: \"addi\""), r"instruction addi: 'cycles'"),
    (("syntax: \"grd, grs1, imm\"", "syntax: \"grd, grs1\""), r"instruction addi: operand imm must appear"),
    (("scheme: I,", "scheme: Q,"), r"instruction addi: unknown encoding scheme"),
    (("cycles: 1, doc: \"addi\"", "cycles: 1, latency: 0, doc: \"addi\""),
     r"instruction addi: 'latency' must be a positive integer"),
    (("cycles: 1, doc: \"addi\"", "cycles: 1, unit: mul, doc: \"addi\""),
     r"instruction addi: unknown unit 'mul'"),
    (('rs1: "19:15", funct3: "14:12", rd: "11:7", opcode: "6:0"}\ninsns',
      'rs1: "19:15", funct3: "14:12", rd: "11:6", opcode: "6:0"}\ninsns'), r"scheme I: field"),
])
def test_other_mistakes_name_the_instruction(edit, msg):
    bad = GOOD.replace(*edit)
    assert bad != GOOD
    with pytest.raises(IsaError, match=msg):
        parse_isa(bad)


def test_every_encoding_decodes_to_itself():
    isa = load_isa()
    rng = random.Random(1)
    for insn in isa.insns:
        for _ in range(20):
            vals = {}
            for op in insn.operands.values():
                lo, hi = op.value_range()
                if op.kind == "wdr":
                    hi = isa.wdrs - 1
                vals[op.name] = rng.randint(lo >> op.align, hi >> op.align) << op.align
            word = insn.encode(vals)
            assert 0 <= word < 1 << 32
            got = isa.decode(word)
            assert got is not None and got[0] is insn, insn.mnemonic
            assert got[1] == vals, insn.mnemonic


def test_wdr_field_beyond_the_register_count_decodes_to_nothing():
    """isa.yml wdrs: 16; the 5-bit wdr fields stay, w16..w31 are undefined encodings."""
    isa = load_isa()
    assert isa.wdrs == 16
    for insn in isa.insns:
        wdrs = [n for n, op in insn.operands.items() if op.kind == "wdr"]
        for name in wdrs:
            for bad in (16, 17, 31):
                vals = {n: (op.value_range()[0] >> op.align) << op.align
                        for n, op in insn.operands.items()}
                vals[name] = bad
                word = insn.encode(vals)
                assert isa.decode(word) is None, (insn.mnemonic, name, bad)
                raw = isa.decode(word, any_wdr=True)
                assert raw[0] is insn and raw[1] == vals
                assert isa.bad_wdrs(insn, vals) == [name]


@pytest.mark.parametrize("wdrs, msg", [
    (12, "power of two"), (64, "power of two"), (0, "power of two"), ("16", "power of two"),
    (8, "must say w0..w7"),
])
def test_wdr_count_is_checked(wdrs, msg):
    text = ISA_YML.read_text().replace("\nwdrs: 16\n", f"\nwdrs: {wdrs!r}\n")
    with pytest.raises(IsaError, match=msg):
        parse_isa(text)


@pytest.mark.parametrize("depth, msg", [(0, "positive integer"), ("8", "positive integer"),
                                        (4, "groups loop must say 4-deep")])
def test_loop_depth_is_checked(depth, msg):
    """isa.yml loop_depth is the one count of loop-stack entries (ISS, RTL, fuzzer)."""
    assert load_isa().loop_depth == 8
    text = ISA_YML.read_text().replace("\nloop_depth: 8\n", f"\nloop_depth: {depth!r}\n")
    with pytest.raises(IsaError, match=msg):
        parse_isa(text)


def test_isa_md_is_up_to_date():
    text = isa_doc.render(load_isa())
    assert isa_doc.ISA_MD.read_text() == text, "run: .venv/bin/python -m ip.acc.tools.isa_doc"
