# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""ML-DSA verification on the ACC: ML-DSA.Verify_internal(pk, M', sigma) (FIPS 204 Alg. 8)
as one program for ML-DSA-44, -65 and -87 (the parameter set is the argument, params.FULL),
strict (sigDecode / HintBitUnpack, Alg. 27 / 21, checked by the program), within the
taped-out 16 KiB IMEM and DMEM (ip/acc/block.py). Verification handles public data only:
the program branches on it freely (early exits on a malformed signature), and it has no
end-of-operation wipe (issue #24 item 5: nothing secret to outlive it; keygen and the
signers have one).

    v = verify(65)
    src = v.program()
    dm = v.image(pk, sig, msg_prime=M')     # or mu=... (external mu)
    ... run ...; status = v.status(dmem)    # VALID, or why not (STATUS_NAMES)

The host places pk, the signature's parts (c_tilde at CTIL, z packed at ZP, the hint bytes
at HINT) and M' (FIPS 204 Alg. 3: 0 || len(ctx) || ctx || M, at most MSG_MAX bytes, its
length at MLEN) or mu (EXT_MU = 1); everything else is computed by the program:
tr = H(pk, 64), mu = H(tr || M', 64) (KMAC side-load, SHAKE256 with a declared length), the
checks, and the status word at STATUS. A length word above MSG_MAX is refused with
STATUS_MSG_LENGTH before any message byte is read.

Program (VMODE 1, KMAC port held throughout):
  1. length check (M' only); SHAKE256 over pk started for tr.
  2. z_j for j in z_pre (ML-DSA-44 / -65: all but the last two; ML-DSA-87: the last two)
     unpacked by bn.unpk (z = gamma1 - field: 18 or 20 bits, one bn.unpk per output word
     from the pair of packed words holding it), ||z_j||inf < gamma1 - beta checked on the
     field (beta < f < 2 gamma1 - beta) in the same pass, straight into its NTT -> its
     z_hat slot (unpack_ntt_body: the unpack's chunk c is the NTT's pass-1 group c, kept
     in registers); with M', pk's words are fed to the KMAC in the shadow of these NTTs
     (the KMAC's absorption stalls the core all the same: 4 cycles a word, 24 a block).
  3. the rest of pk: tr = H(pk), mu = H(tr || M') -> MU (unless EXT_MU).
  4. SHAKE256(c_tilde): 4 digest words -> SIB; c = SampleInBall -> C_HAT scaled by -2^d
     (values 0, -2^d, 2^d mod q: c_hat o t1_hat is then -(c t1 2^d) in the NTT domain and
     t1 needs no map), a word of candidates at a time (refilled from the KMAC if the 120
     candidate bytes run out, which an honest signature needs with a negligible
     probability), the value of the k-th accepted position read from a table built from
     the 64 sign bits 8 at a time (SIGNS, _sign_table).
  5. the hint's last count and zero padding checked (a word at a time), NTT(c), the other z_j
     as in 2 (z_post), A_hat[0][0] = RejNTTPoly(rho || 0 || 0) started on the stream unit
     before NTT(c) (ML-DSA-87: after the z, its tiles lie over their packed bytes); with the
     tile ring, A_hat[0][1], [0][2] are sampled during the z NTTs. The packed z lies inside
     the z_hat area, so each z_hat slot is written after the packed polynomials it covers
     were read (_check_order checks every write before the rows against what is still to be
     read: M', the packed z).
  6. per row i: t1_i unpacked by bn.unpk straight into its NTT, whose outputs go on into
     ACC = t1_hat o c_hat + A_hat[i][0] o z_hat[0] (unpack_ntt_body with mac; words
     0..n_racc-1 of ACC computed last, left in registers across the row), then ACC +=
     A_hat[i][j] o z_hat[j] (mac_acc_unrolled), the last entry fused with the INTT
     (mac_intt_body, the register words taken in place; its Montgomery twiddles remove the
     products' 2^-32); A_hat[i][j] are sampled on the stream unit into tiles while the core
     multiply-accumulates: ML-DSA-87, two tiles (DMEM has no room for more), one entry at
     a time; ML-DSA-44 / -65, a ring of 4 tiles with the entries after the first
     multiply-accumulated in pairs (mac_pair, mac_intt_body with 2 tiles: 5 instructions a
     product instead of 6), the sampler restarted at fixed checkpoints for the entry at
     most 4 ahead. Then the row's hint indices checked (count non-decreasing and <= omega,
     indices strictly increasing) and each hinted coefficient r replaced by alpha
     UseHint(1, r), eight at a time (gathered into lanes, scattered back), so that one
     HighBits + w1Encode pass over the row gives w1' (packed by bn.pk, one per word:
     pk_stream, over t1_i's bytes in pk, read for the last time).
  7. c_tilde' = H(mu || w1Encode(w1'), lambda / 4) compared with c_tilde: STATUS_VALID or
     STATUS_INVALID.

HighBits (w1Encode pass, ML-DSA-44): r1 = mulv.hi((r + gamma2) mod q, floor(2^43 /
alpha)) >> 11, exact on [0, q) with the q - 1 wrap giving 0 (no fix-up; checked
exhaustively in the tests). UseHint (FIPS 204 Alg. 40): u = r + gamma2 - 1, p =
mulv.hi(u, ceil(2^43 / alpha)) (alpha = 2 gamma2): t = p >> 11 = floor(u / alpha) (r1,
or m for r in the q - 1 wrap) and bit 10 of p = [r0 > 0] (exact on [0, q): checked
exhaustively in the tests); r1' = (t + 2 [r0 > 0] - 1) mod m. With m = 16 (ML-DSA-65 /
-87) the HighBits pass uses this p too: r1 = t mod 16, the mod taken by bn.pk's 4-bit
fields (the wrap's t = 16 gives 0).

Measured (ISS, a dilithium-py signature; on the RTL, `python -m ip.acc.dv.jobs mldsa_verify
--rtl` and ML-DSA-65 in ip/acc/tests/test_rtl_acc.py, the program before bn.pk counted the
same cycles and left the same DMEM; this one awaits bn.pk in the RTL):

| set | cycles | IMEM B | DMEM B (working set) | M' max B |
|---|---|---|---|---|
| ML-DSA-44 | 11 741 | 13 576 | 16 384 | 7 040 (up to 16 KiB) |
| ML-DSA-65 | 15 981 | 14 200 | 16 384 | 5 344 (up to 16 KiB) |
| ML-DSA-87 | 24 333 | 15 832 | 16 192 | 4 352 (inside the working set) |

(12 061 / 16 443 / 24 914 before the KMAC's message intake register. Before this program's rework: 19 869 / 25 783 / 37 450; before bn.unpk and the steps
below it: 16 407 / 20 979 / 31 283. What bn.unpk changed: t1's 10-bit and z's 18-bit
fields were gathered by lw + bn.ins per 32-bit granule (~640 / ~1 150 instructions a
polynomial), the 20-bit z by lane transposes through a scratch; now 40 / 48 wide loads
and 32 bn.unpk a polynomial: -2.9 k / -3.3 k / -4.6 k. Then pk absorbed in the z NTTs'
shadow: -0.1 k / -0.2 k / -0.15 k (the KMAC's absorption stalls the core: little is
hidden); the accumulator's register words kept in registers from the row's first piece
to its INTT: -0.1 k / -0.2 k / -0.3 k. Then 13 255 / 17 248 / 26 261 became the figures
above: w1Encode by bn.pk, one per word, instead of unzip trees (4-bit) or lane transposes
(6-bit, packing.pack_fields): -0.86 k / -0.49 k / -0.65 k; the hint indices fetched through
a byte address and ordered by their coefficients' addresses, no empty batch after exactly
8: -0.24 k / -0.17 k / -0.21 k; SampleInBall's sign table and 4 digest words: -0.09 k /
-0.11 k / -0.2 k; with m = 16 the HighBits pass on UseHint's p (no constants of its own):
-0.04 k / -0.05 k (65 / 87); ML-DSA-87's single multiply-accumulates unrolled with 11 accumulator
words in registers (12 leave the t1 piece no register) and the tile and accumulator read
at offsets: -0.24 k.) The core is the bottleneck (the sampler, ~150 cycles an entry,
never makes it wait long), at about one instruction a cycle almost everywhere.
ML-DSA-87 per phase (ISS, the row loop's pieces as if separate): 40 single
multiply-accumulates 6.8 k (170 cycles each), t1 unpack + NTT + t1_hat o c_hat + the
row's first entry 4.35 k, z unpack + NTT 4.15 k (0.8 k of it the KMAC absorbing pk), the
rows' last entry + INTT 3.75 k, HighBits + w1Encode 1.3 k (164 cycles a row), hint
fix-ups 1.3 k (46 hints), SampleInBall 1.1 k, the rows' main line (sampler starts,
pointers) 1.1 k, c_tilde' 0.5 k, NTT(c) 0.3 k, the rest of tr and mu 0.15 k; the kmac.*
instructions take 1.75 k cycles (1.45 k of them waiting: pk, mu || w1, the samplers'
seeds: the KMAC's rate, not the program). The count depends on public data only (the
number of hints, SampleInBall's rejections, M''s length). What bounds ML-DSA-87: the 16
KiB DMEM holds only two A_hat tiles beside its 7 z_hat, C_HAT and ACC (192 B free), so
its entries go one at a time, 6 instructions a product for the 21 accumulator words in
DMEM (a pair would need a third tile: 1 KiB); the t1 piece and the INTT are bound by the
multiplier (one multiply or butterfly per 2 cycles: 192 and 176 of them a row); the rest
is instruction-bound (NTT passes with their loads and stores, the bn.unpk loads, the
hints' scalar byte fetches).

DMEM layout: pk at 0 (rho | t1); the twiddle tables; a header (STATUS, MLEN, EXT_MU, a
dummy word for UseHint's spare lanes); MU, CTIL, HINT (omega + k bytes); C_HAT; the z_hat
slots (l polynomials from Z_HAT) with the packed z at their end (ZP); ACC over the packed
z's last polynomial; the A tiles: the ring of 4 at 0x3000 (ML-DSA-44 / -65; SIB and
SIGNS in the last tile until the rows), or (ML-DSA-87) two in z_hat slots l - 2, l - 1,
whose z_hat lie after ACC instead (computed before mu, outside M'; SIB and SIGNS in slot
0 until z_0). M' lies wherever more room is free before step 3 (MSG .. MSG + MSG_MAX).

Code: this file holds the layout, the image, the main line and the row loop's placement;
verify_row.py the layout-free pieces (unpack + NTT, the multiply-accumulates, MAC + INTT),
verify_hint.py the hint checks, UseHint and HighBits + w1Encode.

Subroutines (jal x28 / jalr x0, 0(x28), never inside a hardware loop): NTT (of c) and the
z unpack + NTT (twice: with and without pk's message words); the row loop's pieces (t1
unpack + NTT + first multiply-accumulate, the multiply-accumulates mac_acc_unrolled or
mac_pair, mac_intt, the hint fix-up, HighBits + w1Encode) are inlined, one copy each
(ML-DSA-87's mac_acc_unrolled once per entry). Main-line registers of the row loop: x18
the hint position (its byte address), x19 rows left, x21 = i << 8, x22 = i, x24 pk's
t1_i, x25 ACC's DMEM words, x26 / x27 the tile to consume / to sample into (x29 their
xor with two tiles; x30, x31 the ring's wrap mask and base), x1..x4, x7 the sampler
jobs' constants (set again after the pieces that use them); the pieces use x1..x17, x20,
x23. Before the rows x30 = EXT_MU (the z NTTs without pk's
words, no tr / mu).
"""
from ip.acc.block import DMEM_SIZE
from ip.acc.kernels.asm_util import a32, bcast, far, li as _li, loop as _loop, mem as _m, u32 as _u32
from ip.acc.kernels.mldsa import ntt, verify_hint
from ip.acc.kernels.mldsa.params import D, FULL, Q
from ip.acc.kernels.mldsa.verify_row import (mac_acc, mac_acc_unrolled, mac_intt_body, mac_pair,
                                             unpack_ntt_body, unpk_chunk_lines)
from ip.acc.kernels.sample import SHAKE128, SHAKE256
from ip.acc.tools import sched

VMODE1 = ["addi x31, x0, 1", "csrrw x0, VMODE, x31"]

# the status word (STATUS) after a run; only STATUS_VALID means the signature verifies
STATUS_NONE = 0           # not written: the program did not finish
STATUS_VALID = 1
STATUS_INVALID = 2        # c_tilde != H(mu || w1Encode(UseHint(h, w'_approx)))
STATUS_Z_RANGE = 3        # ||z||inf >= gamma1 - beta
STATUS_HINT_COUNT = 4     # a hint count below the previous one, or above omega
STATUS_HINT_ORDER = 5     # hint indices of a polynomial not strictly increasing
STATUS_HINT_PADDING = 6   # a non-zero hint byte after the last index
STATUS_MSG_LENGTH = 7     # the length word exceeds MSG_MAX (nothing read)
STATUS_NAMES = {STATUS_NONE: "none", STATUS_VALID: "valid", STATUS_INVALID: "invalid",
                STATUS_Z_RANGE: "z out of range", STATUS_HINT_COUNT: "hint count malformed",
                STATUS_HINT_ORDER: "hint indices not increasing",
                STATUS_HINT_PADDING: "hint padding not zero",
                STATUS_MSG_LENGTH: "message length over MSG_MAX"}


def _with_messages(body, n, reg="w15"):
    """body (scheduled lines) with n message words fed to the KMAC spread over it: each
    loaded from DMEM[x7] (post-increment) into reg a segment before its kmac.msg (mask x3)."""
    out, step = [], len(body) / n
    for j in range(n):
        seg = body[round(j * step):round((j + 1) * step)]
        cut = max(len(seg) - 2, 1)
        out += seg[:1] + [f"bn.lw.pi {reg}, 0(x7)"] + seg[1:cut] + [f"kmac.msg {reg}, x3"] + \
            seg[cut:]
    return out


class Verify:
    """The verify program and its DMEM layout for one parameter set (44, 65, 87)."""

    RING = 12288            # the 4-tile ring (ML-DSA-44 / -65): 0x3000..0x3fff

    sib_words = 4           # SampleInBall's digest words per squeeze (tests use fewer)

    def __init__(self, param: int, dmem_size: int = DMEM_SIZE):
        if param not in FULL:
            raise ValueError(f"ML-DSA verify: parameter set must be one of {sorted(FULL)}, "
                             f"not {param}")
        self.param = param
        P = FULL[param]
        self.k, self.l, self.tau, self.omega = P["k"], P["l"], P["tau"], P["omega"]
        self.gamma1, self.gamma2, self.beta = P["gamma1"], P["gamma2"], P["beta"]
        self.ctil_len = P["lam"] // 4
        self.zbits = self.gamma1.bit_length()              # 18 or 20
        self.zb = 32 * self.zbits                           # packed z polynomial
        self.m = (Q - 1) // (2 * self.gamma2)               # 44 or 16
        self.w1bits = (self.m - 1).bit_length()             # 6 or 4
        self.pk_len = 32 + 320 * self.k
        self.sig_len = self.ctil_len + self.l * self.zb + self.omega + self.k
        k, l = self.k, self.l
        # ------------------------------------------------------------ DMEM layout (bytes)
        self.PK = 0
        self.TWID = a32(self.pk_len)
        self.ITWID = self.TWID + 32 * 32
        self.HDR = self.ITWID + 33 * 32
        self.STATUS, self.MLEN, self.EXT_MU = self.HDR, self.HDR + 4, self.HDR + 8
        self.MU = self.HDR + 32
        self.CTIL = self.MU + 64
        self.HINT = self.CTIL + 64
        self.C_HAT = self.HINT + a32(self.omega + k)
        self.Z_HAT = self.C_HAT + 1024
        # packed z_j at ZP + zb j: slot j (1 KiB) ends at or before packed z_(j+1) starts
        self.ZP = self.Z_HAT + 1024 * l - self.zb * (l - 1)
        self.ACC = self.Z_HAT + 1024 * l                    # over the last packed z
        # A_hat tiles: a ring of 4 at RING (4 KiB aligned: the pointer wraps by and / or)
        # where DMEM has the room (ML-DSA-44 / -65: entries multiply-accumulated in pairs),
        # else two in z_hat slots l - 2, l - 1, whose z_hat go after ACC instead (ML-DSA-87:
        # those two z_hat are computed while the KMAC absorbs pk, outside M')
        self.pairs = self.ACC + 1024 <= self.RING
        if self.pairs:
            self.TILES = tuple(self.RING + 1024 * t for t in range(4))
            self.z_slots = [self.Z_HAT + 1024 * j for j in range(l)]
            self.SIB = self.TILES[-1]       # SampleInBall's digest words
            self.END = self.RING + 4096
        else:
            self.TILES = (self.Z_HAT + 1024 * (l - 2), self.Z_HAT + 1024 * (l - 1))
            self.z_slots = [self.Z_HAT + 1024 * j for j in range(l - 2)] + \
                [self.ACC + 1024, self.ACC + 2048]
            self.SIB = self.Z_HAT           # slot 0, free from mu to z_0's NTT
            self.END = self.ACC + 3072
        self.SIGNS = self.SIB + 32 * 8      # SampleInBall's sign values (_sign_table)
        # z_j NTT'd while the KMAC absorbs pk (before mu: outside M'), the others after c
        # (with the ring, the last two in the shadow of A_hat[0][1], [0][2])
        self.z_pre = list(range(l - 2)) if self.pairs else [l - 2, l - 1]
        self.z_post = [j for j in range(l) if j not in self.z_pre]
        # accumulator words in registers: 8 with the pairs (mac_pair wants 8 temporaries),
        # else 11 (mac_acc_unrolled on the other 5; 12 leaves the t1 piece's allocation
        # no register for its last accumulator words)
        self.n_racc = 8 if self.pairs else 11
        # M' (read in step 1 only): the larger free stretch then
        free = [(self.C_HAT, self.ZP), (self.ACC + self.zb, dmem_size)]
        self.MSG, end = max(free, key=lambda r: r[1] - r[0])
        self.MSG_MAX = end - self.MSG
        assert self.ZP % 32 == 0 and self.ZP + self.zb * l == self.ACC + self.zb
        assert self.END <= dmem_size, (param, self.END)
        self._check_order()

    def _check_order(self):
        """Every write before the rows (in program order) spares what is still to be read:
        M' until mu, each packed z_j until its unpack."""
        def packed(j):
            return (self.ZP + self.zb * j, self.ZP + self.zb * (j + 1))
        msg = (self.MSG, self.MSG + self.MSG_MAX)
        sib = (self.SIB, self.SIGNS + 32 * 8)
        tile = [(t, t + 1024) for t in self.TILES]
        steps = [(("z", j), [(self.z_slots[j], self.z_slots[j] + 1024)]) for j in self.z_pre]
        steps += [("mu", []), ("c", [sib, (self.C_HAT, self.C_HAT + 1024)])]
        post = [(("z", j), [(self.z_slots[j], self.z_slots[j] + 1024)]) for j in self.z_post]
        if self.pairs:                      # A_hat[0][0], then [0][1], [0][2] among the z
            steps += [("a", [tile[0]]), post[0], ("a", [tile[1]]), post[1], ("a", [tile[2]])]
            steps += post[2:]
        else:
            steps += post + [("a", [tile[0]])]
        unread = {("z", j): packed(j) for j in range(self.l)}
        unread["mu"] = msg
        for name, writes in steps:
            unread.pop(name, None)          # read first, then written
            for lo, hi in writes:
                for what, (a, b) in unread.items():
                    assert hi <= a or b <= lo, (self.param, name, what)

    # ---------------------------------------------------------------- image / outputs
    def const_image(self) -> dict:
        return {self.TWID: b"".join(_u32(w) for w in ntt.twiddle_words()),
                self.ITWID: b"".join(_u32(w) for w in ntt.itwiddle_words(mont=True))}

    def split_sig(self, sig: bytes):
        """(c_tilde, z packed, hint bytes) of a signature of the right length."""
        if len(sig) != self.sig_len:
            raise ValueError(f"ML-DSA-{self.param} verify: the signature is {len(sig)} bytes, "
                             f"not {self.sig_len}")
        c, z = self.ctil_len, self.ctil_len + self.l * self.zb
        return sig[:c], sig[c:z], sig[z:]

    def image(self, pk: bytes, sig: bytes, msg_prime: bytes | None = None,
              mu: bytes | None = None, mlen: int | None = None) -> dict:
        """DMEM image: constants, pk, the signature's parts and M' (or mu). mlen overrides
        the length word (to test the program's own bound)."""
        if len(pk) != self.pk_len:
            raise ValueError(f"ML-DSA-{self.param} verify: pk is {len(pk)} bytes, "
                             f"not {self.pk_len}")
        if (msg_prime is None) == (mu is None):
            raise ValueError("ML-DSA verify: give M' or mu (one of them)")
        ctil, zp, hint = self.split_sig(sig)
        img = self.const_image()
        img[self.PK] = bytes(pk)
        img[self.CTIL] = ctil
        img[self.ZP] = zp
        img[self.HINT] = hint
        if mu is not None:
            if len(mu) != 64:
                raise ValueError(f"ML-DSA verify: mu is {len(mu)} bytes, not 64")
            img[self.MU] = bytes(mu)
            img[self.EXT_MU] = _u32([1])
        else:
            if len(msg_prime) > self.MSG_MAX:
                raise ValueError(f"ML-DSA-{self.param} verify: M' is {len(msg_prime)} bytes, "
                                 f"the program takes at most {self.MSG_MAX}")
            img[self.MSG] = bytes(msg_prime)
            img[self.MLEN] = _u32([len(msg_prime) if mlen is None else mlen])
        return img

    def status(self, dmem: bytes) -> int:
        return int.from_bytes(dmem[self.STATUS:self.STATUS + 4], "little")

    # ---------------------------------------------------------------- pieces
    @staticmethod
    def _sub(name, body):
        return [f"{name}:"] + body + ["jalr x0, 0(x28)"]

    @staticmethod
    def _call(name):
        return [f"jal x28, {name}"]

    def _exit(self, label, code):
        """label: store the status code, wait for a sampler job, release, ecall."""
        return [f"{label}:", f"addi x1, x0, {code}"] + _li(2, self.STATUS) + \
            ["sw x1, 0(x2)", "smp.wait", "kmac.rel", "ecall"]

    def _start_a(self, idx_reg, idx_off, dst_reg):
        """RejNTTPoly(rho || (idx_reg + idx_off) as 2 bytes) -> the tile at dst_reg, in the
        background (x1..x5, w1, w2)."""
        return [f"bn.lw w1, {_m(self.PK)}", f"addi x1, x0, {SHAKE128}", "addi x2, x0, 34",
                "kmac.start x1, x2", "addi x3, x0, -1", "kmac.msg w1, x3",
                f"addi x4, {idx_reg}, {idx_off}", "bn.ins w2, x4, 0", "addi x3, x0, 3",
                "kmac.msg w2, x3", f"addi x5, {dst_reg}, 0", "addi x4, x0, 256",
                "smp.run x5, x4, uni23"]

    def _start_tr(self):
        """Length check (M' only: x30 = EXT_MU); SHAKE256 over pk started for tr (x3 = -1,
        x7 = PK: the words follow in the z NTTs' shadow, _z_pre)."""
        L = _li(1, self.EXT_MU) + ["lw x30, 0(x1)", "bne x30, x0, tr_started"]
        L += _li(1, self.MLEN) + ["lw x4, 0(x1)"] + _li(2, self.MSG_MAX) + \
            [*far("bltu", "x2", "x4", "exit_msg")]
        L += [f"addi x1, x0, {SHAKE256}"] + _li(2, self.pk_len) + \
            ["kmac.start x1, x2", "addi x3, x0, -1"] + _li(7, self.PK)
        return L + ["tr_started:"]

    def pk_words_per_z(self):
        """pk words absorbed in each pre-mu z NTT's shadow (the rest after them)."""
        return self.pk_len // 32 // len(self.z_pre)

    def _z_pre(self):
        """z_j for j in z_pre unpacked + checked + NTT'd (with M': pk_words_per_z words of pk
        absorbed in each one's shadow)."""
        L = ["bn.xor w1, w1, w1", "bn.wsrw ACC, w1", "addi x9, x0, 0"]
        for j in self.z_pre:
            L += _li(5, self.ZP + self.zb * j) + _li(8, self.z_slots[j]) + \
                [f"bne x30, x0, z_plain_{j}"] + self._call("unpack_z_ntt_msg") + \
                [f"jal x0, z_done_{j}", f"z_plain_{j}:"] + self._call("unpack_z_ntt") + \
                [f"z_done_{j}:", *far("bne", "x9", "x0", "exit_z")]
        return L

    def _hash_mu(self):
        """The rest of pk absorbed: tr = H(pk, 64); mu = H(tr || M', 64) -> MU (not with
        EXT_MU, x30)."""
        rest = self.pk_len // 32 - self.pk_words_per_z() * len(self.z_pre)
        L = ["bne x30, x0, mu_done"]
        if rest:
            L += _loop(rest, ["bn.lw.pi w1, 0(x7)", "kmac.msg w1, x3"])
        L += ["kmac.dig w1", "kmac.dig w2"] + _li(1, self.MLEN) + ["lw x4, 0(x1)"]
        L += [f"addi x1, x0, {SHAKE256}", "addi x2, x4, 64", "kmac.start x1, x2",
              "kmac.msg w1, x3", "kmac.msg w2, x3",
              "srli x5, x4, 5", "andi x6, x4, 31"] + _li(7, self.MSG)
        L += ["beq x5, x0, mu_tail", "loop x5, 2", "bn.lw.pi w1, 0(x7)", "kmac.msg w1, x3",
              "mu_tail:", "beq x6, x0, mu_dig", "addi x8, x0, 1", "sll x8, x8, x6",
              "addi x8, x8, -1", "bn.lw w1, 0(x7)", "kmac.msg w1, x8",
              "mu_dig:", "kmac.dig w1", "kmac.dig w2", f"bn.sw w1, {_m(self.MU)}",
              f"bn.sw w2, {_m(self.MU + 32)}", "mu_done:"]
        return L

    def _ctil_absorb(self):
        """SHAKE256 over c_tilde (ctil_len bytes at CTIL) started (x1..x3, w1, w2)."""
        n = self.ctil_len
        L = [f"addi x1, x0, {SHAKE256}", f"addi x2, x0, {n}", "kmac.start x1, x2",
             f"bn.lw w1, {_m(self.CTIL)}", "addi x3, x0, -1", "kmac.msg w1, x3"]
        if n > 32:
            L += [f"bn.lw w2, {_m(self.CTIL + 32)}"] + \
                (["kmac.msg w2, x3"] if n == 64 else
                 _li(3, (1 << (n - 32)) - 1) + ["kmac.msg w2, x3"])
        return L

    def _sign_table(self):
        """SampleInBall's value for the k-th accepted position, k < tau, -> SIGNS + 4 k:
        -2^d (-1)^(bit k of the sign bytes) mod q, i.e. 2^d for a set bit, q - 2^d for a
        clear one. 8 at a time: the sign byte broadcast, lane j's bit j moved to bit 31 by
        mulv.lo with 2^(31 - j) (w5), a mask by srav 31; x10 / x11 the sign words."""
        L = []
        for j in range(8):
            L += _li(1, 1 << (31 - j)) + [f"bn.ins w5, x1, {j}"]
        L += bcast("w6", (1 << (D + 1)) - Q) + bcast("w7", Q - (1 << D))
        for g in range((self.tau + 7) // 8):
            src = "x10" if g < 4 else "x11"
            if g % 4:
                L += [f"srli x1, {src}, {8 * (g % 4)}"]
            else:
                L += [f"addi x1, {src}, 0"]
            L += ["bn.bcast w8, x1", "bn.mulv.lo w8, w8, w5", "bn.srav w8, w8, 31",
                  "bn.and w8, w8, w6", "bn.addv w8, w8, w7",
                  f"bn.sw w8, {_m(self.SIGNS + 32 * g)}"]
        return L

    def _sample_in_ball(self, sib_words=8):
        """c = SampleInBall(c_tilde) -> C_HAT, scaled by -2^d (values 0, -2^d, 2^d mod q: so
        c_hat o t1_hat is -(c t1 2^d) in the NTT domain and t1 is unpacked as is): the 8
        sign bytes and the candidates from SIB (sib_words digest words), more squeezed when
        they run out (the KMAC keeps squeezing). The rejection loop reads a word at a time
        (4 candidates); the value written for the k-th accepted comes from the table of
        _sign_table (SIGNS, after the digest words), read at x18 + SIGNS - C_HAT - 4 first
        (x18 = C_HAT + 4 i) or by its own pointer x20 when that offset is out of range."""
        sib, end, tau = self.SIB, self.SIB + 32 * sib_words, self.tau
        first = 256 - tau
        assert 32 < tau < 64 and sib_words <= 8
        squeeze = _li(6, sib) + _loop(sib_words, ["kmac.dig w3", "bn.sw.pi w3, 0(x6)"])
        # c cleared while the KMAC permutes (M' may have lain there: only after mu)
        L = self._ctil_absorb() + _li(7, self.C_HAT) + ["bn.xor w4, w4, w4"] + \
            _loop(32, ["bn.sw.pi w4, 0(x7)"]) + squeeze
        L += _li(7, self.C_HAT) + _li(25, sib) + ["lw x10, 0(x25)", "lw x11, 4(x25)"]
        L += self._sign_table()
        off = self.SIGNS - (self.C_HAT + 4 * first)
        if -2048 <= off < 2048:
            value = [f"lw x19, {off}(x18)"]
        else:
            value = ["lw x19, 0(x20)", "addi x20, x20, 4"]
            L += _li(20, self.SIGNS)
        L += _li(12, sib + 8) + _li(26, end) + [f"addi x13, x0, {first}"] + \
            _li(18, self.C_HAT + 4 * first) + ["addi x9, x0, 256"]
        L += ["sib_go:", "lw x15, 0(x12)", "addi x12, x12, 4"]
        for k in range(4):
            nxt = f"sib_b{k + 1}"
            L += [f"sib_b{k}:"]
            L += ["andi x16, x15, 255"] if k == 0 else [f"srli x16, x15, {8 * k}"] + \
                (["andi x16, x16, 255"] if k < 3 else [])
            # reject j > i; else c_i = c_j, c_j = -2^d (-1)^sign
            L += [f"bltu x13, x16, {nxt}", "slli x16, x16, 2", "add x16, x16, x7",
                  "lw x17, 0(x16)"] + value + \
                ["sw x17, 0(x18)", "sw x19, 0(x16)", "addi x18, x18, 4", "addi x13, x13, 1",
                 "beq x13, x9, sib_done"]
        L += ["sib_b4:", "bne x12, x26, sib_go"] + squeeze + _li(12, sib) + ["jal x0, sib_go"]
        return L + ["sib_done:"]

    # ---------------------------------------------------------------- subroutines
    def _z_field(self, src, dst, tag):
        """z = gamma1 - f (mod q); ACC |= [f <= beta or f >= 2 gamma1 - beta] per lane (x9).
        w14 gamma1, w13 beta + 1, w12 2 gamma1 - beta - 1."""
        return [f"bn.ltv %{tag}lo, {src}, w13", f"bn.ltv %{tag}hi, w12, {src}",
                f"bn.or.acc x9, %{tag}lo, %{tag}hi", f"bn.subvm {dst}, w14, {src}"]

    def _unpack_z_ntt(self):
        """z_j packed at x5 -> z_hat_j at x8: unpacked by bn.unpk (z = gamma1 - field, the
        range check in x9) straight into the NTT (unpack_ntt_body)."""
        b = self.zbits
        consts = bcast("w14", self.gamma1) + bcast("w13", self.beta + 1) + \
            bcast("w12", 2 * self.gamma1 - self.beta - 1)

        def chunk(c, names):
            return unpk_chunk_lines(b, c, names, f"u{c}", self._z_field)
        return consts + unpack_ntt_body(b, self.TWID, chunk, pool=12)

    def _body(self, name):
        """The routines the row loop runs once per row, inlined there (no call / return;
        the scheduler works across their seams)."""
        return {"unpack_t1_mac": lambda:
                self._first_piece()[0],
                "mac_pair": lambda: mac_pair(self._first_piece()[1]),
                "mac_intt1": lambda: mac_intt_body(self.ITWID, 1, self._first_piece()[1]),
                "mac_intt2": lambda: mac_intt_body(self.ITWID, 2, self._first_piece()[1]),
                "hint_fix": lambda: verify_hint.hint_fix(self),
                "hw1_encode": lambda: verify_hint.hw1_encode(self)}[name]()

    def _first_piece(self):
        """(lines, racc) of the row's first piece: t1_i unpacked (bn.unpk) into its NTT, on
        into t1_hat o c_hat + A_hat[i][0] o z_hat[0]; racc[k] the register that holds the
        accumulator's word k after it (the other pieces keep it there)."""
        if getattr(self, "_first", None) is None:
            placed = {}
            lines = unpack_ntt_body(10, self.TWID, mac=(self.C_HAT, self.n_racc), pool=16,
                                    placed=placed,
                                    chunk=lambda c, nm: unpk_chunk_lines(10, c, nm, f"u{c}"))
            self._first = lines, [placed[f"%s{k}"] for k in range(self.n_racc)]
        return self._first

    def subroutines(self):
        """NTT (of c) and the z unpack + NTT (l calls); the row loop's pieces are inlined
        (_body). The row's accumulator: words 0..n_racc-1 in registers (r_acc) across the
        row, the others at ACC + 32 n_racc (x20 read, x23 write)."""
        out = self._sub("ntt_x8", ntt.ntt_body("x8", "x8", _m, 0, self.TWID))
        body = self._unpack_z_ntt()
        out += self._sub("unpack_z_ntt", body)
        out += self._sub("unpack_z_ntt_msg", _with_messages(body, self.pk_words_per_z()))
        return out

    # ---------------------------------------------------------------- main line
    def _z_post(self):
        """z_j for j in z_post unpacked + checked + NTT'd (x9 = 0 iff every |z| in range).
        With the tile ring, A_hat[0][1] and [0][2] are sampled meanwhile (into tiles 1, 2)."""
        L = ["bn.xor w1, w1, w1", "bn.wsrw ACC, w1", "addi x9, x0, 0", "addi x21, x0, 0"]
        for n, j in enumerate(self.z_post):
            if self.pairs and n < 2:
                L += ["smp.wait"] + _li(27, self.TILES[n + 1]) + \
                    self._start_a("x21", n + 1, "x27")
            L += _li(5, self.ZP + self.zb * j) + _li(8, self.z_slots[j]) + \
                self._call("unpack_z_ntt")
            L += [*far("bne", "x9", "x0", "exit_z")]
        return L

    def _start_a_row(self, off):
        """RejNTTPoly(rho || (x21 + off) as 2 bytes) -> the tile at x27, in the background;
        x1 = SHAKE128, x2 = 34, x3 = -1, x7 = 3, x4 = 256 set by the row (x5, w1, w2)."""
        return [f"bn.lw w1, {_m(self.PK)}", "kmac.start x1, x2", "kmac.msg w1, x3",
                f"addi x5, x21, {off}", "bn.ins w2, x5, 0", "kmac.msg w2, x7",
                "smp.run x27, x4, uni23"]

    def _rows_two_tiles(self):
        """Per row (two tiles): t1 unpack + NTT, t1_hat o c_hat + sum_j A_hat[i][j] o z_hat[j]
        (the next A entry sampled into the other tile; the last one with the INTT),
        UseHint, w1Encode over t1_i.
        x22 = i, x21 = i << 8, x24 = pk's t1_i, x18 = hint position (address), x19 rows left,
        x26 / x27 = this / the other tile (x29 = their xor), x25 = ACC + 32 n_racc."""
        l = self.l
        L = ["addi x22, x0, 0", "addi x21, x0, 0", f"addi x19, x0, {self.k}"] + _li(18, self.HINT)
        L += _li(24, self.PK + 32) + _li(26, self.TILES[0]) + _li(27, self.TILES[1]) + \
            _li(29, self.TILES[0] ^ self.TILES[1]) + _li(25, self.ACC + 32 * self.n_racc)
        L += ["row_loop:"]
        L += [f"addi x1, x0, {SHAKE128}", "addi x2, x0, 34", "addi x3, x0, -1",
              "addi x7, x0, 3", "addi x4, x0, 256"] + _li(15, self.Z_HAT)
        for j in range(l):
            L += ["smp.wait"]
            if j + 1 < l:
                L += self._start_a_row(j + 1)
            else:
                L += ["addi x5, x0, 1", "beq x19, x5, last_row_0"]
                L += self._start_a_row(256)
                L += ["last_row_0:"]
            # x15 runs on through z_hat[j]; entry 0 with t1_hat o c_hat, the last one with
            # the INTT
            if j in (0, l - 1):            # the middle entries read the tile at x26
                L += ["addi x10, x26, 0"]
            if j == l - 2:                 # z_hat l - 2, l - 1 lie after ACC
                L += _li(15, self.z_slots[j])
            if j == 0:                     # t1_i unpacked, NTT'd, o c_hat + A_hat[i][0] o z_hat[0]
                L += ["addi x5, x24, 0"] + _li(8, self.ACC) + self._body("unpack_t1_mac")
            elif j < l - 1:                # inline (IMEM has the room): no call / return
                L += mac_acc_unrolled(self._first_piece()[1])
            else:
                L += _li(8, self.ACC) + self._body("mac_intt1")
            L += ["xor x26, x26, x29", "xor x27, x27, x29"]
        L += self._body("hint_fix")
        L += _li(5, self.ACC) + ["addi x6, x24, 0"] + self._body("hw1_encode")
        L += ["addi x24, x24, 320", "addi x21, x21, 256", "addi x22, x22, 1",
              "addi x19, x19, -1", *far("bne", "x19", "x0", "row_loop")]
        return L

    def _adv(self, x):
        """x = the next tile of the ring (x30 = 0x3fff, x31 = RING)."""
        return [f"addi {x}, {x}, 1024", f"and {x}, {x}, x30", f"or {x}, {x}, x31"]

    def _job(self, off):
        """Checkpoint: wait for the sampler, then A_hat entry x21 + off -> tile x27 (off >=
        256: the next row's, none after the last row), x27 advanced."""
        L = ["smp.wait"]
        if off is None:
            return L
        if off >= 256:
            L += ["addi x5, x0, 1", f"beq x19, x5, job_skip_{off}"]
        L += self._start_a_row(off) + self._adv("x27")
        return L + ([f"job_skip_{off}:"] if off >= 256 else [])

    def _rows_ring(self):
        """The rows with the 4-tile ring: entry 0 with t1_hat o c_hat (after the t1 NTT), then
        pairs (mac_pair; a single last one by mac_acc when l - 1 is odd). A sampler job at each
        checkpoint: before each multiply-accumulate and twice in the row's tail (after the
        last one, after the INTT), for the entry 4 ahead at most (its tile was consumed).
        x26 = the next tile to consume, x27 = to sample into; registers as _rows_two_tiles."""
        l = self.l
        units = [[0]] + [list(range(j, min(j + 2, l))) for j in range(1, l, 2)]
        jobs = {4: [3, 256, 257, 258, None], 5: [3, 4, 256, 257, 258]}[l]
        # each job's tile is free: its entry is 4 after one consumed before the checkpoint
        # (entries counted from the row's first; checkpoints: before each unit, then 2)
        starts = [unit[0] for unit in units] + [l, l]
        for g, first in zip(jobs, starts):
            if g is not None:
                e = g % 256 + (l if g >= 256 else 0)
                assert e - 4 < first, (l, g)
        done = sorted(g % 256 + (l if g >= 256 else 0) for g in jobs if g is not None)
        assert done == list(range(3, l + 3)), done     # the row's jobs: entries 3 .. l + 2
        L = ["addi x22, x0, 0", "addi x21, x0, 0", f"addi x19, x0, {self.k}"] + _li(18, self.HINT)
        L += _li(24, self.PK + 32) + _li(26, self.TILES[0]) + _li(27, self.TILES[3]) + \
            _li(25, self.ACC + 32 * self.n_racc) + _li(30, 0x3FFF) + _li(31, self.RING)
        L += ["row_loop:"]
        L += [f"addi x1, x0, {SHAKE128}", "addi x2, x0, 34", "addi x3, x0, -1",
              "addi x7, x0, 3", "addi x4, x0, 256"] + _li(15, self.Z_HAT)
        for u, unit in enumerate(units):
            last = u == len(units) - 1                # with the INTT
            L += self._job(jobs[u])
            L += ["addi x10, x26, 0"] + self._adv("x26") + ["addi x20, x25, 0"]
            if last:
                L += _li(8, self.ACC)
            if unit == [0]:                # t1_i unpacked, NTT'd, o c_hat + A_hat[i][0] o z_hat[0]
                L += ["addi x5, x24, 0"] + _li(8, self.ACC) + self._body("unpack_t1_mac")
            elif len(unit) == 2:
                L += ["addi x11, x26, 0"] + self._adv("x26") + \
                    ["addi x23, x25, 0", "addi x12, x15, 1024"] + \
                    self._body("mac_intt2" if last else "mac_pair") + ["addi x15, x12, 0"]
            else:
                L += ["addi x23, x25, 0"] + (self._body("mac_intt1") if last else
                                             mac_acc(self._first_piece()[1]))
        L += self._job(jobs[len(units)])        # x1..x7 as set (the MACs keep them)
        L += self._body("hint_fix")
        L += [f"addi x1, x0, {SHAKE128}", "addi x2, x0, 34", "addi x3, x0, -1",
              "addi x7, x0, 3", "addi x4, x0, 256"] + self._job(jobs[len(units) + 1])
        L += _li(5, self.ACC) + ["addi x6, x24, 0"] + self._body("hw1_encode")
        L += ["addi x24, x24, 320", "addi x21, x21, 256", "addi x22, x22, 1",
              "addi x19, x19, -1", *far("bne", "x19", "x0", "row_loop")]
        return L

    def _rows(self):
        return self._rows_ring() if self.pairs else self._rows_two_tiles()

    def _final(self):
        """c_tilde' = H(mu || w1Encode(w1), lambda / 4) against c_tilde."""
        words = self.w1bits
        L = [f"addi x1, x0, {SHAKE256}"] + _li(2, 64 + self.k * 32 * words) + \
            ["kmac.start x1, x2", "addi x3, x0, -1", f"bn.lw w1, {_m(self.MU)}",
             f"bn.lw w2, {_m(self.MU + 32)}", "kmac.msg w1, x3", "kmac.msg w2, x3"]
        L += _li(7, self.PK + 32) + _loop(self.k, [x for _ in range(words) for x in
                                                   ("bn.lw.pi w1, 0(x7)", "kmac.msg w1, x3")] +
                                          [f"addi x7, x7, {320 - 32 * words}"])
        L += ["kmac.dig w1", "kmac.dig w2", "bn.xor w5, w5, w5", "bn.wsrw ACC, w5",
              f"bn.lw w3, {_m(self.CTIL)}", "bn.or.acc x9, w1, w3"]
        if self.ctil_len > 32:
            L += [f"bn.lw w4, {_m(self.CTIL + 32)}"]
            if self.ctil_len < 64:
                L += [f"bn.ins w2, x0, {q}" for q in range((self.ctil_len - 32) // 4, 8)]
            L += ["bn.or.acc x9, w2, w4"]
        L += [*far("bne", "x9", "x0", "exit_invalid"), f"addi x1, x0, {STATUS_VALID}"] + \
            _li(2, self.STATUS) + ["sw x1, 0(x2)", "kmac.rel", "ecall"]
        return L

    def phases(self):
        """[(name, lines)] of the main line (the exits and subroutines follow)."""
        ph = [("length check, SHAKE256(pk) started", VMODE1 + ["kmac.acq"] + self._start_tr()),
              ("z_j (z_pre): unpack + range check + NTT, pk absorbed meanwhile", self._z_pre()),
              ("tr = H(pk), mu = H(tr || M')", self._hash_mu()),
              ("c = SampleInBall(c_tilde)", self._sample_in_ball(self.sib_words))]
        start_a00 = ["addi x21, x0, 0"] + _li(27, self.TILES[0]) + \
            self._start_a("x21", 0, "x27")
        if self.pairs:
            ph.append(("A_hat[0][0] started; hint tail check; NTT(c)",
                       start_a00 + verify_hint.hint_tail(self) + _li(8, self.C_HAT) +
                       self._call("ntt_x8")))
            ph.append(("z_j (z_post): unpack + range check + NTT", self._z_post()))
        else:                   # the tiles lie over the packed z_post: sampled after them
            ph.append(("hint tail check", verify_hint.hint_tail(self)))
            ph.append(("z_j (z_post): unpack + range check + NTT", self._z_post()))
            ph.append(("A_hat[0][0] started; NTT(c)",
                       start_a00 + _li(8, self.C_HAT) + self._call("ntt_x8")))
        ph.append((f"{self.k} rows: hint, t1, A_hat o z_hat - c_hat o t1_hat 2^d, INTT, "
                   "UseHint, w1Encode", self._rows()))
        ph.append(("c_tilde' = H(mu || w1Encode(w1)), compare", self._final()))
        return ph

    def exits(self):
        return (self._exit("exit_msg", STATUS_MSG_LENGTH) +
                self._exit("exit_z", STATUS_Z_RANGE) +
                self._exit("exit_count", STATUS_HINT_COUNT) +
                self._exit("exit_order", STATUS_HINT_ORDER) +
                self._exit("exit_pad", STATUS_HINT_PADDING) +
                self._exit("exit_invalid", STATUS_INVALID))

    def program(self) -> str:
        lines = []
        for _, L in self.phases():
            lines += L
        lines += self.exits() + self.subroutines()
        return "\n".join(sched.schedule(lines)) + "\n"

    def ct_policy(self) -> dict:
        """Everything a verifier reads is public (pk, signature, M' / mu, constants): the
        constant-time check (ip/acc/tools/constant_time.py) has nothing secret to follow;
        the policy says so explicitly (rest = public)."""
        return {"secret": {}, "public": {"pk": (self.PK, self.PK + self.pk_len),
                                         "signature, M', mu": (self.HDR, DMEM_SIZE)},
                "rest": "public", "allow": [], "bounds": []}


def verify(param: int) -> Verify:
    """The verifier of ML-DSA-44, -65 or -87."""
    return Verify(param)
