# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""One check of the local signoff (signoff.py): its result (Check: pass / fail / not-run,
the reason, the log, details) and how its tools are found (TOOLS, Debian names) and run
(a log file, a timeout).
"""
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

TOOLS = {"magic": "magic", "netgen": "netgen-lvs", "klayout": "klayout", "sta": "sta"}
TIMEOUT_S = 3600


@dataclass
class Check:
    status: str = "not-run"          # pass / fail / not-run
    reason: str = ""                 # why not-run or why fail, in words
    log: str = ""
    details: dict = field(default_factory=dict)
    seconds: float = 0.0

    def as_dict(self) -> dict:
        d = {"status": self.status}
        if self.reason:
            d["reason"] = self.reason
        if self.log:
            d["log"] = self.log
        d.update(self.details)
        d["seconds"] = round(self.seconds, 2)
        return d


def find_tool(key: str) -> str | None:
    return shutil.which(TOOLS[key])


def run_tool(cmd, cwd: Path, log: Path, timeout: float) -> int:
    """Run a tool with its output into log (never into memory: a runaway tool can write GBs)."""
    with open(log, "w") as f:
        try:
            return subprocess.run(cmd, cwd=cwd, stdout=f, stderr=subprocess.STDOUT,
                                  stdin=subprocess.DEVNULL, timeout=timeout).returncode
        except subprocess.TimeoutExpired:
            f.write(f"\n[pqsoc] killed after the {timeout} s timeout\n")
            return -1
