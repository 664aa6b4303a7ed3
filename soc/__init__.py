"""The pqsoc LiteX SoC: Ibex + ROM + SRAM + UART/timer/GPIO, with hooks for our Wishbone blocks."""
