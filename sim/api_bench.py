# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""End to end from the firmware API (issues 23 and 24): firmware/programs/pqc_mlkem_api.c and
pqc_mldsa_api.c on the simulation SoC, each op called twice (loading, then resident), their
known-answer checks included (a failed one fails the run). Returns, per op, the ACC's cycles
(CYCLES register, = ISS), the system clock cycles of the call with the program loaded first
and resident, and resident / ACC: the figures `make report` puts into reports/ppa.json
(block soc's benchmark, pqsoc/cli/blocks.py). Also the CPU-side calls, in system clock cycles
(CALLS): the ML-KEM-768 key checks (the slowest of NIST's keyCheck cases in
programs/pqc_keycheck.c), the DRBG's instantiate + 32-byte generate (programs/drbg_kat.c) and
the mu stream of a 10 000-byte M' (pqc_mldsa_api.c). The simulation SoC is the silicon SoC's
logic with behavioural memories (a 128 KiB ROM, 32 KiB ACC memories, soc/target.py)."""
import re

from pqsoc import BUILD

PROGRAMS = ("pqc_mlkem_api", "pqc_mldsa_api", "pqc_keycheck", "drbg_kat")
OPS = ("mlkem768_keygen", "mlkem768_encaps", "mlkem768_decaps",
       "mldsa65_keygen", "mldsa65_sign", "mldsa65_sign_mu", "mldsa65_verify")
# CPU-side calls: figure -> the result lines that time it (the largest of them is the figure)
CALLS = {"sim_soc_mlkem768_check_ek_cycles": r"mlkem768_check_ek_tg\d+_tc\d+",
         "sim_soc_mlkem768_check_dk_cycles": r"mlkem768_check_dk_tg\d+_tc\d+",
         "sim_soc_drbg_instantiate_generate32_cycles": r"drbg_instantiate_generate32",
         "sim_soc_mldsa65_mu_stream_10000B_cycles": r"api_mu_stream"}


class ApiBenchError(Exception):
    """A run failed or printed no figures for an op: the message names it."""


def figures(tests: list[dict]) -> dict:
    """The per-op figures from a run's result lines (name -> line; "<op>_resident" the second
    call of op)."""
    by_name = {t["test"]: t for t in tests}
    out = {}
    for op in OPS:
        first, again = by_name.get(op), by_name.get(op + "_resident")
        if first is None or again is None:
            continue
        acc, resident = first["cycles"], int(again["cpu_cycles"])
        if again["cycles"] != acc:
            raise ApiBenchError(f"{op}: ACC cycles differ between the calls ({acc}, {again['cycles']})")
        out[f"sim_soc_{op}_acc_cycles"] = acc
        out[f"sim_soc_{op}_loading_cycles"] = int(first["cpu_cycles"])
        out[f"sim_soc_{op}_resident_cycles"] = resident
        out[f"sim_soc_{op}_resident_over_acc"] = round(resident / acc, 3)
    for figure, pattern in CALLS.items():
        timed = [int(t["cycles"]) for t in tests if re.fullmatch(pattern, t["test"]) and t["pass"]]
        if timed:
            out[figure] = max(timed)
    return out


def measure(log=print) -> dict:
    from firmware import build as fw
    from sim import run as simrun
    from soc.build import build as soc_build
    soc_dir = BUILD / "soc"
    soc_build(soc_dir)
    model_dir = BUILD / "sim" / "model"
    simrun.build_model(soc_dir, model_dir)
    out = {}
    for name in PROGRAMS:
        log(f"[api bench] {name} on the simulation SoC")
        binf = fw.build(name, soc_dir, BUILD / "firmware")
        res = simrun.run(binf, soc_dir, model_dir, BUILD / "sim" / "runs" / f"bench_{name}",
                         20_000_000, 900.0)
        if not res.ok:
            raise ApiBenchError(f"{name}: the run failed: {'; '.join(res.problems)}")
        out.update(figures(res.tests))
    missing = [op for op in OPS if f"sim_soc_{op}_resident_cycles" not in out] + \
        [f for f in CALLS if f not in out]
    if missing:
        raise ApiBenchError(f"no figures for {', '.join(missing)}")
    return out
