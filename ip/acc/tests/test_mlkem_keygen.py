# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""ML-KEM.KeyGen_internal(d, z) on the ISS (ip/acc/kernels/mlkem/keygen.py) for ML-KEM-512,
-768 and -1024 against kyber-py, and for 768 / 1024 against the `cryptography` package
(OpenSSL); ByteEncode12 (codec.encode12) on its own; cycles printed."""
import random

import pytest
from kyber_py.ml_kem import ML_KEM_512, ML_KEM_768, ML_KEM_1024

from ip.acc import block as acc_block
from ip.acc.iss import Iss
from ip.acc.kernels.mlkem import codec
from ip.acc.kernels.mlkem.keygen import Keygen, keygen
from ip.acc.tests.iss_util import SET_VMODE1
from ip.acc.tools.asm import assemble

REF = {512: ML_KEM_512, 768: ML_KEM_768, 1024: ML_KEM_1024}
_WORDS = {}


def _words(param):
    if param not in _WORDS:
        _WORDS[param] = assemble(keygen(param).program(), f"keygen{param}.s")
    return _WORDS[param]


def _run(param, d, z, dmem_size=acc_block.DMEM_SIZE, imem_size=acc_block.IMEM_SIZE):
    """Keygen of the set on an ISS with the taped-out memories: (ek, dk, halt)."""
    kg = keygen(param)
    sim = Iss(dmem_size=dmem_size, imem_size=imem_size)
    sim.load_program(_words(param))
    for a, b in kg.image(d, z).items():
        sim.dmem.write_bytes(a, b)
    h = sim.run(max_cycles=100_000)
    assert h.ok, h
    ek, dk = kg.outputs(sim.dmem.read_bytes(0, kg.END))
    return ek, dk, h


@pytest.mark.parametrize("param", [512, 768, 1024])
@pytest.mark.parametrize("seed", [1, 2])
def test_keygen_equals_kyber_py(param, seed):
    rnd = random.Random(1000 * seed + param)
    d, z = rnd.randbytes(32), rnd.randbytes(32)
    ek, dk, h = _run(param, d, z)
    ref_ek, ref_dk = REF[param]._keygen_internal(d, z)
    assert len(ek) == len(ref_ek) and len(dk) == len(ref_dk)
    assert ek == ref_ek
    assert dk == ref_dk
    print(f"\nML-KEM-{param} KeyGen on the ISS: {h.cycles} cycles, {h.insns} insns, "
          f"IMEM {4 * len(_words(param))} B, DMEM {keygen(param).END} B")


@pytest.mark.parametrize("param", [768, 1024])
def test_keygen_equals_cryptography(param):
    mlkem = pytest.importorskip("cryptography.hazmat.primitives.asymmetric.mlkem")
    cls = {768: mlkem.MLKEM768PrivateKey, 1024: mlkem.MLKEM1024PrivateKey}[param]
    rnd = random.Random(77 + param)
    d, z = rnd.randbytes(32), rnd.randbytes(32)
    ek, dk, _ = _run(param, d, z)
    assert ek == cls.from_seed_bytes(d + z).public_key().public_bytes_raw()
    # and the dk decapsulates what cryptography encapsulates to ek (kyber-py's decaps on
    # our dk: the key is usable, not only equal to one reference's bytes)
    K, c = cls.from_seed_bytes(d + z).public_key().encapsulate()
    assert REF[param].decaps(dk, c) == K


def test_keygen_fits_taped_out_memories():
    """Every set within 16 KiB IMEM / DMEM (block.py), with the tables and buffers inside
    its own END; a different seed d changes ek (no output taken from the image)."""
    for param in (512, 768, 1024):
        kg = keygen(param)
        imem = 4 * len(_words(param))
        assert imem <= acc_block.IMEM_SIZE and kg.END <= acc_block.DMEM_SIZE, (param, imem, kg.END)
        d, z = bytes(range(32)), bytes(range(32, 64))
        ek, dk, _ = _run(param, d, z, dmem_size=acc_block.DMEM_SIZE, imem_size=imem)
        assert (ek, dk) == REF[param]._keygen_internal(d, z)
        ek2, _, _ = _run(param, bytes([1]) + d[1:], z, dmem_size=acc_block.DMEM_SIZE, imem_size=imem)
        assert ek2 != ek


def test_keygen_rejects_bad_parameters():
    with pytest.raises(ValueError, match="512, 768, 1024"):
        keygen(256)
    with pytest.raises(ValueError, match="k must be"):
        Keygen(5)
    with pytest.raises(ValueError, match="32 bytes"):
        keygen(768).image(bytes(31), bytes(32))


@pytest.mark.parametrize("transposed", [False, True])
def test_encode12(transposed):
    """ByteEncode12 of two polynomials (natural or base-case transposed layout) equals
    kyber-py's encode; a seeded error (a coefficient changed) is caught."""
    rng = random.Random(5 + transposed)
    polys = [[rng.randrange(3329) for _ in range(256)] for _ in range(2)]
    polys[0][:3] = [0, 3328, 1]          # the extremes of a reduced coefficient

    def words(c):
        if not transposed:
            return b"".join(codec.u16(c[16 * r:16 * r + 16]) for r in range(16))
        out = b""
        for s in range(8):                  # basemul.transposed_store of words 2s, 2s+1
            x, y = c[32 * s:32 * s + 16], c[32 * s + 16:32 * s + 32]
            out += codec.u16([v for i in range(0, 16, 2) for v in (x[i], y[i])])
            out += codec.u16([v for i in range(1, 16, 2) for v in (x[i], y[i])])
        return out
    kc = 4096
    ka = {n: kc + 32 * i for i, n in enumerate(codec.ENCODE_CONST_NAMES)}
    cw = codec.const_words()
    src = SET_VMODE1 + "\n".join(codec.encode12(0, 1024, 2, ka, transposed) + ["ecall"])
    ref = ML_KEM_768.M.vector([ML_KEM_768.R(p) for p in polys]).encode(12)
    for seeded in (False, True):
        sim = Iss(dmem_size=8192, imem_size=8192)
        sim.load_program(assemble(src, "enc.s"))
        data = bytearray(words(polys[0]) + words(polys[1]))
        if seeded:
            data[100] ^= 1
        sim.dmem.write_bytes(0, bytes(data))
        for n in codec.ENCODE_CONST_NAMES:
            sim.dmem.write_bytes(ka[n], cw[n])
        h = sim.run(max_cycles=10_000)
        assert h.ok, h
        assert (sim.dmem.read_bytes(1024, 768) == ref) != seeded
    print(f"\nByteEncode12 of 2 polynomials ({'transposed' if transposed else 'natural'}): "
          f"{h.cycles} cycles")


