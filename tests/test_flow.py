# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""The local PPA flow: synthesis, STA and reports on a real block, and every bad-input path."""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from pqsoc import FlowError
from pqsoc.cli import blocks as blocks_mod
from pqsoc.flow import report, sta, synth

REPO = Path(__file__).resolve().parent.parent
GOOD_V = """
module counter(input clk, input rst, input en, output reg [7:0] q);
  always @(posedge clk) if (rst) q <= 0; else if (en) q <= q + 1;
endmodule
"""


def test_counter_synth_and_sta(pdk_root, temp_block):
    temp_block("t_counter", GOOD_V)
    m = synth.synth("t_counter")
    assert m["cells"] > 8 and m["area_um2"] > 0
    assert all(c.startswith("sky130_fd_sc_hd__") for c in m["cells_by_type"])
    assert sum(v for k, v in m["cells_by_type"].items() if "df" in k) == 8
    r = sta.sta("t_counter")
    for c in ("tt", "ss"):
        assert 50 < r["corners"][c]["fmax_mhz"] < 2000
    assert r["corners"]["tt"]["fmax_mhz"] > r["corners"]["ss"]["fmax_mhz"]


def test_keccak_is_real_and_meets_50mhz_tt(pdk_root, tmp_path, monkeypatch):
    monkeypatch.setattr(report, "REPORTS", tmp_path)
    data = report.ppa(["keccak"])
    k = data["blocks"]["keccak"]
    assert k["flops"] >= 1600                      # the 1600-bit state is really there
    assert 0.05e6 < k["area_um2"]["logic"] < 0.35e6
    assert k["fmax_mhz"]["tt"] >= 50
    on_disk = json.loads((tmp_path / "ppa.json").read_text())
    assert on_disk["blocks"]["keccak"]["cells"] == k["cells"]
    assert (tmp_path / "ppa.md").read_text().count("| keccak |") == 1
    assert (tmp_path / "ppa.png").stat().st_size > 1000


def test_rtl_syntax_error_names_the_step(pdk_root, temp_block):
    temp_block("t_bad", "module counter(input clk; endmodule\n")
    with pytest.raises(FlowError, match=r"Yosys failed at `read_verilog"):
        synth.synth("t_bad")
    assert not (synth.synth_dir("t_bad") / "netlist.v").exists()


def test_unmapped_cell_is_an_error(pdk_root, temp_block):
    text = "(* blackbox *) module mystery(input a, output y); endmodule\n" \
           "module counter(input clk, input a, output y); mystery u(.a(a), .y(y)); endmodule\n"
    temp_block("t_unmapped", text)
    with pytest.raises(FlowError, match="unmapped cells after synthesis: mystery"):
        synth.synth("t_unmapped")


def test_excluded_cells_are_the_projects_list_and_the_pdks_drc_list(pdk_root):
    """Synthesis excludes what OpenLane's synthesis excludes for our configs: the project's
    list (by function) and the PDK's drc_exclude.cells; drive strengths are not excluded."""
    from pqsoc.flow.pdk import find_pdk
    pdk = find_pdk()
    banned = set(synth.dont_use_cells(pdk))
    for c in synth.read_cell_list(pdk.drc_exclude_file):  # e.g. and2_0, o21ai_0, xnor3_1
        if f"cell (\"{c}\")" in pdk.liberty("tt").read_text():
            assert c in banned, c
    for c in ("and2_0", "o21ai_0", "xnor3_1", "clkbuf_4", "sdfxtp_1", "dlclkp_1", "ha_1",
              "lpflow_isobufsrc_1", "einvp_1", "dlygate4sd3_1"):
        assert f"sky130_fd_sc_hd__{c}" in banned, c
    for c in ("dfxtp_1", "nand2_1", "mux2_1", "xor2_1", "o21ai_1", "fa_1", "buf_1", "conb_1"):
        assert f"sky130_fd_sc_hd__{c}" not in banned, c
    # OpenLane hardens with the same list
    for cfg in sorted((REPO / "pnr").glob("*/config.json")):
        path = json.loads(cfg.read_text())["SYNTH_EXCLUDED_CELL_FILE"]
        assert path.startswith("dir::"), cfg
        assert (cfg.parent / path[5:]).resolve() == synth.SYNTH_EXCLUDE_CELLS.resolve(), cfg


