# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""The tape-out floorplans (soc/caravel_floorplan.py) on fixture logic areas: the ACC macro is
sized and passes its checks, the wrapper fits or not depending on the CPU memories, `pqsoc
floorplan` writes its reports and exits non-zero when the plan does not fit, and ppa.json's
`floorplan` is the check's result."""
import json

import pytest

from ip.acc import block as acc_block
from pqsoc import FlowError
from pqsoc.flow import floorplan as fpm
from soc import caravel_floorplan as cf

# Fixture figures of the order of the synthesized blocks' (reports/ppa.json), not read from them.
LOGIC = {"acc": 1.108e6, "kmac": 0.2125e6, "top": 0.224e6}
PORTS = {"acc": 706, "kmac": 706}
INSTANCES = tuple((f"mem.ram{k}", acc_block.SRAM_MACRO) for k in range(16))


@pytest.fixture(scope="module")
def ctx(pdk_root, caravel_root):
    return cf.context(logic_um2=LOGIC, port_bits=PORTS, instances=INSTANCES)


@pytest.fixture(scope="module")
def accs(ctx):
    return cf.acc_candidates(ctx)


def test_acc_macro_is_sized_and_checked(ctx, accs):
    per = {a.notes["per_shelf"]: a for a, _ in accs}
    assert 4 in per                      # 4 SRAMs a shelf: the only shape lower than the wrapper
    acc = per[4]
    res = fpm.check(acc)
    assert all(r["ok"] for r in res), res
    assert len(acc.placements) == 16 and {p.orient for p in acc.placements.values()} <= set(fpm.ORIENTATIONS)
    util = LOGIC["acc"] / fpm.cell_area(acc)
    assert 0.44 < util <= cf.MAX_UTIL    # the die is the smallest that holds the logic at MAX_UTIL
    w = ctx.wrapper
    assert acc.die.w <= w.core[2] - w.core[0] and acc.die.h <= w.core[3] - w.core[1]


def test_wrapper_fits_or_not_by_cpu_memories(ctx, accs):
    small = cf.best_wrapper(ctx, accs, 4 * 1024, 2 * 1024)
    assert all(r["ok"] for r in small["results"]), small["results"]
    fp = small["fp"]
    assert {"acc", "kmac", "boot_ram0", "boot_ram1", "main_sram0"} == set(fp.placements)
    assert fp.straps.layer == "met5" and fp.max_util == cf.MAX_UTIL
    big = cf.best_wrapper(ctx, accs, 16 * 1024, 8 * 1024)
    failed = {r["name"] for r in big["results"] if not r["ok"]}
    assert "inside_core" in failed      # 12 CPU macros have no room beside a 7.5 mm2 ACC


def test_memory_option_figures(ctx, accs, monkeypatch):
    monkeypatch.setattr(cf, "BOOT_RAM_OPTIONS_KIB", (16, 4))
    monkeypatch.setattr(cf, "MAIN_SRAM_OPTIONS_KIB", (2,))
    monkeypatch.setattr(cf, "ACC_UTIL_STEPS", ())
    opts = {o["boot_ram_kib"]: o for o in cf.memory_options(ctx, accs)}
    assert opts[4]["cpu_macros"] == 3 and opts[4]["macros"] == 19 and opts[4]["fits"]
    assert opts[4]["macro_um2"] == pytest.approx(19 * ctx.sram.w * ctx.sram.h, abs=1)
    assert opts[4]["top_utilisation"] == pytest.approx(LOGIC["top"] / opts[4]["top_cell_rows_um2"], abs=1e-4)
    assert not opts[16]["fits"] and opts[16]["fits_with_acc_utilisation"] is None
    assert opts[16]["area_lower_bound_um2"] > opts[4]["area_lower_bound_um2"]


