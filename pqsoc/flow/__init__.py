# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""Local PPA flow: Verilog emission, Yosys synthesis (pyosys), OpenSTA timing, reports."""
