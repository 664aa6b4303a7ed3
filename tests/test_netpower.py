# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""The gate-level power model (pqsoc/sca/netpower.py) on a netlist small enough to count by hand:
a 3-bit counter in the flat form pqsoc.flow.gls.flat_netlist writes, every net counted once (a
second name for a net and the ports are not), and the toggles the model reports per clock edge
equal those of the counter's arithmetic."""
import subprocess

import pytest

from pqsoc import FlowError
from pqsoc.flow import verilator as vl
from pqsoc.sca import netpower

# q = the count; n* = the next-state logic; a second name of c0 (an input pin in a flat netlist)
FLAT = r"""module cnt(clk, q);
  input clk;
  wire clk;
  output [2:0] q;
  wire [2:0] q;
  reg c0;
  reg c1;
  reg c2;
  wire n0;
  wire n1;
  wire a01;
  wire n2;
  wire \u1.A ;
  assign \u1.A  = c0;
  assign n0 = ~\u1.A ;
  assign n1 = c1 ^ c0;
  assign a01 = c1 & c0;
  assign n2 = c2 ^ a01;
  always @(posedge clk) c0 <= n0;
  always @(posedge clk) c1 <= n1;
  always @(posedge clk) c2 <= n2;
  assign q = {c2, c1, c0};
endmodule
"""

DRIVER = r"""#include <cstdio>
#include "Vcnt.h"
#include "power_ports.h"
int main() {
  Vcnt* top = new Vcnt;
  top->clk = 0; top->eval();
  for (int edge = 0; edge < 12; edge++) {
    top->clk = 1; top->eval();
    uint32_t u[PQSOC_POWER_UNITS];
    pqsoc_power_sample(top, u);
    printf("%u %u %u\n", (unsigned)top->q, u[0], u[1]);
    top->clk = 0; top->eval();
  }
  delete top;
  return 0;
}
"""


def test_every_net_counts_once(tmp_path):
    flat = tmp_path / "flat.v"
    flat.write_text(FLAT)
    _, widths = netpower.instrument(flat, "cnt", tmp_path / "p", top_class="Vcnt")
    assert widths == {"flops": 3, "logic": 4}      # c0..c2; n0, n1, a01, n2 (not u1.A, not q)


def test_toggles_per_edge_are_the_counters(tmp_path):
    flat = tmp_path / "flat.v"
    flat.write_text(FLAT)
    src, _ = netpower.instrument(flat, "cnt", tmp_path / "p", top_class="Vcnt")
    driver = tmp_path / "main.cpp"
    driver.write_text(DRIVER)
    flags = vl.model_flags("cnt", x=["--x-initial", "0"], cxx=[], warn=vl.BLOCK_WARNINGS, prefix="Vcnt",
                           jobs=1) + ["-CFLAGS", f"-I{tmp_path / 'p'}"]
    model = vl.build_model(flags=flags, sources=[src], driver=driver, out=tmp_path / "m", exe="Vcnt",
                           headers=[tmp_path / "p" / "power_ports.h"], label="counter power model")
    rows = [list(map(int, line.split())) for line in
            subprocess.run([str(model.exe)], capture_output=True, text=True, check=True).stdout.split("\n") if line]

    def logic(c):                                  # n0, n1, a01, n2 of count c
        b = [(c >> i) & 1 for i in range(3)]
        return [1 - b[0], b[1] ^ b[0], b[1] & b[0], b[2] ^ (b[1] & b[0])]
    prev = 0
    for edge, (q, flops, comb) in enumerate(rows):
        assert q == (edge + 1) % 8, "the counter counts"
        if edge:                                   # the first edge's 'before' is the power-on state
            assert flops == bin(q ^ prev).count("1")
            assert comb == sum(a != b for a, b in zip(logic(q), logic(prev)))
        prev = q


def test_a_netlist_that_is_not_flat_is_refused(tmp_path):
    flat = tmp_path / "two.v"
    flat.write_text(FLAT + FLAT.replace("module cnt", "module other"))
    with pytest.raises(FlowError, match="one module"):
        netpower.instrument(flat, "cnt", tmp_path / "p")
