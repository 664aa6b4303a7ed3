# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""Assembler / disassembler (ip.acc.tools.asm, ip.acc.tools.dis): round trips over every instruction."""
import random
import subprocess
import sys

import pytest

from ip.acc.tools.asm import AsmError, Assembler
from ip.acc.tools.dis import Disassembler
from ip.acc.tools.isa import load_isa
from pqsoc import REPO

ISA = load_isa()
ASM = Assembler(ISA)
DIS = Disassembler(ISA)


def _range(op):
    lo, hi = op.value_range()
    return lo, (ISA.wdrs - 1 if op.kind == "wdr" else hi)     # w0..w15 (isa.yml wdrs)


def _random_values(insn, rng):
    vals = {}
    for op in insn.operands.values():
        lo, hi = _range(op)
        vals[op.name] = rng.randint(lo >> op.align, hi >> op.align) << op.align
    return vals


@pytest.mark.parametrize("mnemonic", [i.mnemonic for i in ISA.insns])
def test_round_trip_every_instruction(mnemonic):
    insn = ISA.by_mnemonic[mnemonic]
    rng = random.Random(mnemonic)
    cases = [{op.name: _range(op)[0] for op in insn.operands.values()},
             {op.name: (_range(op)[1] >> op.align) << op.align for op in insn.operands.values()}]
    cases += [_random_values(insn, rng) for _ in range(25)]
    for vals in cases:
        word = insn.encode(vals)
        text = DIS.line(word, pc=0x100)
        word2 = ASM.assemble_line(text, pc=0x100)
        assert word2 == word, (text, hex(word), hex(word2))
        assert DIS.line(word2, pc=0x100) == text


def test_program_with_labels_and_loops():
    src = """
    # a small program
    start:  addi x1, x0, 16        // 16 iterations
            loop x1, 2
            bn.lw.pi w0, 0(x2)
            bn.bfly.ct w0, w1, w15, l4, 3
    back:   bne x1, x0, start
            csrrw x0, VMODE, x3
            beq x0, x0, done
    done:   ecall
            .word 0xdeadbeef
    """
    words = ASM.assemble(src, "t.s")
    assert len(words) == 9
    assert words[-1] == 0xDEADBEEF
    text = [DIS.line(w, 4 * i) for i, w in enumerate(words)]
    assert text[0] == "addi x1, x0, 16"
    assert text[4].startswith("bne x1, x0, -16")
    assert text[6].startswith("beq x0, x0, 4")
    assert text[7] == "ecall"
    assert ASM.assemble("\n".join(text)) == words


@pytest.mark.parametrize("src, msg", [
    ("addi x1, x0", r"t.s:1: addi: operands"),
    ("\n\nfoo x1", r"t.s:3: unknown instruction 'foo'"),
    ("addi x1, x0, 5000", r"t.s:1: .*imm = 5000 outside -2048..2047"),
    ("add x1, x2, x32", r"t.s:1: add operand grs2: expected x0..x31"),
    ("bn.lw w1, 16(x2)", r"t.s:1: .*multiple of 32"),
    ("beq x1, x2, nowhere", r"t.s:1: undefined label 'nowhere'"),
    ("a:\na: ecall", r"t.s:2: label 'a' defined twice"),
    ("bn.bfly.ct w0, w1, w2, l3, 0", r"t.s:1: .*expected one of r, l1, l2, l4, l8"),
    ("csrrw x0, NOPE, x1", r"t.s:1: .*unknown CSR 'NOPE'"),
    ("bn.addv w1, w2, w16", r"t.s:1: bn.addv operand wrs2: w16: the ACC has 16 wide registers \(w0..w15\)"),
    ("bn.bfly.ct w0, w1, w31, l4, 3", r"t.s:1: bn.bfly.ct operand wt: w31: the ACC has 16 wide registers"),
    ("bn.lw w20, 0(x0)", r"t.s:1: bn.lw operand wrd: w20: the ACC has 16 wide registers"),
    ("bn.mov w1, w32", r"t.s:1: bn.mov operand wrs: expected w0..w15, got 'w32'"),
    ("bn.unpk w1, w2, w3, 7, 0", r"t.s:1: bn.unpk operand d: expected one of 1, 3, 4, 5, 6, 10, "
                                 r"11, 12, 13, 18, 20, got '7'"),
    ("bn.unpk w1, w2, w3, 12, 32", r"t.s:1: bn.unpk: off = 32 outside 0..31"),
])
def test_errors_name_line_and_problem(src, msg):
    with pytest.raises(AsmError, match=msg):
        ASM.assemble(src, "t.s")


