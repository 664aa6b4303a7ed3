# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""Build (cached) and run the Verilator model of the pqsoc SoC, and judge a firmware's output.

The model is built (pqsoc.flow.verilator.build_model) once per distinct (SoC Verilog, Ibex
sources, harness and its headers, flags, Verilator version, host CPU) into build/sim/model/, with
a stamp holding their hash: an unchanged design is never rebuilt, and a changed one reuses
Verilator's make for the objects whose sources did not change.
"""
import json
import os
import re
import shutil
import signal
import struct
import subprocess
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from pqsoc import FlowError
from pqsoc.flow import verilator as vl

HERE = Path(__file__).resolve().parent
HARNESS = HERE / "harness.cpp"
HOST_UART = HERE / "host_uart.h"     # included by the harnesses
HARNESS_COMMON = HERE / "harness_common.h"
HEADERS = (HOST_UART, HARNESS_COMMON)
ROM_INIT = "pqsoc_rom.init"
# Exit statuses of the harness (see harness.cpp).
EXIT_ABNORMAL, EXIT_CYCLES, EXIT_WALL = 100, 101, 102
# The full-SoC model: the fast RTL set (its speed measurements: pqsoc.flow.verilator.FAST_RTL_CXX).
VERILATOR_FLAGS = vl.model_flags("pqsoc", x=vl.X_FAST, cxx=vl.FAST_RTL_CXX, warn=vl.SOC_WARNINGS, jobs=0)
TRAP_MARKER = "*** TRAP"
MCAUSE = {0: "instruction address misaligned", 1: "instruction access fault",
          2: "illegal instruction", 3: "breakpoint", 4: "load address misaligned",
          5: "load access fault (bus error)", 6: "store address misaligned",
          7: "store access fault (bus error)", 11: "environment call from M-mode"}


class SimError(Exception):
    """The simulation could not be built or started (not a firmware failure)."""


# ---- model build ------------------------------------------------------------------------------

def _files(soc_dir: Path) -> dict:
    f = Path(soc_dir) / "gateware" / "files.json"
    if not f.exists():
        raise SimError(f"{f} missing: run `pqsoc soc build` first")
    files = json.loads(f.read_text())
    files["verilog"] = [str(f.parent / v) for v in files["verilog"]]
    return files


def _flags(trace: bool) -> list[str]:
    return VERILATOR_FLAGS + ["--trace"] * trace


def _sources(files: dict) -> list[str]:
    return [*files["sources"], *files["verilog"]]


def model_hash(soc_dir: Path, trace: bool = False) -> str:
    files = _files(soc_dir)
    try:
        return vl.model_key(_flags(trace), _sources(files), HARNESS, HEADERS, files["include_paths"])
    except FlowError as e:
        raise SimError(str(e)) from None


def build_model(soc_dir: Path, out: Path, trace: bool = False, log=None) -> Path:
    """Returns the simulator binary, building it only when its inputs changed.
    trace=True builds a (slower) model that can write VCD waveforms (`--trace FILE`)."""
    files = _files(soc_dir)
    try:
        model = vl.build_model(flags=_flags(trace), sources=_sources(files), driver=HARNESS,
                               headers=HEADERS, include_paths=files["include_paths"], out=out,
                               exe="Vpqsoc", label="sim: SoC", log=log)
    except FlowError as e:
        raise SimError(str(e)) from None
    return model.exe


# ---- running ----------------------------------------------------------------------------------

def rom_words(image: bytes, rom_words_max: int) -> list[str]:
    if len(image) > 4 * rom_words_max:
        raise SimError(f"firmware image is {len(image)} bytes, the boot ROM holds {4 * rom_words_max}")
    image = image + bytes(-len(image) % 4)
    words = [int.from_bytes(image[i:i + 4], "little") for i in range(0, len(image), 4)]
    words += [0] * (rom_words_max - len(words))
    return [f"{w:08x}" for w in words]


@dataclass
class Result:
    reason: str            # exit | abnormal | cycles | wall | bridge-closed | stopped
    status: int            # harness exit status
    cycles: int
    wall_s: float
    uart: str
    cpu_s: float = 0.0     # the model's CPU time (wall_s also counts other jobs on the machine)
    problems: list[str] = field(default_factory=list)
    tests: list[dict] = field(default_factory=list)
    summary: dict | None = None
    bridge_out: bytes = b""   # what the SoC sent on the bring-up UART

    @property
    def ok(self) -> bool:
        return not self.problems

    @property
    def cycles_per_s(self) -> float:
        return self.cycles / self.wall_s if self.wall_s > 0 else 0.0

    @property
    def cycles_per_cpu_s(self) -> float:
        return self.cycles / self.cpu_s if self.cpu_s > 0 else 0.0


def bridge_divisor(soc_dir: Path) -> int:
    """Cycles per bit of the bring-up UART, from the SoC's exported constants."""
    consts = json.loads((Path(soc_dir) / "csr.json").read_text())["constants"]
    return round(consts["config_clock_frequency"] / consts["bringup_uart_baudrate"])


