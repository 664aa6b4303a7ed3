# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""`pqsoc sca tvla keccak_masked` (issue #38, CI-sized): the masked Keccak-f core passes the
first-order t-test, its seeded leaks (no fresh bits in the DOM ANDs; the input unshared) are
flagged, and the power traces are the registers' Hamming distances the RTL has (the model is the
RTL register for register: test_keccak_masked.py)."""
import json

import numpy as np
import pytest

from ip.kmac.dv import tvla_keccak as tk
from pqsoc import cli


def _run(tmp_path, name, traces, *flags):
    out = tmp_path / f"{name}.json"
    assert cli.main(["sca", "tvla", name, "--traces", str(traces), "--json", str(out), *flags]) == 0
    assert out.with_suffix(".png").is_file()
    return json.loads(out.read_text())


def test_the_masked_core_passes_at_first_order(tmp_path):
    rep = _run(tmp_path, "keccak_masked", 40000, "--expect-pass")
    o = rep["orders"]["1"]
    assert not o["leaks"] and o["max_abs_t"] < 4.5
    assert set(o["units"]) == set(tk.UNITS)
    assert rep["cycles"] == 98 and sum(rep["traces"].values()) == 40000   # the load + 97 edges


# Without fresh bits the leak shows only in the last compression's transitions (the others are
# between rotated lanes, so each flop toggles between bits of one share): 20 000 traces.
@pytest.mark.parametrize("leak, traces", [("no_fresh", 20000), ("no_mask", 200)])
def test_seeded_leaks_are_flagged(tmp_path, leak, traces):
    rep = _run(tmp_path, f"keccak_masked_{leak}", traces, "--expect-leak", "--batch", str(traces // 20))
    assert rep["orders"]["1"]["leaks"] and rep["first_flagged_at_traces"] <= traces
    assert rep["orders"]["1"]["units"]["s0"]["cycles_confirmed"] > 0


def test_the_traces_are_the_registers_hamming_distances():
    """One trace by hand from the model's registers: the load, then every edge."""
    from ip.kmac.model import masked_keccak as mk
    fixed = np.arange(25, dtype=np.uint64) * np.uint64(0x9E3779B97F4A7C15)
    p = tk.traces("keccak_masked", fixed, np.array([0]), np.random.default_rng(3))[0]
    rng = np.random.default_rng(3)
    x = rng.integers(0, 1 << 64, size=(1, 25), dtype=np.uint64, endpoint=False)
    x[0] = fixed
    r = rng.integers(0, 1 << 64, size=(1, 25), dtype=np.uint64, endpoint=False)
    pop = lambda a: int(sum(bin(int(v)).count("1") for v in a[0]))     # noqa: E731
    assert list(p[0]) == [pop(x ^ r), pop(r), 0, 0, pop(x ^ r) + pop(r)]
    prev = (x ^ r, r, np.zeros_like(r), np.zeros_like(r))
    w = 64 // tk.SLICES
    regs = list(mk.permute(x ^ r, r, lambda: rng.integers(0, 1 << w, size=(1, 25), dtype=np.uint64), tk.SLICES))
    assert len(regs) + 1 == p.shape[0]
    for k, now in enumerate(regs, start=1):
        hd = [pop(a ^ b) for a, b in zip(now, prev)]
        assert list(p[k]) == hd + [sum(hd)], f"edge {k}"
        prev = now


def test_a_campaign_of_chunks_is_the_serial_assessment(tmp_path, monkeypatch):
    """Two tasks of 2 000 traces on the campaign layer report the t values of one run of 4 000 in
    batches of 2 000 (each batch's inputs come from the number of its first trace)."""
    from pqsoc.cli import campaign
    monkeypatch.setattr(campaign, "CAMPAIGNS", tmp_path)
    serial = _run(tmp_path, "keccak_masked_no_fresh", 4000, "--batch", "2000")
    out = tmp_path / "c.json"
    assert cli.main(["campaign", "tvla", "keccak_masked_no_fresh", "--traces", "4000", "--chunk", "2000",
                     "--workers", "2", "--name", "t_keccak", "--json", str(out)]) == 0
    merged = json.loads(out.read_text())
    assert merged["traces"] == serial["traces"] and merged["engine"] == "rtl"
    for u, s in serial["orders"]["1"]["units"].items():
        assert merged["orders"]["1"]["units"][u]["max_abs_t"] == pytest.approx(s["max_abs_t"], abs=0.011)


def test_bad_requests_are_refused_by_name(capsys, tmp_path, monkeypatch):
    assert cli.main(["sca", "tvla", "keccak_nosuch", "--traces", "10"]) == 2
    assert "keccak_nosuch" in capsys.readouterr().err
    assert cli.main(["sca", "tvla", "keccak_masked_no_fresh", "--traces", "10", "--engine", "gls"]) == 2
    assert "no such mode" in capsys.readouterr().err
    # the gate-level model needs the netlist of `pqsoc synth keccak_masked`: without one, it says so
    from pqsoc.flow import synth
    monkeypatch.setattr(synth, "synth_dir", lambda name: tmp_path / "no_synth" / name)
    assert cli.main(["sca", "tvla", "keccak_masked", "--traces", "10", "--engine", "gls"]) == 2
    assert "pqsoc synth keccak_masked" in capsys.readouterr().err
