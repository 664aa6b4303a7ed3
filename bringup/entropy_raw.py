# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""Raw bits of the entropy source for its assessment (`pqsoc bringup PORT --raw-entropy FILE`;
ip/entropy/doc/spec.md, "What is checked here").

SP 800-90B wants the noise source's samples as they come, consecutive, at the rate the source
is used at: at least 1 000 000 of them, or sets of at least 1 000 consecutive ones (3.1.1).
Over the bridge alone a host keeps up only at the slowest rates (a read is a round trip), so
the chip's CPU runs firmware/programs/entropy_collect.c: asked through `ctrl_scratch`, it fills
the ACC's DMEM with consecutive words (the block's DROPPED register unchanged across them,
firmware/lib/entropy.c entropy_collect), the host reads them out, and asks for the next block. A
block that lost a word is collected again; the blocks are consecutive within, not between.

The file holds one sample per byte (0 or 1, the oldest bit of each word first): NIST's
`ea_non_iid FILE 1` reads it. The summary beside it (FILE.json) gives the blocks, the rate and
one estimator of SP 800-90B (6.3.1, the most common value) as a first figure; the assessment is
NIST's tool's, with all of its estimators."""
import json
import math
import time
from pathlib import Path

from bringup.checks import ACC_DMEM_WINDOW

COLLECT_TAG, DONE_TAG = 0xEC, 0xED
# entropy_collect.c's reply status, by its number
STATUS = ("ok", "health", "timeout", "dropped", "arg", "acc", "absent")
MIN_BLOCK_WORDS = 32              # 1 024 samples: SP 800-90B 3.1.1's sets of at least 1 000
DROPPED_RETRIES = 8               # blocks in a row that lost a word before giving up


class CollectError(Exception):
    """The chip could not deliver the bits asked for: the message names why."""


def command(div: int, words: int) -> int:
    return COLLECT_TAG << 24 | div << 16 | words


def reply(value: int) -> dict | None:
    """entropy_collect.c's reply in ctrl_scratch, or None while it holds no reply."""
    if value >> 24 != DONE_TAG:
        return None
    st = (value >> 20) & 0xF
    return {"status": STATUS[st] if st < len(STATUS) else f"unknown ({st})",
            "held": (value >> 16) & 1, "lost": value & 0xFFFF}


def samples(words) -> bytes:
    """One byte per raw bit, the oldest (bit 0 of each word) first."""
    return bytes((w >> i) & 1 for w in words for i in range(32))


def most_common_value(bits: bytes) -> float:
    """SP 800-90B 6.3.1: min-entropy per sample from the most common value's proportion, at
    its 99 % upper confidence bound."""
    n = len(bits)
    if n < 2:
        raise ValueError("the most common value estimate needs at least 2 samples")
    p = max(bits.count(0), bits.count(1)) / n
    pu = min(1.0, p + 2.576 * math.sqrt(p * (1 - p) / (n - 1)))
    return -math.log2(pu)


def collect(bus, soc, bits: int, div: int, block_words: int | None = None, timeout_s: float = 30.0,
            log=None) -> dict:
    """At least `bits` raw bits at DIV `div` in blocks of `block_words` consecutive words (default:
    the whole DMEM) from entropy_collect.c on the chip. Returns {"words", "blocks": [{"words",
    "held", "lost"}], "dropped_blocks", "seconds"}; raises CollectError."""
    scratch = soc.csr("ctrl_scratch")
    dmem = soc.region("acc")[0] + ACC_DMEM_WINDOW
    dmem_words = soc.constant("acc_dmem_size") // 4
    per = block_words or dmem_words
    if not MIN_BLOCK_WORDS <= per <= dmem_words:
        raise CollectError(f"a block of {per} words: from {MIN_BLOCK_WORDS} (SP 800-90B's sets of "
                           f"1 000 samples) to the ACC DMEM's {dmem_words}")
    if not 0 <= div <= 0xFF:
        raise CollectError(f"DIV {div}: 0 .. 255 (CTRL.DIV)")
    words, blocks, dropped, in_a_row, t0 = [], [], 0, 0, time.monotonic()
    while 32 * len(words) < bits:
        n = max(MIN_BLOCK_WORDS, min(per, -(-(bits - 32 * len(words)) // 32)))
        r = ask(bus, scratch, command(div, n), timeout_s)
        if r["status"] == "dropped":
            dropped += 1
            in_a_row += 1
            if in_a_row == DROPPED_RETRIES:
                raise CollectError(f"{DROPPED_RETRIES} blocks in a row lost a word at DIV {div}: the CPU "
                                   "reads slower than the source delivers; raise DIV")
            continue
        if r["status"] != "ok":
            raise CollectError(f"entropy_collect answered {r['status']} at DIV {div} after {len(blocks)} "
                               "blocks" + (": a health test failed (run `pqsoc bringup PORT entropy`)"
                                           if r["status"] == "health" else ""))
        in_a_row = 0
        got = []
        for k in range(0, n, 255):                    # the bridge reads at most 255 words a command
            got += bus.read(dmem + 4 * k, min(255, n - k))
        words += got
        blocks.append({"words": n, "held": r["held"], "lost": r["lost"]})
        if log:
            log(f"[entropy_raw] block {len(blocks)}: {n} words ({32 * len(words)} of {bits} bits)")
    return {"words": words, "blocks": blocks, "dropped_blocks": dropped,
            "seconds": round(time.monotonic() - t0, 3)}


def ask(bus, scratch: int, cmd: int, timeout_s: float) -> dict:
    bus.write(scratch, [cmd])
    deadline = time.monotonic() + timeout_s
    while (r := reply(bus.read1(scratch))) is None:
        if time.monotonic() > deadline:
            raise CollectError(f"no reply in ctrl_scratch ({scratch:#010x}) within {timeout_s} s: is "
                               "firmware/programs/entropy_collect.c running (--boot)?")
    return r


def finish(bus, soc) -> None:
    """Ends entropy_collect.c (a command of 0 words): it stops the source and exits."""
    bus.write(soc.csr("ctrl_scratch"), [command(0, 0)])


def write(out: Path, res: dict, div: int, soc) -> dict:
    """FILE (one sample per byte) and FILE.json (the summary, returned)."""
    raw = samples(res["words"])
    out = Path(out)
    out.write_bytes(raw)
    clock = soc.clock_hz
    summary = {"file": str(out), "samples": len(raw), "bits_per_sample": 1, "div": div,
               "sample_rate_hz": clock / (div + 1), "clock_hz": clock,
               "blocks": res["blocks"], "dropped_blocks": res["dropped_blocks"],
               "seconds": res["seconds"],
               "mcv_min_entropy": round(most_common_value(raw), 6),
               "assessment": f"ea_non_iid {out.name} 1 (NIST SP 800-90B EntropyAssessment)"}
    Path(f"{out}.json").write_text(json.dumps(summary, indent=1) + "\n")
    return summary
