# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""ML-KEM key generation on the ACC: ML-KEM.KeyGen_internal(d, z) (FIPS 203 Alg. 16, with
K-PKE.KeyGen Alg. 13) as one program, for ML-KEM-512 / -768 / -1024: the parameter set is
the argument k (2, 3, 4; eta1 = 3 for k = 2, else 2), the kernels are the library's
(ntt.py, basemul.py, codec.py, sample.py).

    kg = Keygen(k)
    src = kg.program()                    # assembly text
    dm = kg.image(d, z)                   # {addr: bytes} (inputs + constant tables)
    ... run on the ISS ...; dk = dmem[kg.DK:kg.DK + kg.dk_len]; ek = dmem[kg.EK:...]

Status and wipe (ip/acc/README.md "ML-KEM programs"): the program writes its status word
(status.py) at `status_addr` and ends with status.end: DMEM zeroed but its outputs and the
status slot, every register zeroed, the KMAC released.

Design:
* (rho, sigma) = G(d || k), SHA3-512 on the KMAC side-load (port held for the whole
  program); rho lands in its place at the end of ek.
* s, e = CBD_eta1(PRF(sigma, N)) and A_hat[i][j] = SampleNTT(rho || j || i) run on the
  stream unit in the background of core work (`_pair`: start job, core chunk, smp.wait):
  the NTT of the previous PRF output, ByteEncode12 of s_hat, the base-case products of
  the previous row of A_hat, ByteEncode12 of the rows of t_hat already done.
* s_hat is stored by the NTT in the base-case transposed layout (basemul.transposed_store),
  which the products want and codec.encode12 reads at no extra cost; e_hat natural.
* t_hat[i] = sum_j A_hat[i][j] o s_hat[j] + e_hat[i] (basemul.basemul_loop with add: the
  2^-16 of the Montgomery products removed, result < q), in place over e_hat[i].
* dk = ByteEncode12(s_hat) || ek || H(ek) || z is built in place: z is an input at its
  final address, t_hat's encoding and rho form ek inside dk, and H = SHA3-256 reads ek
  from DMEM at the end.
