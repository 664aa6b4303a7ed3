# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""First-order masked gadgets for ML-KEM on the ACC (issue #38), in software on today's ISA.

The first one is the message decoding of decapsulation: m = ByteEncode_1(Compress_1(x)) of a
polynomial x given in two arithmetic shares mod q (x = x0 + x1 mod q), returning m in two
Boolean shares (m = m0 ^ m1), with no value that depends on both shares of a secret ever in
a register, a memory port or an instruction result (first order; docs/side_channels.md).

How (bitsliced: one 256-bit word is one bit of all 256 coefficients):
* Compress_1(x) = 1 iff x - 833 mod q < 1664 (the unmasked program's test). Share 0 takes
  the - 833 (mod q, linear), so y = y0 + y1 mod q with y0 = x0 - 833, y1 = x1.
* Each share is turned into 12 bit planes on its own (`bn.pk` with d = 1 gathers bit j of the
  16 lanes of a word; 16 words make the plane, coefficient i at bit i: the natural order of
  ByteEncode_1). y0's planes are refreshed with fresh URND words R (Boolean shares
  (y0 ^ R, R)), y1's stand as (0, y1).
* A masked ripple-carry adder gives s = y0 + y1 (13 bits, s < 2q) in Boolean shares, bit
  by bit, and three masked borrow chains compare s with public constants as the bits come:
  y mod q < 1664 iff s < 1664 or q <= s < q + 1664. Over s's four intervals [0, 1664),
  [1664, q), [q, q + 1664), [q + 1664, 2q) the borrows [s < 1664], [s < q], [s < q + 1664]
  are 111, 011, 001, 000, so m = their XOR: no AND at the end.
* Every AND of shared values is a DOM AND with a fresh URND word r:
  (a & b)_0 = a0 & b0 ^ (a0 & b1 ^ r), (a & b)_1 = a1 & b1 ^ (a1 & b0 ^ r).

Register discipline (what the t-test checks; a register's Hamming distance from its last
value is what the power model sees):
* domain-0 values live in domain-0 registers, domain-1 values in domain-1 registers, so an
  overwrite never puts the two shares of one value side by side;
* the cross term register holds a0 & b1 or a1 & b0 only until the r is added, and is
  overwritten only by a value masked with a fresh r;
* between the two shares' bit-plane passes every register is zeroed, and DMEM accesses of
  the two domains are separated by an access of a public word.

