# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""ip/acc/tools/share_check.py's transitions: a register, DMEM word or bus whose value goes from
one share domain to the other is flagged where it happens, unless a fresh mask stands between;
the masked programs pass, the same programs with one separator dropped or without their fresh
masks do not. The check's model of the RTL's buses is compared with the RTL's own tables."""
import random

import pytest

from ip.acc.tools import share_check
from ip.acc.tools.ct_data import Program

# DMEM: share 0 of some secret at 0, share 1 at 32, a public zero word at 64
SHARES = {"x share 0": (0, 32, 0), "x share 1": (32, 64, 1)}
LOAD = "bn.lw w1, 0(x0)\nbn.lw w9, 64(x0)\nbn.lw w2, 32(x0)\nbn.lw w9, 64(x0)\n"
SEP = "addi x0, x0, 0\n"


def findings(asm: str, img: dict, shares: dict, kind: str | None = None) -> list:
    """(instruction, place) of each finding (of `kind`, or any) of the share check."""
    return [(f.text, f.where.split(":")[0]) for f in
            share_check.check(Program.from_asm(asm), img, [], shares) if kind in (None, f.kind)]


def found(asm: str, kind: str = "transition") -> list:
    rng = random.Random(1)
    img = {0: rng.randbytes(32), 32: rng.randbytes(32), 64: bytes(32)}
    return findings(asm + "ecall\n", img, SHARES, kind)


def test_the_loads_are_clean_with_a_public_word_between():
    assert found(LOAD) == []
    assert found("bn.lw w1, 0(x0)\nbn.lw w2, 32(x0)\n") == [("bn.lw w2, 32(x0)", "dmem read")]


def test_two_domains_back_to_back_on_the_read_ports_and_write_back_bus():
    back = found(LOAD + "bn.and w3, w1, w1\nbn.and w4, w2, w2\n")
    assert back == [("bn.and w4, w2, w2", "port a"), ("bn.and w4, w2, w2", "port b"),
                    ("bn.and w4, w2, w2", "wdr write-back")]
    assert found(LOAD + "bn.and w3, w1, w1\n" + SEP + "bn.and w4, w2, w2\n") == []


def test_a_port_the_instruction_does_not_read_carries_nothing():
    """As the RTL's operand blanking: addi's immediate names w2 in port b's field, unread."""
    assert found(LOAD + "bn.and w3, w1, w1\naddi x4, x0, 2\nbn.and w4, w2, w2\n") == []


def test_a_register_overwritten_by_the_other_domain():
    assert found(LOAD + "bn.mov w5, w1\n" + SEP + "bn.mov w5, w2\n") == [("bn.mov w5, w2", "w5")]
    assert found(LOAD + "bn.mov w5, w1\n" + SEP + "bn.bcast w5, x0\nbn.mov w5, w2\n") == []


def test_zeroing_by_xor_reads_the_register_and_bcast_does_not():
    assert found(LOAD + "bn.xor w1, w1, w1\nbn.xor w2, w2, w2\n") == \
        [("bn.xor w2, w2, w2", "port a"), ("bn.xor w2, w2, w2", "port b")]
    assert found(LOAD + "bn.bcast w1, x0\nbn.bcast w2, x0\n") == []


def test_a_stalled_read_shows_the_register_s_old_value_next_to_the_others():
    """w5 holds share 0, a public word is loaded into it and read at once with share 1: the
    reader waits a cycle in which w5's port still carries share 0 (the RTL's register file is
    written a cycle later), next to share 1 on the other port: flagged as a stall (found by the
    RTL power model first: masked_compare.py); a SEP between the load and its reader, or the
    register zeroed before the load, is clean."""
    pre = LOAD + "bn.mov w5, w1\n" + SEP
    assert found(pre + "bn.lw w5, 64(x0)\nbn.xor w6, w2, w5\n", "stall") == \
        [("bn.xor w6, w2, w5", "port a")]
    assert found(pre + "bn.lw w5, 64(x0)\n" + SEP + "bn.xor w6, w2, w5\n", "stall") == []
    assert found(pre + "bn.bcast w5, x0\nbn.lw w5, 64(x0)\nbn.xor w6, w2, w5\n", "stall") == []


