# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""ML-DSA on the whole simulated SoC: `pqsoc mldsa keygen|sign|verify --engine soc`
(ip.acc.api's mldsa_* functions with engine="soc").

The call's inputs go into a generated header for firmware/programs/pqc_mldsa_api.c (the
firmware API, firmware/lib/pqc.c pqc_mldsa_keypair / sign / verify, with the parameter set's
program images in the simulation SoC's ROM; firmware/pqc_mldsa_layout.py api_vectors); that
firmware is built and runs on the Verilator model of the SoC (sim/soc_engine.py, shared with
sim/mlkem_soc.py), prints the outputs in hex with the ACC's cycles and the CPU's end-to-end
system clock cycle count, and this module reads them back. The result is the iss engine's dict
({"pk", "sk", "cycles"} / {"sig", "cycles", "iterations"} / {"valid", "status", "cycles"})
plus "cpu_cycles" (system clock cycles (lib/runtime.c cycles(): the uptime counter) around the API call: checks, IMEM load (the program is not
resident in a fresh run), DMEM writes, run, read-back, wipes: ML-DSA-65 keygen ~207 k,
a 3-iteration signature ~324 k, verify ~197 k CPU cycles; firmware/README.md). Slow: ~20 s
a call (firmware build and simulation) once the SoC and the model are built.
"""
from pathlib import Path

from pqsoc import BUILD
from sim.soc_engine import SocEngineError, log_stderr, run_api

OUTS = {"keygen": ("pk", "sk"), "sign": ("sig",), "verify": ()}
__all__ = ["SocEngineError", "run"]


def run(op: str, param: int, ins: dict, log=log_stderr, build_dir: Path = BUILD) -> dict:
    """One ML-DSA op on the simulated SoC. `ins`: {"xi"} / {"sk", "msg" (M') or "mu", "rnd"}
    / {"pk", "msg" or "mu", "sig"}, already checked by the caller (ip.acc.api's checks).
    Raises SocEngineError naming the failed step (a status the API returned included)."""
    from firmware import pqc_mldsa_layout as lay
    if op not in OUTS:
        raise SocEngineError(f"ML-DSA: no operation {op!r} (one of {', '.join(OUTS)})")
    request = {"op": op, "in": ins, "exp": None}
    if lay.layout(lay.request_op(param, request), param) is None:
        raise SocEngineError(f"ML-DSA-{param} has no {lay.request_op(param, request)} program")
    try:
        header = lay.api_vectors(param, [request], error_tests=False)
    except lay.LayoutError as e:
        raise SocEngineError(f"firmware build failed: {e}") from None
    tag = f"{lay.request_op(param, request)}{param}"
    call = run_api("mldsa", lay.API_PROGRAM, lay.API_HEADER, header, tag,
                   lay.request_name(param, request), log, build_dir)
    r = call.outputs(OUTS[op])
    if op == "sign":
        r["iterations"] = int(call.line["iterations"])
    elif op == "verify":
        from ip.acc.kernels.mldsa.verify import STATUS_NAMES
        word = int(call.line["status_word"])
        r = {"valid": call.line["valid"] is True,
             "status": STATUS_NAMES.get(word, str(word)), **r}
    return r
