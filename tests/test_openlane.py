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


# --- `pqsoc pnr check`: LibreLane's own config loader ----------------------------------------
from pathlib import Path

from pqsoc.flow import pdk_overlay
from pqsoc.flow.pdk import find_pdk


@pytest.fixture(scope="module")
def loader_root():
    """The PDK root LibreLane gets: the PDK, or its overlay (the 2021 subset)."""
    root, _ = openlane.loader_pdk_root(find_pdk().root)
    return root


def _with_rtl(name):
    b = blocks.get(name)
    if not (b.rtl_dir() / f"{b.top}.v").is_file():   # the loader checks that VERILOG_FILES exist
        b.emit(b.rtl_dir())
    return b


@pytest.mark.parametrize("name", ["keccak", "kmac"])
def test_pnr_check_loads_the_committed_configs(name, loader_root):
    r = openlane.check(_with_rtl(name), loader_root)
    b = blocks.get(name)
    assert r["DESIGN_NAME"] == b.top and r["CLOCK_PORT"] == b.clock
    assert float(r["CLOCK_PERIOD"]) == b.period_ns
    assert r["PDK"] == "sky130A" and r["STD_CELL_LIBRARY"] == "sky130_fd_sc_hd"
    assert r["variables"] > 300


def test_pnr_check_cli(capsys):
    from pqsoc.cli import main
    _with_rtl("keccak")
    assert main(["pnr", "check", "keccak"]) == 0
    out = capsys.readouterr().out
    assert "keccak: OK" in out and "DESIGN_NAME=keccak_core" in out and "variables resolved" in out


def _bad_config(tmp_path, **changes):
    """kmac's configuration with absolute paths, changed."""
    b = _with_rtl("kmac")
    cfg = openlane.config(b)
    cfg["VERILOG_FILES"] = [str((b.rtl_dir() / f"{b.top}.v").resolve())]
    cfg["SYNTH_EXCLUDED_CELL_FILE"] = str(openlane.SYNTH_EXCLUDE_CELLS.resolve())
    cfg.update(changes)
    tmp_path.mkdir(exist_ok=True)
    path = tmp_path / "config.json"
    path.write_text(json.dumps(cfg))
    return b, path


@pytest.mark.parametrize("changes, message", [
    ({"CLOCK_PERIOD": "abc"}, r"'CLOCK_PERIOD' of type Decimal is invalid: 'abc'"),
    ({"FP_CORE_UTILISATION": 30}, r"Unknown key 'FP_CORE_UTILISATION'"),
    ({"VERILOG_FILES": ["/nonexistent/kmac.v"]}, r"'VERILOG_FILES\[0\]' is invalid: '/nonexistent/kmac.v' does not exist"),
])
def test_pnr_check_names_the_bad_variable(tmp_path, loader_root, changes, message):
    b, good = _bad_config(tmp_path / "good")
    assert openlane.load(b, loader_root, good)["DESIGN_NAME"] == "kmac"   # only the change fails
    b, path = _bad_config(tmp_path, **changes)
    with pytest.raises(FlowError, match=r"kmac: LibreLane refuses .*\n(.|\n)*" + message):
        openlane.load(b, loader_root, path)


def test_pnr_check_refuses_a_stale_config(monkeypatch, tmp_path, loader_root):
    monkeypatch.setattr(openlane, "PNR", tmp_path)
    path = openlane.write(blocks.get("keccak"))
    path.write_text(path.read_text().replace('"FP_CORE_UTIL": 45', '"FP_CORE_UTIL": 40'))
    with pytest.raises(FlowError, match="keccak: .* differs from the block's declaration: run `pqsoc pnr-config keccak`"):
        openlane.check(blocks.get("keccak"), loader_root)


def test_overlay_only_when_needed(tmp_path):
    """The 2021 subset gets an overlay (written once, then reused until stale); a PDK whose
    configuration LibreLane accepts (here: that overlay itself) is used as it is."""
    real = find_pdk().root
    if not pdk_overlay.is_old_openlane_pdk(real):
        root, state = openlane.loader_pdk_root(real)
        assert (root, state) == (real, None)
        return
    where = tmp_path / "ov"
    root, written = pdk_overlay.overlay(real, where)
    assert root == where and written
    assert not pdk_overlay.overlay(real, where)[1]                    # up to date: kept
    assert openlane._pdk_errors(real) and not openlane._pdk_errors(root)
    assert not pdk_overlay.is_old_openlane_pdk(root)
    assert openlane.loader_pdk_root(root) == (root, None)             # accepted: no overlay of it
    cfg = (where / "sky130A/libs.tech/openlane/config.tcl").read_text()
    for name, _, why in pdk_overlay.PDK_ADDITIONS:
        assert f"set ::env({name}) " in cfg and why in cfg
    lm = (where / "sky130A/libs.tech/klayout/sky130A.map").read_text()
    assert "met1 NET,SPNET,VIA,FILL,FILLOPC 68 20" in lm and "DIEAREA ALL 235 4" in lm
    (where / ".overlay.json").write_text('{"fingerprint": "old"}')     # stale: written again
    assert pdk_overlay.overlay(real, where)[1]


def test_full_pdk_is_not_overlaid(tmp_path):
    """A PDK with a current (libs.tech/librelane) configuration that LibreLane refuses is
    reported with LibreLane's errors, not patched."""
    tech = tmp_path / "sky130A" / "libs.tech" / "librelane"
    (tech / "sky130_fd_sc_hd").mkdir(parents=True)
    (tech / "config.tcl").write_text("set ::env(STD_CELL_LIBRARY) sky130_fd_sc_hd\n")
    (tech / "sky130_fd_sc_hd" / "config.tcl").write_text("\n")
    assert not pdk_overlay.is_old_openlane_pdk(tmp_path)
    with pytest.raises(FlowError, match=r"LibreLane refuses the PDK at .*\n(.|\n)*PDN_VPITCH"):
        openlane.loader_pdk_root(tmp_path)
