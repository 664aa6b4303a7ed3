# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""The generic floorplan (pqsoc/flow/floorplan.py) and Caravel's wrapper as read from CARAVEL_ROOT
(pqsoc/flow/caravel.py): LEF facts, the placer's output passes the checker, and the checker
reports every seeded violation."""
import dataclasses

import pytest

from pqsoc import FlowError
from pqsoc.flow import caravel
from pqsoc.flow import floorplan as fpm
from pqsoc.flow.pdk import SCL, find_pdk

SRAM2K = "sky130_sram_2kbyte_1rw1r_32x512_8"
SRAM1K = "sky130_sram_1kbyte_1rw1r_32x256_8"
SITE, ROW, GRID = 0.46, 2.72, 0.005


@pytest.fixture(scope="module")
def sram(pdk_root):
    return fpm.read_lef(find_pdk().sram(SRAM2K, "lef"))


@pytest.fixture(scope="module")
def tech(pdk_root):
    return fpm.read_tech_lef(find_pdk().base / "libs.ref" / SCL / "techlef" / f"{SCL}.tlef")


def test_sram_lef_pins_and_power(pdk_root):
    """The facts the plan rests on, from the LEFs: control pins on met3 at the left/right edges,
    data pins on met4 at the bottom/top edges, vccd1/vssd1 as met4 rails along both sides."""
    for cell, size in ((SRAM2K, (683.1, 416.54)), (SRAM1K, (479.78, 397.5))):
        a = fpm.read_lef(find_pdk().sram(cell, "lef"))
        assert (a.w, a.h) == size
        edges = a.edge_pins()
        assert set(edges) == {"W", "E", "S", "N"}
        assert set(edges["W"]) == set(edges["E"]) == {"met3"} and set(edges["S"]) == set(edges["N"]) == {"met4"}
        w_pins = {p.name.split("[")[0] for p in a.pins if a.edge_of(p.rect) == "W"}
        assert {"csb0", "web0"} <= w_pins
        assert {p.name.split("[")[0] for p in a.pins if a.edge_of(p.rect) == "S"} >= {"din0", "dout0"}
        for net in ("vccd1", "vssd1"):
            rails = [p.rect for p in a.power if p.name == net and p.layer == "met4"]
            assert len(rails) == 2 and all(r.h > 0.95 * a.h and r.w < 2 for r in rails)
    a = fpm.read_lef(find_pdk().sram(SRAM2K, "lef"))
    assert a.edge_pins()["S"]["met4"] == 72 and a.edge_pins()["N"]["met4"] == 35


def test_tech_lef_and_channel_widths(sram, tech):
    assert tech["manufacturing_grid"] == GRID and tech["sites"]["unithd"] == (SITE, ROW)
    assert tech["routing"]["met3"] == ("HORIZONTAL", 0.68) and tech["routing"]["met4"] == ("VERTICAL", 0.92)
    ch = fpm.channel_widths(sram, tech["routing"], "met4", 0.5, 10.0)
    # 72 pins along the bottom edge on met1 + met3 (1/0.34 + 1/0.68 tracks per um), half of them usable
    assert ch["S"] == pytest.approx(72 / ((1 / 0.34 + 1 / 0.68) * 0.5), abs=0.1)
    assert ch["N"] < ch["S"] and ch["W"] == ch["E"] == 10.0
    with pytest.raises(FlowError, match="met9"):
        fpm.channel_widths(sram, tech["routing"], "met9", 0.5, 10.0)


def _base(sram, count=2, logic=0.2e6):
    """A legal floorplan from the placer: `count` SRAMs in a 1700 x 1400 um core, straps of
    Caravel's geometry (3.1 um at 180 um, vccd1 then vssd1 18.6 um above)."""
    core = fpm.Rect(5.52, 10.88, 5.52 + 3700 * SITE, 10.88 + 520 * ROW)
    ch = {"S": 32.7, "N": 15.9, "W": 10.0, "E": 10.0}
    macros = [fpm.Macro(f"m{k}", sram, 10.0, ch, face="S") for k in range(count)]
    pl = fpm.place_shelves(core, macros, SITE, ROW, "S")
    straps = fpm.horizontal_straps("met5", ("vccd1", "vssd1"), 3.1, 15.5, 180, 5, core)
    fp = fpm.Floorplan("t", fpm.Rect(0, 0, core.x1 + 5.52, core.y1 + 10.88), core, SITE, ROW, GRID,
                       {m.name: m for m in macros}, pl, logic, 0.45, straps=straps,
                       pin_layers=("met2", "met3", "met4"))
    return fpm.fill_rows(fp)


