# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""`pqsoc acvp run PROMPT.json [--engine iss|rtl|gls|soc] [--sample N] [--seed S] [--out RESPONSE.json]
[--cycles CYCLES.json] [--allow-unsupported]` and `pqsoc acvp check RESPONSE.json
EXPECTED.json [--prompt PROMPT.json]`: NIST ACVP vector sets of ML-KEM (FIPS 203) and ML-DSA
(FIPS 204) through the host API (ip/acc/acvp.py).

run: a progress line per test group (stderr), the response in ACVP's layout to --out (or
stdout), each case's cycles to --cycles. Exit 0 when every case ran; 1 when a case failed to
run (its tcId alone in the response) or a group is unsupported (listed by tgId; exit 0 with
--allow-unsupported); 2 on a malformed prompt, naming the problem.

check: a line per group of the response, `tgId function/parameterSet: passed|failed`, then
`N passed, M failed` (M: wrong or missing cases of the response's groups; a sampled response
only on its cases). Exit 0 when M is 0, 1 otherwise, 2 on a malformed or mismatched file.
Group names come from the prompt (--prompt, default prompt.json beside EXPECTED).

`pqsoc acvp report [--root DIR] [--engine iss|rtl|gls|soc] [--sample N] [--seed S] [--json REPORT.json]
[--allow-unsupported] [--group FOLDER:TGID ...]`: every vector set (or only the groups named: a
task of `pqsoc campaign acvp`, which runs the groups on Dask and merges the reports) under --root (default ACVP_ROOT, or ../shared/acvp
beside the repository) run and checked as `run` and `check` do, one mode after another; a line
per group and per mode; reports/acvp.json: per mode the engine, cases in expectedResults, run,
passed, failed, the cases that failed to run, unsupported groups, the sample, wall time, and a
`provenance` stamp (tapeout.json's `conformance` reads it). Exit 0 when every case checked
passed; 1 when one failed or (without --allow-unsupported) a group is unsupported; 2 on a
malformed or mismatched file (before anything runs)."""
import json
import sys
from pathlib import Path

from pqsoc import REPO, positive


def _err(cmd: str, msg: str) -> None:
    print(f"pqsoc acvp {cmd}: error: {msg}", file=sys.stderr)


def _write(path: str | None, doc: dict) -> None:
    text = json.dumps(doc, indent=2) + "\n"
    if path is None:
        sys.stdout.write(text)
    else:
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        Path(path).write_text(text)


def _engine(args) -> None:
    """Engine soc (the firmware API on the simulated SoC) lives above ip.acc.api: plugged in."""
    if args.engine == "soc":
        from pqsoc.cli.mlkem import plug_soc_engines
        plug_soc_engines()


def _run(args) -> int:
    from ip.acc import acvp
    _engine(args)
    try:
        prompt = acvp.load(args.prompt)
        response, report = acvp.run(prompt, engine=args.engine, sample=args.sample, seed=args.seed,
                                    progress=lambda line: print(line, file=sys.stderr, flush=True),
                                    masked=args.masked)
    except acvp.AcvpError as e:
        _err("run", str(e))
        return 2
    _write(args.out, response)
    if args.cycles:
        _write(args.cycles, report)
    n = sum(len(g["tests"]) for g in response["testGroups"])
    print(f"[acvp] {response['algorithm']} {response['mode']}: {n} cases in the response, "
          f"{len(report['errors'])} failed to run, {report['wall_s']:.1f} s on {args.engine}"
          + (f"; response {args.out}" if args.out else ""), file=sys.stderr)
    for e in report["errors"]:
        _err("run", f"tgId {e['tgId']} tcId {e['tcId']}: {e['error']}")
    rc = 1 if report["errors"] else 0
    if report["unsupported"]:
        msg = _unsupported_msg(report["unsupported"])
        if args.allow_unsupported:
            print(f"[acvp] {msg} (allowed)", file=sys.stderr)
        else:
            _err("run", msg + " (--allow-unsupported to accept)")
            rc = 1
    return rc


def _group_line(g: dict) -> str:
    """`tgId function/parameterSet: passed (N)` or `...: failed (M of N: problems)`."""
    head = f"{g['tgId']} {g['label']}" if g["label"] else f"{g['tgId']}"
    if g["failed"]:
        return (f"{head}: failed ({g['failed']} of {g['passed'] + g['failed']}: "
                + "; ".join(g["problems"][:5]) + (" ..." if len(g["problems"]) > 5 else "") + ")")
    return f"{head}: passed ({g['passed']})"


def _unsupported_msg(unsupported: list) -> str:
    cases = sum(u["cases"] for u in unsupported)
    tgs = ", ".join(str(u["tgId"]) for u in unsupported)
    return f"{len(unsupported)} test groups unsupported ({cases} cases, not run): tgId {tgs}"


def _check(args) -> int:
    from ip.acc import acvp
    try:
        response = acvp.load(args.response)
        expected = acvp.load(args.expected)
        prompt_path = Path(args.prompt) if args.prompt else Path(args.expected).parent / "prompt.json"
        prompt = acvp.load(prompt_path) if (args.prompt or prompt_path.is_file()) else None
        if response.get("sample") is not None and not isinstance(response["sample"], dict):
            raise acvp.AcvpError(f"{args.response}: sample is not an object")
        r = acvp.check(response, expected, prompt, names=(args.response, args.expected))
    except acvp.AcvpError as e:
        _err("check", str(e))
        return 2
    for g in r["groups"]:
        print(_group_line(g))
    if r["not_in_response"]:
        print(f"groups not in the response (not counted): tgId {', '.join(map(str, r['not_in_response']))}")
    if r["sampled"]:
        s = r["sampled"]
        print(f"sampled response ({s.get('perGroup')} per group, seed {s.get('seed')}): "
              f"{s['checked']} of {s['of']} cases of its groups checked")
    print(f"{r['passed']} passed, {r['failed']} failed")
    return 1 if r["failed"] else 0


def _report(args) -> int:
    import time
    _engine(args)
    from ip.acc import acvp
    from pqsoc.flow import provenance
    stamp = provenance.stamp()      # the design as the runs start (tapeout.json's staleness rule)
    root = Path(args.root) if args.root else acvp.default_root()
    try:
        sets = acvp.vector_sets(root)
        if args.group:
            sets = acvp.only_groups(sets, args.group)
    except (acvp.AcvpError, OSError) as e:
        _err("report", str(e))
        return 2
    sample = {"perGroup": args.sample, "seed": args.seed} if args.sample else None
    print(f"[acvp] {len(sets)} vector set{'s' * (len(sets) != 1)} under {root} on {args.engine}: "
          + ", ".join(s["name"] for s in sets)
          + (f"; a sample of {args.sample} per group, seed {args.seed}" if sample else ""), flush=True)
    modes, t0 = {}, time.monotonic()
    for vs in sets:
        try:
            e = acvp.conformance(vs, engine=args.engine, sample=args.sample, seed=args.seed,
                                 progress=lambda line: print(f"  {line}", flush=True), masked=args.masked)
        except acvp.AcvpError as err:
            _err("report", f"{vs['folder']}: {err}")
            return 2
        modes[vs["name"]] = e
        u = sum(x["cases"] for x in e["unsupported"])
        print(f"[acvp] {vs['name']} on {e['engine']}: {e['run']} of {e['total']} cases run"
              + (f" (a sample, {args.sample} per group, seed {args.seed})" if sample else "")
              + f": {e['passed']} passed, {e['failed']} failed"
              + (f", {len(e['errors'])} failed to run" if e["errors"] else "")
              + (f", {len(e['unsupported'])} groups unsupported ({u} cases)" if e["unsupported"] else "")
              + f", {e['wall_s']:.1f} s", flush=True)
        for g in e["groups"]:
            if g["failed"]:
                print(f"  {_group_line(g)}", flush=True)
    doc = {"provenance": stamp, "root": str(root), "engine": args.engine, "masked_decaps": args.masked,
           "sample": sample,
           "modes": modes,
           "total": sum(e["total"] for e in modes.values()), "run": sum(e["run"] for e in modes.values()),
           "passed": sum(e["passed"] for e in modes.values()), "failed": sum(e["failed"] for e in modes.values()),
           "wall_s": round(time.monotonic() - t0, 2)}
    _write(args.json, doc)
    print(f"[acvp] in all {doc['run']} of {doc['total']} cases run: {doc['passed']} passed, {doc['failed']} "
          f"failed, {doc['wall_s']:.1f} s; wrote {args.json}", flush=True)
    unsupported = [u for e in modes.values() for u in e["unsupported"]]
    rc = 1 if doc["failed"] else 0
    if unsupported:
        if args.allow_unsupported:
            print(f"[acvp] {_unsupported_msg(unsupported)} (allowed)")
        else:
            _err("report", _unsupported_msg(unsupported) + " (--allow-unsupported to accept)")
            rc = 1
    return rc


def _run_options(q) -> None:
    """The options `run` and `report` share: how the cases run and which."""
    q.add_argument("--engine", choices=("iss", "rtl", "gls", "soc"), default="iss",
                   help="iss: the ACC's cycle-accurate ISS (default); rtl: its RTL in Verilator; gls: "
                   "its synthesized netlist at gate level (`pqsoc synth acc` first); soc: the firmware "
                   "API on the simulated SoC (gls and soc: minutes to build their model once)")
    q.add_argument("--sample", type=positive(int), default=None, metavar="N",
                   help="N cases per test group, chosen reproducibly by --seed (default: all)")
    q.add_argument("--seed", default="0", help="seed of the --sample choice (default 0)")
    q.add_argument("--allow-unsupported", action="store_true",
                   help="exit 0 even when test groups are unsupported (they are still listed)")
    q.add_argument("--masked", action="store_true",
                   help="ML-KEM decapsulation by the first-order masked program (dk in fresh shares "
                        "per case; the other modes as without it)")


def add_parser(sub) -> None:
    p = sub.add_parser("acvp", help="NIST ACVP vector sets (ML-KEM, ML-DSA) through the host API: "
                                    "run a prompt, check a response, report on them all")
    s = p.add_subparsers(dest="op", required=True)
    q = s.add_parser("run", help="run every case (or a sample) of an ACVP prompt.json; write the response")
    q.add_argument("prompt", metavar="PROMPT.json")
    _run_options(q)
    q.add_argument("--out", metavar="RESPONSE.json", help="the response (default: stdout)")
    q.add_argument("--cycles", metavar="CYCLES.json", help="side report: cycles of every case, "
                   "unsupported groups, errors, wall time")
    q.set_defaults(func=_run)
    q = s.add_parser("check", help="compare a response with expectedResults.json: per group, then "
                                   "`N passed, M failed`")
    q.add_argument("response", metavar="RESPONSE.json")
    q.add_argument("expected", metavar="EXPECTED.json")
    q.add_argument("--prompt", metavar="PROMPT.json",
                   help="for the groups' names (default: prompt.json beside EXPECTED.json, if there)")
    q.set_defaults(func=_check)
    q = s.add_parser("report", help="run and check every vector set under ACVP_ROOT (one after "
                                    "another); write the conformance report (reports/acvp.json)")
    q.add_argument("--root", metavar="DIR", help="the vector sets: folders with prompt.json and "
                   "expectedResults.json (default: ACVP_ROOT, or ../shared/acvp beside the repository)")
    _run_options(q)
    q.add_argument("--json", default=str(REPO / "reports" / "acvp.json"), metavar="REPORT.json",
                   help="the report (default reports/acvp.json)")
    q.add_argument("--group", action="append", metavar="FOLDER:TGID",
                   help="only this test group of the vector set in FOLDER (repeatable; a campaign's task)")
    q.set_defaults(func=_report)

