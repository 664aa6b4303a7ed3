# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""The local layout flow (pqsoc.flow.layout): Coriolis set up for sky130_fd_sc_hd from the PDK's
LEF files, placement + taps + fill checked with Magic's DRC, and a route that is incomplete or
not DRC-clean is reported as such, never as clean."""
import json
from pathlib import Path

import pytest

from pqsoc import FlowError
from pqsoc.flow import layout, synth
from pqsoc.flow.layout import techlef
from pqsoc.flow.pdk import find_pdk

COUNTER_V = """
module counter(input clk, input rst, input en, output reg [7:0] q);
  always @(posedge clk) if (rst) q <= 0; else if (en) q <= q + 1;
endmodule
"""

TECH_LEF = "libs.ref/sky130_fd_sc_hd/techlef/sky130_fd_sc_hd.tlef"


def test_tech_lef_facts(pdk_root):
    t = techlef.read(pdk_root / "sky130A" / TECH_LEF)
    assert t.manufacturing_grid == 0.005 and t.database_microns == 1000
    assert (t.sites["unithd"].width, t.sites["unithd"].height) == (0.46, 2.72)
    assert [r.name for r in t.routing] == ["li1", "met1", "met2", "met3", "met4", "met5"]
    met1 = t.routing_layer("met1")
    assert (met1.direction, met1.pitch, met1.offset, met1.width, met1.spacing) == \
        ("HORIZONTAL", 0.34, 0.17, 0.14, 0.14)
    li1 = t.routing_layer("li1")     # PITCH 0.46 0.34: a vertical layer's pitch is the x one
    assert (li1.direction, li1.pitch) == ("VERTICAL", 0.46)
    via = t.cut_between("met1", "met2")
    assert (via.name, via.width, via.below, via.above) == ("via", 0.15, (0.055, 0.085), (0.055, 0.085))
    with pytest.raises(FlowError, match="not adjacent"):
        t.cut_between("met1", "met3")


def test_tech_lef_refuses_bad_input(tmp_path):
    with pytest.raises(FlowError, match="not found"):
        techlef.read(tmp_path / "none.tlef")
    cell_lef = tmp_path / "cells.lef"
    cell_lef.write_text("MACRO x\n  SIZE 1 BY 2 ;\nEND x\n")
    with pytest.raises(FlowError, match="not a tech LEF"):
        techlef.read(cell_lef)
    no_spacing = tmp_path / "t.lef"
    no_spacing.write_text("SITE s\n  SIZE 1 BY 2 ;\nEND s\nLAYER m1\n  TYPE ROUTING ;\n"
                          "  DIRECTION HORIZONTAL ;\n  PITCH 1 ;\n  WIDTH 0.5 ;\nEND m1\n")
    with pytest.raises(FlowError, match="m1 lacks"):
        techlef.read(no_spacing)


ROUTING_VIEW_LEF = """\
MACRO cell_a
  SIZE 1 BY 2 ;
  PIN A
    PORT
      LAYER pwell ;
        RECT 0 0 1 1 ;
      LAYER li1 ;
        RECT 0 0 0.5 0.5 ;
    END
  END A
END cell_a
MACRO filler_without_pins
  SIZE 1 BY 2 ;
  OBS
      LAYER met1 ;
        RECT 0 0 1 0.2 ;
  END
END filler_without_pins
#--------EOF---------
"""


def test_routing_view_drops_wells_and_pinless_macros(tmp_path):
    pytest.importorskip("coriolis")
    from pqsoc.flow.layout import coriolis_tech
    src = tmp_path / "in.lef"
    src.write_text(ROUTING_VIEW_LEF)
    dst, dropped = coriolis_tech.routing_view(src, tmp_path / "out.lef", ["nwell", "pwell"])
    text = dst.read_text()
    assert dropped == ["filler_without_pins"]
    assert "pwell" not in text and "RECT 0 0 1 1" not in text
    assert "LAYER li1" in text and "RECT 0 0 0.5 0.5" in text and "MACRO cell_a" in text
    assert "filler_without_pins" not in text and text.rstrip().endswith("#--------EOF---------")


def test_pdk_facts(pdk_root):
    f = layout.pdk_facts(find_pdk())
    assert f["tap_cell"] == "sky130_fd_sc_hd__tapvpwrvgnd_1" and f["tap_distance_um"] == 13
    assert (f["power"], f["ground"], f["site"]) == ("VPWR", "VGND", "unithd")
    widths = layout.lef_macros(Path(f["cell_lef"]))
    fills = f["fill_cells"]
    assert fills[0] == "sky130_fd_sc_hd__decap_12" and "sky130_fd_sc_hd__fill_1" in fills
    assert [widths[c] for c in fills] == sorted((widths[c] for c in fills), reverse=True)


KATANA_TAIL = """\
  o  Routing did not complete, unrouted segments:
     - Track Segment Completion Ratio .......................... 91.54% [357+33]
     - Wire Length Completion Ratio .......................... 90.14% [795um+79]