def _prepare(firmware: Path, soc_dir: Path, model_dir: Path, run_dir: Path, max_cycles: int,
             timeout_s: float, log=None, trace: Path | None = None) -> tuple[Path, list[str]]:
    """Builds (or reuses) the model, fills the run folder (ROM image, other memories) and
    returns (run folder, the model's command line without the bridge options)."""
    firmware = Path(firmware)
    if not firmware.is_file():
        raise SimError(f"firmware image {firmware} not found")
    if max_cycles <= 0 or timeout_s <= 0:
        raise SimError("--max-cycles and --timeout-s must be positive")
    exe = build_model(soc_dir, model_dir, trace=trace is not None, log=log)
    gateware = Path(soc_dir) / "gateware"
    run_dir = Path(run_dir)
    run_dir.mkdir(parents=True, exist_ok=True)
    for init in gateware.glob("*.init"):   # the other memories' initial contents
        shutil.copy(init, run_dir / init.name)
    n_rom = len((gateware / ROM_INIT).read_text().split())
    (run_dir / ROM_INIT).write_text("\n".join(rom_words(firmware.read_bytes(), n_rom)) + "\n")
    (run_dir / "bridge.out").unlink(missing_ok=True)   # a script run's, never another run's
    cmd = [str(exe), "--max-cycles", str(max_cycles), "--timeout-s", str(timeout_s)]
    if trace is not None:
        cmd += ["--trace", str(Path(trace).resolve())]
    return run_dir, cmd


class _Model:
    """One running model: UART on its own pipe (read by a thread), the model's stdout ($display
    from the RTL) and stderr in run_dir/sim.log."""

    def __init__(self, cmd: list[str], run_dir: Path, timeout_s: float, echo=None):
        self.run_dir, self.timeout_s = run_dir, timeout_s
        uart_r, uart_w = os.pipe()
        with open(run_dir / "sim.log", "wb") as simlog:
            self.p = subprocess.Popen([*cmd, "--uart-fd", str(uart_w)], cwd=run_dir, stdout=simlog,
                                      stderr=subprocess.STDOUT, pass_fds=(uart_w,))
        os.close(uart_w)
        self.uart = []

        def read_uart():
            with os.fdopen(uart_r, "rb") as pipe, open(run_dir / "uart.log", "wb") as f:
                for raw in pipe:
                    f.write(raw)
                    f.flush()
                    line = raw.decode("utf-8", "replace")
                    self.uart.append(line)
                    if echo:
                        echo(line.rstrip("\n"))

        # Read in a thread so that the wall-clock backstop holds even if the model never returns
        # to the harness loop (which checks the limit itself every 64 Ki cycles).
        self.reader = threading.Thread(target=read_uart, daemon=True)
        self.reader.start()
        self.t0 = time.monotonic()

    def log_text(self) -> str:
        return (self.run_dir / "sim.log").read_text(errors="replace")

    def finish(self, max_cycles: int, firmware: Path) -> Result:
        """Waits for the model (killing it past the wall-clock limit + 30 s), parses its summary
        line and judges the run."""
        killed = False
        try:
            self.p.wait(timeout=max(1.0, self.timeout_s + 30 - (time.monotonic() - self.t0)))
        except subprocess.TimeoutExpired:
            self.p.kill()
            self.p.wait()
            killed = True
        self.reader.join()
        err = self.log_text()
        m = re.search(r"SIM-END reason=([\w-]+) cycles=(\d+) wall_s=([\d.]+)", err)
        if killed:   # cycles unknown: the harness never got to report them
            m = ["", "wall", "0", f"{time.monotonic() - self.t0:.3f}"]
        if not m:
            raise SimError(f"simulator ended without its summary line (status {self.p.returncode}):"
                           f"\n{err[-2000:]}")
        cpu = re.search(r"SIM-END .* cpu_s=([\d.]+)", err) if not killed else None
        res = Result(reason=m[1], status=self.p.returncode, cycles=int(m[2]), wall_s=float(m[3]),
                     uart="".join(self.uart), cpu_s=float(cpu[1]) if cpu else 0.0)
        if (self.run_dir / "bridge.out").exists():
            res.bridge_out = (self.run_dir / "bridge.out").read_bytes()
        judge(res, max_cycles=max_cycles, timeout_s=self.timeout_s, elf=firmware.with_suffix(".elf"))
        return res


