# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""The Keccak core and the KMAC block as blocks of the flow (declared once; the registry,
pqsoc/cli/blocks.py, wires the benchmark from ip/kmac/dv/)."""
from ip.common import SYS_CLK_PERIOD_NS
from pqsoc.flow.block import Block, amaranth_emit_key, emit_amaranth

ROUNDS_PER_CYCLE = 1     # Keccak-f[1600] rounds per clock: 24 cycles a permutation
# Word address bits of the KMAC's 4 KiB register window, as the SoC maps it: the SoC takes it from
# here (ip/acc/rtl/pqc.py KMAC_ADDR_WIDTH; the floors let ip.acc read ip.kmac, not the reverse),
# and the hardened block has it, so the wrapper's KMAC cell is the SoC's KMAC.
ADDR_WIDTH = 10
PERIOD_NS = SYS_CLK_PERIOD_NS   # synthesis, STA and hardening target: the SoC's clock
# The SoC's KMAC has the masked mode (issue #38: two-share sponge, one Keccak core for both
# modes; +0.35 mm2 of logic against block kmac_unmasked). The flat floorplan holds it because the
# KMAC, which owns no memory, is planned wherever the bands have room (soc/flat_floorplan.py
# FREE_OWNER) and the ACC maps with &dch module by module (ip/acc/block.py).
MASKED = True


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
    emit_key=amaranth_emit_key,
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
    emit_key=amaranth_emit_key,
    period_ns=PERIOD_NS,
    cocotb_test="ip.kmac.tests.cocotb_keccak_masked",
    baseline=("keccak", "two shares (DOM chi, its PRNG)"),
)

KMAC = Block(
    name="kmac",
    top="kmac",
    description=("KMAC block: sponge with its masked mode (two shares, one Keccak core for both modes), "
                 "Wishbone registers, side-load port (ip/kmac/rtl/kmac.py)"),
    emit=emit_amaranth(_kmac, "kmac"),
    emit_key=amaranth_emit_key,
    period_ns=PERIOD_NS,
    cocotb_test="ip.kmac.tests.cocotb_kmac",
    openlane={},
    baseline=("kmac_unmasked", "the masked mode (issue #38)"),
)

# The KMAC without the masked mode: what the masked mode adds to the SoC's (area, timing).
KMAC_UNMASKED = Block(
    name="kmac_unmasked",
    top="kmac",
    description="KMAC block without the masked mode (one-share sponge): the SoC's KMAC before issue #38",
    emit=emit_amaranth(lambda: _kmac(masked=False), "kmac"),
    emit_key=amaranth_emit_key,
    period_ns=PERIOD_NS,
    cocotb_test="ip.kmac.tests.cocotb_kmac",     # the same test: it starts no masked operation
)
