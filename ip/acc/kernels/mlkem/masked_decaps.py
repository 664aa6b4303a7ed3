# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""First-order masked ML-KEM decapsulation (FIPS 203 Alg. 18, ML-KEM.Decaps_internal) on the
ACC as one program, for ML-KEM-512 / -768 / -1024, in the taped-out 16 KiB IMEM and DMEM
(issue #38).

The secret parts of dk come in two shares: s_hat in arithmetic shares mod q (each share 256 k
coefficients, 16 bits each, in the natural order: the form ByteDecode_12 gives), z in two
Boolean shares; ek, H(ek) and c are public. K comes out in two Boolean shares (K = K0 ^ K1).
The pieces, each checked on its own (their modules), run in this order:

1. H(ek) (SHA3-256 of the public ek, unmasked) compared with dk's copy (FIPS 203 7.3): the
   number of differing lanes into the status slot, no branch.
2. K-bar = J(z || c) through the KMAC's masked mode (z as one two-share word, c public: the
   sequence of masked_hash.MaskedJ), its digest read after step 3.
3. m' = K-PKE.Decrypt: the ciphertext's part once (ByteDecode, Decompress, NTT of u;
   Decompress of v), then per share w_i = INTT(s_i o u_hat) (the re-encryption's NTT,
   product and INTT subroutines), x0 = Decompress(v) - w0, x1 = -w1 (one polynomial's two
   shares, x1 right after x0), and the message bits m'_i = [x0_i + x1_i - 833 mod q < 1664]
   by the stream unit's masked interval mode (smp.run intm, ip/acc/iss/masked_interval.py).
   H's and J's message words go to the KMAC between the chunks of this step, a rate block
   before a chunk (H's before each, J's where they wait least for the permutation before:
   _spaced), so the permutations run beside the core's work; J's last blocks, and (512, 768)
   the public words of step 6's first polynomial, while the unit decodes.
4. (K', r') = G(m' || h): masked_hash.MaskedG; step 3's share buffers zeroed beside it.
5. u', v' in arithmetic shares: masked_encrypt.MaskedEncrypt's schedule (its noise jobs beside
   the core's share work).
6. ok = [Compress(u', v') encodes to c] in Boolean shares: masked_compare.MaskedCompare's
   check with intm for each polynomial's intervals (their public words prepared in y's space
   while the unit works on the polynomial before; the first one's in step 3, or, ML-KEM-1024,
   here first); beside the intm jobs, what nothing reads any more is zeroed (dead, _wipes).
