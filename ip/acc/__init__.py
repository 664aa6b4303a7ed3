# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""The ACC: a programmable PQC coprocessor (spec in doc/, RTL in rtl/, tools/, iss/, kernels/, dv/).

Its data files, named once: the instruction set and the host register map."""
from pathlib import Path

DATA = Path(__file__).resolve().parent / "data"
ISA_YML = DATA / "isa.yml"
REGS_YML = DATA / "acc_regs.yml"
