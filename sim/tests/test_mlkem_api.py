# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""ML-KEM through the firmware API (firmware/lib/pqc.c) on the whole simulated SoC.

- programs/pqc_mlkem_api.c: ML-KEM-768 keygen, encaps and decaps with kyber-py's inputs,
  outputs equal kyber-py's (checked in the firmware and here), ACC cycles equal the ISS's, the
  resident second call cheaper than the loading first one; the API's error paths (bad set,
  missing / wrong image, an ek failing the program's modulus check and a dk failing its hash
  check (the programs' status word), an ACC error, a timeout, another IMEM user, a program loaded by
  someone else (an image without words: IMEM checked), DMEM wiped after a call).
- `pqsoc mlkem ... --engine soc` (sim/mlkem_soc.py): one case per op, equal to the ISS engine,
  kyber-py and the `cryptography` package; the masked decapsulation (pqc_mlkem_decaps_masked).
~1 min (model cached): 8 M simulated cycles, then three SoC runs of ~1 M."""
import json
import random

from ip.acc import api
from firmware import pqc_layout

ERROR_TESTS = ["api_bad_param", "api_image_missing", "api_image_wrong", "api_ek_invalid",
               "api_dk_hash_mismatch", "api_acc_error",
               "api_timeout", "api_reload", "api_preloaded", "api_dmem_wiped", "api_drbg"]


def test_pqc_mlkem_api_firmware(sim_run_json):
    res = sim_run_json("pqc_mlkem_api", timeout_s=300)
    reqs = pqc_layout.default_requests(768)
    ops = [r["op"] for r in reqs]
    names = [n for op in ops for n in (f"mlkem768_{op}", f"mlkem768_{op}_resident")]
    assert [t["test"] for t in res["tests"]] == names + [f"mlkem768_{ops[0]}_reload"] + ERROR_TESTS
    t = {x["test"]: x for x in res["tests"]}
    iss = {"keygen": api.mlkem_keygen(768, *reqs[0]["in"]),
           "encaps": api.mlkem_encaps(768, *reqs[1]["in"]),
           "decaps": api.mlkem_decaps(768, *reqs[2]["in"])}
    for r in reqs:
        first, again = t[f"mlkem768_{r['op']}"], t[f"mlkem768_{r['op']}_resident"]
        assert first["pass"] and first["checked"] and first["status"] == "OK", first
        outs = [n for n, _, _ in pqc_layout.layout(r["op"], 768)["outs"]]
        assert [bytes.fromhex(first[n]) for n in outs] == list(r["exp"])   # kyber-py
        assert first["cycles"] == again["cycles"] == iss[r["op"]]["cycles"]   # ACC = ISS
        assert (first["loaded"], again["loaded"]) == (1, 0)
        assert first["cycles"] < again["cpu_cycles"] < first["cpu_cycles"]
    assert all(t[n]["pass"] for n in ERROR_TESTS)
    # a reload of an image checked at its first use skips the FNV-1a sums: cheaper than the
    # first call, dearer than the resident one (the program's copy)
    first, reload, again = (t[f"mlkem768_{ops[0]}{s}"] for s in ("", "_reload", "_resident"))
    assert reload["pass"] and reload["loaded"] == 1
    assert again["cpu_cycles"] < reload["cpu_cycles"] < first["cpu_cycles"]


def _cli(capsys, *argv):
    from pqsoc.cli import main
    rc = main(["mlkem", *argv, "--engine", "soc"])
    out, err = capsys.readouterr()
    assert rc == 0, err
    assert "mlkem soc: " in err and "simulating" in err   # progress
    return json.loads(out)


def test_soc_engine_equals_iss_and_references(capsys, soc_dir, model):
    from pqsoc.cli import main
    from cryptography.hazmat.primitives.asymmetric import mlkem
    from kyber_py.ml_kem import ML_KEM_768 as REF
    rnd = random.Random(2023)
    d, z, m = rnd.randbytes(32), rnd.randbytes(32), rnd.randbytes(32)
    kg = _cli(capsys, "keygen", "--param", "768", "--d", d.hex(), "--z", z.hex())
    iss = api.mlkem_keygen(768, d, z)
    ek, dk = REF._keygen_internal(d, z)
    assert (kg["ek"], kg["dk"], kg["cycles"]) == (ek.hex(), dk.hex(), iss["cycles"])
    assert kg["cpu_cycles"] > kg["cycles"]
    en = _cli(capsys, "encaps", "--param", "768", "--ek", kg["ek"], "--m", m.hex())
    iss = api.mlkem_encaps(768, ek, m)
    K, c = REF._encaps_internal(ek, m)
    assert (en["K"], en["c"], en["cycles"]) == (K.hex(), c.hex(), iss["cycles"])
    assert mlkem.MLKEM768PrivateKey.from_seed_bytes(d + z).decapsulate(c) == K
    bad = bytearray(c)
    bad[5] ^= 1   # implicit rejection: K = J(z || c), as kyber-py computes it
    de = _cli(capsys, "decaps", "--param", "768", "--dk", kg["dk"], "--c", bad.hex())
    iss = api.mlkem_decaps(768, dk, bytes(bad))
    assert (de["K"], de["cycles"]) == (REF._decaps_internal(dk, bytes(bad)).hex(), iss["cycles"])
    assert de["K"] != K.hex()
    # an ek failing the program's modulus check (FIPS 203 7.2): exit 2 with the check's name
    bad_ek = bytearray(ek)
    bad_ek[0], bad_ek[1] = 0xFF, bad_ek[1] | 0x0F
    assert main(["mlkem", "encaps", "--param", "768", "--ek", bad_ek.hex(), "--m", m.hex(),
                 "--engine", "soc"]) == 2
    assert "ek check failed: a coefficient >= q" in capsys.readouterr().err


def test_soc_engine_runs_the_masked_decapsulation(capsys, soc_dir, model):
    """`pqsoc mlkem decaps --masked --engine soc`: the firmware's pqc_mlkem_decaps_masked (the
    masked key, the DRBG's words into the RND pool, K's two shares back) on an implicitly
    rejected ciphertext: K equals the `cryptography` package's, the ACC cycles the ISS's."""
    from cryptography.hazmat.primitives.asymmetric import mlkem
    from kyber_py.ml_kem import ML_KEM_768 as REF
    rnd = random.Random(38)
    d, z = rnd.randbytes(32), rnd.randbytes(32)
    ek, dk = REF._keygen_internal(d, z)
    bad = bytearray(REF._encaps_internal(ek, rnd.randbytes(32))[1])
    bad[7] ^= 4
    de = _cli(capsys, "decaps", "--param", "768", "--dk", dk.hex(), "--c", bad.hex(), "--masked")
    iss = api.mlkem_decaps(768, dk, bytes(bad), masked=True)
    assert de["K"] == mlkem.MLKEM768PrivateKey.from_seed_bytes(d + z).decapsulate(bytes(bad)).hex()
    assert de["cycles"] == iss["cycles"] and de["cpu_cycles"] > de["cycles"]
    assert set(de) == {"K", "cycles", "cpu_cycles"}


def test_soc_engine_bad_input_before_any_build(capsys):
    from pqsoc.cli import main
    assert main(["mlkem", "encaps", "--param", "768", "--ek", "00" * 10, "--m", "00" * 32,
                 "--engine", "soc"]) == 2
    assert "ek is 10 bytes, ML-KEM needs 1184" in capsys.readouterr().err
    assert main(["mlkem", "keygen", "--param", "512", "--d", "zz", "--z", "00" * 32,
                 "--engine", "soc"]) == 2
    err = capsys.readouterr().err
    assert "--d: not a hex string" in err and "mlkem soc:" not in err


def test_key_checks_on_the_firmware_api_equal_nist(sim_run_json):
    """programs/pqc_keycheck.c: pqc_mlkem_check_ek / _dk (FIPS 203 7.2 / 7.3 on the CPU and the
    KMAC) on NIST's ACVP keyCheck cases, two that NIST passes and two it fails from each of the
    six groups (every set, both keys). Each result is read back here against NIST's
    expectedResults.json itself, with the failure's name; then the argument errors."""
    import re
    from ip.acc import acvp
    folder = acvp.default_root() / "ML-KEM-encapDecap-FIPS203"
    expected = acvp.load(folder / "expectedResults.json")
    nist = {(g["tgId"], t["tcId"]): t.get("testPassed") for g in expected["testGroups"] for t in g["tests"]}
    res = sim_run_json("pqc_keycheck", timeout_s=300)
    cases = res["tests"][:-1]
    assert res["tests"][-1]["test"] == "keycheck_bad_args" and res["tests"][-1]["pass"]
    seen = {}
    for t in cases:
        m = re.fullmatch(r"mlkem(\d+)_check_(ek|dk)_tg(\d+)_tc(\d+)", t["test"])
        assert m, t["test"]
        passed = nist[(int(m[3]), int(m[4]))]
        assert t["pass"] and t["nist"] is passed, t
        assert t["status"] == ("OK" if passed else {"ek": "EK_INVALID", "dk": "DK_HASH_MISMATCH"}[m[2]]), t
        seen.setdefault((m[1], m[2]), set()).add(passed)
    assert seen == {(p, k): {True, False} for p in ("512", "768", "1024") for k in ("ek", "dk")}


