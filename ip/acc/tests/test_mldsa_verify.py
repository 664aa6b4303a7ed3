# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""ML-DSA.Verify_internal on the ISS (ip/acc/kernels/mldsa/verify.py) for ML-DSA-44, -65 and -87
with the taped-out 16 KiB IMEM / DMEM: signatures by the `cryptography` package (OpenSSL)
and by dilithium-py accepted; single-bit flips of the signature (c_tilde, z, hint), the
message, the context and the public key rejected, with OpenSSL's verdict as the oracle;
z at the range bound and malformed hints (re-encoded) rejected with their status codes;
external mu; the program's own message-length bound; SampleInBall's refill path; the
UseHint formula exhaustively; the constant-time check's view of the program."""
import hashlib
import random

import numpy as np
import pytest
from dilithium_py.ml_dsa import ML_DSA_44, ML_DSA_65, ML_DSA_87

from ip.acc import block as acc_block
from ip.acc.iss import Iss
from ip.acc.kernels.mldsa import verify as V
from ip.acc.kernels.mldsa.layout import hb_mult
from ip.acc.kernels.mldsa.params import FULL, Q
from ip.acc.kernels.mldsa.verify_hint import hw1_mult
from ip.acc.tools.asm import assemble

REF = {44: ML_DSA_44, 65: ML_DSA_65, 87: ML_DSA_87}
PARAMS = sorted(REF)
_WORDS = {}


def _words(v):
    key = (v.param, getattr(v, "sib_words", 8))
    if key not in _WORDS:
        _WORDS[key] = assemble(v.program(), f"mldsa{v.param}_verify.s")
    return _WORDS[key]


def _run(param, pk, sig, msg_prime=None, mu=None, v=None, **kw):
    """Verify on the ISS with the taped-out memories: (status, halt)."""
    v = v or V.verify(param)
    sim = Iss(dmem_size=acc_block.DMEM_SIZE, imem_size=acc_block.IMEM_SIZE)
    sim.load_program(_words(v))
    for a, b in v.image(pk, sig, msg_prime=msg_prime, mu=mu, **kw).items():
        sim.dmem.write_bytes(a, b)
    h = sim.run(max_cycles=500_000)
    assert h.ok, h
    return v.status(sim.dmem.read_bytes(0, acc_block.DMEM_SIZE)), h


def _m_prime(msg, ctx):
    return bytes([0, len(ctx)]) + ctx + msg


def _openssl(param, seed):
    mldsa = pytest.importorskip("cryptography.hazmat.primitives.asymmetric.mldsa")
    key = getattr(mldsa, f"MLDSA{param}PrivateKey").from_seed_bytes(seed)
    return key, key.public_key()


def _openssl_accepts(pub, sig, msg, ctx):
    from cryptography.exceptions import InvalidSignature
    try:
        pub.verify(sig, msg, ctx)
        return True
    except (InvalidSignature, ValueError):
        return False


@pytest.mark.parametrize("param", PARAMS)
def test_accepts_cryptography_signatures(param):
    rng = random.Random(10 + param)
    key, pub = _openssl(param, rng.randbytes(32))
    pk = pub.public_bytes_raw()
    msg, ctx = rng.randbytes(100), b"pqsoc"
    sig = key.sign(msg, ctx)
    st, h = _run(param, pk, sig, _m_prime(msg, ctx))
    assert st == V.STATUS_VALID, V.STATUS_NAMES.get(st, st)
    v = V.verify(param)
    print(f"\nML-DSA-{param} Verify on the ISS: {h.cycles} cycles, IMEM {4 * len(_words(v))} B, "
          f"DMEM {v.END} B (M' up to {v.MSG_MAX} B)")


@pytest.mark.parametrize("param", PARAMS)
def test_accepts_dilithium_py_signatures_and_rejects_another_message(param):
    rng = random.Random(20 + param)
    pk, sk = REF[param]._keygen_internal(rng.randbytes(32))
    msg = _m_prime(rng.randbytes(7), b"")
    sig = REF[param]._sign_internal(sk, msg, rng.randbytes(32))
    assert _run(param, pk, sig, msg)[0] == V.STATUS_VALID
    assert _run(param, pk, sig, msg[:-1])[0] == V.STATUS_INVALID


