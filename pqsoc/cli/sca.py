# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""`pqsoc sca tvla PROGRAM --engine rtl|gls --traces N [--order 1|2]`: fixed-vs-random leakage
assessment of an ACC program on its RTL or gate-level power model (ip/acc/dv/tvla.py,
ip/acc/dv/power.py, ip/acc/dv/gls_power.py; docs/side_channels.md),
or of the masked Keccak-f core (PROGRAM keccak_masked and its seeded leaks, ip/kmac/dv/tvla_keccak.py).
Writes reports/sca/PROGRAM.json (max |t| per unit and overall, the cycle and instruction of the
peak, after how many traces it first passed 4.5) and PROGRAM.png (|t| over the cycles). Exit 0
when the assessment ran (a leak is a finding, not an error: the JSON says `leaks`), 1 with
--expect-pass when it leaked or --expect-leak when it did not, 2 on bad arguments."""
import json
import sys
from pathlib import Path

from pqsoc import REPO, FlowError, positive

REPORTS = REPO / "reports" / "sca"


def tvla_cmd(a) -> int:
    from ip.acc.dv import tvla
    from pqsoc.flow import provenance
    keccak = a.program.startswith("keccak_")
    if keccak and a.model != "buses":
        raise FlowError(f"--model {a.model}: the Keccak core's power models have no buses to leave out")
    if keccak and a.cycles is not None:
        raise FlowError("--cycles: a window of an ACC program's cycles; the Keccak core's runs are one permutation")
    stamp = provenance.stamp()
    state = Path(a.state) if a.state else None
    if state is not None:
        state.parent.mkdir(parents=True, exist_ok=True)
    log = lambda m: print(m, file=sys.stderr, flush=True)     # noqa: E731
    if keccak:
        from ip.kmac.dv import tvla_keccak
        from pqsoc.sca.plot import picture
        rep, tt, units = tvla_keccak.assess(a.program, a.traces, seed=a.seed, order=a.order, log=log,
                                            batch=a.batch or (10000 if a.engine == "rtl" else 250), engine=a.engine,
                                            start=a.start, state_out=state)
        xlabel = "clock edge from the load (two per round)"
    else:
        picture = tvla.picture
        rep, tt, units = tvla.assess(a.program, a.traces, seed=a.seed, batch=a.batch or 50, order=a.order,
                                     log=log, state_out=state, start=a.start, model=a.model, engine=a.engine,
                                     cycles=a.cycles)
        xlabel = None
    rep["provenance"] = stamp
    out = Path(a.json) if a.json else REPORTS / f"{a.program}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(rep, indent=2) + "\n")
    png = picture(rep, tt, units, out.with_suffix(".png"), **({"xlabel": xlabel} if xlabel else {}))
    for o, r in rep["orders"].items():
        where = r["insn"] if keccak else f"pc {r['pc']:#x}: {r['insn']}"
        print(f"order {o}: max |t| {r['max_abs_t']} in {r['unit']} at cycle {r['cycle']} "
              f"({where}): {'LEAKS' if r['leaks'] else 'no leak'} at |t| > {rep['threshold']}")
    if rep["first_flagged_at_traces"]:
        print(f"a leak first confirmed by both halves after {rep['first_flagged_at_traces']} traces")
    print(f"wrote {out.relative_to(REPO) if out.is_relative_to(REPO) else out} and {png.name}")
    leaks = any(r["leaks"] for r in rep["orders"].values())
    if (a.expect_pass and leaks) or (a.expect_leak and not leaks):
        print(f"FAIL {a.program}: {'leaks' if leaks else 'no leak found'}, "
              f"{'--expect-pass' if a.expect_pass else '--expect-leak'} given")
        return 1
    return 0


def main(a) -> int:
    try:
        return tvla_cmd(a)
    except FlowError as exc:
        print(f"pqsoc sca: error: {exc}", file=sys.stderr)
        return 2


def add_parser(sub) -> None:
    p = sub.add_parser("sca", help="side-channel leakage assessment of ACC programs (fixed-vs-random t-test)")
    kinds = p.add_subparsers(dest="kind", required=True)
    q = kinds.add_parser("tvla", help="fixed-vs-random Welch t-test on the RTL or gate-level power model")
    q.add_argument("program", help="e.g. mlkem768_decaps_unmasked, mlkem768_decaps_control, keccak_masked")
    q.add_argument("--engine", choices=["rtl", "gls"], default="rtl",
                   help="gls: the synthesized netlist's nets (`pqsoc synth acc` or `pqsoc synth keccak_masked` first)")
    q.add_argument("--model", choices=["buses", "registers"], default="buses",
                   help="the ACC's RTL power model: every register, memory port and bus between units "
                        "(default), or without the buses")
    q.add_argument("--traces", type=positive(int), required=True)
    q.add_argument("--order", type=int, choices=[1, 2], default=1, help="2: also the second order (centred squares)")
    q.add_argument("--seed", type=int, default=1)
    q.add_argument("--batch", type=positive(int), help="traces per simulator process (default 50; the Keccak "
                   "core's model: traces per numpy batch, default 10000)")
    q.add_argument("--start", type=int, default=0, help="the first trace's number (a campaign's chunk)")
    q.add_argument("--cycles", type=positive(int),
                   help="a window: only the first CYCLES cycles of each trace (the run stopped there), to "
                        "assess a program's start with many traces at its cost")
    q.add_argument("--state", help="also save the t-test's accumulators here (.npz; a campaign merges them)")
    q.add_argument("--json", help="the report (default reports/sca/PROGRAM.json)")
    g = q.add_mutually_exclusive_group()
    g.add_argument("--expect-pass", action="store_true", help="exit 1 if it leaks")
    g.add_argument("--expect-leak", action="store_true", help="exit 1 if it does not leak")
    p.set_defaults(func=main)
