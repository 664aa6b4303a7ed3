# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""ML-KEM on the whole simulated SoC: `pqsoc mlkem keygen|encaps|decaps --engine soc`.

The call's inputs go into a generated header for firmware/programs/pqc_mlkem_api.c (the
firmware API, firmware/lib/pqc.c, with the parameter set's program images in the simulation
SoC's 128 KiB ROM; firmware/pqc_layout.py api_vectors); that firmware is built, runs on the
Verilator model of the SoC (Ibex + KMAC + ACC RTL, sim/run.py; model cached in build/sim/model),
prints the outputs in hex with the ACC's cycles and the end-to-end system clock cycle count, and this
module reads them back. An input the program's FIPS 203 section 7 check refuses (its status
word) raises SocEngineError with ip/acc/kernels/mlkem/status.py's message ("ek check failed:
...", "dk check failed: ...") as ip.acc.api does. Same results as ip.acc.api's engines (iss, rtl); "cycles" = ACC
cycles (CYCLES register), "cpu_cycles" = system clock cycles (lib/runtime.c cycles(): the uptime counter) around the API call (checks, IMEM load, DMEM
writes, run, read-back, wipes). Slow: the SoC and the model are (re)built when stale, then
~1-2 M simulated cycles per call. The build / run / parse steps: sim/soc_engine.py (shared with
sim/mldsa_soc.py).
"""
from pathlib import Path

from pqsoc import BUILD
from sim.soc_engine import SocEngineError, log_stderr, run_api

OUTS = {"keygen": ("ek", "dk"), "encaps": ("K", "c"), "decaps": ("K",), "decaps_masked": ("K0", "K1")}
__all__ = ["SocEngineError", "run"]


def run(op: str, param: int, ins: tuple[bytes, bytes], log=log_stderr, build_dir: Path = BUILD,
        drbg_seed: bytes | None = None) -> dict:
    """One ML-KEM op on the simulated SoC. `ins`: (d, z) / (ek, m) / (dk, c) / (mdk, c), lengths
    already checked by the caller (ip.acc.api's checks); drbg_seed (48 bytes): the firmware's
    DRBG instantiated from it first (decaps_masked draws its masks there). Returns {output
    name: bytes, "cycles", "cpu_cycles"}; raises SocEngineError naming the failed step and its
    log."""
    from firmware import pqc_layout
    if pqc_layout.layout(op, param) is None:
        raise SocEngineError(f"ML-KEM-{param} has no {op} program")
    try:
        header = pqc_layout.api_vectors(param, [{"op": op, "in": ins, "exp": None}], error_tests=False,
                                        drbg_seed=drbg_seed)
    except pqc_layout.LayoutError as e:
        raise SocEngineError(f"firmware build failed: {e}") from None
    call = run_api("mlkem", pqc_layout.API_PROGRAM, pqc_layout.API_HEADER, header,
                   f"{op}{param}", f"mlkem{param}_{op}", log, build_dir)
    if call.line is not None and call.line.get("status") in ("EK_INVALID", "DK_HASH_MISMATCH", "STATUS"):
        # the program's FIPS 203 section 7 input check (its status word) refused the input
        from ip.acc.kernels.mlkem import status
        raise SocEngineError(f"{call.name}: {status.message(call.line.get('status_word', 0))}")
    return call.outputs(OUTS[op])
