# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""The program builder: prologue, a body of random blocks (with one error construct in an
error program), the register-dump epilogue, assembly. Blocks are drawn from the snippet
generators of ip/acc/dv/rig/gens."""
from __future__ import annotations

from ip.acc.tools.asm import assemble
from ip.acc.dv.rig.config import ERROR_CLASSES, Program, _li, _ninsns
from ip.acc.dv.rig.gens.branch import skip_item
from ip.acc.dv.rig.gens.errors import error_item
from ip.acc.dv.rig.gens.hazard import hazard_item
from ip.acc.dv.rig.gens.kmac import kmac_item
from ip.acc.dv.rig.gens.loop import loop_item, nest_item
from ip.acc.dv.rig.gens.mem import mem_item
from ip.acc.dv.rig.gens.straight_line import csr_item, li_item, plain_item, rnd_item
from ip.acc.dv.rig.state import State, TooLong

# snippet kinds without a nested block: their cost is their length
_STRAIGHT = {"plain": plain_item, "mem": mem_item, "hazard": hazard_item, "li": li_item,
             "csr": csr_item, "kmac": kmac_item, "rnd": rnd_item}


class _Gen(State):
    """One program. Items are lists of assembly lines; a block is a list of items."""

    def block(self, n: int, depth: int, budget: int, top: bool) -> tuple[list[str], int]:
        """Up to n items at loop depth `depth`, while the budget lasts: (lines, dynamic cost)."""
        r = self.rng
        lines, cost = [], 0
        for _ in range(n):
            left = budget - cost
            if left <= 2:
                break
            # weights; loops only while the nesting limit (8) and the budget allow
            kinds = ["plain"] * 40 + ["mem"] * 10 + ["hazard"] * 8 + ["li"] * 8 + ["csr"] * 5 \
                + ["skip"] * 7
            if depth < 8 and left > 8:
                kinds += ["loop"] * 8
                if depth < 6 and left > 64:
                    kinds += ["nest"] * 2
            if depth == 0:
                kinds += ["rnd"] * 2             # top level only: rnd_item counts the reads
            if self.cfg.kmac and depth == 0 and left > 40:
                kinds += ["kmac"] * 6            # top level only: a session costs ~100+ cycles
            if self.allow_ecall and r.random() < 0.004:
                kinds = ["ecall"]
            k = r.choice(kinds)
            if k in _STRAIGHT:
                item = _STRAIGHT[k](self)
                c = len(item)
            elif k == "skip":
                item, c = skip_item(self, depth, left // 2)
            elif k == "loop":
                item, c = loop_item(self, depth, left)
            elif k == "nest":
                item, c = nest_item(self, r.randint(2, 8 - depth), left)
            else:
                item, c = ["ecall"], 1
                self.features["early_ecall"] += 1
            lines += item
            cost += c
        if not lines:
            lines = plain_item(self)
            cost = len(lines)
        return lines, cost

    def prologue(self) -> list[str]:
        """VMODE, 3-10 GPRs set to interesting values, 2-8 WDRs loaded from the data area."""
        r = self.rng
        out = []
        if self.chance(0.5):
            out += self.set_vmode(1)
        else:
            self.features["vmode0"] += 1
        for reg in r.sample(range(1, 32), r.randint(3, 10)):
            out += _li(reg, self.value())
        for _ in range(r.randint(2, 8)):
            out.append(f"bn.lw w{self.w()}, {r.randrange(0, self.lay.data_end, 32)}(x0)")
        return out

    def epilogue(self) -> list[str]:
        """Dump x1..x31, VMODE, ERR_BITS, the WDRs and ACC into the dump area, then ecall."""
        lay = self.lay
        out = [f"sw x{n}, {lay.gpr_base + 4 * (n - 1)}(x0)" for n in range(1, 32)]
        out += ["csrrs x1, VMODE, x0", f"sw x1, {lay.vmode_addr}(x0)",
                "csrrs x1, ERR_BITS, x0", f"sw x1, {lay.errbits_addr}(x0)"]
        out += [f"bn.sw w{n}, {lay.wdr_base + 32 * n}(x0)" for n in range(self.isa.wdrs)]
        out += ["bn.wsrr w0, ACC", f"bn.sw w0, {lay.acc_addr}(x0)", "ecall"]
        return out

    def program(self) -> Program:
        r = self.rng
        cfg = self.cfg
        expect = "ecall"
        if r.random() < cfg.error_fraction:
            expect = r.choice(ERROR_CLASSES + (("KMAC", "SAMPLER") if cfg.kmac else ()))
            self.allow_ecall = False
        # the host's ENTROPY words (8: the pool then holds this program's, whatever before)
        entropy = tuple(r.getrandbits(32) for _ in range(8)) if self.chance(0.5) else ()
        self.rnd_fresh = len(entropy)
        lines = ["# prologue"] + self.prologue()
        n = r.randint(cfg.min_items, cfg.max_items)
        if expect == "ecall":
            body, _ = self.block(n, 0, cfg.budget, top=True)
            lines += ["# body"] + body
        else:
            lines += ["# body"] + self.error_body(n, expect)
        lines += ["# epilogue: dump registers"] + self.epilogue()
        if self.falloff:
            lines += self.falloff_tail(lines)
        text = "\n".join(s if s.endswith(":") or s.startswith("#") else "    " + s for s in lines) + "\n"
        words = assemble(text, "fuzz.s", self.isa)
        if 4 * len(words) > cfg.imem_size:
            raise TooLong
        feats = [k for k in ("vmode0", "vmode1", "hazard", "early_ecall") if self.features[k]]
        depth = max([int(k.rsplit("_", 1)[1]) for k in self.features if k.startswith("loop_depth")] or [0])
        desc = f"expect {expect}; {len(words)} words; loop depth {depth}; " + ", ".join(feats)
        return Program(text, words, self.dmem_image(), desc, expect, entropy)

    def error_body(self, n: int, expect: str) -> list[str]:
        """n items with the error construct of class `expect` at a random place (30 %:
        inside a loop body); each half gets half the budget."""
        r = self.rng
        budget = self.cfg.budget
        k = r.randint(0, n)
        pre, _ = self.block(k, 0, budget // 2, top=True) if k else ([], 0)
        post, _ = self.block(max(1, n - k), 0, budget // 2, top=True)
        err = error_item(self, expect)
        if not self.falloff and self.chance(0.3):
            body = plain_item(self) + err + plain_item(self)
            err = [f"loopi {r.randint(1, 5)}, {_ninsns(body)}"] + body
        return pre + [f"# error construct: {expect}"] + err + post

    def falloff_tail(self, lines: list[str]) -> list[str]:
        """Padding, then the LTAIL code (1-3 items, maybe a loop) that ends at the last IMEM
        word, so execution runs past it (BAD_INSN_ADDR)."""
        r = self.rng
        tail = []
        for _ in range(r.randint(1, 3)):
            tail += plain_item(self)
        if self.chance(0.5):
            body = plain_item(self) + plain_item(self)
            tail += [f"loopi {r.randint(1, 4)}, {_ninsns(body)}"] + body
        pad = self.cfg.imem_size // 4 - _ninsns(lines) - _ninsns(tail)
        if pad < 0:
            raise TooLong
        return ["# padding up to the tail that runs off the end of IMEM"] \
            + ["addi x0, x0, 0"] * pad + ["LTAIL:"] + tail
