# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""The masked interval gadget (issue #38): from x in two arithmetic shares mod q and a public
interval [lo, lo + w) of Z_q, the bit ok = [(x - lo) mod q < w] in two Boolean shares.

This is the reference the stream unit's masked mode `intm` is built to (its ISS model in
ip/acc/iss/stream_unit.py steps `step` on 16 lanes at once; the RTL, ip/acc/rtl/stream_unit.py,
is checked against it cycle for cycle). ML-KEM decapsulation needs it twice: the message
decoding (Compress_1: lo = 833, w = 1664) and the re-encryption check (Compress_d(x) = c_i
exactly on an interval, lo_i and w_i from c: ip/acc/kernels/mlkem/masked_compare.py).

The arithmetic, per coefficient (a lane), bit-serial over NB = 14 bits:

* public: t = q - lo (1 <= t <= q), and the chain constants K = w, q, q + w, 2q, 2q + w;
* domain 0 alone: y = x0 + t (< 2q), an ordinary adder on a share;
* s = y + x1 (< 3q, s mod q = (x - lo) mod q) by a masked ripple adder on Boolean shares
  A = (y ^ R, R) (R fresh: y and x1 never meet unmasked) and B = (0, x1);
* five masked borrow chains b_K = [s < K], and ok = XOR of the five: s mod q < w exactly when s
  is in [0, w), [q, q + w) or [2q, 2q + w), and the XOR of the five comparisons is 1 there.

Every AND is a DOM AND (domain-oriented masking, Gross et al. 2016): the cross terms a0 b1 ^ z2
and a1 b0 ^ z2 each in a register of its own, the inner terms masked too (a0 b0 ^ z1, a1 b1 ^
z1: unmasked, the next cycle's cross-term logic would see one domain's inner term beside the
other domain's registers, and the probe check finds that it leaks: `inner_unmasked`). A
domain's inner term shares its register with that domain's other terms of the same output (a
chain's linear part, the generate's share 1), which never meet the other domain. So a glitch
in the logic that feeds a register shows at most that register's inputs (the glitch-extended
probe `cones` lists). Two stages: in RUN cycle k, the y stage makes bit k of A (a0 = y_k ^ R,
a1 = R, registered: the adder's cross terms then never see y unmasked), and the adder stage
bit k - 1 of s and the chains.

Randomness: 14 fresh bits a lane a cycle (R; z_g; the carry AND's pair; each chain's pair),
bits 14 L .. 14 L + 13 of URND's word for lane L (`RND_BITS`; the unit's 16 lanes: 224 of
its 256).