[BUG] Katana has detected a loop between the following Segments:
"""


def test_katana_stats():
    s = layout.katana_stats(KATANA_TAIL)
    assert (s["segments_routed"], s["segments_unrouted"]) == (357, 33)
    assert (s["wire_length_um"], s["wire_length_unrouted_um"]) == (795.0, 79.0)
    assert s["router_loop_reports"] == 1
    assert "segments_unrouted" not in layout.katana_stats("no statistics here")


def test_magic_tech_copy_drops_the_version_requirement(tmp_path):
    tech = tmp_path / "in" / "sky130A.tech"
    tech.parent.mkdir()
    tech.write_text("tech\n format 35\n sky130A\n requires magic-8.3.111\nend\n")
    out = layout.magic_tech(tech, tmp_path).read_text()
    assert "# requires magic-8.3.111" in out and "\n requires" not in out


@pytest.fixture(scope="module")
def counter_netlist(pdk_root):
    """Synthesized once for the module's tests (the block stays registered until its end)."""
    from pqsoc.cli import blocks as blocks_mod

    def emit(out):
        out.mkdir(parents=True, exist_ok=True)
        (out / "t_layout_counter.v").write_text(COUNTER_V)
        return [out / "t_layout_counter.v"]
    blocks_mod.register(blocks_mod.Block(name="t_layout_counter", top="counter", description="test",
                                         emit=emit))
    m = synth.synth("t_layout_counter")
    yield synth.synth_dir("t_layout_counter") / "netlist.v", m
    blocks_mod.BLOCKS.pop("t_layout_counter", None)


def test_placement_taps_and_fill_are_drc_clean(counter_netlist, tmp_path):
    """Floorplan, rows, well taps, fillers and pins without routing: Magic's full DRC of the GDS
    (PDK cell layouts in place) finds nothing; a seeded met1 spacing error is found."""
    netlist, m = counter_netlist
    out = tmp_path / "placed"
    r = layout.layout_netlist("t_layout_counter", netlist, "counter", route=False, out=out)
    assert r["status"] == "placed" and r["routed"] is None
    assert r["cells"] == m["cells"] and r["taps"] >= r["rows"] and r["fillers"] > 0
    assert r["drc"]["errors"] == 0, r["drc"]
    assert 0.3 < r["utilisation"] < 0.6
    assert (out / "layout.png").stat().st_size > 10000
    # seeded error: two met1 (68/20) wires 0.05 um apart in the top cell
    import klayout.db as kdb
    lay = kdb.Layout()
    lay.read(str(out / "full.gds"))
    met1 = lay.layer(68, 20)
    top = lay.top_cell()
    top.shapes(met1).insert(kdb.DBox(5.0, 5.5, 8.0, 5.64))
    top.shapes(met1).insert(kdb.DBox(5.0, 5.69, 8.0, 5.83))
    lay.write(str(out / "seeded.gds"))
    tech = layout.magic_tech(Path(layout.pdk_facts(find_pdk())["magic_tech"]), out)
    d = layout.magic_drc(out / "seeded.gds", "counter", tech, out, 600)
    assert d["errors"] > 0 and any("met1.2" in k for k in d["by_rule"]), d


def test_route_is_never_reported_clean_unless_it_is(counter_netlist, tmp_path, monkeypatch):
    """Route + DRC of the tiny counter through `pqsoc layout`: either Coriolis gives a complete,
    DRC-clean route (status clean, exit 0), or the command exits non-zero naming the step and
    its log, and reports/layout.json says so (today: an incomplete route, see
    docs/layout_probe.md)."""
    from pqsoc.cli import main
    monkeypatch.setattr(layout, "REPORTS", tmp_path / "reports")
    monkeypatch.setattr(layout, "layout_dir", lambda name: tmp_path / name)
    rc = main(["layout", "t_layout_counter"])
    rep = json.loads((tmp_path / "reports" / "layout.json").read_text())["blocks"]["t_layout_counter"]
    assert rep["tools"]["coriolis-eda"] == "2.5.4"
    assert (tmp_path / "reports" / "layout_t_layout_counter.png").is_file()
    assert rep["cells"] > 8 and "wire_length_um" in rep and rep["drc"]["tool"] == "magic"
    if rc == 0:
        assert rep["status"] == "clean" and rep["routed"] and rep["drc"]["errors"] == 0
    else:
        assert rep["status"] in ("unrouted", "drc errors")
        assert not (rep["routed"] and rep["drc"]["errors"] == 0)
        if not rep["routed"]:
            assert rep["segments_unrouted"] > 0


def test_failing_steps_are_named(counter_netlist, tmp_path, monkeypatch):
    """A netlist Yosys cannot read fails the blif step; a PDK fact the engine cannot use (a tap
    cell that is not in the library) fails the pnr step at the step it reached; both name the
    log and leave layout.json with status failed."""
    bad = tmp_path / "bad.v"
    bad.write_text("module counter(input a, output y); mystery m(.a(a), .y(y)); endmodule\n")
    with pytest.raises(FlowError, match=r"layout step blif.*log: .*blif.log"):
        layout.layout_netlist("t_bad", bad, "counter", out=tmp_path / "bad")
    assert json.loads((tmp_path / "bad" / "layout.json").read_text())["status"] == "failed"

    netlist, _ = counter_netlist
    real = layout.pdk_facts
    monkeypatch.setattr(layout, "pdk_facts", lambda pdk: {**real(pdk), "tap_cell": "no_such_tap"})
    with pytest.raises(FlowError, match=r"layout step pnr failed at `floorplan`.*pnr.log"):
        layout.layout_netlist("t_layout_counter", netlist, "counter", out=tmp_path / "notap")
    rep = json.loads((tmp_path / "notap" / "layout.json").read_text())
    assert rep["status"] == "failed" and rep["failed_step"] == "floorplan"
