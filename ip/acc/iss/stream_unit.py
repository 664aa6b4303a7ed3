# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""Stream unit (sampler slice): exact per-cycle model of ip/acc/rtl/stream_unit.py.

`StreamUnitModel(dmem_words)`:
  * `outputs(inputs=None) -> dict`: dig_ready, wr_req, wr_addr, wr_data, busy, produced during
    the current cycle. None of them depends combinationally on the inputs (all are functions
    of the registers), so `inputs` may be omitted.
  * `tick(inputs)`: the clock edge, given that cycle's inputs (keys: start, mode, count, dst,
    vmode, cfg, dig_valid, dig_data, wr_gnt, abort; missing keys read as 0). wr_gnt and
    dig_valid only matter through the handshakes (dig_valid & dig_ready, wr_req & wr_gnt);
    wr_gnt also lets a word-completing consumption proceed in the cycle the buffer is written.
  * idle fast path: while not busy and without start/abort, tick does nothing.

The behaviour (ring of 64 bytes, units, compaction, flush, busy/produced timing) is documented
in the RTL module's docstring; this is the same algorithm written in Python.
"""

__all__ = ["StreamUnitModel", "MODE_NAMES", "Q"]

MODE_NAMES = ("uni12", "uni23", "cbd2", "cbd3", "eta2", "eta4")
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

    # ---------------------------------------------------------------- helpers
    def _pot(self):
        f3 = self.cnt // 3
        return {0: 2 * f3, 1: f3, 2: 2 * self.cnt, 3: 4 * f3, 4: 2 * self.cnt,
                5: 2 * self.cnt}.get(self.mode, 0)

    def _dig_ready(self):
        return int(bool(self.busy) and self.cnt <= 32 and self.taken + self._pot() < self.count)

    def _pack(self, coeffs):
        w, m = (32, 0xFFFFFFFF) if self.vmode else (16, 0xFFFF)
        v = 0
        for i, c in enumerate(coeffs):
            v |= (c & m) << (w * i)
        return v

    # ---------------------------------------------------------------- interface
    def outputs(self, inputs=None):
        return {"dig_ready": self._dig_ready(), "wr_req": self.wvalid, "wr_addr": self.waddr,
                "wr_data": self.wbuf, "busy": self.busy, "produced": self.produced}

    def tick(self, inputs):
        get = inputs.get
        if not self.busy and not get("start", 0) and not get("abort", 0):
            return
        if self.busy:
            self._step(get("dig_valid", 0), get("dig_data", 0), get("wr_gnt", 0))
        if get("abort", 0):
            self.busy = self.wvalid = self.cnt = self.ptr = self.hslot = 0
            self.taken = self.produced = 0
            self.acc = []
        elif get("start", 0):
            self.busy = 1
            self.mode = get("mode", 0)
            self.vmode = get("vmode", 0) & 1
            self.count = get("count", 0) & 0xFFFF
            self.addr = get("dst", 0) & self.amask
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
