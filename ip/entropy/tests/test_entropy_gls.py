# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""The entropy source at gate level: with the rings' simulation model in place of their cells,
its synthesized netlist (random initial state) and its RTL deliver the words the model's
definition gives (tests/cocotb_entropy_src.py), after the same number of polls; a netlist whose
rings are not modules of their own is refused, not simulated as a loop."""
import pytest

from pqsoc import FlowError
from ip.entropy.dv import gls as entropy_gls
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
    swapped = entropy_gls.with_model(text, "t")
    assert swapped.startswith("module entropy_src(clk);\nendmodule\n") and swapped.endswith(model_verilog())
    assert "sky130_fd_sc_hd__inv_1" not in swapped
    with pytest.raises(FlowError, match="one expected"):
        entropy_gls.with_model("module entropy_src(clk);\nendmodule\n", "flat.v")
    with pytest.raises(FlowError, match="one expected"):
        entropy_gls.with_model(text + cells_verilog(), "twice.v")
