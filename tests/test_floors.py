# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""The floors: each package imports only the floors below it, and no module imports itself back
through others (an import circle). Every import counts, those inside function bodies too.

Ground up (../shared/STYLE.md, README.md "Layout"):
    pqsoc (the package's own __init__: REPO, BUILD, FlowError)
    pqsoc.flow             generic flow steps; knows no block by name
    pqsoc.campaign         the campaign layer (Dask, SQLite results); knows no block by name
    pqsoc.sca              leakage statistics (online Welch t-test); knows no block by name
    ip.common              bus, register bank and tool, SRAM wrapper, clock gate
    ip.entropy             the entropy source (ring oscillators, health tests)
    ip.kmac                the KMAC block
    ip.acc                 the ACC (its side-load port is the KMAC's)
    soc                    LiteX SoC, silicon configuration
    firmware               firmware build, ACC programs as firmware data
    sim                    Verilator harnesses and runners (they build firmware)
    bringup                host scripts for the chip
    pqsoc.cli              the command line and the block registry
    tools                  repository scripts (tools/spdx.py)
Test modules (tests/ folders, conftest.py) may import any floor and are not checked.
"""
import ast
from pathlib import Path

from pqsoc import REPO

FLOORS = ("pqsoc", "pqsoc.flow", "pqsoc.campaign", "pqsoc.sca", "ip.common", "ip.entropy", "ip.kmac", "ip.acc", "soc", "firmware", "sim",
          "bringup", "pqsoc.cli", "tools")
SKIP_DIRS = {".venv", "build", "reports", ".git", "__pycache__"}


def floor_of(module: str) -> int | None:
    """Index in FLOORS of the longest floor name that is `module` or a package above it."""
    best = None
    for k, f in enumerate(FLOORS):
        if (module == f or module.startswith(f + ".")) and (best is None or len(f) > len(FLOORS[best])):
            best = k
    return best


def project_modules(root: Path) -> dict[str, Path]:
    mods = {}
    for path in root.rglob("*.py"):
        rel = path.relative_to(root)
        if SKIP_DIRS & set(rel.parts) or "tests" in rel.parts or path.name == "conftest.py" \
                or path.name.startswith("test_"):
            continue
        parts = list(rel.with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        if parts:
            mods[".".join(parts)] = path
    return mods


def imports(path: Path, module: str) -> set[str]:
    """Every module name an import statement of the file names (absolute; relative resolved)."""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    out = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            out |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[:len(package.split(".")) - (node.level - 1)]
                base = ".".join(parts + ([base] if base else []))
            out.add(base)
            out |= {f"{base}.{a.name}" for a in node.names}
    return out


def graph(mods: dict[str, Path]) -> dict[str, set[str]]:
    """module -> the project modules it imports (the deepest existing name of each import);
    importing one's own parent package's __init__ does not count (Python runs it anyway)."""
    def resolve(name: str) -> str | None:
        while name:
            if name in mods:
                return name
            name = name.rpartition(".")[0]
        return None
    g = {}
    for m, path in mods.items():
        targets = {resolve(n) for n in imports(path, m)} - {None, m}
        g[m] = {t for t in targets if not (m.startswith(t + ".") and mods[t].name == "__init__.py")}
    return g


def back_edges(g: dict[str, set[str]]) -> list[str]:
    out = []
    for a, targets in sorted(g.items()):
        fa = floor_of(a)
        for b in sorted(targets):
            fb = floor_of(b)
            if fa is None or fb is None:
                out.append(f"{a if fa is None else b} is on no floor (add it to FLOORS)")
            elif fb > fa:
                out.append(f"{a} ({FLOORS[fa]}) imports {b} ({FLOORS[fb]}), a floor above it")
    return sorted(set(out))


def circles(g: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan, iterative)."""
    index, low, on, stack, out, counter = {}, {}, set(), [], [], [0]
    for root in g:
        if root in index:
            continue
        work = [(root, iter(sorted(g[root])))]
        index[root] = low[root] = counter[0]
        counter[0] += 1
        stack.append(root)
        on.add(root)
        while work:
            v, it = work[-1]
            for w in it:
                if w not in index:
                    index[w] = low[w] = counter[0]
                    counter[0] += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(g.get(w, ())))))
                    break
                if w in on:
                    low[v] = min(low[v], index[w])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[v])
                if low[v] == index[v]:
                    comp = []
                    while True:
                        w = stack.pop()
                        on.discard(w)
                        comp.append(w)
                        if w == v:
                            break
                    if len(comp) > 1:
                        out.append(sorted(comp))
    return out


def test_every_import_goes_down_a_floor():
    mods = project_modules(REPO)
    assert "pqsoc.flow.synth" in mods and "ip.acc.iss.machine" in mods and "pqsoc.cli" in mods
    bad = back_edges(graph(mods))
    assert not bad, "imports against the floors:\n" + "\n".join(bad)


def test_no_import_circle():
    found = circles(graph(project_modules(REPO)))
    assert not found, "import circles:\n" + "\n".join(", ".join(c) for c in found)


def test_the_checks_catch_a_back_edge_and_a_circle(tmp_path):
    """The checks themselves: a flow module importing a block, and two modules importing each
    other (inside a function body), are both reported."""
    for rel, text in {
        "pqsoc/__init__.py": "",
        "pqsoc/flow/__init__.py": "",
        "pqsoc/flow/synth.py": "def f():\n    from ip.acc import block\n",
        "ip/__init__.py": "",
        "ip/acc/__init__.py": "",
        "ip/acc/block.py": "from ip.acc.dv import gls\n",
        "ip/acc/dv/__init__.py": "",
        "ip/acc/dv/gls.py": "def g():\n    from ip.acc import block\n",
        "ip/acc/tests/test_x.py": "import pqsoc.cli\n",          # tests are not checked
    }.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    g = graph(project_modules(tmp_path))
    assert back_edges(g) == ["pqsoc.flow.synth (pqsoc.flow) imports ip.acc (ip.acc), a floor above it",
                             "pqsoc.flow.synth (pqsoc.flow) imports ip.acc.block (ip.acc), a floor above it"]
    assert circles(g) == [["ip.acc.block", "ip.acc.dv.gls"]]
