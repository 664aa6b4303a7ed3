# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""The submission files written from the project's facts (`pqsoc tapeout submission`,
pqsoc/flow/submission.py): third_party/used_external_repos.csv and
lvs/user_project_wrapper/lvs_config.json are committed, are what their generator writes, parse,
name the wrapper's hard macros and SRAM macro, use only the precheck's path variables; and
`pqsoc tapeout check` names a missing or stale one."""
import csv
import io
import json

import pytest

from pqsoc import REPO
from pqsoc.cli import blocks
from pqsoc.cli import tapeout as cli_tapeout
from pqsoc.flow import submission as sf
from pqsoc.flow import tapeout as tp
from soc import silicon
from soc.caravel_openlane import HARD_MACROS

CSV = REPO / sf.EXTERNAL_REPOS_CSV
LVS = REPO / sf.lvs_config_path("user_project_wrapper")


@pytest.fixture(scope="module")
def project():
    return cli_tapeout.project()


def test_committed_files_are_the_generators_output(project):
    for rel, text in sf.files(project.external_repos, project.lvs).items():
        assert (REPO / rel).is_file(), f"{rel} is not written: run `pqsoc tapeout submission`"
        assert (REPO / rel).read_text() == text, f"{rel} is stale: run `pqsoc tapeout submission`"


def test_external_repos_csv_parses_and_names_the_pinned_repositories(project):
    rows = list(csv.reader(io.StringIO(CSV.read_text())))
    assert rows[0] == ["repository name", "commit hash"]
    assert all(len(r) == 2 for r in rows)
    repos = {url: commit for url, commit in rows[1:]}
    setup = (REPO / "tools" / "setup.sh").read_text()
    from pqsoc.flow.pdk import open_pdks_rev
    assert f"CARAVEL_COMMIT={repos['https://github.com/chipfoundry/caravel_user_project']}" in setup
    assert repos["https://github.com/RTimothyEdwards/open_pdks"] == open_pdks_rev()
    import pythondata_cpu_ibex
    assert repos["https://github.com/lowRISC/ibex"] == pythondata_cpu_ibex.data_git_hash   # the pinned package's
    assert "https://github.com/enjoy-digital/litex" in repos


def test_a_pin_without_its_commit_stops_the_generator(monkeypatch):
    from pqsoc import FlowError
    monkeypatch.setattr(cli_tapeout, "RELEASES", {k: v for k, v in cli_tapeout.RELEASES.items() if k[0] != "litex"}
                        | {("litex", "1999.01"): ("https://github.com/enjoy-digital/litex", "0" * 40)})
    with pytest.raises(FlowError, match=r"requirements.txt pins litex==.*has no repository and commit"):
        cli_tapeout.external_repos()


def test_lvs_config_names_the_hard_macros_the_sram_and_the_top():
    cfg = json.loads(LVS.read_text())
    assert cfg["TOP_SOURCE"] == "user_project_wrapper" and cfg["TOP_LAYOUT"] == "$TOP_SOURCE"
    assert cfg["LAYOUT_FILE"] == "$UPRJ_ROOT/gds/$TOP_LAYOUT.gds"
    cells = [blocks.get(n).top for n in HARD_MACROS]
    # gate-level netlists: every hard macro before the wrapper that instantiates it
    assert cfg["LVS_VERILOG_FILES"] == [f"$UPRJ_ROOT/verilog/gl/{c}.v" for c in cells] + \
        ["$UPRJ_ROOT/verilog/gl/user_project_wrapper.v"]
    assert f"$PDK_ROOT/$PDK/libs.ref/sky130_sram_macros/spice/{silicon.SRAM_MACRO}.spice" in cfg["LVS_SPICE_FILES"]
    assert "$PDK_ROOT/$PDK/libs.ref/sky130_fd_sc_hd/spice/sky130_fd_sc_hd.spice" in cfg["LVS_SPICE_FILES"]
    assert sf.machine_paths(cfg) == []
    for key in ("TOP_SOURCE", "TOP_LAYOUT", "LAYOUT_FILE", "LVS_SPICE_FILES", "LVS_VERILOG_FILES"):
        assert cfg[key], key                   # the precheck's required variables
    # a value names only keys set above it
    assert list(cfg).index("TOP_SOURCE") < list(cfg).index("TOP_LAYOUT") < list(cfg).index("LAYOUT_FILE")


def test_tapeout_check_no_longer_lists_them_as_not_written(project):
    sub = {s["path"]: s for s in tp.submission(project, REPO)}
    for rel in (sf.EXTERNAL_REPOS_CSV, sf.lvs_config_path("user_project_wrapper"), "LICENSE"):
        assert sub[rel]["exists"], rel
    assert sub[sf.EXTERNAL_REPOS_CSV]["made_by"] == tp.SUBMISSION_CMD
    assert not any("not written yet" in s["made_by"] or "not generated yet" in s["made_by"] for s in sub.values())


def test_check_names_a_missing_or_stale_submission_file(tmp_path):
    repos = (sf.ExternalRepo("https://github.com/a/b", "1" * 40, "x", "y"),)
    lvs = sf.LvsInputs(top="wrapper", hard_macros=("blk",), std_cell_library="sky130_fd_sc_hd",
                       sram_macros=("ram",))
    assert sf.problems(repos, lvs, tmp_path, "cmd") == [
        "missing: third_party/used_external_repos.csv: run `cmd`", "missing: lvs/wrapper/lvs_config.json: run `cmd`"]
    sf.write(repos, lvs, tmp_path)
    assert sf.problems(repos, lvs, tmp_path, "cmd") == []
    (tmp_path / "lvs/wrapper/lvs_config.json").write_text("{}\n")
    assert sf.problems(repos, lvs, tmp_path, "cmd") == [
        "stale: lvs/wrapper/lvs_config.json differs from what `cmd` writes now: run it"]
    tagged = repos + (sf.ExternalRepo("https://github.com/c/d", "v1.0", "requirements.txt: d==1.0", "z"),)
    sf.write(tagged, lvs, tmp_path)
    assert sf.problems(tagged, lvs, tmp_path, "cmd") == [
        "missing: third_party/used_external_repos.csv: no commit recorded for https://github.com/c/d "
        "(release v1.0, requirements.txt: d==1.0)"]
