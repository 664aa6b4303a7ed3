"""Verilator + cocotb runs of a block, shared by RTL and gate-level simulation.

The same cocotb test module drives the emitted RTL and the synthesized netlist, so both are held
to the same checks; each run writes the cycle counts it measured to a JSON file that the caller
compares across runs.
"""
import json
import os
import warnings
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path

from pqsoc import REPO, FlowError

VERILATOR_ARGS = ["-Wno-fatal", "-Wno-lint", "-Wno-style", "-Wno-CASEINCOMPLETE", "-Wno-MULTIDRIVEN",
                  "-Wno-UNOPTFLAT"]


@dataclass
class SimResult:
    tests: int
    failed: int
    figures: dict
    log: Path


def run_cocotb(*, sources: list[Path], top: str, test_module: str, build_dir: Path,
               build_args: list[str] = (), plusargs: list[str] = (), seed: int = 1,
               label: str = "", cxx: str | None = None) -> SimResult:
    """cxx: the C++ compiler of the model instead of verilated.mk's (gate level: clang)."""
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
