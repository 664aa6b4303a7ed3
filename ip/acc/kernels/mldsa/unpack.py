# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""ML-DSA bit unpacking by bn.unpk (VMODE 1): FIPS 204 SimpleBitUnpack / BitUnpack of one
polynomial, one instruction per output word.

In VMODE 1 an output word holds 8 coefficients of d bits, i.e. the d bytes at byte d r of
the stream for word r: bn.unpk takes them from the pair of 32-byte words holding them
(byte offset d r mod 32), so a polynomial costs its 32 d / 32 wide loads (or digest words)
plus, per output word, one bn.unpk, the field's map (one lane-wise instruction) and the
store. The offsets repeat after period(d) output words, the loop body.

    unpack_eta(bits, eta)    # s = eta - field: the key's s1 / s2 (3 or 4 bits)
    unpack_t0(t0c)           # t0 = 2^12 - field (13 bits)
    unpack_mask(bits, g1)    # y = gamma1 - field from the SHAKE256 stream (18 or 20 bits)

They replace packing.dec_eta_poly / dec_eta_bits / dec_t0_poly and sampling.mask_group /
mask_unpack_bits in sign16.py (those stay for keygen.py and the 32 KiB programs). ISS
cycles per polynomial, the unpack alone (test_mldsa_unpack.py prints them with its
set-up): 3-bit s 281 -> 100, 4-bit s 171 -> 106, t0 463 -> 110; y (20-bit) with its
SHAKE256 705 -> 179 (the KMAC's permutations bound it now), the 18-bit y without its
576-byte DMEM buffer. Every address and count is fixed: nothing depends on the (secret)
values, as bn.unpk itself.
"""
from ip.acc.kernels.asm_util import loop as _loop
from ip.acc.kernels.prog import Prog

LEGAL = (3, 4, 6, 10, 13, 18, 20)        # bn.unpk field widths in VMODE 1 (isa.md)


def period(d: int) -> int:
    """Output words (d bytes each) after which the byte offsets repeat: d P % 32 == 0."""
    p = 1
    while d * p % 32:
        p += 1
    return p


def _body(d, load, field, dst="x6", pool=14):
    """One period: load(p, a, reg) brings stream word a (32 bytes) of the period into reg,
    in order, each once; output word r = field(unpk(bytes d r .. d r + d - 1)) stored at
    dst (post-increment). On prog.Prog over w0..w{pool-1}."""
    if d not in LEGAL:
        raise ValueError(f"bn.unpk: no {d}-bit fields in VMODE 1 (legal: {LEGAL})")
    p = Prog([f"w{n}" for n in range(pool)])
    got = {}

    def word(a):
        if a not in got:
            got[a] = f"%i{a}"
            load(p, a, got[a])
        return got[a]
    for r in range(period(d)):
        a, off = divmod(d * r, 32)
        lo = word(a)
        u = f"%u{r}"
        if off + d > 32:
            p.raw(f"bn.unpk {{0}}, {{1}}, {{2}}, {d}, {off}", [u], [lo, word(a + 1)])
        else:                                # the high word unused (Prog: a source once)
            p.raw(f"bn.unpk {{0}}, {{1}}, {{1}}, {d}, {off}", [u], [lo])
        y = f"%y{r}"
        field(p, u, y)
        p.sw_pi(y, dst)
    return p.text().splitlines()


def _from_dmem(p, a, reg):
    p.lw_pi(reg, "x5")


def _from_digest(p, a, reg):
    p.raw("kmac.dig {0}", [reg, "@kmac"], ["@kmac"])


def _minus(const):
    """field -> const - field mod q (bn.subvm), const a fixed register."""
    def field(p, src, dst):
        p.op("bn.subvm", dst, const, src)
    return field


def unpack_poly(d, load, field, dst="x6"):
    """One polynomial (32 words of 8 d-bit fields): the period's body in a loop."""
    body = _body(d, load, field, dst)
    n = 32 // period(d)
    return body if n == 1 else _loop(n, body)


def unpack_eta(bits, eta="w14"):
    """BitUnpack of s (eta - s in `bits` = 3 or 4 bits, FIPS 204 skDecode): 32 bits bytes
    at x5 (32-byte aligned, post-incremented) -> 32 words at x6 (post-incremented);
    s = eta - field mod q with eta in every lane of the register `eta`. Uses w0..w13
    (w14 / w15 unless named)."""
    assert bits in (3, 4)
    return unpack_poly(bits, _from_dmem, _minus(eta))


def unpack_t0(t0c="w15"):
    """BitUnpack of t0 (2^12 - t0 in 13 bits): 416 B at x5 (32-byte aligned, post-
    incremented by 416) -> 32 words at x6 (post-incremented by 1024); t0 = t0c - field
    mod q (t0c = 2^12 in every lane). packing.dec_t0_poly's contract without its m13
    register. Uses w0..w13."""
    return unpack_poly(13, _from_dmem, _minus(t0c))


def unpack_mask(bits, g1="w15"):
    """y = ExpandMask(rho'', kappa) of one polynomial (FIPS 204 Alg. 34, BitUnpack with
    gamma1 - 1, gamma1): the 32 bits bytes of the SHAKE256 started by sampling.mask_start
    read by kmac.dig (bits digest words, KMAC port held) -> 32 words at x6 (post-
    incremented); y = gamma1 - field mod q, g1 = gamma1 in every lane. Uses w0..w13."""
    assert bits in (18, 20)
    return unpack_poly(bits, _from_digest, _minus(g1))
