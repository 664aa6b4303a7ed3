"""The program generator: one `_Gen` per program (items, blocks, loops, errors)."""
from __future__ import annotations

import random
from collections import Counter

from ip.acc.tools.asm import assemble
from ip.acc.tools.dis import Disassembler
from ip.acc.dv.rig.config import (ERROR_CLASSES, FUZZ_GROUPS, LANES, MASK32, Q, SMP_MISUSE, WIDTH,
                                  FuzzConfig, Layout, Program, _isa, _li, _ninsns)


class _TooLong(Exception):
    pass


# instructions with generator-specific handling (not picked by plain_item)
_SPECIAL = {"lw", "sw", "bn.lw", "bn.lw.pi", "bn.sw", "bn.sw.pi", "beq", "bne", "blt", "bge",
            "bltu", "bgeu", "jal", "jalr", "csrrw", "csrrs", "csrrc", "ecall", "loop", "loopi"}


class _Gen:
    """One program. Items are lists of assembly lines; a block is a list of items."""

    def __init__(self, rng: random.Random, cfg: FuzzConfig):
        self.rng = rng
        self.cfg = cfg
        self.isa = _isa()
        self.lay = Layout(cfg.dmem_size)
        self.nlabel = 0
        self.features = Counter()
        self.allow_ecall = True             # early `ecall` items (not before an error construct)
        self.falloff = False                # BAD_INSN_ADDR by running past the last IMEM word
        # kmac.* only in protocol sequences (kmac_item) and misuse constructs, never alone
        self.plain = [i.mnemonic for i in self.isa.insns if i.group in FUZZ_GROUPS
                      and i.mnemonic not in _SPECIAL]

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

    def value(self) -> int:
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
        reg = reg or self.rng.randint(1, 31)
        v = mode if self.chance(0.7) else self.rng.choice((mode, mode | 2, mode | 0xFFFF_FFFE & MASK32))
        self.features[f"vmode{mode}"] += 1
        return _li(reg, v) + [f"csrrw x{self.gd() if self.chance(0.3) else 0}, VMODE, x{reg}"]

    # ------------------------------------------------------------------ instructions
    def operands(self, m: str) -> tuple[str, list[str]]:
        """Random operand text for a 'plain' instruction; returns (line, prefix lines)."""
        insn = self.isa.by_mnemonic[m]
        r = self.rng
        pre = []
        vals = {}
        for name, op in insn.operands.items():
            if op.kind == "gpr":
                vals[name] = f"x{self.gd() if name == 'grd' else self.gs()}"
            elif op.kind == "wdr":
                vals[name] = f"w{self.w()}"
            elif op.kind == "enum":
                vals[name] = r.choice(op.values)
            elif op.kind in ("csr", "wsr"):
                vals[name] = "ACC"
            elif op.kind == "simm":
                vals[name] = str(r.choice((0, 1, -1, 2047, -2048, r.randint(-2048, 2047))))
            elif op.kind == "uimm":
                lo, hi = op.value_range()
                vals[name] = str(r.choice((lo, hi, r.randint(lo, hi))))
            else:
                raise AssertionError(f"{m}: operand kind {op.kind}")
        if m in ("slli", "srli", "srai"):
            vals["shamt"] = str(r.choice((0, 1, 15, 16, 31, r.randint(0, 31))))
        elif m == "lui":
            vals["imm"] = hex(r.choice((0, 1, 0xFFFFF, 0x80000, 0x7FFFF, r.getrandbits(20))))
        elif m in ("bn.ins", "bn.ext"):
            vals["lane"] = str(r.randint(0, 7))
        elif m == "bn.shlv":
            n = r.randint(0, 31)
            if n >= 16:
                pre = self.set_vmode(1)
            vals["shamt"] = str(n)
        elif m in ("bn.shrv", "bn.srav"):
            vals["shamt"] = str(r.choice((0, 1, 15, 16, 31, r.randint(0, 31))))
        elif m == "bn.bcastl":
            n = r.randint(0, 15)
            if n >= 8:
                pre = self.set_vmode(0)
            vals["lane"] = str(n)
        elif m in ("bn.bfly.ct", "bn.bfly.gs"):
            n = r.randint(0, 15)
            if vals["dist"] == "l8" or (vals["dist"] == "r" and n >= 8):
                pre = self.set_vmode(0)
            vals["tidx"] = str(n)
        elif m in ("bn.wsrr", "bn.wsrw"):
            vals["wsr"] = "ACC"
        return self.fmt(insn, vals), pre

    def fmt(self, insn, vals: dict) -> str:
        out = insn.mnemonic
        if insn.syntax:
            s = ""
            for kind, text in insn.syntax_tokens():
                s += vals[text] if kind == "op" else text
            out += " " + s
        return out

    def plain_item(self) -> list[str]:
        m = self.rng.choice(self.plain)
        line, pre = self.operands(m)
        self.features[m] += 1
        return pre + [line]

    # ------------------------------------------------------------------ items
    def mem_item(self, op: str | None = None, addr: int | None = None) -> list[str]:
        r = self.rng
        op = op or r.choice(("lw", "sw", "bn.lw", "bn.lw.pi", "bn.sw", "bn.sw.pi"))
        wide = op.startswith("bn.")
        size = 32 if wide else 4
        if addr is None:
            addr = r.randrange(0, self.lay.data_end, size)
        if wide:
            off = r.choice((0, 0, 32, -32, 16352, -16384, 32 * r.randint(-512, 511)))
        else:
            off = r.choice((0, 0, 4, -4, 2047, -2048, 1, -1, r.randint(-2048, 2047)))
        base = (addr - off) & MASK32
        pre = []
        if not wide and 0 <= addr < 2048 and r.random() < 0.15:
            breg, off = 0, addr
        else:
            breg = r.randint(1, 31)
            pre = _li(breg, base)
        if op == "lw":
            line = f"lw x{self.gd()}, {off}(x{breg})"
        elif op == "sw":
            line = f"sw x{self.gs()}, {off}(x{breg})"
        else:
            line = f"{op} w{self.w()}, {off}(x{breg})"
        self.features[op] += 1
        return pre + [line]

    def hazard_item(self) -> list[str]:
        """A result-latency producer followed by a reader of its result (right after it, or
        after a few instructions for the multiplier unit)."""
        r = self.rng
        k = r.randrange(5)
        self.features["hazard"] += 1
        if k == 0:                                       # lw -> GPR reader
            rd = r.randint(1, 31)
            addr = r.randrange(0, self.lay.data_end, 4)
            prod = _li(rd, addr) + [f"lw x{rd}, 0(x{rd})"] if self.chance(0.5) else \
                [f"lw x{rd}, {addr}(x0)"]
            cons = r.choice((f"add x{self.gd()}, x{rd}, x{self.gs()}",  # (last choice: no hazard)
                             f"sw x{rd}, {r.randrange(0, self.lay.data_end, 4)}(x0)",
                             f"bn.bcast w{self.w()}, x{rd}",
                             f"bn.ins w{self.w()}, x{rd}, {r.randint(0, 7)}",
                             f"csrrw x0, VMODE, x{rd}",
                             f"xori x{rd}, x{rd}, -1",
                             f"add x{self.gd()}, x{self.gs()}, x{r.randint(1, 31)}"))  # maybe not
            return prod + [cons]
        if k == 1:                                       # bn.lw -> WDR reader
            wd = self.w()
            addr = r.randrange(0, self.lay.data_end, 32)
            prod = [f"bn.lw w{wd}, {addr}(x0)"]
        elif k == 2:
            wd = self.w()
            m = r.choice(("bn.mulvm", "bn.mulvm", "bn.mulv.lo", "bn.mulv.hi"))
            prod = [f"{m} w{wd}, w{self.w()}, w{self.w()}"]
        elif k == 3:
            wa, wb = self.w(), self.w()
            d = r.choice(("r", "l1", "l2", "l4"))
            m = r.choice(("bn.bfly.ct", "bn.bfly.gs"))
            prod = [f"{m} w{wa}, w{wb}, w{self.w()}, {d}, {r.randint(0, 7)}"]
            wd = r.choice((wa, wb))
        if k in (2, 3) and self.chance(0.6):
            # the multiplier unit (latency 3, one op per 2 cycles): the reader 2 or 3 cycles
            # later, another multiplier op right behind, or a write to the same register
            # while the result is in flight (the later write must win)
            for _ in range(r.randint(1, 2)):
                j = r.randrange(4)
                if j == 0:
                    prod += self.plain_item()
                elif j == 1:
                    prod.append(f"bn.mulvm w{self.w()}, w{self.w()}, w{self.w()}")
                elif j == 2:
                    prod.append(f"bn.lw w{wd}, {r.randrange(0, self.lay.data_end, 32)}(x0)")
                else:
                    prod.append(f"bn.xor w{wd}, w{self.w()}, w{self.w()}")
        else:                                            # bn.lw.pi: pointer is not late
            breg = r.randint(1, 31)
            prod = _li(breg, r.randrange(0, self.lay.data_end - 32, 32)) + \
                [f"bn.lw.pi w{self.w()}, 0(x{breg})"]
            return prod + [f"add x{self.gd()}, x{breg}, x{breg}"]
        x = self.w()
        cons = r.choice((f"bn.addvm w{self.w()}, w{wd}, w{x}", f"bn.subv w{self.w()}, w{x}, w{wd}",
                         f"bn.sel w{wd}, w{x}, w{self.w()}", f"bn.mov w{self.w()}, w{wd}",
                         f"bn.ext x{self.gd()}, w{wd}, {r.randint(0, 7)}",
                         f"bn.sw w{wd}, {r.randrange(0, self.lay.data_end, 32)}(x0)",
                         f"bn.ins w{wd}, x{self.gs()}, {r.randint(0, 7)}",
                         f"bn.or.acc x{self.gd()}, w{x}, w{wd}",
                         f"bn.wsrw ACC, w{wd}",
                         f"bn.bfly.ct w{wd}, w{x}, w{self.w()}, l1, 0",
                         f"bn.addv w{wd}, w{x}, w{x}"))          # writes only: no stall
        return prod + [cons]

    def csr_item(self) -> list[str]:
        r = self.rng
        k = r.randrange(5)
        self.features["csr"] += 1
        if k == 0:
            return self.set_vmode(r.randrange(2))
        if k == 1:
            return [f"{r.choice(('csrrw', 'csrrs', 'csrrc'))} x{self.gd()}, VMODE, x{self.gs()}"]
        if k == 2:
            return [f"{r.choice(('csrrs', 'csrrc'))} x{self.gd()}, ERR_BITS, x0"]
        if k == 3:
            return [f"csrrs x{self.gd()}, {r.choice(('VMODE', 'ERR_BITS'))}, x0"]
        return [f"bn.wsrr w{self.w()}, ACC" if self.chance(0.5) else f"bn.wsrw ACC, w{self.w()}"]

    def li_item(self) -> list[str]:
        self.features["li"] += 1
        if self.chance(0.2):
            return [f"bn.bcast w{self.w()}, x{self.gs()}"]
        return _li(self.rng.randint(1, 31), self.value())

    def skip_item(self, depth: int, budget: int) -> tuple[list[str], int]:
        """A forward branch / jal / jalr over a small sub-block of the same body."""
        r = self.rng
        lab = self.label()
        k = r.randrange(10)
        if k < 6:
            m = r.choice(("beq", "bne", "blt", "bge", "bltu", "bgeu"))
            a = self.gs()
            b = a if self.chance(0.2) else self.gs()
            head = [f"{m} x{a}, x{b}, {lab}"]
            if a and self.chance(0.2):            # the branch reads a load result: stall
                head.insert(0, f"lw x{a}, {r.randrange(0, self.lay.data_end, 4)}(x0)")
            self.features[m] += 1
        elif k < 8:
            head = [f"jal x{self.gd()}, {lab}"]
            self.features["jal"] += 1
        else:
            t = r.randint(1, 31)
            v = r.randrange(3)
            if v == 0:
                head = [f"jalr x{self.gd()}, {lab}(x0)"]
            elif v == 1:
                head = [f"addi x{t}, x0, {lab}", f"addi x{t}, x{t}, {r.choice((1, -8, 16))}",
                        f"jalr x{self.gd()}, {{off}}(x{t})"]
                off = {"1": 0, "-8": 8, "16": -16}[head[1].split(", ")[-1]]
                head[2] = head[2].format(off=off)
            else:
                head = [f"addi x{t}, x0, {lab}", f"jalr x{self.gd()}, 0(x{t})"]
            self.features["jalr"] += 1
        n = r.randint(1, 4)
        sub, cost = self.block(n, depth, max(1, budget - 4), top=False)
        return head + sub + [f"{lab}:"], cost + len(head)

    def loop_item(self, depth: int, budget: int) -> tuple[list[str], int]:
        r = self.rng
        body, bcost = self.block(r.randint(1, 5), depth + 1, max(2, budget // 2), top=False)
        body = self.fix_body_end(body)
        if self.chance(0.2):                     # hazard across the loop-back
            self.features["hazard"] += 1
            if self.chance(0.5):
                x = r.randint(1, 31)
                body = [f"add x{self.gd()}, x{x}, x{self.gs()}"] + body + \
                    [f"lw x{x}, {r.randrange(0, self.lay.data_end, 4)}(x0)"]
            else:
                x = self.w()
                m = r.choice(("bn.mulvm", "bn.mulv.hi", "bn.mulv.lo"))
                body = [f"bn.addvm w{self.w()}, w{self.w()}, w{x}"] + body + \
                    [f"{m} w{x}, w{self.w()}, w{self.w()}"]
            bcost += 2
        bcost = max(bcost, 1)
        size = _ninsns(body)
        maxn = max(1, (budget - 3) // bcost)
        n = min(maxn, r.choice((1, 2, 3, r.randint(1, 8), r.randint(1, 1023))))
        self.features["loop_depth_%d" % (depth + 1)] += 1
        if n <= 1023 and self.chance(0.6):
            head = [f"loopi {n}, {size}"]
            self.features["loopi"] += 1
        else:
            reg = r.randint(1, 31)
            head = _li(reg, n) + [f"loop x{reg}, {size}"]
            self.features["loop"] += 1
        return head + body, len(head) + n * bcost

    def nest_item(self, levels: int, budget: int) -> tuple[list[str], int]:
        """`levels` loops nested directly in each other (deep nesting, shared ends)."""
        r = self.rng
        if levels == 0:
            lines = []
            for _ in range(r.randint(1, 2)):
                lines += self.plain_item()
            return lines, _ninsns(lines)
        n = r.choice((1, 2, 2, 3))
        while n > 1 and (2 ** (levels - 1)) * 4 * n > budget:
            n -= 1
        pre = self.plain_item() if self.chance(0.4) else []
        inner, icost = self.nest_item(levels - 1, max(1, budget // n - 4))
        post = self.plain_item() if self.chance(0.4) else []
        body = pre + inner + post
        self.features["loopi"] += 1
        return [f"loopi {n}, {_ninsns(body)}"] + body, 1 + n * (_ninsns(pre) + icost + _ninsns(post))

    def fix_body_end(self, body: list[str]) -> list[str]:
        """A loop body must not end with a branch / jump / loop, nor with a label."""
        last = [s for s in body if not s.endswith(":")]
        if (not last or body[-1].endswith(":")
                or last[-1].split()[0] in ("beq", "bne", "blt", "bge", "bltu", "bgeu", "jal",
                                           "jalr", "loop", "loopi")):
            body = body + self.plain_item()
        return body

    def block(self, n: int, depth: int, budget: int, top: bool) -> tuple[list[str], int]:
        r = self.rng
        lines, cost = [], 0
        for _ in range(n):
            left = budget - cost
            if left <= 2:
                break
            kinds = ["plain"] * 40 + ["mem"] * 10 + ["hazard"] * 8 + ["li"] * 8 + ["csr"] * 5 \
                + ["skip"] * 7
            if depth < 8 and left > 8:
                kinds += ["loop"] * 8
                if depth < 6 and left > 64:
                    kinds += ["nest"] * 2
            if self.cfg.kmac and depth == 0 and left > 40:
                kinds += ["kmac"] * 6            # top level only: a session costs ~100+ cycles
            if self.allow_ecall and r.random() < 0.004:
                kinds = ["ecall"]
            k = r.choice(kinds)
            if k == "plain":
                item = self.plain_item()
                c = len(item)
            elif k == "mem":
                item = self.mem_item()
                c = len(item)
            elif k == "hazard":
                item = self.hazard_item()
                c = len(item)
            elif k == "li":
                item = self.li_item()
                c = len(item)
            elif k == "csr":
                item = self.csr_item()
                c = len(item)
            elif k == "skip":
                item, c = self.skip_item(depth, left // 2)
            elif k == "loop":
                item, c = self.loop_item(depth, left)
            elif k == "nest":
                item, c = self.nest_item(r.randint(2, 8 - depth), left)
            elif k == "kmac":
                item = self.kmac_item()
                c = len(item)
            else:
                item, c = ["ecall"], 1
                self.features["early_ecall"] += 1
            lines += item
            cost += c
        if not lines:
            lines = self.plain_item()
            cost = len(lines)
        return lines, cost

    # ------------------------------------------------------------------ KMAC side-load
    def kmac_mode(self) -> int:
        """grs1 of kmac.start: mode[1:0] | strength[4:2] (kmac_regs.yml CFG codes)."""
        mode, strength = self.rng.choice(((0, 1), (0, 2), (0, 3), (0, 4), (1, 0), (1, 2), (2, 0), (2, 2)))
        return mode | strength << 2

    def kmac_mask(self) -> tuple[int, int]:
        """A contiguous byte mask and its byte count."""
        r = self.rng
        if self.chance(0.5):
            return 0xFFFF_FFFF, 32
        lo = r.randrange(32)
        n = r.randint(1, 32 - lo)
        return ((1 << n) - 1) << lo, n

    def kmac_item(self, misuse: str | None = None) -> list[str]:
        """acq, start, message words (+ pad), finish, digest words, rel, with plain
        instructions in between (the KMAC works in the background)."""
        r = self.rng
        self.features["kmac"] += 1
        ga, gb = r.sample(range(1, 31), 2)
        out = [] if misuse == "no_acq" else ["kmac.acq"]
        if misuse == "double_acq":
            return out + ["kmac.acq"]
        words = []
        total = 0
        for _ in range(r.randint(0, 8)):
            mask, n = self.kmac_mask()
            if misuse == "bad_mask" and not words:
                mask, n = 0b1011, 3              # not contiguous: the KMAC reports MASK
            words.append((mask, self.w()))
            total += n
        declared = total if (total and self.chance(0.3) and misuse != "smp_early") else 0
        mode = 3 if misuse == "bad_mode" else self.kmac_mode()
        out += _li(ga, mode) + _li(gb, declared) + [f"kmac.start x{ga}, x{gb}"]
        if misuse == "early_dig":
            return out + ["kmac.dig w1"]
        for k, (mask, w) in enumerate(words):
            out += _li(ga, mask) + [f"kmac.msg w{w}, x{ga}"]
            if self.chance(0.3):
                out += self.plain_item()
            if declared == 0 and k == len(words) // 2 and self.chance(0.2):
                out.append("kmac.pad")
        if declared == 0 and misuse != "smp_early":
            out.append("kmac.finish")
        if misuse in SMP_MISUSE or (misuse is None and self.chance(0.5)):
            return out + self.smp_item(misuse)
        for _ in range(r.randint(0, 4)):
            if self.chance(0.4):
                out += self.plain_item()
            out.append(f"kmac.dig w{self.w()}")
        if self.chance(0.3):
            out.append("csrrs x{}, KMAC_STATUS, x0".format(self.gd()))
        out.append("kmac.rel")
        return out

    def smp_item(self, misuse: str | None = None) -> list[str]:
        """The stream unit samples the KMAC stream into the data area (the session is open
        and squeezing, unless misuse says otherwise); core work runs beside it."""
        r = self.rng
        self.features["smp"] += 1
        gd, gc = r.sample(range(1, 31), 2)
        mode = r.choice(("uni12", "uni23", "cbd2", "cbd3", "eta2", "eta4"))
        words = r.randint(1, self.lay.data_end // 32)
        dst = 32 * r.randrange(0, self.lay.data_end // 32 - words + 1)
        count = r.randint(1, 8 * words)              # fits in either VMODE
        if misuse == "smp_mode":
            mode = r.choice(("unpack", "pack", "ball"))
        elif misuse == "smp_dst":
            dst = r.choice((dst + 4, self.cfg.dmem_size - 32))
            count = 256 if dst % 32 == 0 else count
        out = _li(gd, dst) + _li(gc, count) + [f"smp.run x{gd}, x{gc}, {mode}"]
        if misuse == "smp_busy":
            return out + [f"smp.run x{gd}, x{gc}, {mode}"]
        if misuse == "smp_dig":
            return out + [r.choice(("kmac.dig w3", "kmac.rel"))]
        for _ in range(r.randint(0, 4)):
            out += self.plain_item()
        if self.chance(0.3):
            out.append(f"csrrs x{self.gd()}, SMP_STATUS, x0")
        return out + ["smp.wait", "kmac.rel"]

    def random_encoding(self, insn) -> int:
        """insn.encode with random in-range operand values (may be an illegal variant)."""
        vals = {}
        for op in insn.operands.values():
            lo, hi = op.value_range()
            step = 1 << op.align
            vals[op.name] = self.rng.randrange(lo - lo % step, hi + 1, step)
        return insn.encode(vals)

    def bad_wdr_word(self) -> int:
        """A legal instruction but for one or more wdr operands in wdrs..31 (ILLEGAL_INSN)."""
        r = self.rng
        isa = self.isa
        insn = r.choice([i for i in isa.insns if i.group in FUZZ_GROUPS
                         and any(op.kind == "wdr" for op in i.operands.values())])
        vals = {}
        for name, op in insn.operands.items():
            lo, hi = op.value_range()
            vals[name] = r.randrange(lo >> op.align, (hi >> op.align) + 1) << op.align
            if op.kind == "wdr":
                vals[name] = self.w()
        wdrs = [n for n, op in insn.operands.items() if op.kind == "wdr"]
        for name in r.sample(wdrs, r.randint(1, len(wdrs))):
            vals[name] = r.choice((isa.wdrs, 31, r.randint(isa.wdrs, 31)))
        self.features["bad_wdr"] += 1
        return insn.encode(vals)

    # ------------------------------------------------------------------ error constructs
    def error_item(self, cls: str) -> list[str]:
        r = self.rng
        lay = self.lay
        self.features["err_" + cls] += 1
        if cls == "KMAC":
            return self.kmac_item(r.choice(("no_acq", "double_acq", "bad_mask", "bad_mode",
                                            "early_dig", "smp_dig")))
        if cls == "SAMPLER":
            return self.kmac_item(r.choice(SMP_MISUSE[:-1]))
        if cls == "ILLEGAL_INSN":
            k = r.randrange(10)
            if k == 9 and self.isa.wdrs < 32:           # a wdr field beyond the registers
                # the disassembler's `.word` line names the instruction in a comment
                return [Disassembler(self.isa).line(self.bad_wdr_word())]
            if k == 0 and self.chance(0.5):         # a valid encoding with 1-2 bits flipped
                while True:
                    wrd = self.random_encoding(r.choice(self.isa.insns))
                    for _ in range(r.randint(1, 2)):
                        wrd ^= 1 << r.randrange(32)
                    if self.isa.decode(wrd) is None:
                        return [f".word {wrd:#010x}"]
            if k == 0:
                while True:
                    wrd = r.choice((r.getrandbits(32), MASK32, 0,
                                    (r.getrandbits(25) << 7) | r.choice((0x0B, 0x2B, 0x5B, 0x7B, 0x73, 0x33))))
                    if self.isa.decode(wrd) is None:
                        return [f".word {wrd:#010x}"]
            if k == 1:
                known = {c["addr"] for c in self.isa.csrs.values()}
                a = r.choice([x for x in (0, 0x7C4, 0x7FF, 0xFC1, 0x300, r.getrandbits(12)) if x not in known]
                             or [0x123])
                return [f"{r.choice(('csrrw', 'csrrs', 'csrrc'))} x{self.gd()}, {a:#x}, x{self.gs()}"]
            if k == 2:
                ro = [n for n, c in self.isa.csrs.items() if c["desc"].lower().startswith("read-only")]
                m = r.choice(("csrrw", "csrrs", "csrrc"))
                src = self.gs() if m == "csrrw" else r.randint(1, 31)
                return [f"{m} x{self.gd()}, {r.choice(ro)}, x{src}"]
            if k == 3:
                known = {c["addr"] for c in self.isa.wsrs.values()}
                a = r.choice([x for x in range(256) if x not in known])
                return [r.choice((f"bn.wsrr w{self.w()}, {a:#x}", f"bn.wsrw {a:#x}, w{self.w()}",
                                  f"bn.wsrw RND, w{self.w()}"))]
            if k == 4:
                m = r.choice(("bn.ins", "bn.ext"))
                lane = r.choice((8, 9, 1023, r.randint(8, 1023)))
                return [f"bn.ins w{self.w()}, x{self.gs()}, {lane}" if m == "bn.ins"
                        else f"bn.ext x{self.gd()}, w{self.w()}, {lane}"]
            mode = r.randrange(2)
            pre = self.set_vmode(mode)
            if k == 5:                                  # the 5-bit shamt reaches 32 only in VMODE 0
                return self.set_vmode(0) + [f"bn.shlv w{self.w()}, w{self.w()}, {r.randint(16, 31)}"]
            if k == 6:
                return pre + [f"bn.bcastl w{self.w()}, w{self.w()}, {r.randint(LANES[mode], 31)}"]
            m = r.choice(("bn.bfly.ct", "bn.bfly.gs"))
            if k == 7 or mode == 0:
                return self.set_vmode(1) + [f"{m} w{self.w()}, w{self.w()}, w{self.w()}, l8, {r.randint(0, 15)}"]
            return pre + [f"{m} w{self.w()}, w{self.w()}, w{self.w()}, r, {r.randint(8, 15)}"]
        if cls == "BAD_INSN_ADDR":
            imem = self.cfg.imem_size
            k = r.randrange(5)
            if k == 4:                                  # run off the end of IMEM
                self.falloff = True
                return [f"jal x{self.gd()}, LTAIL"]
            if k == 0:
                off = r.choice((imem, imem + 4, 2, 6, -(imem + 4), min(4094, imem + 2)))
                if abs(off) < 4096 and self.chance(0.5):
                    a = self.gs()
                    return [f"beq x{a}, x{a}, {off}"]
                return [f"jal x{self.gd()}, {off}"]
            t = r.randint(1, 31)
            tgt = r.choice((imem, imem + 4, MASK32 - 3, 0x8000_0000, 2, 6, 0x7FE, r.getrandbits(32) | imem,
                            r.randrange(0, imem, 4) + 2))
            if (tgt & ~1) % 4 == 0 and (tgt & ~1) < imem:
                tgt = imem
            return _li(t, tgt) + [f"jalr x{self.gd()}, 0(x{t})"]
        if cls == "BAD_DATA_ADDR":
            k = r.randrange(3)
            op = r.choice(("lw", "sw", "bn.lw", "bn.lw.pi", "bn.sw", "bn.sw.pi"))
            size = 32 if op.startswith("bn.") else 4
            if k == 0:                                  # misaligned
                addr = r.randrange(0, lay.data_end - 32, size) + r.randint(1, size - 1)
                return self.mem_item(op, addr)
            if k == 1:                                  # outside DMEM
                addr = r.choice((lay.dmem_size, lay.dmem_size + size, MASK32 + 1 - size,
                                 0x8000_0000, (r.getrandbits(32) | 0x1_0000) & ~(size - 1)))
                return self.mem_item(op, addr)
            breg = r.randint(1, 31)                     # pointer walks off the end in a loop
            steps = r.randint(1, 4)
            m = r.choice(("bn.lw.pi", "bn.sw.pi"))
            return _li(breg, lay.dmem_size - 32 * steps) + \
                [f"loopi {steps + r.randint(1, 3)}, 1", f"{m} w{self.w()}, 0(x{breg})"]
        if cls == "LOOP":
            k = r.randrange(7)
            body = self.plain_item() + self.plain_item()
            if k == 0:
                return [f"loopi 0, {_ninsns(body)}"] + body
            if k == 1:
                reg = r.randint(1, 31)
                pre = [] if self.chance(0.3) else [f"addi x{reg}, x0, 0"]
                return pre + [f"loop x{reg if pre else 0}, {_ninsns(body)}"] + body
            if k == 2:
                return [r.choice(("loopi 3, 0", "loopi 1023, 0"))] + body
            if k == 3:                                  # 9 or more nested loops
                depth = r.randint(9, 10)
                out = []
                for d in range(depth):
                    out.append(f"loopi {r.randint(1, 2)}, {depth - d + 1}")
                return out + ["addi x1, x1, 1", "addi x2, x2, 1"]
            if k == 4:                                  # control flow as the last body insn
                lab = self.label()
                a = self.gs()
                last = r.choice((f"beq x{a}, x{self.gs()}, {lab}", f"bne x{a}, x{a}, {lab}",
                                 f"jal x{self.gd()}, {lab}", f"jalr x0, {lab}(x0)",
                                 "loopi 2, 1", f"loop x{r.randint(1, 31)}, 1"))
                body = body + [last]
                return [f"loopi {r.randint(1, 3)}, {_ninsns(body)}"] + body + [f"{lab}:", "addi x3, x3, 1"]
            if k == 5:                                  # inner body ends after the outer one
                return ["loopi 2, 2", "loopi 2, 2", "addi x1, x1, 1", "addi x1, x1, 1"]
            # error at depth inside a valid nest: an 8-deep nest, then one more
            return [f"loopi 1, {9 - d}" for d in range(8)] + ["loopi 1, 1", "addi x1, x1, 1"]
        raise ValueError(cls)

    # ------------------------------------------------------------------ program
    def prologue(self) -> list[str]:
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
        lines = ["# prologue"] + self.prologue()
        n = r.randint(cfg.min_items, cfg.max_items)
        if expect == "ecall":
            body, _ = self.block(n, 0, cfg.budget, top=True)
            lines += ["# body"] + body
        else:
            k = r.randint(0, n)
            pre, c = self.block(k, 0, cfg.budget // 2, top=True) if k else ([], 0)
            post, _ = self.block(max(1, n - k), 0, cfg.budget // 2, top=True)
            err = self.error_item(expect)
            if not self.falloff and self.chance(0.3):  # the error inside a loop body
                body = self.plain_item() + err + self.plain_item()
                err = [f"loopi {r.randint(1, 5)}, {_ninsns(body)}"] + body
            lines += ["# body"] + pre + [f"# error construct: {expect}"] + err + post
        lines += ["# epilogue: dump registers"] + self.epilogue()
        if self.falloff:                         # a tail that ends at the last IMEM word
            tail = []
            for _ in range(r.randint(1, 3)):
                tail += self.plain_item()
            if self.chance(0.5):
                body = self.plain_item() + self.plain_item()
                tail += [f"loopi {r.randint(1, 4)}, {_ninsns(body)}"] + body
            pad = cfg.imem_size // 4 - _ninsns(lines) - _ninsns(tail)
            if pad < 0:
                raise _TooLong
            lines += ["# padding up to the tail that runs off the end of IMEM"] \
                + ["addi x0, x0, 0"] * pad + ["LTAIL:"] + tail
        text = "\n".join(s if s.endswith(":") or s.startswith("#") else "    " + s for s in lines) + "\n"
        words = assemble(text, "fuzz.s", self.isa)
        if 4 * len(words) > cfg.imem_size:
            raise _TooLong
        feats = [k for k in ("vmode0", "vmode1", "hazard", "early_ecall") if self.features[k]]
        depth = max([int(k.rsplit("_", 1)[1]) for k in self.features if k.startswith("loop_depth")] or [0])
        desc = f"expect {expect}; {len(words)} words; loop depth {depth}; " + ", ".join(feats)
        return Program(text, words, self.dmem_image(), desc, expect)
