# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""The ML-DSA benchmark (ip/acc/dv/bench_mldsa.py): a case passes against both references, a
wrong output is named, a failing case fails the command, and the sign statistics carry the
iteration histogram."""
import json

import pytest

from ip.acc import api
from ip.acc.dv import bench_mldsa
from ip.acc.tests.test_bench_mlkem import InlinePool


def test_one_case_checks_every_operation():
    r = bench_mldsa.one_case(65, 3)
    assert set(r) == {"keygen", "sign", "iterations", "verify", "verify_reject"}
    assert r["iterations"] >= 1 and r["sign"] > r["keygen"]


def test_a_set_without_a_signing_program_runs_keygen_and_verify(monkeypatch):
    monkeypatch.setattr(api, "MLDSA_SIGN_PARAMS", ())
    assert set(bench_mldsa.one_case(44, 2)) == {"keygen", "verify", "verify_reject"}


def test_a_wrong_signature_is_named(monkeypatch):
    real = api.mldsa_sign

    def flipped(*a, **k):
        r = real(*a, **k)
        return {**r, "sig": bytes([r["sig"][0] ^ 1]) + r["sig"][1:]}
    monkeypatch.setattr(api, "mldsa_sign", flipped)
    with pytest.raises(AssertionError, match="signature differs from dilithium-py's"):
        bench_mldsa.one_case(65, 4)


def test_a_verify_that_accepts_anything_is_caught(monkeypatch):
    monkeypatch.setattr(api, "mldsa_verify", lambda *a, **k: {"valid": True, "status": "valid", "cycles": 1})
    monkeypatch.setattr(api, "MLDSA_SIGN_PARAMS", ())
    with pytest.raises(AssertionError, match="accepts a signature with bit"):
        bench_mldsa.one_case(44, 5)


def test_summary_and_failures(monkeypatch, tmp_path):
    runs = iter([{"keygen": 10, "sign": 100, "iterations": 1, "verify": 5, "verify_reject": 4},
                 {"keygen": 10, "sign": 300, "iterations": 3, "verify": 6, "verify_reject": 4},
                 "AssertionError: ML-DSA-65 case seed 9: cryptography rejects our signature"])
    monkeypatch.setattr(bench_mldsa, "_safe_case", lambda p, s: next(runs))
    monkeypatch.setattr(bench_mldsa, "ProcessPoolExecutor", InlinePool)
    out = tmp_path / "b.json"
    assert bench_mldsa.main(["--n", "3", "--param", "65", "--json", str(out)]) == 1
    data = json.loads(out.read_text())
    s = data["sets"]["65"]
    assert s["checked"] == 2 and s["iterations"] == {"1": 1, "3": 1}
    assert (s["sign"]["min"], s["sign"]["max"], s["sign"]["median"]) == (100, 300, 200)
    assert not data["ok"] and "rejects our signature" in data["problems"][0]
