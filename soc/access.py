# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""Bus access policy for the masters from outside the chip's own CPU: the UART bring-up bridge and,
in the Caravel wrapper, the management core's Wishbone (soc/caravel.py).

Secrets live in the ACC (its DMEM, wide registers) while it runs. The policy, enforced in
hardware in front of each outside master (`ExtGuard`):
  * while the ACC's core runs (`acc_busy`), an outside master may neither read nor write the
    ACC's window (registers, IMEM, DMEM);
  * firmware can lock the outside masters out for good (`ExtAccess.lock`, sticky until reset):
    then they may only READ the status window, the ExtAccess CSR page (lock state, refusal
    flags, the firmware's mailbox word).
A refused access completes (ack; reads return 0, writes change nothing), so that neither the
bridge nor the management core hangs, and sets that master's sticky `refused` flag; neither
master has an error signal (Caravel's wbs_* has none, LiteX's UART bridge ignores err).
The CPU is never filtered: firmware reaches everything (the ACC itself refuses its memories
while it runs, ip/acc/rtl/acc.py).
"""
from migen import FSM, If, Module, NextState, Signal

from litex.gen import LiteXModule
from litex.soc.interconnect import wishbone
from litex.soc.interconnect.csr import AutoCSR, CSRField, CSRStatus, CSRStorage

# Outside masters, in the bit order of ExtAccess.status.refused
MASTERS = ("bridge", "mgmt")


class ExtAccess(LiteXModule, AutoCSR):
    """The status window: lock, refusal flags, a mailbox from firmware to the outside, and a
    `notify` line the wrapper routes to the management core (user_irq)."""

    def __init__(self, masters=MASTERS):
        self.locked = Signal()
        self.refused_set = {m: Signal(name=f"{m}_refused_set") for m in masters}
        self.acc_busy = Signal()
        self.lock = CSRStorage(1, description="write 1: lock the outside masters out of everything "
                               "but reads of this page, until reset (a write of 0 does nothing)")
        self.status = CSRStatus(fields=[
            CSRField("locked", size=1, description="the outside masters are locked out"),
            CSRField("acc_busy", size=1, description="the ACC runs: its window is refused outside"),
            *[CSRField(f"{m}_refused", size=1, offset=2 + i,
                       description=f"sticky: an access of the {m} master was refused")
              for i, m in enumerate(masters)]])
        self.clear = CSRStorage(len(masters), description="write 1s: clear the matching "
                                "*_refused flags (status bits 2 up)")
        self.mailbox = CSRStorage(32, description="firmware -> outside: a status word")
        self.notify = CSRStorage(1, description="drives the wrapper's user_irq[2] (level)")

        self.refused = refused = {m: Signal(name=f"{m}_refused") for m in masters}
        self.sync += If(self.lock.re & self.lock.storage[0], self.locked.eq(1))
        for i, m in enumerate(masters):
            self.sync += If(self.refused_set[m], refused[m].eq(1)).Elif(
                self.clear.re & self.clear.storage[i], refused[m].eq(0))
        self.comb += [self.status.fields.locked.eq(self.locked),
                      self.status.fields.acc_busy.eq(self.acc_busy),
                      *[getattr(self.status.fields, f"{m}_refused").eq(refused[m]) for m in masters]]


class ExtGuard(Module):
    """Between one outside master (`master`, a LiteX wishbone.Interface, word addressed) and the
    SoC bus (`self.bus`). `acc_window` and `status_window` are (byte origin, size); `acc_busy`
    and `locked` are signals of the system clock. The decision is taken once per access, when
    it starts; an access already passed on completes as the slave answers it."""

    def __init__(self, master: wishbone.Interface, acc_window, status_window, acc_busy, locked):
        self.bus = bus = wishbone.Interface(data_width=32, address_width=32, addressing="word")
        self.refused = Signal()          # one-cycle pulse per refused access

        def inside(window):
            origin, size = window
            lo, n = origin >> 2, size >> 2
            return (master.adr >= lo) & (master.adr < lo + n)
        refuse = Signal()
        self.comb += refuse.eq((inside(acc_window) & acc_busy)
                               | (locked & ~(inside(status_window) & ~master.we)))

        self.submodules.fsm = fsm = FSM(reset_state="IDLE")
        fsm.act("IDLE",
            If(master.cyc & master.stb,
                If(refuse, NextState("REFUSE")).Else(NextState("PASS"))))
        fsm.act("PASS",
            master.connect(bus),
            If(bus.ack | bus.err, NextState("IDLE")))
        fsm.act("REFUSE",
            master.ack.eq(1), master.dat_r.eq(0), self.refused.eq(1),
            NextState("IDLE"))
