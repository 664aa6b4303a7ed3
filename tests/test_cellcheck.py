# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""Cell models cross-check: the Yosys (Liberty) cell models and the PDK's Verilog models agree in Icarus."""
import re
from pathlib import Path

import pytest

from pqsoc import FlowError
from pqsoc.cli import blocks as blocks_mod
from pqsoc.flow import cellcheck, synth
from pqsoc.flow.pdk import Pdk, find_pdk

# Small on purpose: Icarus is slow when cell pins connect to bits of wide ports.
SMALL_V = """
module cc_top(input clk, input rst, input en, input [7:0] a, input [7:0] b,
              output reg [7:0] q, output [8:0] s, output eq);
  always @(posedge clk) if (rst) q <= 0; else if (en) q <= q + 1;
  assign s = a + b + q;
  assign eq = (a == q);
endmodule
"""


@pytest.fixture(scope="module")
def small_netlist(pdk_root):
    def emit(out: Path) -> list[Path]:
        out.mkdir(parents=True, exist_ok=True)
        p = out / "t_cellcheck.v"
        p.write_text(SMALL_V)
        return [p]
    blocks_mod.register(blocks_mod.Block(name="t_cellcheck", top="cc_top", description="test", emit=emit))
    try:
        synth.synth("t_cellcheck")
        yield synth.synth_dir("t_cellcheck") / "netlist.v"
    finally:
        blocks_mod.BLOCKS.pop("t_cellcheck", None)


def inject(models: Path, cell: str, dst: Path) -> Path:
    """A copy of `models` with the output of `cell` inverted."""
    text = models.read_text()
    m = re.search(rf"^module {cell}\(.*?^endmodule", text, re.M | re.S)
    assert m, cell
    body, n = re.subn(r"^(  assign (?:X|Y) = )(\S+);$", r"\1~\2;", m.group(0), count=1, flags=re.M)
    assert n == 1, f"no output assignment in {cell}"
    dst.write_text(text[:m.start()] + body + text[m.end():])
    return dst


def test_models_agree_with_pdk(small_netlist, tmp_path):
    res = cellcheck.crosscheck(small_netlist, "cc_top", cycles=300, seed=1, out=tmp_path / "cc")
    assert res["cycles"] == 298
    cells = res["cells"]
    assert any("dfxtp" in c for c in cells) and any("xor" in c or "xnor" in c for c in cells)
    assert len(cells) >= 6
    assert cells == cellcheck.netlist_cells(small_netlist)


def test_injected_difference_is_detected(small_netlist, tmp_path):
    out = tmp_path / "cc"
    good = cellcheck.yosys_models(small_netlist, "cc_top", out / "gen", find_pdk())
    cell = next(c for c in cellcheck.netlist_cells(small_netlist) if re.search(r"__x(n)?or2_", c))
    bad = inject(good, cell, tmp_path / "bad_models.v")
    with pytest.raises(FlowError, match=r"cell models differ at cycle \d+: \w+ = [01]+ with the Yosys"):
        cellcheck.crosscheck(small_netlist, "cc_top", cycles=100, models=bad, out=out)


def test_pdk_endif_defect_is_fixed_in_a_copy(pdk_root, tmp_path):
    pdk = find_pdk()
    original = pdk.cell_verilog.read_text()
    assert len(cellcheck.ENDIF_WITH_TEXT.findall(original)) >= 1     # the known defect
    fixed, prims = cellcheck.pdk_models(pdk, out=tmp_path)
    assert fixed.parent == tmp_path and prims.name == "primitives.v"
    text = fixed.read_text()
    assert not cellcheck.ENDIF_WITH_TEXT.search(text)
    assert "`endif // SKY130_FD_SC_HD__LPFLOW_BLEEDER_FUNCTIONAL_V" in text
    assert cellcheck.pdk_models(pdk, out=tmp_path)[0] == fixed        # cached by content


