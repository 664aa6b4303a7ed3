# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
import json
import re

import pytest

from pqsoc import FlowError, cli
from soc import ibex
from soc.build import build
from soc.extslave import SlavePort, WishboneBlock, WishboneSlave
from soc.target import ENTROPY_BASE, ROM_SIZE, SILICON_ENTROPY, PQSoC, pqc_block


def test_soc_generates_verilog_map_and_headers(soc_dir):
    v = (soc_dir / "gateware" / "pqsoc.v").read_text()
    assert re.search(r"^module pqsoc\b", v, re.M)
    assert "ibex_top" in v and "ibex_pkg::RV32MSlow" in v
    # Ibex gets IbexMuBiOn (4'b0101) unless held; the simulation SoC never holds it
    # (Migen prefixes the signal's name when other modules use the same one)
    m = re.search(r"\.fetch_enable_i\s*\(\((\w*cpu_hold) \? 4'd10 : 4'd5\)\)", v)
    assert m
    hold = m.group(1)
    assert re.search(rf"^reg\s+{hold} = 1'd0;", v, re.M) and not re.search(rf"^\s*{hold}\s*<?=", v, re.M)
    mem = json.loads((soc_dir / "csr.json").read_text())["memories"]
    assert (mem["rom"]["base"], mem["rom"]["size"]) == (0, ROM_SIZE) and ROM_SIZE == 128 * 1024
    assert mem["sram"]["size"] == 32 * 1024
    csrs = json.loads((soc_dir / "csr.json").read_text())["csr_registers"]
    for reg in ("uart_rxtx", "timer0_load", "gpio_out_out", "gpio_in_in", "simctrl_finish"):
        assert reg in csrs
    gen = soc_dir / "software" / "include" / "generated"
    for f in ("csr.h", "soc.h", "mem.h", "regions.ld"):
        assert (gen / f).exists()
    assert "TIMER0_INTERRUPT" in (gen / "soc.h").read_text()
    assert (soc_dir / "csr.csv").exists()
    files = json.loads((soc_dir / "gateware" / "files.json").read_text())
    assert any(s.endswith("prim_secded_pkg.sv") for s in files["sources"])


def test_regeneration_keeps_unchanged_files(soc_dir):
    v = soc_dir / "gateware" / "pqsoc.v"
    before = v.stat().st_mtime_ns
    build(soc_dir)
    assert v.stat().st_mtime_ns == before


def test_sram_size_is_a_parameter(tmp_path):
    build(tmp_path / "soc", sram_size=16 * 1024)
    mem = json.loads((tmp_path / "soc" / "csr.json").read_text())["memories"]
    assert mem["sram"]["size"] == 16 * 1024


def test_cli_rejects_bad_size(capsys):
    assert cli.main(["soc", "build", "--sram-size", "1000"]) == 1
    assert "power of two" in capsys.readouterr().err


def test_cpu_is_registered_with_litex():
    from litex.soc.cores import cpu
    ibex.register()
    assert cpu.CPUS["pqibex"] is ibex.PQIbex


def test_ext_slave_hook_maps_region_and_irq(tmp_path):
    """A Wishbone block added through the hook gets a bus region, an IRQ and an instance."""
    slave = WishboneSlave(name="kmac", module="kmac_top", sources=(), origin=0x8000_0000,
                          size=0x1000)
    soc = PQSoC(ext_slaves=(slave,))
    assert soc.bus.regions["kmac"].origin == 0x8000_0000
    assert "kmac" in soc.irq.locs
    from litex.soc.integration.builder import Builder
    Builder(soc, output_dir=str(tmp_path), compile_software=False, compile_gateware=False,
            csr_json=str(tmp_path / "csr.json")).build(build_name="pqsoc")
    v = (tmp_path / "gateware" / "pqsoc.v").read_text()
    assert re.search(r"kmac_top\s+kmac\s*\(", v)
    for port in ("bus__adr", "bus__dat_w", "bus__dat_r", "bus__sel", "bus__cyc", "bus__stb",
                 "bus__we", "bus__ack", "bus__err", "irq"):
        assert f".{port}" in v
    consts = json.loads((tmp_path / "csr.json").read_text())["constants"]
    assert "kmac_interrupt" in consts


