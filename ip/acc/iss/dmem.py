# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""Data memory: bytes, little-endian; 32-bit accesses 4-byte aligned, wide 32-byte aligned."""
from ip.acc.iss.errors import AccError


class Dmem:
    def __init__(self, size: int = 32 * 1024):
        if size <= 0 or size % 32:
            raise ValueError(f"DMEM size {size} must be a positive multiple of 32 bytes")
        self.size = size
        self.data = bytearray(size)

    def clear(self):
        self.data = bytearray(self.size)

    def _check(self, addr: int, n: int):
        if addr < 0 or addr + n > self.size:
            raise AccError("BAD_DATA_ADDR", f"{n * 8}-bit access at {addr:#x} outside DMEM "
                           f"(size {self.size:#x})")
        if addr % n:
            raise AccError("BAD_DATA_ADDR", f"{n * 8}-bit access at {addr:#x} not {n}-byte aligned")

    def load(self, addr: int, n: int) -> int:
        self._check(addr, n)
        return int.from_bytes(self.data[addr:addr + n], "little")

    def store(self, addr: int, n: int, value: int):
        self._check(addr, n)
        self.data[addr:addr + n] = (value & ((1 << (8 * n)) - 1)).to_bytes(n, "little")

    # host side (no error bits: the host loads and reads whole images)
    def write_bytes(self, addr: int, blob: bytes):
        if addr < 0 or addr + len(blob) > self.size:
            raise ValueError(f"{len(blob)} bytes at {addr:#x} do not fit DMEM of {self.size:#x}")
        self.data[addr:addr + len(blob)] = blob

    def read_bytes(self, addr: int = 0, n: int | None = None) -> bytes:
        n = self.size - addr if n is None else n
        return bytes(self.data[addr:addr + n])
