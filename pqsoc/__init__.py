# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""pqsoc: the project's command line and flow steps (synthesis, STA, reports, simulation, tools)."""
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
BUILD = REPO / "build"
REPORTS = REPO / "reports"


class FlowError(Exception):
    """A flow step failed; the message names the problem. The CLI prints it and exits non-zero."""


def write_if_changed(path: Path, text: str) -> bool:
    """Writes `text` to `path` unless it holds it already (True when written). An unchanged file
    keeps its timestamp, so the models built from it (Verilator, Yosys, make) are not rebuilt;
    the new text goes through a temporary file, so a reader never sees half of it."""
    path = Path(path)
    if path.is_file() and path.read_text() == text:
        return False
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text)
    tmp.replace(path)
    return True


def positive(kind):
    """An argparse type: a number of `kind` (int, float) greater than zero."""
    def parse(text):
        try:
            v = kind(text)
        except ValueError:
            v = 0
        if v <= 0:
            raise ValueError(text)
        return v
    parse.__name__ = f"positive {kind.__name__}"
    return parse
