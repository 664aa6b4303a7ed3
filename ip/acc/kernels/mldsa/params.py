"""ML-DSA-65 parameters (FIPS 204 Table 1) as the ACC programs use them."""
Q = 8380417
K, L = 6, 5
ETA, TAU = 4, 49
BETA = TAU * ETA
GAMMA1 = 1 << 19
GAMMA2 = (Q - 1) // 32
OMEGA = 55