def test_ext_slave_rejects_misaligned_region():
    bad = WishboneSlave(name="acc", module="acc_top", sources=(), origin=0x8000_0800, size=0x1000)
    with pytest.raises(ValueError, match="aligned"):
        PQSoC(ext_slaves=(bad,))


def test_silicon_variant_has_uart_pins_and_no_sim_control(tmp_path):
    build(tmp_path / "soc", sim=False)
    v = (tmp_path / "soc" / "gateware" / "pqsoc.v").read_text()
    top = v[v.index("module pqsoc"):v.index(");", v.index("module pqsoc"))]
    assert "uart_tx" in top and "uart_rx" in top
    assert "simctrl" not in top and "serial_source" not in top


def test_ext_slave_rejects_tiny_region():
    for size in (0, 6):
        bad = WishboneSlave(name="acc", module="acc_top", sources=(), origin=0x8100_0000, size=size)
        with pytest.raises(ValueError, match="multiple of 4"):
            PQSoC(ext_slaves=(bad,))


def test_one_block_with_two_slave_ports(tmp_path):
    """One Verilog module, two Wishbone slave ports with their own regions and irqs (the PQC
    subsystem's shape): one instance, each port's signals under its prefix."""
    block = WishboneBlock(instance="duo", module="duo_top", sources=(), ports=(
        SlavePort("first", 0x8000_0000, 0x1000, port_prefix="a_bus__", irq="a_irq"),
        SlavePort("second", 0x8100_0000, 0x40000, port_prefix="b_bus__", irq=None)))
    soc = PQSoC(ext_slaves=(block,))
    assert (soc.bus.regions["first"].origin, soc.bus.regions["second"].size) == \
        (0x8000_0000, 0x40000)
    assert "first" in soc.irq.locs and "second" not in soc.irq.locs
    from litex.soc.integration.builder import Builder
    Builder(soc, output_dir=str(tmp_path), compile_software=False, compile_gateware=False,
            csr_json=str(tmp_path / "csr.json")).build(build_name="pqsoc")
    v = (tmp_path / "gateware" / "pqsoc.v").read_text()
    assert len(re.findall(r"^duo_top\s+duo\s*\(", v, re.M)) == 1
    inst = v[v.index("duo_top duo"):]
    inst = inst[:inst.index(");")]
    for prefix in ("a_bus__", "b_bus__"):
        for port in ("adr", "dat_w", "dat_r", "sel", "cyc", "stb", "we", "ack", "err"):
            assert f".{prefix}{port}" in inst
    assert ".a_irq" in inst and "b_irq" not in inst
    # word-address widths: 4 KiB -> 10 bits, 256 KiB -> 16 bits
    for prefix, bits in (("a_bus__", 10), ("b_bus__", 16)):
        sig = re.search(rf"\.{prefix}adr\s*\((\w+)\)", inst)[1]
        assert re.search(rf"wire\s+\[{bits - 1}:0\]\s+{sig}\b", v), prefix


def test_block_rejects_a_misaligned_port():
    bad = WishboneBlock(instance="duo", module="duo_top", sources=(), ports=(
        SlavePort("first", 0x8000_0000, 0x1000),
        SlavePort("second", 0x8100_1000, 0x40000, port_prefix="b__")))
    with pytest.raises(ValueError, match="aligned"):
        PQSoC(ext_slaves=(bad,))


@pytest.fixture(scope="module")
def silicon_dir(tmp_path_factory):
    """The silicon SoC (what `pqsoc synth soc` reads): every memory on OpenRAM macros."""
    from soc import silicon
    out = tmp_path_factory.mktemp("silicon")
    files = silicon.emit(out)
    return out, files


