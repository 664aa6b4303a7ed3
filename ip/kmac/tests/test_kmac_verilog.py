# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""The emitted Verilog of the KMAC top under Verilator + cocotb (tests/cocotb_kmac.py), and lint."""
import shutil
import subprocess

import pytest

pytestmark = pytest.mark.skipif(shutil.which("verilator") is None, reason="verilator not installed")


@pytest.fixture(scope="module")
def kmac_v(tmp_path_factory):
    from pqsoc.cli.blocks import get
    return get("kmac").emit(tmp_path_factory.mktemp("kmac_rtl"))[0]


def test_verilator_lint(kmac_v):
    r = subprocess.run(["verilator", "--lint-only", "-Wno-fatal", "-Wno-CASEINCOMPLETE",
                        "-Wno-WIDTH", str(kmac_v)], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0 and "%Error" not in r.stderr, r.stderr[-2000:]
    assert "%Warning" not in r.stderr, r.stderr[-2000:]


def test_cocotb_on_verilog(kmac_v, tmp_path):
    from pqsoc.flow.verilator import run_cocotb
    res = run_cocotb(sources=[kmac_v], top="kmac", test_module="ip.kmac.tests.cocotb_kmac",
                     build_dir=tmp_path / "vsim", label="kmac RTL")
    print(f"\nVerilator figures: {res.figures}")
    assert res.tests == 1 and res.failed == 0, res.log
    assert res.figures["shake128_squeeze_bytes_per_cycle"] > 6.5