def test_keygen_job_check_catches_a_wrong_key():
    """dv/jobs.mlkem_keygen_jobs' check (the benchmark's and the RTL run's) passes the run
    and fails it with one byte of ek, of the s_hat encoding or of H(ek) changed, or when
    the run did not end in ecall."""
    from dataclasses import replace
    from ip.acc.dv.jobs import MLKEM_MEM, mlkem_keygen_jobs
    from ip.acc.dv.lockstep import IssBackend
    kg = keygen(512)
    (key, words, img, cyc, check), = mlkem_keygen_jobs(512, seed=3)
    r = IssBackend(MLKEM_MEM, MLKEM_MEM).run(words, img, cyc)
    assert check(r) is None
    for addr in (kg.EK + 5, kg.DK + 7, kg.HEK):
        bad = bytearray(r.dmem)
        bad[addr] ^= 0x40
        assert check(replace(r, dmem=bytes(bad))) is not None, addr
    assert "halted" in check(replace(r, halt="cycle_limit"))


def test_keygen_phases():
    """Per-phase cycles of ML-KEM-768 keygen (prefix runs: each phase's cost = difference of
    cumulative counts)."""
    from ip.acc.tests.iss_util import phase_cycles, run_image
    kg = keygen(768)
    dm = kg.image(bytes(range(32)), bytes(32))
    rows, total, _ = phase_cycles(kg.phases(), lambda src: run_image(src, dm),
                                  head=["lui x30, 4"], tail=("kmac.rel", "ecall"))
    print("\nML-KEM-768 KeyGen phases (ISS cycles):")
    for name, n in rows:
        print(f"  {n:6d}  {name}")
    print(f"  {total:6d}  total")
    assert total <= 7_000                  # issue 23's target
