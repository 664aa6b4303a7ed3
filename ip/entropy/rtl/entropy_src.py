# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""The entropy source (Verilog top `entropy_src`): ring oscillators, a sampler, SP 800-90B's two
health tests, 32 raw bits at a time to the CPU.

Each ring's output passes two flops (the first may go metastable; the second sees it settled),
the rings' bits are XORed, and every CTRL.DIV + 1 cycles that XOR is one raw bit. Raw sample k
(k = 0, 1, ... after EN is written 1) is taken k * (DIV + 1) cycles after the cycle in which
the write's acknowledgement is on the bus, from the XOR of the ring outputs (or of `noise`, kind
"external") two cycles earlier (the synchronizer). Every raw bit goes through both tests
(ip/entropy/health.py is the reference, sample for sample); the first 1024 (one adaptive
proportion window) are the start-up test and are not delivered. Then the bits are packed, the
oldest at bit 0, and a full word goes to DATA if it is empty (or being read), else it is dropped.
A failed test stops delivery and empties the packer and DATA until EN is written 0.

kind: the rings' (ip/entropy/rtl/rings.py: "sky130" for synthesis, "model" for simulation), or
"external": no rings, a `noise` input per ring instead, for tests that drive chosen bits.
"""
from amaranth import Module, Mux, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import In

from ip.common.regbank import RegBank
from ip.common.regtool import load
from ip.common.wishbone import WishboneSignature
from ip.entropy import REGS_YML
from ip.entropy.health import APT_WINDOW
from ip.entropy.rtl.rings import KINDS, LENGTHS, Rings

WORD = 32


class EntropySource(wiring.Component):
    def __init__(self, kind: str = "model", lengths: tuple[int, ...] = LENGTHS, addr_width: int = 30):
        if kind not in KINDS + ("external",):
            raise ValueError(f"entropy source kind {kind!r}: known kinds are {', '.join(KINDS + ('external',))}")
        self.kind, self.lengths = kind, tuple(lengths)
        self.regmap = load(REGS_YML)
        members = {"bus": In(WishboneSignature(addr_width))}
        if kind == "external":
            members["noise"] = In(len(lengths))
        else:
            self.rings = Rings(kind, lengths)
        super().__init__(members)

    def elaborate(self, platform):
        m = Module()
        m.submodules.regs = rb = RegBank(self.regmap, len(self.bus.adr))
        wiring.connect(m, wiring.flipped(self.bus), rb.bus)
        en = rb.ctrl_en
        en_q = Signal()
        m.d.sync += en_q.eq(en)

        if self.kind == "external":
            noise = self.noise
        else:
            m.submodules.rings = rings = self.rings
            m.d.comb += rings.en.eq(en)
            noise = rings.out
        meta = Signal(len(noise))          # the synchronizer: meta may be metastable, settled not
        settled = Signal(len(noise))
        m.d.sync += [meta.eq(noise), settled.eq(meta)]

        # The sample timer: a sample when it is 0, then it reloads DIV; 0 while EN is 0, so the
        # first sample is in the first cycle with EN (and a DIV written with EN counts at once).
        timer = Signal(8)
        sample = Signal()
        bit = Signal()
        m.d.comb += [sample.eq(en & (timer == 0)), bit.eq(settled.xor())]
        m.d.sync += timer.eq(Mux(~en, 0, Mux(timer != 0, timer - 1, rb.ctrl_div)))

        # The health tests (ip/entropy/health.py HealthTests): run = 0 means no sample yet.
        run = Signal(8)
        last = Signal()
        first = Signal()
        count = Signal(range(APT_WINDOW + 1))
        seen = Signal(range(APT_WINDOW))
        new_run = Signal(8)
        new_count = Signal(range(APT_WINDOW + 1))
        m.d.comb += [new_run.eq(Mux((run != 0) & (bit == last), Mux(run == 0xFF, 0xFF, run + 1), 1)),
                     new_count.eq(Mux(seen == 0, 1, count + (bit == first)))]
        rct_fail = Signal()
        apt_fail = Signal()
        m.d.comb += [rct_fail.eq(sample & (new_run >= rb.rct_cutoff_c)),
                     apt_fail.eq(sample & (new_count >= rb.apt_cutoff_c))]
        rct_max = Signal(8)
        apt_max = Signal(range(APT_WINDOW + 1))
        # the watermarks start again with EN's first cycle, whose sample already counts
        fresh = Signal()
        rct_prev = Signal(8)
        apt_prev = Signal(range(APT_WINDOW + 1))
        m.d.comb += [fresh.eq(en & ~en_q), rct_prev.eq(Mux(fresh, 0, rct_max)),
                     apt_prev.eq(Mux(fresh, 0, apt_max))]
        m.d.comb += [rb.watermark_rct.eq(rct_max), rb.watermark_apt.eq(apt_max),
                     rb.err_code_rct_set.eq(rct_fail), rb.err_code_apt_set.eq(apt_fail)]

        startup = Signal(init=1)
        failed = Signal()
        dropped = Signal(16)               # words completed while DATA held one (lost)
        m.d.comb += rb.dropped_count.eq(dropped)
        pack = Signal(WORD)
        packed = Signal(range(WORD + 1))
        data = Signal(WORD)
        ready = Signal()
        m.d.comb += [rb.status_ready.eq(ready), rb.status_startup.eq(en & startup),
                     rb.status_failed.eq(failed), rb.data_bits.eq(data)]

        # DATA: a read takes the word; a read with none returns 0 and is the EMPTY error.
        m.d.comb += rb.data_ack.eq(rb.data_req)
        pop = Signal()
        m.d.comb += [pop.eq(rb.data_req & ~rb.write & ready),
                     rb.err_code_empty_set.eq(rb.data_req & ~rb.write & ~ready)]
        with m.If(pop):
            m.d.sync += [data.eq(0), ready.eq(0)]

        with m.If(fresh):
            m.d.sync += [rct_max.eq(0), apt_max.eq(0)]
        with m.If(~en):
            m.d.sync += [run.eq(0), count.eq(0), seen.eq(0), startup.eq(1), failed.eq(0),
                         pack.eq(0), packed.eq(0), data.eq(0), ready.eq(0), dropped.eq(0)]
        with m.Elif(sample):
            m.d.sync += [run.eq(new_run), last.eq(bit), count.eq(new_count), seen.eq(seen + 1),
                         rct_max.eq(Mux(new_run > rct_prev, new_run, rct_prev)),
                         apt_max.eq(Mux(new_count > apt_prev, new_count, apt_prev))]
            with m.If(seen == 0):
                m.d.sync += first.eq(bit)
            with m.If(rct_fail | apt_fail):
                m.d.sync += [failed.eq(1), pack.eq(0), packed.eq(0), data.eq(0), ready.eq(0)]
            with m.Elif(startup):
                with m.If(seen == APT_WINDOW - 1):
                    m.d.sync += startup.eq(0)
            with m.Elif(~failed):
                word = Signal(WORD)
                m.d.comb += word.eq((pack >> 1) | (bit << (WORD - 1)))
                with m.If(packed == WORD - 1):
                    m.d.sync += [pack.eq(0), packed.eq(0)]
                    with m.If(~ready | pop):
                        m.d.sync += [data.eq(word), ready.eq(1)]
                    with m.Elif(dropped != 0xFFFF):
                        m.d.sync += dropped.eq(dropped + 1)
                with m.Else():
                    m.d.sync += [pack.eq(word), packed.eq(packed + 1)]
        return m
