# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""The entropy source as a block of the flow (declared once), for its area and timing: the
silicon kind, its rings as sky130 cells (ip/entropy/rtl/rings.py). Its LibreLane configuration
(pnr/entropy_src) is for checking it alone: LibreLane's lint and synthesis must keep every ring
whole (`pqsoc pnr check entropy_src --synth`, ip/entropy/tests/test_entropy_block.py); on the chip
it would be logic of the wrapper's one run, as the KMAC and the ACC are."""
from ip.common import SYS_CLK_PERIOD_NS
from pqsoc.flow.block import Block, amaranth_emit_key, emit_amaranth

ADDR_WIDTH = 10            # word address bits of its window (4 KiB, as the KMAC's)


def _entropy_src():
    from ip.entropy.rtl.entropy_src import EntropySource
    return EntropySource(kind="sky130", addr_width=ADDR_WIDTH)


ENTROPY_SRC = Block(
    name="entropy_src",
    top="entropy_src",
    description=("entropy source: 4 ring oscillators (sky130 cells), sampler, SP 800-90B repetition-count and "
                 "adaptive-proportion tests, Wishbone registers (ip/entropy/rtl/entropy_src.py)"),
    emit=emit_amaranth(_entropy_src, "entropy_src"),
    emit_key=amaranth_emit_key,
    period_ns=SYS_CLK_PERIOD_NS,
    openlane={},
)
