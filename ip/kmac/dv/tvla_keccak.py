# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""Fixed-vs-random t-test of the masked Keccak-f core (`pqsoc sca tvla keccak_masked`).

Power models, per clock edge from the load of a permutation's input to its last edge:
- engine rtl: the Hamming distance of each of the core's registers (s0, s1: the state shares;
  c0, c1: the registered cross terms) and their sum (`all`, what one supply pin sees). The
  registers' values come from the cycle model (ip/kmac/model/masked_keccak.py), which equals the
  RTL register for register in every cycle (ip/kmac/tests/test_keccak_masked.py), so these are
  the RTL power model's figures for this core (ip/acc/dv/power.py counts the same for the ACC);
  the model runs a whole batch of traces at once as numpy arrays, so 1e6 traces take about a
  minute on one machine, no campaign needed.
- engine gls: the netlist of `pqsoc synth keccak_masked` under Verilator, the toggles of every
  net (pqsoc/sca/netpower.py: its flip-flops, `flops`, and every node of its cells' functions,
  `logic`) and their sum (`all`); the PRNG is the netlist's own, reseeded with random bits every
  trace (ip/kmac/dv/keccak_power.cpp). ~1 ms a trace.

Secret: the permutation's input state x (e.g. a key block absorbed): class 0 a fixed x, class 1
a random x, drawn per trace; every trace splits x with a fresh mask (s0 = x ^ r, s1 = r) and
draws fresh bits for every cycle's cross terms. The PRNG's output is modelled as uniform bits:
what is tested is the masking scheme and its register schedule, not Trivium. The registers
start each trace from zero (the state after a wipe).

Variants (seeded leaks, to show the test catches what it should):
    keccak_masked            the core as built: must pass at first order
    keccak_masked_no_fresh   the DOM ANDs without their fresh bits: leaks
    keccak_masked_no_mask    x loaded unshared (s1 = 0) and no fresh bits: the unmasked
                             permutation in the same schedule: leaks at once
"""
import subprocess
import tempfile
import time
from pathlib import Path

import numpy as np

from ip.kmac.model import masked_keccak as mk
from ip.kmac.rtl.keccak_masked import SLICES

DRIVER = Path(__file__).with_name("keccak_power.cpp")
TOP = "keccak_masked_core"

UNITS = ("s0", "s1", "c0", "c1", "all")
GLS_UNITS = ("flops", "logic", "all")
VARIANTS = {
    "keccak_masked": "the masked Keccak-f core as built (two shares, DOM chi, fresh bits every cycle)",
    "keccak_masked_no_fresh": "seeded leak: the DOM ANDs without their fresh bits",
    "keccak_masked_no_mask": "seeded leak: the input loaded unshared and no fresh bits (the unmasked permutation)",
}
POWER_MODEL = {
    "rtl": ("per cycle: Hamming distance of each register of the core (s0, s1, c0, c1) and their sum, "
            "from the cycle model equal to the RTL register for register (ip/kmac/model/masked_keccak.py)"),
    "gls": ("per cycle: toggles of every net of the synthesized netlist (flip-flops; every node of the cells' "
            "functions), cycle-based (no glitches), the netlist's own PRNG reseeded every trace (pqsoc/sca/netpower.py)"),
}


def _hd(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.bitwise_count(a ^ b).sum(axis=1)


def _inputs(variant: str, fixed: np.ndarray, classes: np.ndarray, rng) -> tuple[np.ndarray, np.ndarray]:
    """(x, r): the secret input states (class 0 the fixed one) and the masks (zero for no_mask)."""
    n = len(classes)
    x = rng.integers(0, 1 << 64, size=(n, 25), dtype=np.uint64, endpoint=False)
    x[classes == 0] = fixed
    unshared = variant == "keccak_masked_no_mask"
    r = np.zeros_like(x) if unshared else rng.integers(0, 1 << 64, size=(n, 25), dtype=np.uint64, endpoint=False)
    return x, r


def traces(variant: str, fixed: np.ndarray, classes: np.ndarray, rng) -> np.ndarray:
    """(n, cycles, units) power traces of len(classes) permutations on the cycle model."""
    n = len(classes)
    x, r = _inputs(variant, fixed, classes, rng)
    w = 64 // SLICES

    def fresh():
        return rng.integers(0, 1 << w, size=(n, 25), dtype=np.uint64)
    zero = np.zeros_like(x)
    s0, s1 = x ^ r, r
    rows = [np.stack([_hd(s0, zero), _hd(s1, zero), np.zeros(n), np.zeros(n)], axis=1)]   # the load
    prev = (s0, s1, zero, zero)
    for regs in mk.permute(s0, s1, fresh, SLICES, no_fresh=variant != "keccak_masked"):
        rows.append(np.stack([_hd(a, b) for a, b in zip(regs, prev)], axis=1))
        prev = regs
    p = np.stack(rows, axis=1).astype(np.float64)          # (n, cycles, 4)
    return np.concatenate([p, p.sum(axis=2, keepdims=True)], axis=2)


class GateLevel:
    """The netlist's power model, built once (cached by the netlist and the driver)."""

    def __init__(self, log=print):
        from pqsoc import BUILD
        from pqsoc.flow import gls, synth
        from pqsoc.flow import verilator as vl
        from pqsoc.flow.pdk import find_pdk
        from pqsoc.sca import netpower
        manifest = synth.load_manifest("keccak_masked", check_rtl=True)   # refused when missing or stale
        netlist = synth.synth_dir("keccak_masked") / "netlist.v"
        vl.gl_cxx()
        gls.check_cells(netlist, find_pdk())
        build = BUILD / "sca" / "keccak_masked" / f"gls-{manifest['netlist_sha256'][:12]}"
        flat = gls.flat_netlist(netlist, TOP, find_pdk(), build, log=log)
        source, self.widths = netpower.instrument(flat, TOP, build / "power", top_class="Vkm")
        # -fno-dfg: Verilator's DFG optimizer ran out of 24 GiB on the instrumented netlist
        flags = vl.gate_level_flags(TOP, warn=vl.BLOCK_WARNINGS, prefix="Vkm") + [
            "-fno-dfg", "-CFLAGS", f"-I{build / 'power'}"]
        self.exe = vl.build_model(flags=flags, sources=[source], driver=DRIVER, out=build / "model", exe="Vkm",
                                  headers=[build / "power" / "power_ports.h"],
                                  label="masked Keccak gate-level power model", log=log).exe

    def run(self, x: np.ndarray, r: np.ndarray, seeds: np.ndarray) -> np.ndarray:
        """(n, cycles, 3) traces: flops, logic, their sum."""
        from pqsoc import FlowError
        jobs = np.concatenate([(x ^ r).view(np.uint8).reshape(len(x), 200), r.view(np.uint8).reshape(len(x), 200),
                               seeds.view(np.uint8).reshape(len(x), 32)], axis=1)
        with tempfile.TemporaryDirectory(prefix="pqsoc-kpower-") as tmp:
            src, dst = Path(tmp) / "jobs.bin", Path(tmp) / "power.bin"
            jobs.astype(np.uint8).tofile(src)
            res = subprocess.run([str(self.exe), str(src), str(dst)], capture_output=True, text=True)
            if res.returncode != 0:
                raise FlowError(f"the gate-level power model failed ({res.returncode}): {res.stderr.strip()}")
            raw = np.fromfile(dst, dtype="<u4")
        out, k = [], 0
        for _ in range(len(x)):
            cycles = int(raw[k])
            out.append(raw[k + 1:k + 1 + 2 * cycles].reshape(cycles, 2))
            k += 1 + 2 * cycles
        p = np.stack(out).astype(np.float64)
        return np.concatenate([p, p.sum(axis=2, keepdims=True)], axis=2)


