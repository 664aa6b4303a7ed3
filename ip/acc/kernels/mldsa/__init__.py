# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""ML-DSA (FIPS 204) programs for the ACC: NTT, DMEM layout, sampling, products, rounding
and checks, bit packing, the whole signing program (sign) and the key generation of every
set (keygen)."""
