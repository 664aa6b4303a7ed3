# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""The ACC's gate-level power model (ip/acc/dv/gls_power.py): which nets it counts and in which
unit, on a netlist small enough to place by hand, flattened by the flow's own flattener
(pqsoc.flow.gls.flat_netlist), and the gate-level top's power ports. The whole model (the ACC
netlist, ~180 k nets) builds for `pqsoc sca tvla --engine gls`, not in CI."""
import re

import pytest

from ip.acc.dv import gls_power, gls_top
from pqsoc import FlowError
from pqsoc.flow import gls
from pqsoc.sca import netpower

M2K = "sky130_sram_2kbyte_1rw1r_32x512_8"

# A wide register bit w1[0] computed by an a21oi (three inputs, a node inside its function) from
# the inputs and the control core's pc, which an inverter computes from w1[0]; a kept module
# (the wide ALU) with a named wire n1 and a register driving the output q; an SRAM named as
# DMEM's, its data input an inverter of the input d (a buffer's output is its input's net
# in the flat netlist: Yosys merges them).
NETLIST = r"""module \acc.core.walu (clk, a, y);
  input clk;
  wire clk;
  input a;
  wire a;
  output y;
  wire y;
  wire n1;
  sky130_fd_sc_hd__inv_1 _1_ (.A(a), .Y(n1));
  sky130_fd_sc_hd__dfxtp_1 _2_ (.CLK(clk), .D(n1), .Q(y));
endmodule
module acc(clk, x, z, d, q, r);
  input clk;
  wire clk;
  input x;
  wire x;
  input z;
  wire z;
  input d;
  wire d;
  output q;
  wire q;
  output [31:0] r;
  wire [31:0] r;
  wire [1:0] \core.w1 ;
  wire \core.pc ;
  wire _5_;
  wire _6_;
  wire _7_;
  sky130_fd_sc_hd__a21oi_1 _3_ (.A1(x), .A2(z), .B1(\core.pc ), .Y(_5_));
  sky130_fd_sc_hd__dfxtp_1 _4_ (.CLK(clk), .D(_5_), .Q(\core.w1 [0]));
  sky130_fd_sc_hd__inv_1 _8_ (.A(\core.w1 [0]), .Y(_6_));
  sky130_fd_sc_hd__dfxtp_1 _9_ (.CLK(clk), .D(_6_), .Q(\core.pc ));
  sky130_fd_sc_hd__inv_1 _10_ (.A(d), .Y(_7_));
  \acc.core.walu  \core.walu  (.clk(clk), .a(\core.pc ), .y(q));
  sky130_sram_2kbyte_1rw1r_32x512_8 \dmem.ram  (.clk0(clk), .csb0(1'h0), .web0(1'h1), .wmask0(4'hf),
    .addr0(9'h000), .din0({31'h0, _7_}), .dout0(r), .clk1(clk), .csb1(1'h1), .addr1(9'h000));
endmodule
"""


@pytest.fixture(scope="module")
def placed(tmp_path_factory, pdk_root):
    """(flat netlist text, its counted nets, {net: unit}, the names rtl_names gives)."""
    from pqsoc.flow.pdk import find_pdk
    pdk = find_pdk()
    out = tmp_path_factory.mktemp("gls_power")
    src = out / "netlist.v"
    src.write_text(NETLIST)
    flat = gls.flat_netlist(src, "acc", pdk, out, blackboxes=[pdk.sram(M2K, "lib")], rename="acc_netlist")
    text = flat.read_text()
    nets = netpower.nets_of(text, count_outputs=True)
    units, unit_of = gls_power.classifier(src)(text, nets)
    assert units == gls_power.UNITS
    return text, nets, unit_of, gls_power.rtl_names(NETLIST, "acc")


def _net(nets, unit_of, rtl: dict, name: str) -> str:
    """The unit of the flat net that carries the synthesized netlist's net NAME."""
    found = {unit_of[n] for n, _, _ in nets
             if rtl.get(gls_power._plain(n), gls_power._plain(n)) == name}
    assert len(found) == 1, f"{name}: {found}"
    return found.pop()


