"""`pqsoc mlkem` and its host API (ip/acc/api.py): results equal kyber-py's and the
`cryptography` package's, bad input named with exit status 2."""
import json
import random

import pytest
from kyber_py.ml_kem import ML_KEM_512, ML_KEM_768, ML_KEM_1024

from ip.acc import api
from pqsoc.cli import main

REF = {512: ML_KEM_512, 768: ML_KEM_768, 1024: ML_KEM_1024}


def _cli(capsys, *argv) -> tuple[int, dict | None, str]:
    rc = main(["mlkem", *argv])
    out, err = capsys.readouterr()
    return rc, (json.loads(out) if rc == 0 else None), err


@pytest.mark.parametrize("param", [512, 768, 1024])
def test_keygen_and_encaps_from_the_command_line_equal_kyber_py(capsys, param):
    rnd = random.Random(param)
    d, z, m = rnd.randbytes(32), rnd.randbytes(32), rnd.randbytes(32)
    rc, kg, _ = _cli(capsys, "keygen", "--param", str(param), "--d", d.hex(), "--z", z.hex())
    ek, dk = REF[param]._keygen_internal(d, z)
    assert rc == 0 and (kg["ek"], kg["dk"]) == (ek.hex(), dk.hex()) and kg["cycles"] > 0
    rc, en, _ = _cli(capsys, "encaps", "--param", str(param), "--ek", kg["ek"], "--m", m.hex())
    K, c = REF[param]._encaps_internal(ek, m)
    assert rc == 0 and (en["K"], en["c"]) == (K.hex(), c.hex())


@pytest.mark.parametrize("param", [512, 768, 1024])
def test_decaps_round_trip_and_implicit_rejection(param):
    rnd = random.Random(7 + param)
    kg = api.mlkem_keygen(param, rnd.randbytes(32), rnd.randbytes(32))
    en = api.mlkem_encaps(param, kg["ek"], rnd.randbytes(32))
    de = api.mlkem_decaps(param, kg["dk"], en["c"])
    assert de["K"] == en["K"]
    bad = bytearray(en["c"])
    bad[3] ^= 1
    rej = api.mlkem_decaps(param, kg["dk"], bytes(bad))
    assert rej["K"] == REF[param].decaps(kg["dk"], bytes(bad)) != en["K"]
    assert rej["cycles"] == de["cycles"]


def test_cryptography_decapsulates_our_ciphertext():
    from cryptography.hazmat.primitives.asymmetric import mlkem
    rnd = random.Random(11)
    d, z = rnd.randbytes(32), rnd.randbytes(32)
    kg = api.mlkem_keygen(768, d, z)
    theirs = mlkem.MLKEM768PrivateKey.from_seed_bytes(d + z)
    en = api.mlkem_encaps(768, kg["ek"], rnd.randbytes(32))
    assert theirs.decapsulate(en["c"]) == en["K"]


def test_bad_input_is_named_with_status_2(capsys, tmp_path):
    rc, _, err = _cli(capsys, "encaps", "--param", "768", "--ek", "00" * 100, "--m", "00" * 32)
    assert rc == 2 and "ek is 100 bytes, ML-KEM needs 1184" in err
    rc, _, err = _cli(capsys, "keygen", "--param", "512", "--d", "zz", "--z", "00" * 32)
    assert rc == 2 and "--d: not a hex string" in err
    rc, _, err = _cli(capsys, "keygen", "--param", "512", "--d", "@" + str(tmp_path / "none"), "--z", "00" * 32)
    assert rc == 2 and "--d: cannot read" in err
    rc, _, err = _cli(capsys, "decaps", "--param", "1024", "--dk", "00" * 3168, "--c", "00" * 1567)
    assert rc == 2 and "c is 1567 bytes, ML-KEM needs 1568" in err


def test_hex_from_a_file(capsys, tmp_path):
    rnd = random.Random(3)
    d, z = rnd.randbytes(32), rnd.randbytes(32)
    (tmp_path / "d.hex").write_text(d.hex()[:30] + "\n" + d.hex()[30:] + "\n")
    rc, kg, _ = _cli(capsys, "keygen", "--param", "512", "--d", "@" + str(tmp_path / "d.hex"), "--z", z.hex())
    assert rc == 0 and kg["ek"] == ML_KEM_512._keygen_internal(d, z)[0].hex()


def test_rtl_engine_equals_the_iss():
    rnd = random.Random(5)
    d, z = rnd.randbytes(32), rnd.randbytes(32)
    iss = api.mlkem_keygen(512, d, z)
    rtl = api.mlkem_keygen(512, d, z, engine="rtl")
    assert rtl == iss


@pytest.mark.parametrize("param", [44, 65, 87])
def test_mldsa_keygen_from_the_command_line_equals_dilithium_py(capsys, param):
    from dilithium_py.ml_dsa import ML_DSA_44, ML_DSA_65, ML_DSA_87
    ref = {44: ML_DSA_44, 65: ML_DSA_65, 87: ML_DSA_87}[param]
    xi = random.Random(param).randbytes(32)
    rc = main(["mldsa", "keygen", "--param", str(param), "--xi", xi.hex()])
    out = json.loads(capsys.readouterr().out)
    pk, sk = ref._keygen_internal(xi)
    assert rc == 0 and (out["pk"], out["sk"]) == (pk.hex(), sk.hex())
    assert main(["mldsa", "keygen", "--param", str(param), "--xi", "00" * 31]) == 2
    assert "xi is 31 bytes, ML-DSA needs 32" in capsys.readouterr().err
