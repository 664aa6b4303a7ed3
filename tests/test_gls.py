# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""Gate-level simulation: the synthesized Keccak netlist runs the RTL's cocotb test with equal cycles."""
import json

import pytest

from pqsoc import FlowError
from pqsoc.flow import gls, synth


@pytest.fixture(scope="module")
def keccak_netlist(pdk_root):
    return synth.synth("keccak")


def test_a_gls_campaign_runs_a_task_per_seed_on_shared_models(keccak_netlist, tmp_path, monkeypatch, capsys):
    """`pqsoc campaign gls keccak --seeds 2` (issue #37): the models are built once before the
    tasks (a task's build step finds them up to date: the executable is not rewritten), each seed
    is a task, and the merged entry is what `pqsoc gls` reports: every cycle count equal to the
    RTL's, a permutation in 24 cycles (one round a cycle), tests counted per seed."""
    from pqsoc import cli
    from pqsoc.cli import campaign
    from pqsoc.flow import tapeout
    monkeypatch.setattr(campaign, "CAMPAIGNS", tmp_path)
    gls.prepare("keccak")
    manifest = synth.load_manifest("keccak")
    exe = gls.BUILD / "vsim" / "keccak" / f"gls-{manifest['netlist_sha256'][:12]}" / "keccak_core"
    rtl_exe = gls.BUILD / "vsim" / "keccak" / "rtl" / "keccak_core"
    built = exe.stat().st_mtime_ns, rtl_exe.stat().st_mtime_ns
    out = tmp_path / "gls.json"
    assert cli.main(["campaign", "gls", "keccak", "--seeds", "2", "--workers", "2", "--json", str(out)]) == 0
    assert capsys.readouterr().out.rstrip().endswith("2 passed, 0 failed")
    assert (exe.stat().st_mtime_ns, rtl_exe.stat().st_mtime_ns) == built
    data = json.loads(out.read_text())
    entry = data["blocks"]["keccak"]
    assert entry["seeds"] == [1, 2] and set(entry["runs"]) == {"1", "2"} and data["failed_runs"] == []
    assert entry["netlist_sha256"] == manifest["netlist_sha256"]
    assert all(v["rtl"] == v["gls"] for v in entry["cycles"].values())
    assert entry["cycles"]["sha3_256_empty"] == {"rtl": 24, "gls": 24}
    assert entry["tests"] == sum(r["tests"] for r in entry["runs"].values()) >= 2
    assert tapeout.gls_entries(data) == data["blocks"]


def test_a_gls_campaign_counts_a_run_that_did_not_pass(tmp_path):
    """A block with a seed that did not pass has no entry (as `pqsoc gls` writes none) and the
    run is listed; tapeout.json's test count includes it as a failure."""
    from pqsoc.cli.campaign import KINDS
    from pqsoc.flow import tapeout
    ok = {"blk": {"block": "blk", "tests": 3, "cycles": {"t": {"rtl": 5, "gls": 5}}}}
    rows = [{"inputs": {"block": "blk", "seed": 1}, "state": "passed", "figures": ok, "message": "",
             "seconds": 1.0, "host": "h"},
            {"inputs": {"block": "blk", "seed": 2}, "state": "error", "figures": {},
             "message": "exit status 1: pqsoc gls: error: blk: gate-level cycle counts differ", "seconds": 1.0,
             "host": "h"},
            {"inputs": {"block": "other", "seed": 1}, "state": "passed",
             "figures": {"other": {"block": "other", "tests": 2, "cycles": {"u": {"rtl": 7, "gls": 7}}}},
             "message": "", "seconds": 2.0, "host": "h"}]
    lines, figures = KINDS["gls"].summary(rows)
    assert set(figures["blocks"]) == {"other"} and (figures["passed"], figures["failed"]) == (2, 1)
    # a block's own per-seed figures (the ACC's random programs) add up over its seeds
    acc = [{"inputs": {"block": "acc", "seed": s}, "state": "passed", "message": "", "seconds": 1.0, "host": "h",
            "figures": {"acc": {"tests": 110, "cycles": {"k": {"rtl": 3, "gls": 3}},
                                "fuzz": {"seed": 1, "programs": 100, "passed": 100, "failed": 0},
                                "per_seed": {str(s): {"fuzz_programs": 100}}}}} for s in (1, 2)]
    entry = KINDS["gls"].summary(acc)[1]["blocks"]["acc"]
    assert entry["fuzz"] == {"seed": 1, "programs": 200, "passed": 200, "failed": 0}
    assert set(entry["per_seed"]) == {"1", "2"} and entry["tests"] == 220 and entry["seeds"] == [1, 2]
    assert figures["failed_runs"] == [{"block": "blk", "seed": 2, "state": "error",
                                       "message": rows[1]["message"]}]
    assert "blk: 1 of 2 seeds did not pass" in lines
    data = {"kind": "gls", **figures}
    assert tapeout.gls_entries(data) == figures["blocks"]
    (tmp_path / "reports").mkdir()
    (tmp_path / "reports" / "gls.json").write_text(json.dumps(data))
    got = tapeout.suite_result(tapeout.TestReport("gls", "reports/gls.json", "gls"), tapeout.Reports(tmp_path))
    assert (got["run"], got["passed"]) == (3, 2)      # block other's 2 tests, and blk's failed run


