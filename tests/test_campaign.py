# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""The campaign layer (pqsoc/campaign, `pqsoc campaign`; issue #37): a task's states and caps, the
results database, and on a LocalCluster of 2 workers: a worker killed mid-campaign, Ctrl-C and
--resume, a hanging task, a scheduler that does not answer, and a small fuzz campaign."""
import json
import os
import signal
import sqlite3
import sys
import threading
import time

import pytest

from pqsoc import FlowError
from pqsoc.campaign import engine
from pqsoc.campaign.db import CampaignDB


@pytest.fixture
def campaigns(tmp_path, monkeypatch):
    from pqsoc.cli import campaign
    monkeypatch.setattr(campaign, "CAMPAIGNS", tmp_path)
    return tmp_path


def _rows(path):
    con = sqlite3.connect(path)
    try:
        return con.execute("SELECT key, state, finished, message, command FROM tasks ORDER BY seq").fetchall()
    finally:
        con.close()


# --- one task ------------------------------------------------------------------------------------
def test_a_tasks_exit_status_is_its_state(tmp_path):
    run = lambda cmd, js=False, t=30.0, mb=0: engine.run_task(cmd, js, str(tmp_path), t, mb)   # noqa: E731
    assert run("true")["state"] == "passed"
    assert run("false")["state"] == "failed"
    r = run("sh -c 'echo boom >&2; exit 3'")
    assert r["state"] == "error" and r["message"] == "exit status 3: boom"
    r = run("sh -c 'kill -9 $$'")
    assert r["state"] == "error" and r["message"].startswith("killed by signal 9")
    # a command that writes figures: exit 1 with them is its verdict, without them a crash
    r = run(f"{sys.executable} -c \"import json,sys; json.dump({{'n': 3}}, open(sys.argv[2], 'w')); print('FAIL x'); "
            "sys.exit(1)\"", js=True)
    assert r["state"] == "failed" and r["figures"] == {"n": 3} and r["message"] == "FAIL x"
    r = run(f"{sys.executable} -c \"raise SystemExit(1)\"", js=True)
    assert r["state"] == "error" and r["message"].startswith("exit status 1")


def test_a_task_is_capped_in_time_and_memory(tmp_path):
    t0 = time.monotonic()
    r = engine.run_task("sh -c 'sleep 60 & sleep 60'", False, str(tmp_path), 1.0, 0)   # the group goes
    assert r["state"] == "error" and r["message"] == "timed out after 1 s (killed)"
    assert time.monotonic() - t0 < 10
    big = f"{sys.executable} -c \"b = bytearray(800 * 2**20)\""
    assert engine.run_task(big, False, str(tmp_path), 60.0, 0)["state"] == "passed"
    r = engine.run_task(big, True, str(tmp_path), 60.0, 300)
    assert r["state"] == "error" and "MemoryError" in r["message"]


# --- the database --------------------------------------------------------------------------------
def test_the_database_records_once_resumes_and_refuses_another_campaign(tmp_path):
    tasks = [{"key": f"t{k}", "inputs": {"k": k}, "command": f"sleep {k}"} for k in range(3)]
    db = CampaignDB(tmp_path / "c.sqlite")
    db.open("c", "sleep", {"count": 3}, tasks, resume=False)
    assert [t["key"] for t in db.pending()] == ["t0", "t1", "t2"]
    db.running("t0")
    db.running("t1")
    assert db.record("t0", {"state": "passed", "seconds": 1.0, "host": "h"})
    assert not db.record("t0", {"state": "failed"})         # a second completion is not recorded
    db.release()                                            # an interrupted client
    assert db.counts() == {"pending": 2, "running": 0, "passed": 1, "failed": 0, "error": 0}
    # the same campaign again: no new rows; a task still to run takes today's command, a
    # finished one keeps what it ran
    today = [{**t, "command": t["command"] + " --today"} for t in tasks]
    db.open("c", "sleep", {"count": 3}, today, resume=True)
    assert len(db.rows()) == 3 and [t["key"] for t in db.pending()] == ["t1", "t2"]
    assert [r["command"] for r in db.rows()] == ["sleep 0", "sleep 1 --today", "sleep 2 --today"]
    # a task that ended in error (no result) runs again only when asked; a failed one never
    db.running("t1")
    db.running("t2")
    assert db.record("t1", {"state": "failed", "message": "FAIL"})
    assert db.record("t2", {"state": "error", "message": "exit status 2: out of memory"})
    db.open("c", "sleep", {"count": 3}, tasks, resume=True)
    assert db.pending() == []
    db.open("c", "sleep", {"count": 3}, tasks, resume=True, retry_errors=True)
    assert [t["key"] for t in db.pending()] == ["t2"]
    assert [(r["state"], r["message"]) for r in db.rows()] == [("passed", ""), ("failed", "FAIL"), ("pending", None)]
    db.open("c", "sleep", {"count": 3}, tasks, resume=False)  # from the start, in the same rows
    assert len(db.rows()) == 3 and len(db.pending()) == 3
    with pytest.raises(FlowError, match="count differ"):
        db.open("c", "sleep", {"count": 4}, tasks, resume=True)
    with pytest.raises(ValueError):
        db.record("t1", {"state": "running"})
    db.close()


# --- on a LocalCluster of 2 workers --------------------------------------------------------------
def _wait(cond, limit=120):
    t0 = time.monotonic()
    while not cond():
        if time.monotonic() - t0 > limit:
            raise AssertionError("timed out waiting")
        time.sleep(0.1)


def test_a_worker_killed_mid_campaign_loses_and_duplicates_nothing(tmp_path):
    tasks = [engine.Task(key=f"t{k}", inputs={"k": k}, command="sleep 1.5", json=False) for k in range(8)]
    db = CampaignDB(tmp_path / "k.sqlite")
    db.open("k", "sleep", {}, [{"key": t.key, "inputs": t.inputs, "command": t.command} for t in tasks], False)
    killed = []
    with engine.client(workers=2, log=lambda m: None) as c:
        def kill():
            _wait(lambda: db_counts()["passed"] >= 1)
            busy = [w for w, keys in c.processing().items() if keys]
            pid = c.run(os.getpid, workers=busy[:1])[busy[0]]
            os.kill(pid, signal.SIGKILL)
            killed.append(pid)

        def db_counts():
            con = sqlite3.connect(tmp_path / "k.sqlite")
            try:
                return dict(con.execute("SELECT state, COUNT(*) FROM tasks GROUP BY state").fetchall()) | \
                    {"passed": con.execute("SELECT COUNT(*) FROM tasks WHERE state='passed'").fetchone()[0]}
            finally:
                con.close()
        th = threading.Thread(target=kill)
        th.start()
        out = engine.run(db, tasks, c, "sleep", timeout_s=60, memory_mb=0)
        th.join()
    assert killed and not out.interrupted
    rows = db.rows()
    assert len(rows) == 8 and all(r["state"] == "passed" for r in rows), rows
    db.close()


def test_ctrl_c_then_resume_loses_and_duplicates_nothing(campaigns, capsys):
    from pqsoc import cli
    path = campaigns / "cc.sqlite"

    def passed_rows():
        try:
            return sum(r[1] == "passed" for r in _rows(path)) if path.is_file() else 0
        except sqlite3.OperationalError:     # the file before its table, or a write in progress
            return 0

    def interrupt():
        _wait(lambda: passed_rows() >= 2)    # an exception here would end the thread unseen
        os.kill(os.getpid(), signal.SIGINT)
    th = threading.Thread(target=interrupt)
    th.start()
    # 40 tasks of 0.5 s on 2 workers (~10 s): the interrupt lands while the campaign runs even
    # on a loaded machine (with 12, a campaign once ended before the watcher saw 2 rows)
    rc = cli.main(["campaign", "sleep", "--count", "40", "--seconds", "0.5", "--workers", "2", "--name", "cc"])
    th.join()
    assert rc == 130
    first = _rows(path)
    states = [r[1] for r in first]
    assert "running" not in states and states.count("passed") >= 2 and "pending" in states
    assert "--resume" in capsys.readouterr().err
    assert cli.main(["campaign", "sleep", "--count", "40", "--seconds", "0.5", "--workers", "2", "--name", "cc",
                     "--resume"]) == 0
    second = _rows(path)
    assert len(second) == 40 and all(r[1] == "passed" for r in second)
    done_before = {r[0]: r[2] for r in first if r[1] == "passed"}
    assert all(dict((r[0], r[2]) for r in second)[k] == t for k, t in done_before.items())   # not run again
    assert capsys.readouterr().out.rstrip().endswith("40 passed, 0 failed")


def test_a_hanging_task_times_out_with_its_reproducer(campaigns, capsys):
    from pqsoc import cli
    assert cli.main(["campaign", "sleep", "--count", "2", "--seconds", "60", "--task-timeout", "1",
                     "--workers", "2", "--name", "hang"]) == 1
    rows = _rows(campaigns / "hang.sqlite")
    assert [r[1] for r in rows] == ["error", "error"]
    assert all(r[3] == "timed out after 1 s (killed)" and r[4] == "sleep 60" for r in rows)
    out = capsys.readouterr().out
    assert "reproduce: sleep 60" in out and out.rstrip().endswith("0 passed, 2 failed")
    assert cli.main(["campaign", "show", "hang"]) == 0
    assert (campaigns / "hang.png").stat().st_size > 5_000
    capsys.readouterr()
    # errors are run again on request (here they time out again), never without --resume
    assert cli.main(["campaign", "sleep", "--count", "2", "--seconds", "60", "--task-timeout", "1",
                     "--workers", "2", "--name", "hang", "--retry-errors"]) == 2
    assert "--retry-errors goes with --resume" in capsys.readouterr().err
    assert cli.main(["campaign", "sleep", "--count", "2", "--seconds", "60", "--task-timeout", "1",
                     "--workers", "2", "--name", "hang", "--resume", "--retry-errors"]) == 1
    again = _rows(campaigns / "hang.sqlite")
    assert [r[1] for r in again] == ["error", "error"] and all(b[2] > a[2] for a, b in zip(rows, again))


def test_a_scheduler_that_does_not_answer_is_named(campaigns, capsys):
    from pqsoc import cli
    assert cli.main(["campaign", "sleep", "--count", "1", "--scheduler", "tcp://127.0.0.1:9", "--name", "s"]) == 2
    assert "no Dask scheduler answers at tcp://127.0.0.1:9" in capsys.readouterr().err
    assert cli.main(["campaign", "show", "nothing-here"]) == 2
    assert "no campaign 'nothing-here'" in capsys.readouterr().err
    import dask
    with dask.config.set({"jobqueue.slurm.cores": None, "jobqueue.slurm.memory": None}):
        assert cli.main(["campaign", "sleep", "--count", "1", "--cluster", "slurm", "--name", "s"]) == 2
    assert "set jobqueue.slurm in ~/.config/dask/jobqueue.yaml" in capsys.readouterr().err


def test_a_fuzz_campaign_ends_in_its_counts(campaigns, capsys):
    """ACC random programs on the RTL in lockstep with the ISS, in 3 tasks: the same programs as
    one `pqsoc acc fuzz --count 45 --seed 11` (indices 0..44)."""
    from pqsoc import cli
    assert cli.main(["campaign", "fuzz", "--count", "45", "--chunk", "15", "--seed", "11", "--workers", "2",
                     "--json", str(campaigns / "fuzz.json")]) == 0
    assert capsys.readouterr().out.rstrip().endswith("45 passed, 0 failed")
    data = json.loads((campaigns / "fuzz.json").read_text())
    assert data["tasks"]["passed"] == 3 and data["passed"] == data["programs"] == 45 and data["failed"] == 0
    assert data["workers"] == 2 and data["provenance"]["commit"]
    # the command's wall time by phase, in order, within its total
    ph = data["phases_s"]
    assert list(ph) == ["open", "prepare", "cluster_start", "tasks", "cluster_close", "summary"]
    assert all(v >= 0 for v in ph.values()) and ph["tasks"] > 0
    assert sum(ph.values()) <= data["seconds"] + 0.1
    rows = _rows(campaigns / f"{data['name']}.sqlite")
    assert [r[4].split(" --out")[0] for r in rows] == [
        f"pqsoc acc fuzz --count 15 --seed 11 --start {s} --backend rtl" for s in (0, 15, 30)]


def _small_acvp_root(tmp_path):
    """ML-KEM keyGen and encapDecap cut to two groups of two cases each, from ACVP_ROOT."""
    from ip.acc import acvp
    src = acvp.default_root()
    root = tmp_path / "acvp"
    for folder, tgs in (("ML-KEM-keyGen-FIPS203", (1, 2)), ("ML-KEM-encapDecap-FIPS203", (2, 5))):
        (root / folder).mkdir(parents=True)
        for f in ("prompt.json", "expectedResults.json"):
            doc = json.loads((src / folder / f).read_text())
            doc["testGroups"] = [g | {"tests": g["tests"][:2]} for g in doc["testGroups"] if g["tgId"] in tgs]
            (root / folder / f).write_text(json.dumps(doc))
    return root


def test_an_acvp_campaign_is_the_serial_report(campaigns, tmp_path, capsys):
    """A task per test group; the merged report has the layout and the figures of one serial
    `pqsoc acvp report` of the same vector sets (each case checked against NIST's expected
    results), and `--group` refuses what is not there."""
    from pqsoc import cli
    root = _small_acvp_root(tmp_path)
    assert cli.main(["acvp", "report", "--root", str(root), "--json", str(tmp_path / "serial.json")]) == 0
    assert cli.main(["campaign", "acvp", "--root", str(root), "--workers", "2", "--name", "acvp",
                     "--json", str(tmp_path / "campaign.json")]) == 0
    assert capsys.readouterr().out.rstrip().endswith("8 passed, 0 failed")
    serial = json.loads((tmp_path / "serial.json").read_text())
    merged = json.loads((tmp_path / "campaign.json").read_text())
    assert merged["tasks"]["passed"] == 4 and set(merged["modes"]) == set(serial["modes"])
    for mode, m in serial["modes"].items():
        got = merged["modes"][mode]
        assert {k: got[k] for k in ("total", "run", "passed", "failed", "engine", "vsId")} == \
               {k: m[k] for k in ("total", "run", "passed", "failed", "engine", "vsId")}
        assert sorted(g["tgId"] for g in got["groups"]) == sorted(g["tgId"] for g in m["groups"])
    assert cli.main(["acvp", "report", "--root", str(root), "--group", "ML-KEM-keyGen-FIPS203:9"]) == 2
    assert "has no test group 9" in capsys.readouterr().err
    assert cli.main(["acvp", "report", "--root", str(root), "--group", "nowhere:1"]) == 2
    assert "no vector set in folder 'nowhere'" in capsys.readouterr().err
