# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""The first real `make harden` (issue #35): each finding of the review that would stop it before
or after place-and-route has a test here, named by its number. Each fails on the state the review
found and passes on the fix; the larger checks it names (pdngen's rules, power reach, routing
capacity, LibreLane's own lint and synthesis front end) have their own modules and are run by
`pqsoc pnr check`."""
import json
import os
import shutil
import stat
import subprocess
from pathlib import Path

import pytest

from pqsoc import REPO
from pqsoc.flow import harden
from pqsoc.flow.pdk import installed_rev, open_pdks_rev


# --- finding 1: the Nix shell ------------------------------------------------------------------
def _flake(attr: str):
    """An attribute of flake.nix, evaluated by Nix itself without fetching any input."""
    if shutil.which("nix-instantiate") is None:
        pytest.fail("nix-instantiate is missing (apt package nix-bin, tools/setup.sh)")
    r = subprocess.run(["nix-instantiate", "--eval", "--strict", "--json", "-E",
                        f"(import {REPO / 'flake.nix'}).{attr}"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def test_1_flake_follows_an_input_it_has():
    """`nixpkgs.follows` must name a path through inputs the flake (and, one level down, the
    LibreLane flake: its `nix-eda` input, which has `nixpkgs`) declares; OpenLane 2.3.10's flake
    has no `nixpkgs` input, so `openlane2/nixpkgs` failed before any build."""
    inputs = _flake("inputs")
    follows = inputs["nixpkgs"]["follows"].split("/")
    assert follows[0] in inputs and "url" in inputs[follows[0]]
    assert follows == ["librelane", "nix-eda", "nixpkgs"]   # LibreLane 3.0's flake.nix inputs


def test_1_flake_names_the_binary_cache():
    cfg = _flake("nixConfig")
    assert "https://nix-cache.fossi-foundation.org" in cfg["extra-substituters"]
    assert any(k.startswith("nix-cache.fossi-foundation.org:") for k in cfg["extra-trusted-public-keys"])


# --- finding 2: the tool and the PDK revision ----------------------------------------------------
def test_2_flake_pins_the_librelane_that_checks_the_configs():
    url = _flake("inputs")["librelane"]["url"]
    assert url == f"github:librelane/librelane/{harden.pinned_version('librelane')}"
    assert "openlane2" not in (REPO / "flake.nix").read_text()


def test_2_harden_runs_librelanes_console_script_on_the_pinned_pdk(tmp_path):
    from importlib.metadata import entry_points
    scripts = {e.name for e in entry_points(group="console_scripts") if e.value.startswith("librelane")}
    assert harden.FLOW_TOOL in scripts
    cmd = harden.command(Path("pnr/caravel/config.json"), tmp_path)
    assert cmd[0] == "librelane" and "--manual-pdk" in cmd
    assert cmd[cmd.index("--pdk-root") + 1] == str(tmp_path)


def test_2_one_open_pdks_revision():
    """The revision setup installs, harden requires and tapeout.json states is LibreLane's own."""
    import yaml
    import librelane
    hashes = yaml.safe_load((Path(librelane.__file__).parent / "pdk_hashes.yaml").read_text())
    assert open_pdks_rev() == hashes["sky130"]
    assert json.loads((REPO / "tapeout.json").read_text())["pdk"]["open_pdks_rev"] == hashes["sky130"]
    for path in ("pqsoc/flow/pdk.py", "pqsoc/cli/tapeout.py", "pqsoc/flow/report.py", "README.md"):
        assert "0fe599b2afb6708d281543108caf8310912f54af" not in (REPO / path).read_text(), path


def _stub(folder: Path, name: str, text: str) -> None:
    p = folder / name
    p.write_text("#!/bin/sh\n" + text + "\n")
    p.chmod(p.stat().st_mode | stat.S_IEXEC)


def _pdk(root: Path, rev: str) -> Path:
    (root / "sky130A").mkdir(parents=True)
    (root / "sky130A" / "SOURCES").write_text(f"skywater-pdk abc\nopen_pdks {rev}\n")
    return root


@pytest.mark.parametrize("version, rev, expect", [
    ("3.0.17", None, []),
    ("3.0.10", None, ["is LibreLane 3.0.10"]),
    ("3.0.17", "0" * 40, ["open_pdks " + "0" * 40]),
])
def test_2_preflight_refuses_another_librelane_or_pdk(tmp_path, monkeypatch, version, rev, expect):
    bin_ = tmp_path / "bin"
    bin_.mkdir()
    for t in harden.NEEDED_TOOLS:
        _stub(bin_, t, f"echo 'LibreLane v{version}'")
    monkeypatch.setenv("PATH", str(bin_))
    monkeypatch.setattr(harden, "pinned_version", lambda p: "3.0.17")
    problems = harden.preflight(_pdk(tmp_path / "pdk", rev or open_pdks_rev()))
    assert len(problems) == len(expect) and all(e in p for e, p in zip(expect, problems)), problems


def test_2_preflight_without_openroad_says_where_it_runs(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))
    [problem] = harden.preflight(tmp_path)
    assert "librelane, openroad" in problem and "nix develop" in problem


