"""ML-DSA-65 signing inside the taped-out memories (ip/acc/kernels/mldsa/sign16.py) on the
ISS with 16 KiB IMEM and DMEM (ip/acc/block.py): the signature equal to dilithium-py's
_sign_internal byte for byte and verified, the loop as many iterations as dilithium-py's
(final kappa = 5 x iterations). Two seeds: one accepted at once, one rejected at z, r0 and
the hint count; one public-API signature (context, rnd = 0) verified by OpenSSL through
the `cryptography` package. A signature takes 1-6 s on the ISS, so the cases are few;
`python -m ip.acc.dv.jobs mldsa65_sign --program sign16` signs many."""
import random

import pytest
from dilithium_py.ml_dsa import ML_DSA_65 as DSA

from ip.acc import block as acc_block
from ip.acc.dv.jobs import dsa_sign_stages
from ip.acc.iss import Iss
from ip.acc.kernels.mldsa import sign as sign32
from ip.acc.kernels.mldsa import sign16 as ms
from ip.acc.tools.asm import assemble

WORDS = assemble(ms.sign_program(), "mldsa_sign16.s")


def _run(img, dmem_size=acc_block.DMEM_SIZE, imem_size=acc_block.IMEM_SIZE):
    sim = Iss(dmem_size=dmem_size, imem_size=imem_size)
    sim.load_program(WORDS)
    for a, b in img.items():
        sim.dmem.write_bytes(a, b)
    h = sim.run(max_cycles=5_000_000)
    assert h.ok, h
    return sim, h


def _sign(sk, msg, r, **kw):
    sim, h = _run(ms.image(sk, msg, r), **kw)
    assert sim.dmem.read_bytes(ms.STATUS, 4) == sign32.STATUS_OK.to_bytes(4, "little")
    kappa = int.from_bytes(sim.dmem.read_bytes(ms.KAPPA, 4), "little")
    return sim.dmem.read_bytes(ms.SIG, ms.SIG_LEN), kappa, h


def _case(seed, msg_len=45):
    rnd = random.Random(seed)
    pk, sk = DSA._keygen_internal(rnd.randbytes(32))
    return pk, sk, rnd.randbytes(msg_len), rnd.randbytes(32)


# seed -> dilithium-py's stages (checked, so a changed reference shows up)
CASES = {4: ["ok"], 33: ["z", "r0", "z", "z", "z", "hint", "ok"]}


@pytest.mark.parametrize("seed", sorted(CASES))
def test_sign16(seed):
    pk, sk, msg, r = _case(seed)
    st, ref = dsa_sign_stages(sk, msg, r)
    assert st == CASES[seed]
    # the DMEM cut to the program's peak (END) and the IMEM to the program: both fit
    sig, kappa, h = _sign(sk, msg, r, dmem_size=ms.END, imem_size=4 * len(WORDS))
    assert sig == ref and DSA._verify_internal(pk, msg, sig)
    assert kappa == 5 * len(st)
    print(f"\nML-DSA-65 sign (16 KiB): {h.cycles} cycles, {len(st)} iterations {st}, "
          f"IMEM {4 * len(WORDS)} B, peak DMEM {ms.END} B")


def test_sign16_cryptography():
    """ML_DSA_65.sign (FIPS 204 Alg. 2, rnd = 0) with a context: the host formats
    M' = 0 || len(ctx) || ctx || M, the program signs it; OpenSSL (the `cryptography`
    package) verifies with the public key from the same seed, and rejects another
    context."""
    mldsa = pytest.importorskip("cryptography.hazmat.primitives.asymmetric.mldsa")
    xi = random.Random(202).randbytes(32)
    _, sk = DSA._keygen_internal(xi)
    m, ctx = b"pqsoc ACC, 16 KiB signer", b"ctx"
    sig, _, _ = _sign(sk, bytes([0, len(ctx)]) + ctx + m, bytes(32))
    assert sig == DSA.sign(sk, m, ctx, deterministic=True)
    pub = mldsa.MLDSA65PrivateKey.from_seed_bytes(xi).public_key()
    pub.verify(sig, m, ctx)                                   # raises if invalid
    with pytest.raises(Exception):
        pub.verify(sig, m, b"other")


