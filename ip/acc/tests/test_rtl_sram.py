# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""ip/common/sram.py: SramBank in behavioural mode (Amaranth simulator vs a Python model) and in
macro mode (Verilog text: instance count and port hookup; a short Icarus run on the OpenRAM
behavioural models when Icarus and the PDK are there)."""
import os
import random
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from amaranth.back import verilog
from amaranth.sim import Simulator

from ip.common.sram import MACROS, SramBank

M1K = "sky130_sram_1kbyte_1rw1r_32x256_8"
M2K = "sky130_sram_2kbyte_1rw1r_32x512_8"


def _stimulus(rng, depth, width, n):
    """(en, we, addr, wdata) per cycle: reads, byte-masked writes, idle cycles, a few read+write."""
    nbytes = width // 8
    hot = [rng.randrange(depth) for _ in range(8)]       # revisit a few addresses often
    out = []
    for _ in range(n):
        addr = rng.choice(hot) if rng.random() < 0.5 else rng.randrange(depth)
        kind = rng.randrange(10)
        if kind < 4:
            out.append((1, 0, addr, 0))
        elif kind < 8:
            we = rng.choice([(1 << nbytes) - 1, rng.getrandbits(nbytes), 1 << rng.randrange(nbytes)])
            out.append((0, we, addr, rng.getrandbits(width)))
        elif kind < 9:
            out.append((0, 0, addr, rng.getrandbits(width)))
        else:
            out.append((1, rng.getrandbits(nbytes), addr, rng.getrandbits(width)))
    return out


def _model(stim, width, check_rw=True):
    """Expected rdata after each cycle that reads (None where unspecified). Read before write:
    a cycle with en and we returns the old word (behavioural mode only)."""
    mem = {}
    exp = []
    for en, we, addr, wdata in stim:
        old = mem.get(addr, 0)
        e = None
        if en and (check_rw or not we):
            e = old
        new = old
        for b in range(width // 8):
            if we >> b & 1:
                msk = 0xFF << (8 * b)
                new = (new & ~msk) | (wdata & msk)
        mem[addr] = new
        exp.append(e)
    return exp


@pytest.mark.parametrize("depth,width", [(64, 32), (40, 256), (7, 256)])
def test_behavioural_random(depth, width):
    rng = random.Random(depth * 1000 + width)
    dut = SramBank(depth, width)
    stim = _stimulus(rng, depth, width, 600)
    exp = _model(stim, width)
    checked = []

    async def tb(ctx):
        last = 0
        for (en, we, addr, wdata), e in zip(stim, exp):
            ctx.set(dut.en, en)
            ctx.set(dut.we, we)
            ctx.set(dut.addr, addr)
            ctx.set(dut.wdata, wdata)
            await ctx.tick()
            got = ctx.get(dut.rdata)
            if e is not None:
                assert got == e, f"read of {addr}: got {got:#x}, expected {e:#x}"
                checked.append(1)
                last = got
            elif not en:
                assert got == last, "rdata must hold without a read"

    sim = Simulator(dut)
    sim.add_clock(1e-6)
    sim.add_testbench(tb)
    sim.run()
    assert len(checked) > 150


def _instances(text, macro):
    return re.findall(rf"^\s*{macro} (\S+) \((.*?)\);", text, re.M | re.S)


@pytest.mark.parametrize("macro,depth,width,rows,cols", [
    (M2K, 2048, 32, 4, 1),      # ACC IMEM 8 KiB
    (M2K, 512, 256, 1, 8),      # ACC DMEM 16 KiB
    (M1K, 768, 256, 3, 8),
    (M1K, 256, 32, 1, 1),
])
def test_macro_verilog(macro, depth, width, rows, cols):
    dut = SramBank(depth, width, macro)
    assert dut.tiles == (rows, cols)
    text = verilog.convert(dut, name="bank", emit_src=False)
    insts = _instances(text, macro)
    assert len(insts) == rows * cols
    assert not re.search(r"\breg\s*\[\d+:0\]\s*\w+\s*\[", text), "no behavioural memory array in macro mode"
    mabits = (MACROS[macro][0] - 1).bit_length()
    names = set()
    for name, body in insts:
        names.add(name)
        r, c = map(int, re.fullmatch(r"ram_r(\d+)_c(\d+)", name).groups())
        ports = dict(re.findall(r"\.(\w+)\(([^)]*?)\s*\)", body))
        assert set(ports) == {"clk0", "csb0", "web0", "wmask0", "addr0", "din0", "dout0",
                              "clk1", "csb1", "addr1"}, ports
        assert ports["clk0"] == "clk" and ports["clk1"] == "clk"
        assert ports["csb1"] == "1'h1"
        assert ports["addr1"] == (f"{mabits}'h000" if mabits > 8 else f"{mabits}'h00")
        assert ports["addr0"] == (f"addr[{mabits - 1}:0]" if rows > 1 else "addr")
        if cols == 1:
            assert ports["din0"] == "wdata" and ports["wmask0"] == "we"
        else:
            assert ports["din0"] == f"wdata[{32 * c + 31}:{32 * c}]"
            assert ports["wmask0"] == f"we[{4 * c + 3}:{4 * c}]"
        assert ports["dout0"] == ("rdata" if rows * cols == 1 else f"dout_r{r}_c{c}")
    assert names == {f"ram_r{r}_c{c}" for r in range(rows) for c in range(cols)}


def test_macro_depth_error():
    with pytest.raises(ValueError, match=r"depth 300 is not a multiple of the 256-word depth"):
        SramBank(300, 32, M1K)
    with pytest.raises(ValueError, match="unknown SRAM macro"):
        SramBank(256, 32, "sky130_sram_8kbyte")
    with pytest.raises(ValueError, match="width must be 32 or 256"):
        SramBank(256, 64)


def _pdk_sram_verilog(macro):
    root = os.environ.get("PDK_ROOT", "")
    p = Path(root) / "sky130A" / "libs.ref" / "sky130_sram_macros" / "verilog" / f"{macro}.v"
    return p if root and p.is_file() else None


@pytest.mark.skipif(shutil.which("iverilog") is None, reason="Icarus Verilog not installed")
def test_macro_icarus(tmp_path):
    """Macro mode on the OpenRAM behavioural models: 3 rows x 8 macros (1 KiB, 256 words)."""
    model = _pdk_sram_verilog(M1K)
    if model is None:
        pytest.skip("PDK_ROOT with the SRAM macro models not set")
    depth, width = 768, 256
    rng = random.Random(5)
    # the macros power up with unknown contents: write every word first
    stim = [(0, (1 << 32) - 1, a, rng.getrandbits(width)) for a in range(depth)]
    stim += _stimulus(rng, depth, width, 400)
    stim = [(en, 0, a, d) if en and we else (en, we, a, d) for en, we, a, d in stim]  # no read+write
    exp = _model(stim, width)
    (tmp_path / "bank.v").write_text(verilog.convert(SramBank(depth, width, M1K), name="bank",
                                                      emit_src=False))
    with open(tmp_path / "stim.hex", "w") as f:
        for (en, we, addr, wdata), e in zip(stim, exp):
            f.write(f"{en:01x}{we:08x}{addr:04x}{wdata:064x}{int(e is not None):01x}{(e or 0):064x}\n")
    n = len(stim)
    (tmp_path / "tb.v").write_text(f"""
