# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""Cycle figures (ip/kmac/dv/bench.py) and the transaction-level model (ip/kmac/model/transaction.py)."""
import random

import pytest

from ip.kmac.dv import sp800_185
from ip.kmac.dv.bench import measure
from ip.kmac.model.transaction import (ERR_MASK, ERR_MODE, ERR_OVERSIZE, ERR_SEQUENCE, ERR_UNDERSIZE, SpongeModel)

from ip.kmac.tests.refs import reference
from ip.kmac.tests.sponge_bench import MODE_CODE, STRENGTH_CODE


@pytest.mark.parametrize("rpc", [1, 2])
def test_cycle_figures(rpc):
    words = []
    r = measure(rpc, stream=words)
    print(f"\nKMAC rpc={rpc}: {r}")
    assert b"".join(words) == reference("shake", 128, bytes(range(32)), 32 * len(words))
    assert r["cycles_per_permutation"] == 24 // rpc
    # eager refill: within 2% of one block per max(permutation + copy, lane shifts + copy)
    assert r["shake128_squeeze_bytes_per_cycle"] >= 0.98 * r["shake128_squeeze_bound_bytes_per_cycle"]


def _model_run(mode, strength, msg, outlen, chunks, **extra):
    em, es, segs = sp800_185.segments(mode, strength, msg, outlen=outlen, **extra)
    md = SpongeModel()
    assert md.start(MODE_CODE[em], STRENGTH_CODE[es]) == 0
    rng = random.Random(len(msg))
    for s in segs:
        if s == "PAD":
            assert md.pad_block() == 0
            continue
        i = 0
        while i < len(s):
            n = rng.randint(1, 32) if chunks else 32
            lo = rng.randint(0, 32 - n) if chunks else 0
            part = s[i:i + n]
            word = bytearray(32)
            word[lo:lo + len(part)] = part
            assert md.message(bytes(word), ((1 << len(part)) - 1) << lo) == 0
            i += len(part)
    assert md.finish() == 0
    out = b"".join(md.digest_word() for _ in range((outlen + 31) // 32))
    return out[:outlen]


@pytest.mark.parametrize("case", [("sha3", 224, 144), ("sha3", 512, 200), ("shake", 128, 400),
                                  ("cshake", 256, 10), ("kmac", 128, 170), ("kmacxof", 256, 3)])
def test_model_known_answers(case):
    mode, strength, n = case
    extra = {"key": b"k" * 32, "custom": b"c"} if mode.startswith("kmac") else {}
    if mode == "cshake":
        extra = {"name": b"N", "custom": b"S"}
    msg = bytes(range(256)) * 2
    outlen = 300 if mode in ("shake", "kmacxof") else (strength // 8 if mode == "sha3" else 32)
    assert _model_run(mode, strength, msg[:n], outlen, True, **extra) == \
        reference(mode, strength, msg[:n], outlen, **extra)


def test_model_errors():
    md = SpongeModel()
    assert md.start(0, 0) == ERR_MODE
    assert md.finish() == ERR_SEQUENCE
    md.start(1, 0)
    assert md.message(bytes(32), 0b101) == ERR_MASK
    md.start(1, 0, msg_len=4)
    assert md.message(bytes(32), 0x1F) == ERR_OVERSIZE
    md.start(1, 0, msg_len=4)
    md.message(bytes(32), 0x1)
    assert md.finish() == ERR_UNDERSIZE
    md.start(1, 0, msg_len=1)
    md.message(b"a" + bytes(31), 1)          # finishes by itself
    assert md.digest_word() == reference("shake", 128, b"a", 32)
    assert md.message(bytes(32), 1) == ERR_SEQUENCE
