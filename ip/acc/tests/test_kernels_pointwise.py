# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""NTT-domain product kernels (ip/acc/kernels/mldsa/products.py, mlkem/basemul.py) on the
ISS, checked against dilithium-py's / kyber-py's NTT-domain multiplication; prints ISS
cycle counts."""
import random

import pytest
from dilithium_py.polynomials.polynomials import PolynomialRing as DilithiumRing
from kyber_py.polynomials.polynomials import PolynomialRing as KyberRing

from ip.acc.kernels.mldsa import ntt as ntt_mldsa
from ip.acc.kernels.mldsa import products
from ip.acc.kernels.mlkem import basemul
from ip.acc.kernels.mlkem import ntt as ntt_mlkem
from ip.acc.tests.iss_util import DSA, ISA, KEM, SET_VMODE1, pack, unpack, w256
from ip.acc.tools.asm import assemble
from ip.acc.iss import Iss

QD, QK = 8380417, 3329
RD, RK = 1 << 32, 1 << 16


def _sim(src, polys, words, mode):
    """polys: addr -> coefficient list; words: addr -> list of lane-value lists."""
    sim = Iss(ISA)
    sim.load_program(assemble(src, "k.s", ISA))
    lanes = mode[0]
    for addr, c in polys.items():
        for r in range(256 // lanes):
            sim.dmem.write_bytes(addr + 32 * r, w256(pack(c[lanes * r:lanes * r + lanes], mode)))
    for addr, ws in words.items():
        for t, w in enumerate(ws):
            sim.dmem.write_bytes(addr + 32 * t, w256(pack(w, mode)))
    h = sim.run(max_cycles=20_000)
    assert h.ok, h
    return sim, h


def _read(sim, addr, mode):
    lanes = mode[0]
    out = []
    for r in range(256 // lanes):
        out += unpack(int.from_bytes(sim.dmem.read_bytes(addr + 32 * r, 32), "little"), mode)
    return out


# ---------------------------------------------------------------------------- ML-DSA
A, B, C, K = 0, 1024, 2048, 3072        # DMEM addresses (ML-DSA polys are 1 KiB)


def _dsa_ref(a, b):
    ring = DilithiumRing()
    return (ring(list(a), is_ntt=True) * ring(list(b), is_ntt=True)).coeffs


@pytest.mark.parametrize("seed", [31, 32, 33])
def test_mldsa_pointwise_exact_with_b_in_montgomery_form(seed):
    rng = random.Random(seed)
    a = [rng.randrange(QD) for _ in range(256)]
    b = [rng.randrange(QD) for _ in range(256)]
    src = SET_VMODE1 + products.pointwise_program([(A, B)], C)
    sim, h = _sim(src, {A: a, B: [x * RD % QD for x in b]}, {}, DSA)
    assert _read(sim, C, DSA) == _dsa_ref(a, b)
    print(f"\nML-DSA pointwise c = a o b: {h.cycles} cycles incl. 2-insn VMODE set-up")
    assert h.cycles <= 140


def test_mldsa_to_mont_then_pointwise():
    rng = random.Random(34)
    a = [rng.randrange(QD) for _ in range(256)]
    b = [rng.randrange(QD) for _ in range(256)]
    src = SET_VMODE1 + products.to_mont_program(B, B, K, ecall=False) \
        + products.pointwise_program([(A, B)], C)
    sim, h = _sim(src, {A: a, B: b}, {K: products.pointwise_const_words()}, DSA)
    assert _read(sim, C, DSA) == _dsa_ref(a, b)
    assert _read(sim, B, DSA) == [x * RD % QD for x in b]
    print(f"\nML-DSA to-Montgomery + pointwise: {h.cycles} cycles")


@pytest.mark.parametrize("seed", [35, 36])
def test_mldsa_pointwise_accumulate(seed):
    rng = random.Random(seed)
    a, b, c0 = ([rng.randrange(QD) for _ in range(256)] for _ in range(3))
    src = SET_VMODE1 + products.pointwise_program([(A, B)], C, accumulate=True)
    sim, h = _sim(src, {A: a, B: [x * RD % QD for x in b], C: c0}, {}, DSA)
    assert _read(sim, C, DSA) == [(x + y) % QD for x, y in zip(c0, _dsa_ref(a, b))]
    print(f"\nML-DSA pointwise c += a o b (c from DMEM): {h.cycles} cycles")
    assert h.cycles <= 200


def test_mldsa_dot_product_5_terms_and_intt_mont():
    """Row of A_hat o y_hat (l = 5, plain operands), then the INTT with the mont=True table
    removes the 2^-32: equals dilithium-py's from_ntt(sum_j a_j o b_j)."""
    rng = random.Random(37)
    l, base = 5, 4096
    a = [[rng.randrange(QD) for _ in range(256)] for _ in range(l)]
    b = [[rng.randrange(QD) for _ in range(256)] for _ in range(l)]
    polys = {base + 1024 * j: a[j] for j in range(l)}
    polys.update({base + 1024 * (l + j): b[j] for j in range(l)})
    terms = [(base + 1024 * j, base + 1024 * (l + j)) for j in range(l)]
    dot = SET_VMODE1 + products.pointwise_program(terms, ntt_mldsa.POLY)
    sim, h = _sim(dot, polys, {}, DSA)
    ring = DilithiumRing()
    ref = ring(list(a[0]), is_ntt=True) * ring(list(b[0]), is_ntt=True)
    for j in range(1, l):
        ref = ref + ring(list(a[j]), is_ntt=True) * ring(list(b[j]), is_ntt=True)
    rinv = pow(RD, -1, QD)
    assert _read(sim, ntt_mldsa.POLY, DSA) == [x * rinv % QD for x in ref.coeffs]
    print(f"\nML-DSA 5-term pointwise dot product: {h.cycles} cycles "
          f"({(h.cycles - 2) / l:.1f} per product)")
    assert h.cycles <= 2 + 130 * l
    src = dot.replace("ecall\n", "") + ntt_mldsa.intt_program()
    sim, h = _sim(src, polys, {ntt_mldsa.ITWID: ntt_mldsa.itwiddle_words(mont=True)}, DSA)
    assert _read(sim, ntt_mldsa.POLY, DSA) == ref.from_ntt().coeffs


