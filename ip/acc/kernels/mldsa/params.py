# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""ML-DSA-65 parameters (FIPS 204 Table 1) as the ACC programs use them."""
Q = 8380417
K, L = 6, 5
ETA, TAU = 4, 49
BETA = TAU * ETA
GAMMA1 = 1 << 19
GAMMA2 = (Q - 1) // 32
OMEGA = 55

# The three parameter sets (FIPS 204 Table 1) as the parameterised programs (keygen.py)
# take them: set -> (k, l, eta); d = 13 for all.
D = 13
SETS = {44: (4, 4, 2), 65: (6, 5, 4), 87: (8, 7, 2)}

# Everything the parameterised verifier (verify.py) needs per set (FIPS 204 Table 1):
# lam is lambda (c_tilde is lam / 4 bytes), gamma2 = (q - 1) / gamma2_div.
FULL = {44: dict(k=4, l=4, eta=2, tau=39, lam=128, gamma1=1 << 17, gamma2=(Q - 1) // 88,
                 beta=78, omega=80),
        65: dict(k=6, l=5, eta=4, tau=49, lam=192, gamma1=1 << 19, gamma2=(Q - 1) // 32,
                 beta=196, omega=55),
        87: dict(k=8, l=7, eta=2, tau=60, lam=256, gamma1=1 << 19, gamma2=(Q - 1) // 32,
                 beta=120, omega=75)}
