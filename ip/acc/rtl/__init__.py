"""ACC RTL (Amaranth): core, wide datapath, memories, host interface."""
