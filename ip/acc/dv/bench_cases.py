# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""The machinery the ACC benchmarks share (bench_mlkem.py, bench_mldsa.py): the command line,
random cases run in worker processes with progress lines, a failing case kept by name, and
the JSON report with its provenance."""
import argparse
import json
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path


def args(prog: str, doc: str, params, argv=None) -> argparse.Namespace:
    """--n (cases per set), --seed, --param (repeatable; default all), --jobs, --json."""
    ap = argparse.ArgumentParser(prog=f"python -m {prog}", description=doc.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=1000, help="random cases per parameter set")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--param", type=int, choices=params, action="append", help="a set (default: all)")
    ap.add_argument("--jobs", type=int, default=2, help="worker processes")
    ap.add_argument("--json", type=Path, help="write the figures here")
    a = ap.parse_args(argv)
    if a.n < 1:
        ap.error("--n must be at least 1")
    a.param = tuple(a.param or params)
    return a


def safe(one_case, param: int, seed: int):
    """one_case(param, seed), or its exception as a string (reported by name in the
    benchmark's problems; the run then fails)."""
    try:
        return one_case(param, seed)
    except Exception as e:
        return f"{type(e).__name__}: {e}"


def run(case, n: int, seed: int, params, jobs: int, label: str, progress=print,
        chunksize: int = 2, pool=ProcessPoolExecutor) -> tuple[dict, list, float]:
    """n cases per set (case(param, seed) -> result dict, or a string naming a failure), in
    `jobs` worker processes, ~50 progress lines. Returns ({set: [results]}, [problems],
    start time)."""
    tasks = [(p, seed * 1_000_003 + i) for p in params for i in range(n)]
    results, problems = {p: [] for p in params}, []
    t0 = time.time()
    with pool(max_workers=jobs) as ex:
        for done, ((p, _), res) in enumerate(zip(tasks, ex.map(case, *zip(*tasks), chunksize=chunksize)), 1):
            if isinstance(res, str):
                problems.append(res)
            else:
                results[p].append(res)
            if progress and (done % max(1, len(tasks) // 50) == 0 or done == len(tasks)):
                progress(f"[{label}] {done}/{len(tasks)} cases, {time.time() - t0:.0f} s, "
                         f"{len(problems)} problems", flush=True)
    return results, problems, t0


def finish(out: dict, path: Path | None, label: str) -> int:
    """Print the problems, write the report (with provenance) when asked; exit status."""
    for prob in out["problems"][:20]:
        print(f"problem: {prob}", file=sys.stderr)
    if path:
        from pqsoc.flow import provenance
        out["provenance"] = provenance.stamp()
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(out, indent=2) + "\n")
        print(f"[{label}] -> {path}")
    return 0 if out["ok"] else 1
