import json
import re

import pytest

from pqsoc import cli
from soc import ibex
from soc.build import build
from soc.extslave import WishboneSlave
from soc.target import PQSoC


def test_soc_generates_verilog_map_and_headers(soc_dir):
    v = (soc_dir / "gateware" / "pqsoc.v").read_text()
    assert re.search(r"^module pqsoc\b", v, re.M)
    assert "ibex_top" in v and "ibex_pkg::RV32MFast" in v
    assert re.search(r"\.fetch_enable_i\s*\(4'd5\)", v), "Ibex must get IbexMuBiOn (4'b0101)"
    mem = json.loads((soc_dir / "csr.json").read_text())["memories"]
    assert (mem["rom"]["base"], mem["rom"]["size"]) == (0, 32 * 1024)
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
