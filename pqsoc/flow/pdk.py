# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""Where the sky130A PDK is, and the files of it that the flow reads.

The PDK is never part of the repository: `PDK_ROOT` points at an open_pdks-style tree
(`$PDK_ROOT/sky130A/libs.ref/...`). `make setup` installs a pinned one with ciel when
`PDK_ROOT` does not hold one and the network allows.
"""
import functools
import importlib.util
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from pqsoc import FlowError

PDK = "sky130A"
SCL = "sky130_fd_sc_hd"
FAMILY = "sky130"


@functools.lru_cache(maxsize=1)
def open_pdks_rev() -> str:
    """The open_pdks revision of the PDK: the one the pinned LibreLane (requirements.txt) was
    released with, read from its own pdk_hashes.yaml, so that `make setup`'s ciel install, the
    hardening run and tapeout.json name one revision, stated once (by LibreLane)."""
    import yaml
    spec = importlib.util.find_spec("librelane")
    if spec is None or spec.origin is None:
        raise FlowError("librelane is not installed (requirements.txt pins it): run `make setup`")
    path = Path(spec.origin).parent / "pdk_hashes.yaml"
    rev = (yaml.safe_load(path.read_text()) or {}).get(FAMILY) if path.is_file() else None
    if not isinstance(rev, str) or len(rev) != 40:
        raise FlowError(f"LibreLane's {path} names no open_pdks revision for {FAMILY}")
    return rev


def installed_rev(root: Path) -> str | None:
    """The open_pdks revision of the PDK at root, from the `SOURCES` file open_pdks writes
    (`open_pdks <rev>`); None when it has none."""
    sources = Path(root) / PDK / "SOURCES"
    if not sources.is_file():
        return None
    for line in sources.read_text().splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[0] == "open_pdks":
            return parts[1]
    return None
DEFAULT_PDK_ROOT = Path.home() / ".ciel"

CORNERS = {"tt": "tt_025C_1v80", "ss": "ss_n40C_1v40", "ff": "ff_100C_1v95"}
SRAM_MACROS = ("sky130_sram_1kbyte_1rw1r_32x256_8", "sky130_sram_2kbyte_1rw1r_32x512_8")


@dataclass(frozen=True)
class Pdk:
    root: Path

    @property
    def base(self) -> Path:
        return self.root / PDK

    def liberty(self, corner: str) -> Path:
        if corner not in CORNERS:
            raise FlowError(f"unknown corner {corner!r}; known: {', '.join(CORNERS)}")
        p = self.base / "libs.ref" / SCL / "lib" / f"{SCL}__{CORNERS[corner]}.lib"
        if not p.is_file():
            raise FlowError(f"PDK: Liberty for corner {corner} missing: {p}")
        return p

    @property
    def drc_exclude_file(self) -> Path:
        """OpenLane's PNR_EXCLUDED_CELL_FILE of the PDK: cells with DRC or pin-access problems,
        which OpenLane keeps out of synthesis as well as of place-and-route."""
        return self.base / "libs.tech" / "openlane" / SCL / "drc_exclude.cells"

    @property
    def cell_verilog(self) -> Path:
        return self.base / "libs.ref" / SCL / "verilog" / f"{SCL}.v"

    def sram(self, macro: str, kind: str) -> Path:
        """kind: lef, lib (TT only) or verilog."""
        d = self.base / "libs.ref" / "sky130_sram_macros" / kind
        if kind == "lib":
            p = d / f"{macro}_TT_1p8V_25C.lib"
        else:
            p = d / f"{macro}.{'v' if kind == 'verilog' else kind}"
        if not p.is_file():
            raise FlowError(f"PDK: SRAM macro file missing: {p}")
        return p


def find_pdk() -> Pdk:
    """The PDK named by $PDK_ROOT (or the ciel default), checked; FlowError says how to fix it."""
    env = os.environ.get("PDK_ROOT")
    root = Path(env).expanduser().resolve() if env else DEFAULT_PDK_ROOT
    if not (root / PDK / "libs.ref" / SCL / "lib").is_dir():
        where = f"PDK_ROOT={env}" if env else f"PDK_ROOT is not set and {root} has none"
        raise FlowError(
            f"no {PDK} PDK found ({where}). Set PDK_ROOT to a folder that holds {PDK}/ "
            f"(e.g. PDK_ROOT=../shared/pdk), or run `make setup` with network access to install "
            f"open_pdks {open_pdks_rev()[:10]} with ciel.")
    pdk = Pdk(root)
    pdk.liberty("tt")
    return pdk


def install_with_ciel(root: Path) -> None:
    """Install the pinned sky130 PDK into root with ciel (needs network access to its sources)."""
    from importlib.metadata import version   # ciel is pinned in requirements.txt (librelane's)
    rev = open_pdks_rev()
    print(f"[pdk] installing {PDK} (open_pdks {rev}) into {root} with ciel {version('ciel')}",
          flush=True)
    r = subprocess.run([sys.executable, "-m", "ciel", "enable", "--pdk-family", "sky130",
                        "--pdk-root", str(root), rev])
    if r.returncode != 0:
        raise FlowError(
            f"ciel could not install the PDK (exit {r.returncode}); without network access, "
            f"set PDK_ROOT to an existing {PDK} tree (e.g. PDK_ROOT=../shared/pdk) and run again.")


def check(install: bool) -> Pdk:
    try:
        pdk = find_pdk()
    except FlowError:
        if not install:
            raise
        env = os.environ.get("PDK_ROOT")
        install_with_ciel(Path(env).expanduser().resolve() if env else DEFAULT_PDK_ROOT)
        pdk = find_pdk()
    print(f"[pdk] {PDK} at {pdk.root}")
    return pdk
