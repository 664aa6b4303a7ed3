# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""`pqsoc acvp run` / `check` / `report` (ip/acc/acvp.py, pqsoc/cli/acvp.py) and the ML-KEM key
checks (api.mlkem_check_ek / mlkem_check_dk, `pqsoc mlkem check-ek` / `check-dk`) on NIST's
ACVP vector sets, read from ACVP_ROOT (default ../shared/acvp beside the repository; CI has
it there). The response writer and the checker on small and tampered files (no program run);
every keyCheck case (host-side, fast); and on the ISS one sampled case of every test group of
every mode (`run --sample 1`, then `check`: `N passed, 0 failed`); `report --sample 1` on ML-KEM
keyGen, its counts against the expected file's."""
import copy
import json
import os
from pathlib import Path

import pytest

from ip.acc import acvp, api
from pqsoc import REPO
from pqsoc.cli import main

# --seed of the one-case-per-group sample of each vector set, chosen from a full run's side
# report (README.md "NIST ACVP conformance"): encapDecap's has a valid and a modified-ciphertext
# decapsulation; sigVer's 3 valid signatures and every kind of invalid one; sigGen's 2.2 M ACC
# cycles against 3.7 M for the median seed (the ISS is slow at signing); both ML-DSA ones a case
# whose M' is over the program's buffer (mu on the host).
SEEDS = {"ML-KEM-keyGen-FIPS203": "1", "ML-KEM-encapDecap-FIPS203": "1", "ML-DSA-keyGen-FIPS204": "1",
         "ML-DSA-sigVer-FIPS204": "0", "ML-DSA-sigGen-FIPS204": "1382"}
FOLDERS = tuple(SEEDS)


@pytest.fixture(scope="session")
def acvp_root() -> Path:
    root = Path(os.environ.get("ACVP_ROOT", REPO.parent / "shared" / "acvp"))
    if not (root / "ML-KEM-keyGen-FIPS203" / "prompt.json").is_file():
        pytest.fail(f"ACVP_ROOT must point at NIST's ACVP vector sets (CI: ../shared/acvp); {root} "
                    "has no ML-KEM-keyGen-FIPS203/prompt.json")
    return root


def _keychecks(root: Path):
    """(parameter set, function, input bytes, testPassed) of every keyCheck case."""
    folder = root / "ML-KEM-encapDecap-FIPS203"
    prompt, expected = acvp.load(folder / "prompt.json"), acvp.load(folder / "expectedResults.json")
    want = {(g["tgId"], t["tcId"]): t for g in expected["testGroups"] for t in g["tests"]}
    for g in prompt["testGroups"]:
        if g["function"].endswith("KeyCheck"):
            key = "ek" if g["function"] == "encapsulationKeyCheck" else "dk"
            for t in g["tests"]:
                yield (int(g["parameterSet"][7:]), key, bytes.fromhex(t[key]),
                       want[(g["tgId"], t["tcId"])]["testPassed"])


def test_key_checks_equal_nist_on_every_keycheck_case(acvp_root):
    """FIPS 203 7.2 / 7.3 on the host: all 60 keyCheck cases (30 ek, 30 dk, half failing) give
    NIST's testPassed; a failing ek names a coefficient >= q, a failing dk the hash."""
    cases = list(_keychecks(acvp_root))
    assert len(cases) == 60 and sum(c[3] for c in cases) == 30
    for param, key, value, passed in cases:
        r = (api.mlkem_check_ek if key == "ek" else api.mlkem_check_dk)(param, value)
        assert r["valid"] is passed, (param, key, value[:8].hex())
        assert ("7.2 modulus" if key == "ek" else "7.3 hash") in r["check"]
        if not passed:
            assert (">= q = 3329" if key == "ek" else "H(ek) differs") in r["reason"]


def test_key_checks_refuse_wrong_lengths_by_name():
    with pytest.raises(api.BadInput, match="ek is 1183 bytes, ML-KEM-768 needs 1184"):
        api.mlkem_check_ek(768, bytes(1183))
    with pytest.raises(api.BadInput, match="dk is 1633 bytes, ML-KEM-512 needs 1632"):
        api.mlkem_check_dk(512, bytes(1633))
    with pytest.raises(api.ApiError, match="ML-KEM-999: no such parameter set"):
        api.mlkem_check_ek(999, b"")


