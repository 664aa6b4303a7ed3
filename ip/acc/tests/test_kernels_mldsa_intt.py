# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""ML-DSA inverse NTT kernel (ip/acc/kernels/mldsa/ntt.py: intt_program) on the ISS, equal to
dilithium-py's PolynomialNTT.from_ntt (including its 256^-1 scaling). Prints ISS cycles."""
import random

from dilithium_py.polynomials.polynomials import PolynomialRing as DilithiumRing

from ip.acc.kernels.mldsa import ntt as ntt_mldsa
from ip.acc.tests.iss_util import DSA, ISA, SET_VMODE1, pack, unpack, w256
from ip.acc.tools.asm import assemble
from ip.acc.iss import Iss

Q = 8380417


def _run(src, coeffs, mont=False):
    sim = Iss(ISA)
    sim.load_program(assemble(src, "intt.s", ISA))
    for r in range(32):
        sim.dmem.write_bytes(ntt_mldsa.POLY + 32 * r, w256(pack(coeffs[8 * r:8 * r + 8], DSA)))
    for t, w in enumerate(ntt_mldsa.itwiddle_words(mont)):
        sim.dmem.write_bytes(ntt_mldsa.ITWID + 32 * t, w256(pack(w, DSA)))
    h = sim.run(max_cycles=10_000)
    assert h.ok, h
    out = []
    for r in range(32):
        out += unpack(int.from_bytes(sim.dmem.read_bytes(ntt_mldsa.POLY + 32 * r, 32), "little"),
                      DSA)
    return out, h


def test_mldsa_intt_matches_dilithium_py():
    src = SET_VMODE1 + ntt_mldsa.intt_program()
    ring = DilithiumRing()
    for seed in (21, 22, 23):
        rng = random.Random(seed)
        c = [rng.randrange(Q) for _ in range(256)]
        got, h = _run(src, c)
        assert got == ring(list(c), is_ntt=True).from_ntt().coeffs
    issue = sum(ISA.decode(w)[0].cycles for w in assemble(src, "k.s", ISA))
    print(f"\nML-DSA INTT: {h.cycles} cycles incl. 2-insn VMODE set-up ({issue} issue), "
          f"{h.insns} instructions")
    # 33 twiddle + 64 data loads, 128 GS butterflies, 16 scalings, 64 stores, ecall
    # 144 multiplier instructions, one every 2 cycles: >= 288
    assert h.cycles <= 400
    assert h.cycles <= 336


def test_mldsa_ntt_then_intt_round_trip():
    """Forward kernel then inverse kernel gives the input back."""
    fwd = ntt_mldsa.program().replace("ecall\n", "")
    src = SET_VMODE1 + fwd + ntt_mldsa.intt_program()
    rng = random.Random(24)
    c = [rng.randrange(Q) for _ in range(256)]
    sim = Iss(ISA)
    sim.load_program(assemble(src, "rt.s", ISA))
    for r in range(32):
        sim.dmem.write_bytes(32 * r, w256(pack(c[8 * r:8 * r + 8], DSA)))
    for t, w in enumerate(ntt_mldsa.twiddle_words()):
        sim.dmem.write_bytes(ntt_mldsa.TWID + 32 * t, w256(pack(w, DSA)))
    for t, w in enumerate(ntt_mldsa.itwiddle_words()):
        sim.dmem.write_bytes(ntt_mldsa.ITWID + 32 * t, w256(pack(w, DSA)))
    assert sim.run(max_cycles=10_000).ok
    got = []
    for r in range(32):
        got += unpack(int.from_bytes(sim.dmem.read_bytes(32 * r, 32), "little"), DSA)
    assert got == c


def test_mldsa_intt_mont_variant_removes_montgomery_factor():
    """itwiddle_words(mont=True): output = from_ntt(x) * 2^32 mod q, which cancels the 2^-32
    of a bn.mulvm pointwise product."""
    src = SET_VMODE1 + ntt_mldsa.intt_program()
    ring = DilithiumRing()
    rng = random.Random(25)
    c = [rng.randrange(Q) for _ in range(256)]
    got, _ = _run(src, c, mont=True)
    assert got == [x * (1 << 32) % Q for x in ring(list(c), is_ntt=True).from_ntt().coeffs]
