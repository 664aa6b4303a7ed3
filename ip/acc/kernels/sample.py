# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""Sampling on the KMAC side-load + stream unit, shared by both schemes: a matrix entry
A_hat[i][j] = SampleNTT(XOF(rho || j || i)) (ML-KEM, FIPS 203 Alg. 7, uni12) or
RejNTTPoly(rho || j || i) (ML-DSA, FIPS 204 Alg. 30, uni23), and a CBD / bounded-eta
polynomial from a PRF.

`program`: a standalone program (acquire, absorb, sample, release). DMEM layout: SEED (the
32-byte rho / sigma) and SEED + 32 (the suffix bytes, e.g. j, i), output polynomial at OUT
(16-bit lanes in VMODE 0, 32-bit in VMODE 1).
`start`: the same job started in the background of a whole program (the port already
held; the program waits for it with smp.wait).
"""
from ip.acc.kernels.asm_util import li, mem

SEED = 0
OUT = 1024

# kmac.start grs1 = mode | strength << 2 (ip/kmac/data/kmac_regs.yml CFG codes)
SHA3_512 = 0 | 4 << 2
SHAKE128 = 1 | 0 << 2
SHAKE256 = 1 | 2 << 2


def program(xof: int, suffix_len: int, mode: str, count: int = 256, vmode: int = 0,
            release: bool = True) -> str:
    """SHAKE(seed || suffix) with a declared length (so no FINISH is needed), sampled by the
    stream unit straight into DMEM."""
    lines = []
    if vmode:
        lines += ["addi x31, x0, 1", "csrrw x0, VMODE, x31"]
    lines += [
        "kmac.acq",
        f"addi x1, x0, {xof}",
        f"addi x2, x0, {32 + suffix_len}",
        "kmac.start x1, x2",
        f"bn.lw w1, {SEED}(x0)",
        f"bn.lw w2, {SEED + 32}(x0)",
        "addi x3, x0, -1",                       # mask: all 32 bytes
        "kmac.msg w1, x3",
        f"addi x3, x0, {(1 << suffix_len) - 1}",
        "kmac.msg w2, x3",
        f"addi x4, x0, {count}",
        f"addi x5, x0, {OUT}",
        f"smp.run x5, x4, {mode}",
        "smp.wait",
    ]
    if release:
        lines.append("kmac.rel")
    lines.append("ecall")
    return "\n".join(lines) + "\n"


def start(xof: int, seed: int, suffix: int, suffix_len: int, dst: int, mode: str,
          suffix_base: str = "x0") -> list[str]:
    """XOF(32-byte seed at DMEM seed || suffix_len bytes of suffix_base + suffix) sampled by
    the stream unit into dst (256 coefficients), in the background: the KMAC port must be
    held, the VMODE set for the mode; uses x1..x5, w1, w2. suffix_base: a GPR whose value
    is added to the suffix (a loop variable, e.g. i << 8)."""
    return [f"bn.lw w1, {mem(seed)}", f"addi x1, x0, {xof}", f"addi x2, x0, {32 + suffix_len}",
            "kmac.start x1, x2", "addi x3, x0, -1", "kmac.msg w1, x3",
            f"addi x4, {suffix_base}, {suffix}", "bn.ins w2, x4, 0",
            f"addi x3, x0, {(1 << suffix_len) - 1}", "kmac.msg w2, x3"] + li(5, dst) + \
        ["addi x4, x0, 256", f"smp.run x5, x4, {mode}"]