def test_excluded_cell_in_netlist_is_an_error_unless_the_rtl_instantiates_it(pdk_root, temp_block):
    from pqsoc.flow.pdk import find_pdk
    pdk = find_pdk()
    stat = {"design": {"num_cells_by_type": {"sky130_fd_sc_hd__and2_0": 1,
                                             "sky130_fd_sc_hd__nand2_1": 3}}}
    with pytest.raises(FlowError, match="excluded cells in the netlist.*sky130_fd_sc_hd__and2_0"):
        synth.check_mapped(stat, pdk, ())
    # a cell the RTL names itself (as the ACC's clock gate) is deliberate
    text = ("module counter(input a, input b, output y);\n"
            "  sky130_fd_sc_hd__and2_0 u(.A(a), .B(b), .X(y));\nendmodule\n")
    temp_block("t_excluded", text)
    m = synth.synth("t_excluded")
    assert m["cells_by_type"] == {"sky130_fd_sc_hd__and2_0": 1}


def test_netlist_mapped_with_another_exclusion_list_is_refused(pdk_root, temp_block, tmp_path,
                                                               monkeypatch):
    temp_block("t_exlist", GOOD_V)
    synth.synth("t_exlist")
    other = tmp_path / "other.cells"
    other.write_text(synth.SYNTH_EXCLUDE_CELLS.read_text() + "sky130_fd_sc_hd__nand2_1\n")
    monkeypatch.setattr(synth, "SYNTH_EXCLUDE_CELLS", other)
    with pytest.raises(FlowError, match="mapped with another list of excluded cells"):
        sta.sta("t_exlist")


def test_missing_pdk(monkeypatch, tmp_path):
    monkeypatch.setenv("PDK_ROOT", str(tmp_path / "nowhere"))
    with pytest.raises(FlowError, match="no sky130A PDK found"):
        synth.synth("keccak")


def test_missing_sta_tool(pdk_root, temp_block, monkeypatch):
    temp_block("t_nosta", GOOD_V)
    synth.synth("t_nosta")
    monkeypatch.setenv("PATH", "/nonexistent")
    with pytest.raises(FlowError, match="OpenSTA .* not on PATH"):
        sta.sta("t_nosta")


def test_stale_netlist_is_refused(pdk_root, temp_block):
    temp_block("t_stale", GOOD_V)
    synth.synth("t_stale")
    nl = synth.synth_dir("t_stale") / "netlist.v"
    nl.write_text(nl.read_text() + "\n// edited\n")
    with pytest.raises(FlowError, match="does not match its synthesis manifest"):
        sta.sta("t_stale")


