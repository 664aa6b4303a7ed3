# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""Stream unit in the ISS (KMAC side-load + rejection samplers), programs checked against
kyber-py / dilithium-py; error cases end in defined halts and the next program runs."""
import random

import pytest
from dilithium_py.ml_dsa import ML_DSA_65
from kyber_py.ml_kem import ML_KEM_768

from ip.acc.kernels import sample
from ip.acc.tests.iss_util import ISA, run
from ip.acc.iss import Iss

KEM = ML_KEM_768
DSA = ML_DSA_65


def _poly(sim, vmode, count=256):
    w = 4 if vmode else 2
    blob = sim.dmem.read_bytes(sample.OUT, count * w)
    return [int.from_bytes(blob[k * w:k * w + w], "little") for k in range(count)]


def _sample_run(sim, src, seed: bytes, suffix: bytes):
    dm = {sample.SEED: seed, sample.SEED + 32: suffix}
    return run(src, sim=sim, dmem=dm)


@pytest.mark.parametrize("i,j", [(0, 0), (2, 1)])
def test_mlkem_matrix_entry(i, j):
    rho = random.Random(i * 7 + j).randbytes(32)
    sim, h = _sample_run(None, sample.program(sample.SHAKE128, 2, "uni12"), rho, bytes([j, i]))
    assert h.ok, h
    ref = list(KEM.R.ntt_sample(KEM._xof(rho, bytes([j]), bytes([i]))).coeffs)
    assert _poly(sim, 0) == ref
    print(f"\nML-KEM A_hat[{i}][{j}] on the ISS: {h.cycles} cycles")


@pytest.mark.parametrize("i,j", [(0, 0), (5, 4)])
def test_mldsa_matrix_entry(i, j):
    rho = random.Random(100 + i * 7 + j).randbytes(32)
    sim, h = _sample_run(None, sample.program(sample.SHAKE128, 2, "uni23", vmode=1), rho,
                         bytes([j, i]))
    assert h.ok, h
    ref = [x % DSA.R.q for x in DSA.R.rejection_sample_ntt_poly(rho, i, j).coeffs]
    assert _poly(sim, 1) == ref
    print(f"\nML-DSA A_hat[{i}][{j}] on the ISS: {h.cycles} cycles")


def test_mlkem_cbd2_from_prf():
    sigma = random.Random(3).randbytes(32)
    sim, h = _sample_run(None, sample.program(sample.SHAKE256, 1, "cbd2"), sigma, bytes([5]))
    assert h.ok, h
    ref = [x % 3329 for x in KEM.R.cbd(KEM._prf(2, sigma, bytes([5])), 2).coeffs]
    assert _poly(sim, 0) == ref


def test_status_csr_and_background_run():
    """smp.run returns at once; SMP_STATUS shows busy and then the count; core work overlaps."""
    src = sample.program(sample.SHAKE128, 2, "uni12").replace(
        "smp.wait", "csrrs x10, SMP_STATUS, x0\naddi x11, x0, 7\nsmp.wait\ncsrrs x12, SMP_STATUS, x0")
    sim, h = _sample_run(None, src, bytes(32), bytes(2))
    assert h.ok
    assert sim.gpr.read(10) & 1 == 1
    assert sim.gpr.read(12) == 256 << 16


ERRORS = [
    # (what, program edit, error)
    ("no hold", lambda s: s.replace("kmac.acq\n", ""), "KMAC"),
    ("bad mode", lambda s: s.replace("uni12", "pack"), "SAMPLER"),
    ("misaligned dst", lambda s: s.replace(f"addi x5, x0, {sample.OUT}", "addi x5, x0, 1028"), "SAMPLER"),
    ("dst past DMEM", lambda s: s.replace(f"addi x5, x0, {sample.OUT}", "lui x5, 8"), "SAMPLER"),
    ("busy", lambda s: s.replace("smp.wait", "smp.run x5, x4, uni12"), "SAMPLER"),
    ("dig while busy", lambda s: s.replace("smp.wait", "kmac.dig w3"), "KMAC"),
    ("rel while busy", lambda s: s.replace("smp.wait", "kmac.rel"), "KMAC"),
]


@pytest.mark.parametrize("what,edit,err", ERRORS, ids=[e[0] for e in ERRORS])
def test_errors_then_clean_run(what, edit, err):
    sim = Iss(ISA)
    src = edit(sample.program(sample.SHAKE128, 2, "uni12"))
    sim, h = _sample_run(sim, src, bytes(32), bytes(2))
    assert h.reason == "error" and h.errors == [err], (what, h)
    rho = bytes(range(32))
    sim.reset()
    sim, h = _sample_run(sim, sample.program(sample.SHAKE128, 2, "uni12"), rho, bytes([1, 2]))
    assert h.ok, h
    assert _poly(sim, 0) == list(KEM.R.ntt_sample(KEM._xof(rho, bytes([1]), bytes([2]))).coeffs)


def test_unit_before_finish_is_a_sampler_error_not_a_hang():
    """Unbounded message (no declared length) and no FINISH: the unit's digest request is
    answered with DIGEST_EARLY, smp.wait halts with SAMPLER and ERR_KMAC = 0x20."""
    src = sample.program(sample.SHAKE128, 2, "uni12").replace("addi x2, x0, 34", "addi x2, x0, 0")
    sim, h = _sample_run(None, src, bytes(32), bytes(2))
    assert h.reason == "error" and h.errors == ["SAMPLER"], h
    assert sim.csr.values["ERR_KMAC"] == 0x20
