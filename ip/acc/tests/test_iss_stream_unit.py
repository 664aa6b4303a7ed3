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


# ----------------------------------------------------------------------- masked modes
def _masked_program(mode: str, prefix: str = "", during: str = "") -> str:
    """SHAKE256 (masked) of the seed word sent in two shares (share 1 = 0 here: the KMAC XORs
    them), sampled by `mode` into share 0 at OUT and share 1 right after; `during` runs
    while the unit does."""
    return (prefix + "bn.lw w1, 0(x0)\nbn.bcast w2, x0\naddi x3, x0, -1\n"
            f"addi x1, x0, {1 | 2 << 2 | 1 << 5}\naddi x5, x0, {sample.OUT}\naddi x4, x0, 256\n"
            "kmac.acq\nkmac.start x1, x0\nkmac.msgm w1, w2, x3\nkmac.finish\n"
            f"smp.run x5, x4, {mode}\n{during}smp.wait\nkmac.rel\necall\n")


@pytest.mark.parametrize("mode,eta", [("cbd2m", 2), ("cbd3m", 3)])
def test_masked_cbd_modes_write_two_arithmetic_shares(mode, eta):
    """E0 at OUT, E1 right after (16 words later): E0 + E1 = kyber-py's CBD_eta of
    SHAKE256(seed), neither share the polynomial."""
    import hashlib
    seed = random.Random(eta).randbytes(32)
    sim, h = run(_masked_program(mode), dmem={0: seed})
    assert h.ok, h
    blob = sim.dmem.read_bytes(sample.OUT, 1024)
    e0 = [int.from_bytes(blob[2 * k:2 * k + 2], "little") for k in range(256)]
    e1 = [int.from_bytes(blob[512 + 2 * k:512 + 2 * k + 2], "little") for k in range(256)]
    want = KEM.R.cbd(hashlib.shake_256(seed).digest(64 * eta), eta).coeffs
    assert [(a + b) % 3329 for a, b in zip(e0, e1)] == want
    assert e0 != want and e1 != want


# core work beside a masked job that stores into its write cycles: every cycle, every other
# cycle (the unit then finds no free cycle until the loop ends), a store after a load
PORT_DURING = {"every": "loopi 48, 1\nbn.sw w3, 64(x0)\n",
               "alternate": "loopi 48, 2\nbn.sw w3, 64(x0)\naddi x0, x0, 0\n",
               "mixed": "loopi 40, 3\nbn.lw w4, 96(x0)\nbn.sw w3, 64(x0)\naddi x0, x0, 0\n"
                        "loopi 40, 4\nbn.sw w3, 64(x0)\naddi x0, x0, 0\naddi x0, x0, 0\naddi x0, x0, 0\n"}


@pytest.mark.parametrize("mode,during", [(m, d) for m in ("cbd2m", "cbd3m") for d in PORT_DURING])
def test_masked_words_and_core_stores_never_meet_on_the_write_port(mode, during):
    """While a masked mode runs, a core store never comes in the cycle after the unit's write
    (the store waits a cycle) nor the unit's write in the cycle after a core store: the write
    wires carry 0 between the core's words and the shares (isa.yml smp.run). The rule is
    exercised (stores wait) and the shares still add up to kyber-py's CBD."""
    import hashlib
    eta = int(mode[3])
    seed = random.Random(eta).randbytes(32)
    sim = Iss(ISA)
    log, cycle = [], sim._cycle

    def traced(*a, **kw):                       # (core stored, unit wrote a masked word)
        out = cycle(*a, **kw)
        log.append((kw.get("core_store", False), sim._smp_wrote, kw.get("port_wait", False)))
        return out
    sim._cycle = traced
    sim, h = run(_masked_program(mode, prefix="bn.bcast w3, x0\n", during=PORT_DURING[during]),
                 sim=sim, dmem={0: seed})
    assert h.ok, h
    unit = [u for _, u, _ in log]
    core = [c for c, _, _ in log]
    assert sum(unit) == 32 and sum(core) >= 48
    assert not any(unit[t] and core[t + 1] for t in range(len(log) - 1))
    assert not any(core[t] and unit[t + 1] for t in range(len(log) - 1))
    # "every", "alternate": no cycle is free for the unit until the loop ends; "mixed": stores wait
    assert any(w for _, _, w in log) == (during == "mixed")
    blob = sim.dmem.read_bytes(sample.OUT, 1024)
    e0 = [int.from_bytes(blob[2 * k:2 * k + 2], "little") for k in range(256)]
    e1 = [int.from_bytes(blob[512 + 2 * k:512 + 2 * k + 2], "little") for k in range(256)]
    assert [(a + b) % 3329 for a, b in zip(e0, e1)] == KEM.R.cbd(hashlib.shake_256(seed).digest(64 * eta), eta).coeffs


