"""pnr/<block>/config.json is what the block's declaration makes (`pqsoc pnr-config`): one clock
period, design name, Verilog and exclusion list for the local flow and for OpenLane."""
import json

import pytest

from pqsoc import FlowError, REPO
from pqsoc.cli import blocks
from pqsoc.flow import openlane


def test_committed_configs_are_the_generated_ones():
    with_config = [b for b in blocks.BLOCKS.values() if b.openlane is not None]
    assert {b.name for b in with_config} == {p.parent.name for p in (REPO / "pnr").glob("*/config.json")}
    for b in with_config:
        path = openlane.config_path(b)
        assert path.read_text() == openlane.render(b), f"{path}: run `pqsoc pnr-config {b.name}`"


def test_config_takes_the_blocks_period_and_top(monkeypatch):
    import dataclasses
    b = dataclasses.replace(blocks.get("kmac"), period_ns=25.0, openlane={"FP_CORE_UTIL": 30})
    cfg = openlane.config(b)
    assert cfg["CLOCK_PERIOD"] == 25.0 and cfg["DESIGN_NAME"] == "kmac" and cfg["CLOCK_PORT"] == "clk"
    assert cfg["FP_CORE_UTIL"] == 30
    folder = openlane.config_path(b).parent
    assert (folder / cfg["VERILOG_FILES"][5:]).resolve() == (b.rtl_dir() / "kmac.v").resolve()
    assert (folder / cfg["SYNTH_EXCLUDED_CELL_FILE"][5:]).resolve() == openlane.SYNTH_EXCLUDE_CELLS.resolve()
    json.dumps(cfg)


def test_block_without_openlane_config_is_refused():
    with pytest.raises(FlowError, match="block acc has no OpenLane configuration"):
        openlane.config(blocks.get("acc"))


def test_harden_refuses_a_config_that_differs(monkeypatch, tmp_path):
    from pqsoc.flow import harden
    monkeypatch.setattr(openlane, "PNR", tmp_path)
    path = openlane.write(blocks.get("keccak"))
    path.write_text(path.read_text().replace('"CLOCK_PERIOD": ', '"CLOCK_PERIOD": 1'))
    with pytest.raises(FlowError, match="differs from the block's declaration: run `pqsoc pnr-config keccak`"):
        harden.harden("keccak")
