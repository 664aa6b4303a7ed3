# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""Session fixtures: the SoC, the firmware programs and the Verilator model are built once per
session into build/ (and reused across sessions while their inputs are unchanged)."""
import pytest

from pqsoc import BUILD


@pytest.fixture(scope="session")
def soc_dir():
    from soc.build import build
    build(BUILD / "soc")
    return BUILD / "soc"


@pytest.fixture(scope="session")
def model(soc_dir):
    from sim.run import build_model
    return build_model(soc_dir, BUILD / "sim" / "model")


@pytest.fixture(scope="session")
def firmware(soc_dir):
    """firmware(name) -> path of the built .bin."""
    from firmware import build as fw

    def get(name):
        return fw.build(name, soc_dir, BUILD / "firmware")
    return get


@pytest.fixture(scope="session")
def simulate(soc_dir, model, firmware, tmp_path_factory):
    """simulate(name, max_cycles=..., timeout_s=...) -> sim.run.Result"""
    from sim.run import run

    def go(name, max_cycles=10_000_000, timeout_s=120.0):
        return run(firmware(name), soc_dir, model.parent, tmp_path_factory.mktemp(name),
                   max_cycles, timeout_s)
    return go


@pytest.fixture
def sim_run_json(firmware, model, tmp_path, capsys):
    """sim_run_json(name, timeout_s) -> the --json result of `pqsoc sim run` on that firmware,
    which must exit 0 and report no problem."""
    import json
    from pqsoc import cli

    def go(name, timeout_s=120):
        out = tmp_path / f"{name}.json"
        assert cli.main(["sim", "run", str(firmware(name)), "--json", str(out),
                         "--timeout-s", str(timeout_s)]) == 0, capsys.readouterr()
        res = json.loads(out.read_text())
        assert res["ok"] and not res["problems"]
        return res
    return go
