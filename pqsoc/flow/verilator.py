# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""Verilator, the one place the project builds simulation models with it.

- Flags: the warnings every model turns off, and named sets (initial state, C++ options) that
  `model_flags` puts together into the command line of one model kind: the fast RTL models
  (the full-SoC simulation, the silicon SoC's RTL, the ACC under its host driver) and the
  random-initial-state gate-level models (clang, output split for `make -j`).
- Tools: `verilator()` and `gl_cxx()` find them, or refuse with a FlowError that says how to
  install them.
- `build_model`: a C++ model (sources + a driver with its own main) built into a model folder
  that holds a stamp: the hash of the sources, the driver and its headers, the flags and the
  Verilator version (and the host CPU for -march=native code); an unchanged model is never
  rebuilt. The build's output goes to build.log; a failed build raises a FlowError naming the
  log and its tail.
- `run_cocotb`: Verilator + cocotb runs of a block, shared by RTL and gate-level simulation.
  The same cocotb test module drives the emitted RTL and the synthesized netlist, so both are
  held to the same checks; each run writes the cycle counts it measured to a JSON file that the
  caller compares across runs.

This module knows no block: callers pass the top, the sources, the driver and the flag sets.
"""
import functools
import hashlib
import json
import os
import platform
import shutil
import subprocess
import time
import warnings
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path

from pqsoc import REPO, FlowError
from pqsoc.flow import locks

# ---- flags --------------------------------------------------------------------------------------

WARNINGS = ["-Wno-fatal", "-Wno-lint", "-Wno-style"]


def no_warnings(*codes: str) -> list[str]:
    """WARNINGS and -Wno-CODE for each of `codes`, in that order."""
    return [*WARNINGS, *(f"-Wno-{c}" for c in codes)]


# Blocks (cocotb benches, the ACC under its host driver).
BLOCK_WARNINGS = no_warnings("CASEINCOMPLETE", "MULTIDRIVEN", "UNOPTFLAT")
# The SoCs (LiteX + Ibex).
SOC_WARNINGS = no_warnings("UNOPTFLAT", "MULTIDRIVEN", "COMBDLY", "TIMESCALEMOD")
VERILATOR_ARGS = BLOCK_WARNINGS     # the cocotb builds' arguments (and test benches')

# Initial state of flops and of X assignments.
X_FAST = ["--x-assign", "fast", "--x-initial", "fast"]
X_ZERO = ["--x-assign", "0", "--x-initial", "0"]
# Gate level: a random initial state, a different one per `+verilator+seed` (with
# `+verilator+rand+reset+2`), so behaviour that depends on uninitialised flops shows up.
X_RANDOM = ["--x-assign", "unique", "--x-initial", "unique"]

# C++ options of the models.
# The full-SoC simulation (sim/run.py), speed (selftest, CPU seconds, full SoC; soc/README.md
# "Simulation speed"): Verilator 5.006's DFG optimizer makes this design's per-cycle code slower:
# -fno-dfg ~16% faster. The per-cycle code at -O3 instead of Verilator's
# default -Os (-O2: ~15% faster, -O3 ~6-8% more), for this host's CPU
# (-march=native, ~5%: the model hash includes the CPU, so a build/ shared
# with another host rebuilds there rather than run code for the wrong CPU);
# -O1 for the one-off (_Slow) code. Together 0.14 -> 0.20 M cycles/CPU-s,
# same build time. Most of what is left (~70%) is the ACC's wide ALU, whose whole
# 256-bit datapath Verilator evaluates on every clock edge, ACC idle or not.
FAST_RTL_CXX = ["-fno-dfg", "-CFLAGS", "-O1 -march=native", "-MAKEFLAGS", "OPT_FAST=-O3"]
# The silicon SoC's RTL model (sim/silicon.py): no DFG, everything at -O2, no host-specific code.
PORTABLE_RTL_CXX = ["-fno-dfg", "-CFLAGS", "-O2"]
# The ACC under its host driver (ip/acc/dv/rtl_runner.py).
BLOCK_RTL_CXX = ["-CFLAGS", "-O1"]
# C++ of the big gate-level models (measured on the 252 k-cell silicon SoC: 148 MB of C++).
# clang compiles Verilator's output ~2.5 x faster than gcc at any -O level. Verilator's "Slow"
# files (half the C++ of a flat netlist: the constructor and a settle copy of all combinational
# logic, run once at time 0) compile at -O0; the eval files keep verilated.mk's OPT_FAST (-Os).
# Split into files so that `make -j 2` uses both cores.
GL_CXX = "clang++-14"
GL_CXX_ARGS = ["-MAKEFLAGS", f"CXX={GL_CXX}", "-MAKEFLAGS", "OPT_SLOW=-O0",
               "-CFLAGS", "-Wno-unknown-warning-option",
               "--output-split", "20000", "--output-split-cfuncs", "2000"]


def model_flags(top: str, *, x: list[str], cxx: list[str], warn: list[str], prefix: str | None = None,
                defines=(), jobs: int = 0) -> list[str]:
    """The flags of a C++ model with its own main (`--exe`), built by Verilator (`--build`):
    x: initial state (X_*), cxx: C++ options (*_CXX), warn: warnings off (*_WARNINGS),
    defines: Verilog macros, jobs: `-j` of the build (0: every core)."""
    return ["--cc", "--exe", "--build", "-O3", *x, "--noassert", *warn, "--top-module", top,
            *(["--prefix", prefix] if prefix else []), *(f"-D{d}" for d in defines), *cxx,
            "-j", str(jobs)]


def gate_level_flags(top: str, *, warn: list[str], prefix: str | None = None, defines=(),
                     jobs: int = 2) -> list[str]:
    """A gate-level model: random initial state, compiled with clang, output split (GL_CXX_ARGS;
    no -CFLAGS -O level: it would reach only the Slow files)."""
    return model_flags(top, x=X_RANDOM, cxx=GL_CXX_ARGS, warn=warn, prefix=prefix, defines=defines,
                       jobs=jobs)


# ---- tools --------------------------------------------------------------------------------------

def verilator() -> str:
    exe = shutil.which("verilator")
    if exe is None:
        raise FlowError("verilator not found (apt package verilator; `make setup`)")
    return exe


def gl_cxx() -> str:
    """The gate-level models' C++ compiler (apt package clang-14, `make setup`)."""
    exe = shutil.which(GL_CXX)
    if exe is None:
        raise FlowError(f"{GL_CXX} not found: the gate-level models compile with clang "
                        "(apt package clang-14; `make setup` installs it)")
    return exe


@functools.lru_cache(maxsize=None)
def _version(exe: str) -> str:
    return subprocess.run([exe, "--version"], capture_output=True, text=True).stdout.strip()


def verilator_version() -> str:
    return _version(verilator())


def host_cpu() -> str:
    """The CPU model and feature flags (what -march=native compiles for)."""
    try:
        text = Path("/proc/cpuinfo").read_text()
    except OSError:
        return platform.machine() + platform.processor()
    keep = [ln for ln in text.splitlines() if ln.split(":")[0].strip() in ("model name", "flags")]
    return "\n".join(sorted(set(keep)))


# ---- model builds -------------------------------------------------------------------------------

def _config(flags: list[str]) -> str:
    """What the compiled objects depend on besides their sources: the flags, and for
    -march=native code the host CPU (a model runs only on the CPU it was built for)."""
    native = any("-march=native" in f for f in flags)
    return " ".join(flags) + ("\n" + host_cpu() if native else "")


def model_key(flags: list[str], sources, driver: Path, headers=(), include_paths=()) -> str:
    """The hash a model folder is keyed by: Verilator's version, the flags (with the host CPU
    for -march=native code), the include paths, and the name and contents of every source, of
    the driver and of the headers it includes."""
    h = hashlib.sha256(verilator_version().encode())
    h.update(_config(flags).encode())
    h.update(" ".join(map(str, include_paths)).encode())
    for p in [*map(Path, sources), Path(driver), *map(Path, headers)]:
        h.update(p.name.encode())
        h.update(p.read_bytes())
    return h.hexdigest()[:16]


@dataclass
class Model:
    exe: Path
    key: str            # model_key
    cached: bool        # already built: nothing was run
    seconds: float      # Verilator and C++ build time (0 when cached)


def is_built(out: Path, exe: str, key: str) -> bool:
    stamp = Path(out) / "stamp"
    return (Path(out) / exe).is_file() and stamp.is_file() and stamp.read_text() == key


def build_model(*, flags: list[str], sources, driver: Path, out: Path, exe: str, headers=(),
                include_paths=(), label: str, log=None) -> Model:
    """Verilator + C++ build of sources + driver (the C++ main) into OUT as OUT/EXE, unless OUT
    already holds it for the same model_key. headers: files the driver includes (hashed only).
    log(msg) hears the start of a build and its duration."""
    out = Path(out).resolve()
    key = model_key(flags, sources, driver, headers, include_paths)
    if is_built(out, exe, key):
        return Model(out / exe, key, True, 0.0)
    with locks.exclusive(out):          # another process may be building the same model
        if is_built(out, exe, key):
            return Model(out / exe, key, True, 0.0)
        return _build_model(flags, sources, driver, out, exe, include_paths, label, log, key)


def _build_model(flags, sources, driver, out: Path, exe: str, include_paths, label: str, log, key: str) -> Model:
    tool = verilator()
    out.mkdir(parents=True, exist_ok=True)
    # make rebuilds an object only when its source changed, not when the compiler flags or the
    # host CPU did: drop the objects of a model compiled with other flags or for another CPU.
    config = out / "config"
    want_config = hashlib.sha256(_config(flags).encode()).hexdigest()
    if not config.is_file() or config.read_text() != want_config:
        for f in [*out.glob("*.o"), *out.glob("*.a"), out / exe]:
            f.unlink(missing_ok=True)
    (out / "stamp").unlink(missing_ok=True)
    if log:
        log(f"{label}: building the Verilator model ({out})")
    cmd = [tool, *flags, "--Mdir", str(out), "-o", exe, *[f"-I{p}" for p in include_paths],
           *map(str, sources), str(driver)]
    t0 = time.monotonic()
    r = subprocess.run(cmd, capture_output=True, text=True)
    (out / "build.log").write_text(r.stdout + r.stderr)
    if r.returncode != 0 or not (out / exe).is_file():
        tail = "\n".join((r.stdout + r.stderr).splitlines()[-30:])
        raise FlowError(f"Verilator build of the {label} model failed (log: {out / 'build.log'}):\n{tail}")
    secs = time.monotonic() - t0
    config.write_text(want_config)
    (out / "stamp").write_text(key)
    if log:
        log(f"{label}: Verilator model built in {secs:.0f} s")
    return Model(out / exe, key, False, secs)


# ---- cocotb -------------------------------------------------------------------------------------

@dataclass
class SimResult:
    tests: int
    failed: int
    figures: dict
    log: Path


def run_cocotb(*, sources: list[Path], top: str, test_module: str, build_dir: Path,
               build_args: list[str] = (), plusargs: list[str] = (), seed: int = 1,
               label: str = "", cxx: str | None = None, build_only: bool = False) -> SimResult | None:
    """cxx: the C++ compiler of the model instead of verilated.mk's (gate level: GL_CXX). The
    build and the run hold build_dir's lock (cocotb builds and runs in that one folder).
    build_only: build the model (a campaign's shared step) and return None."""
    with locks.exclusive(build_dir):
        return _run_cocotb(sources=sources, top=top, test_module=test_module, build_dir=build_dir,
                           build_args=build_args, plusargs=plusargs, seed=seed, label=label, cxx=cxx,
                           build_only=build_only)


def _run_cocotb(*, sources, top, test_module, build_dir: Path, build_args, plusargs, seed, label, cxx,
                build_only) -> SimResult | None:
    verilator()
    if cxx and shutil.which(cxx) is None:
        raise FlowError(f"{cxx} not found: the C++ compiler of the {label or top} model")
    with warnings.catch_warnings():   # cocotb 1.9 flags its Python runner as experimental
        warnings.filterwarnings("ignore", message="Python runners", category=UserWarning)
        from cocotb.runner import get_runner
    build_dir.mkdir(parents=True, exist_ok=True)
    runner = get_runner("verilator")
    # cocotb 1.9's runner refuses results_xml inside pytest (it keys on PYTEST_CURRENT_TEST);
    # this wrapper is called from pytest and from the CLI alike.
    os.environ.pop("PYTEST_CURRENT_TEST", None)
    # The runner calls a plain `make`: build on both cores, and at -O1, since a gate-level model
    # is compiled once per netlist and runs a few thousand cycles (-Os took 15 min on 60 k nets).
    # Only for this build: a MAKEFLAGS left in the environment would reach every later make of
    # the process (a CXX=clang++ there breaks Verilator --timing builds, which need gcc's
    # coroutines).
    saved = os.environ.get("MAKEFLAGS")
    os.environ["MAKEFLAGS"] = (f"-j{os.cpu_count() or 2} OPT_FAST=-O1 OPT_SLOW=-O0 OPT_GLOBAL=-O1"
                               + (f" CXX={cxx}" if cxx else ""))
    try:
        runner.build(verilog_sources=[str(s) for s in sources], hdl_toplevel=top,
                     build_args=VERILATOR_ARGS + list(build_args), build_dir=str(build_dir),
                     log_file=str(build_dir / "build.log"))
    except SystemExit as e:   # cocotb's runner exits on a failed build
        raise FlowError(f"Verilator build of {label or top} failed (exit {e.code}); "
                        f"log: {build_dir / 'build.log'}") from None
    finally:
        if saved is None:
            os.environ.pop("MAKEFLAGS", None)
        else:
            os.environ["MAKEFLAGS"] = saved
    if build_only:
        return None
    figures_path = build_dir / f"figures_seed{seed}.json"
    figures_path.unlink(missing_ok=True)
    results = build_dir / f"results_seed{seed}.xml"
    log = build_dir / f"sim_seed{seed}.log"
    env = {"PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")]),
           "PQSOC_FIGURES": str(figures_path)}
    try:
        runner.test(hdl_toplevel=top, test_module=test_module, build_dir=str(build_dir),
                    test_dir=str(build_dir), seed=seed, plusargs=list(plusargs), extra_env=env,
                    results_xml=str(results), log_file=str(log))
    except SystemExit as e:
        raise FlowError(f"simulation of {label or top} did not complete (exit {e.code}); log: {log}") from None
    if not results.is_file():
        raise FlowError(f"simulation of {label or top} wrote no results; log: {log}")
    cases = ET.parse(results).getroot().iter("testcase")
    tests = failed = 0
    for c in cases:
        tests += 1
        failed += any(child.tag in ("failure", "error") for child in c)
    figures = json.loads(figures_path.read_text()) if figures_path.is_file() else {}
    return SimResult(tests, failed, figures, log)
