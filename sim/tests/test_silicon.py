# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""The silicon SoC (soc/silicon.py) simulated at its pins: RTL model, SRAM macro cycle models,
boot RAM loaded at time 0, boot_hold released over the UART bridge (sim/silicon.py,
sim/silicon_harness.cpp). `pqsoc gls soc` runs the same harness on the netlist (make report)."""
import subprocess

import pytest

from pqsoc import FlowError
from sim import silicon as gls_soc
from sim.tests.test_entropy import check_entropy_selftest
from soc.target import SILICON_ENTROPY


@pytest.fixture(scope="module")
def model():
    exe, _ = gls_soc.rtl_model(log=lambda msg: None)
    return exe


@pytest.fixture(scope="module")
def programs():
    names = ("selftest", "trap_illegal")
    return dict(zip(names, gls_soc.firmware(names)))


def test_selftest_boots_from_the_loaded_boot_ram_and_passes(model, programs, tmp_path):
    r = gls_soc.run(model, programs["selftest"], tmp_path / "run", timeout_s=300)
    assert r.ok, r.problems
    assert r.reason == "exit" and r.status == 0
    assert [t["test"] for t in r.tests] == ["uart_hello", "mcycle", "timer", "gpio", "sram",
                                           "bus_error", "sha3_256"]
    assert r.summary == {"summary": "selftest", "tests": 7, "passed": 7, "failed": 0}
    assert r.uart.rstrip().endswith("*** EXIT code=0")


@pytest.mark.skipif(not SILICON_ENTROPY, reason="the silicon SoC has no entropy source yet (soc/target.py SILICON_ENTROPY)")
def test_entropy_source_seeds_the_drbg_on_the_silicon_soc(model, tmp_path):
    """The silicon SoC's rings are sky130 cells; its RTL simulation puts their model in their
    place (ip/entropy/dv/sim_model.py), and the firmware's DRBG seeded from the source gives
    what the model's definition, SHA3-256 and OpenSSL's HMAC-DRBG give (test_entropy.py)."""
    (fw,) = gls_soc.firmware(("entropy_selftest",))
    r = gls_soc.run(model, fw, tmp_path / "run", timeout_s=300)
    assert r.ok, r.problems
    check_entropy_selftest(r.tests, error_paths=False)


def test_mlkem_decaps_with_the_acc_loaded_by_the_host(model, tmp_path):
    """ML-KEM-768 decaps: program and DMEM preloaded into the ACC's macros, K checked by the
    firmware against kyber-py, the ACC's cycles against the ISS's."""
    fw = gls_soc.firmware(("mlkem_preloaded",))[0]
    r = gls_soc.run(model, fw, tmp_path / "run", timeout_s=300)
    assert r.ok, r.problems
    (t,) = r.tests
    assert t["test"] == "mlkem768_decaps_preloaded" and t["pass"] and t["err_bits"] == 0
    assert t["cycles"] == t["iss_cycles"] > 5000


def test_mldsa_sign16_on_the_soc_with_the_acc_loaded_by_the_host(model, tmp_path):
    """ML-DSA-65 signing (the 4-iteration signature of mldsa_preloaded) by the program that
    fits the taped-out 16 KiB ACC memories (kernels/mldsa/sign16.py), on block soc's RTL:
    the firmware checks the signature against dilithium-py's, kappa and the ACC's cycles
    against the ISS's."""
    fw = gls_soc.firmware(("mldsa16_preloaded",))[0]
    r = gls_soc.run(model, fw, tmp_path / "run", timeout_s=600)
    assert r.ok, r.problems
    (t,) = r.tests
    assert t["test"] == "mldsa65_sign16_preloaded" and t["pass"] and t["err_bits"] == 0
    assert t["out_bytes"] == 3309 and t["kappa"] == 5 * 4
    assert t["cycles"] == t["iss_cycles"] > 100_000


