"""Local PPA flow: Verilog emission, Yosys synthesis (pyosys), OpenSTA timing, reports."""
