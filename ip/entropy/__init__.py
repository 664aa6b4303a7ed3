# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""The entropy source: ring oscillators sampled by the system clock, SP 800-90B health tests on
the raw bits, raw 32-bit words to the CPU (doc/spec.md).

Its register map, named once."""
from pathlib import Path

REGS_YML = Path(__file__).resolve().parent / "data" / "entropy_regs.yml"
