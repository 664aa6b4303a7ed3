# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""Boolean to arithmetic shares of 256 bits in hardware (issue #38): the stream unit's
`smp.run b2a1m` on a word given in two Boolean shares, e.g. the message m' the masked decoding
gives (ip/acc/kernels/mlkem/masked.py), which re-encryption needs as Decompress_1(m') = 1665 m'
in arithmetic shares (1665 times each share: linear).

Layout: share 0 at X0, a public zero word at ZERO, share 1 at X1 (the unit reads them in that
order, so its read register goes share 0, 0, share 1); share 0's 256 coefficients out at E0
(16-bit lanes, 512 bytes), share 1's at E1 = E0 + 512.

`leak` seeds a first-order leak for the assessment's own check: "joined" loads the first words
of the two output shares into one register one after the other.
"""
from ip.acc.kernels.mlkem.masked import seed_urnd, wipe

LEAKS = (None, "joined")


class MaskedB2A:
    def __init__(self, leak: str | None = None, base: int = 0):
        if leak not in LEAKS:
            raise ValueError(f"unknown seeded leak {leak!r}")
        self.leak = leak
        self.X0, self.ZERO, self.X1 = base, base + 32, base + 64
        self.E0 = base + 128
        self.E1 = self.E0 + 512
        self.END = self.E1 + 512

    def image(self, x0: bytes, x1: bytes) -> dict:
        for name, v in (("x0", x0), ("x1", x1)):
            if len(v) != 32:
                raise ValueError(f"{name}: 32 bytes expected, got {len(v)}")
        return {self.X0: x0, self.ZERO: bytes(32), self.X1: x1}

    def outputs(self, dmem: bytes) -> tuple[list[int], list[int]]:
        def coeffs(a):
            return [int.from_bytes(dmem[a + 2 * i:a + 2 * i + 2], "little") for i in range(256)]
        return coeffs(self.E0), coeffs(self.E1)

    def ct_policy(self) -> dict:
        return {"secret": {"x share 0": (self.X0, self.X0 + 32), "x share 1": (self.X1, self.X1 + 32)},
                "public": {"zero": (self.ZERO, self.ZERO + 32)}, "rest": "secret", "allow": []}

    def share_policy(self) -> dict:
        return {"shares": {"x share 0": (self.X0, self.X0 + 32, 0), "x share 1": (self.X1, self.X1 + 32, 1)}}

    def program(self) -> str:
        return "\n".join(seed_urnd() + self.body() + ["ecall"]) + "\n"

    def body(self) -> list[str]:
        L = [f"addi x6, x0, {self.X0}", "csrrw x0, SMP_SRC, x6", f"addi x5, x0, {self.E0}",
             "addi x4, x0, 256", "smp.run x5, x4, b2a1m", "smp.wait"]
        if self.leak == "joined":
            L += [f"bn.lw w5, {self.E0}(x0)", f"bn.lw w5, {self.E1}(x0)", *wipe("w5")]
        return L
