# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""pnr/<block>/config.json is what the block's declaration makes (`pqsoc pnr-config`): one clock
period, design name, Verilog and exclusion list for the local flow and for OpenLane."""
import json
import re
import shutil
from pathlib import Path

import pytest

from pqsoc import FlowError, REPO
from pqsoc.cli import blocks
from pqsoc.flow import openlane


def test_every_config_belongs_to_a_block():
    with_config = [b for b in blocks.BLOCKS.values() if b.openlane is not None]
    assert {b.name for b in with_config} == {p.parent.name for p in (REPO / "pnr").glob("*/config.json")}
    # the flat architecture: the wrapper is the chip's one run; keccak is a block of its own, the
    # entropy source too (its rings checked through LibreLane's lint and synthesis alone)
    assert {b.name for b in with_config} == {"keccak", "entropy_src", "caravel"}


# one block at a time: caravel's needs its emitted RTL (the SRAM instance names; ~20 s on a
# fresh clone) and the floorplan
@pytest.mark.parametrize("name", ["keccak", "entropy_src", "caravel"])
def test_committed_configs_are_the_generated_ones(name):
    b = blocks.get(name)
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
    with pytest.raises(FlowError, match="block soc has no OpenLane configuration"):
        openlane.config(blocks.get("soc"))


def test_harden_refuses_a_config_that_differs(monkeypatch, tmp_path):
    from pqsoc.flow import harden
    monkeypatch.setattr(openlane, "PNR", tmp_path)
    path = openlane.write(blocks.get("keccak"))
    path.write_text(path.read_text().replace('"CLOCK_PERIOD": ', '"CLOCK_PERIOD": 1'))
    with pytest.raises(FlowError, match="differs from the block's declaration: run `pqsoc pnr-config keccak`"):
        harden.harden("keccak")


# --- `pqsoc pnr check`: LibreLane's own config loader ----------------------------------------
from pqsoc.flow import pdk_overlay
from pqsoc.flow.pdk import find_pdk


@pytest.fixture(scope="module")
def loader_root():
    """The PDK root LibreLane gets: the PDK, or its overlay (the 2021 subset)."""
    root, _ = openlane.loader_pdk_root(find_pdk().root)
    return root


def _with_rtl(name):
    b = blocks.get(name)
    assert openlane.prepare(b) == []   # the loader checks that VERILOG_FILES and the rest exist
    return b


@pytest.mark.parametrize("name", ["keccak"])
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
    assert "keccak: LibreLane config loader: OK" in out and "DESIGN_NAME=keccak_core" in out
    assert "variables resolved" in out


def _bad_config(tmp_path, **changes):
    """keccak's configuration with absolute paths, changed."""
    b = _with_rtl("keccak")
    cfg = openlane.config(b)
    cfg["VERILOG_FILES"] = [str((b.rtl_dir() / f"{b.top}.v").resolve())]
    cfg["SYNTH_EXCLUDED_CELL_FILE"] = str(openlane.SYNTH_EXCLUDE_CELLS.resolve())
    openlane.prepare(b)                      # the build files it names (its pin order)
    folder = openlane.config_path(b).parent
    for k, v in cfg.items():                 # every other `dir::` path made absolute
        if isinstance(v, str) and v.startswith("dir::"):
            cfg[k] = str((folder / v[5:]).resolve())
    cfg.update(changes)
    tmp_path.mkdir(exist_ok=True)
    path = tmp_path / "config.json"
    path.write_text(json.dumps(cfg))
    return b, path


@pytest.mark.parametrize("changes, message", [
    ({"CLOCK_PERIOD": "abc"}, r"'CLOCK_PERIOD' of type Decimal is invalid: 'abc'"),
    ({"FP_CORE_UTILISATION": 30}, r"Unknown key 'FP_CORE_UTILISATION'"),
    ({"VERILOG_FILES": ["/nonexistent/keccak.v"]}, r"'VERILOG_FILES\[0\]' is invalid: '/nonexistent/keccak.v' does not exist"),
])
def test_pnr_check_names_the_bad_variable(tmp_path, loader_root, changes, message):
    b, good = _bad_config(tmp_path / "good")
    assert openlane.load(b, loader_root, good)["DESIGN_NAME"] == "keccak_core"   # only the change fails
    b, path = _bad_config(tmp_path, **changes)
    with pytest.raises(FlowError, match=r"keccak: LibreLane refuses .*\n(.|\n)*" + message):
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


