# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""First-order masked K-PKE.Decrypt (FIPS 203 Alg. 15) on the ACC, for k = 2, 3, 4 (issue #38).

The secret s_hat comes in two arithmetic shares mod q (s_hat = s0 + s1 mod q, each
ByteEncode_12'd as dk_PKE is); the message m comes out in two Boolean shares (m = m0 ^ m1).
The linear part runs once per share with the unmasked kernels (ByteDecode_12, the base-case
products with u_hat, the INTT): w_i = INTT(s_i o u_hat), then x0 = Decompress_dv(v) - w0 and
x1 = -w1 (mod q) are the shares of v - w, and the masked decoding gadget
(masked.MaskedDecode) turns them into m0, m1. The ciphertext's work (ByteDecode and
Decompress of u and v, NTT(u)) is public and runs once.

Between the two shares' passes (what the leakage assessment asks; docs/side_channels.md):
every register is zeroed, the multiplier's internal registers are flushed by a multiply of
zeros (its stage and holding registers keep the last product's operands and results until
the next multiplier op), and the DMEM ports see a public load and a public store.

At the end every byte that held a share or a value computed from one is zeroed but the
outputs m0, m1 (wipe_all_but), and so is every register.
"""
from ip.acc.kernels.asm_util import li as _li, loop as _loop, mem as _m, wipe_all_but, zero_dmem
from ip.acc.kernels.mlkem import basemul, codec, ntt
from ip.acc.kernels.mlkem.codec import u16 as _u16
from ip.acc.kernels.mlkem.masked import MaskedDecode, Q, flush, seed_urnd, wipe

PARAMS = {512: 2, 768: 3, 1024: 4}


class MaskedDecrypt:
    """The program and its DMEM layout for one parameter set (k = 2, 3, 4)."""

    def __init__(self, k: int):
        if k not in (2, 3, 4):
            raise ValueError(f"masked K-PKE.Decrypt: k must be 2, 3 or 4, not {k}")
        self.k = k
        self.du, self.dv = (11, 5) if k == 4 else (10, 4)
        self.c_len = 32 * (self.du * k + self.dv)
        self.const_names = list(codec.CONST_NAMES)
        # ------------------------------------------------------------ DMEM layout (bytes)
        self.S0E = 0                          # share 0 of s_hat, ByteEncode_12 (384 k)
        self.S1E = self.S0E + 384 * k         # share 1
        self.CT = self.S1E + 384 * k          # c: u enc | v enc
        self.CT_V = self.CT + 32 * self.du * k
        self.TWID = self.CT + self.c_len
        self.ITWID = self.TWID + 256
        self.ISCALE = self.ITWID + 256
        self.BMC = self.ISCALE + 32
        self.KC = self.BMC + 9 * 32
        self.KA = {n: self.KC + 32 * i for i, n in enumerate(self.const_names)}
        self.WORK = self.KC + 32 * len(self.const_names)
        self.S_HAT = self.WORK                # one share's s_hat at a time (k polys)
        self.U = self.S_HAT + 512 * k         # NTT(Decompress(u)), transposed (public)
        self.UC = self.U + 512 * k            # decoded u: y << (16 - du) (public)
        self.VC = self.UC + 512 * k           # decoded v: y << (16 - dv) (public)
        self.VD = self.VC + 512               # Decompress_dv(v) (public)
        self.W = self.VD + 512                # s_i o u_hat -> INTT
        self.gadget = MaskedDecode(base=self.W + 512)
        self.SCRATCH = self.gadget.END        # a public word the ports see between shares
        self.END = self.SCRATCH + 32
        assert self.END <= 16384, self.END

    # ------------------------------------------------------------------ host side
    def image(self, s0_enc: bytes, s1_enc: bytes, c: bytes) -> dict:
        """DMEM image {addr: bytes}: the shares of dk_PKE (each 384 k bytes) and c."""
        for name, blob, n in (("s0", s0_enc, 384 * self.k), ("s1", s1_enc, 384 * self.k),
                              ("c", c, self.c_len)):
            if len(blob) != n:
                raise ValueError(f"masked K-PKE.Decrypt (k = {self.k}): {name} must be {n} "
                                 f"bytes, not {len(blob)}")
        img = {self.S0E: bytes(s0_enc), self.S1E: bytes(s1_enc), self.CT: bytes(c),
               self.TWID: b"".join(_u16(w) for w in ntt.twiddle_words()),
               self.ITWID: b"".join(_u16(w) for w in ntt.itwiddle_words()),
               self.ISCALE: _u16(basemul.iscale_mont_word()),
               self.BMC: b"".join(_u16(w) for w in basemul.const_words())}
        cw = codec.const_words()
        img[self.KC] = b"".join(cw[n] for n in self.const_names)
        img.update(self.gadget.const_image())
        return img

    def outputs(self, dmem: bytes) -> tuple[bytes, bytes]:
        return self.gadget.outputs(dmem)

    def public_kept(self) -> list:
        """[(lo, hi)] the final wipe leaves besides m0, m1: c, the constant tables and what
        the program computes from c alone (u decoded and its NTT, v decoded and decompressed)."""
        return [(self.CT, self.WORK), (self.U, self.VD + 512)]

    def ct_policy(self) -> dict:
        """The constant-time check's view (ip/acc/tools/constant_time.py): both shares of s_hat
        secret (the check has one secret label: it proves that no address, branch or duration
        depends on either share or on URND's masks, not that the shares never meet: that is
        the leakage assessment's); public: c and the constant tables; any other byte secret
        until written."""
        public = {"c": (self.CT, self.CT + self.c_len)}
        for addr, blob in sorted(self.image(bytes(384 * self.k), bytes(384 * self.k),
                                            bytes(self.c_len)).items()):
            if addr >= self.TWID:
                public[f"constants@{addr}"] = (addr, addr + len(blob))
        return {"secret": {"s_hat share 0": (self.S0E, self.S1E),
                           "s_hat share 1": (self.S1E, self.CT)},
                "public": public, "rest": "secret", "allow": []}

    def share_policy(self) -> dict:
        """For the share-domain check (ip/acc/tools/share_check.py): the two shares of s_hat
        and the one gadget, the message decoding."""
        return {"shares": {"s_hat share 0": (self.S0E, self.S1E, 0),
                           "s_hat share 1": (self.S1E, self.CT, 1)},
                "gadgets": [self.gadget.share_gadget()]}

    # ------------------------------------------------------------------ program
    def _public(self) -> list[str]:
        """u, v decoded; NTT(Decompress(u)) (transposed for the products); Decompress(v)."""
        k, KA = self.k, self.KA
        L = codec.decode_unpk(self.du, self.CT, self.UC, 16 * k, shift=16 - self.du)
        L += codec.decode_unpk(self.dv, self.CT_V, self.VC, 16, shift=16 - self.dv)
        load = codec.decompress10_load(9, KA)
        body = ntt.ntt_body("x8", self.TWID, load, basemul.transposed_store, _m) + \
            ["addi x8, x8, 512", "addi x9, x9, 512"]
        L += _li(8, self.U) + _li(9, self.UC) + _loop(k, body)
        # Decompress_dv(v): (y << (16 - dv)) * q, rounded, >> 16 (decompress10_load's formula)
        L += [f"bn.lw w15, {_m(KA['q'])}"]
        for r in range(16):
            L += [f"bn.lw w0, {_m(self.VC + 32 * r)}", "bn.mulv.hi w1, w0, w15",
                  "bn.mulv.lo w2, w0, w15", "bn.shrv w2, w2, 15", "bn.addv w3, w1, w2",
                  f"bn.sw w3, {_m(self.VD + 32 * r)}"]
        return L

    def _share(self, i: int) -> list[str]:
        """w_i = INTT(s_i o u_hat); share 0: x0 = Decompress(v) - w0, share 1: x1 = -w1."""
        k = self.k
        src = (self.S0E, self.S1E)[i]
        L = codec.decode_unpk(12, src, self.S_HAT, 16 * k)
        L += basemul.basemul_loop([(self.S_HAT + 512 * j, self.U + 512 * j) for j in range(k)],
                                  self.W, self.BMC, one_gamma=True)
        L += _li(8, self.W) + ntt.intt_body("x8", self.ITWID, self.ISCALE, _m)
        dst = (self.gadget.X0, self.gadget.X1)[i]
        L += ["bn.xor w14, w14, w14"]
        for r in range(16):
            a = f"bn.lw w0, {_m(self.VD + 32 * r)}" if i == 0 else "bn.xor w0, w0, w0"
            L += [a, f"bn.lw w1, {_m(self.W + 32 * r)}", "bn.subvm w2, w0, w1",
                  f"bn.sw w2, {_m(dst + 32 * r)}"]
        if i == 0:
            # the next pass reuses these buffers: a share-1 word written over a share-0 one
            # would show both in the cells that flip (share_check's transitions)
            L += wipe("w0") + zero_dmem([(self.S_HAT, self.U), (self.W, self.W + 512)])
        return L + self._flush()

    def _flush(self) -> list[str]:
        return flush(self.gadget.ZERO, self.SCRATCH)

    def program(self) -> str:
        L = ["lui x30, 4", "csrrw x0, VMODE, x0"] + seed_urnd()
        L += self._public() + self._flush()
        L += self._share(0) + self._share(1)
        L += self.gadget.body()
        g = self.gadget
        L += wipe_all_but(self.public_kept() + [(g.M0, g.M0 + 32), (g.M1, g.M1 + 32)], self.END)
        return "\n".join(L + ["ecall"]) + "\n"


def masked_decrypt(param: int) -> MaskedDecrypt:
    if param not in PARAMS:
        raise ValueError(f"masked K-PKE.Decrypt: parameter set {param} is not one of 512, 768, 1024")
    return MaskedDecrypt(PARAMS[param])


def share_dk_pke(dk_pke: bytes, k: int, rng) -> tuple[bytes, bytes]:
    """Arithmetic shares mod q of the s_hat in dk_PKE (ByteEncode_12), each ByteEncode_12'd:
    share 0 uniform (rng.randrange), share 1 = s_hat - share 0. Raises ValueError for a
    length other than 384 k or a coefficient >= q (a malformed key)."""
    if len(dk_pke) != 384 * k:
        raise ValueError(f"dk_PKE must be {384 * k} bytes, not {len(dk_pke)}")
    s = []
    for i in range(0, len(dk_pke), 3):
        b = int.from_bytes(dk_pke[i:i + 3], "little")
        s += [b & 0xFFF, b >> 12]
    if any(c >= Q for c in s):
        raise ValueError("dk_PKE holds a coefficient >= q (not a valid ByteEncode_12)")
    s0 = [rng.randrange(Q) for _ in s]
    s1 = [(a - b) % Q for a, b in zip(s, s0)]

    def enc(x):
        return b"".join((x[i] | x[i + 1] << 12).to_bytes(3, "little") for i in range(0, len(x), 2))
    return enc(s0), enc(s1)