def test_silicon_soc_puts_every_memory_on_macros(silicon_dir):
    from soc import silicon
    from soc.target import SILICON_ROM_SIZE, SILICON_SRAM_SIZE
    out, files = silicon_dir
    mem = json.loads((out / "csr.json").read_text())["memories"]
    assert (mem["rom"]["base"], mem["rom"]["size"]) == (0, SILICON_ROM_SIZE)
    assert (mem["sram"]["base"], mem["sram"]["size"]) == (0x0100_0000, SILICON_SRAM_SIZE)
    macro = silicon.SRAM_MACRO
    count = {f.name: len(re.findall(rf"^\s*{macro}\s", f.read_text(), re.M)) for f in files
             if f.suffix == ".v"}
    # 2 KiB per macro: boot RAM + main SRAM in soc_memories, ACC IMEM + DMEM in pqc
    assert count["soc_memories.v"] == (SILICON_ROM_SIZE + SILICON_SRAM_SIZE) // 2048
    # a boot RAM that is no power of two: LiteX decodes the next one, and the port gets its
    # word-address bits (soc/extslave.py), the memory answers the tail with err (wb_sram.py)
    window = 1 << (SILICON_ROM_SIZE - 1).bit_length()
    mems = (out / "rtl" / "soc_memories.v").read_text()
    assert re.search(rf"input \[{(window // 4 - 1).bit_length() - 1}:0\] rom_bus__adr", mems)
    assert count["pqc.v"] == (silicon.ACC_IMEM_SIZE + silicon.ACC_DMEM_SIZE) // 2048
    # the ACC core's clock gate is the sky130 ICG cell here (behavioural in the simulation SoC)
    pqc = next(f for f in files if f.name == "pqc.v").read_text()
    assert len(re.findall(r"^\s*sky130_fd_sc_hd__dlclkp_1\s", pqc, re.M)) == 1
    top = next(f for f in files if f.name == "pqsoc_synth.v").read_text()
    # no LiteX ROM/SRAM arrays left to become flip-flops; real UART pins, no sim control
    assert "uart_tx" in top and "serial_source_data" not in top and "simctrl" not in top
    assert not re.search(r"reg \[31:0\] (rom|sram)\w* \[", top)
    # no date / commit stamps: the RTL hash of a synthesis changes only with the design
    assert "LiteX sha1" not in top and "Date       :" not in top
    # the identifier ROM's init file is read from an absolute path (Yosys' folder differs)
    assert re.search(r'\$readmemh\("/[^"]+\.init"', top)


def test_silicon_reads_amaranth_files_as_modules_to_keep(silicon_dir):
    """Yosys reads the Amaranth files with read_verilog (one module per Amaranth module) and the
    rest with read_slang (which elaborates into one flat module); every module block `soc` keeps
    is a module of those files."""
    from pqsoc.flow import block as blocks_mod
    from soc import silicon
    out, files = silicon_dir
    cmds = silicon.yosys_read(files)
    amaranth = [f for f in files if f.name in silicon.AMARANTH_FILES]
    assert cmds[:-1] == [f"read_verilog -sv {f}" for f in amaranth] and len(amaranth) == 2
    assert cmds[-1].startswith("read_slang ") and not any(str(f) in cmds[-1] for f in amaranth)
    assert all(str(f) in cmds[-1] for f in files if f not in amaranth)
    text = "".join(f.read_text() for f in amaranth)
    keep = blocks_mod.get("soc").keep_hierarchy
    entropy = (("pqc.entropy", "pqsoc_ring31", "pqsoc_ring37", "pqsoc_ring41", "pqsoc_ring43")
               if SILICON_ENTROPY else ())
    assert keep == ("pqc.acc", "pqc.acc.core.walu", "pqc.acc.core.smp", "pqc.acc.core.rnd", "pqc.kmac", *entropy)
    for m in keep:
        assert re.search(rf"^module \\?{re.escape(m)} ?\(", text, re.M), m
    with pytest.raises(FlowError, match="expected pqc.v, soc_memories.v"):
        silicon.yosys_read([f for f in files if f.name != "pqc.v"])


