# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""tapeout.json: the chip as it stands, written from the reports that exist, and its check.

`pqsoc tapeout write` (the last step of `make report`) fills tapeout.json from reports/: every
figure is either measured ({"status": "measured", "value", "source", "report"}) or missing
({"status": "missing", "reason"}); a report that does not exist gives a missing figure, never a
number. The project's own facts (top, memories, macros, which reports hold what) come in as a
`Project` built by the command line from the block declarations; this module knows no block.
The format is pqsoc/flow/tapeout.schema.json (JSON Schema 2020-12, checked with jschon).

Where a figure comes from, best first:
  OpenLane metrics       reports/harden/<cell>/metrics.json (OpenLane 2 metric names; `make harden`)
  local post-route STA   reports/signoff/<cell>.json (`pqsoc signoff`: STA on the extracted layout)
  local layout           reports/layout.json (`pqsoc layout`: cells, area, utilisation)
  floorplan check        reports/floorplan.json (utilisation of the planned cell region)
  pre-layout local STA   reports/ppa.json (Yosys + OpenSTA, wire-load model)

`pqsoc tapeout check` fails (listing each problem) when
  - the file does not match the schema, or differs from what `tapeout write` writes now;
  - a figure or a test count is missing, a test failed, a signoff check failed or did not run;
  - a mode's NIST ACVP conformance (reports/acvp.json, `pqsoc acvp report`) is missing, has a
    failed case, or passed fewer than all of its cases (a sample, unsupported groups);
  - a figure is stale. The staleness rule: a report describes the design of the commit it was
    made at (its `provenance` stamp: commit + tracked files that differed). It is current when
    that stamp exists, the report made then had no uncommitted changes under the design paths,
    no file under the design paths changed between that commit and HEAD, none differs from HEAD
    in the working tree, and the report file still has the hash tapeout.json recorded. Commits
    that touch only docs, tests or tapeout.json itself do not age a report; a report without a
    stamp cannot be placed and counts as stale. Across reports, the gate-level latencies must be
    of the netlist the PPA figures are of (netlist_sha256), and a newer synthesis in build/synth
    makes the PPA figures stale.
It also lists the Caravel submission files: which exist, and which only `make harden` makes;
those written from the project's facts (`pqsoc tapeout submission`: the external repositories'
list and the LVS configuration, pqsoc/flow/submission.py) must be what their generator writes now.
"""
import hashlib
import json
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from pathlib import Path

from pqsoc import REPO, FlowError
from pqsoc.flow import provenance, submission as subfiles

SCHEMA = Path(__file__).with_name("tapeout.schema.json")
SCHEMA_NAME = "pqsoc/flow/tapeout.schema.json"
CHECKS = ("drc", "lvs", "antenna", "xor", "timing")

PRE_LAYOUT = "pre-layout local STA"
POST_ROUTE = "local post-route STA"
LOCAL_LAYOUT = "local layout"
OPENLANE = "OpenLane metrics"
FLOORPLAN = "floorplan check"
RTL_SIM = "RTL simulation"
GATE_SIM = "gate-level simulation"


@dataclass(frozen=True)
class Memory:
    name: str
    bytes: int
    source: str                  # where the size is declared (module and constant)


@dataclass(frozen=True)
class Macro:
    name: str                    # block name (pqsoc/flow/block.py) and key in reports/ppa.json
    cell: str                    # its top cell (the LEF/GDS name)
    role: str                    # "hard macro" or "core" (the logic inside the wrapper)
    floorplan_key: str | None = None   # its entry in reports/floorplan.json, if it has one


@dataclass(frozen=True)
class TestReport:
    suite: str
    report: str                  # repo-relative path
    kind: str                    # junit, sim (firmware run), counts (passed/failed), gls


@dataclass(frozen=True)
class Project:
    name: str
    description: str
    top_module: str              # the cell the shuttle receives (user_project_wrapper)
    core_block: str              # the block inside it
    core_cell: str
    shuttle: dict
    clock_period_ns: float
    clock_from: str
    pdk: dict
    sram_macro: str
    sram_macro_bytes: int
    memories: tuple[Memory, ...]
    macros: tuple[Macro, ...]
    tests: tuple[TestReport, ...]
    latency_reports: tuple[str, ...]      # firmware runs on the RTL SoC (sim json)
    design_paths: tuple[str, ...]         # what a report describes; see the staleness rule
    submission: tuple[tuple[str, str, tuple[str, ...]], ...] = field(default=())
    # (path in the submission, what makes it, other places the same file may be found)
    external_repos: tuple[subfiles.ExternalRepo, ...] = field(default=())
    lvs: subfiles.LvsInputs | None = None    # the LVS configuration's facts (None: not written)
    # the block whose LibreLane configuration is the wrapper's (pqsoc pnr check names blocks)
    wrapper_block: str = "caravel"
    # the modes whose NIST ACVP conformance reports/acvp.json must show ("ML-KEM keyGen", ...)
    conformance: tuple[str, ...] = field(default=())

    @property
    def signoff_cells(self) -> tuple[str, ...]:
        return (self.top_module,) + tuple(m.cell for m in self.macros if m.role == "hard macro")


SUBMISSION_CMD = "pqsoc tapeout submission"


def write_submission(p: Project, repo: Path = REPO) -> list[str]:
    """The submission files written from the project's facts (pqsoc/flow/submission.py)."""
    if p.lvs is None:
        raise FlowError("the project declares no LVS inputs: no submission files to write")
    return subfiles.write(p.external_repos, p.lvs, repo)


