# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""The campaign layer's engine on Dask distributed: where the tasks run, how one runs, and the
loop that records them.

A task is a process: a command line (a `pqsoc ...` one runs as `python -m pqsoc.cli ...` with the
worker's Python, in the repository the client names, which a cluster's nodes must see at the same
path). It runs in its own process group with a time cap (the whole group is killed at the cap:
the task is an `error`, not retried) and a memory cap (RLIMIT_DATA, the writable private memory
of each process: Dask's nanny does not count a worker's children; not RLIMIT_AS, since the
WebAssembly Yosys that amaranth runs reserves address space far beyond what it uses), and dies with its worker (PR_SET_PDEATHSIG). Exit
status 0 is `passed`, 1 `failed` (the command's own verdict; for a command that writes figures,
only with its figures written), anything else `error`. A command
that writes figures gets `--json FILE` and its JSON becomes the row's figures.

A worker that dies mid-task makes the scheduler run the task again elsewhere (Dask's
allowed-failures); the client records a task when its future completes, once (CampaignDB.record).
"""
import contextlib
import ctypes
import json
import logging
import os
import resource
import shlex
import signal
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field

from pqsoc import REPO, FlowError
from pqsoc.campaign.db import CampaignDB
from pqsoc.campaign.progress import Progress

CLUSTERS = ("slurm", "pbs", "lsf")
# the default caps of a task (a campaign kind or the command line may set others)
TASK_TIMEOUT_S = 3600.0
TASK_MEMORY_MB = 4096
# how long a scheduler address may take to answer before it is refused
CONNECT_TIMEOUT_S = 10


@dataclass(frozen=True)
class Task:
    key: str                      # unique in the campaign
    inputs: dict                  # what it runs on (seed, block, case ...), stored with its row
    command: str                  # the line that reproduces it locally ("pqsoc acc fuzz ...")
    json: bool = True             # the command takes --json FILE and writes its figures there
    timeout_s: float | None = None


@dataclass
class Outcome:
    counts: dict
    interrupted: bool = False
    rows: list = field(default_factory=list)


def _argv(command: str) -> list[str]:
    argv = shlex.split(command)
    return [sys.executable, "-m", "pqsoc.cli", *argv[1:]] if argv and argv[0] == "pqsoc" else argv


def _limits(memory_mb: int):
    def set_limits():
        os.setsid()
        if memory_mb:
            cap = memory_mb * 1024 * 1024
            resource.setrlimit(resource.RLIMIT_DATA, (cap, cap))
        with contextlib.suppress(OSError, AttributeError):
            ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGKILL)   # PR_SET_PDEATHSIG
    return set_limits


def run_task(command: str, want_json: bool, cwd: str, timeout_s: float, memory_mb: int) -> dict:
    """Run one task's command (on a worker): {'state', 'figures', 'message', 'seconds', 'host',
    'started'}."""
    host = socket.gethostname()
    t0, started = time.monotonic(), time.time()
    with tempfile.TemporaryDirectory(prefix="pqsoc-task-") as tmp:
        out = os.path.join(tmp, "figures.json")
        argv = _argv(command) + (["--json", out] if want_json else [])
        proc = subprocess.Popen(argv, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                preexec_fn=_limits(memory_mb))
        try:
            stdout, stderr = proc.communicate(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()
            return {"state": "error", "figures": {}, "message": f"timed out after {timeout_s:g} s (killed)",
                    "seconds": round(time.monotonic() - t0, 3), "host": host, "started": started}
        figures = {}
        if want_json and os.path.isfile(out):
            with contextlib.suppress(ValueError):
                with open(out) as f:
                    figures = json.load(f)
        figures.pop("provenance", None)
    rc = proc.returncode
    lines = [ln for ln in (stderr + "\n" + stdout).splitlines() if ln.strip()]
    if rc == 0:
        state, message = "passed", (stdout.strip().splitlines() or [""])[-1]
    elif rc == 1 and (figures or not want_json):   # the command's verdict (a command that
        # writes figures and exits 1 without them crashed): its first FAIL line, else its last
        fails = [ln for ln in stdout.splitlines() if ln.startswith("FAIL")]
        state, message = "failed", (fails or stdout.strip().splitlines() or lines or [""])[0 if fails else -1]
    else:
        why = f"killed by signal {-rc}" if rc < 0 else f"exit status {rc}"
        state, message = "error", f"{why}: {lines[-1] if lines else 'no output'}"
    return {"state": state, "figures": figures, "message": message[:300],
            "seconds": round(time.monotonic() - t0, 3), "host": host, "started": started}


@contextlib.contextmanager
def client(scheduler: str | None = None, cluster: str | None = None, jobs: int = 1,
           workers: int | None = None, log=print):
    """A Dask client: on a running scheduler (`tcp://HOST:PORT`), on a batch scheduler through
    dask-jobqueue (its site settings from Dask's configuration, `jobqueue.yaml`), or on a
    LocalCluster of one single-threaded worker process per core (the default)."""
    from dask.distributed import Client, LocalCluster
    if scheduler:
        try:
            c = Client(scheduler, timeout=f"{CONNECT_TIMEOUT_S}s")
        except (OSError, TimeoutError) as exc:
            raise FlowError(f"no Dask scheduler answers at {scheduler} (waited {CONNECT_TIMEOUT_S} s: {exc})") from None
        log(f"[campaign] on the Dask scheduler at {scheduler} ({len(c.scheduler_info()['workers'])} workers)")
        try:
            yield c
        finally:
            c.close()
        return
    if cluster:
        if cluster not in CLUSTERS:
            raise FlowError(f"unknown --cluster {cluster!r}: one of {', '.join(CLUSTERS)}")
        import dask_jobqueue
        cls = {"slurm": dask_jobqueue.SLURMCluster, "pbs": dask_jobqueue.PBSCluster,
               "lsf": dask_jobqueue.LSFCluster}[cluster]
        try:
            cl = cls()
        except ValueError as exc:
            raise FlowError(f"dask-jobqueue {cluster}: {exc} (set jobqueue.{cluster} in ~/.config/dask/jobqueue.yaml; "
                            "docs/campaigns.md)") from None
        cl.scale(jobs=jobs)
        log(f"[campaign] on {cluster} through dask-jobqueue: {jobs} jobs asked")
    else:
        n = workers or os.cpu_count() or 1
        cl = LocalCluster(n_workers=n, threads_per_worker=1, processes=True, memory_limit=0,
                          dashboard_address=None, silence_logs=logging.ERROR)
        log(f"[campaign] on a local Dask cluster of {n} worker processes")
    try:
        with Client(cl) as c:
            yield c
    finally:
        cl.close()


def run(db: CampaignDB, tasks: list[Task], dask_client, label: str, timeout_s: float = TASK_TIMEOUT_S,
        memory_mb: int = TASK_MEMORY_MB, stream=None) -> Outcome:
    """Run the tasks whose rows are pending, recording each as it completes; Ctrl-C cancels the
    rest, puts their rows back to pending and returns interrupted=True."""
    from dask.distributed import as_completed
    from distributed import KilledWorker
    todo = {t["key"] for t in db.pending()}
    run_now = [t for t in tasks if t.key in todo]
    counts = db.counts()
    bar = Progress(total=len(tasks), label=label, done=sum(counts[s] for s in ("passed", "failed", "error")),
                   failed=counts["failed"] + counts["error"], stream=stream or sys.stderr)
    futures = {}
    try:
        for t in run_now:
            f = dask_client.submit(run_task, t.command, t.json, str(REPO), t.timeout_s or timeout_s, memory_mb,
                                   pure=False, key=f"{label}-{t.key}-{os.urandom(4).hex()}")
            futures[f] = t
            db.running(t.key)
        for f in as_completed(futures):
            t = futures[f]
            try:
                res = f.result()
            except KilledWorker as exc:
                res = {"state": "error", "figures": {}, "message": f"its workers died running it ({exc})"}
            except Exception as exc:             # the task function raised: a fault of the layer or the node
                res = {"state": "error", "figures": {}, "message": f"{type(exc).__name__}: {exc}"[:300]}
            db.record(t.key, res)
            bar.step(res["state"] != "passed")
    except KeyboardInterrupt:
        for f in futures:
            f.cancel()
        db.release()
        bar.close()
        return Outcome(db.counts(), interrupted=True)
    bar.close()
    return Outcome(db.counts())


def nap(seconds: float) -> float:
    """A task that only sleeps in its worker (no process): what the scheduler alone can carry."""
    time.sleep(seconds)
    return seconds


def scheduler_throughput(workers: int, tasks_per_worker: int = 20, seconds: float = 0.5) -> dict:
    """Tasks per second a LocalCluster of `workers` single-threaded processes finishes on tasks
    of `seconds` each, against the ideal workers / seconds (the cluster's start not counted)."""
    from dask.distributed import Client, LocalCluster, wait
    t_start = time.monotonic()
    # CRITICAL: many workers outlive the scheduler's close by a heartbeat, each logging an error
    with LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, memory_limit=0,
                      dashboard_address=None, silence_logs=logging.CRITICAL) as cl, Client(cl) as c:
        c.wait_for_workers(workers)
        started = time.monotonic() - t_start
        n = workers * tasks_per_worker
        t0 = time.monotonic()
        wait(c.map(nap, [seconds] * n, pure=False))
        wall = time.monotonic() - t0
    ideal = workers / seconds
    return {"workers": workers, "tasks": n, "task_seconds": seconds, "wall_s": round(wall, 2),
            "tasks_per_s": round(n / wall, 1), "ideal_tasks_per_s": round(ideal, 1),
            "efficiency": round(n / wall / ideal, 3), "cluster_start_s": round(started, 1)}
