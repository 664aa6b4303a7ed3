# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""LibreLane's own steps before place-and-route, run by LibreLane on this machine.

The Classic flow starts with steps that need no OpenROAD: Verilator.Lint and its three checkers
(each a stop on error), Yosys.JsonHeader (the design read as synthesis reads it: `read_slang`
with the configuration's include folders and defines, `hierarchy -check`), and
OpenROAD.CheckSDCFiles (which only reads the configuration). `pqsoc pnr check` runs exactly those
steps, as a SequentialFlow of LibreLane's step classes with the configuration LibreLane's loader
resolved, so what fails here fails at the start of `make harden`.

The one substitution: LibreLane starts its Yosys scripts as `yosys -y SCRIPT -- ARGS`, and no
`yosys` executable with Python is installed here; its scripts import `pyosys.libyosys`, which the
pinned PyPI package pyosys provides. LibreLane's override `_LLN_OVERRIDE_YOSYS` (and PATH, for its
toolbox's `yosys -p` black-boxing of cell models) names a shim that runs the same script or
commands with the same arguments in this Python (yosys_shim). Verilator is
Debian's 5.006 (the Nix shell brings a newer one): a lint finding only a newer Verilator reports
is left for the real run.

With `synth`, the steps run on to the OpenROAD boundary: Yosys.Synthesis (LibreLane's own script,
its SYNTH_STRATEGY's ABC script) and its three checkers, then CheckSDCFiles: the Classic flow's
first ten steps, everything before OpenROAD.CheckMacroInstances. Its netlist's area is what the
real run places, which `pqsoc synth` (the project's own ABC script, the figure the floorplan is
planned with) only estimates. Of a small block it takes under a minute; of the wrapper, hours
(on 2 cores its DELAY 1 ABC ran past 80 minutes and 9.8 GB without finishing), so neither CI nor
`make report` runs it: `pqsoc pnr check caravel --synth` does, by hand.
"""
import os
import stat
import sys
from pathlib import Path

from pqsoc import BUILD, FlowError

# the Classic flow's first five steps, then its one step before Floorplan that reads only the
# configuration (the synthesis and its checkers in between are `pqsoc synth`'s part)
FIRST_STEPS = ("Verilator.Lint", "Checker.LintTimingConstructs", "Checker.LintErrors",
               "Checker.LintWarnings", "Yosys.JsonHeader")
STEP_IDS = (*FIRST_STEPS, "OpenROAD.CheckSDCFiles")
# with synth: the synthesis and its checkers too (the Classic flow's order)
SYNTH_STEPS = ("Yosys.Synthesis", "Checker.YosysUnmappedCells", "Checker.YosysSynthChecks",
               "Checker.NetlistAssignStatements")

SHIM = '''#!{python}
"""`yosys` as LibreLane starts it, on pyosys in this Python (written by pqsoc/flow/prepnr.py):
`-y SCRIPT [-Q] [-q] -- ARGS` (its Yosys steps) runs SCRIPT with ARGS; `-p COMMANDS` (its
toolbox's black-box models for the linter) runs COMMANDS on an empty design."""
import os, runpy, sys
args = sys.argv[1:]
if "-y" in args and "--" in args:
    script = args[args.index("-y") + 1]
    sys.argv = [script, *args[args.index("--") + 1:]]
    sys.path.insert(0, os.path.dirname(script))
    runpy.run_path(script, run_name="__main__")
elif args[:1] == ["-p"] and len(args) == 2:
    from pyosys import libyosys as ys
    ys.run_pass(args[1], ys.Design())
else:
    sys.exit("pqsoc yosys shim: only LibreLane's `-y SCRIPT ... -- ARGS` and `-p COMMANDS` forms")
'''


def yosys_shim(folder: Path) -> Path:
    """The `yosys` stand-in (see the module docstring) in folder."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "yosys"
    path.write_text(SHIM.format(python=sys.executable))
    path.chmod(path.stat().st_mode | stat.S_IEXEC | stat.S_IXGRP | stat.S_IXOTH)
    return path


def steps(synth: bool = False):
    """LibreLane's step classes, in the Classic flow's order (checked against it); synth: the
    synthesis and its checkers before CheckSDCFiles."""
    from librelane.flows import Flow
    from librelane.steps import Step
    ids = [s.id for s in Flow.factory.get("Classic").Steps]
    if ids[:len(FIRST_STEPS)] != list(FIRST_STEPS) or ids.index("OpenROAD.CheckSDCFiles") > ids.index("OpenROAD.Floorplan"):
        raise FlowError(f"LibreLane's Classic flow no longer starts with {', '.join(FIRST_STEPS)} "
                        f"and checks the SDC files before Floorplan: it starts {', '.join(ids[:8])}")
    if not synth:
        return [Step.factory.get(i) for i in STEP_IDS]
    want = [*FIRST_STEPS, *SYNTH_STEPS, "OpenROAD.CheckSDCFiles"]
    if ids[:len(want)] != want:
        raise FlowError(f"LibreLane's Classic flow no longer runs {', '.join(want)} first: it starts "
                        f"{', '.join(ids[:len(want)])}")
    return [Step.factory.get(i) for i in want]


def synth_area(run_dir: Path) -> dict | None:
    """The netlist's figures from a run's Yosys.Synthesis reports (stat.json, Yosys' `stat -json`
    with the Liberty): {'cells', 'area_um2', 'step_dir', 'cells_by_type', 'invocation' (the stat
    command: which Liberty files gave the areas)}; None when the step did not report."""
    import json
    for d in sorted(Path(run_dir).glob("*-yosys-synthesis")):
        f = d / "reports" / "stat.json"
        if f.is_file():
            data = json.loads(f.read_text())
            design = data["design"]
            return {"cells": design["num_cells"], "area_um2": float(design["area"]), "step_dir": d,
                    "cells_by_type": design.get("num_cells_by_type", {}),
                    "invocation": data.get("invocation", "")}
    return None


def run(name: str, config_file: Path, pdk_root: Path, pdk: str, scl: str,
        out: Path | None = None, synth: bool = False) -> dict:
    """LibreLane's pre-PnR steps on one configuration file (synth: with its synthesis). Returns
    {'ok': bool, 'steps': [(id, 'passed' | 'failed' | 'not reached')], 'error': str | None,
    'warnings': [str], 'run_dir': Path, 'synth': synth_area's figures or None}. A step that fails
    stops the flow, as in a real run."""
    import logging
    from librelane.flows import SequentialFlow
    from librelane.flows.flow import FlowError as LLFlowError
    from librelane.logging import (deregister_additional_handler, get_log_level, options,
                                   register_additional_handler, set_log_level)
    out = out or BUILD / "pnr_check" / name / "librelane"
    shim = yosys_shim(BUILD / "pnr_check" / "bin")
    classes = steps(synth)

    class PrePnR(SequentialFlow):
        Steps = classes

    warnings: list[str] = []

    class Collect(logging.Handler):
        def emit(self, record):
            if record.levelno >= logging.WARNING:
                warnings.append(record.getMessage())

    handler = Collect()
    register_additional_handler(handler)
    # LibreLane's own console output down to its warnings, no progress bar: the steps' logs are
    # in the run folder, and `pqsoc pnr check` prints one line a step
    level, bar = get_log_level(), options.get_show_progress_bar()
    set_log_level("WARNING")
    options.set_show_progress_bar(False)
    saved = {k: os.environ.get(k) for k in ("_LLN_OVERRIDE_YOSYS", "PATH")}
    os.environ["_LLN_OVERRIDE_YOSYS"] = str(shim)
    os.environ["PATH"] = f"{shim.parent}{os.pathsep}{saved['PATH'] or ''}"
    error = None
    try:
        flow = PrePnR(str(config_file), pdk_root=str(pdk_root), pdk=pdk, scl=scl)
        flow.start(_force_run_dir=str(out), overwrite=True)
    except LLFlowError as e:
        error = str(e)
    finally:
        deregister_additional_handler(handler)
        set_log_level(level)
        options.set_show_progress_bar(bar)
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
    states = []
    for k, cls in enumerate(classes):
        # step folders are numbered from 1, zero-padded when there are ten or more
        folder = next((d for d in (out.iterdir() if out.is_dir() else ())
                       if d.is_dir() and d.name.split("-", 1)[0].isdigit()
                       and int(d.name.split("-", 1)[0]) == k + 1), None)
        if folder is None:
            states.append((cls.id, "not reached"))
        elif (folder / "state_out.json").is_file():
            states.append((cls.id, "passed"))
        else:
            states.append((cls.id, "failed"))
    return {"ok": error is None and all(s == "passed" for _, s in states), "steps": states,
            "error": error, "warnings": warnings, "run_dir": out,
            "synth": synth_area(out) if synth else None}
