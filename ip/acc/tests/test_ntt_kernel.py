# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""The NTT schedules (ip/acc/kernels/mlkem/ntt.py, mldsa/ntt.py) assemble, fit the cycle
budget, and compute FIPS 203's / FIPS 204's NTT under the bn.bfly.ct semantics of isa.yml.

The kernels run on the ISS (ip/acc/iss); see also test_iss_kernels.py.
"""
import random

from dilithium_py.polynomials.polynomials import PolynomialRing as DilithiumRing
from kyber_py.polynomials.polynomials import PolynomialRing

from ip.acc.kernels.mldsa import ntt as ntt_mldsa
from ip.acc.kernels.mlkem import ntt as ntt_mlkem
from ip.acc.tools.asm import assemble
from ip.acc.tools.isa import load_isa
from ip.acc.iss import Iss

ISA = load_isa()

Q, LANES, W = 3329, 16, 16
RINV = pow(1 << 16, -1, Q)


def vmode(mode):
    """Set the executor's lane configuration (VMODE 0 / 1)."""
    global Q, LANES, W, RINV
    Q, LANES, W = ((3329, 16, 16), (8380417, 8, 32))[mode]
    RINV = pow(1 << W, -1, Q)


def lanes(word):
    return [(word >> (W * i)) & ((1 << W) - 1) for i in range(LANES)]


def pack(vals):
    return sum((v & ((1 << W) - 1)) << (W * i) for i, v in enumerate(vals))


def run(words, dmem):
    """Run the kernel on the ISS (ip.acc.iss); dmem maps 32-byte word index -> value,
    updated in place. VMODE is set by the host as vmode() selected. Returns cycles."""
    sim = Iss(ISA)
    sim.csr.write(ISA.csrs["VMODE"]["addr"], int(LANES == 8))
    sim.load_program(words)
    for r, value in dmem.items():
        sim.dmem.write_bytes(32 * r, value.to_bytes(32, "little"))
    halt = sim.run(max_cycles=10_000)
    assert halt.ok, halt
    for r in dmem:
        dmem[r] = int.from_bytes(sim.dmem.read_bytes(32 * r, 32), "little")
    return halt.cycles


def test_mlkem_ntt_kernel_matches_fips203():
    vmode(0)
    words = assemble(ntt_mlkem.program(), "ntt_mlkem.s")
    ring = PolynomialRing()
    rng = random.Random(7)
    for _ in range(5):
        coeffs = [rng.randrange(Q) for _ in range(256)]
        dmem = {r: pack(coeffs[16 * r:16 * r + 16]) for r in range(16)}
        for t, tw in enumerate(ntt_mlkem.twiddle_words()):
            dmem[ntt_mlkem.TWID // 32 + t] = pack(tw)
        cycles = run(words, dmem)
        got = [c for r in range(16) for c in lanes(dmem[r])]
        assert got == ring(list(coeffs)).to_ntt().coeffs
    # two passes over 8 of the 16 registers: 2 x 16 data loads and stores, 8 twiddle loads,
    # 56 butterflies, ecall (<= 400); the multiplier takes one butterfly every 2 cycles:
    # >= 128 cycles, 140 list-scheduled (ip/acc/tools/sched.py)
    assert len(words) == 129
    assert cycles <= 140


def test_mldsa_ntt_kernel_matches_fips204():
    vmode(1)
    try:
        words = assemble(ntt_mldsa.program(), "ntt_mldsa.s")
        ring = DilithiumRing()
        rng = random.Random(8)
        for _ in range(3):
            coeffs = [rng.randrange(Q) for _ in range(256)]
            dmem = {r: pack(coeffs[8 * r:8 * r + 8]) for r in range(32)}
            for t, tw in enumerate(ntt_mldsa.twiddle_words()):
                dmem[ntt_mldsa.TWID // 32 + t] = pack(tw)
            cycles = run(words, dmem)
            got = [c for r in range(32) for c in lanes(dmem[r])]
            assert got == [c % Q for c in ring(list(coeffs)).to_ntt().coeffs]
    finally:
        vmode(0)
    # 64 + 64 data loads/stores, 128 butterflies, 32 twiddle loads, ecall: 289 issue cycles,
    # >= 256 for the multiplier (one butterfly every 2 cycles); 304 list-scheduled (<= 400)
    assert len(words) == 289
    assert cycles <= 400
    assert cycles <= 304


def test_mlkem_intt_kernel_inverts_fips203():
    vmode(0)
    words = assemble(ntt_mlkem.intt_program(), "intt_mlkem.s")
    ring = PolynomialRing()
    rng = random.Random(9)
    for _ in range(3):
        coeffs = [rng.randrange(Q) for _ in range(256)]
        dmem = {r: pack(coeffs[16 * r:16 * r + 16]) for r in range(16)}
        for t, tw in enumerate(ntt_mlkem.itwiddle_words()):
            dmem[ntt_mlkem.ITWID // 32 + t] = pack(tw)
        dmem[ntt_mlkem.ISCALE // 32] = pack(ntt_mlkem.iscale_word())
        cycles = run(words, dmem)
        got = [c for r in range(16) for c in lanes(dmem[r])]
        assert got == ring(list(coeffs), is_ntt=True).from_ntt().coeffs
    # 2 x 16 data loads and stores, 9 twiddle / scale loads, 56 GS butterflies, 16
    # scalings, ecall; 72 multiplier instructions, one every 2 cycles (<= 400)
    assert len(words) == 146 and cycles <= 181
