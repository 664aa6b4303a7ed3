"""OpenLane 2 configurations (pnr/<block>/config.json), written from the block's declaration.

The clock, the design name, the Verilog the flow emits and the cells synthesis may not use come
from the Block (one source: `pqsoc synth`/`sta` and OpenLane see the same period and exclusion
list); the floorplan knobs are the defaults below, overridden per block by `Block.openlane`.
`pqsoc pnr-config` writes the files; tests/test_openlane.py checks the committed ones against it.
"""
import json
import os
from pathlib import Path

from pqsoc import REPO, FlowError
from pqsoc.flow.block import Block
from pqsoc.flow.synth import SYNTH_EXCLUDE_CELLS

PNR = REPO / "pnr"

# A relative floorplan at 45 % utilisation and 55 % placement density: room for the fanout
# buffers, taps and routing that the pre-layout area (reports/ppa.json) does not hold.
DEFAULTS = {
    "FP_SIZING": "relative",
    "FP_CORE_UTIL": 45,
    "PL_TARGET_DENSITY_PCT": 55,
    "SYNTH_STRATEGY": "DELAY 1",
    "MAX_FANOUT_CONSTRAINT": 16,          # as the flow's fanout repair (pqsoc/flow/fanout.py)
    "RUN_HEURISTIC_DIODE_INSERTION": True,
}


def config_path(block: Block) -> Path:
    return PNR / block.name / "config.json"


def _dir_rel(path: Path, folder: Path) -> str:
    """OpenLane's `dir::` form of a path relative to the config's folder."""
    return "dir::" + os.path.relpath(path, folder)


def config(block: Block) -> dict:
    """The OpenLane 2 configuration of a block that has one (Block.openlane is not None)."""
    if block.openlane is None:
        raise FlowError(f"block {block.name} has no OpenLane configuration (Block.openlane)")
    folder = config_path(block).parent
    cfg = {
        "meta": {"version": 2, "flow": "Classic"},
        "DESIGN_NAME": block.top,
        "VERILOG_FILES": _dir_rel(block.rtl_dir() / f"{block.top}.v", folder),
        "CLOCK_PORT": block.clock,
        "CLOCK_PERIOD": block.period_ns,
    }
    cfg.update(DEFAULTS)
    cfg["SYNTH_EXCLUDED_CELL_FILE"] = _dir_rel(SYNTH_EXCLUDE_CELLS, folder)
    cfg.update(block.openlane)
    return cfg


def render(block: Block) -> str:
    return json.dumps(config(block), indent=2) + "\n"


def write(block: Block) -> Path:
    path = config_path(block)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(render(block))
    return path