7. K = K-bar ^ (ok & (K' ^ K-bar)) in shares: masked_compare.MaskedSelect; both shares zeroed
   (a public mask) and status DK_HASH_MISMATCH if step 1 found a difference.
8. The rest of DMEM zeroed but K's shares, the status slot, c and the constant tables; every
   register zeroed.

Between the pieces, every buffer that held shares and is reused by the next piece is zeroed
first (a share-1 word written over a share-0 one would show both in the cells that flip,
docs/side_channels.md), and the registers are zeroed (each piece ends so).

DMEM layout (one set of addresses for the whole program; the pieces' own layouts are replaced
by it, attribute by attribute, in __init__): public words and the small shared values first
(P), then c, then the re-encryption's buffers (Y, U, V, NT, RB of MaskedEncrypt), then (512,
768) the check's first polynomial's public words. The earlier pieces live in the
re-encryption's space before it runs: the masked key (s_hat's shares in Y, then ek, H(ek),
z's shares at U: ek's t_hat encoding is read by the re-encryption's first public chunk,
before anything writes U), u_hat, Decompress(v) and w after it; the check's buffers and intm's output words at NT (free
during the decryption, reused after the re-encryption). ML-KEM-1024 ends at 16 160 bytes.
"""
import itertools

from ip.acc.kernels.asm_util import gaps, li as _li, mem as _m, zero_dmem
from ip.acc.kernels.mlkem import basemul, codec, ntt, status
from ip.acc.kernels.mlkem.codec import absorb_loop, u16 as _u16
from ip.acc.kernels.mlkem.keygen import SHA3_256
from ip.acc.kernels.mlkem.masked import MaskedDecode, Q, SEP, seed_urnd, wipe
from ip.acc.kernels.mlkem.masked_compare import DU_DV, MaskedCompare, MaskedSelect, width
from ip.acc.kernels.mlkem.masked_encrypt import MONT_1665, MaskedEncrypt
from ip.acc.kernels.mlkem.masked_hash import PRF_SETS, SHAKE256_MASKED, MaskedG

DECODE_LO, DECODE_W = 833, 1664     # Compress_1(x) = 1 iff x - 833 mod q < 1664
MASKED_PERMUTATION = 97             # cycles of the KMAC's masked Keccak-f (ip/kmac/rtl/keccak_masked.py)


class MaskedDecaps:
    """The program, its DMEM layout and image for one parameter set (512, 768, 1024)."""

    def __init__(self, param: int = 768):
        if param not in PRF_SETS:
            raise ValueError(f"masked ML-KEM decapsulation: ML-KEM-{param} is not one of 512, 768, 1024")
        self.param = param
        k = self.k = PRF_SETS[param][0]
        self.du, self.dv = DU_DV[param]
        self.c_len = 32 * (self.du * k + self.dv)
        self.ek_len = 384 * k + 32
        self.dk_len = 768 * k + 96
        # ------------------------------------------------------------ P: public words, small values
        self.TWID, self.ITWID, self.ISCALE, self.BMC, self.K1665 = 0, 256, 512, 544, 832
        self.QW, self.ONE16 = 864, 896                       # q, 1 per lane (the check's)
        self.KD = {d: 928 + 64 * n for n, d in enumerate((self.du, self.dv))}
        words = ["STATUS", "SCRATCH", "ZW", "RHO", "R0", "ZR", "R1", "NW", "M0", "ZM", "M1"]
        for i, name in enumerate(words):                     # each share between public words
            setattr(self, name, 1056 + 32 * i)
        self.SEL = 1056 + 32 * len(words)
        self.select = MaskedSelect(base=self.SEL)
        self.C = self.select.END
        self.C_V = self.C + 32 * self.du * k
        # ------------------------------------------------------------ the re-encryption's space
        self.Y = self.C + self.c_len
        self.U = self.Y + 1024 * k
        self.V = self.U + 1024 * k
        self.NT = self.V + 1024
        self.RB = self.NT + 1024
        # the earlier pieces in it (module docstring); the masked key in one piece (mdk):
        # s_hat's shares (512 k bytes each) | ek (t_hat encoding | rho) | H(ek) | z's shares
        self.MDK = self.Y
        self.S = (self.Y, self.Y + 512 * k)
        self.TENC = self.U                                   # = Y + 1024 k
        self.RHO_IN = self.TENC + 384 * k                    # copied to RHO (U is u''s)
        self.H = self.RHO_IN + 32
        self.Z0, self.Z1 = self.H + 32, self.H + 64
        self.mdk_len = self.Z1 + 32 - self.MDK
        self.UH = self.Z1 + 32                               # NTT(Decompress(u)), transposed
        self.VD = self.UH + 512 * k                          # Decompress(v)
        self.W = self.VD + 512                               # s_i o u_hat -> INTT
        assert self.W + 512 <= self.NT
        # the check's buffers at NT: a polynomial's public words for the stream unit's intm
        # (lo | delta << 12 a lane) when not prepared, the AND's accumulator, intm's two output
        # words (ok0, ok1: the decoding's m' too) and the decoding's one public word
        self.CD = self.NT
        self.ACC0, self.ZA, self.ACC1 = self.NT + 544, self.NT + 576, self.NT + 608
        self.OKW, self.IPUB = self.NT + 640, self.NT + 704
        end = max(self.RB + 512 * (k + 1), self.IPUB + 32)
        # the check's public words of its first polynomial, prepared while the unit decodes m'
        # (the core idle there otherwise) where DMEM has room for them; the others are
        # prepared in y's space while the unit checks the polynomial before
        self.PREP = {}
        if end + 512 <= 16384:
            self.PREP = {0: end}
            end += 512
        self.END = end
        assert self.END <= 16384, self.END
        self._pieces()

    def _pieces(self):
        """The pieces, their layouts replaced by this program's addresses."""
        self.g = MaskedG()
        self.g.M0, self.g.H, self.g.M1, self.g.ZERO = self.M0, self.H, self.M1, self.ZW
        self.g.K0, self.g.K1, self.g.R0, self.g.R1 = self.select.KP0, self.select.KP1, self.R0, self.R1
        e = self.enc = MaskedEncrypt(self.param)
        for name in ("RHO", "R0", "ZR", "R1", "NW", "M0", "ZM", "M1", "SCRATCH", "TWID", "ITWID",
                     "ISCALE", "BMC", "K1665", "Y", "U", "V", "NT", "RB", "END"):
            setattr(e, name, getattr(self, name))
        e.EK = self.TENC
        c = self.cmp = MaskedCompare(self.param)
        c.X, c.C, c.QW, c.ONE16, c.KD = self.U, self.C, self.QW, self.ONE16, self.KD
        c.CD, c.ACC0, c.ZA, c.ACC1 = self.CD, self.ACC0, self.ZA, self.ACC1
        c.gadget, c.dom = _Outputs(self.OKW, self.OKW + 32), MaskedDecode(base=self.ACC0)
        c.OK0, c.OK1 = self.select.OK0, self.select.OK1

    # ------------------------------------------------------------------ host side
    def mask_dk(self, dk: bytes, rng) -> bytes:
        """dk (FIPS 203: dk_PKE || ek || H(ek) || z) -> the masked key mdk (mdk_len bytes):
        s0 || s1 || ek || H(ek) || z0 || z1, the secret parts in fresh shares from rng
        (rng.randrange / rng.randbytes): s_hat (ByteDecode_12, i.e. each 12-bit value mod q)
        in arithmetic shares mod q (256 k coefficients of 16 bits each), z in Boolean shares.
        What a key store that keeps dk masked holds."""
        k = self.k
        if len(dk) != self.dk_len:
            raise ValueError(f"masked ML-KEM-{self.param} decaps: dk must be {self.dk_len} bytes, not {len(dk)}")
        s = []
        for i in range(0, 384 * k, 3):
            b = int.from_bytes(dk[i:i + 3], "little")
            s += [(b & 0xFFF) % Q, (b >> 12) % Q]
        s0 = [rng.randrange(Q) for _ in s]
        s1 = [(a - b) % Q for a, b in zip(s, s0)]
        z = bytes(dk[-32:])
        z1 = rng.randbytes(32)
        return _u16(s0) + _u16(s1) + bytes(dk[384 * k:768 * k + 64]) + bytes(a ^ b for a, b in zip(z, z1)) + z1

    def image(self, mdk: bytes, c: bytes) -> dict:
        """DMEM image {addr: bytes}: the masked key (mask_dk), c and the constant words."""
        for name, v, n in (("mdk", mdk, self.mdk_len), ("c", c, self.c_len)):
            if len(v) != n:
                raise ValueError(f"masked ML-KEM-{self.param} decaps: {name} must be {n} bytes, not {len(v)}")
        return {**self.const_image(), self.MDK: bytes(mdk), self.C: bytes(c)}

    def const_image(self) -> dict:
        """The constant words (the firmware API writes them before the inputs)."""
        img = {self.TWID: b"".join(_u16(x) for x in ntt.twiddle_words()),
               self.ITWID: b"".join(_u16(x) for x in ntt.itwiddle_words()),
               self.ISCALE: _u16(basemul.iscale_mont_word()),
               self.BMC: b"".join(_u16(x) for x in basemul.const_words()),
               self.K1665: _u16([MONT_1665] * 16), self.QW: _u16([Q] * 16), self.ONE16: _u16([1] * 16),
               self.NW: bytes(range(32))}
        for d, a in self.KD.items():
            img[a] = _u16([(1 << (d + 1)) - 1] * 16) + _u16([width(d)] * 16)
        return img

    def outputs(self, dmem: bytes) -> tuple[bytes, bytes]:
        """(K0, K1): K's shares."""
        return self.select.outputs(dmem)

    @property
    def K0_OUT(self) -> int:
        return self.select.K0

    @property
    def K1_OUT(self) -> int:
        return self.select.K1

    @property
    def status_addr(self) -> int:
        return self.STATUS

    def kept(self) -> list:
        """[(lo, hi)] the final wipe leaves: K's shares, the status slot and what only ever
        holds public values (the constant tables, c)."""
        return [(self.TWID, self.STATUS), (self.STATUS, self.STATUS + 32),
                (self.select.K0, self.select.END), (self.C, self.C + self.c_len)]

    def ct_policy(self) -> dict:
        """The constant-time check's view (ip/acc/tools/constant_time.py): the shares of s_hat
        and z secret (one label: no address, branch or duration may depend on either, nor on
        URND's words); ek, H(ek), c, the constant tables and the public zero / N words public;
        any other byte secret until written."""
        sel = self.select
        public = {"constants": (self.TWID, self.STATUS), "ek, H(ek)": (self.TENC, self.Z0),
                  "c": (self.C, self.C + self.c_len)}
        for name in ("ZW", "ZR", "NW", "ZM"):
            public[name] = (getattr(self, name), getattr(self, name) + 32)
        for i, z in enumerate((sel.Z0, sel.Z1, sel.Z2, sel.Z3)):
            public[f"zero {i}"] = (z, z + 32)
        return {"secret": {"s_hat share 0": self.share_range(0), "s_hat share 1": self.share_range(1),
                           "z share 0": (self.Z0, self.Z0 + 32), "z share 1": (self.Z1, self.Z1 + 32)},
                "public": public, "rest": "secret", "allow": []}

    def share_range(self, i: int) -> tuple[int, int]:
        return self.S[i], self.S[i] + 512 * self.k

    def share_policy(self) -> dict:
        """For the share-domain check (ip/acc/tools/share_check.py): the shares of s_hat and z;
        the gadgets: the check's DOM ANDs and AND tree, the selection's DOM AND (intm's
        outputs: the check labels them as the unit's, ip/acc/tools/share_check.py)."""
        from ip.acc.tools.share_check import Gadget
        shares = {"s_hat share 0": (*self.share_range(0), 0), "s_hat share 1": (*self.share_range(1), 1),
                  "z share 0": (self.Z0, self.Z0 + 32, 0), "z share 1": (self.Z1, self.Z1 + 32, 1)}
        self.program()                        # the check's DOM ANDs' refresh labels
        acc = ((self.ACC0, self.ACC0 + 32, (0,)), (self.ACC1, self.ACC1 + 32, (1,)))
        gadgets = [Gadget(f"and_{j}_begin", f"and_{j}_end", acc) for j in range(1, self.k + 1)]
        sel = self.select
        gadgets.append(Gadget("and_tree_begin", "and_tree_end",
                              ((sel.OK0, sel.OK0 + 32, (0,)), (sel.OK1, sel.OK1 + 32, (1,))),
                              tuple(self.cmp.dom._marks)))
        return {"shares": shares, "gadgets": gadgets + self.select.share_policy()["gadgets"]}

    # ------------------------------------------------------------------ program
    PHASES = ("decrypt", "decode", "g", "encrypt", "compare", "select", "wipe")   # decrypt: with H, J

    def program(self) -> str:
        """VMODE 0, URND seeded from the host's entropy, body(), ecall, tail()."""
        return "\n".join(["csrrw x0, VMODE, x0", *seed_urnd()] + self.body() + ["ecall"] + self.tail()) + "\n"

    def tail(self) -> list[str]:
        """What follows the ecall: the subroutines (NTT, INTT, products, flush)."""
        return self.enc.tail()

    def body(self) -> list[str]:
        """The steps of the module's docstring, each after its label md_<PHASES[i]> (the
        benchmark's per-phase cycles)."""
        L = ["bn.xor w0, w0, w0", "bn.wsrw ACC, w0"]
        L += ["md_decrypt:", *self._decrypt()]
        L += ["md_g:", *self.g.body(during=self._zero_shares())]
        L += ["md_encrypt:", "kmac.acq", *[x for _, lines in self.enc.schedule() for x in lines], "kmac.rel"]
        L += ["md_compare:", *self._compare()]
        L += ["md_select:", *self.select.body(), *self._finish()]
        return L + ["md_wipe:", *status.end(self.kept() + self.dead(), size=self.END)]

    def _decompress(self, addr: int) -> list[str]:
        """Decompress_d of the 16 words at addr (each y << (16 - d)), in place: (y << (16 - d))
        q / 2^16, rounded (w15: q)."""
        # four words an iteration, their products interleaved: the multiplier takes one every
        # other cycle and a product is read 3 cycles after it starts (6 cycles a word, was 10)
        def word(ld, d):
            a, lo, hi = f"w{ld}", f"w{ld + 2}", f"w{ld + 1}"
            return [f"bn.mulv.lo {lo}, {a}, w15", f"bn.mulv.hi {hi}, {a}, w15"], \
                [f"bn.shrv {lo}, {lo}, 15", f"bn.addv w{d}, {hi}, {lo}"]
        w = [word(4 * n, 4 * n + 3 if n < 3 else 3) for n in range(4)]
        body = ["bn.lw.pi w0, 0(x10)", "bn.lw.pi w4, 0(x10)", w[0][0][0], "bn.lw.pi w8, 0(x10)", w[0][0][1],
                "bn.lw.pi w12, 0(x10)"]
        for n in range(1, 4):
            body += [w[n][0][0], w[n - 1][1][0], w[n][0][1], w[n - 1][1][1]]
        body += ["bn.sw.pi w3, 0(x11)", w[3][1][0], "bn.sw.pi w7, 0(x11)", w[3][1][1], "bn.sw.pi w11, 0(x11)",
                 "bn.sw.pi w3, 0(x11)"]
        return [f"bn.lw w15, {_m(self.QW)}", *_li(10, addr), *_li(11, addr), f"loopi 4, {len(body)}", *body]

    def _decrypt(self) -> list[str]:
        """H(ek) checked, K-bar = J(z || c) in shares at the selection's KB0 / KB1, m' in Boolean
        shares at M0 / M1 (ZM between: the re-encryption's b2a1m reads them in that order).
        The KMAC absorbs H's words between the decryption's public chunks and J's between its
        share passes' (x7 their pointer, x3 = -1), so its permutations run beside the core's
        work instead of the core waiting for them (the KMAC's state never meets the core's
        registers; J's digest is read after the decoding)."""
        k, e = self.k, self.enc
        # FIPS 203 7.3: SHA3-256 of ek (public) against dk's H(ek)
        L = ["kmac.acq", f"addi x1, x0, {SHA3_256}", *_li(2, self.ek_len), "kmac.start x1, x2",
             *_li(7, self.TENC), "addi x3, x0, -1"]
        public = []                           # u, v: the ciphertext's work
        for j in range(k):
            uh = self.UH + 512 * j
            public += [codec.decode_unpk(self.du, self.C + 32 * self.du * j, uh, 16, shift=16 - self.du),
                       self._decompress(uh), e._call("me_ntt", x8=uh)]
        public += [codec.decode_unpk(self.dv, self.C_V, self.VD, 16, shift=16 - self.dv), self._decompress(self.VD)]
        L += _weave(public, _blocks(self.ek_len // 32))
        # the number of differing lanes into the status slot (no branch); rho where the
        # re-encryption keeps it (its input place is u''s)
        L += ["kmac.dig w0", f"bn.lw w1, {_m(self.H)}", "bn.xor w2, w2, w2", "bn.wsrw ACC, w2",
              "bn.or.acc x9, w0, w1", "bn.wsrw ACC, w2", *status.store_reg(9, self.STATUS, "w3"),
              f"bn.lw w1, {_m(self.RHO_IN)}", f"bn.sw w1, {_m(self.RHO)}", "addi x9, x0, 0",
              *wipe("w0", "w1"), "jal x28, me_flush"]
        # J(z || c): z as one two-share word (a public word's load between the shares' loads)
        L += [f"bn.lw w1, {_m(self.Z0)}", f"bn.lw w4, {_m(self.ZW)}", f"bn.lw w2, {_m(self.Z1)}",
              f"bn.lw w4, {_m(self.ZW)}", f"addi x1, x0, {SHAKE256_MASKED}", "kmac.start x1, x0",
              "kmac.msgm w1, w2, x3", *wipe("w1", "w2", "w4"), *_li(7, self.C)]
        # w_i = INTT(s_i o u_hat); x0 into s0's first polynomial, x1 right after it (s0's
        # second: the stream unit's intm reads a polynomial's share 1 after its share 0)
        # (est. cycles, lines): the weave spaces J's blocks by these (ISS, rounded)
        passes = []
        x_at = (self.S[0], self.S[0] + 512)
        for i in (0, 1):
            s = self.S[i]
            passes += [(125 * k + 38, basemul.pointers([(s + 512 * j, self.UH + 512 * j) for j in range(k)], self.W,
                                                       self.BMC) + ["jal x28, me_prod"]),
                       (186, e._call("me_intt", x8=self.W))]
            body = (["bn.lw.pi w0, 0(x12)"] if i == 0 else []) + \
                ["bn.lw.pi w1, 0(x10)", "bn.subvm w2, w0, w1", "bn.sw.pi w2, 0(x11)"]
            passes.append((88 if i == 0 else 72, ["bn.xor w0, w0, w0", *_li(10, self.W), *_li(11, x_at[i]),
                                                  *_li(12, self.VD), f"loopi 16, {len(body)}", *body]))
            if i == 0:                        # W and x1's place are share 1's next: zeroed between
                passes.append((39, ["bn.xor w0, w0, w0",
                                    *zero_dmem([(self.W, self.W + 512), (x_at[1], x_at[1] + 512)])]))
            passes.append((28, ["jal x28, me_flush"]))
        # J's blocks before the chunks where they wait least; the rest (and the finish) beside
        # the decoding's gadget, before the check's first public words if those are prepared
        # there: n groups left cost ~n (permutation + absorption), then the finish's
        # permutation or the preparation (~290 cycles), against the unit's ~340
        gap, prep = MASKED_PERMUTATION, 290 if self.PREP else 0
        woven, left = _spaced(passes, _blocks(self.c_len // 32, before=32), gap,
                              lambda n: max(0, n * (gap + 20) + max(prep, gap) - 340))
        L += woven
        L += ["md_decode:", *_li(5, DECODE_LO), "bn.bcast w3, x5", f"bn.sw w3, {_m(self.IPUB)}", "addi x5, x0, 0",
              *wipe("w3")]
        # J's last blocks (public c) go to the KMAC while the unit decodes
        # (and the check's first public words, if they have their place: w0..w13, x5, x6, x25, x26)
        prep0 = self.cmp.prep_pub(0, self.PREP[0]) if self.PREP else []
        L += self._intm(self.S[0], self.IPUB, DECODE_W, stride0=True,
                        during=[x for n in left for x in absorb_loop(n)] + ["kmac.finish"] + prep0)
        # K-bar: share 1, then (a cycle between) share 0; each store after a public word's
        sel = self.select
        L += ["kmac.dig1 w6", SEP, "kmac.dig w5", "kmac.rel", "bn.bcast w4, x0",
              f"bn.sw w4, {_m(self.ZW)}", f"bn.sw w5, {_m(sel.KB0)}", f"bn.sw w4, {_m(self.ZW)}",
              f"bn.sw w6, {_m(sel.KB1)}", *wipe("w5", "w6")]
        # m''s shares to the re-encryption's M0 / ZM / M1, a public word between on each port
        L += [f"bn.lw w1, {_m(self.OKW)}", f"bn.sw w1, {_m(self.M0)}", f"bn.lw w3, {_m(self.ZW)}",
              f"bn.sw w3, {_m(self.ZM)}", f"bn.lw w2, {_m(self.OKW + 32)}", f"bn.sw w2, {_m(self.M1)}",
              f"bn.lw w3, {_m(self.ZW)}", f"bn.sw w3, {_m(self.SCRATCH)}", *wipe("w1", "w2")]
        return L

    def _zero_shares(self) -> list[str]:
        """The decryption's share buffers (z's too) zeroed before the re-encryption writes its
        own there (while G's KMAC works: w0, x5)."""
        return ["bn.xor w0, w0, w0", *zero_dmem([(self.S[0], self.S[1] + 512 * self.k), (self.Z0, self.Z1 + 32),
                                                 (self.W, self.W + 512), (self.OKW, self.OKW + 64)])]

    def _intm(self, src: int, pub: int, w_base: int, stride0: bool = False, during: list | None = None) -> list[str]:
        """The stream unit's masked interval mode on the polynomial whose share 0 is at src
        (share 1 right after), the public words at pub: ok's shares into OKW, OKW + 32; the
        core runs `during` (public work, no URND) meanwhile, then waits for it. SMP_CFG back
        to 0 after. Uses x4..x6 (the absorb loops' x7 and x3 stay)."""
        cfg = w_base << 20 | (pub // 32) << 8 | int(stride0) << 7
        return [*_li(6, src), "csrrw x0, SMP_SRC, x6", *_li(6, cfg), "csrrw x0, SMP_CFG, x6", *_li(5, self.OKW),
                "addi x4, x0, 256", "smp.run x5, x4, intm", *(during or []), "smp.wait", "csrrw x0, SMP_CFG, x0",
                "addi x4, x0, 0", "addi x5, x0, 0", "addi x6, x0, 0"]

    def _compare(self) -> list[str]:
        """The re-encryption check (masked_compare.MaskedCompare's, each polynomial's intervals
        by the stream unit's intm instead of the software gadget): per polynomial its public
        words (prepared during the re-encryption, or here), intm, the DOM AND into the
        accumulator; then the AND tree into ok's shares."""
        c = self.cmp
        c.dom._marks = []
        # the public words of the polynomials not prepared during the re-encryption: in y's
        # space (free now), each prepared while the unit works on the one before
        pws = {j: self.PREP.get(j, self.Y + 512 * j) for j in range(self.k + 1)}

        def prep(j):
            return [] if j in self.PREP or j > self.k else c.prep_pub(j, pws[j])
        L = prep(0)
        wipes = self._wipes(pws)
        for j in range(self.k + 1):
            d = self.du if j < self.k else self.dv
            # beside each intm (after the next polynomial's public words): a share of the wipe
            # of what the check, the selection and the status no longer read (the rest at the end)
            during = prep(j + 1) + ["bn.xor w0, w0, w0", *zero_dmem(wipes[j], spaced=True)]
            L += self._intm(c.poly(j, 0), pws[j], width(d), during=during) + c._accumulate(j)
        return L + c._tree()

    def _wipes(self, pws: dict) -> list[list]:
        """dead()'s words split over the check's k + 1 intm: what no intm and no preparation
        reads (the re-encryption's own buffers) in equal parts beside the first k, the
        polynomials' shares and public words beside the last."""
        c = self.cmp
        read = [(c.poly(0, 0), c.poly(self.k, 1) + 512)] + [(a, a + 512) for a in pws.values()]
        late = [a for lo, hi in self.dead() for a in range(lo, hi, 32)]
        early = [a for a in late if not any(lo <= a < hi for lo, hi in read)]
        n = -(-len(early) // (self.k + 1))
        parts = [early[n * j:n * (j + 1)] for j in range(self.k)] + [[a for a in late if a not in early[:n * self.k]]]
        return [_runs(p) for p in parts]

    def dead(self) -> list:
        """[(lo, hi)] of the re-encryption's space [Y, END) that nothing reads once the check's
        last intm runs: all but that polynomial's shares and public words, the check's
        accumulator and intm's output words (wiped beside that intm, not at the end)."""
        k, c = self.k, self.cmp
        pub = self.PREP.get(k, self.Y + 512 * k)
        return gaps([(c.poly(k, 0), c.poly(k, 1) + 512), (pub, pub + 512), (self.ACC0, self.OKW + 64)],
                    self.END, self.Y)

    def _finish(self) -> list[str]:
        """Status OK, or DK_HASH_MISMATCH and both of K's shares zeroed (public mask) if the
        hash check's lane count is non-zero; constant time."""
        bad, ok, sel = status.DK_HASH_MISMATCH, status.OK, self.select
        L = _li(29, self.STATUS) + ["lw x10, 0(x29)", "sltiu x11, x10, 1", "sub x11, x0, x11"]
        L += _li(12, ok ^ bad) + ["and x12, x12, x11"] + _li(13, bad) + ["xor x12, x12, x13"]
        L += status.store_reg(12, self.STATUS, "w3") + ["bn.bcast w7, x11"]
        L += [f"bn.lw w1, {_m(sel.K0)}", SEP, "bn.and w1, w1, w7", f"bn.sw w1, {_m(sel.K0)}",
              f"bn.lw w3, {_m(sel.Z3)}", f"bn.sw w3, {_m(sel.Z3)}",
              f"bn.lw w2, {_m(sel.K1)}", SEP, "bn.and w2, w2, w7", f"bn.sw w2, {_m(sel.K1)}"]
        return L + wipe("w1", "w2", "w3", "w7")


RATE = 136                # SHA3-256's and SHAKE256's rate in bytes


def _runs(words: list[int]) -> list[tuple[int, int]]:
    """[(lo, hi)] of the sorted word addresses, contiguous runs merged."""
    out = []
    for a in words:
        if out and out[-1][1] == a:
            out[-1] = (out[-1][0], a + 32)
        else:
            out.append((a, a + 32))
    return out


def _blocks(nwords: int, before: int = 0) -> list[int]:
    """nwords 32-byte message words after `before` bytes, grouped by the rate block they fill:
    each group ends with the word that completes a block (the KMAC takes it, starts the
    permutation and packs the rest meanwhile; the next word would wait), the last group the
    rest."""
    groups, at, n = [], before, 0
    for _ in range(nwords):
        at, n = at + 32, n + 1
        if at // RATE > (at - 32) // RATE or at % RATE == 0:
            groups.append(n)
            n = 0
    return groups + ([n] if n else [])


def _spaced(chunks: list[tuple[int, list]], groups: list[int], gap: int, left_cost) -> tuple[list[str], list[int]]:
    """(lines, groups left): the KMAC message groups in order, each before one of the chunks
    (est. cycles, lines), at the places that make the least estimated wait: a group's words
    wait for the permutation the group before started (`gap` cycles) less the chunks between;
    left_cost(n): the estimated wait for n groups left for the caller."""
    n, best = len(chunks), None
    for places in itertools.combinations(range(n), min(len(groups), n)):
        for m in range(len(places) + 1):
            at, wait = places[:m], left_cost(len(groups) - m)
            for a, b in zip(at, at[1:]):
                wait += max(0, gap - sum(est for est, _ in chunks[a:b]))
            if best is None or wait < best[0]:
                best = (wait, at)
    at, L, left = best[1], [], list(groups)
    for i, (_, ch) in enumerate(chunks):
        L += (absorb_loop(left.pop(0)) if i in at else []) + ch
    return L, left


def _weave(chunks: list, groups: list[int]) -> list[str]:
    """Group i of KMAC message words (DMEM[x7] on, mask x3) before chunk i, the groups left
    after the last chunk: each block's permutation runs beside the core's chunk."""
    L = []
    for i, ch in enumerate(chunks):
        L += (absorb_loop(groups[i]) if i < len(groups) else []) + ch
    return L + [x for n in groups[len(chunks):] for x in absorb_loop(n)]


class _Outputs:
    """Where the check's accumulation reads a polynomial's ok shares (intm's two words)."""

    def __init__(self, m0: int, m1: int):
        self.M0, self.M1 = m0, m1


def masked_decaps(param: int) -> MaskedDecaps:
    return MaskedDecaps(param)
