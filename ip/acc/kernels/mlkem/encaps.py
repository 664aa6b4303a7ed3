# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""ML-KEM encapsulation on the ACC: ML-KEM.Encaps_internal(ek, m) (FIPS 203 Alg. 17, with
K-PKE.Encrypt Alg. 14) as one program, for ML-KEM-512 / -768 / -1024: the parameter set
is the argument k (2, 3, 4; eta1 = 3 for k = 2, else 2; eta2 = 2; du = 10, 10, 11;
dv = 4, 4, 5), the kernels are the library's (ntt.py, basemul.py, codec.py, sample.py).

    en = Encaps(k)                        # or encaps(768)
    src = en.program()                    # assembly text
    dm = en.image(ek, m)                  # {addr: bytes} (inputs + constant tables)
    ... run on the ISS ...; K, c = en.outputs(dmem)

Status and wipe (ip/acc/README.md "ML-KEM programs"): the program writes its status word
(status.py) at `status_addr` and ends with status.end: DMEM zeroed but its outputs and the
status slot, every register zeroed, the KMAC released.
FIPS 203 7.2: the decoded t_hat is checked < q (_ek_check); on failure the program takes
its failure path (fail_path: status EK_INVALID, no output).

Design:
* H(ek) = SHA3-256 is absorbed in the shadow of ByteDecode12 of t_hat (codec.decode_unpk:
  bn.unpk, message words spread over its periods), then (K, r) = G(m || H(ek))
  (SHA3-512); the KMAC side-load port is held for the whole program.
* The sampler jobs (y, e1, e2 = CBD(PRF(r, N)), A_hat^T[i][j] = SampleNTT(rho || i || j))
  run on the stream unit in the background of core work: after each job is started, the
  first core chunk whose inputs are complete runs in its shadow (`_schedule`), then
  smp.wait. Chunks: NTT(y_j) (stored in the base-case transposed layout), the base-case
  products of v (t_hat^T y_hat) and of each row i of u (A_hat^T[i] y_hat), their INTTs
  (the scale word also removes the products' 2^-16), Compress_d (+ e1_i, or + e2 +
  Decompress1(m)) and ByteEncode_d (codec.compress / codec.encode).
* c = ByteEncode_du(Compress_du(u)) || ByteEncode_dv(Compress_dv(v)) is written over the
  ek input (its t_hat encoding is dead after the decode and H; c is never longer than ek;
  rho is copied first, the A_hat^T jobs read the copy).
* Two row buffers of A_hat^T (row i in buffer i % 2): a row's job waits until the
  products of the row two before have run (`_schedule` puts them first).
