# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""`pqsoc harden BLOCK`: OpenLane 2 place-and-route of a block with its pnr/<block>/config.json.

OpenLane's steps from Floorplan on need OpenROAD, which no Debian or PyPI package provides: this
runs only inside the Nix shell of flake.nix (`nix develop`). Elsewhere it stops with that message.
"""
import json
import shutil
import subprocess
from pathlib import Path

from pqsoc import REPO, REPORTS, FlowError
from pqsoc.flow import block as blocks_mod
from pqsoc.flow import openlane, provenance
from pqsoc.flow.pdk import find_pdk


def harden(name: str) -> None:
    block = blocks_mod.get(name)
    config = openlane.config_path(block)
    shown = config.relative_to(REPO) if config.is_relative_to(REPO) else config
    if not config.is_file():
        raise FlowError(f"no OpenLane config for {name}: expected {shown}")
    if config.read_text() != openlane.render(block):
        raise FlowError(f"{shown} differs from the block's declaration: run `pqsoc pnr-config {name}`")
    missing = [t for t in ("openroad", "openlane") if shutil.which(t) is None]
    if missing:
        raise FlowError(
            f"hardening needs {' and '.join(missing)} on PATH. OpenROAD has no Debian or PyPI package, "
            f"so OpenLane's place-and-route cannot run on this machine: run it in the Nix shell "
            f"(`nix develop`, which brings OpenLane 2 and OpenROAD), then `make harden BLOCKS={name}`. "
            f"Synthesis and STA (`make report`) run without it.")
    pdk = find_pdk()
    block.emit(block.rtl_dir())
    if block.openlane_inputs is not None and (problems := block.openlane_inputs()):
        raise FlowError(f"{name}: the configuration's inputs are not right: " + "; ".join(problems))
    if missing := missing_macro_views(config):
        raise FlowError(f"{name}: the hardened views of its macros are missing ({', '.join(missing)}): "
                        f"harden those blocks first (`make harden` does them in order)")
    stamp = provenance.stamp()     # the design as the run starts (tapeout.json's staleness rule)
    runs = config.parent / "runs"
    before = set(runs.iterdir()) if runs.is_dir() else set()
    print(f"[harden] {name}: openlane {shown}", flush=True)
    r = subprocess.run(["openlane", "--pdk-root", str(pdk.root), str(config)])
    if r.returncode != 0:
        raise FlowError(f"OpenLane failed for {name} (exit {r.returncode}); see its run folder under pnr/{name}/runs/")
    new = sorted((d for d in runs.iterdir() if d not in before), key=lambda d: d.stat().st_mtime) \
        if runs.is_dir() else []
    if not new:
        raise FlowError(f"OpenLane finished for {name} but left no new run folder under {runs}")
    out = collect_metrics(new[-1], block.top, stamp)
    print(f"[harden] {name}: metrics -> {out.relative_to(REPO) if out.is_relative_to(REPO) else out}", flush=True)
    for view in collect_views(new[-1], block.top):
        print(f"[harden] {name}: {view.relative_to(REPO)}", flush=True)


# A finished run's views -> the Caravel submission's folders (caravel_user_project's layout, which
# pqsoc/flow/tapeout.py lists), where a configuration that places this block as a macro reads them.
SUBMISSION_VIEWS = (("gds", "{top}.gds", "gds/{top}.gds"), ("lef", "{top}.lef", "lef/{top}.lef"),
                    ("nl", "{top}.nl.v", "verilog/gl/{top}.v"))


def collect_views(run_dir: Path, top: str, repo: Path = REPO) -> list[Path]:
    out = []
    for folder, name, dest in SUBMISSION_VIEWS:
        src = Path(run_dir) / "final" / folder / name.format(top=top)
        if not src.is_file():
            raise FlowError(f"the OpenLane run {run_dir} has no {src.relative_to(run_dir)}")
        target = repo / dest.format(top=top)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(src, target)
        out.append(target)
    return out


def missing_macro_views(config: Path) -> list[str]:
    """The `dir::` macro views of a configuration (another block's hardened views) that do not exist."""
    cfg = json.loads(config.read_text())
    out = []
    for cell, m in (cfg.get("MACROS") or {}).items():
        for view in ("gds", "lef", "nl"):
            for v in m.get(view, []):
                if v.startswith("dir::") and not (config.parent / v[5:]).resolve().is_file():
                    out.append(f"{cell} {view} {v[5:]}")
    return out


def collect_metrics(run_dir: Path, cell: str, stamp: dict, reports: Path = REPORTS) -> Path:
    """The run's final metrics (OpenLane 2: <run>/final/metrics.json) -> reports/harden/<cell>/
    metrics.json with the design's provenance, which tapeout.json reads as "OpenLane metrics"."""
    src = Path(run_dir) / "final" / "metrics.json"
    if not src.is_file():
        raise FlowError(f"no final metrics in the OpenLane run {run_dir} (expected {src})")
    try:
        metrics = json.loads(src.read_text())
    except ValueError as e:
        raise FlowError(f"{src} is not JSON: {e}") from None
    out = reports / "harden" / cell / "metrics.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    rel = src.relative_to(REPO) if src.is_relative_to(REPO) else src
    out.write_text(json.dumps(metrics | {"provenance": stamp, "openlane_run": str(rel)}, indent=2) + "\n")
    return out
