# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""Side-channel leakage assessment: the statistics (Welch's t-test, accumulated online); knows no
block by name. The power models and the programs under test are the blocks' (ip/acc/dv/sca)."""
