# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
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


def _bad_coefficient(ek: bytes, seed: int) -> bytes:
    """ek with one 12-bit coefficient of its t_hat encoding (a seeded one) set to a value
    in q..4095 (FIPS 203 7.2's modulus check fails)."""
    rnd = random.Random(seed)
    n = (len(ek) - 32) // 384 * 256
    i, v = rnd.randrange(n), rnd.randrange(3329, 4096)
    b = bytearray(ek)
    o = 3 * (i // 2)
    x = b[o] | b[o + 1] << 8 | b[o + 2] << 16
    sh = 12 * (i % 2)
    x = (x & ~(0xFFF << sh)) | v << sh
    b[o:o + 3] = x.to_bytes(3, "little")
    return bytes(b)


@pytest.mark.parametrize("param", [512, 768, 1024])
def test_fips203_input_checks_fail_with_a_status(capsys, param):
    """FIPS 203 section 7 in the programs: encaps of an ek with one coefficient >= q and
    decaps of a dk whose H(ek) is corrupted end with their status word (status.py) and no
    output; the API raises ApiError naming the check, the CLI exits 2 with it; a good ek /
    dk gives status OK (the seeded errors are the only difference)."""
    from ip.acc.kernels.mlkem import status
    from ip.acc.kernels.mlkem.decaps import decaps
    from ip.acc.kernels.mlkem.encaps import encaps
    rnd = random.Random(100 + param)
    ek, dk = REF[param]._keygen_internal(rnd.randbytes(32), rnd.randbytes(32))
    m = rnd.randbytes(32)
    bad_ek = _bad_coefficient(ek, param)
    with pytest.raises(api.ApiError, match=r"ek check failed: a coefficient >= q \(FIPS 203 7.2\)"):
        api.mlkem_encaps(param, bad_ek, m)
    rc, _, err = _cli(capsys, "encaps", "--param", str(param), "--ek", bad_ek.hex(), "--m", m.hex())
    assert rc == 2 and "ek check failed" in err
    # the program's own view: status word and no output (DMEM beyond the status slot zero)
    en = encaps(param)
    r = api._run(en.program(), en.image(bad_ek, m), "iss", "encaps")
    assert status.read(r.dmem, en.status_addr) == status.EK_INVALID
    K, c = en.outputs(r.dmem)
    assert K == bytes(32) and c == bytes(len(c))
    r = api._run(en.program(), en.image(ek, m), "iss", "encaps")
    assert status.read(r.dmem, en.status_addr) == status.OK
    assert en.outputs(r.dmem) == REF[param]._encaps_internal(ek, m)
    # dk: one bit of the stored H(ek) flipped
    K, c = REF[param]._encaps_internal(ek, m)
    h = 768 * (len(ek) - 32) // 384 + 32
    bad_dk = dk[:h + 5] + bytes([dk[h + 5] ^ 0x20]) + dk[h + 6:]
    with pytest.raises(api.ApiError, match=r"dk check failed: the H\(ek\) in dk"):
        api.mlkem_decaps(param, bad_dk, c)
    rc, _, err = _cli(capsys, "decaps", "--param", str(param), "--dk", bad_dk.hex(), "--c", c.hex())
    assert rc == 2 and "dk check failed" in err
    de = decaps(param)
    good = api._run(de.program(), de.image(dk, c), "iss", "decaps")
    bad = api._run(de.program(), de.image(bad_dk, c), "iss", "decaps")
    assert status.read(good.dmem, de.status_addr) == status.OK and de.outputs(good.dmem) == K
    assert status.read(bad.dmem, de.status_addr) == status.DK_HASH_MISMATCH
    assert de.outputs(bad.dmem) == bytes(32)
    assert bad.cycles == good.cycles               # the hash check is constant-time


def test_wrong_lengths_are_named(capsys):
    """The FIPS 203 7.2 / 7.3 type checks are the host's: each input one byte short or long
    is refused by name (API and CLI exit 2), before any program runs."""
    n = api.sizes(1024)
    for args, msg in ((("encaps", "--ek", "00" * (n["ek"] + 1), "--m", "00" * 32), "ek is 1569 bytes"),
                      (("decaps", "--dk", "00" * (n["dk"] - 1), "--c", "00" * n["c"]), "dk is 3167 bytes"),
                      (("decaps", "--dk", "00" * n["dk"], "--c", "00" * (n["c"] + 1)), "c is 1569 bytes")):
        rc, _, err = _cli(capsys, args[0], "--param", "1024", *args[1:])
        assert rc == 2 and msg in err, err
    with pytest.raises(api.ApiError, match="c is 1569 bytes, ML-KEM needs 1568"):
        api.mlkem_decaps(1024, bytes(n["dk"]), bytes(n["c"] + 1))


def test_dmem_image_past_the_end_is_refused():
    """A blob past the end of the DMEM image raises (a bytearray slice would grow: under
    python -O an over-long input must still not land anywhere)."""
    from ip.acc.dv.jobs import image
    with pytest.raises(ValueError, match="pass the end"):
        image({16 * 1024 - 32: bytes(33)}, 16 * 1024)
    assert len(image({16 * 1024 - 32: bytes(32)}, 16 * 1024)) == 16 * 1024


def test_rtl_engine_reports_a_failed_check():
    """One failed check on the RTL: the status word is the ISS's (the RTL run is compared
    with the ISS's, DMEM included) and the API names the check."""
    rnd = random.Random(9)
    ek, _ = ML_KEM_768._keygen_internal(rnd.randbytes(32), rnd.randbytes(32))
    with pytest.raises(api.ApiError, match="ek check failed"):
        api.mlkem_encaps(768, _bad_coefficient(ek, 1), rnd.randbytes(32), engine="rtl")


def test_mldsa_verify_from_the_command_line(capsys, tmp_path):
    """`pqsoc mldsa verify`: an OpenSSL signature (with a context) valid, exit 0; a changed
    message invalid, exit 1 with the status; external mu valid; bad input exit 2 named
    (wrong pk / sig length, a context over 255 bytes, not hex, --msg with --mu)."""
    import hashlib
    mldsa = pytest.importorskip("cryptography.hazmat.primitives.asymmetric.mldsa")
    key = mldsa.MLDSA44PrivateKey.from_seed_bytes(bytes(range(32)))
    pk = key.public_key().public_bytes_raw()
    msg, ctx = b"pqsoc verify", b"ctx"
    sig = key.sign(msg, ctx)
    (tmp_path / "sig.hex").write_text(sig.hex() + "\n")
    base = ["mldsa", "verify", "--param", "44", "--pk", pk.hex(), "--sig", f"@{tmp_path}/sig.hex"]
    rc = main(base + ["--msg", msg.hex(), "--ctx", ctx.hex()])
    out = json.loads(capsys.readouterr().out)
    assert rc == 0 and out["valid"] is True and out["status"] == "valid" and out["cycles"] > 0
    rc = main(base + ["--msg", (msg + b"!").hex(), "--ctx", ctx.hex()])
    out = json.loads(capsys.readouterr().out)
    assert rc == 1 and out["valid"] is False and out["status"] == "invalid"
    tr = hashlib.shake_256(pk).digest(64)
    mu = hashlib.shake_256(tr + bytes([0, len(ctx)]) + ctx + msg).digest(64)
    rc = main(base + ["--mu", mu.hex()])
    assert rc == 0 and json.loads(capsys.readouterr().out)["valid"] is True
    for argv, err in ((["--param", "44", "--pk", pk[:-1].hex(), "--sig", sig.hex(), "--msg", ""],
                       "pk is 1311 bytes, ML-DSA-44 needs 1312"),
                      (["--param", "44", "--pk", pk.hex(), "--sig", sig.hex() + "00", "--msg", ""],
                       "sig is 2421 bytes, ML-DSA-44 needs 2420"),
                      (["--param", "44", "--pk", pk.hex(), "--sig", sig.hex(), "--msg", "",
                        "--ctx", "00" * 256], "the context is 256 bytes"),
                      (["--param", "44", "--pk", pk.hex(), "--sig", "xy", "--msg", ""],
                       "--sig: not a hex string"),
                      (["--param", "44", "--pk", pk.hex(), "--sig", sig.hex(), "--msg", "",
                        "--mu", mu.hex()], "give one of --msg, --mprime or --mu"),
                      (["--param", "44", "--pk", pk.hex(), "--sig", sig.hex(),
                        "--msg", "00" * 8000], "takes at most")):
        assert main(["mldsa", "verify", *argv]) == 2
        assert err in capsys.readouterr().err, err


def test_gls_engine_without_a_netlist_is_refused_by_name(monkeypatch, tmp_path, capsys):
    """Engine gls runs `pqsoc synth acc`'s netlist; with none (a fresh clone) the call is refused
    with the command to run, not faked on another engine. (With one: `make report`'s
    reports/acvp_gls.json, ML-KEM-768 decaps and ML-DSA-65 sigVer cases of NIST's.)"""
    from pqsoc.flow import synth
    monkeypatch.setattr(synth, "synth_dir", lambda name: tmp_path / name)
    monkeypatch.setattr(api, "_GLS", [])
    with pytest.raises(api.ApiError, match=r"engine gls: no netlist for acc: run `pqsoc synth acc` first"):
        api.mlkem_keygen(768, bytes(32), bytes(32), engine="gls")
    assert main(["mlkem", "keygen", "--param", "768", "--d", "00" * 32, "--z", "00" * 32,
                 "--engine", "gls"]) == 1
    assert "no netlist for acc" in capsys.readouterr().err