def test_names_come_through_the_cell_pins_and_kept_modules():
    rtl = gls_power.rtl_names(NETLIST, "acc")
    assert rtl["_4_.Q"] == "core.w1"                 # a register's bit, its RTL name
    assert rtl["_3_.Y"] == "_5_"
    assert rtl["core.walu._1_.Y"] == "core.walu.n1"   # a kept module's wire, with its instance path
    assert rtl["core.walu._2_.Q"] == "core.walu.y"


def test_registers_and_named_wires_go_to_their_units(placed):
    _, nets, unit_of, rtl = placed
    assert _net(nets, unit_of, rtl, "core.w1") == "wide"
    assert _net(nets, unit_of, rtl, "core.pc") == "core"
    assert _net(nets, unit_of, rtl, "core.walu.n1") == "wide"


def test_logic_goes_to_the_unit_it_feeds_first(placed):
    _, nets, unit_of, rtl = placed
    assert _net(nets, unit_of, rtl, "_5_") == "wide"     # the a21oi's output: w1[0]'s next state
    assert _net(nets, unit_of, rtl, "_6_") == "core"     # the inverter's: pc's next state
    assert _net(nets, unit_of, rtl, "_7_") == "dmem"     # the inverter that drives the SRAM's din0


def test_every_net_of_the_netlist_counts_once_and_no_node_inside_a_cell(placed):
    text, nets, unit_of, rtl = placed
    counted = [n for n, _, _ in nets if unit_of[n] is not None]
    # each cell output and register, the SRAM's read data (r is also the output port), the
    # output port q (the kept module's register): w1[0] (w1[1] is driven by nothing), pc, _5_,
    # _6_, _7_, n1, q, r
    assert sorted(rtl.get(gls_power._plain(n), gls_power._plain(n)) for n in counted) == sorted(
        ["core.w1", "core.pc", "_5_", "_6_", "_7_", "core.walu.n1", "q", "r"])
    inside = [n for n, _, _ in nets if unit_of[n] is None]
    assert inside, "the a21oi's function has a node inside it (A1 & A2), which is not counted"
    assert all(re.fullmatch(r"_\d+_", n) for n in inside)
    assert unit_of["r"] == "dmem" and unit_of["q"] in ("bus", "wide")


def test_a_netlist_without_any_unit_is_refused(tmp_path):
    # no named register, no output port, no SRAM: nothing to place the nets by
    src = tmp_path / "netlist.v"
    src.write_text("module acc(a);\n  input a;\n  wire a;\nendmodule\n")
    text = "module acc_netlist(a);\n  input a;\n  wire a;\n  wire _1_;\n  reg _2_;\n  assign _1_ = ~a;\nendmodule\n"
    with pytest.raises(FlowError, match="no net"):
        gls_power.classifier(src)(text, [("_1_", 1, "wire"), ("_2_", 1, "reg")])


def test_power_ports_are_wired_up_to_the_top():
    top = ("module acc(clk, irq);\n  input clk;\n  wire clk;\n  output irq;\n  wire irq;\n"
           "  acc_netlist acc_netlist (\n    .clk(clk),\n    .irq(irq)\n  );\nendmodule\n")
    out = gls_top._with_power_ports(top, "acc_netlist", {"pwr_wide": 32, "pwr_core": 32})
    assert out.startswith("module acc(pwr_wide, pwr_core, clk, irq);\n  output [31:0] pwr_wide;\n"
                          "  output [31:0] pwr_core;\n")
    assert "  acc_netlist acc_netlist (\n    .pwr_wide(pwr_wide),\n    .pwr_core(pwr_core),\n    .clk(clk)" in out
    with pytest.raises(FlowError, match="no instance"):
        gls_top._with_power_ports(top, "other", {"pwr_core": 32})
