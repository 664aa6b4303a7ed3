# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""The bring-up path: a host reads and writes the SoC bus over the UART bridge (LiteX uartbone;
command bytes as in litex/tools/remote/comm_uart.py: cmd, word count, word address big-endian,
data big-endian). The bring-up scripts (bringup/) run against the simulated SoC through the
harness's TCP bridge, and their check logic against fake buses."""
import hashlib
import json
import re
import socket
import struct
import subprocess
import threading
import time

import pytest

from bringup import checks, cli
from bringup.socmap import SocMap
from bringup.uartbone import CMD_READ, CMD_WRITE, UartBone, frame

SIM_TIMEOUT_S = 240        # wall-clock limit of one simulated session


def _cmd(cmd, addr, words=(), count=None):
    n = len(words) if count is None else count
    return bytes([cmd, n]) + struct.pack(">I", addr // 4) + b"".join(struct.pack(">I", w) for w in words)


def test_host_reads_rom_and_writes_csr_over_bridge(soc_dir, model, firmware, tmp_path):
    from sim.run import run
    image = firmware("bridge_wait")
    regs = json.loads((soc_dir / "csr.json").read_text())["csr_registers"]
    scratch = regs["ctrl_scratch"]["addr"]
    host = [(_cmd(CMD_READ, 0x0, count=2), 8), (_cmd(CMD_WRITE, scratch, [0xB0B0CAFE]), 0)]
    res = run(image, soc_dir, model.parent, tmp_path, 3_000_000, 120, bridge=host)
    assert res.ok, res.problems
    rom = image.read_bytes()[:8]
    assert res.bridge_out == struct.pack(">II", *struct.unpack("<II", rom))


# ---- against the simulated chip (TCP bridge) -----------------------------------------------------

def test_bringup_checks_pass_on_simulated_chip(soc_dir, model, firmware, tmp_path, capsys):
    """`pqsoc bringup` (its main) against the SoC simulation: every check passes, and the
    session ends when the client disconnects (bridge-closed, judged as a normal end)."""
    from sim.run import serve_bridge
    t0 = time.monotonic()
    with serve_bridge(firmware("bridge_idle"), soc_dir, model.parent, tmp_path, 20_000_000,
                      SIM_TIMEOUT_S) as b:
        assert re.fullmatch(r"socket://127\.0\.0\.1:\d+", b.url) and b.port > 0
        rc = cli.main([b.url, "--csr", str(soc_dir / "csr.json"), "--timeout", "30"])
    out = capsys.readouterr().out
    lines = [json.loads(ln) for ln in out.splitlines()]
    res = b.result
    with capsys.disabled():   # the figures the README quotes
        print(f"\nbring-up on the simulation: {res.cycles} cycles, {res.wall_s:.1f} s model, "
              f"{time.monotonic() - t0:.1f} s in all")
        for ln in lines[:-1]:
            print(f"  {ln['test']:8s} {ln['seconds']:6.2f} s  {ln['bridge_bytes']:5d} bridge bytes")
    assert rc == 0, out
    assert [ln.get("test") for ln in lines[:-1]] == list(checks.CHECKS)
    assert all(ln["pass"] for ln in lines[:-1]), out
    assert lines[-1] == {"summary": "bringup", "tests": 7, "passed": 7, "failed": 0}
    # the simulation SoC's rings are their model: well inside the cutoffs, the words its own
    entropy = next(ln for ln in lines if ln.get("test") == "entropy")
    assert len(entropy["words"]) == checks.ENTROPY_WORDS and 0 < entropy["watermark_rct"] < 41
    soc = SocMap.load(soc_dir / "csr.json")
    assert lines[0]["ident"] == soc.constant("config_identifier")
    assert lines[2]["addr"] == f"{checks.sram_window(soc)[0]:#010x}"
    assert res.reason == "bridge-closed" and res.status == 0 and res.ok, res.problems
    assert "bridge idle" in res.uart


def test_bridge_session_ends_with_firmware_exit(soc_dir, model, firmware, tmp_path):
    """With a client connected, the firmware still ends the simulation (bridge_wait exits once
    the host wrote its magic into ctrl_scratch) and its test lines are judged as usual."""
    from sim.run import serve_bridge
    soc = SocMap.load(soc_dir / "csr.json")
    with serve_bridge(firmware("bridge_wait"), soc_dir, model.parent, tmp_path, 3_000_000,
                      SIM_TIMEOUT_S) as b:
        with UartBone(b.url, soc.baudrate, timeout=30) as bus:
            bus.write(soc.csr("ctrl_scratch"), [0xB0B0CAFE])
            assert bus.read1(soc.csr("ctrl_scratch")) == 0xB0B0CAFE
            b.wait()
    assert b.result.reason == "exit" and b.result.ok, b.result.problems
    assert b.result.summary == {"summary": "bridge_wait", "tests": 1, "passed": 1, "failed": 0}


def test_bridge_session_stopped_when_client_stays(soc_dir, model, firmware, tmp_path):
    """A client that never disconnects: leaving serve_bridge stops the model (SIGTERM) after
    the grace time; the run ends cleanly with reason `stopped`."""
    from sim.run import serve_bridge
    with serve_bridge(firmware("bridge_idle"), soc_dir, model.parent, tmp_path, 50_000_000,
                      SIM_TIMEOUT_S, grace_s=0.5) as b:
        s = socket.create_connection(("127.0.0.1", b.port))
    s.close()
    assert b.result.reason == "stopped" and b.result.status == 0 and b.result.ok, b.result.problems
    assert 0 < b.result.cycles < 50_000_000


def test_sim_run_cli_serves_bridge(soc_dir, model, firmware):
    """`pqsoc sim run FW --bridge-tcp 0`: prints the URL, serves one client, ends with it."""
    import sys
    soc = SocMap.load(soc_dir / "csr.json")
    p = subprocess.Popen([sys.executable, "-m", "pqsoc.cli", "sim", "run", str(firmware("bridge_idle")),
                          "--bridge-tcp", "0", "--timeout-s", "120"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        line = p.stderr.readline()
        m = re.search(r"bring-up bridge on (socket://127\.0\.0\.1:\d+)", line)
        assert m, line
        with UartBone(m[1], soc.baudrate, timeout=30) as bus:
            bus.write(soc.csr("ctrl_scratch"), [0x600DF00D])
            assert bus.read1(soc.csr("ctrl_scratch")) == 0x600DF00D
        out, err = p.communicate(timeout=60)
    finally:
        p.kill()
    assert p.returncode == 0, err
    assert "end: bridge-closed" in err and "sim: PASS" in err and "bridge idle" in out


def test_harness_rejects_bridge_tcp_with_script(soc_dir, model, tmp_path):
    r = subprocess.run([str(model), "--max-cycles", "10", "--bridge-div", "50", "--bridge-tcp",
                        "0", "--bridge-in", "x"], capture_output=True, text=True, cwd=tmp_path)
    assert r.returncode == 2 and "--bridge-tcp" in r.stderr


# ---- failures the scripts must report ----------------------------------------------------------

def _silent_server():
    """A socket that accepts and never answers: a chip that does not respond."""
    srv = socket.create_server(("127.0.0.1", 0))
    conns = []
    threading.Thread(target=lambda: conns.append(srv.accept()), daemon=True).start()
    return srv, conns


def test_silent_chip_fails_with_address_within_timeout(soc_dir, capsys):
    srv, conns = _silent_server()
    soc = SocMap.load(soc_dir / "csr.json")
    t0 = time.monotonic()
    rc = cli.main([f"socket://127.0.0.1:{srv.getsockname()[1]}", "--csr", str(soc_dir / "csr.json"),
                   "--timeout", "1", "ident", "scratch"])
    elapsed = time.monotonic() - t0
    srv.close()
    lines = [json.loads(ln) for ln in capsys.readouterr().out.splitlines()]
    assert rc == 1 and elapsed < 3
    assert lines[0]["test"] == "ident" and not lines[0]["pass"]
    assert "no reply from the chip" in lines[0]["problems"][0]
    assert f"{soc.csr_base('identifier_mem'):#010x}" in lines[0]["problems"][0]
    assert lines[1] == {"test": "scratch", "pass": False, "seconds": lines[1]["seconds"],
                        "bridge_bytes": 0, "problems": ["not run: the bridge stopped answering"]}
    assert lines[2] == {"summary": "bringup", "tests": 2, "passed": 0, "failed": 2}


def test_closed_port_fails_clearly(soc_dir, capsys):
    s = socket.create_server(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()   # nobody listens there now
    rc = cli.main([f"socket://127.0.0.1:{port}", "--csr", str(soc_dir / "csr.json"), "ident"])
    err = capsys.readouterr().err
    assert rc == 1 and f"cannot open socket://127.0.0.1:{port}" in err


def test_unknown_check_and_bad_options_rejected(capsys):
    for argv in (["loop://", "ident", "sram2"], ["loop://", "--timeout", "0"]):
        with pytest.raises(SystemExit) as e:
            cli.main(argv)
        assert e.value.code == 2
    assert "unknown check 'sram2'" in capsys.readouterr().err


def test_missing_csr_json_named(tmp_path, capsys):
    assert cli.main(["loop://", "--csr", str(tmp_path / "nope.json")]) == 1
    assert "nope.json" in capsys.readouterr().err


# ---- the protocol and the check logic, on fake buses -------------------------------------------

def test_frames_and_burst_split():
    assert frame(CMD_WRITE, 0x82000004, 1, [0xB0B0CAFE]) == bytes.fromhex("0101208000 01b0b0cafe")
    assert frame(CMD_READ, 0x100, 3) == bytes.fromhex("02030000 0040")
    for bad in ((CMD_READ, 0x2, 1), (CMD_READ, 0, 0), (CMD_READ, 0, 256)):
        with pytest.raises(ValueError):
            frame(*bad)
    # loop:// hands back what was sent: a 300-word write goes out as bursts of 255 and 45
    with UartBone("loop://", 1_000_000, timeout=0.2) as bus:
        bus.write(0x1000, range(300))
        wire = bus.ser.read(10_000)
    assert bus.tx_bytes == len(wire) == 2 * 6 + 4 * 300
    assert wire[:6] == frame(CMD_WRITE, 0x1000, 255, [])
    second = 6 + 4 * 255
    assert wire[second:second + 6] == frame(CMD_WRITE, 0x1000 + 4 * 255, 45, [])
    assert struct.unpack(">I", wire[second + 6:second + 10])[0] == 255


class FakeBus:
    """A word-addressed memory with optional faults: `stuck` {addr: (mask, value)} forces bits on
    reads; `alias` masks address bits off (an open address line); `frozen` addresses ignore
    writes; `uptime` makes the timer CSRs count by `step` per latch."""

    def __init__(self, soc, stuck=None, alias=0, frozen=(), step=None):
        self.mem, self.soc, self.stuck, self.alias, self.frozen = {}, soc, stuck or {}, alias, frozen
        self.step, self.count = step, 0
        for i, ch in enumerate(b"pqsoc\0"):
            self.mem[soc.csr_base("identifier_mem") + 4 * i] = ch

    def write(self, addr, words):
        for i, w in enumerate(words):
            a = (addr + 4 * i) & ~self.alias
            if a == self.soc.csr("timer0_uptime_latch") and self.step is not None:
                time.sleep(0.002)   # a real wire takes time: the check's upper bound uses it
                self.count += self.step
                hi, lo = self.soc.csr("timer0_uptime_cycles"), self.soc.csr("timer0_uptime_cycles") + 4
                self.mem[hi], self.mem[lo] = self.count >> 32, self.count & 0xFFFFFFFF
            elif a not in self.frozen:
                self.mem[a] = w

    def read(self, addr, count=1):
        out = []
        for i in range(count):
            a = (addr + 4 * i) & ~self.alias
            mask, value = self.stuck.get(a, (0, 0))
            out.append(self.mem.get(a, 0) & ~mask | value)
        return out

    def read1(self, addr):
        return self.read(addr)[0]


@pytest.fixture(scope="module")
def soc(soc_dir):
    return SocMap.load(soc_dir / "csr.json")


def test_fake_bus_good_chip_passes(soc):
    bus = FakeBus(soc, step=60_000)   # above the bytes' bit times (~12 k cycles), below 2 ms
    for name in ("ident", "scratch", "sram", "timer"):
        r = checks.CHECKS[name](bus, soc)
        assert r["pass"] and not r["problems"], (name, r)


def test_corrupted_readbacks_are_detected(soc):
    scratch = soc.csr("ctrl_scratch")
    r = checks.check_scratch(FakeBus(soc, stuck={scratch: (1 << 7, 0)}), soc)
    assert not r["pass"] and f"{scratch:#010x}: wrote 0xffffffff read 0xffffff7f" in r["problems"][0]
    start, n = checks.sram_window(soc)
    r = checks.check_sram(FakeBus(soc, stuck={start + 4 * 9: (1 << 9, 0)}), soc)   # bit 9 stuck at 0
    assert not r["pass"] and r["problems"][0].startswith(f"sram walking_ones: {start + 36:#010x}")
    r = checks.check_sram(FakeBus(soc, alias=1 << 6), soc)      # address line 6 open: words alias
    assert not r["pass"] and any(p.startswith("sram address") for p in r["problems"])
    bus = FakeBus(soc)
    bus.mem[soc.csr_base("identifier_mem")] = ord("x")
    r = checks.check_ident(bus, soc)
    assert not r["pass"] and r["ident"] == "xqsoc" and "does not start with 'pqsoc'" in r["problems"][0]


def test_timer_stopped_or_too_fast_detected(soc):
    assert not checks.check_timer(FakeBus(soc, step=0), soc)["pass"]
    assert not checks.check_timer(FakeBus(soc, step=10**12), soc)["pass"]


def test_dead_blocks_detected(soc):
    """A bus that reads zeros where the KMAC, ACC and entropy source should be: the digest differs
    from hashlib's, the ACC's CYCLES differ from the ISS's and its output from kyber-py's, the
    entropy source fails neither self-test and delivers no word."""
    r = checks.check_kmac(FakeBus(soc, frozen=_Region(soc, "kmac")), soc)
    assert not r["pass"] and r["problems"] == [
        f"SHA3-256 from DIGEST0 {soc.region('kmac')[0] + 0x40:#010x}: {bytes(32).hex()}, "
        f"hashlib: {hashlib.sha3_256(checks.KMAC_MSG).hexdigest()}"]
    r = checks.check_acc(FakeBus(soc, frozen=_Region(soc, "acc")), soc)
    problems = "\n".join(r["problems"])
    assert not r["pass"]
    ntt_cycles = checks._iss(soc, checks.acc_jobs()["ntt"]).cycles
    assert "acc ntt: CYCLES" in problems and f"the ISS says {ntt_cycles}" in problems
    assert "acc ntt: output at DMEM 0x0" in problems and "kyber-py" in problems
    assert "acc illegal: ERR_BITS" in problems and "expected ILLEGAL_INSN" in problems
    r = checks.check_entropy(FakeBus(soc, frozen=_Region(soc, "entropy")), soc)
    assert not r["pass"] and r["words"] == []
    assert [p.split(":")[0] for p in r["problems"]] == ["entropy self-test RCT", "entropy self-test APT", "entropy"]
    assert f"{soc.region('entropy')[0] + 4:#010x} = None after 0 words: no word within" in r["problems"][2]


class _Region:
    """Every address of a csr.json region: a block that ignores writes and reads zeros."""

    def __init__(self, soc, name):
        self.lo, size = soc.region(name)
        self.hi = self.lo + size

    def __contains__(self, a):
        return self.lo <= a < self.hi


# ---- where the checks' numbers come from ---------------------------------------------------------

def test_acc_windows_match_register_description():
    text = " ".join(checks.ACC_REGS.read_text().split())
    assert f"{checks.ACC_IMEM_WINDOW:#07x}-{checks.ACC_IMEM_WINDOW + 0xffff:#07x} the IMEM window" in text
    assert f"{checks.ACC_DMEM_WINDOW:#07x}-{checks.ACC_DMEM_WINDOW + 0xffff:#07x} the DMEM window" in text


@pytest.mark.parametrize("name", ["bridge_idle", "selftest"])
def test_sram_slice_is_free_in_firmware(firmware, soc, name):
    """The SRAM check's slice lies above every byte of .data/.bss and below the stack."""
    from sim.tests.test_sim import _symbol
    elf = firmware(name).with_suffix(".elf")
    start, n = checks.sram_window(soc)
    assert _symbol(elf, "_end") <= start and start + 4 * n <= _symbol(elf, "_stack_bottom")


# ---- booting the silicon SoC over the bridge ------------------------------------------------------

def _silicon_map(rom_size=64):
    """The parts of a silicon SoC's csr.json that boot() reads."""
    return SocMap({"csr_registers": {"boot_hold": {"addr": 0x8200_0000, "size": 1},
                                     "ctrl_reset": {"addr": 0x8200_0800, "size": 1}},
                   "memories": {"rom": {"base": 0, "size": rom_size}}}, "silicon csr.json")


class BootBus(FakeBus):
    def __init__(self, soc, **kw):
        self.mem, self.soc, self.stuck, self.alias, self.frozen = {0x8200_0000: 1}, soc, {}, 0, ()
        self.step, self.log = None, []
        self.__dict__.update(kw)

    def write(self, addr, words):
        self.log.append((addr, list(words)))
        for i, w in enumerate(words):
            self.mem[addr + 4 * i] = w


def test_boot_loads_verifies_and_releases_the_cpu():
    from bringup.boot import boot
    soc = _silicon_map()
    bus = BootBus(soc)
    image = bytes(range(1, 42))                     # 41 bytes: the last word padded with zeros
    r = boot(bus, soc, image)
    assert r["pass"] and r["bytes"] == 41 and not r["problems"]
    assert bus.read(0, 11) == list(struct.unpack("<11I", image + bytes(3)))
    assert bus.mem[0x8200_0000] == 0
    # hold and CPU reset set before loading, released (reset first) only after everything else
    assert bus.log[:2] == [(0x8200_0000, [1]), (0x8200_0800, [2])]
    assert bus.log[-2:] == [(0x8200_0800, [0]), (0x8200_0000, [0])]


def test_boot_refuses_bad_images_and_keeps_the_cpu_held_on_a_bad_readback():
    from bringup.boot import boot
    soc = _silicon_map()
    r = boot(BootBus(soc), soc, bytes(65))
    assert not r["pass"] and "65 bytes, the boot memory at 0x00000000 holds 64" in r["problems"][0]
    assert not boot(BootBus(soc), soc, b"")["pass"]
    bus = BootBus(soc, stuck={8: (1 << 3, 0)})      # a stuck bit in the boot memory
    r = boot(bus, soc, bytes([0xff]) * 16)
    assert not r["pass"] and r["problems"][0] == "boot memory: 0x00000008 wrote 0xffffffff read 0xfffffff7"
    assert bus.mem[0x8200_0000] == 1 and bus.mem[0x8200_0800] == 2
    assert "stays held (boot_hold = 1) and in reset" in r["problems"][-1]


def test_boot_refuses_a_soc_without_boot_hold(soc, tmp_path, capsys):
    from bringup import cli
    from bringup.boot import boot
    r = boot(FakeBus(soc), soc, b"1234")
    assert not r["pass"] and "no boot_hold CSR" in r["problems"][0]
    # the CLI names an unreadable image before opening the port
    assert cli.main(["socket://127.0.0.1:1", "--boot", str(tmp_path / "none.bin"),
                     "--csr", soc.source]) == 1
    assert "cannot read the boot image" in capsys.readouterr().err


# ---- ML-KEM-768 over the bridge (`pqsoc bringup PORT mlkem`) ------------------------------------

def test_bringup_mlkem_on_simulated_chip(soc_dir, model, firmware, tmp_path, capsys):
    """The host runs ML-KEM-768 keygen, encaps and decaps over the bridge (programs, tables and
    layout of firmware/pqc_layout.py): outputs equal kyber-py's, CYCLES the ISS's."""
    from ip.acc import api
    from sim.run import serve_bridge
    with serve_bridge(firmware("bridge_idle"), soc_dir, model.parent, tmp_path, 200_000_000,
                      600) as b:
        rc = cli.main([b.url, "--csr", str(soc_dir / "csr.json"), "--timeout", "60", "mlkem"])
    out = capsys.readouterr().out
    lines = [json.loads(ln) for ln in out.splitlines()]
    assert rc == 0 and lines[0]["test"] == "mlkem" and lines[0]["pass"], out
    assert lines[-1] == {"summary": "bringup", "tests": 1, "passed": 1, "failed": 0}
    from firmware import pqc_layout
    d, z, _ = pqc_layout.API_SEEDS
    assert lines[0]["keygen_cycles"] == api.mlkem_keygen(768, d, z)["cycles"]
    with capsys.disabled():
        print(f"\nbringup mlkem: {lines[0]['seconds']} s, {lines[0]['bridge_bytes']} bridge bytes, "
              f"{b.result.cycles} cycles")


def test_bringup_mlkem_detects_a_dead_acc(soc):
    r = checks.check_mlkem(FakeBus(soc, frozen=_Region(soc, "acc")), soc)
    problems = "\n".join(r["problems"])
    assert not r["pass"]
    for op, name in (("keygen", "ek"), ("encaps", "K"), ("decaps", "K")):
        assert f"mlkem {op} {name}: output at DMEM" in problems and "kyber-py" in problems
        assert f"mlkem {op}: ERR_BITS 0x0, CYCLES 0 (the ISS says" in problems
        assert f"mlkem {op}: status word 0x00000000" in problems and "did it run?" in problems