def run(firmware: Path, soc_dir: Path, model_dir: Path, run_dir: Path, max_cycles: int,
        timeout_s: float, echo=None, log=None, bridge=None, trace: Path | None = None) -> Result:
    """Runs one firmware image. `echo(line)` gets each UART line as it arrives. `bridge`: what a
    host does on the bring-up UART after reset, as [(bytes to send, reply bytes to wait for)].
    `trace`: write a VCD there (model_dir must then hold a model built with trace=True)."""
    run_dir, cmd = _prepare(firmware, soc_dir, model_dir, run_dir, max_cycles, timeout_s, log, trace)
    if bridge is not None:
        script = b"".join(struct.pack("<HH", len(send), reply) + send for send, reply in bridge)
        (run_dir / "bridge.in").write_bytes(script)
        cmd += ["--bridge-div", str(bridge_divisor(soc_dir)), "--bridge-in", "bridge.in",
                "--bridge-out", "bridge.out"]
    return _Model(cmd, run_dir, timeout_s, echo).finish(max_cycles, Path(firmware))


@dataclass
class BridgeRun:
    """What serve_bridge yields: the URL for serial.serial_for_url; `result` once it is over."""
    url: str
    port: int
    model: _Model
    result: Result | None = None

    def wait(self) -> None:
        """Blocks until the model ends by itself (client gone, firmware exit, a limit)."""
        self.model.p.wait()


@contextmanager
def serve_bridge(firmware: Path, soc_dir: Path, model_dir: Path, run_dir: Path, max_cycles: int,
                 timeout_s: float, port: int = 0, echo=None, log=None, grace_s: float = 10.0):
    """Runs a firmware image with the bring-up UART on a TCP socket (127.0.0.1; port 0 = a free
    one) and yields a BridgeRun whose `url` (socket://127.0.0.1:PORT) a bring-up script opens.
    The model ends when the client disconnects, or as run() ends; on leaving the block it gets
    grace_s to do so, is then stopped (SIGTERM, reason `stopped`), and `result` holds the run
    judged as run() judges it."""
    run_dir, cmd = _prepare(firmware, soc_dir, model_dir, run_dir, max_cycles, timeout_s, log)
    cmd += ["--bridge-div", str(bridge_divisor(soc_dir)), "--bridge-tcp", str(port)]
    model = _Model(cmd, run_dir, timeout_s, echo)
    # The harness prints the port before simulating; it starts in well under a second.
    deadline = time.monotonic() + 60
    while not (m := re.search(r"^BRIDGE-PORT (\d+)$", model.log_text(), re.M)):
        if model.p.poll() is not None or time.monotonic() > deadline:
            model.p.kill()
            model.p.wait()
            raise SimError(f"the model did not open its bridge port:\n{model.log_text()[-2000:]}")
        time.sleep(0.02)
    session = BridgeRun(url=f"socket://127.0.0.1:{m[1]}", port=int(m[1]), model=model)
    try:
        yield session
    finally:
        try:
            model.p.wait(timeout=grace_s)
        except subprocess.TimeoutExpired:
            model.p.send_signal(signal.SIGTERM)
        session.result = model.finish(max_cycles, Path(firmware))


# ---- judging ----------------------------------------------------------------------------------

