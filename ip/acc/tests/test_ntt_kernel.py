"""The NTT schedules (ip/acc/kernels/ntt_mlkem.py, ntt_mldsa.py) assemble, fit the cycle
budget, and compute FIPS 203's / FIPS 204's NTT under the bn.bfly.ct semantics of isa.yml.

The executor below is a minimal stand-in for the ISS (which does not exist yet): it runs
only bn.lw / bn.sw / bn.bfly.ct / ecall, decoding through the ISA tables.
"""
import random

from dilithium_py.polynomials.polynomials import PolynomialRing as DilithiumRing
from kyber_py.polynomials.polynomials import PolynomialRing

from ip.acc.kernels import ntt_mldsa, ntt_mlkem
from pqsoc.acc.asm import assemble
from pqsoc.acc.isa import load_isa

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
    isa = load_isa()
    wdr = [0] * 32
    cycles = 0
    for word in words:
        insn, v = isa.decode(word)
        cycles += insn.cycles
        m = insn.mnemonic
        if m == "ecall":
            break
        if m == "bn.lw":
            assert v["grs1"] == 0
            wdr[v["wrd"]] = dmem[v["offset"] // 32]
        elif m == "bn.sw":
            dmem[v["offset"] // 32] = wdr[v["wrs"]]
        elif m == "bn.mulvm":
            a, b = lanes(wdr[v["wrs1"]]), lanes(wdr[v["wrs2"]])
            wdr[v["wrd"]] = pack([x * y * RINV % Q for x, y in zip(a, b)])
        elif m in ("bn.bfly.ct", "bn.bfly.gs"):
            a, b, t = lanes(wdr[v["wa"]]), lanes(wdr[v["wb"]]), lanes(wdr[v["wt"]])
            dist = insn.operands["dist"].values[v["dist"]]

            def bf(x, y, z):  # Montgomery products (z in Montgomery form)
                if m == "bn.bfly.gs":
                    return (x + y) % Q, z * (x - y) * RINV % Q
                p = z * y * RINV % Q
                return (x + p) % Q, (x - p) % Q
            if dist == "r":
                z = t[v["tidx"]]
                for i in range(LANES):
                    a[i], b[i] = bf(a[i], b[i], z)
            else:
                n = int(dist[1:])
                g = 0
                for reg in (a, b):
                    for blk in range(0, LANES, 2 * n):
                        z = t[(v["tidx"] + g) % LANES]
                        g += 1
                        for i in range(blk, blk + n):
                            reg[i], reg[i + n] = bf(reg[i], reg[i + n], z)
            wdr[v["wa"]], wdr[v["wb"]] = pack(a), pack(b)
        else:
            raise AssertionError(f"executor does not model {m}")
    return cycles


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
    # 16 + 8 loads, 56 butterflies, 16 stores, ecall; budget in doc/architecture.md: ~110 (<= 400)
    assert len(words) == 97
    assert cycles <= 110


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
    # 64 + 64 data loads/stores, 128 butterflies, 32 twiddle loads, ecall: ~290 (<= 400)
    assert len(words) == 289
    assert cycles <= 290


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
    # 25 loads, 56 GS butterflies, 16 scalings, 16 stores, ecall: budget ~125
    assert len(words) == 114 and cycles <= 125
