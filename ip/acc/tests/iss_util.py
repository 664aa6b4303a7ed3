# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""Helpers for the ISS tests: assemble, load, run; lane packing for reference values."""
from ip.acc.tools.asm import assemble
from ip.acc.tools.isa import load_isa
from ip.acc.iss import Iss

ISA = load_isa()
KEM = (16, 16, 3329)       # lanes, width, q for VMODE 0
DSA = (8, 32, 8380417)     # VMODE 1


def cyc(*mnemonics):
    """Sum of isa.yml issue cycles."""
    return sum(ISA.by_mnemonic[m].cycles for m in mnemonics)


def run(src, sim=None, dmem=None, max_cycles=100_000):
    sim = sim or Iss(ISA)
    sim.load_program(assemble(src, "test.s", ISA))
    for addr, blob in (dmem or {}).items():
        sim.dmem.write_bytes(addr, blob)
    return sim, sim.run(max_cycles=max_cycles)


def pack(vals, mode=KEM):
    lanes, w, _ = mode
    assert len(vals) == lanes
    return sum((v % (1 << w)) << (w * i) for i, v in enumerate(vals))


def unpack(word, mode=KEM):
    lanes, w, _ = mode
    return [(word >> (w * i)) & ((1 << w) - 1) for i in range(lanes)]


def w256(word):
    return word.to_bytes(32, "little")


SET_VMODE1 = "addi x31, x0, 1\ncsrrw x0, VMODE, x31\n"


def run_image(src, dm, max_cycles=200_000, name="prog.s", mem=32 * 1024):
    """Whole-program run (the ML-DSA programs): assemble src, load it and the DMEM image
    dm ({address: bytes}) into an ISS with mem bytes of IMEM and DMEM, run; returns
    (sim, halt, IMEM bytes of the program)."""
    sim = Iss(dmem_size=mem, imem_size=mem)
    words = assemble(src, name)
    sim.load_program(words)
    for a, b in dm.items():
        sim.dmem.write_bytes(a, b)
    h = sim.run(max_cycles=max_cycles)
    return sim, h, len(words) * 4


def phase_cycles(phases, run, head=(), tail=("ecall",)):
    """Per-phase cycles of a program given as [(name, lines)], by prefix runs: run(src) ->
    (sim, halt, ...) for head + the phases up to each one + tail; a phase's cost is the
    difference of the cumulative counts. Returns (rows [(name, cycles)], total, the last
    run's sim)."""
    lines, prev, rows, sim = list(head), 0, [], None
    for name, body in phases:
        lines += body
        sim, h, *_ = run("\n".join(lines + list(tail)) + "\n")
        assert h.ok, (name, h)
        rows.append((name, h.cycles - prev))
        prev = h.cycles
    return rows, prev, sim


def wdr_word(mnemonic, **vals) -> str:
    """A `.word` line: the assembler rejects w16..w31 (isa.yml wdrs: 16), the 5-bit field not."""
    return f".word {ISA.by_mnemonic[mnemonic].encode(vals):#010x}\n"


# ISS and RTL error tests: a wdr operand >= 16 in each operand position and encoding scheme
# (R, WLS, BFLY); most also read w1 (a pending load result in the timing tests)
BAD_WDR = [
    wdr_word("bn.addv", wrd=3, wrs1=1, wrs2=16),
    wdr_word("bn.addv", wrd=17, wrs1=1, wrs2=1),
    wdr_word("bn.bfly.ct", wa=1, wb=2, wt=31, dist=1, tidx=0),
    wdr_word("bn.bfly.gs", wa=24, wb=1, wt=2, dist=0, tidx=0),
    wdr_word("bn.lw", wrd=20, offset=0, grs1=0),
    wdr_word("bn.sw", wrs=16, offset=32, grs1=0),
    wdr_word("bn.ext", grd=1, wrs=18, lane=0),
    wdr_word("kmac.dig", wrd=30),
]


def register_dump(at: int) -> list[str]:
    """Lines that store w0..w15, ACC and x1..x31 (packed by bn.ins into w0..w3, 8 a word)
    at DMEM at (21 words, x0-based: at + 672 <= 16 KiB): put before an ecall, they make the
    registers at the end of a program visible in its DMEM (the wipe tests), on the ISS and
    on the RTL alike."""
    L = [f"bn.sw w{i}, {at + 32 * i}(x0)" for i in range(16)]
    L += ["bn.wsrr w0, ACC", f"bn.sw w0, {at + 512}(x0)"]
    for g in range(4):
        for lane in range(8):
            x = 1 + 8 * g + lane
            if x < 32:
                L.append(f"bn.ins w{g}, x{x}, {lane}")
    return L + [f"bn.sw w{g}, {at + 544 + 32 * g}(x0)" for g in range(4)]


DUMP_BYTES = 32 * 21


def dump_before(src: str, index: int, at: int) -> str:
    """src with register_dump(at) before its line `index` (an ecall)."""
    lines = src.splitlines()
    assert lines[index] == "ecall", lines[index]
    return "\n".join(lines[:index] + register_dump(at) + lines[index:]) + "\n"
