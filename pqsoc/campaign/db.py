# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""A campaign's results: one SQLite file (reports/campaigns/NAME.sqlite), one row per task.

Table `campaign` (one row): the name, the kind, its arguments (JSON) and when it was made.
Table `tasks`: key (the task's identity, unique: a second run updates its row, never adds one),
inputs (JSON), the command line that reproduces it, state (pending / running / passed / failed
/ error), figures (JSON), a one-line message, seconds, the worker's host, and when it started (on
its worker; submitted, while it runs) and finished (Unix time). Every state change is its own transaction, so an interrupted campaign
leaves a consistent file: rows done stay done; rows left `running` are pending again on --resume.
"""
import json
import sqlite3
import time
from pathlib import Path

from pqsoc import FlowError

STATES = ("pending", "running", "passed", "failed", "error")
DONE = ("passed", "failed", "error")

_SCHEMA = """
CREATE TABLE IF NOT EXISTS campaign (name TEXT PRIMARY KEY, kind TEXT NOT NULL, args TEXT NOT NULL,
                                     created REAL NOT NULL);
CREATE TABLE IF NOT EXISTS tasks (key TEXT PRIMARY KEY, seq INTEGER NOT NULL, inputs TEXT NOT NULL,
                                  command TEXT NOT NULL, state TEXT NOT NULL, figures TEXT,
                                  message TEXT, seconds REAL, host TEXT, started REAL, finished REAL);
"""


class CampaignDB:
    """One campaign's SQLite file. open(): a new campaign, or the same one again (same kind and
    arguments): resume keeps finished rows, otherwise every row is made pending again."""

    def __init__(self, path: Path):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.con = sqlite3.connect(self.path, timeout=30)
        self.con.executescript(_SCHEMA)

    def close(self) -> None:
        self.con.close()

    def meta(self) -> dict | None:
        row = self.con.execute("SELECT name, kind, args, created FROM campaign").fetchone()
        return None if row is None else {"name": row[0], "kind": row[1], "args": json.loads(row[2]),
                                         "created": row[3]}

    def open(self, name: str, kind: str, args: dict, tasks: list[dict], resume: bool,
             retry_errors: bool = False) -> None:
        """Make or reopen the campaign with these tasks ({'key', 'inputs', 'command'}, in order).
        A file that holds another campaign (kind or arguments differ) is refused by name.
        resume with retry_errors: the tasks that ended in error (no result: a tool that crashed,
        a worker out of memory) are pending again; a failed task keeps its result."""
        old = self.meta()
        if old is not None and (old["kind"], old["args"]) != (kind, args):
            diff = sorted(k for k in set(old["args"]) | set(args) if old["args"].get(k) != args.get(k))
            raise FlowError(f"campaign {name!r} ({self.path}) was made as {old['kind']} with other arguments "
                            f"({', '.join(diff) or 'kind'} differ): give another --name, or the same arguments")
        with self.con:
            if old is None:
                self.con.execute("INSERT INTO campaign VALUES (?, ?, ?, ?)",
                                 (name, kind, json.dumps(args, sort_keys=True), time.time()))
            self.con.executemany(
                "INSERT OR IGNORE INTO tasks (key, seq, inputs, command, state) VALUES (?, ?, ?, ?, 'pending')",
                [(t["key"], k, json.dumps(t["inputs"], sort_keys=True), t["command"]) for k, t in enumerate(tasks)])
            if resume:
                self.con.execute("UPDATE tasks SET state = 'pending', host = NULL, started = NULL "
                                 "WHERE state = 'running'")
                if retry_errors:
                    self.con.execute("UPDATE tasks SET state = 'pending', figures = NULL, message = NULL, "
                                     "seconds = NULL, host = NULL, started = NULL, finished = NULL "
                                     "WHERE state = 'error'")
            else:
                self.con.execute("UPDATE tasks SET state = 'pending', figures = NULL, message = NULL, "
                                 "seconds = NULL, host = NULL, started = NULL, finished = NULL")
            # a task still to run runs today's command (a finished one keeps what it ran)
            self.con.executemany(
                "UPDATE tasks SET inputs = ?, command = ? WHERE key = ? AND state = 'pending'",
                [(json.dumps(t["inputs"], sort_keys=True), t["command"], t["key"]) for t in tasks])

    def pending(self) -> list[dict]:
        rows = self.con.execute("SELECT key, inputs, command FROM tasks WHERE state = 'pending' ORDER BY seq")
        return [{"key": k, "inputs": json.loads(i), "command": c} for k, i, c in rows]

    def running(self, key: str) -> None:
        with self.con:
            self.con.execute("UPDATE tasks SET state = 'running', started = ? WHERE key = ? AND state = 'pending'",
                             (time.time(), key))

    def record(self, key: str, result: dict) -> bool:
        """A task's result ({'state', 'figures', 'message', 'seconds', 'host', 'started'}), once: False when
        the row is already finished (a task that ran twice is recorded the first time)."""
        if result["state"] not in DONE:
            raise ValueError(f"not a final state: {result['state']!r}")
        with self.con:
            cur = self.con.execute(
                "UPDATE tasks SET state = ?, figures = ?, message = ?, seconds = ?, host = ?, finished = ?, "
                "started = COALESCE(?, started) WHERE key = ? AND state NOT IN ('passed', 'failed', 'error')",
                (result["state"], json.dumps(result.get("figures") or {}, sort_keys=True), result.get("message", ""),
                 result.get("seconds"), result.get("host"), time.time(), result.get("started"), key))
        return cur.rowcount == 1

    def release(self) -> None:
        """Rows left running (an interrupted client) back to pending."""
        with self.con:
            self.con.execute("UPDATE tasks SET state = 'pending', started = NULL WHERE state = 'running'")

    def counts(self) -> dict:
        out = dict.fromkeys(STATES, 0)
        for state, n in self.con.execute("SELECT state, COUNT(*) FROM tasks GROUP BY state"):
            out[state] = n
        return out

    def rows(self) -> list[dict]:
        cols = ("key", "inputs", "command", "state", "figures", "message", "seconds", "host", "started", "finished")
        out = []
        for r in self.con.execute(f"SELECT {', '.join(cols)} FROM tasks ORDER BY seq"):
            d = dict(zip(cols, r))
            d["inputs"] = json.loads(d["inputs"])
            d["figures"] = json.loads(d["figures"]) if d["figures"] else {}
            out.append(d)
        return out
