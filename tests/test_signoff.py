# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""`pqsoc signoff` on tiny hand-written layouts: two sky130_fd_sc_hd inverters and a well tap in
one unithd row, routed on met1 through L1M1_PR vias to the cells' li1 pins, met1 power rails.

- clean: every check passes (Magic DRC, KLayout DRC, KLayout's GDS of the DEF = Magic's,
  Netgen LVS, extraction + OpenSTA);
- a met1 spacing error (the output's via 0.11 um from the internal net's wire): both DRCs count
  it; KLayout's GDS of it differs from Magic's GDS of the clean one;
- a netlist with a swapped connection: LVS reports a mismatch; also read back from Magic's GDS;
- a missing tool and a missing tech file: the checks say not-run with the reason, exit non-zero.
The tools are Debian packages that `make setup` installs (tools/setup.sh): the tests need them.
"""
import json
import shutil
from pathlib import Path

import pytest

from pqsoc.cli import main as cli_main
from pqsoc.flow import signoff, signoff_check, signoff_drc, signoff_lvs, signoff_netlist, signoff_sta
from pqsoc.flow.pdk import Pdk

TOP = "tiny"


def tiny_def(drc_error: bool = False) -> str:
    """DEF (units 1000/um) of the fixture. Cell pins, from the PDK's LEF: inv_1 A is li1
    x 0.32..0.65, y 1.075..1.315; Y's upper part li1 x 0.72..1.05, y 1.485..2.465 (cell origin)."""
    y_at = (4950, 4450) if drc_error else (5025, 4800)   # drc_error: 0.11 um from n1's wire end
    return f"""\
VERSION 5.8 ;
DIVIDERCHAR "/" ;
BUSBITCHARS "[]" ;
DESIGN {TOP} ;
UNITS DISTANCE MICRONS 1000 ;
DIEAREA ( 0 0 ) ( 9200 8160 ) ;
ROW ROW_0 unithd 0 2720 N DO 20 BY 1 STEP 460 0 ;
COMPONENTS 3 ;
- u1 sky130_fd_sc_hd__inv_1 + PLACED ( 2760 2720 ) N ;
- u2 sky130_fd_sc_hd__inv_1 + PLACED ( 4140 2720 ) N ;
- tap0 sky130_fd_sc_hd__tapvpwrvgnd_1 + PLACED ( 5520 2720 ) N ;
END COMPONENTS
PINS 4 ;
- a + NET a + DIRECTION INPUT + USE SIGNAL
  + PORT + LAYER met1 ( -70 -70 ) ( 70 70 ) + PLACED ( 70 3915 ) N ;
- y + NET y + DIRECTION OUTPUT + USE SIGNAL
  + PORT + LAYER met1 ( -70 -70 ) ( 70 70 ) + PLACED ( 9130 {y_at[1]} ) N ;
- VPWR + NET VPWR + SPECIAL + DIRECTION INOUT + USE POWER
  + PORT + LAYER met1 ( -1610 -240 ) ( 1610 240 ) + FIXED ( 4370 5440 ) N ;
- VGND + NET VGND + SPECIAL + DIRECTION INOUT + USE GROUND
  + PORT + LAYER met1 ( -1610 -240 ) ( 1610 240 ) + FIXED ( 4370 2720 ) N ;
END PINS
SPECIALNETS 2 ;
- VPWR ( * VPWR ) + USE POWER
  + ROUTED met1 480 + SHAPE FOLLOWPIN ( 2760 5440 ) ( 5980 5440 ) ;
- VGND ( * VGND ) + USE GROUND
  + ROUTED met1 480 + SHAPE FOLLOWPIN ( 2760 2720 ) ( 5980 2720 ) ;
END SPECIALNETS
NETS 3 ;
- a ( PIN a ) ( u1 A ) + USE SIGNAL
  + ROUTED met1 ( 70 3915 ) ( 3245 3915 )
  NEW met1 ( 3245 3915 ) L1M1_PR ;
- n1 ( u1 Y ) ( u2 A ) + USE SIGNAL
  + ROUTED met1 ( 3645 4450 ) ( 4625 4450 ) ( 4625 3915 )
  NEW met1 ( 3645 4450 ) L1M1_PR
  NEW met1 ( 4625 3915 ) L1M1_PR ;
- y ( PIN y ) ( u2 Y ) + USE SIGNAL
  + ROUTED met1 ( {y_at[0]} {y_at[1]} ) ( 9130 {y_at[1]} )
  NEW met1 ( {y_at[0]} {y_at[1]} ) L1M1_PR ;
END NETS
END DESIGN
"""


