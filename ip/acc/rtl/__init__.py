# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""ACC RTL (Amaranth): core, wide datapath, memories, host interface."""
