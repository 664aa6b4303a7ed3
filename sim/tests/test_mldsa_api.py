# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""ML-DSA through the firmware API (firmware/lib/pqc.c pqc_mldsa_*) on the whole simulated SoC.

- programs/pqc_mldsa_api.c: ML-DSA-65 keygen, sign (M' with a context, hedged; and from the
  external mu, the same signature) and verify
  with dilithium-py's inputs, outputs equal dilithium-py's (checked in the firmware and here),
  ACC cycles equal the ISS's, the resident second call cheaper than the loading first one; the
  API's error paths (a set without a signing program, M' and mu both given, a NULL buffer, an
  M' over the program's buffer: PQC_ERR_LENGTH, a signature that does not verify:
  PQC_MLDSA_INVALID with the program's status word, a wrong / missing image, DMEM wiped after
  a signature).
- the mu of a long M' streamed through the KMAC block (pqc_mldsa_mu_*): 10 000 bytes in
  pieces of 1 to 255 bytes give hashlib's mu, a signature from it dilithium-py's, verify from
  it; every other user of the block refused while a stream is open.
- `pqsoc mldsa ... --engine soc` (sim/mldsa_soc.py): keygen, sign (from M', from mu), verify
  and a bad signature, an M' of 12 000 bytes (its mu streamed by the firmware),
  equal to the ISS engine, dilithium-py and the `cryptography` package; for ML-DSA-44 and
  -87 keygen, deterministic signing and verify against the `cryptography` package.
~3 min (model cached): the firmware test ~7 M simulated cycles, then eleven SoC runs (each
with its own firmware build)."""
import hashlib
import json
import random

import pytest

from firmware import pqc_mldsa_layout as lay
from ip.acc import api

ERROR_TESTS = ["api_bad_param", "api_bad_length", "api_invalid", "api_image_wrong",
               "api_dmem_wiped", "api_drbg", "api_mu_stream", "api_mu_sign_verify", "api_mu_busy"]


def test_pqc_mldsa_api_firmware(sim_run_json):
    res = sim_run_json("pqc_mldsa_api", timeout_s=300)
    reqs = lay.default_requests(65)
    names = [n for r in reqs for n in (lay.request_name(65, r), lay.request_name(65, r) + "_resident")]
    assert [t["test"] for t in res["tests"]] == names + ERROR_TESTS
    t = {x["test"]: x for x in res["tests"]}
    kg, sg, sg_mu, vf = reqs
    mp = sg["in"]["msg"]
    iss = {"keygen": api.mldsa_keygen(65, kg["in"]["xi"]),
           "sign_mu": api.mldsa_sign(65, sg["in"]["sk"], mu=sg_mu["in"]["mu"], rnd=sg["in"]["rnd"]),
           "sign": api.mldsa_sign(65, sg["in"]["sk"], mu=None, msg=mp[2 + mp[1]:],
                                  ctx=mp[2:2 + mp[1]], rnd=sg["in"]["rnd"]),
           "verify": api.mldsa_verify(65, vf["in"]["pk"], mp[2 + mp[1]:], vf["in"]["sig"],
                                      ctx=mp[2:2 + mp[1]])}
    assert iss["verify"]["valid"] and iss["sign"]["sig"] == sg["exp"]["sig"]
    for r in reqs:
        name = lay.request_name(65, r)
        first, again = t[name], t[name + "_resident"]
        assert first["pass"] and first["checked"] and first["status"] == "OK", first
        assert first["cycles"] == again["cycles"] == iss[name[len("mldsa65_"):]]["cycles"]   # ACC = ISS
        assert (first["loaded"], again["loaded"]) == (1, 0)
        assert first["cycles"] < again["cpu_cycles"] < first["cpu_cycles"]
    assert bytes.fromhex(t["mldsa65_keygen"]["pk"]) == kg["exp"]["pk"]          # dilithium-py
    assert bytes.fromhex(t["mldsa65_keygen"]["sk"]) == kg["exp"]["sk"]
    assert bytes.fromhex(t["mldsa65_sign"]["sig"]) == sg["exp"]["sig"]
    assert bytes.fromhex(t["mldsa65_sign_mu"]["sig"]) == sg["exp"]["sig"]   # external mu: the same
    assert t["mldsa65_sign"]["iterations"] == iss["sign"]["iterations"]
    assert t["mldsa65_sign"]["status_word"] == 0x600D                           # sign.STATUS_OK
    assert t["mldsa65_verify"]["valid"] is True and t["mldsa65_verify"]["status_word"] == 1
    assert all(t[n]["pass"] for n in ERROR_TESTS)


def _cli(capsys, *argv, rc=0):
    from pqsoc.cli import main
    got = main(["mldsa", *argv, "--param", "65", "--engine", "soc"])
    out, err = capsys.readouterr()
    assert got == rc, err
    assert "mldsa soc: " in err and "simulating" in err   # progress
    return json.loads(out)


def test_soc_engine_equals_iss_and_references(capsys, soc_dir, model):
    from cryptography.hazmat.primitives.asymmetric import mldsa
    from dilithium_py.ml_dsa import ML_DSA_65 as REF
    rnd = random.Random(2024)
    xi, r, msg, ctx = rnd.randbytes(32), rnd.randbytes(32), rnd.randbytes(70), b"soc engine"
    kg = _cli(capsys, "keygen", "--xi", xi.hex())
    iss = api.mldsa_keygen(65, xi)
    assert kg == {"pk": iss["pk"].hex(), "sk": iss["sk"].hex(), "cycles": iss["cycles"],
                  "cpu_cycles": kg["cpu_cycles"]}
    assert kg["cpu_cycles"] > kg["cycles"]
    pk, sk = REF._keygen_internal(xi)
    assert (kg["pk"], kg["sk"]) == (pk.hex(), sk.hex())
    assert mldsa.MLDSA65PrivateKey.from_seed_bytes(xi).public_key().public_bytes_raw() == pk

    sg = _cli(capsys, "sign", "--sk", sk.hex(), "--msg", msg.hex(), "--ctx", ctx.hex(),
              "--rnd", r.hex())
    iss = api.mldsa_sign(65, sk, msg, ctx, r)
    assert sg == {"sig": iss["sig"].hex(), "cycles": iss["cycles"],
                  "iterations": iss["iterations"], "cpu_cycles": sg["cpu_cycles"]}
    sig = bytes.fromhex(sg["sig"])
    assert sig == REF._sign_internal(sk, bytes([0, len(ctx)]) + ctx + msg, r)
    mldsa.MLDSA65PrivateKey.from_seed_bytes(xi).public_key().verify(sig, msg, ctx)   # raises if not
    # the external mu = H(tr || M', 64) (the sign_mu program): the same signature
    mu = hashlib.shake_256(sk[64:128] + bytes([0, len(ctx)]) + ctx + msg).digest(64)
    sg_mu = _cli(capsys, "sign", "--sk", sk.hex(), "--mu", mu.hex(), "--rnd", r.hex())
    iss = api.mldsa_sign(65, sk, rnd=r, mu=mu)
    assert sg_mu == {"sig": sig.hex(), "cycles": iss["cycles"], "iterations": iss["iterations"],
                     "cpu_cycles": sg_mu["cpu_cycles"]}

    vf = _cli(capsys, "verify", "--pk", pk.hex(), "--msg", msg.hex(), "--ctx", ctx.hex(),
              "--sig", sig.hex())
    iss = api.mldsa_verify(65, pk, msg, sig, ctx)
    assert vf == {"valid": True, "status": "valid", "cycles": iss["cycles"],
                  "cpu_cycles": vf["cpu_cycles"]}
    bad = bytearray(sig)
    bad[7] ^= 4   # c_tilde: the recomputed challenge differs
    vf = _cli(capsys, "verify", "--pk", pk.hex(), "--msg", msg.hex(), "--ctx", ctx.hex(),
              "--sig", bad.hex(), rc=1)
    iss = api.mldsa_verify(65, pk, msg, bytes(bad), ctx)
    assert vf == {"valid": False, "status": "invalid", "cycles": iss["cycles"],
                  "cpu_cycles": vf["cpu_cycles"]}


def test_soc_engine_bad_input_before_any_build(capsys):
    from pqsoc.cli import main
    assert main(["mldsa", "verify", "--param", "65", "--pk", "00" * 1952, "--msg", "00",
                 "--sig", "00" * 10, "--engine", "soc"]) == 2
    err = capsys.readouterr().err
    assert "sig is 10 bytes, ML-DSA-65 needs 3309" in err and "mldsa soc:" not in err
    assert main(["mldsa", "sign", "--param", "44", "--sk", "00" * 2559, "--msg", "00",
                 "--deterministic", "--engine", "soc"]) == 2
    err = capsys.readouterr().err
    assert "sk is 2559 bytes, ML-DSA-44 needs 2560" in err and "mldsa soc:" not in err
    # the firmware streams a long M', but the simulation ROM carries it: SOC_MPRIME_MAX
    assert main(["mldsa", "sign", "--param", "44", "--sk", "00" * 2560, "--msg", "00" * 16383,
                 "--deterministic", "--engine", "soc"]) == 2
    err = capsys.readouterr().err
    assert "is 16385 bytes, the soc engine's ROM takes at most 16384" in err and "mldsa soc:" not in err


def test_layout_header_has_the_programs_and_reference_lengths():
    """No simulation: the generated rows (sign for the sets the host API signs, keygen /
    verify for every set), the sets' byte lengths equal dilithium-py's, the status names
    from the kernels."""
    from dilithium_py.ml_dsa import ML_DSA_44, ML_DSA_65, ML_DSA_87
    from ip.acc.kernels.mldsa import sign16
    rows = {(x["op"], x["param"]) for x in lay.layouts()}
    assert rows == {("keygen", p) for p in (44, 65, 87)} | {("verify", p) for p in (44, 65, 87)} \
        | {(op, p) for p in api.MLDSA_SIGN_PARAMS for op in ("sign", "sign_mu")}
    assert 44 in api.MLDSA_SIGN_PARAMS
    for p, ref in ((44, ML_DSA_44), (65, ML_DSA_65), (87, ML_DSA_87)):
        pk, sk = ref._keygen_internal(bytes(32))
        n = lay.sizes(p)
        assert (n["pk"], n["sk"], n["sig"]) == (len(pk), len(sk), len(ref._sign_internal(sk, b"m", bytes(32))))
        assert n["ctil"] + n["z"] + n["hint"] == n["sig"]
    s = lay.layout("sign", 65)["fields"]
    assert (s["sk"], s["msg"], s["msg_max"], s["sig"]) == (sign16.SK, sign16.MSG, sign16.MSG_MAX, sign16.SIG)
    h = lay.layout_header()
    assert "#define PQC_MLDSA_SIGN_STATUS_OK 0x0000600du" in h
    assert "#define PQC_MLDSA_VERIFY_STATUS_INVALID 0x00000002u" in h


def test_soc_engine_is_plugged_in_from_a_floor_up(monkeypatch):
    """ip.acc.api cannot import sim/ (a floor above it): without the command line's plug its
    engine "soc" is refused by name, after the input checks."""
    import pytest
    monkeypatch.setattr(api, "MLDSA_SOC_ENGINE", None)
    with pytest.raises(api.ApiError, match="engine soc: not plugged in"):
        api.mldsa_keygen(65, bytes(32), engine="soc")
    with pytest.raises(api.ApiError, match="xi is 31 bytes"):
        api.mldsa_keygen(65, bytes(31), engine="soc")


# deterministic signatures of one iteration (the seeds of ip/acc/tests/test_mldsa_sign_api.py)
SOC_SEEDS = {44: 1, 87: 5}


@pytest.mark.parametrize("param", [44, 87])
def test_soc_engine_other_sets_agree_with_cryptography(capsys, soc_dir, model, param):
    """ML-DSA-44 and -87 through the firmware API on the simulated SoC: keygen's pk equal to
    OpenSSL's key from the seed, a deterministic signature with a context that OpenSSL
    accepts, and OpenSSL's own signature valid for the SoC's verify."""
    from cryptography.hazmat.primitives.asymmetric import mldsa
    from pqsoc.cli import main
    rng = random.Random(f"rtl{param}-{SOC_SEEDS[param]}")
    xi, msg, ctx = rng.randbytes(32), rng.randbytes(33), b"rtl engine"
    ossl = getattr(mldsa, f"MLDSA{param}PrivateKey").from_seed_bytes(xi)

    def cli(*argv):
        rc = main(["mldsa", *argv, "--param", str(param), "--engine", "soc"])
        out, err = capsys.readouterr()
        assert rc == 0, err
        return json.loads(out)
    kg = cli("keygen", "--xi", xi.hex())
    assert bytes.fromhex(kg["pk"]) == ossl.public_key().public_bytes_raw()
    sg = cli("sign", "--sk", kg["sk"], "--msg", msg.hex(), "--ctx", ctx.hex(), "--deterministic")
    ossl.public_key().verify(bytes.fromhex(sg["sig"]), msg, ctx)      # raises if not valid
    vf = cli("verify", "--pk", kg["pk"], "--msg", msg.hex(), "--ctx", ctx.hex(),
             "--sig", ossl.sign(msg, ctx).hex())
    assert vf["valid"] is True


def test_hashmldsa_mprime_on_the_firmware_api(sim_run_json):
    """programs/pqc_prehash.c: HashML-DSA's M' (lib/pqc_mldsa_msg.c) for each of the twelve
    pre-hashes NIST's vectors use equals the ACVP client's (ip/acc/acvp.py, which passes NIST's
    sigGen and sigVer cases): SHA-3 / SHAKE hashed on the KMAC from M, every one from its digest,
    the SHA-2 ones refused by the hash form; then the refusals (context over 255 bytes, digest
    length, unknown pre-hash, NULL buffers)."""
    from ip.acc import acvp
    res = sim_run_json("pqc_prehash", timeout_s=300)
    assert [t["test"] for t in res["tests"]] == [f"prehash_{a}" for a in acvp.PREHASH] + ["prehash_errors"]
    assert all(t["pass"] for t in res["tests"])


def test_soc_engine_streams_the_mu_of_a_long_message(capsys, soc_dir, model):
    """An M' over the programs' buffers (12 000 bytes) on engine soc: the firmware streams mu =
    H(tr || M', 64) through the KMAC block (pqc_mldsa_mu_*, tr from sk when signing, H(pk, 64)
    on the block when verifying) and runs the programs from it. The deterministic signature
    equals dilithium-py's and OpenSSL accepts it; its ACC cycles are the ISS's from the same mu;
    OpenSSL's signature of the long message verifies, and not after one byte of it changes."""
    from cryptography.hazmat.primitives.asymmetric import mldsa
    from dilithium_py.ml_dsa import ML_DSA_44 as REF
    from pqsoc.cli import main
    rng = random.Random("long message")
    xi, msg, ctx = rng.randbytes(32), rng.randbytes(12_000), b"long"
    mp = bytes([0, len(ctx)]) + ctx + msg
    assert len(mp) > max(lay.layout(op, 44)["fields"]["msg_max"] for op in ("sign", "verify"))
    pk, sk = REF._keygen_internal(xi)
    ossl = mldsa.MLDSA44PrivateKey.from_seed_bytes(xi)

    def cli(*argv, rc=0):
        got = main(["mldsa", *argv, "--param", "44", "--engine", "soc"])
        out, err = capsys.readouterr()
        assert got == rc, err
        return json.loads(out)
    sg = cli("sign", "--sk", sk.hex(), "--msg", msg.hex(), "--ctx", ctx.hex(), "--deterministic")
    sig = bytes.fromhex(sg["sig"])
    assert sig == REF._sign_internal(sk, mp, bytes(32))
    ossl.public_key().verify(sig, msg, ctx)                              # raises if not valid
    iss = api.mldsa_sign(44, sk, mu=hashlib.shake_256(sk[64:128] + mp).digest(64))
    assert (sg["cycles"], sg["iterations"]) == (iss["cycles"], iss["iterations"])
    theirs = ossl.sign(msg, ctx)
    assert cli("verify", "--pk", pk.hex(), "--msg", msg.hex(), "--ctx", ctx.hex(),
               "--sig", theirs.hex())["valid"] is True
    other = bytearray(msg)
    other[-1] ^= 1
    assert cli("verify", "--pk", pk.hex(), "--msg", other.hex(), "--ctx", ctx.hex(),
               "--sig", theirs.hex(), rc=1)["valid"] is False
