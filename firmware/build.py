# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""Build firmware programs for the pqsoc SoC with riscv64-unknown-elf-gcc and picolibc.

A program is firmware/programs/NAME.c linked with firmware/lib/*; the SoC build
(build/soc/software/include) provides csr.h, mem.h, soc.h and regions.ld. Generated into
OUT/gen/ at every build: sha3_vectors.h and kmac_vectors.h (expected values from hashlib /
pycryptodome), kmac_regs.h and acc_regs.h (regtool, from ip/kmac/data/kmac_regs.yml and
ip/acc/data/acc_regs.yml), entropy_regs.h (regtool and ip/entropy/health.py, for SoCs with the
entropy source), acc_errors.h (the ACC error bit names, from ip/acc/data/isa.yml
errors:) and acc_vectors.h (ACC programs assembled with ip.acc.tools.asm, DMEM images and expected
outputs from kyber-py / dilithium-py / hashlib, see write_acc_vectors); for a program that
includes it, pqc_vectors.h (the whole ML-KEM-768 decaps and ML-DSA-65 signing programs, their
inputs, outputs from kyber-py / dilithium-py and the ISS's cycle counts, see pqc_ops);
pqc_mlkem_layout.h (what lib/pqc.c knows of each ML-KEM program, firmware/pqc_layout.py) and
pqc_mldsa_layout.h (of each ML-DSA program, firmware/pqc_mldsa_layout.py); for
programs/pqc_mlkem_api.c, pqc_mlkem_api_vectors.h and for programs/pqc_mldsa_api.c,
pqc_mldsa_api_vectors.h (their images and calls; the caller's own with build(headers=...), as
`pqsoc mlkem|mldsa --engine soc` does). Output:
OUT/NAME.elf, OUT/NAME.bin (what the boot ROM holds), OUT/NAME.map.
"""
import hashlib
import re
import shutil
import subprocess
from pathlib import Path

import ip.acc as acc_ip
import ip.kmac as kmac_ip
from firmware import pqc_layout, pqc_mldsa_layout, stack
from pqsoc import write_if_changed
from pqsoc.flow import locks

import litex

HERE = Path(__file__).resolve().parent
LIB = HERE / "lib"
PROGRAMS = HERE / "programs"
CROSS = "riscv64-unknown-elf-"
# Compile with zicsr spelled out (gcc 12 defaults to ISA spec 20191213, where csrr/csrw need it),
# but link with plain rv32imc: `_zicsr` is not in gcc's multilib table and would silently select
# the rv64 default picolibc (rv32imc selects rv32im/ilp32).
# picolibc's integer-only printf (no float formatting, which no program uses): 4.3 KB instead of
# ~12 KB of printf + dtoa tables, so that a program fits the silicon SoC's 6 KiB boot RAM.
INT_PRINTF = "-DPICOLIBC_INTEGER_PRINTF_SCANF"
CFLAGS = ["-march=rv32imc_zicsr", "-mabi=ilp32", "-Os", "-g", "-Wall", "-Wextra", "-Werror",
          "-ffunction-sections", "-fdata-sections", "--specs=picolibc.specs", INT_PRINTF]
# The ACC call path is compiled for speed: the CPU fetches every instruction over the bus
# (~3 cycles an instruction), so the calls and checks of -Os code cost more than the copies
# and the wipe of an ML-KEM operation (firmware/README.md, "End to end").
SPEED = {"acc.c", "pqc.c"}
SPEED_FLAGS = ["-O2"]
LDFLAGS = ["-march=rv32imc", "-mabi=ilp32", "--specs=picolibc.specs", INT_PRINTF, "-nostartfiles",
           "-Wl,--gc-sections"]

# SHA3-256 test vectors: messages chosen to hit the padding edge cases (empty, one byte short of
# a block, exactly a block, several blocks). Digests come from hashlib, never from our output.
# Each message is (formula, length): byte i is `formula & 0xff`, the formula an expression of i in
# the part of C and Python that means the same in both (i, decimal numbers, +, *, parentheses;
# no overflow below 2**31). Python evaluates it for hashlib, sha3_vectors.h hands it to the firmware,
# which makes the message rather than storing it (571 bytes the silicon boot RAM has not to spare).
SHA3_FORMULAS = [("0", 0), ("97 + i", 3),                        # "", "abc"
                 ("i", 135), ("7 * i + 3", 136), ("i * i", 300)]


def sha3_message(formula: str, length: int) -> bytes:
    if not re.fullmatch(r"[i0-9+* ()]+", formula):
        raise ValueError(f"SHA3 message formula {formula!r}: only i, digits, +, * and parentheses "
                         "mean the same in C and Python")
    return bytes(eval(formula, {"__builtins__": {}}, {"i": i}) & 0xff for i in range(length))


SHA3_MESSAGES = [sha3_message(f, n) for f, n in SHA3_FORMULAS]


KMAC_REGS_YML = kmac_ip.REGS_YML
ACC_REGS_YML = acc_ip.REGS_YML
ACC_ISA_YML = acc_ip.ISA_YML


def _pattern(n: int, seed: int) -> bytes:
    return bytes((seed + 13 * i + (i >> 3)) & 0xff for i in range(n))


# KMAC block known-answer tests for programs/kmac_selftest.c: (name, op, bits, msg, key, N, S,
# outlen, xof). Message lengths hit the padding edges of each rate (0, rate-1, rate, rate+1,
# several blocks); outputs longer than one 256-bit word / one rate block exercise NEXT.
KMAC_TESTS = [
    ("sha3_224_empty", "sha3", 224, b"", b"", b"", b"", 28, 0),
    ("sha3_224_rate+1", "sha3", 224, _pattern(145, 1), b"", b"", b"", 28, 0),
    ("sha3_256_empty", "sha3", 256, b"", b"", b"", b"", 32, 0),
    ("sha3_256_abc", "sha3", 256, b"abc", b"", b"", b"", 32, 0),
    ("sha3_256_rate-1", "sha3", 256, _pattern(135, 2), b"", b"", b"", 32, 0),
    ("sha3_256_rate", "sha3", 256, _pattern(136, 3), b"", b"", b"", 32, 0),
    ("sha3_256_rate+1", "sha3", 256, _pattern(137, 4), b"", b"", b"", 32, 0),
    ("sha3_256_multiblock", "sha3", 256, _pattern(500, 5), b"", b"", b"", 32, 0),
    ("sha3_384_rate-1", "sha3", 384, _pattern(103, 6), b"", b"", b"", 48, 0),
    ("sha3_384_rate", "sha3", 384, _pattern(104, 7), b"", b"", b"", 48, 0),
    ("sha3_512_empty", "sha3", 512, b"", b"", b"", b"", 64, 0),
    ("sha3_512_rate", "sha3", 512, _pattern(72, 8), b"", b"", b"", 64, 0),
    ("sha3_512_multiblock", "sha3", 512, _pattern(301, 9), b"", b"", b"", 64, 0),
    ("shake128_empty_32", "shake", 128, b"", b"", b"", b"", 32, 0),
    ("shake128_rate_500", "shake", 128, _pattern(168, 10), b"", b"", b"", 500, 0),
    ("shake128_rate+1_17", "shake", 128, _pattern(169, 11), b"", b"", b"", 17, 0),
    ("shake256_rate-1_100", "shake", 256, _pattern(135, 12), b"", b"", b"", 100, 0),
    ("shake256_multiblock_64", "shake", 256, _pattern(400, 13), b"", b"", b"", 64, 0),
    ("cshake128_ns", "cshake", 128, bytes(range(4)), b"", b"Email Signature", b"", 32, 0),
    ("cshake128_n_s_long", "cshake", 128, _pattern(200, 14), b"", b"NAME", b"custom", 200, 0),
    ("cshake256_n_s", "cshake", 256, _pattern(137, 15), b"", b"N", _pattern(140, 16), 64, 0),
    ("kmac128", "kmac", 128, bytes(range(4)), bytes(range(0x40, 0x60)), b"", b"", 32, 0),
    ("kmac128_custom", "kmac", 128, _pattern(200, 17), bytes(range(0x40, 0x60)), b"",
     b"My Tagged Application", 32, 0),
    ("kmac256_custom", "kmac", 256, _pattern(136, 18), _pattern(37, 19), b"", b"S", 64, 0),
    ("kmac256_longkey", "kmac", 256, b"x", _pattern(170, 20), b"", _pattern(3, 21), 33, 0),
    ("kmacxof128", "kmac", 128, _pattern(50, 22), _pattern(16, 23), b"", b"xof", 100, 1),
    ("kmacxof256", "kmac", 256, _pattern(0, 24), _pattern(32, 25), b"", b"", 64, 1),
]


def _left_encode(x: int) -> bytes:
    n = max(1, (x.bit_length() + 7) // 8)
    return bytes([n]) + x.to_bytes(n, "big")


def kmac_expected(op, bits, msg, key, name, custom, outlen, xof) -> bytes:
    """Expected output from hashlib / pycryptodome (never from our own hardware or driver)."""
    from Crypto.Hash import cSHAKE128, cSHAKE256, KMAC128, KMAC256
    if op == "sha3":
        return hashlib.new(f"sha3_{bits}", msg).digest()
    if op == "shake":
        return hashlib.new(f"shake_{bits}", msg).digest(outlen)
    cs = {128: cSHAKE128, 256: cSHAKE256}[bits]
    if op == "cshake":
        # pycryptodome's public cSHAKE fixes N = ""; _new(data, S, N) is the function its KMAC uses.
        return cs._new(msg, custom, name).read(outlen)
    if not xof:
        return {128: KMAC128, 256: KMAC256}[bits].new(key=key, data=msg, mac_len=outlen,
                                                       custom=custom).digest()
    # KMACXOF (pycryptodome has none): SP 800-185 4.3 on pycryptodome's cSHAKE, with N = "KMAC".
    rate = 168 if bits == 128 else 136
    z = _left_encode(rate) + _left_encode(8 * len(key)) + key
    z += bytes(-len(z) % rate)
    return cs._new(z + msg + bytes([0, 1]), custom, b"KMAC").read(outlen)   # right_encode(0)


def write_kmac_vectors(path: Path) -> None:
    from Crypto.Hash import KMAC128
    # The KMACXOF recipe above, checked once on the non-XOF case against pycryptodome's KMAC.
    rate, key, custom = 168, b"k" * 20, b"c"
    z = _left_encode(rate) + _left_encode(8 * len(key)) + key
    z += bytes(-len(z) % rate)
    from Crypto.Hash import cSHAKE128
    if cSHAKE128._new(z + b"m" + bytes([1, 0, 2]), custom, b"KMAC").read(32) != \
            KMAC128.new(key=key, data=b"m", mac_len=32, custom=custom).digest():
        raise FirmwareError("KMACXOF reference recipe disagrees with pycryptodome's KMAC128")
    ops = {"sha3": "KMAC_OP_SHA3", "shake": "KMAC_OP_SHAKE", "cshake": "KMAC_OP_CSHAKE",
           "kmac": "KMAC_OP_KMAC"}
    lines = ["/* Generated by firmware/build.py: expected outputs from Python's hashlib and",
             " * pycryptodome (Crypto.Hash). */", "#include <stddef.h>", "#include <stdint.h>",
             "enum { KMAC_OP_SHA3, KMAC_OP_SHAKE, KMAC_OP_CSHAKE, KMAC_OP_KMAC };"]
    rows = []
    for i, (name, op, bits, msg, key, n, s, outlen, xof) in enumerate(KMAC_TESTS):
        exp = kmac_expected(op, bits, msg, key, n, s, outlen, xof)
        assert len(exp) == outlen
        for tag, b in (("msg", msg), ("key", key), ("n", n), ("s", s), ("exp", exp)):
            lines.append(f"static const uint8_t kv{i}_{tag}[] = {_c_bytes(b)};")
        rows.append(f'    {{"{name}", {ops[op]}, {bits}, {xof}, kv{i}_msg, {len(msg)}, kv{i}_key, '
                    f"{len(key)}, kv{i}_n, {len(n)}, kv{i}_s, {len(s)}, kv{i}_exp, {outlen}}},")
    lines += ["static const struct kmac_vector {", "    const char *name;",
              "    uint8_t op; uint16_t bits; uint8_t xof;",
              "    const uint8_t *msg; size_t msg_len; const uint8_t *key; size_t key_len;",
              "    const uint8_t *n; size_t n_len; const uint8_t *s; size_t s_len;",
              "    const uint8_t *exp; size_t out_len;", "} kmac_vectors[] = {", *rows, "};",
              f"#define KMAC_VECTORS {len(KMAC_TESTS)}u",
              # Timing message for hardware vs software SHA3-256, with its hashlib digest.
              f"static const uint8_t kmac_bench_msg[] = {_c_bytes(_pattern(1000, 26))};",
              f"static const uint8_t kmac_bench_sha3_256[] = "
              f"{_c_bytes(hashlib.sha3_256(_pattern(1000, 26)).digest())};",
              f"static const uint8_t kmac_bench_shake128_1024[] = "
              f"{_c_bytes(hashlib.shake_128(b'abc').digest(1024))};", ""]
    write_if_changed(path, "\n".join(lines))