def test_check_ek_and_check_dk_commands(capsys, acvp_root):
    """`pqsoc mlkem check-ek|check-dk`: exit 0 on a passing key, 1 on a failing one naming the
    FIPS 203 section, 2 on a wrong length naming the field."""
    cases = list(_keychecks(acvp_root))
    for key in ("ek", "dk"):
        good = next(c for c in cases if c[1] == key and c[3])
        bad = next(c for c in cases if c[1] == key and not c[3])
        for (param, _, value, passed), rc_want in ((good, 0), (bad, 1)):
            rc = main(["mlkem", f"check-{key}", "--param", str(param), f"--{key}", value.hex()])
            out, err = capsys.readouterr()
            assert rc == rc_want and json.loads(out)["valid"] is passed
            if not passed:
                assert f"{key} fails the FIPS 203 {'7.2' if key == 'ek' else '7.3'}" in err
        rc = main(["mlkem", f"check-{key}", "--param", "1024", f"--{key}", "00" * 7])
        assert rc == 2 and f"{key} is 7 bytes, ML-KEM-1024 needs" in capsys.readouterr().err


def _kem_keygen_prompt(root: Path, per_group: int = 2) -> dict:
    doc = acvp.load(root / "ML-KEM-keyGen-FIPS203" / "prompt.json")
    for g in doc["testGroups"]:
        g["tests"] = g["tests"][:per_group]
    return doc


def test_response_layout_and_side_report(acvp_root, monkeypatch):
    """The writer (the API replaced, no program run): ACVP's layout, result fields named as in
    expectedResults.json, upper-case hex, the engine passed through, cycles only in the report,
    a progress line per group."""
    seen = []

    def fake(param, d, z, engine):
        seen.append((param, engine))
        return {"ek": b"\xab" + d, "dk": b"\xcd" + z, "cycles": 1234}
    monkeypatch.setattr(api, "mlkem_keygen", fake)
    lines = []
    response, report = acvp.run(_kem_keygen_prompt(acvp_root), engine="rtl", progress=lines.append)
    assert list(response) == ["vsId", "algorithm", "mode", "revision", "testGroups"]
    assert (response["algorithm"], response["mode"], response["revision"]) == ("ML-KEM", "keyGen", "FIPS203")
    assert [g["tgId"] for g in response["testGroups"]] == [1, 2, 3]
    t = response["testGroups"][0]["tests"][0]
    assert list(t) == ["tcId", "ek", "dk"] and t["ek"].startswith("AB") and t["ek"] == t["ek"].upper()
    assert "cycles" not in json.dumps(response)
    assert seen == [(512, "rtl")] * 2 + [(768, "rtl")] * 2 + [(1024, "rtl")] * 2
    assert [c["cycles"] for g in report["groups"] for c in g["cases"]] == [1234] * 6
    assert len(lines) == 3 and lines[0].startswith("[acvp] tg 1 keyGen/ML-KEM-512: 2/2 cases run")


def test_sample_is_reproducible():
    tests = [{"tcId": i} for i in range(1, 26)]
    a = acvp.sample_tests(tests, 3, "7", 4)
    assert a == acvp.sample_tests(tests, 3, "7", 4) and len(a) == 3
    assert a == sorted(a, key=lambda t: t["tcId"])
    assert {tuple(t["tcId"] for t in acvp.sample_tests(tests, 3, s, 4)) for s in range(5)} != {
        tuple(t["tcId"] for t in a)}
    assert acvp.sample_tests(tests, 30, 0, 1) == tests and acvp.sample_tests(tests, None, 0, 1) == tests


def _write(path: Path, doc) -> str:
    path.write_text(json.dumps(doc))
    return str(path)


def _check(capsys, *argv) -> tuple[int, list[str], str]:
    rc = main(["acvp", "check", *map(str, argv)])
    out, err = capsys.readouterr()
    return rc, out.splitlines(), err


