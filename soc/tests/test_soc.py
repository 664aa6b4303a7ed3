import json
import re

import pytest

from pqsoc import cli
from soc import ibex
from soc.build import build
from soc.extslave import SlavePort, WishboneBlock, WishboneSlave
from soc.target import ROM_SIZE, PQSoC


def test_soc_generates_verilog_map_and_headers(soc_dir):
    v = (soc_dir / "gateware" / "pqsoc.v").read_text()
    assert re.search(r"^module pqsoc\b", v, re.M)
    assert "ibex_top" in v and "ibex_pkg::RV32MFast" in v
    assert re.search(r"\.fetch_enable_i\s*\(4'd5\)", v), "Ibex must get IbexMuBiOn (4'b0101)"
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
    bad = WishboneSlave(name="acc", module="acc_top", sources=(), origin=0x8100_0000, size=0)
    with pytest.raises(ValueError, match="power of two"):
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
