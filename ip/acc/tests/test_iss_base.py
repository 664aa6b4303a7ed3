# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""ISS base group: ALU, GPR memory, branches/jumps, CSRs, ecall; cycles from isa.yml."""
import random

import pytest

from ip.acc.tests.iss_util import ISA, cyc, run

M = 0xFFFF_FFFF


def s32(v):
    v &= M
    return v - (1 << 32) if v >> 31 else v


REF = {   # RV32I definitions
    "add": lambda a, b: (a + b) & M, "sub": lambda a, b: (a - b) & M,
    "sll": lambda a, b: (a << (b % 32)) & M, "slt": lambda a, b: int(s32(a) < s32(b)),
    "sltu": lambda a, b: int(a < b), "xor": lambda a, b: a ^ b,
    "srl": lambda a, b: a >> (b % 32), "sra": lambda a, b: (s32(a) >> (b % 32)) & M,
    "or": lambda a, b: a | b, "and": lambda a, b: a & b,
}


def li(reg, value):
    """lui + addi for any 32-bit value."""
    value &= M
    lo = value & 0xFFF
    if lo >= 0x800:
        lo -= 0x1000
    hi = ((value - lo) >> 12) & 0xFFFFF
    return f"lui x{reg}, {hi}\naddi x{reg}, x{reg}, {lo}\n"


@pytest.mark.parametrize("op", sorted(REF))
def test_alu_register_ops(op):
    rng = random.Random(op)
    for _ in range(8):
        a, b = rng.getrandbits(32), rng.choice([rng.getrandbits(32), rng.randrange(32), 0, M])
        sim, h = run(li(1, a) + li(2, b) + f"{op} x3, x1, x2\n{op} x0, x1, x2\necall\n")
        assert h.ok, h
        assert sim.gpr.read(3) == REF[op](a, b), (op, a, b)
        assert sim.gpr.read(0) == 0
        assert h.cycles == cyc("lui", "addi", "lui", "addi", op, op, "ecall")


@pytest.mark.parametrize("op", ["addi", "slti", "sltiu", "xori", "ori", "andi"])
def test_alu_immediate_ops(op):
    ref = REF[op[:-1] if op != "sltiu" else "sltu"]
    rng = random.Random(op)
    for imm in (0, 1, -1, 2047, -2048, rng.randrange(-2048, 2048)):
        a = rng.getrandbits(32)
        sim, h = run(li(1, a) + f"{op} x3, x1, {imm}\necall\n")
        assert sim.gpr.read(3) == ref(a, imm & M), (op, a, imm)


def test_shift_immediates_and_lui():
    a = 0x8765_4321
    sim, h = run(li(1, a) + "slli x2, x1, 4\nsrli x3, x1, 31\nsrai x4, x1, 8\nlui x5, 0xfffff\n"
                 "ecall\n")
    assert sim.gpr.read(2) == (a << 4) & M
    assert sim.gpr.read(3) == 1
    assert sim.gpr.read(4) == (s32(a) >> 8) & M
    assert sim.gpr.read(5) == 0xFFFFF000


def test_lw_sw_little_endian():
    sim, h = run(li(1, 0xDEADBEEF) + "addi x2, x0, 64\nsw x1, 4(x2)\nlw x3, 68(x0)\necall\n")
    assert h.ok and sim.gpr.read(3) == 0xDEADBEEF
    assert sim.dmem.read_bytes(68, 4) == bytes.fromhex("efbeadde")
    assert h.cycles == cyc("lui", "addi", "addi", "sw", "lw", "ecall")


@pytest.mark.parametrize("op,a,b", [
    ("beq", 5, 5), ("beq", 5, 6), ("bne", 5, 6), ("bne", 5, 5), ("blt", -1, 1), ("blt", 1, -1),
    ("bge", 1, -1), ("bge", -1, 1), ("bltu", 1, -1), ("bltu", -1, 1), ("bgeu", -1, 1),
    ("bgeu", 1, -1)])
def test_branches_cost_two_cycles_taken_or_not(op, a, b):
    taken = {"beq": a == b, "bne": a != b, "blt": a < b, "bge": a >= b,
             "bltu": a % 2**32 < b % 2**32, "bgeu": a % 2**32 >= b % 2**32}[op]
    sim, h = run(f"addi x1, x0, {a}\naddi x2, x0, {b}\n{op} x1, x2, skip\naddi x3, x0, 7\n"
                 "skip:\necall\n")
    assert h.ok
    assert sim.gpr.read(3) == (0 if taken else 7)
    extra = () if taken else ("addi",)
    assert h.cycles == cyc("addi", "addi", op, "ecall", *extra)


def test_backward_branch_loop_cycles():
    # count down from 10: 10 x (addi + bne)
    sim, h = run("addi x1, x0, 10\ntop:\naddi x1, x1, -1\nbne x1, x0, top\necall\n")
    assert h.ok and sim.gpr.read(1) == 0
    assert h.cycles == cyc("addi") + 10 * cyc("addi", "bne") + cyc("ecall")
    assert h.insns == 1 + 20 + 1


def test_jal_jalr():
    sim, h = run("jal x1, fn\naddi x5, x0, 9\necall\nfn:\naddi x6, x0, 3\njalr x0, 0(x1)\n")
    assert h.ok
    assert sim.gpr.read(1) == 4 and sim.gpr.read(5) == 9 and sim.gpr.read(6) == 3
    assert h.cycles == cyc("jal", "addi", "jalr", "addi", "ecall")


def test_csrs():
    sim, h = run("addi x1, x0, 1\ncsrrw x2, VMODE, x1\ncsrrs x3, VMODE, x0\n"
                 "addi x4, x0, 0x55\ncsrrw x0, SMP_CFG, x4\naddi x4, x0, 0x0f\n"
                 "csrrc x5, SMP_CFG, x4\ncsrrs x6, SMP_CFG, x0\ncsrrs x7, ERR_BITS, x0\n"
                 "csrrs x8, URND, x0\necall\n")
    assert h.ok, h
    assert sim.gpr.read(2) == 0 and sim.gpr.read(3) == 1
    assert sim.gpr.read(5) == 0x55 and sim.gpr.read(6) == 0x50
    assert sim.gpr.read(7) == 0


def test_straight_line_cycles_equal_isa_sum():
    body = ["addi x1, x0, 3", "add x2, x1, x1", "sw x2, 0(x0)", "lw x3, 0(x0)",
            "lui x5, 1", "xor x4, x3, x2", "csrrs x6, VMODE, x0"]
    sim, h = run("\n".join(body) + "\necall\n")
    assert h.cycles == sum(ISA.by_mnemonic[line.split()[0]].cycles for line in body) + 1
    assert h.insns == len(body) + 1


def test_load_use_stalls_one_cycle():
    """lw data come from the synchronous DMEM a cycle late (isa.yml: result latency 2)."""
    _, apart = run("lw x3, 0(x0)\nlui x5, 1\nadd x4, x3, x3\necall\n")
    _, back = run("lw x3, 0(x0)\nadd x4, x3, x3\nlui x5, 1\necall\n")
    _, x0 = run("lw x0, 0(x0)\nadd x4, x0, x0\nlui x5, 1\necall\n")
    assert (apart.cycles, back.cycles, x0.cycles) == (4, 5, 4)
