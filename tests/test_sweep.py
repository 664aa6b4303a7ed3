# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""`pqsoc campaign sweep` (issue #37): synthesis + STA over a grid, a PPA point per task in a
folder of its own, and the Pareto front of area against fmax."""
import json

from pqsoc.campaign import pareto


def test_the_front_keeps_the_points_nothing_beats():
    pts = [{"k": "a", "area": 10, "f": 100}, {"k": "b", "area": 12, "f": 120}, {"k": "c", "area": 12, "f": 110},
           {"k": "d", "area": 9, "f": 90}, {"k": "e", "area": 10, "f": 100}, {"k": "g", "area": 15, "f": 119}]
    # c is beaten by b (same area, faster), g by b (smaller and faster); a and e tie: both stay
    assert [p["k"] for p in pareto.front(pts, "area", "f")] == ["d", "a", "e", "b"]


def test_a_sweep_point_at_the_blocks_settings_is_the_flows_synthesis(pdk_root, tmp_path, monkeypatch, capsys):
    """Two points of the Keccak core (its own period and ABC settings; without ABC's choice
    computation): each a task; the first point's netlist is the one `pqsoc synth keccak` makes
    (the same hash, cells and area), each point has STA figures at both corners, the Pareto front
    is reported, and the picture is written."""
    from pqsoc import cli
    from pqsoc.cli import campaign
    from pqsoc.flow import block as blocks_mod
    from pqsoc.flow import synth
    monkeypatch.setattr(campaign, "CAMPAIGNS", tmp_path)
    period = blocks_mod.get("keccak").period_ns
    out = tmp_path / "sweep.json"
    assert cli.main(["campaign", "sweep", "keccak", "--periods", f"{period:g}", "--abc-dch", "block,off",
                     "--workers", "2", "--name", "sw", "--json", str(out)]) == 0
    text = capsys.readouterr().out
    assert text.rstrip().endswith("2 passed, 0 failed") and "wrote " in text
    assert (tmp_path / "sw_pareto.png").stat().st_size > 1000
    data = json.loads(out.read_text())
    points = {p["key"]: p for p in data["points"]}
    own, off = points[f"keccak-p{period:g}-dchblock"], points[f"keccak-p{period:g}-dchoff"]
    ref = synth.synth("keccak")
    assert (own["cells"], own["area_um2"]) == (ref["cells"], ref["area_um2"]) and own["abc_dch"] is True
    point_json = json.loads((campaign.REPO / "build/sweep" / own["key"] / "synth" / "synth.json").read_text())
    assert point_json["netlist_sha256"] == ref["netlist_sha256"]
    assert off["abc_dch"] is False and off["period_ns"] == period
    for p in (own, off):
        assert p["fmax_tt_mhz"] > p["fmax_ss_mhz"] > 0
    best = pareto.front(list(points.values()), "area_um2", "fmax_tt_mhz")
    assert data["pareto"]["keccak"] == [p["key"] for p in best] and best


def test_a_sweep_refuses_bad_grids(capsys):
    from pqsoc import cli
    assert cli.main(["campaign", "sweep", "keccak", "--periods", "10,abc"]) == 2
    assert "--periods '10,abc'" in capsys.readouterr().err
    assert cli.main(["campaign", "sweep", "keccak", "--periods", "10", "--abc-dch", "maybe"]) == 2
    assert "not maybe" in capsys.readouterr().err
    assert cli.main(["campaign", "sweep", "nosuch", "--periods", "10"]) == 2
    assert "unknown block 'nosuch'" in capsys.readouterr().err
