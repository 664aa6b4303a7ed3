# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""The NTT kernels of ip/acc/kernels run on the ISS and match kyber-py / dilithium-py.
Prints the ISS cycle counts (issue cycles + result-latency stalls)."""
import random

from dilithium_py.polynomials.polynomials import PolynomialRing as DilithiumRing
from kyber_py.polynomials.polynomials import PolynomialRing as KyberRing

from ip.acc.kernels.mldsa import ntt as ntt_mldsa
from ip.acc.kernels.mlkem import ntt as ntt_mlkem
from ip.acc.tests.iss_util import DSA, ISA, KEM, SET_VMODE1, pack, unpack, w256
from ip.acc.tools.asm import assemble
from ip.acc.iss import Iss


def _run(src, dmem_words, mode, nregs):
    sim = Iss(ISA)
    sim.load_program(assemble(src, "kernel.s", ISA))
    for addr, vals in dmem_words.items():
        sim.dmem.write_bytes(addr, w256(pack(vals, mode)))
    h = sim.run(max_cycles=10_000)
    assert h.ok, h
    lanes = mode[0]
    out = []
    for r in range(nregs):
        out += unpack(int.from_bytes(sim.dmem.read_bytes(32 * r, 32), "little"), mode)
    assert len(out) == 256 and lanes * nregs == 256
    return out, h


def _issue_cycles(src):
    return sum(ISA.decode(w)[0].cycles for w in assemble(src, "k.s", ISA))


def test_mlkem_ntt_on_iss():
    src = ntt_mlkem.program()
    ring, rng = KyberRing(), random.Random(11)
    for _ in range(3):
        c = [rng.randrange(3329) for _ in range(256)]
        dm = {32 * r: c[16 * r:16 * r + 16] for r in range(16)}
        dm.update({ntt_mlkem.TWID + 32 * t: w for t, w in enumerate(ntt_mlkem.twiddle_words())})
        got, h = _run(src, dm, KEM, 16)
        assert got == ring(list(c)).to_ntt().coeffs
    print(f"\nML-KEM NTT on ISS: {h.cycles} cycles ({_issue_cycles(src)} issue), "
          f"{h.insns} instructions")
    assert h.cycles <= 140


def test_mlkem_intt_on_iss():
    src = ntt_mlkem.intt_program()
    ring, rng = KyberRing(), random.Random(12)
    for _ in range(3):
        c = [rng.randrange(3329) for _ in range(256)]
        dm = {32 * r: c[16 * r:16 * r + 16] for r in range(16)}
        dm.update({ntt_mlkem.ITWID + 32 * t: w
                   for t, w in enumerate(ntt_mlkem.itwiddle_words())})
        dm[ntt_mlkem.ISCALE] = ntt_mlkem.iscale_word()
        got, h = _run(src, dm, KEM, 16)
        assert got == ring(list(c), is_ntt=True).from_ntt().coeffs
    print(f"\nML-KEM INTT on ISS: {h.cycles} cycles ({_issue_cycles(src)} issue), "
          f"{h.insns} instructions")
    assert h.cycles <= 181


def test_mldsa_ntt_on_iss():
    src = SET_VMODE1 + ntt_mldsa.program()
    ring, rng = DilithiumRing(), random.Random(13)
    q = 8380417
    for _ in range(2):
        c = [rng.randrange(q) for _ in range(256)]
        dm = {32 * r: c[8 * r:8 * r + 8] for r in range(32)}
        dm.update({ntt_mldsa.TWID + 32 * t: w for t, w in enumerate(ntt_mldsa.twiddle_words())})
        got, h = _run(src, dm, DSA, 32)
        assert got == [x % q for x in ring(list(c)).to_ntt().coeffs]
    print(f"\nML-DSA NTT on ISS: {h.cycles} cycles incl. 2-insn VMODE set-up "
          f"({_issue_cycles(src)} issue), {h.insns} instructions")
    assert h.cycles <= 400
    assert h.cycles <= 306