def tiny_v(swap: bool = False, tap: bool = False) -> str:
    """The gate-level netlist as synthesis writes it (no power pins). swap: u2's input on `a`
    instead of `n1` (a wrong connection); tap: with the well tap, as a place-and-route tool
    writes its netlist."""
    return f"""\
module {TOP}(a, y);
  input a;
  wire a;
  output y;
  wire y;
  wire n1;
  sky130_fd_sc_hd__inv_1 u1 (
    .A(a),
    .Y(n1)
  );
  sky130_fd_sc_hd__inv_1 u2 (
    .A({'a' if swap else 'n1'}),
    .Y(y)
  );
{"  sky130_fd_sc_hd__tapvpwrvgnd_1 tap0 ();" if tap else ""}
endmodule
"""


@pytest.fixture(scope="module")
def tools():
    missing = [t for t in signoff_check.TOOLS.values() if shutil.which(t) is None]
    if missing:
        pytest.fail(f"signoff tools missing: {', '.join(missing)} (run `make setup`)")


def run_cli(tmp, layout_text, netlist_text, layout_name="tiny.def", extra=()):
    layout = tmp / layout_name
    if layout_text is not None:
        layout.write_text(layout_text)
    netlist = tmp / "tiny.v"
    netlist.write_text(netlist_text)
    out = tmp / "report.json"
    rc = cli_main(["signoff", str(layout), "--netlist", str(netlist), "--top", TOP, "--period", "5",
                   "--json", str(out), "--workdir", str(tmp / "work"), "--timeout", "300", *extra])
    return rc, json.loads(out.read_text())


@pytest.fixture(scope="module")
def clean(tools, pdk_root, tmp_path_factory):
    tmp = tmp_path_factory.mktemp("signoff_clean")
    rc, rep = run_cli(tmp, tiny_def(), tiny_v())
    return tmp, rc, rep


def test_clean_layout_passes_every_check(clean):
    _, rc, rep = clean
    c = rep["checks"]
    assert rc == 0, {k: v.get("reason") for k, v in c.items()}
    assert rep["passed"] is True
    assert c["magic_drc"]["count"] == 0 and c["klayout_drc"]["count"] == 0
    assert c["gds_xor"]["status"] == "pass" and c["gds_xor"]["layers_compared"] > 10
    assert c["klayout_drc"]["rules_checked"] > 100      # the runset really ran its rules
    lvs = c["lvs"]
    assert lvs["match"] is True and lvs["devices"] == {"layout": 2, "netlist": 2}
    assert lvs["bad_nets"] == 0 and lvs["supply_pins_added"] == 8
    sta = c["sta"]
    assert sta["nets_annotated"] == 3 == sta["nets_in_netlist"] and sta["extracted_nodes_unmapped"] == 0
    assert 0 < sta["total_wire_cap_ff"] < 10              # three short met1 wires: a few fF
    for corner in ("tt", "ss"):
        assert sta["corners"][corner]["paths"]["in2out"]["start"] == "a"
    # ss is slower than tt on the same path
    assert sta["corners"]["ss"]["worst_setup_slack_ns"] < sta["corners"]["tt"]["worst_setup_slack_ns"]


def test_extracted_capacitance_reaches_sta(clean):
    """The SPEF holds each net's extracted capacitance and OpenSTA uses it: the internal net's
    load seen in the timing report is larger than the next cell's input pin alone."""
    tmp, _, rep = clean
    spef = open(rep["checks"]["sta"]["spef"]).read()
    assert "*D_NET n1 " in spef and "*I u1:Y O" in spef and "*I u2:A I" in spef
    caps = signoff_sta.net_capacitance(open(f"{rep['workdir']}/{TOP}.rc.spice").read(), TOP)
    assert caps["u2/A"] > 0    # Magic names the unlabelled internal net after a pin on it


def _sta(rep, tmp_path, period, clock=None):
    from pqsoc.flow.pdk import find_pdk
    work = Path(rep["workdir"])
    netlist = tmp_path / "tiny.v"
    netlist.write_text(tiny_v())
    return signoff_sta.run_sta(netlist, TOP, work / f"{TOP}.rc.spice", period, clock, find_pdk(), tmp_path,
                           ("tt",), 120)


