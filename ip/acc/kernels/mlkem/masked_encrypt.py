# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""First-order masked re-encryption of ML-KEM decapsulation (K-PKE.Encrypt, FIPS 203 Alg. 14,
before Compress) on the ACC, for k = 2, 3, 4 (issue #38).

Decapsulation re-encrypts m' with r' (both secret, from the masked decoding and the masked G)
and compares the result with the ciphertext. This program computes the re-encryption up to
that comparison, on shares: r' and m' come in two Boolean shares (r' = r0 ^ r1, m' = m0 ^ m1),
u' = INTT(A_hat^T o NTT(y)) + e1 and v' = INTT(t_hat^T o NTT(y)) + e2 + Decompress_1(m') come
out in two arithmetic shares mod q (u' = u'0 + u'1, v' = v'0 + v'1), for the masked
comparison to take. The public key ek is public.

* Noise: y, e1, e2 = SamplePolyCBD(PRF(r', N)) through the KMAC's masked mode and the stream
  unit's masked CBD mode (masked_hash.prf_cbd), each polynomial in two arithmetic shares.
* Decompress_1(m') = 1665 m': the stream unit's b2a1m turns m''s bits into arithmetic shares,
  and each share is multiplied by 1665 (linear).
* The linear work runs once per share with the unmasked kernels (NTT, base-case products,
  INTT, additions mod q) as subroutines; the public A_hat^T entries are sampled (uni12) in the
  background of it into a ring of k + 1 buffers whose first k hold the decoded t_hat before
  the rows (16 KiB holds no more for ML-KEM-1024); `schedule` gives every sampler job at
  least MIN_SHADOW cycles of core work, so no duration depends on ek.
* Wherever the core's work changes share: every register zeroed, the multiplier flushed, a
  public load and store on the DMEM ports (masked.flush). The noise jobs run beside share
  work of the core: the DMEM write port keeps the unit's share words and the core's stores
  apart while a masked mode runs (a cycle of 0 between them: isa.yml smp.run). b2a1m, which
  reads DMEM through the read register the core's loads use, runs beside public work only.

At the end every byte that held a share or a value computed from one is zeroed but the
outputs (u', v' in shares), and so is every register.

`leak` seeds a first-order leak for the assessment's own check: "joined" loads each word of the
last noise polynomial (e1_{k-1}) in share 0 and then in share 1 into one register (the noise
is a function of r' alone, so fixed in a fixed-secret class, and small: its shares' Hamming
distance shows it; u' and v' also depend on the key).
"""
from ip.acc.kernels import sample
from ip.acc.kernels.asm_util import li as _li, mem as _m, wipe_all_but
from ip.acc.kernels.mlkem import basemul, codec, ntt
from ip.acc.kernels.mlkem.codec import u16 as _u16
from ip.acc.kernels.mlkem.masked import Q, flush, seed_urnd, wipe
from ip.acc.kernels.mlkem.masked_hash import PRF_SETS, SHAKE256_MASKED, prf_cbd
from ip.acc.kernels.sample import SHAKE128

LEAKS = (None, "joined")
MONT_1665 = 1665 * (1 << 16) % Q          # bn.mulvm by it (Montgomery, R = 2^16): x -> 1665 x mod q


class MaskedEncrypt:
    """The program and its DMEM layout for one parameter set (512, 768, 1024)."""

    def __init__(self, param: int = 768, leak: str | None = None):
        if param not in PRF_SETS:
            raise ValueError(f"masked K-PKE.Encrypt: ML-KEM-{param} is not one of 512, 768, 1024")
        if leak not in LEAKS:
            raise ValueError(f"unknown seeded leak {leak!r}")
        self.param, self.leak = param, leak
        k, self.eta1, self.eta2 = PRF_SETS[param]
        self.k = k
        # the noise added as the INTT's last layer leaves each word (me_intt_add), not in a pass
        # of its own; not for ML-KEM-1024: its rows of four A_hat^T entries then leave no core
        # work for an entry job's shadow where a row's products wait for its last entries
        self.fused = k < 4
        # a shadow ends with the least ready chunk that completes it (tight) or with the first
        # in priority order: the better of the two on the ISS (ip/acc/dv/bench_masked.py) for
        # ML-KEM-1024, whose rows of four A_hat^T jobs need their shadows packed
        self.tight = k == 4
        self.ek_len = 384 * k + 32
        # ------------------------------------------------------------ DMEM layout (bytes)
        self.EK = 0                           # ek: t_hat encoding | rho (public)
        self.RHO = self.EK + 384 * k
        w = self.EK + self.ek_len             # the secret inputs, each share between public words
        self.R0, self.ZR, self.R1, self.NW = (w + 32 * i for i in range(4))   # MaskedPRF's order
        self.M0, self.ZM, self.M1 = (w + 32 * i for i in range(4, 7))     # b2a1m's source order
        self.SCRATCH = w + 32 * 7             # the public store between the shares
        self.TWID = w + 32 * 8
        self.ITWID = self.TWID + 256
        self.ISCALE = self.ITWID + 256
        self.BMC = self.ISCALE + 32
        self.K1665 = self.BMC + 9 * 32
        self.Y = self.K1665 + 32              # y_j: share 0 at Y + 1024 j, share 1 512 after
        self.U = self.Y + 1024 * k            # u'_j: the same
        self.V = self.U + 1024 * k            # v': share 0, then share 1
        self.NT = self.V + 1024               # e1_i, e2, then 1665 m': share 0, then share 1
        self.RB = self.NT + 1024              # A_hat^T's entries, a ring of k + 1; then t_hat
        self.END = self.RB + 512 * (k + 1)
        assert self.END <= 16384, self.END

    def poly(self, base: int, j: int, share: int) -> int:
        """Address of polynomial j's share (Y, U: k polynomials; V, NT: j = 0)."""
        return base + 1024 * j + 512 * share

    # ------------------------------------------------------------------ host side
    def image(self, ek: bytes, r0: bytes, r1: bytes, m0: bytes, m1: bytes) -> dict:
        """DMEM image {addr: bytes}: ek, the shares of r' and of m', the constant words."""
        for name, v, n in (("ek", ek, self.ek_len), ("r0", r0, 32), ("r1", r1, 32),
                           ("m0", m0, 32), ("m1", m1, 32)):
            if len(v) != n:
                raise ValueError(f"masked K-PKE.Encrypt (ML-KEM-{self.param}): {name} must be "
                                 f"{n} bytes, not {len(v)}")
        return {self.EK: bytes(ek), self.R0: bytes(r0), self.ZR: bytes(32), self.R1: bytes(r1),
                self.NW: bytes(range(32)), self.M0: bytes(m0), self.ZM: bytes(32), self.M1: bytes(m1),
                self.TWID: b"".join(_u16(x) for x in ntt.twiddle_words()),
                self.ITWID: b"".join(_u16(x) for x in ntt.itwiddle_words()),
                self.ISCALE: _u16(basemul.iscale_mont_word()),
                self.BMC: b"".join(_u16(x) for x in basemul.const_words()),
                self.K1665: _u16([MONT_1665] * 16)}

    def outputs(self, dmem: bytes) -> tuple[list, list, list[int], list[int]]:
        """(u'0, u'1, v'0, v'1): u''s shares as k lists of 256 coefficients each, v''s as one."""
        def coeffs(a):
            return [int.from_bytes(dmem[a + 2 * i:a + 2 * i + 2], "little") for i in range(256)]
        return ([coeffs(self.poly(self.U, j, 0)) for j in range(self.k)],
                [coeffs(self.poly(self.U, j, 1)) for j in range(self.k)],
                coeffs(self.poly(self.V, 0, 0)), coeffs(self.poly(self.V, 0, 1)))

    def kept(self) -> list:
        """[(lo, hi)] the final wipe leaves: the outputs, and what only ever holds public values
        (ek, the zero and N words, the scratch word, the constants, the row buffer)."""
        return [(self.EK, self.R0), (self.ZR, self.ZR + 32), (self.NW, self.M0), (self.ZM, self.ZM + 32),
                (self.SCRATCH, self.Y), (self.U, self.NT), (self.RB, self.END)]

    def ct_policy(self) -> dict:
        """The constant-time check's view: the shares of r' and m' secret; ek, the zero and N
        words and the constants public; any other byte secret until written."""
        return {"secret": {"r' share 0": (self.R0, self.R0 + 32), "r' share 1": (self.R1, self.R1 + 32),
                           "m' share 0": (self.M0, self.M0 + 32), "m' share 1": (self.M1, self.M1 + 32)},
                "public": {"ek": (self.EK, self.R0), "zero (r')": (self.ZR, self.ZR + 32),
                           "N": (self.NW, self.M0), "zero (m')": (self.ZM, self.ZM + 32),
                           "constants": (self.TWID, self.Y)},
                "rest": "secret", "allow": []}

    def share_policy(self) -> dict:
        """For the share-domain check (ip/acc/tools/share_check.py): r' and m' in two shares,
        no gadget in the program (the masked KMAC and the stream unit's masked modes are ones
        in hardware)."""
        return {"shares": {"r' share 0": (self.R0, self.R0 + 32, 0), "r' share 1": (self.R1, self.R1 + 32, 1),
                           "m' share 0": (self.M0, self.M0 + 32, 0), "m' share 1": (self.M1, self.M1 + 32, 1)}}

    # ------------------------------------------------------------------ pieces
    # Subroutines (jal x28 / jalr x0, 0(x28), as ML-DSA's; IMEM would not hold the linear work
    # inlined per share): the NTT and INTT of the polynomial at x8, the base-case products
    # (the caller sets basemul.pointers), the flush between shares.
    def _call(self, sub: str, **regs) -> list[str]:
        return [x for r, v in regs.items() for x in _li(int(r[1:]), v)] + [f"jal x28, {sub}"]

    def _subroutines(self) -> list[str]:
        L = []
        for name, body in (
                ("me_flush", flush(self.ZR, self.SCRATCH)),
                ("me_ntt", ntt.ntt_body("x8", self.TWID, None, basemul.transposed_store, _m)),
                ("me_intt", ntt.intt_body("x8", self.ITWID, self.ISCALE, _m)),
                *([("me_intt_add", self._intt_add())] if self.fused else []),
                ("me_prod", basemul.basemul_loop([(0, 0)] * self.k, None, self.BMC, one_gamma=True))):
            L += [f"{name}:", *body, "jalr x0, 0(x28)"]
        return L

    def _intt_add(self) -> list[str]:
        """The INTT of the polynomial share at x8 with the noise share at x9 added as each
        result word leaves the last layer (e1_i or e2: one pass over the words fewer)."""
        def consume(r, reg):
            return [f"bn.addvm %o{r}, {reg}, %n{r}", f"bn.sw %o{r}, {32 * r}(x8)"]
        loads = {f"%n{r}": f"bn.lw %n{r}, {32 * r}(x9)" for r in range(16)}
        return ntt.intt_body("x8", self.ITWID, self.ISCALE, _m, (consume, loads), [("x9", "x8")])

    def _noise(self, n: int, eta: int, dst: int) -> list[str]:
        """Noise polynomial N = n into dst (both shares), started (the caller waits). After core
        work on either share: the registers it loads r''s shares into are zeroed first (without
        a read) and the zero word goes first on the DMEM read register."""
        return [*wipe("w1", "w2", "w3", "w4"), f"bn.lw w4, {_m(self.ZR)}", f"bn.lw w1, {_m(self.R0)}",
                f"bn.lw w4, {_m(self.ZR)}", f"bn.lw w2, {_m(self.R1)}",
                f"bn.lw w3, {_m(self.NW)}", f"addi x1, x0, {SHAKE256_MASKED}", "addi x3, x0, -1",
                *_li(10, dst), "addi x5, x0, 256", *prf_cbd(n, eta), *wipe("w1", "w2")]

    def _b2a(self, dst: int) -> list[str]:
        """m''s bits into arithmetic shares at dst (stream unit b2a1m), started; the zero word
        on the DMEM read register before the unit's first read (share 0), after the core's
        loads of either share."""
        return [f"bn.lw w3, {_m(self.ZM)}", *_li(6, self.M0), "csrrw x0, SMP_SRC, x6", *_li(5, dst), "addi x4, x0, 256",
                "smp.run x5, x4, b2a1m"]

    def _products(self, entries, share: int, dst: int) -> list[str]:
        """dst = sum_j entries[j] o y_hat_j's share (2^-16 carried: the INTT's scale word removes it)."""
        terms = [(a, self.poly(self.Y, j, share)) for j, a in enumerate(entries)]
        return basemul.pointers(terms, dst, self.BMC) + ["jal x28, me_prod"]

    def _add(self, dst: int, src: int, share: int, scale: bool = False) -> list[str]:
        """dst's share += src's share mod q (scale: 1665 times src's). x10: src's word, x11: dst's."""
        body = ["bn.lw.pi w0, 0(x10)"] + (["bn.mulvm w0, w0, w15"] if scale else []) + \
            ["bn.lw w1, 0(x11)", "bn.addvm w2, w1, w0", "bn.sw.pi w2, 0(x11)"]
        return ([f"bn.lw w15, {_m(self.K1665)}"] if scale else []) + \
            _li(10, self.poly(src, 0, share)) + _li(11, self.poly(dst, 0, share)) + \
            [f"loopi 16, {len(body)}", *body]

    def _entry(self, i: int, j: int) -> int:
        """A_hat^T[i][j]'s buffer: entry i k + j of a ring of k + 1 buffers whose first k hold
        t_hat (entries -k .. -1): the next row's first entry is sampled while this row's
        products run."""
        return self.RB + 512 * ((i * self.k + j + self.k) % (self.k + 1))

    def _est(self, kind: str) -> int:
        return {"ntt": 160, "intt": 185, "add": 85, "prod": 125 * self.k, "dect": 40 * self.k}[kind]

    def _chunks(self) -> list[tuple]:
        """[(name, share or None, needs, est. cycles, lines)] of the core work, in priority order:
        v first (t_hat is decoded into the ring before A_hat^T needs it), then u' row by row,
        each share's products, INTT and additions together (a flush where the share changes)."""
        k = self.k
        ch = [("dect", None, set(), self._est("dect"), codec.decode_unpk(12, self.EK, self.RB, 16 * k))]
        ntts = {s: {f"ntt{j}_{s}" for j in range(k)} for s in (0, 1)}
        for s in (0, 1):
            ch += [(f"ntt{j}_{s}", s, {f"y{j}"}, self._est("ntt"), self._call("me_ntt", x8=self.poly(self.Y, j, s)))
                   for j in range(k)]
            ch += [(f"prodv_{s}", s, {"dect"} | ntts[s], self._est("prod"),
                    self._products([self.RB + 512 * j for j in range(k)], s, self.poly(self.V, 0, s))),
                   *self._intt_noise(f"inttv_{s}", f"adde2_{s}", s, {f"prodv_{s}"}, "e2", self.V),
                   (f"addmu_{s}", s, {f"{self._noised('v')}_{s}", "b2a"}, self._est("add"),
                    self._add(self.V, self.U, s, True))]
        for i in range(k):
            u, row = self.poly(self.U, i, 0), {f"a{i}{j}" for j in range(k)}
            for s in (0, 1):
                ch += [(f"prod{i}_{s}", s, row | ntts[s] | ({"addmu_0", "addmu_1"} if i == 0 else set()),
                        self._est("prod"), self._products([self._entry(i, j) for j in range(k)], s, self.poly(u, 0, s))),
                       *self._intt_noise(f"intt{i}_{s}", f"add{i}_{s}", s, {f"prod{i}_{s}"}, f"e1_{i}", u)]
        return ch

    def _intt_noise(self, intt: str, add: str, s: int, needs: set, noise: str, dst: int) -> list[tuple]:
        """The chunks of dst's share s = INTT(its products) + the noise's share: one fused
        chunk, or the INTT and the addition."""
        if self.fused:
            return [(intt, s, needs | {noise}, self._est("intt") + 20,
                     self._call("me_intt_add", x8=self.poly(dst, 0, s), x9=self.poly(self.NT, 0, s)))]
        return [(intt, s, needs, self._est("intt"), self._call("me_intt", x8=self.poly(dst, 0, s))),
                (add, s, {intt, noise}, self._est("add"), self._add(dst, self.NT, s))]

    def _noised(self, j) -> str:
        """The name of the chunk after which v' (j = 'v') or u'_j holds its noise."""
        if j == "v":
            return "inttv" if self.fused else "adde2"
        return f"intt{j}" if self.fused else f"add{j}"

    def _masked_jobs(self) -> dict:
        """{name: (needs, lines)} of the stream unit's masked jobs: y_j into Y; e2 and e1_i take
        NT in turn (each after the adds that read the one before); 1665 m' goes to u'[0]'s
        place (free until its products)."""
        k = self.k
        jobs = {f"y{j}": (set(), self._noise(j, self.eta1, self.poly(self.Y, j, 0))) for j in range(k)}
        jobs.update({"e2": (set(), self._noise(2 * k, self.eta2, self.NT)), "b2a": (set(), self._b2a(self.U))})
        prev = {f"{self._noised('v')}_{s}" for s in (0, 1)}
        for i in range(k):
            jobs[f"e1_{i}"] = (prev, self._noise(k + i, self.eta2, self.NT))
            prev = {f"{self._noised(i)}_{s}" for s in (0, 1)}
        return jobs

    # ------------------------------------------------------------------ schedule
    # a sampler job of A_hat^T takes 112..127 cycles (3 000 random seeds, ISS); each gets core
    # chunks of at least MIN_SHADOW cycles in its shadow (_est: each chunk's cycles, measured on
    # the ISS, rounded down), so no wait, and no duration, depends on ek. A noise job (the
    # masked PRF and cbd2m / cbd3m) takes a fixed time; NOISE_SHADOW of core work beside it
    # covers most of it.
    MIN_SHADOW = 160
    NOISE_SHADOW = 220

    def schedule(self) -> list[tuple[str, list[str]]]:
        """[(what, lines)]: the noise jobs with core work of either share beside them (the DMEM
        write port separates the unit's share words from the core's stores: isa.yml smp.run):
        y_j and e2 first, each e1_i as soon as its buffer is free and enough core work is ready
        for it and the next A_hat^T job (also between the chunks that free that job's ring
        buffer; else when a chunk needs it);
        each A_hat^T job with core chunks of at least MIN_SHADOW cycles in its shadow (after the
        chunks that free its ring buffer); a shadow takes first the chunks the next A_hat^T
        job's buffer waits for (`soon`), then the current share's (tight: the least chunk that
        completes it); b2a (it reads DMEM through the read register the core's loads use) with
        only public work beside it; a flush wherever the share of the core's work changes.
        A noise job started early can take the chunks a later A_hat^T job needed: then that
        one waits until a chunk needs it (lazy), and the schedule is made again."""
        lazy = set()
        while True:
            try:
                return self._schedule(lazy)
            except _Starved as e:
                left = [m for m in e.eager if m not in lazy]
                assert left, f"A_hat^T job {e.job}: no core work for its shadow"
                lazy.add(left[-1])

    def _schedule(self, lazy: set) -> list[tuple[str, list[str]]]:
        k = self.k
        eager = []
        pending, masked = self._chunks(), self._masked_jobs()
        done, out, state = set(), [], {"share": None, "soon": set()}

        def take(c):
            pending.remove(c)
            lines = c[4]
            if c[1] is not None and state["share"] not in (None, c[1]):
                lines = ["jal x28, me_flush"] + lines
            if c[1] is not None:
                state["share"] = c[1]
            out.append((c[0], lines))
            done.add(c[0])

        def ready():
            """The ready chunks: those the next A_hat^T job's buffer waits for (soon) first,
            then the current share's (and public ones)."""
            r = [c for c in pending if c[2] <= done]
            return sorted(r, key=lambda c: (c[0] not in state["soon"], c[1] not in (None, state["share"])))

        def shadow(least: int, keep: int = 0) -> int:
            """Core work beside a started job: ready chunks until `least` estimated cycles,
            while chunks of `keep` cycles stay ready (the next job's shadow); returns the
            estimate."""
            n = 0
            while n < least:
                r = ready()
                r = [c for c in r if sum(d[3] for d in r) - c[3] >= keep]
                fin = [c for c in r if n + c[3] >= least] if self.tight else []
                c = min(fin, key=lambda c: c[3]) if fin else next(iter(r), None)
                if c is None:
                    break
                take(c)
                n += c[3]
            return n

        def run_masked(name, keep: int = 0):
            needs, lines = masked.pop(name)
            assert needs <= done, (name, needs - done)
            out.append((name, lines))
            if name == "b2a":                      # (~80 cycles: a public chunk if one is ready)
                pub = next((c for c in ready() if c[1] is None), None)
                if pub:
                    take(pub)
            else:
                shadow(self.NOISE_SHADOW, keep)
            out.append(("wait", ["smp.wait"]))
            done.add(name)

        def noise_ready():
            return [m for m in masked if m != "b2a" and m not in lazy and masked[m][0] <= done]

        def unblock() -> bool:
            """Run the masked jobs the first chunk that waits only for them needs."""
            for c in pending:
                missing = c[2] - done
                if missing and missing <= set(masked) and all(masked[m][0] <= done for m in missing):
                    for m in sorted(missing):
                        run_masked(m)
                    return True
            return False

        by_name = {c[0]: c for c in pending}

        def ancestry(name) -> set:
            out, todo = set(), [name]
            while todo:
                n = todo.pop()
                if n in by_name and n not in out:
                    out.add(n)
                    todo += by_name[n][2]
            return out

        def run_until(*names):
            """Only the chunks `names` need (the others stay for the shadows)."""
            need = set().union(*map(ancestry, names))
            while not set(names) <= done:
                eager_noise()                      # (beside the chunks on the way; its shadow
                if set(names) <= done:             # may finish them)
                    break
                r = [c for c in ready() if c[0] in need]
                if r:
                    take(r[0])
                else:
                    assert unblock(), names

        for j in range(k):
            run_masked(f"y{j}")
        run_masked("e2")                           # (NT is free; y's NTTs beside it)

        def frees(e) -> list[str]:
            """The chunks after which entry e's ring buffer is free (-1: none; t_hat's: -k .. -1)."""
            return [] if e < 0 else [f"prodv_{s}" if e < k else f"prod{(e - k) // k}_{s}" for s in (0, 1)]

        def eager_noise():
            for m in noise_ready():                # the noise whose buffer is free, first,
                if sum(c[3] for c in ready()) >= self.NOISE_SHADOW + self.MIN_SHADOW:
                    eager.append(m)
                    run_masked(m, keep=self.MIN_SHADOW)         # the A_hat^T job keeps its shadow

        for i in range(k):
            for j in range(k):
                need = frees(i * k + j - 1)        # the entry this one's ring buffer held before
                state["soon"] = set().union(set(), *map(ancestry, need))
                run_until(*need)
                eager_noise()
                if sum(c[3] for c in ready()) < self.MIN_SHADOW:
                    unblock()                      # not enough ready work: the masked jobs first
                out.append((f"a{i}{j}", sample.start(SHAKE128, self.RHO, i | j << 8, 2, self._entry(i, j), "uni12")))
                state["soon"] = set().union(set(), *map(ancestry, frees(i * k + j)))   # the next job's
                if shadow(self.MIN_SHADOW) < self.MIN_SHADOW:
                    raise _Starved(f"a{i}{j}", eager)
                out.append(("wait", ["smp.wait"]))
                done.add(f"a{i}{j}")
        while pending:
            for m in noise_ready():
                run_masked(m)
            r = ready()
            if r:
                take(r[0])
            else:
                assert unblock(), [c[0] for c in pending]
        assert not masked, masked
        return out

    # ------------------------------------------------------------------ program
    def program(self) -> str:
        return "\n".join(["csrrw x0, VMODE, x0", *seed_urnd()] + self.body() + ["ecall"] + self.tail()) + "\n"

    def tail(self) -> list[str]:
        """What follows the ecall: the subroutines."""
        return self._subroutines()

    def body(self) -> list[str]:
        """VMODE 0, URND seeded -> the outputs; DMEM wiped but them and the public bytes, every
        register zeroed."""
        L = ["kmac.acq"]
        L += [x for _, lines in self.schedule() for x in lines]
        L += ["kmac.rel"]
        if self.leak == "joined":
            L += [f"bn.lw w5, {_m(self.ZM)}"] + [x for r in range(16) for x in (
                f"bn.lw w5, {_m(self.poly(self.NT, 0, 0) + 32 * r)}", f"bn.lw w5, {_m(self.poly(self.NT, 0, 1) + 32 * r)}",
                f"bn.lw w5, {_m(self.ZM)}")] + wipe("w5")
        return L + wipe_all_but(self.kept(), self.END)


class _Starved(Exception):
    """An A_hat^T job found too little core work for its shadow; `eager`: the noise jobs
    started before a chunk needed them, in order."""

    def __init__(self, job: str, eager: list):
        super().__init__(job)
        self.job, self.eager = job, eager
