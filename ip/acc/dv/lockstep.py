# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""Lockstep comparison: run each program on two backends and compare halt, error bits, cycles,
instructions, stop pc and the whole DMEM.

Backends: `IssBackend` (one Iss, programs back to back with reset() in between, like the
hardware's START), the RTL runner (ip/acc/dv/rtl_runner.py) and the gate-level one
(ip/acc/dv/gls_top.py).
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Protocol

from ip.acc.dv.rig import FuzzConfig, Layout, Program, generate, program_rng


@dataclass
class RunResult:
    halt: str          # "ecall", "error" or "cycle_limit" ("unmodelled" from the ISS)
    err_bits: int
    cycles: int
    insns: int
    stop_pc: int       # pc of the ecall / faulting instruction
    dmem: bytes        # DMEM after the run: the whole image's length (an RTL job may ask fewer)


class Backend(Protocol):
    """A backend may also offer run_many([(words, dmem, max_cycles[, entropy]), ...]) ->
    [RunResult] (one simulator start per batch); fuzz() then uses it for the whole batch.
    entropy: the words the host writes to ENTROPY before START (RND's pool)."""
    def run(self, program_words: list[int], dmem: bytes, max_cycles: int,
            entropy=()) -> RunResult: ...


class IssBackend:
    """One Iss for all programs: reset() (the hardware's START), load at IMEM 0 (the rest of
    IMEM keeps older words), write the DMEM image, run. With collect=True, also counts the
    executed instructions, stalls, VMODEs and halts in self.stats (slower)."""

    def __init__(self, imem_size: int = 2048, dmem_size: int = 2048, collect: bool = False):
        from ip.acc.iss import Iss
        self.sim = Iss(dmem_size=dmem_size, imem_size=imem_size)
        self.collect = collect
        self.stats = Counter()

    def run(self, program_words, dmem, max_cycles, entropy=()):
        sim = self.sim
        for w in entropy:
            sim.write_entropy(w)
        sim.reset()
        sim.load_program(program_words)
        sim.dmem.write_bytes(0, bytes(dmem))
        halt = self._run_collect(max_cycles) if self.collect else sim.run(max_cycles=max_cycles)
        if self.collect:
            self.stats["halt_" + halt.reason] += 1
            for e in halt.errors:
                self.stats["err_" + e] += 1
        return RunResult(halt.reason, halt.err_bits, halt.cycles, halt.insns, halt.pc,
                         sim.dmem.read_bytes())

    def _run_collect(self, max_cycles):
        sim, st = self.sim, self.stats
        if hasattr(sim, "_limit"):               # what Iss.run sets for cycle-limited waits
            sim._limit = max_cycles
        while sim.cycles < max_cycles:
            c0 = sim.cycles
            h = sim.step()
            if h is not None and h.reason != "ecall":
                return h
            insn = sim.insn
            st["insn_" + insn.mnemonic] += 1
            stall = sim.cycles - c0 - insn.cycles
            if stall:
                st["stalls"] += stall
            if insn.group in ("vec", "ntt"):
                st[f"vmode{sim.csr.values['VMODE'] & 1}"] += 1
            if len(sim.loops.stack) > 0:
                st[f"loop_depth_{len(sim.loops.stack)}"] += 1
            if h is not None:
                return h
        return sim.run(max_cycles=max_cycles)


def compare(a: RunResult, b: RunResult, names=("a", "b"), max_words: int = 8) -> list[str]:
    """Human-readable differences between two runs (empty: identical)."""
    out = []
    na, nb = names
    for f in ("halt", "err_bits", "cycles", "insns", "stop_pc"):
        va, vb = getattr(a, f), getattr(b, f)
        if va != vb:
            fmt = (lambda v: f"{v:#x}") if f in ("err_bits", "stop_pc") else str
            out.append(f"{f}: {na} {fmt(va)} != {nb} {fmt(vb)}")
    if len(a.dmem) != len(b.dmem):
        out.append(f"dmem size: {na} {len(a.dmem)} != {nb} {len(b.dmem)} bytes")
    if a.dmem != b.dmem:
        n = min(len(a.dmem), len(b.dmem))
        lay = None
        try:
            lay = Layout(n)
        except ValueError:
            pass
        diff = [i for i in range(0, n - n % 4, 4) if a.dmem[i:i + 4] != b.dmem[i:i + 4]]
        first = next(i for i in range(n) if a.dmem[i] != b.dmem[i]) if diff else None
        out.append(f"dmem: {len(diff)} differing 32-bit words, first differing byte at {first:#x}"
                   if first is not None else "dmem: differs")
        for i in diff[:max_words]:
            wa = int.from_bytes(a.dmem[i:i + 4], "little")
            wb = int.from_bytes(b.dmem[i:i + 4], "little")
            where = f" ({lay.name(i)})" if lay else ""
            out.append(f"  dmem[{i:#06x}]{where}: {na} {wa:#010x} != {nb} {wb:#010x}")
        if len(diff) > max_words:
            out.append(f"  ... {len(diff) - max_words} more words")
    return out


@dataclass
class Failure:
    seed: int
    index: int
    program: Program
    diffs: list
    result_a: RunResult
    result_b: RunResult

    def write(self, out: Path) -> Path:
        out.mkdir(parents=True, exist_ok=True)
        stem = out / f"fuzz_s{self.seed}_i{self.index}"
        stem.with_suffix(".s").write_text(
            f"# pqsoc acc fuzz seed {self.seed} index {self.index}: {self.program.desc}\n"
            f"# replay: pqsoc acc fuzz --seed {self.seed} --start {self.index} --count 1, or\n"
            f"#   pqsoc acc run {stem.name}.hex --dmem-in {stem.name}.dmem --dmem-size "
            f"{len(self.program.dmem)} --imem-size IMEM --max-cycles N\n"
            + "".join(f"# {d}\n" for d in self.diffs) + self.program.text)
        stem.with_suffix(".hex").write_text("".join(f"{w:08x}\n" for w in self.program.words))
        stem.with_suffix(".dmem").write_bytes(self.program.dmem)
        return stem


def fuzz(count: int, seed: int, backend_a: Backend, backend_b: Backend, cfg: FuzzConfig | None = None,
         progress: Callable[[int, int, int], None] | None = None, start: int = 0,
         max_failures: int | None = None):
    """Run programs start..start+count-1 of `seed` on both backends.
    Returns (passed, failed, failures); progress(done, passed, failed) after each program."""
    cfg = cfg or FuzzConfig()
    passed = failed = 0
    failures = []
    progs = {}
    batch_b = {}
    if hasattr(backend_b, "run_many"):        # simulators: one start for the whole batch
        for i in range(start, start + count):
            progs[i] = generate(program_rng(seed, i), cfg)
        results = backend_b.run_many([(p.words, p.dmem, cfg.max_cycles, p.entropy)
                                      for p in progs.values()])
        batch_b = dict(zip(progs, results))
    for i in range(start, start + count):
        prog = progs.get(i) or generate(program_rng(seed, i), cfg)
        ra = backend_a.run(prog.words, prog.dmem, cfg.max_cycles, prog.entropy)
        rb = batch_b[i] if batch_b else backend_b.run(prog.words, prog.dmem, cfg.max_cycles,
                                                      prog.entropy)
        diffs = compare(ra, rb)
        if (ra.halt == "cycle_limit" or (ra.halt == "unmodelled" and not cfg.kmac)) and not diffs:
            diffs = [f"reference halted with {ra.halt} (generator bug: programs must end "
                     f"within {cfg.max_cycles} cycles in ecall or an error)"]
        if diffs:
            failed += 1
            failures.append(Failure(seed, i, prog, diffs, ra, rb))
        else:
            passed += 1
        if progress:
            progress(i - start + 1, passed, failed)
        if max_failures is not None and failed >= max_failures:
            break
    return passed, failed, failures
