# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""The Caravel management core's Wishbone (`wbs_*`, clock `wb_clk_i`) as a bus master of our SoC,
whatever clock the SoC runs on (soc/caravel.py: `wb_clk_i` or `user_clock2`).

One access at a time crosses by a toggle handshake: the management side captures the access
(address, data, byte selects, direction) and flips `req`; two flops bring `req` into the system
clock, where the access runs on our bus as an ordinary master; the answer (read data) is held
and `done` flips back through two flops, and the management side acks for one cycle. The
captured fields do not change while a request is open, so they are stable long before the
synchronised toggle is seen on the other side (the usual rule for multi-bit data next to a
synchronised handshake). About 3 + 3 clocks of each side per access.

Address map seen from the management core (its user-project window is 0x3000_0000..0x3FFF_FFFF):
  0x3000_0000 + A  -> our A           for A < 0x0800_0000 (boot RAM at 0, main SRAM 0x0100_0000)
  0x3800_0000 + B  -> our 0x8000_0000 + B   (KMAC, ACC, CSRs: soc/target.py's EXT_BASE windows)
Accesses outside 0x3xxx_xxxx are not ours: the management core asserts `wbs_cyc_i` only for its
user window, and the port answers nothing else.
"""
from migen import Cat, ClockDomainsRenamer, Constant, If, Module, Mux, Signal
from migen.genlib.cdc import MultiReg

from litex.soc.interconnect import wishbone

MGMT_WINDOW = 0x3000_0000
MGMT_EXT = 0x3800_0000     # management view of our 0x8000_0000


def to_soc_address(mgmt_byte_address: int) -> int:
    """Our bus address of a management-core address (the map above); ValueError outside it."""
    a = mgmt_byte_address
    if not MGMT_WINDOW <= a < MGMT_WINDOW + 0x1000_0000:
        raise ValueError(f"{a:#010x} is outside the management core's user window 0x3000_0000..0x3fffffff")
    return a - MGMT_WINDOW if a < MGMT_EXT else 0x8000_0000 + (a - MGMT_EXT)


def to_mgmt_address(soc_byte_address: int) -> int:
    """The management-core address of one of our bus addresses; ValueError if it has none."""
    a = soc_byte_address
    if a < 0x0800_0000:
        return MGMT_WINDOW + a
    if 0x8000_0000 <= a < 0x8800_0000:
        return MGMT_EXT + (a - 0x8000_0000)
    raise ValueError(f"{a:#010x} is not reachable from the management core")


class MgmtPort(Module):
    """`wbs` signals (management clock domain `mgmt`) -> `self.master` (system clock).

    `port_rst` (system clock) resets the system side of the handshake: the management reset
    synchronised, never the SoC's own reset alone (soc/caravel.py also resets the SoC from the
    logic analyzer): a system side reset on its own would see the open toggle again and replay
    the management core's last access."""

    def __init__(self):
        self.port_rst = Signal()
        # Caravel's wbs_* (names as in user_project_wrapper)
        self.wbs_cyc_i = Signal()
        self.wbs_stb_i = Signal()
        self.wbs_we_i = Signal()
        self.wbs_sel_i = Signal(4)
        self.wbs_adr_i = Signal(32)
        self.wbs_dat_i = Signal(32)
        self.wbs_ack_o = Signal()
        self.wbs_dat_o = Signal(32)
        self.master = m = wishbone.Interface(data_width=32, address_width=32, addressing="word")

        # management side
        req, pending = Signal(), Signal()
        adr, dat_w, sel, we = Signal(30), Signal(32), Signal(4), Signal()
        done_m, done_seen = Signal(), Signal()
        # the answer, written by the system side while no request is open
        dat_r = Signal(32)
        done = Signal()
        self.specials += MultiReg(done, done_m, odomain="mgmt")
        a = self.wbs_adr_i
        soc_word = Signal(30)
        self.comb += soc_word.eq(Cat(a[2:27], Constant(0, 4), a[27]))   # 0x38.. -> 0x80..
        mgmt = Module()
        mgmt.sync += [
            self.wbs_ack_o.eq(0),
            If(~pending & ~self.wbs_ack_o & self.wbs_cyc_i & self.wbs_stb_i & (a[28:32] == 3),
                adr.eq(soc_word), dat_w.eq(self.wbs_dat_i), sel.eq(self.wbs_sel_i),
                we.eq(self.wbs_we_i), req.eq(~req), pending.eq(1)),
            If(pending & (done_m != done_seen),
                done_seen.eq(done_m), pending.eq(0),
                self.wbs_ack_o.eq(1), self.wbs_dat_o.eq(dat_r)),
        ]
        self.submodules += ClockDomainsRenamer({"sys": "mgmt"})(mgmt)

        # system side (reset only by port_rst, see the class docstring)
        # two synchronizer flops of our own: MultiReg's would be reset with the SoC
        req_meta, req_s = Signal(reset_less=True), Signal(reset_less=True)
        req_seen, busy = Signal(reset_less=True), Signal(reset_less=True)
        self.sync += [req_meta.eq(req), req_s.eq(req_meta)]
        for r in (dat_r, done):
            r.reset_less = True
        self.comb += If(busy, m.cyc.eq(1), m.stb.eq(1), m.adr.eq(adr), m.dat_w.eq(dat_w),
                        m.sel.eq(sel), m.we.eq(we))
        self.sync += [
            If(self.port_rst,
                req_seen.eq(req_s), busy.eq(0), done.eq(0), dat_r.eq(0)
            ).Elif(~busy & (req_s != req_seen),
                req_seen.eq(req_s), busy.eq(1)
            ).Elif(busy & (m.ack | m.err),
                busy.eq(0), dat_r.eq(Mux(m.err, 0, m.dat_r)), done.eq(~done)),
        ]
