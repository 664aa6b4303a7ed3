# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""`pqsoc harden BLOCK`: LibreLane's Classic flow (place-and-route to signoff) on a block's
pnr/<block>/config.json.

LibreLane's steps from Floorplan on need OpenROAD, which no Debian or PyPI package provides: this
runs only inside the Nix shell of flake.nix (`nix develop`), which brings LibreLane at the version
requirements.txt pins with its tools. Elsewhere it stops with that message. The PDK is the one
at PDK_ROOT, given to LibreLane as it is (`--manual-pdk`), after checking that it is the open_pdks
revision LibreLane pins (pqsoc/flow/pdk.py open_pdks_rev; `make setup` installs it with ciel).
"""
import json
import re
import shutil
import subprocess
from pathlib import Path

from pqsoc import REPO, REPORTS, FlowError
from pqsoc.flow import block as blocks_mod
from pqsoc.flow import openlane, provenance
from pqsoc.flow.pdk import PDK, find_pdk, installed_rev, open_pdks_rev

# LibreLane's console script (OpenLane 2's was `openlane`) and the tools its steps start
FLOW_TOOL = "librelane"
NEEDED_TOOLS = (FLOW_TOOL, "openroad", "yosys", "magic", "netgen", "klayout")


def pinned_version(package: str, requirements: Path = REPO / "requirements.txt") -> str:
    """The version requirements.txt pins for package (`name==version`)."""
    for line in requirements.read_text().splitlines():
        m = re.match(rf"\s*{re.escape(package)}==([^\s#]+)", line, re.I)
        if m:
            return m.group(1)
    raise FlowError(f"requirements.txt pins no version of {package}")


def tool_version(output: str) -> str | None:
    """The version in `librelane --version`'s output (`LibreLane v3.0.17`)."""
    m = re.search(r"LibreLane v?(\d+\.\d+\.\d+\S*)", output)
    return m.group(1) if m else None


def preflight(pdk_root: Path) -> list[str]:
    """What stops a hardening run before it starts: a missing tool, a LibreLane other than the
    pinned one (the configurations are checked with that one's loader), a PDK at another
    open_pdks revision than LibreLane's. Empty when the run may start."""
    problems = []
    if missing := [t for t in NEEDED_TOOLS if shutil.which(t) is None]:
        return [f"hardening needs {', '.join(missing)} on PATH. OpenROAD has no Debian or PyPI package, "
                f"so place-and-route cannot run on this machine: run it in the Nix shell (`nix develop`, "
                f"which brings LibreLane {pinned_version('librelane')} and OpenROAD), then `make harden`. "
                f"Synthesis and STA (`make report`) run without it."]
    r = subprocess.run([FLOW_TOOL, "--version"], capture_output=True, text=True)
    have, want = tool_version(r.stdout + r.stderr), pinned_version("librelane")
    if have != want:
        problems.append(f"{shutil.which(FLOW_TOOL)} is LibreLane {have or '(unknown version)'}; the "
                        f"configurations are checked with {want} (requirements.txt, flake.nix)")
    rev, want_rev = installed_rev(pdk_root), open_pdks_rev()
    if rev != want_rev:
        problems.append(f"the PDK at {pdk_root} is open_pdks {rev or '(no SOURCES file)'}; LibreLane "
                        f"{want} pins {want_rev}: `make setup` with PDK_ROOT pointing at an empty "
                        f"folder installs it with ciel")
    return problems


def command(config: Path, pdk_root: Path) -> list[str]:
    """The LibreLane run of one configuration, on the PDK at pdk_root as it is."""
    return [FLOW_TOOL, "--manual-pdk", "--pdk-root", str(pdk_root), "--pdk", PDK, str(config)]


def harden(name: str) -> None:
    block = blocks_mod.get(name)
    config = openlane.config_path(block)
    shown = config.relative_to(REPO) if config.is_relative_to(REPO) else config
    if not config.is_file():
        raise FlowError(f"no OpenLane config for {name}: expected {shown}")
    if config.read_text() != openlane.render(block):
        raise FlowError(f"{shown} differs from the block's declaration: run `pqsoc pnr-config {name}`")
    pdk = find_pdk()
    if problems := preflight(pdk.root):
        raise FlowError(f"{name}: " + "\n  ".join(problems))
    block.emit_rtl()
    if block.openlane_inputs is not None and (problems := block.openlane_inputs()):
        raise FlowError(f"{name}: the configuration's inputs are not right: " + "; ".join(problems))
    if missing := missing_macro_views(config):
        raise FlowError(f"{name}: the hardened views of its macros are missing ({', '.join(missing)}): "
                        f"harden those blocks first (`make harden` does them in order)")
    stamp = provenance.stamp()     # the design as the run starts (tapeout.json's staleness rule)
    runs = config.parent / "runs"
    before = set(runs.iterdir()) if runs.is_dir() else set()
    cmd = command(config, pdk.root)
    print(f"[harden] {name}: {' '.join(cmd)}", flush=True)
    r = subprocess.run(cmd)
    if r.returncode != 0:
        raise FlowError(f"LibreLane failed for {name} (exit {r.returncode}); see its run folder under pnr/{name}/runs/")
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
# Timing views: final/lib/<corner>/ holds a Liberty per STA corner (`nom_tt_025C_1v80`, ...); the
# nominal one of each process corner is kept. final/spef/<rc>_/ holds the parasitics per RC corner.
SUBMISSION_LIB = {c: f"lib/{{top}}__{c}.lib" for c in ("tt", "ss", "ff")}
SUBMISSION_SPEF = {rc: f"spef/multicorner/{{top}}.{rc}.spef" for rc in ("nom", "min", "max")}


def _one(files: list[Path], what: str, run_dir: Path) -> Path:
    if len(files) != 1:
        raise FlowError(f"the run {run_dir} has {len(files)} files for {what}, not one: "
                        + ", ".join(str(f.relative_to(run_dir)) for f in files))
    return files[0]


def collect_views(run_dir: Path, top: str, repo: Path = REPO) -> list[Path]:
    run_dir = Path(run_dir)
    final = run_dir / "final"
    pairs = []
    for folder, name, dest in SUBMISSION_VIEWS:
        src = final / folder / name.format(top=top)
        if not src.is_file():
            raise FlowError(f"the run {run_dir} has no {src.relative_to(run_dir)}")
        pairs.append((src, dest))
    for corner, dest in SUBMISSION_LIB.items():
        pairs.append((_one(sorted(final.glob(f"lib/nom_{corner}_*/*.lib")), f"the nominal {corner} Liberty",
                           run_dir), dest))
    for rc, dest in SUBMISSION_SPEF.items():
        pairs.append((_one(sorted(final.glob(f"spef/{rc}*/*.spef")), f"the {rc} parasitics", run_dir), dest))
    out = []
    for src, dest in pairs:
        target = repo / dest.format(top=top)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(src, target)
        out.append(target)
    return out


def missing_macro_views(config: Path) -> list[str]:
    """The `dir::` macro views of a configuration (another block's hardened views, the headers
    under build/) that do not exist."""
    cfg = json.loads(config.read_text())
    out = []
    for cell, m in (cfg.get("MACROS") or {}).items():
        for view, value in m.items():
            if view == "instances":
                continue
            paths = [p for ps in value.values() for p in ps] if isinstance(value, dict) else \
                ([value] if isinstance(value, str) else value)
            for v in paths:
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
