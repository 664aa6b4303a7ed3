# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""`pqsoc mldsa sign` and api.mldsa_sign (ip/acc/api.py, the program of
ip/acc/kernels/mldsa/sign16.py): a deterministic signature with a context equal to
dilithium-py's and verified by OpenSSL (the `cryptography` package) and by our verify
program, from our keygen; a hedged one (the CLI's default rnd) verified by OpenSSL and equal
to the external-mu signature of the same rnd; ML-DSA-44 (`--param 44`) deterministic and
hedged, verified by OpenSSL and our verify program; ML-DSA-87 (`--param 87`) deterministic with
a context, verified the same ways; bad input exit 2 naming the problem; a status word other
than OK raised. A signature takes 1-6 s on
the Python ISS: five signing runs (seeds chosen for 1 and 2 loop iterations)."""
import hashlib
import json
import random

import pytest
from dilithium_py.ml_dsa import ML_DSA_65 as DSA

from ip.acc import api
from ip.acc.dv.jobs import dsa_sign_stages
from ip.acc.kernels.mldsa import sign16
from pqsoc.cli import main
from pqsoc.cli import mlkem as cli

mldsa = pytest.importorskip("cryptography.hazmat.primitives.asymmetric.mldsa")


def _sign_cli(capsys, *argv) -> tuple[int, dict | None, str]:
    rc = main(["mldsa", "sign", *argv])
    out, err = capsys.readouterr()
    return rc, (json.loads(out) if rc == 0 else None), err


def test_deterministic_with_context_equals_dilithium_py_and_verifies(capsys, tmp_path):
    """keygen (ours) -> sign --deterministic with a context (CLI, sk from a file) -> the
    signature of dilithium-py's sign(deterministic=True), valid for OpenSSL and for our
    verify program; iterations as dilithium-py's loop."""
    rng = random.Random(0)
    xi, msg, ctx = rng.randbytes(32), rng.randbytes(40), b"pqsoc sign"
    kg = api.mldsa_keygen(65, xi)
    (tmp_path / "sk.hex").write_text(kg["sk"].hex() + "\n")
    rc, out, err = _sign_cli(capsys, "--param", "65", "--sk", f"@{tmp_path}/sk.hex",
                             "--msg", msg.hex(), "--ctx", ctx.hex(), "--deterministic")
    assert rc == 0, err
    sig = bytes.fromhex(out["sig"])
    assert sig == DSA.sign(kg["sk"], msg, ctx, deterministic=True)
    stages, _ = dsa_sign_stages(kg["sk"], bytes([0, len(ctx)]) + ctx + msg, bytes(32))
    assert out["iterations"] == len(stages) == 1
    mldsa.MLDSA65PublicKey.from_public_bytes(kg["pk"]).verify(sig, msg, ctx)
    assert api.mldsa_verify(65, kg["pk"], msg, sig, ctx)["valid"] is True
    print(f"\nML-DSA-65 sign, deterministic: {out['cycles']} cycles, {out['iterations']} iteration(s)")


def test_hedged_by_default_and_external_mu_give_the_same_signature(capsys, monkeypatch):
    """The CLI with neither --rnd nor --deterministic takes rnd from os.urandom (here
    replaced to know it): the signature verifies (OpenSSL) and is not the deterministic
    one; mu = H(H(pk, 64) || M', 64) with the same rnd signs the same bytes."""
    rng = random.Random(102)
    pk, sk = DSA._keygen_internal(rng.randbytes(32))
    msg, rnd, ctx = rng.randbytes(50), rng.randbytes(32), b"mu"
    monkeypatch.setattr(cli, "_hedged_rnd", lambda: rnd)
    rc, out, err = _sign_cli(capsys, "--param", "65", "--sk", sk.hex(), "--msg", msg.hex(),
                             "--ctx", ctx.hex())
    assert rc == 0, err
    sig = bytes.fromhex(out["sig"])
    m_prime = bytes([0, len(ctx)]) + ctx + msg
    assert sig == DSA._sign_internal(sk, m_prime, rnd) != DSA.sign(sk, msg, ctx, deterministic=True)
    assert out["iterations"] == len(dsa_sign_stages(sk, m_prime, rnd)[0]) == 2
    mldsa.MLDSA65PublicKey.from_public_bytes(pk).verify(sig, msg, ctx)
    mu = hashlib.shake_256(hashlib.shake_256(pk).digest(64) + m_prime).digest(64)
    ext = api.mldsa_sign(65, sk, rnd=rnd, mu=mu)
    assert ext["sig"] == sig and ext["iterations"] == 2
    assert ext["cycles"] < out["cycles"]           # no mu hash in the program
    print(f"\nML-DSA-65 sign, hedged: {out['cycles']} cycles, external mu: {ext['cycles']} cycles, "
          f"{out['iterations']} iterations")


def test_bad_input_is_named_with_status_2(capsys):
    """Each unusable input or option combination: exit 2 naming it, nothing run."""
    sk = bytes(sign16.SK_LEN)
    base = ["--param", "65", "--sk", sk.hex()]
    for argv, err in (
            (["--param", "65", "--sk", sk[:-1].hex(), "--msg", ""], "sk is 4031 bytes, ML-DSA-65 needs 4032"),
            (base + ["--msg", "", "--rnd", "00" * 31], "rnd is 31 bytes, ML-DSA needs 32"),
            (base + ["--msg", "", "--rnd", "00" * 32, "--deterministic"], "--rnd or --deterministic"),
            (base + ["--msg", "", "--ctx", "00" * 256], "the context is 256 bytes"),
            (base + ["--msg", "0g"], "--msg: not a hex string"),
            (base + ["--msg", "", "--mu", "00" * 64], "give one of --msg, --mprime or --mu"),
            (base + [], "give one of --msg, --mprime or --mu"),
            (base + ["--mu", "00" * 64, "--ctx", "01"], "--ctx and --prehash go with --msg, not with --mu"),
            (base + ["--mu", "00" * 63], "mu is 63 bytes, ML-DSA needs 64"),
            (base + ["--msg", "00" * (sign16.MSG_MAX - 1)], "(give mu instead)"),
            (["--param", "44", "--sk", "00" * 4032, "--msg", ""],
             "sk is 4032 bytes, ML-DSA-44 needs 2560"),
            (["--param", "44", "--sk", "00" * 2560, "--msg", "00" * 9663],
             "(give mu instead)"),
            (["--param", "87", "--sk", "00" * 4032, "--msg", ""],
             "sk is 4032 bytes, ML-DSA-87 needs 4896"),
            (["--param", "87", "--sk", "00" * 4896, "--msg", "00" * 7327],
             "(give mu instead)")):
        rc, _, e = _sign_cli(capsys, *argv)
        assert rc == 2 and err in e, (argv[:6], e)
    # M' = 0 || 0 || msg: MSG_MAX - 1 message bytes are one too many
    with pytest.raises(api.BadInput, match="8193 bytes"):
        api.mldsa_sign(65, sk, bytes(sign16.MSG_MAX - 1))
    with pytest.raises(api.BadInput, match="either mu or the message"):
        api.mldsa_sign(65, sk, b"", rnd=bytes(32), mu=bytes(64))
    with pytest.raises(api.BadInput, match="no such parameter set"):
        api.mldsa_sign(66, sk, b"")


def test_a_status_other_than_ok_is_raised(monkeypatch):
    """Seeded error: the image's length word beyond MSG_MAX (the host's check bypassed):
    the program refuses (STATUS_MSG_LENGTH, a short run) and the API raises naming the status."""
    s65 = sign16.signer(65)
    real = s65.image
    monkeypatch.setattr(s65, "image", lambda sk, msg, rnd, mlen=None, mu=None:
                        real(sk, msg, rnd, mlen=sign16.MSG_MAX + 1, mu=mu))
    with pytest.raises(api.ApiError, match="status 0x1: M' longer than the program's buffer"):
        api.mldsa_sign(65, bytes(sign16.SK_LEN), b"x")


def test_a_program_that_stops_early_is_not_a_signature(monkeypatch):
    """Seeded error: a program that ends at once leaves the status word at 0 (NOT_RUN), which
    is not OK (OK is non-zero): the API raises rather than return DMEM as a signature."""
    monkeypatch.setattr(sign16.signer(65), "program", lambda external_mu=False: "ecall\n")
    with pytest.raises(api.ApiError, match="status 0x0: not run"):
        api.mldsa_sign(65, bytes(sign16.SK_LEN), b"x")


@pytest.mark.parametrize("deterministic", [True, False])
def test_mldsa44_sign_verifies(capsys, deterministic):
    """`pqsoc mldsa sign --param 44` from our ML-DSA-44 keygen, with a context: deterministic
    (equal to dilithium-py's sign) or hedged (a given rnd: equal to its _sign_internal);
    OpenSSL verifies each with the public key from the same seed, and so does our verify
    program; iterations as dilithium-py's loop."""
    from dilithium_py.ml_dsa import ML_DSA_44
    rng = random.Random(44)
    xi, msg, ctx, rnd = rng.randbytes(32), rng.randbytes(33), b"pqsoc 44", rng.randbytes(32)
    kg = api.mldsa_keygen(44, xi)
    opt = ["--deterministic"] if deterministic else ["--rnd", rnd.hex()]
    rc, out, err = _sign_cli(capsys, "--param", "44", "--sk", kg["sk"].hex(), "--msg", msg.hex(),
                             "--ctx", ctx.hex(), *opt)
    assert rc == 0, err
    sig = bytes.fromhex(out["sig"])
    m_prime = bytes([0, len(ctx)]) + ctx + msg
    r = bytes(32) if deterministic else rnd
    assert len(sig) == 2420 and sig == ML_DSA_44._sign_internal(kg["sk"], m_prime, r)
    assert out["iterations"] == len(dsa_sign_stages(kg["sk"], m_prime, r, 44)[0])
    mldsa.MLDSA44PrivateKey.from_seed_bytes(xi).public_key().verify(sig, msg, ctx)
    assert api.mldsa_verify(44, kg["pk"], msg, sig, ctx)["valid"] is True
    print(f"\nML-DSA-44 sign ({'deterministic' if deterministic else 'hedged'}): "
          f"{out['cycles']} cycles, {out['iterations']} iteration(s)")


def test_mldsa87_sign_verifies(capsys):
    """`pqsoc mldsa sign --param 87 --deterministic` from our ML-DSA-87 keygen, with a
    context: equal to dilithium-py's sign; OpenSSL verifies it with the public key from the
    same seed, and so does our verify program; iterations as dilithium-py's loop."""
    from dilithium_py.ml_dsa import ML_DSA_87
    rng = random.Random(87)
    xi, msg, ctx = rng.randbytes(32), rng.randbytes(33), b"pqsoc 87"
    kg = api.mldsa_keygen(87, xi)
    rc, out, err = _sign_cli(capsys, "--param", "87", "--sk", kg["sk"].hex(), "--msg", msg.hex(),
                             "--ctx", ctx.hex(), "--deterministic")
    assert rc == 0, err
    sig = bytes.fromhex(out["sig"])
    m_prime = bytes([0, len(ctx)]) + ctx + msg
    assert len(sig) == 4627 and sig == ML_DSA_87.sign(kg["sk"], msg, ctx, deterministic=True)
    assert out["iterations"] == len(dsa_sign_stages(kg["sk"], m_prime, bytes(32), 87)[0])
    mldsa.MLDSA87PrivateKey.from_seed_bytes(xi).public_key().verify(sig, msg, ctx)
    assert api.mldsa_verify(87, kg["pk"], msg, sig, ctx)["valid"] is True
    print(f"\nML-DSA-87 sign (deterministic): {out['cycles']} cycles, "
          f"{out['iterations']} iteration(s)")


# seeds tried in order (0, 1, ...) until the deterministic signature took one iteration, to
# keep the RTL runs short
RTL_SEEDS = {44: 1, 65: 10, 87: 5}


# the largest set on RTL, whose programs reach furthest into the 16 KiB memories (ML-DSA-65 runs
# on RTL in test_rtl_acc.py's verify and sign16 tests; every set on the ISS engine here; 44 was
# here too, ~220 s of CI for a path the other two cover)
@pytest.mark.parametrize("param", [87])
def test_rtl_engine_agrees_with_cryptography(param):
    """The host API on engine "rtl" (the ACC's RTL in Verilator, each run compared with the
    ISS's, cycles and DMEM, by the engine itself) for each set: keygen's pk equal to
    OpenSSL's key from the same seed; a deterministic signature with a context valid for
    OpenSSL; OpenSSL's own signature valid for our verify program (the invalid cases are the
    ISS engine's tests)."""
    rng = random.Random(f"rtl{param}-{RTL_SEEDS[param]}")
    xi, msg, ctx = rng.randbytes(32), rng.randbytes(33), b"rtl engine"
    ossl = getattr(mldsa, f"MLDSA{param}PrivateKey").from_seed_bytes(xi)
    kg = api.mldsa_keygen(param, xi, engine="rtl")
    assert kg["pk"] == ossl.public_key().public_bytes_raw()
    sig = api.mldsa_sign(param, kg["sk"], msg, ctx, engine="rtl")
    assert sig["iterations"] == 1
    ossl.public_key().verify(sig["sig"], msg, ctx)
    theirs = ossl.sign(msg, ctx)
    assert api.mldsa_verify(param, kg["pk"], msg, theirs, ctx, engine="rtl")["valid"] is True