def test_floorplan_command_reports_and_exit_code(ctx, monkeypatch, tmp_path, capsys):
    from pqsoc import cli
    monkeypatch.setattr(cf, "context", lambda *a, **k: ctx)
    monkeypatch.setattr(cf, "REPORTS", tmp_path)
    monkeypatch.setattr(cf, "BOOT_RAM_OPTIONS_KIB", (4,))
    monkeypatch.setattr(cf, "MAIN_SRAM_OPTIONS_KIB", (2,))
    monkeypatch.setattr(cf, "ACC_UTIL_STEPS", ())
    monkeypatch.setattr(cf, "current_sizes", lambda: (16 * 1024, 8 * 1024))
    assert cli.main(["floorplan"]) == 1
    assert "does NOT fit" in capsys.readouterr().err
    data = json.loads((tmp_path / "floorplan.json").read_text())
    assert data["fits"] is False and data["memory_plan"]["boot_ram_bytes"] == 16 * 1024
    # the flat study: 16 + 8 KiB (28 macros) is more than either layout holds, 4 + 4 KiB is studied
    assert "do not fit shelves" in data["flat_study"]["hybrid 16+8 KiB"]["error"]
    assert set(data["flat_study"]["hybrid 4+4 KiB"]["band_utilisation"]) == {f"band{k}" for k in range(4)}
    assert {r["architecture"] for r in data["architectures"]} == {"nested", "hard_logic", "flat", "flat_1k"}
    assert data["architecture"] == "flat" and "do not fit shelves" in data["wrapper"]["error"]
    assert not (tmp_path / "floorplan.png").exists()                  # no picture of a plan that fails
    assert (tmp_path / "floorplan_nested.png").stat().st_size > 10_000
    assert "Does NOT fit" in (tmp_path / "floorplan.md").read_text()
    monkeypatch.setattr(cf, "current_sizes", lambda: (6 * 1024, 2 * 1024))
    assert cli.main(["floorplan"]) == 0
    data = json.loads((tmp_path / "floorplan.json").read_text())
    assert data["fits"] and data["wrapper"]["placed"] and data["nested"]["acc"]["fits"]
    assert set(data["wrapper"]["macros"]["imem0"]) >= {"x_um", "y_um", "orientation", "pin_edges"}
    assert len(data["wrapper"]["macros"]) == 20 and all(c["ok"] for c in data["wrapper"]["channels"])
    verdicts = {c["name"]: c["ok"] for c in data["wrapper"]["checks"]}
    assert verdicts["routing"] and verdicts["power_reach"] and verdicts["band_utilisation"]
    assert (tmp_path / "floorplan.png").stat().st_size > 10_000
    md = (tmp_path / "floorplan.md").read_text()
    assert "| 4 | 2 | 19 (3) |" in md and "| routing | pass |" in md and "layout `hybrid`" in md
    # twelve times the planning figure of nets between the ACC's control and datapath: placed,
    # but channels over; the command says so and fails
    from soc import flat_floorplan as ff
    monkeypatch.setattr(ff, "CONTROL_DATAPATH_NETS", 3000)
    assert cli.main(["floorplan"]) == 1
    data = json.loads((tmp_path / "floorplan.json").read_text())
    verdicts = {c["name"]: c["ok"] for c in data["wrapper"]["checks"]}
    assert not data["fits"] and data["wrapper"]["placed"] and verdicts["routing"] is False
    assert "| routing | FAIL |" in (tmp_path / "floorplan.md").read_text()


def test_pnr_check_runs_the_floorplan_check(ctx, monkeypatch, capsys):
    from pqsoc import cli
    monkeypatch.setattr(cf, "context", lambda *a, **k: ctx)
    monkeypatch.setattr(cf, "current_sizes", lambda: (16 * 1024, 8 * 1024))
    assert cli.main(["pnr", "check", "keccak", "--floorplan"]) == 1
    assert "floorplan" in capsys.readouterr().err
    monkeypatch.setattr(cf, "current_sizes", lambda: (6 * 1024, 2 * 1024))
    assert cli.main(["pnr", "check", "keccak", "--floorplan"]) == 0
    assert ("user_project_wrapper (flat) with CPU boot RAM 6 KiB + main SRAM 2 KiB, hybrid layout: fits"
            in capsys.readouterr().out)


def test_ppa_floorplan_entry_is_the_check(ctx, monkeypatch):
    from soc import flat_floorplan as ff
    monkeypatch.setattr(cf, "context", lambda *a, **k: ctx)
    monkeypatch.setattr(cf, "current_sizes", lambda: (6 * 1024, 2 * 1024))
    e = ff.ppa_entry({})
    assert e["fits"] and e["report"].startswith("reports/floorplan.json") and e["layout"] == "hybrid"
    assert {c["name"] for c in e["checks"]} >= {"no_overlap", "pin_channels", "power", "utilisation",
                                                 "power_reach", "routing", "band_utilisation"}
    monkeypatch.setattr(cf, "current_sizes", lambda: (8 * 1024, 4 * 1024))
    assert not ff.ppa_entry({})["fits"]


