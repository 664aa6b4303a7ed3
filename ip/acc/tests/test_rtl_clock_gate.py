# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""The ACC core's clock gate (ip/acc/rtl/acc.py): the core gets clock edges only in the cycles the
design says (START, the two fetch cycles, every RUN cycle, the cycle after it stops; WIPE and its
DMEM rows it clears and the one after), none while idle or while the host loads IMEM/DMEM, and the
programs around it still compute the right results. Verilator (as the SoC simulation and the
fuzzer) runs the ACC + KMAC Verilog with the generic gate from a plain testbench that counts the
gated clock's rising edges; the expected counts follow from the documented cycle rules and the
CYCLES register. (Not Icarus: there Yosys' `always @*` blocks whose inputs keep their initial
values are not evaluated at time 0, so the first program after power-up reads x from them.)
"""
import re
import subprocess

from amaranth.back import verilog

from ip.acc.rtl.acc import REGS_YML
from ip.acc.dv.rtl_top import AccWithKmac
from ip.acc.tools.asm import assemble
from pqsoc.flow.verilator import VERILATOR_ARGS
from ip.common.regtool import load

IMEM, DMEM = 0x10000, 0x20000
DMEM_BYTES = 1024
OFF = {r.name: r.offset for r in load(REGS_YML).registers}

# sums 5 + 4 + ... + 1 into x2 through a loop, adds DMEM word 0, stores it to DMEM byte 64
PROGRAM = """
    lw x3, 0(x0)
    addi x1, x0, 5
    addi x2, x0, 0
    loop x1, 2
      add x2, x2, x1
      addi x1, x1, -1
    add x2, x2, x3
    sw x2, 64(x0)
    ecall
"""


def _testbench() -> str:
    words = assemble(PROGRAM, "gate.s")
    load_prog = "\n".join(f"    wbw(32'h{IMEM + 4 * i:x}, 32'h{w:08x});" for i, w in enumerate(words))
    return f"""
`timescale 1ns/1ps
module tb;
  reg clk = 0, rst = 1;
  reg [29:0] adr = 0; reg [31:0] dat_w = 0; reg [3:0] sel = 0; reg cyc = 0, stb = 0, we = 0;
  wire [31:0] dat_r; wire ack, err, irq;
  acc_with_kmac dut(.clk(clk), .rst(rst), .bus__adr(adr), .bus__dat_w(dat_w), .bus__dat_r(dat_r),
          .bus__sel(sel), .bus__cyc(cyc), .bus__stb(stb), .bus__we(we), .bus__ack(ack),
          .bus__err(err), .irq(irq));
  always #5 clk = ~clk;
  integer edges = 0;
  always @(posedge dut.acc.core_gate.gclk) edges = edges + 1;
  reg [31:0] rd;
  integer n;

  task wbx(input w, input [31:0] a, input [31:0] d);
    begin
      adr = a >> 2; dat_w = d; sel = 4'hf; we = w; cyc = 1; stb = 1;
      n = 0;
      @(posedge clk); #1;
      while (!ack && n < 100) begin @(posedge clk); #1; n = n + 1; end
      if (!ack) $display("NOACK %h", a);
      rd = dat_r; cyc = 0; stb = 0; we = 0;
    end
  endtask
  task wbw(input [31:0] a, input [31:0] d); wbx(1, a, d); endtask
  task wbr(input [31:0] a); wbx(0, a, 0); endtask
  task idle(input integer k); repeat (k) @(posedge clk); #1; endtask
  task wait_idle;
    begin
      wbr(32'h{OFF['STATUS']:x}); n = 0;
      while (rd != 0 && n < 2000) begin wbr(32'h{OFF['STATUS']:x}); n = n + 1; end
    end
  endtask

  initial begin
    idle(3); rst = 0; #1;
    edges = 0;
    idle(40);
    $display("IDLE %0d", edges);
    wbw(32'h{DMEM:x}, 32'd1000);
{load_prog}
    wbr(32'h{IMEM + 4:x});
    $display("LOADED %0d %h", edges, rd);
    wbw(32'h{OFF['INTR_ENABLE']:x}, 1);
    repeat (2) begin
      edges = 0;
      wbw(32'h{OFF['CTRL']:x}, 1);
      wait_idle; idle(30);
      $display("IRQ %0d", irq);
      wbr(32'h{OFF['CYCLES']:x}); $display("RUN %0d %0d", edges, rd);
      wbr(32'h{DMEM + 64:x}); $display("RESULT %0d", rd);
      wbw(32'h{OFF['INTR_STATE']:x}, 1);
      edges = 0;
      wbw(32'h{OFF['CTRL']:x}, 2);
      wait_idle; idle(30);
      wbr(32'h{DMEM + 64:x}); $display("WIPE %0d %0d", edges, rd);
      wbw(32'h{DMEM:x}, 32'd1000);
    end
    $display("DONE");
    $finish;
  end
endmodule
"""


def test_core_clock_runs_only_when_needed(tmp_path):
    (tmp_path / "acc.v").write_text(verilog.convert(AccWithKmac(1024, DMEM_BYTES),
                                                    name="acc_with_kmac", emit_src=False))
    (tmp_path / "tb.v").write_text(_testbench())
    subprocess.run(["verilator", "--binary", "--timing", *VERILATOR_ARGS, "--top-module", "tb",
                    "--Mdir", str(tmp_path / "obj"), "-o", "sim", "-j", "0",
                    str(tmp_path / "tb.v"), str(tmp_path / "acc.v")], check=True, capture_output=True)
    out = subprocess.run([str(tmp_path / "obj" / "sim")], capture_output=True, text=True,
                         check=True, timeout=600).stdout
    assert "DONE" in out and "NOACK" not in out, out[-2000:]
    assert re.search(r"^IDLE 0$", out, re.M), out            # idle after reset: no edge
    loaded = re.search(r"^LOADED (\d+) (\w+)$", out, re.M)
    assert loaded and loaded[1] == "0", out                   # host IMEM/DMEM accesses: none
    assert int(loaded[2], 16) == assemble(PROGRAM, "gate.s")[1]
    runs = re.findall(r"^RUN (\d+) (\d+)$", out, re.M)
    assert len(runs) == 2
    for edges, cycles in runs:
        # START, FETCH, FETCH2, every counted RUN cycle, the cycle that clears `done`
        assert int(cycles) > 10 and int(edges) == int(cycles) + 4, runs
    assert re.findall(r"^RESULT (\d+)$", out, re.M) == [str(1000 + 15)] * 2
    assert re.findall(r"^IRQ (\d+)$", out, re.M) == ["1"] * 2
    # WIPE from idle: its own cycle, one per DMEM row it clears, the one that clears `done`;
    # DMEM zeroed. The first clears every row (after reset DMEM may hold anything), the second
    # the rows written since (the input in row 0, the result at byte 64 in row 2: 3 rows)
    assert re.findall(r"^WIPE (\d+) (\d+)$", out, re.M) == [(str(DMEM_BYTES // 32 + 2), "0"),
                                                            (str(3 + 2), "0")]
