# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""ACC programs ("kernels") generated as assembly text.

Shared by both schemes (this folder): asm_util (assembly-text helpers, the NTT building
blocks), prog (straight-line blocks on virtual registers: allocation and list scheduling),
sample (SampleNTT / CBD jobs on the KMAC side-load + stream unit).
mlkem/: ntt, basemul (NTT-domain products), codec (ByteDecode / ByteEncode, Compress /
Decompress), decaps (ML-KEM-768 decapsulation as one program, its DMEM layout).
mldsa/: params, ntt, layout (the shared DMEM regions and constant words), sampling
(ExpandMask, SampleInBall), products (pointwise, A_hat o y_hat, c s), rounding (HighBits,
LowBits, MakeHint, norm checks), packing (skDecode, sigEncode, the bit packers), sign (ML-DSA-65
signing as one program, its DMEM layout and loop control), keygen (ML-DSA-44 / 65 / 87 key
generation as one program in 16 KiB).
"""