def caravel_submission(top: str, hard_macros: tuple[str, ...], wrapper_rtl_dir: str) -> tuple:
    """The files of a Caravel user project submission (caravel_user_project's layout and what
    ChipFoundry's precheck reads), with what makes each."""
    harden = "make harden"
    files = [(f"gds/{top}.gds", harden, ()), (f"lef/{top}.lef", harden, ()), (f"def/{top}.def", harden, ()),
             ("verilog/rtl/user_defines.v", "pqsoc soc caravel", (f"{wrapper_rtl_dir}/user_defines.v",)),
             (f"verilog/rtl/{top}.v", "pqsoc soc caravel", (f"{wrapper_rtl_dir}/{top}.v",)),
             (f"verilog/gl/{top}.v", harden, ()),
             (subfiles.lvs_config_path(top), SUBMISSION_CMD, ())]
    for m in hard_macros:
        files += [(f"gds/{m}.gds", harden, ()), (f"lef/{m}.lef", harden, ()), (f"verilog/gl/{m}.v", harden, ())]
    files += [(f"signoff/{c}/final_summary_report.csv", harden, ()) for c in (top,) + hard_macros]
    files += [(subfiles.EXTERNAL_REPOS_CSV, SUBMISSION_CMD, ()),
              ("LICENSE", "the repository", ()), ("README.md", "the repository", ())]
    return tuple(files)


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def missing(reason: str, report: str | None = None) -> dict:
    d = {"status": "missing", "reason": reason}
    if report:
        d["report"] = report
    return d


def measured(value, source: str, report: str) -> dict:
    return {"status": "measured", "value": value, "source": source, "report": report}


class Reports:
    """The reports under a repository, read once; remembers which were consulted (present with
    hash and provenance, or missing with the reason) for tapeout.json's `reports`."""

    def __init__(self, repo: Path):
        self.repo = repo
        self.index: dict[str, dict] = {}
        self._cache: dict[str, object] = {}

    def get(self, rel: str):
        if rel in self._cache:
            return self._cache[rel]
        path = self.repo / rel
        data = None
        if not path.is_file():
            self.index[rel] = missing(f"{rel} does not exist")
        else:
            try:
                data = self._parse(path)
            except (ValueError, ET.ParseError) as e:
                self.index[rel] = missing(f"{rel} is unreadable: {e}")
            else:
                stamp = _provenance(data)
                self.index[rel] = {"status": "present", "sha256": sha256(path),
                                   "commit": stamp.get("commit") or None, "dirty": list(stamp.get("dirty", []))}
        self._cache[rel] = data
        return data

    @staticmethod
    def _parse(path: Path):
        if path.suffix == ".xml":
            return _junit(path)
        return json.loads(path.read_text())

    def why(self, rel: str, what: str = "such figure") -> str:
        return self.index.get(rel, {}).get("reason", f"{rel} has no {what}")


def gls_entries(data) -> dict:
    """reports/gls.json's block entries: `pqsoc gls --json` writes {block: entry}, `pqsoc campaign
    gls --json` its summary with them under 'blocks' (and the runs that did not pass under
    'failed_runs')."""
    if isinstance(data, dict) and data.get("kind") == "gls" and isinstance(data.get("blocks"), dict):
        return data["blocks"]
    return data if isinstance(data, dict) else {}


