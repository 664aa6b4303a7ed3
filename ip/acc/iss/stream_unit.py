# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""Stream unit (sampler slice): exact per-cycle model of ip/acc/rtl/stream_unit.py.

`StreamUnitModel(dmem_words)`:
  * `outputs(inputs=None) -> dict`: dig_ready, dig_share1, urnd_step, masked_busy, wr_req,
    wr_addr, wr_data, busy, produced during
    the current cycle. None of them depends combinationally on the inputs (all are functions
    of the registers), so `inputs` may be omitted.
  * `tick(inputs)`: the clock edge, given that cycle's inputs (keys: start, mode, count, dst,
    vmode, cfg, dig_valid, dig_data, wr_gnt, abort, urnd; missing keys read as 0). wr_gnt and
    dig_valid only matter through the handshakes (dig_valid & dig_ready, wr_req & wr_gnt);
    wr_gnt also lets a word-completing consumption proceed in the cycle the buffer is written.
  * idle fast path: while not busy and without start/abort, tick does nothing.

The behaviour (ring of 64 bytes, units, compaction, flush, busy/produced timing; the masked
modes' second ring, two stages and two write buffers; intm's reads and RUN cycles) is
documented in the RTL module's docstring; this is the same algorithm written in Python.
"""
from ip.acc.iss import masked_interval as mi
from ip.acc.iss.masked_cbd import r_of_word, stage1, stage2

__all__ = ["StreamUnitModel", "MODE_NAMES", "MASKED_MODES", "B2A_MODE", "INTERVAL_MODE", "Q"]

MODE_NAMES = ("uni12", "uni23", "cbd2", "cbd3", "eta2", "eta4")
MASKED_MODES = {9: 2, 10: 3, 11: 0}    # cbd2m, cbd3m: eta; b2a1m (isa.yml smp.run's mode enum)
B2A_MODE = 11                          # one bit a coefficient, from DMEM (share 0, public, share 1)
INTERVAL_MODE = 12                     # intm: ip/acc/iss/masked_interval.py on 16 lanes, from DMEM
Q = (3329, 8380417)
_M256 = (1 << 256) - 1
# per mode: (unit bytes, max units)
_UNITS = {0: (3, 4), 1: (3, 4), 2: (1, 4), 3: (3, 2), 4: (1, 4), 5: (1, 4)}
_POP = [bin(i).count("1") for i in range(8)]
# signed small value per nibble: cbd2 (x - y), eta2 / eta4 (None = rejected)
_CBD2 = [_POP[z & 3] - _POP[z >> 2] for z in range(16)]
_ETA2 = [2 - (z % 5) if z < 15 else None for z in range(16)]
_ETA4 = [4 - z if z < 9 else None for z in range(16)]
_CBD3 = [_POP[z & 7] - _POP[z >> 3] for z in range(64)]


def _candidates(mode, q, win, g):
    """Accepted candidate values (in order) of g units of window bytes `win`."""
    out = []
    if mode == 0:
        for j in range(g):
            b0, b1, b2 = win[3 * j], win[3 * j + 1], win[3 * j + 2]
            d1 = b0 | (b1 & 15) << 8
            d2 = b1 >> 4 | b2 << 4
            if d1 < 3329:
                out.append(d1)
            if d2 < 3329:
                out.append(d2)
    elif mode == 1:
        for j in range(g):
            d = win[3 * j] | win[3 * j + 1] << 8 | (win[3 * j + 2] & 127) << 16
            if d < 8380417:
                out.append(d)
    elif mode == 3:
        for j in range(g):
            v = win[3 * j] | win[3 * j + 1] << 8 | win[3 * j + 2] << 16
            for k in range(4):
                out.append(_CBD3[(v >> 6 * k) & 63] % q)
    else:
        tab = _CBD2 if mode == 2 else _ETA2 if mode == 4 else _ETA4
        for j in range(g):
            for z in (win[j] & 15, win[j] >> 4):
                s = tab[z]
                if s is not None:
                    out.append(s % q)
    return out


def _word16(lanes) -> int:
    """A DMEM word of 16-bit lanes (the masked modes' whatever VMODE)."""
    return sum(v << (16 * i) for i, v in enumerate(lanes))


class StreamUnitModel:
    def __init__(self, dmem_words):
        self.dmem_words = dmem_words
        self.amask = (1 << max(1, (dmem_words - 1).bit_length())) - 1
        self.busy = 0
        self.mode = 0
        self.vmode = 0
        self.count = 0
        self.taken = 0
        self.produced = 0
        self.addr = 0
        self.ring = bytearray(64)
        self.ptr = 0
        self.cnt = 0
        self.hslot = 0
        self.acc = []           # accepted coefficients of the word being filled (+ spill)
        self.wvalid = 0
        self.wbuf = 0
        self.waddr = 0
        # masked modes: share 1's ring, the digest intake's phase, the cbd3m field, stage 2,
        # E1's lanes, its write buffer and address, the gap after a write
        self.ring1 = bytearray(64)
        self.iphase = 0
        self.sub = 0
        self.mfill = 0          # E0's lanes filled
        self.rreg = [0] * 8     # the next step's r_j (from URND, a cycle ahead)
        self.rvalid = 0
        self.saddr = 0          # b2a1m: its source word, the next word to read, a read pending
        self.rdphase = 0
        self.rd_pend = 0
        self.rd_which = 0
        self.s2 = None          # (lane, n, complete, a, x0) of the coefficients stage 1 took
        self.acc0 = [0] * 16    # E0's lanes (the RTL's acc[:256])
        self.acc1 = [0] * 16    # E1's lanes (acc[256:])
        self.wvalid1 = 0
        self.wbuf1 = 0
        self.addr1 = 0
        self.waddr1 = 0
        self.gap = 0
        # intm: the group running (irun, its RUN cycle ik), groups done / in all, the public
        # words' address and stride, w_base, the lanes' registers, ok's shares so far
        self.irun = self.ik = self.ig = self.ign = 0
        self.pub = self.stride0 = self.w_base = 0
        self.ist = mi.zero_state()
        self.ok0 = self.ok1 = 0

    def masked_mode(self) -> bool:
        """A mode that steps URND every cycle (the core may not read or reseed it then)."""
        return bool(self.busy) and (self.mode in MASKED_MODES or self.mode == INTERVAL_MODE)

    # ---------------------------------------------------------------- helpers
    def _pot(self):
        f3 = self.cnt // 3
        return {0: 2 * f3, 1: f3, 2: 2 * self.cnt, 3: 4 * f3, 4: 2 * self.cnt,
                5: 2 * self.cnt, 9: 2 * self.cnt, 10: 4 * f3 - self.sub}.get(self.mode, 0)

    def _want(self):
        return self.mode != B2A_MODE and bool(self.busy) and self.cnt <= 32 and self.taken + self._pot() < self.count

    def _dig_ready(self):
        if self.mode in MASKED_MODES:
            return int(bool(self.busy) and self.iphase == 2)
        return int(self._want())

    def _masked_present(self):
        """Which buffer the unit presents this cycle: 0, 1 or None (E0's first, never in the
        cycle after a write)."""
        if self.gap:
            return None
        return 0 if self.wvalid else 1 if self.wvalid1 else None

    def _masked_step(self):
        """(n, complete) of the coefficients stage 1 takes this cycle, or None."""
        eta = MASKED_MODES[self.mode]
        remaining = self.count - self.taken
        if not self.rvalid or not remaining or self.cnt < (3 if eta == 3 else 1):
            return None
        n = min({2: 2, 3: 1, 0: 8}[eta], remaining)
        complete = self.mfill + n >= 16 or n == remaining
        if complete and (self.wvalid or self.wvalid1):
            return None
        return n, complete

    def _pack(self, coeffs):
        w, m = (32, 0xFFFFFFFF) if self.vmode else (16, 0xFFFF)
        v = 0
        for i, c in enumerate(coeffs):
            v |= (c & m) << (w * i)
        return v

    # ---------------------------------------------------------------- interface
    def _irq(self):
        """intm asks for its group's next word: share 0, public, share 1, public."""
        return bool(self.busy) and not self.irun and self.rdphase < 4 and self.ig < self.ign

    def _iaddr(self):
        pub = self.pub + (0 if self.stride0 else self.ig)
        return (self.saddr + self.ig, pub, self.saddr + self.ign + self.ig, pub, self.saddr + self.ig)[self.rdphase] & self.amask

    def outputs(self, inputs=None):
        if self.mode == INTERVAL_MODE:
            which = self._masked_present()
            return {"dig_ready": 0, "dig_share1": 0, "urnd_step": self.busy,
                    "wr_req": int(which is not None),
                    "wr_addr": self.waddr1 if which == 1 else self.waddr,
                    "wr_data": self.wbuf1 if which == 1 else self.wbuf if which == 0 else 0,
                    "busy": self.busy, "produced": self.produced, "masked_busy": self.busy,
                    "rd_req": int(self._irq()), "rd_addr": self._iaddr()}
        if self.mode in MASKED_MODES:
            which = self._masked_present()
            return {"dig_ready": self._dig_ready(),
                    "dig_share1": int(self.iphase == 0 and self._want()),
                    "urnd_step": int(self._masked_step() is not None
                                     or bool(self.busy) and not self.rvalid),
                    "wr_req": int(which is not None),
                    "wr_addr": self.waddr1 if which == 1 else self.waddr,
                    "wr_data": self.wbuf1 if which == 1 else self.wbuf if which == 0 else 0,
                    "busy": self.busy, "produced": self.produced, "masked_busy": self.busy,
                    "rd_req": int(bool(self.busy) and self.mode == B2A_MODE and self.rdphase != 3),
                    "rd_addr": (self.saddr + self.rdphase) & self.amask}
        return {"dig_ready": self._dig_ready(), "dig_share1": 0, "urnd_step": 0, "masked_busy": 0,
                "wr_req": self.wvalid, "wr_addr": self.waddr, "wr_data": self.wbuf,
                "busy": self.busy, "produced": self.produced, "rd_req": 0,
                "rd_addr": (self.saddr + self.rdphase) & self.amask}

    def tick(self, inputs):
        get = inputs.get
        if not self.busy and not get("start", 0) and not get("abort", 0):
            return
        if self.busy:
            if self.mode == INTERVAL_MODE:
                self._interval(get("wr_gnt", 0), get("urnd", 0), get("rd_gnt", 0), get("rd_data", 0))
            elif self.mode in MASKED_MODES:
                self._masked(get("dig_valid", 0), get("dig_data", 0), get("wr_gnt", 0), get("urnd", 0),
                             get("rd_gnt", 0), get("rd_data", 0))
            else:
                self._step(get("dig_valid", 0), get("dig_data", 0), get("wr_gnt", 0))
        if get("abort", 0) or get("start", 0):
            self.wvalid1 = self.iphase = self.sub = self.gap = self.mfill = self.rvalid = 0
            self.rdphase = self.rd_pend = 0
            self.saddr = get("src", 0) & self.amask
            self.s2 = None
            self.acc0, self.acc1 = [0] * 16, [0] * 16
            self.irun = self.ik = self.ig = self.ok0 = self.ok1 = 0
            self.ist = mi.zero_state()
            cfg = get("cfg", 0)
            self.pub, self.stride0, self.w_base = (cfg >> 8) & 0xFFF & self.amask, (cfg >> 7) & 1, (cfg >> 20) & 0xFFF
        if get("abort", 0):
            self.busy = self.wvalid = self.cnt = self.ptr = self.hslot = 0
            self.taken = self.produced = 0
            self.acc = []
            self.ring, self.ring1 = bytearray(64), bytearray(64)
            self.wbuf = self.wbuf1 = 0
            self.rreg = [0] * 8
            self.pub = self.stride0 = self.w_base = self.ign = 0
        elif get("start", 0):
            self.busy = 1
            self.mode = get("mode", 0)
            self.vmode = get("vmode", 0) & 1
            self.count = get("count", 0) & 0xFFFF
            self.addr = get("dst", 0) & self.amask
            self.addr1 = (self.addr + ((self.count + 15) >> 4)) & self.amask
            if self.mode == INTERVAL_MODE:
                self.addr1 = (self.addr + 1) & self.amask
            self.ign = self.count >> 4
            self.wvalid = self.cnt = self.ptr = self.hslot = 0
            self.taken = self.produced = 0
            self.acc = []

    def _step(self, dig_valid, dig_data, wr_gnt):
        lanes = 8 if self.vmode else 16
        take = self._dig_ready() and dig_valid
        remaining = self.count - self.taken
        wb_free = (not self.wvalid) or wr_gnt
        g, unit = 0, 1
        if self.mode in _UNITS:
            unit, gmax = _UNITS[self.mode]
            g = min(gmax, self.cnt // unit)
        fill = len(self.acc)
        new_wvalid = self.wvalid and not wr_gnt
        if self.wvalid and wr_gnt:
            self.produced = min(self.produced + lanes, self.count)
        consumed = 0
        if remaining and g:
            p = self.ptr
            r = self.ring
            win = [r[(p + i) & 63] for i in range(g * unit)]
            acc = _candidates(self.mode, Q[self.vmode], win, g)[:remaining]
            n = len(acc)
            full = fill + n >= lanes
            final = n == remaining
            if not (full or final) or wb_free:
                consumed = g * unit
                self.ptr = (p + consumed) & 63
                self.taken += n
                coeffs = self.acc + acc
                if full or final:
                    self.wbuf = self._pack(coeffs[:lanes])
                    self.waddr = self.addr
                    self.addr = (self.addr + 1) & self.amask
                    new_wvalid = 1
                    self.acc = coeffs[lanes:]
                else:
                    self.acc = coeffs
        elif not remaining and fill and wb_free:
            self.wbuf = self._pack(self.acc)
            self.waddr = self.addr
            self.addr = (self.addr + 1) & self.amask
            new_wvalid = 1
            self.acc = []
        self.cnt -= consumed
        if take:
            base = 32 * self.hslot
            self.ring[base:base + 32] = (dig_data & _M256).to_bytes(32, "little")
            self.hslot ^= 1
            self.cnt += 32
        self.wvalid = new_wvalid
        if self.taken == self.count and not self.acc and not self.wvalid:
            self.busy = 0

    # ---------------------------------------------------------------- masked modes
    def _masked(self, dig_valid, dig_data, wr_gnt, urnd, rd_gnt=0, rd_data=0):
        eta = MASKED_MODES[self.mode]
        want, step = self._want(), self._masked_step()      # from the registers, before the edge
        # one bit a coefficient (b2a1m) or CBD's 2 eta bits with their signs
        k, signs = (1, (1,)) if eta == 0 else (2 * eta, None)
        rd_req = self.mode == B2A_MODE and self.rdphase != 3
        # writes: the buffer presented, then a cycle with nothing on the write port
        which = self._masked_present()
        written = which is not None and wr_gnt
        if written and which == 0:
            self.wvalid = 0
        elif written:
            self.wvalid1 = 0
            self.produced = min(self.produced + 16, self.count)
        # stage 2: E1 of the coefficients stage 1 took in the last cycle
        if self.s2 is not None:
            lane, n, complete, a, x0 = self.s2
            for c in range(n):
                self.acc1[lane + c] = stage2(a[k * c:k * c + k], x0[k * c:k * c + k], signs=signs)
            if complete:
                self.wbuf1 = _word16(self.acc1)
                self.waddr1 = self.addr1
                self.addr1 = (self.addr1 + 1) & self.amask
                self.wvalid1 = 1
                self.acc1 = [0] * 16
            self.s2 = None
        # stage 1: E0 and a of the next coefficients, from both rings' bits and URND's words
        if step is not None:
            n, complete = step
            if eta in (0, 2):
                b0, b1 = self.ring[self.ptr], self.ring1[self.ptr]
                bits0 = [(b0 >> j) & 1 for j in range(8)]
                bits1 = [(b1 >> j) & 1 for j in range(8)]
            else:
                u0 = sum(self.ring[(self.ptr + i) & 63] << (8 * i) for i in range(3))
                u1 = sum(self.ring1[(self.ptr + i) & 63] << (8 * i) for i in range(3))
                bits0 = [(u0 >> (6 * self.sub + j)) & 1 for j in range(6)]
                bits1 = [(u1 >> (6 * self.sub + j)) & 1 for j in range(6)]
            r = self.rreg
            lane = self.mfill
            a_all = []
            for c in range(n):
                e0, a = stage1(bits0[k * c:k * c + k], bits1[k * c:k * c + k], r[k * c:k * c + k],
                               signs=signs)
                self.acc0[lane + c] = e0
                a_all += a
            self.s2 = (lane, n, complete, tuple(a_all), tuple(bits0[:k * n]))
            self.taken += n
            if complete:
                self.wbuf = _word16(self.acc0)
                self.waddr = self.addr
                self.addr = (self.addr + 1) & self.amask
                self.wvalid = 1
                self.acc0 = [0] * 16
                self.mfill = 0
            else:
                self.mfill += n
            if eta in (0, 2):
                self.ptr, self.cnt = (self.ptr + 1) & 63, self.cnt - 1
            elif self.sub == 3:
                self.ptr, self.cnt, self.sub = (self.ptr + 3) & 63, self.cnt - 3, 0
            else:
                self.sub += 1
        if step is not None or not self.rvalid:      # r for the next step: URND's next words
            self.rreg = [r_of_word((urnd >> (32 * j)) & 0xFFFF_FFFF) for j in range(8)]
            self.rvalid = 1
        self.gap = int(written)
        # b2a1m's reads: the word granted last cycle is on rd_data now
        if self.rd_pend and self.rd_which == 0:
            self.ring[0:32] = (rd_data & _M256).to_bytes(32, "little")
        elif self.rd_pend and self.rd_which == 2:
            self.ring1[0:32] = (rd_data & _M256).to_bytes(32, "little")
            self.cnt = 32
        self.rd_pend = int(bool(rd_req and rd_gnt))
        if self.rd_pend:
            self.rd_which, self.rdphase = self.rdphase, self.rdphase + 1
        # digest intake: share 1 into ring1, a cycle with nothing asked, share 0 into ring
        base = 32 * self.hslot
        if self.iphase == 0:
            if want and dig_valid:
                self.ring1[base:base + 32] = (dig_data & _M256).to_bytes(32, "little")
                self.iphase = 1
        elif self.iphase == 1:
            self.iphase = 2
        elif dig_valid:
            self.ring[base:base + 32] = (dig_data & _M256).to_bytes(32, "little")
            self.hslot ^= 1
            self.cnt += 32
            self.iphase = 0
        if (self.taken == self.count and self.mfill == 0 and self.s2 is None
                and not self.wvalid and not self.wvalid1):
            self.busy = 0

    # ---------------------------------------------------------------- intm
    def _ibits(self, j):
        """Lane vectors of bit j: x0 (ring's first slot), x1 (ring1's), lo and delta (the public
        word in the ring's second slot: lo in a lane's bits 11:0, delta in 15:12)."""
        def vec(word, b):
            return sum(((word >> (16 * L + b)) & 1) << L for L in range(mi.LANES))
        x0 = int.from_bytes(self.ring[0:32], "little")
        pw = int.from_bytes(self.ring[32:64], "little")
        x1 = int.from_bytes(self.ring1[0:32], "little")
        if j >= 12:
            return 0, 0, 0, 0
        return vec(x0, j), vec(x1, j), vec(pw, j), vec(pw, 12 + j) if j < 4 else 0

    def _interval(self, wr_gnt, urnd, rd_gnt, rd_data):
        rd_req = self._irq()                         # from the registers, before the edge
        which = self._masked_present()
        written = which is not None and wr_gnt
        if written and which == 0:
            self.wvalid = 0
        elif written:
            self.wvalid1 = 0
            self.produced = self.count
        if self.irun and self.ik <= mi.NB:           # RUN cycle ik of the group, URND's bits now
            m = urnd
            rnd = [sum(((m >> (mi.RND_BITS * L + b)) & 1) << L for L in range(mi.LANES))
                   for b in range(mi.RND_BITS)]
            self.ist = mi.step(self.ist, self.ik, self._ibits, rnd, Q[0], self.w_base)
            self.ik += 1
        elif self.irun:                              # the group's ok bits, its registers cleared
            ok0, ok1 = mi.finish(self.ist)
            self.ok0 |= ok0 << (16 * self.ig)
            self.ok1 |= ok1 << (16 * self.ig)
            self.ig += 1
            self.irun = self.ik = 0
            self.ist = mi.zero_state()
            if self.ig == self.ign:
                self.wbuf, self.waddr, self.wvalid = self.ok0, self.addr, 1
                self.wbuf1, self.waddr1, self.wvalid1 = self.ok1, self.addr1, 1
                self.ok0 = self.ok1 = 0
        self.gap = int(written)
        if self.rd_pend:                             # the word granted last cycle
            data = (rd_data & _M256).to_bytes(32, "little")
            if self.rd_which == 0:
                self.ring[0:32] = data
            elif self.rd_which == 1:
                self.ring[32:64] = data
            elif self.rd_which == 2:
                self.ring1[0:32] = data
            else:                                    # the second public read: the group runs
                self.irun, self.ik, self.rdphase = 1, 0, 0
        self.rd_pend = int(rd_req and rd_gnt)
        if self.rd_pend:
            self.rd_which, self.rdphase = self.rdphase, self.rdphase + 1
        if self.ig == self.ign and not self.irun and not self.wvalid and not self.wvalid1:
            self.busy = 0
