"""ML-KEM (FIPS 203) programs for the ACC: NTT, base-case products, encodings and
roundings, and the whole decapsulation program (decaps)."""