def test_sign16_refuses_long_message():
    """A length word beyond MSG_MAX: STATUS = 1, nothing hashed or signed, DMEM wiped but
    the status word (the key too; test_mldsa_wipe.py checks every byte and register);
    MSG_MAX itself is accepted as far as the length check (mu of an MSG_MAX-byte M'
    equals dilithium-py's)."""
    _, sk, _, r = _case(5)
    msg = bytes(range(256)) * (ms.MSG_MAX // 256) + bytes(ms.MSG_MAX % 256)
    for mlen in (ms.MSG_MAX + 1, 0xFFFFFFFF):
        sim, h = _run(ms.image(sk, msg, r, mlen=mlen))
        assert sim.dmem.read_bytes(ms.STATUS, 4) == (1).to_bytes(4, "little")
        assert sim.dmem.read_bytes(ms.MU, 64) == bytes(64) and h.cycles < 100 + ms.DMEM // 32
        assert sim.dmem.read_bytes(ms.SK, ms.SK_LEN) == bytes(ms.SK_LEN)
    # the pre-loop alone (hash phases) on the longest M'
    lines = []
    for _, body in ms.sign_phases()[:3]:
        lines += body
    sim = Iss(dmem_size=acc_block.DMEM_SIZE, imem_size=acc_block.IMEM_SIZE)
    sim.load_program(assemble("\n".join(lines + ["ecall"]) + "\n", "pre.s"))
    for a, b in ms.image(sk, msg, r).items():
        sim.dmem.write_bytes(a, b)
    assert sim.run(max_cycles=100_000).ok
    # accepted by the length check, not yet signed
    assert sim.dmem.read_bytes(ms.STATUS, 4) == sign32.STATUS_NOT_RUN.to_bytes(4, "little")
    tr = DSA._unpack_sk(sk)[2]
    assert sim.dmem.read_bytes(ms.MU, 64) == DSA._h(tr + msg, 64)


def test_sign16_fits():
    """IMEM and peak DMEM within block.py's memories; the docstring states the real peak;
    the regions of the layout do not overlap."""
    assert 4 * len(WORDS) <= acc_block.IMEM_SIZE and ms.END <= acc_block.DMEM_SIZE
    assert ms.DMEM == acc_block.DMEM_SIZE
    assert f"peak = END = {ms.END // 1000} {ms.END % 1000:03d}" in ms.__doc__
    regions = [(0, 256), (256, ms.XC), (ms.XC, ms.TILE2), (ms.TILE2, ms.KEYP),
               (ms.KEYP, ms.W), (ms.W, ms.YJ), (ms.YJ, ms.TILE), (ms.TILE, ms.END)]
    for (a0, a1), (b0, b1) in zip(regions, regions[1:]):
        assert a0 < a1 <= b0 < b1
    # TILE2 covers only per-iteration scratch and the key's head (dead in the loop)
    assert ms.TILE2 == ms.XAREA["HB"] and ms.CNT + 32 <= ms.SK < ms.KEYP == ms.TILE2 + 1024
    assert ms.SK + ms.SK_LEN == ms.W and ms.SB + 1024 <= ms.YJ and ms.MSG + ms.MSG_MAX == ms.DMEM


def test_sign16_plan_per_set():
    """plan(): the 65 plan is the program's layout; the sets' signature-side parameters
    and the signature / packed key sizes equal dilithium-py's; ML-DSA-44 fits 16 KiB,
    ML-DSA-87 does not (19 296 B: a 20 KiB DMEM, or t0 streamed by the host instead of
    kept, 15 968 B)."""
    from dilithium_py.ml_dsa import ML_DSA_44, ML_DSA_65, ML_DSA_87
    for param, dsa in ((44, ML_DSA_44), (65, ML_DSA_65), (87, ML_DSA_87)):
        lam, g1bits, omega = ms.SIG_SETS[param]
        assert (dsa.c_tilde_bytes, dsa.gamma_1, dsa.omega) == (lam // 4, 1 << g1bits, omega)
        pl = ms.plan(param)
        pk, sk = dsa._keygen_internal(bytes(32))
        assert pl["sig_len"] == len(dsa._sign_internal(sk, b"", bytes(32)))
        assert pl["key_packed"] == len(sk) - 128
        spans = list(pl["regions"].values())
        assert all(a1 == b0 for (_, a1), (b0, _) in zip(spans, spans[1:]))
        print(f"\nML-DSA-{param}: peak DMEM {pl['END']} B, fits 16 KiB: {pl['fits']}")
    pl = ms.plan(65)
    assert pl["END"] == ms.END and pl["regions"]["key: s1 | s2 | t0 packed"] == (ms.KEYP, ms.W)
    assert ms.plan(44)["fits"] and not ms.plan(87)["fits"]
    assert ms.plan(87)["END"] - 8 * 416 <= acc_block.DMEM_SIZE


def test_sign16_external_mu():
    """sign_program(external_mu=True): the host gives mu (here OpenSSL's MLDSAMuHasher over
    a 20 000-byte M, beyond MSG_MAX, with a context), the program signs with rnd = 0; the
    signature equals dilithium-py's deterministic one and OpenSSL verifies it."""
    mldsa = pytest.importorskip("cryptography.hazmat.primitives.asymmetric.mldsa")
    xi = random.Random(203).randbytes(32)
    _, sk = DSA._keygen_internal(xi)
    pub = mldsa.MLDSA65PrivateKey.from_seed_bytes(xi).public_key()
    m, ctx = random.Random(204).randbytes(20_000), b"pqsoc"
    assert len(m) > ms.MSG_MAX
    hasher = mldsa.MLDSAMuHasher(pub, ctx)
    hasher.update(m)
    mu = hasher.finalize()
    tr = DSA._unpack_sk(sk)[2]
    assert mu == DSA._h(tr + bytes([0, len(ctx)]) + ctx + m, 64)
    sim = Iss(dmem_size=acc_block.DMEM_SIZE, imem_size=acc_block.IMEM_SIZE)
    words = assemble(ms.sign_program(external_mu=True), "mldsa_sign16_mu.s")
    assert 4 * len(words) <= acc_block.IMEM_SIZE
    sim.load_program(words)
    for a, b in ms.image(sk, b"", bytes(32), mu=mu).items():
        sim.dmem.write_bytes(a, b)
    assert sim.run(max_cycles=5_000_000).ok
    sig = sim.dmem.read_bytes(ms.SIG, ms.SIG_LEN)
    assert sig == DSA.sign(sk, m, ctx, deterministic=True)
    pub.verify(sig, m, ctx)