def _provenance(data) -> dict:
    """The stamp of a report: its own `provenance`, or (gls.json: one entry per block) the first
    entry's when all entries agree; {} when the report has none."""
    if not isinstance(data, dict):
        return {}
    if isinstance(data.get("provenance"), dict):
        return data["provenance"]
    stamps = [v["provenance"] for v in data.values() if isinstance(v, dict) and isinstance(v.get("provenance"), dict)]
    if stamps and all(s == stamps[0] for s in stamps):
        return stamps[0]
    return {}


def _junit(path: Path) -> dict:
    """Counts and the provenance properties of a pytest JUnit XML file (conftest.py records them)."""
    root = ET.parse(path).getroot()
    suites = [root] if root.tag == "testsuite" else root.findall("testsuite")
    if not suites:
        raise ValueError("no <testsuite>")
    n = {k: sum(int(s.get(k, 0)) for s in suites) for k in ("tests", "failures", "errors", "skipped")}
    props = {p.get("name"): p.get("value") for s in suites for p in s.iter("property")}
    stamp = {}
    if props.get("commit"):
        stamp = {"commit": props["commit"], "dirty": json.loads(props.get("dirty") or "[]")}
    return n | {"provenance": stamp}


# ---- figures -----------------------------------------------------------------------------------

OPENLANE_CORNERS = {"tt": "nom_tt", "ss": "nom_ss", "ff": "nom_ff"}


def _openlane(reports: Reports, cell: str):
    rel = f"reports/harden/{cell}/metrics.json"
    return rel, reports.get(rel)


def _signoff(reports: Reports, cell: str):
    rel = f"reports/signoff/{cell}.json"
    return rel, reports.get(rel)


def _layout_entry(reports: Reports, name: str):
    rel = "reports/layout.json"
    data = reports.get(rel) or {}
    entry = (data.get("blocks") or {}).get(name)
    if entry and entry.get("status") not in ("failed", "running", None) and "utilisation" in entry:
        return rel, entry
    return rel, None


def _ppa_entry(reports: Reports, name: str):
    rel = "reports/ppa.json"
    data = reports.get(rel) or {}
    return rel, (data.get("blocks") or {}).get(name)


def macro_figures(p: Project, reports: Reports, m: Macro) -> dict:
    ol_rel, ol = _openlane(reports, m.cell)
    so_rel, so = _signoff(reports, m.cell)
    la_rel, la = _layout_entry(reports, m.name)
    pp_rel, pp = _ppa_entry(reports, m.name)
    fp_rel = "reports/floorplan.json"
    fp = (reports.get(fp_rel) or {}).get(m.floorplan_key) if m.floorplan_key else None
    tried = lambda *rels: "; ".join(reports.why(r, f"entry for {m.name}") for r in rels)   # noqa: E731

    def pick(*cands, none_reason):
        for value, source, rel in cands:
            if value is not None:
                return measured(value, source, rel)
        return missing(none_reason)

    cells = pick(((ol or {}).get("design__instance__count"), OPENLANE, ol_rel),
                 ((la or {}).get("cells"), LOCAL_LAYOUT, la_rel),
                 ((pp or {}).get("cells"), PRE_LAYOUT, pp_rel),
                 none_reason=f"no cell count for {m.name}: {tried(ol_rel, la_rel, pp_rel)}")
    area = pick(((ol or {}).get("design__instance__area"), OPENLANE, ol_rel),
                ((la or {}).get("cell_area_um2"), LOCAL_LAYOUT, la_rel),
                ((pp or {}).get("area_um2"), PRE_LAYOUT, pp_rel),
                none_reason=f"no area for {m.name}: {tried(ol_rel, la_rel, pp_rel)}")
    util = pick(((ol or {}).get("design__instance__utilization"), OPENLANE, ol_rel),
                ((la or {}).get("utilisation"), LOCAL_LAYOUT, la_rel),
                ((fp or {}).get("utilisation"), FLOORPLAN, fp_rel),
                none_reason=(f"no placement of {m.name} yet: {tried(ol_rel, la_rel)}; "
                             + (tried(fp_rel) if m.floorplan_key else f"{fp_rel} does not plan it")
                             + " (synthesis has no utilisation)"))
    fmax = {}
    corners = sorted(set((pp or {}).get("fmax_mhz", {})) | {"tt", "ss"})
    # `pqsoc signoff`'s STA on the extracted layout: checks.sta.corners.<corner>.fmax_mhz
    post = (((so or {}).get("checks") or {}).get("sta") or {}).get("corners") or {}
    for c in corners:
        # OpenLane names its corners nom_tt_025C_1v80 etc.: match the prefix
        key = f"timing__setup__ws__corner:{OPENLANE_CORNERS.get(c, c)}"
        ws = next((v for k, v in (ol or {}).items() if k.startswith(key)), None)
        ol_fmax = round(1e3 / (p.clock_period_ns - ws), 1) if ws is not None and p.clock_period_ns > ws else None
        fmax[c] = pick((ol_fmax, OPENLANE, ol_rel),
                       ((post.get(c) or {}).get("fmax_mhz"), POST_ROUTE, so_rel),
                       (((pp or {}).get("fmax_mhz") or {}).get(c), PRE_LAYOUT, pp_rel),
                       none_reason=f"no {c} timing of {m.name}: {tried(ol_rel, so_rel, pp_rel)}")
    return {"name": m.name, "cell": m.cell, "role": m.role, "cells": cells, "area_um2": area,
            "utilisation": util, "fmax_mhz": fmax}


