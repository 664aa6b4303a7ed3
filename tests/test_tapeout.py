# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""tapeout.json's generator, schema and check (pqsoc/flow/tapeout.py) on a throwaway git repository
with fixture reports: a missing report gives a missing figure, never a number; the check flags a
stale figure, a failed signoff check, a missing field, and passes when everything is there."""
import json
import subprocess
from pathlib import Path

import pytest

from pqsoc.flow import tapeout as tp


def git(repo: Path, *args):
    subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True)


def head(repo: Path) -> str:
    return subprocess.run(["git", "-C", str(repo), "rev-parse", "HEAD"], check=True,
                          capture_output=True, text=True).stdout.strip()


PROJECT = tp.Project(
    name="chip", description="a test chip", top_module="wrapper", core_block="core", core_cell="core_top",
    shuttle={"program": "p", "provider": "q", "harness": "h", "slot": "s", "area_um": [100.0, 200.0]},
    clock_period_ns=20.0, clock_from="test", pdk={"name": "sky130", "variant": "sky130A",
                                                  "std_cell_library": "sky130_fd_sc_hd", "open_pdks_rev": "0" * 40},
    sram_macro="ram", sram_macro_bytes=2048,
    memories=(tp.Memory("IMEM", 4096, "test"),),
    macros=(tp.Macro("blk", "blk", "hard macro", floorplan_key="blk"), tp.Macro("core", "core_top", "core")),
    tests=(tp.TestReport("unit", "reports/pytest.xml", "junit"), tp.TestReport("fw", "reports/sim_fw.json", "sim")),
    latency_reports=("reports/sim_fw.json",),
    design_paths=("rtl",),
    submission=(("gds/wrapper.gds", "make harden", ()), ("README.md", "the repository", ())),
    conformance=("ML-KEM keyGen", "ML-DSA sigVer"),
)
NETLIST = "ab" * 32


@pytest.fixture
def repo(tmp_path):
    """A git repository with one design file (rtl/) and one doc, committed."""
    (tmp_path / "rtl").mkdir()
    (tmp_path / "rtl" / "blk.v").write_text("module blk; endmodule\n")
    (tmp_path / "README.md").write_text("chip\n")
    git(tmp_path, "init", "-q")
    git(tmp_path, "-c", "user.name=t", "-c", "user.email=t@t", "add", ".")
    git(tmp_path, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "design")
    return tmp_path


def commit_all(repo: Path, msg: str):
    git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "add", "-A")
    git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", msg)


def write_reports(repo: Path, signoff_status="pass", gls_netlist=NETLIST):
    """Every report the fixture project reads, stamped with HEAD."""
    stamp = {"commit": head(repo), "dirty": []}
    r = repo / "reports"
    (r / "signoff").mkdir(parents=True, exist_ok=True)
    blk = {"cells": 1234, "area_um2": {"logic": 5000.0, "macros": 0.0, "total": 5000.0},
           "fmax_mhz": {"tt": 80.0, "ss": 30.0}, "netlist_sha256": NETLIST, "perf": {"op_cycles": 42}}
    core = {k: v for k, v in blk.items() if k != "perf"} | {"cells": 9}
    (r / "ppa.json").write_text(json.dumps({"provenance": stamp, "blocks": {"blk": blk, "core": core}}))
    (r / "gls.json").write_text(json.dumps({"blk": {"netlist_sha256": gls_netlist, "tests": 3, "provenance": stamp,
                                                    "cycles": {"op_cycles": {"rtl": 42, "gls": 42}}},
                                            "core": {"netlist_sha256": NETLIST, "programs": ["fw"], "provenance": stamp,
                                                     "cycles": {"fw": {"t1": {"rtl": 100, "gls": 100}}}}}))
    (r / "sim_fw.json").write_text(json.dumps({"firmware": "fw.bin", "ok": True, "provenance": stamp,
                                               "tests": [{"test": "t1", "pass": True, "cycles": 100}]}))
    (r / "pytest.xml").write_text(
        '<testsuites><testsuite tests="5" failures="0" errors="0" skipped="1"><properties>'
        f'<property name="commit" value="{stamp["commit"]}"/><property name="dirty" value="[]"/>'
        '</properties></testsuite></testsuites>')
    (r / "floorplan.json").write_text(json.dumps({"provenance": stamp, "fits": True,
                                                  "blk": {"utilisation": 0.5}}))
    checks = {k: {"status": signoff_status} | ({} if signoff_status == "pass" else {"reason": "2 errors"})
              for k in ("magic_drc", "klayout_drc", "lvs", "antenna", "xor", "sta")}
    checks["sta"]["corners"] = {"tt": {"fmax_mhz": 70.0}, "ss": {"fmax_mhz": 25.0}}
    for cell in ("wrapper", "blk"):
        (r / "signoff" / f"{cell}.json").write_text(json.dumps({"provenance": stamp, "checks": checks}))
    # a utilisation for the core from a (local) OpenLane run
    (r / "harden" / "core_top").mkdir(parents=True, exist_ok=True)
    (r / "harden" / "core_top" / "metrics.json").write_text(json.dumps(
        {"provenance": stamp, "design__instance__count": 777, "design__instance__area": 900.0,
         "design__instance__utilization": 0.4, "timing__setup__ws__corner:nom_tt_025C_1v80": 2.0,
         "timing__setup__ws__corner:nom_ss_100C_1v60": -5.0}))
    (repo / "gds").mkdir(exist_ok=True)
    (repo / "gds" / "wrapper.gds").write_bytes(b"\0")
    ok = [{"check": "LibreLane Verilator.Lint", "ok": True, "detail": "passed"},
          {"check": "power reach", "ok": True, "detail": "every row"}]
    (r / "pnr_check.json").write_text(json.dumps({
        "provenance": stamp, "only_a_real_run": ["LVS"],
        "blocks": {"caravel": {"ok": True, "checks": ok}, "blk": {"ok": True, "checks": ok}}}))
    write_acvp(repo, stamp)


def write_acvp(repo: Path, stamp: dict, failed: int = 0, sample=None, modes=("ML-KEM keyGen", "ML-DSA sigVer")):
    """reports/acvp.json as `pqsoc acvp report` writes it (the fields tapeout.json reads): every
    case of each mode run on the ISS, `failed` of them wrong; a sample passes 3 of the 75."""
    entries = {}
    for mode in modes:
        total = 75
        run = 3 if sample else total
        entries[mode] = {"engine": "iss", "total": total, "run": run, "passed": run - failed, "failed": failed,
                         "errors": [], "unsupported": [], "sample": sample, "groups": [], "wall_s": 1.0}
    (repo / "reports" / "acvp.json").write_text(json.dumps(
        {"provenance": stamp, "engine": "iss", "sample": sample, "modes": entries}))


def problems(repo):
    return tp.check(PROJECT, repo=repo)["problems"]


def test_complete_reports_give_a_valid_file_that_the_check_passes(repo):
    write_reports(repo)
    tp.write(PROJECT, repo)
    m = json.loads((repo / "tapeout.json").read_text())
    assert tp.validate(m) == []
    blk = m["macros"][0]
    # the best source wins: post-route STA over pre-layout, floorplan utilisation
    assert blk["fmax_mhz"]["tt"] == {"status": "measured", "value": 70.0, "source": tp.POST_ROUTE,
                                     "report": "reports/signoff/blk.json"}
    assert blk["cells"]["source"] == tp.PRE_LAYOUT and blk["cells"]["value"] == 1234
    assert blk["utilisation"] == {"status": "measured", "value": 0.5, "source": tp.FLOORPLAN,
                                  "report": "reports/floorplan.json"}
    core = m["macros"][1]
    assert core["cells"]["value"] == 777 and core["cells"]["source"] == tp.OPENLANE
    assert core["fmax_mhz"]["tt"]["value"] == round(1e3 / 18.0, 1)     # 20 ns period, 2 ns slack
    assert m["tests"][0]["result"] == {"status": "measured", "run": 4, "passed": 4}
    lat = {(f["block"], f["name"]): f for f in m["latencies"]["figures"]}
    assert lat[("blk", "op_cycles")]["gate_level_cycles"]["value"] == 42
    assert lat[("core", "fw:t1")]["rtl_cycles"]["value"] == 100
    assert m["memory_plan"]["macro_count"] == 2
    assert m["conformance"]["ML-KEM keyGen"] == {
        "status": "measured", "report": "reports/acvp.json", "engine": "iss", "passed": 75, "failed": 0,
        "total": 75, "sample": None, "unsupported_cases": 0}
    assert m["commit"]["sha"] == head(repo)
    assert problems(repo) == []


def test_missing_report_is_recorded_as_missing_not_a_number(repo):
    write_reports(repo)
    (repo / "reports" / "ppa.json").unlink()
    (repo / "reports" / "signoff" / "blk.json").unlink()
    m = tp.build(PROJECT, repo)
    assert tp.validate(m) == []
    blk = m["macros"][0]
    assert blk["cells"]["status"] == "missing" and "value" not in blk["cells"]
    assert "reports/ppa.json does not exist" in blk["cells"]["reason"]
    assert blk["fmax_mhz"]["tt"]["status"] == "missing"
    assert m["reports"]["reports/ppa.json"] == {"status": "missing", "reason": "reports/ppa.json does not exist"}
    assert m["signoff"]["blk"]["drc"]["status"] == "not-run"
    tp.write(PROJECT, repo)
    found = problems(repo)
    assert any(p.startswith("missing: macros[blk].cells: ") for p in found)
    assert any(p.startswith("not-run: signoff blk drc: ") for p in found)


def test_schema_rejects_a_missing_field_and_a_wrong_type(repo):
    write_reports(repo)
    good = tp.build(PROJECT, repo)
    no_clock = {k: v for k, v in good.items() if k != "clock"}
    assert any("clock" in e for e in tp.validate(no_clock))
    wrong = json.loads(json.dumps(good))
    wrong["clock"]["period_ns"] = "20"
    assert any("/clock/period_ns" in e for e in tp.validate(wrong))
    invented = json.loads(json.dumps(good))     # a number where the report said nothing
    invented["macros"][0]["cells"] = {"status": "missing", "reason": "x", "value": 5}
    assert tp.validate(invented)
    bad_check = json.loads(json.dumps(good))
    bad_check["signoff"]["wrapper"]["lvs"] = {"status": "fail"}     # a failure needs its reason
    assert tp.validate(bad_check)
    # the check reports a schema problem in the file it reads
    (repo / "tapeout.json").write_text(json.dumps(no_clock))
    assert any(p.startswith("schema: ") for p in problems(repo))


def test_check_flags_a_failed_signoff_check(repo):
    write_reports(repo, signoff_status="fail")
    tp.write(PROJECT, repo)
    found = problems(repo)
    assert any(p.startswith("failed: signoff wrapper lvs: ") and "2 errors" in p for p in found)


def test_check_flags_a_design_change_after_the_report(repo):
    write_reports(repo)
    tp.write(PROJECT, repo)
    assert problems(repo) == []
    (repo / "README.md").write_text("docs change\n")     # not a design path: nothing ages
    commit_all(repo, "docs")
    assert problems(repo) == []
    (repo / "rtl" / "blk.v").write_text("module blk; wire w; endmodule\n")
    found = problems(repo)        # uncommitted: the working tree is no report's design
    assert any("working tree differs from HEAD in design files (rtl/blk.v)" in p for p in found)
    commit_all(repo, "design change")
    found = problems(repo)
    assert any(p.startswith("stale: reports/ppa.json was made at ") and "rtl/blk.v" in p for p in found)


def test_check_flags_a_report_without_provenance_and_a_changed_report(repo):
    write_reports(repo)
    ppa = repo / "reports" / "ppa.json"
    data = json.loads(ppa.read_text())
    del data["provenance"]
    ppa.write_text(json.dumps(data))
    tp.write(PROJECT, repo)
    assert any("reports/ppa.json records no commit" in p for p in problems(repo))
    data["blocks"]["blk"]["cells"] = 999
    ppa.write_text(json.dumps(data))
    found = problems(repo)
    assert any("reports/ppa.json changed since tapeout.json was written" in p for p in found)
    assert any("differs from what `pqsoc tapeout write` writes now in macros[0].cells.value" in p for p in found)


def test_check_flags_gate_level_figures_of_another_netlist_and_a_newer_synthesis(repo):
    write_reports(repo, gls_netlist="cd" * 32)
    tp.write(PROJECT, repo)
    assert any("reports/gls.json's blk ran netlist cdcdcdcdcdcd" in p for p in problems(repo))
    write_reports(repo)
    tp.write(PROJECT, repo)
    synth = repo / "build" / "synth" / "blk"
    synth.mkdir(parents=True)
    (synth / "synth.json").write_text(json.dumps({"netlist_sha256": "ef" * 32}))
    assert any("blk was synthesized again since reports/ppa.json" in p for p in problems(repo))


def test_check_flags_failed_tests_and_a_floorplan_that_does_not_fit(repo):
    write_reports(repo)
    r = repo / "reports"
    (r / "pytest.xml").write_text((r / "pytest.xml").read_text().replace('failures="0"', 'failures="2"'))
    fp = json.loads((r / "floorplan.json").read_text())
    (r / "floorplan.json").write_text(json.dumps(fp | {"fits": False}))
    tp.write(PROJECT, repo)
    found = problems(repo)
    assert "failed: tests unit: 2 of 4 failed (reports/pytest.xml)" in found
    sim = json.loads((r / "sim_fw.json").read_text())
    (r / "sim_fw.json").write_text(json.dumps(sim | {"tests": []}))
    tp.write(PROJECT, repo)
    assert "failed: tests fw: none ran (reports/sim_fw.json)" in problems(repo)
    assert any(p.startswith("failed: floorplan: ") for p in found)


def test_submission_files_are_listed(repo):
    write_reports(repo)
    (repo / "gds" / "wrapper.gds").unlink()
    tp.write(PROJECT, repo)
    res = tp.check(PROJECT, repo=repo)
    assert res["submission"] == [{"path": "gds/wrapper.gds", "exists": False, "made_by": "make harden"},
                                 {"path": "README.md", "exists": True, "made_by": "the repository"}]
    assert "missing: 1 of 2 Caravel submission files (listed with them)" in res["problems"]


def test_cli_write_and_check(repo, monkeypatch, capsys):
    from pqsoc import cli
    from pqsoc.cli import tapeout as cli_tapeout
    monkeypatch.setattr(cli_tapeout, "REPO", repo)
    monkeypatch.setattr(cli_tapeout, "project", lambda: PROJECT)
    write_reports(repo)
    assert cli.main(["tapeout", "check"]) == 1           # no tapeout.json yet
    assert "run `pqsoc tapeout write`" in capsys.readouterr().err
    assert cli.main(["tapeout", "write"]) == 0
    assert cli.main(["tapeout", "check"]) == 0
    assert "exists   gds/wrapper.gds" in capsys.readouterr().out
    (repo / "gds" / "wrapper.gds").unlink()
    assert cli.main(["tapeout", "write"]) == 0
    assert cli.main(["tapeout", "check"]) == 1
    out = capsys.readouterr()
    assert "MISSING  gds/wrapper.gds  <- make harden" in out.out
    assert "1 problem:" in out.err and "missing: 1 of 2 Caravel submission files" in out.err


def test_local_layout_figures_and_a_partly_run_signoff(repo):
    write_reports(repo)
    r = repo / "reports"
    layout = {"blocks": {"blk": {"status": "failed", "cells": 1, "cell_area_um2": 1.0, "utilisation": 0.9}}}
    (r / "layout.json").write_text(json.dumps(layout))
    assert tp.build(PROJECT, repo)["macros"][0]["cells"]["source"] == tp.PRE_LAYOUT    # a failed run gives nothing
    layout["blocks"]["blk"]["status"] = "clean"
    (r / "layout.json").write_text(json.dumps(layout))
    blk = tp.build(PROJECT, repo)["macros"][0]
    assert blk["cells"] == {"status": "measured", "value": 1, "source": tp.LOCAL_LAYOUT, "report": "reports/layout.json"}
    assert blk["utilisation"]["value"] == 0.9
    so = json.loads((r / "signoff" / "blk.json").read_text())
    so["checks"]["klayout_drc"] = {"status": "not-run", "reason": "klayout is not on PATH"}
    del so["checks"]["antenna"]
    (r / "signoff" / "blk.json").write_text(json.dumps(so))
    checks = tp.build(PROJECT, repo)["signoff"]["blk"]
    assert checks["drc"]["status"] == "not-run" and "klayout_drc not-run: klayout is not on PATH" in checks["drc"]["reason"]
    assert checks["antenna"]["status"] == "not-run" and "no antenna check" in checks["antenna"]["reason"]
    assert checks["lvs"]["status"] == "pass"


def test_harden_metrics_are_collected_for_tapeout(tmp_path):
    from pqsoc import FlowError
    from pqsoc.flow import harden
    run = tmp_path / "runs" / "RUN_1"
    with pytest.raises(FlowError, match="no final metrics"):
        harden.collect_metrics(run, "kmac", {"commit": None, "dirty": []}, tmp_path / "reports")
    (run / "final").mkdir(parents=True)
    (run / "final" / "metrics.json").write_text(json.dumps({"design__instance__count": 5}))
    out = harden.collect_metrics(run, "kmac", {"commit": "c" * 40, "dirty": []}, tmp_path / "reports")
    assert out == tmp_path / "reports" / "harden" / "kmac" / "metrics.json"
    data = json.loads(out.read_text())
    assert data["design__instance__count"] == 5 and data["provenance"]["commit"] == "c" * 40


def test_check_names_submission_files_missing_or_stale(repo, monkeypatch, capsys):
    """The files `pqsoc tapeout submission` writes: missing or differing from the generator's
    output is a named problem; written, they pass."""
    import dataclasses
    from pqsoc import cli
    from pqsoc.cli import tapeout as cli_tapeout
    from pqsoc.flow import submission as sf
    proj = dataclasses.replace(
        PROJECT, external_repos=(sf.ExternalRepo("https://github.com/a/b", "1" * 40, "x", "y"),),
        lvs=sf.LvsInputs(top="wrapper", hard_macros=("blk",), std_cell_library="sky130_fd_sc_hd",
                         sram_macros=("ram",)))
    write_reports(repo)
    tp.write(proj, repo)
    found = tp.check(proj, repo=repo)["problems"]
    assert "missing: third_party/used_external_repos.csv: run `pqsoc tapeout submission`" in found
    assert "missing: lvs/wrapper/lvs_config.json: run `pqsoc tapeout submission`" in found
    monkeypatch.setattr(cli_tapeout, "REPO", repo)
    monkeypatch.setattr(cli_tapeout, "project", lambda: proj)
    assert cli.main(["tapeout", "submission"]) == 0
    assert "wrote lvs/wrapper/lvs_config.json" in capsys.readouterr().out
    assert tp.check(proj, repo=repo)["problems"] == []
    (repo / "third_party" / "used_external_repos.csv").write_text("repository name,commit hash\n")
    assert tp.check(proj, repo=repo)["problems"] == [
        "stale: third_party/used_external_repos.csv differs from what `pqsoc tapeout submission` writes now: run it"]


def test_preflight_lists_the_checks_passed_here_and_what_only_a_real_run_passes(repo):
    """#35 deliverable 5: per macro, `pqsoc pnr check`'s verdicts (reports/pnr_check.json) and
    what only a real run can pass; a failed one is a problem of the check, a missing report a
    missing figure."""
    write_reports(repo)
    m = tp.build(PROJECT, repo)
    assert tp.validate(m) == []
    assert m["preflight"]["blk"] == {"status": "measured", "report": "reports/pnr_check.json", "block": "blk",
                                     "passed": ["LibreLane Verilator.Lint", "power reach"], "failed": [],
                                     "only_a_real_run": ["LVS"]}
    assert m["preflight"]["wrapper"]["block"] == "caravel"
    data = json.loads((repo / "reports" / "pnr_check.json").read_text())
    data["blocks"]["blk"]["checks"][1] = {"check": "power reach", "ok": False, "detail": "35 rows unpowered"}
    (repo / "reports" / "pnr_check.json").write_text(json.dumps(data))
    tp.write(PROJECT, repo)
    assert "failed: preflight blk power reach: 35 rows unpowered" in problems(repo)
    (repo / "reports" / "pnr_check.json").unlink()
    m = tp.build(PROJECT, repo)
    assert m["preflight"]["blk"]["status"] == "missing" and tp.validate(m) == []


def test_conformance_failed_sampled_missing_and_stale(repo):
    """#36: NIST ACVP conformance per mode from reports/acvp.json (`pqsoc acvp report`): a failed
    case, a sample (not every case) and a mode without a run are problems of the check; no
    report is a missing figure, never a number; a design change after the run makes it stale."""
    write_reports(repo)
    stamp = {"commit": head(repo), "dirty": []}
    write_acvp(repo, stamp, failed=2)
    tp.write(PROJECT, repo)
    assert tp.validate(json.loads((repo / "tapeout.json").read_text())) == []
    assert "failed: conformance ML-KEM keyGen: 2 of 75 NIST ACVP cases failed (iss, reports/acvp.json)" \
        in problems(repo)
    write_acvp(repo, stamp, sample={"perGroup": 1, "seed": "0"})
    tp.write(PROJECT, repo)
    assert ("not-run: conformance ML-DSA sigVer: 3 of 75 NIST ACVP cases passed, the others not run: "
            "a sample, 1 per group (iss, reports/acvp.json)") in problems(repo)
    write_acvp(repo, stamp, modes=("ML-KEM keyGen",))
    tp.write(PROJECT, repo)
    assert problems(repo) == ["missing: conformance.ML-DSA sigVer: reports/acvp.json has no run of ML-DSA sigVer"]
    (repo / "reports" / "acvp.json").unlink()
    m = tp.build(PROJECT, repo)
    assert tp.validate(m) == []
    assert m["conformance"]["ML-KEM keyGen"] == {"status": "missing", "reason": "reports/acvp.json does not exist",
                                                 "report": "reports/acvp.json"}
    tp.write(PROJECT, repo)
    assert [p for p in problems(repo) if "conformance" in p] == [
        "missing: conformance.ML-KEM keyGen: reports/acvp.json does not exist",
        "missing: conformance.ML-DSA sigVer: reports/acvp.json does not exist"]
    write_acvp(repo, stamp)
    tp.write(PROJECT, repo)
    assert problems(repo) == []
    (repo / "rtl" / "blk.v").write_text("module blk; wire w; endmodule\n")
    commit_all(repo, "design change")
    tp.write(PROJECT, repo)
    assert any(p.startswith("stale: reports/acvp.json was made at ") and "rtl/blk.v" in p for p in problems(repo))