def test_checker_counts_wrong_and_missing_cases(capsys, tmp_path, acvp_root):
    """NIST's own answers pass (75 passed, 0 failed, exit 0, lower-case hex too); one changed
    ek fails its case; a missing case counts as failed; a group left out is named and not
    counted; a sampled response is checked on its cases only and says so."""
    folder = acvp_root / "ML-KEM-keyGen-FIPS203"
    expected = json.loads((folder / "expectedResults.json").read_text())
    exp = str(folder / "expectedResults.json")
    rc, out, _ = _check(capsys, _write(tmp_path / "r.json", expected), exp)
    assert rc == 0 and out[-1] == "75 passed, 0 failed" and out[0] == "1 keyGen/ML-KEM-512: passed (25)"
    low = copy.deepcopy(expected)
    low["testGroups"][0]["tests"][0]["ek"] = low["testGroups"][0]["tests"][0]["ek"].lower()
    assert _check(capsys, _write(tmp_path / "r.json", low), exp)[1][-1] == "75 passed, 0 failed"
    bad = copy.deepcopy(expected)
    t = bad["testGroups"][1]["tests"][3]
    t["ek"] = ("0" if t["ek"][0] != "0" else "1") + t["ek"][1:]
    del bad["testGroups"][2]["tests"][0]
    rc, out, _ = _check(capsys, _write(tmp_path / "r.json", bad), exp)
    assert rc == 1 and out[-1] == "73 passed, 2 failed"
    assert out[1] == f"2 keyGen/ML-KEM-768: failed (1 of 25: tc {t['tcId']} ek wrong)"
    assert out[2].startswith("3 keyGen/ML-KEM-1024: failed (1 of 25: tc 51 missing")
    part = copy.deepcopy(expected)
    del part["testGroups"][0]
    rc, out, _ = _check(capsys, _write(tmp_path / "r.json", part), exp)
    assert rc == 0 and out[-2:] == ["groups not in the response (not counted): tgId 1", "50 passed, 0 failed"]
    sampled = copy.deepcopy(expected)
    sampled["sample"] = {"perGroup": 1, "seed": "0"}
    for g in sampled["testGroups"]:
        g["tests"] = g["tests"][:1]
    rc, out, _ = _check(capsys, _write(tmp_path / "r.json", sampled), exp)
    assert rc == 0 and out[-2:] == ["sampled response (1 per group, seed 0): 3 of 75 cases of its groups checked",
                                    "3 passed, 0 failed"]
    sampled["testGroups"][0]["tests"][0]["dk"] = "00"
    rc, out, _ = _check(capsys, _write(tmp_path / "r.json", sampled), exp)
    assert rc == 1 and out[-1] == "2 passed, 1 failed"


def test_malformed_files_exit_2_naming_the_problem(capsys, tmp_path, acvp_root):
    folder = acvp_root / "ML-KEM-keyGen-FIPS203"
    exp = folder / "expectedResults.json"
    expected = json.loads(exp.read_text())
    (tmp_path / "trunc.json").write_text(exp.read_text()[:1000])
    cases = [("trunc.json", None, "trunc.json: not JSON"),
             ("a.json", {"vsId": 42}, "a.json: no testGroups list"),
             ("b.json", {**expected, "testGroups": [{"tgId": 1, "tests": [{"ek": "00"}]}]},
              "tgId 1: tests[0]: no integer tcId"),
             ("c.json", {**expected, "mode": "encapDecap"}, "is mode 'encapDecap'"),
             ("d.json", {**expected, "testGroups": [{"tgId": 99, "tests": []}]}, "tgId 99 is not in"),
             ("e.json", {k: v for k, v in expected.items() if k != "algorithm"}, "e.json: no algorithm")]
    for name, doc, msg in cases:
        if doc is not None:
            _write(tmp_path / name, doc)
        rc, _, err = _check(capsys, tmp_path / name, exp)
        assert rc == 2 and msg in err, (name, err)
    rc, _, err = _check(capsys, exp, tmp_path / "none.json")
    assert rc != 0 and "none.json" in err
    rc, _, err = _check(capsys, exp, exp, "--prompt", acvp_root / "ML-DSA-keyGen-FIPS204" / "prompt.json")
    assert rc == 2 and "the prompt (group names) is algorithm 'ML-DSA', " in err
    prompt = _kem_keygen_prompt(acvp_root, 1)
    prompt["testGroups"][0]["tests"][0]["d"] = "XYZ"
    assert main(["acvp", "run", _write(tmp_path / "p.json", prompt)]) == 2
    assert "tgId 1 tcId 1: d is not a hex string" in capsys.readouterr().err


