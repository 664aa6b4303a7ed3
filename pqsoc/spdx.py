# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""SPDX headers of the project's own source files (the licence is LICENSE, Apache-2.0).

ChipFoundry's precheck (its licence check) wants an approved licence at the repository root and,
in every source file outside its ignored folders and file types, an `SPDX-License-Identifier`
naming that licence and an `SPDX-FileCopyrightText`. This module holds the two lines, the comment
syntax of each kind of file the project writes, and the files that take none (generated,
third-party, data). tools/spdx.py runs it:

    python tools/spdx.py --check     list each source file without the header (exit 1 if any)
    python tools/spdx.py --fix       add the header where it is missing

The header goes at the head of a file, after a shebang line and a `# -*- coding` line (which
must stay first), one comment line each in the file's own syntax. Generators of files that end
up in the submission (soc/caravel.py: user_project_wrapper.v, user_defines.v) take their
header from `header()` here.
"""
import argparse
import subprocess
import sys
from pathlib import Path

LICENSE_ID = "Apache-2.0"
COPYRIGHT = "2026 pqsoc contributors"
LINES = (f"SPDX-FileCopyrightText: {COPYRIGHT}", f"SPDX-License-Identifier: {LICENSE_ID}")

# comment syntax: (prefix, suffix) of one comment line
HASH, SLASH, BLOCK = ("# ", ""), ("// ", ""), ("/* ", " */")
BY_SUFFIX = {".py": HASH, ".sh": HASH, ".tcl": HASH, ".nix": HASH, ".toml": HASH, ".yml": HASH,
             ".yaml": HASH, ".mk": HASH, ".cfg": HASH,
             ".c": BLOCK, ".h": BLOCK, ".S": BLOCK, ".ld": BLOCK,
             ".cpp": SLASH, ".cc": SLASH, ".hpp": SLASH, ".v": SLASH, ".sv": SLASH, ".vh": SLASH,
             ".svh": SLASH}
BY_NAME = {"Makefile": HASH}
# Files that take no header: data and documents (no comments, or not source: the precheck skips
# these types too), the licence itself, generated files committed for comparison (JSON), and
# what the project did not write.
SKIP_SUFFIXES = {".json", ".md", ".txt", ".csv", ".cells", ".lef", ".def", ".gds", ".lib", ".spice",
                 ".hex", ".bin", ".png", ".svg", ".pdf", ".vcd", ".fst", ".xml"}
SKIP_NAMES = {"LICENSE", ".gitignore", ".gitattributes", ".gitmodules"}
SKIP_DIRS = {
    "third_party": "other projects' files and the list of them",
    ".ci": "the CI runner's entry point, kept as the CI machinery has it",
}


def header(suffix_or_name: str) -> str:
    """The header's lines (with newlines) in the comment syntax of a file kind: a suffix ('.v')
    or a file name ('Makefile')."""
    pre, post = BY_NAME.get(suffix_or_name) or BY_SUFFIX[suffix_or_name]
    return "".join(f"{pre}{line}{post}\n" for line in LINES)


def _syntax(rel: str):
    """(prefix, suffix) for a repository-relative path, None when it takes no header,
    or "unknown" when no rule covers it."""
    p = Path(rel)
    if p.parts and p.parts[0] in SKIP_DIRS or p.name in SKIP_NAMES or p.suffix in SKIP_SUFFIXES:
        return None
    if p.name in BY_NAME:
        return BY_NAME[p.name]
    return BY_SUFFIX.get(p.suffix, "unknown")


def source_files(repo: Path) -> list[str]:
    """The repository's files (tracked, and new ones git does not ignore), repo-relative."""
    out = subprocess.run(["git", "-C", str(repo), "ls-files", "--cached", "--others", "--exclude-standard"],
                         check=True, capture_output=True, text=True).stdout.split()
    return sorted(f for f in set(out) if (repo / f).is_file())


def _lead(lines: list[str]) -> int:
    """How many first lines must stay first: a shebang, then a coding line."""
    n = 0
    if lines and lines[0].startswith("#!"):
        n = 1
    if len(lines) > n and lines[n].startswith("#") and "coding" in lines[n] and n < 2:
        n += 1
    return n


def has_header(text: str, syntax) -> bool:
    """Both SPDX lines, as comments of the file's syntax, right after its leading lines."""
    lines = text.splitlines()
    n = _lead(lines)
    pre, post = syntax
    return lines[n:n + len(LINES)] == [f"{pre}{line}{post}" for line in LINES]


def offenders(repo: Path) -> list[tuple[str, str]]:
    """(path, what is wrong) for each source file without the header."""
    out = []
    for rel in source_files(repo):
        syntax = _syntax(rel)
        if syntax is None:
            continue
        if syntax == "unknown":
            out.append((rel, "no comment syntax known for this file type (pqsoc/spdx.py BY_SUFFIX / SKIP_*)"))
            continue
        try:
            text = (repo / rel).read_text()
        except UnicodeDecodeError:
            out.append((rel, "not UTF-8 text"))
            continue
        if not has_header(text, syntax):
            out.append((rel, "no SPDX header at its head"))
    return out


def add_header(text: str, syntax) -> str:
    """text with the header after its leading lines (unchanged when it has it). An identifier
    elsewhere in the file is left where it is; the header is still added at the head."""
    if has_header(text, syntax):
        return text
    lines = text.splitlines(keepends=True)
    n = _lead([ln.rstrip("\n") for ln in lines])
    if n and not lines[n - 1].endswith("\n"):
        lines[n - 1] += "\n"
    pre, post = syntax
    return "".join(lines[:n]) + "".join(f"{pre}{line}{post}\n" for line in LINES) + "".join(lines[n:])


def fix(repo: Path) -> list[str]:
    """Add the header to every source file that lacks it; returns the files changed."""
    changed = []
    for rel, why in offenders(repo):
        syntax = _syntax(rel)
        if syntax in (None, "unknown"):
            continue
        path = repo / rel
        path.write_text(add_header(path.read_text(), syntax))
        changed.append(rel)
    return changed


def main(argv=None) -> int:
    from pqsoc import REPO
    ap = argparse.ArgumentParser(description="SPDX headers of the project's source files")
    g = ap.add_mutually_exclusive_group(required=True)
    g.add_argument("--check", action="store_true", help="list the files without the header; exit 1 if any")
    g.add_argument("--fix", action="store_true", help="add the header where it is missing")
    ap.add_argument("--repo", type=Path, default=REPO)
    args = ap.parse_args(argv)
    if args.fix:
        for rel in fix(args.repo):
            print(f"[spdx] added the header to {rel}")
    bad = offenders(args.repo)
    for rel, why in bad:
        print(f"{rel}: {why}", file=sys.stderr)
    if bad:
        print(f"[spdx] {len(bad)} file(s) without the SPDX header", file=sys.stderr)
        return 1
    print(f"[spdx] every source file has `SPDX-License-Identifier: {LICENSE_ID}`")
    return 0
