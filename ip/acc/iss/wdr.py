# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""Wide data registers w0..w<n-1> (256 bits; n = isa.yml wdrs) and the lane view selected by VMODE."""
from dataclasses import dataclass

MASK256 = (1 << 256) - 1


@dataclass(frozen=True)
class LaneMode:
    """VMODE 0: 16 x 16-bit lanes, q = 3329; VMODE 1: 8 x 32-bit lanes, q = 8380417."""
    lanes: int
    width: int
    q: int

    @property
    def mask(self) -> int:
        return (1 << self.width) - 1

    @property
    def rinv(self) -> int:
        """R^-1 mod q for the Montgomery product, R = 2^width."""
        return pow(1 << self.width, -1, self.q)

    @property
    def qneg_inv(self) -> int:
        """q' = -q^-1 mod R for the Montgomery reduction."""
        return (-pow(self.q, -1, 1 << self.width)) % (1 << self.width)

    def split(self, word: int) -> list:
        return [(word >> (self.width * i)) & self.mask for i in range(self.lanes)]

    def join(self, vals) -> int:
        return sum((v & self.mask) << (self.width * i) for i, v in enumerate(vals))

    def signed(self, v: int) -> int:
        return v - (1 << self.width) if v >> (self.width - 1) else v


VMODES = (LaneMode(16, 16, 3329), LaneMode(8, 32, 8380417))


class Wdrs:
    def __init__(self, count: int):
        self.count = count
        self.regs = [0] * count

    def reset(self):
        self.regs = [0] * self.count

    def read(self, i: int) -> int:
        return self.regs[i]

    def write(self, i: int, value: int):
        self.regs[i] = value & MASK256


def word32(value: int, k: int) -> int:
    return (value >> (32 * k)) & 0xFFFF_FFFF
