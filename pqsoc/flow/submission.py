# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""The Caravel submission files that need no layout tool: written from the project's facts,
committed, and checked against what the generator writes now.

  third_party/used_external_repos.csv
      The external repositories the submitted design is built from, one `repository,commit` row
      each under a `repository name,commit hash` header (the form ChipFoundry's precheck asks
      for). The repositories and their pins come in as `ExternalRepo`s (pqsoc/cli/tapeout.py
      reads them from where the project pins them).
  lvs/<top>/lvs_config.json
      The device-level LVS configuration ChipFoundry's precheck (and caravel_user_project's
      `make lvs-<top>`) reads: the top cell, its layout, the SPICE netlists of the leaf cells
      (standard cells, SRAM macros) and the gate-level Verilog of the hard macros and of the top,
      children first. Paths only through the variables the precheck defines ($UPRJ_ROOT: the
      submission's root; $PDK_ROOT/$PDK: the PDK), never a path of this machine.

This module knows no block: the top, the hard macros and the SRAM macro come from the caller.
"""
import json
import re
from dataclasses import dataclass
from pathlib import Path

EXTERNAL_REPOS_CSV = "third_party/used_external_repos.csv"
CSV_HEADER = "repository name,commit hash"
COMMIT = re.compile(r"[0-9a-f]{40}")


@dataclass(frozen=True)
class ExternalRepo:
    url: str             # https://github.com/<owner>/<name>
    commit: str          # the commit the design uses (40 hex digits), or the release tag when
    #                      the project pins a release whose commit is not recorded
    pinned_by: str       # where the project pins it (file: name)
    use: str             # what of it the submitted design takes

    @property
    def has_commit(self) -> bool:
        return bool(COMMIT.fullmatch(self.commit))


@dataclass(frozen=True)
class LvsInputs:
    top: str                     # the top cell (user_project_wrapper)
    hard_macros: tuple[str, ...]  # cells hardened on their own, whose gate-level netlists the top instantiates
    std_cell_library: str        # sky130_fd_sc_hd
    sram_macros: tuple[str, ...]  # the PDK's SRAM macros the design places (their SPICE is the source)
    gl_path: str = "verilog/gl/{cell}.v"   # a cell's gate-level netlist in the submission
    gds_path: str = "gds/{cell}.gds"


def lvs_config_path(top: str) -> str:
    return f"lvs/{top}/lvs_config.json"


def external_repos_csv(repos) -> str:
    rows = [CSV_HEADER] + [f"{r.url},{r.commit}" for r in repos]
    return "\n".join(rows) + "\n"


def lvs_config(x: LvsInputs) -> dict:
    """The LVS configuration of the top cell (key order as the precheck reads it: a value may
    name a key set above it, as TOP_LAYOUT names $TOP_SOURCE)."""
    pdk_ref = "$PDK_ROOT/$PDK/libs.ref"
    scl = f"{pdk_ref}/{x.std_cell_library}/spice"
    spice = [f"{scl}/{x.std_cell_library}.spice",
             # the decap filler OpenLane places (not in the library's main netlist)
             f"{scl}/{x.std_cell_library.replace('_fd_', '_ef_')}__decap_12.spice"]
    spice += [f"{pdk_ref}/sky130_sram_macros/spice/{m}.spice" for m in x.sram_macros]
    verilog = [f"$UPRJ_ROOT/{x.gl_path.format(cell=c)}" for c in (*x.hard_macros, x.top)]   # children first
    return {
        "TOP_SOURCE": x.top,
        "TOP_LAYOUT": "$TOP_SOURCE",
        # OpenRAM's SRAM layouts hold their transistors as cells (*_nmos_m*, *_pmos_m*), which
        # extract as devices only when flattened
        "EXTRACT_FLATGLOB": ["*_nmos_m*", "*_pmos_m*"] if x.sram_macros else [""],
        # standard cells without devices (fill, fake diodes, taps) stay cells in the extraction
        "EXTRACT_ABSTRACT": ["*__fill_*", "*__fakediode_*", "*__tapvpwrvgnd_*"],
        "LVS_FLATTEN": [""],
        "LVS_NOFLATTEN": [""],
        "LVS_IGNORE": [""],
        "LVS_SPICE_FILES": spice,
        "LVS_VERILOG_FILES": verilog,
        "LAYOUT_FILE": f"$UPRJ_ROOT/{x.gds_path.format(cell='$TOP_LAYOUT')}",
    }


def render_lvs_config(x: LvsInputs) -> str:
    return json.dumps(lvs_config(x), indent=2) + "\n"


def machine_paths(cfg: dict) -> list[str]:
    """Values of an LVS configuration that are not through $UPRJ_ROOT / $PDK_ROOT (the precheck
    refuses absolute paths)."""
    out = []
    for k, v in cfg.items():
        for s in (v if isinstance(v, list) else [v]):
            if "/" in s and not s.startswith(("$UPRJ_ROOT/", "$PDK_ROOT/")):
                out.append(f"{k}: {s}")
    return out


def files(repos, lvs: LvsInputs) -> dict[str, str]:
    """{repository-relative path: content} of the files written here."""
    return {EXTERNAL_REPOS_CSV: external_repos_csv(repos), lvs_config_path(lvs.top): render_lvs_config(lvs)}


def write(repos, lvs: LvsInputs, repo: Path) -> list[str]:
    out = []
    for rel, text in files(repos, lvs).items():
        path = repo / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        out.append(rel)
    return out


def problems(repos, lvs: LvsInputs, repo: Path, command: str) -> list[str]:
    """Each file that is missing or not what `command` writes now, and each repository pinned
    without a commit."""
    out = []
    for rel, text in files(repos, lvs).items():
        path = repo / rel
        if not path.is_file():
            out.append(f"missing: {rel}: run `{command}`")
        elif path.read_text() != text:
            out.append(f"stale: {rel} differs from what `{command}` writes now: run it")
    no_commit = [r for r in repos if not r.has_commit]
    if no_commit:
        out.append(f"missing: {EXTERNAL_REPOS_CSV}: no commit recorded for "
                   + ", ".join(f"{r.url} (release {r.commit}, {r.pinned_by})" for r in no_commit))
    return out
