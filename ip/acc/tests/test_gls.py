# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""Gate-level simulation of the ACC (`pqsoc gls acc`): the cheap parts, for `make test`.

The full run (the synthesized ~208 k-cell netlist under Verilator, kernels and random programs in
lockstep with the ISS) takes too long for CI and runs in `make report` (reports/gls.json). These
tests cover what it is built from: the SRAM macro cycle model (against the PDK's own behavioural
model under Icarus), the gate-level top (ports, hookup, refusals), the refusal of a stale or
edited netlist and of unmodelled cells/macros, the warm-up check, and the hang/mismatch messages.
"""
import json
import random
import re
import shutil
import subprocess

import pytest

from pqsoc import FlowError
from ip.acc.dv import gls as acc_gls
from ip.common.sram import MACROS as SRAM_GEOMETRY
from pqsoc.flow import gls, synth

M2K = "sky130_sram_2kbyte_1rw1r_32x512_8"
M1K = "sky130_sram_1kbyte_1rw1r_32x256_8"


# ---------------------------------------------------------------------------------- SRAM model
def _sram_tb(macro: str, words: int, cycles: int, seed: int) -> str:
    """Icarus testbench: the PDK model and the cycle model side by side, same random stimulus
    (inputs change 2 ns after the rising edge, as flop outputs do), dout sampled 1 ns before
    each rising edge. Prints one line per cycle: read-cycle flag, PDK dout0, model dout0.
    The first `words` cycles write every word (the PDK model reads 'x from unwritten words)."""
    rng = random.Random(seed)
    ab = (words - 1).bit_length()
    hot = [rng.randrange(words) for _ in range(6)]
    stim = [(0, 0, 15, a, rng.getrandbits(32)) for a in range(words)]    # every word written once
    for _ in range(cycles):
        kind = rng.randrange(10)
        addr = rng.choice(hot) if rng.random() < 0.6 else rng.randrange(words)
        csb = 1 if kind == 9 else 0
        web = 0 if kind < 4 else 1
        wmask = rng.choice([15, rng.getrandbits(4), 1 << rng.randrange(4)])
        stim.append((csb, web, wmask, addr, rng.getrandbits(32)))
    body = "".join(
        f"    @(posedge clk); #2 csb0 = {c}; web0 = {w}; wmask0 = 4'd{m}; addr0 = {ab}'d{a}; din0 = 32'h{d:08x};\n"
        f"    #7 $display(\"%0d %h %h\", rd, pdk_q, cyc_q); rd = {int(not c and w)};\n"
        for c, w, m, a, d in stim)
    return f"""`timescale 1ns/1ps
module tb;
  reg clk = 0, csb0 = 1, web0 = 1, rd = 0;
  reg [3:0] wmask0 = 0; reg [{ab - 1}:0] addr0 = 0; reg [31:0] din0 = 0;
  wire [31:0] pdk_q, cyc_q, pdk_q1, cyc_q1;
  always #5 clk = ~clk;
  {macro} #(.VERBOSE(0)) pdk (.clk0(clk), .csb0(csb0), .web0(web0), .wmask0(wmask0), .addr0(addr0),
      .din0(din0), .dout0(pdk_q), .clk1(clk), .csb1(1'b1), .addr1({ab}'d0), .dout1(pdk_q1));
  {macro}_cyc cyc (.clk0(clk), .csb0(csb0), .web0(web0), .wmask0(wmask0), .addr0(addr0),
      .din0(din0), .dout0(cyc_q), .clk1(clk), .csb1(1'b1), .addr1({ab}'d0), .dout1(cyc_q1));
  initial begin
{body}    $finish;
  end
endmodule
"""


@pytest.mark.parametrize("macro", [M2K, M1K])
def test_sram_cycle_model_matches_pdk_model(pdk_root, tmp_path, macro):
    """At every rising edge the cycle model shows what the PDK model shows: the addressed word
    after a read cycle (also a word written in an earlier cycle, byte masks applied), and the PDK
    model's 'x after any other cycle (a random word in the cycle model)."""
    if shutil.which("iverilog") is None:
        pytest.fail("iverilog is missing (apt package iverilog; `make setup`)")
    from ip.common.sram import MACROS
    from pqsoc.flow.pdk import find_pdk
    words = MACROS[macro][0]
    model = gls.sram_cycle_model(macro, *MACROS[macro]).replace(f"module {macro}(", f"module {macro}_cyc(")
    (tmp_path / "cyc.v").write_text(model)
    (tmp_path / "tb.v").write_text(_sram_tb(macro, words, 1500, seed=len(macro)))
    pdk_model = find_pdk().sram(macro, "verilog")
    subprocess.run(["iverilog", "-g2012", "-o", str(tmp_path / "sim"), str(tmp_path / "tb.v"),
                    str(tmp_path / "cyc.v"), str(pdk_model)], check=True, capture_output=True, text=True)
    out = subprocess.run(["vvp", "-n", str(tmp_path / "sim")], check=True, capture_output=True,
                         text=True).stdout.split("\n")
    rows = [ln.split() for ln in out if re.fullmatch(r"[01] \S{8} \S{8}", ln.strip())]
    assert len(rows) == words + 1500
    reads = 0
    for i, (rd, pdk_q, cyc_q) in enumerate(rows[1:], 1):   # row 0: before the first edge
        if rd == "1":
            assert "x" not in pdk_q, f"cycle {i}: the PDK model gives no data after a read"
            assert cyc_q == pdk_q, f"cycle {i}: read data {cyc_q} != PDK model {pdk_q}"
            reads += 1
        else:
            assert pdk_q == "xxxxxxxx", f"cycle {i}: PDK model drives {pdk_q} after a non-read cycle"
            assert "x" not in cyc_q
    assert reads > 500


def test_sram_models_refuse_unknown_macro(tmp_path):
    with pytest.raises(FlowError, match="no simulation model for SRAM macro sky130_sram_8kbyte"):
        gls.write_sram_models(["sky130_sram_8kbyte"], SRAM_GEOMETRY, tmp_path / "m.v")


def test_unmodelled_macro_is_named(tmp_path):
    nl = tmp_path / "n.v"
    nl.write_text(f"module t(input clk);\n  {M1K} m0 (.clk0(clk));\n  {M2K} m1 (.clk0(clk));\nendmodule\n")
    with pytest.raises(FlowError, match=f"macros without a simulation model: {M1K}"):
        gls.check_macros(nl, (M2K,))
    gls.check_macros(nl, (M1K, M2K))


# ---------------------------------------------------------------------------------- top
@pytest.fixture(scope="module")
def rtl_ports():
    """The port list of the ACC as synthesis sees it (the `acc` block's top, behavioural
    memories and small sizes: same ports), as the netlist would declare it."""
    from amaranth.back import verilog
    from ip.acc.rtl.acc import Acc
    from ip.acc.rtl.pqc import ACC_ADDR_WIDTH
    from ip.acc.dv.gls_top import netlist_ports
    text = verilog.convert(Acc(1024, 1024, addr_width=ACC_ADDR_WIDTH), name="acc_netlist", emit_src=False)
    return text, netlist_ports(text, "acc_netlist")


def _top_ports(text: str, module: str = "acc") -> dict:
    from ip.acc.dv.gls_top import netlist_ports
    return netlist_ports(text, module)


def test_gate_level_top_has_the_rtl_tops_ports(rtl_ports, tmp_path):
    """Same ports as the RTL fuzz top (rtl_top.AccWithKmac as `acc`), the netlist instance wired
    on every one of its ports, and the KMAC's side-load port on the netlist's."""
    from amaranth.back import verilog
    from ip.acc.dv import gls_top
    from ip.acc.dv.rtl_top import AccWithKmac
    text, ports = rtl_ports
    # the block's (and the SoC's) 16-bit word address, ip/acc/block.py
    assert ports["bus__adr"] == ("input", 16) and ports["sideload__msg__data"] == ("output", 256)
    top = gls_top.emit(text, "acc_netlist", tmp_path).read_text()
    ref = verilog.convert(AccWithKmac(1024, 1024, addr_width=gls_top.ADDR_WIDTH), name="acc", emit_src=False)
    assert _top_ports(top) == _top_ports(ref)
    inst = re.search(r"^\s*acc_netlist acc_netlist \((.*?)\);", top, re.M | re.S)
    assert inst, "no netlist instance in the top"
    conns = dict(re.findall(r"\.(\w+)\(([^)]*?)\s*\)", inst.group(1)))
    assert set(conns) == set(ports)
    assert conns["clk"] == "clk" and conns["rst"] == "rst" and conns["bus__adr"] == "bus__adr"
    kmac = re.search(r"^\s*\\acc\.kmac\s+kmac \((.*?)\);", top, re.M | re.S)
    assert kmac, "no KMAC instance in the top"
    knets = set(re.findall(r"\.\w+\(([^)]*?)\s*\)", kmac.group(1)))
    alias = {}                             # plain `assign a = b;` nets, as classes

    def find(n):
        while alias.get(n, n) != n:
            n = alias[n]
        return n
    for a, b in re.findall(r"^\s*assign\s+([\w$\\]+)\s*=\s*([\w$\\]+)\s*;", top, re.M):
        alias[find(a)] = find(b)
    kclasses = {find(n) for n in knets}
    from ip.kmac.rtl.sideload import SideloadSignature
    sig = SideloadSignature()
    n_side = len(list(sig.flatten(sig.create())))       # the port's members, from its signature
    side = [p for p in ports if p.startswith("sideload__")]
    assert len(side) == n_side
    for p in side:                         # each side-load port of the netlist reaches the KMAC
        assert find(conns[p]) in kclasses, p
    assert len({find(conns[p]) for p in side}) == n_side


def test_gate_level_top_is_converted_again_only_when_needed(rtl_ports, tmp_path, monkeypatch):
    """The top's file is kept for the same netlist ports and Python; an edited file, or a
    netlist with other ports, converts again."""
    from amaranth.back import verilog
    from ip.acc.dv import gls_top
    text, _ = rtl_ports
    first = gls_top.emit(text, "acc_netlist", tmp_path).read_text()
    converted = []
    real = verilog.convert
    monkeypatch.setattr(verilog, "convert", lambda *a, **k: converted.append(1) or real(*a, **k))
    assert gls_top.emit(text, "acc_netlist", tmp_path).read_text() == first and not converted
    (tmp_path / "gls_top.v").write_text("// edited\n")
    assert gls_top.emit(text, "acc_netlist", tmp_path).read_text() == first and len(converted) == 1
    power = re.sub(r"^module acc_netlist\((.*?)\);\n", r"module acc_netlist(pwr_u, \1);\n  output [3:0] pwr_u;\n",
                   text, count=1, flags=re.M | re.S)
    assert "pwr_u" in gls_top.emit(power, "acc_netlist", tmp_path).read_text() and len(converted) == 2


def test_gate_level_top_refuses_port_mismatch(rtl_ports, tmp_path):
    from ip.acc.dv.gls_top import AccGateLevel, netlist_ports
    from amaranth.back import verilog
    _, ports = rtl_ports
    bad = dict(ports)
    bad["bus__adr"] = ("input", 30)                # the components' default, not the block's
    with pytest.raises(FlowError, match="bus__adr is 30 bits wide"):
        verilog.convert(AccGateLevel("acc_netlist", bad), name="acc")
    bad = dict(ports)
    bad["scan_en"] = ("input", 1)
    with pytest.raises(FlowError, match="port scan_en has no counterpart"):
        verilog.convert(AccGateLevel("acc_netlist", bad), name="acc")
    bad = dict(ports)
    del bad["irq"]
    with pytest.raises(FlowError, match="lacks the ports irq"):
        verilog.convert(AccGateLevel("acc_netlist", bad), name="acc")
    with pytest.raises(FlowError, match="module acc_gl not found"):
        netlist_ports("module x(a);\n  input a;\nendmodule\n", "acc_gl")


def test_netlist_ports_of_a_yosys_netlist():
    from ip.acc.dv.gls_top import netlist_ports
    text = ("module acc_netlist(bus__adr, clk, \\irq );\n  wire _0_;\n  input [29:0] bus__adr;\n"
            "  wire [29:0] bus__adr;\n  input clk;\n  output \\irq ;\n  assign _0_ = clk;\nendmodule\n")
    assert netlist_ports(text, "acc_netlist") == {"bus__adr": ("input", 30), "clk": ("input", 1),
                                                  "irq": ("output", 1)}


def test_gls_flags_use_random_initial_state():
    from ip.acc.dv.gls_top import gls_flags
    f = gls_flags(2)
    for opt in ("--x-assign", "--x-initial"):
        assert f.count(opt) == 1 and f[f.index(opt) + 1] == "unique"
    assert f[f.index("-j") + 1] == "2" and f.count("-j") == 1
    assert "--output-split" in f
    # compiled with clang, the Slow files (run once) at -O0; no -CFLAGS -O level (it would reach
    # only those files)
    make = [f[i + 1] for i, x in enumerate(f) if x == "-MAKEFLAGS"]
    assert make == ["CXX=clang++-14", "OPT_SLOW=-O0"]
    assert not [f[i + 1] for i, x in enumerate(f) if x == "-CFLAGS" and f[i + 1].startswith("-O")]


def test_missing_gate_level_compiler_is_named(monkeypatch):
    from pqsoc.flow import verilator
    monkeypatch.setattr(verilator.shutil, "which", lambda name: None)
    with pytest.raises(FlowError, match="clang.*make setup"):
        verilator.gl_cxx()
    with pytest.raises(FlowError, match="verilator not found.*make setup"):
        verilator.verilator()


# ---------------------------------------------------------------------------------- refusals
@pytest.fixture
def fake_synth_dir(pdk_root, tmp_path, monkeypatch):
    """A synthesis folder for `acc` holding a tiny netlist and its manifest (mapped with the
    current cell list, of stale RTL)."""
    from pqsoc.flow.pdk import find_pdk
    d = tmp_path / "synth_acc"
    d.mkdir()
    nl = d / "netlist.v"
    nl.write_text("module acc(input clk);\nendmodule\n")
    mf = {"block": "acc", "netlist_sha256": synth.sha256_files([nl]), "rtl_sha256": "0" * 64,
          "excluded_cells_sha256": synth.excluded_cells_sha256(find_pdk())}
    (d / "synth.json").write_text(json.dumps(mf))
    monkeypatch.setattr(synth, "synth_dir", lambda name: d if name == "acc" else tmp_path / name)
    return d


def test_edited_netlist_is_refused(pdk_root, fake_synth_dir):
    (fake_synth_dir / "netlist.v").write_text("module acc(input clk, input rst);\nendmodule\n")
    with pytest.raises(FlowError, match="does not match its synthesis manifest"):
        gls.gls("acc", seeds=(1,))


def test_stale_netlist_is_refused(pdk_root, fake_synth_dir):
    """The manifest's RTL hash is not the current ACC RTL's: refused before anything runs."""
    with pytest.raises(FlowError, match="stale: its RTL changed"):
        gls.gls("acc", seeds=(1,))


def test_missing_netlist_is_refused(pdk_root, fake_synth_dir):
    (fake_synth_dir / "netlist.v").unlink()
    with pytest.raises(FlowError, match="no netlist for acc"):
        gls.gls("acc", seeds=(1,))


# ---------------------------------------------------------------------------------- run checks
class _FakeBackend:
    def __init__(self, results):
        self.results = results

    def run_many(self, jobs):
        return self.results


def _res(halt="ecall", cycles=100, dmem=bytes(64), err=0):
    from ip.acc.dv.lockstep import RunResult
    return RunResult(halt, err, cycles, 10, 0x40, dmem)


def test_hang_names_the_cycle_limit():
    jobs = [("ntt_mlkem", [0], bytes(64), 20_000, None)]
    with pytest.raises(FlowError, match="ntt_mlkem did not halt within its cycle limit of 20000"):
        acc_gls._acc_kernels(jobs, [_res()], _FakeBackend([_res("cycle_limit", 20_016)]), "gate level")


def test_kernel_mismatch_names_the_first_difference():
    jobs = [("ntt_mlkem", [0], bytes(64), 20_000, None)]
    bad = bytearray(64)
    bad[0x24] = 1
    with pytest.raises(FlowError, match=r"cycles: iss 100 != gate level 101"):
        acc_gls._acc_kernels(jobs, [_res()], _FakeBackend([_res(cycles=101)]), "gate level")
    with pytest.raises(FlowError, match=r"dmem\[0x0024\]"):
        acc_gls._acc_kernels(jobs, [_res()], _FakeBackend([_res(dmem=bytes(bad))]), "gate level")
    acc_gls._acc_kernels(jobs, [_res()], _FakeBackend([_res()]), "gate level")


def test_warmup_is_checked_against_the_iss(monkeypatch, tmp_path):
    """The warm-up (fault at pc 0, DMEM wiped) must match the ISS, or nothing runs."""
    from ip.acc.dv import gls_top, rtl_runner
    src = tmp_path / "x.v"
    src.write_text("module acc; endmodule\n")
    be = gls_top.GateLevelBackend(2048, 2048, [src], tmp_path, seed=1)
    ref = be._warm_reference()
    assert ref.halt == "error" and not any(ref.dmem)
    import dataclasses
    good = dataclasses.replace(ref)
    monkeypatch.setattr(rtl_runner.RtlBackend, "run_many", lambda self, jobs: [good, _res()])
    assert be.run_many([([0], bytes(64), 100)]) == [_res()]
    dirty = bytearray(2048)
    dirty[0x100] = 0x5A                    # a DMEM word the wipe missed
    monkeypatch.setattr(rtl_runner.RtlBackend, "run_many",
                        lambda self, jobs: [dataclasses.replace(ref, dmem=bytes(dirty)), _res()])
    with pytest.raises(FlowError, match="warm-up program .* differs from the ISS"):
        be.run_many([([0], bytes(64), 100)])
    assert be.plusargs == ["+verilator+rand+reset+2", "+verilator+seed+1"]


def test_fuzz_cli_gls_backend_takes_the_netlists_sizes(capsys):
    from ip.acc.dv import fuzz
    assert fuzz.main(["--backend", "gls", "--dmem-size", "2048", "--count", "1"]) == 2
    assert "the netlist's memory is 16384 bytes; --dmem-size 2048" in capsys.readouterr().err


def test_gate_level_kernels_hold_every_mlkem768_operation():
    """`pqsoc gls acc` runs ML-KEM-768 keygen, encaps and decaps (valid and rejected), the
    masked noise sampling and m''s B2A at gate level; their checks pass on the ISS (against
    kyber-py, the B2A against its bits) and catch a wrong output byte."""
    from ip.acc import block as acc_block
    from ip.acc.dv.lockstep import IssBackend
    keys = [j[0] for j in acc_gls.acc_kernel_jobs()]
    assert {"mlkem768_keygen", "mlkem768_encaps", "mlkem768_decaps", "mlkem768_decaps_reject",
            "mlkem768_noise_masked", "mlkem_b2a_masked"} <= set(keys)
    for key, words, img, cycles, check in (acc_gls.mlkem_keygen_encaps_jobs(acc_block.DMEM_SIZE)
                                           + [acc_gls.masked_noise_job(acc_block.DMEM_SIZE),
                                              acc_gls.masked_b2a_job(acc_block.DMEM_SIZE)]):
        r = IssBackend(acc_block.IMEM_SIZE, acc_block.DMEM_SIZE).run(words, img, cycles)
        assert check(r) is None, key
        r.dmem = bytearray(r.dmem)
        r.dmem[0] ^= 1                   # DMEM byte 0 lies in the outputs of keygen / encaps,
        r.dmem[128] ^= 1                 # byte 128 in the noise's and the B2A's
        assert check(r) in ("outputs differ from kyber-py's", "outputs differ from the bits"), key


def test_dmem_window_passes_entropy_to_the_backend():
    """The gate-level lockstep's DMEM window (DmemWindow / DmemWindowMany) cuts DMEM and keeps a
    fuzz job's ENTROPY words (lockstep jobs are (words, dmem, max_cycles[, entropy])): the
    netlist gets the words the ISS gets. Its first version unpacked three fields and stopped the
    gate-level fuzz."""
    import dataclasses
    from ip.acc.dv.gls import DmemWindow, DmemWindowMany
    seen = []

    @dataclasses.dataclass
    class Result:
        dmem: bytes

    class Backend:
        def run(self, words, dmem, max_cycles, entropy=()):
            seen.append((len(dmem), tuple(entropy)))
            return Result(bytes(len(dmem) + 8))

        def run_many(self, jobs):
            seen.extend((len(j[1]), tuple(j[3]) if len(j) > 3 else ()) for j in jobs)
            return jobs
    DmemWindowMany(Backend(), 16).run_many([([1], bytes(64), 10, (5, 6)), ([1], bytes(64), 10)])
    r = DmemWindow(Backend(), 16).run([1], bytes(64), 10, (7,))
    assert seen == [(16, (5, 6)), (16, ()), (16, (7,))] and len(r.dmem) == 16


def test_gate_level_kernels_hold_the_masked_re_encryption_its_check_and_the_decapsulation():
    """`pqsoc gls acc` also runs ML-KEM-768's masked re-encryption, its check and the whole masked
    decapsulation; their checks pass on the ISS (kyber-py's ciphertext; ok = 1 on a matching one;
    cryptography's K) and catch a wrong output."""
    from ip.acc import block as acc_block
    from ip.acc.dv.lockstep import IssBackend
    from ip.acc.kernels.mlkem.masked_compare import MaskedCompare
    from ip.acc.kernels.mlkem.masked_encrypt import MaskedEncrypt
    from ip.acc.kernels.mlkem.masked_decaps import MaskedDecaps
    keys = [j[0] for j in acc_gls.acc_kernel_jobs()]
    assert {"mlkem768_encrypt_masked", "mlkem768_compare_masked", "mlkem768_decaps_masked"} <= set(keys)
    for (key, words, img, cycles, check), flip in (
            (acc_gls.masked_encrypt_job(acc_block.DMEM_SIZE), MaskedEncrypt(768).U),
            (acc_gls.masked_compare_job(acc_block.DMEM_SIZE), MaskedCompare(768).OK0 + 30),
            (acc_gls.masked_decaps_job(acc_block.DMEM_SIZE), MaskedDecaps(768).select.K1)):
        r = IssBackend(acc_block.IMEM_SIZE, acc_block.DMEM_SIZE).run(words, img, cycles)
        assert check(r) is None, key
        r.dmem = bytearray(r.dmem)
        r.dmem[flip] ^= 0x80 if key == "mlkem768_encrypt_masked" else 1     # u'[0][0] +- 128; ok's bit; K
        assert check(r) in ("u', v' do not compress to kyber-py's ciphertext",
                            "the check failed on a matching ciphertext", "K differs from cryptography's"), key