# --- Caravel's wrapper: the configuration from the flat floorplan ----------------------------------
from soc import caravel_openlane


def test_wrapper_config_comes_from_the_flat_floorplan():
    """No hand-typed coordinates: every SRAM's place is the checked flat floorplan's, under its
    instance path in the SoC's RTL; the wrapper's die, ring and grid are Caravel's fixed files'
    (CARAVEL_ROOT); no hard macro."""
    from pqsoc.flow import caravel
    ctx, st = caravel_openlane.checked_plan()
    fp = st["fp"]
    w = openlane.config(blocks.get("caravel"))
    wr = caravel.wrapper()
    assert w["DESIGN_NAME"] == "user_project_wrapper" and w["DIE_AREA"] == list(wr.die)
    assert w["PDN_CORE_RING_VWIDTH"] == 3.1 and w["PDN_CORE_RING_VOFFSET"] == 12.45
    assert (w["PDN_VWIDTH"], w["PDN_VPITCH"]) == (wr.pdn.vertical.width, wr.pdn.vertical.pitch)
    assert w["RT_MAX_LAYER"] == "met4" and w["PDN_ENABLE_RAILS"] is True
    assert w["FP_DEF_TEMPLATE"] == "dir::../../build/caravel/user_project_wrapper.def"
    cell = caravel_openlane.acc_block.SRAM_MACRO
    assert list(w["MACROS"]) == [cell]
    placed = w["MACROS"][cell]["instances"]
    names = {n: path for n, (path, _) in caravel_openlane.wrapper_instances().items()}
    assert len(placed) == len(fp.placements) == 20 and set(placed) == set(names.values())
    for n, pl in fp.placements.items():
        assert placed[names[n]] == {"location": [pl.x, pl.y], "orientation": pl.orient}, n
    assert names["imem0"] == "soc.pqc.acc.imem.ram_r0_c0" and names["dmem7"] == "soc.pqc.acc.dmem.ram_r0_c7"
    assert names["boot_ram0"].startswith("soc.memories.rom.") and names["main_sram0"].startswith("soc.memories.sram.")
    assert w["MACROS"][cell]["lib"] == {"*": [f"pdk_dir::libs.ref/sky130_sram_macros/lib/{cell}_TT_1p8V_25C.lib"]}
    assert (w["FP_MACRO_HORIZONTAL_HALO"], w["FP_MACRO_VERTICAL_HALO"]) == (
        caravel_openlane.flat_floorplan.HALO_X_UM, caravel_openlane.flat_floorplan.HALO_Y_UM)
    assert len(w["PDN_MACRO_CONNECTIONS"]) == 20 and w["MAGIC_DRC_USE_GDS"] is False
    assert caravel_openlane.HARD_MACROS == () and caravel_openlane.HARDEN_ORDER == ("caravel",)
    text = openlane.render(blocks.get("caravel"))
    assert "/work/" not in text and str(openlane.REPO) not in text     # no machine paths


def test_wrapper_sources_are_the_socs_own():
    """The flat wrapper reads the SoC's RTL as emitted: the ACC and the KMAC are modules of it,
    not black boxes."""
    b = blocks.get("caravel")
    assert openlane.prepare(b) == []
    pqc = next((caravel_openlane.WRAPPER_SRC / "src").glob("*_pqc.v")).read_text()
    assert pqc == (b.rtl_dir() / "soc" / "rtl" / "pqc.v").read_text()
    assert "module \\pqc.acc" in pqc and "module \\pqc.kmac" in pqc