def test_a_fresh_mask_separates_and_a_shared_one_does_not():
    """x0 ^ r then r ^ x1 on the write-back bus: their XOR is x0 ^ x1 (flagged); with two fresh
    words the two values are independent (clean)."""
    pre = LOAD + "bn.wsrr w5, URND\nbn.wsrr w6, URND\n"
    assert found(pre + "bn.xor w3, w1, w5\nbn.xor w4, w5, w2\n") == [("bn.xor w4, w5, w2", "wdr write-back")]
    assert found(pre + "bn.xor w3, w1, w5\nbn.xor w4, w6, w2\n") == []


def test_a_cross_term_through_bn_sel_stays_masked_and_through_bn_and_does_not():
    """y1 ? x0 ^ r : r = (x0 & y1) ^ r in one instruction; x0 & y1 is both domains unmasked.
    Either is a value of both domains, which outside a declared gadget is flagged as such."""
    pre = LOAD + "bn.wsrr w5, URND\nbn.xor w3, w1, w5\n" + SEP + "bn.mov w6, w2\n" + SEP
    assert found(pre + "bn.sel w6, w3, w5\n") == []
    assert found(pre + "bn.sel w6, w3, w5\n", "value") == [("bn.sel w6, w3, w5", "w6")]
    assert found(pre + "bn.and w6, w1, w6\n") == [("bn.and w6, w1, w6", "w6"),
                                                   ("bn.and w6, w1, w6", "wdr write-back"),
                                                   ("ecall", "wdr write-back")]   # and as it leaves
    assert found(pre + "bn.and w6, w1, w6\n", "value") == [("bn.and w6, w1, w6", "w6")]


def test_dmem_words_and_the_write_port():
    stores = found(LOAD + "bn.sw w1, 96(x0)\nbn.sw w2, 128(x0)\n")
    assert stores == [("bn.sw w2, 128(x0)", "port a"), ("bn.sw w2, 128(x0)", "dmem write")]
    over = found(LOAD + "bn.sw w1, 96(x0)\n" + "bn.sw w9, 160(x0)\n" + SEP + "bn.sw w2, 96(x0)\n")
    assert over == [("bn.sw w2, 96(x0)", "DMEM 0x60")]


def test_the_masked_programs_pass_and_their_broken_variants_do_not():
    """The decoding gadget as built; with one SEP of its first DOM AND dropped (the pre-masked
    operand and the masked cross term, both masked by the same r, meet on the write-back bus);
    without its fresh masks; G with the separator between two digest words dropped."""
    from ip.acc.kernels.mlkem.masked import MaskedDecode, Q
    from ip.acc.kernels.mlkem.masked_hash import SEP as HSEP, MaskedG
    rng = random.Random(8)
    ent = [rng.getrandbits(32) for _ in range(8)]
    x = [rng.randrange(Q) for _ in range(256)]
    x1 = [rng.randrange(Q) for _ in range(256)]
    img = MaskedDecode().image([(a - b) % Q for a, b in zip(x, x1)], x1)

    def check(md, prog=None):
        return share_check.check(Program.from_asm(prog or md.program()), img, ent, **md.share_policy())

    md = MaskedDecode()
    assert check(md) == []
    prog = md.program()
    cut = prog.index("bn.sel w15, w12, w14\n")
    head, tail = prog[:cut].rsplit(SEP, 1)
    dropped = check(md, head + tail + prog[cut:])
    assert [(f.text, f.where.split(":")[0]) for f in dropped] == [("bn.sel w15, w12, w14", "wdr write-back")]
    assert len(check(MaskedDecode("no_fresh"))) > 100
    g = MaskedG()
    g_img = g.image(rng.randbytes(32), rng.randbytes(32), rng.randbytes(32))
    joined = g.program().replace(f"kmac.dig w5\n{HSEP}\nkmac.dig1 w8", "kmac.dig w5\nkmac.dig1 w8")
    assert joined != g.program()
    moves = {(f.text, f.where.split(":")[0])
             for f in share_check.check(Program.from_asm(joined), g_img, ent, **g.share_policy())}
    assert moves == {("kmac.dig1 w8", "kmac digest"), ("kmac.dig1 w8", "wdr write-back")}


def test_a_gadget_s_refresh_label_must_exist():
    from ip.acc.kernels.mlkem.masked import MaskedDecode
    md = MaskedDecode()
    g = md.share_gadget()
    assert g.refresh and all(lab in md.program() for lab, _ in g.refresh)
    with pytest.raises(RuntimeError, match="not in the program"):
        share_check.check(Program.from_asm(md.program().replace(g.refresh[3][0] + ":\n", "")),
                          {}, [], **md.share_policy())


