# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""Fixed-vs-random Welch t-test (TVLA), accumulated online: no trace is stored.

Each class keeps, per sample point, its count and central moments up to the fourth (batches
merged with the pairwise formulas of Pébay, "Formulas for robust, one-pass parallel computation
of covariances and arbitrary-order statistical moments", 2008), which gives the first-order t
(means) and the second-order univariate t (the centred squares (x - mean)^2, whose mean is the
variance and whose variance is CM4 - CM2^2), as Schneider and Moradi's "Leakage assessment
methodology" (CHES 2015) computes them. Accumulators of separate runs (a campaign's tasks) merge
the same way, so a long assessment splits into tasks without losing anything.

A point where both classes are constant has t = 0 (nothing to tell apart); where both are
constant and differ, t is infinite (a difference without noise): reported as INF_T.
"""
import numpy as np

THRESHOLD = 4.5       # |t| above it: leakage (TVLA's threshold)
INF_T = 1e9           # |t| of a difference between two noiseless classes


class Moments:
    """Count, mean and the sums of powers of deviations M2..M4 of one class, per sample point."""

    def __init__(self, shape):
        self.n = 0
        self.mean = np.zeros(shape)
        self.m2 = np.zeros(shape)
        self.m3 = np.zeros(shape)
        self.m4 = np.zeros(shape)

    @classmethod
    def of(cls, traces: np.ndarray) -> "Moments":
        """The moments of a batch (traces x points...) computed directly."""
        x = np.asarray(traces, dtype=np.float64)
        m = cls(x.shape[1:])
        m.n = x.shape[0]
        if m.n:
            m.mean = x.mean(axis=0)
            d = x - m.mean
            d2 = d * d
            m.m2, m.m3, m.m4 = d2.sum(axis=0), (d2 * d).sum(axis=0), (d2 * d2).sum(axis=0)
        return m

    def merge(self, b: "Moments") -> None:
        """Add the samples that b summarises (pairwise update)."""
        if b.n == 0:
            return
        if self.n == 0:
            self.n, self.mean, self.m2, self.m3, self.m4 = b.n, b.mean.copy(), b.m2.copy(), b.m3.copy(), b.m4.copy()
            return
        na, nb = self.n, b.n
        n = na + nb
        d = b.mean - self.mean
        d2 = d * d
        m4 = (self.m4 + b.m4 + d2 * d2 * na * nb * (na * na - na * nb + nb * nb) / n ** 3
              + 6 * d2 * (na * na * b.m2 + nb * nb * self.m2) / n ** 2 + 4 * d * (na * b.m3 - nb * self.m3) / n)
        m3 = self.m3 + b.m3 + d2 * d * na * nb * (na - nb) / n ** 2 + 3 * d * (na * b.m2 - nb * self.m2) / n
        self.m2 = self.m2 + b.m2 + d2 * na * nb / n
        self.m3, self.m4 = m3, m4
        self.mean = self.mean + d * nb / n
        self.n = n

    def add(self, traces: np.ndarray) -> None:
        self.merge(Moments.of(traces))

    def state(self) -> dict:
        return {"n": np.array(self.n), "mean": self.mean, "m2": self.m2, "m3": self.m3, "m4": self.m4}

    @classmethod
    def from_state(cls, s) -> "Moments":
        m = cls(np.shape(s["mean"]))
        m.n = int(s["n"])
        m.mean, m.m2, m.m3, m.m4 = (np.array(s[k], dtype=np.float64) for k in ("mean", "m2", "m3", "m4"))
        return m


def _welch(ma, va, na, mb, vb, nb) -> np.ndarray:
    num = ma - mb
    den = np.sqrt(va / na + vb / nb)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = num / den
    tiny = 1e-12 * (1 + np.abs(ma) + np.abs(mb))
    t = np.where(den > 0, t, np.where(np.abs(num) > tiny, np.sign(num) * INF_T, 0.0))
    return np.clip(t, -INF_T, INF_T)


class TTest:
    """Two classes (0: fixed, 1: random) of traces with the same shape."""

    def __init__(self, shape):
        self.cls = (Moments(shape), Moments(shape))

    def add(self, traces: np.ndarray, classes: np.ndarray) -> None:
        traces = np.asarray(traces)
        classes = np.asarray(classes)
        for c in (0, 1):
            self.cls[c].add(traces[classes == c])

    def merge(self, other: "TTest") -> None:
        for c in (0, 1):
            self.cls[c].merge(other.cls[c])

    @property
    def counts(self) -> tuple[int, int]:
        return self.cls[0].n, self.cls[1].n

    def t(self, order: int = 1) -> np.ndarray:
        a, b = self.cls
        if min(a.n, b.n) < 2:
            raise ValueError(f"a t-test needs two traces of each class (have {a.n} fixed, {b.n} random)")
        if order == 1:
            return _welch(a.mean, a.m2 / (a.n - 1), a.n, b.mean, b.m2 / (b.n - 1), b.n)
        if order == 2:      # the centred squares: mean CM2, variance CM4 - CM2^2
            ca, cb = a.m2 / a.n, b.m2 / b.n
            return _welch(ca, np.maximum(a.m4 / a.n - ca * ca, 0.0), a.n, cb, np.maximum(b.m4 / b.n - cb * cb, 0.0), b.n)
        raise ValueError(f"order {order}: 1 or 2")

    def save(self, path) -> None:
        np.savez(path, **{f"c{c}_{k}": v for c in (0, 1) for k, v in self.cls[c].state().items()})

    @classmethod
    def load(cls, path) -> "TTest":
        with np.load(path) as z:
            t = cls(z["c0_mean"].shape)
            t.cls = tuple(Moments.from_state({k: z[f"c{c}_{k}"] for k in ("n", "mean", "m2", "m3", "m4")})
                          for c in (0, 1))
        return t


class Assessment:
    """Two independent t-tests, of the even- and of the odd-numbered traces (by trace number,
    so chunks run apart merge to the same two). TVLA's rule (Goodwill et al., NIAT 2011) claims a
    leak only where |t| passes the threshold in both with the same sign: over thousands of
    sample points, one test alone passes 4.5 by chance (a Gaussian |t| does with probability
    6.8e-6 per point), two independent ones at the same point practically never."""

    def __init__(self, shape, tag: str = ""):
        self.halves = (TTest(shape), TTest(shape))
        self.tag = tag          # what was measured (a program and power model's fingerprint)

    def add(self, traces: np.ndarray, classes: np.ndarray, numbers: np.ndarray) -> None:
        traces, classes, numbers = np.asarray(traces), np.asarray(classes), np.asarray(numbers)
        for h in (0, 1):
            sel = numbers % 2 == h
            self.halves[h].add(traces[sel], classes[sel])

    def merge(self, other: "Assessment") -> None:
        """Add another run's traces: of the same thing measured (tag) on the same sample points,
        or ValueError (traces of two programs would average into a t-test of neither)."""
        shape, theirs = self.halves[0].cls[0].mean.shape, other.halves[0].cls[0].mean.shape
        if (self.tag, shape) != (other.tag, theirs):
            raise ValueError(f"traces of another measurement: {other.tag or 'untagged'} on {theirs} "
                             f"sample points, these {self.tag or 'untagged'} on {shape}")
        for h in (0, 1):
            self.halves[h].merge(other.halves[h])

    def whole(self) -> TTest:
        t = TTest(self.halves[0].cls[0].mean.shape)
        for h in self.halves:
            t.merge(h)
        return t

    @property
    def counts(self) -> tuple[int, int]:
        a, b = self.halves[0].counts, self.halves[1].counts
        return a[0] + b[0], a[1] + b[1]

    def confirmed(self, order: int = 1) -> np.ndarray:
        """Points over the threshold in both halves, with the same sign."""
        if min(min(h.counts) for h in self.halves) < 2:
            return np.zeros(self.halves[0].cls[0].mean.shape, dtype=bool)
        a, b = self.halves[0].t(order), self.halves[1].t(order)
        return (np.abs(a) > THRESHOLD) & (np.abs(b) > THRESHOLD) & (np.sign(a) == np.sign(b))

    def save(self, path) -> None:
        np.savez(path, tag=np.array(self.tag), **{f"h{h}_c{c}_{k}": v for h in (0, 1) for c in (0, 1)
                                                  for k, v in self.halves[h].cls[c].state().items()})

    @staticmethod
    def about(path) -> tuple[str, int]:
        """A saved run's (tag, traces), without reading its moments (tag '' for a file saved
        before tags)."""
        with np.load(path) as z:
            return _tag(z), sum(int(z[f"h{h}_c{c}_n"]) for h in (0, 1) for c in (0, 1))

    @classmethod
    def load(cls, path) -> "Assessment":
        with np.load(path) as z:
            a = cls(z["h0_c0_mean"].shape, _tag(z))
            for h in (0, 1):
                a.halves[h].cls = tuple(Moments.from_state({k: z[f"h{h}_c{c}_{k}"] for k in ("n", "mean", "m2", "m3", "m4")})
                                        for c in (0, 1))
        return a


def _tag(z) -> str:
    """A saved run's tag ('' for a file saved before tags)."""
    return str(z["tag"]) if "tag" in z.files else ""
