# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""ip/acc/kernels/prog.py: virtual-register allocation and scheduling of straight-line code,
run on the ISS and compared with lane arithmetic done here."""
import random

from ip.acc.kernels.prog import Prog
from ip.acc.tests.iss_util import KEM, pack, run, unpack, w256


def _values(seed):
    rnd = random.Random(seed)
    return [[rnd.randrange(1 << 16) for _ in range(16)] for _ in range(2)]


def test_an_op_reading_one_virtual_register_twice_at_its_last_use():
    # the allocator used to free such a register twice (KeyError on the second pop)
    a, b = _values(1)
    p = Prog(["w1", "w2", "w3", "w4"])
    p.lw("%a", 0)
    p.lw("%b", 32)
    p.op("bn.addv", "%d", "%a", "%a")     # last use of %a, read twice
    p.op("bn.addv", "%e", "%d", "%b")
    p.sw("%e", 64)
    sim, halt = run(p.text() + "\necall\n", dmem={0: w256(pack(a)), 32: w256(pack(b))})
    got = unpack(int.from_bytes(sim.dmem.read_bytes(64, 32), "little"), KEM)
    assert got == [(2 * x + y) % (1 << 16) for x, y in zip(a, b)]


def test_a_pool_too_small_is_an_error_naming_the_op():
    p = Prog(["w1"])
    p.lw("%a", 0)
    p.lw("%b", 32)
    p.op("bn.addv", "%c", "%a", "%b")
    try:
        p.text()
    except ValueError as e:
        assert "%b needs a register" in str(e)
    else:
        raise AssertionError("a one-register pool held two live values")