def _flip(blob, bit):
    b = bytearray(blob)
    b[bit // 8] ^= 1 << (bit % 8)
    return bytes(b)


@pytest.mark.parametrize("param", PARAMS)
def test_single_bit_flips_are_rejected_like_openssl(param):
    """One signature; a bit flipped in c_tilde, z, the hint (an index, the padding), the
    message, the context, pk's t1: each is rejected, as OpenSSL rejects it (ML-DSA-65 also
    z's first and last byte, a hint count and pk's rho)."""
    rng = random.Random(30 + param)
    key, pub = _openssl(param, rng.randbytes(32))
    pk = pub.public_bytes_raw()
    msg, ctx = b"flip me", b"c"
    sig = key.sign(msg, ctx)
    v = V.verify(param)
    z0, h0 = v.ctil_len, v.ctil_len + v.l * v.zb
    n_hints = sig[-1]
    cases = {"c_tilde": (_flip(sig, 5), pk, msg, ctx),
             "z first": (_flip(sig, 8 * z0 + 1), pk, msg, ctx),
             "z middle": (_flip(sig, 8 * (z0 + v.l * v.zb // 2) + 3), pk, msg, ctx),
             "z last": (_flip(sig, 8 * h0 - 1), pk, msg, ctx),
             "hint index": (_flip(sig, 8 * h0 + 1), pk, msg, ctx),
             "hint count": (_flip(sig, 8 * (h0 + v.omega) + 0), pk, msg, ctx),
             "hint padding": (_flip(sig, 8 * (h0 + v.omega - 1) + 7), pk, msg, ctx),
             "message": (sig, pk, _flip(msg, 9), ctx),
             "context": (sig, pk, msg, _flip(ctx, 0)),
             "pk rho": (sig, _flip(pk, 17), msg, ctx),
             "pk t1": (sig, _flip(pk, 8 * 40 + 2), msg, ctx)}
    assert n_hints < v.omega          # so the padding flip hits padding
    if param != 65:
        for name in ("z first", "z last", "hint count", "pk rho"):
            del cases[name]
    for name, (s, p, m, c) in cases.items():
        st, _ = _run(param, p, s, _m_prime(m, c))
        assert st != V.STATUS_VALID, name
        from cryptography.hazmat.primitives.asymmetric import mldsa
        theirs = getattr(mldsa, f"MLDSA{param}PublicKey").from_public_bytes(p)
        assert not _openssl_accepts(theirs, s, m, c), name
        print(f"  {name}: {V.STATUS_NAMES[st]}")


def _set_z_field(v, sig, j, n, f):
    """sig with field n of z_j (gamma1 - z, zbits bits) set to f."""
    z0 = 8 * (v.ctil_len + j * v.zb) + v.zbits * n
    x = int.from_bytes(sig, "little")
    x &= ~(((1 << v.zbits) - 1) << z0)
    x |= f << z0
    return x.to_bytes(len(sig), "little")


@pytest.mark.parametrize("param", PARAMS)
def test_z_at_the_range_bound(param):
    """||z||inf < gamma1 - beta: z = +-(gamma1 - beta) rejected as Z_RANGE; one inside
    the bound passes the range check (then fails c_tilde: INVALID)."""
    rng = random.Random(40 + param)
    pk, sk = REF[param]._keygen_internal(rng.randbytes(32))
    msg = _m_prime(b"z", b"")
    sig = REF[param]._sign_internal(sk, msg, rng.randbytes(32))
    v = V.verify(param)
    g1, beta = v.gamma1, v.beta
    for j, n, z, want in ((0, 0, g1 - beta, V.STATUS_Z_RANGE),
                          (v.l - 1, 255, -(g1 - beta), V.STATUS_Z_RANGE),
                          (v.l // 2, 77, g1 - beta - 1, V.STATUS_INVALID)):
        st, _ = _run(param, pk, _set_z_field(v, sig, j, n, g1 - z), msg)
        assert st == want, (j, n, z, V.STATUS_NAMES[st])


def _hint_sig(param, seed, min_hints=3):
    """(pk, M', sig) of a signature whose first polynomial has >= min_hints hints."""
    rng = random.Random(seed)
    pk, sk = REF[param]._keygen_internal(rng.randbytes(32))
    v = V.verify(param)
    while True:
        msg = _m_prime(rng.randbytes(8), b"")
        sig = REF[param]._sign_internal(sk, msg, rng.randbytes(32))
        h = sig[-(v.omega + v.k):]
        if h[v.omega] >= min_hints and h[v.omega + v.k - 1] < v.omega:
            return pk, msg, sig, v


@pytest.mark.parametrize("param", PARAMS)
def test_malformed_hints_are_rejected(param):
    """HintBitUnpack's checks (FIPS 204 Alg. 21), each on a re-encoded hint: a count above
    omega, a count below the previous one, indices not strictly increasing (equal and
    decreasing), a non-zero padding byte (first, middle, last); each with its status code,
    and OpenSSL rejects
    the same bytes."""
    pk, msg, sig, v = _hint_sig(param, 50 + param)
    om, k = v.omega, v.k
    h0 = len(sig) - (om + k)
    mldsa = pytest.importorskip("cryptography.hazmat.primitives.asymmetric.mldsa")
    pub = getattr(mldsa, f"MLDSA{param}PublicKey").from_public_bytes(pk)

    def edit(**at):
        b = bytearray(sig)
        for off, val in at.items():
            b[h0 + int(off[1:])] = val
        return bytes(b)
    y = sig[h0:]
    last = y[om + k - 1]
    cases = [("count > omega", edit(**{f"o{om + k - 1}": om + 1}), V.STATUS_HINT_COUNT),
             ("count decreasing", edit(**{f"o{om + 1}": y[om] - 1}), V.STATUS_HINT_COUNT),
             ("index repeated", edit(o1=y[0]), V.STATUS_HINT_ORDER),
             ("index decreasing", edit(o0=y[1], o1=y[0]), V.STATUS_HINT_ORDER),
             ("padding", edit(**{f"o{om - 1}": 1}), V.STATUS_HINT_PADDING),
             ("padding first", edit(**{f"o{last}": 255}), V.STATUS_HINT_PADDING),
             ("padding middle", edit(**{f"o{(last + om) // 2}": 128}), V.STATUS_HINT_PADDING)]
    if y[om + 1] > y[om]:
        # across a polynomial boundary an index may go down: not malformed (INVALID only
        # because the hint changed)
        cases.append(("boundary", edit(**{f"o{y[om]}": 0}), V.STATUS_INVALID))
    for name, s, want in cases:
        st, _ = _run(param, pk, s, msg)
        assert st == want, (name, V.STATUS_NAMES[st])
        assert not _openssl_accepts(pub, s, msg[2:], b""), name


def _w1_prime_bytes(param, pk, sig, m_prime):
    """w1Encode(UseHint(h, A z - c t1 2^d)) by dilithium-py's steps (its _verify_internal
    up to the hash), whatever the hint."""
    ref = REF[param]
    rho, t1 = ref._unpack_pk(pk)
    c_tilde, z, h = ref._unpack_sig(sig)
    a_hat = ref._expand_matrix_from_seed(rho)
    c = ref.R.sample_in_ball(c_tilde, ref.tau).to_ntt()
    t1 = t1.scale(1 << ref.d).to_ntt()
    w = ((a_hat @ z.to_ntt()) - t1.scale(c)).from_ntt()
    return h.use_hint(w, 2 * ref.gamma_2).bit_pack_w(ref.gamma_2)


DENSE_HINTS = {44: [17, 24, 8, 31], 65: [17, 16, 8, 0, 1, 13],
               87: [17, 16, 8, 0, 1, 9, 24, 0]}


@pytest.mark.parametrize("param", PARAMS)
def test_w1_prime_with_dense_hints_matches_reference(param):
    """The program's w1Encode(w1') (left over t1 in DMEM) equals dilithium-py's with a
    well-formed hint of omega indices in rows of 17, 16, 8, 0, 1, ... (full batches of 8,
    an exact multiple, a lone one, the first and last index): the UseHint and w1Encode
    passes checked directly, not only through the hash (the signature is INVALID)."""
    rng = random.Random(80 + param)
    ref, v = REF[param], V.verify(param)
    counts = DENSE_HINTS[param]
    assert sum(counts) == v.omega and len(counts) == v.k
    pk, sk = ref._keygen_internal(rng.randbytes(32))
    msg = _m_prime(b"dense hints", b"")
    sig = ref._sign_internal(sk, msg, rng.randbytes(32))
    idx, cum = [], []
    for n in counts:
        row = sorted(rng.sample(range(1, 255), n - 2) + [0, 255]) if n > 2 else \
            sorted(rng.sample(range(256), n))
        idx += row
        cum.append(len(idx))
    sig = sig[:-(v.omega + v.k)] + bytes(idx) + bytes(cum)
    want = _w1_prime_bytes(param, pk, sig, msg)
    sim = Iss(dmem_size=acc_block.DMEM_SIZE, imem_size=acc_block.IMEM_SIZE)
    sim.load_program(_words(v))
    for a, b in v.image(pk, sig, msg_prime=msg).items():
        sim.dmem.write_bytes(a, b)
    assert sim.run(max_cycles=500_000).ok
    n = 32 * v.w1bits
    got = b"".join(sim.dmem.read_bytes(v.PK + 32 + 320 * i, n) for i in range(v.k))
    assert got == want
    assert v.status(sim.dmem.read_bytes(0, acc_block.DMEM_SIZE)) == V.STATUS_INVALID


def _mu(pk, m_prime):
    tr = hashlib.shake_256(pk).digest(64)
    return hashlib.shake_256(tr + m_prime).digest(64)


def test_external_mu_and_the_message_bound():
    """mu given by the host (EXT_MU): valid, and a changed mu invalid. M' of exactly
    MSG_MAX bytes verifies; a length word above MSG_MAX is refused by the program without
    reading (STATUS_MSG_LENGTH); the host refuses a longer M'."""
    param = 44
    rng = random.Random(60)
    pk, sk = REF[param]._keygen_internal(rng.randbytes(32))
    v = V.verify(param)
    msg = _m_prime(rng.randbytes(v.MSG_MAX - 2), b"")
    assert len(msg) == v.MSG_MAX
    sig = REF[param]._sign_internal(sk, msg, rng.randbytes(32))
    assert _run(param, pk, sig, msg)[0] == V.STATUS_VALID
    assert _run(param, pk, sig, mu=_mu(pk, msg))[0] == V.STATUS_VALID
    assert _run(param, pk, sig, mu=_flip(_mu(pk, msg), 100))[0] == V.STATUS_INVALID
    st, h = _run(param, pk, sig, msg[:10], mlen=v.MSG_MAX + 1)
    assert st == V.STATUS_MSG_LENGTH and h.cycles < 100
    assert _run(param, pk, sig, msg[:10], mlen=2 ** 32 - 1)[0] == V.STATUS_MSG_LENGTH
    with pytest.raises(ValueError, match="at most"):
        v.image(pk, sig, msg_prime=msg + b"x")


def test_sample_in_ball_refill():
    """SampleInBall with a 1-word digest buffer (8 sign bytes, 24 candidates: too few for
    tau = 39) takes the refill path and still verifies; the usual 8 words never needs it."""
    param = 44
    rng = random.Random(70)
    pk, sk = REF[param]._keygen_internal(rng.randbytes(32))
    msg = _m_prime(b"refill", b"")
    sig = REF[param]._sign_internal(sk, msg, rng.randbytes(32))

    class Small(V.Verify):
        sib_words = 1
    v = Small(param)
    assert _run(param, pk, sig, msg, v=v)[0] == V.STATUS_VALID
    assert _run(param, pk, sig, msg[:-1], v=v)[0] == V.STATUS_INVALID


@pytest.mark.parametrize("param", [44, 65])
def test_use_hint_formula_is_exact(param):
    """For every r in [0, q): p = mulv.hi(r + gamma2 - 1, hb_mult) (32-bit lanes): p >> 11
    is floor((r + gamma2 - 1) / (2 gamma2)) = r1 (m in the q - 1 wrap) and bit 10 of p is
    [r0 > 0] of Decompose (FIPS 204 Alg. 36); so UseHint as the program computes it equals
    Alg. 40 for h = 0 and h = 1, and with m = 16 (ML-DSA-65 / -87) p >> 11 mod 16 is the
    HighBits pass's r1."""
    g2 = FULL[param]["gamma2"]
    a, m = 2 * g2, (Q - 1) // (2 * g2)
    r = np.arange(Q, dtype=np.uint64)
    p = ((r + g2 - 1) * hb_mult(g2)) >> np.uint64(32)
    t = p >> np.uint64(11)
    pos = (p >> np.uint64(10)) & np.uint64(1)
    r0 = r.astype(np.int64) % a
    r0 = np.where(r0 > g2, r0 - a, r0)
    wrap = (r.astype(np.int64) - r0) == Q - 1
    r1 = np.where(wrap, 0, (r.astype(np.int64) - r0) // a)
    r0 = np.where(wrap, r0 - 1, r0)
    assert np.array_equal(t % m, r1)
    assert np.array_equal(pos == 1, r0 > 0)
    # the program's r1' = (t + h (2 pos - 1)) mod m against Alg. 40
    prog1 = (t.astype(np.int64) + 2 * pos.astype(np.int64) - 1) % m
    ref1 = np.where(r0 > 0, (r1 + 1) % m, (r1 - 1) % m)
    assert np.array_equal(prog1, ref1)


@pytest.mark.parametrize("param", [44, 65])
def test_high_bits_formula_is_exact(param):
    """For every r in [0, q): mulv.hi((r + gamma2) mod q, hw1_mult) >> 11 (32-bit lanes) is
    HighBits(r) of Decompose (FIPS 204 Alg. 36), the q - 1 wrap included (no fix-up after
    it: the w1Encode pass's formula); and alpha r1' (what UseHint writes back) gives r1'."""
    g2 = FULL[param]["gamma2"]
    a, m = 2 * g2, (Q - 1) // (2 * g2)
    r = np.arange(Q, dtype=np.int64)
    r0 = r % a
    r0 = np.where(r0 > g2, r0 - a, r0)
    r1 = np.where(r - r0 == Q - 1, 0, (r - r0) // a)

    def high(x):
        v = ((x + g2) % Q).astype(np.uint64)
        return ((v * np.uint64(hw1_mult(g2))) >> np.uint64(32)) >> np.uint64(11)
    assert np.array_equal(high(r).astype(np.int64), r1)
    assert np.array_equal(high(a * np.arange(m, dtype=np.int64)), np.arange(m))


def test_fits_taped_out_memories_and_bad_parameters():
    for param in PARAMS:
        v = V.verify(param)
        assert 4 * len(_words(v)) <= acc_block.IMEM_SIZE and v.END <= acc_block.DMEM_SIZE
        assert v.MSG + v.MSG_MAX <= acc_block.DMEM_SIZE and v.MSG_MAX >= 2048
    with pytest.raises(ValueError, match="44, 65, 87"):
        V.verify(66)
    v = V.verify(65)
    with pytest.raises(ValueError, match="3309"):
        v.split_sig(bytes(3308))
    with pytest.raises(ValueError, match="pk is"):
        v.image(bytes(10), bytes(3309), msg_prime=b"")


def test_write_order_check_catches_a_clobber():
    """_check_order (run by the constructor) fails on an order that would overwrite data
    still to be read: ML-DSA-87's z_0 NTT'd before mu lands on M'; ML-DSA-65's z_4 before
    z_3 on the packed z_3."""
    v = V.verify(87)
    v.z_pre, v.z_post = [0, 1], [2, 3, 4, 5, 6]
    with pytest.raises(AssertionError, match="mu"):
        v._check_order()
    v = V.verify(65)
    v.z_post = [4, 3]
    with pytest.raises(AssertionError):
        v._check_order()


def test_job_check_catches_a_wrong_status():
    """dv/jobs.mldsa_verify_jobs' check (the benchmark's and the RTL run's) passes the run
    and fails it when the status word is changed or the run did not end in ecall."""
    from dataclasses import replace
    from ip.acc.dv.jobs import MLDSA_KEYGEN_MEM, mldsa_verify_jobs
    from ip.acc.dv.lockstep import IssBackend
    v = V.verify(44)
    (key, words, img, cyc, check), = mldsa_verify_jobs(44, seed=3)
    r = IssBackend(MLDSA_KEYGEN_MEM, MLDSA_KEYGEN_MEM).run(words, img, cyc)
    assert check(r) is None
    for st in (V.STATUS_NONE, V.STATUS_INVALID, V.STATUS_Z_RANGE):
        bad = bytearray(r.dmem)
        bad[v.STATUS:v.STATUS + 4] = st.to_bytes(4, "little")
        assert "want valid" in check(replace(r, dmem=bytes(bad)))
    assert "halted" in check(replace(r, halt="cycle_limit"))


def test_constant_time_check_follows_the_program():
    """The verify programs are in the constant-time check's kernel list; with their policy
    (everything public) they pass; with c_tilde declared secret the check finds
    SampleInBall's branch on it (so it follows the program through its subroutine calls)."""
    from ip.acc.tools import constant_time as ct, ct_cli, ct_data
    ks = ct_cli.kernels()
    for param in PARAMS:
        src_fn, pol_fn = ks[f"mldsa{param}_verify"]
        rep = ct.check(ct_data.Program.from_asm(src_fn()), pol_fn(), dmem_size=acc_block.DMEM_SIZE)
        assert rep.ok, rep.text()
    v = V.verify(87)
    pol = dict(v.ct_policy(), secret={"c_tilde": (v.CTIL, v.CTIL + 64)},
               public={"below": (0, v.CTIL)})
    rep = ct.check(ct_data.Program.from_asm(v.program()), pol, dmem_size=acc_block.DMEM_SIZE)
    assert any(f.kind == "branch" and f.text.startswith("bltu x13, x16, sib_b")
               for f in rep.failures), rep.text()
