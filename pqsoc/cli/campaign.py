# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""`pqsoc campaign KIND ...`: long runs on the campaign layer (pqsoc/campaign: Dask distributed,
one SQLite file per campaign under reports/campaigns/; docs/campaigns.md).

    pqsoc campaign fuzz --count N --seed S [--chunk C] [--backend rtl|gls|iss] [--kmac] [--x-seed X]
    pqsoc campaign acvp [--root DIR] [--engine iss|rtl] [--sample N] (a task per ACVP test group)
    pqsoc campaign gls [BLOCK ...] [--seeds N]       (a task per block and random initial state)
    pqsoc campaign sweep BLOCK ... --periods 8,10,12 [--abc-dch on,off]   (a PPA point per task)
    pqsoc campaign tvla PROGRAM --traces N [--chunk C] (a leakage assessment, C traces per task)
    pqsoc campaign sleep --count N --seconds S        (the layer's own overhead and scaling)
    pqsoc campaign show NAME                          (state, failures, reports/campaigns/NAME.png)
    pqsoc campaign measure [--fuzz-campaign NAME]     (the layer's figures: reports/campaigns.json)

Where: a LocalCluster of one worker per core (default; --workers N), a running scheduler
(--scheduler tcp://HOST:PORT), or SLURM / PBS / LSF through dask-jobqueue (--cluster KIND --jobs
N, site settings in jobqueue.yaml). --name NAME names the campaign (default: the kind and its
arguments); --resume continues one without redoing its finished tasks; the same name without
--resume runs it again from the start, in the same rows; --resume --retry-errors also runs again
the tasks that ended in error (no result: a crash, a worker out of memory). Caps per task: --task-timeout S,
--task-memory MB. Exit 0 when every task passed, 1 when one failed or ended in error, 130 when
interrupted (Ctrl-C: `--resume` finishes it), 2 on bad arguments or a scheduler that does not
answer.

The kinds: each makes the tasks (their commands, each a line that reproduces it locally),
prepares what they share before any runs (a simulator model is built once, here, not per task)
and sums their figures.
"""
import json
import re
import shlex
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from pqsoc import REPO, FlowError, positive
from pqsoc.flow import provenance

CAMPAIGNS = REPO / "reports" / "campaigns"


@dataclass(frozen=True)
class Kind:
    args: Callable          # (argparse namespace) -> the arguments that define the campaign
    tasks: Callable         # (args dict) -> [engine.Task]
    prepare: Callable       # (args dict, log) -> None: what every task shares, made once
    summary: Callable       # (rows) -> (lines, figures: {'passed', 'failed', ...})
    picture: Callable | None = None   # (rows, name, summary figures) -> the PNG it wrote, or None
    check: Callable | None = None     # (args, rows, log) -> None, or FlowError: the finished tasks
                                      # measured something else than this run would (a resume)


# ---- fuzz: ACC random programs in lockstep (ip/acc/dv/fuzz.py), in chunks of --chunk programs --
def _fuzz_args(a) -> dict:
    return {"count": a.count, "seed": a.seed, "chunk": a.chunk, "backend": a.backend, "kmac": a.kmac,
            "x_seed": a.x_seed if a.backend == "gls" else None}


def _fuzz_tasks(args: dict) -> list:
    from pqsoc.campaign.engine import Task
    out = []
    for start in range(0, args["count"], args["chunk"]):
        n = min(args["chunk"], args["count"] - start)
        cmd = (f"pqsoc acc fuzz --count {n} --seed {args['seed']} --start {start} --backend {args['backend']}"
               + (" --kmac" if args["kmac"] else "")
               + (f" --x-seed {args['x_seed']}" if args["backend"] == "gls" else "")
               + f" --out build/acc_fuzz/{args['seed']}_{start}")
        out.append(Task(key=f"start{start:07d}", inputs={"seed": args["seed"], "start": start, "count": n}, command=cmd))
    return out


def _fuzz_prepare(args: dict, log) -> None:
    if args["backend"] == "rtl":
        from ip.acc.dv.rtl_runner import make_rtl_backend
        from ip.acc.dv.fuzz import DEFAULT_MEM
        log("[campaign] building the ACC's RTL model once for every task")
        make_rtl_backend(DEFAULT_MEM, DEFAULT_MEM).build()
    elif args["backend"] == "gls":
        from ip.acc.dv.gls import acc_backend
        log("[campaign] building the ACC netlist's model once for every task")
        acc_backend(args["x_seed"], log=log).build()


def _fuzz_summary(rows) -> tuple[list[str], dict]:
    programs = sum(r["figures"].get("programs", 0) for r in rows)
    passed = sum(r["figures"].get("passed", 0) for r in rows)
    failed = sum(r["figures"].get("failed", 0) for r in rows)
    lost = sum(r["inputs"]["count"] for r in rows if "programs" not in r["figures"])
    secs = sum(r["figures"].get("seconds", 0) for r in rows)
    lines = [f"fuzz: {programs} programs checked in {len(rows)} tasks"
             + (f" ({programs / secs:.1f} programs per task-second)" if secs else "")]
    if lost:
        lines.append(f"{lost} programs in tasks that reported no figures (an error, or not run) count as failed")
    # the figures `pqsoc acc fuzz --json` writes (tapeout.json reads programs and passed)
    return lines, {"programs": programs + lost, "passed": passed, "failed": failed + lost,
                   "programs_per_task_second": round(programs / secs, 1) if secs else None}


# ---- acvp: NIST's ACVP vector sets (pqsoc acvp report), a task per test group ---------------------
def _acvp_args(a) -> dict:
    from ip.acc import acvp
    root = Path(a.root) if a.root else acvp.default_root()
    return {"root": str(root.resolve()), "engine": a.engine, "sample": a.sample,
            "seed": a.sample_seed if a.sample else None}


def _acvp_tasks(args: dict) -> list:
    from ip.acc import acvp
    from pqsoc.campaign.engine import Task
    try:
        sets = acvp.vector_sets(args["root"])
    except (acvp.AcvpError, OSError) as exc:
        raise FlowError(str(exc)) from None
    opts = f" --engine {args['engine']}" + (f" --sample {args['sample']} --seed {args['seed']}" if args["sample"] else "")
    return [Task(key=f"{vs['folder']}:{g['tgId']:03d}", inputs={"mode": vs["name"], "folder": vs["folder"],
                                                                 "tgId": g["tgId"], "cases": len(g["tests"])},
                 command=f"pqsoc acvp report --root {shlex.quote(args['root'])}{opts} --allow-unsupported "
                         f"--group {shlex.quote(vs['folder'])}:{g['tgId']}")
            for vs in sets for g in vs["prompt"]["testGroups"]]


def _acvp_summary(rows) -> tuple[list[str], dict]:
    """The tasks' reports merged into the layout of `pqsoc acvp report`'s (reports/acvp.json):
    per mode total / run / passed / failed, errors, unsupported groups, groups; a group whose
    task reported nothing counts its cases as failed."""
    modes: dict = {}
    for r in rows:
        mode = r["inputs"]["mode"]
        got = (r["figures"].get("modes") or {}).get(mode)
        if got is None:      # the task died or did not run: its cases are not conformant
            got = {"total": r["inputs"]["cases"], "run": 0, "passed": 0, "failed": r["inputs"]["cases"],
                   "errors": [{"tgId": r["inputs"]["tgId"], "tcId": None, "error": r["message"] or r["state"]}],
                   "unsupported": [], "groups": [], "wall_s": 0.0}
        m = modes.setdefault(mode, {k: got.get(k) for k in ("folder", "vsId", "algorithm", "mode", "revision",
                                                             "engine", "sample")}
                             | {"total": 0, "run": 0, "passed": 0, "failed": 0, "errors": [], "unsupported": [],
                                "groups": [], "wall_s": 0.0})
        for k in ("total", "run", "passed", "failed"):
            m[k] += got[k]
        for k in ("errors", "unsupported", "groups"):
            m[k] += got[k]
        m["wall_s"] = round(m["wall_s"] + got["wall_s"], 2)
    lines = [f"{name}: {m['passed']} passed, {m['failed']} failed of {m['total']} cases"
             + (f", {sum(u['cases'] for u in m['unsupported'])} unsupported" if m["unsupported"] else "")
             for name, m in modes.items()]
    passed, failed = sum(m["passed"] for m in modes.values()), sum(m["failed"] for m in modes.values())
    first = next((r["figures"] for r in rows if r["figures"]), {})
    return lines, {"passed": passed, "failed": failed, "modes": modes, "engine": first.get("engine"),
                   "sample": first.get("sample"), "root": first.get("root"),
                   "total": sum(m["total"] for m in modes.values()), "run": sum(m["run"] for m in modes.values())}


# ---- gls: blocks x random initial states at gate level (pqsoc gls BLOCK --seed S) --------------
GLS_BLOCKS = ("keccak", "keccak_masked", "kmac", "entropy_src", "acc", "soc", "soc_acc32k", "caravel")


def _gls_args(a) -> dict:
    from pqsoc.flow import block as blocks_mod
    for b in a.blocks:
        blocks_mod.get(b)        # an unknown block is refused by name before anything runs
    return {"blocks": list(a.blocks), "seeds": a.seeds}


def _gls_tasks(args: dict) -> list:
    from pqsoc.campaign.engine import Task
    return [Task(key=f"{b}:{s}", inputs={"block": b, "seed": s}, command=f"pqsoc gls {b} --seed {s}")
            for b in args["blocks"] for s in range(1, args["seeds"] + 1)]


def _gls_prepare(args: dict, log) -> None:
    from pqsoc.flow import gls
    for b in args["blocks"]:
        gls.prepare(b, log=log)


def _gls_summary(rows) -> tuple[list[str], dict]:
    """The tasks' entries merged into `pqsoc gls --json`'s layout, under 'blocks': one entry per
    block whose every seed passed (its seeds, the first seed's cycles, gate-level tests summed over
    the seeds, each seed's figures under 'runs'); a block with a seed that did not pass has none
    (`pqsoc gls` writes a block only when every run matched the RTL) and is listed in 'failed_runs'."""
    by_block: dict = {}
    for r in rows:
        by_block.setdefault(r["inputs"]["block"], []).append(r)
    blocks, bad, lines = {}, [], []
    for b, rs in by_block.items():
        rs = sorted(rs, key=lambda r: r["inputs"]["seed"])
        miss = [r for r in rs if r["state"] != "passed" or b not in r["figures"]]
        for r in miss:
            bad.append({"block": b, "seed": r["inputs"]["seed"], "state": r["state"], "message": r["message"]})
        if miss:
            lines.append(f"{b}: {len(miss)} of {len(rs)} seeds did not pass")
            continue
        first = rs[0]["figures"][b]
        entry = dict(first, seeds=[r["inputs"]["seed"] for r in rs],
                     tests=sum(r["figures"][b].get("tests") or 0 for r in rs) or None,
                     runs={str(r["inputs"]["seed"]): {"tests": r["figures"][b].get("tests"),
                                                      "seconds": r["seconds"], "host": r["host"]} for r in rs})
        if entry["tests"] is None:
            del entry["tests"]
        # a block's own figures per seed (the ACC's random programs): summed, and kept per seed
        if isinstance(first.get("fuzz"), dict):
            entry["fuzz"] = dict(first["fuzz"], **{k: sum(r["figures"][b]["fuzz"][k] for r in rs)
                                                  for k in ("programs", "passed", "failed")})
        if isinstance(first.get("per_seed"), dict):
            entry["per_seed"] = {s: v for r in rs for s, v in r["figures"][b]["per_seed"].items()}
        blocks[b] = entry
        lines.append(f"{b}: seeds {', '.join(map(str, entry['seeds']))} pass, cycles equal to the RTL's")
    passed = sum(r["state"] == "passed" for r in rows)
    return lines, {"passed": passed, "failed": len(rows) - passed, "blocks": blocks, "failed_runs": bad}


# ---- sweep: synthesis + STA over a grid, a PPA point per task (pqsoc synth --dir --sta) ----------
def _floats(text: str) -> list[float]:
    try:
        out = [float(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise FlowError(f"--periods {text!r}: numbers in ns, separated by commas") from None
    if not out or min(out) <= 0:
        raise FlowError(f"--periods {text!r}: positive numbers in ns, separated by commas")
    return out


def _sweep_args(a) -> dict:
    from pqsoc.flow import block as blocks_mod
    for b in a.blocks:
        blocks_mod.get(b)
    dch = [x for x in a.abc_dch.split(",") if x] if a.abc_dch else ["block"]
    bad = [x for x in dch if x not in ("on", "off", "block")]
    if bad:
        raise FlowError(f"--abc-dch: on, off or block (the block's own setting), not {', '.join(bad)}")
    return {"blocks": list(a.blocks), "periods": _floats(a.periods), "abc_dch": dch}


def _point_key(block: str, period: float, dch: str) -> str:
    return f"{block}-p{period:g}-dch{dch}"


def _sweep_tasks(args: dict) -> list:
    from pqsoc.campaign.engine import Task
    out = []
    for b in args["blocks"]:
        for period in args["periods"]:
            for dch in args["abc_dch"]:
                key = _point_key(b, period, dch)
                out.append(Task(key=key, inputs={"block": b, "period_ns": period, "abc_dch": dch},
                                command=f"pqsoc synth {b} --period {period:g}"
                                        + ("" if dch == "block" else f" --abc-dch {dch}")
                                        + f" --dir build/sweep/{key} --sta"))
    return out


def _sweep_prepare(args: dict, log) -> None:
    from pqsoc.flow import block as blocks_mod
    for b in args["blocks"]:
        log(f"[campaign] {b}: emitting its Verilog once for every point")
        blocks_mod.get(b).emit_rtl()


def _sweep_points(rows) -> list[dict]:
    out = []
    for r in rows:
        f = r["figures"]
        if r["state"] == "passed" and "area_um2" in f and "corners" in f:
            out.append({"key": r["key"], "block": f["block"], "period_ns": f["period_ns"], "abc_dch": f["abc_dch"],
                        "cells": f["cells"], "area_um2": f["area_um2"],
                        "fmax_tt_mhz": f["corners"]["tt"]["fmax_mhz"], "fmax_ss_mhz": f["corners"]["ss"]["fmax_mhz"],
                        "wns_tt_ns": f["corners"]["tt"]["wns_ns"]})
    return out


def _sweep_summary(rows) -> tuple[list[str], dict]:
    """Every PPA point, and per block the Pareto front of area (smaller) against tt fmax (larger)."""
    from pqsoc.campaign import pareto
    points = _sweep_points(rows)
    fronts = {b: [p["key"] for p in pareto.front([p for p in points if p["block"] == b], "area_um2", "fmax_tt_mhz")]
              for b in sorted({p["block"] for p in points})}
    lines = [f"{'point':<28} {'cells':>8} {'area um2':>11} {'fmax tt':>8} {'fmax ss':>8}  Pareto"]
    for p in sorted(points, key=lambda p: (p["block"], p["period_ns"], str(p["abc_dch"]))):
        lines.append(f"{p['key']:<28} {p['cells']:>8} {p['area_um2']:>11.0f} {p['fmax_tt_mhz']:>8.1f} "
                     f"{p['fmax_ss_mhz']:>8.1f}  {'*' if p['key'] in fronts[p['block']] else ''}")
    passed = sum(r["state"] == "passed" for r in rows)
    return lines, {"passed": passed, "failed": len(rows) - passed, "points": points, "pareto": fronts}


def _sweep_picture(rows, name: str, figures: dict) -> Path | None:
    from pqsoc.campaign import pareto
    points = _sweep_points(rows)
    return pareto.picture(points, "area_um2", "fmax_tt_mhz",
                          lambda p: f"{p['block']} {p['period_ns']:g} ns" + ("" if p["abc_dch"] else " no dch"),
                          f"PPA sweep {name}:\narea against fmax (tt, reg2reg)", CAMPAIGNS / f"{name}_pareto.png",
                          "area (um2, synthesis)", "fmax tt (MHz)")


# ---- tvla: a leakage assessment's traces in chunks (pqsoc sca tvla --start --state) ---------------
def _keccak(program: str) -> bool:
    """The masked Keccak core's programs (ip/kmac/dv/tvla_keccak.py); the others are the ACC's."""
    return program.startswith("keccak_")


def _tvla_args(a) -> dict:
    # an unknown program or engine is refused by name before anything runs
    if _keccak(a.program):
        from ip.kmac.dv import tvla_keccak
        if a.program not in tvla_keccak.VARIANTS:
            raise FlowError(f"unknown Keccak variant {a.program!r}; known: {', '.join(tvla_keccak.VARIANTS)}")
        if a.model != "buses":
            raise FlowError(f"--model {a.model}: the Keccak core's power models have no buses to leave out")
        if a.cycles is not None:
            raise FlowError("--cycles: a window of an ACC program's cycles; the Keccak core's runs are one permutation")
    else:
        from ip.acc.dv import tvla
        tvla.program(a.program)
        if a.engine == "gls" and a.model != "buses":
            raise FlowError(f"--model {a.model}: an option of the RTL model; the gate-level model counts every net")
    # a window only when given, so that the campaigns made before it existed still resume
    return {"program": a.program, "traces": a.traces, "chunk": a.chunk, "seed": a.seed, "order": a.order,
            "engine": a.engine, "model": a.model, **({"cycles": a.cycles} if a.cycles else {})}


def _tvla_state(args: dict, start: int, count: int) -> str:
    # named by everything that decides its traces (program, engine, model, seed, first trace and
    # count): two campaigns share a file only where they measure the same traces
    engine, model = args.get("engine", "rtl"), args.get("model", "buses")
    tag = ("" if engine == "rtl" else "-" + engine) + ("" if model == "buses" else "-" + model) \
        + (f"-w{args['cycles']}" if args.get("cycles") else "")
    return f"build/sca/{args['program']}{tag}-s{args['seed']}/{start:09d}+{count}.npz"


def _tvla_tasks(args: dict) -> list:
    from pqsoc.campaign.engine import Task
    out = []
    for start in range(0, args["traces"], args["chunk"]):
        n = min(args["chunk"], args["traces"] - start)
        out.append(Task(key=f"t{start:09d}", inputs={"start": start, "count": n, "state": _tvla_state(args, start, n)},
                        command=f"pqsoc sca tvla {args['program']} --traces {n} --seed {args['seed']} "
                                f"--start {start} --order {args['order']} --engine {args.get('engine', 'rtl')} "
                                f"--model {args.get('model', 'buses')} --state {_tvla_state(args, start, n)}"
                                + (f" --cycles {args['cycles']}" if args.get("cycles") else "")))
    return out


def _tvla_prepare(args: dict, log) -> None:
    if _keccak(args["program"]):
        if args.get("engine") == "gls":
            from ip.kmac.dv import tvla_keccak
            log("[campaign] building the masked Keccak core's gate-level power model once for every task")
            tvla_keccak.GateLevel(log=log)
        return
    if args.get("engine") == "gls":
        from ip.acc.dv.gls_power import GateLevelPowerBackend
        log("[campaign] building the ACC netlist's gate-level power model once for every task")
        GateLevelPowerBackend(seed=args["seed"], log=log).build()
        return
    from ip.acc import block
    from ip.acc.dv.power import PowerBackend
    log("[campaign] building the ACC's RTL power model once for every task")
    PowerBackend(block.IMEM_SIZE, block.DMEM_SIZE, log=log).build()


def _tvla_check(args: dict, rows, log) -> None:
    """A resumed campaign's finished chunks must have measured what the tasks left will: the same
    program and power model (ip/acc/dv/tvla.py fingerprint), or the merge would mix two programs'
    traces. Checked before anything runs; the Keccak core's runs carry no fingerprint."""
    done = [r for r in rows if r["state"] == "passed"]
    if _keccak(args["program"]) or not done:
        return
    from ip.acc.dv import tvla
    from pqsoc.sca.ttest import Assessment
    now = tvla.measured(args["program"], args.get("engine", "rtl"), args.get("model", "buses"), args["seed"],
                        args.get("cycles"))
    for r in done:
        path = REPO / r["inputs"]["state"]
        if not path.exists():
            raise FlowError(f"task {r['key']}: its traces' accumulators ({_shown(path)}) are gone; "
                            "run the campaign again without --resume")
        was, traces = Assessment.about(path)
        if was != now:
            raise FlowError(f"task {r['key']} measured {args['program']} as {was or 'untagged'} (its "
                            f"{_shown(path)}), a run now would measure {now}: the program or the power model "
                            "changed since; give another --name, or run it again without --resume")
        if traces != r["inputs"]["count"]:
            raise FlowError(f"task {r['key']}: {_shown(path)} holds {traces} traces, the task ran "
                            f"{r['inputs']['count']}: another run wrote it; run the campaign again without --resume")
    log(f"[campaign] {len(done)} finished tasks measured what the rest will ({now})")


def _tvla_merged(rows):
    """(t-test of every chunk that passed, merged in trace order; [(traces, max |t|)] after each)."""
    import numpy as np
    from pqsoc.sca.ttest import Assessment
    tt, history = None, []
    for r in sorted((r for r in rows if r["state"] == "passed"), key=lambda r: r["inputs"]["start"]):
        part = Assessment.load(REPO / r["inputs"]["state"])
        if sum(part.counts) != r["inputs"]["count"]:
            raise FlowError(f"task {r['key']}: {r['inputs']['state']} holds {sum(part.counts)} traces, the task "
                            f"ran {r['inputs']['count']}: another run wrote it; run the campaign again")
        if tt is None:
            tt = part
        else:
            try:
                tt.merge(part)
            except ValueError as exc:
                raise FlowError(f"task {r['key']}: {exc}: the campaign's tasks measured different "
                                "programs or power models; run it again without --resume") from None
        if min(tt.counts) >= 2:
            history.append((sum(tt.counts), float(np.abs(tt.whole().t(1)).max()), bool(tt.confirmed(1).any())))
    return tt, history


def _tvla_summary(rows) -> tuple[list[str], dict]:
    """The chunks' accumulators merged into one assessment: `pqsoc sca tvla`'s report of all the
    traces (history at chunk steps); a chunk that did not pass counts its traces as failed."""
    from ip.acc.dv import tvla
    from ip.acc.dv.power import UNITS
    meta = rows[0]["figures"] if rows and rows[0]["figures"] else {}
    tt, history = _tvla_merged(rows)
    lost = sum(r["inputs"]["count"] for r in rows if r["state"] != "passed")
    if tt is None:
        return ["no chunk passed"], {"passed": 0, "failed": lost}
    program = meta.get("program") or next(r["command"].split()[3] for r in rows)
    seed = meta.get("seed", 1)
    order = max(int(o) for o in (meta.get("orders") or {"1": 0}))
    seconds = sum(r["seconds"] or 0 for r in rows)
    if _keccak(program):
        from ip.kmac.dv import tvla_keccak
        engine = meta.get("engine", "rtl")
        units = list(tvla_keccak.GLS_UNITS if engine == "gls" else tvla_keccak.UNITS)
        rep = tvla_keccak.report(program, tt, order, history, seed, seconds, engine, units)
    else:
        units = [u for u in UNITS if u in (meta.get("orders") or {}).get("1", {}).get("units", {})] or list(UNITS)
        rep = tvla.report(program, tvla.program(program), tt, units, order, history, seed, seconds,
                          model=meta.get("model", "buses"), engine=meta.get("engine", "rtl"))
        if meta.get("window_cycles"):
            rep["window_cycles"] = meta["window_cycles"]
    lines = [f"order {o}: max |t| {r['max_abs_t']} in {r['unit']} at cycle {r['cycle']} ({r['insn']}): "
             + ("LEAKS" if r["leaks"] else "no leak") for o, r in rep["orders"].items()]
    if rep["first_flagged_at_traces"]:
        lines.append(f"a leak first confirmed after {rep['first_flagged_at_traces']} traces (chunk steps)")
    return lines, {**rep, "passed": sum(tt.counts), "failed": lost}


def _tvla_picture(rows, name: str, rep: dict) -> Path | None:
    """rep: _tvla_summary's report (its instruction map is not made twice)."""
    from ip.acc.dv import tvla
    from ip.acc.dv.power import UNITS
    tt, _ = _tvla_merged(rows)
    if tt is None:
        return None
    units = list(rep["orders"]["1"]["units"])
    if _keccak(rep["program"]):
        from pqsoc.sca.plot import picture
        return picture(rep, tt, units, CAMPAIGNS / f"{name}_t.png", xlabel="clock edge from the load (two per round)")
    units = [u for u in UNITS if u in units]
    return tvla.picture(rep, tt, units, CAMPAIGNS / f"{name}_t.png")


# ---- sleep: tasks that only sleep: the layer's per-task overhead and scheduler throughput ----------
def _sleep_args(a) -> dict:
    return {"count": a.count, "seconds": a.seconds}


def _sleep_tasks(args: dict) -> list:
    from pqsoc.campaign.engine import Task
    return [Task(key=f"t{k:07d}", inputs={"k": k}, command=f"sleep {args['seconds']:g}", json=False)
            for k in range(args["count"])]


def _no_prepare(args: dict, log) -> None:
    return None


def _task_summary(rows) -> tuple[list[str], dict]:
    passed = sum(r["state"] == "passed" for r in rows)
    return [], {"passed": passed, "failed": len(rows) - passed}


KINDS = {"fuzz": Kind(_fuzz_args, _fuzz_tasks, _fuzz_prepare, _fuzz_summary),
         "acvp": Kind(_acvp_args, _acvp_tasks, _no_prepare, _acvp_summary),
         "gls": Kind(_gls_args, _gls_tasks, _gls_prepare, _gls_summary),
         "sweep": Kind(_sweep_args, _sweep_tasks, _sweep_prepare, _sweep_summary, _sweep_picture),
         "tvla": Kind(_tvla_args, _tvla_tasks, _tvla_prepare, _tvla_summary, _tvla_picture, _tvla_check),
         "sleep": Kind(_sleep_args, _sleep_tasks, _no_prepare, _task_summary)}


def default_name(kind: str, args: dict) -> str:
    def shown(v):
        return "_".join(f"{x:g}" if isinstance(x, float) else str(x) for x in v) if isinstance(v, list) else v
    parts = [kind] + [f"{k}{shown(v)}" for k, v in sorted(args.items()) if v not in (None, False)]
    return re.sub(r"[^A-Za-z0-9_.-]+", "", "-".join(str(p) for p in parts))


def _shown(path: Path) -> str:
    return str(path.relative_to(REPO)) if path.is_relative_to(REPO) else str(path)


def db_path(name: str) -> Path:
    if not re.fullmatch(r"[A-Za-z0-9_.-]+", name):
        raise FlowError(f"campaign name {name!r}: letters, digits, '.', '_' and '-' only")
    return CAMPAIGNS / f"{name}.sqlite"


def run_kind(kind: str, a) -> int:
    from pqsoc.campaign import engine
    from pqsoc.campaign.db import CampaignDB
    k = KINDS[kind]
    if a.retry_errors and not a.resume:
        raise FlowError("--retry-errors goes with --resume (without it every task runs again)")
    args = k.args(a)
    name = a.name or default_name(kind, args)
    tasks = k.tasks(args)
    db = CampaignDB(db_path(name))
    stamp = provenance.stamp()      # the design as the campaign starts (tapeout.json's staleness rule)
    t0 = time.monotonic()
    phases = {}                     # where the command's wall time went (seconds, in order)

    def lap(phase: str) -> None:
        phases[phase] = round(time.monotonic() - t0 - sum(phases.values()), 2)
    try:
        db.open(name, kind, args, [{"key": t.key, "inputs": t.inputs, "command": t.command} for t in tasks],
                resume=a.resume, retry_errors=a.retry_errors)
        log = lambda m: print(m, file=sys.stderr, flush=True)   # noqa: E731
        left = len(db.pending())
        log(f"[campaign] {name}: {len(tasks)} tasks, {left} to run ({_shown(db.path)})")
        lap("open")
        if left and k.check:
            k.check(args, db.rows(), log)
        if left:
            k.prepare(args, log)
            lap("prepare")
            with engine.client(a.scheduler, a.cluster, a.jobs, a.workers, log=log) as c:
                workers = len(c.scheduler_info()["workers"])
                lap("cluster_start")
                out = engine.run(db, tasks, c, kind, timeout_s=a.task_timeout, memory_mb=a.task_memory)
                lap("tasks")
            lap("cluster_close")
            if out.interrupted:
                counts = db.counts()
                log(f"[campaign] interrupted: {sum(counts[s] for s in ('passed', 'failed', 'error'))} tasks "
                    f"recorded, {counts['pending']} pending; `--resume` with the same arguments finishes them")
                return 130
        else:
            workers = 0
        counts = db.counts()
        from pqsoc.campaign import show
        for line in show.text(db, shown=5):
            print(line)
        lines, figures = k.summary(db.rows())
        for line in lines:
            print(line)
        png = k.picture(db.rows(), name, figures) if k.picture else None
        if png:
            print(f"wrote {_shown(png)}")
        lap("summary")
        if a.json:
            Path(a.json).parent.mkdir(parents=True, exist_ok=True)
            Path(a.json).write_text(json.dumps({"name": name, "kind": kind, "args": args, "tasks": counts,
                                                **figures, "workers": workers,
                                                "seconds": round(time.monotonic() - t0, 1),
                                                "phases_s": phases,
                                                "database": _shown(db.path), "provenance": stamp}, indent=2) + "\n")
        print(f"{figures['passed']} passed, {figures['failed']} failed")
        return 0 if figures["failed"] == 0 and counts["error"] == 0 and counts["failed"] == 0 else 1
    finally:
        db.close()


def show_cmd(a) -> int:
    from pqsoc.campaign import show
    from pqsoc.campaign.db import CampaignDB
    path = db_path(a.name)
    if not path.is_file():
        have = sorted(p.stem for p in CAMPAIGNS.glob("*.sqlite")) if CAMPAIGNS.is_dir() else []
        raise FlowError(f"no campaign {a.name!r} ({_shown(path)} does not exist)"
                        + (f"; there are: {', '.join(have)}" if have else ""))
    db = CampaignDB(path)
    try:
        for line in show.text(db):
            print(line)
        png = show.picture(db, CAMPAIGNS / f"{a.name}.png")
        if png:
            print(f"wrote {_shown(png)}")
    finally:
        db.close()
    return 0


def main(a) -> int:
    try:
        if a.kind == "show":
            return show_cmd(a)
        if a.kind == "measure":
            from pqsoc.cli.campaign_measure import measure
            return measure(a, KINDS["fuzz"].prepare, db_path)
        return run_kind(a.kind, a)
    except FlowError as exc:
        print(f"pqsoc campaign: error: {exc}", file=sys.stderr)
        return 2


def add_parser(sub) -> None:
    from pqsoc.campaign import engine
    p = sub.add_parser("campaign", help="long runs split into tasks on Dask (local, a scheduler, or "
                                        "SLURM/PBS/LSF), recorded in reports/campaigns/NAME.sqlite")
    kinds = p.add_subparsers(dest="kind", required=True)

    def common(q):
        q.add_argument("--name", help="the campaign's name (default: the kind and its arguments)")
        q.add_argument("--resume", action="store_true", help="continue it: finished tasks are not run again")
        q.add_argument("--retry-errors", action="store_true",
                       help="with --resume: run again the tasks that ended in error (no result); failed ones stay")
        where = q.add_mutually_exclusive_group()
        where.add_argument("--scheduler", help="a running Dask scheduler, tcp://HOST:PORT")
        where.add_argument("--cluster", choices=engine.CLUSTERS, help="a batch scheduler through dask-jobqueue")
        q.add_argument("--jobs", type=positive(int), default=1, help="--cluster: batch jobs to start")
        q.add_argument("--workers", type=positive(int), help="local worker processes (default: one per core)")
        q.add_argument("--task-timeout", type=positive(float), default=engine.TASK_TIMEOUT_S, help="seconds a task may take")
        q.add_argument("--task-memory", type=int, default=engine.TASK_MEMORY_MB,
                       help="MB of writable memory each process of a task may take (0: no cap)")
        q.add_argument("--json", help="also write the summary to this JSON file")
    q = kinds.add_parser("fuzz", help="ACC random programs in lockstep with the ISS (pqsoc acc fuzz), in chunks")
    q.add_argument("--count", type=positive(int), required=True)
    q.add_argument("--seed", type=int, default=1)
    q.add_argument("--chunk", type=positive(int), default=1000, help="programs per task (a task starts a process: ~1 s)")
    q.add_argument("--backend", choices=["rtl", "gls", "iss"], default="rtl")
    q.add_argument("--kmac", action="store_true")
    q.add_argument("--x-seed", type=int, default=1, help="gls: the random initial state's seed")
    common(q)
    q = kinds.add_parser("acvp", help="NIST's ACVP vector sets (pqsoc acvp report), a task per test group; "
                                      "--json writes the merged conformance report (reports/acvp.json)")
    q.add_argument("--root", help="the vector sets (default: ACVP_ROOT, or ../shared/acvp)")
    q.add_argument("--engine", choices=["iss", "rtl"], default="iss")
    q.add_argument("--sample", type=positive(int), help="cases per group (default: all)")
    q.add_argument("--sample-seed", default="0", help="seed of the --sample choice")
    common(q)
    q = kinds.add_parser("gls", help="blocks x random initial states at gate level (pqsoc gls), a task per "
                                     "block and seed; --json writes the merged report (reports/gls.json)")
    q.add_argument("blocks", nargs="*", default=list(GLS_BLOCKS), help=f"default: {' '.join(GLS_BLOCKS)}")
    q.add_argument("--seeds", type=positive(int), default=2, help="random initial states 1..N per block")
    common(q)
    q = kinds.add_parser("sweep", help="synthesis + STA over a grid (blocks x clock periods x ABC choice "
                                       "computation), a PPA point per task, the Pareto front of area and fmax")
    q.add_argument("blocks", nargs="+")
    q.add_argument("--periods", required=True, help="clock periods in ns, e.g. 8,10,12")
    q.add_argument("--abc-dch", help="ABC's choice computation per point: on,off (default: the block's)")
    common(q)
    q = kinds.add_parser("tvla", help="a leakage assessment (pqsoc sca tvla) in chunks of traces; the chunks' "
                                      "t-test accumulators merge into the report of the whole")
    q.add_argument("program")
    q.add_argument("--traces", type=positive(int), required=True)
    q.add_argument("--chunk", type=positive(int), default=500, help="traces per task")
    q.add_argument("--seed", type=int, default=1)
    q.add_argument("--order", type=int, choices=[1, 2], default=1)
    q.add_argument("--engine", choices=["rtl", "gls"], default="rtl",
                   help="gls: the gate-level power model (the netlist of `pqsoc synth acc`, or keccak_masked's)")
    q.add_argument("--model", choices=["buses", "registers"], default="buses",
                   help="the ACC's RTL power model with or without the buses between units (pqsoc sca tvla)")
    q.add_argument("--cycles", type=positive(int),
                   help="a window: the first CYCLES cycles of each trace only (pqsoc sca tvla --cycles)")
    common(q)
    q = kinds.add_parser("sleep", help="tasks that only sleep: the layer's overhead and throughput")
    q.add_argument("--count", type=positive(int), required=True)
    q.add_argument("--seconds", type=float, default=0.0)
    common(q)
    q = kinds.add_parser("show", help="a campaign's state from its database, and its picture")
    q.add_argument("name")
    from pqsoc.cli import campaign_measure
    q = kinds.add_parser("measure", help="the layer's figures (fuzz speed-up, cost per task, scheduler "
                                         "throughput, projections) into reports/campaigns.json")
    campaign_measure.add_arguments(q)
    p.set_defaults(func=main)
