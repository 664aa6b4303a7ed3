# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""KMAC block: Keccak-f[1600], SHA3/SHAKE/cSHAKE/KMAC sponge, CPU and coprocessor side-load interfaces.

Its register map, named once."""
from pathlib import Path

REGS_YML = Path(__file__).resolve().parent / "data" / "kmac_regs.yml"
