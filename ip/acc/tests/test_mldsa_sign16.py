# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""ML-DSA-65 signing inside the taped-out memories (ip/acc/kernels/mldsa/sign16.py) on the
ISS with 16 KiB IMEM and DMEM (ip/acc/block.py): the signature equal to dilithium-py's
_sign_internal byte for byte and verified, the loop as many iterations as dilithium-py's
(final kappa = 5 x iterations). Two seeds: one accepted at once, one rejected at z, r0 and
the hint count; one public-API signature (context, rnd = 0) verified by OpenSSL through
the `cryptography` package. ML-DSA-44 by the same generator (signer(44)): two seeds (1 and 5
iterations, hedged), a deterministic signature with a context and an external-mu one, both
verified by OpenSSL, the length refusal, the peak DMEM and IMEM. ML-DSA-87 (signer(87), w
packed 24-bit, one A tile: plan(87)): the same cases (1 and 5 iterations), the options of
plan(87) and the packed multiply-accumulate against a model. A signature takes 1-10 s on
the ISS, so the cases are few; `python -m ip.acc.dv.jobs mldsa65_sign --program sign16`,
`mldsa44_sign` and `mldsa87_sign` sign many."""
import random

import pytest
from dilithium_py.ml_dsa import ML_DSA_65 as DSA

from ip.acc import block as acc_block
from ip.acc.dv.jobs import dsa_sign_stages
from ip.acc.iss import Iss
from ip.acc.kernels.mldsa import sign as sign32
from ip.acc.kernels.mldsa import sign16 as ms
from ip.acc.kernels.mldsa.sign16_plan import SIG_SETS, plan
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
    ML-DSA-87 does not in this layout (19 296 B: plan(87)["chosen"] is the one it uses)."""
    from dilithium_py.ml_dsa import ML_DSA_44, ML_DSA_65, ML_DSA_87
    for param, dsa in ((44, ML_DSA_44), (65, ML_DSA_65), (87, ML_DSA_87)):
        lam, g1bits, omega = SIG_SETS[param]
        assert (dsa.c_tilde_bytes, dsa.gamma_1, dsa.omega) == (lam // 4, 1 << g1bits, omega)
        pl = plan(param)
        pk, sk = dsa._keygen_internal(bytes(32))
        assert pl["sig_len"] == len(dsa._sign_internal(sk, b"", bytes(32)))
        assert pl["key_packed"] == len(sk) - 128
        spans = list(pl["regions"].values())
        assert all(a1 == b0 for (_, a1), (b0, _) in zip(spans, spans[1:]))
        print(f"\nML-DSA-{param}: peak DMEM {pl['END']} B, fits 16 KiB: {pl['fits']}")
    pl = plan(65)
    assert pl["END"] == ms.END and pl["regions"]["key: s1 | s2 | t0 packed"] == (ms.KEYP, ms.W)
    assert plan(44)["fits"] and not plan(87)["fits"]
    assert plan(87)["END"] - 8 * 416 <= acc_block.DMEM_SIZE


def test_sign16_plan_87():
    """plan(87): the options' peaks (the docstring states them); the only one that fits
    without a host protocol or a lane reversal is the chosen one, whose regions tile the
    DMEM without overlap up to its peak, which every phase stays within."""
    pl = plan(87)
    opts = {n: o["peak"] for n, o in pl["options"].items()}
    fitting = [n for n, o in pl["options"].items()
               if o["fits"] and not o["verdict"].startswith("rejected")]
    ch = pl["chosen"]
    assert fitting == [n for n in opts if n.startswith(ch["name"])]
    assert ch["fits"] and ch["END"] == max(ch["phases"].values()) <= acc_block.DMEM_SIZE
    spans = list(ch["regions"].values())
    assert spans[0][0] == 0 and spans[-1][1] == ch["END"]
    assert all(a1 == b0 for (_, a1), (b0, _) in zip(spans, spans[1:]))
    for p in sorted(set(opts.values()) | {ch["END"]}):
        assert f"{p // 1000} {p % 1000:03d}" in ms.__doc__, p
    # the packed w is 3/4 of the 32-bit one; the chosen W region holds k packed polys
    w0, w1 = ch["regions"]["W (w packed 24-bit)"]
    assert w1 - w0 == 8 * 768


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


# ------------------------------------------------------------------ ML-DSA-44
S44 = ms.signer(44)
WORDS44 = assemble(S44.program(), "mldsa44_sign16.s")


def _run44(img, dmem_size=acc_block.DMEM_SIZE, imem_size=acc_block.IMEM_SIZE, words=WORDS44):
    sim = Iss(dmem_size=dmem_size, imem_size=imem_size)
    sim.load_program(words)
    for a, b in img.items():
        sim.dmem.write_bytes(a, b)
    h = sim.run(max_cycles=10_000_000)
    assert h.ok, h
    return sim, h


def _sign44(sk, msg, r, **kw):
    sim, h = _run44(S44.image(sk, msg, r), **kw)
    assert sim.dmem.read_bytes(ms.STATUS, 4) == sign32.STATUS_OK.to_bytes(4, "little")
    kappa = int.from_bytes(sim.dmem.read_bytes(ms.KAPPA, 4), "little")
    return sim.dmem.read_bytes(S44.SIG, S44.SIG_LEN), kappa, h


# seed -> dilithium-py's ML-DSA-44 stages: accepted at once; rejected at r0, z, the hint
# count and z again (5 iterations)
CASES44 = {0: ["ok"], 15: ["r0", "z", "hint", "z", "ok"]}


@pytest.mark.parametrize("seed", sorted(CASES44))
def test_sign16_44(seed):
    """ML-DSA-44 Sign_internal (hedged: a random rnd) in the taped-out memories: the
    signature equal to dilithium-py's byte for byte and verified, kappa = 4 x iterations."""
    from dilithium_py.ml_dsa import ML_DSA_44
    rnd = random.Random(seed)
    pk, sk = ML_DSA_44._keygen_internal(rnd.randbytes(32))
    msg, r = rnd.randbytes(45), rnd.randbytes(32)
    st, ref = dsa_sign_stages(sk, msg, r, 44)
    assert st == CASES44[seed]
    # the IMEM cut to the program (the DMEM is all 16 KiB: the end wipe covers all of it;
    # the data's peak is END, test_sign16_44_fits)
    sig, kappa, h = _sign44(sk, msg, r, imem_size=4 * len(WORDS44))
    assert sig == ref and ML_DSA_44._verify_internal(pk, msg, sig)
    assert kappa == 4 * len(st)
    print(f"\nML-DSA-44 sign (16 KiB): {h.cycles} cycles, {len(st)} iterations {st}, "
          f"IMEM {4 * len(WORDS44)} B, peak DMEM {S44.END} B")


def test_sign16_44_cryptography():
    """ML-DSA-44 with a context, deterministic (rnd = 0): the host formats M' = 0 ||
    len(ctx) || ctx || M; the signature equals dilithium-py's ML_DSA_44.sign and OpenSSL
    (the `cryptography` package) verifies it with the public key from the same seed, and
    rejects another context."""
    mldsa = pytest.importorskip("cryptography.hazmat.primitives.asymmetric.mldsa")
    from dilithium_py.ml_dsa import ML_DSA_44
    xi = random.Random(244).randbytes(32)
    _, sk = ML_DSA_44._keygen_internal(xi)
    m, ctx = b"pqsoc ACC, ML-DSA-44 in 16 KiB", b"ctx44"
    sig, _, _ = _sign44(sk, bytes([0, len(ctx)]) + ctx + m, bytes(32))
    assert sig == ML_DSA_44.sign(sk, m, ctx, deterministic=True)
    pub = mldsa.MLDSA44PrivateKey.from_seed_bytes(xi).public_key()
    pub.verify(sig, m, ctx)                                   # raises if invalid
    with pytest.raises(Exception):
        pub.verify(sig, m, b"other")


def test_sign16_44_external_mu():
    """Sign16(44).program(external_mu=True): mu from OpenSSL's MLDSAMuHasher over an M
    beyond MSG_MAX; OpenSSL verifies the signature."""
    mldsa = pytest.importorskip("cryptography.hazmat.primitives.asymmetric.mldsa")
    from dilithium_py.ml_dsa import ML_DSA_44
    xi = random.Random(245).randbytes(32)
    _, sk = ML_DSA_44._keygen_internal(xi)
    pub = mldsa.MLDSA44PrivateKey.from_seed_bytes(xi).public_key()
    m, ctx = random.Random(246).randbytes(12_000), b"pqsoc"
    assert len(m) > S44.MSG_MAX
    hasher = mldsa.MLDSAMuHasher(pub, ctx)
    hasher.update(m)
    words = assemble(S44.program(external_mu=True), "mldsa44_sign16_mu.s")
    assert 4 * len(words) <= acc_block.IMEM_SIZE
    sim, _ = _run44(S44.image(sk, b"", bytes(32), mu=hasher.finalize()), words=words)
    sig = sim.dmem.read_bytes(S44.SIG, S44.SIG_LEN)
    assert sig == ML_DSA_44.sign(sk, m, ctx, deterministic=True)
    pub.verify(sig, m, ctx)


def test_sign16_44_refuses_long_message():
    """A length word beyond MSG_MAX: STATUS_MSG_LENGTH, nothing hashed, DMEM (the key
    included) wiped; the host-side image refuses a too-long M' and a wrong key length."""
    from dilithium_py.ml_dsa import ML_DSA_44
    _, sk = ML_DSA_44._keygen_internal(bytes(32))
    for mlen in (S44.MSG_MAX + 1, 0xFFFFFFFF):
        sim, h = _run44(S44.image(sk, b"abc", bytes(32), mlen=mlen))
        assert sim.dmem.read_bytes(ms.STATUS, 4) == \
            sign32.STATUS_MSG_LENGTH.to_bytes(4, "little")
        assert sim.dmem.read_bytes(ms.MU, 64) == bytes(64) and h.cycles < 100 + ms.DMEM // 32
        assert sim.dmem.read_bytes(S44.SK, S44.SK_LEN) == bytes(S44.SK_LEN)
    with pytest.raises(ValueError, match="exceeds"):
        S44.image(sk, bytes(S44.MSG_MAX + 1), bytes(32))
    with pytest.raises(ValueError, match="sk must be 2560"):
        S44.image(sk[:-1], b"", bytes(32))


def test_sign16_44_peak_dmem():
    """The program without its end wipe (which covers all 16 KiB) runs in a DMEM cut to END
    (any access past the peak is an ISS error) and gives dilithium-py's signature."""
    from dilithium_py.ml_dsa import ML_DSA_44
    ph = S44.phases()
    assert ph[-1][0].startswith("wipe")
    lines = [x for _, body in ph[:-1] for x in body]
    src = S44.program()
    tail = src[src.index("\necall\nsign_next:") + 1:]
    words = assemble("\n".join(ms.sched.schedule(lines)) + "\n" + tail, "nowipe44.s")
    rnd = random.Random(15)
    _, sk = ML_DSA_44._keygen_internal(rnd.randbytes(32))
    msg, r = rnd.randbytes(45), rnd.randbytes(32)
    sim, _ = _run44(S44.image(sk, msg, r), dmem_size=S44.END, words=words)
    assert sim.dmem.read_bytes(S44.SIG, S44.SIG_LEN) == ML_DSA_44._sign_internal(sk, msg, r)


def test_sign16_44_fits():
    """ML-DSA-44: IMEM <= 16 KiB, peak DMEM = plan(44)'s END <= 16 KiB (the docstring
    states both), the key and signature sizes dilithium-py's."""
    from dilithium_py.ml_dsa import ML_DSA_44
    assert 4 * len(WORDS44) <= acc_block.IMEM_SIZE and S44.END <= acc_block.DMEM_SIZE
    assert S44.END == plan(44)["END"]
    assert (S44.KEYP, S44.W) == plan(44)["regions"]["key: s1 | s2 | t0 packed"]
    _, sk = ML_DSA_44._keygen_internal(bytes(32))
    assert len(sk) == S44.SK_LEN and S44.SIG_LEN == plan(44)["sig_len"] == 2420
    assert S44.SK + S44.SK_LEN == S44.W and S44.MSG + S44.MSG_MAX == ms.DMEM
    assert S44.SIG + S44.SIG_LEN + S44.SIG_PAD <= S44.YJ and S44.YB >= S44.TILE + 1024
    assert f"| {4 * len(WORDS44) // 1000} {4 * len(WORDS44) % 1000:03d} | " \
        f"{S44.END // 1000} {S44.END % 1000:03d} |" in ms.__doc__


# ------------------------------------------------------------------ ML-DSA-87: building blocks
def _run_lines(lines, img):
    sim = Iss(dmem_size=acc_block.DMEM_SIZE, imem_size=acc_block.IMEM_SIZE)
    sim.load_program(assemble("\n".join(ms.sched.schedule(lines + ["ecall"])) + "\n", "b.s"))
    for a, b in img.items():
        sim.dmem.write_bytes(a, b)
    h = sim.run(max_cycles=100_000)
    assert h.ok, h
    return sim, h.cycles


def _u32(v):
    return b"".join(x.to_bytes(4, "little") for x in v)


def test_mac_acc24():
    """plan(87)'s w packed 24-bit: products.mac_acc24_body (w += A o y_hat x 2^-32 with w
    read and written packed) equals the model on random operands; the cycles of one
    entry against the 32-bit accumulate (mac_acc_body) and of one uni23 entry sampled
    alone are the figures plan(87) states."""
    from ip.acc.kernels.asm_util import li, loop
    from ip.acc.kernels.mldsa import products as pr
    from ip.acc.kernels.mldsa.layout import RHO, VMODE1
    from ip.acc.kernels.sample import SHAKE128, start
    Q = 8380417
    tile, yj, w, c = 4096, 5120, 6144, 8192
    rnd = random.Random(87)
    a, y, w0 = ([rnd.randrange(Q) for _ in range(256)] for _ in range(3))
    w0[0], w0[255], a[1], y[1] = Q - 1, Q - 1, Q - 1, Q - 1
    assert pr.unpack24(pr.pack24(w0)) == w0
    img = {tile: _u32(a), yj: _u32(y), c: b"".join(_u32(x) for x in pr.pack24_consts())}
    head = VMODE1 + li(10, tile) + li(15, yj) + li(20, w) + li(23, w)
    _, base = _run_lines(VMODE1 + li(10, tile) + li(15, yj) + li(20, w) + li(23, w), {})
    sim, cyc24 = _run_lines(head + [f"bn.lw w14, {c}(x0)", f"bn.lw w15, {c + 32}(x0)"] +
                            loop(8, pr.mac_acc24_body()), {**img, w: pr.pack24(w0)})
    rinv = pow(2, -32, Q)
    assert pr.unpack24(sim.dmem.read_bytes(w, 768)) == \
        [(x + p * q * rinv) % Q for x, p, q in zip(w0, a, y)]
    sim, cyc32 = _run_lines(head + loop(8, pr.mac_acc_body()), {**img, w: _u32(w0)})
    assert _words(sim.dmem.read_bytes(w, 1024)) == \
        [(x + p * q * rinv) % Q for x, p, q in zip(w0, a, y)]
    _, smp = _run_lines(VMODE1 + ["kmac.acq", "addi x21, x0, 0"] +
                        start(SHAKE128, RHO, 0, 2, tile, "uni23", suffix_base="x21") +
                        ["smp.wait", "kmac.rel"], {RHO: rnd.randbytes(32)})
    _, vm = _run_lines(VMODE1, {})
    costs = {"mac32": cyc32 - base - 2, "mac24": cyc24 - base - 2, "sample": smp - vm}
    print(f"\nper A entry: {costs}")
    assert costs == plan(87)["chosen"]["entry_cycles"]


def _words(blob):
    return [int.from_bytes(blob[4 * i:4 * i + 4], "little") for i in range(len(blob) // 4)]


# ------------------------------------------------------------------ ML-DSA-87
S87 = ms.signer(87)
WORDS87 = assemble(S87.program(), "mldsa87_sign16.s")


def _sign87(sk, msg, r, words=WORDS87, **kw):
    sim, h = _run44(S87.image(sk, msg, r), words=words, **kw)
    assert sim.dmem.read_bytes(ms.STATUS, 4) == sign32.STATUS_OK.to_bytes(4, "little")
    kappa = int.from_bytes(sim.dmem.read_bytes(ms.KAPPA, 4), "little")
    return sim.dmem.read_bytes(S87.SIG, S87.SIG_LEN), kappa, h


# seed -> dilithium-py's ML-DSA-87 stages: accepted at once; rejected at r0 three times
# and at z (5 iterations)
CASES87 = {3: ["ok"], 2: ["r0", "r0", "r0", "z", "ok"]}


@pytest.mark.parametrize("seed", sorted(CASES87))
def test_sign16_87(seed):
    """ML-DSA-87 Sign_internal (hedged) in the taped-out memories on plan(87)'s layout (w
    packed 24-bit, one A tile): the signature equal to dilithium-py's byte for byte and
    verified, kappa = 7 x iterations, the IMEM cut to the program."""
    from dilithium_py.ml_dsa import ML_DSA_87
    rnd = random.Random(seed)
    pk, sk = ML_DSA_87._keygen_internal(rnd.randbytes(32))
    msg, r = rnd.randbytes(45), rnd.randbytes(32)
    st, ref = dsa_sign_stages(sk, msg, r, 87)
    assert st == CASES87[seed]
    sig, kappa, h = _sign87(sk, msg, r, imem_size=4 * len(WORDS87))
    assert sig == ref and ML_DSA_87._verify_internal(pk, msg, sig)
    assert kappa == 7 * len(st)
    print(f"\nML-DSA-87 sign (16 KiB): {h.cycles} cycles, {len(st)} iterations {st}, "
          f"IMEM {4 * len(WORDS87)} B, peak DMEM {S87.END} B")


def test_sign16_87_cryptography():
    """ML-DSA-87 with a context, deterministic (rnd = 0): M' = 0 || len(ctx) || ctx || M
    formatted by the host; equal to dilithium-py's ML_DSA_87.sign; OpenSSL verifies it
    with the public key from the same seed and rejects another context."""
    mldsa = pytest.importorskip("cryptography.hazmat.primitives.asymmetric.mldsa")
    from dilithium_py.ml_dsa import ML_DSA_87
    xi = random.Random(287).randbytes(32)
    _, sk = ML_DSA_87._keygen_internal(xi)
    m, ctx = b"pqsoc ACC, ML-DSA-87 in 16 KiB", b"ctx87"
    sig, _, _ = _sign87(sk, bytes([0, len(ctx)]) + ctx + m, bytes(32))
    assert sig == ML_DSA_87.sign(sk, m, ctx, deterministic=True)
    pub = mldsa.MLDSA87PrivateKey.from_seed_bytes(xi).public_key()
    pub.verify(sig, m, ctx)                                   # raises if invalid
    with pytest.raises(Exception):
        pub.verify(sig, m, b"other")


def test_sign16_87_external_mu():
    """Sign16(87).program(external_mu=True): mu from OpenSSL's MLDSAMuHasher over an M
    beyond MSG_MAX; OpenSSL verifies the signature."""
    mldsa = pytest.importorskip("cryptography.hazmat.primitives.asymmetric.mldsa")
    from dilithium_py.ml_dsa import ML_DSA_87
    xi = random.Random(288).randbytes(32)
    _, sk = ML_DSA_87._keygen_internal(xi)
    pub = mldsa.MLDSA87PrivateKey.from_seed_bytes(xi).public_key()
    m, ctx = random.Random(289).randbytes(10_000), b"pqsoc"
    assert len(m) > S87.MSG_MAX
    hasher = mldsa.MLDSAMuHasher(pub, ctx)
    hasher.update(m)
    words = assemble(S87.program(external_mu=True), "mldsa87_sign16_mu.s")
    assert 4 * len(words) <= acc_block.IMEM_SIZE
    sim, _ = _run44(S87.image(sk, b"", bytes(32), mu=hasher.finalize()), words=words)
    sig = sim.dmem.read_bytes(S87.SIG, S87.SIG_LEN)
    assert sig == ML_DSA_87.sign(sk, m, ctx, deterministic=True)
    pub.verify(sig, m, ctx)


def test_sign16_87_refuses_long_message():
    """A length word beyond MSG_MAX: STATUS_MSG_LENGTH, nothing hashed, DMEM (the key
    included) wiped; the host-side image refuses a too-long M' and a wrong key length."""
    from dilithium_py.ml_dsa import ML_DSA_87
    _, sk = ML_DSA_87._keygen_internal(bytes(32))
    for mlen in (S87.MSG_MAX + 1, 0xFFFFFFFF):
        sim, h = _run44(S87.image(sk, b"abc", bytes(32), mlen=mlen), words=WORDS87)
        assert sim.dmem.read_bytes(ms.STATUS, 4) == \
            sign32.STATUS_MSG_LENGTH.to_bytes(4, "little")
        assert sim.dmem.read_bytes(ms.MU, 64) == bytes(64) and h.cycles < 100 + ms.DMEM // 32
        assert sim.dmem.read_bytes(S87.SK, S87.SK_LEN) == bytes(S87.SK_LEN)
    with pytest.raises(ValueError, match="exceeds"):
        S87.image(sk, bytes(S87.MSG_MAX + 1), bytes(32))
    with pytest.raises(ValueError, match="sk must be 4896"):
        S87.image(sk[:-1], b"", bytes(32))
    with pytest.raises(ValueError, match="44, 65 or 87"):
        ms.Sign16(66)


def test_sign16_87_peak_dmem():
    """The program without its end wipe (which covers all 16 KiB) runs in a DMEM cut to END
    (any access past the peak is an ISS error) and gives dilithium-py's signature (seed 2:
    5 iterations, rejected at r0 and z)."""
    from dilithium_py.ml_dsa import ML_DSA_87
    ph = S87.phases()
    assert ph[-1][0].startswith("wipe")
    lines = [x for _, body in ph[:-1] for x in body]
    src = S87.program()
    tail = src[src.index("\necall\nsign_next:") + 1:]
    words = assemble("\n".join(ms.sched.schedule(lines)) + "\n" + tail, "nowipe87.s")
    rnd = random.Random(2)
    _, sk = ML_DSA_87._keygen_internal(rnd.randbytes(32))
    msg, r = rnd.randbytes(45), rnd.randbytes(32)
    sim, _ = _run44(S87.image(sk, msg, r), dmem_size=S87.END, words=words)
    assert sim.dmem.read_bytes(S87.SIG, S87.SIG_LEN) == ML_DSA_87._sign_internal(sk, msg, r)


def test_sign16_87_fits():
    """ML-DSA-87: IMEM <= 16 KiB, peak DMEM = plan(87)['chosen'] END (the docstring states
    both), the key and signature sizes dilithium-py's, the regions as planned."""
    from dilithium_py.ml_dsa import ML_DSA_87
    assert 4 * len(WORDS87) <= acc_block.IMEM_SIZE and S87.END <= acc_block.DMEM_SIZE
    ch = plan(87)["chosen"]
    assert S87.END == ch["END"] and (S87.KEYP, S87.W) == ch["regions"]["key"]
    assert (S87.W, S87.YJ) == ch["regions"]["W (w packed 24-bit)"]
    _, sk = ML_DSA_87._keygen_internal(bytes(32))
    assert len(sk) == S87.SK_LEN and S87.SIG_LEN == plan(87)["sig_len"] == 4627
    assert S87.SK + S87.SK_LEN == S87.W and S87.MSG + S87.MSG_MAX == ms.DMEM
    assert S87.SIG + S87.SIG_LEN + S87.SIG_PAD <= S87.YB and S87.YB + 1024 <= S87.HB
    assert f"| {4 * len(WORDS87) // 1000} {4 * len(WORDS87) % 1000:03d} | " \
        f"{S87.END // 1000} {S87.END % 1000:03d} |" in ms.__doc__


# ------------------------------------------------------------------ pack.py (bn.pk)
@pytest.mark.parametrize("param", [44, 87])
def test_highbits_mulhi_exact(param):
    """pack.py's HighBits: t = bits 11.. of mulv.hi(r + gamma2 - 1, layout.hb_mult) for every
    r in [0, q) is FIPS 204 HighBits (Alg. 36) with t = m at the q - 1 wrap only; for
    gamma2 = (q-1)/32 (65, 87) the low 4 bits bn.pk keeps are HighBits itself."""
    import numpy as np
    from ip.acc.kernels.mldsa import params
    from ip.acc.kernels.mldsa.layout import hb_mult
    q, g2 = params.Q, params.FULL[param]["gamma2"]
    alpha, m = 2 * g2, (params.Q - 1) // (2 * g2)
    r = np.arange(q, dtype=np.int64)
    t = (((r + g2 - 1) * hb_mult(g2)) >> 32) >> 11
    r0 = r % alpha
    r0 = np.where(r0 > g2, r0 - alpha, r0)
    r1 = np.where(r - r0 == q - 1, 0, (r - r0) // alpha)
    assert ((t == r1) | ((t == m) & (r1 == 0))).all() and (t <= m).all()
    if m == 16:
        assert ((t & 15) == r1).all()
