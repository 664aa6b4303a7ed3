# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""Host-side bring-up scripts for the pqsoc chip: a client for the LiteX UART bridge
(uartbone.py), the chip's address map from csr.json (socmap.py), the checks (checks.py) and
`pqsoc bringup` (cli.py). See README.md for the bench procedure."""