def write_kmac_regs(path: Path) -> None:
    """The KMAC register header, from the register YAML through regtool (never by hand)."""
    from ip.common.regtool import c_header, load
    write_if_changed(path, c_header(load(KMAC_REGS_YML)))


def write_entropy_regs(path: Path) -> None:
    """The entropy source's register header, from the register YAML through regtool, and what
    lib/entropy.c takes from ip/entropy/health.py: the claim, the start-up window, the raw words
    a 256-bit conditioned output needs at the claim, the cutoffs' reset values (the YAML's)."""
    from ip.common.regtool import c_header, load
    from ip.entropy import REGS_YML, health
    rm = load(REGS_YML)
    words = -(-health.raw_bits_for(256) // 32)
    extra = ["", "/* ip/entropy/health.py: the claimed entropy per raw bit, the start-up window, and the raw",
             " * words a 256-bit output of SHA3-256 needs for full entropy at the claim (n + 64 bits). */",
             f"#define ENTROPY_H_CLAIM_MILLIBITS {round(health.H_CLAIM * 1000)}u",
             f"#define ENTROPY_APT_WINDOW {health.APT_WINDOW}u",
             f"#define ENTROPY_SEED_RAW_WORDS {words}u",
             "/* The cutoffs' reset values (data/entropy_regs.yml), restored after the self-test. */",
             f"#define ENTROPY_RCT_CUTOFF_RESET {rm.field('RCT_CUTOFF', 'C').reset}u",
             f"#define ENTROPY_APT_CUTOFF_RESET {rm.field('APT_CUTOFF', 'C').reset}u"]
    text = c_header(rm)
    end = text.rindex("#endif")
    write_if_changed(path, text[:end] + "\n".join(extra) + "\n\n" + text[end:])


def write_acc_regs(path: Path) -> None:
    """The ACC register header, from the register YAML through regtool (never by hand), and
    the DMA list's descriptor flags from the RTL's constants."""
    from ip.acc.rtl import dma
    from ip.common.regtool import c_header, load
    flags = ["", "/* DMA_CTRL.LIST: flags of a descriptor's word 1 (ip/acc/rtl/dma.py). */"] + [
        f"#define ACC_DMA_LIST_{name} (1u << {bit})"
        for name, bit in (("FROM_ACC", dma.DESC_FROM_ACC), ("RUN", dma.DESC_RUN), ("WIPE", dma.DESC_WIPE))]
    text = c_header(load(ACC_REGS_YML))
    end = text.rindex("#endif")
    write_if_changed(path, text[:end] + "\n".join(flags) + "\n\n" + text[end:])


def write_acc_errors(path: Path) -> None:
    """ACC_ERR_<NAME>_MASK for each isa.yml error and the bit -> name table acc.c decodes
    ERR_BITS with (ACC_ERR_NAMES[bit], NULL for an unassigned bit)."""
    import yaml
    errors = yaml.safe_load(ACC_ISA_YML.read_text())["errors"]
    bits = {e["bit"]: name for name, e in errors.items()}
    if len(bits) != len(errors) or not all(0 <= b < 32 for b in bits):
        raise FirmwareError(f"{ACC_ISA_YML}: error bits must be distinct and below 32")
    n = max(bits) + 1
    lines = ["/* Generated by firmware/build.py from ip/acc/data/isa.yml errors:; do not edit. */",
             "#ifndef ACC_ERRORS_H_", "#define ACC_ERRORS_H_"]
    for b, name in sorted(bits.items()):
        desc = errors[name]["desc"].replace("*/", "* /")
        lines.append(f"#define ACC_ERR_{name}_MASK 0x{1 << b:08x}u   /* {desc} */")
    lines += [f"#define ACC_ERR_BITS_KNOWN {n}u",
              "static const char *const ACC_ERR_NAMES[ACC_ERR_BITS_KNOWN] = {",
              *[f'    "{bits[b]}",' if b in bits else "    0," for b in range(n)],
              "};", "#endif", ""]
    write_if_changed(path, "\n".join(lines))


# ACC programs of programs/acc_selftest.c besides the NTT kernels (ip.acc.dv.jobs.kernel_jobs).
# SHAKE128 of a 32-byte message on the KMAC through the ACC's side-load port: the message at
# DMEM 0, two 256-bit digest words to DMEM 32 and 64.
ACC_SHAKE_MSG = bytes((0x5a + 7 * i) & 0xff for i in range(32))
ACC_SHAKE_SRC = """\
    kmac.acq
    addi x1, x0, 1          # mode 1 (SHAKE) | strength 0 (128) << 2
    kmac.start x1, x0       # msg_len 0: unbounded, FINISH ends the message
    bn.lw w1, 0(x0)
    addi x2, x0, -1         # byte mask 0xffffffff: all 32 bytes of w1
    kmac.msg w1, x2
    kmac.finish
    kmac.dig w2
    kmac.dig w3
    bn.sw w2, 32(x0)
    bn.sw w3, 64(x0)
    kmac.rel
    ecall
"""
# An undefined encoding (all zeros) as the third instruction: ERR_BITS = ILLEGAL_INSN there.
ACC_ILLEGAL_SRC = "addi x1, x0, 1\naddi x2, x0, 2\n.word 0\necall\n"
ACC_ILLEGAL_PC = 8
ACC_SHA3_MSG = b"after the ACC released the KMAC"


def acc_segments(dm: dict) -> list[tuple[int, bytes]]:
    """{addr: bytes} -> contiguous (addr, bytes) runs, so the header holds no zero padding
    (and bringup/ sends one bridge burst per run)."""
    segs = []
    for addr in sorted(dm):
        if segs and segs[-1][0] + len(segs[-1][1]) == addr:
            segs[-1] = (segs[-1][0], segs[-1][1] + dm[addr])
        else:
            segs.append((addr, dm[addr]))
    return segs


def _c_words(ws) -> str:
    return "{" + ", ".join(f"0x{w:08x}" for w in ws) + "}"


# RND: nine ENTROPY words (the pool keeps the last 8), then a program that reads all 8
ACC_ENTROPY = [0x9E3779B9 * (i + 1) & 0xFFFF_FFFF for i in range(9)]
ACC_RND_SRC = "bn.wsrr w1, RND\nbn.sw w1, 0(x0)\necall\n"
# drbg_kat's KMAC failure: the ACC holds the block, so the CPU's START is refused (SEQUENCE)
ACC_HOLD_KMAC_SRC = "kmac.acq\nhold:\n    jal x0, hold\n"


def acc_programs() -> list[dict]:
    """Every ACC program of acc_selftest: name, words, DMEM segments, expected DMEM bytes
    (exp_addr, exp) after the run. Kernels and reference outputs: ip.acc.dv.jobs.kernel_jobs
    (the ones the RTL tests check, kyber-py / dilithium-py references), ML-DSA INTT left out."""
    from ip.acc.dv.jobs import kernel_jobs, pack
    from ip.acc.tools.asm import assemble
    names = {"ntt_mlkem": "acc_mlkem_ntt", "intt_mlkem": "acc_mlkem_intt",
             "ntt_mldsa": "acc_mldsa_ntt"}
    progs = []
    for key, src, dm, mode, ref, *where in kernel_jobs():   # where: (output address,) if given
        if key not in names:
            continue
        n = mode[0]
        exp = b"".join(pack(ref[i:i + n], mode) for i in range(0, 256, n))
        progs.append({"name": names[key], "words": assemble(src, f"{key}.s"),
                      "segs": acc_segments(dm), "exp_addr": where[0] if where else 0, "exp": exp})
    progs.append({"name": "acc_kmac_shake128", "words": assemble(ACC_SHAKE_SRC, "shake128.s"),
                  "segs": [(0, ACC_SHAKE_MSG)], "exp_addr": 32,
                  "exp": hashlib.shake_128(ACC_SHAKE_MSG).digest(64)})
    progs.append({"name": "acc_err_illegal_insn", "words": assemble(ACC_ILLEGAL_SRC, "illegal.s"),
                  "segs": [], "exp_addr": 0, "exp": b""})
    progs.append({"name": "acc_rnd", "words": assemble(ACC_RND_SRC, "rnd.s"), "segs": [],
                  "exp_addr": 0, "exp": b"".join(w.to_bytes(4, "little") for w in ACC_ENTROPY[1:])})
    return progs


def write_acc_vectors(path: Path) -> None:
    lines = ["/* Generated by firmware/build.py: ACC programs (ip.acc.tools.asm), DMEM images and",
             " * expected DMEM contents from kyber-py / dilithium-py (ip.acc.dv.jobs.kernel_jobs)",
             " * and hashlib. */",
             "#include <stddef.h>", "#include <stdint.h>",
             "#define ALIGN4 __attribute__((aligned(4)))   /* word copies in lib/acc.c */",
             "struct acc_segment { uint32_t addr; const uint8_t *data; size_t len; };",
             "struct acc_program {", "    const char *name;",
             "    const uint32_t *words; size_t n_words;",
             "    const struct acc_segment *segs; size_t n_segs;",
             "    uint32_t exp_addr; const uint8_t *exp; size_t exp_len;", "};"]
    rows = []
    for i, p in enumerate(acc_programs()):
        lines.append(f"static const uint32_t ap{i}_words[] = {_c_words(p['words'])};")
        for k, (addr, data) in enumerate(p["segs"]):
            lines.append(f"static const uint8_t ap{i}_seg{k}[] ALIGN4 = {_c_bytes(data)};")
        segs = ", ".join(f"{{0x{a:x}, ap{i}_seg{k}, {len(d)}}}" for k, (a, d) in enumerate(p["segs"]))
        lines.append(f"static const struct acc_segment ap{i}_segs[] = {{{segs or '{0, 0, 0}'}}};")
        lines.append(f"static const uint8_t ap{i}_exp[] ALIGN4 = {_c_bytes(p['exp'])};")
        rows.append(f'    {{"{p["name"]}", ap{i}_words, {len(p["words"])}, ap{i}_segs, '
                    f'{len(p["segs"])}, 0x{p["exp_addr"]:x}, ap{i}_exp, {len(p["exp"])}}},')
        lines.append(f"#define ACC_PROG_{p['name'][4:].upper()} {i}")
    lines += ["static const struct acc_program acc_programs[] = {", *rows, "};",
              f"#define ACC_PROGRAMS {len(rows)}u",
              f"#define ACC_ILLEGAL_PC {ACC_ILLEGAL_PC}u",
              f"static const uint32_t acc_entropy_words[] = {_c_words(ACC_ENTROPY)};",
              f"#define ACC_ENTROPY_WORDS {len(ACC_ENTROPY)}u",
              f"static const uint8_t acc_sha3_msg[] = {_c_bytes(ACC_SHA3_MSG)};",
              f"static const uint8_t acc_sha3_256[] = "
              f"{_c_bytes(hashlib.sha3_256(ACC_SHA3_MSG).digest())};", ""]
    write_if_changed(path, "\n".join(lines))


# The real operations of programs/pqc_ops.c: whole ACC programs (ip/acc/kernels) with inputs
# and expected outputs from kyber-py / dilithium-py. ML-KEM-768: keys and ciphertext from fixed
# seeds; K of a valid ciphertext (= encaps' K) and of one with a bit of v flipped (implicit
# rejection). ML-DSA-65: one key, two (M', rnd) draws of random.Random(PQC_DSA_SEED) chosen by
# how many iterations of the rejection loop dilithium-py's _sign_internal takes: 4 (the median
# of ML-DSA-65's iteration count, a geometric variable with mean 5.1) and 1 (the best case).
PQC_KEM_SEEDS = (bytes([0x31]) * 32, bytes([0x32]) * 32, bytes([0x33]) * 32)   # d, z, m
PQC_KEM_FLIP = 1000          # byte of c flipped (bit 4) for the rejection case: inside v
PQC_DSA_SEED = 6
PQC_DSA_DRAWS = {"mldsa65_sign": (0, 4), "mldsa65_sign_best": (7, 1)}   # name: (draw, iterations)


def _dsa_iterations(dsa, sk: bytes, msg: bytes, rnd: bytes) -> tuple[int, bytes]:
    """dilithium-py's signature and its number of loop iterations (calls of ExpandMask in its
    own _sign_internal, counted by wrapping the method on the instance)."""
    calls = []
    orig = dsa._expand_mask_vector

    def counted(*a, **k):
        calls.append(1)
        return orig(*a, **k)
    dsa._expand_mask_vector = counted
    try:
        sig = dsa._sign_internal(sk, msg, rnd)
    finally:
        del dsa._expand_mask_vector
    return len(calls), sig


def _iss_cycles(words, image: dict, dmem_size: int, imem_size: int) -> int:
    """ACC cycles of the program on the ISS (the cycle-accurate golden model) with the same
    memories and DMEM image the firmware gives the RTL (DMEM wiped to zero first). Only the
    cycle count is used: expected outputs come from the references."""
    from ip.acc.iss import Iss
    sim = Iss(dmem_size=dmem_size, imem_size=imem_size)
    sim.load_program(words)
    for a, b in image.items():
        sim.dmem.write_bytes(a, b)
    h = sim.run(max_cycles=10_000_000)
    if not h.ok:
        raise FirmwareError(f"ISS run of a pqc_ops program did not end with ecall: {h}")
    return h.cycles


_PQC_OPS = None


def pqc_ops() -> list[dict]:
    """Every operation of pqc_ops: name, program ("mlkem" / "mldsa"), DMEM image {addr: bytes},
    output address and expected bytes (kyber-py / dilithium-py), kappa (address, expected value
    = 5 x dilithium-py's iterations; ML-DSA only), the ISS's cycle count. Computed once per
    process (the ISS runs take ~20 s)."""
    global _PQC_OPS
    if _PQC_OPS is not None:
        return _PQC_OPS
    import random
    from dilithium_py.ml_dsa import ML_DSA_65 as DSA
    from kyber_py.ml_kem import ML_KEM_768 as KEM
    from ip.acc.kernels.mldsa import sign as mldsa_sign
    from ip.acc.kernels.mlkem import decaps as mlkem
    from ip.acc.tools.asm import assemble
    from soc.target import ACC_DMEM_SIZE, ACC_IMEM_SIZE
    words = {"mlkem": assemble(mlkem.decaps_program(), "mlkem_decaps.s"),
             "mldsa": assemble(mldsa_sign.sign_program(), "mldsa_sign.s")}
    for k, w in words.items():
        if 4 * len(w) > ACC_IMEM_SIZE:
            raise FirmwareError(f"{k} program ({4 * len(w)} B) exceeds the SoC's ACC IMEM")
    if max(mlkem.END, mldsa_sign.END) > ACC_DMEM_SIZE:
        raise FirmwareError("an ACC program's DMEM layout exceeds the SoC's ACC DMEM")
    ops = []
    d, z, m = PQC_KEM_SEEDS
    ek, dk = KEM._keygen_internal(d, z)
    key, c = KEM._encaps_internal(ek, m)
    bad = bytearray(c)
    bad[PQC_KEM_FLIP] ^= 0x10
    for name, ct in (("mlkem768_decaps", c), ("mlkem768_decaps_reject", bytes(bad))):
        exp = KEM._decaps_internal(dk, ct)
        if (exp == key) != (ct == c):
            raise FirmwareError(f"{name}: kyber-py's decaps disagrees with its encaps")
        ops.append({"name": name, "prog": "mlkem", "image": mlkem.image(dk=dk, c=ct),
                    "out": mlkem.K_OUT, "exp": exp, "kappa": (0, 0)})
    rng = random.Random(PQC_DSA_SEED)
    pk, sk = DSA._keygen_internal(rng.randbytes(32))
    rnds = [rng.randbytes(32) for _ in range(1 + max(dr for dr, _ in PQC_DSA_DRAWS.values()))]
    for name, (draw, want) in PQC_DSA_DRAWS.items():
        msg = b"pqsoc: ML-DSA-65 on the ACC, draw %d" % draw   # M', as _sign_internal takes it
        iters, sig = _dsa_iterations(DSA, sk, msg, rnds[draw])
        if iters != want or not DSA._verify_internal(pk, msg, sig):
            raise FirmwareError(f"{name}: dilithium-py took {iters} iterations, expected {want}")
        ops.append({"name": name, "prog": "mldsa", "image": mldsa_sign.image(sk, msg, rnds[draw]),
                    "out": mldsa_sign.SIG, "exp": sig,
                    "kappa": (mldsa_sign.KAPPA, DSA.l * iters), "iterations": iters})
    for op in ops:
        op["words"] = words[op["prog"]]
        op["iss_cycles"] = _iss_cycles(op["words"], op["image"], ACC_DMEM_SIZE, ACC_IMEM_SIZE)
    _PQC_OPS = ops
    return ops


def write_pqc_vectors(path: Path) -> None:
    """pqc_vectors.h for programs/pqc_ops.c: each ACC program once, each DMEM blob once (the
    two ML-KEM cases share dk and the constants, the two ML-DSA cases the key)."""
    ops = pqc_ops()
    lines = ["/* Generated by firmware/build.py: ACC programs (ip/acc/kernels, ip.acc.tools.asm),",
             " * DMEM images, expected outputs from kyber-py / dilithium-py, the ISS's cycle",
             " * counts. */",
             "#include <stddef.h>", "#include <stdint.h>",
             "#define ALIGN4 __attribute__((aligned(4)))   /* word copies in lib/acc.c */",
             "struct pqc_segment { uint32_t addr; const uint8_t *data; size_t len; };",
             "struct pqc_op {", "    const char *name;",
             "    const uint32_t *words; size_t n_words;",
             "    const struct pqc_segment *segs; size_t n_segs;",
             "    uint32_t out_addr; const uint8_t *exp; size_t exp_len;",
             "    uint32_t kappa_addr, exp_kappa;   /* ML-DSA: kappa = 5 x iterations; else 0 */",
             "    uint32_t iss_cycles;", "};"]
    progs, blobs, rows = {}, {}, []
    for op in ops:
        if op["prog"] not in progs:
            progs[op["prog"]] = f"pqc_{op['prog']}_words"
            lines.append(f"static const uint32_t {progs[op['prog']]}[] = {_c_words(op['words'])};")
        segs = []
        for addr, data in sorted(op["image"].items()):
            if data not in blobs:
                blobs[data] = f"pqc_blob{len(blobs)}"
                lines.append(f"static const uint8_t {blobs[data]}[] ALIGN4 = {_c_bytes(data)};")
            segs.append(f"{{0x{addr:x}, {blobs[data]}, {len(data)}}}")
        i = len(rows)
        lines.append(f"static const struct pqc_segment pqc_op{i}_segs[] = {{{', '.join(segs)}}};")
        lines.append(f"static const uint8_t pqc_op{i}_exp[] ALIGN4 = {_c_bytes(op['exp'])};")
        ka, kv = op["kappa"]
        rows.append(f'    {{"{op["name"]}", {progs[op["prog"]]}, {len(op["words"])}, '
                    f'pqc_op{i}_segs, {len(segs)}, 0x{op["out"]:x}, pqc_op{i}_exp, '
                    f'{len(op["exp"])}, 0x{ka:x}, {kv}, {op["iss_cycles"]}}},')
    lines += ["static const struct pqc_op pqc_ops[] = {", *rows, "};",
              f"#define PQC_OPS {len(rows)}u",
              f"#define PQC_MAX_OUT {max(len(op['exp']) for op in ops)}u", ""]
    write_if_changed(path, "\n".join(lines))


# Programs that run one pqc_ops() operation on an ACC whose IMEM and DMEM the host loaded
# (programs/<name>.c; the silicon SoC's 6 KiB boot RAM cannot hold the program and inputs): the
# operation each one runs. Each includes "<name>_vectors.h" (write_preload_vectors).
PRELOADED = {"mlkem_preloaded": "mlkem768_decaps",      # ML-KEM-768 decaps, valid ciphertext
             "mldsa_preloaded": "mldsa65_sign",         # ML-DSA-65 signing, 4 iterations (median)
             "mldsa16_preloaded": "mldsa65_sign16",     # the same signature, 16 KiB program
             "mldsa_verify_preloaded": "mldsa65_verify",  # ML-DSA-65 verify of that signature
             "caravel_policy": "mlkem768_decaps"}       # the bus access policy in a Caravel run


def preloaded_op(imem_size: int, dmem_size: int, program: str = "mlkem_preloaded") -> dict:
    """The operation of programs/PROGRAM.c (PRELOADED), its program and DMEM image loaded into
    the ACC by the host (not by the firmware). Same fields as a pqc_ops() entry, the ISS's
    cycles for these memory sizes; `dmem` is the whole DMEM image as bytes.
    sim.silicon preloads `words` and `dmem` (what a bring-up host writes over the
    bridge); the firmware gets the expected output and cycles (<program>_vectors.h)."""
    if program not in PRELOADED:
        raise FirmwareError(f"{program!r} is not a preloaded-ACC program; known: {', '.join(sorted(PRELOADED))}")
    name = PRELOADED[program]
    extra = {"mldsa65_sign16": _sign16_op, "mldsa65_verify": _verify65_op}
    found = [op for op in pqc_ops() if op["name"] == name] or \
        ([extra[name]()] if name in extra else [])
    if not found:
        raise FirmwareError(f"pqc_ops() has no operation {name}")
    op = dict(found[0])
    if 4 * len(op["words"]) > imem_size:
        raise FirmwareError(f"{name}: the program ({4 * len(op['words'])} B) exceeds IMEM ({imem_size} B)")
    from ip.acc.dv.jobs import image
    end = max(addr + len(data) for addr, data in op["image"].items())
    if end > dmem_size:
        raise FirmwareError(f"{name}: the DMEM image reaches {end:#x}, DMEM is {dmem_size} B")
    op["dmem"] = image(op["image"], dmem_size)
    op["iss_cycles"] = _iss_cycles(op["words"], op["image"], dmem_size, imem_size)
    return op


def _sign16_op() -> dict:
    """ML-DSA-65 signing by the program that fits the taped-out 16 KiB ACC memories
    (ip/acc/kernels/mldsa/sign16.py): pqc_ops()' mldsa65_sign signature (same key, M',
    rnd, 4 iterations) with sign16's program and DMEM image. Preloaded only (not in
    pqc_ops.c)."""
    from dilithium_py.ml_dsa import ML_DSA_65 as DSA
    from ip.acc.kernels.mldsa import sign as mldsa_sign
    from ip.acc.kernels.mldsa import sign16
    from ip.acc.tools.asm import assemble
    (ref,) = [op for op in pqc_ops() if op["name"] == "mldsa65_sign"]
    img = ref["image"]
    sk = img[mldsa_sign.SK]
    msg = img[mldsa_sign.MSG][:int.from_bytes(img[mldsa_sign.MLEN], "little")]
    rnd = img[mldsa_sign.RND]
    if DSA._sign_internal(sk, msg, rnd) != ref["exp"]:
        raise FirmwareError("mldsa65_sign16: the inputs taken from mldsa65_sign do not give its signature")
    return {"name": "mldsa65_sign16", "prog": "mldsa16", "image": sign16.image(sk, msg, rnd),
            "out": sign16.SIG, "exp": ref["exp"], "kappa": (sign16.KAPPA, ref["kappa"][1]),
            "iterations": ref["iterations"],
            "words": assemble(sign16.sign_program(), "mldsa_sign16.s")}


def _verify65_op() -> dict:
    """ML-DSA-65 verification (ip/acc/kernels/mldsa/verify.py, 16 KiB memories) of pqc_ops()'
    mldsa65_sign signature, with pk from the same dilithium-py key generation; dilithium-py's
    verifier accepts it, so the expected output is the status word VALID. Preloaded only."""
    import random
    from dilithium_py.ml_dsa import ML_DSA_65 as DSA
    from ip.acc.kernels.mldsa import sign as mldsa_sign
    from ip.acc.kernels.mldsa.verify import STATUS_VALID, verify
    from ip.acc.tools.asm import assemble
    (ref,) = [op for op in pqc_ops() if op["name"] == "mldsa65_sign"]
    pk, sk = DSA._keygen_internal(random.Random(PQC_DSA_SEED).randbytes(32))
    img = ref["image"]
    if img[mldsa_sign.SK] != sk:
        raise FirmwareError("mldsa65_verify: the key of mldsa65_sign is not the one regenerated here")
    msg = img[mldsa_sign.MSG][:int.from_bytes(img[mldsa_sign.MLEN], "little")]
    if not DSA._verify_internal(pk, msg, ref["exp"]):
        raise FirmwareError("mldsa65_verify: dilithium-py rejects mldsa65_sign's signature")
    v = verify(65)
    return {"name": "mldsa65_verify", "prog": "mldsa_verify", "image": v.image(pk, ref["exp"], msg_prime=msg),
            "out": v.STATUS, "exp": STATUS_VALID.to_bytes(4, "little"), "kappa": (0, 0),
            "words": assemble(v.program(), "mldsa65_verify.s")}


def write_preload_vectors(path: Path, program: str, imem_size: int, dmem_size: int) -> None:
    op = preloaded_op(imem_size, dmem_size, program)
    ka, kv = op["kappa"]
    lines = [f"/* Generated by firmware/build.py (preloaded_op): what programs/{program}.c",
             " * expects after the host loaded the ACC: the output from kyber-py / dilithium-py,",
             " * kappa (ML-DSA: 5 x dilithium-py's iterations), the ISS's cycles. */",
             "#include <stdint.h>",
             f'#define PRELOAD_NAME "{op["name"]}_preloaded"',
             f'#define PRELOAD_PROGRAM "{program}"',
             f"#define PRELOAD_OUT_ADDR 0x{op['out']:x}u",
             f"#define PRELOAD_KAPPA_ADDR 0x{ka:x}u",
             f"#define PRELOAD_KAPPA {kv}u",
             f"#define PRELOAD_ISS_CYCLES {op['iss_cycles']}u",
             f"#define PRELOAD_IMEM_BYTES {4 * len(op['words'])}u",
             f"#define PRELOAD_OUT_LEN {len(op['exp'])}u",
             "/* SHA3-256 (hashlib) of the reference's output: a 3309-byte signature would not fit",
             " * the boot RAM beside the firmware */",
             f"static const uint8_t preload_exp_sha3[32] = {_c_bytes(hashlib.sha3_256(op['exp']).digest())};",
             ""]
    write_if_changed(path, "\n".join(lines))


class FirmwareError(Exception):
    pass


def programs() -> list[str]:
    return sorted(p.stem for p in PROGRAMS.glob("*.c"))


def _c_bytes(b: bytes) -> str:
    return "{" + ", ".join(f"0x{x:02x}" for x in b) + "}" if b else "{0}"


def write_sha3_vectors(path: Path) -> None:
    """sha3_vectors.h: each message's length and hashlib digest, and sha3_msg_byte(v, i), byte i
    of message v from its formula (SHA3_FORMULAS), so the image holds no message."""
    lines = ["/* Generated by firmware/build.py: digests from Python's hashlib.sha3_256, messages",
             " * from SHA3_FORMULAS (byte i of message v is sha3_msg_byte(v, i)). */",
             "#include <stddef.h>", "#include <stdint.h>",
             "static uint8_t sha3_msg_byte(unsigned v, uint32_t i)", "{", "    switch (v) {"]
    for v, (formula, _) in enumerate(SHA3_FORMULAS):
        lines.append(f"    case {v}: return (uint8_t)({formula});")
    lines += ["    default: return 0;", "    }", "}",
              "static const struct { uint16_t len; uint8_t digest[32]; } sha3_vectors[] = {"]
    for m in SHA3_MESSAGES:
        lines.append(f"    {{{len(m)}, {_c_bytes(hashlib.sha3_256(m).digest())}}},")
    lines += ["};", f"#define SHA3_VECTORS {len(SHA3_MESSAGES)}u",
              f"#define SHA3_MAX_LEN {max(map(len, SHA3_MESSAGES))}u", ""]
    text = "\n".join(lines)
    write_if_changed(path, text)


def rom_size(regions_ld: Path) -> int:
    """Bytes of the SoC's "rom" region (the boot ROM, or the silicon SoC's boot RAM) in LiteX's
    regions.ld, the limit the linker applies to the image."""
    m = re.search(r"^\s*rom\s*:\s*ORIGIN\s*=\s*\w+\s*,\s*LENGTH\s*=\s*(\w+)", regions_ld.read_text(), re.M)
    if not m:
        raise FirmwareError(f"{regions_ld}: no rom region")
    return int(m[1], 0)


def _too_large(name: str, what: str, rom: int, regions_ld: Path) -> str:
    return (f"{name}: the image is {what} the SoC's boot memory holds (region rom, {rom} bytes, "
            f"{regions_ld}): make the program smaller or build it for another SoC")


def _run(cmd):
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        raise FirmwareError(f"{' '.join(map(str, cmd))}\n{r.stdout}{r.stderr}")


def build(name: str, soc_dir: Path, out: Path, programs_dir: Path = PROGRAMS,
          headers: dict | None = None) -> Path:
    """Build PROGRAMS_DIR/NAME.c; returns the .bin. Skips work when the outputs are newer than
    every input (sources, headers, generated SoC headers). `programs_dir` lets tests keep
    programs for special SoC variants next to themselves. `headers` {file name: text}: headers
    the caller generated (e.g. `pqsoc mlkem --engine soc`'s inputs for programs/pqc_mlkem_api.c),
    written into OUT/gen; use a separate OUT per set of headers. One builder at a time per OUT
    (processes share OUT/gen)."""
    with locks.exclusive(Path(out).resolve()):
        return _build(name, soc_dir, out, programs_dir, headers)


def _build(name: str, soc_dir: Path, out: Path, programs_dir: Path, headers: dict | None) -> Path:
    src = Path(programs_dir) / f"{name}.c"
    if not src.exists():
        known = ", ".join(sorted(p.stem for p in Path(programs_dir).glob("*.c")))
        raise FirmwareError(f"no firmware program {name!r}; known: {known}")
    if shutil.which(CROSS + "gcc") is None:
        raise FirmwareError(f"{CROSS}gcc not found (apt package gcc-riscv64-unknown-elf)")
    generated = Path(soc_dir).resolve() / "software" / "include"
    if not (generated / "generated" / "csr.h").exists():
        raise FirmwareError(f"{generated}/generated/csr.h missing: run `pqsoc soc build` first")
    out = Path(out).resolve()
    gen = out / "gen"
    gen.mkdir(parents=True, exist_ok=True)
    write_sha3_vectors(gen / "sha3_vectors.h")
    write_kmac_regs(gen / "kmac_regs.h")
    write_kmac_vectors(gen / "kmac_vectors.h")
    generated_headers = ["sha3_vectors.h", "kmac_regs.h", "kmac_vectors.h"]
    if "ACC_BASE" in (generated / "generated" / "mem.h").read_text():
        # ACC headers (assembling the kernels takes a moment): only for SoCs with the ACC
        write_acc_regs(gen / "acc_regs.h")
        write_acc_errors(gen / "acc_errors.h")
        write_acc_vectors(gen / "acc_vectors.h")
        # lib/pqc.c's knowledge of the ML-KEM programs (firmware/pqc_layout.py)
        write_if_changed(gen / "pqc_mlkem_layout.h", pqc_layout.layout_header())
        # ... and of the ML-DSA programs (firmware/pqc_mldsa_layout.py)
        write_if_changed(gen / "pqc_mldsa_layout.h", pqc_mldsa_layout.layout_header())
        generated_headers += ["acc_regs.h", "acc_errors.h", "acc_vectors.h", "pqc_mlkem_layout.h",
                              "pqc_mldsa_layout.h"]
        if name == pqc_layout.API_PROGRAM and pqc_layout.API_HEADER not in (headers or {}):
            # the test build: ML-KEM-768 with kyber-py's vectors and the error paths
            headers = {**(headers or {}), pqc_layout.API_HEADER: pqc_layout.api_vectors(
                768, pqc_layout.default_requests(768), error_tests=True)}
        if name == pqc_mldsa_layout.API_PROGRAM and pqc_mldsa_layout.API_HEADER not in (headers or {}):
            # the test build: ML-DSA-65 with dilithium-py's vectors and the error paths
            headers = {**(headers or {}), pqc_mldsa_layout.API_HEADER: pqc_mldsa_layout.api_vectors(
                65, pqc_mldsa_layout.default_requests(65), error_tests=True)}
        if '#include "pqc_vectors.h"' in src.read_text():
            # the whole ML-KEM / ML-DSA programs with references and ISS runs (~20 s): only
            # for the programs that use them
            write_pqc_vectors(gen / "pqc_vectors.h")
            generated_headers.append("pqc_vectors.h")
        if f'#include "{name}_vectors.h"' in src.read_text() and name in PRELOADED:
            consts = (generated / "generated" / "soc.h").read_text()
            sizes = [int(re.search(rf"#define {k} (\d+)", consts)[1])
                     for k in ("ACC_IMEM_SIZE", "ACC_DMEM_SIZE")]
            write_preload_vectors(gen / f"{name}_vectors.h", name, *sizes)
            generated_headers.append(f"{name}_vectors.h")

    if "ENTROPY_BASE" in (generated / "generated" / "mem.h").read_text():
        # the entropy source's registers and claim (lib/entropy.c): only for SoCs with the block
        write_entropy_regs(gen / "entropy_regs.h")
        generated_headers.append("entropy_regs.h")

    if '#include "pqc_keycheck_vectors.h"' in src.read_text():
        # NIST's ACVP keyCheck cases (pqc_layout.keycheck_vectors; ACVP_ROOT)
        write_if_changed(gen / "pqc_keycheck_vectors.h", pqc_layout.keycheck_vectors())
        generated_headers.append("pqc_keycheck_vectors.h")

    if '#include "pqc_prehash_vectors.h"' in src.read_text():
        write_if_changed(gen / "pqc_prehash_vectors.h", pqc_mldsa_layout.prehash_vectors())
        generated_headers.append("pqc_prehash_vectors.h")

    if '#include "drbg_kat.h"' in src.read_text():
        # OpenSSL's HMAC-DRBG answers (firmware/drbg_vectors.py): only for the program that uses them
        from firmware import drbg_vectors
        from ip.acc.tools.asm import assemble
        hold = assemble(ACC_HOLD_KMAC_SRC, "hold.s")
        write_if_changed(gen / "drbg_kat.h", drbg_vectors.kat_header() +
                          "/* firmware/build.py ACC_HOLD_KMAC_SRC: the ACC takes the KMAC and keeps it */\n"
                          f"static const uint32_t acc_hold_kmac[] = {{{', '.join(f'0x{w:08x}u' for w in hold)}}};\n")
        generated_headers.append("drbg_kat.h")

    for hname, text in (headers or {}).items():
        write_if_changed(gen / hname, text)
        generated_headers.append(hname)

    sources = [src, *sorted(LIB.glob("*.c")), *sorted(LIB.glob("*.S"))]
    inputs = sources + sorted(LIB.glob("*.h")) + sorted(Path(programs_dir).glob("*.h")) \
        + [LIB / "link.ld", Path(__file__), Path(stack.__file__)] \
        + [gen / h for h in generated_headers] + sorted((generated / "generated").glob("*"))
    elf, binf = out / f"{name}.elf", out / f"{name}.bin"
    if binf.exists() and binf.stat().st_mtime >= max(p.stat().st_mtime for p in inputs):
        return binf

    litex_inc = Path(litex.__file__).parent / "soc" / "software" / "include"
    incs = [f"-I{p}" for p in (LIB, gen, generated, litex_inc)]
    objs = []
    for s in sources:
        o = out / "obj" / name / (s.parent.name + "_" + s.name + ".o")
        o.parent.mkdir(parents=True, exist_ok=True)
        speed = SPEED_FLAGS if s.parent == LIB and s.name in SPEED else []
        _run([CROSS + "gcc", *CFLAGS, *speed, *stack.FLAGS, *incs, "-c", str(s), "-o", str(o)])
        objs.append(str(o))
    regions = generated / "generated" / "regions.ld"
    rom = rom_size(regions)
    try:
        _run([CROSS + "gcc", *LDFLAGS, f"-L{generated / 'generated'}", f"-T{LIB / 'link.ld'}",
              f"-Wl,-Map,{out / (name + '.map')}", *objs, "-o", str(elf)])
    except FirmwareError as e:
        over = re.search(r"region `rom' overflowed by (\d+) bytes", str(e))
        if over:
            raise FirmwareError(_too_large(name, f"{over[1]} bytes more than", rom, regions)
                                + f"\n{e}") from None
        raise
    _run([CROSS + "objcopy", "-O", "binary", str(elf), str(binf)])
    if binf.stat().st_size > rom:   # the linker's check, restated on the image itself
        size = binf.stat().st_size
        binf.unlink()
        raise FirmwareError(_too_large(name, f"{size} bytes, more than", rom, regions))
    try:   # the worst-case stack must fit link.ld's reserve (firmware/stack.py)
        stack.check(elf, out / "obj" / name)
    except stack.StackError as e:
        binf.unlink()
        raise FirmwareError(str(e)) from None
    return binf
