# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""ML-KEM (FIPS 203) programs for the ACC: NTT, base-case products, encodings and
roundings, and the whole programs: key generation (keygen, all sets), encapsulation
(encaps, all sets) and ML-KEM-768 decapsulation (decaps)."""