def test_rtl_check_emits_again_only_when_its_inputs_changed(tmp_path, monkeypatch):
    """load_manifest(check_rtl=True) of a block with an emit_key: the first check emits and
    records; the next with the same key and files does not emit; a new key, or an emitted file
    edited on disk, emits again; RTL that differs from the synthesized is refused whatever the
    stamp says, and a refused check records nothing. A block without a key always emits."""
    from pqsoc.flow import block as block_floor
    monkeypatch.setattr(block_floor, "BUILD", tmp_path / "build")
    monkeypatch.setattr(synth, "BUILD", tmp_path / "build")
    text, key, calls = ["module t; endmodule\n"], ["k1"], []

    def emit(out: Path) -> list[Path]:
        calls.append(1)
        out.mkdir(parents=True, exist_ok=True)
        (out / "t.v").write_text(text[0])
        return [out / "t.v"]
    blk = blocks_mod.Block(name="t_rtlcheck", top="t", description="t", emit=emit, emit_key=lambda: key[0])
    rtl = blk.emit_rtl()
    calls.clear()
    manifest = {"rtl": ["rtl/t_rtlcheck/t.v"], "rtl_sha256": synth.sha256_files(rtl)}
    out = tmp_path / "synth"
    out.mkdir()
    synth.check_rtl_current(blk, manifest, out)
    assert len(calls) == 1 and json.loads((out / "rtl_check.json").read_text())["emit_key"] == "k1"
    synth.check_rtl_current(blk, manifest, out)
    assert len(calls) == 1                      # key and files unchanged: no emission
    key[0] = "k2"
    synth.check_rtl_current(blk, manifest, out)
    assert len(calls) == 2
    rtl[0].write_text("module t; wire w; endmodule\n")      # an emitted file edited by hand
    synth.check_rtl_current(blk, manifest, out)
    assert len(calls) == 3 and rtl[0].read_text() == text[0]
    key[0], text[0] = "k3", "module t; wire changed; endmodule\n"
    for _ in range(2):                          # refused, and still emitted on the next check
        with pytest.raises(FlowError, match="t_rtlcheck is stale: its RTL changed"):
            synth.check_rtl_current(blk, manifest, out)
    assert len(calls) == 5 and json.loads((out / "rtl_check.json").read_text())["emit_key"] == "k2"
    text[0] = "module t; endmodule\n"
    keyless = blocks_mod.Block(name="t_rtlcheck", top="t", description="t", emit=emit)
    synth.check_rtl_current(keyless, manifest, out)
    synth.check_rtl_current(keyless, manifest, out)
    assert len(calls) == 7


def test_amaranth_emit_key_follows_the_sources(tmp_path, monkeypatch):
    from pqsoc.flow import block as block_floor
    for d in ("ip", "pqsoc"):
        (tmp_path / d).mkdir()
        (tmp_path / d / "a.py").write_text("x = 1\n")
    monkeypatch.setattr(block_floor, "REPO", tmp_path)
    first = block_floor.amaranth_emit_key()
    assert block_floor.amaranth_emit_key() == first
    (tmp_path / "ip" / "a.py").write_text("x = 2\n")
    second = block_floor.amaranth_emit_key()
    assert second != first
    (tmp_path / "pqsoc" / "b.yml").write_text("y: 1\n")
    assert block_floor.amaranth_emit_key() != second
    monkeypatch.setenv("AMARANTH_USE_YOSYS", "system")
    assert block_floor.amaranth_emit_key() not in (first, second)


def test_sta_errors_and_missing_slack_fail():
    with pytest.raises(FlowError, match="STA reported errors"):
        sta.parse("Error: sta.tcl, 3 unknown command\n@@end\n", 10.0)
    with pytest.raises(FlowError, match="did not run to the end"):
        sta.parse("@@corner tt\n", 10.0)
    with pytest.raises(FlowError, match="cannot parse a slack"):
        sta._parse_path("Startpoint: a\nEndpoint: b\n  garbage slack\n")


def test_failed_report_leaves_no_stale_files(pdk_root, tmp_path, monkeypatch, temp_block):
    monkeypatch.setattr(report, "REPORTS", tmp_path)
    for f in report.OUTPUTS:
        (tmp_path / f).write_text("old")
    temp_block("t_bad2", "module counter(; endmodule\n")
    with pytest.raises(FlowError):
        report.ppa(["t_bad2"])
    assert not any((tmp_path / f).exists() for f in report.OUTPUTS)


def test_unknown_block_via_cli(pdk_root):
    r = subprocess.run([sys.executable, "-m", "pqsoc.cli", "synth", "no_such_block"],
                       capture_output=True, text=True, cwd=REPO)
    assert r.returncode == 1
    assert "unknown block 'no_such_block'" in r.stderr


