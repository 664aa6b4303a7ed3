# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""The committed tapeout.json is what `pqsoc tapeout write` writes (pqsoc/cli/tapeout.py): it matches
the schema, its facts are the declarations' (clock, memories, blocks), and with the reports this
checkout has it is the generator's output. reports/ is not committed: on a fresh clone every
figure is missing with its reason, and that is what the committed file must say then."""
import json

from ip.common import SYS_CLK_PERIOD_NS
from pqsoc import REPO
from pqsoc.cli import blocks as blocks_mod
from pqsoc.cli import tapeout as cli_tapeout
from pqsoc.flow import tapeout as tp


def committed() -> dict:
    return json.loads((REPO / "tapeout.json").read_text())


def test_committed_manifest_matches_the_schema():
    assert tp.validate(committed()) == []


def test_manifest_facts_come_from_the_declarations():
    m = committed()
    assert m["clock"]["period_ns"] == SYS_CLK_PERIOD_NS and m["clock"]["mhz"] == 1e3 / SYS_CLK_PERIOD_NS
    assert m["top"] == {"module": "user_project_wrapper", "core": blocks_mod.get("soc").top, "core_block": "soc"}
    tops = {b.top for b in blocks_mod.BLOCKS.values()}
    assert all(mac["cell"] in tops for mac in m["macros"]), "a macro that is no block the flow knows"
    assert set(m["signoff"]) == {"user_project_wrapper"} | {mac["cell"] for mac in m["macros"]
                                                            if mac["role"] == "hard macro"}


def test_manifest_memory_plan_is_the_silicon_socs():
    """The macro count is the silicon SoC's (soc/silicon.py, soc/target.py), not a copied number."""
    from ip.common.sram import MACROS
    from soc import silicon
    from soc.target import SILICON_ROM_SIZE, SILICON_SRAM_SIZE
    words, bits, _ = MACROS[silicon.SRAM_MACRO]
    per_macro = words * bits // 8
    want = (silicon.ACC_IMEM_SIZE + silicon.ACC_DMEM_SIZE + SILICON_ROM_SIZE + SILICON_SRAM_SIZE) // per_macro
    plan = committed()["memory_plan"]
    assert plan["macro"] == silicon.SRAM_MACRO and plan["macro_count"] == want
    assert {x["name"]: x["bytes"] for x in plan["memories"]} == {
        "ACC IMEM": silicon.ACC_IMEM_SIZE, "ACC DMEM": silicon.ACC_DMEM_SIZE,
        "boot RAM": SILICON_ROM_SIZE, "main SRAM": SILICON_SRAM_SIZE}


def test_no_figure_without_its_report():
    """Every measured figure names a report that tapeout.json records as present."""
    m = committed()
    present = {r for r, meta in m["reports"].items() if meta["status"] == "present"}

    def walk(node):
        if isinstance(node, dict):
            if node.get("status") == "measured" and "source" in node:
                assert node["report"] in present, node
            for v in node.values():
                walk(v)
        elif isinstance(node, list):
            for v in node:
                walk(v)
    walk({k: v for k, v in m.items() if k != "reports"})


def test_committed_manifest_is_the_generators_output():
    """With the reports this checkout has. Where they are not the ones the committed file was
    written from (a machine that ran `make report` since), only the facts are compared."""
    m, now = committed(), tp.build(cli_tapeout.project(), REPO)
    same_reports = all(
        (meta["status"] == "missing" and not (REPO / rel).is_file())
        or (meta["status"] == "present" and (REPO / rel).is_file() and tp.sha256(REPO / rel) == meta["sha256"])
        for rel, meta in m["reports"].items())
    if same_reports:
        # the submission files' presence is this checkout's build state (e.g. `pqsoc soc caravel`
        # run by a test or not), not a figure: compared without it
        def settled(d):
            sub = [{k: v for k, v in f.items() if k not in ("exists", "found_at")} for f in d["submission"]]
            return {**{k: v for k, v in d.items() if k not in ("commit", "submission")}, "submission": sub}
        assert settled(m) == settled(now)
    else:
        facts = ("schema", "project", "pdk", "shuttle", "top", "clock", "memory_plan")
        assert {k: m[k] for k in facts} == {k: now[k] for k in facts}
