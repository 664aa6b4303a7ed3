# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""ML-DSA-65 signing parts (ip/acc/kernels/mldsa/: packing.py skDecode + NTT, sigEncode;
rounding.py c t0 + MakeHint) on the ISS against dilithium-py; cycles printed."""
import random

import pytest
from dilithium_py.ml_dsa import ML_DSA_65
from dilithium_py.utilities.utils import check_norm_bound, make_hint

from ip.acc.kernels.mldsa import layout, packing, params, rounding
from ip.acc.tools.asm import assemble
from ip.acc.tests.iss_util import phase_cycles, run_image

DSA = ML_DSA_65
Q = params.Q
ALPHA = 2 * DSA.gamma_2


def _run(src, dm, max_cycles=200_000):
    return run_image(src, dm, max_cycles, "mldsa_sign_parts.s")


def _image(**kv):
    img = layout.const_image()
    for name, (addr, blob) in kv.items():
        img[addr] = blob
    return img


def _polys(sim, addr, n):
    return [layout.read_poly(sim.dmem.read_bytes(addr + 1024 * r, 1024)) for r in range(n)]


def _vec(v):
    """Vector (either orientation) -> list of coefficient lists mod q."""
    polys = [p for row in v.rows() for p in row]
    return [[c % Q for c in p.coeffs] for p in polys]


def _flat(polys):
    return b"".join(layout.poly_bytes(p) for p in polys)


def _bitmaps(h):
    """Hint polys (0/1) -> the 6 x 32-byte bitmaps the ct0 program writes at HB."""
    return b"".join(sum(b << j for j, b in enumerate(p)).to_bytes(32, "little") for p in h)


def _iterations(seed, n_keys=1):
    """dilithium-py's sign_internal loop, instrumented: per iteration the ct0 program's
    inputs and dilithium-py's c t0, hint, checks; and the signature."""
    rnd = random.Random(seed)
    pk, sk = DSA._keygen_internal(rnd.randbytes(32))
    msg, r = rnd.randbytes(33), rnd.randbytes(32)
    rho, key, tr, s1, s2, t0 = DSA._unpack_sk(sk)
    s1_hat, s2_hat, t0_hat = s1.to_ntt(), s2.to_ntt(), t0.to_ntt()
    A_hat = DSA._expand_matrix_from_seed(rho)
    mu = DSA._h(tr + msg, 64)
    rhopp = DSA._h(key + r + mu, 64)
    kappa, its = 0, []
    while True:
        y = DSA._expand_mask_vector(rhopp, kappa)
        w = (A_hat @ y.to_ntt()).from_ntt()
        kappa += DSA.l
        c_tilde = DSA._h(mu + w.high_bits(ALPHA).bit_pack_w(DSA.gamma_2), DSA.c_tilde_bytes)
        c_hat = DSA.R.sample_in_ball(c_tilde, DSA.tau).to_ntt()
        z = y + s1_hat.scale(c_hat).from_ntt()
        w_cs2 = w - s2_hat.scale(c_hat).from_ntt()
        c_t0 = t0_hat.scale(c_hat).from_ntt()
        h = (-c_t0).make_hint(w_cs2 + c_t0, ALPHA)
        it = dict(c_tilde=c_tilde, c_hat=c_hat, z=z, w_cs2=w_cs2, t0_hat=t0_hat, c_t0=c_t0,
                  h=h, z_ok=not z.check_norm_bound(DSA.gamma_1 - DSA.beta),
                  r0_ok=not w_cs2.low_bits(ALPHA).check_norm_bound(DSA.gamma_2 - DSA.beta),
                  ct0_ok=not c_t0.check_norm_bound(DSA.gamma_2), nh=h.sum_hint())
        its.append(it)
        if it["z_ok"] and it["r0_ok"] and it["ct0_ok"] and it["nh"] <= DSA.omega:
            sig = DSA._pack_sig(c_tilde, z, h)
            assert sig == DSA._sign_internal(sk, msg, r)
            return sk, its, sig


