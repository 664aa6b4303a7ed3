# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""RND (the host's entropy pool) and URND (the masking PRNG) on the ISS, as isa.yml says.

The PRNG is checked against Trivium written stage by stage from its specification (De
Canniere and Preneel, "Trivium Specifications", eSTREAM 2005: one round per loop, the state a
list s[1..288]), independent of the ISS's 64-rounds-at-a-time form.
"""
import random

import pytest

from ip.acc.iss import Iss
from ip.acc.iss.random_regs import RandomRegs, Trivium
from ip.acc.tests.iss_util import ISA, run


def _spec_rounds(state: int, nbits: int) -> tuple[int, int]:
    """(output bits z_0.. in bit order, the state after): the specification's loop."""
    s = [None] + [(state >> (k - 1)) & 1 for k in range(1, 289)]
    z = 0
    for i in range(nbits):
        t1 = s[66] ^ s[93]
        t2 = s[162] ^ s[177]
        t3 = s[243] ^ s[288]
        z |= (t1 ^ t2 ^ t3) << i
        t1 ^= (s[91] & s[92]) ^ s[171]
        t2 ^= (s[175] & s[176]) ^ s[264]
        t3 ^= (s[286] & s[287]) ^ s[69]
        s[1:94] = [t3] + s[1:93]
        s[94:178] = [t1] + s[94:177]
        s[178:289] = [t2] + s[178:288]
    return z, sum(b << (k - 1) for k, b in enumerate(s[1:], start=1))


@pytest.mark.parametrize("sizes", [(32,), (256,), (256, 32, 256, 7, 64, 65, 300)])
def test_trivium_equals_the_specification(sizes):
    rng = random.Random(len(sizes))
    for _ in range(4):
        state = rng.getrandbits(288)
        t = Trivium()
        t.load(state)
        assert t.state() == state
        for n in sizes:
            want, state = _spec_rounds(state, n)
            assert t.output(n) == want
            assert t.state() == state


def _reseed_src(value_reg="w1"):
    return f"bn.wsrw URND, {value_reg}\n"


def test_urnd_starts_public_each_run_and_follows_its_seed():
    prog = ("bn.wsrr w2, URND\ncsrrs x5, URND, x0\n"
            "bn.lw w1, 0(x0)\n" + _reseed_src() + "bn.wsrr w3, URND\ncsrrs x6, URND, x0\necall\n")
    seed = random.Random(7).getrandbits(256)
    sim, h = run(prog, dmem={0: seed.to_bytes(32, "little")})
    assert h.ok, h
    # before the reseed: the all-ones state of START, the same in every run
    ones = (1 << 288) - 1
    z, after = _spec_rounds(ones, 256)
    assert sim.wdr.read(2) == z
    assert sim.gpr.read(5) == _spec_rounds(after, 32)[0]
    # after it: s1..s256 = the value, s257..s288 = ones
    z, after = _spec_rounds(seed | (0xFFFF_FFFF << 256), 256)
    assert sim.wdr.read(3) == z and sim.gpr.read(6) == _spec_rounds(after, 32)[0]
    w2 = sim.wdr.read(2)
    sim.reset()                                   # START: the public state again
    sim.dmem.write_bytes(0, seed.to_bytes(32, "little"))
    h = sim.run()
    assert h.ok and sim.wdr.read(2) == w2


def test_rnd_pool_reads_the_host_words_once_oldest_first():
    sim = Iss(ISA)
    words = [random.Random(3).getrandbits(32) for _ in range(9)]
    for w in words:                               # 9 writes: the first one drops out
        sim.write_entropy(w)
    src = "csrrs x1, RND, x0\ncsrrs x2, RND, x0\necall\n"
    sim, h = run(src, sim)
    assert h.ok and (sim.gpr.read(1), sim.gpr.read(2)) == (words[1], words[2])
    # START keeps the pool (the host fills it before START); 6 words are left, not 8
    sim.reset()
    sim, h = run("bn.wsrr w1, RND\necall\n", sim)
    assert h.reason == "error" and h.errors == ["RND"] and "6 of 8" in h.message
    # the error wiped the pool: one fresh word now is one word, the rest zero
    assert sim.random.fresh == 0 and sim.random.pool == [0] * 8
    sim.reset()
    for w in words[:8]:
        sim.write_entropy(w)
    sim, h = run("bn.wsrr w1, RND\necall\n", sim)
    assert h.ok and sim.wdr.read(1) == sum(w << (32 * i) for i, w in enumerate(words[:8]))
    assert sim.random.pool == [0] * 8             # read: not kept


def test_the_wipe_empties_the_pool_and_resets_urnd():
    r = RandomRegs()
    for w in range(1, 9):
        r.write_entropy(w)
    r.reseed(12345)
    r.wipe()
    assert r.fresh == 0 and r.pool == [0] * 8 and r.urnd.state() == (1 << 288) - 1