def test_soc_engine_is_plugged_in_from_a_floor_up(monkeypatch):
    """ip.acc.api cannot import sim/ (a floor above it): without the command line's plug its
    engine "soc" is refused by name, after the input checks."""
    import pytest
    monkeypatch.setattr(api, "MLKEM_SOC_ENGINE", None)
    with pytest.raises(api.ApiError, match="engine soc: not plugged in"):
        api.mlkem_keygen(768, bytes(32), bytes(32), engine="soc")
    with pytest.raises(api.ApiError, match="m is 31 bytes"):
        api.mlkem_encaps(768, bytes(1184), bytes(31), engine="soc")


def test_an_acvp_case_on_the_soc_engine(capsys, tmp_path, soc_dir, model):
    """`pqsoc acvp report --engine soc`: a case of NIST's ML-KEM-768 keyGen group through the
    firmware API on the simulated SoC, checked against NIST's expected results (make report
    runs one case of each of the five modes)."""
    from pqsoc.cli import main
    out = tmp_path / "acvp_soc.json"
    assert main(["acvp", "report", "--engine", "soc", "--sample", "1",
                 "--group", "ML-KEM-keyGen-FIPS203:2", "--json", str(out)]) == 0
    rep = json.loads(out.read_text())
    assert rep["engine"] == "soc" and rep["failed"] == 0 and rep["passed"] == 1
