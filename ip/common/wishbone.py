# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""Wishbone B4 classic bus signature, 32-bit data, word addresses (LiteX's convention); a master
may add the cycle type identifier for incrementing bursts (registered feedback)."""
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out


class WishboneSignature(wiring.Signature):
    """Master's view: adr is a word address (byte address >> 2), sel has one bit per byte.

    A slave raises ack (or err) for one cycle per access while cyc & stb are high; holding
    ack back is how it stalls the master.

    With `burst`, the master also drives cti (Wishbone B4 registered feedback): CTI_INCR on an
    access of an incrementing burst, so that a slave that knows bursts (LiteX's SRAM on a bus
    built with bursting) acks one word a cycle, reading ahead at adr + 1; CTI_END on the last
    access of a burst, after which that slave raises no further ack. bte is not driven (0:
    linear). Slaves without cti answer every access as a classic one.
    """
    def __init__(self, addr_width: int = 30, burst: bool = False):
        self.addr_width, self.burst = addr_width, burst
        members = {"adr": Out(addr_width), "dat_w": Out(32), "dat_r": In(32),
                   "sel": Out(4), "cyc": Out(1), "stb": Out(1), "we": Out(1),
                   "ack": In(1), "err": In(1)}
        if burst:
            members["cti"] = Out(3)
        super().__init__(members)


CTI_CLASSIC, CTI_INCR, CTI_END = 0b000, 0b010, 0b111