def test_installed_rev_reads_open_pdks_sources(tmp_path):
    assert installed_rev(_pdk(tmp_path, "ab" * 20)) == "ab" * 20
    assert installed_rev(tmp_path / "none") is None


# --- finding 3: `make setup` inside the Nix shell -----------------------------------------------
def test_3_setup_in_the_nix_shell_runs_no_apt(tmp_path, pdk_root, caravel_root):
    """tools/setup.sh with IN_NIX_SHELL set: apt-get and dpkg-query (stubs that fail and leave a
    mark) are never called; the venv and PDK steps still run."""
    bin_ = tmp_path / "bin"
    bin_.mkdir()
    mark = tmp_path / "apt_called"
    for t in ("apt-get", "dpkg-query", "sudo"):
        _stub(bin_, t, f"echo {t} >> {mark}; exit 1")
    env = {**os.environ, "IN_NIX_SHELL": "impure", "PATH": f"{bin_}:{os.environ['PATH']}",
           "PDK_ROOT": str(pdk_root), "CARAVEL_ROOT": str(caravel_root)}
    r = subprocess.run(["bash", str(REPO / "tools" / "setup.sh")], env=env, capture_output=True,
                       text=True, timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr
    assert not mark.exists(), mark.read_text()
    assert "apt: skipped (Nix shell)" in r.stdout
    assert "[setup] done" in r.stdout


# --- findings 4 and 5: LibreLane's own steps before place-and-route ------------------------------
def _loaded(name: str) -> Path:
    """The configuration file LibreLane loads for block `name` (`pqsoc pnr check`'s)."""
    from pqsoc.cli import blocks
    from pqsoc.flow import openlane
    from pqsoc.flow.pdk import find_pdk
    b = blocks.get(name)
    assert openlane.prepare(b) == []
    root, _ = openlane.loader_pdk_root(find_pdk().root)
    return Path(openlane.check(b, root, find_pdk().root)["config_file"]), root


def _variant(config_file: Path, tag: str, change) -> Path:
    """A copy of a loaded configuration beside it (its `dir::` paths stay right), changed."""
    cfg = json.loads(config_file.read_text())
    change(cfg)
    out = config_file.parent / f"config_{tag}.json"
    out.write_text(json.dumps(cfg, indent=1))
    return out


def _steps(name, config_file, root, tag):
    from pqsoc.flow import prepnr
    r = prepnr.run(name, config_file, root, "sky130A", "sky130_fd_sc_hd",
                   out=config_file.parent / f"librelane_{tag}")
    return dict(r["steps"]), r


def test_4_wrapper_lints_with_its_sram_macros(pdk_root, caravel_root):
    """Verilator.Lint and its checkers on the wrapper, whose 20 SRAM macros (the CPU's and the
    ACC's, flat) have a `vh` view (a port-only header from the PDK's model): it lints clean
    (test_5 runs it); without the view (gds / lef / lib only, the state the review found)
    LibreLane's LintErrors stops the run on the unresolved SRAM instances."""
    cfg, root = _loaded("caravel")
    sram = "sky130_sram_2kbyte_1rw1r_32x512_8"
    header = json.loads(cfg.read_text())["MACROS"][sram]["vh"][0]
    assert "module sky130_sram_2kbyte_1rw1r_32x512_8 (" in Path(header).read_text() \
        if Path(header).is_absolute() else (cfg.parent / header[5:]).read_text()

    def no_vh(c):
        del c["MACROS"][sram]["vh"]
    steps, r = _steps("caravel", _variant(cfg, "no_vh", no_vh), root, "no_vh")
    assert steps["Checker.LintErrors"] == "failed" and steps["Yosys.JsonHeader"] == "not reached"
    log = (r["run_dir"] / "1-verilator-lint" / "verilator-lint.log").read_text()
    assert log.count("Cannot find file containing module") >= 16 or "sky130_sram" in log


def test_5_wrapper_reads_with_librelanes_slang_arguments(pdk_root, caravel_root):
    """Yosys.JsonHeader on the wrapper (LibreLane's script, read_slang with its arguments): Caravel's
    `include "defines.v"` resolves through the include folder; with only Ibex' folders (the state
    the review found) the step fails."""
    cfg, root = _loaded("caravel")
    steps, r = _steps("caravel", cfg, root, "ok")
    assert r["ok"], r
    assert all(state == "passed" for state in steps.values())

    def ibex_only(c):   # as it was: defines.v a source of its own, only Ibex' include folders
        ours = [d for d in c["VERILOG_INCLUDE_DIRS"] if d.rstrip("/").endswith("caravel")]
        assert len(ours) == 1
        c["VERILOG_INCLUDE_DIRS"].remove(ours[0])
        files = c["VERILOG_FILES"]
        c["VERILOG_FILES"] = [ours[0].rstrip("/") + "/defines.v", *([files] if isinstance(files, str) else files)]
    steps, r = _steps("caravel", _variant(cfg, "ibex_only", ibex_only), root, "ibex_only")
    assert steps["Checker.LintErrors"] == "passed", steps
    assert steps["Yosys.JsonHeader"] == "failed", steps
    log = next((r["run_dir"]).glob("5-yosys-jsonheader/*.log")).read_text()
    assert "defines.v" in log


# --- findings 6 and 9: pdngen's rules and the metal of a hard macro -------------------------------
def _grid(**over):
    cfg = {"PDN_VERTICAL_LAYER": "met4", "PDN_HORIZONTAL_LAYER": "met5", "PDN_MULTILAYER": True,
           "PDN_VWIDTH": 3.1, "PDN_VSPACING": 15.5, "PDN_VPITCH": 180, "PDN_VOFFSET": 5,
           "PDN_HWIDTH": 3.1, "PDN_HSPACING": 15.5, "PDN_HPITCH": 180, "PDN_HOFFSET": 5,
           "CORE_AREA": [0, 0, 1000, 1000]}
    return {**cfg, **over}


def test_6_pdngen_pitch_rule():
    """PDN-0175 (OpenROAD's straps.cpp): pitch >= 2 width + 2 spacing for a power / ground pair.
    The ACC's grid as the review found it (180 / 3.1 / 158.3) breaks it; Caravel's wrapper grid
    values hold."""
    from pqsoc.flow import pdn_rules
    assert pdn_rules.strap_problems(_grid()) == []
    [bad] = pdn_rules.strap_problems(_grid(PDN_HSPACING=158.3))
    assert "PDN_HPITCH 180" in bad and "322.8" in bad and "PDN-0175" in bad
    assert pdn_rules.strap_problems(_grid(PDN_HSPACING=158.3, PDN_MULTILAYER=False)) == []   # no met5 grid
    assert any("PDN_VOFFSET 5.002" in p for p in pdn_rules.strap_problems(_grid(PDN_VOFFSET=5.002)))
    assert any("PDN-0185" in p for p in pdn_rules.strap_problems(_grid(PDN_VOFFSET=990)))


def test_6_committed_grids_hold(pdk_root, caravel_root):
    from pqsoc.flow import pdn_rules
    for name in ("keccak", "caravel"):
        cfg, root = _loaded(name)
        from librelane.flows import Flow
        resolved = Flow.factory.get("Classic")(str(cfg), pdk_root=str(root), pdk="sky130A",
                                               scl="sky130_fd_sc_hd").config
        assert pdn_rules.strap_problems(resolved) == [], name


def test_9_hard_macro_has_no_met5():
    from pqsoc.flow import pdn_rules
    assert pdn_rules.macro_metal_problems("kmac", {"PDN_MULTILAYER": False, "RT_MAX_LAYER": "met4"}) == []
    [p] = pdn_rules.macro_metal_problems("acc", {"PDN_MULTILAYER": True, "RT_MAX_LAYER": "met4"})
    assert "PDN_MULTILAYER is true" in p
    assert pdn_rules.macro_metal_problems("x", {"PDN_MULTILAYER": False, "RT_MAX_LAYER": "met5"})


# --- findings 10, 12: signoff settings of the designs that hold SRAM macros -----------------------
def _committed(name):
    return json.loads((REPO / "pnr" / name / "config.json").read_text())


def test_10_magic_drc_reads_the_sram_abstracts():
    for name in ("caravel",):
        cfg = _committed(name)
        if "sky130_sram_2kbyte_1rw1r_32x512_8" in cfg["MACROS"]:
            assert cfg["MAGIC_DRC_USE_GDS"] is False, name


def test_12_wrapper_does_not_stop_on_psm_nodes():
    assert _committed("caravel")["ERROR_ON_PDN_VIOLATIONS"] is False


# --- finding 7: power reach of every cell row ---------------------------------------------------------
def _reach_cfg(macros, **over):
    cfg = {**_grid(PDN_VWIDTH=1.6, PDN_VSPACING=1.7, PDN_VPITCH=50, PDN_VOFFSET=10,
                   PDN_HPITCH=180, PDN_HOFFSET=5, CORE_AREA=[0, 0, 460, 1000]),
           "VDD_NETS": ["vccd1"], "GND_NETS": ["vssd1"], "FP_MACRO_HORIZONTAL_HALO": 10,
           "FP_MACRO_VERTICAL_HALO": 10, "PDN_HORIZONTAL_HALO": 10, "PDN_VERTICAL_HALO": 10,
           "PDN_CORE_RING": False, "PDN_EXTEND_TO": "core_ring",
           "MACROS": {"m": {"instances": {f"m{k}": {"location": [x, y], "orientation": "N"}
                                          for k, (x, y) in enumerate(macros)}}}}
    return {**cfg, **over}


def test_7_rows_between_shelves_without_a_met5_strap_are_unpowered():
    """Two shelves of wall-to-wall macros (met1-met4 obstructed) leave a 60 um channel that no met5
    strap crosses (pitch 180): its rows have no path to power; the rows above the top shelf do."""
    from pqsoc.flow import pdn_rules
    sizes = {"m": (460, 300)}
    cfg = _reach_cfg([(0, 100), (0, 460)])        # channel y 400 .. 460, straps at 5 + 180 k
    r = pdn_rules.power_reach(cfg, sizes)
    ys = {u[0] for u in r["unpowered"]}
    assert ys and all(400 < y < 460 for y in ys) and r["unpowered_um2"] > 0
    assert not any(y > 770 for y in ys)
    # the same channel moved over a strap pair (y 365 / 383.6 in 360 .. 440): powered
    r = pdn_rules.power_reach(_reach_cfg([(0, 40), (0, 440)], PDN_HOFFSET=5, PDN_HSPACING=15.5), sizes)
    assert not any(360 < u[0] < 440 for u in r["unpowered"]), r["unpowered"][:3]


def test_7_columns_open_to_the_core_ring_are_powered():
    from pqsoc.flow import pdn_rules
    sizes = {"m": (200, 300)}
    cfg = _reach_cfg([(0, 100)], CORE_AREA=[0, 0, 460, 420], PDN_HOFFSET=400)   # no met5 strap below y 400
    assert any(u[0] < 90 for u in pdn_rules.power_reach(cfg, sizes)["unpowered"])
    ringed = pdn_rules.power_reach({**cfg, "PDN_CORE_RING": True}, sizes)
    assert not any(u[0] < 90 for u in ringed["unpowered"])


def test_7_met4_only_macro_is_powered_from_above():
    from pqsoc.flow import pdn_rules
    r = pdn_rules.power_reach(_reach_cfg([(0, 100), (0, 460)], PDN_MULTILAYER=False), {"m": (460, 300)})
    assert r["unpowered"] == [] and r["from_above"]


# --- findings 8 and 11: the routing-capacity estimate ---------------------------------------------------
_ROUTING = {"li1": ("VERTICAL", 0.46), "met1": ("HORIZONTAL", 0.34), "met2": ("VERTICAL", 0.46),
            "met3": ("HORIZONTAL", 0.68), "met4": ("VERTICAL", 0.92), "met5": ("HORIZONTAL", 3.4)}
_GRT = {"RT_MIN_LAYER": "met1", "RT_MAX_LAYER": "met4", "GRT_ADJUSTMENT": 0.3,
        "GRT_LAYER_ADJUSTMENTS": [0.99, 0, 0, 0, 0, 0]}


def test_8_tracks_per_micron_follow_the_tech_and_the_router_adjustment():
    from pqsoc.flow import route_capacity as rc
    assert abs(rc.tracks_per_um(_ROUTING, _GRT, "VERTICAL") - 0.7 * (1 / 0.46 + 1 / 0.92)) < 1e-9
    assert abs(rc.tracks_per_um(_ROUTING, {**_GRT, "RT_MAX_LAYER": "met5"}, "HORIZONTAL")
               - 0.7 * (1 / 0.34 + 1 / 0.68 + 1 / 3.4)) < 1e-9


def test_8_nets_through_a_shelf_gap():
    """A shelf of macros wall to wall but a 20 um gap, 500 nets from macros below it to cells above
    it: over capacity (20 um x 3.26 tracks/um x 0.7 = 46 tracks); with a 500 um gap it passes."""
    from pqsoc.flow import route_capacity as rc
    from pqsoc.flow.floorplan import Rect
    core = Rect(0, 0, 1000, 1000)
    rows_above = [(y, 0.0, 1000.0) for y in range(700, 1000, 3)]

    def run(gap):
        shelf = {"a": Rect(0, 400, 500 - gap / 2, 600), "b": Rect(500 + gap / 2, 400, 1000, 600),
                 "low": Rect(300, 100, 700, 300)}
        nets = [rc.Nets(rc.Endpoint("low N", (500, 300)), rc.ROWS, 500)]
        return {ln["line"].split(" through ")[1]: ln for ln in
                rc.estimate(core, shelf, rows_above, 3.0, nets, _ROUTING, _GRT)}
    tight = run(20)
    line = next(v for k, v in tight.items() if v["axis"] == "y" and v["at"] == 500)
    assert line["demand"] == 500 and 40 < line["capacity"] < 50 and not line["ok"]
    assert line["crossing"] == {"low N - cells": 500}
    wide = run(500)
    assert all(v["ok"] for v in wide.values() if v["axis"] == "y" and v["at"] == 500)


def test_11_point_to_point_nets_cross_only_between_their_ends():
    """600 nets from below a wall to above it, both ends at x = 100: they take the wall's one gap
    (its east end, 10 um: 23 tracks, over) and bend there, so the vertical line through the wall's
    middle is crossed twice, once below the wall and once above it; a vertical line west of both
    ends is not crossed."""
    from pqsoc.flow import route_capacity as rc
    from pqsoc.flow.floorplan import Rect
    core = Rect(0, 0, 1000, 1000)
    bodies = {"wall": Rect(0, 480, 990, 520), "post": Rect(40, 700, 60, 720)}
    a, b = rc.Endpoint("acc S", (100, 900)), rc.Endpoint("kmac N", (100, 100))
    lines = rc.estimate(core, bodies, [], 2.72, [rc.Nets(a, b, 600)], _ROUTING, _GRT)
    h = next(ln for ln in lines if ln["axis"] == "y" and ln["at"] == 500)
    assert h["demand"] == 600 and not h["ok"] and h["segment"] == [990, 1000]
    v = next(ln for ln in lines if ln["axis"] == "x" and ln["at"] == 495)
    assert v["demand"] == 600 and v["segments"] == 2           # 600 in each of its two segments
    west = next(ln for ln in lines if ln["axis"] == "x" and ln["at"] == 50)
    assert west["demand"] == 0


def test_11_a_full_gap_spills_into_the_next_and_the_detour_is_counted():
    """A wall with two 40 um gaps (at x 300 and 700, 91 tracks each, 45.7 at the margin) and 80 nets
    from x 300 below it to x 300 above it: the near gap takes its 45.7, the far one the 34.3 left,
    and those run along the rows below and above the wall, so the vertical line through the wall's middle
    block carries them; with 40 nets the near gap takes all and nothing runs along."""
    from pqsoc.flow import route_capacity as rc
    from pqsoc.flow.floorplan import Rect
    core = Rect(0, 0, 1000, 1000)
    bodies = {"w0": Rect(0, 480, 280, 520), "w1": Rect(320, 480, 680, 520), "w2": Rect(720, 480, 1000, 520)}
    lo, hi = rc.Endpoint("pins", (300, 0)), rc.Endpoint("logic", (300, 1000))

    def run(n):
        lines = rc.estimate(core, bodies, [], 2.72, [rc.Nets(lo, hi, n)], _ROUTING, _GRT)
        return (next(ln for ln in lines if ln["axis"] == "y"),
                next(ln for ln in lines if ln["axis"] == "x" and ln["at"] == 500))
    room = rc.MARGIN * 40 * rc.tracks_per_um(_ROUTING, _GRT, "VERTICAL")     # 45.7 nets a gap
    h, v = run(80)
    assert h["ok"] and h["demand"] == round(room)        # the worst gap: full to the margin
    assert v["demand"] == round(80 - room)
    h, v = run(40)
    assert h["ok"] and h["demand"] == 40 and v["demand"] == 0


def test_11_wrapper_routing_is_the_flat_floorplans(pdk_root, caravel_root):
    """The wrapper's routing estimate (`pqsoc pnr check`) routes the flat floorplan's nets on the
    places the configuration gives the SRAMs: every SRAM pin edge to the band it faces, Caravel's
    pins that reach the SoC to the CPU's logic, and the nets between the owners' logic (the
    ACC's and the KMAC's ports but the side-load, which runs from the datapath's logic to the
    KMAC's). Every
    channel holds; Caravel's Wishbone (under the bottom shelf's west end) fills the nearest gaps of
    the bottom shelf and runs east along the pin band to the next ones, counted there."""
    from pqsoc.cli.pnr import route_estimate
    from soc import caravel as caravel_soc
    from soc import caravel_openlane, flat_floorplan
    lines = route_estimate()
    ctx, st = caravel_openlane.checked_plan()
    assert all(ln["ok"] for ln in lines), [ln for ln in lines if not ln["ok"]]
    bottom = min(pl.y for pl in st["fp"].placements.values())
    along = [ln for ln in lines if ln["axis"] == "x" and ln["segment"][1] <= bottom + 1e-6
             and any(k.startswith("pin wbs_") for k in ln["crossing"])]
    assert along, "no Wishbone net runs along the pin band"
    nets = flat_floorplan.nets(ctx, st["fp"], st["bands"], flat_floorplan.SIDELOAD_NETS,
                               ctx.port_bits["acc"], ctx.port_bits["kmac"])
    between = {(n.a.name, n.b.name): n.count for n in nets if n.a.name.endswith(" logic")}
    assert between == {("control logic", "datapath logic"): flat_floorplan.CONTROL_DATAPATH_NETS,
                       ("cpu logic", "control logic"): ctx.port_bits["acc"] - flat_floorplan.SIDELOAD_NETS,
                       ("cpu logic", "kmac logic"): ctx.port_bits["kmac"] - flat_floorplan.SIDELOAD_NETS,
                       ("datapath logic", "kmac logic"): flat_floorplan.SIDELOAD_NETS}
    assert sum(n.count for n in nets if n.a.name.startswith("pin ")) == len(caravel_soc.used_pins())
    assert sum(n.count for n in nets if n.a.name.split()[0] in st["fp"].placements) == 20 * 91


# --- deliverable 5: the verdicts kept for tapeout.json -----------------------------------------------
def test_pnr_check_json_keeps_every_verdict(tmp_path, pdk_root, capsys):
    from pqsoc.cli import main
    out = tmp_path / "pnr_check.json"
    assert main(["pnr", "check", "keccak", "--json", str(out)]) == 0
    data = json.loads(out.read_text())
    checks = {c["check"]: c["ok"] for c in data["blocks"]["keccak"]["checks"]}
    assert data["blocks"]["keccak"]["ok"] and all(checks.values())
    assert {"LibreLane config loader", "pdngen strap rules", "LibreLane Verilator.Lint",
            "LibreLane Yosys.JsonHeader", "LibreLane OpenROAD.CheckSDCFiles"} <= set(checks)
    assert "LVS" in data["only_a_real_run"] and data["provenance"]["commit"]


# --- LibreLane's own synthesis, up to the OpenROAD boundary -----------------------------------------
def test_pnr_check_synth_runs_librelanes_synthesis_and_reports_its_area(tmp_path, pdk_root, capsys):
    """`--synth`: Yosys.Synthesis and its three checkers run (the Classic flow's first ten steps);
    the netlist's area is reported beside `pqsoc synth`'s (the figure the plans use). Keccak's
    under DELAY 1 is larger than ours: the check reports it, and the number is LibreLane's own
    (its reports/stat.json), not ours."""
    from pqsoc.cli import main
    from pqsoc.flow import prepnr
    out = tmp_path / "pnr_check.json"
    assert main(["pnr", "check", "keccak", "--synth", "--json", str(out)]) == 0
    checks = {c["check"]: c for c in json.loads(out.read_text())["blocks"]["keccak"]["checks"]}
    for step in prepnr.SYNTH_STEPS:
        assert checks[f"LibreLane {step}"]["ok"], step
    stat = json.loads(next((REPO / "build" / "pnr_check" / "keccak" / "librelane").glob(
        "*-yosys-synthesis/reports/stat.json")).read_text())["design"]
    detail = checks["LibreLane synthesis area"]["detail"]
    assert detail.startswith(f"{stat['num_cells']} cells, {float(stat['area']):.0f} um2")


def test_the_wrapper_s_synthesis_area_is_checked_against_the_floorplan(pdk_root, caravel_root):
    """The wrapper's LibreLane area, minus its SRAM macros, scales every owner's logic in the flat
    floorplan study: the planned area fits (the committed plan), 40 % more does not. Figures as
    prepnr.synth_area gives them (here made from the planned logic, not a 40-minute synthesis)."""
    from pqsoc.cli.pnr import synth_area_check
    from pqsoc.flow import floorplan as fpm
    from pqsoc.flow.pdk import find_pdk
    from soc import caravel_floorplan as cf
    logic, _, _ = cf.logic_figures()
    sram = "sky130_sram_2kbyte_1rw1r_32x512_8"
    lef = fpm.read_lef(find_pdk().sram(sram, "lef"))
    macros = 20 * lef.w * lef.h

    def figures(scale, with_lib=True):
        return {"cells": 1, "area_um2": sum(logic.values()) * scale + (macros if with_lib else 0.0),
                "cells_by_type": {sram: 20}, "invocation": f"stat -liberty {sram}.lib" if with_lib else "stat"}
    ok, detail = synth_area_check("caravel", figures(1.0))
    assert ok and "+0.0%" in detail and "fits" in detail
    ok, detail = synth_area_check("caravel", figures(1.0, with_lib=False))
    assert ok and "+0.0%" in detail
    ok, detail = synth_area_check("caravel", figures(1.4))
    assert not ok and "+40.0%" in detail and "does NOT fit" in detail