Cycles and the leakage assessment: docs/side_channels.md.
"""
from ip.acc.kernels.asm_util import mem

Q = 3329
BITS = 12                 # x0, x1 < q < 2^12
LOW, HIGH = 1664, Q + 1664
_COMPARE = (LOW, Q, HIGH)     # borrow chains: [s < K]
LEAKS = (None, "sum", "no_fresh")


def seed_urnd(reg: str = "w0") -> list[str]:
    """URND seeded from the 256 bits of the host's entropy in RND's pool; the register wiped."""
    return [f"bn.wsrr {reg}, RND", f"bn.wsrw URND, {reg}", *wipe(reg)]


# a cycle that reads no wide register and writes nothing: the buses carry 0 in it
SEP = "addi x0, x0, 0"


def wipe(*regs: str) -> list[str]:
    """Zero WDRs without reading them: bn.bcast from x0 reads no wide port, where an XOR of a
    register with itself would put it on two ports, next to what they carried before
    (ip/acc/tools/share_check.py's transitions)."""
    return [f"bn.bcast {r}, x0" for r in regs]


def flush(zero: int, scratch: int) -> list[str]:
    """Between one share's pass and the other's (docs/side_channels.md): every WDR zeroed, the
    multiplier's stage and holding registers (which keep the last multiplier op's operands
    and results) flushed by two multiplies of zeros, and a public load (the zero word at
    `zero`) and store (at `scratch`) on the DMEM ports."""
    L = [f"bn.xor w{i}, w{i}, w{i}" for i in range(16)]
    L += ["bn.mulvm w1, w0, w0", "bn.mulvm w2, w0, w0", f"bn.lw w3, {mem(zero)}", f"bn.sw w0, {mem(scratch)}"]
    return L + [f"bn.xor w{i}, w{i}, w{i}" for i in range(1, 4)]


def _bits(k: int) -> list[int]:
    return [(k >> j) & 1 for j in range(BITS + 1)]


class MaskedDecode:
    """m = ByteEncode_1(Compress_1(x0 + x1 mod q)) as (m0, m1) on the ACC.

    Standalone program (DMEM layout below): the inputs are the two shares, 16 words each,
    coefficient i at byte 2i (16-bit lanes, values < q); the outputs two 32-byte words.
    `leak` seeds a first-order leak, for the assessment's own check: "sum" adds the input
    shares (x itself) in a register at the start; "no_fresh" drops the fresh r from every DOM
    AND (a0 & b0 ^ a0 & b1 = a0 & b: one share and the unmasked b together)."""

    def __init__(self, leak: str | None = None, base: int = 0):
        if leak not in LEAKS:
            raise ValueError(f"unknown seeded leak {leak!r}")
        self.leak = leak
        # DMEM layout from `base` (a program that embeds the gadget gives its own)
        self.X0, self.X1 = base, base + 512                      # input shares, 16 words each
        self.C833, self.ONES, self.ZERO = base + 1024, base + 1056, base + 1088   # public words
        self.P0 = base + 1120                                    # the shares' bit planes
        self.P1 = self.P0 + 32 * BITS
        self.M0 = self.P1 + 32 * BITS                            # outputs, a public word between
        self.M1 = self.M0 + 64
        self.END = self.M1 + 32

    # ------------------------------------------------------------------ host side
    def image(self, x0: list[int], x1: list[int]) -> dict:
        """DMEM blobs for the shares x0, x1 (256 coefficients each, in [0, q))."""
        for name, x in (("x0", x0), ("x1", x1)):
            if len(x) != 256 or not all(0 <= c < Q for c in x):
                raise ValueError(f"{name}: 256 coefficients in [0, {Q}) expected")
        def words(x):
            return b"".join(c.to_bytes(2, "little") for c in x)
        return {self.X0: words(x0), self.X1: words(x1), **self.const_image()}

    def outputs(self, dmem: bytes) -> tuple[bytes, bytes]:
        return dmem[self.M0:self.M0 + 32], dmem[self.M1:self.M1 + 32]

    # ------------------------------------------------------------------ program
    def const_image(self) -> dict:
        return {self.C833: (833).to_bytes(2, "little") * 16, self.ONES: b"\xff" * 32,
                self.ZERO: bytes(32)}

    def program(self) -> str:
        """The standalone program: URND seeded from the host's entropy, the gadget, ecall."""
        return "\n".join(["csrrw x0, VMODE, x0"] + seed_urnd() + self.body() + ["ecall"]) + "\n"

    def body(self) -> list[str]:
        """The gadget (VMODE 0, URND seeded): shares at X0 / X1 -> m0, m1 at M0 / M1; every
        register zero at the end; the planes stay in DMEM (the caller's wipe). Between the
        labels of share_gadget() (the share-domain check's gadget)."""
        begin, end = self._labels()
        return [f"{begin}:"] + self._body() + [f"{end}:"]

    def _labels(self) -> tuple[str, str]:
        tag = f"masked_decode_{self.X0}"
        return f"{tag}_begin", f"{tag}_end"

    def share_gadget(self):
        """The gadget for ip/acc/tools/share_check.py: its labels, m0 / m1 as the outputs of
        domain 0 / 1, and the registers each DOM AND leaves a fresh sharing in."""
        from ip.acc.tools.share_check import Gadget
        self._body()                 # its refresh labels, as the program has them
        return Gadget(*self._labels(),
                      ((self.M0, self.M0 + 32, (0,)), (self.M1, self.M1 + 32, (1,))),
                      tuple(self._marks))

    def share_policy(self) -> dict:
        """For the share-domain check of the standalone program: the input shares, the gadget."""
        return {"shares": {"x0": (self.X0, self.X0 + 512, 0), "x1": (self.X1, self.X1 + 512, 1)},
                "gadgets": [self.share_gadget()]}

    def _body(self) -> list[str]:
        self._marks = []
        L = []
        if self.leak == "sum":
            for r in range(16):
                L += [f"bn.lw w8, {mem(self.X0 + 32 * r)}", f"bn.lw w9, {mem(self.X1 + 32 * r)}",
                      "bn.addvm w10, w8, w9"]
            L += self._zero_all()
        L += self._planes(self.X0, self.P0, sub833=True)
        L += self._planes(self.X1, self.P1, sub833=False)
        return L + self._add_compare()

    def _zero_all(self) -> list[str]:
        return wipe(*(f"w{i}" for i in range(16)))

    def _planes(self, src: int, dst: int, sub833: bool) -> list[str]:
        """The 12 bit planes of one share: w0..w11 collect them (bn.pk appends 16 bits per
        word, the first word's at the bottom after 16), w12 the word, w13 a shifted copy,
        w15 the constant 833. Every register zeroed at the end."""
        L = [f"bn.lw w15, {mem(self.C833)}"] if sub833 else []
        for r in range(16):
            L.append(f"bn.lw w12, {mem(src + 32 * r)}")
            if sub833:
                L.append("bn.subvm w12, w12, w15")
            for j in range(BITS):
                if j == 0:
                    L.append(f"bn.pk w{j}, w12, w{j}, 1, 2")
                else:
                    L += [f"bn.shrv w13, w12, {j}", f"bn.pk w{j}, w13, w{j}, 1, 2"]
        for j in range(BITS):
            L.append(f"bn.sw w{j}, {mem(dst + 32 * j)}")
        L.append(f"bn.lw w12, {mem(self.ZERO)}")      # the DMEM ports see a public word next
        return L + self._zero_all()

    def _mark(self, *regs_doms) -> list[str]:
        """A label after which the registers hold a fresh sharing's shares (the DOM AND's
        claim; share_check.Gadget.refresh)."""
        lab = f"masked_decode_{self.X0}_r{len(self._marks)}"
        self._marks.append((lab, tuple(regs_doms)))
        return [f"{lab}:"]

    def _sec_and(self, x, y, out, t, r) -> list[str]:
        """out = x & y, DOM with one fresh r: out0 = x0 & y0 ^ (x0 & y1 ^ r), out1 =
        x1 & y1 ^ (x1 & y0 ^ r). A cross term is made masked in one instruction,
        bn.sel t, x ^ r, r with t = y's other share (t ? x ^ r : r), so no bus or register
        ever holds x0 & y1 unmasked; out's registers are neither x's nor y's; x, y kept."""
        draw = f"bn.bcast {r}, x0" if self.leak == "no_fresh" else f"bn.wsrr {r}, URND"
        return [f"bn.mov {t}, {y[1]}", draw,
                f"bn.xor {out[0]}, {x[0]}, {r}", SEP,
                f"bn.sel {t}, {out[0]}, {r}",
                f"bn.and {out[0]}, {x[0]}, {y[0]}",
                f"bn.xor {out[0]}, {out[0]}, {t}",
                f"bn.mov {t}, {y[0]}", SEP,
                f"bn.xor {out[1]}, {x[1]}, {r}", SEP,
                f"bn.sel {t}, {out[1]}, {r}",
                f"bn.and {out[1]}, {x[1]}, {y[1]}",
                f"bn.xor {out[1]}, {out[1]}, {t}", SEP] + \
            self._mark((out[0], 0), (out[1], 1))

    def _add_compare(self) -> list[str]:
        """The masked adder and the three borrow chains, one bit a step (registers: see the
        table in the body). Bus discipline (what share_check's transitions and the power
        model's buses ask): the instructions of one domain run in a block; a SEP, a load or a
        URND read (no wide port read, nothing secret on the write-back bus) stands between
        blocks of different domains, so no read port, write-back bus or DMEM port carries a
        share of one domain right after one of the other."""
        # domain 0: c0 w0, borrows w1..w3, s0 / a0 w8, g0 w11, n0 w12
        # domain 1: c1 w4, borrows w5..w7, s1 / a1 w9, g1 w10, n1 w13
        # fresh: r w14; t w15 (a selector, then a masked cross term)
        c = ["w0", "w4"]
        borrow = [("w1", "w5"), ("w2", "w6"), ("w3", "w7")]
        a0, a1, g0, g1, n0, n1, r, t = "w8", "w9", "w11", "w10", "w12", "w13", "w14", "w15"
        kbits = [_bits(k) for k in _COMPARE]
        started = [False] * 3
        draw = f"bn.bcast {r}, x0" if self.leak == "no_fresh" else f"bn.wsrr {r}, URND"
        L = []

        def sec_and(x, y, out):
            return self._sec_and(x, y, out, t, r)

        def blocks(d0, d1):
            """Domain 0's instructions, then domain 1's, a SEP after each."""
            return d0 + [SEP] + d1 + [SEP]

        for j in range(BITS + 1):
            s = (a0, a1)
            if j < BITS:
                # a = (y0_j ^ R, R), b = (0, y1_j): p = a ^ b = (a0, R ^ y1_j), g = a & b:
                # g0 = y1_j ? a0 ^ r : r, g1 = y1_j ? R ^ r : r (the cross terms' form above)
                L += [f"bn.wsrr {a1}, URND",
                      f"bn.lw {a0}, {mem(self.P0 + 32 * j)}",
                      f"bn.xor {a0}, {a0}, {a1}",
                      draw,
                      f"bn.xor {n0}, {a0}, {r}",
                      f"bn.xor {n1}, {a1}, {r}",
                      f"bn.bcast {g0}, x0",
                      f"bn.lw {t}, {mem(self.ZERO)}",          # a public word between the domains
                      f"bn.lw {g0}, {mem(self.P1 + 32 * j)}",
                      f"bn.lw {g1}, {mem(self.P1 + 32 * j)}",
                      f"bn.lw {t}, {mem(self.ZERO)}",          # and before the next bit's P0
                      f"bn.xor {a1}, {a1}, {g1}",              # p1 = R ^ y1_j
                      f"bn.sel {g0}, {n0}, {r}", SEP,
                      f"bn.sel {g1}, {n1}, {r}", SEP] + self._mark((g0, 0), (g1, 1))
                # s = p ^ c; carry' = g ^ (p & c), into c's registers (g's are the next bit's)
                if j > 0:
                    L += sec_and((a0, a1), c, (n0, n1))
                    L += blocks([f"bn.xor {g0}, {g0}, {n0}", f"bn.xor {a0}, {a0}, {c[0]}",
                                 f"bn.mov {c[0]}, {g0}"],
                                [f"bn.xor {g1}, {g1}, {n1}", f"bn.xor {a1}, {a1}, {c[1]}",
                                 f"bn.mov {c[1]}, {g1}"])
                else:
                    L += blocks([f"bn.mov {c[0]}, {g0}"], [f"bn.mov {c[1]}, {g1}"])
            else:
                # s_12 = the carry out
                L += blocks([f"bn.mov {a0}, {c[0]}"], [f"bn.mov {a1}, {c[1]}"])
            # borrow chains: b' = ~s & b (K_j = 0) or ~s | b = ~s ^ (s & b) (K_j = 1)
            for k, bits in enumerate(kbits):
                b = borrow[k]
                if not started[k]:
                    if bits[j]:
                        L += [f"bn.lw {t}, {mem(self.ONES)}"]
                        L += blocks([f"bn.xor {b[0]}, {s[0]}, {t}", f"bn.bcast {t}, x0"],
                                    [f"bn.mov {b[1]}, {s[1]}"])
                        started[k] = True
                    continue
                L += sec_and(s, b, (n0, n1))
                if bits[j]:
                    L += [f"bn.lw {t}, {mem(self.ONES)}"]
                    L += blocks([f"bn.xor {b[0]}, {n0}, {s[0]}", f"bn.xor {b[0]}, {b[0]}, {t}",
                                 f"bn.bcast {t}, x0"],
                                [f"bn.xor {b[1]}, {n1}, {s[1]}"])
                else:
                    L += blocks([f"bn.xor {b[0]}, {b[0]}, {n0}"], [f"bn.xor {b[1]}, {b[1]}, {n1}"])
        # m = [s < LOW] ^ [s < q] ^ [s < HIGH] (the module's docstring); a public word's
        # store between the two domains' on the DMEM write port
        lo, bq, hi = borrow
        L += [f"bn.xor {n0}, {lo[0]}, {bq[0]}", f"bn.xor {n0}, {n0}, {hi[0]}",
              f"bn.sw {n0}, {mem(self.M0)}",
              f"bn.lw {t}, {mem(self.ZERO)}", f"bn.sw {t}, {mem(self.M0 + 32)}",
              f"bn.xor {n1}, {lo[1]}, {bq[1]}", f"bn.xor {n1}, {n1}, {hi[1]}",
              f"bn.sw {n1}, {mem(self.M1)}"]
        return L + self._zero_all()
