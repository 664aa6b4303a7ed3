# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""ML-DSA key generation on the ACC: ML-DSA.KeyGen_internal(xi) (FIPS 204 Alg. 6) as one
program for ML-DSA-44, -65 and -87: the parameter set is the argument ((k, l, eta) from
params.SETS), the kernels are the library's (ntt.py, the stream unit's uni23 / eta2 / eta4
samplers) plus this file's bn.pk packers (pack_s_pk, pack_t_s2_pk, on pack.Stream) and the last column's
multiply-accumulate fused into the INTT (mac_intt), and everything fits the taped-out
16 KiB IMEM and DMEM (ip/acc/block.py).

    kg = keygen(65)
    src = kg.program()                    # assembly text
    dm = kg.image(xi)                     # {addr: bytes}: xi and the constant tables
    ... run on the ISS ...; pk, sk = kg.outputs(dmem)

Measured (ISS = RTL, equal cycles and DMEM: `python -m ip.acc.dv.jobs mldsa_keygen --rtl`;
ip/acc/tests/test_rtl_acc.py runs the 65 program on the RTL):

| set | cycles | before the wipe | IMEM B | peak DMEM B | layout | s1_hat kept | NTTs |
|---|---|---|---|---|---|---|---|
| ML-DSA-44 | 8 551 | 8 400 | 7 064 | 15 552 | grouped, G = 4 | 4 of 4 | 4 |
| ML-DSA-65 | 13 439 | 13 410 | 8 116 | 16 224 | grouped, G = 6 | 1 of 5 | 5 |
| ML-DSA-87 | 21 225 | 21 356 | 9 980 | 15 840 | overlaid (8 rows) | 0 of 7 | 7 |

(xi from seed 7, the benchmark's. "cycles" is with the KMAC's message intake register, which
lets the core go on while a word is packed: 8 775 / 13 728 / 21 620 before it, the column
"before the wipe" and the breakdown below are from then.) The end wipe (issue #24 item 5; +375 / +318 / +264
cycles, +236 / +220 / +212 B IMEM): all of the 16 KiB DMEM but pk and sk zeroed (wide
stores, 1 cycle a word; pk | sk lie at 0 .. SK + sk_len, so that is everything above sk,
zeroed during tr's absorption, which reads only pk: the stores fill the core's waits for
the KMAC), then, after tr and the KMAC's release (it clears its state on release), every
WDR, ACC and GPR (asm_util.zero_registers); ip/acc/tests/test_mldsa_wipe.py checks every
byte and register on the ISS (every set) and the RTL (44). Peak DMEM is the data's; the
wipe covers all of it (program(wipe=False) runs in a DMEM cut to END).

The core is the bottleneck (the samplers finish in its shadow). Where ML-DSA-87's 21 620 go
(ISS): multiply-accumulate of the A_hat entries of the columns before the last 8 896
(mac_first 8 x 132, mac_acc 40 x 196: 6 instructions a coefficient word, tile, s1_hat and
accumulator loads, bn.mulvm, bn.addvm, store), the last column's multiply-accumulate with
the INTTs 3 640 (mac_intt, 8 x 455: the products' loads and adds fill the multiplier-bound
INTT's idle slots; 535 apart), the row ends 2 984 (pack_t, 8 x 373: one pass over acc and
s2, ~10 instructions a word, one wide store per 32 output bytes), NTTs 2 135, s1 packing
728 (7 x 104), the main line 3 237 (of it tr with the DMEM wipe 1 262: the KMAC takes a
message word in 6 cycles, a word that completes a rate block ~30, and the core waits; the
71 sampler job starts ~1 100). Issue #24's 25 000 for ML-DSA-87 is met. Nearly every cycle
issues an instruction, so more needs fewer instructions: the multiply-accumulate passes
(two A_hat tiles per pass save one of the 6 per word but want two more 1 KiB buffers than
the DMEM has: with one more, the sampler waits for a free buffer each pair) or the main
line's job starts.

