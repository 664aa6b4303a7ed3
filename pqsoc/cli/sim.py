# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""`pqsoc sim build` and `pqsoc sim run`: the full-system Verilator simulation of the SoC."""
import json
import shutil
import sys
from pathlib import Path

from pqsoc import BUILD, FlowError, positive
from pqsoc.cli.soc import SOC_DIR

MODEL_DIR = BUILD / "sim" / "model"
TRACE_MODEL_DIR = BUILD / "sim" / "model-trace"
RUNS_DIR = BUILD / "sim" / "runs"


def _log(msg):
    print(msg, file=sys.stderr)


def _build(args):
    from sim import run as simrun
    try:
        exe = simrun.build_model(SOC_DIR, TRACE_MODEL_DIR if args.trace else MODEL_DIR,
                                 trace=args.trace, log=_log)
    except simrun.SimError as e:
        raise FlowError(str(e)) from None
    print(f"sim: model {exe}", flush=True)
    return 0


def _serve_bridge(args, fw, run_dir, echo):
    """Runs the firmware with the bring-up UART on a TCP port until the client disconnects
    (or Ctrl-C, or a limit)."""
    from sim import run as simrun
    with simrun.serve_bridge(fw, SOC_DIR, MODEL_DIR, run_dir, args.max_cycles, args.timeout_s,
                             port=args.bridge_tcp, echo=echo, log=_log) as b:
        _log(f"sim: bring-up bridge on {b.url} (e.g. `pqsoc bringup {b.url}`); the simulation "
             f"ends when the client disconnects")
        try:
            b.wait()
        except KeyboardInterrupt:   # the model got the Ctrl-C too and ends by itself
            pass
    return b.result


def _port(text):
    v = int(text)
    if not 0 <= v <= 65535:
        raise ValueError(text)
    return v


def _run(args):
    from pqsoc.flow import provenance
    from sim import run as simrun
    stamp = provenance.stamp()      # the design as the run starts (tapeout.json's staleness rule)
    fw = Path(args.firmware)
    run_dir = RUNS_DIR / fw.stem
    echo = lambda line: print(line, flush=True)   # noqa: E731
    if args.bridge_tcp is not None and args.trace:
        raise FlowError("--bridge-tcp and --trace cannot be combined")
    try:
        if args.bridge_tcp is not None:
            res = _serve_bridge(args, fw, run_dir, echo)
        else:
            res = simrun.run(fw, SOC_DIR, TRACE_MODEL_DIR if args.trace else MODEL_DIR, run_dir,
                             args.max_cycles, args.timeout_s, echo=echo, log=_log, trace=args.trace)
    except simrun.SimError as e:
        raise FlowError(str(e)) from None
    if args.log:
        shutil.copy(run_dir / "uart.log", args.log)
    if args.json:
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        Path(args.json).write_text(json.dumps({
            "firmware": fw.name, "ok": res.ok, "end": res.reason, "cycles": res.cycles,
            "wall_s": round(res.wall_s, 3), "cycles_per_s": round(res.cycles_per_s),
            "cpu_s": round(res.cpu_s, 3), "cycles_per_cpu_s": round(res.cycles_per_cpu_s),
            "tests": res.tests, "summary": res.summary, "problems": res.problems,
            "provenance": stamp}, indent=2) + "\n")
    _log(f"sim: {res.cycles} cycles in {res.wall_s:.2f} s ({res.cycles_per_s / 1e6:.2f} M cycles/s; "
         f"{res.cycles_per_cpu_s / 1e6:.2f} M per CPU second), "
         f"end: {res.reason}; UART log {run_dir / 'uart.log'}")
    for p in res.problems:
        _log(f"sim: FAIL: {p}")
    if res.ok:
        n = len(res.tests)
        _log(f"sim: PASS ({n} test{'s' * (n != 1)})")
    return 0 if res.ok else 1


def _caravel(args):
    """Each program booted by the management core's model on the wrapper's RTL."""
    import logging
    logging.basicConfig(level=logging.WARNING, format="%(name)s: %(message)s")
    from sim import caravel as csim
    from firmware.build import FirmwareError
    try:
        exe, e = csim.rtl_model(log=_log)
        fws = csim.firmware(args.programs, e["soc_dir"])
    except FirmwareError as err:
        raise FlowError(str(err)) from None
    results, ok = [], True
    for fw in fws:
        _log(f"sim caravel: {fw.stem}: loaded over the management Wishbone, CPU released")
        res = csim.run(exe, fw, e["soc_dir"], BUILD / "sim" / "caravel" / fw.stem, max_cycles=args.max_cycles,
                       echo=lambda line: print(line, flush=True))
        for p in res.problems:
            _log(f"sim caravel: {fw.stem}: FAIL: {p}")
        ok &= res.ok
        results.append({"firmware": fw.name, "ok": res.ok, "end": res.reason, "cycles": res.cycles,
                        "tests": res.tests, "problems": res.problems})
    if args.json:
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        Path(args.json).write_text(json.dumps({"top": "user_project_wrapper (RTL; sim/caravel.py)",
                                               "runs": results}, indent=2) + "\n")
    return 0 if ok else 1


def add_subcommands(sub) -> None:
    p = sub.add_parser("sim", help="full-system Verilator simulation of the SoC")
    s = p.add_subparsers(dest="sim_cmd", required=True)
    b = s.add_parser("build", help="build (or reuse) the Verilator model of build/soc/")
    b.add_argument("--trace", action="store_true", help="build the slower model that can dump VCD")
    b.set_defaults(func=_build)
    r = s.add_parser("run", help="run a firmware image; non-zero exit on any failure")
    r.add_argument("firmware", help="firmware image (.bin; a .elf next to it is used for PC lookup)")
    r.add_argument("--max-cycles", type=positive(int), default=50_000_000,
                   help="simulated cycle limit (default 50M)")
    r.add_argument("--timeout-s", type=positive(float), default=300.0,
                   help="wall-clock limit in seconds (default 300)")
    r.add_argument("--log", help="also copy the UART output to this file")
    r.add_argument("--json", help="write the result (tests with cycles, speed, problems) to this file")
    r.add_argument("--bridge-tcp", type=_port, metavar="PORT",
                   help="serve the bring-up UART on 127.0.0.1:PORT (0: a free port, printed) for "
                        "one client such as `pqsoc bringup socket://127.0.0.1:PORT`; the "
                        "simulation ends when it disconnects")
    r.add_argument("--trace", metavar="FILE.vcd",
                   help="dump waveforms (uses a separate, slower model built with --trace)")
    r.set_defaults(func=_run)
    c = s.add_parser("caravel", help="boot programs through Caravel's management Wishbone on the "
                                     "user_project_wrapper's RTL (needs CARAVEL_ROOT)")
    c.add_argument("programs", nargs="+", help="firmware program names (firmware/programs/NAME.c)")
    c.add_argument("--max-cycles", type=positive(int), default=5_000_000,
                   help="simulated cycle limit per program (default 5M)")
    c.add_argument("--json", help="write the results to this file")
    c.set_defaults(func=_caravel)