def test_the_bus_model_follows_the_rtl():
    """The WDR results that take the write-back bus are those ip/acc/rtl/core.py drives onto
    w_val: the wide ALU's 1-cycle ops but bn.or.acc (a GPR result), bn.mov, bn.ins, kmac.dig /
    kmac.dig1, bn.wsrr; not loads (the read register) nor the multiplier unit's (its pipeline)."""
    from ip.acc.rtl.wide_alu import WIDE_OP_OF_MNEMONIC, uses_mul_unit
    from ip.acc.tools.isa import load_isa
    rtl = {mn for mn, op in WIDE_OP_OF_MNEMONIC.items() if not uses_mul_unit(op) and mn != "bn.or.acc"}
    rtl |= {"bn.mov", "bn.ins", "kmac.dig", "kmac.dig1", "bn.wsrr"}
    writes_wdr = [i for i in load_isa().insns
                  if any(d.name in ("wrd", "wa", "wb") for dsts, _ in i.flow for d in dsts)]
    assert {i.mnemonic for i in writes_wdr if share_check.takes_write_back(i)} == rtl
    assert share_check._PORT_C_WRD == {"bn.sel", "bn.ins"}


def test_the_command_line(capsys):
    """`pqsoc acc shares`: 0 for a clean program, 1 and the findings for a seeded leak, 2 and
    the known names for an unknown one; --list names every built-in program."""
    from pqsoc import cli
    assert cli.main(["acc", "shares", "--kernel", "mlkem512_decrypt_masked"]) == 0
    assert "mlkem512_decrypt_masked: clean" in capsys.readouterr().out
    assert cli.main(["acc", "shares", "--kernel", "mlkem_decode_masked_no_fresh", "--limit", "2"]) == 1
    out = capsys.readouterr().out
    assert "bn.sel" in out and "transition" in out and "more" in out and "findings" in out
    assert cli.main(["acc", "shares", "--kernel", "mlkem_g_masked_combined", "--no-transitions"]) == 1
    assert "value" in capsys.readouterr().out
    assert cli.main(["acc", "shares", "--kernel", "nosuch"]) == 2
    assert "unknown kernel 'nosuch'" in capsys.readouterr().err
    assert cli.main(["acc", "shares", "--list"]) == 0
    assert "mlkem1024_prf_masked" in capsys.readouterr().out.split()


def test_a_refresh_label_keeps_the_fresh_words_a_share_depends_on():
    """A gadget's refresh label gives w3 (x0 ^ r) domain 0 alone, but w3 still depends on r: put
    next to x1 ^ r on the write-back bus, the two XOR to x0 ^ x1 (flagged); next to x1 ^ r' with
    a fresh r' they do not."""
    gadget = share_check.Gadget("g_begin", "g_end", (), (("g_mark", (("w3", 0),)),))
    rng = random.Random(1)
    img = {0: rng.randbytes(32), 32: rng.randbytes(32), 64: bytes(32)}

    def run(last):
        asm = (LOAD + "bn.wsrr w5, URND\nbn.wsrr w7, URND\ng_begin:\nbn.xor w3, w1, w5\ng_mark:\n"
               + SEP + "bn.mov w6, w3\n" + last + "g_end:\necall\n")
        return [(f.text, f.where.split(":")[0])
                for f in share_check.check(Program.from_asm(asm), img, [], SHARES, (gadget,))]

    assert run("bn.xor w4, w5, w2\n") == [("bn.xor w4, w5, w2", "wdr write-back")]
    assert run("bn.xor w4, w7, w2\n") == []


def _sampled(after: str, mode: str = "cbd2m") -> str:
    """x (shares at 0 / 32) through a masked SHAKE256, sampled by the stream unit into share 0's
    words at 1024 and share 1's at 1536; then `after`."""
    return ("bn.lw w1, 0(x0)\nbn.lw w9, 64(x0)\nbn.lw w2, 32(x0)\nbn.lw w9, 64(x0)\n"
            f"addi x1, x0, {1 | 2 << 2 | 1 << 5}\naddi x3, x0, -1\naddi x5, x0, 1024\n"
            "addi x4, x0, 256\nkmac.acq\nkmac.start x1, x0\nkmac.msgm w1, w2, x3\n"
            f"kmac.finish\nsmp.run x5, x4, {mode}\nsmp.wait\nkmac.rel\n"
            "bn.bcast w1, x0\nbn.bcast w2, x0\n" + after)


