# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""NIST ACVP vector sets (ML-KEM, FIPS 203; ML-DSA, FIPS 204) through the host API
(ip/acc/api.py, what `pqsoc mlkem` / `pqsoc mldsa` run): `pqsoc acvp run`, `pqsoc acvp
check` and `pqsoc acvp report` (pqsoc/cli/acvp.py).

run(prompt): each case of an ACVP prompt (a dict as in prompt.json: vsId, algorithm, mode,
revision, testGroups [{tgId, parameterSet, ..., tests [{tcId, ...}]}]) through the API; the
response in ACVP's layout (vsId, algorithm, mode, revision, testGroups [{tgId, tests [{tcId,
result fields}]}]), byte strings as upper-case hex as NIST writes them. Result fields:

    ML-KEM keyGen           ek, dk          api.mlkem_keygen(d, z)
    ML-KEM encapDecap       c, k            encapsulation: api.mlkem_encaps(ek, m)
                            k               decapsulation: api.mlkem_decaps(dk, c)
                            testPassed      encapsulationKeyCheck: api.mlkem_check_ek (host)
                            testPassed      decapsulationKeyCheck: api.mlkem_check_dk (host)
    ML-DSA keyGen           pk, sk          api.mldsa_keygen(seed)
    ML-DSA sigGen           signature       api.mldsa_sign (rnd = 0^32 when deterministic)
    ML-DSA sigVer           testPassed      api.mldsa_verify

ML-DSA's M' per group: external/pure 0 || len(ctx) || ctx || M (formed by the API);
external/preHash (HashML-DSA, FIPS 204 Alg. 4 / 5) 1 || len(ctx) || ctx || OID || PH(M),
formed here with hashlib; internal/message M' as given; internal/externalMu the given mu. An M'
longer than the program's buffer (MSG_MAX of kernels/mldsa/sign16.py, verify.py: 4-9 KiB,
ACVP's messages go to 8 KiB) is hashed to mu = H(tr || M', 64) here (tr from sk, or H(pk, 64)),
as FIPS 204 section 6 allows mu to be computed outside, and signed or verified from mu: the
side report says which cases ("mu": "host"). On engine soc the firmware streams such an M'
through the KMAC block instead (firmware/lib/pqc.h pqc_mldsa_mu_*; "mu": "kmac").