def test_mldsa_verify_on_the_soc_with_the_acc_loaded_by_the_host(model, tmp_path):
    """ML-DSA-65 verification (kernels/mldsa/verify.py) of mldsa_preloaded's signature on
    block soc's RTL: the status word is VALID (dilithium-py accepts the signature; the
    firmware compares the word's digest), the ACC's cycles equal the ISS's."""
    fw = gls_soc.firmware(("mldsa_verify_preloaded",))[0]
    r = gls_soc.run(model, fw, tmp_path / "run", timeout_s=600)
    assert r.ok, r.problems
    (t,) = r.tests
    assert t["test"] == "mldsa65_verify_preloaded" and t["pass"] and t["err_bits"] == 0
    assert t["out_bytes"] == 4 and t["cycles"] == t["iss_cycles"] > 10_000


def test_mldsa_verify_preloaded_expects_valid_from_the_reference(monkeypatch):
    """The expected status is VALID only because dilithium-py accepts the signature: the
    vectors are refused when the reference rejects it (seeded: a flipped signature byte)."""
    from firmware import build as fw
    op = fw.preloaded_op(16384, 16384, "mldsa_verify_preloaded")
    assert op["exp"] == (1).to_bytes(4, "little") and op["name"] == "mldsa65_verify"
    bad = [dict(o, exp=bytes([o["exp"][0] ^ 1]) + o["exp"][1:]) if o["name"] == "mldsa65_sign" else o
           for o in fw.pqc_ops()]
    monkeypatch.setattr(fw, "pqc_ops", lambda: bad)
    with pytest.raises(fw.FirmwareError, match="dilithium-py rejects"):
        fw.preloaded_op(16384, 16384, "mldsa_verify_preloaded")


def test_mldsa_sign_on_the_soc_with_32k_acc_memories(tmp_path):
    """ML-DSA-65 signing by sign.py (4 iterations) does not fit block soc's 16 KiB ACC
    memories (refused by name; sign16.py does, test above); on soc_acc32k's RTL (32 + 32 KiB)
    the firmware checks the signature against dilithium-py's, kappa and the ACC's cycles
    against the ISS's."""
    from firmware.build import FirmwareError, preloaded_op
    with pytest.raises(FirmwareError, match=r"mldsa65_sign: the program \(\d+ B\) exceeds IMEM \(16384 B\)"):
        preloaded_op(16384, 16384, "mldsa_preloaded")
    with pytest.raises(FirmwareError, match="not a preloaded-ACC program"):
        preloaded_op(32768, 32768, "selftest")
    exe, _ = gls_soc.rtl_model(log=lambda msg: None, block="soc_acc32k")
    fw = gls_soc.firmware(("mldsa_preloaded",), block="soc_acc32k")[0]
    r = gls_soc.run(exe, fw, tmp_path / "run", timeout_s=600, block="soc_acc32k")
    assert r.ok, r.problems
    (t,) = r.tests
    assert t["test"] == "mldsa65_sign_preloaded" and t["pass"] and t["err_bits"] == 0
    assert t["out_bytes"] == 3309 and t["kappa"] == 5 * 4
    assert t["cycles"] == t["iss_cycles"] > 50_000


def test_acc_preload_layout(model):
    """Program word i in IMEM row i // 512; DMEM byte a in column (a % 32) // 4 of word a // 32."""
    soc_dir = gls_soc.silicon_dir()
    dmem = bytearray(64)
    dmem[32 + 12:32 + 16] = bytes([1, 2, 3, 4])        # word 1, column 3
    lines = {ln.split()[0]: ln.split()[2:] for ln in
             gls_soc.acc_init([0x11] * 513, bytes(dmem), soc_dir).splitlines()}
    assert len(lines) == 8 + 8
    assert lines["pqc.acc.imem.ram_r1_c0"][:2] == ["00000011", "00000000"]
    assert lines["pqc.acc.dmem.ram_r0_c3"][:2] == ["00000000", "04030201"]
    with pytest.raises(FlowError, match="exceeds the silicon SoC's IMEM / DMEM"):
        gls_soc.acc_init([0] * 4097, b"", soc_dir)


def test_cpu_fetches_nothing_while_boot_hold_is_set(model, programs, tmp_path):
    """The bridge writes boot_hold = 1 instead of 0: no console output at all."""
    r = gls_soc.run(model, programs["selftest"], tmp_path / "run", max_cycles=100_000,
                    timeout_s=120, release=False)
    assert r.reason == "cycles" and r.uart == ""


