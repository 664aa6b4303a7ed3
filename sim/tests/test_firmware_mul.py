# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""No firmware multiplies a secret on the CPU. Its multiplier is Ibex's slow one (soc/ibex.py
RV32M): a multiply ends once its second operand is shifted out, so its time tells that operand's
length (Ibex times it independently of the data only as SecureIbex, which this SoC is not).

Every function of every firmware program (firmware/programs, linked with firmware/lib) whose
code holds a multiply is listed here with why its operands are public; a function that gains a
multiply fails this test until someone reads it and lists it. The list names code, not data
flow: the review is the reader's, the test only keeps it from going stale."""
import re
import subprocess

from firmware import build as fw

MULTIPLY = re.compile(r"^\s*[0-9a-f]+:\t(mul|mulh|mulhsu|mulhu)\t", re.M)   # objdump --no-show-raw-insn
FUNCTION = re.compile(r"^[0-9a-f]+ <([^>]+)>:$", re.M)

REVIEWED = {
    # firmware/lib
    "memcpy": "the length's words times -4 (what is left after the word copy)",
    "memset": "the fill byte times 0x01010101 (0 for every wipe, a constant elsewhere)",
    "kmac_absorb": "the length's words times -4, as memcpy",
    "hmac_key_block.constprop.0": "HMAC's pad byte (0x36 / 0x5c) times 0x01010101",
    "keccak_f1600": "the lane indices x + 5 y of the software SHA3 (programs selftest, kmac_selftest)",
    "begin": "FNV-1a of the program image and layout (pqc.c fnv: public code, times the FNV prime)",
    "finish": "FNV-1a of the IMEM's program, as begin",
    "find_dsa_layout": "the layout table's row: operation x parameter sets",
    "__i_vfprintf": "picolibc's printf: width and precision digits of the format",
    # test programs: indices into their public vector tables
    "main": "pqc_ops: the index of a vector",
    "kat": "drbg_kat: the index of a known-answer case",
    "abc_ok": "kmac_selftest: the index of a vector",
    "test_sha3": "selftest: the index of a vector",
    "request": "pqc_mldsa_api: the index of a request",
    "acc_list_add.constprop.0": "acc_selftest: the index of a program",
    "acc_list_run.constprop.0": "acc_selftest: the index of a program",
    "load_and_run.constprop.0": "acc_selftest: the index of a program",
}


def functions_with_multiply(listing: str) -> set[str]:
    """The functions of objdump's listing (-d --no-show-raw-insn) that hold a multiply."""
    starts = [(m.end(), m.group(1)) for m in FUNCTION.finditer(listing)] + [(len(listing), None)]
    return {name for (a, name), (b, _) in zip(starts, starts[1:]) if MULTIPLY.search(listing[a:b])}


def multiplying_functions(elf) -> set[str]:
    return functions_with_multiply(subprocess.run(
        [fw.CROSS + "objdump", "-d", "--no-show-raw-insn", str(elf)],
        check=True, capture_output=True, text=True).stdout)


def test_firmware_multiplies_only_public_values(firmware):
    seen = {}
    for name in fw.programs():
        elf = firmware(name).with_suffix(".elf")
        for f in multiplying_functions(elf):
            seen.setdefault(f, []).append(name)
    unreviewed = {f: progs for f, progs in seen.items() if f not in REVIEWED}
    assert not unreviewed, ("functions that multiply on the CPU, whose operands nobody has "
                            f"reviewed (sim/tests/test_firmware_mul.py REVIEWED): {unreviewed}")
    # the disassembly is read: the library's multiplies are found where every program has them
    assert {"memcpy", "memset"} <= set(seen)


def test_a_multiply_is_found_in_its_function():
    listing = ("00000010 <f>:\n      10:\tmul\ta5,a5,a4\n      14:\tret\n\n"
               "00000020 <g>:\n      20:\tadd\ta5,a5,a4\n      24:\tmulhu\ta0,a1,a2\n\n"
               "00000030 <h>:\n      30:\taddi\ta0,a0,1\n      34:\tj\t10 <f>\n")
    assert functions_with_multiply(listing) == {"f", "g"}