def _check_from_openlane(ol: dict, key: str, rel: str) -> dict | None:
    keys = {"drc": ("magic__drc_error__count", "klayout__drc_error__count"),
            "lvs": ("design__lvs_error__count",), "antenna": ("antenna__violating__nets",),
            "xor": ("design__xor_difference__count",), "timing": ("timing__setup__ws", "timing__hold__ws")}[key]
    vals = {k: ol[k] for k in keys if k in ol}
    if not vals:
        return None
    if key == "timing":
        bad = {k: v for k, v in vals.items() if v < 0}
    else:
        bad = {k: v for k, v in vals.items() if v != 0}
    d = {"status": "fail" if bad else "pass", "source": OPENLANE, "report": rel}
    if bad:
        d["reason"] = ", ".join(f"{k} = {v}" for k, v in bad.items())
    return d


def _check_from_local(checks: dict, key: str, rel: str) -> dict | None:
    names = {"drc": ("magic_drc", "klayout_drc"), "lvs": ("lvs",), "antenna": ("antenna",),
             "xor": ("xor",), "timing": ("sta",)}[key]
    got = {n: checks[n] for n in names if n in checks}
    if not got:
        return None
    st = [c.get("status", "not-run") for c in got.values()]
    if "fail" in st:
        status = "fail"
    else:
        status = "pass" if all(s == "pass" for s in st) and len(got) == len(names) else "not-run"
    d = {"status": status, "source": "local signoff", "report": rel}
    if status != "pass":
        why = [f"{n} {c.get('status', 'not-run')}: {c.get('reason', 'no reason given')}" for n, c in got.items()
               if c.get("status") != "pass"]
        why += [f"{n} not in the report" for n in names if n not in got]
        d["reason"] = "; ".join(why)
    return d


NOT_LOCAL = {"antenna": "the local signoff (`pqsoc signoff`) has no antenna check; OpenLane's runs in `make harden`",
             "xor": "the XOR against Caravel's golden wrapper is ChipFoundry's precheck on the hardened GDS"}


def signoff_checks(reports: Reports, cell: str) -> dict:
    ol_rel, ol = _openlane(reports, cell)
    so_rel, so = _signoff(reports, cell)
    out = {}
    for key in CHECKS:
        d = (_check_from_openlane(ol, key, ol_rel) if ol else None) or \
            (_check_from_local(so.get("checks") or {}, key, so_rel) if so else None)
        if d is None:
            why = [reports.why(ol_rel)] if not ol else [f"{ol_rel} has no {key} metric"]
            why.append(reports.why(so_rel) if not so else NOT_LOCAL.get(key, f"{so_rel} has no {key} check"))
            d = {"status": "not-run", "reason": "; ".join(why)}
        out[key] = d
    return out


def _flat_cycles(cycles: dict, prefix: str = ""):
    """gls.json cycles: {name: {rtl, gls}} or {program: {name: {rtl, gls}}} -> (name, rtl, gls)."""
    for k, v in cycles.items():
        if isinstance(v, dict) and "rtl" in v:
            yield prefix + k, v.get("rtl"), v.get("gls")
        elif isinstance(v, dict):
            yield from _flat_cycles(v, f"{prefix}{k}:")


