# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""The entropy source as a block of the flow (declared once), for its area and timing: the
silicon kind, its rings as sky130 cells (ip/entropy/rtl/rings.py), each ring module kept as its
own module of the netlist (so the gate-level run can put the rings' model in its place).
Its LibreLane configuration (pnr/entropy_src) is for checking it alone: LibreLane's lint and
synthesis must keep every ring whole (`pqsoc pnr check entropy_src --synth`,
ip/entropy/tests/test_entropy_block.py); on the chip it would be logic of the wrapper's one run,
as the KMAC and the ACC are."""
from pathlib import Path

from ip.common import SYS_CLK_PERIOD_NS
from ip.entropy.rtl.rings import LENGTHS, module_name
from pqsoc import write_if_changed
from pqsoc.flow.block import Block, amaranth_emit_key

ADDR_WIDTH = 10            # word address bits of its window (4 KiB, as the KMAC's)
TOP = "entropy_src"


def emit(out: Path) -> list[Path]:
    """entropy_src.v: the Amaranth design (kind sky130) and, after it, the rings' cells."""
    from amaranth.back import verilog
    from ip.entropy.rtl.entropy_src import EntropySource
    from ip.entropy.rtl.rings import cells_verilog
    out.mkdir(parents=True, exist_ok=True)
    text = verilog.convert(EntropySource(kind="sky130", addr_width=ADDR_WIDTH), name=TOP, emit_src=False)
    text += "\n" + cells_verilog()
    path = out / f"{TOP}.v"
    write_if_changed(path, text)
    return [path]


# The rings where LibreLane flattens them (its synthesis keeps their cells, tests/test_entropy_block.py):
# cells <path>rings.ring<i>.nand0 / .inv<j>, nets <path>rings.ring<i>.n[<j>] and the closing net
# <path>rings.ring<i>_out. The resizer must neither resize, buffer nor remove them
# (RSZ_DONT_TOUCH_RX: one regular expression over net and instance names), and the paths through
# them (EN flop, ring, synchronizer: asynchronous by design) are false (ring_sdc).
RING_NAME_RX = r"rings\.ring[0-9]+[._]"
RING_CELLS = "*rings.ring*"


def ring_sdc() -> str:
    """The SDC lines for the rings, for a flat netlist that holds them (the wrapper's). Where it
    holds none (the wrapper's SDC check, the SoC a black box) they do nothing."""
    return f"""
# The entropy source's ring oscillators (ip/entropy/block.py ring_sdc): the path from the EN flop
# through a ring to its synchronizer is asynchronous by design; OpenSTA would time it after
# cutting the loop. {sum(LENGTHS)} cells where the netlist holds them.
set pqsoc_ring_cells [get_cells -quiet {{{RING_CELLS}}}]
puts "\\[INFO\\] entropy source: [llength $pqsoc_ring_cells] ring oscillator cells"
if {{[llength $pqsoc_ring_cells]}} {{ set_false_path -through $pqsoc_ring_cells }}
"""


# The rings' modules: each kept as a module of the netlist wherever the rings are synthesized
# (this block, the silicon SoC's blocks), so the netlist's simulations can put their model in.
RING_MODULES = tuple(module_name(n) for n in LENGTHS)


ENTROPY_SRC = Block(
    name="entropy_src",
    top=TOP,
    description=("entropy source: 4 ring oscillators (sky130 cells), sampler, SP 800-90B repetition-count and "
                 "adaptive-proportion tests, Wishbone registers (ip/entropy/rtl/entropy_src.py)"),
    emit=emit,
    emit_key=amaranth_emit_key,
    period_ns=SYS_CLK_PERIOD_NS,
    keep_hierarchy=RING_MODULES,
    openlane={"RSZ_DONT_TOUCH_RX": RING_NAME_RX},
)