def test_macro_check_seeded_errors():
    """The committed config's macros pass the check; an instance left out of MACROS or of
    PDN_MACRO_CONNECTIONS, or moved off its floorplan place, fails it."""
    import copy
    b = blocks.get("caravel")
    cfg = json.loads(openlane.config_path(b).read_text())
    assert b.openlane_check(cfg) == []
    cell, m = next(iter(cfg["MACROS"].items()))
    inst = next(iter(m["instances"]))
    c = copy.deepcopy(cfg)
    del c["MACROS"][cell]["instances"][inst]
    assert any(f"{inst} is not in MACROS" in e for e in b.openlane_check(c))
    c = copy.deepcopy(cfg)
    c["PDN_MACRO_CONNECTIONS"] = [e for e in c["PDN_MACRO_CONNECTIONS"] if not e.startswith(re.escape(inst) + " ")]
    assert any(f"{inst} matches 0 PDN_MACRO_CONNECTIONS" in e for e in b.openlane_check(c))
    c = copy.deepcopy(cfg)
    c["MACROS"][cell]["instances"][inst]["location"][0] += 0.46
    assert any(f"instance {inst} at" in e and "the floorplan has" in e for e in b.openlane_check(c))
    c = copy.deepcopy(cfg)
    c["MACROS"][cell]["instances"][inst]["orientation"] = "S"
    assert b.openlane_check(c)
    c = copy.deepcopy(cfg)
    c["DIE_AREA"][3] += 2.72
    assert any(e.startswith("DIE_AREA") and "the floorplan has" in e for e in b.openlane_check(c))


def test_checked_plan_refuses_a_floorplan_that_fails(monkeypatch):
    """No configuration from a floorplan that fails a check: 22 SRAMs (CPU 8 + 4 KiB) do not fit
    the chip's layout, and the refusal says so."""
    from soc import caravel_floorplan
    monkeypatch.setattr(caravel_floorplan, "current_sizes", lambda: (8 * 1024, 4 * 1024))
    caravel_openlane.checked_plan.cache_clear()
    try:
        with pytest.raises(FlowError, match="22 SRAMs do not fit"):
            caravel_openlane.checked_plan()
    finally:
        caravel_openlane.checked_plan.cache_clear()


def test_pnr_check_refuses_a_config_off_its_floorplan(monkeypatch, tmp_path, loader_root):
    monkeypatch.setattr(openlane, "PNR", tmp_path)
    b = blocks.get("caravel")
    path = openlane.write(b)
    cfg = json.loads(path.read_text())
    cell = next(iter(cfg["MACROS"]))
    first = next(iter(cfg["MACROS"][cell]["instances"].values()))
    first["location"][1] += 2.72
    path.write_text(json.dumps(cfg, indent=2) + "\n")
    with pytest.raises(FlowError, match=r"caravel: .* does not match its floorplan and RTL:\n .*the floorplan has"):
        openlane.check(b, loader_root)


def test_pnr_check_loads_the_wrapper_config(loader_root):
    """LibreLane resolves it; files only a full PDK gives are stood in and listed."""
    b = blocks.get("caravel")
    openlane.prepare(b)
    r = openlane.check(b, loader_root, find_pdk().root)
    assert r["DESIGN_NAME"] == b.top and r["variables"] > 300
    for path, why in r["stand_ins"]:
        assert "make harden" in why or "not in the PDK in use" in why, (path, why)


def test_pnr_check_stands_in_only_for_pending_files(tmp_path):
    assert "make harden" in openlane.pending_reason(openlane.REPO / "lef" / "acc.lef", ())
    assert "not in the PDK in use" in openlane.pending_reason(tmp_path / "pdk" / "x.gds", (tmp_path / "pdk",))
    assert openlane.pending_reason(openlane.REPO / "pnr" / "acc" / "x.lef", (tmp_path,)) is None