def test_unsupported_groups_are_listed_and_fail_the_run(capsys, tmp_path, acvp_root, monkeypatch):
    """Groups the runner cannot express (a seed keyFormat of the -tr1 revisions, an unknown
    function, an unknown hashAlg in a case) are not run, are listed by tgId, and make `run`
    exit 1 unless --allow-unsupported; the supported group still runs."""
    folder = acvp_root / "ML-KEM-encapDecap-FIPS203"
    prompt = acvp.load(folder / "prompt.json")
    keep = prompt["testGroups"][7]                       # encapsulationKeyCheck, host-side
    odd = [{**copy.deepcopy(keep), "tgId": 50, "keyFormat": "seed"},
           {**copy.deepcopy(keep), "tgId": 51, "function": "keyRoundTrip"}]
    prompt["testGroups"] = [keep] + odd
    path = _write(tmp_path / "p.json", prompt)
    out = tmp_path / "r.json"
    assert main(["acvp", "run", path, "--out", str(out), "--cycles", str(tmp_path / "c.json")]) == 1
    err = capsys.readouterr().err
    assert "2 test groups unsupported (20 cases, not run): tgId 50, 51" in err
    assert "tg 50 encapsulationKeyCheck/ML-KEM-512: UNSUPPORTED (keyFormat 'seed'" in err
    assert [g["tgId"] for g in json.loads(out.read_text())["testGroups"]] == [8]
    rep = json.loads((tmp_path / "c.json").read_text())
    assert [u["tgId"] for u in rep["unsupported"]] == [50, 51]
    assert main(["acvp", "run", path, "--out", str(out), "--allow-unsupported"]) == 0
    assert "(allowed)" in capsys.readouterr().err
    # an unknown hashAlg in one HashML-DSA case: that case is unsupported, listed
    sv = acvp.load(acvp_root / "ML-DSA-sigVer-FIPS204" / "prompt.json")
    g = next(g for g in sv["testGroups"] if g.get("preHash") == "preHash")
    g["tests"] = [dict(g["tests"][0], hashAlg="MD5")]
    sv["testGroups"] = [g]
    monkeypatch.setattr(api, "mldsa_verify", lambda *a, **k: pytest.fail("nothing runs"))
    response, report = acvp.run(sv, progress=lambda line: None)
    assert response["testGroups"] == [] and report["unsupported"][0]["tcIds"] == [g["tests"][0]["tcId"]]
    assert "hashAlg 'MD5'" in report["unsupported"][0]["reason"]


def test_a_case_that_fails_to_run_is_reported_and_counted(capsys, tmp_path, acvp_root, monkeypatch):
    def broken(*a, **k):
        raise api.ApiError("mlkem512_keygen: the program stopped by ebreak")
    monkeypatch.setattr(api, "mlkem_keygen", broken)
    path = _write(tmp_path / "p.json", _kem_keygen_prompt(acvp_root, 1))
    out = tmp_path / "r.json"
    assert main(["acvp", "run", path, "--out", str(out)]) == 1
    assert "tgId 1 tcId 1: mlkem512_keygen: the program stopped by ebreak" in capsys.readouterr().err
    assert json.loads(out.read_text())["testGroups"][0]["tests"] == [{"tcId": 1}]
    rc, lines, _ = _check(capsys, out, acvp_root / "ML-KEM-keyGen-FIPS203" / "expectedResults.json")
    # the prompt had one case per group, the response is not a sampled one: all 75 count
    assert rc == 1 and lines[-1] == "0 passed, 75 failed"
    assert lines[0].startswith("1 keyGen/ML-KEM-512: failed (25 of 25: tc 1 ek missing, dk missing; tc 2 missing")


