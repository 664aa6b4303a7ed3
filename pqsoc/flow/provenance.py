# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""Which design a report describes: the git commit it was made at and the tracked files that
differed from that commit. Every report `make report` writes carries this stamp, so
`pqsoc tapeout check` can tell a current figure from a stale one (pqsoc/flow/tapeout.py)."""
import subprocess
from pathlib import Path

from pqsoc import REPO


def _git(repo: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True)


def head(repo: Path = REPO) -> str | None:
    r = _git(repo, "rev-parse", "--verify", "HEAD")
    return r.stdout.strip() if r.returncode == 0 else None


def dirty_files(repo: Path = REPO) -> list[str]:
    """Tracked files whose content differs from HEAD (staged or not); untracked files do not
    count (build/ and reports/ are ignored, scratch files are not the design)."""
    r = _git(repo, "status", "--porcelain", "--untracked-files=no")
    if r.returncode != 0:
        return []
    # porcelain v1: "XY path" or "XY old -> new"
    return sorted(line[3:].split(" -> ")[-1] for line in r.stdout.splitlines() if line.strip())


def stamp(repo: Path = REPO) -> dict:
    """{"commit": HEAD or None outside git, "dirty": tracked files changed since HEAD}."""
    return {"commit": head(repo), "dirty": dirty_files(repo)}


def changed_since(commit: str, paths, repo: Path = REPO) -> list[str] | None:
    """Files under paths that differ between commit and HEAD; None if git does not know commit."""
    if _git(repo, "cat-file", "-e", f"{commit}^{{commit}}").returncode != 0:
        return None
    r = _git(repo, "diff", "--name-only", commit, "HEAD", "--", *paths)
    if r.returncode != 0:
        return None
    return sorted(r.stdout.split())
