# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""Block.keep_hierarchy: kept modules through synthesis, fanout repair, STA, reports and the
gate-level flattening."""
import re

import pytest

from pqsoc import FlowError
from pqsoc.cli import blocks as blocks_mod
from pqsoc.flow import fanout, report, sta, synth


HIER_V = """
module t_leaf(input ck, input rst, input [23:0] a, output reg [23:0] q);
  always @(posedge ck) if (rst) q <= 0; else q <= q + a;
endmodule
module t_top(input clk, input rst, input [23:0] a, output [23:0] y);
  wire [23:0] q1, q2;
  reg [23:0] r;
  t_leaf u1(.ck(clk), .rst(rst), .a(a), .q(q1));
  t_leaf u2(.ck(clk), .rst(rst), .a(q1 + r), .q(q2));
  always @(posedge clk) r <= q1 ^ q2;
  assign y = r;
endmodule
"""


def test_kept_hierarchy_synth_area_and_sta(pdk_root, temp_block, tmp_path, cell_lib):
    """Block.keep_hierarchy: the kept module stays one module of the netlist (instantiated
    twice), its cells and area count once per instance, fanout repair works inside it without
    touching its clock port, and STA, the report's register names, the cell cross-check and
    the gate-level flattening all take the hierarchical netlist. Without keep_hierarchy the same
    design is flat."""
    from dataclasses import replace
    from pqsoc.flow import cellcheck, gls
    from pqsoc.flow.pdk import find_pdk
    flat = synth.synth(temp_block("t_hier_flat", HIER_V, top="t_top").name)
    flat_nl = (synth.synth_dir("t_hier_flat") / "netlist.v").read_text()
    assert [n for n, _, _ in fanout.split_modules(flat_nl)] == ["t_top"]

    blocks_mod.register(replace(temp_block("t_hier", HIER_V, top="t_top"), keep_hierarchy=("t_leaf",)))
    m = synth.synth("t_hier")
    assert "setattr -mod -set keep_hierarchy 1 t_leaf" in (synth.synth_dir("t_hier") / "synth.ys").read_text()
    nl_path = synth.synth_dir("t_hier") / "netlist.v"
    nl = nl_path.read_text()
    assert sorted(n for n, _, _ in fanout.split_modules(nl)) == ["t_leaf", "t_top"]
    top, leaf = _module_text(nl, "t_top"), _module_text(nl, "t_leaf")
    assert [i[1] for i in fanout.instances_of(top, {"t_leaf"})] == ["u1", "u2"]
    # cells and area: every instance of the kept module counted, the instances themselves not
    assert "t_leaf" not in m["cells_by_type"] and m["kept_modules"]["t_leaf"]["instances"] == 2
    flops = sum(v for k, v in m["cells_by_type"].items() if "df" in k)
    assert flops == 3 * 24 == sum(v for k, v in flat["cells_by_type"].items() if "df" in k)
    assert leaf.count("sky130_fd_sc_hd__dfxtp") == 24 and top.count("sky130_fd_sc_hd__dfxtp") == 24
    lib = cell_lib
    assert m["cells"] == sum(m["cells_by_type"].values())
    assert m["area_um2"] == pytest.approx(sum(n * lib.area[c] for c, n in m["cells_by_type"].items()))
    own = lambda text: sum(lib.area[c] for c in re.findall(r"^  (sky130_fd_sc_hd__\w+) ", text, re.M))
    assert m["area_um2"] == pytest.approx(own(top) + 2 * own(leaf))
    assert m["kept_modules"]["t_leaf"]["area_um2"] == pytest.approx(own(leaf))
    # fanout repair inside the kept module: rst (24 loads) buffered, its clock port ck not
    assert "fanout_buf_cell_" in leaf and leaf.count(".CLK(ck)") == 24
    assert "fanout_buf" not in "".join(l for l in top.splitlines() if ".ck(" in l)
    # STA: the critical path runs through the top's adder into u2's accumulator (from u1's
    # register or the top's own r: two adders either way)
    r = sta.sta("t_hier")
    cp = r["corners"]["tt"]["critical_path"]
    assert cp["end"].startswith("u2/"), cp
    regs = report.register_names(nl_path, "t_top")
    assert len(regs) == 72 and re.fullmatch(r"u2\.q\[\d+\]", regs[cp["end"]])
    assert re.fullmatch(r"(u1\.q|y)\[\d+\]", regs[cp["start"]]), regs[cp["start"]]   # r drives y
    # the cell cross-check's models leave the kept module to the netlist (no double definition)
    cc = cellcheck.crosscheck(nl_path, "t_top", cycles=60, seed=1, reset="rst", out=tmp_path / "cc")
    assert cc["outputs"] == ["y"]
    # gate-level simulation flattens it into one module of Liberty functions
    gl = gls.flat_netlist(nl_path, "t_top", find_pdk(), tmp_path / "gls").read_text()
    assert re.findall(r"^module (\S+)\(", gl, re.M) == ["t_top"] and "t_leaf" not in gl


HIER_MACRO_V = """
module t_leaf(input ck, input rst, input [23:0] a, output reg [23:0] q);
  wire [31:0] d;
  sky130_sram_1kbyte_1rw1r_32x256_8 ram(.clk0(ck), .csb0(1'b0), .web0(1'b1), .wmask0(4'hf),
    .addr0(q[7:0]), .din0(32'b0), .dout0(d), .clk1(ck), .csb1(1'b1), .addr1(8'b0), .dout1());
  always @(posedge ck) if (rst) q <= 0; else q <= q + (a ^ d[23:0]);
endmodule
module t_top(input clk, input rst, input [23:0] a, output [23:0] y);
  wire [23:0] q1, q2;
  reg [23:0] r;
  t_leaf u1(.ck(clk), .rst(rst), .a(a), .q(q1));
  t_leaf u2(.ck(clk), .rst(rst), .a(q1), .q(q2));
  always @(posedge clk) r <= q1 ^ q2;
  assign y = r;
endmodule
"""


def test_kept_hierarchy_in_macro_blocks(pdk_root, temp_block):
    """A block with SRAM macros takes its reg2reg start points and its macros from get_cells:
    it must look into kept modules (-hierarchical). Here every flop but the top's r (which
    only drives y) and both macros are inside t_leaf: without it STA finds no reg2reg path
    and no macro."""
    from dataclasses import replace
    macro = "sky130_sram_1kbyte_1rw1r_32x256_8"
    blocks_mod.register(replace(temp_block("t_hier_m", HIER_MACRO_V, top="t_top"),
                                keep_hierarchy=("t_leaf",), macros=(macro,), period_ns=20.0))
    m = synth.synth("t_hier_m")
    assert m["cells_by_type"][macro] == 2
    r = sta.sta("t_hier_m")
    paths = r["corners"]["tt"]["paths"]
    assert re.fullmatch(r"u[12]/_\d+_", paths["reg2reg"]["start"]), paths
    assert re.fullmatch(r"u[12]/ram", paths["mem2reg"]["start"]), paths
    # the report names the critical path's ends by flop net or dotted instance path
    cp = report.block_entry("t_hier_m", reuse=True)["critical_path"]["tt"]
    for end in (cp["start"], cp["end"]):
        assert re.fullmatch(r"u[12]\.(q\[\d+\]|ram)", end), cp


def test_keep_hierarchy_of_a_missing_module_fails(pdk_root, temp_block):
    from dataclasses import replace
    blocks_mod.register(replace(temp_block("t_hier_bad", HIER_V, top="t_top"), keep_hierarchy=("t_leafx",)))
    with pytest.raises(FlowError, match="keep_hierarchy names modules that are not in the netlist: t_leafx"):
        synth.synth("t_hier_bad")


def test_clock_nets_follow_instances_into_kept_modules():
    text = ("module t_leaf(ck, d, q);\n  input ck;\n  input d;\n  output q;\nendmodule\n"
            "module \\a.top (sys_clk, x, y);\n  input sys_clk;\n  input x;\n  output y;\n"
            "  t_leaf \\u.0  (\n    .ck(sys_clk),\n    .d(x),\n    .q(y)\n  );\nendmodule\n")
    assert [n for n, _, _ in fanout.split_modules(text)] == ["t_leaf", "a.top"]
    assert fanout.module_ports(text) == {"ck": "input", "d": "input", "q": "output", "sys_clk": "input",
                                        "x": "input", "y": "output"}
    assert fanout.clock_nets(text, "a.top", "sys_clk") == {"a.top": {"sys_clk"}, "t_leaf": {"ck"}}
    assert fanout.instances_of(text, {"t_leaf"}) == [("t_leaf", "u.0", {"ck": "sys_clk", "d": "x", "q": "y"})]


def _module_text(netlist: str, name: str) -> str:
    return next(netlist[s:e] for n, s, e in fanout.split_modules(netlist) if n == name)
