# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""ISS wide-memory group: bn.lw/sw (+pi), bn.mov, bn.bcast, bn.ins/ext, WSRs."""
import random

from ip.acc.tests.iss_util import DSA, KEM, SET_VMODE1, cyc, pack, run, unpack, w256


def test_wide_load_store_post_increment():
    rng = random.Random(1)
    a, b = rng.getrandbits(256), rng.getrandbits(256)
    sim, h = run("addi x1, x0, 64\nbn.lw.pi w1, 0(x1)\nbn.lw w2, 32(x0)\n"
                 "addi x2, x0, 256\nbn.sw.pi w1, 0(x2)\nbn.sw.pi w2, 0(x2)\nbn.sw w1, -32(x2)\n"
                 "bn.mov w3, w2\necall\n", dmem={64: w256(a), 32: w256(b)})
    assert h.ok, h
    assert sim.gpr.read(1) == 96 and sim.gpr.read(2) == 320
    assert sim.wdr.read(1) == a and sim.wdr.read(3) == b
    assert sim.dmem.read_bytes(256, 32) == w256(a)
    assert sim.dmem.read_bytes(288, 32) == w256(a)      # overwritten by the -32 store
    assert h.cycles == cyc("addi", "bn.lw.pi", "bn.lw", "addi", "bn.sw.pi", "bn.sw.pi",
                           "bn.sw", "bn.mov", "ecall")


def test_bcast_ins_ext_both_modes():
    sim, h = run("lui x1, 0x12345\naddi x1, x1, 0x678\nbn.bcast w1, x1\nbn.ins w2, x1, 5\n"
                 "bn.ext x3, w2, 5\nbn.ext x4, w2, 4\necall\n")
    assert h.ok
    assert unpack(sim.wdr.read(1), KEM) == [0x5678] * 16
    assert sim.wdr.read(2) == 0x12345678 << 160
    assert sim.gpr.read(3) == 0x12345678 and sim.gpr.read(4) == 0
    sim, h = run(SET_VMODE1 + "lui x1, 0x12345\naddi x1, x1, 0x678\nbn.bcast w1, x1\necall\n")
    assert unpack(sim.wdr.read(1), DSA) == [0x12345678] * 8


def test_wsr_acc():
    v = random.Random(2).getrandbits(256)
    sim, h = run("bn.lw w1, 0(x0)\nbn.wsrw ACC, w1\nbn.wsrr w2, ACC\necall\n", dmem={0: w256(v)})
    assert h.ok and sim.wdr.read(2) == v


def test_bcast_lane_mask():
    sim, h = run("addi x1, x0, -1\nbn.bcast w1, x1\necall\n")
    assert sim.wdr.read(1) == pack([0xFFFF] * 16)