def test_unpk_fields():
    """bn.unpk: d by its value (the field holds its index), the byte offset split around the
    fixed funct bit 14; the reserved d codes 11..15 disassemble as data."""
    insn = ISA.by_mnemonic["bn.unpk"]
    word = ASM.assemble_line("bn.unpk w1, w2, w3, 12, 27")
    assert word == (7 << 28 | 0b110 << 25 | 3 << 20 | 2 << 15 | 1 << 14 | 0b11 << 12 | 1 << 7
                    | 0b0101011)
    assert DIS.line(word) == "bn.unpk w1, w2, w3, 12, 27"
    for code in range(11, 16):
        bad = (word & ~(0xF << 28)) | code << 28
        assert ISA.decode(bad)[0] is insn and DIS.line(bad) == f".word {bad:#010x}"


def test_pk_fields():
    """bn.pk: bn.unpk's fields in custom-2 (its funct bit 14 set; the butterflies clear it)."""
    word = ASM.assemble_line("bn.pk w1, w2, w3, 20, 13")
    assert word == (10 << 28 | 0b011 << 25 | 3 << 20 | 2 << 15 | 1 << 14 | 0b01 << 12 | 1 << 7
                    | 0b1011011)
    assert ISA.decode(word)[0] is ISA.by_mnemonic["bn.pk"]
    assert DIS.line(word) == "bn.pk w1, w2, w3, 20, 13"


def test_unknown_word_disassembles_as_data():
    assert DIS.line(0xFFFFFFFF) == ".word 0xffffffff"
    assert ASM.assemble_line(DIS.line(0xFFFFFFFF)) == 0xFFFFFFFF


def test_wdr_beyond_the_count_disassembles_as_data_naming_it():
    """An encoding with a wdr field >= 16 is ILLEGAL_INSN: `.word`, with what it would be."""
    word = ISA.by_mnemonic["bn.addv"].encode({"wrd": 1, "wrs1": 2, "wrs2": 17})
    text = DIS.line(word)
    assert text.startswith(f".word {word:#010x}  # bn.addv w1, w2, w17: ILLEGAL_INSN")
    assert ASM.assemble_line(text) == word


def test_cli_wdr_error(tmp_path):
    s = tmp_path / "p.s"
    s.write_text("bn.addv w1, w2, w3\nbn.mov w17, w0\necall\n")
    r = subprocess.run([sys.executable, "-m", "ip.acc.tools.asm", str(s)], cwd=REPO,
                       capture_output=True, text=True)
    assert r.returncode != 0 and not r.stdout
    assert "p.s:2: bn.mov operand wrd: w17: the ACC has 16 wide registers (w0..w15)" in r.stderr


def test_cli(tmp_path):
    s = tmp_path / "p.s"
    s.write_text("l: addi x1, x1, -1\nbne x1, x0, l\necall\n")
    h = tmp_path / "p.hex"
    subprocess.run([sys.executable, "-m", "ip.acc.tools.asm", str(s), "-o", str(h)], check=True, cwd=REPO)
    out = subprocess.run([sys.executable, "-m", "ip.acc.tools.dis", str(h)], check=True, cwd=REPO,
                         capture_output=True, text=True).stdout
    assert "bne x1, x0, -4" in out and "ecall" in out
