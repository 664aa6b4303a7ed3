# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""`pqsoc acc fuzz`: random programs (ip/acc/dv/rig) on the ISS and a second backend in
lockstep (ip/acc/dv/lockstep.py).

    pqsoc acc fuzz --count 1000 --seed 1 [--backend rtl|iss|gls] [--out build/acc_fuzz] [--kmac]

Backends: the RTL (ip/acc/dv/rtl_runner.py), a second ISS (a harness check) and `gls`: the same
harness on the synthesized netlist (`pqsoc synth acc`; ip/acc/dv/gls.py acc_backend) with
random initial state --x-seed, at the block's memory sizes.
"""
import argparse
import json
import sys
import time
from pathlib import Path

from ip.acc import block as acc_block
from ip.acc.dv.lockstep import IssBackend, fuzz
from ip.acc.dv.rig import FuzzConfig
from pqsoc.flow import provenance

# The memories of a fuzz run on the RTL or the ISS unless given (programs stay small: the random
# program generator's sizes; the gate-level backend has the netlist's).
DEFAULT_MEM = 2048


def _rtl_backend(imem_size: int, dmem_size: int):
    try:
        from ip.acc.dv.rtl_runner import make_rtl_backend
    except ImportError as exc:
        raise SystemExit(f"error: the RTL backend is not available: cannot import "
                         f"ip.acc.dv.rtl_runner.make_rtl_backend ({exc})") from None
    return make_rtl_backend(imem_size, dmem_size)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="pqsoc acc fuzz",
                                 description="random ACC programs, ISS vs a second backend in lockstep")
    ap.add_argument("--count", type=int, default=100)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--start", type=int, default=0, help="first program index (replay: --start I --count 1)")
    ap.add_argument("--backend", choices=["rtl", "iss", "gls"], default="rtl",
                    help="compared against the ISS; iss = a second, independent ISS (harness check); "
                         "gls = the synthesized netlist (gate level, `pqsoc synth acc` first)")
    ap.add_argument("--x-seed", type=int, default=1,
                    help="gls: seed of the random initial state (flops and SRAM contents)")
    ap.add_argument("--out", default="build/acc_fuzz", help="failing programs go here (.s, .hex, .dmem)")
    ap.add_argument("--kmac", action="store_true", help="also generate kmac / smp instructions")
    ap.add_argument("--imem-size", type=int, default=None, help=f"default {DEFAULT_MEM}; gls: the netlist's")
    ap.add_argument("--dmem-size", type=int, default=None, help=f"default {DEFAULT_MEM}; gls: the netlist's")
    ap.add_argument("--max-cycles", type=int, default=20_000)
    ap.add_argument("--error-fraction", type=float, default=0.25)
    ap.add_argument("--show", type=int, default=3, help="failures printed in full")
    ap.add_argument("--json", help="also write the figures (counts, rates) to this JSON file")
    a = ap.parse_args(argv)
    if a.backend == "gls":
        ACC_IMEM, ACC_DMEM = acc_block.IMEM_SIZE, acc_block.DMEM_SIZE
        for opt, v, size in (("--imem-size", a.imem_size, ACC_IMEM), ("--dmem-size", a.dmem_size, ACC_DMEM)):
            if v not in (None, size):
                print(f"error: the netlist's memory is {size} bytes; {opt} {v} does not apply to --backend gls",
                      file=sys.stderr)
                return 2
        a.imem_size, a.dmem_size = ACC_IMEM, ACC_DMEM
    a.imem_size = a.imem_size or DEFAULT_MEM
    a.dmem_size = a.dmem_size or DEFAULT_MEM
    cfg = FuzzConfig(imem_size=a.imem_size, dmem_size=a.dmem_size, max_cycles=a.max_cycles,
                     error_fraction=a.error_fraction, kmac=a.kmac)
    ref = IssBackend(a.imem_size, a.dmem_size)
    if a.backend == "iss":
        dut = IssBackend(a.imem_size, a.dmem_size)
    elif a.backend == "gls":
        from pqsoc import FlowError
        try:
            from ip.acc.dv.gls import acc_backend
            dut = acc_backend(a.x_seed, log=lambda m: print(m, file=sys.stderr, flush=True))
            dut.build()
        except FlowError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2
    else:
        try:
            dut = _rtl_backend(a.imem_size, a.dmem_size)
        except SystemExit as exc:
            print(exc, file=sys.stderr)
            return 2
    every = max(1, min(50, a.count // 10))
    stamp = provenance.stamp()      # the design as the run starts (tapeout.json's staleness rule)
    t0 = time.monotonic()

    def progress(done, p, f):
        if done % every == 0 or done == a.count:
            print(f"[{done}/{a.count}] {p} passed, {f} failed ({time.monotonic() - t0:.1f} s)",
                  file=sys.stderr, flush=True)

    passed, failed, failures = fuzz(a.count, a.seed, ref, dut, cfg, progress=progress, start=a.start)
    out = Path(a.out)
    for k, fl in enumerate(failures):
        stem = fl.write(out)
        if k < a.show:
            print(f"FAIL seed {fl.seed} index {fl.index} ({fl.program.desc}): {stem}.s")
            for d in fl.diffs:
                print(f"    {d}")
    if len(failures) > a.show:
        print(f"... {len(failures) - a.show} more failures written to {out}/")
    if a.json:
        secs = time.monotonic() - t0
        fig = {"programs": passed + failed, "passed": passed, "failed": failed, "seed": a.seed,
               "backend": a.backend, "kmac": a.kmac, "seconds": round(secs, 1),
               "programs_per_s": round((passed + failed) / secs, 1) if secs else None}
        if hasattr(dut, "sim_cycles"):
            fig["rtl_cycles_simulated"] = dut.sim_cycles
        if a.backend == "gls":
            fig["x_seed"] = a.x_seed
            fig["imem_size"], fig["dmem_size"] = a.imem_size, a.dmem_size
        fig["provenance"] = stamp
        Path(a.json).parent.mkdir(parents=True, exist_ok=True)
        Path(a.json).write_text(json.dumps(fig, indent=2) + "\n")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