def assess(variant: str, n_traces: int, seed: int = 1, batch: int = 10000, order: int = 1, log=print,
           engine: str = "rtl", start: int = 0, state_out: Path | None = None) -> tuple:
    """(report, the t-tests' accumulators, units): n_traces traces in batches, classes at
    random per trace, the halves by trace number (pqsoc.sca.ttest.Assessment). A batch's inputs
    come from (seed, the number of its first trace), so the traces from `start` on are those of
    a longer run whose batches begin at the same numbers (a campaign's chunks, state_out: the
    accumulators, .npz)."""
    from pqsoc import FlowError
    from pqsoc.sca.ttest import Assessment
    if variant not in VARIANTS:
        raise FlowError(f"unknown Keccak variant {variant!r}; known: {', '.join(VARIANTS)}")
    if engine == "gls" and variant == "keccak_masked_no_fresh":
        raise FlowError("keccak_masked_no_fresh is a change of the model's scheme; the netlist has no such mode "
                        "(engine rtl)")
    gl = GateLevel(log=log) if engine == "gls" else None
    units = list(GLS_UNITS if gl else UNITS)
    fixed = np.random.default_rng([seed, 0xF1C5]).integers(0, 1 << 64, size=25, dtype=np.uint64, endpoint=False)
    tt, history, done, t0 = None, [], 0, time.monotonic()
    while done < n_traces:
        n = min(batch, n_traces - done)
        rng = np.random.default_rng([seed, start + done])
        classes = rng.integers(0, 2, size=n)
        if gl is None:
            p = traces(variant, fixed, classes, rng)
        else:
            x, r = _inputs(variant, fixed, classes, rng)
            p = gl.run(x, r, rng.integers(0, 1 << 32, size=(n, 8), dtype=np.uint32))
        if tt is None:
            tt = Assessment(p.shape[1:])
        tt.add(p, classes, np.arange(start + done, start + done + n))
        done += n
        if min(tt.counts) >= 2:
            history.append((done, float(np.abs(tt.whole().t(1)).max()), bool(tt.confirmed(1).any())))
            log(f"[sca] {variant}: {done}/{n_traces} traces, max |t| {history[-1][1]:.1f} (first order)"
                + (", a leak confirmed by both halves" if history[-1][2] else ""))
    if state_out is not None:
        tt.save(state_out)
    return report(variant, tt, order, history, seed, time.monotonic() - t0, engine, units, start), tt, units


def report(variant: str, tt, order: int, history, seed: int, seconds: float, engine: str = "rtl",
           units=UNITS, start: int = 0) -> dict:
    from pqsoc.sca.report import summary

    def where(c: int) -> dict:
        """Edge 0 is the load, then two edges a round; the ACC reports' pc has no meaning here."""
        t = c - 1
        insn = "load" if c == 0 else "last compress" if t == 24 * SLICES else f"round {t // SLICES}, slice {t % SLICES}"
        return {"pc": 0, "insn": insn}

    return {"program": variant, "description": VARIANTS[variant], "engine": engine,
            "power_model": POWER_MODEL[engine], "seed": seed, "first_trace": start, "seconds": round(seconds, 1),
            **summary(tt, units, order, history, where)}
