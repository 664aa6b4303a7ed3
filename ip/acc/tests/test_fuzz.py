# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""Random program generator and lockstep driver (ip/acc/dv/rig, ip/acc/dv/lockstep.py, ip/acc/dv/fuzz.py).

The generator must be deterministic, cover every instruction of the modelled groups, both
VMODEs, stalls, loops and every error class; the comparison must catch a deliberately broken
ISS (a mutant) so a passing lockstep run means something."""
import importlib.util
import random
import subprocess
import sys

import pytest

from ip.acc.tests.iss_util import ISA
from ip.acc.dv import fuzz as fz
from ip.acc.tools.asm import assemble
from ip.acc.dv.rig.gen import _Gen
from ip.acc.dv.rig.gens.errors import bad_wdr_word
from ip.acc.dv.rig import ERROR_CLASSES, FUZZ_GROUPS, FuzzConfig, Layout, generate, program_rng
from ip.acc.dv.lockstep import IssBackend, RunResult, compare, fuzz
from pqsoc import REPO
from ip.acc.iss.insn import _lanewise, wdr_writes

CFG = FuzzConfig()


def test_generation_is_deterministic_by_seed_and_index():
    a = generate(program_rng(5, 17), CFG)
    b = generate(program_rng(5, 17), CFG)
    assert (a.text, a.words, a.dmem, a.desc) == (b.text, b.words, b.dmem, b.desc)
    assert generate(program_rng(5, 18), CFG).text != a.text
    assert generate(program_rng(6, 17), CFG).text != a.text
    assert len(a.dmem) == CFG.dmem_size and 4 * len(a.words) <= CFG.imem_size
    c = generate(random.Random(1), CFG)
    assert c.text == generate(random.Random(1), CFG).text


@pytest.fixture(scope="module")
def campaign():
    """300 programs on a collecting ISS backend (one Iss, back to back)."""
    be = IssBackend(CFG.imem_size, CFG.dmem_size, collect=True)
    runs = []
    for i in range(300):
        p = generate(program_rng(1, i), CFG)
        runs.append((p, be.run(p.words, p.dmem, CFG.max_cycles, p.entropy)))
    return be.stats, runs


def test_programs_end_in_ecall_or_error_within_the_limit(campaign):
    _, runs = campaign
    lens = [len(p.words) for p, _ in runs]
    assert 20 <= min(lens) and sum(lens) / len(lens) < 250
    halts = {r.halt for _, r in runs}
    assert halts <= {"ecall", "error"}, halts                # never unmodelled / cycle_limit
    errors = sum(r.halt == "error" for _, r in runs)
    assert 0.15 * len(runs) <= errors <= 0.40 * len(runs)
    for p, r in runs:
        assert r.cycles < CFG.max_cycles
        if r.halt == "error":                                 # secure wipe
            assert r.dmem == bytes(CFG.dmem_size)
    # the program ends the way the generator meant (early ecall items are rare)
    by_bit = {e["bit"]: name for name, e in ISA.errors.items()}
    missed = [(p.expect, r.halt) for p, r in runs
              if p.expect != (r.halt if r.halt == "ecall" else by_bit[r.err_bits.bit_length() - 1])]
    assert len(missed) <= 0.03 * len(runs), missed


def test_every_instruction_error_class_vmode_and_stall(campaign):
    st, _ = campaign
    want = [i.mnemonic for i in ISA.insns if i.group in FUZZ_GROUPS]
    assert len(want) > 60
    missing = [m for m in want if not st["insn_" + m]]
    assert not missing, missing
    for name in ERROR_CLASSES:
        assert st["err_" + name] >= 5, (name, st["err_" + name])
    assert st["vmode0"] > 1000 and st["vmode1"] > 1000       # vector/ntt insns in each mode
    assert st["stalls"] > 1000
    assert st["loop_depth_8"] > 0                              # 8-deep nests run
    assert st["halt_ecall"] > 150


def test_rnd_and_urnd_are_read_and_urnd_reseeded(campaign):
    """RND reads served by the program's entropy words, URND reads and reseeds, in programs
    that end in ecall (so their values reach the register dump)."""
    _, runs = campaign
    ok = [p.text for p, r in runs if r.halt == "ecall"]
    for pattern in (", RND, x0", ", RND\n", ", URND, x0", ", URND\n", "URND, w"):
        assert sum(pattern in t for t in ok) >= 5, pattern


def test_kmac_groups_only_when_asked():
    kmac = {i.mnemonic for i in ISA.insns if i.group in ("kmac", "smp")}

    def seen(cfg):
        out = set()
        for i in range(40):
            for line in generate(program_rng(2, i), cfg).text.splitlines():
                if line.split() and line.split()[0] in kmac:
                    out.add(line.split()[0])
        return out
    assert not seen(CFG)
    assert len(seen(FuzzConfig(kmac=True))) >= 4


def test_epilogue_dumps_registers():
    sim_be = IssBackend(CFG.imem_size, CFG.dmem_size)
    lay = Layout(CFG.dmem_size)
    src = "addi x5, x0, 77\naddi x1, x0, 1\ncsrrw x0, VMODE, x1\nbn.bcast w3, x5\n"
    words = assemble(src + "\n".join(_Gen(random.Random(0), CFG).epilogue()), "t.s", ISA)
    r = sim_be.run(words, bytes(CFG.dmem_size), CFG.max_cycles)
    assert r.halt == "ecall"
    word = lambda a: int.from_bytes(r.dmem[a:a + 4], "little")   # noqa: E731
    assert word(lay.gpr_base + 4 * 4) == 77 and word(lay.vmode_addr) == 1
    assert word(lay.wdr_base + 32 * 3 + 28) == 77              # VMODE 1: 32-bit lanes
    assert lay.name(lay.gpr_base + 16) == "x5" and lay.name(lay.wdr_base + 32 * 3 + 4) == "w3 word 1"


def test_hazard_snippets_read_late_results_right_behind_their_producer():
    """Each late-result producer is followed right behind by a reader of its register at
    least sometimes (the full interlock): bn.lw (latency 2), the multiplier ops and the
    butterflies (latency 3); the multiplier ones also with 1-2 instructions between."""
    import re
    from ip.acc.dv.rig.gens.hazard import hazard_item
    gen = _Gen(random.Random(7), CFG)
    seen = set()
    for _ in range(2000):
        item = hazard_item(gen)
        m = re.match(r"(bn\.lw|bn\.mulvm|bn\.mulv\.lo|bn\.mulv\.hi|bn\.bfly\.ct|bn\.bfly\.gs) (w\d+)(?:, (w\d+))?",
                     item[0])
        if not m:
            continue
        dests = {m.group(2)} | ({m.group(3)} if "bfly" in m.group(1) else set())
        kind = m.group(1).split(".")[1]                      # lw, mulvm / mulv, bfly
        reads_next = bool(dests & set(re.findall(r"w\d+", item[1].partition(" ")[2])))
        seen.add((kind, "behind" if len(item) == 2 and reads_next else "later"))
    assert {("lw", "behind"), ("mulvm", "behind"), ("bfly", "behind"),
            ("mulvm", "later"), ("bfly", "later")} <= seen, seen


def test_wdr_fields_beyond_the_count_only_in_illegal_insn_programs():
    """Legal code uses w0..w15 (the assembler rejects the rest); the ILLEGAL_INSN constructs
    include words that would be instructions but for a wdr field >= 16, which fault."""
    gen = _Gen(random.Random(4), CFG)
    assert {gen.w() for _ in range(500)} == set(range(ISA.wdrs))
    for _ in range(50):
        word = bad_wdr_word(gen)
        raw = ISA.decode(word, any_wdr=True)
        assert ISA.decode(word) is None and raw and ISA.bad_wdrs(*raw)
    be = IssBackend(CFG.imem_size, CFG.dmem_size)
    found = 0
    for i in range(1500):
        p = generate(program_rng(3, i), CFG)
        bad = [w for w in p.words if ISA.decode(w) is None
               and (raw := ISA.decode(w, any_wdr=True)) and ISA.bad_wdrs(*raw)]
        if bad:
            found += 1
            assert p.expect == "ILLEGAL_INSN"
            r = be.run(p.words, p.dmem, CFG.max_cycles)
            assert r.halt == "error" and r.err_bits == 1 << ISA.errors["ILLEGAL_INSN"]["bit"]
    assert found >= 3, found


def test_compare_names_differences():
    dm = bytearray(2048)
    a = RunResult("ecall", 0, 100, 80, 0x40, bytes(dm))
    assert compare(a, a) == []
    dm[0x720 + 4 * 4 + 1] = 0x12          # x5 in the dump
    dm[0x10] = 1
    b = RunResult("error", 4, 101, 80, 0x44, bytes(dm))
    d = compare(a, b)
    text = "\n".join(d)
    for key in ("halt", "err_bits", "cycles", "stop_pc"):
        assert any(s.startswith(key + ":") for s in d), d
    assert "insns" not in text
    assert "2 differing 32-bit words, first differing byte at 0x10" in text
    assert "dmem[0x0010] (data)" in text and "dmem[0x0730] (x5)" in text


def _mutant(patch):
    be = IssBackend(CFG.imem_size, CFG.dmem_size)
    patch(be.sim)
    return be


def _no_cond_subtract(sim):        # bn.addvm forgets "if d >= q: d -= q"
    sim._exec["bn.addvm"] = _lanewise(lambda lm, a, b: a + b)


def _mul_latency_2(sim):           # multiplier results a cycle early (cycles only)
    orig = sim.timing.issue

    def issue(insn, ops, done):
        orig(insn, ops, done)
        if insn.unit == "mul":
            for n in wdr_writes(insn, ops):
                sim.timing.ready[("w", n)] = done + 2
    sim.timing.issue = issue


def _mul_every_cycle(sim):         # the multiplier unit accepts an op every cycle
    sim.timing.interval["mul"] = 1


def _loop_count_off_by_one(sim):   # `loop` runs grs1 + 1 times
    orig = sim._exec["loop"]

    def loop(s, o):
        r = orig(s, o)
        if s.gpr.read(o["grs1"]) > 1:
            s.loops.stack[-1].remaining += 1
        return r
    sim._exec["loop"] = loop


@pytest.mark.parametrize("patch", [_no_cond_subtract, _mul_latency_2, _mul_every_cycle,
                                   _loop_count_off_by_one])
def test_fuzz_catches_a_mutant_iss(patch):
    ref = IssBackend(CFG.imem_size, CFG.dmem_size)
    passed, failed, failures = fuzz(300, 3, ref, _mutant(patch), CFG, max_failures=1)
    assert failed == 1 and failures, f"mutant {patch.__name__} survived {passed} programs"
    f = failures[0]
    assert f.diffs and f.seed == 3 and f.program.text
    # the failing program replays from (seed, index)
    assert generate(program_rng(f.seed, f.index), CFG).text == f.program.text


def test_fuzz_iss_vs_iss_passes_and_reports_progress():
    seen = []
    passed, failed, failures = fuzz(30, 9, IssBackend(), IssBackend(), CFG,
                                    progress=lambda n, p, f: seen.append((n, p, f)))
    assert (passed, failed, failures) == (30, 0, [])
    assert seen[-1] == (30, 30, 0) and len(seen) == 30


def test_cli_iss_backend_passes():
    r = subprocess.run([sys.executable, "-m", "pqsoc.cli", "acc", "fuzz", "--count", "20",
                        "--seed", "4", "--backend", "iss"], capture_output=True, text=True, cwd=REPO)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip().splitlines()[-1] == "20 passed, 0 failed"
    assert "[20/20]" in r.stderr


def test_cli_reports_failures_writes_them_and_exits_nonzero(tmp_path, monkeypatch, capsys):
    made = []

    def backend(imem, dmem, collect=False):
        be = IssBackend(imem, dmem)
        if made:                          # the second backend (the "DUT") is a mutant
            _no_cond_subtract(be.sim)
        made.append(be)
        return be
    monkeypatch.setattr(fz, "IssBackend", backend)
    rc = fz.main(["--count", "40", "--seed", "3", "--backend", "iss", "--out", str(tmp_path)])
    out = capsys.readouterr().out.strip().splitlines()
    passed, failed = int(out[-1].split()[0]), int(out[-1].split()[2])
    assert out[-1] == f"{passed} passed, {failed} failed" and failed > 0 and passed + failed == 40
    assert rc == 1
    assert len(list(tmp_path.glob("*.s"))) == failed == len(list(tmp_path.glob("*.dmem")))
    s = next(tmp_path.glob("*.s"))
    words = assemble(s.read_text(), s.name, ISA)      # the written program replays
    assert words == [int(x, 16) for x in s.with_suffix(".hex").read_text().split()]


@pytest.mark.skipif(importlib.util.find_spec("ip.acc.dv.rtl_runner") is not None,
                    reason="the RTL backend exists")
def test_cli_rtl_backend_missing_is_a_clear_error(capsys):
    rc = fz.main(["--count", "1", "--backend", "rtl"])
    assert rc != 0
    assert "ip.acc.dv.rtl_runner" in capsys.readouterr().err
