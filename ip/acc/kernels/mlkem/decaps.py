# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""ML-KEM decapsulation on the ACC: complete programs for K-PKE.Decrypt (FIPS 203
Alg. 15) and ML-KEM.Decaps_internal (Alg. 18), their DMEM layout and image, for
ML-KEM-512 / -768 / -1024 (Decaps(k), k = 2, 3, 4; the module-level names are Decaps(3)'s).

Cycles (ISS, seed 7 of ip.acc.dv.jobs, checks and wipe included; RTL = ISS checked for 768
and 1024): 512: 4 703,
768: 6 848 (target <= 10 000), 1024: 9 388 (target <= 13 000; 4 871 / 7 113 / 9 733
before the KMAC's message intake register); IMEM 9 496 / 12 280 /
14 024 B, peak DMEM 11 744 / 15 904 / 15 424 B (the wipe up to the peak, not all 16 KiB:
5 019 / 7 131 / 9 766 before). Before bn.unpk: 6 927 / 9 948 / 13 859
cycles, IMEM 11 276 / 14 368 / 16 032 B. Per phase (prefix runs of phases() unscheduled,
test_mlkem_program.test_decaps_phases' key, which prints 768's), before (this docstring's
earlier figures) -> after bn.unpk:
768: decrypt (+ H(ek), J) 4 857 -> 2 705, G 54, t_hat decode + PRF 1 409 -> 507, NTT(y)
+ A row 0 519 -> 528, A rows 1..2 + e2 | products, INTT, compare 2 359, tail 687, select
26, wipe 245 -> 256 (the decode constants gone from the public tables the wipe skips);
1024: decrypt 6 642 -> 3 526, t_hat 1 877 -> 675, NTT(y) + row 1 1 208 -> 1 217, rows
1..3 2 912, tail 1 080, wipe 265 -> 288. What bn.unpk changed: every ByteDecode_d
(s_hat, t_hat: 12; u: 10 / 11; v: 4 / 5) is codec.decode_unpk, one bn.unpk (+ a bn.shlv
for the y << (16 - d) form of u, v) per 16 coefficients from aligned wide loads, in
VMODE 0 (no mode switches): ~2.8 cycles per 16 coefficients of s_hat instead of ~25 of
lw + bn.ins gathers. H(ek) and J are absorbed in the decodes' shadow, which is now
shorter than the absorption (~5 cycles a message word + 24 a rate block): 768's decrypt
phase takes 832 cycles more than K-PKE.Decrypt alone (decrypt_program: 1 873), the
largest piece left of it beside the NTT / INTT (multiplier-bound) and the products.

    src = decaps_program()                 # assembly text (ML-KEM-768)
    dm = image(dk, c)                      # {addr: bytes} (inputs + constant tables)
    ... run on the ISS ...; K = dmem[K_OUT:K_OUT + 32]
    dc = decaps(1024); dc.program(); dc.image(dk, c); dc.outputs(dmem)   # another set

ML-KEM-1024 (k = 4, du = 11, dv = 5): the same generator with its own layout in 16 KiB
(Decaps._layout_1024: dead input bytes reused; A_hat^T row 0 sampled during the decryption),
codec.decode_unpk for d = 11 (J absorbed) and 5, and the looped
codec.compress_compare_loop (IMEM).

Status and wipe (ip/acc/README.md "ML-KEM programs"): the program writes its status word
(status.py) at `status_addr` and ends with status.end: DMEM zeroed but its outputs, the
status slot and the bytes that only ever hold public values (public_kept: constant tables,
ek, H(ek), c, decoded t_hat, A_hat^T rows; checked by test_mlkem_wipe), every register
zeroed, the KMAC released.
FIPS 203 7.3: SHA3-256 of dk's ek is absorbed during the s_hat decode and compared with
dk's H(ek) without a branch; _select zeroes K and sets DK_HASH_MISMATCH on a mismatch.

Design (the pieces are in codec.py, ntt.py, basemul.py; see there):
* Decrypt: ByteDecode12 of s_hat, ByteDecode_du / ByteDecode_dv of u / v (kept as
  y << (16 - d) for the re-encryption check; codec.decode_unpk), NTT of u with Decompress10 on the way in,
  s_hat o u_hat, INTT, m' = ByteEncode1(Compress1(v - w)).
* NTT / INTT: the mlkem.ntt schedules with a base register (loopi over polynomials). The
  NTTs of u and y store the base-case transposed layout (basemul.transposed_store), so the
  base-case multiply-accumulate (basemul.basemul_loop) transposes only a; products carry
  2^-16, removed by the INTT scale word (basemul.iscale_mont_word()).
* Hashes on the KMAC side-load (port held for the whole program). J(z || c) is absorbed
  during the u decode (one message word per half iteration), its digest read before G.
  A_hat^T entries (uni12) and PRF + cbd2 run on the stream unit in the background of core
  work (`_pair`: start job, core chunk, smp.wait); see decaps_phases() for the schedule.
* Re-encryption check: codec.compress_compare ORs Compress_d(u', v') xor c into ACC
  (512 / 768: fused into the INTT, codec.compare_fin; 1024: the looped form for IMEM, but
  for the last two u');
  select: x9 = number of non-zero lanes; a bn.ltv mask and bn.sel pick K' or K_bar
  without a branch.
* Buffers of the decryption are reused by the re-encryption (layout below).
"""
from ip.acc.kernels.asm_util import li as _li, loop as _loop, mem as _m, phase_program
from ip.acc.kernels.mlkem import basemul, codec, ntt, status
from ip.acc.kernels.mlkem.keygen import SHA3_256
from ip.acc.kernels.mlkem.codec import u16 as _u16
from ip.acc.kernels.sample import SHA3_512, SHAKE128, SHAKE256

Q = codec.Q
QINV16 = codec.QINV16
PARAMS = {512: 2, 768: 3, 1024: 4}    # parameter set -> k


def _pair(job, chunk):
    """Start a sampler job, run core work, wait for the job."""
    return job + chunk + ["smp.wait"]


class Decaps:
    """The decaps program and its DMEM layout for one parameter set (k = 2, 3; du = 10,
    dv = 4 for both; eta1 = 3 for k = 2, else 2)."""

    def __init__(self, k: int):
        if k not in (2, 3, 4):
            raise ValueError(f"ML-KEM decaps: k must be 2, 3 or 4 (ML-KEM-512, -768, -1024), "
                             f"not {k}")
        self.k = k
        self.eta1 = 3 if k == 2 else 2
        self.du, self.dv = (11, 5) if k == 4 else (10, 4)
        self.dk_len = 768 * k + 96
        self.ek_len = 384 * k + 32
        self.c_len = 32 * (self.du * k + self.dv)
        self.const_names = list(codec.CONST_NAMES)
        if k == 4:
            self.const_names += ["mc11", "qi11", "mc5", "qi5"]
        # ------------------------------------------------------------ DMEM layout (bytes)
        self.DK = 0                  # dk: s_hat enc | t_hat enc | rho | h | z
        self.DK_T = self.DK + 384 * k
        self.DK_RHO = self.DK + 768 * k
        self.DK_H = self.DK_RHO + 32
        self.DK_Z = self.DK_H + 32
        self.CT = self.DK + self.dk_len      # c: u enc | v enc; z || c contiguous (J input)
        self.CT_V = self.CT + 32 * self.du * k
        self.TWID = self.CT + self.c_len     # 8 words NTT twiddles
        self.ITWID = self.TWID + 256         # 8 words INTT twiddles
        self.ISCALE = self.ITWID + 256       # 1 word
        self.BMC = self.ISCALE + 32          # 9 words base-case multiply constants
        self.KC = self.BMC + 9 * 32          # codec's constant words (self.const_names)
        self.KA = {n: self.KC + 32 * i for i, n in enumerate(self.const_names)}
        self.WORK = self.KC + 32 * len(self.const_names)
        if k == 4:
            self._layout_1024()
            return
        # After the first step (ByteDecode12 of s_hat) the s_hat encoding is dead: the small
        # outputs and the u' buffer live there (the program overwrites that part of dk).
        self.UP = self.DK                    # u' = INTT input, one polynomial at a time
        self.MOUT = self.DK + 512            # m' (32 B)
        self.KP = self.MOUT + 32             # K'
        self.RSEED = self.KP + 32            # r
        self.KBAR = self.RSEED + 32          # J(z || c)
        self.K_OUT = self.KBAR + 32          # shared secret (decaps output)
        self.STATUS = self.K_OUT + 32        # status word (status.py), in a 32-byte slot
        assert self.STATUS + 32 <= self.DK_T
        # decrypt buffers
        self.S_HAT = self.WORK               # k polys (decoded, plain)
        self.U = self.S_HAT + 512 * k        # k polys: Decompress10(u) -> NTT (transposed)
        self.V = self.U + 512 * k            # (e2; Decompress4(v) taken in message_fin)
        self.W = self.V + 512                # s_hat . u_hat -> INTT
        self.UC = self.W + 512               # k polys: decoded u, y << 6 (kept for the compare)
        self.VC = self.UC + 512 * k          # v: y << 12 (kept)
        self.MSK = self.VC + 512             # compress1 masks of m' (kept: mu = MSK & 1665)
        self.T_HAT = self.MSK + 512          # k polys
        # re-encryption buffers: S_HAT, U, V, W are dead after decrypt and reused
        self.YV = self.S_HAT                 # y (k polys) -> NTT in place (transposed)
        self.E1 = self.U                     # e1 (k polys)
        self.E2 = self.V                     # e2
        self.VP = self.W                     # v' accumulator
        self.AM = self.T_HAT + 512 * k       # 2 row buffers of A_hat^T (k polys each)
        self.END = self.AM + 2 * 512 * k     # peak DMEM use (bytes)
        self.u_polys = [self.U + 512 * j for j in range(k)]
        self.t_polys = [self.T_HAT + 512 * j for j in range(k)]
        self.early_row0 = False
        self.rows = [[self.AM + 512 * k * b + 512 * j for j in range(k)] for b in range(2)]

    def _layout_1024(self):
        """ML-KEM-1024 in 16 KiB (the 512 / 768 scheme would need ~20 KB): the dead input
        bytes hold buffers.
        * WORK: the small words, then 18 polynomials: s_hat (then y), u (NTT'd; then e1),
          the decoded u (y << 5) and v (y << 11), the compress1 masks, v (then e2),
          w (then v'), u', a spare;
        * A_hat^T row buffer 0: the s_hat encoding (dead after its decode) and c's first
          polynomial (dead after its decode and J): row 0 is sampled during the decryption
          (early_row0), once J's digest is read;
        * t_hat: the spare, the rest of c and u' (v's products run before u' is needed);
        * row buffer 1: the t_hat encoding (dead after its decode; rho, H(ek), z stay) and
          the spare (row 1's last entry after v's products)."""
        k = self.k
        self.MOUT = self.WORK                # m'
        self.KP = self.MOUT + 32             # K'
        self.RSEED = self.KP + 32            # r
        self.KBAR = self.RSEED + 32          # J(z || c)
        self.K_OUT = self.KBAR + 32          # shared secret (decaps output)
        self.STATUS = self.K_OUT + 32        # status word (status.py), in a 32-byte slot
        self.S_HAT = self.STATUS + 32        # k polys; y after decrypt
        self.U = self.S_HAT + 512 * k        # k polys: u -> NTT (transposed); e1 after
        self.UC = self.U + 512 * k           # k polys: decoded u, y << 5
        self.VC = self.UC + 512 * k          # v: y << 11
        self.MSK = self.VC + 512
        self.V = self.MSK + 512              # e2 (Decompress5(v) taken in message_fin)
        self.W = self.V + 512                # s_hat . u_hat; v' after decrypt
        self.UP = self.W + 512               # u'
        self.SPARE = self.UP + 512           # t_hat[0], then row buffer 1 entry 3
        self.END = self.SPARE + 512
        self.rows = [[self.DK + 512 * j for j in range(3)] + [self.CT],
                     [self.DK_T + 512 * j for j in range(3)] + [self.SPARE]]
        self.t_polys = [self.SPARE, self.CT + 512, self.CT + 1024, self.UP]
        assert 1536 <= self.c_len and self.DK_T + 1536 <= self.DK_RHO   # c dead after decrypt
        self.T_HAT = None                    # not contiguous: t_polys
        self.YV, self.E1, self.E2, self.VP = self.S_HAT, self.U, self.V, self.W
        self.early_row0 = True
        self.u_polys = [self.U + 512 * j for j in range(k)]

    # ---------------------------------------------------------------- image
    def const_image(self) -> dict:
        img = {}
        img[self.TWID] = b"".join(_u16(w) for w in ntt.twiddle_words())
        img[self.ITWID] = b"".join(_u16(w) for w in ntt.itwiddle_words())
        img[self.ISCALE] = _u16(basemul.iscale_mont_word())
        img[self.BMC] = b"".join(_u16(w) for w in basemul.const_words())
        cw = codec.const_words()
        img[self.KC] = b"".join(cw[n] for n in self.const_names)
        return img

    def image(self, dk: bytes = None, c: bytes = None, dk_pke: bytes = None) -> dict:
        """DMEM image {addr: bytes}: inputs (dk or just dk_pke = s_hat encoding) and
        constants."""
        img = self.const_image()
        for name, blob, n, addr in (("dk", dk, self.dk_len, self.DK),
                                    ("dk_pke", dk_pke, 384 * self.k, self.DK),
                                    ("c", c, self.c_len, self.CT)):
            if blob is not None:
                if len(blob) != n:
                    raise ValueError(f"ML-KEM decaps (k = {self.k}): {name} must be {n} "
                                     f"bytes, not {len(blob)}")
                img[addr] = bytes(blob)
        return img

    def public_tables(self) -> tuple:
        """[lo, hi) of the constant tables (const_image: twiddles, scale, base-case and codec
        constants), the one DMEM range the end-of-operation wipe leaves besides the outputs:
        public (FIPS 203's constants, the same bytes in every run), only ever read by the
        program (never a store there; test_mlkem_wipe checks they still equal their image),
        so no secret can be in them; skipping them saves their words' cycles (47 / 47 / 63)."""
        img = self.const_image()
        lo = min(img)
        hi = max(a + len(b) for a, b in img.items())
        assert (lo, hi) == (self.TWID, self.WORK) and sum(map(len, img.values())) == hi - lo
        return (lo, hi)

    def public_kept(self) -> list:
        """[(lo, hi)] the end-of-operation wipe leaves besides the outputs: bytes that only
        ever hold public values (test_mlkem_wipe checks each equal to its public value):
        the constant tables (public_tables); dk's ek part and H(ek) (the public key and its
        hash) and the ciphertext c where the program never writes; the decoded u and v
        (UC, VC: functions of c), the decoded t_hat and the A_hat^T row buffers (functions
        of ek). ML-KEM-1024 reuses dead input bytes as
        buffers: there dk's s_hat encoding (fully overwritten by row buffer 0), the t_hat
        encoding (row buffer 1), rho, H(ek), c with t_hat[1..2] and row 2's last entry in it,
        and the spare (row 3's last entry) are kept; u' (t_hat[3] before) is wiped. dk's
        s_hat (512 / 768) and z and every buffer of secret-derived values are wiped."""
        lo, hi = self.public_tables()
        assert self.CT + self.c_len == lo
        if self.early_row0:
            assert self.rows[0][:3] == [self.DK + 512 * j for j in range(3)] and \
                self.rows[1][:3] == [self.DK_T + 512 * j for j in range(3)] and \
                self.DK_T - self.DK == 1536 and self.rows[1][3] == self.SPARE
            return [(self.DK, self.DK_Z), (self.CT, hi), (self.UC, self.VC + 512),
                    (self.SPARE, self.SPARE + 512)]
        assert self.AM == self.T_HAT + 512 * self.k and self.END == self.AM + 1024 * self.k
        return [(self.DK_T, self.DK_Z), (self.CT, hi), (self.UC, self.VC + 512),
                (self.T_HAT, self.END)]

    @property
    def status_addr(self) -> int:
        return self.STATUS

    def outputs(self, dmem: bytes) -> bytes:
        """K from the DMEM after the run."""
        return bytes(dmem[self.K_OUT:self.K_OUT + 32])

    # ---------------------------------------------------------------- code pieces
    def ntt_polys(self, addr, n, transpose=False, dsrc=None):
        """n NTTs in place at addr (or from Decompress10 of the words y << 6 at dsrc into
        addr); transpose: store the base-case layout (basemul.transposed_store)."""
        load = None if dsrc is None else codec.decompress10_load(9, self.KA)
        store = basemul.transposed_store if transpose else None
        body = ntt.ntt_body("x8", self.TWID, load, store, _m) + ["addi x8, x8, 512"]
        L = _li(8, addr)
        if dsrc is not None:
            L += _li(9, dsrc)
            body.append("addi x9, x9, 512")
        return L + _loop(n, body)

    def intt_poly(self, addr):
        return _li(8, addr) + ntt.intt_body("x8", self.ITWID, self.ISCALE, _m)

    def decrypt_core(self, j_hash=False):
        """j_hash (decaps): absorb J(z || c) during the u decode (port held; digest read
        later by _g_hash)."""
        k, KA = self.k, self.KA
        L = ["lui x30, 4", "csrrw x0, VMODE, x0"]      # the decoders' 16-bit lanes
        if j_hash:
            # FIPS 203 7.3 hash check: H(ek) of the ek inside dk, absorbed during the s_hat
            # decode; the number of differing lanes goes to the status slot (no branch)
            L += [f"addi x1, x0, {SHA3_256}"] + _li(2, self.ek_len) + \
                ["kmac.start x1, x2"] + _li(7, self.DK_T) + ["addi x3, x0, -1"]
        L += codec.decode_unpk(12, self.DK, self.S_HAT, 16 * k,
                               kmac_words=self.ek_len // 32 if j_hash else 0)
        if j_hash:
            L += ["kmac.dig w0", f"bn.lw w1, {_m(self.DK_H)}", "bn.or.acc x9, w0, w1",
                  "bn.xor w2, w2, w2", "bn.wsrw ACC, w2"] + status.store_reg(9, self.STATUS, "w3")
            L += [f"addi x1, x0, {SHAKE256}"] + _li(2, 32 + self.c_len) + \
                ["kmac.start x1, x2"] + _li(7, self.DK_Z) + ["addi x3, x0, -1"]
        jw = (32 + self.c_len) // 32 if j_hash else 0
        # u, v kept as y << (16 - d) (the compare's form; decompressed on the way)
        L += codec.decode_unpk(self.du, self.CT, self.UC, 16 * k, shift=16 - self.du,
                               kmac_words=jw)
        L += codec.decode_unpk(self.dv, self.CT_V, self.VC, 16, shift=16 - self.dv)
        def bm(blocks=(0, 8)):
            return basemul.basemul_loop([(self.S_HAT + 512 * j, self.u_polys[j])
                                         for j in range(k)], self.W, self.BMC, one_gamma=True,
                                        blocks=blocks)
        # Compress1 + ByteEncode1 fused into the INTT of w (w never stored), Decompress_dv
        # of v from the decoded y << (16 - dv) on the way (no buffer for it)
        intt_msg = _li(8, self.W) + ntt.intt_body(
            "x8", self.ITWID, self.ISCALE, _m, codec.message_fin(self.VC, self.MSK, self.MOUT,
                                                                 KA, _m, d=self.dv))
        dec_ntt = self.ntt_polys(self.U, k, transpose=True, dsrc=self.UC)
        if not (j_hash and self.early_row0):
            return L + dec_ntt + bm() + intt_msg
        # ML-KEM-1024: J's digest read now (the KMAC is free), then A_hat^T row 0 sampled
        # into its buffer (dead input bytes) in the shadow of the rest of the decryption
        # (the products in two halves: a shadow for each job)
        L += ["kmac.dig w9", f"bn.sw w9, {_m(self.KBAR)}"]
        shadows = [dec_ntt, bm((0, 4)), bm((4, 4)), intt_msg]
        for j in range(k):
            L += _pair(self._start_a(0, j, self._abuf(0, j)), shadows[j])
        return L

    def decrypt_program(self) -> str:
        """K-PKE.Decrypt: dk_PKE at DK, c at CT -> m at MOUT."""
        return "\n".join(self.decrypt_core() + ["ecall"]) + "\n"

    # the job starts' constant operands, in GPRs no kernel of the program uses (set by
    # _job_consts in the init phase; x29 is the select's, after the last job)
    JOB_CONSTS = {22: 1, 23: -1, 24: 256, 25: SHAKE256, 26: 33, 27: SHAKE128, 28: 34, 29: 3}

    def _job_consts(self):
        return [f"addi x{r}, x0, {v}" for r, v in self.JOB_CONSTS.items()]

    def _start_job(self, xof, seed, suffix, suffix_len, dst, mode):
        """sample.start's job (XOF(seed || suffix) sampled into dst in the background) with
        its constants from JOB_CONSTS: 5 instructions fewer a job. Uses x4, x5, w1, w2."""
        x_xof, x_len, x_mask = (25, 26, 22) if suffix_len == 1 else (27, 28, 29)
        assert xof == {25: SHAKE256, 27: SHAKE128}[x_xof]
        return [f"bn.lw w1, {_m(seed)}", f"kmac.start x{x_xof}, x{x_len}", "kmac.msg w1, x23",
                f"addi x4, x0, {suffix}", "bn.ins w2, x4, 0", f"kmac.msg w2, x{x_mask}"] + \
            _li(5, dst) + [f"smp.run x5, x24, {mode}"]

    def _start_prf(self, n, dst, mode="cbd2"):
        """SHAKE256(r || n) -> CBD -> dst (256 coefficients), in the background (VMODE 0)."""
        return self._start_job(SHAKE256, self.RSEED, n, 1, dst, mode)

    def _start_a(self, i, j, dst):
        """SampleNTT(SHAKE128(rho || i || j)) -> dst (= A_hat^T[i][j] = A_hat[j][i])."""
        return self._start_job(SHAKE128, self.DK_RHO, i | j << 8, 2, dst, "uni12")

    def _g_hash(self):
        """Read J's digest (K_bar; ML-KEM-1024: read before), then (K', r) = G(m' || h),
        SHA3-512 on the side-load."""
        return ([] if self.early_row0 else ["kmac.dig w9", f"bn.sw w9, {_m(self.KBAR)}"]) + \
            [f"addi x1, x0, {SHA3_512}", "addi x2, x0, 64", "kmac.start x1, x2",
                f"bn.lw w1, {_m(self.MOUT)}", f"bn.lw w2, {_m(self.DK_H)}", "addi x3, x0, -1",
                "kmac.msg w1, x3", "kmac.msg w2, x3", "kmac.dig w3", "kmac.dig w4",
                f"bn.sw w3, {_m(self.KP)}", f"bn.sw w4, {_m(self.RSEED)}"]

    def _check(self, kind, src, i=None):
        """Re-encryption check of u'[i] (kind "u") or v' (kind "v") at src
        (codec.compress_compare against the decoded ciphertext kept in UC / VC)."""
        if self.k == 4:                      # IMEM: the looped form
            if kind == "u":
                return codec.compress_compare_loop("u", src, self.u_polys[i],
                                                   self.UC + 512 * i, self.KA, d=self.du)
            return codec.compress_compare_loop("v", src, self.E2, self.VC, self.KA,
                                               msk=self.MSK, d=self.dv)
        if kind == "u":
            return codec.compress_compare("u", src, self.u_polys[i], self.UC + 512 * i,
                                          self.KA, d=self.du)
        return codec.compress_compare("v", src, self.E2, self.VC, self.KA, msk=self.MSK,
                                      d=self.dv)

    def _select(self):
        """K = K' if c' = c (ACC clean: x9 = 0) else K_bar (w2); then K = 0 and status
        DK_HASH_MISMATCH if the hash check's lane count (in the status slot) is non-zero,
        else status OK: constant time (masks, bn.sel, GPR arithmetic)."""
        bad, ok = status.DK_HASH_MISMATCH, status.OK
        L = ["bn.bcast w3, x9", f"bn.lw w4, {_m(self.KA['one'])}",
             f"bn.lw w6, {_m(self.KP)}", f"bn.lw w2, {_m(self.KBAR)}",
             "bn.ltv w5, w3, w4", "bn.sel w5, w6, w2"]
        L += _li(29, self.STATUS) + ["lw x10, 0(x29)", "sltiu x11, x10, 1", "sub x11, x0, x11"]
        L += _li(12, ok ^ bad) + ["and x12, x12, x11"] + _li(13, bad) + \
            ["xor x12, x12, x13"] + status.store_reg(12, self.STATUS, "w10")
        L += ["bn.bcast w7, x10", "bn.ltv w8, w7, w4", "bn.xor w9, w9, w9",
              "bn.sel w8, w5, w9", f"bn.sw w8, {_m(self.K_OUT)}"]
        return L

    def _abuf(self, i, j):
        """Row buffer of A_hat^T[i][j]: rows i and i + 2 share a buffer (row i is dead when
        row i + 2 is sampled, after the products of row i)."""
        return self.rows[i % 2][j]

    def phases(self):
        """[(name, lines)] of ML-KEM.Decaps_internal; run in order, then ecall."""
        k = self.k
        ph = [("init", ["bn.xor w15, w15, w15", "bn.wsrw ACC, w15", "kmac.acq"] +
               self._job_consts())]
        ph.append(("decrypt (+ J absorb)", self.decrypt_core(j_hash=True)))
        ph.append(("G", self._g_hash()))
        # t_hat decode in 2k chunks of 8 words, PRF y_0.., e1_0.. in their shadow
        prf = [(n, self.YV + 512 * n, f"cbd{self.eta1}") for n in range(k)] + \
            [(k + n, self.u_polys[n], "cbd2") for n in range(k)]
        # x31 = 1 for the whole phase (VMODE 0 from x0); the decode constants stay loaded
        # (the job start uses w1, w2) and x6 runs on within a polynomial
        L = []
        for c, (n, dst, mode) in enumerate(prf):
            L += self._start_prf(n, dst, mode) + \
                codec.decode_unpk(12, self.DK_T + 192 * c,
                                  None if c % 2 else self.t_polys[c // 2], 8) + ["smp.wait"]
        ph.append(("decode t_hat + PRF y, e1", L))
        # t_hat is A_hat^T row buffer 1 for k = 4: v's products before row 1 is sampled
        def bm_v_part(blocks=(0, 8)):
            return basemul.basemul_loop([(self.t_polys[j], self.YV + 512 * j)
                                         for j in range(k)], self.VP, self.BMC,
                                        one_gamma=True, blocks=blocks)
        bm_v = bm_v_part()
        L = []
        if self.early_row0:
            # row 0 was sampled during the decryption; row 1's first k - 1 entries (in the
            # dead t_hat encoding) and e2 in the shadow of NTT(y), v's products last (its
            # t_hat buffer holds row 1's last entry)
            jobs = [self._start_a(1, j, self._abuf(1, j)) for j in range(k - 1)] + \
                [self._start_prf(2 * k, self.E2)]
            for j in range(k):
                L += _pair(jobs[j], self.ntt_polys(self.YV + 512 * j, 1, transpose=True) +
                           (bm_v if j == k - 1 else []))
            ph.append(("NTT(y), products of v + A row 1 (k - 1 entries), e2", L))
        else:
            for j in range(k):
                L += _pair(self._start_a(0, j, self._abuf(0, j)),
                           self.ntt_polys(self.YV + 512 * j, 1, transpose=True))
            ph.append(("NTT(y) + A row 0", L))

        def bm_u(i):
            return basemul.basemul_loop([(self._abuf(i, j), self.YV + 512 * j)
                                         for j in range(k)], self.UP, self.BMC, one_gamma=True)

        def intt_fin_u(i):
            """INTT of u'[i] with its compare fused in (u' never stored)."""
            fin = codec.compare_fin("u", self.u_polys[i], self.UC + 512 * i, self.KA, _m,
                                    d=self.du)
            return _li(8, self.UP) + ntt.intt_body("x8", self.ITWID, self.ISCALE, _m, fin)
        # the jobs of rows 1.. and e2, each with the first core chunk whose inputs are
        # complete (priority: products of u row 0, its INTT + check, the products of v,
        # row 1, its INTT + check, the INTT of v, row 2, ...); the products of row i need
        # its jobs waited for, i.e. the next job started
        chunks = []
        for i in range(k):
            if self.early_row0 and i >= k - 2:  # fused (IMEM: two)
                chunks += [(f"bmu{i}", i, bm_u(i)), (f"ifu{i}", i, intt_fin_u(i))]
            elif self.early_row0:            # more, shorter chunks: a job for each
                chunks += [(f"bmu{i}", i, bm_u(i)), (f"ifu{i}", i, self.intt_poly(self.UP)),
                           (f"cmpu{i}", i, self._check("u", self.UP, i))]
            else:
                chunks += [(f"bmu{i}", i, bm_u(i)), (f"ifu{i}", i, intt_fin_u(i))]
            if not self.early_row0 and i < 2:
                # the products of v in two halves (two shadows: the INTT of v' runs with
                # its compare fused in at the end, after e2)
                chunks.append((f"bmv{i}", 0, bm_v_part((4 * i, 4))))
            if i == 1 and self.early_row0:
                chunks.append(("inttv", 1, self.intt_poly(self.VP)))
        if self.early_row0:
            jobs = [(1, self._start_a(1, k - 1, self._abuf(1, k - 1)))] + \
                [(i, self._start_a(i, j, self._abuf(i, j))) for i in range(2, k)
                 for j in range(k)]
        else:
            jobs = [(i, self._start_a(i, j, self._abuf(i, j))) for i in range(1, k)
                    for j in range(k)] + [(k, self._start_prf(2 * k, self.E2))]
        L = []
        for row, job in jobs:
            # rows < row are complete (waited for); row buffer row % 2 is free
            assert row < 2 or row == k or all(c[0] != f"bmu{row - 2}" for c in chunks)
            c = next((c for c in chunks if c[1] < row), None)
            if c:
                chunks.remove(c)
            L += _pair(job, c[2] if c else [])
        names = [c[0] for c in chunks]
        ph.append((f"A rows 1..{k - 1}" + ("" if self.early_row0 else " + e2") +
                   " | basemul, INTT, compress, compare", L))
        L = []
        for c in chunks:
            L += c[2]
        if self.early_row0:
            L += self._check("v", self.VP)
        else:                                # INTT of v' with its compare fused in
            fin = codec.compare_fin("v", self.E2, self.VC, self.KA, _m, msk=self.MSK,
                                    d=self.dv)
            L += _li(8, self.VP) + ntt.intt_body("x8", self.ITWID, self.ISCALE, _m, fin)
        ph.append((f"{', '.join(names)}, " + ("compare v" if self.early_row0 else
                                               "INTT + compare of v"), L))
        ph.append(("select", self._select() + ["kmac.rel"]))
        ph.append(("wipe", status.end([(self.K_OUT, self.K_OUT + 32),
                                       (self.STATUS, self.STATUS + 32)] +
                                      self.public_kept(), size=self.END)))
        return ph

    def program(self) -> str:
        """ML-KEM.Decaps_internal: dk at DK, c at CT -> K at K_OUT. The phases list-scheduled across
        their seams (asm_util.phase_program)."""
        return phase_program(self.phases(), schedule=True, head=["lui x30, 4"])

    def ct_policy(self) -> dict:
        """What the constant-time check (ip/acc/tools/constant_time.py) takes as secret at
        entry: dk's s_hat encoding and z; public: the rest of dk (t_hat, rho: the ek part;
        H(ek)), the ciphertext and the constant tables; any other DMEM byte counts as
        secret (the program must not read a buffer it has not written). No exceptions."""
        public = {"dk.ek (t_hat, rho)": (self.DK_T, self.DK_H), "dk.h": (self.DK_H, self.DK_Z),
                  "c": (self.CT, self.CT + self.c_len)}
        for addr, blob in sorted(self.const_image().items()):
            public[f"constants@{addr}"] = (addr, addr + len(blob))
        return {"secret": {"dk.s_hat": (self.DK, self.DK_T),
                           "dk.z": (self.DK_Z, self.DK_Z + 32)},
                "public": public, "rest": "secret", "allow": []}


def decaps(param: int) -> Decaps:
    """The decaps of ML-KEM-512, -768 or -1024."""
    if param not in PARAMS:
        raise ValueError(f"ML-KEM decaps: parameter set must be one of {sorted(PARAMS)}, "
                         f"not {param}")
    return Decaps(PARAMS[param])


# ------------------------------------------------------------------ ML-KEM-768 (module names)
_D = Decaps(3)
K = _D.k
DK, DK_T, DK_RHO, DK_H, DK_Z = _D.DK, _D.DK_T, _D.DK_RHO, _D.DK_H, _D.DK_Z
CT, CT_V, TWID, ITWID, ISCALE, BMC, KC, KA, WORK = (_D.CT, _D.CT_V, _D.TWID, _D.ITWID,
                                                    _D.ISCALE, _D.BMC, _D.KC, _D.KA, _D.WORK)
UP, MOUT, KP, RSEED, KBAR, K_OUT = _D.UP, _D.MOUT, _D.KP, _D.RSEED, _D.KBAR, _D.K_OUT
S_HAT, U, V, W, UC, VC, MSK, T_HAT = (_D.S_HAT, _D.U, _D.V, _D.W, _D.UC, _D.VC, _D.MSK,
                                      _D.T_HAT)
YV, E1, E2, VP, AM, END = _D.YV, _D.E1, _D.E2, _D.VP, _D.AM, _D.END
const_image = _D.const_image
image = _D.image
ntt_polys = _D.ntt_polys
intt_poly = _D.intt_poly
decrypt_core = _D.decrypt_core
decrypt_program = _D.decrypt_program
decaps_phases = _D.phases
decaps_program = _D.program
ct_policy = _D.ct_policy