def latencies(p: Project, reports: Reports) -> dict:
    rows: dict[tuple[str, str], dict] = {}
    gone = []
    gls_rel, ppa_rel = "reports/gls.json", "reports/ppa.json"
    gls = reports.get(gls_rel)
    if gls is None:
        gone.append(missing(reports.why(gls_rel), gls_rel))
    for block, entry in gls_entries(gls).items():
        if isinstance(entry, dict) and isinstance(entry.get("cycles"), dict):
            for name, r, g in _flat_cycles(entry["cycles"]):
                rows[(block, name)] = {
                    "block": block, "name": name,
                    "rtl_cycles": (measured(r, RTL_SIM, gls_rel) if r is not None
                                   else missing(f"{gls_rel}: no RTL figure")),
                    "gate_level_cycles": (measured(g, GATE_SIM, gls_rel) if g is not None
                                          else missing(f"{gls_rel}: no gate-level figure"))}
    no_gls = lambda b: missing(f"no gate-level run of this figure ({reports.why(gls_rel)})"   # noqa: E731
                               if gls is None else f"{gls_rel} has no gate-level figure of it for {b}")
    ppa = reports.get(ppa_rel)
    if ppa is None:
        gone.append(missing(reports.why(ppa_rel), ppa_rel))
    for block, entry in ((ppa or {}).get("blocks") or {}).items():
        for k, v in (entry.get("perf") or {}).items():
            if k.endswith("_cycles") and isinstance(v, (int, float)) and (block, k) not in rows:
                rows[(block, k)] = {"block": block, "name": k, "rtl_cycles": measured(v, RTL_SIM, ppa_rel),
                                    "gate_level_cycles": no_gls(block)}
    for rel in p.latency_reports:
        run = reports.get(rel)
        if run is None:
            gone.append(missing(reports.why(rel), rel))
            continue
        prog = Path(run.get("firmware", rel)).stem
        for t in run.get("tests") or []:
            name = f"{prog}:{t.get('test')}"
            if "cycles" in t and (p.core_block, name) not in rows:
                rows[(p.core_block, name)] = {"block": p.core_block, "name": name,
                                              "rtl_cycles": measured(t["cycles"], RTL_SIM, rel),
                                              "gate_level_cycles": no_gls(p.core_block)}
    return {"figures": [rows[k] for k in sorted(rows)], "missing": gone}


def suite_result(t: TestReport, reports: Reports) -> dict:
    data = reports.get(t.report)
    if data is None:
        return missing(reports.why(t.report))
    if t.kind == "junit":
        run = data["tests"] - data["skipped"]
        passed = run - data["failures"] - data["errors"]
    elif t.kind == "sim":
        # a run that ended badly (timeout, summary mismatch, crash) passes none of its tests
        tests = data.get("tests") or []
        run, passed = len(tests), sum(1 for x in tests if x.get("pass")) if data.get("ok") else 0
    elif t.kind == "counts":
        run, passed = data.get("programs", 0), data.get("passed", 0)
    elif t.kind == "gls":
        # `pqsoc gls` writes its file only when every run matched the RTL: each block's tests
        # (or, where it gives no count, each figure it compared) ran at gate level and passed;
        # a campaign's file also lists the runs (block, seed) that did not pass: one failure each
        run = sum(e["tests"] if isinstance(e.get("tests"), int) else len(list(_flat_cycles(e.get("cycles") or {})))
                  for e in gls_entries(data).values() if isinstance(e, dict))
        passed = run
        run += len(data.get("failed_runs") or []) if data.get("kind") == "gls" else 0
    else:
        raise FlowError(f"unknown test report kind {t.kind!r}")
    return {"status": "measured", "run": int(run), "passed": int(passed)}


def submission(p: Project, repo: Path) -> list[dict]:
    out = []
    for path, made_by, elsewhere in p.submission:
        found = next((q for q in (path,) + elsewhere if (repo / q).is_file()
                      or (q.endswith("/") and (repo / q).is_dir())), None)
        d = {"path": path, "exists": found is not None, "made_by": made_by}
        if found and found != path:
            d["found_at"] = found
        out.append(d)
    return out


CONFORMANCE = "reports/acvp.json"