MASKED_ERRORS = [
    # (what, program, error): URND belongs to the unit while a masked mode runs
    ("URND CSR read", _masked_program("cbd2m", during="csrrs x9, URND, x0\n"), "SAMPLER"),
    ("URND WSR read", _masked_program("cbd3m", during="bn.wsrr w9, URND\n"), "SAMPLER"),
    ("URND reseed", _masked_program("cbd2m", during="bn.wsrw URND, w1\n"), "SAMPLER"),
    ("VMODE 1", _masked_program("cbd2m", prefix="addi x9, x0, 1\ncsrrw x0, VMODE, x9\n"), "SAMPLER"),
    # share 1's 16 words would end past DMEM: the bounds count both polynomials
    ("share 1 past DMEM", _masked_program("cbd2m").replace(      # 32 KiB: share 0 fits
        f"addi x5, x0, {sample.OUT}", "lui x5, 8\naddi x5, x5, -512"), "SAMPLER"),
]


@pytest.mark.parametrize("what,src,err", MASKED_ERRORS, ids=[e[0] for e in MASKED_ERRORS])
def test_masked_mode_errors(what, src, err):
    sim, h = run(src, dmem={0: bytes(32)})
    assert h.reason == "error" and h.errors == [err], (what, h)


def test_urnd_after_the_masked_job_is_free_again():
    """After smp.wait the core draws URND as before: the unit's steps are in its state."""
    sim, h = run(_masked_program("cbd2m").replace("ecall\n", "csrrs x9, URND, x0\necall\n"),
                 dmem={0: bytes(32)})
    assert h.ok, h


def _b2a_program(src: int = 2048, count: int = 256, during: str = "") -> str:
    """b2a1m of the bits at src (share 0), src + 32 (a public zero word), src + 64 (share 1)
    into share 0 at OUT and share 1 right after; URND seeded from a word at 0."""
    return (f"bn.lw w1, 0(x0)\nbn.wsrw URND, w1\nbn.bcast w1, x0\naddi x6, x0, 1\nslli x6, x6, 11\n"
            f"addi x6, x6, {src - 2048}\ncsrrw x0, SMP_SRC, x6\naddi x5, x0, {sample.OUT}\n"
            f"addi x4, x0, {count}\nsmp.run x5, x4, b2a1m\n{during}smp.wait\necall\n")


def _b2a_dmem(x: int, x0: int, src: int = 2048) -> dict:
    return {0: bytes(range(32)), src: x0.to_bytes(32, "little"), src + 32: bytes(32),
            src + 64: (x ^ x0).to_bytes(32, "little")}


@pytest.mark.parametrize("count", [256, 40])
def test_b2a1m_gives_each_bit_in_two_arithmetic_shares(count):
    rng = random.Random(count)
    x, x0 = rng.getrandbits(256), rng.getrandbits(256)
    sim, h = run(_b2a_program(count=count), dmem=_b2a_dmem(x, x0))
    assert h.ok, h
    words = -(-count // 16)
    blob = sim.dmem.read_bytes(sample.OUT, 64 * words)
    e0 = [int.from_bytes(blob[2 * k:2 * k + 2], "little") for k in range(count)]
    e1 = [int.from_bytes(blob[32 * words + 2 * k:32 * words + 2 * k + 2], "little") for k in range(count)]
    bits = [(x >> i) & 1 for i in range(count)]
    assert [(a + b) % 3329 for a, b in zip(e0, e1)] == bits
    assert e0 != bits and e1 != bits


B2A_ERRORS = [
    ("count > 256", _b2a_program(count=257)),
    ("source misaligned", _b2a_program(src=2048 + 4)),
    ("source past DMEM", _b2a_program().replace("slli x6, x6, 11", "slli x6, x6, 15")),
    ("URND read while it runs", _b2a_program(during="csrrs x9, URND, x0\n")),
]


@pytest.mark.parametrize("what,src", B2A_ERRORS, ids=[e[0] for e in B2A_ERRORS])
def test_b2a1m_errors(what, src):
    sim, h = run(src, dmem=_b2a_dmem(1, 2))
    assert h.reason == "error" and h.errors == ["SAMPLER"], (what, h)