def test_silicon_cpu_waits_for_the_host(silicon_dir):
    out, files = silicon_dir
    regs = json.loads((out / "csr.json").read_text())["csr_registers"]
    assert "boot_hold" in regs
    top = next(f for f in files if f.name == "pqsoc_synth.v").read_text()
    # the CSR's power-up value is 1 and it turns Ibex' fetch_enable off (IbexMuBiOff, 4'b1010);
    # Ibex' reset is sys_rst | ctrl's CPU reset only
    assert re.search(r"reg\s+boot_storage = 1'd1;", top)
    hold = re.search(r"\.fetch_enable_i\s*\(\((\w+) \? 4'd10 : 4'd5\)\)", top)
    assert hold and re.search(rf"assign {hold[1]} = boot_storage;", top), re.findall(r".*fetch_en.*", top)
    assert re.search(r"\.rst_ni\s*\(\(~\(sys_rst\w* \| \w+\)\)\)", top), re.findall(r"\.rst_ni.*", top)


def test_silicon_ibex_fix_is_checked(tmp_path):
    """The run-time fix of ibex_top.sv refuses sources that no longer have the declaration."""
    from soc import silicon
    src = tmp_path / "ibex_top.sv"
    src.write_text("module ibex_top; wire unused_scramble_inputs = 1'b0; endmodule\n")
    with pytest.raises(FlowError, match="found 0"):
        silicon._fix_ibex_top(src, tmp_path / "fixed.sv")
    src.write_text("module ibex_top;\n  logic unused_scramble_inputs = a & b;\nendmodule\n")
    fixed = silicon._fix_ibex_top(src, tmp_path / "fixed.sv").read_text()
    assert "  wire unused_scramble_inputs = a & b;" in fixed


def test_stamps_of_date_and_commit_do_not_count_as_changes(tmp_path):
    """LiteX writes the build date and the git commit of the folder it runs in: neither may make
    the SoC's Verilog "changed" (that rebuilt the simulation model after every commit)."""
    from soc.build import _same
    head = "// Filename   : pqsoc.v\n// LiteX sha1 : {}\n// Date       : {}\nmodule pqsoc;\nendmodule\n"
    a, b, c = tmp_path / "a.v", tmp_path / "b.v", tmp_path / "c.v"
    a.write_text(head.format("3c02232", "2026-11-23 17:00:00"))
    b.write_text(head.format("2b4804e", "2026-11-23 20:24:51"))
    c.write_text(head.format("2b4804e", "2026-11-23 20:24:51").replace("endmodule", "wire x;\nendmodule"))
    assert _same(a, b) and not _same(a, c)


def test_silicon_top_drops_litex_hierarchy_comment(silicon_dir):
    """LiteX's module-hierarchy comment lists the black boxes in set order, which changed from
    run to run and made `pqsoc gls soc` call a fresh netlist stale: the synthesized top has none."""
    from soc import silicon
    _, files = silicon_dir
    top = next(f for f in files if f.name == "pqsoc_synth.v").read_text()
    assert "[pqc]" not in top and "BlackBox." not in top and "module pqsoc" in top
    sample = ("x\n// Hierarchy\n//----\n\n/*\nPQSoC\n└─── [soc_memories]\n└─── [pqc]\n*/\n\nmodule m;\n")
    assert silicon._HIERARCHY.sub("", sample) == "x\n\nmodule m;\n"


def test_the_entropy_source_follows_its_switch():
    """The PQC subsystem has the entropy source's port only with a kind (the simulation SoC's
    model, silicon's cells), and the SoC's block maps its region only then: the silicon SoC
    leaves it out while soc.target.SILICON_ENTROPY is False (the floorplan has no room yet)."""
    from pathlib import Path
    from ip.acc.rtl.pqc import PqcSubsystem
    for kind in (None, "model", "sky130"):
        pqc = PqcSubsystem(entropy_kind=kind)
        assert ("entropy_bus" in pqc.signature.members) == (kind is not None)
        assert kind is None or pqc.entropy.rings.kind == kind
    for entropy in (False, True):
        ports = {p.name: p for p in pqc_block(Path("pqc.v"), entropy=entropy).ports}
        assert list(ports) == ["kmac"] + ["entropy"] * entropy + ["acc"]
    assert ports["entropy"].origin == ENTROPY_BASE and ports["entropy"].irq is None