`first_order_leaks` enumerates, on a small modulus, every secret x, every sharing and every
random bit a probe depends on, and names the probes (register values, register transitions
old -> new, glitch-extended cones) whose distribution depends on x: none for the gadget, and
the seeded leaks (`LEAKS`) are found.
"""
from collections.abc import Sequence

__all__ = ["Q", "NB", "LANES", "RND_BITS", "CHAINS", "REGS", "Y_REGS", "ADDER_REGS", "LEAKS", "run_lane", "interval",
           "y_stage", "adder_stage", "step", "finish", "zero_state", "first_order_leaks"]

Q = 3329
NB = 14                 # s < 3q < 2^14
LANES = 16              # the unit's lanes: a word's 16 coefficients at once
RND_BITS = 14           # R, z_g, the carry AND's pair, each chain's pair
CHAINS = 5
LEAKS = (None, "no_r", "z_reuse", "inner_unmasked")
_CH = tuple(f"{n}_{i}" for i in range(CHAINS) for n in ("d0", "h01", "h10", "d1"))
REGS = ("a0", "a1", "g0", "e1", "cp00", "cp01", "cp10") + _CH + ("cy", "ct", "cw", "c3", "c5")


def _maj(a, b, c):
    return (a & b) ^ (a & c) ^ (b & c)


def zero_state(ones=0xFFFF) -> dict:
    """The registers between groups: every DOM term and carry 0, the t adder's carry-in 1
    (t = q + ~lo + 1)."""
    st = {r: 0 for r in REGS}
    st["ct"] = ones
    return st


def _bit(v: int, j: int, ones) -> int:
    return ones if (v >> j) & 1 else 0


def y_stage(st: dict, x0, lo, qk, R, ones, leak: str | None = None, cones: dict | None = None) -> dict:
    """Bit k of t = q - lo and of y = x0 + t (domain 0 and public), A's shares (y ^ R, R):
    the new a0, a1, ct, cy. Lane vectors: x0, lo (bit k), qk (q's bit k, as a vector), R."""
    nlo = lo ^ ones
    t = qk ^ nlo ^ st["ct"]
    y = x0 ^ t ^ st["cy"]
    if cones is not None:
        cones.update({"a0": (x0, st["cy"], R), "cy": (x0, st["cy"])})
    a0, a1 = (y, 0) if leak == "no_r" else (y ^ R, R)
    return {"a0": a0, "a1": a1, "ct": _maj(qk, nlo, st["ct"]), "cy": _maj(x0, t, st["cy"])}


def adder_stage(st: dict, x1, d, qj, q2j, wbj, rnd: Sequence, ones, leak: str | None = None,
                cones: dict | None = None) -> dict:
    """Bit j of s = y + x1 (the masked ripple adder: A = (a0, a1) from the y stage, B = (0, x1))
    and of the five borrow chains, with w = w_base + delta's bit and the chains' constants:
    the new DOM terms and public carries. Lane vectors: x1, d (delta) and the constant bits
    qj, q2j (2q), wbj (w_base); rnd: RND_BITS vectors (R, z_g, the carry AND's pair, each
    chain's pair; R unused here)."""
    _R, zg, zp1, zp2, *zc = rnd
    if leak == "z_reuse":
        zp2 = zg
    new = {}
    w = wbj ^ d ^ st["cw"]
    K = (w, qj, qj ^ w ^ st["c3"], q2j, q2j ^ w ^ st["c5"])
    new["cw"], new["c3"], new["c5"] = _maj(wbj, d, st["cw"]), _maj(qj, w, st["c3"]), _maj(q2j, w, st["c5"])
    a0, a1 = st["a0"], st["a1"]
    p0, p1 = a0, a1 ^ x1
    # the registers hold a DOM AND's terms, each masked by a fresh bit (a cross term by the
    # pair's second, an inner term by its first, so they cancel in the result); a domain's
    # inner term shares its register with that domain's other terms of the same output
    # (the generate's share 1, a chain's linear part): they never meet the other domain
    iz = 0 if leak == "inner_unmasked" else ones
    c0 = st["g0"] ^ st["cp00"] ^ st["cp01"]
    c1 = st["e1"] ^ st["cp10"]
    s0, s1 = p0 ^ c0, p1 ^ c1
    c0_in, c1_in = (st["g0"], st["cp00"], st["cp01"]), (st["e1"], st["cp10"])
    new["g0"] = (a0 & x1) ^ zg
    new["cp00"], new["cp01"] = (c0 & p0) ^ (zp1 & iz), (c0 & p1) ^ zp2
    new["cp10"], new["e1"] = (c1 & p0) ^ zp2, (a1 & x1) ^ zg ^ (c1 & p1) ^ (zp1 & iz)
    if cones is not None:
        cones.update({"g0": (a0, x1, zg), "cp00": (*c0_in, a0, zp1), "cp01": (*c0_in, a1, x1, zp2),
                      "cp10": (*c1_in, a0, zp2), "e1": (*c1_in, a1, x1, zg, zp1)})
    s0_in, s1_in = (a0, *c0_in), (a1, x1, *c1_in)
    for i in range(CHAINS):
        d0, h01, h10, d1 = (st[f"{n}_{i}"] for n in ("d0", "h01", "h10", "d1"))
        b0, b1 = d0 ^ h01, d1 ^ h10
        z1, z2 = zc[2 * i], zc[2 * i + 1]
        # b' = (s & b) ^ (K ? ~s : b): share 0 takes the NOT; K public selects in each domain
        new[f"d0_{i}"] = (s0 & b0) ^ (z1 & iz) ^ b0 ^ (K[i] & (s0 ^ ones ^ b0))
        new[f"h01_{i}"], new[f"h10_{i}"] = (s0 & b1) ^ z2, (s1 & b0) ^ z2
        new[f"d1_{i}"] = (s1 & b1) ^ (z1 & iz) ^ b1 ^ (K[i] & (s1 ^ b1))
        if cones is not None:
            b0_in, b1_in = (d0, h01), (d1, h10)
            cones.update({f"d0_{i}": (*s0_in, *b0_in, z1), f"h01_{i}": (*s0_in, *b1_in, z2),
                          f"h10_{i}": (*s1_in, *b0_in, z2), f"d1_{i}": (*s1_in, *b1_in, z1)})
    return new


Y_REGS = ("a0", "a1", "ct", "cy")
ADDER_REGS = tuple(r for r in REGS if r not in Y_REGS)


def step(st: dict, k: int, bits, rnd: Sequence, q: int = Q, w_base: int = 0, ones=0xFFFF, nb: int = NB,
         leak: str | None = None, cones: dict | None = None) -> dict:
    """RUN cycle k (0 .. nb): the y stage of bit k (k < nb; else its registers reset) and the
    adder stage of bit k - 1 (k >= 1; at k = 0 its registers are 0: no carry, no borrow), on
    lane vectors (one bit a lane: an int of LANES bits in the ISS, a numpy array in the probe
    check; `ones` is the all-lanes 1). bits(j) gives lane vectors (x0_j, x1_j, lo_j, delta_j),
    0 past their widths. Returns the registers after the clock edge; `cones`, if given, gets
    each register's glitch-extended inputs."""
    new = dict(st)
    if k < nb:
        x0, _x1, lo, _d = bits(k)
        new.update(y_stage(st, x0, lo, _bit(q, k, ones), rnd[0], ones, leak, cones))
    else:
        new.update({"a0": 0, "a1": 0, "cy": 0, "ct": ones})
    if k == 0:
        new.update({r: 0 for r in ADDER_REGS})
    else:
        _x0, x1, _lo, d = bits(k - 1)
        new.update(adder_stage(st, x1, d, _bit(q, k - 1, ones), _bit(2 * q, k - 1, ones),
                               _bit(w_base, k - 1, ones), rnd, ones, leak, cones))
    return new


def finish(st: dict) -> tuple:
    """After RUN cycle nb: ok's two shares, the XOR of the chains' borrows in each domain."""
    ok0 = ok1 = 0
    for i in range(CHAINS):
        ok0 ^= st[f"d0_{i}"] ^ st[f"h01_{i}"]
        ok1 ^= st[f"d1_{i}"] ^ st[f"h10_{i}"]
    return ok0, ok1


def run_lane(x0: int, x1: int, lo: int, w: int, rnd: Sequence[Sequence[int]], q: int = Q, nb: int = NB,
             leak: str | None = None, trace: list | None = None) -> tuple[int, int]:
    """One coefficient (lane vectors of one bit): (ok0, ok1). rnd: nb + 1 cycles of RND_BITS bits.
    w = w_base here (delta 0). trace, if given, gets (state, cones) after each cycle."""
    def bits(j):
        return ((x0 >> j) & 1 if j < 12 else 0, (x1 >> j) & 1 if j < 12 else 0,
                (lo >> j) & 1 if j < 12 else 0, 0)
    st = zero_state(1)
    for k in range(nb + 1):
        cones = {}
        st = step(st, k, bits, rnd[k], q, w, 1, nb, leak, cones)
        if trace is not None:
            trace.append((st, cones))
    return finish(st)


def interval(x0: Sequence[int], x1: Sequence[int], lo: Sequence[int], delta: Sequence[int], w_base: int,
             rnd_words: Sequence[int], q: int = Q) -> tuple[int, int]:
    """n lanes at once (the unit runs LANES; up to 18 fit URND's word): x0, x1 (shares < q),
    lo (< q) and delta (< 16, w = w_base + delta) per lane; rnd_words: the NB + 1 URND words
    of the RUN cycles (lane L's bits at RND_BITS L). Returns ok's shares as n-bit lane vectors
    (bit L: lane L)."""
    n = len(x0)
    if not 1 <= n <= 256 // RND_BITS:
        raise ValueError(f"x0: 1 to {256 // RND_BITS} lanes, got {n}")
    for name, vals, top in (("x0", x0, q), ("x1", x1, q), ("lo", lo, q), ("delta", delta, 16)):
        if len(vals) != n or not all(0 <= v < top for v in vals):
            raise ValueError(f"{name}: {n} lanes in [0, {top}) expected")
    if not all(1 <= w_base + d < q for d in delta):
        raise ValueError(f"w = w_base + delta must be in [1, {q}): w_base {w_base}")
    if len(rnd_words) < NB + 1:
        raise ValueError(f"{NB + 1} random words needed (one a RUN cycle), got {len(rnd_words)}")

    def vec(vals, j, width):
        return sum(((v >> j) & 1) << L for L, v in enumerate(vals)) if j < width else 0

    def bits(j):
        return vec(x0, j, 12), vec(x1, j, 12), vec(lo, j, 12), vec(delta, j, 4)
    ones = (1 << n) - 1
    st = zero_state(ones)
    for k in range(NB + 1):
        word = rnd_words[k]
        rnd = [sum(((word >> (RND_BITS * L + b)) & 1) << L for L in range(n)) for b in range(RND_BITS)]
        st = step(st, k, bits, rnd, q, w_base, ones)
    return finish(st)


# ---------------------------------------------------------------------------- probe check
def _support(chain: int) -> tuple:
    """The random bits (slots of a cycle's RND_BITS) a probe of the adder or of chain `chain`
    can depend on: every R, z_g and carry pair so far, and the chain's own pair (a chain reads
    the adder, never another chain)."""
    return (0, 1, 2, 3, 4 + 2 * chain, 5 + 2 * chain)


def first_order_leaks(q: int = 2, lo_w: Sequence[tuple] | None = None, leak: str | None = None,
                      last: int | None = None) -> list[str]:
    """Exhaustive first-order probe check of one lane on modulus q (nb = bits of 3q - 1): for
    every public (lo, w) in lo_w (default all), every secret x, every sharing x0 and every value
    of the random bits a probe depends on (`_support`: the others are fixed at 0, which cannot
    change a probe that does not read them), the distribution of each probe: every register's
    value, its transition (old, new) and its glitch-extended cone, per cycle. Returns the
    probes (cycle:name[:kind]) whose distribution depends on x; `last` stops after that cycle
    (the enumeration doubles with each random bit: 6 a cycle). The output's two cones (ok0,
    ok1: each domain's XOR of the five chains) read every chain; they are checked per chain
    (each chain's registers are probes here), not jointly."""
    import numpy as np
    nb = (3 * q - 1).bit_length()
    cycles = nb + 1 if last is None else last + 1      # the cycles probed (0 .. last)
    pairs = [(lo, w) for lo in range(q) for w in range(1, q)] if lo_w is None else list(lo_w)
    leaks: set[str] = set()
    for chain in range(CHAINS):
        # the random bits read: R in the y stage's cycles (0 .. nb - 1), the z's in the adder
        # stage's (1 .. nb)
        used = [(k, slot) for k in range(cycles) for slot in _support(chain)
                if (slot == 0 and k < nb) or (slot and k)]
        # enumeration axis: (x, x0, random assignment), x outermost
        xs, x0s, rs = np.meshgrid(np.arange(q), np.arange(q), np.arange(1 << len(used)), indexing="ij")
        xs, x0s, rs = xs.ravel(), x0s.ravel(), rs.ravel().astype(np.int64)
        x1s = (xs - x0s) % q
        zero = np.zeros_like(xs, dtype=np.uint8)
        rnd = [[zero] * RND_BITS for _ in range(cycles)]
        for n, (k, slot) in enumerate(used):
            rnd[k][slot] = ((rs >> n) & 1).astype(np.uint8)
        for lo, w in pairs:
            def bits(j):
                return (((x0s >> j) & 1).astype(np.uint8) if j < 12 else zero,
                        ((x1s >> j) & 1).astype(np.uint8) if j < 12 else zero,
                        np.uint8((lo >> j) & 1) * np.ones_like(zero) if j < 12 else zero, zero)
            st = zero_state(1)
            for k in range(cycles):
                cones: dict = {}
                old = st
                st = step(st, k, bits, rnd[k], q, w, np.uint8(1), nb, leak, cones)
                probes = {}
                for r in REGS:
                    if r.endswith(tuple(f"_{i}" for i in range(CHAINS))) and not r.endswith(f"_{chain}"):
                        continue
                    if not r.endswith(f"_{chain}") and chain:
                        continue                    # the adder's probes: checked with chain 0
                    probes[f"{k}:{r}"] = (st[r],)
                    probes[f"{k}:{r}:transition"] = (old[r], st[r])
                    if r in cones:
                        probes[f"{k}:{r}:cone"] = cones[r]
                for name, vals in probes.items():
                    code = xs.astype(np.int64)
                    for v in vals:
                        code = code * 2 + (np.asarray(v, dtype=np.int64) & 1)
                    hist = np.bincount(code, minlength=q << len(vals)).reshape(q, -1)
                    if (hist != hist[0]).any():
                        leaks.add(name)
            # the result itself, for the enumeration's own sanity: ok = [(x - lo) mod q < w]
            ok0, ok1 = finish(st)
            if chain == 0 and leak is None and cycles == nb + 1:
                want = (((xs - lo) % q) < w).astype(np.uint8)
                assert np.array_equal((ok0 ^ ok1) & 1, want), (q, lo, w)
    return sorted(leaks)


if __name__ == "__main__":
    # the larger check by hand: python -m ip.acc.iss.masked_interval 3 3 (q = 3, cycles 0..3:
    # 19 random bits a probe, ~2 min); the tests run q = 2 whole
    import sys
    q_, last_ = (int(a) for a in sys.argv[1:3])
    found = first_order_leaks(q_, last=last_)
    print(f"q = {q_}, cycles 0..{last_}: " + (", ".join(found) if found else "no first-order leak"))
    sys.exit(1 if found else 0)
