# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""KMAC snippets: one side-load session (kmac.acq, kmac.start, message words, kmac.finish,
digest words or a stream-unit run, kmac.rel) with plain instructions in between, since the
KMAC works in the background; or one of its misuse constructs (KMAC / SAMPLER errors).
A third of the sessions are masked (kmac.start grs1[5]: URND seeds the KMAC's masks): words
in two shares (kmac.msgm) or public (kmac.msg), digest words as share 1 (kmac.dig1) then
share 0 (kmac.dig); the unmasked ones use msgm and dig1 now and then too."""
from __future__ import annotations

from ip.acc.dv.rig.config import SMP_MISUSE, _li
from ip.acc.dv.rig.gens.stream_unit import smp_item
from ip.acc.dv.rig.gens.straight_line import plain_item
from ip.acc.dv.rig.state import State

KMAC_MISUSE = ("no_acq", "double_acq", "bad_mask", "bad_mode", "early_dig", "smp_dig")


def kmac_mode(g: State) -> int:
    """grs1 of kmac.start: mode[1:0] | strength[4:2] (kmac_regs.yml CFG codes)."""
    mode, strength = g.rng.choice(((0, 1), (0, 2), (0, 3), (0, 4), (1, 0), (1, 2), (2, 0), (2, 2)))
    return mode | strength << 2


def kmac_mask(g: State) -> tuple[int, int]:
    """A contiguous byte mask and its byte count."""
    r = g.rng
    if g.chance(0.5):
        return 0xFFFF_FFFF, 32
    lo = r.randrange(32)
    n = r.randint(1, 32 - lo)
    return ((1 << n) - 1) << lo, n


def kmac_item(g: State, misuse: str | None = None) -> list[str]:
    """A session: acq, start (message length declared, or 0 = ended by kmac.finish), 0-8
    message words (an optional kmac.pad halfway), then half the time a stream-unit run,
    otherwise 0-4 digest reads; rel.

    misuse (KMAC_MISUSE, SMP_MISUSE): no_acq / double_acq (the port not held / acquired
    twice), bad_mask (a non-contiguous byte mask), bad_mode (a mode code KMAC rejects),
    early_dig (a digest read before the message ends); the smp_* ones end in smp_item."""
    r = g.rng
    g.features["kmac"] += 1
    ga, gb = r.sample(range(1, 31), 2)
    out = [] if misuse == "no_acq" else ["kmac.acq"]
    if misuse == "double_acq":
        return out + ["kmac.acq"]
    words = []
    total = 0
    for _ in range(r.randint(0, 8)):
        mask, n = kmac_mask(g)
        if misuse == "bad_mask" and not words:
            mask, n = 0b1011, 3              # not contiguous: the KMAC reports MASK
        words.append((mask, g.w()))
        total += n
    declared = total if (total and g.chance(0.3) and misuse != "smp_early") else 0
    masked = g.chance(0.33)
    mode = 3 if misuse == "bad_mode" else kmac_mode(g) | masked << 5
    out += _li(ga, mode) + _li(gb, declared) + [f"kmac.start x{ga}, x{gb}"]
    if misuse == "early_dig":
        return out + [r.choice(("kmac.dig w1", "kmac.dig1 w1"))]
    for k, (mask, w) in enumerate(words):
        two = g.chance(0.7 if masked else 0.2)
        out += _li(ga, mask) + [f"kmac.msgm w{w}, w{g.w()}, x{ga}" if two else f"kmac.msg w{w}, x{ga}"]
        if g.chance(0.3):
            out += plain_item(g)
        if declared == 0 and k == len(words) // 2 and g.chance(0.2):
            out.append("kmac.pad")
    if declared == 0 and misuse != "smp_early":
        out.append("kmac.finish")
    if misuse in SMP_MISUSE or (misuse is None and g.chance(0.5)):
        return out + smp_item(g, misuse)
    for _ in range(r.randint(0, 4)):
        if g.chance(0.4):
            out += plain_item(g)
        if g.chance(0.8 if masked else 0.2):
            out.append(f"kmac.dig1 w{g.w()}")
            if g.chance(0.2):
                out += plain_item(g)
        out.append(f"kmac.dig w{g.w()}")
    if g.chance(0.3):
        out.append(f"csrrs x{g.gd()}, KMAC_STATUS, x0")
    out.append("kmac.rel")
    return out