# ------------------------------------------------------------------ keydec
@pytest.mark.parametrize("seed", [1, 2])
def test_keydec(seed):
    rnd = random.Random(seed)
    _, sk = DSA._keygen_internal(rnd.randbytes(32))
    rho, key, tr, s1, s2, t0 = DSA._unpack_sk(sk)
    sim, h, imem = _run(packing.keydec_program(), _image(sk=(layout.SK, sk)))
    assert h.ok, h
    assert _polys(sim, layout.S1H, 5) == _vec(s1.to_ntt())
    assert _polys(sim, layout.S2H, 6) == _vec(s2.to_ntt())
    assert _polys(sim, layout.T0H, 6) == _vec(t0.to_ntt())
    print(f"\nkeydec (skDecode s1, s2, t0 + 17 NTT): {h.cycles} cycles, IMEM {imem} B")


def test_keydec_extremes():
    """Every field value: eta fields 0..8, t0 fields 0..2^13 - 1 (not only key-like ones)."""
    rnd = random.Random(7)
    s = [[rnd.randrange(9) for _ in range(256)] for _ in range(11)]
    s[0][:9] = list(range(9))
    t = [[rnd.randrange(1 << 13) for _ in range(256)] for _ in range(6)]
    t[0][:4] = [0, 1, (1 << 13) - 1, 1 << 12]
    pack = lambda f, bits: sum(v << (bits * i) for i, v in enumerate(f)).to_bytes(32 * bits,
                                                                                  "little")
    sk = bytes(128) + b"".join(pack(f, 4) for f in s) + b"".join(pack(f, 13) for f in t)
    rho, key, tr, s1, s2, t0 = DSA._unpack_sk(sk)
    sim, h, _ = _run(packing.keydec_program(), _image(sk=(layout.SK, sk)))
    assert h.ok, h
    assert _polys(sim, layout.S1H, 5) == _vec(s1.to_ntt())
    assert _polys(sim, layout.S2H, 6) == _vec(s2.to_ntt())
    assert _polys(sim, layout.T0H, 6) == _vec(t0.to_ntt())


# ------------------------------------------------------------------ c t0 + hint
def _ct0_run(c_hat, t0_hat, w_cs2):
    dm = _image(ch=(layout.CH, layout.poly_bytes(c_hat)), sh=(layout.SH, _flat(t0_hat)),
                w=(layout.W, _flat(w_cs2)))
    sim, h, imem = _run(rounding.ct0_hint_program(), dm)
    assert h.ok, h
    flag, count = (int.from_bytes(sim.dmem.read_bytes(layout.FLAG + 4 * k, 4), "little")
                   for k in range(2))
    assert sim.gpr.read(9) == flag
    return sim, h, imem, flag, count


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_ct0_hint(seed):
    """Every iteration of a signature (also those rejected earlier: the program's output
    is still compared) against dilithium-py's c t0, MakeHint, checks."""
    _, its, _ = _iterations(seed)
    for it in its[-2:]:
        sim, h, imem, flag, count = _ct0_run([c % Q for c in it["c_hat"].coeffs],
                                             _vec(it["t0_hat"]), _vec(it["w_cs2"]))
        assert sim.dmem.read_bytes(layout.HB, 192) == _bitmaps(_vec(it["h"]))
        assert count == it["nh"]
        assert flag == (0 if it["ct0_ok"] else 1) | (0 if it["nh"] <= DSA.omega else 2)
    assert flag == 0          # the last iteration is the accepted one
    print(f"\nc t0 + MakeHint + checks: {h.cycles} cycles, IMEM {imem} B, "
          f"hints {count}")


def _one_hat():
    return [c % Q for c in DSA.R([1] + [0] * 255).to_ntt().coeffs]