def conformance(p: Project, reports: "Reports") -> dict:
    """Per mode the project declares: passed / total of NIST's ACVP cases and the engine, from
    `pqsoc acvp report` (reports/acvp.json); missing with the reason when there is no such run.
    total is the cases in the expected results: a sampled run, or one with unsupported groups,
    passes fewer than that (`sample` says which)."""
    if not p.conformance:
        return {}
    data = reports.get(CONFORMANCE)
    modes = data.get("modes") if isinstance(data, dict) else None
    out = {}
    for mode in p.conformance:
        e = (modes or {}).get(mode)
        if not isinstance(e, dict):
            why = reports.why(CONFORMANCE) if data is None else f"{CONFORMANCE} has no run of {mode}"
            out[mode] = missing(why, CONFORMANCE)
            continue
        out[mode] = {"status": "measured", "report": CONFORMANCE, "engine": str(e.get("engine")),
                     "passed": int(e.get("passed", 0)), "failed": int(e.get("failed", 0)),
                     "total": int(e.get("total", 0)), "sample": e.get("sample"),
                     "unsupported_cases": sum(int(u.get("cases", 0)) for u in e.get("unsupported") or [])}
    return out


PNR_CHECK = "reports/pnr_check.json"


def preflight(p: Project, reports: "Reports") -> dict:
    """Per cell (the wrapper and every hard macro): the checks `pqsoc pnr check` passed and failed
    on it here (no OpenROAD), and what only a real LibreLane run can pass."""
    data = reports.get(PNR_CHECK)
    blocks = {p.top_module: p.wrapper_block, **{m.cell: m.name for m in p.macros if m.role == "hard macro"}}
    out = {}
    for cell, block in blocks.items():
        entry = (data or {}).get("blocks", {}).get(block) if isinstance(data, dict) else None
        if entry is None:
            why = reports.why(PNR_CHECK) if data is None else f"{PNR_CHECK} has no block {block}"
            out[cell] = missing(why, PNR_CHECK)
            continue
        checks = entry.get("checks") or []
        out[cell] = {"status": "measured", "report": PNR_CHECK, "block": block,
                     "passed": [c["check"] for c in checks if c.get("ok")],
                     "failed": [{"check": c["check"], "detail": c.get("detail", "")} for c in checks if not c.get("ok")],
                     "only_a_real_run": list(data.get("only_a_real_run") or [])}
    return out