def _failed(fp):
    return {r["name"]: r["detail"] for r in fpm.check(fp) if not r["ok"]}


def test_placer_output_passes_every_check(sram):
    fp = _base(sram)
    assert _failed(fp) == {}
    p = fp.placements
    assert p["m0"].orient == "FS" and p["m1"].orient == "FS"   # port 0's 72 pins face the rows above
    assert p["m0"].y == p["m1"].y and p["m1"].x > p["m0"].x + sram.w
    s = fpm.summary(fp, fpm.check(fp))
    assert s["fits"] and 0 < s["utilisation"] < 0.45
    assert all(c["ok"] for c in s["channels"]) and len(s["channels"]) == 8


def test_checker_reports_seeded_violations(sram):
    fp = _base(sram)
    m0, m1 = fp.placements["m0"], fp.placements["m1"]
    r0 = m0.rect(sram)
    cases = {
        "overlap": (fpm.moved(fp, dataclasses.replace(m1, x=m0.x + 100 * SITE)), "no_overlap", "m0 overlaps m1"),
        "halo": (fpm.moved(fp, dataclasses.replace(m1, x=round(r0.x1 + 5 * SITE, 4), y=m0.y)),
                 "no_overlap", "inside the halo"),
        "off_grid": (fpm.moved(fp, dataclasses.replace(m1, x=m1.x + 0.1)), "on_grid", "m1 at"),
        "off_row": (fpm.moved(fp, dataclasses.replace(m1, y=m1.y + 1.0)), "on_grid", "off the placement grid"),
        "rotated": (fpm.moved(fp, dataclasses.replace(m1, orient="R90")), "orientation", "m1 is placed R90"),
        # 12 um between two control-pin edges: clear of both halos, but each needs its channel
        "pin_edge_against_macro": (fpm.moved(fp, dataclasses.replace(m1, x=round(r0.x1 + 26 * SITE, 4), y=m0.y)),
                                   "pin_channels", "m0 E edge (met3 pins)"),
        "pin_edge_against_core": (fpm.moved(fp, dataclasses.replace(m0, x=fp.core.x0)),
                                  "pin_channels", "m0 W edge (met3 pins) has 0.0 um to core edge"),
        "outside_core": (fpm.moved(fp, dataclasses.replace(m1, y=fp.core.y1 - 100 * ROW)),
                         "inside_core", "m1 at"),
        "unpowered": (dataclasses.replace(fp, straps=fpm.Straps("met5", {"vccd1": fp.straps.by_net["vccd1"]})),
                      "power", "m0 vssd1 pin at"),
        "too_little_cell_area": (dataclasses.replace(fp, logic_um2=5e6), "utilisation", "above 45%"),
        "row_under_macro": (dataclasses.replace(fp, rows=fp.rows + [(m0.y + 10 * ROW, r0.x0, r0.x1)]),
                            "cell_rows", "crosses m0"),
        "unplaced": (dataclasses.replace(fp, placements={"m0": m0}), "placed", "m1 has no placement"),
    }
    for case, (bad, check, message) in cases.items():
        failed = _failed(bad)
        assert check in failed, f"{case}: {check} not reported ({failed})"
        assert message in failed[check], f"{case}: {failed[check]!r}"


