# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""Fanout repair and driver upsizing (pqsoc/flow/fanout.py), the stand-in for OpenROAD's
repair_design: buffer trees, buffer-chain collapse, escaped names, upsizing within dont_use."""
import pytest

from pqsoc.flow import fanout, synth


def test_fanout_repair_builds_bounded_tree():
    outputs = {"sky130_fd_sc_hd__dfxtp_2": {"Q"}, "sky130_fd_sc_hd__inv_2": {"Y"}}
    insts = "".join(f"  sky130_fd_sc_hd__inv_2 _i{k}_ (\n    .A(hot),\n    .Y(o{k})\n  );\n" for k in range(300))
    text = "module t(clk, hot);\n  input clk;\n  input hot;\n" + insts + "endmodule\n"
    new, nbuf = fanout.repair(text, outputs, "clk", max_fanout=16)
    # 300 sinks -> 19 leaf buffers -> 2 more levels; every net now has at most 16 sinks.
    assert nbuf > 19
    sinks = {}
    for line in new.splitlines():
        if line.strip().startswith(".A("):
            net = line.strip()[3:-2] if line.strip().endswith("),") else line.strip()[3:-1]
            sinks[net] = sinks.get(net, 0) + 1
    assert max(sinks.values()) <= 16
    assert new.count("sky130_fd_sc_hd__inv_2 ") == 300


def test_collapse_buffers_removes_abc_chains_and_keeps_port_drivers():
    def cell(kind, name, a, out, pin="X"):
        return f"  sky130_fd_sc_hd__{kind} {name} (\n    .A({a}),\n    .{pin}({out})\n  );\n"
    body = (cell("inv_2", "_d_", "i", "n0", "Y")
            + cell("buf_1", "_b1_", "n0", "n1") + cell("buf_2", "_b2_", "n1", "n2")   # a chain
            + cell("inv_2", "_s1_", "n1", "s1", "Y") + cell("inv_2", "_s2_", "n2", "s2", "Y")
            + cell("buf_4", "_bp_", "n2", "o"))                                      # drives a port
    text = ("module t(i, o, p);\n  input i;\n  output o;\n  output p;\n  wire n0;\n"
            + body + "  assign p = n2;\nendmodule\n")
    new, n = fanout.collapse_buffers(text)
    assert n == 2                                   # _b1_ and _b2_; _bp_ drives output o
    assert "_b1_" not in new and "_b2_" not in new and "_bp_" in new
    assert ".A(n0 )" in new and "n1" not in new and "n2" not in new
    assert "assign p = n0 ;" in new
    assert new.count("sky130_fd_sc_hd__inv_2") == 3


def test_collapse_buffers_keeps_drivers_of_vector_connections():
    """A macro takes `adr[1:0]` as one vector: the buffers driving adr[0] and adr[1] must stay
    (found on the SoC: removing them left the SRAM address bits undriven)."""
    text = ("module t(i, j);\n  input i;\n  input j;\n  wire [1:0] adr;\n  wire [1:0] w;\n"
            "  sky130_fd_sc_hd__buf_1 _b0_ (\n    .A(i),\n    .X(adr[0])\n  );\n"
            "  sky130_fd_sc_hd__buf_1 _b1_ (\n    .A(j),\n    .X(adr[1])\n  );\n"
            "  sky130_fd_sc_hd__buf_1 _b2_ (\n    .A(i),\n    .X(w[0])\n  );\n"
            "  sky130_fd_sc_hd__buf_1 _b3_ (\n    .A(j),\n    .X(w[1])\n  );\n"
            "  sky130_fd_sc_hd__inv_2 _s_ (\n    .A(w[0]),\n    .Y(o)\n  );\n"
            "  ram \\m.ram_r0_c0  (\n    .addr0(adr[1:0]),\n    .din0(w)\n  );\n"
            "endmodule\n")
    new, n = fanout.collapse_buffers(text)
    assert n == 0 and new == text      # adr by range, w as a whole declared vector
    new, n = fanout.collapse_buffers(text.replace(".din0(w)", ".din0(1'b0)"))
    assert n == 2 and "_b2_" not in new and ".A(i )" in new and "_b0_" in new


def test_fanout_repair_escaped_names():
    # Yosys writes hierarchical names as escaped identifiers, which end at whitespace.
    outputs = {"sky130_fd_sc_hd__inv_2": {"Y"}}
    insts = "".join(f"  sky130_fd_sc_hd__inv_2 _i{k}_ (\n    .A(\\a.b.busy ),\n    .Y(o{k})\n  );\n"
                    for k in range(40))
    new, nbuf = fanout.repair("module t();\n" + insts + "endmodule\n", outputs, "clk")
    assert nbuf == 4                                # one at the driver, three for the sinks
    assert new.count("(\\a.b.busy )") == 1          # only the driver's buffer remains on the net
    assert new.count(".A(fanout_buf_") == 40 + 3     # 40 sinks and the three leaf buffers


@pytest.mark.parametrize("sinks", [6, 16])
def test_upsize_fixes_weak_driver_and_leaves_light_loads(cell_lib, sinks):
    lib = cell_lib
    hd = "sky130_fd_sc_hd__"

    def gate(cell, name, out, ins):
        pins = "".join(f"    .{p}({n}),\n" for p, n in ins)
        return f"  {hd}{cell} {name} (\n{pins}    .Y({out})\n  );\n"
    ins = [("A1", "a"), ("A2", "b"), ("B1", "c"), ("C1", "d"), ("D1", "e")]
    body = gate("a2111oi_1", "_heavy_", "sel", ins) + gate("a2111oi_1", "_light_", "one", ins)
    body += "".join(f"  {hd}mux2_1 _m{k}_ (\n    .A0(x),\n    .A1(y),\n    .S(sel),\n    .X(o{k})\n  );\n"
                    for k in range(sinks))
    body += f"  {hd}inv_1 _i_ (\n    .A(one),\n    .Y(z)\n  );\n"
    body += f"  sky130_sram_2kbyte_1rw1r_32x512_8 ram (\n    .csb0(sel)\n  );\n"   # unknown: ignored
    new, n = fanout.upsize("module t();\n" + body + "endmodule\n", lib)
    assert n == 1
    heavy = new.split(" _heavy_ ")[0].split()[-1]
    assert heavy.startswith(hd + "a2111oi_") and heavy != hd + "a2111oi_1"
    load = sinks * lib.pin_cap[hd + "mux2_1"]["S"] + lib.wire(sinks)
    assert load > fanout.LOAD_FRACTION * lib.max_cap[hd + "a2111oi_1"]["Y"]      # it needed it
    fits = [v for v in lib.variants(hd + "a2111oi_1")
            if load <= fanout.LOAD_FRACTION * lib.max_cap[v]["Y"]]
    strongest = max(lib.variants(hd + "a2111oi_1"), key=lambda v: lib.max_cap[v]["Y"])
    assert heavy == (fits[0] if fits else strongest)      # the smallest that fits, else the strongest
    assert f"{hd}a2111oi_1 _light_ " in new                                      # light load kept
    assert new.count(f"{hd}mux2_1 ") == sinks and "sky130_sram_2kbyte_1rw1r_32x512_8 ram" in new


def test_upsize_keeps_pins_and_skips_dont_use(cell_lib):
    from pqsoc.flow.pdk import find_pdk
    lib = cell_lib
    banned = set(synth.dont_use_cells(find_pdk()))
    for cell in ("sky130_fd_sc_hd__a2111oi_1", "sky130_fd_sc_hd__dfxtp_1", "sky130_fd_sc_hd__o21ai_1"):
        vs = lib.variants(cell)
        assert cell in vs and len(vs) > 1
        assert all(set(lib.pin_cap[v]) == set(lib.pin_cap[cell]) for v in vs)
        assert not any("lpflow" in v or v in banned for v in vs)
    # a2111oi_0 and o21ai_0 are DRC-excluded: never an upsizing choice
    assert "sky130_fd_sc_hd__o21ai_0" not in lib.variants("sky130_fd_sc_hd__o21ai_1")
    assert lib.variants("sky130_fd_sc_hd__conb_1") in ([], ["sky130_fd_sc_hd__conb_1"])