def test_harden_without_openroad_says_why(monkeypatch):
    r = subprocess.run([sys.executable, "-m", "pqsoc.cli", "harden", "keccak"], capture_output=True,
                       text=True, cwd=REPO, env=os.environ | {"PATH": "/usr/bin:/bin"})
    assert r.returncode == 1
    assert "OpenROAD has no Debian or PyPI package" in r.stderr


def test_flake_parses():
    r = subprocess.run(["nix-instantiate", "--parse", str(REPO / "flake.nix")], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr


def test_setup_is_idempotent_and_quick():
    r = subprocess.run(["bash", "tools/setup.sh"], capture_output=True, text=True, cwd=REPO, timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "all 6 pinned packages present" in r.stdout or "pinned packages present" in r.stdout
    assert "venv: up to date" in r.stdout


def test_cli_missing_input_file_is_named(tmp_path):
    r = subprocess.run([sys.executable, "-m", "pqsoc.cli", "acc", "asm", str(tmp_path / "none.s")],
                       capture_output=True, text=True, cwd=REPO)
    assert r.returncode == 1
    assert "No such file or directory" in r.stderr and "none.s" in r.stderr
    assert "Traceback" not in r.stderr


def test_cli_acc_asm_dis_round_trip(tmp_path):
    src = tmp_path / "p.s"
    src.write_text("top:\n  addi x1, x0, 5\n")
    hexf = tmp_path / "p.hex"
    r = subprocess.run([sys.executable, "-m", "pqsoc.cli", "acc", "asm", str(src), "-o", str(hexf)],
                       capture_output=True, text=True, cwd=REPO)
    assert r.returncode == 0, r.stderr
    # addi x1, x0, 5 in the RISC-V I-type layout the base group uses: imm 5, rs1 0, rd 1, opcode 0x13
    assert hexf.read_text().split()[0] == f"{(5 << 20) | (1 << 7) | 0x13:08x}"
    r = subprocess.run([sys.executable, "-m", "pqsoc.cli", "acc", "dis", str(hexf)],
                       capture_output=True, text=True, cwd=REPO)
    assert "addi x1, x0, 5" in r.stdout


def test_cli_acc_run_reports_halt(tmp_path):
    src = tmp_path / "p.s"
    src.write_text("addi x1, x0, 5\necall\n")
    hexf = tmp_path / "p.hex"
    subprocess.run([sys.executable, "-m", "pqsoc.cli", "acc", "asm", str(src), "-o", str(hexf)], check=True,
                   cwd=REPO)
    r = subprocess.run([sys.executable, "-m", "pqsoc.cli", "acc", "run", str(hexf)],
                       capture_output=True, text=True, cwd=REPO)
    assert r.returncode == 0 and "ecall" in r.stdout, r.stdout + r.stderr
    hexf.write_text("ffffffff\n")                 # an undefined encoding
    r = subprocess.run([sys.executable, "-m", "pqsoc.cli", "acc", "run", str(hexf)],
                       capture_output=True, text=True, cwd=REPO)
    assert r.returncode == 1 and "ILLEGAL_INSN" in r.stdout + r.stderr


def test_ppa_reuse_option(monkeypatch):
    """`pqsoc ppa --reuse` passes reuse on (block_entry's stored-results path, tested below)."""
    from pqsoc import cli
    calls = []
    monkeypatch.setattr(report, "ppa", lambda names, reuse=False: calls.append((names, reuse)))
    assert cli.main(["ppa", "--reuse", "acc", "soc"]) in (0, None)
    assert cli.main(["ppa"]) in (0, None)
    assert calls == [(["acc", "soc"], True), (None, False)]


def test_a_feature_s_cost_against_its_baseline_block(pdk_root, tmp_path, monkeypatch, temp_block):
    """A block declared with a baseline (the same block without one feature): reports/ppa.json
    and ppa.md give what the feature adds, from the two blocks' own figures; without the
    baseline block in the report there is no such entry."""
    import dataclasses
    temp_block("t_base", GOOD_V)
    wide = GOOD_V.replace("[7:0] q", "[15:0] q")
    temp_block("t_feat", wide)
    blocks_mod.register(dataclasses.replace(blocks_mod.get("t_feat"), baseline=("t_base", "8 more bits")))
    monkeypatch.setattr(report, "REPORTS", tmp_path)
    data = report.ppa(["t_base", "t_feat"])
    a, f, b = data["blocks"]["t_feat"]["adds"], data["blocks"]["t_feat"], data["blocks"]["t_base"]
    assert a["against"] == "t_base" and a["feature"] == "8 more bits"
    assert a["flops"] == 8 and a["cells"] == f["cells"] - b["cells"] > 0
    assert a["logic_um2"] == round(f["area_um2"]["logic"] - b["area_um2"]["logic"], 1) > 0
    assert "What 8 more bits adds (t_feat against t_base)" in (tmp_path / "ppa.md").read_text()
    assert "adds" not in report.ppa(["t_feat"], reuse=True)["blocks"]["t_feat"]


def test_sram_macro_block_black_boxes_and_report(pdk_root, tmp_path, monkeypatch):
    """A block with SRAM macros: macros stay black boxes, fanout repair leaves their bus pins
    alone (20 macros share `addr[7:0]`, more than MAX_FANOUT), STA times them with the TT macro
    Liberty, and the report counts macro area from the LEF and shows it apart from logic."""
    from ip.common.sram import SramBank
    macro = "sky130_sram_1kbyte_1rw1r_32x256_8"
    blocks_mod.register(blocks_mod.Block(
        name="t_sram", top="bank", description="test SRAM bank",
        emit=blocks_mod.emit_amaranth(lambda: SramBank(20 * 256, 32, macro), "bank"),
        period_ns=20.0, macros=(macro,), notes="test note", floorplan=_macros_in_1mm2(macro)))
    monkeypatch.setattr(report, "REPORTS", tmp_path)
    try:
        data = report.ppa(["t_sram"])
        again = report.block_entry("t_sram", reuse=True)      # stored results, no new synthesis
        assert again["cells"] == data["blocks"]["t_sram"]["cells"]
        # a floorplan that cannot be checked says why (ppa.json), it does not fail the report

        def no_figures(entry):
            raise FlowError("no netlist for acc: run `pqsoc synth acc` first")
        import dataclasses
        blocks_mod.register(dataclasses.replace(blocks_mod.get("t_sram"), floorplan=no_figures))
        f = report.block_entry("t_sram", reuse=True)["floorplan"]
        assert f == {"fits": None, "status": "not-run", "reason": "no netlist for acc: run `pqsoc synth acc` first"}
        (synth.synth_dir("t_sram").parent.parent / "sta" / "t_sram" / "sta.json").unlink()
        with pytest.raises(FlowError, match="no STA result for t_sram"):
            report.block_entry("t_sram", reuse=True)
        # refused before anything is written: the report of the run above stays
        before = (tmp_path / "ppa.json").read_text()
        with pytest.raises(FlowError, match="no STA result for t_sram"):
            report.ppa(["t_sram"], reuse=True)
        assert (tmp_path / "ppa.json").read_text() == before
    finally:
        blocks_mod.BLOCKS.pop("t_sram", None)
    from pqsoc.flow import provenance
    assert data["provenance"] == provenance.stamp()      # the design it describes (tapeout.json)
    b = data["blocks"]["t_sram"]
    assert b["macro_count"] == 20 and b["macros"][macro]["count"] == 20
    assert b["logic_cells"] == b["cells"] - 20 and b["flops"] >= 5
    w, h = report.lef_size_um(report.find_pdk().sram(macro, "lef"))
    assert b["area_um2"]["macros"] == pytest.approx(20 * w * h, rel=1e-6)
    assert 0 < b["area_um2"]["logic"] < 0.05e6
    assert b["area_um2"]["total"] == pytest.approx(b["area_um2"]["logic"] + b["area_um2"]["macros"])
    assert "TT" in b["macro_timing"]
    netlist = (synth.synth_dir("t_sram") / "netlist.v").read_text()
    assert netlist.count(".addr0(addr[7:0])") == 20          # not rewired through a 1-bit buffer
    assert "fanout_buf" not in "".join(l for l in netlist.splitlines() if "addr0" in l or "dout0" in l)
    md = (tmp_path / "ppa.md").read_text()
    assert "| t_sram | 20.0 |" in md and f"| {macro} | 20 |" in md and "test note" in md
    # the block's floorplan hook gets its figures: 20 macros of ~0.19 mm2 placed in 1 mm2 do not fit
    f = b["floorplan"]
    assert len(f["macros"]) == 20 and not f["fits"] and f["die_um"] == [0, 0, 1000.0, 1000.0]
    assert not {c["name"]: c["ok"] for c in f["checks"]}["inside_core"]
    assert "Floorplan (t_sram): does NOT fit (failed: inside_core" in md


def _macros_in_1mm2(macro):
    """A floorplan hook: the block's macros and logic placed and checked in a 1000 x 1000 um die."""
    from pqsoc.flow import floorplan as fpm

    def hook(entry):
        a = fpm.read_lef(report.find_pdk().sram(macro, "lef"))
        return fpm.fit_in_die("t_sram", 1000.0, 1000.0, a, entry["macro_count"], entry["area_um2"]["logic"],
                              0.45, 0.46, 2.72, 0.005, 10.0, {e: 10.0 for e in a.edge_pins()})
    return hook


SV_PKG = """
package t_pkg;
  typedef enum logic [1:0] {IDLE, RUN, DONE} state_e;
endpackage
module t_sv(input logic clk, input logic rst, input logic go, output t_pkg::state_e st);
  import t_pkg::*;
  always_ff @(posedge clk) begin
    if (rst) st <= IDLE;
    else unique case (st)
      IDLE: if (go) st <= RUN;
      RUN: st <= DONE;
      default: st <= IDLE;
    endcase
  end
endmodule
"""


def test_block_with_its_own_frontend_reads_systemverilog(pdk_root, temp_block):
    """A block can name its Yosys read commands (the soc reads Ibex with read_slang)."""
    from dataclasses import replace
    block = temp_block("t_slang", SV_PKG, top="t_sv")
    blocks_mod.register(replace(
        block, yosys_read=lambda files: ["read_slang --top t_sv " + " ".join(map(str, files))]))
    m = synth.synth("t_slang")
    assert "read_slang --top t_sv" in (synth.synth_dir("t_slang") / "synth.ys").read_text()
    assert sum(v for k, v in m["cells_by_type"].items() if "df" in k) == 2


def test_sta_takes_the_worst_path_of_every_path_group():
    """OpenSTA prints one path per group; the async_default group (recovery checks of flops
    with asynchronous reset, as in Ibex) comes first. Found on the SoC: its 18.6 ns recovery
    slack was taken for reg2reg while the clock group's path had -4.3 ns."""
    def path(slack, a, b, group):
        return (f"Startpoint: {a} (rising edge-triggered flip-flop clocked by clk)\n"
                f"Endpoint: {b}\nPath Group: {group}\n  {slack:.3f}   slack (MET)\n\n")
    section = path(18.556, "f1", "f2", "**async_default**") + path(-4.3, "f3", "ram", "clk")
    assert sta._parse_path(section) == {"slack_ns": -4.3, "start": "f3", "end": "ram"}
    assert sta._parse_path(path(1.5, "a", "b", "clk")) == {"slack_ns": 1.5, "start": "a", "end": "b"}


def test_sta_macro_paths_are_half_cycle():
    """OpenRAM macros launch dout0 at the falling edge: a mem2reg slack s at period T means a
    minimum period of T - 2s, and fmax takes the worse of that and reg2reg."""
    def path(slack, a, b):
        return f"Startpoint: {a}\nEndpoint: {b}\n  {slack:.3f}   slack (MET)\n"
    out = ""
    for c in sta.STA_CORNERS:
        out += f"@@worst {c}\n" + path(1.0, "m", "f") + f"@@group {c} reg2reg\n" + path(4.0, "f1", "f2")
        out += f"@@group {c} mem2reg\n" + path(1.0, "ram", "f3")
        for g in ("in2reg", "reg2out", "in2out"):
            out += f"@@group {c} {g}\nNo paths found.\n"
        out += f"@@hold {c}\nNo paths found.\n"
    res = sta.parse(out + "@@end\n", 20.0, sta.MACRO_PATH_GROUPS)
    assert res["tt"]["critical_path_ns"] == 18.0 and res["tt"]["critical_path"]["start"] == "ram"
    res = sta.parse(out.replace("1.000   slack", "3.000   slack") + "@@end\n", 20.0, sta.MACRO_PATH_GROUPS)
    assert res["tt"]["critical_path_ns"] == 16.0 and res["tt"]["critical_path"]["start"] == "f1"


def test_abc_choice_step_is_dropped_only_for_blocks_that_ask(pdk_root, tmp_path):
    """Large blocks (abc_dch=False, the ACC) map without ABC's &dch; others keep it."""
    from dataclasses import replace
    from pqsoc.flow.pdk import find_pdk
    pdk = find_pdk()
    base = blocks_mod.Block(name="t_abc", top="counter", description="t", emit=lambda out: [])
    for block, has in ((base, True), (replace(base, abc_dch=False), False)):
        d = tmp_path / str(has)
        d.mkdir()
        synth.yosys_script(block, [], pdk, 10.0, d)
        assert ("&dch -f" in (d / "abc.script").read_text()) == has


def test_full_adder_extraction_only_for_blocks_that_ask(pdk_root, tmp_path):
    """Blocks with a full_adders selection (the ACC) get `extract_fa -fa <selection>` and the
    $fa -> fa_1 techmap between `synth -noabc` and ABC; others do not."""
    from dataclasses import replace
    from pqsoc.flow.pdk import find_pdk
    pdk = find_pdk()
    base = blocks_mod.Block(name="t_fa", top="counter", description="t", emit=lambda out: [])
    for block, has in ((base, False), (replace(base, full_adders="* w:x %ci2 %d"), True)):
        d = tmp_path / str(has)
        d.mkdir()
        lines = synth.yosys_script(block, [], pdk, 10.0, d).splitlines()
        assert ("extract_fa -fa * w:x %ci2 %d" in lines) == has
        assert not any(ln.startswith("extract_fa") for ln in lines) or has
        assert (d / "fa_map.v").is_file() == has
        if has:
            assert lines.index("extract_fa -fa * w:x %ci2 %d") < next(
                i for i, ln in enumerate(lines) if ln.startswith("abc "))
            assert "sky130_fd_sc_hd__fa_1" in (d / "fa_map.v").read_text()
    # the ACC's selection names the wide ALU's partial-product trees by their RTL names
    assert blocks_mod.get("acc").full_adders.startswith("w:*csa*")
    src = (REPO / "ip/acc/rtl/wide_alu.py").read_text()
    assert 'f"csa{k}"' in src and 'f"{name}_l{level}s' in src


ADD3 = """module add3(input [3:0] a, b, c, output [5:0] y);
  wire [3:0] csa_s = a ^ b ^ c;
  wire [3:0] csa_c = (a & b) | (a & c) | (b & c);
  assign y = csa_s + (csa_c << 1);
endmodule
"""
ADD3_TB = """module tb;
  reg [3:0] a, b, c; wire [5:0] y; integer i, bad;
  add3 dut(.a(a), .b(b), .c(c), .y(y));
  initial begin
    bad = 0;
    for (i = 0; i < 4096; i = i + 1) begin
      {a, b, c} = i; #1;
      if (y !== a + b + c) bad = bad + 1;
    end
    $display("BAD=%0d", bad); $finish;
  end
endmodule
"""


def test_full_adder_map_is_functionally_right(pdk_root, tmp_path):
    """The $fa -> fa_1 techmap (FA_MAP: Yosys' X is the carry, Y the sum) on a carry-save adder,
    simulated exhaustively with the cell functions from the Liberty: equal to a + b + c. (Swapping
    COUT and SUM in the map makes 4080 of the 4096 sums wrong.)"""
    import shutil
    from pqsoc.flow.pdk import find_pdk
    if shutil.which("iverilog") is None:
        pytest.skip("iverilog not installed")
    lib = find_pdk().liberty("tt")
    (tmp_path / "add3.v").write_text(ADD3)
    (tmp_path / "tb.v").write_text(ADD3_TB)
    (tmp_path / "fa_map.v").write_text(synth.FA_MAP)
    script = tmp_path / "s.ys"
    script.write_text(f"read_verilog {tmp_path}/add3.v\n"
                      "synth -flatten -noabc -top add3\n"
                      "extract_fa -fa w:*csa* %ci9\n"
                      f"techmap -map {tmp_path}/fa_map.v\n"
                      "opt_clean -purge\n"
                      f"abc -liberty {lib}\n"
                      f"write_verilog -noattr {tmp_path}/net.v\n"
                      "design -reset\n"
                      f"read_liberty -ignore_miss_func -ignore_miss_dir {lib}\n"
                      f"write_verilog -noattr {tmp_path}/cells.v\n")
    synth.run_yosys(script, tmp_path / "yosys.log", "full-adder map test")
    net = (tmp_path / "net.v").read_text()
    assert net.count("sky130_fd_sc_hd__fa_1 ") == 4          # one per carry-save bit
    subprocess.run(["iverilog", "-o", str(tmp_path / "t"), str(tmp_path / "tb.v"),
                    str(tmp_path / "net.v"), str(tmp_path / "cells.v")], check=True)
    out = subprocess.run(["vvp", str(tmp_path / "t")], capture_output=True, text=True, check=True).stdout
    assert "BAD=0" in out, out


GATED_V = """
module gated(input clk, input en, input d, input other, output q, output r);
  wire gclk;
  sky130_fd_sc_hd__dlclkp_1 icg(.CLK(clk), .GATE(en), .GCLK(gclk));
  reg a, b, c;
  always @(posedge clk) a <= d;
  always @(posedge gclk) b <= a;
  always @(posedge other) c <= b;   // other: an input no clock is defined on
  assign q = b;
  assign r = c;
endmodule
"""


def test_sta_times_flops_behind_a_clock_gate_and_refuses_unclocked_ones(pdk_root, temp_block):
    """The ACC core's clock comes through sky130_fd_sc_hd__dlclkp: synthesis keeps the cell,
    STA propagates the clock through it (the gated flop is a reg2reg endpoint) and checks its
    enable; a flop no clock reaches is an error that names it, not a silently untimed path."""
    temp_block("t_gated", GATED_V, top="gated")
    m = synth.synth("t_gated")
    assert m["cells_by_type"].get("sky130_fd_sc_hd__dlclkp_1") == 1
    # exactly one unclocked pin (c's flop): b's flop behind the gate is clocked
    with pytest.raises(FlowError, match=r"STA: 1 register/latch clock pins are not reached .*/CLK"):
        sta.sta("t_gated")
    temp_block("t_gated2", GATED_V.replace("posedge other", "posedge clk"), top="gated")
    synth.synth("t_gated2")
    r = sta.sta("t_gated2")
    assert r["corners"]["tt"]["paths"]["reg2reg"] is not None
    log = (synth.synth_dir("t_gated2").parent.parent / "sta" / "t_gated2" / "sta.log").read_text()
    assert "unclocked" not in log
