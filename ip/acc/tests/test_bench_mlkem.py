# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""The ML-KEM benchmark (ip/acc/dv/bench_mlkem.py): a case passes against both references, a
wrong output or an unequal decaps count is reported, and the command exits non-zero on it."""
import json

import pytest

from ip.acc.dv import bench_mlkem


def test_one_case_checks_every_operation():
    cycles = bench_mlkem.one_case(768, 5)
    assert set(cycles) == {"keygen", "encaps", "decaps", "decaps_reject"}
    assert cycles["decaps"] == cycles["decaps_reject"]


def test_a_wrong_output_is_named(monkeypatch):
    run = bench_mlkem._run

    def corrupt_encaps(words, dm, what, obj=None):
        r = run(words, dm, what)
        if what.endswith("encaps"):
            r.dmem = bytearray(r.dmem)
            r.dmem[:] = bytes(len(r.dmem))     # every output zero
        return r
    monkeypatch.setattr(bench_mlkem, "_run", corrupt_encaps)
    with pytest.raises(AssertionError, match="encaps differs from kyber-py"):
        bench_mlkem.one_case(512, 1)


def test_unequal_decaps_counts_fail_the_benchmark(monkeypatch, tmp_path):
    calls = iter(range(10**6))

    def fake_case(param, seed):
        return {"keygen": 1, "encaps": 2, "decaps": 3 + next(calls) % 2, "decaps_reject": 3}
    monkeypatch.setattr(bench_mlkem, "_safe_case", fake_case)
    monkeypatch.setattr(bench_mlkem, "ProcessPoolExecutor", InlinePool)
    out = tmp_path / "b.json"
    assert bench_mlkem.main(["--n", "2", "--param", "512", "--json", str(out)]) == 1
    data = json.loads(out.read_text())
    assert not data["ok"] and "2 different cycle counts" in data["problems"][0]


class InlinePool:
    """A ProcessPoolExecutor stand-in that runs the cases in this process (the tests patch
    the benchmark's case function, which worker processes would not see)."""

    def __init__(self, max_workers):
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def map(self, fn, *its, chunksize=1):
        return map(fn, *its)