module tb;
  reg clk = 0, rst = 1;
  reg en = 0; reg [31:0] we = 0; reg [9:0] addr = 0; reg [255:0] wdata = 0;
  wire [255:0] rdata;
  reg [567:0] v [0:{n - 1}];
  integer i, errors = 0, checks = 0;
  bank dut(.clk(clk), .rst(rst), .en(en), .we(we), .addr(addr), .wdata(wdata), .rdata(rdata));
  always #10 clk = ~clk;
  initial begin
    $readmemh("{tmp_path / 'stim.hex'}", v);
    @(posedge clk); #2 rst = 0;
    for (i = 0; i < {n}; i = i + 1) begin
      en = v[i][564]; we = v[i][563:532]; addr = v[i][525:516]; wdata = v[i][515:260];
      @(posedge clk); #16;
      if (v[i][256]) begin
        checks = checks + 1;
        if (rdata !== v[i][255:0]) begin
          errors = errors + 1;
          if (errors < 5) $display("MISMATCH cycle %0d addr %0d got %h exp %h", i, addr, rdata, v[i][255:0]);
        end
      end
    end
    $display("RESULT checks=%0d errors=%0d", checks, errors);
    $finish;
  end
endmodule
""")
    # VERBOSE=0 on every macro instance silences the model's per-access $display
    (tmp_path / "quiet.v").write_text(
        "module quiet; defparam " + ", ".join(
            f"tb.dut.ram_r{r}_c{c}.VERBOSE = 0" for r in range(3) for c in range(8)) + "; endmodule\n")
    sim = tmp_path / "sim.vvp"
    subprocess.run(["iverilog", "-g2012", "-o", str(sim), "-s", "tb", "-s", "quiet",
                    str(tmp_path / "tb.v"), str(tmp_path / "quiet.v"), str(tmp_path / "bank.v"), str(model)],
                   check=True, capture_output=True, text=True)
    r = subprocess.run(["vvp", "-n", str(sim)], capture_output=True, text=True, timeout=120)
    m = re.search(r"RESULT checks=(\d+) errors=(\d+)", r.stdout)
    assert m, r.stdout[-2000:] + r.stderr[-2000:]
    assert int(m.group(2)) == 0, r.stdout[-3000:]
    assert int(m.group(1)) > 100
