# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""pqsoc.flow.verilator: the model flag sets and the cached model build."""
import subprocess

import pytest

from pqsoc import FlowError
from pqsoc.flow import verilator as vl

TOP = ("module t(input clk, input rst, output reg [7:0] n);\n"
       "  always @(posedge clk) n <= rst ? 8'd0 : n + 8'd1;\nendmodule\n")
DRIVER = ('#include "Vt.h"\n#include "verilated.h"\n#include <cstdio>\n'
          "int main(int argc, char **argv) {\n"
          "    VerilatedContext ctx;\n    ctx.commandArgs(argc, argv);\n    Vt t(&ctx);\n"
          "    t.rst = 1;\n    for (int i = 0; i < 10; i++) {\n"
          "        t.clk = 1; t.eval(); t.clk = 0; t.eval(); t.rst = 0;\n    }\n"
          '    std::printf("n=%d\\n", t.n);\n    return 0;\n}\n')


def test_flag_sets():
    rtl = vl.model_flags("t", x=vl.X_ZERO, cxx=vl.BLOCK_RTL_CXX, warn=vl.BLOCK_WARNINGS, prefix="Vt")
    assert rtl[:3] == ["--cc", "--exe", "--build"] and rtl[-2:] == ["-j", "0"]
    assert rtl[rtl.index("--prefix") + 1] == "Vt" and rtl[rtl.index("--top-module") + 1] == "t"
    gl = vl.gate_level_flags("t", warn=vl.SOC_WARNINGS, defines=["X"])
    for opt in ("--x-assign", "--x-initial"):
        assert gl.count(opt) == 1 and gl[gl.index(opt) + 1] == "unique"
    assert "-DX" in gl and gl[-2:] == ["-j", "2"]
    assert [gl[i + 1] for i, f in enumerate(gl) if f == "-MAKEFLAGS"] == [f"CXX={vl.GL_CXX}", "OPT_SLOW=-O0"]


def test_build_is_cached_and_a_failure_names_its_log(tmp_path):
    src, drv = tmp_path / "t.v", tmp_path / "main.cpp"
    src.write_text(TOP)
    drv.write_text(DRIVER)
    flags = vl.model_flags("t", x=vl.X_ZERO, cxx=vl.BLOCK_RTL_CXX, warn=vl.BLOCK_WARNINGS, prefix="Vt")
    logs = []
    kw = dict(flags=flags, sources=[src], driver=drv, out=tmp_path / "m", exe="Vt", label="t",
              log=logs.append)
    first = vl.build_model(**kw)
    assert not first.cached and first.seconds > 0 and len(logs) == 2
    assert subprocess.run([str(first.exe)], capture_output=True, text=True).stdout == "n=9\n"
    again = vl.build_model(**kw)
    assert again.cached and again.seconds == 0 and again.key == first.key and len(logs) == 2
    assert vl.model_key(flags + ["-DY"], [src], drv) != first.key
    src.write_text(TOP.replace("endmodule", "  wire x = ;\nendmodule"))   # a syntax error
    with pytest.raises(FlowError, match=r"Verilator build of the t model failed \(log: .*build\.log\):\n.*t\.v"):
        vl.build_model(**kw)


def test_missing_tools_are_named(monkeypatch, tmp_path):
    monkeypatch.setattr(vl.shutil, "which", lambda name: None)
    vl._version.cache_clear()
    with pytest.raises(FlowError, match="verilator not found.*make setup"):
        vl.build_model(flags=[], sources=[], driver=tmp_path / "d.cpp", out=tmp_path, exe="V", label="t")
    with pytest.raises(FlowError, match="clang.*make setup"):
        vl.gl_cxx()
