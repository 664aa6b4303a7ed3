# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""pqsoc: the project's command line and flow steps (synthesis, STA, reports, simulation, tools)."""
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
BUILD = REPO / "build"
REPORTS = REPO / "reports"


class FlowError(Exception):
    """A flow step failed; the message names the problem. The CLI prints it and exits non-zero."""


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