def test_halo_per_direction(sram):
    """A macro's horizontal halo (halo_x, LibreLane's FP_MACRO_HORIZONTAL_HALO) cuts rows and
    keeps cells off its west and east sides, the vertical one its south and north; the OpenLane
    variables carry each; the gap two side-by-side macros need is their channels or halo_x."""
    from pqsoc.flow import openlane
    ch = {"S": 32.7, "N": 15.9, "W": 10.0, "E": 10.0}
    m = fpm.Macro("m0", sram, 16.0, ch, face="S", halo_x=10.0)
    body = fpm.Rect(100, 200, 100 + sram.w, 200 + sram.h)
    assert m.keepout(body).as_list() == [90.0, 184.0, round(110 + sram.w, 4), round(216 + sram.h, 4)]
    assert m.halo_on("E") == m.halo_on("W") == 10.0 and m.halo_on("S") == m.halo_on("N") == 16.0
    assert fpm.gap_needed(m, "N", "E", m, "N", "W") == 20.0          # the two 10 um channels
    fp = _base(sram)
    fp = fpm.fill_rows(dataclasses.replace(fp, macros={n: dataclasses.replace(x, halo=16.0, halo_x=10.0)
                                                       for n, x in fp.macros.items()}))
    r0 = fp.placements["m0"].rect(sram)
    beside = [x0 for y, x0, x1 in fp.rows if r0.y0 <= y < r0.y1 and x0 >= r0.x1]
    assert min(beside) == pytest.approx(r0.x1 + 10.0, abs=SITE)
    above = [y for y, x0, x1 in fp.rows if x0 < r0.x1 and x1 > r0.x0 and y >= r0.y1]
    assert min(above) >= r0.y1 + 16.0 - 1e-6 and min(above) < r0.y1 + 16.0 + ROW and _failed(fp) == {}
    v = openlane.floorplan_variables(fp, {SRAM2K: {"lef": ["x.lef"], "gds": ["x.gds"]}})
    assert (v["FP_MACRO_HORIZONTAL_HALO"], v["FP_MACRO_VERTICAL_HALO"]) == (10.0, 16.0)


def test_power_needs_a_strap_within_the_rail(sram):
    """Straps every 180 um cross any 416 um-high SRAM; straps 600 um apart can miss one."""
    fp = _base(sram, count=1)
    sparse = fpm.horizontal_straps("met5", ("vccd1", "vssd1"), 3.1, 15.5, 600, 500, fp.core)
    failed = _failed(dataclasses.replace(fp, straps=sparse))
    assert "crossed by no met5 vccd1 strap" in failed["power"]


def test_shelves_beyond_the_core_are_reported_not_hidden(sram):
    fp = _base(sram, count=12)          # 3 shelves of 4 do not fit 1414 um
    failed = _failed(fp)
    assert "inside_core" in failed and "pin_channels" in failed
    assert {"no_overlap", "on_grid", "orientation"}.isdisjoint(failed)


def test_size_core_is_the_lowest_that_holds_logic(sram):
    ch = {"S": 32.7, "N": 15.9, "W": 10.0, "E": 10.0}
    macros = [fpm.Macro(f"m{k}", sram, 10.0, ch, face="S") for k in range(4)]
    width = fpm.shelf_width(macros[:2], ["FS", "FS"], SITE)
    core, pl, rows = fpm.size_core(macros, 0.5e6, 0.45, SITE, ROW, width, "S", 2)
    area = sum((x1 - x0) * ROW for _, x0, x1 in rows)
    assert 0.5e6 <= 0.45 * area < 0.5e6 + 0.45 * core.w * ROW     # one row less would not do
    fp = fpm.fill_rows(fpm.Floorplan("s", core, core, SITE, ROW, GRID, {m.name: m for m in macros}, pl,
                                     0.5e6, 0.45))
    assert _failed(fp) == {}


def test_fit_in_die(sram):
    ch = {"S": 32.7, "N": 15.9, "W": 10.0, "E": 10.0}
    ok = fpm.fit_in_die("b", 1600, 1500, sram, 2, 0.2e6, 0.45, SITE, ROW, GRID, 10.0, ch)
    assert ok["fits"] and len(ok["macros"]) == 2
    bad = fpm.fit_in_die("b", 1000, 1000, sram, 6, 0.2e6, 0.45, SITE, ROW, GRID, 10.0, ch)
    assert not bad["fits"] and not {c["name"]: c["ok"] for c in bad["checks"]}["inside_core"]


