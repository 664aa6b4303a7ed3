# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""`pqsoc campaign measure`: the campaign layer's figures (issue #37 item 7) into
reports/campaigns.json, on an otherwise idle machine:
- fuzz throughput: the same programs as one serial `pqsoc acc fuzz` and as `pqsoc campaign fuzz`
  on a LocalCluster (wall time of each command, cluster start included), their ratio;
- the layer's cost per task: `sleep 0` tasks, (span of the task phase x workers / tasks) less the
  tasks' own time;
- the scheduler's throughput with many local workers on in-worker sleep tasks;
- projections from these to 10 and 100 nodes (stated as projections, with their assumptions);
- a finished fuzz campaign's counts (--fuzz-campaign NAME: the 1e5-program run)."""
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from pqsoc import REPO, FlowError
from pqsoc.campaign import engine
from pqsoc.flow import provenance

# Projection assumptions (not measured here): a batch node's cores, the fuzz chunk of a large
# campaign; the cost of one gate-level leakage trace comes from the masked decapsulation's cycles.
NODE_CORES = 32
BIG_CHUNK = 1000


def _timed(argv: list[str], log) -> tuple[float, dict]:
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "out.json"
        log(f"[measure] {' '.join(argv)}")
        t0 = time.monotonic()
        r = subprocess.run([sys.executable, "-m", "pqsoc.cli", *argv, "--json", str(out)], cwd=REPO,
                           capture_output=True, text=True)
        wall = time.monotonic() - t0
        if r.returncode != 0:
            raise FlowError(f"`pqsoc {' '.join(argv)}` exited {r.returncode}: {(r.stderr or r.stdout).strip()[-300:]}")
        return wall, json.loads(out.read_text())


def _campaign_span(name: str, db_path) -> dict:
    from pqsoc.campaign.db import CampaignDB
    path = db_path(name)
    if not path.is_file():
        raise FlowError(f"no campaign {name!r} ({path} does not exist)")
    db = CampaignDB(path)
    try:
        rows = [r for r in db.rows() if r["finished"]]
        meta, counts = db.meta(), db.counts()
    finally:
        db.close()
    if not rows:
        raise FlowError(f"campaign {name!r} has no finished task")
    span = max(r["finished"] for r in rows) - min(r["started"] or r["finished"] for r in rows)
    return {"meta": meta, "counts": counts, "rows": rows, "span_s": span}


