"""KMAC block: Keccak-f[1600], SHA3/SHAKE/cSHAKE/KMAC sponge, CPU and coprocessor side-load interfaces."""