# --- `pqsoc harden`: the chip's order, the hardened views ------------------------------------------
def test_harden_without_blocks_takes_the_chip_and_refuses_without_openroad(monkeypatch, capsys):
    from pqsoc.cli import main
    from pqsoc.flow import harden
    monkeypatch.setattr(harden.shutil, "which", lambda tool: None)
    assert caravel_openlane.HARDEN_ORDER == ("caravel",)
    assert main(["harden"]) != 0
    out = capsys.readouterr()
    assert "[harden] block 1/1: caravel" in out.out and "hardening needs librelane, openroad" in out.err


def test_harden_collects_views_where_the_wrapper_reads_them(tmp_path):
    from pqsoc.flow import harden
    run = tmp_path / "run"
    # a LibreLane run's final/ folder: views by format, Liberty by STA corner, SPEF by RC corner
    for folder, name in (("gds", "acc.gds"), ("lef", "acc.lef"), ("nl", "acc.nl.v"),
                         *((f"lib/{k}_{c}", f"acc__{k}_{c}.lib") for k in ("nom", "min", "max")
                           for c in ("tt_025C_1v80", "ss_100C_1v60", "ff_n40C_1v95")),
                         *((f"spef/{rc}_", f"acc.{rc}.spef") for rc in ("nom", "min", "max"))):
        (run / "final" / folder).mkdir(parents=True)
        (run / "final" / folder / name).write_text(folder)
    out = harden.collect_views(run, "acc", repo=tmp_path)
    got = [p.relative_to(tmp_path).as_posix() for p in out]
    assert got == ["gds/acc.gds", "lef/acc.lef", "verilog/gl/acc.v", "lib/acc__tt.lib", "lib/acc__ss.lib",
                   "lib/acc__ff.lib", "spef/multicorner/acc.nom.spef", "spef/multicorner/acc.min.spef",
                   "spef/multicorner/acc.max.spef"]
    assert (tmp_path / "lib/acc__ss.lib").read_text() == "lib/nom_ss_100C_1v60"
    (run / "final" / "lef" / "acc.lef").unlink()
    with pytest.raises(FlowError, match="has no final/lef/acc.lef"):
        harden.collect_views(run, "acc", repo=tmp_path)


def test_harden_names_missing_macro_views(tmp_path):
    from pqsoc.flow import harden
    cfg = {"MACROS": {"acc": {"gds": ["dir::gds/acc.gds"], "lef": ["dir::lef/acc.lef"], "nl": []},
                      "sram": {"gds": ["pdk_dir::x.gds"], "lef": ["pdk_dir::x.lef"]}}}
    path = tmp_path / "config.json"
    path.write_text(json.dumps(cfg))
    (tmp_path / "lef").mkdir()
    (tmp_path / "lef" / "acc.lef").write_text("")
    assert harden.missing_macro_views(path) == ["acc gds gds/acc.gds"]


# --- the wrapper's SDC: Caravel's, for LibreLane -------------------------------------------------
def test_wrapper_sdc_is_caravels_with_io_sync_set():
    """Every constraint of Caravel's base SDC that reads no variable is in ours unchanged; IO_SYNC
    (LibreLane has none) is Caravel's example's 0; the OpenLane 1 variables are gone; the wrapper
    config names the file for place-and-route and signoff."""
    from pqsoc.flow import caravel
    base = (caravel.caravel_root() / caravel_openlane.BASE_SDC).read_text()
    ours = caravel_openlane.wrapper_sdc()
    fixed = [ln for ln in base.splitlines() if ln.strip() and "::env" not in ln and "DRIVING_CELL" not in ln]
    assert len(fixed) > 60 and all(ln in ours.splitlines() for ln in fixed)
    assert re.search(r"^set io_sync 0$", ours, re.M) and ours.count("$io_sync") == 2
    assert "IO_SYNC)" not in ours and "SYNTH_" not in ours
    assert "set_timing_derate -late [expr {1+($::env(TIME_DERATING_CONSTRAINT) / 100.0)}]" in ours
    cfg = caravel_openlane.wrapper_config()
    want = "dir::" + str(Path("..", "..", caravel_openlane.WRAPPER_SDC.relative_to(REPO)))
    assert cfg["SIGNOFF_SDC_FILE"] == want
    # finding 13 (#35): place-and-route reads the SDC without clock propagation (LibreLane keeps
    # the clocks ideal before CTS); signoff's propagates them
    assert cfg["PNR_SDC_FILE"] == "dir::" + str(Path("..", "..", caravel_openlane.WRAPPER_PNR_SDC.relative_to(REPO)))
    pnr = caravel_openlane.pnr_sdc(ours)
    assert ours.count("set_propagated_clock") == 2 and "set_propagated_clock" not in pnr
    assert [ln for ln in ours.splitlines() if "propagated" not in ln and not ln.startswith("#")] == \
        [ln for ln in pnr.splitlines() if not ln.startswith("#")]


