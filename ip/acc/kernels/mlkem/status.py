# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""The status word of the ML-KEM programs (keygen.py, encaps.py, decaps.py): the codes, declared
once, and the lines that write one.

Every program ends by writing a 32-bit status word at its layout's `status_addr` (the first
4 bytes of a 32-byte slot that the end-of-operation wipe keeps), then `ecall`:

* OK: the operation ran and its outputs are valid.
* EK_INVALID (encaps): FIPS 203 7.2 modulus check: a 12-bit coefficient of ek's t_hat
  encoding is >= q, i.e. ByteEncode12(ByteDecode12(ek)) != ek. Checked on public data, the
  program branches to its failure path: no output (DMEM wiped but for the status word).
* DK_HASH_MISMATCH (decaps): FIPS 203 7.3 hash check: the H(ek) stored in dk differs from
  SHA3-256 of the ek inside dk. Compared without a branch; K is zeroed by a select, the
  status chosen by arithmetic (the run takes the same cycles either way).

The codes are non-zero and far apart: a DMEM the host cleared (NOT_RUN = 0) and a program
that stopped early never read as OK. The input lengths (ek, dk, c fixed per parameter set,
FIPS 203 7.2 / 7.3 "type checks") are the host's check (ip/acc/api.py).
"""
from ip.acc.kernels.asm_util import li

NOT_RUN = 0x0000_0000
OK = 0x0000_600D
EK_INVALID = 0x0000_BAD1
DK_HASH_MISMATCH = 0x0000_BAD2

MESSAGES = {
    NOT_RUN: "the program wrote no status word (did it run?)",
    EK_INVALID: "ek check failed: a coefficient >= q (FIPS 203 7.2)",
    DK_HASH_MISMATCH: "dk check failed: the H(ek) in dk is not SHA3-256 of its ek (FIPS 203 7.3)",
}

STATUS_REG = 28        # GPR of the status lines: free where they run (the end, the select)


def store(code: int, addr: int, wtmp: str = "w1") -> list[str]:
    """Write the status word `code` at DMEM addr (uses x28, wtmp)."""
    return li(STATUS_REG, code) + store_reg(STATUS_REG, addr, wtmp)


def store_reg(reg: int, addr: int, wtmp: str = "w1") -> list[str]:
    """x{reg} as the status word at addr, the rest of its 32-byte slot zero (one wide store:
    the slot may hold old secret bytes, e.g. decaps' in dk's s_hat encoding); uses wtmp."""
    from ip.acc.kernels.asm_util import mem
    return [f"bn.xor {wtmp}, {wtmp}, {wtmp}", f"bn.ins {wtmp}, x{reg}, 0",
            f"bn.sw {wtmp}, {mem(addr)}"]


def end(keep, code=None, addr=None, size=None) -> list[str]:
    """The end of every ML-KEM program (before its ecall): DMEM [0, size) zeroed but the
    ranges `keep` (outputs, status slot), the status word `code` written at addr (None: the
    program wrote it already), then every register zeroed (asm_util). size: the program's
    peak DMEM rounded up to a word (it never writes above it: test_mlkem_wipe checks all of
    DMEM), acc_block.DMEM_SIZE if None."""
    from ip.acc.block import DMEM_SIZE
    from ip.acc.kernels.asm_util import wipe_dmem, zero_registers
    size = DMEM_SIZE if size is None else -(-size // 32) * 32
    L = ["bn.xor w0, w0, w0"] + wipe_dmem(keep, size)
    if code is not None:
        L += store(code, addr)
    return L + zero_registers()


def read(dmem: bytes, addr: int) -> int:
    return int.from_bytes(bytes(dmem[addr:addr + 4]), "little")


def message(code: int) -> str:
    return MESSAGES.get(code, f"status word {code:#010x}: not a status of these programs")
