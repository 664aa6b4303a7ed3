# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""ML-DSA-65 signing phases (ip/acc/kernels/mldsa/: sampling.py, products.py,
rounding.py) on the ISS against dilithium-py's
intermediates of sign_internal; cycles printed (per phase: prefix runs)."""
import random

import pytest
from dilithium_py.ml_dsa import ML_DSA_65

from ip.acc.kernels.asm_util import phase_program
from ip.acc.kernels.mldsa import layout, params, products, rounding, sampling
from ip.acc.tools.asm import assemble
from ip.acc.tests.iss_util import phase_cycles, run_image

DSA = ML_DSA_65
Q = params.Q


def _run(src, dm, max_cycles=200_000):
    return run_image(src, dm, max_cycles, "mldsa.s")


def _polys(sim, addr, n):
    return [layout.read_poly(sim.dmem.read_bytes(addr + 1024 * r, 1024)) for r in range(n)]


def _vec(v):
    """Vector (k x 1 matrix) -> list of coefficient lists mod q."""
    polys = v._data[0] if v._transpose else [row[0] for row in v._data]
    return [[c % Q for c in p.coeffs] for p in polys]


def _intermediates(seed):
    """Signing intermediates of the first loop iteration (dilithium-py)."""
    rnd = random.Random(seed)
    pk, sk = DSA._keygen_internal(rnd.randbytes(32))
    rho, key, tr, s1, s2, t0 = DSA._unpack_sk(sk)
    msg = rnd.randbytes(40)
    mu = DSA._h(tr + msg, 64)
    rhopp = DSA._h(key + rnd.randbytes(32) + mu, 64)
    kappa = rnd.randrange(0, 1000) * 5
    y = DSA._expand_mask_vector(rhopp, kappa)
    y_hat = y.to_ntt()
    A_hat = DSA._expand_matrix_from_seed(rho)
    w = (A_hat @ y_hat).from_ntt()
    alpha = 2 * DSA.gamma_2
    w1 = w.high_bits(alpha)
    w1_bytes = w1.bit_pack_w(DSA.gamma_2)
    c_tilde = DSA._h(mu + w1_bytes, DSA.c_tilde_bytes)
    c = DSA.R.sample_in_ball(c_tilde, DSA.tau)
    c_hat = c.to_ntt()
    s1_hat = s1.to_ntt()
    s2_hat = s2.to_ntt()
    z = y + s1_hat.scale(c_hat).from_ntt()
    w_cs2 = w - s2_hat.scale(c_hat).from_ntt()
    r0_ok = not w_cs2.low_bits(alpha).check_norm_bound(DSA.gamma_2 - DSA.beta)
    return dict(c_tilde=c_tilde, s2_hat=s2_hat, w_cs2=w_cs2, r0_ok=r0_ok, rho=rho, rhopp=rhopp, mu=mu, kappa=kappa, y=y, y_hat=y_hat, w=w, w1=w1,
                w1_bytes=w1_bytes, c_hat=c_hat, s1_hat=s1_hat, z=z,
                z_ok=not z.check_norm_bound(DSA.gamma_1 - DSA.beta))


def _image(**kv):
    img = layout.const_image(xc=False)
    for name, (addr, blob) in kv.items():
        img[addr] = blob
    return img


def _flat(polys):
    return b"".join(layout.poly_bytes(p) for p in polys)


def _phase_cycles(phases, dm):
    rows, total, _ = phase_cycles(phases, lambda src: _run(src, dm))
    return rows, total


@pytest.mark.parametrize("seed", [1, 2])
def test_expand_mask_ntt(seed):
    it = _intermediates(seed)
    dm = _image(rhopp=(layout.RHOPP, it["rhopp"]),
                kappa=(layout.KAPPA, it["kappa"].to_bytes(4, "little")))
    sim, h, imem = _run(sampling.expand_mask_program(), dm)
    assert h.ok, h
    assert _polys(sim, layout.Y, 5) == _vec(it["y"])
    assert _polys(sim, layout.YH, 5) == _vec(it["y_hat"])
    print(f"\nExpandMask + 5 NTT(y): {h.cycles} cycles, IMEM {imem} B")


@pytest.mark.parametrize("seed", [1, 2])
def test_aw(seed):
    it = _intermediates(seed)
    dm = _image(rho=(layout.RHO, it["rho"]), yh=(layout.YH, _flat(_vec(it["y_hat"]))))
    sim, h, imem = _run(products.aw_program(), dm)
    assert h.ok, h
    assert _polys(sim, layout.W, 6) == _vec(it["w"])
    print(f"\nw = INTT(A_hat o y_hat), A streamed: {h.cycles} cycles, IMEM {imem} B")


@pytest.mark.parametrize("seed", [1, 2])
def test_highbits_w1encode(seed):
    it = _intermediates(seed)
    dm = _image(w=(layout.W, _flat(_vec(it["w"]))))
    sim, h, imem = _run(rounding.highbits_program(), dm)  # with the c_tilde absorb
    assert h.ok, h
    assert sim.dmem.read_bytes(layout.W1E, 768) == it["w1_bytes"]
    print(f"\nHighBits + w1Encode: {h.cycles} cycles, IMEM {imem} B")


@pytest.mark.parametrize("seed", [1, 2, 3, 4, 6, 7])
def test_z(seed):
    it = _intermediates(seed)
    dm = _image(y=(layout.Y, _flat(_vec(it["y"]))),
                ch=(layout.CH, layout.poly_bytes(it["c_hat"].coeffs)),
                sh=(layout.SH, _flat(_vec(it["s1_hat"]))))
    sim, h, imem = _run(rounding.z_program(), dm)
    assert h.ok, h
    assert _polys(sim, layout.ZO, 5) == _vec(it["z"])
    assert (sim.gpr.read(9) == 0) == it["z_ok"]
    print(f"\nz = y + c s1 + norm check: {h.cycles} cycles, IMEM {imem} B, ok={it['z_ok']}")


@pytest.mark.parametrize("seed", [1, 2])
def test_highbits_challenge(seed):
    """HighBits + w1Encode + c_tilde hash + SampleInBall + NTT(c) as one program."""
    it = _intermediates(seed)
    dm = _image(w=(layout.W, _flat(_vec(it["w"]))), mu=(layout.MU, it["mu"]))
    sim, h, imem = _run(sampling.challenge_program(), dm)
    assert h.ok, h
    assert sim.dmem.read_bytes(layout.W1E, 768) == it["w1_bytes"]
    assert sim.dmem.read_bytes(layout.CTIL, 48) == it["c_tilde"]
    assert _polys(sim, layout.CH, 1)[0] == [c % Q for c in it["c_hat"].coeffs]
    print(f"\nHighBits + w1Encode + c_tilde + SampleInBall + NTT(c): {h.cycles} cycles, "
          f"IMEM {imem} B")


@pytest.mark.parametrize("seed", [1, 2, 3, 4, 6, 7, 8, 9])
def test_r0(seed):
    it = _intermediates(seed)
    dm = _image(w=(layout.W, _flat(_vec(it["w"]))),
                ch=(layout.CH, layout.poly_bytes(it["c_hat"].coeffs)),
                sh=(layout.SH, _flat(_vec(it["s2_hat"]))))
    sim, h, imem = _run(rounding.r0_program(), dm)
    assert h.ok, h
    assert _polys(sim, layout.W, 6) == _vec(it["w_cs2"])
    assert (sim.gpr.read(9) == 0) == it["r0_ok"]
    print(f"\nw - c s2 + r0 check: {h.cycles} cycles, IMEM {imem} B, ok={it['r0_ok']}")


def test_phase_table():
    it = _intermediates(5)
    dm = _image(rho=(layout.RHO, it["rho"]), rhopp=(layout.RHOPP, it["rhopp"]),
                kappa=(layout.KAPPA, it["kappa"].to_bytes(4, "little")))
    print()
    for title, ph in (("ExpandMask + NTT(y)", sampling.expand_mask_phases()),
                      ("A_hat o y_hat + INTT", products.aw_phases()),
                      ("HighBits + w1Encode + c_tilde, SampleInBall, NTT(c)",
                       rounding.highbits_phases() + sampling.challenge_phases()),
                      ("r0", rounding.r0_phases()),
                      ("z", rounding.z_phases())):
        rows, tot = _phase_cycles(ph, dm)
        print(f"{title}:")
        for name, n in rows:
            print(f"  {n:6d}  {name}")
        print(f"  {tot:6d}  total")


def test_unrolled_variants():
    """The straight-line (per-row / per-polynomial) variants give the same results."""
    it = _intermediates(3)
    dm = _image(rho=(layout.RHO, it["rho"]), rhopp=(layout.RHOPP, it["rhopp"]),
                kappa=(layout.KAPPA, it["kappa"].to_bytes(4, "little")),
                yh=(layout.YH, _flat(_vec(it["y_hat"]))))
    sim, h, _ = _run(phase_program(products.aw_phases(compact=False)), dm)
    assert h.ok, h
    assert _polys(sim, layout.W, 6) == _vec(it["w"])
    sim, h, _ = _run(phase_program(sampling.expand_mask_phases(compact=False)), dm)
    assert h.ok, h
    assert _polys(sim, layout.Y, 5) == _vec(it["y"])
    assert _polys(sim, layout.YH, 5) == _vec(it["y_hat"])
    sim, h, _ = _run(sampling.expand_mask_program(), dm)
    assert h.ok, h
    assert _polys(sim, layout.YH, 5) == _vec(it["y_hat"])
    print(f"\nExpandMask + NTT: {h.cycles} cycles")


def test_fits():
    """DMEM layout within 32 KiB; each program within 16 KiB of IMEM."""
    assert layout.END <= 32 * 1024
    for src in (sampling.expand_mask_program(), products.aw_program(),
                sampling.challenge_program(), rounding.z_program(), rounding.r0_program()):
        assert len(assemble(src, "mldsa.s")) * 4 <= 16 * 1024