def measure(a, prepare_fuzz, db_path) -> int:
    """prepare_fuzz(args, log), db_path(name): the fuzz kind's and the campaigns' (pqsoc/cli/campaign.py)."""
    log = lambda m: print(m, file=sys.stderr, flush=True)   # noqa: E731
    stamp = provenance.stamp()
    out: dict = {"host": {"cores": os.cpu_count()}, "provenance": stamp}
    args = {"count": a.count, "seed": a.seed, "chunk": a.chunk, "backend": "rtl", "kmac": False, "x_seed": None}
    prepare_fuzz(args, log)                          # the model, once, outside both timings
    for name in ("measure-fuzz", "measure-sleep"):     # this command's own campaigns, made afresh
        db_path(name).unlink(missing_ok=True)
    serial_wall, serial = _timed(["acc", "fuzz", "--count", str(a.count), "--seed", str(a.seed)], log)
    layer_wall, layer = _timed(["campaign", "fuzz", "--count", str(a.count), "--seed", str(a.seed),
                                "--chunk", str(a.chunk), "--workers", str(a.workers), "--name", "measure-fuzz"], log)
    if serial["failed"] or layer["failed"] or serial["programs"] != layer["programs"]:
        raise FlowError(f"the fuzz runs disagree or failed: serial {serial['passed']}/{serial['programs']}, "
                        f"campaign {layer['passed']}/{layer['programs']}")
    span = _campaign_span("measure-fuzz", db_path)
    phase = span["span_s"]
    task_sum = sum(r["seconds"] for r in span["rows"])
    phases = layer.get("phases_s", {})
    out["fuzz"] = {"programs": a.count, "seed": a.seed, "chunk": a.chunk, "workers": a.workers,
                   "serial_wall_s": round(serial_wall, 1), "campaign_wall_s": round(layer_wall, 1),
                   "speedup": round(serial_wall / layer_wall, 2),
                   "campaign_task_phase_s": round(phase, 1),
                   "speedup_task_phase": round(serial_wall / phase, 2),
                   "serial_programs_per_s": round(a.count / serial_wall, 1),
                   "campaign_programs_per_s": round(a.count / layer_wall, 1),
                   "programs_per_task_second": layer["programs_per_task_second"],
                   # where the campaign's wall time goes, against the ideal serial / workers
                   "breakdown_s": {
                       "process_start": round(layer_wall - sum(phases.values()), 1),   # Python, imports
                       **{k: round(v, 1) for k, v in phases.items() if k != "tasks"},
                       "tasks_ideal": round(serial_wall / a.workers, 1),
                       "tasks_slower_per_core": round(task_sum / a.workers - serial_wall / a.workers, 1),
                       "tasks_tail": round(phases.get("tasks", phase) - task_sum / a.workers, 1)},
                   "note": "speedup: wall time of each whole command (imports, the local cluster's start, "
                           "the summary); speedup_task_phase: the serial command against the campaign's tasks "
                           "from the first start to the last finish; the same programs (seed, indices "
                           "0..count-1); the model prebuilt for both. breakdown_s: the command's start "
                           "(Python and imports), its phases (the database, the prebuilt model's check, "
                           "the cluster's start and close, the summary), the serial run's time divided "
                           "by the workers, what the tasks took beyond it (a task process's own start "
                           "and a core running slower beside the other), and the tail (the task phase "
                           "beyond the tasks' total over the workers: uneven ends, scheduling)"}
    n_sleep = a.sleep_tasks
    _timed(["campaign", "sleep", "--count", str(n_sleep), "--seconds", "0", "--workers", str(a.workers),
            "--name", "measure-sleep"], log)
    sp = _campaign_span("measure-sleep", db_path)
    own = sum(r["seconds"] for r in sp["rows"]) / len(sp["rows"])
    per = sp["span_s"] * a.workers / len(sp["rows"])
    out["per_task"] = {"tasks": n_sleep, "workers": a.workers, "span_s": round(sp["span_s"], 2),
                       "wall_per_task_ms": round(per * 1000, 1), "task_process_ms": round(own * 1000, 1),
                       "layer_overhead_ms": round((per - own) * 1000, 1),
                       "note": "`sleep 0` tasks: the task phase's span x workers / tasks; less the "
                               "task's own process (start, run, exit) is the layer's cost (scheduling, "
                               "the client's bookkeeping, the SQLite row)"}
    sched = []
    for w in a.scale_workers:
        log(f"[measure] scheduler throughput with {w} local workers")
        sched.append(engine.scheduler_throughput(w))
    out["scheduler"] = sched
    best = max(s["tasks_per_s"] for s in sched)
    rate = layer["programs_per_task_second"]          # programs a worker core checks per second
    task_s = BIG_CHUNK / rate
    proj = {}
    for nodes in (10, 100):
        workers = nodes * NODE_CORES
        need = workers / task_s                        # tasks per second the scheduler must carry
        wall = 1e6 / (workers * rate) + task_s         # the work, plus the last task's tail
        proj[f"fuzz_1e6_{nodes}_nodes"] = {"workers": workers, "wall_min": round(wall / 60, 1),
                                           "scheduler_tasks_per_s_needed": round(need, 1),
                                           "within_measured_scheduler": need <= best}
    gls_cps = a.gls_cycles_per_s
    trace_s = a.masked_decaps_cycles / gls_cps
    for traces in ("1e4", "1e5"):
        for nodes in (10, 100):
            workers = nodes * NODE_CORES
            proj[f"gls_leakage_{traces}_traces_{nodes}_nodes"] = {
                "workers": workers, "trace_s": round(trace_s, 1),
                "wall_min": round(float(traces) * trace_s / workers / 60 + a.gls_build_s / 60, 1)}
    out["projection"] = proj | {"assumptions": {
        "node_cores": NODE_CORES, "fuzz_chunk": BIG_CHUNK, "fuzz_programs_per_core_s": rate,
        "fuzz_task_s": round(task_s, 1), "measured_max_scheduler_tasks_per_s": best,
        "gls_cycles_per_s": gls_cps, "gls_cycles_per_s_source": a.gls_cycles_source,
        "masked_decaps_cycles": a.masked_decaps_cycles,
        "masked_decaps_cycles_source": "the masked ML-KEM-768 decapsulation (ip/acc/kernels/mlkem/masked_decaps.py; "
                                       f"{a.masked_decaps_cycles / a.decaps_cycles:.2f}x the unmasked "
                                       f"{a.decaps_cycles}), reports/masked_bench.json",
        "gls_model_build_s": a.gls_build_s,
        "not_counted": "batch queue wait, a shared filesystem's load; the model built once per node "
                       "from a shared cache"}}
    if a.fuzz_campaign:
        fc = _campaign_span(a.fuzz_campaign, db_path)
        rows = fc["rows"]
        out["fuzz_campaign"] = {"name": a.fuzz_campaign, "args": fc["meta"]["args"], "tasks": fc["counts"],
                                "programs": sum(r["figures"].get("programs", 0) for r in rows),
                                "passed": sum(r["figures"].get("passed", 0) for r in rows),
                                "failed": sum(r["figures"].get("failed", 0) for r in rows),
                                "span_min": round(fc["span_s"] / 60, 1),
                                "hosts": sorted({r["host"] for r in rows if r["host"]})}
    path = Path(a.json)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(out, indent=2) + "\n")
    f = out["fuzz"]
    print(f"fuzz {a.count} programs: serial {f['serial_wall_s']} s, campaign ({a.workers} workers) "
          f"{f['campaign_wall_s']} s: {f['speedup']}x ({f['speedup_task_phase']}x on its tasks' span)")
    print("  campaign wall time: " + ", ".join(f"{k} {v} s" for k, v in f["breakdown_s"].items()))
    p = out["per_task"]
    print(f"per task: {p['wall_per_task_ms']} ms of a worker, of which the task's process {p['task_process_ms']} ms, "
          f"the layer {p['layer_overhead_ms']} ms")
    for s in sched:
        print(f"scheduler, {s['workers']} workers x {s['task_seconds']} s tasks: {s['tasks_per_s']} tasks/s "
              f"({s['efficiency']:.0%} of ideal)")
    for k, v in proj.items():
        print(f"projection {k}: {v['wall_min']} min on {v['workers']} workers")
    print(f"wrote {path}")
    return 0


