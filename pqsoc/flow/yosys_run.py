# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""Run a Yosys script through pyosys in this process: `python -m pqsoc.flow.yosys_run SCRIPT`.

A Yosys ERROR ends the whole process, so the flow runs this module in a subprocess of its own.
Before each command it prints a `@@step N: CMD` marker, so the parent can name the failing step,
and after it `@@time N: S s` (where a long flow step spends its time).
"""
import sys
import time


def main() -> int:
    from pyosys import libyosys as ys
    script = open(sys.argv[1]).read().splitlines()
    design = ys.Design()
    for n, line in enumerate(script, 1):
        cmd = line.strip()
        if not cmd or cmd.startswith("#"):
            continue
        print(f"@@step {n}: {cmd}", flush=True)
        t0 = time.monotonic()
        ys.run_pass(cmd, design)
        sys.stdout.flush()
        print(f"@@time {n}: {time.monotonic() - t0:.1f} s", flush=True)
    print("@@done", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
