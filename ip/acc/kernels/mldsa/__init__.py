"""ML-DSA (FIPS 204) programs for the ACC: NTT, DMEM layout, sampling, products, rounding
and checks, bit packing, and the whole signing program (sign)."""
