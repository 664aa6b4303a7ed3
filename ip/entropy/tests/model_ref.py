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


def expected_words(n: int, div: int = 0) -> list[int]:
    """The first n words after the start-up window, at a raw bit every div + 1 cycles from EN
    written 1 (the rings' model at its seed then: the first EN since reset). Sample k is the
    rings' XOR in cycle k (div + 1) - 2 after the EN write's ack cycle (doc/spec.md); the rings
    show state j in cycle j (state 0 the seed) and 0 before it."""
    states = [model_seed(length) for length in LENGTHS]
    xor = []                               # the rings' XOR in cycle j, j = 0, 1, ...
    bits = []
    while len(bits) < APT_WINDOW + 32 * n:
        at = len(bits) * (div + 1) - 2
        while len(xor) <= at:
            xor.append(sum(s & 1 for s in states) & 1)
            states = [xorshift(s) for s in states]
        bits.append(xor[at] if at >= 0 else 0)
    bits = bits[APT_WINDOW:]
    return [sum(b << i for i, b in enumerate(bits[32 * w:32 * w + 32])) for w in range(n)]
