"""Full-system Verilator simulation of the pqsoc SoC."""