def test_wrapper_sdc_refuses_a_changed_caravel_file(monkeypatch, tmp_path):
    from pqsoc.flow import caravel
    root = tmp_path / "caravel"
    for rel in (caravel_openlane.BASE_SDC, caravel.EXAMPLE_CONFIG):
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text((caravel.caravel_root() / rel).read_text())
    monkeypatch.setattr(caravel, "caravel_root", lambda: root)
    sdc = root / caravel_openlane.BASE_SDC
    sdc.write_text(sdc.read_text() + "set_load $::env(SYNTH_CAP_LOAD) [all_outputs]\n")
    with pytest.raises(FlowError, match="reads SYNTH_CAP_LOAD, which LibreLane does not define"):
        caravel_openlane.wrapper_sdc()
    sdc.write_text(sdc.read_text().replace("if { $::env(IO_SYNC) }", "if { 0 }", 1))
    with pytest.raises(FlowError, match=r"has 1 `\$::env\(IO_SYNC\)`, this generator expects 2"):
        caravel_openlane.wrapper_sdc()


@pytest.mark.skipif(shutil.which("sta") is None, reason="OpenSTA not installed")
def test_wrapper_sdc_reads_in_opensta(monkeypatch, loader_root, tmp_path):
    """OpenSTA reads the wrapper SDC against a gate-level netlist of the wrapper (its glue on sky130
    cells, the SoC a black box: not a timing run) with the values LibreLane resolves for the
    wrapper's configuration: no error or warning, clock clk on wb_clk_i. A port the wrapper lacks
    is caught."""
    sdc_vars = caravel_openlane.sdc_variables(caravel_openlane.wrapper_sdc())
    monkeypatch.setattr(openlane, "KEY_VARIABLES", tuple(sdc_vars))
    resolved = openlane.check(blocks.get("caravel"), loader_root)
    env = {k: " ".join(resolved[k]) if isinstance(resolved[k], list) else str(resolved[k]) for k in sdc_vars}
    assert env["CLOCK_PORT"] == "wb_clk_i" and float(env["CLOCK_PERIOD"]) == 20.0
    fresh = tmp_path / "wrapper.sdc"       # what wrapper_sdc() makes now
    fresh.write_text(caravel_openlane.wrapper_sdc())
    problems, log = caravel_openlane.check_wrapper_sdc(fresh, env, tmp_path)
    assert problems == [], log[-3000:]
    assert "Creating clock {clk} for port wb_clk_i" in log
    # user_clock2 constrained too (no warning above: its port and Caravel's usr_* figures exist)
    assert re.search(r"^create_clock \[get_ports \{user_clock2\}\] -name usr_clk", fresh.read_text(), re.M)
    bad = tmp_path / "bad.sdc"
    bad.write_text(caravel_openlane.WRAPPER_SDC.read_text()
                   + "set_input_delay 1 -clock [get_clocks {clk}] [get_ports {io_in_typo[*]}]\n")
    problems, _ = caravel_openlane.check_wrapper_sdc(bad, env, tmp_path)
    assert any("io_in_typo" in p for p in problems), problems
    with pytest.raises(FlowError, match="no value for the SDC's variables CLOCK_PERIOD"):
        caravel_openlane.check_wrapper_sdc(caravel_openlane.WRAPPER_SDC,
                                           {k: v for k, v in env.items() if k != "CLOCK_PERIOD"}, tmp_path)