def test_long_messages_hash_mu_on_the_host_and_mprime_checks():
    """M' over the program's buffer: mu = H(tr || M', 64) on the host (tr from sk), on engine
    soc the message to the firmware (which streams its mu); within it the message goes to the
    program; HashML-DSA's M' is 1 || len(ctx) || ctx || OID || PH(M);
    api's mprime= refuses company and an over-long M'."""
    import hashlib
    sk = bytes(range(256)) * 10
    group = {"signatureInterface": "external", "preHash": "pure"}
    kw, where = acvp._mldsa_inputs(group, {"message": "AA" * 100, "context": "01"}, "x", 65, "sign",
                                   lambda: sk[64:128])
    assert where == "acc" and kw == {"msg": b"\xaa" * 100, "ctx": b"\x01"}
    long = b"\xaa" * 9000
    kw, where = acvp._mldsa_inputs(group, {"message": long.hex(), "context": ""}, "x", 65, "sign",
                                   lambda: sk[64:128])
    assert where == "host" and kw == {"mu": hashlib.shake_256(sk[64:128] + b"\0\0" + long).digest(64)}
    # on the SoC the firmware streams the long M' through the KMAC block: the message goes there
    kw, where = acvp._mldsa_inputs(group, {"message": long.hex(), "context": ""}, "x", 65, "sign",
                                   lambda: sk[64:128], "soc")
    assert where == "kmac" and kw == {"msg": long, "ctx": b""}
    ph = acvp._hash_m_prime({"hashAlg": "SHA2-256"}, b"c", b"msg", "x")
    assert ph == b"\x01\x01c" + bytes.fromhex("0609608648016503040201") + hashlib.sha256(b"msg").digest()
    assert len(acvp._hash_m_prime({"hashAlg": "SHAKE-256"}, b"", b"m", "x")) == 2 + 11 + 64
    with pytest.raises(api.BadInput, match="give M' \\(mprime\\) alone"):
        api.mldsa_sign(65, bytes(4032), b"m", mprime=b"x")
    with pytest.raises(api.BadInput, match="M' is 9000 bytes, the ML-DSA-65 program takes at most"):
        api.mldsa_verify(65, bytes(1952), None, bytes(3309), mprime=long)


@pytest.mark.parametrize("folder", FOLDERS)
def test_one_case_per_group_on_the_iss_passes(capsys, tmp_path, acvp_root, folder):
    """`pqsoc acvp run --sample 1` on the ISS, then `pqsoc acvp check`: every test group of every
    mode, one case each, ends `N passed, 0 failed` with N the number of groups."""
    prompt, expected = acvp_root / folder / "prompt.json", acvp_root / folder / "expectedResults.json"
    out, cyc = tmp_path / "response.json", tmp_path / "cycles.json"
    rc = main(["acvp", "run", str(prompt), "--sample", "1", "--seed", SEEDS[folder], "--out", str(out),
               "--cycles", str(cyc)])
    err = capsys.readouterr().err
    assert rc == 0, err
    n = len(json.loads(prompt.read_text())["testGroups"])
    assert err.count("[acvp] tg ") == n
    rc, lines, _ = _check(capsys, out, expected)
    assert rc == 0 and lines[-1] == f"{n} passed, 0 failed", lines
    report = json.loads(cyc.read_text())
    run_on_acc = [c for g in report["groups"] for c in g["cases"] if c["cycles"] is not None]
    assert all(c["cycles"] > 0 for c in run_on_acc) and len(run_on_acc) >= n - 6
    if folder.startswith("ML-DSA-sig"):
        assert any(c["mu"] == "host" for c in run_on_acc)


def _expected_counts(path: Path) -> tuple[int, int]:
    """(groups, cases) of an expectedResults.json, read as plain JSON."""
    groups = json.loads(path.read_text())["testGroups"]
    return len(groups), sum(len(g["tests"]) for g in groups)


