# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""The first-order masked re-encryption check (ip/acc/kernels/mlkem/masked_compare.py) on the
ISS: per coefficient, the interval gadget's ok bit equals [Compress_d(x) = c] (the FIPS 203
formula, every d of ML-KEM, the intervals' ends and c = 0's wrap included); the whole check
gives ok = 1 exactly when u', v' compress to c (kyber-py's Compress and ByteEncode), in a time
that depends on nothing; constant time and clean for the share-domain check. The leakage
assessment is in test_tvla.py."""
import random

import pytest
from kyber_py.ml_kem import ML_KEM_512, ML_KEM_768, ML_KEM_1024

from ip.acc import block
from ip.acc.dv.jobs import image
from ip.acc.iss import Iss
from ip.acc.kernels.mlkem.masked import Q
from ip.acc.kernels.mlkem.masked_compare import MaskedCompare, MaskedSelect, lo_of, width
from ip.acc.tools.asm import assemble

KEMS = {512: ML_KEM_512, 768: ML_KEM_768, 1024: ML_KEM_1024}


def compress(x: int, d: int) -> int:
    """FIPS 203 Compress_d: round(2^d x / q) mod 2^d, halves rounded up."""
    return ((x << (d + 1)) + Q) // (2 * Q) % (1 << d)


def split(polys, rng):
    s0 = [[rng.randrange(Q) for _ in p] for p in polys]
    return s0, [[(a - b) % Q for a, b in zip(p, r)] for p, r in zip(polys, s0)]


def run(src: str, img: dict, rng):
    sim = Iss(dmem_size=block.DMEM_SIZE, imem_size=block.IMEM_SIZE)
    sim.reset()
    sim.load_program(assemble(src, "masked_compare.s"))
    sim.dmem.write_bytes(0, image(img, block.DMEM_SIZE))
    for _ in range(8):
        sim.write_entropy(rng.getrandbits(32))
    halt = sim.run(max_cycles=100_000)
    assert halt.ok, halt
    return sim, halt, sim.dmem.read_bytes(0, block.DMEM_SIZE)


def encode(kem, polys, du, dv) -> bytes:
    return b"".join(kem.R(p).encode(du) for p in polys[:-1]) + kem.R(polys[-1]).encode(dv)


@pytest.mark.parametrize("param, j", [(768, 0), (768, 3), (1024, 1), (1024, 4)])
def test_every_coefficient_is_checked_against_its_interval(param, j):
    """Polynomial j (d = du or dv): coefficients at their interval's ends and just outside,
    c's extremes (0 wraps through q) among random ones, in fresh shares; the gadget's 256 ok
    bits are [Compress_d(x_i) = c_i]."""
    kem, rng = KEMS[param], random.Random(param + j)
    mc = MaskedCompare(param)
    d = mc.du if j < mc.k else mc.dv
    src = mc.interval_program(j)
    cycles = set()
    for _ in range(3):
        cs = [0, 0, (1 << d) - 1, (1 << d) - 1, 1] + [rng.randrange(1 << d) for _ in range(251)]
        xs = []
        for c in cs:
            lo, hi = lo_of(c, d), (lo_of((c + 1) % (1 << d), d) - 1) % Q
            xs.append(rng.choice([lo, (lo - 1) % Q, hi, (hi + 1) % Q, rng.randrange(Q)]))
        ds = [mc.du] * mc.k + [mc.dv]
        cpolys = [[rng.randrange(1 << e) for _ in range(256)] for e in ds]
        cpolys[j] = cs
        x0, x1 = split([[rng.randrange(Q) for _ in range(256)] for _ in ds], rng)
        s0, s1 = split([xs], rng)
        x0[j], x1[j] = s0[0], s1[0]
        sim, halt, dm = run(src, mc.image(x0[:-1], x1[:-1], x0[-1], x1[-1], encode(kem, cpolys, mc.du, mc.dv)), rng)
        g = mc.gadget
        ok = int.from_bytes(dm[g.M0:g.M0 + 32], "little") ^ int.from_bytes(dm[g.M1:g.M1 + 32], "little")
        want = [int(compress(x, d) == c) for x, c in zip(xs, cs)]
        assert [(ok >> i) & 1 for i in range(256)] == want
        assert 0 < sum(want) < 256
        cycles.add(halt.cycles)
    assert len(cycles) == 1


@pytest.mark.parametrize("param", [768, 1024])
def test_the_stream_units_public_words_are_each_intervals_start_and_length(param):
    """prep_pub (the public words the masked decapsulation gives intm): lane i of polynomial j
    is lo | (w - w_min) << 12 with lo where the x with Compress_d(x) = c_i start (lo_of, from
    FIPS 203's rounding) and w the number of them (counted here by Compress_d itself), for
    every polynomial and d, c's extremes among random values."""
    kem, rng = KEMS[param], random.Random(param)
    mc = MaskedCompare(param)
    ds = [mc.du] * mc.k + [mc.dv]
    cpolys = [[0, 1, (1 << d) - 1, (1 << d) - 2] + [rng.randrange(1 << d) for _ in range(252)] for d in ds]
    dst = mc.END
    prog = ["csrrw x0, VMODE, x0"] + [x for j in range(mc.k + 1) for x in mc.prep_pub(j, dst + 512 * j)] + ["ecall"]
    img = mc.image([[0] * 256] * mc.k, [[0] * 256] * mc.k, [0] * 256, [0] * 256, encode(kem, cpolys, mc.du, mc.dv))
    _, _, dm = run("\n".join(prog) + "\n", img, rng)
    for j, (d, cs) in enumerate(zip(ds, cpolys)):
        count = [0] * (1 << d)
        for x in range(Q):
            count[compress(x, d)] += 1
        got = [int.from_bytes(dm[dst + 512 * j + 2 * i:dst + 512 * j + 2 * i + 2], "little") for i in range(256)]
        assert got == [lo_of(c, d) | (count[c] - width(d)) << 12 for c in cs], (j, d)
        assert all(compress(lo_of(c, d), d) == c and compress((lo_of(c, d) - 1) % Q, d) != c for c in cs)


@pytest.mark.parametrize("param", [512, 768, 1024])
def test_the_check_passes_exactly_when_u_and_v_compress_to_c(param):
    """u', v' in fresh shares: ok = 1 for a ciphertext that encodes their compression (kyber-py),
    0 with one bit of c flipped or one coefficient moved just out of its interval; the same
    cycles every time; every register zero at the end; within the taped-out memories."""
    kem, rng = KEMS[param], random.Random(param)
    mc = MaskedCompare(param)
    src = mc.program()
    assert mc.END <= block.DMEM_SIZE and 4 * len(assemble(src, "m.s")) <= block.IMEM_SIZE
    cycles = set()
    for case in range(4):
        polys = [[rng.randrange(Q) for _ in range(256)] for _ in range(mc.k + 1)]
        ds = [mc.du] * mc.k + [mc.dv]
        c = bytearray(encode(kem, [[compress(x, d) for x in p] for p, d in zip(polys, ds)], mc.du, mc.dv))
        want = 1
        if case == 1:
            c[rng.randrange(len(c))] ^= 1 << rng.randrange(8)
            want = 0
        if case == 2:                       # one coefficient one past its interval's end
            j, i = rng.randrange(mc.k + 1), rng.randrange(256)
            cj = compress(polys[j][i], ds[j])
            polys[j][i] = lo_of((cj + 1) % (1 << ds[j]), ds[j])
            want = 0
        u0, u1 = split(polys[:-1], rng)
        (v0,), (v1,) = split(polys[-1:], rng)
        sim, halt, dm = run(src, mc.image(u0, u1, v0, v1, bytes(c)), rng)
        ok0, ok1 = mc.outputs(dm)
        assert ok0 ^ ok1 == want, case
        assert all(sim.wdr.read(i) == 0 for i in range(16))
        cycles.add(halt.cycles)
    assert len(cycles) == 1


@pytest.mark.parametrize("param", [512, 768, 1024])
def test_it_is_constant_time_and_the_shares_never_meet_outside_its_gadgets(param):
    """The static check with the shares secret passes (and a branch on one is caught); the share
    check is clean (the interval gadget, the accumulating DOM ANDs and the AND tree are its
    gadgets); without the fresh words its DOM ANDs are flagged."""
    from ip.acc.tools import constant_time as ct, ct_data, share_check
    from ip.acc.tools.ct_data import Program
    mc, rng = MaskedCompare(param), random.Random(4)
    rep = ct.check(ct_data.Program.from_asm(mc.program()), mc.ct_policy())
    assert rep.ok and not rep.violations and not rep.warnings, rep.text()
    seeded = mc.program().replace("ecall\n", f"bn.lw w1, {mc.poly(0, 0)}(x0)\nbn.ext x5, w1, 0\n"
                                  "beq x5, x0, Lx\nLx:\necall\n", 1)
    assert [v.text for v in ct.check(ct_data.Program.from_asm(seeded), mc.ct_policy()).failures] == \
        ["beq x5, x0, Lx"]
    u0, u1 = split([[rng.randrange(Q) for _ in range(256)] for _ in range(mc.k)], rng)
    (v0,), (v1,) = split([[rng.randrange(Q) for _ in range(256)]], rng)
    img = mc.image(u0, u1, v0, v1, rng.randbytes(mc.c_len))
    ent = [rng.getrandbits(32) for _ in range(8)]
    assert share_check.check(Program.from_asm(mc.program()), img, ent, **mc.share_policy()) == []
    leaky = MaskedCompare(param, "no_fresh")
    assert share_check.check(Program.from_asm(leaky.program()), img, ent, **leaky.share_policy())
    # without the SEP after the chains' loads of t, their readers stall with t's old value
    # (the other domain's) on a port: what the RTL power model flagged first
    lines, out = mc.program().splitlines(), []
    for i, line in enumerate(lines):
        if not (line == "addi x0, x0, 0" and lines[i - 1].startswith("bn.lw w15,") and
                ("(x20)" in lines[i - 1] or f"{mc.gadget.ONES}(x0)" in lines[i - 1])):
            out.append(line)
    stalls = [f for f in share_check.check(Program.from_asm("\n".join(out) + "\n"), img, ent,
                                           **mc.share_policy()) if f.kind == "stall"]
    assert stalls and {f.text.split()[0] for f in stalls} == {"bn.sel", "bn.xor"}


def test_bad_inputs_are_refused():
    mc = MaskedCompare(512)
    p = [0] * 256
    with pytest.raises(ValueError, match="ML-KEM-640 is not one of"):
        MaskedCompare(640)
    with pytest.raises(ValueError, match="seeded leak"):
        MaskedCompare(768, "nosuch")
    with pytest.raises(ValueError, match="c must be 768 bytes, not 767"):
        mc.image([p, p], [p, p], p, p, bytes(767))
    with pytest.raises(ValueError, match="u1 must be 2 polynomial"):
        mc.image([p, p], [p], p, p, bytes(768))
    with pytest.raises(ValueError, match=r"v0 must be 1 polynomial\(s\) of 256 coefficients in \[0, 3329\)"):
        mc.image([p, p], [p, p], [Q] + p[1:], p, bytes(768))


def test_the_selection_gives_k_prime_or_k_bar_in_shares():
    """MaskedSelect: K0 ^ K1 = K' for ok = 1 and K-bar for ok = 0, whatever the shares; neither
    share the key; the same cycles; constant time; the share check clean (the DOM AND its
    gadget); bad inputs refused."""
    from ip.acc.tools import constant_time as ct, ct_data, share_check
    from ip.acc.tools.ct_data import Program
    f, rng = MaskedSelect(), random.Random(8)
    src, cycles = f.program(), set()
    for ok in (0, 1, 1, 0):
        kp, kb, kp1, kb1 = (rng.randbytes(32) for _ in range(4))
        ok1 = rng.randrange(2)
        img = f.image(ok ^ ok1, ok1, bytes(a ^ b for a, b in zip(kp, kp1)), kp1,
                      bytes(a ^ b for a, b in zip(kb, kb1)), kb1)
        sim, halt, dm = run(src, img, rng)
        k0, k1 = f.outputs(dm)
        want = kp if ok else kb
        assert bytes(a ^ b for a, b in zip(k0, k1)) == want and want not in (k0, k1)
        assert all(sim.wdr.read(i) == 0 for i in range(16))
        cycles.add(halt.cycles)
    assert len(cycles) == 1
    rep = ct.check(ct_data.Program.from_asm(src), f.ct_policy())
    assert rep.ok and not rep.violations and not rep.warnings, rep.text()
    ent = [rng.getrandbits(32) for _ in range(8)]
    assert share_check.check(Program.from_asm(src), img, ent, **f.share_policy()) == []
    with pytest.raises(ValueError, match="kb1: 32 bytes expected"):
        f.image(0, 1, bytes(32), bytes(32), bytes(32), bytes(31))
    with pytest.raises(ValueError, match="one bit each"):
        f.image(2, 0, bytes(32), bytes(32), bytes(32), bytes(32))
