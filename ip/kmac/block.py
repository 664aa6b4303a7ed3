# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""The Keccak core and the KMAC block as blocks of the flow (declared once; the registry,
pqsoc/cli/blocks.py, wires the benchmark from ip/kmac/dv/)."""
from ip.common import SYS_CLK_PERIOD_NS
from pqsoc.flow.block import Block, emit_amaranth

ROUNDS_PER_CYCLE = 1     # Keccak-f[1600] rounds per clock: 24 cycles a permutation
# Word address bits of the KMAC's 4 KiB register window, as the SoC maps it: the SoC takes it from
# here (ip/acc/rtl/pqc.py KMAC_ADDR_WIDTH; the floors let ip.acc read ip.kmac, not the reverse),
# and the hardened block has it, so the wrapper's KMAC cell is the SoC's KMAC.
ADDR_WIDTH = 10
PERIOD_NS = SYS_CLK_PERIOD_NS   # synthesis, STA and hardening target: the SoC's clock
# The SoC's KMAC has no masked mode (issue #38): with it (+0.35 mm2 of logic in block kmac_masked,
# one core for both modes) the flat floorplan's bands of the ACC's datapath are at 66 % and 65 %,
# above the plan's 60 % (docs/side_channels.md, "The masked KMAC"), so the silicon leaves it out
# until that area is found. Block `kmac_masked` is the KMAC with it (its figures); the ACC's test
# tops build that one (ip/acc/rtl/pqc.py DV_KMAC_MASKED).
MASKED = False


def _keccak():
    from ip.kmac.rtl.keccak import KeccakCore
    return KeccakCore(rounds_per_cycle=ROUNDS_PER_CYCLE)


def _keccak_masked():
    from ip.kmac.rtl.keccak_masked import MaskedKeccakCore
    return MaskedKeccakCore()


def _kmac(masked: bool = MASKED):
    from ip.kmac.rtl.kmac import Kmac
    return Kmac(rounds_per_cycle=ROUNDS_PER_CYCLE, addr_width=ADDR_WIDTH, masked=masked)


KECCAK = Block(
    name="keccak",
    top="keccak_core",
    description="Keccak-f[1600] permutation core, 1 round/cycle (ip/kmac/rtl/keccak.py)",
    emit=emit_amaranth(_keccak, "keccak_core"),
    period_ns=PERIOD_NS,
    cocotb_test="ip.kmac.tests.cocotb_keccak",
    openlane={},
)

# The masked permutation (issue #38) on its own, for its area and its gate-level run.
KECCAK_MASKED = Block(
    name="keccak_masked",
    top="keccak_masked_core",
    description="Keccak-f[1600] on two shares, DOM chi, its PRNG; 97 cycles masked, 24 unmasked (ip/kmac/rtl/keccak_masked.py)",
    emit=emit_amaranth(_keccak_masked, "keccak_masked_core"),
    period_ns=PERIOD_NS,
    cocotb_test="ip.kmac.tests.cocotb_keccak_masked",
)

KMAC = Block(
    name="kmac",
    top="kmac",
    description="KMAC block: sponge, Wishbone registers, side-load port (ip/kmac/rtl/kmac.py)",
    emit=emit_amaranth(_kmac, "kmac"),
    period_ns=PERIOD_NS,
    cocotb_test="ip.kmac.tests.cocotb_kmac",
    openlane={},
)

# The KMAC with its masked mode (MASKED above): its area and timing; not in the SoC.
KMAC_MASKED = Block(
    name="kmac_masked",
    top="kmac",
    description="KMAC block with the masked mode (two-share sponge, one Keccak core for both modes): not in the SoC (ip/kmac/block.py MASKED)",
    emit=emit_amaranth(lambda: _kmac(masked=True), "kmac"),
    period_ns=PERIOD_NS,
)
