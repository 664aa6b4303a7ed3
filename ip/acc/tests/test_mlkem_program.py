# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""ML-KEM-768 programs (ip/acc/kernels/mlkem/decaps.py) on the ISS against kyber-py:
K-PKE.Decrypt (FIPS 203 Alg. 15) and ML-KEM.Decaps_internal (Alg. 18), cycles printed."""
import random

import pytest
from kyber_py.ml_kem import ML_KEM_768

from ip.acc.kernels.mlkem import decaps as mlkem
from ip.acc.tools.asm import assemble
from ip.acc.iss import Iss
from ip.acc.tests.iss_util import phase_cycles

KEM = ML_KEM_768


def _run(src, dm, max_cycles=100_000, dmem_size=32 * 1024, imem_size=32 * 1024):
    sim = Iss(dmem_size=dmem_size, imem_size=imem_size)
    words = assemble(src, "mlkem.s")
    sim.load_program(words)
    for a, b in dm.items():
        sim.dmem.write_bytes(a, b)
    h = sim.run(max_cycles=max_cycles)
    return sim, h, len(words) * 4


def _keys(seed):
    rnd = random.Random(seed)
    ek, dk = KEM._keygen_internal(rnd.randbytes(32), rnd.randbytes(32))
    K, c = KEM._encaps_internal(ek, rnd.randbytes(32))
    return ek, dk, K, c


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_kpke_decrypt(seed):
    ek, dk, K, c = _keys(seed)
    dk_pke = dk[:1152]
    if seed == 3:                          # arbitrary ciphertext, not an encryption
        c = random.Random(99).randbytes(1088)
    sim, h, imem = _run(mlkem.decrypt_program(), mlkem.image(dk_pke=dk_pke, c=c))
    assert h.ok, h
    assert sim.dmem.read_bytes(mlkem.MOUT, 32) == KEM._k_pke_decrypt(dk_pke, c)
    print(f"\nK-PKE.Decrypt on the ISS: {h.cycles} cycles, {h.insns} insns, IMEM {imem} B")


@pytest.mark.parametrize("seed,valid", [(11, True), (12, True), (13, False), (14, False)])
def test_decaps(seed, valid):
    ek, dk, K, c = _keys(seed)
    if not valid:                          # implicit rejection: one bit of u or of v flipped
        pos = 5 if seed == 13 else 1000
        c = c[:pos] + bytes([c[pos] ^ 0x10]) + c[pos + 1:]
    sim, h, imem = _run(mlkem.decaps_program(), mlkem.image(dk=dk, c=c))
    assert h.ok, h
    ref = KEM._decaps_internal(dk, c)
    assert (ref == K) == valid
    assert sim.dmem.read_bytes(mlkem.K_OUT, 32) == ref
    print(f"\nML-KEM-768 Decaps on the ISS ({'valid' if valid else 'invalid'} c): "
          f"{h.cycles} cycles, {h.insns} insns, IMEM {imem} B, DMEM {mlkem.END} B")


def test_decaps_fits_and_timing_independent_of_validity():
    """Runs in DMEM = mlkem.END and IMEM = program size (both within 16 KiB); same key,
    valid and invalid ciphertext take the same number of cycles (no secret-dependent
    timing)."""
    ek, dk, K, c = _keys(21)
    bad = bytes([c[0] ^ 1]) + c[1:]
    src = mlkem.decaps_program()
    imem = len(assemble(src, "mlkem.s")) * 4
    dsz = (mlkem.END + 31) // 32 * 32
    assert dsz <= 16 * 1024 and imem <= 16 * 1024, (dsz, imem)
    cycles = []
    for ct in (c, bad):
        sim, h, _ = _run(src, mlkem.image(dk=dk, c=ct), dmem_size=16 * 1024, imem_size=imem)
        assert h.ok, h
        assert sim.dmem.read_bytes(mlkem.K_OUT, 32) == KEM._decaps_internal(dk, ct)
        cycles.append(h.cycles)
    assert cycles[0] == cycles[1], cycles


def test_decaps_phases():
    """Per-phase cycles (prefix runs: each phase's cost = difference of cumulative counts)."""
    ek, dk, K, c = _keys(31)
    dm = mlkem.image(dk=dk, c=c)
    rows, prev, _ = phase_cycles(mlkem.decaps_phases(), lambda src: _run(src, dm),
                                 head=["lui x30, 4"], tail=("kmac.rel", "ecall"))
    print("\nML-KEM-768 Decaps phases (ISS cycles):")
    for name, n in rows:
        print(f"  {n:6d}  {name}")
    print(f"  {prev:6d}  total")
    assert prev <= 20_000


@pytest.mark.parametrize("d", [1, 4, 5, 10, 11, 12])
def test_decode_unpk(d):
    """codec.decode_unpk (ByteDecode_d by bn.unpk) of two polynomials gives kyber-py's
    decode (shifted left by 16 - d, the decaps form, for d < 12), extremes included, from a
    32-byte aligned source and from one that starts mid-word (period bodies with offset
    loads); a seeded error (one input bit flipped) changes the output."""
    from ip.acc.kernels.mlkem import codec
    rng = random.Random(d)
    top = 3329 if d == 12 else 1 << d       # ByteDecode_12 is mod q (kyber-py reduces)
    vals = [rng.randrange(top) for _ in range(512)]
    vals[:3] = [0, top - 1, 1]
    R = KEM.R
    data = R(vals[:256]).encode(d) + R(vals[256:]).encode(d)
    assert R.decode(data[:32 * d], d).coeffs == vals[:256]
    shift = 0 if d == 12 else 16 - d
    want = codec.u16([v << shift for v in vals])
    for base in (0, 6 if d % 2 else 24):
        src = "\n".join(codec.decode_unpk(d, 64 + base, 4096, 32, shift=shift) + ["ecall"])
        for seeded in (False, True):
            inp = bytearray(data)
            if seeded:
                inp[37] ^= 0x08
            sim, h, _ = _run(src, {64 + base: bytes(inp)}, dmem_size=16384, imem_size=16384)
            assert h.ok, h
            assert (sim.dmem.read_bytes(4096, 1024) == want) != seeded
        print(f"\nByteDecode_{d} (decode_unpk) of 2 polynomials, source at 64 + {base}: "
              f"{h.cycles} cycles")


@pytest.mark.parametrize("kind,d", [("u", 10), ("u", 11), ("v", 4), ("v", 5)])
def test_compress_compare(kind, d):
    """codec.compress_compare with d (ML-KEM-1024's 11, 5 besides 768's 10, 4): x9 = 0 when
    the decoded ciphertext (y << (16 - d)) is Compress_d(w + e [+ 1665 * message bit]) of
    kyber-py, non-zero when one coefficient of it is off by one."""
    from ip.acc.kernels.mlkem import codec
    cw = codec.const_words()
    names = sorted(cw)
    ka = {n: 8192 + 32 * i for i, n in enumerate(names)}
    rng = random.Random(d)
    w = [rng.randrange(3329) for _ in range(256)]
    w[:3] = [0, 3328, 1664]
    e = [rng.randrange(3329) for _ in range(256)]
    bits = [rng.randrange(2) for _ in range(256)]
    R = KEM.R
    x = R(w) + R(e) + (R([1665 * b for b in bits]) if kind == "v" else R([0] * 256))
    y = list(x.compress(d).coeffs)
    msk = codec.u16([0xFFFF if b else 0 for b in bits])
    src = "\n".join(codec.compress_compare(kind, 0, 512, 1024, ka, msk=1536, d=d) +
                    ["ecall"])
    for seeded in (False, True):
        yy = list(y)
        if seeded:
            yy[77] = (yy[77] + 1) % (1 << d)
        dm = {0: codec.u16(w), 512: codec.u16(e), 1024: codec.u16([v << (16 - d) for v in yy]),
              1536: msk, **{ka[n]: cw[n] for n in names}}
        sim, h, _ = _run(src, dm, dmem_size=16384, imem_size=16384)
        assert h.ok, h
        assert (sim.gpr.read(9) != 0) == seeded, (kind, d, seeded, sim.gpr.read(9))


def test_decaps_512():
    """ML-KEM-512 decaps (Decaps(2), the generator of the 768 program with k = 2) against
    kyber-py, valid and implicitly rejected ciphertexts, with the taped-out memories (its
    own END and program size within 16 KiB) and the same cycles for both; wrong input
    lengths are refused by name."""
    from kyber_py.ml_kem import ML_KEM_512
    from ip.acc.kernels.mlkem.decaps import Decaps, decaps
    dc = decaps(512)
    src = dc.program()
    imem = len(assemble(src, "mlkem.s")) * 4
    dsz = (dc.END + 31) // 32 * 32
    assert dsz <= 16 * 1024 and imem <= 16 * 1024, (dsz, imem)
    cycles = set()
    for seed, valid in ((41, True), (42, True), (43, False), (44, False)):
        rnd = random.Random(seed)
        ek, dk = ML_KEM_512._keygen_internal(rnd.randbytes(32), rnd.randbytes(32))
        K, c = ML_KEM_512._encaps_internal(ek, rnd.randbytes(32))
        if not valid:                      # one bit of u or of v flipped
            pos = 7 if seed == 43 else 700
            c = c[:pos] + bytes([c[pos] ^ 0x04]) + c[pos + 1:]
        sim, h, _ = _run(src, dc.image(dk=dk, c=c), dmem_size=16 * 1024, imem_size=imem)
        assert h.ok, h
        ref = ML_KEM_512._decaps_internal(dk, c)
        assert (ref == K) == valid
        assert sim.dmem.read_bytes(dc.K_OUT, 32) == ref
        cycles.add(h.cycles)
    assert len(cycles) == 1, cycles
    print(f"\nML-KEM-512 Decaps on the ISS: {h.cycles} cycles, IMEM {imem} B, DMEM {dc.END} B")
    with pytest.raises(ValueError, match="c must be 768 bytes"):
        dc.image(dk=dk, c=c[:-1])
    with pytest.raises(ValueError, match="512, 768, 1024"):
        decaps(1023)
    with pytest.raises(ValueError, match="k must be"):
        Decaps(5)


@pytest.mark.parametrize("seed", [51, 52])
def test_decaps_1024(seed):
    """ML-KEM-1024 decaps (Decaps(4): the same generator, its own DMEM layout in 16 KiB)
    on the ISS with the taped-out memories: K equals kyber-py's and `cryptography`'s
    (MLKEM1024PrivateKey from the seed d || z) for a valid ciphertext, and J(z || c) (kyber-py's
    implicit rejection) for one with a bit of u, of v flipped; the same cycles for all three."""
    from cryptography.hazmat.primitives.asymmetric import mlkem as cmlkem
    from kyber_py.ml_kem import ML_KEM_1024
    from ip.acc.kernels.mlkem.decaps import decaps
    dc = decaps(1024)
    src = dc.program()
    imem = len(assemble(src, "mlkem.s")) * 4
    assert dc.END <= 16 * 1024 and imem <= 16 * 1024, (dc.END, imem)
    rnd = random.Random(seed)
    d, z = rnd.randbytes(32), rnd.randbytes(32)
    ek, dk = ML_KEM_1024._keygen_internal(d, z)
    theirs = cmlkem.MLKEM1024PrivateKey.from_seed_bytes(d + z)
    K, c = theirs.public_key().encapsulate()
    cycles = set()
    for pos in (None, 11, len(c) - 3):     # valid, a bit of u, a bit of v flipped
        ct = c if pos is None else c[:pos] + bytes([c[pos] ^ 0x10]) + c[pos + 1:]
        sim, h, _ = _run(src, dc.image(dk=dk, c=ct), dmem_size=16 * 1024, imem_size=16 * 1024)
        assert h.ok, h
        got = dc.outputs(sim.dmem.read_bytes(0, 16 * 1024))
        ref = ML_KEM_1024._decaps_internal(dk, ct)
        assert got == ref
        assert (got == K) == (pos is None)
        if pos is None:
            assert theirs.decapsulate(ct) == got
        cycles.add(h.cycles)
    assert len(cycles) == 1, cycles
    print(f"\nML-KEM-1024 Decaps on the ISS: {h.cycles} cycles, IMEM {imem} B, DMEM {dc.END} B")
