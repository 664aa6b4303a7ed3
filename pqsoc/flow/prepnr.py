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

Yosys.Synthesis (the next step) is not run here: `pqsoc synth` is the project's synthesis with
the same recipe, and a full LibreLane synthesis of the wrapper takes longer than CI allows.
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


def steps():
    """LibreLane's step classes, in the Classic flow's order (checked against it)."""
    from librelane.flows import Flow
    from librelane.steps import Step
    ids = [s.id for s in Flow.factory.get("Classic").Steps]
    if ids[:len(FIRST_STEPS)] != list(FIRST_STEPS) or ids.index("OpenROAD.CheckSDCFiles") > ids.index("OpenROAD.Floorplan"):
        raise FlowError(f"LibreLane's Classic flow no longer starts with {', '.join(FIRST_STEPS)} "
                        f"and checks the SDC files before Floorplan: it starts {', '.join(ids[:8])}")
    return [Step.factory.get(i) for i in STEP_IDS]


def run(name: str, config_file: Path, pdk_root: Path, pdk: str, scl: str,
        out: Path | None = None) -> dict:
    """LibreLane's pre-PnR steps on one configuration file. Returns {'ok': bool, 'steps': [(id,
    'passed' | 'failed' | 'not reached')], 'error': str | None, 'warnings': [str], 'run_dir': Path}.
    A step that fails stops the flow, as in a real run."""
    import logging
    from librelane.flows import SequentialFlow
    from librelane.flows.flow import FlowError as LLFlowError
    from librelane.logging import (deregister_additional_handler, get_log_level, options,
                                   register_additional_handler, set_log_level)
    out = out or BUILD / "pnr_check" / name / "librelane"
    shim = yosys_shim(BUILD / "pnr_check" / "bin")
    classes = steps()

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
        folder = next((d for d in (out.iterdir() if out.is_dir() else ())
                       if d.is_dir() and d.name.startswith(f"{k + 1}-")), None)
        if folder is None:
            states.append((cls.id, "not reached"))
        elif (folder / "state_out.json").is_file():
            states.append((cls.id, "passed"))
        else:
            states.append((cls.id, "failed"))
    return {"ok": error is None and all(s == "passed" for _, s in states), "steps": states,
            "error": error, "warnings": warnings, "run_dir": out}
