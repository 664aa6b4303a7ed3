# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""ACC stream unit, sampler slice: KMAC digest stream -> rejection / CBD samplers -> DMEM.

Modes (isa.yml smp.run `mode` enum index): 0 uni12 (FIPS 203 SampleNTT), 1 uni23 (FIPS 204
RejNTTPoly), 2 cbd2 / 3 cbd3 (FIPS 203 SamplePolyCBD_eta, output (x - y) mod q), 4 eta2 /
5 eta4 (FIPS 204 RejBoundedPoly, low nibble first, output (eta - f(nibble)) mod q). q and the
lane width come from `vmode` latched at start (0: 16 x 16-bit lanes, q = 3329; 1: 8 x 32-bit
lanes, q = 8380417). uni23 in VMODE 0 writes the low 16 bits of each candidate (misuse, no
error). Modes 6..15 (unpack, pack, ball, undefined) produce nothing: the unit stays busy (and
keeps taking digest words) until `abort`; the core rejects them before `start`.

Exact cycle behaviour (the ISS model ip/acc/iss/stream_unit.py is this, cycle for cycle):

* Every output is a function of registers only: none depends combinationally on an input.
* `start` (with `abort` low) loads mode/vmode/count/dst and clears the byte ring, the
  accumulator, the write buffer, `taken` and `produced`; `busy` is 1 from the next cycle.
  A `start` while busy restarts the unit (the core never does this). `abort` (the core's
  ecall, fault and wipe) clears `busy`, the rings and their contents, the accumulator, the
  write buffers and their valid flags, the masked stage registers and `produced` at the clock
  edge, so the digest bytes and shares the unit held do not outlive the program; it wins over
  a `start` in the same cycle.
* Byte ring: 64 bytes (two 256-bit slots), read pointer `ptr` (byte), fill `cnt` (0..64),
  write slot `hslot`. dig_ready = busy & cnt <= 32 & taken + pot(cnt) < count, where pot is
  the most coefficients the bytes in the ring can still give (uni12 2*floor(cnt/3), uni23
  floor(cnt/3), cbd3 4*floor(cnt/3), cbd2/eta 2*cnt): the unit takes a word only when there
  is a free slot and the ring cannot possibly finish the job (cbd modes take exactly the
  words they need). A word taken in cycle t (dig_valid & dig_ready) is in the ring in t+1.
* Consumption, each busy cycle, of g units from the ring at ptr (units: 3 bytes for uni12,
  uni23, cbd3; 1 byte for cbd2, eta2, eta4; g = min(gmax, floor(cnt / unit)), gmax = 4, 4, 2
  for uni, cbd3, the others 4): i.e. up to 12 bytes/cycle (uni), 6 (cbd3), 4 (cbd2/eta);
  at most 8 candidates per cycle (uni12 8, uni23 4, cbd 8, eta 8). Accepted candidates,
  limited to the coefficients still missing (count - taken), are compacted (prefix count)
  and OR-ed into the accumulator at lane `fill` (a 2-word accumulator: lanes past the word
  spill into the next word). The cycle consumes only if g > 0, taken < count and, when it
  completes a word (fill + n >= L) or the job (taken + n == count), the write buffer is free
  or is being written in this cycle (wr_gnt, used internally only).
  Completing a word moves it to the one-word write buffer (wr_req = 1 from the next cycle);
  the last, partial word is zero-padded. When the job is complete but a spilled partial word
  is left in the accumulator, it is flushed to the write buffer as soon as that is free.
* Latency: a digest word taken in cycle t is consumed from t+1 on; a DMEM word completed by
  the consumption in cycle c is presented (wr_req) in c+1 and written in the first cycle
  with wr_gnt. `produced` += L (capped at count) in the cycle after each write.
  `busy` drops in the cycle after the write of the last word (busy is still 1 in that write
  cycle; in the next cycle busy = 0 and produced = count).
* count = 0: busy for one cycle, nothing written.

