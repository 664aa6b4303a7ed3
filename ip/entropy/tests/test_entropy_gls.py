# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""The entropy source at gate level: with the rings' simulation model in place of their cells,
its synthesized netlist (random initial state) and its RTL deliver the words the model's
definition gives (tests/cocotb_entropy_src.py), after the same number of polls; a netlist whose
rings are not modules of their own is refused, not simulated as a loop."""
import pytest

from pqsoc import FlowError
from ip.entropy.dv import gls as entropy_gls
from ip.entropy.dv.sim_model import simulable, with_model
from ip.entropy.rtl.rings import cells_verilog, model_verilog


def test_rtl_and_gate_level_deliver_the_models_words(pdk_root):
    from pqsoc.cli import main
    assert main(["synth", "entropy_src"]) == 0
    report = entropy_gls.gls_entropy(seeds=(1,))
    assert report["tests"] == 1
    polls = report["cycles"]["status_polls_to_first_word"]
    assert polls["rtl"] == polls["gls"] > 0


def test_the_model_replaces_each_ring_module_once():
    text = "module entropy_src(clk);\nendmodule\n" + cells_verilog()
    swapped = with_model(text, "t")
    assert swapped.startswith("module entropy_src(clk);\nendmodule\n") and swapped.endswith(model_verilog())
    assert "sky130_fd_sc_hd__inv_1" not in swapped
    with pytest.raises(FlowError, match="one expected"):
        with_model("module entropy_src(clk);\nendmodule\n", "flat.v")
    with pytest.raises(FlowError, match="one expected"):
        with_model(text + cells_verilog(), "twice.v")


def test_simulable_swaps_only_the_files_holding_rings(tmp_path):
    """The silicon SoC's sources: the file with the rings (pqc.v) becomes a copy with the model,
    the others are read as they are; sources without any ring are refused unless the design has
    none (a simulation that expects them would otherwise run a design without its entropy source)."""
    top, pqc = tmp_path / "top.v", tmp_path / "pqc.v"
    top.write_text("module top;\nendmodule\n")
    pqc.write_text("module pqc;\nendmodule\n" + cells_verilog())
    out = simulable([top, pqc], tmp_path / "sim")
    assert out[0] == top and out[1] == tmp_path / "sim" / "pqc_ring_model.v"
    assert out[1].read_text() == with_model(pqc.read_text(), "pqc.v")
    stamp = out[1].stat().st_mtime_ns
    assert simulable([top, pqc], tmp_path / "sim")[1].stat().st_mtime_ns == stamp   # unchanged: kept
    with pytest.raises(FlowError, match="defines the rings"):
        simulable([top], tmp_path / "sim")
    assert simulable([top], tmp_path / "sim", required=False) == [top]     # a design without them