def test_report_counts_a_sample_against_the_expected_results(capsys, tmp_path, acvp_root):
    """`pqsoc acvp report --sample 1` on the ISS over a root holding ML-KEM keyGen: the report's
    counts are the expected file's (one case of each of its groups run, every one passed, its
    total the file's cases); with one group's answers in the expected file changed, exactly that
    group's case fails and the command exits 1. A line per group and one per mode."""
    folder = acvp_root / "ML-KEM-keyGen-FIPS203"
    n_groups, n_cases = _expected_counts(folder / "expectedResults.json")
    root = tmp_path / "root"
    (root / folder.name).mkdir(parents=True)
    (root / folder.name / "prompt.json").symlink_to(folder / "prompt.json")
    (root / folder.name / "expectedResults.json").symlink_to(folder / "expectedResults.json")
    out = tmp_path / "acvp.json"
    rc = main(["acvp", "report", "--root", str(root), "--sample", "1", "--seed", "1", "--json", str(out)])
    lines = capsys.readouterr().out.splitlines()
    assert rc == 0, lines
    report = json.loads(out.read_text())
    e = report["modes"]["ML-KEM keyGen"]
    assert (e["total"], e["run"], e["passed"], e["failed"]) == (n_cases, n_groups, n_groups, 0)
    assert e["engine"] == "iss" and e["sample"] == {"perGroup": 1, "seed": "1"} and e["unsupported"] == []
    assert report["provenance"]["commit"] and e["wall_s"] > 0
    assert sum(1 for x in lines if x.startswith("  [acvp] tg ")) == n_groups
    assert f"[acvp] ML-KEM keyGen on iss: {n_groups} of {n_cases} cases run (a sample, 1 per group, seed 1): " \
           f"{n_groups} passed, 0 failed" in "\n".join(lines)
    # the expected file's answers to group 1 changed: its sampled case fails, the others pass
    bad = json.loads((folder / "expectedResults.json").read_text())
    for t in bad["testGroups"][0]["tests"]:
        t["ek"] = ("0" if t["ek"][0] != "0" else "1") + t["ek"][1:]
    (root / folder.name / "expectedResults.json").unlink()
    _write(root / folder.name / "expectedResults.json", bad)
    assert main(["acvp", "report", "--root", str(root), "--sample", "1", "--seed", "1", "--json", str(out)]) == 1
    e = json.loads(out.read_text())["modes"]["ML-KEM keyGen"]
    assert (e["passed"], e["failed"]) == (n_groups - 1, 1)
    assert [g["failed"] for g in e["groups"]] == [1] + [0] * (n_groups - 1)
    assert "  1 keyGen/ML-KEM-512: failed (1 of 1: tc " in capsys.readouterr().out


def test_report_finds_every_mode_and_refuses_a_bad_root(capsys, tmp_path, acvp_root):
    """vector_sets: the five modes of ACVP_ROOT in the report's order, each with its expected
    results; a root without vector sets, or a prompt whose expected results are another mode's,
    exits 2 naming it before anything runs."""
    sets = acvp.vector_sets(acvp_root)
    assert [s["name"] for s in sets] == list(acvp.MODE_NAMES)
    assert {s["folder"] for s in sets} == set(FOLDERS)
    assert main(["acvp", "report", "--root", str(tmp_path), "--json", str(tmp_path / "a.json")]) == 2
    assert "no folder with a prompt.json and an expectedResults.json" in capsys.readouterr().err
    mixed = tmp_path / "mixed"
    mixed.mkdir()
    (mixed / "prompt.json").symlink_to(acvp_root / "ML-KEM-keyGen-FIPS203" / "prompt.json")
    (mixed / "expectedResults.json").symlink_to(acvp_root / "ML-DSA-keyGen-FIPS204" / "expectedResults.json")
    assert main(["acvp", "report", "--root", str(tmp_path), "--json", str(tmp_path / "a.json")]) == 2
    assert "is algorithm 'ML-KEM'" in capsys.readouterr().err and not (tmp_path / "a.json").exists()


# One group of each function, interface and message form (pure, pre-hash, internal M',
# external mu; deterministic and hedged), across the three sets of each scheme.
RTL_GROUPS = ("ML-KEM-keyGen-FIPS203:1", "ML-KEM-encapDecap-FIPS203:3", "ML-KEM-encapDecap-FIPS203:5",
              "ML-KEM-encapDecap-FIPS203:7", "ML-KEM-encapDecap-FIPS203:10", "ML-DSA-keyGen-FIPS204:3",
              "ML-DSA-sigGen-FIPS204:1", "ML-DSA-sigGen-FIPS204:4", "ML-DSA-sigGen-FIPS204:7",
              "ML-DSA-sigGen-FIPS204:20", "ML-DSA-sigVer-FIPS204:3", "ML-DSA-sigVer-FIPS204:6",
              "ML-DSA-sigVer-FIPS204:7", "ML-DSA-sigVer-FIPS204:10")


