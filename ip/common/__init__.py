# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""What every block shares: the Wishbone signature, the register bank and its YAML tool, the
SRAM wrapper, the clock gate, and the one system clock."""

# The SoC has one clock; every block is synthesized, timed and hardened for it (ip/*/block.py,
# soc/block.py, pnr/*/config.json) and the LiteX SoC is built for it (soc/target.py).
SYS_CLK_PERIOD_NS = 20.0      # 50 MHz
