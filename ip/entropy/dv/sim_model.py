# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""The rings' simulation model in place of their cells, for every simulation of Verilog that
holds them: block entropy_src's runs (dv/gls.py) and the silicon SoC's and the Caravel
wrapper's, RTL and netlist (sim/silicon.py, sim/caravel.py).

A ring oscillator is a combinational loop, which a cycle-based simulator cannot run, so each
ring module (`pqsoc_ring<n>`, rtl/rings.py) is replaced by the model's module of the same name
and ports (rings.model_verilog). The emitted RTL holds the rings' cells as those modules; a
netlist holds them when synthesis kept each ring its own module (block keep_hierarchy): a text
that flattened them is refused, since its loops could not be simulated."""
import re
from pathlib import Path

from pqsoc import FlowError
from ip.entropy.rtl.rings import LENGTHS, model_verilog, module_name


def defines_rings(text: str) -> bool:
    return re.search(rf"^module {module_name(LENGTHS[0])}\b", text, re.M) is not None


def with_model(text: str, where: str) -> str:
    """TEXT with every ring module's definition replaced by the model's; refused when a ring
    module is not defined exactly once."""
    for n in LENGTHS:
        found = re.findall(rf"^module {module_name(n)}\b.*?^endmodule\n?", text, re.M | re.S)
        if len(found) != 1:
            raise FlowError(f"{where}: {len(found)} definitions of {module_name(n)}, one expected "
                            "(the rings must stay modules of their own to be simulated)")
        text = text.replace(found[0], "")
    return text + "\n" + model_verilog()


def simulable(paths: list[Path], out: Path, required: bool = True) -> list[Path]:
    """PATHS with each file that defines the rings replaced by a copy in OUT with the model in
    their place (`<name>_ring_model.v`, rewritten only when its text changes, so a cached
    simulation model is not rebuilt). `required`: the design holds the rings, and sources
    without them are refused (a design whose rings were lost is not simulated as if whole)."""
    res, swapped = [], 0
    for p in map(Path, paths):
        text = p.read_text()
        if not defines_rings(text):
            res.append(p)
            continue
        new = with_model(text, str(p))
        dst = Path(out) / f"{p.stem}_ring_model.v"
        dst.parent.mkdir(parents=True, exist_ok=True)
        if not dst.is_file() or dst.read_text() != new:
            dst.write_text(new)
        res.append(dst)
        swapped += 1
    if required and not swapped:
        raise FlowError(f"none of {', '.join(Path(p).name for p in paths)} defines the rings' "
                        f"modules ({module_name(LENGTHS[0])}, ...): nothing to put the model in for")
    return res
