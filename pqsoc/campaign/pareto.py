# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""The Pareto front of a sweep's points over two figures (one to make small, one to make large),
and its picture: what a PPA sweep (`pqsoc campaign sweep`) reports of area against fmax."""
from pathlib import Path


def front(points: list[dict], low: str, high: str) -> list[dict]:
    """The points no other point beats: none has `low` no larger and `high` no smaller with one
    of them strictly better. Sorted by `low`."""
    def beaten(p):
        return any(q[low] <= p[low] and q[high] >= p[high] and (q[low] < p[low] or q[high] > p[high])
                   for q in points)
    return sorted((p for p in points if not beaten(p)), key=lambda p: (p[low], -p[high]))


def picture(points: list[dict], low: str, high: str, label, title: str, path: Path,
            xlabel: str, ylabel: str) -> Path | None:
    """Every point (x: `low`, y: `high`), the front joined and each point labelled by label(p);
    None without points."""
    if not points:
        return None
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    best = front(points, low, high)
    fig, ax = plt.subplots(figsize=(8, 5))
    ax.plot([p[low] for p in points], [p[high] for p in points], "o", color="0.6", label="points")
    ax.plot([p[low] for p in best], [p[high] for p in best], "o-", color="C0", label="Pareto front")
    at: dict = {}       # points that coincide share one label
    for p in points:
        at.setdefault((p[low], p[high]), []).append(label(p))
    for xy, names in at.items():
        ax.annotate("; ".join(names), xy, textcoords="offset points", xytext=(4, 4), fontsize=8)
    ax.margins(0.15)
    ax.set_title(title, fontsize=10)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.legend(loc="best")
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path
