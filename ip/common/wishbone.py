"""Wishbone B4 classic bus signature, 32-bit data, word addresses (LiteX's convention)."""
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out


class WishboneSignature(wiring.Signature):
    """Master's view: adr is a word address (byte address >> 2), sel has one bit per byte.

    A slave raises ack (or err) for one cycle per access while cyc & stb are high; holding
    ack back is how it stalls the master.
    """
    def __init__(self, addr_width: int = 30):
        self.addr_width = addr_width
        super().__init__({"adr": Out(addr_width), "dat_w": Out(32), "dat_r": In(32),
                          "sel": Out(4), "cyc": Out(1), "stb": Out(1), "we": Out(1),
                          "ack": In(1), "err": In(1)})