def test_macro_instances_walks_the_hierarchy():
    text = """module top(input clk);
  \\top.mem  mem (.clk(clk));
  other u_other (.clk(clk));
endmodule
module \\top.mem (input clk);
  sky130_sram_2kbyte_1rw1r_32x512_8 ram_r0_c0 (.clk0(clk));
  sky130_sram_2kbyte_1rw1r_32x512_8 ram_r1_c0 (.clk0(clk));
endmodule
module other(input clk);
  sky130_sram_1kbyte_1rw1r_32x256_8 small (.clk0(clk));
endmodule
"""
    found = fpm.macro_instances(text, "top", (SRAM2K, SRAM1K))
    assert found == [("mem.ram_r0_c0", SRAM2K), ("mem.ram_r1_c0", SRAM2K), ("u_other.small", SRAM1K)]
    with pytest.raises(FlowError, match="module nope"):
        fpm.macro_instances(text, "nope", (SRAM2K,))


# --- Caravel's wrapper, read from CARAVEL_ROOT ---------------------------------------------------
def test_wrapper_from_caravel_files(caravel_root):
    w = caravel.wrapper(caravel_root)
    assert w.die == (0.0, 0.0, 2920.0, 3520.0)
    assert w.site_w == SITE and w.row_h == ROW and w.rt_max_layer == "met4"
    assert w.core[0] > 0 and w.core[2] < 2920 and w.core[1] > 0 and w.core[3] < 3520
    v, h = w.pdn.vertical, w.pdn.horizontal
    assert (v.layer, h.layer) == ("met4", "met5")
    assert (v.width, v.pitch, h.width, h.pitch) == (3.1, 180.0, 3.1, 180.0)
    assert (w.pdn.ring_width, w.pdn.ring_offset) == (3.1, 12.45)
    assert w.pdn.nets[:2] == ("vccd1", "vssd1")


def test_strap_model_matches_the_golden_wrapper_lef(caravel_root):
    """The straps computed from the .tcl settings are where ChipFoundry's wrapper LEF has them."""
    w = caravel.wrapper(caravel_root)
    for net in ("vccd1", "vssd1", "vdda2"):
        lef = caravel.lef_straps(caravel_root, net)
        for d, layer, lo, hi in (("v", "met4", w.core[0], w.core[2]), ("h", "met5", w.core[1], w.core[3])):
            assert w.pdn.strap_centres(net, d) == [c for c in lef[layer] if lo <= c <= hi], (net, layer)


def test_caravel_root_missing_or_wrong(monkeypatch, tmp_path):
    monkeypatch.delenv("CARAVEL_ROOT", raising=False)
    with pytest.raises(FlowError, match="CARAVEL_ROOT is not set"):
        caravel.wrapper()
    monkeypatch.setenv("CARAVEL_ROOT", str(tmp_path))
    with pytest.raises(FlowError, match="not a caravel_user_project checkout"):
        caravel.wrapper()


def test_tcl_settings(tmp_path):
    a, b = tmp_path / "a.tcl", tmp_path / "b.tcl"
    a.write_text("# comment\nset ::env(W) 3.1\nset ::unit 2\nset ::env(P) 180\n")
    b.write_text("set ::env(S) [expr 5*$::env(W)]\nset ::env(E) [expr 2*$::unit]\n"
                 "set ::env(N) [list {vccd1} {vccd2}]\nset ::env(D) \"0 0 10 20\"\n"
                 "set ::env(T) $::env(DESIGN_DIR)/x.def\nset ::env(P) 90\n")
    env = caravel.read_tcl_env([a, b])
    assert env["S"] == pytest.approx(15.5) and env["E"] == 4 and env["N"] == ["vccd1", "vccd2"]
    assert env["D"] == "0 0 10 20" and env["P"] == 90 and env["T"].endswith("/x.def")
    b.write_text("set ::env(S) [expr 5*$::env(MISSING)]\n")
    with pytest.raises(FlowError, match="MISSING used before it is set"):
        caravel.read_tcl_env([b])