A group this module cannot express (an unknown algorithm, mode, revision, function, interface,
hash, or a keyFormat other than the expanded key) is unsupported: not in the response, listed
with its reason. A case whose call fails is in the response with its tcId only (check counts it
failed) and listed in the report's errors. sample=N: N cases per group, chosen by
random.Random(f"{seed}:{tgId}"); a sampled response says so in a top-level "sample" field
(a full response has none, it is ACVP's layout exactly).

check(response, expected, prompt=None): per group of the response, every case of expected's
group compared field by field (hex case-insensitively); a case missing from the response fails,
unless the response is sampled (then only its cases are compared). Malformed files raise
AcvpError naming the problem.

vector_sets(root) and conformance(vector set): every prompt under ACVP_ROOT run and checked
against its expectedResults with run() and check(), the figures per mode that `pqsoc acvp
report` writes to reports/acvp.json (and tapeout.json's `conformance` reads).
"""
import hashlib
import json
import os
import random
import time
from pathlib import Path

from ip.acc import api
from pqsoc import REPO


class AcvpError(ValueError):
    """A file or prompt that is not an ACVP vector set this module can read; the message names
    the file and the field."""


# the modes in the order `pqsoc acvp report` runs them (ML-DSA sigGen, the long one, last)
MODE_ORDER = (("ML-KEM", "keyGen"), ("ML-KEM", "encapDecap"), ("ML-DSA", "keyGen"),
              ("ML-DSA", "sigVer"), ("ML-DSA", "sigGen"))
MODES = set(MODE_ORDER)
MODE_NAMES = tuple(f"{a} {m}" for a, m in MODE_ORDER)     # reports/acvp.json's keys, tapeout.json's
REVISIONS = {"ML-KEM": "FIPS203", "ML-DSA": "FIPS204"}
KEM_FUNCTIONS = ("encapsulation", "decapsulation", "encapsulationKeyCheck", "decapsulationKeyCheck")

# HashML-DSA's pre-hashes by ACVP's hashAlg names: the host API's table (api.PREHASH)
PREHASH = api.PREHASH


# --- reading -------------------------------------------------------------------------------

def load(path) -> dict:
    """An ACVP JSON file: a dict with testGroups (or NIST's list form [{acvVersion}, {...}]);
    AcvpError naming the file and the problem otherwise."""
    try:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
    except json.JSONDecodeError as e:
        raise AcvpError(f"{path}: not JSON: {e}") from None
    if isinstance(doc, list):      # ACVP's wire form: [{"acvVersion": ...}, {vector set}]
        doc = next((d for d in doc if isinstance(d, dict) and "testGroups" in d), None)
    if not isinstance(doc, dict):
        raise AcvpError(f"{path}: not an ACVP vector set (a JSON object with testGroups)")
    validate(doc, str(path))
    return doc


def validate(doc: dict, name: str) -> None:
    """The layout every ACVP file shares: testGroups a list of {tgId: int, tests: [{tcId:
    int}]}, ids unique."""
    groups = doc.get("testGroups")
    if not isinstance(groups, list):
        raise AcvpError(f"{name}: no testGroups list")
    seen = set()
    for i, g in enumerate(groups):
        if not isinstance(g, dict) or not isinstance(g.get("tgId"), int):
            raise AcvpError(f"{name}: testGroups[{i}]: no integer tgId")
        if g["tgId"] in seen:
            raise AcvpError(f"{name}: tgId {g['tgId']} appears twice")
        seen.add(g["tgId"])
        if not isinstance(g.get("tests"), list):
            raise AcvpError(f"{name}: tgId {g['tgId']}: no tests list")
        ids = set()
        for j, t in enumerate(g["tests"]):
            if not isinstance(t, dict) or not isinstance(t.get("tcId"), int):
                raise AcvpError(f"{name}: tgId {g['tgId']}: tests[{j}]: no integer tcId")
            if t["tcId"] in ids:
                raise AcvpError(f"{name}: tgId {g['tgId']}: tcId {t['tcId']} appears twice")
            ids.add(t["tcId"])


def _bytes(test: dict, field: str, where: str) -> bytes:
    if field not in test:
        raise AcvpError(f"{where}: no {field}")
    try:
        return bytes.fromhex(test[field])
    except (TypeError, ValueError):
        raise AcvpError(f"{where}: {field} is not a hex string") from None


def _hex(b: bytes) -> str:
    return bytes(b).hex().upper()


def label(algorithm: str, mode: str, group: dict) -> str:
    """`function/parameterSet` of a group, e.g. "encapsulation/ML-KEM-768",
    "keyGen/ML-DSA-44", "sigGen external/pure deterministic/ML-DSA-65"."""
    p = group.get("parameterSet", "?")
    if "function" in group:
        return f"{group['function']}/{p}"
    if algorithm == "ML-DSA" and mode in ("sigGen", "sigVer"):
        iface = group.get("signatureInterface", "?")
        kind = group.get("preHash", "pure") if iface == "external" else \
            ("externalMu" if group.get("externalMu") else "message")
        det = "" if mode == "sigVer" else (" deterministic" if group.get("deterministic") else " hedged")
        return f"{mode} {iface}/{kind}{det}/{p}"
    return f"{mode}/{p}"


def _param(group: dict, algorithm: str) -> int | None:
    name = group.get("parameterSet", "")
    if not isinstance(name, str) or not name.startswith(algorithm + "-"):
        return None
    try:
        n = int(name[len(algorithm) + 1:])
    except ValueError:
        return None
    return n if n in (api.PARAMS if algorithm == "ML-KEM" else api.MLDSA_PARAMS) else None


def unsupported(doc: dict, group: dict) -> str | None:
    """Why this group cannot run here, or None."""
    alg, mode, rev = doc.get("algorithm"), doc.get("mode"), doc.get("revision")
    if (alg, mode) not in MODES:
        return f"algorithm {alg!r} mode {mode!r}: not one of this runner's modes"
    if rev != REVISIONS[alg]:
        return f"revision {rev!r}: this runner reads {REVISIONS[alg]}"
    if _param(group, alg) is None:
        return f"parameterSet {group.get('parameterSet')!r}: not a parameter set of {alg}"
    if group.get("keyFormat", "expanded") not in ("expanded",):   # -tr1 revisions' seed keys
        return f"keyFormat {group.get('keyFormat')!r}: only expanded keys"
    if alg == "ML-KEM" and mode == "encapDecap" and group.get("function") not in KEM_FUNCTIONS:
        return f"function {group.get('function')!r}: one of {', '.join(KEM_FUNCTIONS)}"
    if alg == "ML-DSA" and mode in ("sigGen", "sigVer"):
        iface = group.get("signatureInterface")
        if iface not in ("external", "internal"):
            return f"signatureInterface {iface!r}: external or internal"
        if iface == "external" and group.get("preHash", "pure") not in ("pure", "preHash"):
            return f"preHash {group.get('preHash')!r}: pure or preHash"
        if iface == "external" and group.get("externalMu"):
            return "externalMu with the external interface"
    return None


# --- running -------------------------------------------------------------------------------

def _hash_m_prime(test: dict, ctx: bytes, msg: bytes, where: str) -> bytes:
    """HashML-DSA's M' = 1 || len(ctx) || ctx || OID || PH(M) (FIPS 204 Alg. 4 / 5), by the
    host API's api.hash_mldsa_mprime; an unknown hashAlg makes the group unsupported."""
    alg = test.get("hashAlg")
    if alg not in PREHASH:
        raise _Unsupported(f"hashAlg {alg!r}: one of {', '.join(PREHASH)}")
    return api.hash_mldsa_mprime(alg, msg, ctx)


class _Unsupported(Exception):
    pass


def _msg_max(param: int, op: str) -> int:
    from ip.acc.kernels.mldsa import sign16
    from ip.acc.kernels.mldsa.verify import Verify
    return sign16.signer(param).MSG_MAX if op == "sign" else Verify(param).MSG_MAX


def _mldsa_inputs(group: dict, test: dict, where: str, param: int, op: str, tr,
                  engine: str = "iss") -> tuple[dict, str]:
    """The API's message keywords for one sigGen / sigVer case (msg + ctx, mprime or mu) and
    where mu is computed ("acc": by the program; "kmac": engine soc, M' over the program's
    buffer, streamed by the firmware through the KMAC block; "host"; "given")."""
    if group["signatureInterface"] == "internal":
        if group.get("externalMu"):
            return {"mu": _bytes(test, "mu", where)}, "given"
        m_prime = _bytes(test, "message", where)
        kw = {"mprime": m_prime}
    else:
        msg = _bytes(test, "message", where)
        ctx = _bytes(test, "context", where) if "context" in test else b""
        if len(ctx) > 255:
            raise AcvpError(f"{where}: context is {len(ctx)} bytes, at most 255")
        if group.get("preHash", "pure") == "preHash":
            m_prime = _hash_m_prime(test, ctx, msg, where)
            kw = {"mprime": m_prime}
        else:
            m_prime = bytes([0, len(ctx)]) + ctx + msg
            kw = {"msg": msg, "ctx": ctx}
    if len(m_prime) <= _msg_max(param, op):
        return kw, "acc"
    if engine == "soc" and len(m_prime) <= api.SOC_MPRIME_MAX:
        return kw, "kmac"
    return {"mu": hashlib.shake_256(tr() + m_prime).digest(64)}, "host"


def run_case(doc: dict, group: dict, test: dict, engine: str = "iss", masked: bool = False) -> tuple[dict, dict]:
    """One case through the API: (result fields as in expectedResults.json, info: cycles,
    and for ML-DSA signing iterations and where mu was computed). masked: ML-KEM
    decapsulation by the first-order masked program (dk split into fresh shares per case)."""
    alg, mode = doc["algorithm"], doc["mode"]
    param = _param(group, alg)
    where = f"tgId {group['tgId']} tcId {test['tcId']}"

    def b(field):
        return _bytes(test, field, where)
    if alg == "ML-KEM" and mode == "keyGen":
        r = api.mlkem_keygen(param, b("d"), b("z"), engine)
        return {"ek": _hex(r["ek"]), "dk": _hex(r["dk"])}, {"cycles": r["cycles"]}
    if alg == "ML-KEM":
        fn = group["function"]
        if fn == "encapsulation":
            r = api.mlkem_encaps(param, b("ek"), b("m"), engine)
            return {"c": _hex(r["c"]), "k": _hex(r["K"])}, {"cycles": r["cycles"]}
        if fn == "decapsulation":
            r = api.mlkem_decaps(param, b("dk"), b("c"), engine, masked=masked)
            return {"k": _hex(r["K"])}, {"cycles": r["cycles"]}
        check = api.mlkem_check_ek(param, b("ek")) if fn == "encapsulationKeyCheck" \
            else api.mlkem_check_dk(param, b("dk"))
        return {"testPassed": check["valid"]}, {"cycles": None, "host": check["check"]}
    if mode == "keyGen":
        r = api.mldsa_keygen(param, b("seed"), engine)
        return {"pk": _hex(r["pk"]), "sk": _hex(r["sk"])}, {"cycles": r["cycles"]}
    if mode == "sigGen":
        sk = b("sk")
        kw, mu = _mldsa_inputs(group, test, where, param, "sign", lambda: sk[64:128], engine)
        rnd = None if group.get("deterministic") else b("rnd")
        r = api.mldsa_sign(param, sk, rnd=rnd, engine=engine, **kw)
        return {"signature": _hex(r["sig"])}, {"cycles": r["cycles"], "iterations": r["iterations"],
                                               "mu": mu}
    pk = b("pk")
    kw, mu = _mldsa_inputs(group, test, where, param, "verify",
                           lambda: hashlib.shake_256(pk).digest(64), engine)
    r = api.mldsa_verify(param, pk, kw.pop("msg", None), b("signature"), engine=engine, **kw)
    return {"testPassed": r["valid"]}, {"cycles": r["cycles"], "status": r["status"], "mu": mu}


def sample_tests(tests: list, n: int | None, seed, tg_id: int) -> list:
    """n tests of a group (all when n is None or at least their number), in file order, chosen
    by random.Random(f"{seed}:{tgId}"): the same choice on every run and machine."""
    if n is None or n >= len(tests):
        return list(tests)
    keep = sorted(random.Random(f"{seed}:{tg_id}").sample(range(len(tests)), n))
    return [tests[i] for i in keep]


def run(doc: dict, engine: str = "iss", sample: int | None = None, seed=0,
        progress=print, masked: bool = False) -> tuple[dict, dict]:
    """(response, report): the response in ACVP's layout; the report (what `--cycles`
    writes) with every case's cycles, the unsupported groups and the errors."""
    alg, mode = doc.get("algorithm"), doc.get("mode")
    response = {"vsId": doc.get("vsId"), "algorithm": alg, "mode": mode,
                "revision": doc.get("revision")}
    if sample is not None:
        response["sample"] = {"perGroup": sample, "seed": seed}
    response["testGroups"] = []
    report = {"vsId": doc.get("vsId"), "algorithm": alg, "mode": mode, "engine": engine,
              "masked_decaps": masked, "sample": sample, "seed": seed, "groups": [], "unsupported": [],
              "errors": []}
    t_all = time.monotonic()
    for group in doc["testGroups"]:
        name = label(alg, mode, group)
        why = unsupported(doc, group)
        if why:
            report["unsupported"].append({"tgId": group["tgId"], "group": name, "reason": why,
                                          "cases": len(group["tests"])})
            progress(f"[acvp] tg {group['tgId']} {name}: UNSUPPORTED ({why}), "
                     f"{len(group['tests'])} cases not run")
            continue
        tests = sample_tests(group["tests"], sample, seed, group["tgId"])
        out, cases, t0 = [], [], time.monotonic()
        unsup = []
        for test in tests:
            try:
                fields, info = run_case(doc, group, test, engine, masked)
            except _Unsupported as e:
                unsup.append((test["tcId"], str(e)))
                continue
            except api.ApiError as e:
                report["errors"].append({"tgId": group["tgId"], "tcId": test["tcId"], "error": str(e)})
                out.append({"tcId": test["tcId"]})
                continue
            out.append({"tcId": test["tcId"], **fields})
            cases.append({"tcId": test["tcId"], **info})
        if unsup:
            report["unsupported"].append({"tgId": group["tgId"], "group": name, "cases": len(unsup),
                                          "reason": unsup[0][1], "tcIds": [t for t, _ in unsup]})
        if out or not unsup:
            response["testGroups"].append({"tgId": group["tgId"], "tests": out})
        dt = time.monotonic() - t0
        report["groups"].append({"tgId": group["tgId"], "group": name, "cases": cases,
                                 "wall_s": round(dt, 2)})
        cyc = [c["cycles"] for c in cases if c.get("cycles")]
        host_mu = sum(1 for c in cases if c.get("mu") == "host")
        kmac_mu = sum(1 for c in cases if c.get("mu") == "kmac")
        errs = sum(1 for e in report["errors"] if e["tgId"] == group["tgId"])
        progress(f"[acvp] tg {group['tgId']} {name}: {len(cases)}/{len(tests)} cases run"
                 + (f" (a sample of {len(tests)} from {len(group['tests'])})"
                    if len(tests) < len(group["tests"]) else "")
                 + (f", {errs} failed to run" if errs else "")
                 + (f", {len(unsup)} unsupported" if unsup else "")
                 + (f", mu on the host for {host_mu}" if host_mu else "")
                 + (f", mu streamed through the KMAC for {kmac_mu}" if kmac_mu else "")
                 + (f", cycles {min(cyc)}..{max(cyc)}" if cyc else ", host-side")
                 + f", {dt:.1f} s")
    report["wall_s"] = round(time.monotonic() - t_all, 2)
    return response, report


# --- checking ------------------------------------------------------------------------------

def _same(got, want) -> bool:
    if isinstance(want, str) and isinstance(got, str):
        return got.upper() == want.upper()
    return type(got) is type(want) and got == want


def check(response: dict, expected: dict, prompt: dict | None = None,
          names=("response", "expected")) -> dict:
    """Compare a response with expectedResults: {"groups": [{tgId, label, passed, failed,
    problems}], "passed", "failed", "sampled" (None, or {"checked", "of"}), "not_in_response":
    [tgId]}. AcvpError for files that do not go together (algorithm, mode, revision, vsId) or a
    response group that expected lacks."""
    for key in ("algorithm", "mode", "revision"):
        if key not in response:
            raise AcvpError(f"{names[0]}: no {key}")
        if key in expected and response[key] != expected[key]:
            raise AcvpError(f"{names[0]} is {key} {response[key]!r}, {names[1]} {expected[key]!r}")
    if "vsId" in expected and response.get("vsId") != expected["vsId"]:
        raise AcvpError(f"{names[0]} is vsId {response.get('vsId')!r}, {names[1]} {expected['vsId']!r}")
    for key in ("algorithm", "mode"):
        if prompt is not None and prompt.get(key) != response[key]:
            raise AcvpError(f"the prompt (group names) is {key} {prompt.get(key)!r}, {names[0]} "
                            f"{response[key]!r}")
    want = {g["tgId"]: g for g in expected["testGroups"]}
    info = {g["tgId"]: g for g in (prompt or {}).get("testGroups", [])}
    sampled = response.get("sample")
    groups, passed, failed, checked, total = [], 0, 0, 0, 0
    for g in response["testGroups"]:
        if g["tgId"] not in want:
            raise AcvpError(f"{names[0]}: tgId {g['tgId']} is not in {names[1]}")
        got = {t["tcId"]: t for t in g["tests"]}
        exp = want[g["tgId"]]["tests"]
        extra = sorted(set(got) - {t["tcId"] for t in exp})
        if extra:
            raise AcvpError(f"{names[0]}: tgId {g['tgId']}: tcId {extra[0]} is not in {names[1]}")
        total += len(exp)
        problems, ok = [], 0
        for t in exp:
            if t["tcId"] not in got:
                if not sampled:
                    problems.append(f"tc {t['tcId']} missing")
                continue
            bad = [k for k in t if k != "tcId" and not _same(got[t["tcId"]].get(k), t[k])]
            if bad:
                problems.append(f"tc {t['tcId']} " + ", ".join(
                    f"{k} {'missing' if k not in got[t['tcId']] else 'wrong'}" for k in bad))
            else:
                ok += 1
        checked += len(got)
        passed += ok
        failed += len(problems)
        name = label(response["algorithm"], response["mode"], info[g["tgId"]]) if g["tgId"] in info else ""
        groups.append({"tgId": g["tgId"], "label": name, "passed": ok, "failed": len(problems),
                       "problems": problems})
    return {"groups": groups, "passed": passed, "failed": failed,
            "sampled": {"checked": checked, "of": total, **sampled} if sampled else None,
            "not_in_response": sorted(set(want) - {g["tgId"] for g in response["testGroups"]})}


# --- conformance: every vector set under a root, run and checked ---------------------------

def default_root() -> Path:
    """ACVP_ROOT, or ../shared/acvp beside the repository (where CI has NIST's vector sets)."""
    return Path(os.environ.get("ACVP_ROOT") or REPO.parent / "shared" / "acvp")


def mode_name(doc: dict) -> str:
    """A vector set's mode, e.g. "ML-KEM keyGen"; another revision than this runner's adds it
    ("ML-KEM encapDecap FIPS203-tr1")."""
    alg, mode, rev = doc.get("algorithm"), doc.get("mode"), doc.get("revision")
    return f"{alg} {mode}" + ("" if REVISIONS.get(alg) == rev else f" {rev}")


def vector_sets(root) -> list[dict]:
    """Every folder under root with a prompt.json and an expectedResults.json, loaded: [{name
    (mode_name), folder, prompt, expected}], in MODE_ORDER, other modes after by name. AcvpError
    when there are none, two folders hold one mode, or a prompt and its expected results do not go
    together (check() on a response of the prompt's cases, before anything runs)."""
    root = Path(root)
    sets = []
    for prompt_path in sorted(root.glob("*/prompt.json")):
        expected_path = prompt_path.with_name("expectedResults.json")
        if not expected_path.is_file():
            continue
        prompt, expected = load(prompt_path), load(expected_path)
        skeleton = {k: prompt.get(k) for k in ("vsId", "algorithm", "mode", "revision")} | {
            "testGroups": [{"tgId": g["tgId"], "tests": [{"tcId": t["tcId"]} for t in g["tests"]]}
                           for g in prompt["testGroups"]]}
        check(skeleton, expected, prompt, names=(str(prompt_path), str(expected_path)))
        sets.append({"name": mode_name(prompt), "folder": prompt_path.parent.name,
                     "prompt": prompt, "expected": expected})
    if not sets:
        raise AcvpError(f"{root}: no folder with a prompt.json and an expectedResults.json (ACVP_ROOT)")
    names = [s["name"] for s in sets]
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise AcvpError(f"{root}: more than one vector set of {', '.join(twice)}")
    order = {n: i for i, n in enumerate(MODE_NAMES)}
    return sorted(sets, key=lambda s: (order.get(s["name"], len(order)), s["name"]))


def only_groups(sets: list[dict], wanted: list[str]) -> list[dict]:
    """The vector sets (of vector_sets) cut to the test groups named FOLDER:TGID, in their order;
    AcvpError naming a folder or group that is not there."""
    by_folder: dict = {}
    for w in wanted:
        folder, _, tg = w.rpartition(":")
        if not folder or not tg.isdigit():
            raise AcvpError(f"--group {w!r}: expected FOLDER:TGID")
        by_folder.setdefault(folder, set()).add(int(tg))
    known = {s["folder"] for s in sets}
    for folder, tgs in by_folder.items():
        if folder not in known:
            raise AcvpError(f"no vector set in folder {folder!r} (there are: {', '.join(sorted(known))})")
    out = []
    for s in sets:
        tgs = by_folder.get(s["folder"])
        if not tgs:
            continue
        have = {g["tgId"] for g in s["prompt"]["testGroups"]}
        if tgs - have:
            raise AcvpError(f"{s['folder']} has no test group {', '.join(map(str, sorted(tgs - have)))}")
        cut = {k: [g for g in s[k]["testGroups"] if g["tgId"] in tgs] for k in ("prompt", "expected")}
        out.append(s | {k: s[k] | {"testGroups": cut[k]} for k in ("prompt", "expected")})
    return out


def conformance(vs: dict, engine: str = "iss", sample: int | None = None, seed=0,
                progress=print, masked: bool = False) -> dict:
    """One vector set (an entry of vector_sets) through run() and check(): the figures
    reports/acvp.json holds per mode. total: cases in expectedResults; run: cases in the
    response; passed / failed as check() counts them (a full run: failed includes the cases
    that failed to run; unsupported groups are in neither); errors: the cases that failed to
    run; sample: None or {perGroup, seed}."""
    t0 = time.monotonic()
    response, rep = run(vs["prompt"], engine=engine, sample=sample, seed=seed, progress=progress, masked=masked)
    r = check(response, vs["expected"], vs["prompt"], names=(f"the response to {vs['folder']}", vs["folder"]))
    return {"folder": vs["folder"], "vsId": response["vsId"], "algorithm": response["algorithm"],
            "mode": response["mode"], "revision": response["revision"], "engine": engine,
            "masked_decaps": masked,
            "total": sum(len(g["tests"]) for g in vs["expected"]["testGroups"]),
            "run": sum(len(g["tests"]) for g in response["testGroups"]),
            "passed": r["passed"], "failed": r["failed"], "errors": rep["errors"],
            "unsupported": [{k: u[k] for k in ("tgId", "group", "reason", "cases")} for u in rep["unsupported"]],
            "sample": response.get("sample"),
            "groups": [g | {"problems": g["problems"][:10]} for g in r["groups"]],
            "wall_s": round(time.monotonic() - t0, 2)}
