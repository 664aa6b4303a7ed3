# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""The picture of a t-test report (reports/sca/NAME.png): |t| over the cycles per unit."""
from pathlib import Path

import numpy as np


def picture(rep: dict, tt, units: list[str], path: Path, xlabel: str) -> Path:
    """|t| (first order) over the cycles, one line per unit, and the threshold."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    t = np.abs(tt.whole().t(1))
    fig, ax = plt.subplots(figsize=(10, 4.5))
    for j, u in enumerate(units):
        ax.plot(t[:, j], lw=0.6, label=u)
    ax.axhline(rep["threshold"], color="red", ls="--", lw=1, label=f"|t| = {rep['threshold']}")
    ax.set_yscale("symlog", linthresh=10)
    ax.set_xlabel(xlabel)
    ax.set_ylabel("|t| (first order)")
    n = rep["traces"]
    ax.set_title(f"{rep['program']}: {n['fixed']} fixed + {n['random']} random traces, {'gate-level' if rep.get('engine') == 'gls' else 'RTL'} power model", fontsize=10)
    ax.legend(loc="upper right", fontsize=7, ncol=4)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path