def test_a_sample_of_every_mode_passes_on_the_rtl(capsys, tmp_path, acvp_root):
    """`pqsoc acvp report --engine rtl` (the ACC's RTL in Verilator, each run compared with the
    ISS) on one case of each group of RTL_GROUPS: every mode's sampled cases pass against NIST's
    expected results, signing included; the ACC's cases report cycles."""
    out = tmp_path / "acvp_rtl.json"
    args = ["acvp", "report", "--root", str(acvp_root), "--engine", "rtl", "--sample", "1",
            "--seed", "3", "--json", str(out)]
    for g in RTL_GROUPS:
        args += ["--group", g]
    rc = main(args)
    text = capsys.readouterr().out
    assert rc == 0, text
    modes = json.loads(out.read_text())["modes"]
    assert list(modes) == list(acvp.MODE_NAMES)
    per_mode = {}
    for g in RTL_GROUPS:
        per_mode[g.split(":")[0]] = per_mode.get(g.split(":")[0], 0) + 1
    for name, e in modes.items():
        folder = next(f for f in FOLDERS if f.startswith(name.replace(" ", "-")))
        assert e["engine"] == "rtl" and (e["run"], e["passed"], e["failed"]) == (per_mode[folder],) * 2 + (0,), e
    assert "[acvp] ML-DSA sigGen on rtl: 4 of " in text


def _cases(acvp_root, folder, tg):
    """(prompt test, expected test) pairs of one group, shortest message first."""
    prompt = acvp.load(acvp_root / folder / "prompt.json")
    expected = acvp.load(acvp_root / folder / "expectedResults.json")
    want = {t["tcId"]: t for g in expected["testGroups"] if g["tgId"] == tg for t in g["tests"]}
    group = next(g for g in prompt["testGroups"] if g["tgId"] == tg)
    return group, sorted(((t, want[t["tcId"]]) for t in group["tests"]), key=lambda c: len(c[0]["message"]))


def _cli_json(capsys, argv, rc):
    got = main(argv)
    out, err = capsys.readouterr()
    assert got == rc, err
    return json.loads(out) if out else err


def test_prehash_and_mprime_forms_on_the_command_line_equal_nist(capsys, acvp_root):
    """`pqsoc mldsa sign|verify --prehash ALG` (HashML-DSA, Alg. 4 / 5) and `--mprime` (the
    internal interface) on the ISS, against NIST's expected results: deterministic ML-DSA-65
    signatures byte for byte, and sigVer verdicts, a failing one included; the forms refused
    with each other by name (exit 2)."""
    group, cases = _cases(acvp_root, "ML-DSA-sigGen-FIPS204", 4)
    assert group["preHash"] == "preHash" and group["deterministic"]
    t, want = cases[0]
    sig = _cli_json(capsys, ["mldsa", "sign", "--param", "65", "--sk", t["sk"], "--msg", t["message"] or "",
                             "--ctx", t["context"] or "", "--prehash", t["hashAlg"], "--deterministic"], 0)
    assert sig["sig"] == want["signature"].lower()
    group, cases = _cases(acvp_root, "ML-DSA-sigGen-FIPS204", 10)
    assert group["signatureInterface"] == "internal" and not group.get("externalMu")
    t, want = cases[0]
    sig = _cli_json(capsys, ["mldsa", "sign", "--param", "65", "--sk", t["sk"], "--mprime", t["message"],
                             "--deterministic"], 0)
    assert sig["sig"] == want["signature"].lower()
    for tg, form in ((4, "prehash"), (10, "mprime")):
        group, cases = _cases(acvp_root, "ML-DSA-sigVer-FIPS204", tg)
        # the shortest passing and the shortest failing case of the group
        picked = [next(c for c in cases if c[1]["testPassed"]), next(c for c in cases if not c[1]["testPassed"])]
        for t, want in picked:
            argv = ["mldsa", "verify", "--param", "65", "--pk", t["pk"], "--sig", t["signature"]]
            argv += (["--msg", t["message"] or "", "--ctx", t["context"] or "", "--prehash", t["hashAlg"]]
                     if form == "prehash" else ["--mprime", t["message"]])
            r = _cli_json(capsys, argv, 0 if want["testPassed"] else 1)
            assert r["valid"] is want["testPassed"]
    for extra, msg in ((["--mu", "00" * 64, "--prehash", "SHA2-256"], "--ctx and --prehash go with --msg, not with --mu"),
                       (["--mprime", "00", "--ctx", "01"], "--ctx and --prehash go with --msg, not with --mprime"),
                       (["--msg", "00", "--mprime", "00"], "give one of --msg, --mprime or --mu")):
        err = _cli_json(capsys, ["mldsa", "sign", "--param", "65", "--sk", "00" * 4032, "--deterministic", *extra], 2)
        assert msg in err
    with pytest.raises(api.BadInput, match="pre-hash 'MD5': one of SHA2-256"):
        api.mldsa_sign(65, bytes(4032), b"m", prehash="MD5")
