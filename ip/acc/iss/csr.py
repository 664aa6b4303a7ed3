# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""CSRs and WSRs by the names and addresses in isa.yml (csrs:, wsrs:).

A register whose isa.yml description starts with "Read-only" rejects writes (ILLEGAL_INSN);
an unknown address is ILLEGAL_INSN.
RND and URND read from RandomRegs (random_regs.py); a URND WSR write reseeds URND.
"""
from ip.acc.iss.errors import AccError
from ip.acc.iss.wdr import MASK256


def _read_only(desc: str) -> bool:
    return desc.strip().lower().startswith("read-only")


class Csrs:
    def __init__(self, isa, random_regs):
        self.by_addr = {r["addr"]: name for name, r in isa.csrs.items()}
        self.read_only = {name for name, r in isa.csrs.items() if _read_only(r["desc"])}
        self.random = random_regs
        self.reset()

    def reset(self):
        self.values = {name: 0 for name in self.by_addr.values()}

    def name(self, addr: int) -> str:
        if addr not in self.by_addr:
            raise AccError("ILLEGAL_INSN", f"unknown CSR {addr:#x}")
        return self.by_addr[addr]

    def read(self, addr: int) -> int:
        name = self.name(addr)
        if name == "RND":
            return self.random.rnd32()
        if name == "URND":
            return self.random.draw(32)
        if name == "VMODE":
            return self.values[name] & 1
        return self.values[name]

    def check_write(self, addr: int):
        name = self.name(addr)
        if name in self.read_only:
            raise AccError("ILLEGAL_INSN", f"write to read-only CSR {name}")

    def write(self, addr: int, value: int):
        self.check_write(addr)
        self.values[self.name(addr)] = value & 0xFFFF_FFFF

    def set_hw(self, name: str, value: int):
        """Hardware update of a (possibly read-only) CSR, e.g. ERR_BITS."""
        self.values[name] = value & 0xFFFF_FFFF


class Wsrs:
    def __init__(self, isa, random_regs):
        self.by_addr = {r["addr"]: name for name, r in isa.wsrs.items()}
        self.read_only = {name for name, r in isa.wsrs.items() if _read_only(r["desc"])}
        self.random = random_regs
        self.reset()

    def reset(self):
        self.values = {name: 0 for name in self.by_addr.values()}

    def name(self, addr: int) -> str:
        if addr not in self.by_addr:
            raise AccError("ILLEGAL_INSN", f"unknown WSR {addr:#x}")
        return self.by_addr[addr]

    def read(self, addr: int) -> int:
        name = self.name(addr)
        if name == "RND":
            return self.random.rnd256()
        if name == "URND":
            return self.random.draw(256)
        return self.values[name]

    def write(self, addr: int, value: int):
        name = self.name(addr)
        if name in self.read_only:
            raise AccError("ILLEGAL_INSN", f"write to read-only WSR {name}")
        if name == "URND":
            self.random.reseed(value)
            return
        self.values[name] = value & MASK256
