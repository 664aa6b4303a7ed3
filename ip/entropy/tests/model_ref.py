# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""The words the rings' simulation model gives, from its definition written here (a 32-bit
xorshift per ring from its seed, stepped every cycle with EN, its low bit the ring's output)
and the sample timing of doc/spec.md: the reference for the Amaranth model
(test_entropy_src.py) and the Verilog one (cocotb_entropy_src.py), so the two are the same."""
from ip.entropy.health import APT_WINDOW
from ip.entropy.rtl.rings import LENGTHS, model_seed


def xorshift(x: int) -> int:
    x ^= (x << 13) & 0xFFFFFFFF
    x ^= x >> 17
    return x ^ ((x << 5) & 0xFFFFFFFF)


def expected_words(n: int) -> list[int]:
    """DIV = 0: sample k is the rings' XOR in the cycle k - 1 after the EN write's ack cycle;
    the rings (0 before EN) show state j - 1 in cycle j, state 0 the seed."""
    states = [model_seed(length) for length in LENGTHS]
    bits = [0, 0]                          # samples 0 and 1: the cycles before EN
    while len(bits) < APT_WINDOW + 32 * n:
        bits.append(sum(s & 1 for s in states) & 1)
        states = [xorshift(s) for s in states]
    bits = bits[APT_WINDOW:]
    return [sum(b << i for i, b in enumerate(bits[32 * w:32 * w + 32])) for w in range(n)]
