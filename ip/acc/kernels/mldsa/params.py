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
