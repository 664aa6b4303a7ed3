# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""Stream-unit snippets: smp.run samples the KMAC output stream into the data area (in one
of the sampling modes) while core instructions run beside it, then smp.wait and kmac.rel;
or one of the misuse constructs of SMP_MISUSE."""
from __future__ import annotations

from ip.acc.dv.rig.config import _li
from ip.acc.dv.rig.gens.straight_line import plain_item
from ip.acc.dv.rig.state import State

SMP_MODES = ("uni12", "uni23", "cbd2", "cbd3", "eta2", "eta4", "cbd2m", "cbd3m", "b2a1m", "intm")
MASKED = ("cbd2m", "cbd3m", "b2a1m", "intm")  # two polynomials (intm: words), 16-bit lanes; VMODE 1 is SAMPLER
URND_USES = ("csrrs x{}, URND, x0", "bn.wsrr w{}, URND", "bn.wsrw URND, w{}")


def smp_item(g: State, misuse: str | None = None) -> list[str]:
    """The rest of a KMAC session (open and squeezing, unless misuse says otherwise):
    smp.run into a window of the data area, 0-4 plain instructions, an optional
    SMP_STATUS read, smp.wait, kmac.rel.

    misuse (all SAMPLER errors but smp_dig): smp_mode (a mode this unit does not
    implement), smp_dst (a misaligned destination, or one whose window runs past DMEM),
    smp_busy (a second smp.run while it runs), smp_urnd (a URND read or reseed while a
    masked mode runs), smp_dig (kmac.dig / kmac.rel while it runs,
    a KMAC error); smp_early is kmac_item's part (the session is not finished)."""
    r = g.rng
    g.features["smp"] += 1
    gd, gc = r.sample(range(1, 31), 2)
    mode = r.choice(SMP_MODES)
    words = r.randint(1, g.lay.data_end // 32)
    dst = 32 * r.randrange(0, g.lay.data_end // 32 - words + 1)
    count = r.randint(1, 8 * words)              # fits in either VMODE
    if misuse == "smp_urnd":
        mode = r.choice(MASKED)
    pre = []
    if mode in MASKED:                           # share 0's and share 1's words
        words = max(2, words - words % 2)
        dst = 32 * r.randrange(0, g.lay.data_end // 32 - words + 1)
        count = r.randint(1, 8 * words)
    if mode == "b2a1m":                          # three source words in the data area
        count = min(count, r.choice((256, 256, r.randint(1, 300))))
        gs = r.choice([x for x in range(1, 31) if x not in (gd, gc)])
        src = 32 * r.randrange(0, g.lay.data_end // 32 - 2) + (4 if g.chance(0.05) else 0)
        pre = _li(gs, src) + [f"csrrw x0, SMP_SRC, x{gs}"]
    if mode == "intm":                           # groups' shares at SMP_SRC, public words from SMP_CFG
        dw = g.lay.data_end // 32
        n = r.randint(1, max(1, min(16, (dw - 1) // 2)))
        count = 16 * n if not g.chance(0.05) else r.randint(1, 300)
        gs = r.choice([x for x in range(1, 31) if x not in (gd, gc)])
        src = 32 * r.randrange(0, max(1, dw - 2 * n + 1)) + (4 if g.chance(0.05) else 0)
        stride0 = r.randrange(2)
        pub = r.randrange(0, max(1, dw - (1 if stride0 else n) + 1))
        cfg = r.getrandbits(12) << 20 | pub << 8 | stride0 << 7
        words = 2
        dst = 32 * r.randrange(0, dw - 1)
        pre = _li(gs, src) + [f"csrrw x0, SMP_SRC, x{gs}"] + _li(gs, cfg) + [f"csrrw x0, SMP_CFG, x{gs}"]
    if misuse == "smp_mode":
        mode = r.choice(("unpack", "pack", "ball"))
    elif misuse == "smp_dst":
        dst = r.choice((dst + 4, g.cfg.dmem_size - 32))
        count = 256 if dst % 32 == 0 else count
    out = pre + _li(gd, dst) + _li(gc, count) + [f"smp.run x{gd}, x{gc}, {mode}"]
    if misuse == "smp_busy":
        return out + [f"smp.run x{gd}, x{gc}, {mode}"]
    if misuse == "smp_urnd":
        use = r.choice(URND_USES)
        return out + [use.format(g.gd() if use.startswith("csr") else g.w())]
    if misuse == "smp_dig":
        return out + [r.choice(("kmac.dig w3", "kmac.dig1 w3", "kmac.rel"))]
    for _ in range(r.randint(0, 4)):
        out += plain_item(g)
    if g.chance(0.3):
        out.append(f"csrrs x{g.gd()}, SMP_STATUS, x0")
    return out + ["smp.wait", "kmac.rel"]