def _crafted(ct0, v):
    """c = 1, so c t0 = t0 (t0_hat = NTT(ct0)); expected values from dilithium-py."""
    t0_hat = [[c % Q for c in DSA.R(p).to_ntt().coeffs] for p in ct0]
    sim, _, _, flag, count = _ct0_run(_one_hat(), t0_hat, v)
    hint = [[make_hint(-a % Q, (b + a) % Q, ALPHA, Q) for a, b in zip(pa, pb)]
            for pa, pb in zip(ct0, v)]
    assert sim.dmem.read_bytes(layout.HB, 192) == _bitmaps(hint)
    nh = sum(map(sum, hint))
    assert count == nh
    norm_bad = any(check_norm_bound(a, DSA.gamma_2, Q) for p in ct0 for a in p)
    assert flag == int(norm_bad) | (2 if nh > DSA.omega else 0)
    return flag, nh


@pytest.mark.parametrize("x", [DSA.gamma_2 - 1, DSA.gamma_2, -(DSA.gamma_2 - 1), -DSA.gamma_2])
def test_ct0_norm_bound(x):
    """One coefficient of c t0 at or just inside the bound gamma2 (both signs)."""
    rnd = random.Random(x)
    ct0 = [[0] * 256 for _ in range(6)]
    ct0[rnd.randrange(6)][rnd.randrange(256)] = x
    v = [[rnd.randrange(Q) for _ in range(256)] for _ in range(6)]
    flag, _ = _crafted(ct0, v)
    assert flag & 1 == (abs(x) >= DSA.gamma_2)


