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

STATUS_REG = 28        # GPR the status lines use (no kernel uses x28)


def store(code: int, addr: int) -> list[str]:
    """Write the status word `code` at DMEM addr (uses x28, x29)."""
    return li(STATUS_REG, code) + store_reg(STATUS_REG, addr)


def store_reg(reg: int, addr: int) -> list[str]:
    """sw x{reg} at the DMEM address addr (x29 as the base beyond 2 KiB)."""
    assert addr % 4 == 0 and 0 <= addr < 1 << 16, addr
    if addr < 2048:
        return [f"sw x{reg}, {addr}(x0)"]
    return li(29, addr) + [f"sw x{reg}, 0(x29)"]


def read(dmem: bytes, addr: int) -> int:
    return int.from_bytes(bytes(dmem[addr:addr + 4]), "little")


def message(code: int) -> str:
    return MESSAGES.get(code, f"status word {code:#010x}: not a status of these programs")
