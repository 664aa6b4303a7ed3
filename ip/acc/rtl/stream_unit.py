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
  A `start` while busy restarts the unit (the core never does this). `abort` clears `busy`,
  the ring, the accumulator, the write buffer valid flag and `produced` at the clock edge; it
  wins over a `start` in the same cycle.
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
"""
from amaranth.hdl import C, Cat, Const, Module, Mux, Signal, signed
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

__all__ = ["StreamUnit", "MODE_NAMES", "Q"]

MODE_NAMES = ("uni12", "uni23", "cbd2", "cbd3", "eta2", "eta4")
Q = (3329, 8380417)


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
            "dig_valid": In(1), "dig_data": In(256), "dig_ready": Out(1),
            "wr_req": Out(1), "wr_addr": Out(range(dmem_words)), "wr_data": Out(256),
            "wr_gnt": In(1),
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

        uni12, uni23, cbd2, cbd3, eta2, eta4 = (mode == i for i in range(6))

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
        m.d.comb += consume.eq(busy & (remaining != 0) & (g != 0) & (~(full | final) | wb_free))
        flush = Signal()
        m.d.comb += flush.eq(busy & (remaining == 0) & (fill != 0) & wb_free)

        # ---- digest intake
        pot = Signal(8)
        with m.If(uni12):
            m.d.comb += pot.eq(f3 * 2)
        with m.Elif(uni23):
            m.d.comb += pot.eq(f3)
        with m.Elif(cbd3):
            m.d.comb += pot.eq(f3 * 4)
        with m.Elif(cbd2 | eta2 | eta4):
            m.d.comb += pot.eq(cnt * 2)
        dig_ready = Signal()
        m.d.comb += dig_ready.eq(busy & (cnt <= 32) & ((taken + pot) < count))
        take = dig_ready & self.dig_valid

        m.d.comb += [
            self.dig_ready.eq(dig_ready),
            self.wr_req.eq(wvalid), self.wr_addr.eq(waddr), self.wr_data.eq(wbuf),
            self.busy.eq(busy), self.produced.eq(produced),
        ]

        # ---- next state
        taken_n = Signal(16)
        fill_n = Signal(4)
        wvalid_n = Signal()
        m.d.comb += [taken_n.eq(taken), fill_n.eq(fill), wvalid_n.eq(wvalid & ~self.wr_gnt)]
        cnt_c = Mux(consume, cnt - gbytes, cnt)
        m.d.sync += cnt.eq(Mux(take, cnt_c + 32, cnt_c))
        with m.If(take):
            with m.If(hslot):
                m.d.sync += ring[256:].eq(self.dig_data)
            with m.Else():
                m.d.sync += ring[:256].eq(self.dig_data)
            m.d.sync += hslot.eq(~hslot)
        with m.If(wvalid & self.wr_gnt):
            m.d.sync += produced.eq(Mux(produced + lanes > count, count, produced + lanes))
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
        m.d.sync += [taken.eq(taken_n), fill.eq(fill_n), wvalid.eq(wvalid_n),
                     busy.eq(busy & ~((taken_n == count) & (fill_n == 0) & ~wvalid_n))]

        with m.If(self.abort):
            m.d.sync += [busy.eq(0), wvalid.eq(0), cnt.eq(0), ptr.eq(0), hslot.eq(0),
                         fill.eq(0), acc.eq(0), taken.eq(0), produced.eq(0)]
        with m.Elif(self.start):
            m.d.sync += [busy.eq(1), mode.eq(self.mode), vmode.eq(self.vmode),
                         count.eq(self.count), addr.eq(self.dst), wvalid.eq(0), cnt.eq(0),
                         ptr.eq(0), hslot.eq(0), fill.eq(0), acc.eq(0), taken.eq(0),
                         produced.eq(0)]
        return m
