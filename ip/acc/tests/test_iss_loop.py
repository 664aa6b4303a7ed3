# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""ISS hardware loops: zero-overhead iterations, nesting, and the LOOP error conditions."""
import pytest

from ip.acc.tests.iss_util import cyc, run


def test_loopi_zero_overhead():
    sim, h = run("loopi 10, 2\naddi x1, x1, 1\naddi x2, x2, 3\necall\n")
    assert h.ok and sim.gpr.read(1) == 10 and sim.gpr.read(2) == 30
    assert h.cycles == cyc("loopi") + 10 * cyc("addi", "addi") + cyc("ecall")


def test_loop_register_count_read_once():
    sim, h = run("addi x5, x0, 4\nloop x5, 2\naddi x1, x1, 1\naddi x5, x5, 10\necall\n")
    assert h.ok and sim.gpr.read(1) == 4 and sim.gpr.read(5) == 44
    assert h.cycles == cyc("addi", "loop") + 4 * cyc("addi", "addi") + cyc("ecall")


def test_nested_loops_and_shared_end():
    src = ("loopi 3, 3\n"        # outer body: loopi, addi, addi
           "loopi 4, 1\n"        # inner body: addi x1
           "addi x1, x1, 1\n"
           "addi x2, x2, 1\n"    # outer's last
           "loopi 2, 2\n"        # outer and inner ending at the same instruction
           "loopi 5, 1\n"
           "addi x3, x3, 1\n"
           "ecall\n")
    sim, h = run(src)
    assert h.ok, h
    assert (sim.gpr.read(1), sim.gpr.read(2), sim.gpr.read(3)) == (12, 3, 10)
    want = cyc("loopi") + 3 * (cyc("loopi") + 4 * cyc("addi") + cyc("addi")) \
        + cyc("loopi") + 2 * (cyc("loopi") + 5 * cyc("addi")) + cyc("ecall")
    assert h.cycles == want


def test_eight_deep_nesting_is_allowed():
    src = "".join(f"loopi 2, {8 - d}\n" for d in range(8)) + "addi x1, x1, 1\necall\n"
    sim, h = run(src)
    assert h.ok, h
    assert sim.gpr.read(1) == 2 ** 8


@pytest.mark.parametrize("src,why", [
    ("loopi 0, 1\naddi x1, x1, 1\necall\n", "zero iterations"),
    ("loop x0, 1\naddi x1, x1, 1\necall\n", "zero iterations"),
    ("loopi 3, 0\naddi x1, x1, 1\necall\n", "zero body"),
    ("".join(f"loopi 2, {9 - d}\n" for d in range(9)) + "addi x1, x1, 1\necall\n", "overflow"),
    ("loopi 2, 2\naddi x1, x1, 1\nbeq x0, x0, 8\necall\n", "last instruction"),
    ("loopi 2, 1\njal x0, 4\necall\n", "last instruction"),
    ("loopi 2, 2\naddi x1, x1, 1\nloopi 2, 1\naddi x1, x1, 1\necall\n", "last instruction"),
    ("loopi 2, 2\nloopi 2, 2\naddi x1, x1, 1\naddi x1, x1, 1\necall\n", "bad nesting"),
])
def test_loop_errors_then_clean_run(src, why):
    sim, h = run(src)
    assert h.reason == "error" and h.errors == ["LOOP"], h
    assert h.err_bits == 1 << 3
    assert why.split()[-1] in h.message
    assert sim.csr.values["ERR_BITS"] == 1 << 3
    sim.reset()
    sim, h = run("loopi 3, 1\naddi x1, x1, 1\necall\n", sim)
    assert h.ok and sim.gpr.read(1) == 3 and sim.csr.values["ERR_BITS"] == 0
