# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""ip/acc/tools/sched.py: dependences, barriers, loop bodies, and random straight-line
programs that give the same machine state on the ISS after scheduling, never slower."""
import random

from ip.acc.tools import sched
from ip.acc.tests.iss_util import ISA
from ip.acc.tools.asm import assemble
from ip.acc.iss import Iss


def _preds(lines, noalias=()):
    version = {}
    ops = [sched.make_op(t, *sched.decode(t), version) for t in lines]
    return sched.dependences(ops, noalias)


def test_register_dependences():
    p = _preds(["bn.lw w1, 0(x0)",           # 0
                "bn.addvm w2, w1, w1",       # 1: RAW on w1
                "bn.lw w1, 32(x0)",          # 2: WAR on w1 (1), WAW (0)
                "bn.addvm w2, w3, w3",       # 3: WAW on w2 (1)
                "addi x5, x0, 1",            # 4
                "addi x6, x5, 1",            # 5: RAW on x5
                "addi x0, x6, 1",            # 6: RAW on x6; writes x0: nothing
                "addi x0, x5, 2"])           # 7: no dependence on 6 (x0 never)
    assert p[1] == {0: True}
    assert p[2] == {0: False, 1: False}
    assert p[3] == {1: False}
    assert p[5] == {4: True}
    assert p[6] == {5: True}
    assert p[7] == {4: True}


def test_bfly_writes_both_and_pi_writes_base():
    p = _preds(["bn.bfly.ct w0, w1, w2, r, 0",
                "bn.sw w1, 0(x0)",
                "bn.lw.pi w3, 0(x5)",
                "addi x6, x5, 0"])
    assert p[1] == {0: True}
    assert p[3] == {2: True}                 # the post-increment wrote x5


def test_memory_dependences():
    p = _preds(["bn.sw w1, 0(x0)",           # 0
                "bn.lw w2, 32(x0)",          # 1: disjoint wide words
                "lw x7, 28(x0)",             # 2: overlaps the store's bytes 0..31
                "sw x7, 32(x0)",             # 3: overlaps load 1 (32..63), RAW x7
                "bn.lw w3, 0(x8)",           # 4: another base: not provably disjoint
                "addi x8, x8, 64",           # 5
                "bn.sw w4, 64(x8)",          # 6: x8 was written: no offset comparison
                "bn.lw w5, 96(x0)"])         # 7: vs store 6 through x8: ordered
    assert p[1] == {}
    assert p[2] == {0: False}
    assert p[3] == {1: False, 2: True}
    assert p[4] == {0: False, 3: False}
    assert p[6] == {0: False, 1: False, 2: False, 3: False, 4: False, 5: True}
    assert p[7] == {6: False}
    q = _preds(["bn.sw w1, 0(x9)", "bn.lw w2, 0(x8)"], noalias=[("x8", "x9")])
    assert q[1] == {}
    r = _preds(["bn.lw w1, 0(x8)", "bn.lw w2, 0(x9)"])       # two loads: never ordered
    assert r[1] == {}


def test_acc_wsr_ordered():
    p = _preds(["bn.or.acc x1, w0, w1", "bn.or.acc x2, w2, w3"])
    assert p[1] == {0: True}                 # reads the ACC the first one wrote


def test_stall_is_filled():
    lines = ["bn.lw w1, 0(x0)", "bn.addvm w2, w1, w1", "bn.lw w3, 32(x0)",
             "bn.mulvm w4, w3, w3", "bn.mulvm w5, w3, w3", "bn.addvm w6, w0, w0"]
    out = sched.schedule(lines)
    assert sorted(out) == sorted(lines) and out != lines
    items = [sched.decode(t) for t in out]
    assert sched.cycles(items) < sched.cycles([sched.decode(t) for t in lines])


def test_barriers_and_labels_stay():
    lines = ["bn.lw w1, 0(x0)", "bn.addvm w2, w1, w1", "bn.addvm w3, w0, w0",
             "csrrw x0, VMODE, x31",
             "bn.lw w1, 0(x0)", "bn.addvm w2, w1, w1", "bn.addvm w3, w0, w0",
             "here:",
             "bn.lw w1, 0(x0)", "bn.addvm w2, w1, w1", "bn.addvm w3, w0, w0",
             "kmac.acq",
             "bn.lw w1, 0(x0)", "bn.addvm w2, w1, w1", "bn.addvm w3, w0, w0",
             "beq x0, x0, here",
             "bn.lw w1, 0(x0)", "bn.addvm w2, w1, w1", "bn.addvm w3, w0, w0",
             "bn.wsrw ACC, w3", "ecall"]
    out = sched.schedule(lines)
    assert len(out) == len(lines)
    for i in (3, 7, 11, 15, 19, 20):
        assert out[i] == lines[i]
    for a, b in ((0, 3), (4, 7), (8, 11), (12, 15), (16, 19)):
        assert out[a:b] == [lines[a], lines[a + 2], lines[a + 1]]


def test_loop_body_is_its_own_region():
    body = ["bn.lw w1, 0(x0)", "bn.addvm w2, w1, w1", "bn.addvm w3, w0, w0"]
    lines = ["bn.lw w4, 0(x0)", "loopi 4, 3"] + body + ["bn.addvm w5, w4, w4", "ecall"]
    out = sched.schedule(lines)
    assert out[1] == "loopi 4, 3"
    assert sorted(out[2:5]) == sorted(body)           # nothing entered or left the body
    assert out[5:] == lines[5:]


# ---------------------------------------------------------------------------- random programs
WIDE = ["bn.addvm", "bn.subvm", "bn.addv", "bn.xor", "bn.mulvm", "bn.mulv.lo", "bn.trn1"]


def _random_program(rng, n):
    """Straight-line ops on w0..w7, x5..x7, 8 DMEM words at 0 (through x0) and through
    x5 (= 0 or 32 + post-increments), ending in stores of every register."""
    lines = ["addi x5, x0, 0"]
    for _ in range(n):
        k = rng.randrange(10)
        w = [f"w{rng.randrange(8)}" for _ in range(3)]
        if k < 4:
            lines.append(f"{rng.choice(WIDE)} {w[0]}, {w[1]}, {w[2]}")
        elif k == 4:
            a = rng.randrange(8)
            lines.append(f"{rng.choice(['bn.bfly.ct', 'bn.bfly.gs'])} w{a}, w{(a + 1) % 8}, "
                         f"{w[2]}, r, {rng.randrange(8)}")
        elif k == 5:
            lines.append(f"bn.lw {w[0]}, {32 * rng.randrange(8)}(x0)")
        elif k == 6:
            lines.append(f"bn.sw {w[0]}, {32 * rng.randrange(8)}(x0)")
        elif k == 7:
            lines.append(rng.choice([f"lw x{rng.randrange(6, 8)}, {4 * rng.randrange(64)}(x0)",
                                     f"sw x{rng.randrange(6, 8)}, {4 * rng.randrange(64)}(x0)",
                                     f"addi x{rng.randrange(6, 8)}, x{rng.randrange(5, 8)}, 3"]))
        elif k == 8:
            lines.append(rng.choice([f"bn.lw {w[0]}, 0(x5)", f"bn.sw {w[0]}, 32(x5)",
                                     "addi x5, x0, 32", "addi x5, x0, 0"]))
        else:
            lines.append(rng.choice([f"bn.lw.pi {w[0]}, 0(x5)", f"bn.sw.pi {w[0]}, 0(x5)",
                                     "addi x5, x0, 0"]))
    lines += [f"bn.sw w{i}, {512 + 32 * i}(x0)" for i in range(8)]
    lines += [f"sw x{i}, {768 + 4 * i}(x0)" for i in range(5, 8)]
    return lines


def _run(lines, image):
    sim = Iss(ISA)
    sim.load_program(assemble("\n".join(lines + ["ecall"]) + "\n", "r.s", ISA))
    sim.dmem.write_bytes(0, image)
    h = sim.run(max_cycles=100_000)
    assert h.ok, h
    return sim.dmem.read_bytes(0, 1024), h.cycles


def test_random_programs_same_result_never_slower():
    rng = random.Random(3)
    faster = 0
    for _ in range(40):
        lines = _random_program(rng, rng.randrange(10, 60))
        image = rng.randbytes(512)
        out = sched.schedule(lines)
        assert sorted(out) == sorted(lines)
        want, c0 = _run(lines, image)
        got, c1 = _run(out, image)
        assert got == want
        assert c1 <= c0
        faster += c1 < c0
    assert faster > 20


def test_deterministic():
    rng = random.Random(4)
    lines = _random_program(rng, 80)
    assert sched.schedule(lines) == sched.schedule(list(lines))


def test_allocate_fifo():
    out = sched.allocate(["bn.lw %a, 0(x0)", "bn.addvm %b, %a, %a", "bn.sw %b, 0(x0)",
                          "bn.lw %c, 32(x0)"], ["w0", "w1", "w2"])
    assert out == ["bn.lw w0, 0(x0)", "bn.addvm w1, w0, w0", "bn.sw w1, 0(x0)",
                   "bn.lw w2, 32(x0)"]