def test_sta_fails_a_period_the_layout_cannot_meet(clean, tmp_path):
    chk = _sta(clean[2], tmp_path, 0.2)
    assert chk.status == "fail" and "tt setup slack" in chk.reason
    assert chk.details["corners"]["tt"]["worst_setup_slack_ns"] < 0


def test_sta_fails_on_a_clock_port_the_netlist_lacks(clean, tmp_path):
    chk = _sta(clean[2], tmp_path, 5.0, clock="clk")
    assert chk.status == "fail" and "port 'clk' not found" in chk.reason


def test_seeded_drc_error_is_counted_by_both_tools(tools, pdk_root, tmp_path):
    rc, rep = run_cli(tmp_path, tiny_def(drc_error=True), tiny_v())
    c = rep["checks"]
    assert rc == 1 and rep["passed"] is False
    assert c["magic_drc"]["status"] == "fail" and c["magic_drc"]["count"] > 0
    assert any("met1.2" in rule for rule in c["magic_drc"]["by_rule"])
    assert c["klayout_drc"]["status"] == "fail" and c["klayout_drc"]["by_rule"].get("m1.2", 0) > 0
    assert c["lvs"]["status"] == "pass"          # the connectivity is still right


def test_seeded_lvs_error_is_a_mismatch_also_from_gds(clean, tmp_path):
    """A swapped connection in the netlist; the layout read back from the GDS Magic wrote."""
    tmp, _, rep = clean
    gds = tmp_path / "tiny.gds"
    shutil.copy(f"{rep['workdir']}/{TOP}.gds", gds)
    rc, bad = run_cli(tmp_path, None, tiny_v(swap=True), layout_name="tiny.gds")
    lvs = bad["checks"]["lvs"]
    assert rc == 1
    assert lvs["status"] == "fail" and lvs["match"] is False
    assert lvs["bad_nets"] > 0 or lvs["bad_devices"] > 0
    assert bad["checks"]["magic_drc"]["status"] == "pass"    # the GDS path reads a clean layout


def test_gds_xor_finds_a_different_layout(clean, pdk_root, tmp_path):
    """KLayout's stream-out of the seeded DEF against Magic's GDS of the clean one: the moved
    output wire shows up on met1 (68/20) and its via (mcon 67/44)."""
    from pqsoc.flow.pdk import find_pdk
    _, _, rep = clean
    bad = tmp_path / "bad.def"
    bad.write_text(tiny_def(drc_error=True))
    chk = signoff_drc.run_stream_xor(bad, Path(rep["workdir"]) / f"{TOP}.gds", TOP, find_pdk(), tmp_path, 120)
    assert chk.status == "fail"
    assert "68/20" in chk.details["layers_differing"] and "67/44" in chk.details["layers_differing"]


def test_lvs_with_physical_cells_in_the_netlist(clean, pdk_root, tmp_path):
    """A netlist that lists the tap cell too (a place-and-route netlist) matches as well."""
    from pqsoc.flow.pdk import find_pdk
    _, _, rep = clean
    netlist = tmp_path / "tiny.v"
    netlist.write_text(tiny_v(tap=True))
    chk = signoff_lvs.run_lvs(Path(rep["workdir"]) / f"{TOP}.spice", netlist, TOP, find_pdk(), tmp_path, 120)
    assert chk.status == "pass", chk.reason
    assert "tapvpwrvgnd_1 in circuit 2" in open(chk.log).read()


def test_unknown_cell_in_the_def_fails_every_check(tools, pdk_root, tmp_path):
    """A DEF naming a cell the PDK does not have (as a tool that renames cells writes it):
    Magic's read error is the reason, and nothing is judged on the incomplete layout."""
    rc, rep = run_cli(tmp_path, tiny_def().replace("- u2 sky130_fd_sc_hd__inv_1", "- u2 sky130_fd_sc_hd_inv_1"),
                      tiny_v())
    c = rep["checks"]
    assert rc == 1
    assert c["magic_drc"]["status"] == "fail" and "sky130_fd_sc_hd_inv_1 is not defined" in c["magic_drc"]["reason"]
    assert c["lvs"]["status"] == "fail" and c["sta"]["status"] == "fail"
    assert c["klayout_drc"]["status"] == "not-run" and c["gds_xor"]["status"] == "not-run"


