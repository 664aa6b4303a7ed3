# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""The figures of a t-test report (reports/sca/NAME.json) that do not depend on what was tested:
traces per class, per order and unit the max |t|, its cycle and where that is, the cycles over
the threshold and those confirmed by both halves, and after how many traces a leak showed."""
import numpy as np

from pqsoc.sca.ttest import THRESHOLD

VERDICT = ("leaks where |t| > threshold with the same sign in both independent halves (even- and "
           "odd-numbered traces); max_abs_t is of all traces")


def summary(tt, units, order: int, history, where) -> dict:
    """tt: a ttest.Assessment; history: (traces so far, max |t| first order, a confirmed leak)
    after each batch or chunk; where(cycle) -> {"pc": ..., "insn": ...}: the place of a cycle."""
    whole = tt.whole()
    out = {"traces": {"fixed": tt.counts[0], "random": tt.counts[1]}, "cycles": int(whole.cls[0].mean.shape[0]),
           "threshold": THRESHOLD, "verdict": VERDICT, "orders": {}}
    for o in range(1, order + 1):
        t = np.abs(whole.t(o))
        conf = tt.confirmed(o)
        per = {}
        for j, u in enumerate(units):
            c = int(np.argmax(t[:, j]))
            per[u] = {"max_abs_t": round(float(t[c, j]), 2), "cycle": c, **where(c),
                      "cycles_over_threshold": int((t[:, j] > THRESHOLD).sum()),
                      "cycles_confirmed": int(conf[:, j].sum())}
        worst = max(per, key=lambda u: per[u]["max_abs_t"])
        out["orders"][str(o)] = {"max_abs_t": per[worst]["max_abs_t"], "unit": worst,
                                 "cycle": per[worst]["cycle"], "pc": per[worst]["pc"], "insn": per[worst]["insn"],
                                 "leaks": bool(conf.any()), "units": per}
    # after how many traces (at batch or chunk steps): max |t| of all traces first passed the
    # threshold; and a leak was first confirmed by both halves (the verdict's rule)
    out["first_over_threshold_at_traces"] = next((n for n, m, _ in history if m > THRESHOLD), None)
    out["first_flagged_at_traces"] = next((n for n, _, c in history if c), None)
    out["history"] = [{"traces": n, "max_abs_t": round(m, 2), "confirmed": c} for n, m, c in history]
    return out
