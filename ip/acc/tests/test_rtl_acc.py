"""The ACC RTL (emitted Verilog under Verilator, driven through its host bus) against the ISS.

- lockstep fuzz: random programs (every base/loop/wide/vector/NTT instruction, KMAC side-load
  sessions against a real KMAC block, every error class, both VMODEs, hazards) on the ISS and
  the RTL; halt, ERR_BITS, cycles, instructions,
  stop PC and the whole DMEM (which holds the final registers) must be equal;
- kernels: the NTT / INTT kernels give kyber-py's / dilithium-py's results on the RTL, in
  exactly the ISS's cycle count.
"""
import random

import pytest
from dilithium_py.polynomials.polynomials import PolynomialRing as DilithiumRing
from kyber_py.polynomials.polynomials import PolynomialRing as KyberRing

from ip.acc.kernels import ntt_mldsa, ntt_mlkem
from ip.acc.tests.iss_util import DSA, ISA, KEM, SET_VMODE1, pack, unpack, w256
from pqsoc.acc import fuzz
from pqsoc.acc.asm import assemble

FUZZ_COUNT = 200


@pytest.fixture(scope="module")
def rtl_small():
    from ip.acc.rtl.fuzz_backend import RtlBackend
    return RtlBackend(2048, 2048)


def test_fuzz_lockstep_rtl_vs_iss(rtl_small):
    cfg = fuzz.FuzzConfig(kmac=True)     # with KMAC sessions and misuse: the RTL has a KMAC
    passed, failed, failures = fuzz.fuzz(FUZZ_COUNT, 11, fuzz.IssBackend(2048, 2048), rtl_small, cfg)
    msg = "\n".join(f"program {f.index} ({f.program.desc}):\n  " + "\n  ".join(f.diffs)
                    for f in failures[:3])
    assert failed == 0 and passed == FUZZ_COUNT, msg


def _kernel_jobs():
    """(name, source, dmem image, mode, reference output) for each kernel."""
    jobs = []
    rng = random.Random(5)
    c = [rng.randrange(3329) for _ in range(256)]
    dm = {32 * r: w256(pack(c[16 * r:16 * r + 16], KEM)) for r in range(16)}
    dm.update({ntt_mlkem.TWID + 32 * t: w256(pack(w, KEM)) for t, w in enumerate(ntt_mlkem.twiddle_words())})
    jobs.append(("ML-KEM NTT", ntt_mlkem.program(), dm, KEM, KyberRing()(list(c)).to_ntt().coeffs))
    dm = {32 * r: w256(pack(c[16 * r:16 * r + 16], KEM)) for r in range(16)}
    dm.update({ntt_mlkem.ITWID + 32 * t: w256(pack(w, KEM))
               for t, w in enumerate(ntt_mlkem.itwiddle_words())})
    dm[ntt_mlkem.ISCALE] = w256(pack(ntt_mlkem.iscale_word(), KEM))
    jobs.append(("ML-KEM INTT", ntt_mlkem.intt_program(), dm, KEM,
                 KyberRing()(list(c), is_ntt=True).from_ntt().coeffs))
    q = ntt_mldsa.Q
    d = [rng.randrange(q) for _ in range(256)]
    dm = {32 * r: w256(pack(d[8 * r:8 * r + 8], DSA)) for r in range(32)}
    dm.update({ntt_mldsa.TWID + 32 * t: w256(pack(w, DSA)) for t, w in enumerate(ntt_mldsa.twiddle_words())})
    jobs.append(("ML-DSA NTT", SET_VMODE1 + ntt_mldsa.program(), dm, DSA,
                 [x % q for x in DilithiumRing()(list(d)).to_ntt().coeffs]))
    dm = {32 * r: w256(pack(d[8 * r:8 * r + 8], DSA)) for r in range(32)}
    dm.update({ntt_mldsa.ITWID + 32 * t: w256(pack(w, DSA))
               for t, w in enumerate(ntt_mldsa.itwiddle_words())})
    jobs.append(("ML-DSA INTT", SET_VMODE1 + ntt_mldsa.intt_program(), dm, DSA,
                 [x % q for x in DilithiumRing()(list(d), is_ntt=True).from_ntt().coeffs]))
    return jobs


def _image(dm, size):
    img = bytearray(size)
    for addr, blob in dm.items():
        img[addr:addr + len(blob)] = blob
    return bytes(img)


def test_kernels_on_rtl_match_reference_and_iss_cycles():
    from ip.acc.rtl.fuzz_backend import RtlBackend
    size = 4096
    rtl = RtlBackend(size, size)
    iss = fuzz.IssBackend(size, size)
    jobs = _kernel_jobs()
    progs = [(assemble(src, f"{name}.s", ISA), _image(dm, size), 20_000)
             for name, src, dm, _, _ in jobs]
    got = rtl.run_many(progs)
    for (name, _, _, mode, ref), (words, img, lim), r in zip(jobs, progs, got):
        i = iss.run(words, img, lim)
        out = []
        for k in range(256 // mode[0]):
            out += unpack(int.from_bytes(r.dmem[32 * k:32 * k + 32], "little"), mode)
        assert r.halt == "ecall" and out == ref, name
        assert fuzz.compare(i, r, ("iss", "rtl")) == [], name
        print(f"\n{name}: {r.cycles} cycles on the RTL = ISS")