def test_missing_iverilog(small_netlist, monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(FlowError, match="needs Icarus Verilog: `iverilog` not found"):
        cellcheck.crosscheck(small_netlist, "cc_top", out=tmp_path / "cc")


def test_missing_pdk_verilog(small_netlist, tmp_path):
    with pytest.raises(FlowError, match="cell Verilog model missing"):
        cellcheck.crosscheck(small_netlist, "cc_top", out=tmp_path / "cc", pdk=Pdk(tmp_path / "nopdk"))


def test_bad_arguments(small_netlist, tmp_path):
    with pytest.raises(FlowError, match="no netlist"):
        cellcheck.crosscheck(tmp_path / "none.v", "cc_top")
    with pytest.raises(FlowError, match="no module nosuch"):
        cellcheck.crosscheck(small_netlist, "nosuch", out=tmp_path / "cc")


def clock_gate_netlist(path: Path) -> Path:
    """Each clock gate cell drives a 4-bit counter, so every gated clock edge shows in an output."""
    from pqsoc.flow import gls
    cells = sorted(gls.hand_modelled_cells())
    text = (f"module cg_top(input clk, input rst, input [{len(cells) - 1}:0] gate, "
            f"input [{len(cells) - 1}:0] sce, "
            + ", ".join(f"output reg [3:0] c{i}" for i in range(len(cells))) + ");\n")
    for i, cell in enumerate(cells):
        sce = f".SCE(sce[{i}]), " if "sdlclkp" in cell else ""
        text += (f"  wire g{i};\n  {cell} u{i} (.CLK(clk), {sce}.GATE(gate[{i}]), .GCLK(g{i}));\n"
                 f"  always @(posedge g{i} or posedge rst) if (rst) c{i} <= 4'd0; "
                 f"else c{i} <= c{i} + 4'd1;\n")
    path.write_text(text + "endmodule\n")
    return path


@pytest.mark.parametrize("phase", ["low", "high"])
def test_clock_gate_hand_models_match_pdk(pdk_root, tmp_path, phase):
    from pqsoc.flow import gls
    nl = clock_gate_netlist(tmp_path / "cg.v")
    models = gls.write_cell_models(tmp_path / "cell_models.v")
    res = cellcheck.crosscheck(nl, "cg_top", cycles=300, models=models, input_phase=phase,
                               out=tmp_path / "cc")
    assert {f"sky130_fd_sc_hd__{c}_{s}" for c in ("dlclkp", "sdlclkp") for s in (1, 2, 4)} \
        == set(res["cells"])
    assert res["cycles"] == 298


def test_clock_gate_without_latch_is_detected(pdk_root, tmp_path):
    """A gate that is not latched lets GATE changes in the high phase through as extra edges."""
    from pqsoc.flow import gls
    nl = clock_gate_netlist(tmp_path / "cg.v")
    models = gls.write_cell_models(tmp_path / "cell_models.v")
    text = models.read_text()
    bad = text.replace("  always @* if (!CLK) en = GATE;\n", "  always @* en = GATE;\n", 1)
    assert bad != text
    models.write_text(bad)
    with pytest.raises(FlowError, match="cell models differ"):
        cellcheck.crosscheck(nl, "cg_top", cycles=300, models=models, input_phase="high",
                             out=tmp_path / "cc")


def test_clock_gates_are_modelled_not_refused(pdk_root, tmp_path):
    from pqsoc.flow import gls
    nl = clock_gate_netlist(tmp_path / "cg.v")
    gls.check_cells(nl, find_pdk())                      # no longer refused
    flat = gls.flat_netlist(nl, "cg_top", find_pdk(), tmp_path / "flat")
    text = flat.read_text()
    assert "dlclkp" not in text.split("module cg_top", 1)[1].split("endmodule")[0].replace("u0", "")
    # every cell pin merged into its net, no wire-to-wire assigns left: opt_clean skips a module
    # that still holds processes (the hand models' always blocks), so `proc` must run first
    assert ALIAS_ASSIGN.findall("  assign \\u0.CLK  = clk;\n  assign x = y[3];\n") != []
    assert ALIAS_ASSIGN.findall(text) == [], ALIAS_ASSIGN.findall(text)[:4]
    # cached: the same recipe reuses the file, a changed recipe remakes it
    flat.write_text(text + "// cached\n")
    assert gls.flat_netlist(nl, "cg_top", find_pdk(), tmp_path / "flat").read_text().endswith("// cached\n")
    (tmp_path / "flat" / "flatten.ys").write_text("# an older recipe\n")
    assert gls.flat_netlist(nl, "cg_top", find_pdk(), tmp_path / "flat").read_text() == text


ALIAS_ASSIGN = re.compile(r"^\s*assign (\\\S+ |[\w\[\]:]+) ?= (\\\S+ |[\w\[\]:]+);$", re.M)


def test_clock_gates_in_verilator_match_pdk(pdk_root, tmp_path):
    """The path `pqsoc gls` takes (Yosys flattening with the hand models, then Verilator) gives
    the same trace as the PDK's models in Icarus, with GATE changing while CLK is high."""
    import shutil
    import subprocess
    from pqsoc.flow import gls
    pdk = find_pdk()
    nl = clock_gate_netlist(tmp_path / "cg.v")
    out = tmp_path / "cc"
    res = cellcheck.crosscheck(nl, "cg_top", cycles=200, models=gls.write_cell_models(tmp_path / "m.v"),
                               input_phase="high", out=out)
    flat = gls.flat_netlist(nl, "cg_top", pdk, tmp_path / "flat")
    tb = (out / "pdk" / "tb.v").read_text().replace(str((out / "pdk" / "trace.txt").resolve()),
                                                    str(tmp_path / "vl_trace.txt"))
    (tmp_path / "tb.v").write_text(tb)
    verilator = shutil.which("verilator")
    assert verilator, "verilator not found"
    r = subprocess.run([verilator, "--binary", "--timing", "-Wno-fatal", "-Wno-lint", "-Wno-style",
                        "-Wno-COMBDLY", "-Wno-UNOPTFLAT", "--top-module", "pqsoc_cellcheck_tb",
                        "--Mdir", str(tmp_path / "obj"), "-o", "sim", str(tmp_path / "tb.v"), str(flat)],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr[-2000:]
    subprocess.run([str(tmp_path / "obj" / "sim")], check=True, capture_output=True, cwd=tmp_path)
    got = (tmp_path / "vl_trace.txt").read_text().splitlines()
    want = (out / "pdk" / "trace.txt").read_text().splitlines()
    assert len(got) == len(want) == 200
    assert got[200 - res["cycles"]:] == want[200 - res["cycles"]:]