def _last_lines(text: str, n=5) -> str:
    lines = text.rstrip("\n").splitlines()[-n:]
    return "\n".join("    | " + ln for ln in lines) if lines else "    (no UART output)"


def _where(elf: Path, pc: int) -> str:
    """'function at file:line' for a PC, when the ELF is next to the image."""
    if not elf.exists() or shutil.which("riscv64-unknown-elf-addr2line") is None:
        return ""
    r = subprocess.run(["riscv64-unknown-elf-addr2line", "-f", "-e", str(elf), f"{pc:#x}"],
                       capture_output=True, text=True)
    lines = r.stdout.split()
    return f" ({lines[0]} at {lines[1]})" if len(lines) >= 2 and lines[0] != "??" else ""


def judge(res: Result, max_cycles: int, timeout_s: float, elf: Path) -> None:
    lines = res.uart.splitlines()
    for ln in lines:
        if TRAP_MARKER not in ln:
            continue
        m = re.search(r"mcause=0x([0-9a-f]+) mepc=0x([0-9a-f]+) mtval=0x([0-9a-f]+)", ln)
        if not m:
            res.problems.append(f"garbled trap report: {ln!r}")
            continue
        cause, pc, tval = (int(x, 16) for x in m.groups())
        name = MCAUSE.get(cause & 0x1f, "interrupt" if cause >> 31 else "unknown")
        res.problems.append(f"firmware trapped: mcause={cause:#x} ({name}) at PC {pc:#010x}"
                            f"{_where(elf, pc)}, mtval={tval:#x}; last UART output:\n"
                            + _last_lines(res.uart.split(TRAP_MARKER)[0]))
    if res.reason == "cycles":
        res.problems.append(f"cycle limit of {max_cycles} cycles reached before the firmware "
                            f"finished; last UART output:\n{_last_lines(res.uart)}")
    elif res.reason == "wall":
        res.problems.append(f"wall-clock limit of {timeout_s} s reached after {res.cycles} "
                            f"cycles; last UART output:\n{_last_lines(res.uart)}")
    elif res.reason == "abnormal" and not any("trapped" in p for p in res.problems):
        res.problems.append("firmware ended abnormally without a trap report; last UART output:\n"
                            + _last_lines(res.uart))
    elif res.reason == "exit" and res.status != 0:
        res.problems.append(f"firmware exited with code {res.status}")
    elif res.reason not in ("exit", "bridge-closed", "stopped", "abnormal"):
        # a harness's own ending (e.g. the Caravel harness's failed management check)
        res.problems.append(f"the run ended with reason {res.reason!r} (status {res.status})")
    # bridge-closed / stopped: a bring-up session ended on the host's side (the firmware need
    # not have finished), so its result lines are judged but no summary is required.
    if res.reason not in ("exit", "bridge-closed", "stopped"):
        return

    for i, ln in enumerate(lines, 1):
        s = ln.strip()
        if not (s.startswith("{") or '"test"' in s or '"summary"' in s):
            continue
        try:
            obj = json.loads(s)
            if not isinstance(obj, dict):
                raise ValueError("not an object")
        except ValueError:
            res.problems.append(f"garbled or truncated result line {i}: {s!r}")
            continue
        if "test" in obj:
            if not (isinstance(obj.get("test"), str) and isinstance(obj.get("pass"), bool)
                    and isinstance(obj.get("cycles"), int)):
                res.problems.append(f"malformed test line {i}: {s!r}")
                continue
            res.tests.append(obj)
            if not obj["pass"]:
                res.problems.append(f"test {obj['test']!r} failed ({obj['cycles']} cycles)")
        elif "summary" in obj:
            if res.summary is not None:
                res.problems.append(f"second summary line {i}: {s!r}")
            res.summary = obj
        else:
            res.problems.append(f"unknown result line {i}: {s!r}")
    if res.summary is None:
        if res.reason == "exit":
            res.problems.append("no summary line: the firmware did not finish its tests")
    else:
        n_fail = sum(not t["pass"] for t in res.tests)
        if (res.summary.get("tests"), res.summary.get("failed")) != (len(res.tests), n_fail):
            res.problems.append(f"summary {res.summary} does not match the {len(res.tests)} "
                                f"test lines seen ({n_fail} failed)")
