# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""The pqsoc LiteX SoC: Ibex + ROM + SRAM + UART/timer/GPIO, with hooks for our Wishbone blocks."""