Timing (issue #24 item 8: public data only): the count does not depend on the secret rho'
(it moves by a few cycles with the public rho: the A_hat jobs). An ExpandS job
(RejBoundedPoly, eta2 / eta4 on rho') reads as many SHAKE256 blocks as its rejections
need, and the KMAC squeezes one block ahead, so its end and the KMAC's settle (the next
START waits for the permutation in flight) move with rho'. Every ExpandS job runs in a
shadow that covers its worst case within 3 blocks (eta4; a 4th is needed with probability
4e-47) or 2 (eta2; a 3rd: below 1e-300): a pack and an NTT, a mac_intt or a row end, else
a fixed delay before its smp.wait (ETA_PAD: the first job, 152 / 116 cycles for eta4 /
eta2; 65's s1[2..4] after a mac_acc, 10). Measured on the ISS with injected digests (the
256th coefficient at the last nibble of the last block, most accepted first: the unit then
fetches one digest word at a time; or mid-block: the KMAC still permutes): the worst 3-block
eta4 job waits 140 cycles after its start where a typical one waits 85, 2-block eta2 102
(typical 64), and the next START up to 23 cycles more. To keep the delays few, 65 samples
s1[1] first (in the shadow of s1[0]'s pack and NTT, not of a mac_first) and 87 samples
s1[1] right after s1[0] into a fourth buffer. Cost: +49 / +67 / +51 cycles (44 / 65 / 87).
ip/acc/tests/test_mldsa_keygen.py: test_keygen_timing_* (16 random rho', injected worst
cases, xi found with a 3-block job), test_constant_time.py (the ExpandS range is ct_policy's
one exception).

Program (VMODE 1, KMAC port held throughout):
  1. (rho, rho', K) = H(xi || k || l, 128) (SHAKE256); rho -> pk and sk, K -> sk, rho' kept.
  2. The job constants into registers; s1[j] = RejBoundedPoly(rho' || j) (stream unit,
     eta2 / eta4) for the kept s1_hat (all s1 with more than one group): packed into sk at
     once (eta - s in 3 or 4 bits), NTT'd into its slot if kept; with one group, that
     group's first job starts in the shadow of the last one's pack and NTT.
  3. per group of G rows (a software loop over k / G groups; one group where G = k):
     column by column, s1_hat[j] (kept, or sampled and NTT'd; with one group each s1[j]
     is sampled only here and packed here too), then A_hat[i][j] = RejNTTPoly(rho || j ||
     i) (uni23) into a tile and multiply-accumulated into row i's accumulator (bn.mulvm,
     the 2^-32 removed by the INTT's mont twiddles): A_hat is streamed, one entry at a
     time, never stored; the last column's product is made inside row i's INTT
     (mac_intt). Then per row: s2[i] sampled; one pass (pack_t_s2_pk) packs s2's field
     eta - s2 into sk and, with u = t + 2^12 - 1, t = INTT(..) + s2[i], Power2Round's
     t1 = u >> 13 (10 bits, pk) and the sk field 2^12 - t0 = the low 13 bits of u xor
     (2^13 - 1): three bn.pk byte streams.
  4. tr = H(pk, 64) from the pk bytes in DMEM -> sk (the DMEM wipe in its shadow); KMAC
     released.
  5. wipe: every register zeroed; ecall.
Each sampler job starts as soon as the core no longer reads its buffer (three 1 KiB
buffers rotate as A_hat tiles and s1_hat made in the group), so it runs in the shadow of
the core work before it. The layout with the fewest NTTs is chosen per set
(`Keygen.__init__`).

DMEM (bytes): pk at 0 (rho | t1), sk at SK (rho | K | tr | s1 | s2 | t0; xi is the input
in tr's place); rho' and the constant words in pk's last t1 row (read for the last time
before it is packed). Grouped (44, 65): G rows at a time, the number of kept s1_hat the
most the DMEM left holds; the twiddle tables over the t0 rows of the last group (that
group's INTTs all run before its first row is packed); then the three buffers, the kept
s1_hat slots and the G accumulators (the highest: the last row's accumulator is read
while its t0 row is written). Overlaid (87: s1_hat does not fit beside pk, sk and G
accumulators, which cost a second group 6 re-made s1_hat and NTTs): all k rows in one
group, column by column, each s1_hat made once; the k accumulators, the twiddle tables
and the buffers lie over the parts of pk and sk that the end packs write only after
their last use (`_overlay`: the tables and one buffer over the rows' areas, row i's
accumulator where only rows after i write, the two s2 buffers above sk; where it
fits, a fourth buffer for s1_hat[1], dead after the columns: Timing).

Subroutines (jal x28 / jalr x0, 0(x28); never inside a hardware loop): the NTT in place
at x8, the multiply(-accumulate) of one entry, the last one fused with the INTT at x8,
the s packer and the fused row end (t1, t0, s2).
Register conventions of the main line: x21 = i0 << 8, x22 = i0 (the group's first row),
x24 / x25 / x26 the t1 / t0 / s2 output pointers, x29 the group counter, the job
constants x1..x3, x18, x19, x30, x31 (JOB_CONSTANTS); the subroutines use x5..x17, x20,
x23.
"""
import re

from ip.acc.kernels.asm_util import li as _li, loop as _loop, mem as _m, u32 as _u32
from ip.acc.kernels.asm_util import base_of, place_and_schedule, poly_io, twiddle_loads
from ip.acc.kernels.asm_util import zero_registers
from ip.acc.kernels.mldsa import ntt
from ip.acc.kernels.mldsa.pack import Stream, store_at
from ip.acc.block import DMEM_SIZE
from ip.acc.kernels.mldsa.params import D, SETS
from ip.acc.kernels.prog import Prog
from ip.acc.kernels.sample import SHAKE128, SHAKE256
from ip.acc.tools import sched

DMEM_BUDGET = DMEM_SIZE          # the taped-out DMEM
VMODE1 = ["addi x31, x0, 1", "csrrw x0, VMODE, x31"]


def _a32(x):
    return (x + 31) // 32 * 32


def pack_s_pk(sbits, eta="w15", pool=15):
    """BitPack of one s polynomial (FIPS 204 skEncode: eta - s in sbits = 3 or 4 bits) with
    bn.pk: 32 words at x5 -> 32 sbits bytes at x6 (32-byte aligned; neither moved); eta in
    every lane of `eta`. w0..w{pool-1}."""
    p = Prog([f"w{k}" for k in range(pool)])
    out = Stream(p, sbits, store_at("x6"), "s")
    for r in range(32):
        p.raw(f"bn.lw {{0}}, {32 * r}({{1}})", [f"%l{r}"], ["x5"])
        p.op("bn.subvm", f"%f{r}", eta, f"%l{r}")
        out.put(f"%f{r}")
    out.close()
    return p.text().splitlines()


def pack_t_s2_pk(sbits):
    """One row's end, fused, with bn.pk: acc (x5, the INTT's output) + s2 (x7) = t, u = t +
    2^12 - 1 (Power2Round's offset); t1 = u >> 13 (10 bits, 320 B at x24), the t0 field
    2^12 - t0 = (u mod 2^13) xor (2^13 - 1) (the low 13 bits of u xor w15: 416 B at x25)
    and s2's field eta - s2 (sbits bits, 32 sbits B at x26), each word of acc and s2
    loaded once. w13 = eta, w14 = 2^12 - 1, w15 = 2^13 - 1 (lanes); w0..w12. No pointer
    moved."""
    p = Prog([f"w{k}" for k in range(13)])
    t1 = Stream(p, 10, store_at("x24"), "a")
    t0 = Stream(p, D, store_at("x25"), "b")
    s2 = Stream(p, sbits, store_at("x26"), "c")
    for r in range(32):
        p.raw(f"bn.lw {{0}}, {32 * r}({{1}})", [f"%a{r}"], ["x5"])
        p.raw(f"bn.lw {{0}}, {32 * r}({{1}})", [f"%e{r}"], ["x7"])
        p.op("bn.subvm", f"%s{r}", "w13", f"%e{r}")
        s2.put(f"%s{r}")
        p.op("bn.addvm", f"%t{r}", f"%a{r}", f"%e{r}")
        p.op("bn.addv", f"%u{r}", f"%t{r}", "w14")
        p.op("bn.shrv", f"%h{r}", f"%u{r}", str(D))
        t1.put(f"%h{r}")
        p.op("bn.xor", f"%z{r}", f"%u{r}", "w15")
        t0.put(f"%z{r}")
    for s in (t1, t0, s2):
        s.close()
    return p.text().splitlines()


def mac_intt(itwid):
    """The last column's multiply-accumulate fused into the row's INTT (ntt.intt_body's
    passes and schedule): acc (x8) + tile (x10) o s1_hat (x15) (bn.mulvm, bn.addvm) is
    made word by word just before the INTT's first butterfly on it (where the INTT would
    load acc), then INTT'd in place at x8. The INTT is multiplier-bound (a butterfly every
    2 cycles), so the product's loads and adds fill idle issue slots: 460 cycles for the
    pair instead of 535 (mac_acc + INTT). Inverse twiddles at DMEM itwid
    (ntt.itwiddle_words(mont=True), which also removes bn.mulvm's 2^-32). Uses w0..w15;
    x8, x10, x15 not moved; the tile and s1_hat never alias acc."""
    loads, stores, out = twiddle_loads(_m, itwid, 33), {}, []
    for c in range(4):                                   # pass A, acc words made here
        words = list(range(8 * c, 8 * c + 8))
        poly_io(loads, stores, "%a", words, 0, "x8", "x8")
        for r in words:
            loads[f"%a{r}"] = None
            loads[f"%x{r}"] = f"bn.lw %x{r}, {32 * r}(x10)"
            loads[f"%y{r}"] = f"bn.lw %y{r}, {32 * r}(x15)"
            loads[f"%c{r}"] = f"bn.lw %c{r}, {32 * r}(x8)"
        made = set()                                     # each word made just before its
        for line in ntt.intt_pass_a([f"%a{r}" for r in words], c):     # first butterfly
            for r in map(int, re.findall(r"%a(\d+)", line)):
                if r not in made:
                    made.add(r)
                    out += [f"bn.mulvm %p{r}, %x{r}, %y{r}", f"bn.addvm %a{r}, %c{r}, %p{r}"]
            out.append(line)
    for g in range(4):                                   # pass B, as ntt.intt_body
        words = [g + 4 * i for i in range(8)]
        poly_io(loads, stores, "%b", words, 0, "x8", "x8")
        out += ntt.intt_pass_b(words, [f"%b{r}" for r in words])
    loads = {k: v for k, v in loads.items() if v is not None}
    table = base_of(_m(itwid))
    return place_and_schedule(out, loads, stores, [("x8", "x10"), ("x8", "x15"), (table, "x8")])


def _set_reg(reg, val, known):
    """x{reg} = val: nothing if `known` (reg -> value) has it, an addi from a known value
    within reach, else li; `known` updated."""
    if known.get(reg) == val:
        return []
    d = val - known[reg] if reg in known else None
    known[reg] = val
    return [f"addi x{reg}, x{reg}, {d}"] if d is not None and -2048 <= d < 2048 else _li(reg, val)


class Keygen:
    """The keygen program and its DMEM layout for one parameter set (44, 65, 87)."""

    def __init__(self, param: int, dmem_budget: int = DMEM_BUDGET):
        if param not in SETS:
            raise ValueError(f"ML-DSA keygen: parameter set must be one of {sorted(SETS)}, "
                             f"not {param}")
        self.param = param
        self.k, self.l, self.eta = k, l, eta = SETS[param]
        self.sbits = 3 if eta == 2 else 4            # bitlen(2 eta)
        self.sbytes = 32 * self.sbits                # packed s polynomial
        self.pk_len = 32 + 320 * k
        self.sk_len = 128 + (k + l) * self.sbytes + 416 * k
        # ------------------------------------------------------------ DMEM layout (bytes)
        self.PK = 0                                  # rho | t1
        self.SK = _a32(self.pk_len)                  # rho | K | tr | s1 | s2 | t0
        self.SK_S1 = self.SK + 128
        self.SK_S2 = self.SK_S1 + l * self.sbytes
        self.SK_T0 = self.SK_S2 + k * self.sbytes
        self.XI = self.SK + 64                       # input xi: in tr's place (dead after H)
        # rho' and the constant words in the last t1 row of pk: read for the last time
        # before that row is packed (the last s2 job; pack_t loads its constants before
        # its first store)
        self.RHOP = self.PK + self.pk_len - 320
        # constant words: eta, 2^12 - 1, 2^13 - 1
        self.KC = self.RHOP + 64
        self.C_ETA, self.C_ROUND, self.C_M13 = (self.KC + 32 * n for n in range(3))
        assert self.PK + 32 <= self.RHOP and self.KC + 96 <= self.PK + self.pk_len
        assert self.RHOP % 32 == 0
        # Two layouts; the one with fewer NTTs is taken (the grouped one on a tie).
        # grouped: G rows at a time (G accumulators) above sk, n_keep s1_hat kept over the
        # whole run, the other l - n_keep sampled and NTT'd again for each group; the
        # twiddle tables lie over the t0 rows of the last group (at most their 2080 B):
        # the group's INTTs all run before its first row is packed.
        # overlaid: all k rows at once (column by column: every s1_hat NTT'd once), the
        # accumulators, tables and buffers over the pk / sk parts that the end packs write
        # only after they are dead (_overlay).
        best = None
        for g in (d for d in range(1, k + 1) if k % d == 0):
            twid = self.SK_T0 + 416 * k - min(416 * g, 2080)
            base = twid + 2080 + 3 * 1024
            keep = min(l, (dmem_budget - base) // 1024 - g)
            if keep < 0:
                continue
            cost = (keep + (k // g) * (l - keep), -g)
            if best is None or cost < best[0]:
                best = (cost, g, keep, twid, base)
        overlay = self._overlay(dmem_budget)
        if overlay is not None and (best is None or l < best[0][0]):
            self.G, self.n_keep, self.SLOTS = k, 0, None
            self.TWID, self.ITWID, self.BUFS, self.ACCS, self.END, self.PRE = overlay
        elif best is None:
            raise ValueError(f"ML-DSA-{param} keygen: no room for the buffers in {dmem_budget} B")
        else:
            _, self.G, self.n_keep, self.TWID, base = best
            self.PRE = None
            self.ITWID = self.TWID + 32 * 32
            self.BUFS = [self.ITWID + 33 * 32 + 1024 * n for n in range(3)]  # tiles, s1_hat again
            self.SLOTS = base                        # kept s1_hat[j], j < n_keep
            acc = self.SLOTS + 1024 * self.n_keep    # G row accumulators (t)
            self.ACCS = [acc + 1024 * i for i in range(self.G)]
            self.END = acc + 1024 * self.G           # peak DMEM (bytes)
        assert self.TWID % 32 == 0 and self.END <= dmem_budget
        # one group: each s1[j] not kept is sampled only once, in the group (packed there)
        self.single = self.G == k

    def _overlay(self, dmem_budget):
        """The overlaid layout, or None if it does not fit: (TWID, ITWID, BUFS, ACCS, END,
        PRE).
        Every byte of DMEM gets the index of the first end-pack row that writes it (t1, s2
        and t0 of row i: row i; pk's rho, sk's head and s1, and rho' with the constants
        in the last t1 row: never free; above sk: never written). An object may lie where
        no row before its last use writes: the tables and the third buffer (dead after
        the columns: the INTTs all run before the first row is packed) anywhere in the
        rows' areas, row i's accumulator where only rows after i write, the two s2
        buffers (used up to the last row) above sk. First fit, in that order; then, if it
        fits, a fourth buffer (PRE, else None) dead after the columns."""
        k, n = self.k, dmem_budget // 32
        never, free = -1, 1 << 30
        first = [free] * n                            # per 32-byte word
        for i in range(k):
            areas = ((self.PK + 32 + 320 * i, 320), (self.SK_S2 + self.sbytes * i, self.sbytes),
                     (self.SK_T0 + 416 * i, 416))
            for lo, size in areas:
                for w in range(lo // 32, (lo + size + 31) // 32):
                    first[w] = min(first[w], i)
        for lo, hi in ((self.PK, self.PK + 32), (self.SK, self.SK_S2), (self.RHOP, self.KC + 96)):
            for w in range(lo // 32, (hi + 31) // 32):
                first[w] = never
        taken = [False] * n

        def place(size, alive):
            w = (size + 31) // 32
            for s in range(n - w + 1):
                if all(not taken[s + t] and first[s + t] != never and first[s + t] >= alive
                       for t in range(w)):
                    for t in range(w):
                        taken[s + t] = True
                    return 32 * s
            return None
        objs = [(1024, 0), (33 * 32, 0), (1024, 0)] + [(1024, i + 1) for i in range(k)] + \
            [(1024, free), (1024, free)]
        at = [place(size, alive) for size, alive in objs]
        if None in at:
            return None
        # where it fits, a fourth buffer (dead after the columns) for s1_hat[1], sampled
        # right after s1[0] (_plan): its job then runs in the shadow of s1[0]'s pack and NTT
        pre = place(1024, 0)
        twid, itwid, buf2, accs, bufs01 = at[0], at[1], at[2], at[3:3 + k], at[3 + k:]
        end = max([a + size for a, (size, _) in zip(at, objs)] + ([pre + 1024] if pre else []))
        return twid, itwid, bufs01 + [buf2], accs, end, pre

    # ---------------------------------------------------------------- image
    def const_image(self) -> dict:
        return {self.TWID: b"".join(_u32(w) for w in ntt.twiddle_words()),
                self.ITWID: b"".join(_u32(w) for w in ntt.itwiddle_words(mont=True)),
                self.KC: _u32([self.eta] * 8) + _u32([(1 << (D - 1)) - 1] * 8) +
                _u32([(1 << D) - 1] * 8)}

    def image(self, xi: bytes) -> dict:
        if len(xi) != 32:
            raise ValueError(f"ML-DSA keygen: xi must be 32 bytes (got {len(xi)})")
        img = self.const_image()
        img[self.XI] = bytes(xi)
        return img

    def ct_policy(self) -> dict:
        """What the constant-time check (ip/acc/tools/constant_time.py) takes as secret at
        entry: xi; public: the constant tables; any other DMEM byte counts as secret. Declared
        releases: rho, published in pk (and its copy in sk), so the A_hat sampling may depend
        on it; rho' and K stay secret. Two pointer bounds (assumptions, checked on the ISS).
        One exception: the ExpandS jobs (RejBoundedPoly on rho', a rejection sampler: their
        smp.run, the findings without it) run in fixed shadows or fixed delays (ETA_PAD)
        sized for a job within 3 SHAKE256 blocks (eta4) / 2 (eta2) and the KMAC's settle, so
        the cycle count does not depend on rho' unless a job needs more (probability < 1e-46);
        ip/acc/tests/test_mldsa_keygen.py's timing tests check it (random rho', xi found with
        3-block jobs, injected worst-case digest streams)."""
        public = {f"constants@{a}": (a, a + len(b)) for a, b in sorted(self.const_image().items())}
        why = "rho, published in pk (FIPS 204 Alg. 6)"
        # the packers' output pointers advance across the group loop where there is one (a
        # software loop: the analysis joins them to unknown; every set has one group with
        # today's layouts, the bounds kept for the others); checked on the ISS by
        # ip/acc/tests/test_constant_time.py
        bounds = [{"within": ("pack_s", "pack_t"), "dmem": (self.PK + 32, self.END),
                   "reason": "pack_s reads the work buffers and constants, writes sk's s1"},
                  {"within": ("pack_t", "keygen_end"), "dmem": (self.PK + 32, self.END),
                   "reason": "pack_t reads the work buffers and constants, writes pk's t1 and "
                   "sk's s2 and t0"}]
        return {"secret": {"xi": (self.XI, self.XI + 32)}, "public": public, "rest": "secret",
                "allow": [{"kind": "timing", "within": ("expand_s", "expand_s_end"),
                           "reason": "ExpandS (RejBoundedPoly on rho'): each job ends inside a "
                           "fixed shadow or fixed delay sized for 3 SHAKE256 blocks (eta4) / 2 "
                           "(eta2) with the KMAC's settle; test_mldsa_keygen.py "
                           "test_keygen_timing_* checks it"}],
                "bounds": bounds,
                "release": [{"dmem": (self.PK, self.PK + 32), "reason": why},
                            {"dmem": (self.SK, self.SK + 32), "reason": why + ", its copy in sk"}]}

    def outputs(self, dmem: bytes) -> tuple[bytes, bytes]:
        """(pk, sk) from the DMEM after the run."""
        return (bytes(dmem[self.PK:self.PK + self.pk_len]),
                bytes(dmem[self.SK:self.SK + self.sk_len]))


    # ---------------------------------------------------------------- sampler jobs
    # The job constants stay in registers from the s1 phase to tr (the subroutines use
    # none of them): x1 = SHAKE128, x2 = 34 (|rho| + 2), x3 = -1 (a whole word), x18 = 3
    # (the two index bytes' mask), x19 = 256 (coefficients), x30 = SHAKE256, x31 = 66.
    JOB_CONSTANTS = [f"addi x1, x0, {SHAKE128}", "addi x2, x0, 34", "addi x3, x0, -1",
                     "addi x18, x0, 3", "addi x19, x0, 256", f"addi x30, x0, {SHAKE256}",
                     "addi x31, x0, 66"]

    # Fixed delays (core cycles, a loopi of nops) before the smp.wait of an ExpandS job whose
    # shadow is shorter than the job's worst case, per eta and shadow: "none" (the first
    # job), "mac_first" / "mac_acc" (one multiply-accumulate of a tile; mac_first only
    # where 87 has no fourth buffer); the long shadows (a pack and an NTT, a mac_intt; the
    # s2 jobs': a row end) need none. Sized on the ISS for the worst case of a job within 3
    # SHAKE256 blocks (eta4) / 2 (eta2), the KMAC's settle (its next block's permutation)
    # included, plus 6 cycles: the smallest delays for which injected worst-case digests
    # (test_mldsa_keygen.py) leave every cycle as it is were 146 / 4 (eta4 none / mac_acc),
    # 110 / 53 / 0 (eta2 none / mac_first / mac_acc). A shadow without a figure is refused.
    ETA_PAD = {2: {"none": 116, "mac_first": 59, "mac_acc": 0},
               4: {"none": 152, "mac_acc": 10}}
    LONG_SHADOWS = ("pack_ntt", "mac_intt")

    def _pad(self, shadow):
        """The fixed delay before waiting for an ExpandS job with this shadow."""
        if shadow in self.LONG_SHADOWS:
            return []
        if shadow not in self.ETA_PAD[self.eta]:
            raise ValueError(f"ML-DSA-{self.param} keygen: no measured delay for an eta"
                             f"{self.eta} job in the shadow of {shadow} (ETA_PAD)")
        n = self.ETA_PAD[self.eta][shadow]
        return [f"loopi {n}, 1", "addi x0, x0, 0"] if n else []

    def _start_eta(self, dst, base="x0", idx=0):
        """RejBoundedPoly(rho' || IntegerToBytes(base + idx, 2)) -> dst, in the
        background (x4, x5, w1..w3)."""
        return [f"bn.lw w1, {_m(self.RHOP)}", f"bn.lw w2, {_m(self.RHOP + 32)}",
                "kmac.start x30, x31", "kmac.msg w1, x3", "kmac.msg w2, x3",
                f"addi x4, {base}, {idx}", "bn.ins w3, x4, 0", "kmac.msg w3, x18"] + \
            _li(5, dst) + [f"smp.run x5, x19, eta{self.eta}"]

    def _start_a(self, j, dst):
        """RejNTTPoly(rho || j || i) -> dst, in the background; x21 + j gives the two
        index bytes (x21 = i0 << 8, j = column + 256 (i - i0))."""
        return [f"bn.lw w1, {_m(self.PK)}", "kmac.start x1, x2", "kmac.msg w1, x3",
                f"addi x4, x21, {j}", "bn.ins w2, x4, 0", "kmac.msg w2, x18"] + \
            _li(5, dst) + ["smp.run x5, x19, uni23"]

    # ---------------------------------------------------------------- subroutines
    def _sub(self, name, body):
        return [f"{name}:"] + body + ["jalr x0, 0(x28)"]

    @staticmethod
    def _call(name):
        return [f"jal x28, {name}"]

    def _mac(self, first, per=8):
        """acc (x20) [+]= tile (x10) o s1_hat (x15), per words per iteration (w0..w15:
        a, b per word; the product over a, the old acc word loaded over b); the acc
        stores last, so no load waits for a store (the tile and s1_hat never alias acc:
        promised to the scheduler)."""
        R = range(per)
        body = [f"bn.lw.pi w{2 * q + h}, 0(x{(10, 15)[h]})" for q in R for h in (0, 1)]
        body += [f"bn.mulvm w{2 * q}, w{2 * q}, w{2 * q + 1}" for q in R]
        if not first:
            body += [f"bn.lw.pi w{2 * q + 1}, 0(x20)" for q in R]
            body += [f"bn.addvm w{2 * q}, w{2 * q}, w{2 * q + 1}" for q in R]
        body += [f"bn.sw.pi w{2 * q}, 0(x23)" for q in R]
        na = [("x10", "x23"), ("x15", "x23"), ("x10", "x20"), ("x15", "x20")]
        return ["addi x23, x20, 0"] + _loop(32 // per, sched.schedule(body, na))

    def subroutines(self):
        out = self._sub("ntt_x8", ntt.ntt_body("x8", "x8", _m, 0, self.TWID))
        out += self._sub("mac_intt", mac_intt(self.ITWID))
        out += self._sub("mac_first", self._mac(True))
        out += self._sub("mac_acc", self._mac(False))
        out += self._sub("pack_s", [f"bn.lw w15, {_m(self.C_ETA)}"] + pack_s_pk(self.sbits))
        out += self._sub("pack_t", [f"bn.lw w13, {_m(self.C_ETA)}",
                                    f"bn.lw w14, {_m(self.C_ROUND)}",
                                    f"bn.lw w15, {_m(self.C_M13)}"] + pack_t_s2_pk(self.sbits))
        return out + ["keygen_end:"]          # the end of pack_t (ct_policy's bounds)

    # ---------------------------------------------------------------- main line
    def _h_seed(self):
        """(rho, rho', K) = H(xi || k || l, 128)."""
        return [f"bn.lw w1, {_m(self.XI)}", f"addi x1, x0, {SHAKE256}", "addi x2, x0, 34",
                "kmac.start x1, x2", "addi x3, x0, -1", "kmac.msg w1, x3",
                f"addi x4, x0, {self.k | self.l << 8}", "bn.ins w2, x4, 0", "addi x3, x0, 3",
                "kmac.msg w2, x3", "kmac.dig w1", "kmac.dig w2", "kmac.dig w3", "kmac.dig w4",
                f"bn.sw w1, {_m(self.PK)}", f"bn.sw w1, {_m(self.SK)}",
                f"bn.sw w2, {_m(self.RHOP)}", f"bn.sw w3, {_m(self.RHOP + 32)}",
                f"bn.sw w4, {_m(self.SK + 32)}"]

    def _s1_phase(self, then=()):
        """s1[j]: sampled, packed into sk; NTT'd in its slot if kept (else only packed).
        The next job runs while the core packs / transforms the previous polynomial; after
        the last, `then` (the start of the next phase's first job, whose buffer is none of
        these)."""
        n = self.n_keep if self.single else self.l
        if n == 0:
            return []
        bufs = [self.SLOTS + 1024 * j if j < self.n_keep else self.BUFS[j % 2]
                for j in range(n)]
        assert not then or set(bufs).isdisjoint(self.BUFS)    # one group: kept slots only
        L = self._start_eta(bufs[0], idx=0)
        for j in range(n):
            # the first job has no work in its shadow; the others have a pack and an NTT
            L += self._pad("none" if j == 0 else "pack_ntt" if j - 1 < self.n_keep else
                           "pack_s") + ["smp.wait"]
            L += self._start_eta(bufs[j + 1], idx=j + 1) if j + 1 < n else list(then)
            L += _li(5, bufs[j]) + _li(6, self.SK_S1 + self.sbytes * j) + self._call("pack_s")
            if j < self.n_keep:
                L += _li(8, bufs[j]) + self._call("ntt_x8")
        return L + ([] if then else ["smp.wait"])

    def _plan(self):
        """The group's sampler jobs in order, [(kind, j, il)] ('eta' -> s1_hat[j] made
        here, 'a' -> A[i0 + il][j]), their buffers and s1_hat's buffer per column made
        here: each job's buffer is one the core no longer reads (3 buffers rotate as A
        tiles and s1_hat[j])."""
        steps = []
        for j in range(self.l):
            if j >= self.n_keep:
                steps.append(("eta", j, None))
            steps += [("a", j, il) for il in range(self.G)]
        if 0 < self.n_keep < self.l:
            # the first column made here is sampled first, so that its job runs in the
            # shadow of a pack and an NTT rather than a mac_first (column 0's s1_hat is kept,
            # so the tiles of the columns before it still rotate in two buffers)
            steps.remove(("eta", self.n_keep, None))
            steps.insert(0, ("eta", self.n_keep, None))
        elif self.PRE is not None and self.n_keep == 0 and self.l > 1:
            # the same with no s1_hat kept: s1_hat[1] in the fourth buffer (_overlay)
            steps.remove(("eta", 1, None))
            steps.insert(1, ("eta", 1, None))
        shat, reads, dst = {}, [], []
        for kind, j, il in steps:
            prev = reads[-1] if reads else set()
            busy = set(prev) | {b for c, b in shat.items() if c >= j}   # s1_hat still needed
            d = self.PRE if (kind, j) == ("eta", 1) and self.PRE is not None and \
                self.n_keep == 0 else next(b for b in self.BUFS if b not in busy)
            dst.append(d)
            if kind == "eta":
                shat[j] = d
                reads.append({d})
            else:
                reads.append({d, shat[j] if j in shat else self.SLOTS + 1024 * j})
        return steps, dst, shat

    def _job(self, n):
        """The start of the group's n-th sampler job (_plan)."""
        steps, dst, _ = self._plan()
        kind, j, il = steps[n]
        if kind == "eta":
            return self._start_eta(dst[n], idx=j)
        return self._start_a(j + 256 * il, dst[n])

    def _shadow(self, steps, n, first_started):
        """The core work in whose shadow the group's n-th job runs: the processing of the
        job before it ("none" for a first job started here)."""
        if n == 0:
            return "pack_ntt" if first_started else "none"
        kind, j, _ = steps[n - 1]
        if kind == "eta":
            return "pack_ntt"
        return "mac_first" if j == 0 else "mac_intt" if j == self.l - 1 else "mac_acc"

    def _group(self, first_started=False):
        """G rows i0 .. i0 + G - 1 of t (x21 = i0 << 8, x22 = i0): column by column,
        s1_hat[j] (kept, or sampled + NTT'd), then A_hat[i][j] o s1_hat[j] into the G
        accumulators; then per row INTT, + s2_i, Power2Round, packed. Each sampler job is
        started as soon as the core no longer reads its buffer (_plan); first_started:
        the first job was started before (in the s1 phase's shadow)."""
        G, l = self.G, self.l
        steps, dst, shat = self._plan()
        job = self._job
        L, known = ([] if first_started else job(0)), {}
        # the two s2 buffers (BUFS[:2]: the overlay keeps them clear of the packed rows);
        # s2[0]'s is free before the last tile's mac_intt
        assert l > 1 and steps[-1][0] == "a"
        busy = {dst[-1], shat.get(l - 1)}
        s2buf = sorted(self.BUFS[:2], key=lambda b: b in busy)
        assert s2buf[0] not in busy
        for n, (kind, j, il) in enumerate(steps):
            if kind == "eta":                # a fixed delay where the shadow is too short
                L += self._pad(self._shadow(steps, n, first_started))
            # after the last tile: s2[0]'s job, in the last mac_intt's shadow
            L += ["smp.wait"] + (job(n + 1) if n + 1 < len(steps) else
                                 self._start_eta(s2buf[0], "x22", l))
            if kind == "eta":
                if self.single:              # s1[j]'s only sampling: packed here too
                    L += _li(5, dst[n]) + _li(6, self.SK_S1 + self.sbytes * j) + \
                        self._call("pack_s")
                L += _li(8, dst[n]) + self._call("ntt_x8")
                known = {}
            else:
                # the mac leaves its pointers past their polynomials: the next call's
                # often one addi away (the accumulators are consecutive)
                sh = shat[j] if j in shat else self.SLOTS + 1024 * j
                if j == l - 1:               # the last column: the row's INTT too
                    L += _set_reg(10, dst[n], known) + _set_reg(15, sh, known) + \
                        _set_reg(8, self.ACCS[il], known) + self._call("mac_intt")
                    known = {10: dst[n], 15: sh, 8: self.ACCS[il]}
                    continue
                L += _set_reg(10, dst[n], known) + _set_reg(15, sh, known) + \
                    _set_reg(20, self.ACCS[il], known) + \
                    self._call("mac_first" if j == 0 else "mac_acc")
                known = {10: dst[n] + 1024, 15: sh + 1024,
                         20: self.ACCS[il] + (1024 if j else 0)}
        # per row: s2 (sampled in the background of the previous row's packing), packed,
        # Power2Round, t0 / t1 packed
        for il in range(G):
            acc = self.ACCS[il]
            L += ["smp.wait"]
            if il + 1 < G:
                L += self._start_eta(s2buf[(il + 1) % 2], "x22", l + il + 1)
            L += _li(5, acc) + _li(7, s2buf[il % 2]) + self._call("pack_t")
            L += [f"addi x26, x26, {self.sbytes}", "addi x24, x24, 320", "addi x25, x25, 416"]
        if G < self.k:                       # the next group
            L += [f"addi x21, x21, {256 * G}", f"addi x22, x22, {G}", "addi x29, x29, -1"]
        return L

    def _tr(self, wipe: bool):
        """tr = H(pk, 64) -> sk. wipe: DMEM above sk (all of it but pk | sk, which lie at
        0 .. SK + sk_len) zeroed in the shadow of the absorption (the KMAC takes a word
        in ~6 cycles, more at each permutation; the stores fill the core's wait), the
        stores left over before the digest (which waits for the last permutation)."""
        assert self.pk_len % 32 == 0 and self.PK == 0 and self.SK == self.pk_len
        top = _a32(self.SK + self.sk_len)
        assert top == self.SK + self.sk_len
        words, n_wipe = self.pk_len // 32, (DMEM_SIZE - top) // 32 if wipe else 0
        per = n_wipe // words
        zero = ["bn.sw.pi w0, 0(x5)"]
        return [f"addi x1, x0, {SHAKE256}"] + _li(2, self.pk_len) + \
            ["expand_s_end:", "kmac.start x1, x2", "addi x3, x0, -1", "bn.xor w0, w0, w0"] + \
            _li(5, top) + \
            _li(7, self.PK) + \
            _loop(words, ["bn.lw.pi w1, 0(x7)", "kmac.msg w1, x3"] + zero * per) + \
            (_loop(n_wipe - per * words, zero) if n_wipe > per * words else []) + \
            ["kmac.dig w1", "kmac.dig w2", f"bn.sw w1, {_m(self.SK + 64)}",
             f"bn.sw w2, {_m(self.SK + 96)}"]

    def phases(self, wipe: bool = True):
        """[(name, lines)] of the main line (the subroutines follow the ecall); the last
        one the end wipe (wipe=False: without it, e.g. to run in a DMEM cut to END)."""
        ph = [("H(xi || k || l)", VMODE1 + ["kmac.acq"] + self._h_seed())]
        init = ["addi x21, x0, 0", "addi x22, x0, 0", f"addi x29, x0, {self.k // self.G}"] + \
            _li(24, self.PK + 32) + _li(25, self.SK_T0) + _li(26, self.SK_S2)
        # one group: its first job starts in the shadow of the last s1's pack / NTT
        s1 = self._s1_phase(self._job(0) if self.single else ())
        ph.append(("job constants" + ("; s1: sample, pack, NTT" if s1 else ""),
                   self.JOB_CONSTANTS + init + s1))
        rows = self._group(first_started=bool(s1)) if self.single else \
            ["group_loop:"] + self._group() + ["bne x29, x0, group_loop"]
        ph.append((f"{self.k // self.G} x {self.G} rows: A_hat o s1_hat, INTT, + s2, "
                   "Power2Round, pack", rows))
        ph.append(("tr = H(pk)" + (", DMEM but pk | sk wiped in its shadow" if wipe else ""),
                   self._tr(wipe) + ["kmac.rel"]))
        if wipe:
            ph.append(("wipe: every register", zero_registers()))
        return ph

    def program(self, wipe: bool = True) -> str:
        """ML-DSA.KeyGen_internal: xi at XI -> pk at PK, sk at SK; then (wipe) all of DMEM
        (acc_block.DMEM_SIZE) but pk and sk and every register zeroed."""
        lines = []
        for _, L in self.phases(wipe):
            lines += L
        # the ExpandS job sites lie in [expand_s, expand_s_end) (ct_policy's exception):
        # from the first sampler start to tr's KMAC start (_tr; each label before a
        # barrier, so the schedule does not change)
        first = next(n for n, t in enumerate(lines) if t.startswith("smp.run"))
        lines = lines[:first] + ["expand_s:"] + lines[first:]
        lines += ["ecall"] + self.subroutines()
        return "\n".join(sched.schedule(lines)) + "\n"


def keygen(param: int) -> Keygen:
    """The keygen of ML-DSA-44, -65 or -87."""
    return Keygen(param)
