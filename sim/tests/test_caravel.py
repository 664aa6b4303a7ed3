# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""The chip booted by Caravel's management core (sim/caravel.py): the wrapper's RTL in
Verilator, the management firmware's model loading our firmware (and the ACC) over wbs_* and
releasing the CPU. Self-test, ML-KEM-768 decapsulation, and the bus access policy as the
management core meets it."""
import json

import pytest

from pqsoc import BUILD
from sim import caravel as csim
from soc.mgmt_port import to_mgmt_address


@pytest.fixture(scope="module")
def wrapper(caravel_root, pdk_root):
    exe, e = csim.rtl_model(log=print)
    return exe, e["soc_dir"]


def _run(wrapper, name, extra_ops=()):
    exe, soc_dir = wrapper
    fw = csim.firmware([name], soc_dir)[0]
    return csim.run(exe, fw, soc_dir, BUILD / "gls" / "caravel" / "runs" / name, extra_ops=extra_ops)


@pytest.mark.parametrize("name", ["selftest", "mlkem_preloaded"])
def test_management_core_boots_the_soc(wrapper, name):
    res = _run(wrapper, name)
    assert res.ok, res.problems
    assert res.tests and all(t["pass"] for t in res.tests)
    if name == "mlkem_preloaded":
        t = res.tests[0]
        assert t["cycles"] == t["iss_cycles"]       # the ACC's cycles equal the ISS's


def test_management_core_meets_the_access_policy(wrapper):
    """While the ACC runs, a read of its DMEM is refused (0, flag set); after the firmware's lock
    only the status window answers, and the lock holds against the firmware's own write of 0."""
    exe, soc_dir = wrapper
    csr = json.loads((soc_dir / "csr.json").read_text())
    regs = csr["csr_registers"]
    acc = csr["memories"]["acc"]["base"]
    status = to_mgmt_address(regs["extaccess_status"]["addr"])
    mailbox = to_mgmt_address(regs["extaccess_mailbox"]["addr"])
    LOCKED, ACC_BUSY, MGMT_REFUSED = 1, 2, 8
    fw = csim.firmware(["caravel_policy"], soc_dir)[0]
    load = csim.load_script(fw, soc_dir)
    dmem0 = next(d for k, a, d in load if a == to_mgmt_address(acc + 0x2_0000))
    assert dmem0 != 0                                # so that a refused read (0) is told apart
    ops = [("L", "run"),
           ("R", to_mgmt_address(acc + 0x2_0000), 0, 0xFFFF_FFFF),          # refused: reads 0
           ("R", status, ACC_BUSY | MGMT_REFUSED, ACC_BUSY | MGMT_REFUSED | LOCKED),
           ("L", "locked"),
           ("R", to_mgmt_address(0), 0, 0xFFFF_FFFF),                        # boot RAM: refused
           ("W", mailbox, 0x1234_5678),                                      # write: refused
           ("R", mailbox, 0x600D_CAFE, 0xFFFF_FFFF),                         # status reads: allowed
           ("R", status, LOCKED | MGMT_REFUSED, LOCKED | MGMT_REFUSED | ACC_BUSY)]
    res = csim.run(exe, fw, soc_dir, BUILD / "gls" / "caravel" / "runs" / "caravel_policy", extra_ops=ops)
    assert res.ok, res.problems
    assert [t["test"] for t in res.tests] == ["acc_ran", "locked"]


def test_a_failed_management_check_fails_the_run(wrapper):
    """The harness's read check is not a formality: a wrong expected word ends the run."""
    exe, soc_dir = wrapper
    fw = csim.firmware(["selftest"], soc_dir)[0]
    res = csim.run(exe, fw, soc_dir, BUILD / "gls" / "caravel" / "runs" / "bad_check",
                   extra_ops=[("R", to_mgmt_address(0), 0xDEAD_BEEF, 0xFFFF_FFFF)])
    assert not res.ok


def test_bringup_writes_the_management_boot_path(wrapper, tmp_path):
    """`pqsoc bringup --mgmt-image`: the C for the management firmware holds exactly the writes
    the simulation above plays (which boot the SoC), and it compiles for a RISC-V core."""
    import re
    import subprocess
    from bringup.cli import main
    from firmware.mgmt_load import load_ops
    exe, soc_dir = wrapper
    fw = csim.firmware(["mlkem_preloaded"], soc_dir)[0]
    out = tmp_path / "mgmt"
    assert main(["--mgmt-image", str(out), "--boot", str(fw), "--csr", str(soc_dir / "csr.json")]) == 0
    rows = re.findall(r"\{0x([0-9a-f]{8})u, 0x([0-9a-f]{8})u\}", (out / "pqsoc_boot.h").read_text())
    assert [("W", int(a, 16), int(d, 16)) for a, d in rows] == load_ops(fw.read_bytes(), fw.stem, soc_dir)
    r = subprocess.run(["riscv64-unknown-elf-gcc", "-march=rv32imc", "-mabi=ilp32", "--specs=picolibc.specs", "-Os", "-Wall",
                        "-Werror", "-c", str(out / "pqsoc_boot.c"), "-o", str(out / "boot.o")],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    # without --boot, or with a port as well: refused
    assert main(["--mgmt-image", str(out), "--csr", str(soc_dir / "csr.json")]) == 2
    big = tmp_path / "big.bin"
    big.write_bytes(bytes(64 * 1024))
    assert main(["--mgmt-image", str(out), "--boot", str(big), "--csr", str(soc_dir / "csr.json")]) == 1
