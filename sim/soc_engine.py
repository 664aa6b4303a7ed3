# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""The steps every `--engine soc` shares (sim/mlkem_soc.py, sim/mldsa_soc.py): the SoC build
(once per process), a firmware API program built with the call's generated header, the
Verilator model of the SoC (cached in build/sim/model), the simulation, and the firmware's
JSON result line for the call (its outputs in hex, "cycles" = the ACC's CYCLES register,
"cpu_cycles" = system clock cycles (lib/runtime.c cycles(): the uptime counter) around the API call)."""
import sys
import time
from pathlib import Path

from pqsoc import BUILD

MAX_CYCLES = 20_000_000
TIMEOUT_S = 900.0

_BUILT = set()   # SoC folders built by this process (the SoC build takes ~10 s)


class SocEngineError(Exception):
    """A step of the SoC engine failed (build, simulation, parsing): the message names it."""


def log_stderr(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


class Call:
    """One API call on the simulated SoC: `line` is the firmware's result line named `name`
    (None if it printed none, or several), `res` the simulation's sim.run result."""

    def __init__(self, name, line, res, uart):
        self.name, self.line, self.res, self.uart = name, line, res, uart

    def fail(self, detail: str = ""):
        """SocEngineError for a run that did not give the call's result."""
        if self.line is not None:
            detail = detail or (f"the API returned {self.line.get('status')}, "
                                f"ERR_BITS {self.line.get('err_bits')}; ")
        problems = "; ".join(self.res.problems) or "no problem reported by the run"
        return SocEngineError(f"{self.name}: the SoC run failed: {detail}{problems}; "
                              f"UART log {self.uart}")

    def outputs(self, names) -> dict:
        """{name: bytes} of the hex outputs in the line, "cycles", "cpu_cycles"."""
        if not self.res.ok:
            raise self.fail()
        if self.line is None:
            raise SocEngineError(f"the firmware printed no single result line for {self.name}; "
                                 f"UART log {self.uart}")
        r = {}
        for k in names:
            try:
                r[k] = bytes.fromhex(self.line[k])
            except (KeyError, ValueError):
                raise SocEngineError(f"{self.name}: output {k!r} missing or not hex in the "
                                     f"firmware's line; UART log {self.uart}") from None
        r["cycles"] = self.line["cycles"]
        r["cpu_cycles"] = int(self.line["cpu_cycles"])
        return r


def run_api(scheme: str, program: str, header_name: str, header_text: str, tag: str,
            name: str, log=log_stderr, build_dir: Path = BUILD) -> Call:
    """Builds firmware `program` with the generated header (into build/firmware/<scheme>_soc/
    <tag>), runs it on the simulated SoC and returns the Call of its result line `name`.
    `scheme` prefixes the progress lines ("mldsa soc: [  1.0 s] ...") and the folders."""
    from firmware import build as fw
    from sim import run as simrun
    from soc.build import build as soc_build
    t0 = time.monotonic()

    def step(msg):
        log(f"{scheme} soc: [{time.monotonic() - t0:5.1f} s] {msg}")

    soc_dir = build_dir / "soc"
    if soc_dir not in _BUILT:
        step(f"SoC build (LiteX; unchanged files kept) into {soc_dir}")
        try:
            soc_build(soc_dir)
        except Exception as e:   # LiteX / Amaranth raise many kinds
            raise SocEngineError(f"SoC build failed: {e}") from None
        _BUILT.add(soc_dir)
    step(f"firmware {program} for {name}")
    try:
        fw_bin = fw.build(program, soc_dir, build_dir / "firmware" / f"{scheme}_soc" / tag,
                          headers={header_name: header_text})
    except fw.FirmwareError as e:
        raise SocEngineError(f"firmware build failed: {e}") from None
    model_dir = build_dir / "sim" / "model"
    step(f"Verilator model of the SoC (cached in {model_dir}; a fresh build takes minutes)")
    run_dir = build_dir / "sim" / "runs" / f"{scheme}_soc_{tag}"
    try:
        simrun.build_model(soc_dir, model_dir, log=lambda m: step(m))
        step(f"simulating (UART log {run_dir / 'uart.log'})")
        res = simrun.run(fw_bin, soc_dir, model_dir, run_dir, MAX_CYCLES, TIMEOUT_S)
    except simrun.SimError as e:
        raise SocEngineError(f"simulation failed: {e}") from None
    step(f"done: {res.cycles} SoC cycles in {res.wall_s:.1f} s")
    lines = [t for t in res.tests if t["test"] == name]
    return Call(name, lines[0] if len(lines) == 1 else None, res, run_dir / "uart.log")