def test_klayout_streamed_gds_passes(clean, tmp_path):
    """The GDS KLayout streamed out of the clean DEF (as OpenLane writes its GDS) passes every
    check: pins come in as ports from its labels."""
    _, _, rep = clean
    shutil.copy(rep["checks"]["gds_xor"]["klayout_gds"], tmp_path / "tiny.gds")
    rc, out = run_cli(tmp_path, None, tiny_v(), layout_name="tiny.gds")
    assert rc == 0, {k: v.get("reason") for k, v in out["checks"].items()}
    assert set(out["checks"]) == {"magic_drc", "klayout_drc", "lvs", "sta"}    # no XOR for a GDS


def test_missing_tool_is_not_run_with_the_reason(pdk_root, tmp_path, monkeypatch, capsys):
    monkeypatch.setitem(signoff_check.TOOLS, "magic", "magic-not-installed-here")
    rc, rep = run_cli(tmp_path, tiny_def(), tiny_v())
    c = rep["checks"]
    assert rc == 1
    for k in ("magic_drc", "lvs", "sta"):
        assert c[k]["status"] == "not-run" and "magic" in c[k]["reason"] and "make setup" in c[k]["reason"]
    assert c["klayout_drc"]["status"] == "not-run" and "no GDS" in c["klayout_drc"]["reason"]
    assert c["gds_xor"]["status"] == "not-run"
    assert "magic_drc not-run" in capsys.readouterr().err


def test_missing_tech_file_is_named(tools, pdk_root, tmp_path):
    """A PDK without Magic's tech file: the report names the file."""
    fake = tmp_path / "pdk" / "sky130A"
    (fake / "libs.tech" / "magic").mkdir(parents=True)
    (fake / "libs.ref").symlink_to(pdk_root / "sky130A" / "libs.ref")
    for tool in ("klayout", "netgen"):
        (fake / "libs.tech" / tool).symlink_to(pdk_root / "sky130A" / "libs.tech" / tool)
    layout, netlist = tmp_path / "tiny.def", tmp_path / "tiny.v"
    layout.write_text(tiny_def())
    netlist.write_text(tiny_v())
    rep = signoff.signoff(layout, netlist, TOP, period_ns=5, json_path=tmp_path / "r.json",
                          work=tmp_path / "w", pdk=Pdk(tmp_path / "pdk"), timeout_s=60)
    c = rep["checks"]
    assert rep["passed"] is False
    assert c["magic_drc"]["status"] == "not-run"
    assert "tech file missing" in c["magic_drc"]["reason"] and "sky130A.tech" in c["magic_drc"]["reason"]


def test_bad_input_is_an_error(pdk_root, tmp_path, capsys):
    (tmp_path / "tiny.v").write_text(tiny_v())
    rc = cli_main(["signoff", str(tmp_path / "none.def"), "--netlist", str(tmp_path / "tiny.v"),
                   "--top", TOP, "--period", "5", "--json", str(tmp_path / "r.json")])
    assert rc == 1 and "layout not found" in capsys.readouterr().err


def test_powered_netlist_adds_supplies_once():
    cells = {"sky130_fd_sc_hd__inv_1": ["A", "VGND", "VNB", "VPB", "VPWR", "Y"]}
    text, added = signoff_netlist.powered_netlist(tiny_v(), cells)
    assert added == 8
    assert "module tiny(a, y, VPWR, VGND);" in text and "inout VPWR;" in text
    assert ".VPB(VPWR)" in text and ".VNB(VGND)" in text
    again, added2 = signoff_netlist.powered_netlist(text, cells)     # an already powered netlist stays
    assert added2 == 0 and again == text


def test_physical_only_cells():
    for cell in ("sky130_fd_sc_hd__tapvpwrvgnd_1", "sky130_fd_sc_hd__fill_2", "sky130_fd_sc_hd__decap_3",
                 "sky130_fd_sc_hd__diode_2", "sky130_ef_sc_hd__decap_12"):
        assert signoff_netlist.PHYSICAL_ONLY.match(cell), cell
    for cell in ("sky130_fd_sc_hd__inv_1", "sky130_fd_sc_hd__dfxtp_1", "sky130_fd_sc_hd__conb_1"):
        assert not signoff_netlist.PHYSICAL_ONLY.match(cell), cell