def test_stale_rtl_is_refused(keccak_netlist, tmp_path, monkeypatch):
    """On a private copy of the synthesis folder: the shared one is not edited under the other
    tests (another worker may be reading or re-synthesizing it)."""
    import shutil
    from pqsoc.flow import locks
    src, own = synth.synth_dir("keccak"), tmp_path / "synth" / "keccak"
    with locks.exclusive(src):
        shutil.copytree(src, own)
    data = json.loads((own / "synth.json").read_text())
    data["rtl_sha256"] = "0" * 64          # as if the RTL had changed since synthesis
    (own / "synth.json").write_text(json.dumps(data))
    monkeypatch.setattr(synth, "synth_dir", lambda name: tmp_path / "synth" / name)
    with pytest.raises(FlowError, match="stale: its RTL changed"):
        gls.gls("keccak", seeds=(1,))


def test_unmodelled_cell_is_named(pdk_root, tmp_path, monkeypatch):
    """A cell with neither a Liberty function nor a hand model is refused by name. The clock
    gates are the only such cells in the PDK and have hand models now, so this test takes
    the hand models away to reach the refusal."""
    from pqsoc.flow.pdk import find_pdk
    monkeypatch.setattr(gls, "hand_modelled_cells", lambda: set())
    nl = tmp_path / "n.v"
    nl.write_text("module t(input CLK, GATE, output GCLK);\n"
                  "  sky130_fd_sc_hd__dlclkp_1 g (.CLK(CLK), .GATE(GATE), .GCLK(GCLK));\nendmodule\n")
    with pytest.raises(FlowError, match="without a functional model: sky130_fd_sc_hd__dlclkp_1"):
        gls.check_cells(nl, find_pdk())


def test_cycle_mismatch_fails():
    with pytest.raises(FlowError, match="differ from RTL"):
        gls.compare_cycles("x", {"a": 24}, {"a": 25}, 1)
    with pytest.raises(FlowError, match="only at gate level"):
        gls.compare_cycles("x", {"a": 24}, {"a": 24, "b": 3}, 1)
    with pytest.raises(FlowError, match="no cycle counts"):
        gls.compare_cycles("x", {}, {}, 1)
    gls.compare_cycles("x", {"a": 24}, {"a": 24}, 1)


def test_missing_netlist(pdk_root):
    from pqsoc.cli import blocks as blocks_mod
    blocks_mod.register(blocks_mod.Block(name="t_never_synth", top="t", description="", emit=lambda p: []))
    try:
        with pytest.raises(FlowError, match="no netlist for t_never_synth"):
            gls.gls("t_never_synth")
    finally:
        blocks_mod.BLOCKS.pop("t_never_synth")


def test_kmac_gate_level_matches_rtl(pdk_root):
    """The KMAC's sponge, bus and side-load at gate level, on block kmac_unmasked: its netlist is
    a third of the masked one's and builds in a third of the time. The cocotb test starts no
    masked operation, so the two netlists run the same cycles; the SoC's (masked) netlist runs it
    in `make report` (`pqsoc campaign gls`, every block)."""
    synth.synth("kmac_unmasked")
    res = gls.gls("kmac_unmasked", seeds=(3,))
    assert res["tests"] >= 1
    for name, v in res["cycles"].items():
        assert v["rtl"] == v["gls"], name
    assert res["cycles"]["finish_to_first_word"]["rtl"] > 24


def test_cocotb_build_makeflags_do_not_leak(monkeypatch, tmp_path):
    """The gate-level compiler reaches the cocotb build only: a CXX=clang++ left in MAKEFLAGS
    broke later Verilator --timing builds in the same process (they need gcc's coroutines)."""
    import os

    import cocotb.runner
    from pqsoc.flow import verilator as vsim
    seen = {}

    class FakeRunner:
        def build(self, **kw):
            seen["build"] = os.environ.get("MAKEFLAGS")

        def test(self, **kw):
            seen["test"] = os.environ.get("MAKEFLAGS")

    monkeypatch.setattr(cocotb.runner, "get_runner", lambda sim: FakeRunner())
    monkeypatch.setenv("MAKEFLAGS", "-j1")
    with pytest.raises(FlowError, match="wrote no results"):
        vsim.run_cocotb(sources=[], top="t", test_module="m", build_dir=tmp_path, cxx="clang++-14")
    assert "CXX=clang++-14" in seen["build"] and seen["test"] == "-j1"
    assert os.environ["MAKEFLAGS"] == "-j1"


def test_public_ports_config(tmp_path):
    """Only the top's ports become public (both spellings of a name with "__"); a port name the
    config cannot express, or a missing top, is refused by name."""
    flat = tmp_path / "f.v"
    flat.write_text("module other(x);\n  input x;\nendmodule\n"
                    "module top(bus__cyc, clk,\n  irq);\n  input bus__cyc;\n  input clk;\n"
                    "  output irq;\n  wire _001_;\nendmodule\n")
    vlt = gls.public_ports_config(flat, "top", tmp_path / "p.vlt").read_text().splitlines()
    assert vlt[0] == "`verilator_config"
    assert sorted(vlt[1:]) == sorted(f'public_flat_rw -module "top" -var "{n}"'
                                     for n in ("bus__cyc", "bus___05Fcyc", "clk", "irq"))
    with pytest.raises(FlowError, match="no module nope"):
        gls.public_ports_config(flat, "nope", tmp_path / "p.vlt")
    flat.write_text("module top(\\bad[0] , clk);\nendmodule\n")
    with pytest.raises(FlowError, match=r"cannot make public: \['\\\\bad\[0\]'\]"):
        gls.public_ports_config(flat, "top", tmp_path / "p.vlt")
