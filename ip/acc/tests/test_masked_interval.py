# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""The masked interval gadget's reference (ip/acc/iss/masked_interval.py): ok = [(x - lo) mod q
< w] from x's arithmetic shares, checked against the plain comparison and against FIPS 203's
Compress_d (its own formula here, not the gadget's intervals), and its first-order probe check
with seeded leaks it must find."""
import random

import pytest

from ip.acc.iss import masked_interval as mi

Q = 3329


def _compress(x: int, d: int) -> int:
    """FIPS 203 Compress_d: round(2^d x / q) mod 2^d (q odd: no ties)."""
    return ((x << d) + Q // 2) // Q % (1 << d)


def _lanes(ok0: int, ok1: int) -> list[int]:
    return [((ok0 ^ ok1) >> L) & 1 for L in range(16)]


@pytest.mark.parametrize("lo,w", [(0, 1), (833, 1664), (3328, 1), (3000, 500), (1, 3328), (1664, 209)])
def test_every_x_against_the_plain_comparison(lo, w):
    """Every x in Z_q, fresh shares and random bits: the shares' XOR is [(x - lo) mod q < w]."""
    rng = random.Random(lo * 7 + w)
    for base in range(0, Q, 16):
        xs = [(base + L) % Q for L in range(16)]
        x0 = [rng.randrange(Q) for _ in xs]
        x1 = [(x - a) % Q for x, a in zip(xs, x0)]
        ok0, ok1 = mi.interval(x0, x1, [lo] * 16, [0] * 16, w, [rng.getrandbits(256) for _ in range(mi.NB + 1)])
        assert _lanes(ok0, ok1) == [int((x - lo) % Q < w) for x in xs]


def test_shares_at_their_extremes():
    """x0, x1 in {0, 1, q - 1} (the adder's carries all the way up)."""
    rng = random.Random(3)
    ends = (0, 1, Q - 1)
    pairs = [(a, b) for a in ends for b in ends]
    for lo in (0, 1, Q - 1):
        x0 = [pairs[L % 9][0] for L in range(16)]
        x1 = [pairs[L % 9][1] for L in range(16)]
        ok0, ok1 = mi.interval(x0, x1, [lo] * 16, [0] * 16, 1664, [rng.getrandbits(256) for _ in range(15)])
        assert _lanes(ok0, ok1) == [int(((a + b) % Q - lo) % Q < 1664) for a, b in zip(x0, x1)]


@pytest.mark.parametrize("d", [1, 4, 5, 10, 11])
def test_compress_intervals(d):
    """Compress_d(x) = c on [lo_c, lo_c + w_c): lo, w from the interval's own ends (the first x
    of c and of c + 1, found by scanning Compress_d), w = w_base + delta per lane."""
    firsts = {}
    for x in range(Q):
        firsts.setdefault(_compress(x, d), x)
    lo_of = {c: firsts[c] for c in firsts}
    lo_of[0] = firsts[0] if _compress(Q - 1, d) != 0 else next(x for x in range(Q - 1, -1, -1) if _compress(x, d) != 0) + 1
    wid = {c: (lo_of[(c + 1) % (1 << d)] - lo_of[c]) % Q for c in lo_of}
    w_base = min(wid.values())
    rng = random.Random(d)
    for _ in range(60):
        cs = [rng.randrange(1 << d) for _ in range(16)]
        xs = [rng.randrange(Q) if rng.random() < 0.4 else (lo_of[c] + rng.choice([0, wid[c] - 1, wid[c], -1])) % Q
              for c in cs]
        x0 = [rng.randrange(Q) for _ in xs]
        x1 = [(x - a) % Q for x, a in zip(xs, x0)]
        ok0, ok1 = mi.interval(x0, x1, [lo_of[c] for c in cs], [wid[c] - w_base for c in cs], w_base,
                               [rng.getrandbits(256) for _ in range(15)])
        assert _lanes(ok0, ok1) == [int(_compress(x, d) == c) for x, c in zip(xs, cs)]


def test_the_shares_are_fresh():
    """The same x, lo, w under different randomness: ok0 takes both values (a fresh sharing, not
    the bit in one share)."""
    rng = random.Random(5)
    seen = set()
    for _ in range(40):
        x0 = [rng.randrange(Q) for _ in range(16)]
        x1 = [(1000 - a) % Q for a in x0]
        ok0, ok1 = mi.interval(x0, x1, [833] * 16, [0] * 16, 1664, [rng.getrandbits(256) for _ in range(15)])
        assert ok0 ^ ok1 == 0xFFFF
        seen.add(ok0 & 1)
    assert seen == {0, 1}


def test_bad_inputs_are_refused():
    words = [0] * 15
    with pytest.raises(ValueError, match="x0: 1 to 18 lanes"):
        mi.interval([0] * 19, [0] * 19, [0] * 19, [0] * 19, 1, words)
    with pytest.raises(ValueError, match="x1: 16 lanes"):
        mi.interval([0] * 16, [0] * 15, [0] * 16, [0] * 16, 1, words)
    with pytest.raises(ValueError, match="lo"):
        mi.interval([0] * 16, [0] * 16, [Q] * 16, [0] * 16, 1, words)
    with pytest.raises(ValueError, match="w = w_base"):
        mi.interval([0] * 16, [0] * 16, [0] * 16, [0] * 16, 0, words)
    with pytest.raises(ValueError, match="random words"):
        mi.interval([0] * 16, [0] * 16, [0] * 16, [0] * 16, 1, words[:14])


def test_no_first_order_leak():
    """Every register, transition and glitch-extended cone of one lane on q = 2 (4 cycles, every
    secret, sharing and random bit each probe can read)."""
    assert mi.first_order_leaks(2) == []


def test_no_first_order_leak_mod_3():
    """q = 3 (x's bit 1 varies, which q = 2 cannot show), cycles 0..3, one public interval:
    19 random bits a probe (`python -m ip.acc.iss.masked_interval 3 3` runs every interval)."""
    assert mi.first_order_leaks(3, lo_w=[(1, 2)], last=3) == []


@pytest.mark.parametrize("leak,where,q", [
    ("no_r", "1:g0:cone", 2),                 # y and x1 meet unmasked in the generate AND
    ("inner_unmasked", "3:h01_0:cone", 2),    # an inner term unmasked beside the other domain's
    ("z_reuse", "3:cp00:cone", 3),            # the carry AND's cross terms reuse the generate's z
])
def test_seeded_leaks_are_found(leak, where, q):
    assert where in mi.first_order_leaks(q, leak=leak, **({"lo_w": [(1, 2)], "last": 3} if q == 3 else {}))


# ---------------------------------------------------------------------------- the ISS's intm
SRC, PUB, OUT = 2048, 4096, 6144


def _dmem_size() -> int:
    from ip.acc.iss import Iss
    from ip.acc.tests.iss_util import ISA
    return Iss(ISA).dmem.size


def _intm_program(count: int = 256, w_base: int = 1664, stride0: bool = False, src: int = SRC, pub: int = PUB,
                  during: str = "", out: int = OUT) -> str:
    from ip.acc.kernels.asm_util import li
    cfg = w_base << 20 | (pub // 32) << 8 | int(stride0) << 7
    return "\n".join(["bn.lw w1, 0(x0)", "bn.wsrw URND, w1", "bn.bcast w1, x0", *li(6, src),
                      "csrrw x0, SMP_SRC, x6", *li(7, cfg), "csrrw x0, SMP_CFG, x7", *li(5, out),
                      *li(4, count), "smp.run x5, x4, intm", during + "smp.wait", "ecall"]) + "\n"


def _intm_dmem(x0, x1, lo, delta, stride0=False, src=SRC, pub=PUB):
    def word(vals):
        return b"".join(v.to_bytes(2, "little") for v in vals)
    n = len(x0) // 16
    dm = {0: bytes(range(32))}
    for g in range(n):
        dm[src + 32 * g] = word(x0[16 * g:16 * g + 16])
        dm[src + 32 * (n + g)] = word(x1[16 * g:16 * g + 16])
    for g in range(1 if stride0 else n):
        dm[pub + 32 * g] = word([a | d << 12 for a, d in zip(lo[16 * g:16 * g + 16], delta[16 * g:16 * g + 16])])
    return dm


@pytest.mark.parametrize("count", [256, 48])
def test_intm_on_the_iss(count):
    """smp.run intm on a polynomial's shares: ok's two shares at OUT and OUT + 32, bit i for
    coefficient i; lo and w per coefficient (w = w_base + delta)."""
    from ip.acc.tests.iss_util import run
    rng = random.Random(count)
    xs = [rng.randrange(Q) for _ in range(count)]
    lo = [rng.randrange(Q) for _ in range(count)]
    delta = [rng.randrange(2) for _ in range(count)]
    xs = [x if rng.random() < 0.5 else (a + rng.randrange(209)) % Q for x, a in zip(xs, lo)]
    x0 = [rng.randrange(Q) for _ in xs]
    x1 = [(x - a) % Q for x, a in zip(xs, x0)]
    sim, h = run(_intm_program(count, w_base=208), dmem=_intm_dmem(x0, x1, lo, delta))
    assert h.ok, h
    ok0 = int.from_bytes(sim.dmem.read_bytes(OUT, 32), "little")
    ok1 = int.from_bytes(sim.dmem.read_bytes(OUT + 32, 32), "little")
    want = sum(int((x - a) % Q < 208 + d) << i for i, (x, a, d) in enumerate(zip(xs, lo, delta)))
    assert ok0 ^ ok1 == want
    assert ok0 != want and ok1 != want
    print(f"\nintm on {count} coefficients: {h.cycles} cycles")


def test_intm_one_public_word_for_every_group():
    """SMP_CFG[7]: the decoding's lo = 833, w = 1664 in one public word."""
    from ip.acc.tests.iss_util import run
    rng = random.Random(9)
    xs = [rng.randrange(Q) for _ in range(256)]
    x0 = [rng.randrange(Q) for _ in xs]
    x1 = [(x - a) % Q for x, a in zip(xs, x0)]
    sim, h = run(_intm_program(stride0=True), dmem=_intm_dmem(x0, x1, [833] * 16, [0] * 16, stride0=True))
    assert h.ok, h
    ok = int.from_bytes(sim.dmem.read_bytes(OUT, 32), "little") ^ int.from_bytes(sim.dmem.read_bytes(OUT + 32, 32), "little")
    assert ok == sum(_compress(x, 1) << i for i, x in enumerate(xs))


def intm_errors(size: int, src: int = SRC, pub: int = PUB, out: int = OUT) -> list[tuple[str, str]]:
    """intm's SAMPLER cases for a DMEM of `size` bytes (layout src, pub, out inside it)."""
    kw = {"src": src, "pub": pub, "out": out}
    return [("count not whole words", _intm_program(count=40, **kw)),
            ("count > 256", _intm_program(count=272, **kw)),
            ("source misaligned", _intm_program(**dict(kw, src=src + 4))),
            ("source past DMEM", _intm_program(**dict(kw, src=size - 32 * 16))),
            ("public words past DMEM", _intm_program(**dict(kw, pub=size - 32 * 8))),
            ("URND read while it runs", _intm_program(during="csrrs x9, URND, x0\n", **kw))]


INTM_ERRORS = intm_errors(_dmem_size())


@pytest.mark.parametrize("what,src", INTM_ERRORS, ids=[e[0] for e in INTM_ERRORS])
def test_intm_errors(what, src):
    from ip.acc.tests.iss_util import run
    sim, h = run(src, dmem={0: bytes(32)})
    assert h.reason == "error" and h.errors == ["SAMPLER"], (what, h)
