"""ML-KEM on the whole simulated SoC: `pqsoc mlkem keygen|encaps|decaps --engine soc`.

The call's inputs go into a generated header for firmware/programs/pqc_mlkem_api.c (the
firmware API, firmware/lib/pqc.c, with the parameter set's program images in the simulation
SoC's 128 KiB ROM; firmware/pqc_layout.py api_vectors); that firmware is built, runs on the
Verilator model of the SoC (Ibex + KMAC + ACC RTL, sim/run.py; model cached in build/sim/model),
prints the outputs in hex with the ACC's cycles and the CPU's end-to-end mcycle count, and this
module reads them back. An input the program's FIPS 203 section 7 check refuses (its status
word) raises SocEngineError with ip/acc/kernels/mlkem/status.py's message ("ek check failed:
...", "dk check failed: ...") as ip.acc.api does. Same results as ip.acc.api's engines (iss, rtl); "cycles" = ACC
cycles (CYCLES register), "cpu_cycles" = mcycle around the API call (checks, IMEM load, DMEM
writes, run, read-back, wipes). Slow: the SoC and the model are (re)built when stale, then
~1-2 M simulated cycles per call.
"""
import sys
import time
from pathlib import Path

from pqsoc import BUILD

OUTS = {"keygen": ("ek", "dk"), "encaps": ("K", "c"), "decaps": ("K",)}
MAX_CYCLES = 20_000_000
TIMEOUT_S = 900.0


_BUILT = set()   # SoC folders built by this process (the SoC build takes ~10 s)


class SocEngineError(Exception):
    """A step of the SoC engine failed (build, simulation, parsing): the message names it."""


def _log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def run(op: str, param: int, ins: tuple[bytes, bytes], log=_log, build_dir: Path = BUILD) -> dict:
    """One ML-KEM op on the simulated SoC. `ins`: (d, z) / (ek, m) / (dk, c), lengths already
    checked by the caller (ip.acc.api's checks). Returns {output name: bytes, "cycles",
    "cpu_cycles"}; raises SocEngineError naming the failed step and its log."""
    from firmware import build as fw
    from firmware import pqc_layout
    from sim import run as simrun
    from soc.build import build as soc_build
    if pqc_layout.layout(op, param) is None:
        raise SocEngineError(f"ML-KEM-{param} has no {op} program")
    t0 = time.monotonic()

    def step(msg):
        log(f"mlkem soc: [{time.monotonic() - t0:5.1f} s] {msg}")

    soc_dir = build_dir / "soc"
    if soc_dir not in _BUILT:
        step(f"SoC build (LiteX; unchanged files kept) into {soc_dir}")
        try:
            soc_build(soc_dir)
        except Exception as e:   # LiteX / Amaranth raise many kinds
            raise SocEngineError(f"SoC build failed: {e}") from None
        _BUILT.add(soc_dir)
    step(f"firmware pqc_mlkem_api with the ML-KEM-{param} {op} images and inputs")
    out = build_dir / "firmware" / "mlkem_soc" / f"{op}{param}"
    try:
        header = pqc_layout.api_vectors(param, [{"op": op, "in": ins, "exp": None}], error_tests=False)
        fw_bin = fw.build(pqc_layout.API_PROGRAM, soc_dir, out, headers={pqc_layout.API_HEADER: header})
    except (fw.FirmwareError, pqc_layout.LayoutError) as e:
        raise SocEngineError(f"firmware build failed: {e}") from None
    model_dir = build_dir / "sim" / "model"
    step(f"Verilator model of the SoC (cached in {model_dir}; a fresh build takes minutes)")
    run_dir = build_dir / "sim" / "runs" / f"mlkem_soc_{op}{param}"
    try:
        simrun.build_model(soc_dir, model_dir, log=lambda m: step(m))
        step(f"simulating (UART log {run_dir / 'uart.log'})")
        res = simrun.run(fw_bin, soc_dir, model_dir, run_dir, MAX_CYCLES, TIMEOUT_S)
    except simrun.SimError as e:
        raise SocEngineError(f"simulation failed: {e}") from None
    step(f"done: {res.cycles} SoC cycles in {res.wall_s:.1f} s")
    name = f"mlkem{param}_{op}"
    lines = [t for t in res.tests if t["test"] == name]
    if len(lines) == 1 and lines[0].get("status") in ("EK_INVALID", "DK_HASH_MISMATCH", "STATUS"):
        # the program's FIPS 203 section 7 input check (its status word) refused the input
        from ip.acc.kernels.mlkem import status
        raise SocEngineError(f"{name}: {status.message(lines[0].get('status_word', 0))}")
    if not res.ok:
        status = f"the API returned {lines[0].get('status')}, ERR_BITS {lines[0].get('err_bits')}; " \
            if len(lines) == 1 else ""
        raise SocEngineError(f"the SoC run failed: {status}{'; '.join(res.problems)}; "
                             f"UART log {run_dir / 'uart.log'}")
    if len(lines) != 1:
        raise SocEngineError(f"the firmware printed {len(lines)} result lines for {name}; "
                             f"UART log {run_dir / 'uart.log'}")
    t = lines[0]
    r = {}
    try:
        for k in OUTS[op]:
            r[k] = bytes.fromhex(t[k])
    except (KeyError, ValueError):
        raise SocEngineError(f"{name}: output {k!r} missing or not hex in the firmware's line; "
                             f"UART log {run_dir / 'uart.log'}") from None
    r["cycles"] = t["cycles"]
    r["cpu_cycles"] = int(t["cpu_cycles"])
    return r