def test_missing_synthesis_falls_back_to_the_committed_inputs(monkeypatch, tmp_path, pdk_root):
    """A fresh clone (no syntheses) uses pnr/floorplan_inputs.json; without it either, the
    missing synthesis is named."""
    from pqsoc.flow import synth
    monkeypatch.setattr(synth, "synth_dir", lambda name: tmp_path / name)
    logic, sources, ports = cf.logic_figures()
    committed = json.loads(cf.INPUTS.read_text())
    assert ports == {n: committed[n]["port_bits"] for n in ("acc", "kmac")}
    assert "committed; no local synthesis" in sources["acc"] and logic["top"] > 0
    monkeypatch.setattr(cf, "INPUTS", tmp_path / "missing.json")
    with pytest.raises(FlowError, match=r"logic area of block acc: no netlist for acc: run `pqsoc synth acc` first"):
        cf.logic_figures()


def test_inputs_that_differ_from_the_syntheses_are_refused(monkeypatch, tmp_path, pdk_root):
    fresh = cf.synthesized_inputs() if all((cf.REPO / "build" / "synth" / n / "synth.json").is_file()
                                          for n in cf.BLOCKS) else None
    if fresh is None:
        pytest.skip("no local syntheses of acc, kmac and soc (a fresh clone)")
    stale = json.loads(json.dumps(fresh))
    stale["kmac"]["area_um2"] += 1.0
    path = tmp_path / "inputs.json"
    path.write_text(json.dumps(stale))
    monkeypatch.setattr(cf, "INPUTS", path)
    with pytest.raises(FlowError, match=r"differs from the stored syntheses of kmac: run `pqsoc floorplan --update-inputs`"):
        cf.logic_figures()


def test_acc_instances_from_its_verilog(pdk_root):
    names = [n for n, _ in cf.acc_instances()]
    assert len(names) == 16 and len(set(names)) == 16
    assert sum(n.startswith("imem.") for n in names) == acc_block.IMEM_SIZE // acc_block.MACRO_BYTES
    assert sum(n.startswith("dmem.") for n in names) == acc_block.DMEM_SIZE // acc_block.MACRO_BYTES


def test_macro_pdn_from_the_pdk(pdk_root):
    """A hard macro's own grid: widths from the PDK's OpenLane config, pitch and offset from it or
    (the 2021 subset has none) the overlay's open_pdks values."""
    from pqsoc.flow import pdk_overlay
    from pqsoc.flow.pdk import find_pdk
    p = cf.pdk_macro_pdn(find_pdk())
    added = {k: float(v) for k, v, _ in pdk_overlay.PDK_ADDITIONS if k.startswith("FP_PDN_")}
    assert p["FP_PDN_VWIDTH"] == 1.6 and p["FP_PDN_HSPACING"] == 1.7
    assert p["FP_PDN_VPITCH"] == added.get("FP_PDN_VPITCH", p["FP_PDN_VPITCH"]) > 100


def test_architectures_by_area(ctx, monkeypatch):
    """#35 deliverable 1: the candidates by area. Every SRAM at the wrapper level takes 22 x (the
    macro + its halo); flat logic then needs its area over the rows left; the 1 KiB macro needs
    twice the macros and does not leave room for the logic; the nested ACC takes its die."""
    monkeypatch.setattr(cf, "current_sizes", lambda: (8 * 1024, 4 * 1024))
    rows = {r["architecture"]: r for r in cf.architectures(ctx)}
    core = (ctx.wrapper.core[2] - ctx.wrapper.core[0]) * (ctx.wrapper.core[3] - ctx.wrapper.core[1])
    one = (ctx.sram.w + 2 * cf.HALO_UM) * (ctx.sram.h + 2 * cf.HALO_UM)
    flat = rows["flat"]
    assert flat["sram_macros"] == 22 and abs(flat["macros_with_halo_um2"] - 22 * one) < 1
    assert abs(flat["rows_at_most_um2"] - (core - 22 * one)) < 1
    assert abs(flat["utilisation_at_least"] - sum(LOGIC.values()) / (core - 22 * one)) < 1e-3
    assert rows["flat_1k"]["sram_macros"] == 44
    assert rows["hard_logic"]["flat_logic_um2"] == round(LOGIC["top"], 1)
    assert rows["nested"]["hard_macro_dies_um2"] > 16 * ctx.sram.w * ctx.sram.h


