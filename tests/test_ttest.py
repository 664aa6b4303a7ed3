# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""pqsoc/sca/ttest.py: the online Welch t-test equals the textbook two-pass one (Python's
`statistics` on the stored samples) whatever the batches, and the TVLA verdicts it gives."""
import math
import statistics

import numpy as np
import pytest

from pqsoc.sca import ttest


def _reference(xa, xb, order):
    if order == 2:
        ma, mb = statistics.fmean(xa), statistics.fmean(xb)
        xa, xb = [(x - ma) ** 2 for x in xa], [(x - mb) ** 2 for x in xb]
        va, vb = statistics.pvariance(xa), statistics.pvariance(xb)
    else:
        va, vb = statistics.variance(xa), statistics.variance(xb)
    return (statistics.fmean(xa) - statistics.fmean(xb)) / math.sqrt(va / len(xa) + vb / len(xb))


@pytest.mark.parametrize("order", [1, 2])
def test_online_equals_two_pass_in_any_batches(order):
    rng = np.random.default_rng(5)
    n = 700
    classes = rng.integers(0, 2, n)
    x = rng.normal(3.0, 2.0, (n, 4)) + classes[:, None] * np.array([0.0, 0.3, 0.0, 0.0])
    x[:, 2] *= 1 + classes           # a variance difference: second order
    t = ttest.TTest((4,))
    for lo, hi in ((0, 1), (1, 2), (2, 100), (100, 101), (101, 450), (450, n)):   # batches of all sizes
        t.add(x[lo:hi], classes[lo:hi])
    other = ttest.TTest((4,))         # and a second accumulator merged in, as a campaign's tasks
    got = t.t(order)
    assert t.counts == (int((classes == 0).sum()), int((classes == 1).sum()))
    for p in range(4):
        want = _reference(list(x[classes == 0, p]), list(x[classes == 1, p]), order)
        assert got[p] == pytest.approx(want, rel=1e-9, abs=1e-9)
    t.merge(other)
    assert np.array_equal(t.t(order), got)


def test_split_accumulators_merge_to_the_whole(tmp_path):
    rng = np.random.default_rng(9)
    x, c = rng.normal(0, 1, (400, 3)), rng.integers(0, 2, 400)
    whole = ttest.TTest((3,))
    whole.add(x, c)
    a, b = ttest.TTest((3,)), ttest.TTest((3,))
    a.add(x[:150], c[:150])
    b.add(x[150:], c[150:])
    b.save(tmp_path / "b.npz")
    a.merge(ttest.TTest.load(tmp_path / "b.npz"))
    for order in (1, 2):
        assert np.allclose(a.t(order), whole.t(order), rtol=1e-10, atol=1e-10)


def test_verdicts_on_known_cases():
    """A mean shift of 0.5 sigma is flagged with 1000 traces; independent classes are not; a
    constant point is 0; two constant classes that differ are INF_T; a variance-only difference
    hides from the first order and shows at the second."""
    rng = np.random.default_rng(1)
    c = np.arange(2000) % 2
    x = np.stack([rng.normal(0, 1, 2000) + 0.5 * c, rng.normal(0, 1, 2000), np.full(2000, 7.0),
                  7.0 + c, rng.normal(0, 1 + 2 * c)], axis=1)
    t = ttest.TTest((5,))
    t.add(x, c)
    t1, t2 = np.abs(t.t(1)), np.abs(t.t(2))
    assert t1[0] > ttest.THRESHOLD and t1[1] < ttest.THRESHOLD
    assert t1[2] == 0 and t1[3] == ttest.INF_T
    assert t1[4] < ttest.THRESHOLD < t2[4]
    with pytest.raises(ValueError, match="two traces of each class"):
        ttest.TTest((1,)).t(1)


def test_an_assessment_confirms_a_leak_in_both_halves_only(tmp_path):
    """Even and odd traces make two independent tests: a real leak passes in both; a point that
    passes by chance in one half is not confirmed; saved halves merge back to the whole."""
    rng = np.random.default_rng(3)
    n = 4000
    numbers, classes = np.arange(n), rng.integers(0, 2, n)
    x = rng.normal(0, 1, (n, 2))
    x[:, 0] += 0.4 * classes                               # a leak
    x[numbers % 2 == 0, 1] += 0.4 * classes[numbers % 2 == 0]   # "leaks" in the even half only
    a = ttest.Assessment((2,))
    a.add(x[:1500], classes[:1500], numbers[:1500])
    b = ttest.Assessment((2,))
    b.add(x[1500:], classes[1500:], numbers[1500:])
    b.save(tmp_path / "b.npz")
    a.merge(ttest.Assessment.load(tmp_path / "b.npz"))
    assert list(a.confirmed(1)) == [True, False]
    assert abs(a.halves[0].t(1)[1]) > ttest.THRESHOLD      # it did pass in one half
    whole = ttest.TTest((2,))
    whole.add(x, classes)
    assert np.allclose(a.whole().t(1), whole.t(1)) and a.counts == whole.counts


def test_assessments_of_different_measurements_do_not_merge(tmp_path):
    """The tag (what was measured) survives save / load (`about`: tag and traces without the
    moments); runs with other tags or other sample points are refused by merge; a file saved
    before tags reads as untagged."""
    rng = np.random.default_rng(5)
    a, b = ttest.Assessment((3,), "prog-a"), ttest.Assessment((3,), "prog-b")
    for t in (a, b):
        t.add(rng.normal(0, 1, (8, 3)), np.arange(8) % 2, np.arange(8))
    a.save(tmp_path / "a.npz")
    assert ttest.Assessment.about(tmp_path / "a.npz") == ("prog-a", 8)
    assert ttest.Assessment.load(tmp_path / "a.npz").tag == "prog-a"
    with pytest.raises(ValueError, match="prog-b on \\(3,\\) sample points, these prog-a"):
        a.merge(b)
    with pytest.raises(ValueError, match="on \\(4,\\) sample points"):
        a.merge(ttest.Assessment((4,), "prog-a"))
    np.savez(tmp_path / "old.npz", **{k: v for k, v in np.load(tmp_path / "a.npz").items() if k != "tag"})
    assert ttest.Assessment.about(tmp_path / "old.npz") == ("", 8) and ttest.Assessment.load(tmp_path / "old.npz").tag == ""
    a.merge(ttest.Assessment.load(tmp_path / "a.npz"))
    assert a.counts == (8, 8)
