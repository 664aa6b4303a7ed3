# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""`pqsoc campaign show NAME`: a campaign's state from its SQLite file (while it runs or after),
its failures with the commands that reproduce them, and a picture: tasks finished over time, the
failed and errored ones marked."""
from pathlib import Path

from pqsoc.campaign.db import DONE, CampaignDB


def text(db: CampaignDB, shown: int = 20) -> list[str]:
    meta = db.meta()
    rows = db.rows()
    counts = db.counts()
    args = " ".join(f"{k}={v}" for k, v in sorted(meta["args"].items()))
    # a row is `running` from its submission: the scheduler may still hold it in its queue
    out = [f"campaign {meta['name']} ({meta['kind']}: {args}), {len(rows)} tasks: "
           + ", ".join(f"{n} {'running or queued' if s == 'running' else s}" for s, n in counts.items() if n)]
    done = [r for r in rows if r["state"] in DONE and r["finished"]]
    if done:
        secs = [r["seconds"] for r in done if r["seconds"] is not None]
        span = max(r["finished"] for r in done) - min(r["started"] or r["finished"] for r in done)
        hosts = sorted({r["host"] for r in done if r["host"]})
        out.append(f"task time mean {sum(secs) / len(secs):.2f} s, max {max(secs):.2f} s; "
                   f"{len(done)} tasks in {span:.1f} s of wall time on {len(hosts)} host(s): {', '.join(hosts)}")
    bad = [r for r in rows if r["state"] in ("failed", "error")]
    for r in bad[:shown]:
        out.append(f"{r['state'].upper()} {r['key']}: {r['message']}")
        out.append(f"    reproduce: {r['command']}")
    if len(bad) > shown:
        out.append(f"... {len(bad) - shown} more failed or errored tasks")
    return out


def picture(db: CampaignDB, path: Path) -> Path | None:
    """Tasks finished over time (one line), failed / errored ones marked; None before any finished."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    rows = sorted((r for r in db.rows() if r["state"] in DONE and r["finished"]), key=lambda r: r["finished"])
    if not rows:
        return None
    t0 = min(r["started"] or r["finished"] for r in rows)
    xs = [r["finished"] - t0 for r in rows]
    fig, ax = plt.subplots(figsize=(8, 4.5))
    ax.step(xs, range(1, len(xs) + 1), where="post", label="tasks finished")
    for state, mark in (("failed", "rx"), ("error", "k^")):
        pts = [(x, k + 1) for k, (x, r) in enumerate(zip(xs, rows)) if r["state"] == state]
        if pts:
            ax.plot(*zip(*pts), mark, label=state)
    meta = db.meta()
    ax.set_title(f"campaign {meta['name']} ({meta['kind']})")
    ax.set_xlabel("seconds since the first task started")
    ax.set_ylabel("tasks finished")
    ax.legend(loc="upper left")
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path
