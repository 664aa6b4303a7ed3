# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""General-purpose registers x0..x31 (32 bits); x0 reads 0, writes are dropped."""
MASK32 = 0xFFFF_FFFF


class Gprs:
    def __init__(self):
        self.regs = [0] * 32

    def reset(self):
        self.regs = [0] * 32

    def read(self, i: int) -> int:
        return 0 if i == 0 else self.regs[i]

    def write(self, i: int, value: int):
        if i:
            self.regs[i] = value & MASK32


def sext32(v: int) -> int:
    v &= MASK32
    return v - (1 << 32) if v >> 31 else v
