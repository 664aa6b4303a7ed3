# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""The generator state one program is built on, and the random register / value helpers
every snippet generator (ip/acc/dv/rig/gens) draws from.

Every draw goes through `State.rng`, so the order of the calls fixes the program: a
(seed, index) pair replays it only while the snippet generators keep their draw order."""
from __future__ import annotations

import random
from collections import Counter

from ip.acc.dv.rig.config import FUZZ_GROUPS, LANES, MASK32, Q, WIDTH, FuzzConfig, Layout, _isa, _li

# instructions with generator-specific handling (not picked by plain_item)
_SPECIAL = {"lw", "sw", "bn.lw", "bn.lw.pi", "bn.sw", "bn.sw.pi", "beq", "bne", "blt", "bge",
            "bltu", "bgeu", "jal", "jalr", "csrrw", "csrrs", "csrrc", "ecall", "loop", "loopi"}


class TooLong(Exception):
    """The program does not fit IMEM (generate() retries with the next rng state)."""


class State:
    """What one program has drawn so far: rng, knobs, labels, features (for the description).

    Snippet generators take a State and return assembly lines; those that contain a nested
    block (branch skips, loops) call `block`, which the program builder (rig/gen.py) provides,
    so the snippet modules never import the builder."""

    def __init__(self, rng: random.Random, cfg: FuzzConfig):
        self.rng = rng
        self.cfg = cfg
        self.isa = _isa()
        self.lay = Layout(cfg.dmem_size)
        self.nlabel = 0
        self.features = Counter()
        self.allow_ecall = True             # early `ecall` items (not before an error construct)
        self.falloff = False                # BAD_INSN_ADDR by running past the last IMEM word
        self.rnd_fresh = 0                  # RND pool words left for this program (rnd_item)
        # kmac.* only in protocol sequences (kmac_item) and misuse constructs, never alone
        self.plain = [i.mnemonic for i in self.isa.insns if i.group in FUZZ_GROUPS
                      and i.mnemonic not in _SPECIAL]

    def block(self, n: int, depth: int, budget: int, top: bool) -> tuple[list[str], int]:
        """Up to n random items at loop depth `depth` within `budget` dynamic instructions:
        (lines, dynamic cost)."""
        raise NotImplementedError

    # ------------------------------------------------------------------ small helpers
    def label(self) -> str:
        self.nlabel += 1
        return f"L{self.nlabel}"

    def chance(self, p: float) -> bool:
        return self.rng.random() < p

    def gd(self) -> int:                       # destination GPR (mostly not x0)
        return 0 if self.chance(0.05) else self.rng.randint(1, 31)

    def gs(self) -> int:
        return 0 if self.chance(0.08) else self.rng.randint(1, 31)

    def w(self) -> int:
        return self.rng.randint(0, self.isa.wdrs - 1)

    # ------------------------------------------------------------------ values
    def value(self) -> int:
        """A 32-bit value biased to boundaries: q +- 1, lane limits, DMEM addresses."""
        r = self.rng
        lay = self.lay
        pool = [0, 1, 2, 3, MASK32, MASK32 - 1, 0x7FFF_FFFF, 0x8000_0000, 0x8000_0001,
                3328, 3329, 3330, 8380416, 8380417, 8380418, 0xFFFF, 0x1_0000, 0x7FFF, 0x8000,
                0xFFFF_0000, 0x0D01_0D01, 0x0D00_0D00, 15, 16, 31, 32, 1023, 1024,
                lay.dmem_size, lay.dmem_size - 4, lay.dmem_size - 32]
        k = r.random()
        if k < 0.45:
            return r.choice(pool)
        if k < 0.6:                            # a valid DMEM address, aligned or not
            return r.randrange(0, lay.data_end, r.choice((1, 4, 32)))
        if k < 0.7:
            return (1 << r.randrange(32)) + r.choice((-1, 0, 1))
        if k < 0.8:
            return r.randint(-2048, 2047) & MASK32
        return r.getrandbits(32)

    def lane_value(self, mode: int) -> int:
        """One lane for VMODE `mode`: mostly reduced (< q), some edge values, some raw bits."""
        r = self.rng
        q, wd = Q[mode], WIDTH[mode]
        k = r.random()
        if k < 0.35:
            return r.choice((0, 1, 2, q - 2, q - 1, q, q + 1, (1 << wd) - 1, (1 << wd) - 2,
                             1 << (wd - 1), (1 << (wd - 1)) - 1, 2 * q - 1)) & ((1 << wd) - 1)
        if k < 0.75:
            return r.randrange(q)
        return r.getrandbits(wd)

    def dmem_image(self) -> bytes:
        """The initial DMEM: per 256-bit word, lanes of one VMODE or (10 %) raw bits."""
        out = bytearray()
        for _ in range(self.cfg.dmem_size // 32):
            mode = self.rng.randrange(2)
            if self.chance(0.1):
                out += self.rng.getrandbits(256).to_bytes(32, "little")
                continue
            wd = WIDTH[mode]
            word = sum(self.lane_value(mode) << (wd * i) for i in range(LANES[mode]))
            out += word.to_bytes(32, "little")
        return bytes(out)

    def set_vmode(self, mode: int, reg: int | None = None) -> list[str]:
        """Write VMODE = `mode` (sometimes with upper bits set as well)."""
        reg = reg or self.rng.randint(1, 31)
        v = mode if self.chance(0.7) else self.rng.choice((mode, mode | 2, mode | 0xFFFF_FFFE & MASK32))
        self.features[f"vmode{mode}"] += 1
        return _li(reg, v) + [f"csrrw x{self.gd() if self.chance(0.3) else 0}, VMODE, x{reg}"]