# ---------------------------------------------------------------------------- ML-KEM
KA, KB, KC, KK = 2048, 2560, 3072, 3584     # ML-KEM polys are 512 B; consts 9 words


def _kem_ref(a, b):
    ring = KyberRing()
    return (ring(list(a), is_ntt=True) * ring(list(b), is_ntt=True)).coeffs


def _kem_consts():
    return {KK: basemul.const_words()}


@pytest.mark.parametrize("seed", [41, 42, 43])
def test_mlkem_basemul_prepared_b(seed):
    rng = random.Random(seed)
    a = [rng.randrange(QK) for _ in range(256)]
    b = [rng.randrange(QK) for _ in range(256)]
    prep = basemul.prepare_program(KB, KB, KK)
    sim, hp = _sim(prep, {KB: b}, _kem_consts(), KEM)
    prepared = _read(sim, KB, KEM)
    src = basemul.basemul_program([(KA, KB)], KC, KK)
    sim, h = _sim(src, {KA: a, KB: prepared}, _kem_consts(), KEM)
    assert _read(sim, KC, KEM) == _kem_ref(a, b)
    print(f"\nML-KEM prepare b (transpose, Montgomery form): {hp.cycles} cycles; "
          f"base-case multiply with prepared b: {h.cycles} cycles")
    assert h.cycles <= 150


@pytest.mark.parametrize("seed", [44, 45])
def test_mlkem_basemul_plain_b(seed):
    rng = random.Random(seed)
    a = [rng.randrange(QK) for _ in range(256)]
    b = [rng.randrange(QK) for _ in range(256)]
    src = basemul.basemul_program([(KA, KB)], KC, KK, b_prepared=False)
    sim, h = _sim(src, {KA: a, KB: b}, _kem_consts(), KEM)
    assert _read(sim, KC, KEM) == _kem_ref(a, b)
    print(f"\nML-KEM base-case multiply, plain b, exact: {h.cycles} cycles")
    assert h.cycles <= 190            # 180 with 32 wide registers, 187 with 16


def test_mlkem_basemul_accumulate():
    rng = random.Random(46)
    a, b, c0 = ([rng.randrange(QK) for _ in range(256)] for _ in range(3))
    src = basemul.prepare_program(KB, KB, KK, ecall=False) \
        + basemul.basemul_program([(KA, KB)], KC, KK, accumulate=True)
    sim, h = _sim(src, {KA: a, KB: b, KC: c0}, _kem_consts(), KEM)
    assert _read(sim, KC, KEM) == [(x + y) % QK for x, y in zip(c0, _kem_ref(a, b))]
    src = basemul.basemul_program([(KA, KB)], KC, KK, accumulate=True)
    sim, h = _sim(src, {KA: a, KB: _read(sim, KB, KEM), KC: c0}, _kem_consts(), KEM)
    assert _read(sim, KC, KEM) == [(x + y) % QK for x, y in zip(c0, _kem_ref(a, b))]
    print(f"\nML-KEM base-case c += a o b (c from DMEM, prepared b): {h.cycles} cycles")
    assert h.cycles <= 190