def add_arguments(q) -> None:
    from pqsoc import positive
    q.add_argument("--count", type=positive(int), default=10000, help="fuzz programs for the throughput figure")
    q.add_argument("--seed", type=int, default=1)
    q.add_argument("--chunk", type=positive(int), default=1000)
    q.add_argument("--workers", type=positive(int), default=os.cpu_count() or 1)
    q.add_argument("--sleep-tasks", type=positive(int), default=200)
    q.add_argument("--scale-workers", type=positive(int), nargs="+", default=[16, 32, 64])
    q.add_argument("--gls-cycles-per-s", type=positive(float), default=1897.0,
                   help="the ACC netlist's simulated cycles per second a core with its gate-level power "
                        "model (default: measured 6 Dec)")
    q.add_argument("--gls-cycles-source", default="pqsoc campaign tvla mlkem768_decaps_masked --engine gls, "
                   "6 Dec: 25 traces of 12 973 cycles in 171 s a task, two tasks side by side on 2 cores")
    q.add_argument("--gls-build-s", type=positive(float), default=642.0,
                   help="the gate-level power model's build (ip/acc/dv/gls_power.py; measured 6 Dec)")
    q.add_argument("--decaps-cycles", type=positive(int), default=6848, help="unmasked ML-KEM-768 decaps")
    q.add_argument("--masked-decaps-cycles", type=positive(int), default=12973,
                   help="the masked ML-KEM-768 decaps with intm on 16 lanes and the wipe beside the check "
                        "(measured 5 Dec on the ISS = RTL)")
    q.add_argument("--fuzz-campaign", help="a finished fuzz campaign whose counts go into the report")
    q.add_argument("--json", default=str(REPO / "reports" / "campaigns.json"))