"""
from ip.acc.kernels import sample
from ip.acc.kernels.asm_util import li as _li, loop as _loop, mem as _m, phase_program
from ip.acc.kernels.mlkem import basemul, codec, ntt, status
from ip.acc.kernels.mlkem.codec import u16 as _u16
from ip.acc.kernels.mlkem.keygen import PARAMS, SHA3_256
from ip.acc.kernels.sample import SHA3_512, SHAKE128, SHAKE256

DU = {2: 10, 3: 10, 4: 11}
DV = {2: 4, 3: 4, 4: 5}


def _vmode(v):
    return [f"addi x31, x0, {v}", "csrrw x0, VMODE, x31"]


class Encaps:
    """The encaps program and its DMEM layout for one parameter set (k = 2, 3, 4)."""

    def __init__(self, k: int):
        if k not in (2, 3, 4):
            raise ValueError(f"ML-KEM encaps: k must be 2, 3 or 4, not {k}")
        self.k = k
        self.eta1 = 3 if k == 2 else 2
        self.du, self.dv = DU[k], DV[k]
        self.ek_len = 384 * k + 32
        self.c_len = 32 * (self.du * k + self.dv)
        assert self.c_len <= self.ek_len
        # ------------------------------------------------------------ DMEM layout (bytes)
        self.EK = 0                          # input ek: t_hat enc | rho
        self.C = 0                           # output c, over ek (written after the decode)
        self.EK_RHO = self.EK + 384 * k
        self.M = self.EK + self.ek_len       # input m
        self.K_OUT = self.M + 32             # output K
        self.STATUS = self.K_OUT + 32        # status word (status.py), in a 32-byte slot
        self.HEK = self.STATUS + 32          # H(ek)
        self.RSEED = self.HEK + 32           # r
        self.RHO = self.RSEED + 32           # copy of rho
        self.TWID = self.RHO + 32
        self.ITWID = self.TWID + 256
        self.ISCALE = self.ITWID + 256
        self.BMC = self.ISCALE + 32
        self.KC = self.BMC + 9 * 32
        names = ["q"]
        for d in (self.du, self.dv):
            names += [n for n in codec.compress_const_names(d) if n not in names]
        self.const_names = names
        self.KA = {n: self.KC + 32 * i for i, n in enumerate(names)}
        self.T_HAT = self.KC + 32 * len(names)     # k polys, natural
        self.Y = self.T_HAT + 512 * k        # k polys: y, NTT in place (transposed layout)
        self.E1 = self.Y + 512 * k           # k polys
        self.E2 = self.E1 + 512 * k
        self.VP = self.E2 + 512              # v accumulator, INTT, compressed in place
        self.UP = self.VP + 512              # u[i] accumulator, likewise
        self.AM = self.UP + 512              # 2 row buffers of A_hat^T (k polys each)
        self.END = self.AM + 2 * 512 * k     # peak DMEM use (bytes)

    # ---------------------------------------------------------------- image
    def const_image(self) -> dict:
        cw = codec.const_words()
        return {self.TWID: b"".join(_u16(w) for w in ntt.twiddle_words()),
                self.ITWID: b"".join(_u16(w) for w in ntt.itwiddle_words()),
                self.ISCALE: _u16(basemul.iscale_mont_word()),
                self.BMC: b"".join(_u16(w) for w in basemul.const_words()),
                self.KC: b"".join(cw[n] for n in self.const_names)}

    def image(self, ek: bytes, m: bytes) -> dict:
        """DMEM image {addr: bytes}: ek, m and the constant tables."""
        if len(ek) != self.ek_len or len(m) != 32:
            raise ValueError(f"ML-KEM encaps (k = {self.k}): ek must be {self.ek_len} bytes "
                             f"and m 32 (got {len(ek)}, {len(m)})")
        img = self.const_image()
        img[self.EK] = bytes(ek)
        img[self.M] = bytes(m)
        return img

    @property
    def status_addr(self) -> int:
        return self.STATUS

    def outputs(self, dmem: bytes) -> tuple[bytes, bytes]:
        """(K, c) from the DMEM after the run."""
        return (bytes(dmem[self.K_OUT:self.K_OUT + 32]),
                bytes(dmem[self.C:self.C + self.c_len]))

    # ---------------------------------------------------------------- pieces
    def _h_decode(self):
        """Copy rho; H(ek) absorbed during ByteDecode12 of t_hat (VMODE 0)."""
        nw = self.ek_len // 32
        return [f"bn.lw w1, {_m(self.EK_RHO)}", f"bn.sw w1, {_m(self.RHO)}"] + \
            ["csrrw x0, VMODE, x0", f"addi x1, x0, {SHA3_256}"] + _li(2, self.ek_len) + \
            ["kmac.start x1, x2", "addi x3, x0, -1"] + _li(7, self.EK) + \
            codec.decode_unpk(12, self.EK, self.T_HAT, 16 * self.k, kmac_words=nw)

    def _ek_check(self):
        """FIPS 203 7.2 (modulus check) on the decoded t_hat (VMODE 0): any 16-bit lane >= q
        makes ACC non-zero; ek is public, so a branch to the failure path (`EK_FAIL`)."""
        body = ["bn.lw.pi w0, 0(x5)", "bn.lw.pi w1, 0(x5)", "bn.ltv w2, w0, w14",
                "bn.ltv w3, w1, w14", "bn.or.acc x9, w2, w12", "bn.or.acc x9, w3, w12"]
        return [f"bn.lw w14, {_m(self.KA['q'])}", "bn.xor w13, w13, w13",
                "bn.wsrw ACC, w13", "bn.ltv w12, w13, w14"] + _li(5, self.T_HAT) + \
            _loop(8 * self.k, body) + ["beq x9, x0, EK_OK", "jal x0, EK_FAIL", "EK_OK:"]

    def fail_path(self):
        """The failure path of the ek check: the PRF job in flight waited for, the KMAC
        released, DMEM wiped but the status word EK_INVALID (no output), registers zeroed."""
        return ["EK_FAIL:", "smp.wait", "kmac.rel"] + \
            status.end([(self.STATUS, self.STATUS + 32)], status.EK_INVALID, self.STATUS,
                       self.END) + \
            ["ecall"]

    def _g_hash(self):
        """H's digest, then (K, r) = G(m || H(ek))."""
        return ["kmac.dig w9", f"bn.sw w9, {_m(self.HEK)}",
                f"addi x1, x0, {SHA3_512}", "addi x2, x0, 64", "kmac.start x1, x2",
                f"bn.lw w1, {_m(self.M)}", "addi x3, x0, -1",
                "kmac.msg w1, x3", "kmac.msg w9, x3", "kmac.dig w3", "kmac.dig w4",
                f"bn.sw w3, {_m(self.K_OUT)}", f"bn.sw w4, {_m(self.RSEED)}"]

    def _abuf(self, i, j):
        return self.AM + 512 * self.k * (i % 2) + 512 * j

    def _jobs(self):
        """[(name, lines)] of the sampler jobs in start order: y_0..y_{k-1}, e2, then per row
        i of A_hat^T its k entries and e1_i."""
        k = self.k
        jobs = []
        for n in range(k):
            jobs.append((f"y{n}", sample.start(SHAKE256, self.RSEED, n, 1, self.Y + 512 * n,
                                               f"cbd{self.eta1}")))
        jobs.append(("e2", sample.start(SHAKE256, self.RSEED, 2 * k, 1, self.E2, "cbd2")))
        for i in range(k):
            for j in range(k):
                jobs.append((f"a{i}{j}", sample.start(SHAKE128, self.RHO, i | j << 8, 2,
                                                      self._abuf(i, j), "uni12")))
            jobs.append((f"e1_{i}", sample.start(SHAKE256, self.RSEED, k + i, 1,
                                                 self.E1 + 512 * i, "cbd2")))
        return jobs

    def _chunks(self):
        """[(name, needs: names of jobs / chunks done before, lines)] of the core work, in
        priority order."""
        k, du, dv = self.k, self.du, self.dv
        ch = [("dect", set(), self._ek_check())]
        for j in range(k):
            ch.append((f"ntt{j}", {f"y{j}"},
                       _li(8, self.Y + 512 * j) +
                       ntt.ntt_body("x8", self.TWID, None, basemul.transposed_store, _m)))
        allntt = {f"ntt{j}" for j in range(k)}
        for i in range(k):
            row = {f"a{i}{j}" for j in range(k)}
            terms = [(self._abuf(i, j), self.Y + 512 * j) for j in range(k)]
            ch.append((f"bmu{i}", row | allntt | ({f"encu{i - 1}"} if i else set()),
                       basemul.basemul_loop(terms, self.UP, self.BMC)))
            ch.append((f"inttu{i}", {f"bmu{i}"}, self._intt(self.UP)))
            ch.append((f"cmpu{i}", {f"inttu{i}", f"e1_{i}"},
                       codec.compress(du, self.UP, [self.E1 + 512 * i], self.UP, self.KA)))
            ch.append((f"encu{i}", {f"cmpu{i}", "dect"},      # c over ek: after its decode
                       _vmode(1) + codec.encode(du, self.UP, self.C + 32 * du * i, 1,
                                                self.KA) + _vmode(0)))
        terms = [(self.T_HAT + 512 * j, self.Y + 512 * j) for j in range(k)]
        ch.append(("bmv", allntt | {"dect"}, basemul.basemul_loop(terms, self.VP, self.BMC)))
        ch.append(("inttv", {"bmv"}, self._intt(self.VP)))
        ch.append(("cmpv", {"inttv", "e2"},
                   codec.compress(dv, self.VP, [self.E2], self.VP, self.KA, m=self.M)))
        ch.append(("encv", {"cmpv", "dect"}, _vmode(1) + codec.encode(dv, self.VP,
                                                                self.C + 32 * du * k, 1,
                                                                self.KA) + _vmode(0)))
        return ch

    def _intt(self, addr):
        return _li(8, addr) + ntt.intt_body("x8", self.ITWID, self.ISCALE, _m)

    def _schedule(self):
        """[(name, lines)]: each job started, the first ready chunk in its shadow, smp.wait;
        a job that overwrites an A_hat^T row buffer first runs the chunks the products of
        the row two before need (in priority order); the rest of the chunks after the
        last job."""
        chunks = self._chunks()
        done, out = set(), []
        pending = list(chunks)

        def take(name):
            for c in pending:
                if c[0] == name:
                    pending.remove(c)
                    done.add(name)
                    return c[2]
            raise AssertionError(name)

        def run_until(name):
            lines = []
            while name not in done:
                c = next(c for c in pending if c[1] <= done)
                lines += take(c[0])
            return lines
        for name, job in self._jobs():
            pre = []
            if name[0] == "a" and name[2] == "0" and int(name[1]) >= 2:
                pre = run_until(f"bmu{int(name[1]) - 2}")
            ready = next((c for c in pending if c[1] <= done), None)
            body = take(ready[0]) if ready else []
            out.append((f"{name}" + (f" | {ready[0]}" if ready else ""),
                        pre + job + body + ["smp.wait"]))
            done.add(name)
        tail, names = [], []
        while pending:
            c = next(c for c in pending if c[1] <= done)
            names.append(c[0])
            tail += take(c[0])
        out.append(("rest: " + ", ".join(names), tail))
        return out

    # ---------------------------------------------------------------- program
    def phases(self):
        """[(name, lines)] of ML-KEM.Encaps_internal; run in order, then ecall."""
        ph = [("init, H(ek) | decode t_hat", ["kmac.acq"] + self._h_decode()),
              ("G", self._g_hash())]
        ph += self._schedule()
        ph[-1] = (ph[-1][0], ph[-1][1] + ["kmac.rel"])
        ph.append(("wipe, status OK", status.end(
            [(self.C, self.C + self.c_len), (self.K_OUT, self.K_OUT + 32),
             (self.STATUS, self.STATUS + 32)], status.OK, self.STATUS, self.END)))
        return ph

    def program(self) -> str:
        """ML-KEM.Encaps_internal: ek at EK, m at M -> K at K_OUT, c at C (over ek). The phases list-scheduled across
        their seams (asm_util.phase_program)."""
        return phase_program(self.phases(), schedule=True, head=["lui x30, 4"]) + \
            "\n".join(self.fail_path()) + "\n"

    def ct_policy(self) -> dict:
        """What the constant-time check (ip/acc/tools/constant_time.py) takes as secret at
        entry: m; public: ek and the constant tables; any other DMEM byte counts as secret
        (the program must not read a buffer it has not written). No exceptions."""
        public = {"ek": (self.EK, self.EK + self.ek_len)}
        for addr, blob in sorted(self.const_image().items()):
            public[f"constants@{addr}"] = (addr, addr + len(blob))
        return {"secret": {"m": (self.M, self.M + 32)}, "public": public, "rest": "secret",
                "allow": []}


def encaps(param: int) -> Encaps:
    """The encaps of ML-KEM-512, -768 or -1024."""
    if param not in PARAMS:
        raise ValueError(f"ML-KEM encaps: parameter set must be one of {sorted(PARAMS)}, "
                         f"not {param}")
    return Encaps(PARAMS[param])