def test_mlkem_dot_product_3_terms_then_intt():
    """k = 3 row (s_hat . u_hat, r_hat rows of A_hat): sum_j a_j o b_j with plain b and
    mont_out, then ntt_mlkem's INTT with basemul.iscale_mont_word(): equals kyber-py."""
    rng = random.Random(47)
    k, base = 3, 4096
    a = [[rng.randrange(QK) for _ in range(256)] for _ in range(k)]
    b = [[rng.randrange(QK) for _ in range(256)] for _ in range(k)]
    polys = {base + 512 * j: a[j] for j in range(k)}
    polys.update({base + 512 * (k + j): b[j] for j in range(k)})
    terms = [(base + 512 * j, base + 512 * (k + j)) for j in range(k)]
    ring = KyberRing()
    ref = ring(list(a[0]), is_ntt=True) * ring(list(b[0]), is_ntt=True)
    for j in range(1, k):
        ref = ref + ring(list(a[j]), is_ntt=True) * ring(list(b[j]), is_ntt=True)
    ref_ntt = list(ref.coeffs)        # kyber-py's from_ntt works in place
    words = {KK: basemul.const_words(), ntt_mlkem.ITWID: ntt_mlkem.itwiddle_words(),
             ntt_mlkem.ISCALE: [basemul.iscale_mont_word()]}
    dot = basemul.basemul_program(terms, ntt_mlkem.POLY, KK, b_prepared=False,
                                          mont_out=True)
    sim, h = _sim(dot, polys, words, KEM)
    rinv = pow(RK, -1, QK)
    assert _read(sim, ntt_mlkem.POLY, KEM) == [x * rinv % QK for x in ref_ntt]
    print(f"\nML-KEM 3-term base-case dot product (plain b, Montgomery out): {h.cycles} cycles")
    sim, _ = _sim(dot.replace("ecall\n", "") + ntt_mlkem.intt_program(), polys, words, KEM)
    assert _read(sim, ntt_mlkem.POLY, KEM) == ref.from_ntt().coeffs
    # prepared-b form of the same dot product
    prep = "".join(basemul.prepare_program(bb, bb, KK, ecall=False) for _, bb in terms)
    sim, _ = _sim(prep + "ecall\n", polys, words, KEM)
    polys2 = dict(polys)
    polys2.update({bb: _read(sim, bb, KEM) for _, bb in terms})
    sim, h = _sim(basemul.basemul_program(terms, KC, KK), polys2, words, KEM)
    assert _read(sim, KC, KEM) == ref_ntt
    print(f"ML-KEM 3-term base-case dot product (prepared b, exact): {h.cycles} cycles "
          f"({h.cycles / k:.1f} per product)")


def test_prog_allocator_limits_and_ordering():
    """prog.Prog: a pool too small for the live values is refused with a message;
    post-increment loads / stores keep their order per pointer; raw ops ordered through a
    pseudo-register ("@kmac") keep theirs; a use of a load result is not scheduled right
    after the load when other work can go between."""
    from ip.acc.kernels.prog import Prog
    p = Prog(["w0", "w1"])
    for k in range(3):
        p.lw(f"%a{k}", 32 * k)
    p.op("bn.addv", "%s", "%a0", "%a1")
    p.op("bn.addv", "%t", "%s", "%a2")
    with pytest.raises(ValueError, match="all 2 of the pool"):
        p.text()
    p = Prog([f"w{k}" for k in range(8)])
    for k in range(3):
        p.raw("kmac.dig {0}", [f"%d{k}", "@kmac"], ["@kmac"])
    p.lw_pi("%x", "x10")
    p.lw_pi("%y", "x10")
    p.op("bn.addv", "%z", "%x", "%y")
    p.op("bn.xor", "%u", "%d0", "%d1")
    p.sw_pi("%z", "x11")
    p.sw_pi("%u", "x11")
    lines = p.text().splitlines()
    # %d0, %d1, %d2 get w0, w1, w2 (first free first): the digest words in program order
    assert [ln for ln in lines if ln.startswith("kmac.dig")] == \
        ["kmac.dig w0", "kmac.dig w1", "kmac.dig w2"]
    loads = [i for i, ln in enumerate(lines) if ln.startswith("bn.lw.pi")]
    add = next(i for i, ln in enumerate(lines) if ln.startswith("bn.addv"))
    assert len(loads) == 2 and add > loads[1] + 1       # not in the load's latency slot
    stores = [ln for ln in lines if ln.startswith("bn.sw.pi")]
    assert len(stores) == 2 and all("0(x11)" in ln for ln in stores)
    # the store order is the program's (z, then u)
    zreg = lines[add].split()[1].rstrip(",")
    assert stores[0].split()[1].rstrip(",") == zreg
