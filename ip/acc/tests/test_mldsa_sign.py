# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""ML-DSA-65 signing as one ACC program (ip/acc/kernels/mldsa/sign.py) on the ISS: the
signature must equal dilithium-py's _sign_internal byte for byte (same sk, M', rnd) and
verify; the loop must run as many iterations as dilithium-py's (final kappa = 5 x
iterations). Seeds chosen from dilithium-py's iteration stages (ip.acc.dv.jobs's
dsa_sign_stages): one accepted at once, one rejected at z and at r0 first, one with a
rejection by the hint count. The ISS runs ~30 k cycles/s here (a signature 1.5-15 s), so
the cases are few; ip/acc/dv/jobs.py (`python -m ip.acc.dv.jobs mldsa65_sign`) signs many."""
import random

import pytest
from dilithium_py.ml_dsa import ML_DSA_65

from ip.acc.dv.jobs import dsa_sign_stages
from ip.acc.kernels.mldsa import layout, params
from ip.acc.kernels.mldsa import sign as ms
from ip.acc.tools.asm import assemble
from ip.acc.tests.iss_util import phase_cycles, run_image

DSA = ML_DSA_65
SRC = ms.sign_program()


def _case(seed, msg_len=45):
    rnd = random.Random(seed)
    pk, sk = DSA._keygen_internal(rnd.randbytes(32))
    return pk, sk, rnd.randbytes(msg_len), rnd.randbytes(32)


def _sign(sk, msg, r):
    sim, h, imem = run_image(SRC, ms.image(sk, msg, r), 5_000_000, "mldsa_sign.s")
    assert h.ok, h
    kappa = int.from_bytes(sim.dmem.read_bytes(ms.KAPPA, 4), "little")
    return sim.dmem.read_bytes(ms.SIG, ms.SIG_LEN), kappa, h, imem


# seed -> dilithium-py's stages (checked below, so a changed reference shows up)
CASES = {4: ["ok"], 13: ["r0", "z", "ok"], 33: ["z", "r0", "z", "z", "z", "hint", "ok"]}


@pytest.mark.parametrize("seed", sorted(CASES))
def test_sign(seed):
    pk, sk, msg, r = _case(seed)
    st, ref = dsa_sign_stages(sk, msg, r)
    assert st == CASES[seed]
    sig, kappa, h, imem = _sign(sk, msg, r)
    assert sig == ref
    assert DSA._verify_internal(pk, msg, sig)
    assert kappa == 5 * len(st)
    print(f"\nML-DSA-65 sign: {h.cycles} cycles, {len(st)} iterations {st}, IMEM {imem} B")


def test_sign_public_api():
    """ML_DSA_65.sign (FIPS 204 Alg. 2, deterministic: rnd = 0) with a context string: the
    host formats M' = 0 || len(ctx) || ctx || M, the program signs it; dilithium-py's
    public verify accepts the signature with the same context."""
    rnd = random.Random(201)
    pk, sk = DSA._keygen_internal(rnd.randbytes(32))
    m, ctx = rnd.randbytes(100), b"pqsoc ACC test"
    ref = DSA.sign(sk, m, ctx, deterministic=True)
    sig, kappa, h, _ = _sign(sk, bytes([0, len(ctx)]) + ctx + m, bytes(32))
    assert sig == ref and kappa == 5
    assert DSA.verify(pk, m, sig, ctx) and not DSA.verify(pk, m, sig, b"other")


def _pre_only(sk, msg, r):
    """The pre-loop phases alone (mu, rho'', rho, skDecode + NTT of s1, s2)."""
    lines = []
    for _, body in ms.pre_phases():
        lines += body
    sim, h, _ = run_image("\n".join(lines + ["ecall"]) + "\n", ms.image(sk, msg, r),
                          100_000, "pre.s")
    assert h.ok, h
    return sim, h


def _vec(v):
    return [[c % params.Q for c in p.coeffs] for row in v.rows() for p in row]


@pytest.mark.parametrize("msg_len", [0, 1, 31, 32, 64, 95, 1000, ms.MSG_MAX])
def test_pre_loop(msg_len):
    """mu and rho'' for M' lengths around the 32-byte word and the 136-byte rate, and
    the decoded s1_hat / s2_hat, against dilithium-py."""
    pk, sk, msg, r = _case(100 + msg_len, msg_len)
    sim, h = _pre_only(sk, msg, r)
    rho, key, tr, s1, s2, t0 = DSA._unpack_sk(sk)
    mu = DSA._h(tr + msg, 64)
    assert sim.dmem.read_bytes(ms.MU, 64) == mu
    assert sim.dmem.read_bytes(ms.RHOPP, 64) == DSA._h(key + r + mu, 64)
    assert sim.dmem.read_bytes(ms.RHO, 32) == rho
    assert sim.dmem.read_bytes(ms.KAPPA, 4) == bytes(4)
    got = [layout.read_poly(sim.dmem.read_bytes(ms.S1H + 1024 * k, 1024)) for k in range(5)]
    assert got == _vec(s1.to_ntt())
    got = [layout.read_poly(sim.dmem.read_bytes(ms.S2H + 1024 * k, 1024)) for k in range(6)]
    assert got == _vec(s2.to_ntt())
    print(f"\npre-loop (M' {msg_len} B): {h.cycles} cycles")


def test_fits():
    """IMEM and DMEM within 32 KiB; the docstring's layout table states the real peak and
    the regions of the table do not overlap."""
    assert len(assemble(SRC, "mldsa_sign.s")) * 4 <= 32 * 1024
    assert ms.END <= 32 * 1024
    assert f"peak = END = {ms.END // 1000} {ms.END % 1000:03d}" in ms.__doc__
    regions = [(0, 256), (layout.TWID, ms.CTIL), (ms.CTIL, ms.MC), (ms.MC, ms.CNT + 32),
               (ms.S1H, ms.S2H), (ms.S2H, ms.YH), (ms.YH, ms.ABUF), (ms.ABUF, ms.W),
               (ms.W, ms.T0P), (ms.T0P, ms.T0P + 6 * 416), (ms.T0P + 6 * 416, ms.END)]
    for (a0, a1), (b0, b1) in zip(regions, regions[1:]):
        assert a0 < a1 <= b0 < b1
    assert ms.SIG + ms.SIG_LEN <= ms.ABUF and ms.SK + ms.SK_LEN == ms.T0P + 6 * 416


def test_sign_phases():
    """Per-phase cycles of a signature accepted in its first iteration (seed 4): prefix
    runs of sign_phases(), each phase's cost = difference of cumulative counts (the table
    of doc/architecture.md 3.4)."""
    pk, sk, msg, r = _case(4)
    img = ms.image(sk, msg, r)
    # a prefix may end with the KMAC port held: kmac.rel is harmless when it is not
    rows, prev, sim = phase_cycles(ms.sign_phases(),
                                   lambda src: run_image(src, img, 5_000_000, "prefix.s"),
                                   tail=("kmac.rel", "ecall"))
    print("\nML-DSA-65 sign phases (ISS cycles, one iteration):")
    for name, n in rows:
        print(f"  {n:6d}  {name}")
    print(f"  {prev:6d}  total")
    sig = sim.dmem.read_bytes(ms.SIG, ms.SIG_LEN)
    assert sig == dsa_sign_stages(sk, msg, r)[1]


def test_refuses_long_message():
    """A length word beyond MSG_MAX: STATUS = 1 and the program stops before hashing, after
    wiping DMEM (the key) but the status word (test_mldsa_wipe.py checks every byte and
    register); image() raises for an M' longer than the buffer."""
    _, sk, msg, r = _case(6)
    img = ms.image(sk, msg, r)
    img[ms.MLEN] = (ms.MSG_MAX + 1).to_bytes(4, "little")
    sim, h, _ = run_image(SRC, img, 2000, "mldsa_sign.s")
    assert h.ok and h.cycles < 100 + ms.DMEM // 32
    assert sim.dmem.read_bytes(ms.STATUS, 4) == (1).to_bytes(4, "little")
    assert sim.dmem.read_bytes(ms.MU, 64) == bytes(64)
    assert sim.dmem.read_bytes(ms.SK, ms.SK_LEN) == bytes(ms.SK_LEN)
    with pytest.raises(ValueError):
        ms.image(sk, bytes(ms.MSG_MAX + 1), r)