def test_flat_study_hybrid(ctx):
    """soc/flat_floorplan.py, the hybrid layout: every SRAM turned so that port 0's edge (the
    abstract's south, 72 pins) lies on the edge of the band it faces; no cell row between
    back-to-back shelves or between the macros of a shelf; the streets of the three-macro shelves
    line up into one spine wider than a macro; memories from the south: CPU, DMEM, IMEM."""
    from soc import flat_floorplan as ff
    fp, bands = ff.floorplan(ctx, 4096, 4096, "hybrid")
    assert len(fp.placements) == 20 and set(bands) == {f"band{k}" for k in range(4)}
    # band 0: the pin band along the south edge (Caravel's Wishbone and LA pins), no SRAM faces it
    assert bands["band0"]["faces"] == [] and bands["band0"]["strip"][0] == fp.core.y0
    where = {n: b for b, v in bands.items() for n in v["faces"]}
    assert set(where) == set(fp.placements)
    for name, pl in fp.placements.items():
        r = pl.rect(ctx.sram)
        y0, y1 = bands[where[name]]["strip"]
        port0 = r.y0 if pl.orient == "N" else r.y1      # N: the abstract's south edge at the bottom
        # on the band's edge, or less than a row from it (a row starts on the row grid)
        assert -1e-6 <= (port0 - y1 if pl.orient == "N" else y0 - port0) < fp.row_h, (name, pl, bands[where[name]])
    shelves = {}
    for pl in fp.placements.values():
        shelves.setdefault(pl.y, []).append(pl.rect(ctx.sram))
    spine = (fp.core.x0, fp.core.x1)
    for y, rects in sorted(shelves.items()):
        rects.sort(key=lambda r: r.x0)
        for a, b in zip(rects, rects[1:]):
            if b.x0 - a.x1 < ctx.sram.w:                 # neighbours: no row between them
                assert not [1 for ry, x0, x1 in fp.rows if a.y0 <= ry < a.y1 and a.x1 < x1 and x0 < b.x0]
        if len(rects) <= ff.PER_SHELF:
            gap = max(zip(rects, rects[1:]), key=lambda ab: ab[1].x0 - ab[0].x1)
            spine = (max(spine[0], gap[0].x1), min(spine[1], gap[1].x0))
    assert [len(shelves[y]) for y in sorted(shelves)] == [4, 3, 3, 3, 3, 4]
    assert spine[1] - spine[0] > ctx.sram.w, spine
    ys = sorted(shelves)
    for ya, yb in zip(ys, ys[1:]):
        if yb - (ya + ctx.sram.h) < 2 * ff.HALO_Y_UM + fp.row_h:    # back to back: no row between
            over = [(a.x0, a.x1) for a in shelves[ya] for b in shelves[yb] if min(a.x1, b.x1) > max(a.x0, b.x0)]
            assert over and not [1 for ry, x0, x1 in fp.rows if ya + ctx.sram.h <= ry < yb - 1e-6
                                 and any(min(x1, o1) > max(x0, o0) for o0, o1 in over)]
    order = [n for n, _ in sorted(fp.placements.items(), key=lambda kv: (kv[1].y, kv[1].x))]
    owners = [ff.owner(n) for n in order]
    assert owners == sorted(owners, key=ff.MEMORY_ORDER.index)
    assert ff.shelves(list("abcdefghij"), (3, 3, 4)) == [list("abc"), list("def"), list("ghij")]
    with pytest.raises(FlowError, match="do not fit shelves"):
        ff.shelves(list("abcde"), (2, 2))