Masked modes (9 cbd2m, 10 cbd3m, 11 b2a1m; issue #38): SamplePolyCBD_eta (eta 2 / 3) of a
masked KMAC operation's digest, given in two Boolean shares (b2a1m: bits from DMEM, below),
written as two arithmetic shares mod 3329 in 16-bit lanes (whatever vmode): share 0's
ceil(count / 16) words from dst, share 1's right after them. The gadget is ip/acc/iss/masked_cbd.py's (stage1 / stage2):

* Intake (iphase): dig_share1 = busy & iphase 0 & (the unmasked modes' dig_ready condition);
  a valid word then goes into ring1's slot hslot (iphase 1); a cycle asking nothing
  (iphase 2); dig_ready = busy & iphase 2, the take puts share 0 into the ring's slot, flips
  hslot, adds 32 to cnt (iphase 0). pot: cbd2m 2 cnt, cbd3m 4 floor(cnt / 3) - sub.
* Randomness: rreg holds the next step's r_j = floor(R_j q / 2^32), R_j = urnd[32j +: 32].
  urnd_step (the core steps URND 256 rounds) in the first busy cycle (rvalid = 0: rreg is
  loaded) and in every step (rreg reloaded for the next one).
* Stage 1 (a step): busy, rvalid, count - taken != 0, a unit in the ring (cbd2m 1 byte, cbd3m
  3), and, if it completes share 0's word (mfill + n >= 16 or n = count - taken), neither
  write buffer full. n = 2 (cbd2m, two coefficients of the byte at ptr) or 1 (cbd3m, the
  6-bit field sub of the 3 bytes at ptr; ptr moves by 3 when sub wraps). E0 of the n
  coefficients goes into acc[:256] at lane mfill; the a_j, share 0's bits, the lane, n and
  "completes" into the stage-2 register. A completed word goes to wbuf (wvalid).
* Stage 2 (the next cycle): E1 into acc[256:] at the registered lane; a completed word goes
  to wbuf1 (wvalid1) at share 1's next address.
* Writes: wbuf presented while wvalid, wbuf1 while wvalid1 and not wvalid, neither in the
  cycle after a write (gap); wr_data is the presented buffer, 0 when none is. produced += 16
  (capped at count) after each write of share 1's words. busy drops once taken = count, E0's
  lanes are empty, stage 2 is idle and both buffers are written.
* b2a1m (11): the gadget on one bit (s = +1), 8 coefficients a step (bit j of the byte at ptr
  is coefficient 8 ptr + j; E0 = u_j, E1 = a_j (1 - 2 x0_j)), at lanes 0 or 8. No digest:
  the unit reads DMEM words src, src + 1, src + 2 (share 0, a public word, share 1; src
  latched at start): rd_req = busy while rdphase < 3, rd_addr = src + rdphase; a read granted
  (rd_gnt) in cycle t has its data on rd_data in t + 1, when share 0 goes into the ring's
  first slot, the public word nowhere, share 1 into ring1's (and cnt = 32).

intm (12; issue #38): the masked interval gadget of ip/acc/iss/masked_interval.py (its
y_stage / adder_stage / finish, as expressions on 16-bit lane vectors), count / 16 groups of
16 coefficients, one coefficient a lane:

* Reads (rdphase 0..3, rd_req while not running and groups remain): share 0 (src + g) into the
  ring's first slot, the public word (pub + g, or pub with cfg[7]) into its second, share 1
  (src + n + g) into ring1's first, the public word again (its data starts the RUN cycles).
  pub, cfg[7] and w_base = cfg[31:20] are latched at start, src from SMP_SRC.
* RUN cycles ik = 0 .. 14: the lane registers take step()'s values (the y stage's reset values
  at ik = 14, the adder stage's zeros at ik = 0); ik = 15: the group's ok bits into
  acc[16 g +: 16] (share 0) and acc[256 + ...] (share 1), every lane register back to its
  reset value; then the next group's reads. URND steps in every busy cycle and its output
  (bits 14 L .. 14 L + 13 for lane L) is the cycle's randomness.
* After the last group: acc's halves into the two write buffers (dst, dst + 1), written as
  the other masked modes' (share 0 first, a cycle between); produced = count after share 1's.
  busy drops with the last write.
"""
from amaranth.hdl import C, Cat, Module, Mux, Signal, signed
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from ip.acc.iss import masked_interval as mi

__all__ = ["StreamUnit", "MODE_NAMES", "MASKED_MODES", "INTERVAL_MODE", "Q"]

MODE_NAMES = ("uni12", "uni23", "cbd2", "cbd3", "eta2", "eta4")
MASKED_MODES = {9: 2, 10: 3, 11: 0}   # cbd2m, cbd3m: eta; b2a1m: one bit a coefficient
B2A_MODE = 11
INTERVAL_MODE = 12                    # intm: ip/acc/iss/masked_interval.py on 16 lanes
Q = (3329, 8380417)
_Q = Q[0]


def _reduce(m, v, name):
    """v mod q for 0 <= v < 8q (conditional subtractions of 4q, 2q, q)."""
    out = v
    for k in (4, 2, 1):
        nxt = Signal(15, name=f"{name}_{k}")
        m.d.comb += nxt.eq(Mux(out >= k * _Q, out - k * _Q, out))
        out = nxt
    return out[:12]


def _signed_sum(m, terms, signs, name):
    """sum_j signs_j terms_j mod q, each term in [0, q): a negative term enters as q - t."""
    total = C(0, 15)
    for t, sg in zip(terms, signs):
        total = total + (t if sg > 0 else _Q - t)
    v = Signal(15, name=f"{name}_sum")
    m.d.comb += v.eq(total)
    return _reduce(m, v, name)


def _popcount(bits):
    s = C(0, 2)
    for i in range(len(bits)):
        s = s + bits[i]
    return s


class StreamUnit(wiring.Component):
    def __init__(self, dmem_words):
        self.dmem_words = dmem_words
        super().__init__({
            "start": In(1), "mode": In(4), "count": In(16), "dst": In(range(dmem_words)),
            "vmode": In(1), "cfg": In(32),
            "dig_valid": In(1), "dig_data": In(256), "dig_ready": Out(1), "dig_share1": Out(1),
            "urnd": In(256), "urnd_step": Out(1), "masked_busy": Out(1),
            "wr_req": Out(1), "wr_addr": Out(range(dmem_words)), "wr_data": Out(256),
            "wr_gnt": In(1),
            # b2a1m's source: DMEM words src (share 0), src + 1 (public), src + 2 (share 1),
            # read in cycles the core leaves DMEM free (rd_gnt), data the cycle after
            "src": In(range(dmem_words)), "rd_req": Out(1), "rd_addr": Out(range(dmem_words)),
            "rd_gnt": In(1), "rd_data": In(256),
            "abort": In(1), "busy": Out(1), "produced": Out(16),
        })

    def elaborate(self, platform):
        m = Module()
        aw = len(self.dst)

        busy = Signal()
        mode = Signal(4)
        vmode = Signal()
        count = Signal(16)
        taken = Signal(16)
        produced = Signal(16)
        addr = Signal(aw)
        ring = Signal(512)
        ptr = Signal(6)
        cnt = Signal(7)
        hslot = Signal()
        acc = Signal(512)
        fill = Signal(4)
        wvalid = Signal()
        wbuf = Signal(256)
        waddr = Signal(aw)
        # masked modes (cbd2m, cbd3m): share 1's ring, intake phase, cbd3m's 6-bit field, E0's
        # fill, stage 2's register (lane, count, word complete, a_j, share 0's bits), E1's
        # write buffer and address, the cycle after a write
        ring1 = Signal(512)
        iphase = Signal(2)
        sub = Signal(2)
        mfill = Signal(4)
        s2_valid = Signal()
        s2_n = Signal(4)             # coefficients stage 1 took (1..8)
        s2_lane = Signal(4)
        s2_complete = Signal()
        s2_a = [Signal(12, name=f"s2_a{j}") for j in range(8)]
        s2_x0 = Signal(8)
        rreg = [Signal(12, name=f"rreg{j}") for j in range(8)]     # the next step's r_j
        rvalid = Signal()
        saddr = Signal(aw)            # b2a1m: its source, the next word read, a read pending
        rdphase = Signal(3)
        rd_pend = Signal()
        rd_which = Signal(2)
        wvalid1 = Signal()
        wbuf1 = Signal(256)
        addr1 = Signal(aw)
        waddr1 = Signal(aw)
        gap = Signal()

        uni12, uni23, cbd2, cbd3, eta2, eta4 = (mode == i for i in range(6))
        cbd2m, cbd3m, b2a = mode == 9, mode == 10, mode == B2A_MODE
        masked = Signal()
        m.d.comb += masked.eq(cbd2m | cbd3m | b2a)
        intm = mode == INTERVAL_MODE
        mw = Signal()                 # the masked modes' write discipline (intm's too)
        m.d.comb += mw.eq(masked | intm)

        # ---- ring window (12 bytes at ptr) and units available
        win = Signal(96)
        m.d.comb += win.eq(Cat(ring, ring[:96]).bit_select(Cat(C(0, 3), ptr), 96))
        b = [win[8 * i:8 * i + 8] for i in range(12)]
        f3 = Signal(5)          # floor(cnt / 3), cnt <= 64
        m.d.comb += f3.eq((cnt * 171) >> 9)
        # the group counts min(4 or 2, floor(cnt / 3)) by compares on cnt, not through the
        # constant multiplier of f3 (it starts the unit's longest path: consume, busy, acc)
        g3 = Mux(cnt >= 12, 4, Mux(cnt >= 9, 3, Mux(cnt >= 6, 2, Mux(cnt >= 3, 1, 0))))
        g = Signal(3)
        with m.If(uni12 | uni23):
            m.d.comb += g.eq(g3)
        with m.Elif(cbd3):
            m.d.comb += g.eq(Mux(cnt >= 6, 2, Mux(cnt >= 3, 1, 0)))
        with m.Elif(cbd2 | eta2 | eta4):
            m.d.comb += g.eq(Mux(cnt >= 4, 4, cnt[:3]))
        gbytes = Signal(4)
        m.d.comb += gbytes.eq(Mux(uni12 | uni23 | cbd3, g * 3, g))

        q = Mux(vmode, Q[1], Q[0])

        def modq(s):
            return Mux(s[-1], q + s.as_signed(), s)[:23]

        # ---- 8 candidates: value, accepted
        cand = [Signal(23, name=f"cand{i}") for i in range(8)]
        acc_ok = [Signal(name=f"ok{i}") for i in range(8)]
        for i in range(8):
            j3, k3 = i // 2, i % 2             # uni12: group, which of the pair
            grp = Cat(b[3 * j3], b[3 * j3 + 1], b[3 * j3 + 2])
            d12 = grp[12 * k3:12 * k3 + 12]
            nib = b[i // 2][4 * (i % 2):4 * (i % 2) + 4]      # cbd2 / eta: byte i//2
            s_cbd2 = Signal(signed(4), name=f"s_cbd2_{i}")
            m.d.comb += s_cbd2.eq(_popcount(nib[:2]) - _popcount(nib[2:]))
            g6 = Cat(b[3 * (i // 4)], b[3 * (i // 4) + 1], b[3 * (i // 4) + 2])
            f6 = g6[6 * (i % 4):6 * (i % 4) + 6]
            s_cbd3 = Signal(signed(4), name=f"s_cbd3_{i}")
            m.d.comb += s_cbd3.eq(_popcount(f6[:3]) - _popcount(f6[3:]))
            # eta2: 2 - (z mod 5), z < 15; eta4: 4 - z, z < 9
            zmod5 = Mux(nib >= 10, nib - 10, Mux(nib >= 5, nib - 5, nib))[:3]
            s_eta2 = Signal(signed(4), name=f"s_eta2_{i}")
            s_eta4 = Signal(signed(5), name=f"s_eta4_{i}")
            m.d.comb += [s_eta2.eq(2 - zmod5), s_eta4.eq(4 - nib)]
            with m.If(uni12):
                m.d.comb += [cand[i].eq(d12), acc_ok[i].eq((j3 < g) & (d12 < Q[0]))]
            if i < 4:
                g23 = Cat(b[3 * i], b[3 * i + 1], b[3 * i + 2][:7])
                with m.If(uni23):
                    m.d.comb += [cand[i].eq(g23), acc_ok[i].eq((i < g) & (g23 < Q[1]))]
            with m.If(cbd2):
                m.d.comb += [cand[i].eq(modq(s_cbd2)), acc_ok[i].eq(i // 2 < g)]
            with m.If(cbd3):
                m.d.comb += [cand[i].eq(modq(s_cbd3)), acc_ok[i].eq(i // 4 < g)]
            with m.If(eta2):
                m.d.comb += [cand[i].eq(modq(s_eta2)), acc_ok[i].eq((i // 2 < g) & (nib < 15))]
            with m.If(eta4):
                m.d.comb += [cand[i].eq(modq(s_eta4)), acc_ok[i].eq((i // 2 < g) & (nib < 9))]

        # ---- compaction: prefix counts, limit to the coefficients still missing
        remaining = Signal(16)
        m.d.comb += remaining.eq(count - taken)
        pre = []
        s = C(0, 4)
        for i in range(8):
            pre.append(s)
            s = (s + acc_ok[i])[:4]
        total = Signal(4)
        m.d.comb += total.eq(s)
        n = Signal(4)
        m.d.comb += n.eq(Mux(remaining < total, remaining[:4], total))
        comp = []
        for k in range(8):
            ck = Signal(23, name=f"comp{k}")
            terms = [Mux(acc_ok[i] & (pre[i] == k), cand[i], 0) for i in range(k, 8)]
            v = terms[0]
            for t in terms[1:]:
                v = v | t
            m.d.comb += ck.eq(Mux(k < n, v, 0))
            comp.append(ck)
        ins = Signal(256)
        m.d.comb += ins.eq(Mux(vmode, Cat(*[Cat(c, C(0, 9)) for c in comp]),
                               Cat(*[c[:16] for c in comp])))
        sh16 = Signal(4)
        m.d.comb += sh16.eq(Mux(vmode, Cat(C(0, 1), fill[:3]), fill))
        acc_new = Signal(512)
        m.d.comb += acc_new.eq(acc | (ins << Cat(C(0, 4), sh16))[:512])

        lanes = Mux(vmode, 8, 16)
        fsum = Signal(5)
        m.d.comb += fsum.eq(fill + n)
        full = Signal()
        final = Signal()
        m.d.comb += [full.eq(fsum >= lanes), final.eq(n == remaining)]
        wb_free = ~wvalid | self.wr_gnt
        consume = Signal()
        m.d.comb += consume.eq(busy & ~mw & (remaining != 0) & (g != 0)
                               & (~(full | final) | wb_free))
        flush = Signal()
        m.d.comb += flush.eq(busy & ~mw & (remaining == 0) & (fill != 0) & wb_free)

        # ---- digest intake
        pot = Signal(8)
        with m.If(uni12):
            m.d.comb += pot.eq(f3 * 2)
        with m.Elif(uni23):
            m.d.comb += pot.eq(f3)
        with m.Elif(cbd3):
            m.d.comb += pot.eq(f3 * 4)
        with m.Elif(cbd2 | eta2 | eta4 | cbd2m):
            m.d.comb += pot.eq(cnt * 2)
        with m.Elif(cbd3m):
            m.d.comb += pot.eq(f3 * 4 - sub)
        want = Signal()
        m.d.comb += want.eq(busy & ~b2a & ~intm & (cnt <= 32) & ((taken + pot) < count))
        dig_ready = Signal()
        # masked: share 1 (dig_share1) into ring1, a cycle asking nothing, share 0 taken
        m.d.comb += dig_ready.eq(Mux(masked, busy & (iphase == 2), want))
        take = dig_ready & self.dig_valid

        # ---- masked modes: the gadget of ip/acc/iss/masked_cbd.py, two register stages
        win1 = Signal(24)
        m.d.comb += win1.eq(Cat(ring1, ring1[:24]).bit_select(Cat(C(0, 3), ptr), 24))
        x0, x1 = Signal(8), Signal(8)
        with m.If(cbd3m):
            m.d.comb += [x0.eq(win[:24].word_select(sub, 6)), x1.eq(win1.word_select(sub, 6))]
        with m.Else():
            m.d.comb += [x0.eq(win[:8]), x1.eq(win1[:8])]
        # r_j = floor(R_j q / 2^32), R_j URND's word j, registered for the next step (URND's
        # unrolled rounds and the multiply are a cycle of their own)
        r_new = []
        for j in range(8):
            rj = Signal(12, name=f"r_new{j}")
            m.d.comb += rj.eq((self.urnd[32 * j:32 * j + 32] * _Q)[32:44])
            r_new.append(rj)
        r = rreg
        u, a = [], []
        for j in range(8):
            # domain 0: x0_j + r_j (1 - 2 x0_j) mod q; domain 1: a_j = x1_j - r_j mod q
            uj, aj = Signal(12, name=f"u{j}"), Signal(12, name=f"a{j}")
            one_minus = Mux(r[j] <= 1, 1 - r[j], _Q + 1 - r[j])
            minus = Mux(r[j] == 0, 0, _Q - r[j])
            m.d.comb += [uj.eq(Mux(x0[j], one_minus, r[j])), aj.eq(Mux(x1[j], one_minus, minus))]
            u.append(uj)
            a.append(aj)
        e0_lo = Mux(cbd3m, _signed_sum(m, u[:6], (1, 1, 1, -1, -1, -1), "e0c3"),
                    _signed_sum(m, u[:4], (1, 1, -1, -1), "e0c0"))
        e0_hi = _signed_sum(m, u[4:], (1, 1, -1, -1), "e0c1")
        # domain 1, from stage 2's register: sum_j s_j a_j (1 - 2 x0_j)
        def e1_of(js, signs, name):
            t = []
            for j, sg in zip(js, signs):
                tj = Signal(12, name=f"{name}_t{j}")      # s_j (1 - 2 x0_j) a_j as a term >= 0
                neg = s2_x0[j] if sg > 0 else ~s2_x0[j]
                m.d.comb += tj.eq(Mux(neg & (s2_a[j] != 0), _Q - s2_a[j], s2_a[j]))
                t.append(tj)
            return _signed_sum(m, t, [1] * len(t), name)
        e1_lo = Mux(cbd3m, e1_of(range(6), (1, 1, 1, -1, -1, -1), "e1c3"),
                    e1_of(range(4), (1, 1, -1, -1), "e1c0"))
        e1_hi = e1_of(range(4, 8), (1, 1, -1, -1), "e1c1")

        two = Signal()                # cbd2m's step takes two coefficients unless one is left
        m.d.comb += two.eq(cbd2m & (remaining >= 2))
        mn = Signal(4)                # coefficients a step takes (b2a1m: 8 unless fewer left)
        m.d.comb += mn.eq(Mux(b2a, Mux(remaining >= 8, 8, remaining[:4]), 1 + two))
        complete = Signal()
        m.d.comb += complete.eq((mfill + mn >= 16) | (mn == remaining))
        mstep = Signal()
        m.d.comb += mstep.eq(busy & masked & rvalid & (remaining != 0)
                             & Mux(cbd3m, cnt >= 3, cnt != 0) & ~(complete & (wvalid | wvalid1)))
        rload = Signal()              # a step, or the job's first r: URND's next 256 bits
        m.d.comb += rload.eq(mstep | (busy & masked & ~rvalid))
        mbytes = Mux(cbd3m, Mux(sub == 3, 3, 0), 1)
        # b2a1m: bit j of the byte is a coefficient of its own (s = +1): E0 = u_j, E1 = a_j
        # (1 - 2 x0_j); eight lanes at lane 0 or 8
        b2a_e0 = Cat(*[Mux(j < mn, Cat(u[j], C(0, 4)), 0) for j in range(8)])
        b2a_e1 = Signal(128)
        for j in range(8):
            m.d.comb += b2a_e1[16 * j:16 * j + 12].eq(
                Mux(j >= s2_n, 0, Mux(s2_x0[j] & (s2_a[j] != 0), _Q - s2_a[j], s2_a[j])))
        acc0_new = Signal(256)
        m.d.comb += acc0_new.eq(Mux(
            b2a, Mux(mfill[3], Cat(acc[:128], b2a_e0), Cat(b2a_e0, acc[128:256])),
            acc[:256] | (Cat(e0_lo, C(0, 4), Mux(two, e0_hi, 0), C(0, 4)) << Cat(C(0, 4), mfill))[:256]))
        acc1_new = Signal(256)
        m.d.comb += acc1_new.eq(Mux(
            b2a, Mux(s2_lane[3], Cat(acc[256:384], b2a_e1), Cat(b2a_e1, acc[384:])),
            acc[256:] | (Cat(e1_lo, C(0, 4), Mux(s2_n == 2, e1_hi, 0), C(0, 4))
                         << Cat(C(0, 4), s2_lane))[:256]))
        # ---- intm: the gadget of ip/acc/iss/masked_interval.py on 16 lanes, one bit a lane in
        # each 16-bit register (its y_stage / adder_stage written once, as Amaranth expressions
        # here and on ints in the ISS)
        irun, ik, ig, ign = Signal(), Signal(4), Signal(5), Signal(5)
        pub, stride0, w_base = Signal(aw), Signal(), Signal(12)
        ist = {r: Signal(16, name=f"im_{r}") for r in mi.REGS}
        ones = C(0xFFFF, 16)
        reset = {r: (ones if r == "ct" else C(0, 16)) for r in mi.REGS}

        def lanes_of(word, j, width, base=0):
            """Bit j of each 16-bit lane's `width` bits from bit `base` (0 past them)."""
            return Cat(*[Cat(word[16 * L + base:16 * L + base + width], C(0, 16 - width)).bit_select(j, 1)
                         for L in range(mi.LANES)])
        # URND's output this cycle (it steps every busy cycle of intm: fresh bits each cycle)
        rvec = [Cat(*[self.urnd[mi.RND_BITS * L + b] for L in range(mi.LANES)]) for b in range(mi.RND_BITS)]
        jy, ja = ik, (ik - 1)[:4]
        qbits = C(Q[0], 16)
        ynew = mi.y_stage(ist, lanes_of(ring[:256], jy, 12), lanes_of(ring[256:], jy, 12),
                          qbits.bit_select(jy, 1).replicate(16), rvec[0], ones)
        anew = mi.adder_stage(ist, lanes_of(ring1[:256], ja, 12), lanes_of(ring[256:], ja, 4, 12),
                              qbits.bit_select(ja, 1).replicate(16),
                              C(2 * Q[0], 16).bit_select(ja, 1).replicate(16),
                              Cat(w_base, C(0, 4)).bit_select(ja, 1).replicate(16), rvec, ones)
        ok0, ok1 = mi.finish(ist)
        ifin = Signal()                # the group's last cycle: its ok bits into acc
        m.d.comb += ifin.eq(busy & intm & irun & (ik == mi.NB + 1))
        ilast = Signal()
        m.d.comb += ilast.eq(ifin & (ig + 1 == ign))
        # group ig's 16 bits into its slot of acc (a select per slot, not a 256-bit shifter)
        iacc0, iacc1 = Signal(256), Signal(256)
        m.d.comb += [iacc0.eq(Cat(*[Mux(ig == g, ok0, acc[16 * g:16 * g + 16]) for g in range(16)])),
                     iacc1.eq(Cat(*[Mux(ig == g, ok1, acc[256 + 16 * g:256 + 16 * g + 16]) for g in range(16)]))]
        irq = Signal()
        m.d.comb += irq.eq(busy & intm & ~irun & (rdphase < 4) & (ig < ign))
        ipub = Signal(aw)
        m.d.comb += ipub.eq(pub + Mux(stride0, 0, ig))
        iaddr = Signal(aw)
        with m.Switch(rdphase):
            with m.Case(1, 3):
                m.d.comb += iaddr.eq(ipub)
            with m.Case(2):
                m.d.comb += iaddr.eq(saddr + ign + ig)
            with m.Default():
                m.d.comb += iaddr.eq(saddr + ig)

        rd_req = Signal()
        m.d.comb += rd_req.eq((busy & b2a & (rdphase != 3)) | irq)
        present0, present1 = Signal(), Signal()
        m.d.comb += [present0.eq(mw & wvalid & ~gap),
                     present1.eq(mw & wvalid1 & ~wvalid & ~gap)]

        m.d.comb += [
            self.dig_ready.eq(dig_ready),
            self.dig_share1.eq(masked & want & (iphase == 0)),
            self.urnd_step.eq(rload | (busy & intm)), self.masked_busy.eq(busy & mw),
            self.wr_req.eq(Mux(mw, present0 | present1, wvalid)),
            self.wr_addr.eq(Mux(present1, waddr1, waddr)),
            # masked: each buffer on the wires only while presented, 0 in between
            self.wr_data.eq(Mux(mw, Mux(present0, wbuf, 0) | Mux(present1, wbuf1, 0), wbuf)),
            self.busy.eq(busy), self.produced.eq(produced),
            self.rd_req.eq(rd_req), self.rd_addr.eq(Mux(intm, iaddr, saddr + rdphase)),
        ]

        # ---- next state
        taken_n = Signal(16)
        fill_n = Signal(4)
        wvalid_n = Signal()
        mfill_n = Signal(4)
        s2_valid_n = Signal()
        wvalid1_n = Signal()
        m.d.comb += [taken_n.eq(taken), fill_n.eq(fill), mfill_n.eq(mfill), s2_valid_n.eq(0),
                     wvalid_n.eq(Mux(mw, wvalid & ~(present0 & self.wr_gnt),
                                     wvalid & ~self.wr_gnt)),
                     wvalid1_n.eq(wvalid1 & ~(present1 & self.wr_gnt))]
        cnt_c = Signal(7)
        m.d.comb += cnt_c.eq(Mux(consume, cnt - gbytes, Mux(mstep, cnt - mbytes, cnt)))
        m.d.sync += cnt.eq(Mux(take, cnt_c + 32, cnt_c))
        with m.If(take):
            with m.If(hslot):
                m.d.sync += ring[256:].eq(self.dig_data)
            with m.Else():
                m.d.sync += ring[:256].eq(self.dig_data)
            m.d.sync += hslot.eq(~hslot)
        step_n = Mux(masked, 16, lanes)       # masked modes: 16-bit lanes whatever VMODE
        with m.If(Mux(mw, present1, wvalid) & self.wr_gnt):
            m.d.sync += produced.eq(Mux(intm | (produced + step_n > count), count, produced + step_n))
        m.d.sync += gap.eq(mw & (present0 | present1) & self.wr_gnt)
        with m.If(masked & busy & (iphase == 0) & want & self.dig_valid):
            with m.If(hslot):
                m.d.sync += ring1[256:].eq(self.dig_data)
            with m.Else():
                m.d.sync += ring1[:256].eq(self.dig_data)
            m.d.sync += iphase.eq(1)
        with m.If(masked & busy & (iphase == 1)):
            m.d.sync += iphase.eq(2)
        with m.If(masked & take):
            m.d.sync += iphase.eq(0)
        with m.If(s2_valid):                  # stage 2: E1 into acc[256:]
            with m.If(s2_complete):
                m.d.sync += [acc[256:].eq(0), wbuf1.eq(acc1_new), waddr1.eq(addr1),
                             addr1.eq(addr1 + 1)]
                m.d.comb += wvalid1_n.eq(1)
            with m.Else():
                m.d.sync += acc[256:].eq(acc1_new)
        with m.If(rload):
            m.d.sync += [Cat(*rreg).eq(Cat(*r_new)), rvalid.eq(1)]
        # b2a1m's reads: word k granted in cycle t is on rd_data in t + 1; share 0 into the
        # ring, the public word nowhere, share 1 into ring1 (then the 32 bytes are there)
        # intm's: share 0 into the ring's first slot, the public word into its second, share 1
        # into ring1, the second public read starts the group's RUN cycles
        m.d.sync += rd_pend.eq(rd_req & self.rd_gnt)
        with m.If(rd_req & self.rd_gnt):
            m.d.sync += [rdphase.eq(rdphase + 1), rd_which.eq(rdphase)]
        with m.If(rd_pend & (rd_which == 0)):
            m.d.sync += ring[:256].eq(self.rd_data)
        with m.If(rd_pend & (rd_which == 1) & intm):
            m.d.sync += ring[256:].eq(self.rd_data)
        with m.If(rd_pend & (rd_which == 2)):
            m.d.sync += ring1[:256].eq(self.rd_data)
            with m.If(b2a):
                m.d.comb += cnt_c.eq(32)
        with m.If(rd_pend & (rd_which == 3) & intm):
            m.d.sync += [irun.eq(1), ik.eq(0), rdphase.eq(0)]
        # intm's lanes: RUN cycle ik (the y stage of bit ik, the adder stage of bit ik - 1),
        # then the group's ok bits; every register back to its reset value outside RUN
        with m.If(busy & intm & irun & (ik <= mi.NB)):
            for r in mi.Y_REGS:
                m.d.sync += ist[r].eq(Mux(ik < mi.NB, ynew[r], reset[r]))
            for r in mi.ADDER_REGS:
                m.d.sync += ist[r].eq(Mux(ik == 0, 0, anew[r]))
            m.d.sync += ik.eq(ik + 1)
        with m.Else():
            m.d.sync += [ist[r].eq(reset[r]) for r in mi.REGS]
        with m.If(ifin):
            m.d.sync += [ig.eq(ig + 1), irun.eq(0), ik.eq(0)]
            with m.If(ilast):
                m.d.sync += [acc.eq(0), wbuf.eq(iacc0), waddr.eq(addr), wbuf1.eq(iacc1), waddr1.eq(addr1)]
                m.d.comb += [wvalid_n.eq(1), wvalid1_n.eq(1)]
            with m.Else():
                m.d.sync += acc.eq(Cat(iacc0, iacc1))

        with m.If(mstep):                     # stage 1: E0 into acc[:256], a and x0 registered
            m.d.sync += [s2_n.eq(mn), s2_lane.eq(mfill), s2_complete.eq(complete),
                         s2_x0.eq(x0), Cat(*s2_a).eq(Cat(*a)),
                         sub.eq(Mux(cbd3m, sub + 1, 0)), ptr.eq(ptr + mbytes)]
            m.d.comb += [s2_valid_n.eq(1), taken_n.eq(taken + mn)]
            with m.If(complete):
                m.d.sync += [acc[:256].eq(0), wbuf.eq(acc0_new), waddr.eq(addr),
                             addr.eq(addr + 1)]
                m.d.comb += [wvalid_n.eq(1), mfill_n.eq(0)]
            with m.Else():
                m.d.sync += acc[:256].eq(acc0_new)
                m.d.comb += mfill_n.eq(mfill + mn)
        with m.If(consume):
            m.d.sync += ptr.eq(ptr + gbytes)
            m.d.comb += taken_n.eq(taken + n)
            with m.If(full | final):
                m.d.sync += [acc.eq(acc_new[256:]), wbuf.eq(acc_new[:256]), waddr.eq(addr),
                             addr.eq(addr + 1)]
                m.d.comb += [wvalid_n.eq(1), fill_n.eq(Mux(full, fsum - lanes, 0))]
            with m.Else():
                m.d.sync += acc.eq(acc_new)
                m.d.comb += fill_n.eq(fsum)
        with m.Elif(flush):
            m.d.sync += [acc.eq(0), wbuf.eq(acc[:256]), waddr.eq(addr), addr.eq(addr + 1)]
            m.d.comb += [wvalid_n.eq(1), fill_n.eq(0)]
        m.d.sync += [taken.eq(taken_n), fill.eq(fill_n), wvalid.eq(wvalid_n), mfill.eq(mfill_n),
                     s2_valid.eq(s2_valid_n), wvalid1.eq(wvalid1_n),
                     busy.eq(busy & ~Mux(intm, (ig + ifin == ign) & ~(irun & ~ifin) & ~wvalid_n & ~wvalid1_n,
                                         (taken_n == count) & (fill_n == 0) & ~wvalid_n
                                         & (mfill_n == 0) & ~s2_valid_n & ~wvalid1_n))]

        with m.If(self.abort | self.start):
            m.d.sync += [wvalid1.eq(0), iphase.eq(0), sub.eq(0), gap.eq(0), mfill.eq(0),
                         s2_valid.eq(0), rvalid.eq(0), rdphase.eq(0), rd_pend.eq(0),
                         saddr.eq(self.src), irun.eq(0), ik.eq(0), ig.eq(0),
                         pub.eq(self.cfg[8:20]), stride0.eq(self.cfg[7]), w_base.eq(self.cfg[20:32])]
        with m.If(self.abort):
            # (ecall, a fault, the wipe): the digest bytes, the shares and the coefficients the
            # unit holds do not outlive the program
            m.d.sync += [busy.eq(0), wvalid.eq(0), cnt.eq(0), ptr.eq(0), hslot.eq(0),
                         fill.eq(0), acc.eq(0), taken.eq(0), produced.eq(0),
                         ring.eq(0), ring1.eq(0), wbuf.eq(0), wbuf1.eq(0), s2_x0.eq(0),
                         Cat(*s2_a).eq(0), Cat(*rreg).eq(0), pub.eq(0), stride0.eq(0), w_base.eq(0),
                         ign.eq(0)]
        with m.Elif(self.start):
            m.d.sync += [busy.eq(1), mode.eq(self.mode), vmode.eq(self.vmode),
                         count.eq(self.count), addr.eq(self.dst), wvalid.eq(0), cnt.eq(0),
                         ptr.eq(0), hslot.eq(0), fill.eq(0), acc.eq(0), taken.eq(0),
                         produced.eq(0), ign.eq(self.count[4:9]),
                         addr1.eq(self.dst + Mux(self.mode == INTERVAL_MODE, 1, (self.count + 15) >> 4))]
        return m
