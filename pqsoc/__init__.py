"""pqsoc: the project's command line and flow steps (synthesis, STA, reports, simulation, tools)."""
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
BUILD = REPO / "build"
REPORTS = REPO / "reports"


class FlowError(Exception):
    """A flow step failed; the message names the problem. The CLI prints it and exits non-zero."""