def build(p: Project, repo: Path = REPO) -> dict:
    """tapeout.json's content from the reports under repo (nothing is run)."""
    reports = Reports(repo)
    plan = [{"name": mem.name, "bytes": mem.bytes, "macros": -(-mem.bytes // p.sram_macro_bytes),
             "from": mem.source} for mem in p.memories]
    manifest = {
        "schema": SCHEMA_NAME,
        "project": p.name,
        "description": p.description,
        "commit": {"sha": provenance.head(repo), "dirty": provenance.dirty_files(repo)},
        "pdk": p.pdk,
        "shuttle": p.shuttle,
        "top": {"module": p.top_module, "core": p.core_cell, "core_block": p.core_block},
        "clock": {"period_ns": p.clock_period_ns, "mhz": round(1e3 / p.clock_period_ns, 3), "from": p.clock_from},
        "memory_plan": {"macro": p.sram_macro, "macro_bytes": p.sram_macro_bytes,
                        "macro_count": sum(m["macros"] for m in plan), "memories": plan},
        "macros": [macro_figures(p, reports, m) for m in p.macros],
        "latencies": latencies(p, reports),
        "tests": [{"suite": t.suite, "report": t.report, "result": suite_result(t, reports)} for t in p.tests],
        "conformance": conformance(p, reports),
        "signoff": {c: signoff_checks(reports, c) for c in p.signoff_cells},
        "preflight": preflight(p, reports),
    }
    fp_rel = "reports/floorplan.json"
    fp = reports.get(fp_rel)
    manifest["floorplan"] = (measured(bool(fp["fits"]), FLOORPLAN, fp_rel) if isinstance(fp, dict) and "fits" in fp
                             else missing(reports.why(fp_rel) if fp is None else f"{fp_rel} has no `fits`"))
    manifest["submission"] = submission(p, repo)
    manifest["reports"] = dict(sorted(reports.index.items()))
    return manifest


def write(p: Project, repo: Path = REPO, out: Path | None = None) -> Path:
    out = out or repo / "tapeout.json"
    manifest = build(p, repo)
    errors = validate(manifest)
    if errors:   # the generator's own bug: say so rather than write a file the check refuses
        raise FlowError("tapeout write: the generated manifest does not match the schema: " + "; ".join(errors))
    out.write_text(json.dumps(manifest, indent=2) + "\n")
    return out


# ---- the check ----------------------------------------------------------------------------------

_catalog = None


def validate(manifest) -> list[str]:
    """Schema errors of a manifest (empty when valid), as 'location: message'."""
    global _catalog
    import warnings
    from jschon import JSON, JSONSchema, create_catalog
    with warnings.catch_warnings():   # jschon's URI library (rfc3986) warns about its own API
        warnings.simplefilter("ignore", DeprecationWarning)
        if _catalog is None:
            _catalog = create_catalog("2020-12")
        schema = JSONSchema(json.loads(SCHEMA.read_text()))
        result = schema.evaluate(JSON(manifest))
    if result.valid:
        return []
    errs = result.output("basic")["errors"]
    # the leaves: an error whose location no other error extends
    locs = [e["keywordLocation"] for e in errs]
    return [f"{e['instanceLocation'] or '/'}: {e['error']}" for e in errs
            if not any(o != e["keywordLocation"] and o.startswith(e["keywordLocation"] + "/") for o in locs)]


def _missing_figures(node, where: str = ""):
    if isinstance(node, dict):
        if node.get("status") == "missing" and "reason" in node:
            yield where, node["reason"]
            return
        for k, v in node.items():
            if k not in ("reports",) or where:
                yield from _missing_figures(v, f"{where}.{k}" if where else k)
    elif isinstance(node, list):
        for i, v in enumerate(node):
            label = None
            if isinstance(v, dict):
                label = v.get("name") or v.get("suite")
                label = f"{v['block']} {label}" if label and v.get("block") else label
            yield from _missing_figures(v, f"{where}[{label or i}]")


def _diff(a, b, where: str = "") -> list[str]:
    if type(a) is not type(b):
        return [where or "/"]
    if isinstance(a, dict):
        out = []
        for k in sorted(set(a) | set(b)):
            if k not in a or k not in b:
                out.append(f"{where}.{k}" if where else k)
            else:
                out += _diff(a[k], b[k], f"{where}.{k}" if where else k)
        return out
    if isinstance(a, list):
        if len(a) != len(b):
            return [where]
        return [d for i, (x, y) in enumerate(zip(a, b)) for d in _diff(x, y, f"{where}[{i}]")]
    return [] if a == b else [where]


def staleness(p: Project, manifest: dict, repo: Path = REPO, build_dir: Path | None = None) -> list[str]:
    """The stale-figure problems (the rule in the module docstring)."""
    problems = []
    worktree = [f for f in provenance.dirty_files(repo) if _under(f, p.design_paths)]
    if worktree:
        problems.append("stale: the working tree differs from HEAD in design files "
                        f"({', '.join(worktree[:5])}{' ...' if len(worktree) > 5 else ''}): "
                        "no report describes this design; commit, then `make report`")
    for rel, meta in (manifest.get("reports") or {}).items():
        if meta.get("status") != "present":
            continue
        path = repo / rel
        if not path.is_file():
            problems.append(f"stale: {rel} is gone since tapeout.json was written")
            continue
        if sha256(path) != meta.get("sha256"):
            problems.append(f"stale: {rel} changed since tapeout.json was written: run `pqsoc tapeout write`")
        commit = meta.get("commit")
        if not commit:
            problems.append(f"stale: {rel} records no commit (no `provenance`): which design it describes is unknown")
            continue
        made_dirty = [f for f in meta.get("dirty", []) if _under(f, p.design_paths)]
        if made_dirty:
            problems.append(f"stale: {rel} was made from uncommitted changes ({', '.join(made_dirty[:3])})")
        changed = provenance.changed_since(commit, p.design_paths, repo)
        if changed is None:
            problems.append(f"stale: {rel} was made at {commit[:10]}, which this repository does not have")
        elif changed:
            problems.append(f"stale: {rel} was made at {commit[:10]}; the design changed since "
                            f"({len(changed)} files, e.g. {', '.join(changed[:3])})")
    problems += _netlist_problems(p, repo, build_dir or repo / "build")
    return problems


def _under(path: str, roots) -> bool:
    return any(path == r or path.startswith(r.rstrip("/") + "/") for r in roots)


def _netlist_problems(p: Project, repo: Path, build_dir: Path) -> list[str]:
    out = []
    ppa_path, gls_path = repo / "reports/ppa.json", repo / "reports/gls.json"
    try:
        ppa = json.loads(ppa_path.read_text()) if ppa_path.is_file() else {}
        gls = json.loads(gls_path.read_text()) if gls_path.is_file() else {}
    except ValueError:
        return out   # an unreadable report is already a missing figure
    blocks = ppa.get("blocks") or {}
    for name, entry in gls_entries(gls).items():
        want = (blocks.get(name) or {}).get("netlist_sha256")
        got = entry.get("netlist_sha256") if isinstance(entry, dict) else None
        if want and got and want != got:
            out.append(f"stale: reports/gls.json's {name} ran netlist {got[:12]}, "
                       f"reports/ppa.json measured {want[:12]}")
    for name, entry in blocks.items():
        mf = build_dir / "synth" / name / "synth.json"
        if mf.is_file():
            try:
                now = json.loads(mf.read_text()).get("netlist_sha256")
            except ValueError:
                continue
            if now and now != entry.get("netlist_sha256"):
                out.append(f"stale: {name} was synthesized again since reports/ppa.json "
                           f"({now[:12]} vs {str(entry.get('netlist_sha256'))[:12]}): run `make report`")
    return out


def check(p: Project, path: Path | None = None, repo: Path = REPO, build_dir: Path | None = None) -> dict:
    """{"problems": [...], "submission": [...]} for tapeout.json at path."""
    path = path or repo / "tapeout.json"
    if not path.is_file():
        raise FlowError(f"{path} does not exist: run `pqsoc tapeout write`")
    try:
        manifest = json.loads(path.read_text())
    except ValueError as e:
        raise FlowError(f"{path} is not JSON: {e}") from None
    problems = [f"schema: {e}" for e in validate(manifest)]
    now = build(p, repo)
    drift = [d for d in _diff({k: v for k, v in manifest.items() if k != "commit"},
                              {k: v for k, v in now.items() if k != "commit"})]
    if drift:
        problems.append(f"stale: tapeout.json differs from what `pqsoc tapeout write` writes now in "
                        f"{', '.join(drift[:6])}{' ...' if len(drift) > 6 else ''}")
    problems += [f"missing: {where}: {why}" for where, why in _missing_figures(
        {k: v for k, v in manifest.items() if k not in ("reports", "submission")})]
    for t in manifest.get("tests") or []:
        r = t.get("result") or {}
        if r.get("status") == "measured" and r.get("run") == 0:
            problems.append(f"failed: tests {t['suite']}: none ran ({t['report']})")
        elif r.get("status") == "measured" and r.get("passed") != r.get("run"):
            problems.append(f"failed: tests {t['suite']}: {r['run'] - r['passed']} of {r['run']} failed "
                            f"({t['report']})")
    for mode, c in (manifest.get("conformance") or {}).items():
        if c.get("status") != "measured":
            continue
        where = f"({c['engine']}, {c['report']})"
        if c["failed"]:
            problems.append(f"failed: conformance {mode}: {c['failed']} of {c['passed'] + c['failed']} "
                            f"NIST ACVP cases failed {where}")
        elif c["passed"] < c["total"]:
            why = [f"a sample, {c['sample'].get('perGroup')} per group"] if c.get("sample") else []
            why += [f"{c['unsupported_cases']} cases unsupported"] if c.get("unsupported_cases") else []
            problems.append(f"not-run: conformance {mode}: {c['passed']} of {c['total']} NIST ACVP cases "
                            f"passed, the others not run: {'; '.join(why) or 'not in the report'} {where}")
    for cell, pf in (manifest.get("preflight") or {}).items():
        for c in pf.get("failed") or []:
            problems.append(f"failed: preflight {cell} {c['check']}: {c['detail'][:200]}")
    for cell, checks in (manifest.get("signoff") or {}).items():
        for name, c in checks.items():
            if c.get("status") == "fail":
                problems.append(f"failed: signoff {cell} {name}: {c.get('reason', '')}")
            elif c.get("status") == "not-run":
                problems.append(f"not-run: signoff {cell} {name}: {c.get('reason', '')}")
    fp = manifest.get("floorplan") or {}
    if fp.get("status") == "measured" and fp.get("value") is False:
        problems.append(f"failed: floorplan: the design does not fit ({fp.get('report')})")
    problems += staleness(p, manifest, repo, build_dir)
    if p.lvs is not None:
        problems += subfiles.problems(p.external_repos, p.lvs, repo, SUBMISSION_CMD)
    sub = submission(p, repo)
    absent = [s for s in sub if not s["exists"]]
    if absent:
        problems.append(f"missing: {len(absent)} of {len(sub)} Caravel submission files (listed with them)")
    return {"problems": problems, "submission": sub}
