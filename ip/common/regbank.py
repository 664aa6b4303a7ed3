# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""Wishbone register bank generated at elaboration from a register map (ip/common/regtool.py).

Ports, per register R and field F (lower case):
  rw:        r_f Out          the stored value
  ro:        r_f In           driven by the block, returned on reads
  w1c:       r_f Out, r_f_set In   bits set by the block, cleared by writing 1
  wo/pulse:  r_f Out          the written value, valid while r_we is high
  every register with wo/pulse fields or hwack: r_we Out (one cycle per accepted write)
  hwack registers: r_req Out (an access is waiting), r_ack In (the block takes it this
  cycle: the write happens / ro values are sampled), plus the shared wdata/wsel/write ports.
Classic Wishbone: ack is registered, one access per cyc&stb; unmapped offsets ack with 0
(writes ignored); err is never raised. Only the low address bits are decoded.
"""
from amaranth import Cat, Module, Mux, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from ip.common.wishbone import WishboneSignature


class RegBank(wiring.Component):
    def __init__(self, regmap, addr_width: int = 30):
        self.regmap = regmap
        self.span = max(r.offset for r in regmap.registers) // 4 + 1
        members = {"bus": In(WishboneSignature(addr_width)),
                   "wdata": Out(32), "wsel": Out(4), "write": Out(1)}
        for r in regmap.registers:
            n = r.name.lower()
            for f in r.fields:
                fn = f"{n}_{f.name.lower()}"
                members[fn] = In(f.width) if f.access == "ro" else Out(f.width)
                if f.access == "w1c":
                    members[fn + "_set"] = In(f.width)
            if r.hwack:
                members[n + "_req"] = Out(1)
                members[n + "_ack"] = In(1)
            if r.hwack or any(f.access in ("wo", "pulse") for f in r.fields):
                members[n + "_we"] = Out(1)
        super().__init__(members)

    def port(self, reg, fld=None):
        return getattr(self, reg.lower() + ("_" + fld.lower() if fld else ""))

    def elaborate(self, platform):
        m = Module()
        bus = self.bus
        abits = max(1, (self.span - 1).bit_length())
        # Only the low address bits are decoded: LiteX's bus decoder hands slaves the full
        # word address (region base included), so the map repeats across the region.
        word = bus.adr[:abits]
        req = Signal()           # an access waiting for its ack
        m.d.comb += [req.eq(bus.cyc & bus.stb & ~bus.ack),
                     self.wdata.eq(bus.dat_w), self.wsel.eq(bus.sel), self.write.eq(bus.we)]
        bmask = Signal(32)
        m.d.comb += bmask.eq(Cat(*[bus.sel[i].replicate(8) for i in range(4)]))
        m.d.sync += [bus.ack.eq(0), bus.err.eq(0)]

        storage = {}
        for r in self.regmap.registers:
            for f in r.fields:
                if f.access in ("rw", "w1c"):
                    s = Signal(f.width, init=f.reset, name=f"{r.name.lower()}_{f.name.lower()}_q")
                    storage[(r.name, f.name)] = s
                    m.d.comb += self.port(r.name, f.name).eq(s)
                    if f.access == "w1c":
                        m.d.sync += s.eq(s | self.port(r.name, f.name + "_set"))
                elif f.access in ("wo", "pulse"):
                    m.d.comb += self.port(r.name, f.name).eq(bus.dat_w[f.lo:f.lo + f.width])

        def read_value(r):
            v = 0
            for f in r.fields:
                src = storage.get((r.name, f.name))
                if f.access == "ro":
                    src = self.port(r.name, f.name)
                if src is not None:
                    v = v | (src.as_unsigned() << f.lo)
            return v

        with m.If(req):
            with m.Switch(word):
                for r in self.regmap.registers:
                    with m.Case(r.offset // 4):
                        take = Signal(name=f"{r.name.lower()}_take")
                        if r.hwack:
                            m.d.comb += [self.port(r.name, "req").eq(1),
                                         take.eq(self.port(r.name, "ack"))]
                        else:
                            m.d.comb += take.eq(1)
                        with m.If(take):
                            m.d.sync += [bus.ack.eq(1), bus.dat_r.eq(Mux(bus.we, 0, read_value(r)))]
                            with m.If(bus.we):
                                if hasattr(self, r.name.lower() + "_we"):
                                    m.d.comb += self.port(r.name, "we").eq(1)
                                for f in r.fields:
                                    s = storage.get((r.name, f.name))
                                    wv = bus.dat_w[f.lo:f.lo + f.width]
                                    bm = bmask[f.lo:f.lo + f.width]
                                    if f.access == "rw":
                                        m.d.sync += s.eq((s & ~bm) | (wv & bm))
                                    elif f.access == "w1c":
                                        m.d.sync += s.eq((s & ~(wv & bm)) |
                                                         self.port(r.name, f.name + "_set"))
                with m.Default():
                    m.d.sync += [bus.ack.eq(1), bus.dat_r.eq(0)]
        return m