def test_the_kmac_s_logic_goes_where_the_bands_have_room(ctx, pdk_root, caravel_root):
    """The KMAC owns no memory (flat_floorplan.FREE_OWNER): its logic is water-filled into the
    bands that face memories, so that those it reaches end at one utilisation and a band above it
    (here none) or the pin band gets none; all of it is placed. Its nets: the side-load to the
    datapath's logic, the rest of its ports to the CPU's, from the centroid of its own logic."""
    from soc import flat_floorplan as ff
    big = cf.context(logic_um2={**LOGIC, "kmac": 0.55e6}, port_bits=PORTS, instances=INSTANCES)
    fp, bands = ff.floorplan(big, 6144, 2048, "hybrid")
    kmac = {n: b["logic"].get(ff.FREE_OWNER, 0.0) for n, b in bands.items()}
    assert kmac["band0"] == 0.0 and abs(sum(kmac.values()) - 0.55e6) < 1.0
    rows = ff.band_rows(fp, bands)
    util = {n: sum(b["logic"].values()) / rows[n]["area"] for n, b in bands.items() if b["faces"]}
    reached = [u for n, u in util.items() if kmac[n] > 0]
    assert len(reached) == 3 and max(reached) - min(reached) < 1e-6
    assert all(u <= max(reached) + 1e-6 for u in util.values())
    # the same logic with the KMAC in the datapath's bands would put them over the plan
    dp = {n: sum(v for o, v in b["logic"].items() if o != ff.FREE_OWNER) for n, b in bands.items()}
    dp_bands = [n for n, b in bands.items() if "datapath" in b["logic"]]
    share = {n: bands[n]["logic"]["datapath"] / sum(bands[m]["logic"]["datapath"] for m in dp_bands) for n in dp_bands}
    assert max((dp[n] + 0.55e6 * share[n]) / rows[n]["area"] for n in dp_bands) > max(reached)
    nets = ff.nets(big, fp, bands, 600, 799, 686)
    between = {(n.a.name, n.b.name): n.count for n in nets if n.a.name.endswith(" logic")}
    assert between[("cpu logic", "kmac logic")] == 86 and between[("datapath logic", "kmac logic")] == 600
    assert ("cpu logic", "datapath logic") not in between


def test_flat_study_figures(ctx, monkeypatch):
    """The study's findings on the fixture areas: the comb's seven shelves leave less height than
    its bands' channels need (the nets of the macros west of the street run along the band); the
    hybrid holds 20 SRAMs, not 21; with the CPU's 6 + 2 KiB every macro is placed and checked,
    every row powered, every band at most ARCH_MAX_UTIL and every channel within the margin:
    Caravel's Wishbone pins (under the bottom shelf's west end) fill the bottom shelf's nearest
    gaps and run east along the pin band to the next ones. Without Caravel's pins nothing runs
    along the pin band."""
    from soc import caravel as caravel_soc
    from soc import flat_floorplan as ff
    ports = {"acc": 799, "kmac": 686, "sideload": 600}
    with pytest.raises(FlowError, match="for their channels"):
        ff.study(ctx, 8192, 2048, ports=ports, layout="comb")
    with pytest.raises(FlowError, match="21 SRAMs do not fit"):
        ff.study(ctx, 8192, 2048, ports=ports, layout="hybrid")
    hy = ff.study(ctx, 6144, 2048, ports=ports, layout="hybrid")
    assert all(r["ok"] for r in hy["results"]), hy["results"]
    assert hy["placed"] and hy["unpowered_um2"] == 0
    assert max(hy["band_utilisation"].values()) <= cf.ARCH_MAX_UTIL
    assert hy["fits"] and not hy["routing_over"]
    assert hy["routing_worst"]["ratio"] <= 0.5

    def along_pin_band(st):
        bottom = min(pl.y for pl in st["fp"].placements.values())
        return [ln for ln in st["routing"] if ln["axis"] == "x" and ln["segment"][1] <= bottom + 1e-6
                and ln["demand"] > 0]
    assert any(any(k.startswith("pin wbs_") for k in ln["crossing"]) for ln in along_pin_band(hy))
    monkeypatch.setattr(caravel_soc, "used_pins", lambda: ())
    bare = ff.study(ctx, 6144, 2048, ports=ports, layout="hybrid")
    assert bare["fits"] and not bare["routing_over"]
    assert not any(any(k.startswith("pin ") for k in ln["crossing"]) for ln in along_pin_band(bare))
    st = ff.summary(hy)
    assert st["assumptions"]["routing_margin"] == 0.5 and st["layout"] == "hybrid"


def test_used_pins_are_caravels_and_the_wrappers():
    """The wrapper pins the study routes to the SoC's logic exist in Caravel's golden DEF: the
    Wishbone (106), the LA bits read and driven, the interrupts, user_clock2, the pin plan's
    mprj_io."""
    from soc import caravel as caravel_soc
    from soc import flat_floorplan as ff
    pins = caravel_soc.used_pins()
    where = ff.wrapper_pins()
    assert set(pins) <= set(where) and len(set(pins)) == len(pins)
    assert sum(p.startswith(("wb_", "wbs_")) for p in pins) == 106
    assert all(where[p][1] < 0 for p in pins if p.startswith(("wb", "la_", "user_")))     # the south edge
    assert "la_data_out[0]" in pins and "la_data_out[100]" not in pins    # a constant is no net