@pytest.mark.parametrize("n", [DSA.omega, DSA.omega + 1])
def test_hint_count_bound(n):
    """Exactly n hints: v = 5 alpha + gamma2 (top of HighBits 5), c t0 = 1 at n places."""
    rnd = random.Random(n)
    v = [[5 * ALPHA + DSA.gamma_2] * 256 for _ in range(6)]
    ct0 = [[0] * 256 for _ in range(6)]
    for pos in rnd.sample(range(6 * 256), n):
        ct0[pos // 256][pos % 256] = 1
    flag, nh = _crafted(ct0, v)
    assert nh == n and flag == (0 if n <= DSA.omega else 2)


def test_hint_wrap_and_random():
    """Random c t0 within the bound and random v (many hints, HighBits wrap at q - 1)."""
    rnd = random.Random(11)
    ct0 = [[rnd.randrange(-DSA.gamma_2 + 1, DSA.gamma_2) for _ in range(256)]
           for _ in range(6)]
    v = [[rnd.choice([rnd.randrange(Q), Q - 1 - rnd.randrange(DSA.gamma_2 + 2),
                      rnd.randrange(DSA.gamma_2 + 2)]) for _ in range(256)] for _ in range(6)]
    flag, nh = _crafted(ct0, v)
    assert nh > DSA.omega and flag == 2


# ------------------------------------------------------------------ sigEncode
def _sig_run(c_tilde, z, hb):
    dm = _image(ctil=(layout.CTIL, c_tilde), z=(layout.ZO, _flat(z)), hb=(layout.HB, hb))
    sim, h, imem = _run(packing.sig_encode_program(), dm)
    assert h.ok, h
    return sim.dmem.read_bytes(layout.SIG, layout.SIG_LEN), h, imem


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_sig_encode(seed):
    _, its, sig = _iterations(seed)
    it = its[-1]
    out, h, imem = _sig_run(it["c_tilde"], _vec(it["z"]), _bitmaps(_vec(it["h"])))
    assert out == sig
    print(f"\nsigEncode: {h.cycles} cycles, IMEM {imem} B, hints {it['nh']}")


def test_sig_encode_extremes():
    """z at +-(gamma1 - beta - 1) and 0, hints at indices 0 and 255, omega hints in all."""
    rnd = random.Random(5)
    b = DSA.gamma_1 - DSA.beta - 1
    z = [[rnd.choice([b, -b, 0, rnd.randrange(-b, b + 1)]) for _ in range(256)]
         for _ in range(5)]
    h = [[0] * 256 for _ in range(6)]
    h[0][0] = h[5][255] = h[2][255] = h[3][0] = 1
    rest = [p for p in range(6 * 256) if not h[p // 256][p % 256]]
    for p in rnd.sample(rest, DSA.omega - 4):
        h[p // 256][p % 256] = 1
    c_tilde = rnd.randbytes(48)
    zv = DSA.M.vector([DSA.R(p) for p in z])
    hv = DSA.M.vector([DSA.R(p) for p in h])
    out, _, _ = _sig_run(c_tilde, [[c % Q for c in p] for p in z], _bitmaps(h))
    assert out == DSA._pack_sig(c_tilde, zv, hv)


def test_ct0_then_sig_encode():
    """The ct0 program's bitmaps fed to sigEncode give dilithium-py's signature."""
    _, its, sig = _iterations(4)
    it = its[-1]
    sim, _, _, flag, _ = _ct0_run([c % Q for c in it["c_hat"].coeffs], _vec(it["t0_hat"]),
                                  _vec(it["w_cs2"]))
    assert flag == 0
    out, _, _ = _sig_run(it["c_tilde"], _vec(it["z"]), sim.dmem.read_bytes(layout.HB, 192))
    assert out == sig


def test_layout():
    assert layout.XEND <= 32 * 1024 and layout.XC >= layout.END
    for src in (packing.keydec_program(), rounding.ct0_hint_program(),
                packing.sig_encode_program()):
        assert len(assemble(src, "x.s")) * 4 <= 16 * 1024


def test_phase_table():
    """Cycles per phase (prefix runs) of the three programs for one real signature."""
    sk, its, _ = _iterations(2)
    it = its[-1]
    dm = _image(sk=(layout.SK, sk), ch=(layout.CH, layout.poly_bytes(
        [c % Q for c in it["c_hat"].coeffs])), sh=(layout.SH, _flat(_vec(it["t0_hat"]))),
        w=(layout.W, _flat(_vec(it["w_cs2"]))))
    print()
    for title, ph in (("keydec", packing.keydec_phases()),
                      ("ct0 + hint", rounding.ct0_hint_phases())):
        rows, prev, _ = phase_cycles(ph, lambda src: _run(src, dm))
        print(f"{title}:")
        for name, n in rows:
            print(f"  {n:6d}  {name}")
        print(f"  {prev:6d}  total")
    # sigEncode after the ct0 program's bitmaps (branch labels: phases run cumulatively)
    hb = _bitmaps(_vec(it["h"]))
    dm = _image(ctil=(layout.CTIL, it["c_tilde"]), z=(layout.ZO, _flat(_vec(it["z"]))),
                hb=(layout.HB, hb))
    rows, prev, _ = phase_cycles(packing.sig_encode_phases(), lambda src: _run(src, dm))
    print("sigEncode:")
    for name, n in rows:
        print(f"  {n:6d}  {name}")
    print(f"  {prev:6d}  total ({it['nh']} hints)")


def test_highbits_multiplier():
    """HB_M's HighBits (mod 16) equals dilithium-py's high_bits for every r in [0, q)."""
    from dilithium_py.utilities.utils import high_bits
    m = layout.HB_M
    # away from boundaries it is exact trivially; check every r near each boundary, and
    # a random sample elsewhere
    rs = set(random.Random(3).sample(range(Q), 20000))
    for k in range(17):
        for d in range(-300, 300):
            if 0 <= k * ALPHA + DSA.gamma_2 + d < Q:
                rs.add(k * ALPHA + DSA.gamma_2 + d)
    rs.update(range(Q - 300, Q))
    for r in rs:
        assert (((r + DSA.gamma_2 - 1) * m) >> 43) % 16 == high_bits(r, ALPHA, Q)