"""
from ip.acc.kernels import sample
from ip.acc.kernels.asm_util import li as _li, loop as _loop, mem as _m, phase_program
from ip.acc.kernels.mlkem import basemul, codec, ntt, status
from ip.acc.kernels.mlkem.codec import u16 as _u16
from ip.acc.kernels.sample import SHA3_512, SHAKE128, SHAKE256

SHA3_256 = 0 | 2 << 2          # kmac.start mode | strength << 2 (as sample.SHA3_512)

PARAMS = {512: 2, 768: 3, 1024: 4}     # parameter set -> k


def _vmode(v):
    return [f"addi x31, x0, {v}", "csrrw x0, VMODE, x31"]


def _pair(job, chunk):
    """Start a sampler job, run core work in its shadow, wait for the job."""
    return job + chunk + ["smp.wait"]


class Keygen:
    """The keygen program and its DMEM layout for one parameter set (k = 2, 3, 4)."""

    def __init__(self, k: int):
        if k not in (2, 3, 4):
            raise ValueError(f"ML-KEM keygen: k must be 2, 3 or 4, not {k}")
        self.k = k
        self.eta1 = 3 if k == 2 else 2
        # ------------------------------------------------------------ DMEM layout (bytes)
        self.dk_len = 768 * k + 96
        self.ek_len = 384 * k + 32
        self.DK = 0                          # output dk: s_hat enc | ek | H(ek) | z
        self.EK = self.DK + 384 * k          # ek = t_hat enc | rho (inside dk)
        self.RHO = self.DK + 768 * k
        self.HEK = self.RHO + 32
        self.Z = self.HEK + 32               # input z, at its final place
        self.D = self.DK                     # input d: in the s_hat encoding (dead after G)
        self.SIGMA = self.DK + self.dk_len
        self.STATUS = self.SIGMA + 32        # status word (status.py), in a 32-byte slot
        self.TWID = self.STATUS + 32         # 8 words NTT twiddles
        self.BMC = self.TWID + 256           # 9 words base-case multiply constants
        self.KC = self.BMC + 9 * 32          # codec.ENCODE_CONST_NAMES
        self.KA = {n: self.KC + 32 * i for i, n in enumerate(codec.ENCODE_CONST_NAMES)}
        self.S_HAT = self.KC + 32 * len(codec.ENCODE_CONST_NAMES)   # k polys, transposed
        self.E_HAT = self.S_HAT + 512 * k    # k polys: e_hat, then t_hat in place
        self.AM = self.E_HAT + 512 * k       # 2 row buffers of A_hat (k polys each)
        self.END = self.AM + 2 * 512 * k     # peak DMEM use (bytes)

    # ---------------------------------------------------------------- image
    def const_image(self) -> dict:
        cw = codec.const_words()
        return {self.TWID: b"".join(_u16(w) for w in ntt.twiddle_words()),
                self.BMC: b"".join(_u16(w) for w in basemul.const_words()),
                self.KC: b"".join(cw[n] for n in codec.ENCODE_CONST_NAMES)}

    def image(self, d: bytes, z: bytes) -> dict:
        """DMEM image {addr: bytes}: the seeds d, z and the constant tables."""
        if len(d) != 32 or len(z) != 32:
            raise ValueError(f"ML-KEM keygen: d and z must be 32 bytes each "
                             f"(got {len(d)}, {len(z)})")
        img = self.const_image()
        img[self.D] = bytes(d)
        img[self.Z] = bytes(z)
        return img

    @property
    def status_addr(self) -> int:
        return self.STATUS

    def ct_policy(self) -> dict:
        """What the constant-time check (ip/acc/tools/constant_time.py) takes as secret at
        entry: d and z; public: the constant tables; any other DMEM byte counts as secret.
        One declared release: rho (G(d || k)'s first half) is published in ek (FIPS 203
        Alg. 13), so the A_hat sampling's run time may depend on it; sigma, the other half,
        stays secret. No exceptions."""
        public = {f"constants@{a}": (a, a + len(b)) for a, b in sorted(self.const_image().items())}
        return {"secret": {"d": (self.D, self.D + 32), "z": (self.Z, self.Z + 32)},
                "public": public, "rest": "secret", "allow": [],
                "release": [{"dmem": (self.RHO, self.RHO + 32),
                             "reason": "rho, published in ek (FIPS 203 Alg. 13)"}]}

    def outputs(self, dmem: bytes) -> tuple[bytes, bytes]:
        """(ek, dk) from the DMEM after the run."""
        return (bytes(dmem[self.EK:self.EK + self.ek_len]),
                bytes(dmem[self.DK:self.DK + self.dk_len]))

    # ---------------------------------------------------------------- pieces
    def _g_hash(self):
        """(rho, sigma) = G(d || k): SHA3-512 of 33 bytes."""
        return [f"bn.lw w1, {_m(self.D)}", f"addi x1, x0, {SHA3_512}", "addi x2, x0, 33",
                "kmac.start x1, x2", "addi x3, x0, -1", "kmac.msg w1, x3",
                f"addi x4, x0, {self.k}", "bn.ins w2, x4, 0", "addi x3, x0, 1",
                "kmac.msg w2, x3", "kmac.dig w3", "kmac.dig w4",
                f"bn.sw w3, {_m(self.RHO)}", f"bn.sw w4, {_m(self.SIGMA)}"]

    def _poly(self, n):
        """Address of PRF output N = n: s[n] (n < k), else e[n - k]."""
        k = self.k
        return self.S_HAT + 512 * n if n < k else self.E_HAT + 512 * (n - k)

    def _start_prf(self, n):
        """CBD_eta1(PRF_eta1(sigma, n)) -> s[n] or e[n - k], in the background (VMODE 0)."""
        return sample.start(SHAKE256, self.SIGMA, n, 1, self._poly(n), f"cbd{self.eta1}")

    def _arow(self, i):
        return self.AM + 512 * self.k * (i % 2)

    def _start_a(self, i, j):
        """A_hat[i][j] = SampleNTT(rho || j || i) -> row buffer i % 2, entry j."""
        return sample.start(SHAKE128, self.RHO, j | i << 8, 2, self._arow(i) + 512 * j,
                            "uni12")

    def _ntt(self, n):
        """NTT in place of PRF output n: s (transposed layout, for the products and the
        encoding) or e (natural)."""
        store = basemul.transposed_store if n < self.k else None
        return _li(8, self._poly(n)) + ntt.ntt_body("x8", self.TWID, None, store, _m)

    def _row(self, i):
        """t_hat[i] = sum_j A_hat[i][j] o s_hat[j] + e_hat[i], over e_hat[i]."""
        t = self.E_HAT + 512 * i
        terms = [(self._arow(i) + 512 * j, self.S_HAT + 512 * j) for j in range(self.k)]
        return basemul.basemul_loop(terms, t, self.BMC, add=t)

    def _encode_s(self, j):
        return _vmode(1) + codec.encode12(self.S_HAT + 512 * j, self.DK + 384 * j, 1,
                                          self.KA, transposed=True) + _vmode(0)

    def _encode_t(self, i):
        return _vmode(1) + codec.encode12(self.E_HAT + 512 * i, self.EK + 384 * i, 1,
                                          self.KA) + _vmode(0)

    def _h_hash(self):
        """H(ek) = SHA3-256 of the ek bytes in DMEM -> HEK."""
        nw = self.ek_len // 32
        return [f"addi x1, x0, {SHA3_256}"] + _li(2, self.ek_len) + \
            ["kmac.start x1, x2", "addi x3, x0, -1"] + _li(7, self.EK) + \
            _loop(nw, ["bn.lw.pi w1, 0(x7)", "kmac.msg w1, x3"]) + \
            ["kmac.dig w2", f"bn.sw w2, {_m(self.HEK)}"]

    # ---------------------------------------------------------------- program
    def phases(self):
        """[(name, lines)] of ML-KEM.KeyGen_internal; run in order, then ecall."""
        k = self.k
        ph = [("init + G", ["kmac.acq"] + _vmode(0) + self._g_hash())]
        L = self._start_prf(0) + ["smp.wait"]
        for n in range(1, 2 * k):
            L += _pair(self._start_prf(n), self._ntt(n - 1))
        ph.append(("PRF s, e | NTT", L))
        # core work that only waits for its inputs fills the shadow of the A_hat jobs
        fill = [self._encode_s(j) for j in range(k)]
        L = _pair(self._start_a(0, 0), self._ntt(2 * k - 1))
        for j in range(1, k):
            L += _pair(self._start_a(0, j), fill.pop(0) if fill else [])
        ph.append(("A_hat row 0 | NTT, encode s_hat", L))
        L = []
        for i in range(1, k):
            L += _pair(self._start_a(i, 0), self._row(i - 1))
            fill.append(self._encode_t(i - 1))
            for j in range(1, k):
                L += _pair(self._start_a(i, j), fill.pop(0) if fill else [])
        ph.append(("A_hat rows 1.. | t_hat rows, encode", L))
        L = self._row(k - 1)
        fill.append(self._encode_t(k - 1))
        for f in fill:
            L += f
        ph.append(("last t_hat row, encode rest", L))
        ph.append(("H(ek)", self._h_hash() + ["kmac.rel"]))
        ph.append(("wipe, status OK", status.end(
            [(self.DK, self.DK + self.dk_len), (self.STATUS, self.STATUS + 32)],
            status.OK, self.STATUS, self.END)))
        return ph

    def program(self) -> str:
        """ML-KEM.KeyGen_internal: d at D, z at Z -> dk at DK (ek inside it at EK). The phases list-scheduled across
        their seams (asm_util.phase_program)."""
        return phase_program(self.phases(), schedule=True, head=["lui x30, 4"])


def keygen(param: int) -> Keygen:
    """The keygen of ML-KEM-512, -768 or -1024."""
    if param not in PARAMS:
        raise ValueError(f"ML-KEM keygen: parameter set must be one of {sorted(PARAMS)}, "
                         f"not {param}")
    return Keygen(PARAMS[param])