def test_the_masked_sampler_s_two_shares_are_followed():
    """smp.run cbd2m's words carry the KMAC states' domains, masked by the unit's fresh words
    (the same words in both shares): reading them one at a time with a public word between is
    clean; share 0's and share 1's words loaded into one register one after the other are
    flagged, there and on the DMEM read register. An unmasked mode takes the digest's share 0
    only: its words carry share 0's domain (share 1 loaded over one is flagged). A mode that
    writes no DMEM words of its own is refused."""
    assert found(_sampled("bn.lw w5, 1024(x0)\nbn.lw w9, 64(x0)\nbn.lw w6, 1536(x0)\n"), "value") == []
    assert found(_sampled("bn.lw w5, 1024(x0)\nbn.lw w9, 64(x0)\nbn.lw w6, 1536(x0)\n")) == []
    joined = found(_sampled("bn.lw w5, 1024(x0)\nbn.lw w5, 1536(x0)\n"))
    assert joined == [("bn.lw w5, 1536(x0)", "w5"), ("bn.lw w5, 1536(x0)", "dmem read")]
    assert found(_sampled("bn.lw w5, 1024(x0)\nbn.lw w9, 64(x0)\n", mode="cbd2")) == []
    assert found(_sampled("bn.lw w5, 1024(x0)\nbn.lw w5, 32(x0)\n", mode="cbd2")) == \
        [("bn.lw w5, 32(x0)", "w5"), ("bn.lw w5, 32(x0)", "dmem read")]
    with pytest.raises(RuntimeError, match="mode pack are not followed"):
        found(_sampled("", mode="pack"))


def test_b2a1m_reads_are_followed_through_the_read_register():
    """b2a1m's shares come from its source words: x's share 0, a public zero word, share 1. Its
    outputs carry their domains (clean when read apart, flagged when loaded into one register
    one after the other); a source whose middle word is share 1 puts the two shares back to
    back on the DMEM read register, which is flagged at the smp.run."""
    rng = random.Random(2)
    img = {0: rng.randbytes(32), 32: bytes(32), 64: rng.randbytes(32)}
    shares = {"x share 0": (0, 32, 0), "x share 1": (64, 96, 1)}

    def run(src, after=""):
        return findings(f"addi x6, x0, {src}\ncsrrw x0, SMP_SRC, x6\naddi x5, x0, 1024\naddi x4, x0, 256\n"
                        f"smp.run x5, x4, b2a1m\nsmp.wait\n{after}ecall\n", img, shares)
    assert run(0) == []
    assert run(0, "bn.lw w5, 1024(x0)\nbn.lw w9, 32(x0)\nbn.lw w6, 1536(x0)\n") == []
    assert run(0, "bn.lw w5, 1024(x0)\nbn.lw w5, 1536(x0)\n") == [
        ("bn.lw w5, 1536(x0)", "w5"), ("bn.lw w5, 1536(x0)", "dmem read")]
    img[96] = img[0]                       # share 0 at 96: the source 64, 96, 128 reads
    shares["x share 0"] = (96, 128, 0)     # share 1 then share 0 back to back
    assert run(64) == [("smp.run x5, x4, b2a1m", "dmem read (stream unit, word 1)")]


def test_intm_reads_are_followed_through_the_read_register():
    """intm reads, per group, share 0, the public word, share 1, the public word again; its
    two output words carry the two domains. Clean as laid out; a public word that is in fact
    share 0 puts the shares back to back on the read register (flagged at the smp.run), and
    the outputs loaded one after the other are flagged."""
    rng = random.Random(3)
    img = {0: rng.randbytes(32), 32: rng.randbytes(32), 64: bytes(32)}
    shares = {"x share 0": (0, 32, 0), "x share 1": (32, 64, 1)}

    def run(pub, after=""):
        return findings(f"csrrw x0, SMP_SRC, x0\naddi x7, x0, {(pub // 32) << 8}\ncsrrw x0, SMP_CFG, x7\n"
                        f"addi x5, x0, 1024\naddi x4, x0, 16\nsmp.run x5, x4, intm\nsmp.wait\n{after}ecall\n",
                        img, shares)
    assert run(64) == []
    assert run(64, "bn.lw w5, 1024(x0)\nbn.lw w9, 64(x0)\nbn.lw w6, 1056(x0)\n") == []
    assert ("bn.lw w5, 1056(x0)", "dmem read") in run(64, "bn.lw w5, 1024(x0)\nbn.lw w5, 1056(x0)\n")
    assert ("smp.run x5, x4, intm", "dmem read (stream unit, word 2)") in run(0)