def test_a_trap_ends_the_run_with_the_trap_reported(model, programs, tmp_path):
    r = gls_soc.run(model, programs["trap_illegal"], tmp_path / "run", timeout_s=120)
    assert r.reason == "abnormal" and r.status == gls_soc._sim().EXIT_ABNORMAL
    assert any("illegal instruction" in p for p in r.problems), r.problems


def test_preload_naming_no_macro_is_an_error(model, tmp_path):
    (tmp_path / "sram.init").write_text("memories.rom.bank.ram_r9_c0 512 " + "0 " * 512 + "\n")
    r = subprocess.run([str(model), "--max-cycles", "10", "--uart-div", "50",
                        "--sram-init", "sram.init"], cwd=tmp_path, capture_output=True, text=True)
    assert r.returncode == 2
    assert "memories.rom.bank.ram_r9_c0 matched 0 macro instances" in r.stderr


def test_image_larger_than_the_boot_ram_is_refused(model):
    soc_dir = gls_soc.silicon_dir()
    from soc.target import SILICON_ROM_SIZE
    with pytest.raises(FlowError, match=f"{SILICON_ROM_SIZE + 1} bytes, the silicon SoC's boot RAM "
                                        f"holds {SILICON_ROM_SIZE}"):
        gls_soc.boot_ram_init(bytes(SILICON_ROM_SIZE + 1), soc_dir)
    lines = gls_soc.boot_ram_init(bytes(range(8)), soc_dir).splitlines()
    assert len(lines) == SILICON_ROM_SIZE // 2048 and all(len(ln.split()) == 2 + 512 for ln in lines)
    assert lines[0].split()[:5] == ["memories.rom.bank.ram_r0_c0", "512", "03020100", "07060504",
                                    "00000000"]


def test_firmware_cli_builds_for_the_silicon_soc(model, capsys):
    from pqsoc import cli
    assert cli.main(["soc", "firmware", "--silicon", "trap_illegal"]) == 0
    assert "build/firmware/silicon/trap_illegal.bin" in capsys.readouterr().out
    import re
    from soc.target import SILICON_ROM_SIZE, SILICON_SRAM_SIZE
    linked = (gls_soc.SILICON_FIRMWARE_DIR / "trap_illegal.map").read_text()
    # the silicon SoC's 6 KiB boot RAM and 2 KiB main SRAM (not the simulation SoC's 128 / 32)
    assert re.search(rf"^rom\s+0x00000000\s+0x{SILICON_ROM_SIZE:08x}$", linked, re.M)
    assert re.search(rf"^sram\s+0x01000000\s+0x{SILICON_SRAM_SIZE:08x}$", linked, re.M)
    # a program too large for the boot RAM fails the build, saying so
    assert cli.main(["soc", "firmware", "--silicon", "kmac_selftest"]) == 1
    assert ("kmac_selftest: the image is" in (err := capsys.readouterr().err)
            and f"the SoC's boot memory holds (region rom, {SILICON_ROM_SIZE} bytes" in err), err
    assert not (gls_soc.SILICON_FIRMWARE_DIR / "kmac_selftest.bin").exists()


def test_firmware_cli_builds_for_the_32k_acc_soc(capsys):
    """--block soc_acc32k: its own headers (ACC memories 32 KiB each) and firmware folder;
    --block without --silicon is refused."""
    from pqsoc import cli
    assert cli.main(["soc", "firmware", "--silicon", "--block", "soc_acc32k", "mldsa_preloaded"]) == 0
    assert "build/firmware/silicon-soc_acc32k/mldsa_preloaded.bin" in capsys.readouterr().out
    soc_h = (gls_soc.silicon_dir("soc_acc32k") / "software" / "include" / "generated" / "soc.h").read_text()
    assert "#define ACC_IMEM_SIZE 32768" in soc_h and "#define ACC_DMEM_SIZE 32768" in soc_h
    assert cli.main(["soc", "firmware", "--block", "soc_acc32k", "selftest"]) == 1
    assert "use it with --silicon" in capsys.readouterr().err
    with pytest.raises(FlowError, match="not a silicon SoC block"):
        gls_soc.silicon_dir("acc")
