# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""First-order masked re-encryption check of ML-KEM decapsulation (FIPS 203 Alg. 18, c' = c)
on the ACC, in software on today's ISA (issue #38).

The masked re-encryption (masked_encrypt.py) gives u' and v' in two arithmetic shares mod q;
decapsulation must know whether Compress_du(u') || Compress_dv(v') encodes to the ciphertext
c, without ever holding u' or v' (or a compressed coefficient) unmasked. The answer comes out
as one bit in two Boolean shares (ok = ok0 ^ ok1), for the masked selection of K' or K-bar.

How:
* Compress_d(x) = c_i exactly for x in an interval of Z_q: x - lo_i mod q < w_i, with
  lo_i = ceil(q (2 c_i - 1) / 2^(d+1)) mod q and w_i = lo(c_i + 1) - lo(c_i) (c_i = 0's
  interval wraps through 0). Both come from c (public), computed on the ACC per polynomial:
  w_i is w_min or w_min + 1 for each d, so its bits, and those of q + w_i, are constant
  planes or the plane of delta_i = w_i - w_min (or its complement).
* MaskedInterval: the decoding gadget's bitsliced masked adder and borrow chains (masked.py)
  with per-lane constants: share 0 takes the - lo_i, s = y0 + y1 < 2q, and
  ok_i = [s < w_i] ^ [s < q] ^ [s < q + w_i] (over s's intervals as in the decoding). Its
  bits run in hardware loops from DMEM planes (one subroutine for every polynomial and d:
  IMEM would not hold the decoding gadget's unrolled form several times).
* The k + 1 polynomials' 256-bit ok words are ANDed (DOM ANDs with fresh URND words), then the
  256 bits of the result: within each 16-bit lane by shifted copies (8, 4, 2, 1), the 16 lane
  bits gathered into one lane (bn.pk, linear per share), and that lane again. ok's shares are
  bit 240 of OK0 / OK1 (every other bit 0).

`leak` seeds a first-order leak for the assessment's own check: "no_fresh" drops the fresh r
from every DOM AND (as the decoding's).
"""
from ip.acc.kernels.asm_util import li as _li, mem as _m
from ip.acc.kernels.mlkem import codec
from ip.acc.kernels.mlkem.masked import BITS, MaskedDecode, Q, SEP, seed_urnd, wipe
from ip.acc.kernels.mlkem.masked_hash import PRF_SETS

LEAKS = (None, "no_fresh")
DU_DV = {512: (10, 4), 768: (10, 4), 1024: (11, 5)}


def lo_of(c: int, d: int) -> int:
    """Where the interval of the x with Compress_d(x) = c starts: ceil(q (2c - 1) / 2^(d+1))
    mod q (c = 0's interval wraps through 0)."""
    return -((-Q * (2 * c - 1)) // (1 << (d + 1))) % Q


def width(d: int) -> int:
    """w_min: every interval of Compress_d has w_min or w_min + 1 elements."""
    return min(-((-Q * (2 * c + 1)) // (1 << (d + 1))) - -((-Q * (2 * c - 1)) // (1 << (d + 1)))
               for c in range(1 << d))


class MaskedInterval(MaskedDecode):
    """ok_i = [(x0_i + x1_i - lo_i) mod q < w_i] for 256 coefficients, as Boolean shares of one
    word (M0 ^ M1), x0 / x1 at DMEM[x22] / DMEM[x23] (16 words each, lanes < q), lo at
    DMEM[x25] (16 words; LO is the check's own place for them), the chains' constants as 13
    bit planes each at K (w), K + 416 (q), K + 832 (q + w). A subroutine (`body()` between its
    labels, then jalr x0, 0(x28)); every register zeroed at the end. Uses x20, x22, x23, x25."""

    CHAINS = 3

    def __init__(self, leak: str | None = None, base: int = 0):
        if leak not in LEAKS:
            raise ValueError(f"unknown seeded leak {leak!r}")
        self.leak = leak
        self.X0 = base                        # its refresh labels' tag (the inputs come by pointer)
        self.LO = base
        self.K = self.LO + 512
        self.ONES, self.ZERO = self.K + 32 * 13 * self.CHAINS, self.K + 32 * 13 * self.CHAINS + 32
        self.P0 = self.ZERO + 32
        self.P1 = self.P0 + 32 * BITS
        self.M0 = self.P1 + 32 * BITS          # outputs, a public word between
        self.M1 = self.M0 + 64
        self.END = self.M1 + 32
        assert self.END < 16384               # the planes are offsets from x20

    def const_image(self) -> dict:
        """The ONES / ZERO words and q's planes (the middle chain's constant)."""
        qp = b"".join((b"\xff" * 32 if (Q >> j) & 1 else bytes(32)) for j in range(BITS + 1))
        return {self.ONES: b"\xff" * 32, self.ZERO: bytes(32), self.K + 416: qp}

    def _labels(self) -> tuple[str, str]:
        return "masked_interval_begin", "masked_interval_end"

    def _body(self) -> list[str]:
        self._marks = []
        return self._planes_loop("x22", self.P0, True) + self._planes_loop("x23", self.P1, False) + \
            self._adder_chains()

    def _planes_loop(self, ptr: str, dst: int, sub: bool) -> list[str]:
        """The 12 bit planes of one share (share 0 minus lo mod q first), a loop over its 16
        words; w0..w11 collect them, w12 the word, w13 a shifted copy, w15 lo's word."""
        body = [f"bn.lw.pi w12, 0({ptr})"]
        if sub:
            body += ["bn.lw.pi w15, 0(x25)", "bn.subvm w12, w12, w15"]
        body.append("bn.pk w0, w12, w0, 1, 2")
        for j in range(1, BITS):
            body += [f"bn.shrv w13, w12, {j}", f"bn.pk w{j}, w13, w{j}, 1, 2"]
        L = [f"loopi 16, {len(body)}", *body]
        L += [f"bn.sw w{j}, {_m(dst + 32 * j)}" for j in range(BITS)]
        L.append(f"bn.lw w12, {_m(self.ZERO)}")       # the DMEM ports see a public word next
        return L + self._zero_all()

    def _adder_chains(self) -> list[str]:
        """The decoding gadget's adder and borrow chains (masked.py's _add_compare: the same
        registers, DOM ANDs and bus discipline), bit j's planes at offset 32 j from x20, the
        chains stepped per lane (_plane_step) with their planes at K + 416 k."""
        c = ["w0", "w4"]
        borrow = [("w1", "w5"), ("w2", "w6"), ("w3", "w7")]
        a0, a1, g0, g1, n0, n1, r, t = "w8", "w9", "w11", "w10", "w12", "w13", "w14", "w15"
        draw = f"bn.bcast {r}, x0" if self.leak == "no_fresh" else f"bn.wsrr {r}, URND"

        def sec_and(x, y, out):
            return self._sec_and(x, y, out, t, r)

        def blocks(d0, d1):
            return d0 + [SEP] + d1 + [SEP]

        def bit(kind: str) -> list[str]:
            L = []
            s = (a0, a1)
            if kind != "carry":
                L += [f"bn.wsrr {a1}, URND", f"bn.lw {a0}, {self.P0}(x20)", f"bn.xor {a0}, {a0}, {a1}",
                      draw, f"bn.xor {n0}, {a0}, {r}", f"bn.xor {n1}, {a1}, {r}", f"bn.bcast {g0}, x0",
                      f"bn.lw {t}, {_m(self.ZERO)}", f"bn.lw {g0}, {self.P1}(x20)",
                      f"bn.lw {g1}, {self.P1}(x20)", f"bn.lw {t}, {_m(self.ZERO)}",
                      f"bn.xor {a1}, {a1}, {g1}", f"bn.sel {g0}, {n0}, {r}", SEP,
                      f"bn.sel {g1}, {n1}, {r}", SEP] + self._mark((g0, 0), (g1, 1))
                if kind == "mid":
                    L += sec_and((a0, a1), c, (n0, n1))
                    L += blocks([f"bn.xor {g0}, {g0}, {n0}", f"bn.xor {a0}, {a0}, {c[0]}", f"bn.mov {c[0]}, {g0}"],
                                [f"bn.xor {g1}, {g1}, {n1}", f"bn.xor {a1}, {a1}, {c[1]}", f"bn.mov {c[1]}, {g1}"])
                else:
                    L += blocks([f"bn.mov {c[0]}, {g0}"], [f"bn.mov {c[1]}, {g1}"])
            else:
                L += blocks([f"bn.mov {a0}, {c[0]}"], [f"bn.mov {a1}, {c[1]}"])
            for k in range(self.CHAINS):
                L += self._plane_step(kind == "first", s, borrow[k], self.K + 416 * k, sec_and, (n0, n1), g0, t)
            return L

        body = bit("mid") + ["addi x20, x20, 32"]
        L = ["addi x20, x0, 0"] + bit("first") + ["addi x20, x20, 32", f"loopi {BITS - 1}, {len(body)}"] + body
        L += bit("carry")
        # ok = [s < w] ^ [s < q] ^ [s < q + w]; a public word's store between the domains'
        lo, bq, hi = borrow
        L += [f"bn.xor {n0}, {lo[0]}, {bq[0]}", f"bn.xor {n0}, {n0}, {hi[0]}", f"bn.sw {n0}, {_m(self.M0)}",
              f"bn.lw {t}, {_m(self.ZERO)}", f"bn.sw {t}, {_m(self.M0 + 32)}",
              f"bn.xor {n1}, {lo[1]}, {bq[1]}", f"bn.xor {n1}, {n1}, {hi[1]}", f"bn.sw {n1}, {_m(self.M1)}"]
        return L + self._zero_all()

    def _plane_step(self, first, s, b, planes, sec_and, n, tmp, t) -> list[str]:
        """Bit j of a borrow chain whose K differs per lane (its plane j, public, at planes + x20,
        x20 = 32 j): b' = (s & b) ^ (K_j ? ~s : b), linear in the shares once s & b is: share 0
        takes the NOT, the public plane selects (bn.sel reads it as wrd); b starts at 0 (no
        s & b at the first bit). `tmp`: a free register of domain 0.
        A SEP after every load of t: a reader of a load's register in the next cycle stalls
        a cycle with the register's old value on its port (the ACC's operand read), and t's
        old value is of the other domain: the ALU's result would combine the two (the RTL
        power model's `operands` flagged it at once)."""
        k = [f"bn.lw {t}, {planes}(x20)", SEP]
        ones = [f"bn.lw {t}, {_m(self.ONES)}", SEP]
        if first:
            d0 = [f"bn.bcast {b[0]}, x0", *ones, f"bn.xor {tmp}, {s[0]}, {t}",
                  *k, f"bn.sel {t}, {tmp}, {b[0]}", f"bn.mov {b[0]}, {t}"]
            d1 = [f"bn.bcast {b[1]}, x0", *k, f"bn.sel {t}, {s[1]}, {b[1]}", f"bn.mov {b[1]}, {t}"]
            return d0 + [SEP] + d1 + [SEP]
        d0 = [*ones, f"bn.xor {tmp}, {s[0]}, {t}", *k, f"bn.sel {t}, {tmp}, {b[0]}", f"bn.xor {b[0]}, {n[0]}, {t}"]
        d1 = [*k, f"bn.sel {t}, {s[1]}, {b[1]}", f"bn.xor {b[1]}, {n[1]}, {t}"]
        return sec_and(s, b, n) + d0 + [SEP] + d1 + [SEP]

    def subroutine(self) -> list[str]:
        return self.body() + ["jalr x0, 0(x28)"]


class MaskedCompare:
    """The check for one parameter set: u' (k polynomials) and v' in two arithmetic shares, c
    public -> ok in two Boolean shares (bit 240 of OK0 / OK1)."""

    def __init__(self, param: int = 768, leak: str | None = None):
        if param not in PRF_SETS:
            raise ValueError(f"masked re-encryption check: ML-KEM-{param} is not one of 512, 768, 1024")
        self.param, self.k = param, PRF_SETS[param][0]
        self.du, self.dv = DU_DV[param]
        k = self.k
        self.c_len = 32 * (self.du * k + self.dv)
        # ------------------------------------------------------------ DMEM layout (bytes)
        self.X = 0                            # u'_0 .. u'_{k-1}, v': share 0, then share 1 (1 KiB each)
        self.C = self.X + 1024 * (k + 1)
        self.QW = self.C + self.c_len         # public words: q, 1 per lane, per d: 2^(d+1) - 1, w_min
        self.ONE16 = self.QW + 32
        self.KD = {d: self.ONE16 + 32 + 64 * n for n, d in enumerate((self.du, self.dv))}
        self.CD = self.ONE16 + 32 + 128       # c's polynomial decoded (16 words)
        self.DELTA = self.CD + 512            # its delta plane
        self.ACC0, self.ZA, self.ACC1 = (self.DELTA + 32 + 32 * i for i in range(3))
        self.gadget = MaskedInterval(leak, base=self.ACC1 + 32)
        self.dom = MaskedDecode(leak, base=self.ACC0)     # the DOM ANDs between (their labels)
        self.OK0 = self.gadget.END
        self.OK1 = self.OK0 + 64              # a public word between
        self.END = self.OK1 + 32
        assert self.END <= 16384, self.END

    def poly(self, j: int, share: int) -> int:
        return self.X + 1024 * j + 512 * share

    # ------------------------------------------------------------------ host side
    def image(self, u0: list, u1: list, v0: list, v1: list, c: bytes) -> dict:
        """u0 / u1: k lists of 256 coefficients < q each, v0 / v1 one; c the ciphertext."""
        k = self.k
        if len(c) != self.c_len:
            raise ValueError(f"ML-KEM-{self.param} check: c must be {self.c_len} bytes, not {len(c)}")
        for name, polys, n in (("u0", u0, k), ("u1", u1, k), ("v0", [v0], 1), ("v1", [v1], 1)):
            if len(polys) != n or any(len(p) != 256 or not all(0 <= x < Q for x in p) for p in polys):
                raise ValueError(f"ML-KEM-{self.param} check: {name} must be {n} polynomial(s) of 256 "
                                 f"coefficients in [0, {Q})")

        def words(p):
            return b"".join(x.to_bytes(2, "little") for x in p)
        img = {self.C: bytes(c), self.QW: Q.to_bytes(2, "little") * 16, self.ONE16: b"\x01\x00" * 16}
        for j in range(k + 1):
            p0, p1 = (u0[j], u1[j]) if j < k else (v0, v1)
            img[self.poly(j, 0)], img[self.poly(j, 1)] = words(p0), words(p1)
        for d, a in self.KD.items():
            img[a] = ((1 << (d + 1)) - 1).to_bytes(2, "little") * 16
            img[a + 32] = width(d).to_bytes(2, "little") * 16
        img[self.ZA] = bytes(32)
        img[self.OK0 + 32] = bytes(32)
        img.update(self.gadget.const_image())
        return img

    def outputs(self, dmem: bytes) -> tuple[int, int]:
        """(ok0, ok1): the shares' bit 240."""
        return tuple(int.from_bytes(dmem[a:a + 32], "little") >> 240 & 1 for a in (self.OK0, self.OK1))

    def ct_policy(self) -> dict:
        public = {"c": (self.C, self.C + self.c_len), "constants": (self.QW, self.CD),
                  "zero": (self.ZA, self.ZA + 32), "gadget constants": (self.gadget.K + 416, self.gadget.P0),
                  "zero (ok)": (self.OK0 + 32, self.OK0 + 64)}
        return {"secret": {"shares": (self.X, self.C)}, "public": public, "rest": "secret", "allow": []}

    def share_policy(self) -> dict:
        """For the share-domain check: the input polynomials' shares; the gadgets: the interval
        subroutine, each accumulation's DOM AND and the AND tree."""
        from ip.acc.tools.share_check import Gadget
        self.program()                        # the DOM ANDs' refresh labels
        shares = {}
        for j in range(self.k + 1):
            for sh in (0, 1):
                shares[f"poly {j} share {sh}"] = (self.poly(j, sh), self.poly(j, sh) + 512, sh)
        acc = ((self.ACC0, self.ACC0 + 32, (0,)), (self.ACC1, self.ACC1 + 32, (1,)))
        gadgets = [self.gadget.share_gadget()]
        gadgets += [Gadget(f"and_{j}_begin", f"and_{j}_end", acc) for j in range(1, self.k + 1)]
        gadgets.append(Gadget("and_tree_begin", "and_tree_end",
                              ((self.OK0, self.OK0 + 32, (0,)), (self.OK1, self.OK1 + 32, (1,))),
                              tuple(self.dom._marks)))
        return {"shares": shares, "gadgets": gadgets}

    # ------------------------------------------------------------------ program
    def _prep(self, j: int) -> list[str]:
        """Polynomial j's constants from c (public): its coefficients decoded, lo per lane into
        the gadget's LO, the delta plane, and the w / q + w planes (constant planes, delta or
        its complement) at the gadget's K and K + 832."""
        return self.prep_lo(j, self.gadget.LO, self.DELTA, self.CD) + self._planes_of_w(j)

    def prep_planes(self, j: int, delta: int) -> list[str]:
        """The w / q + w planes of polynomial j from its delta plane at DMEM delta."""
        return [f"bn.lw w8, {_m(delta)}"] + self._planes_of_w(j)

    def _planes_of_w(self, j: int) -> list[str]:
        """The w / q + w planes at the gadget's K and K + 832, from delta's plane in w8."""
        d = self.du if j < self.k else self.dv
        g = self.gadget
        # planes: w1 zero, w2 ones, w8 delta, w3 its complement
        L = ["bn.bcast w1, x0", f"bn.lw w2, {_m(g.ONES)}", "bn.xor w3, w8, w2"]
        wmin = width(d)
        for base, lo_val in ((g.K, wmin), (g.K + 832, Q + wmin)):
            for b in range(BITS + 1):
                x, y = (lo_val >> b) & 1, ((lo_val + 1) >> b) & 1
                reg = {(0, 0): "w1", (1, 1): "w2", (0, 1): "w8", (1, 0): "w3"}[(x, y)]
                L.append(f"bn.sw {reg}, {_m(base + 32 * b)}")
        return L

    def prep_lo(self, j: int, lo: int, delta: int, cd: int) -> list[str]:
        """Polynomial j's lo per lane (16 words at DMEM lo) and delta plane (a word at DMEM
        delta) from c (public work): its coefficients decoded into cd (16 words; cd = lo: in
        place, each word read before its lo is written). Uses w0..w13, x5, x6, x25, x26."""
        d = self.du if j < self.k else self.dv
        src = self.C + 32 * self.du * j
        ka = self.KD[d]
        L = codec.decode_unpk(d, src, cd, 16)
        # w0 c, w1 a = 2c + 2^(d+1) - 1, w2 lo', w3 lo'' (for a + 2), w4..w7 temporaries,
        # w8 delta's plane, w9 q, w10 2^(d+1) - 1, w11 w_min, w12 1 per lane, w13 2 per lane
        L += [f"bn.lw w9, {_m(self.QW)}", f"bn.lw w10, {_m(ka)}", f"bn.lw w11, {_m(ka + 32)}",
              f"bn.lw w12, {_m(self.ONE16)}", "bn.addv w13, w12, w12", "bn.bcast w8, x0",
              *_li(26, cd), *_li(25, lo)]

        def ceil(a, out):
            """out = ceil(q a / 2^(d+1)) (< 2^13): the 32-bit product's halves, + 2^(d+1) - 1."""
            return [f"bn.mulv.lo w4, {a}, w9", f"bn.mulv.hi w5, {a}, w9", "bn.addv w6, w4, w10",
                    "bn.ltv w7, w6, w4", "bn.and w7, w7, w12", "bn.addv w5, w5, w7",
                    f"bn.shlv w5, w5, {15 - d}", f"bn.shrv w6, w6, {d + 1}", f"bn.or {out}, w5, w6"]
        body = ["bn.lw.pi w0, 0(x26)", "bn.addv w1, w0, w0", "bn.addv w1, w1, w10", *ceil("w1", "w2"),
                "bn.addv w1, w1, w13", *ceil("w1", "w3"),
                "bn.subv w3, w3, w2", "bn.subv w3, w3, w11",
                "bn.pk w8, w3, w8, 1, 2", "bn.ltv w4, w2, w9", "bn.subv w5, w2, w9", "bn.sel w4, w2, w5",
                "bn.sw.pi w4, 0(x25)"]
        return L + [f"loopi 16, {len(body)}", *body, f"bn.sw w8, {_m(delta)}"]

    def prep_pub(self, j: int, dst: int) -> list[str]:
        """Polynomial j's public words for the stream unit's intm (16 words at DMEM dst, a lane
        lo | delta << 12) from c (public work). With y = (2c - 1) << (15 - d) in a 16-bit lane
        (c = 0 wraps to 2^(d+1) - 1, which gives lo = q - floor(q / 2^(d+1)) = lo(0)),
        h = bn.mulv.hi(y, q) = floor(q (2c - 1) / 2^(d+1)); q (2c - 1) is odd, so the ceil
        is h + 1: lo = h + 1 mod q. The next interval's h' from y + 2^(16 - d), and its
        length w = h' - h mod q. One product a value instead of lo_of's 32-bit product and
        its rounding in halves. Uses w0..w13, x5, x6, x25."""
        d = self.du if j < self.k else self.dv
        L = codec.decode_unpk(d, self.C + 32 * self.du * j, dst, 16, shift=16 - d)
        # w9 q, w10 2^(15-d), w11 2^(16-d), w12 1, w13 w_min per lane
        L += [f"bn.lw w9, {_m(self.QW)}", *_li(5, 1 << (15 - d)), "bn.bcast w10, x5", *_li(5, 1 << (16 - d)),
              "bn.bcast w11, x5", f"bn.lw w12, {_m(self.ONE16)}", f"bn.lw w13, {_m(self.KD[d] + 32)}",
              "addi x5, x0, 0", *_li(25, dst)]
        body = ["bn.lw w0, 0(x25)", "bn.subv w1, w0, w10", "bn.mulv.hi w2, w1, w9", "bn.addv w1, w1, w11",
                "bn.mulv.hi w3, w1, w9", "bn.addvm w4, w2, w12", "bn.subvm w5, w3, w2", "bn.subv w5, w5, w13",
                "bn.shlv w5, w5, 12", "bn.or w5, w5, w4", "bn.sw.pi w5, 0(x25)"]
        return L + [f"loopi 16, {len(body)}", *body]

    def _accumulate(self, j: int) -> list[str]:
        """ACC = M (polynomial 0) or ACC & M (a DOM AND), domain by domain, public words between
        on the DMEM ports (the gadget's last store was M1's: a public store first). A gadget
        region of its own (and_j) for j > 0."""
        g = self.gadget
        if j == 0:
            return ["bn.bcast w0, x0", f"bn.sw w0, {_m(self.ZA)}", f"bn.lw w1, {_m(g.M0)}",
                    f"bn.sw w1, {_m(self.ACC0)}", f"bn.lw w3, {_m(self.ZA)}", f"bn.sw w3, {_m(self.ZA)}",
                    f"bn.lw w2, {_m(g.M1)}", f"bn.sw w2, {_m(self.ACC1)}", f"bn.lw w3, {_m(self.ZA)}",
                    f"bn.sw w3, {_m(self.ZA)}", *wipe("w1", "w2")]
        L = [f"and_{j}_begin:", f"bn.lw w1, {_m(self.ACC0)}", f"bn.lw w3, {_m(g.M0)}", f"bn.lw w0, {_m(self.ZA)}",
             f"bn.lw w2, {_m(self.ACC1)}", f"bn.lw w4, {_m(g.M1)}", f"bn.lw w0, {_m(self.ZA)}"]
        L += self.dom._sec_and(("w1", "w2"), ("w3", "w4"), ("w5", "w6"), "w15", "w14")
        L += [f"bn.sw w0, {_m(self.ZA)}", f"bn.sw w5, {_m(self.ACC0)}", f"bn.sw w0, {_m(self.ZA)}",
              f"bn.sw w6, {_m(self.ACC1)}", f"bn.sw w0, {_m(self.ZA)}",
              *wipe(*(f"w{i}" for i in range(1, 7)), "w14", "w15"), f"and_{j}_end:"]
        return L

    def _tree(self) -> list[str]:
        """ACC's 256 bits ANDed into bit 240 of OK0 / OK1."""
        x, y, z, t, r = ("w1", "w2"), ("w3", "w4"), ("w5", "w6"), "w15", "w14"

        def reduce_lanes():
            L = []
            for sh in (8, 4, 2, 1):
                L += [f"bn.shrv {y[0]}, {x[0]}, {sh}", SEP, f"bn.shrv {y[1]}, {x[1]}, {sh}", SEP]
                # t's last cross term is masked by this r, the next AND's first value in t (y's
                # share 1) too: zeroed between, or t's change would cancel r
                L += self.dom._sec_and(x, y, z, t, r) + wipe(t)
                L += [f"bn.mov {x[0]}, {z[0]}", SEP, f"bn.mov {x[1]}, {z[1]}", SEP]
            return L
        L = [f"bn.lw {x[0]}, {_m(self.ACC0)}", f"bn.lw w0, {_m(self.ZA)}", f"bn.lw {x[1]}, {_m(self.ACC1)}",
             f"bn.lw w0, {_m(self.ZA)}"]
        L += reduce_lanes()
        # bit 0 of each lane into lane 15 (bn.pk: linear, share by share), then that lane
        L += ["bn.bcast w7, x0", f"bn.pk {x[0]}, {x[0]}, w7, 1, 2", SEP, f"bn.pk {x[1]}, {x[1]}, w7, 1, 2", SEP]
        L += reduce_lanes()
        # lanes 0 .. 14 are 0 since the bn.pk: bit 0 of each lane leaves bit 240 alone
        L += [f"bn.lw w7, {_m(self.ONE16)}", f"bn.and {x[0]}, {x[0]}, w7", SEP, f"bn.and {x[1]}, {x[1]}, w7", SEP,
              f"bn.sw {x[0]}, {_m(self.OK0)}", f"bn.sw w0, {_m(self.OK0 + 32)}", f"bn.sw {x[1]}, {_m(self.OK1)}"]
        return ["and_tree_begin:"] + L + wipe(*(f"w{i}" for i in range(16))) + ["and_tree_end:"]

    def interval_program(self, j: int) -> str:
        """Polynomial j's check alone, its per-coefficient ok word left in the gadget's M0 / M1
        (the tests' view of every coefficient)."""
        L = ["csrrw x0, VMODE, x0", *seed_urnd(), *self._prep(j), *_li(22, self.poly(j, 0)),
             *_li(23, self.poly(j, 1)), *_li(25, self.gadget.LO), "jal x28, masked_interval", "ecall",
             "masked_interval:"]
        return "\n".join(L + self.gadget.subroutine()) + "\n"

    def program(self) -> str:
        return "\n".join(["csrrw x0, VMODE, x0", *seed_urnd()] + self.body() + ["ecall"] + self.tail()) + "\n"

    def tail(self) -> list[str]:
        """What follows the ecall: the interval gadget's subroutine."""
        return ["masked_interval:"] + self.gadget.subroutine()

    def body(self, prepared: dict | None = None) -> list[str]:
        """VMODE 0, URND seeded -> ok's shares at OK0 / OK1; every register zeroed (the inputs,
        the planes and the accumulator stay: the caller's wipe). prepared: {j: (lo, delta)}
        of the polynomials whose lo and delta plane prep_lo wrote earlier (the caller's
        schedule), the others' here."""
        self.dom._marks = []
        L = []
        for j in range(self.k + 1):
            if prepared and j in prepared:
                lo, delta = prepared[j]
                L += self.prep_planes(j, delta)
            else:
                lo = self.gadget.LO
                L += self._prep(j)
            L += _li(22, self.poly(j, 0)) + _li(23, self.poly(j, 1)) + _li(25, lo) + ["jal x28, masked_interval"]
            L += self._accumulate(j)
        return L + self._tree()


class MaskedSelect:
    """Decapsulation's last step on shares (FIPS 203 Alg. 18: K' if c' = c, else K-bar): from the
    check's ok (bit 240 of OK0 / OK1), K' (from the masked G) and K-bar (from the masked J), all
    in two Boolean shares, K = K-bar ^ (ok & (K' ^ K-bar)) in two Boolean shares (K0 / K1: the
    caller combines them; nothing here holds K, ok or either key unmasked). ok's bit becomes a
    word of 256 equal bits share by share (bn.bcastl of lane 15, then 0 - it per lane: linear),
    the AND is a DOM AND with a fresh URND word. Layout from `base`: the shares of each value
    with a public zero word between them."""

    def __init__(self, base: int = 0):
        self.OK0, self.Z0, self.OK1 = base, base + 32, base + 64
        self.KP0, self.Z1, self.KP1 = base + 96, base + 128, base + 160
        self.KB0, self.Z2, self.KB1 = base + 192, base + 224, base + 256
        self.K0, self.Z3, self.K1 = base + 288, base + 320, base + 352
        self.END = base + 384
        self.dom = MaskedDecode(base=base)            # the DOM AND's refresh labels

    def image(self, ok0: int, ok1: int, kp0: bytes, kp1: bytes, kb0: bytes, kb1: bytes) -> dict:
        for name, v in (("kp0", kp0), ("kp1", kp1), ("kb0", kb0), ("kb1", kb1)):
            if len(v) != 32:
                raise ValueError(f"{name}: 32 bytes expected, got {len(v)}")
        if ok0 not in (0, 1) or ok1 not in (0, 1):
            raise ValueError("ok0, ok1: one bit each")
        img = {self.OK0: (ok0 << 240).to_bytes(32, "little"), self.OK1: (ok1 << 240).to_bytes(32, "little"),
               self.KP0: kp0, self.KP1: kp1, self.KB0: kb0, self.KB1: kb1}
        img.update({z: bytes(32) for z in (self.Z0, self.Z1, self.Z2, self.Z3)})
        return img

    def outputs(self, dmem: bytes) -> tuple[bytes, bytes]:
        return dmem[self.K0:self.K0 + 32], dmem[self.K1:self.K1 + 32]

    def ct_policy(self) -> dict:
        return {"secret": {"inputs": (self.OK0, self.K0)},
                "public": {f"zero {i}": (z, z + 32) for i, z in enumerate((self.Z0, self.Z1, self.Z2, self.Z3))},
                "rest": "secret", "allow": []}

    def share_policy(self) -> dict:
        from ip.acc.tools.share_check import Gadget
        self.body()
        shares = {}
        for name, a0, a1 in (("ok", self.OK0, self.OK1), ("K'", self.KP0, self.KP1), ("K-bar", self.KB0, self.KB1)):
            shares[f"{name} share 0"], shares[f"{name} share 1"] = (a0, a0 + 32, 0), (a1, a1 + 32, 1)
        return {"shares": shares,
                "gadgets": [Gadget("select_and_begin", "select_and_end", (), tuple(self.dom._marks))]}

    def program(self) -> str:
        return "\n".join(["csrrw x0, VMODE, x0", *seed_urnd()] + self.body() + ["ecall"]) + "\n"

    def body(self) -> list[str]:
        """Shares at OK / KP / KB -> K0, K1; every register zeroed. Domain 0 in w1 (ok's mask),
        w3 (K' ^ K-bar), w5 (K-bar); domain 1 in w2, w4, w6; each block's loads read a cycle
        after they land (SEP: a stalled reader would show a register's old value)."""
        self.dom._marks = []

        def block(s: int) -> list[str]:
            m, d, kb = (("w1", "w3", "w5"), ("w2", "w4", "w6"))[s]
            ok, kp, kbar = ((self.OK0, self.KP0, self.KB0), (self.OK1, self.KP1, self.KB1))[s]
            return [f"bn.lw {m}, {_m(ok)}", f"bn.lw {d}, {_m(kp)}", f"bn.lw {kb}, {_m(kbar)}",
                    f"bn.bcastl {m}, {m}, 15", SEP, f"bn.subv {m}, w0, {m}", SEP,
                    f"bn.xor {d}, {d}, {kb}", SEP]
        L = ["bn.bcast w0, x0", f"bn.lw w7, {_m(self.Z0)}"] + block(0) + [f"bn.lw w7, {_m(self.Z1)}"] + block(1)
        L += ["select_and_begin:"] + self.dom._sec_and(("w1", "w2"), ("w3", "w4"), ("w8", "w9"), "w15", "w14")
        L += ["select_and_end:", "bn.xor w5, w5, w8", SEP, f"bn.sw w5, {_m(self.K0)}",
              f"bn.lw w7, {_m(self.Z3)}", f"bn.sw w7, {_m(self.Z3)}", "bn.xor w6, w6, w9", SEP,
              f"bn.sw w6, {_m(self.K1)}"]
        return L + wipe(*(f"w{i}" for i in range(16)))
