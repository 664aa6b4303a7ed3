# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""ISS error halts: each isa.yml error class halts with its bit in ERR_BITS, and after
reset() the same simulator runs a correct program. Also KMAC / stream unit instructions
halt as 'not yet modelled', and the cycle limit."""
import pytest

from ip.acc.tests.iss_util import BAD_WDR, ISA, SET_VMODE1, cyc, run
from ip.acc.iss import Iss

BIT = {name: 1 << e["bit"] for name, e in ISA.errors.items()}
GOOD = "addi x1, x0, 21\nadd x1, x1, x1\necall\n"


def _then_good(sim):
    sim.reset()
    sim, h = run(GOOD, sim)
    assert h.ok and sim.gpr.read(1) == 42
    assert sim.csr.values["ERR_BITS"] == 0
    assert h.cycles == cyc("addi", "add", "ecall")


ERROR_CASES = [
    ("ILLEGAL_INSN", ".word", "undefined encoding"),
    ("ILLEGAL_INSN", "csrrw x1, 0x123, x0\necall\n", "unknown CSR"),
    ("ILLEGAL_INSN", "addi x1, x0, 1\ncsrrw x0, ERR_BITS, x1\necall\n", "read-only CSR"),
    ("ILLEGAL_INSN", "csrrs x0, RND, x1\necall\n", "read-only CSR"),  # grs1 != x0: writes
    ("ILLEGAL_INSN", "csrrs x2, ERR_KMAC, x0\necall\n", None),        # grs1 = x0: no write
    ("ILLEGAL_INSN", "csrrc x0, URND, x1\necall\n", "read-only CSR"),
    ("ILLEGAL_INSN", "bn.wsrw RND, w0\necall\n", "read-only WSR"),
    ("RND", "csrrs x2, RND, x0\necall\n", "no fresh entropy word"),     # the host wrote none
    ("RND", "bn.wsrr w1, RND\necall\n", "0 of 8"),
    ("ILLEGAL_INSN", "bn.wsrr w0, 0x7\necall\n", "unknown WSR"),
    ("ILLEGAL_INSN", "bn.ins w0, x0, 8\necall\n", "word lane"),
    ("ILLEGAL_INSN", "bn.ext x1, w0, 9\necall\n", "word lane"),
    ("ILLEGAL_INSN", "bn.shlv w0, w1, 16\necall\n", "lane width"),
    ("ILLEGAL_INSN", SET_VMODE1 + "bn.bcastl w0, w1, 8\necall\n", "lane count"),
    ("ILLEGAL_INSN", SET_VMODE1 + "bn.bfly.ct w0, w1, w2, l8, 0\necall\n", "l8"),
    ("BAD_INSN_ADDR", "jal x0, 40000\n", "outside IMEM"),
    ("BAD_INSN_ADDR", "addi x1, x0, 6\njalr x0, 0(x1)\n", "misaligned"),
    ("BAD_DATA_ADDR", "lui x1, 8\nlw x2, 0(x1)\necall\n", "outside DMEM"),
    ("BAD_DATA_ADDR", "lw x2, 2(x0)\necall\n", "aligned"),
    ("BAD_DATA_ADDR", "sw x0, -4(x0)\necall\n", "outside DMEM"),
    ("BAD_DATA_ADDR", "addi x1, x0, 16\nbn.lw w1, 0(x1)\necall\n", "aligned"),
    ("BAD_DATA_ADDR", "lui x1, 8\nbn.sw.pi w1, 0(x1)\necall\n", "outside DMEM"),
    ("LOOP", "loopi 0, 1\nnop_addi: addi x0, x0, 0\necall\n", "zero iterations"),
] + [("ILLEGAL_INSN", "addi x1, x0, 1\n" + w + "ecall\n", "16 wide registers") for w in BAD_WDR]


@pytest.mark.parametrize("name,src,why", ERROR_CASES)
def test_error_halt_then_reset_and_good_run(name, src, why):
    sim = Iss(ISA)
    if src == ".word":
        sim.load_program([0xFFFF_FFFF])
        h = sim.run()
    else:
        sim, h = run(src, sim)
    if why is None:                       # control case: not an error
        assert h.ok, h
    else:
        assert h.reason == "error" and h.errors == [name], h
        assert h.err_bits == BIT[name] and sim.csr.values["ERR_BITS"] == BIT[name]
        assert why in h.message, h.message
        with pytest.raises(RuntimeError):
            sim.step()                    # halted until reset
    _then_good(sim)


def test_faulting_instruction_costs_nothing_and_state_is_wiped():
    sim, h = run("addi x1, x0, 16\nbn.lw w2, 0(x0)\naddi x0, x0, 0\nbn.lw.pi w1, 0(x1)\necall\n",
                 dmem={0: bytes(range(1, 33))})
    assert h.reason == "error" and h.pc == 12 and h.insns == 3
    assert h.cycles == cyc("addi", "bn.lw", "addi")
    # secure wipe after an error: registers and DMEM are zero, ERR_BITS survives
    assert sim.gpr.read(1) == 0 and sim.wdr.read(2) == 0 and sim.dmem.read_bytes() == bytes(sim.dmem.size)
    assert sim.csr.values["ERR_BITS"] == BIT["BAD_DATA_ADDR"]


def test_cycle_limit_then_reset():
    sim, h = run("top:\njal x0, top\n", max_cycles=100)
    assert h.reason == "cycle_limit" and h.cycles == 100
    _then_good(sim)


def test_every_isa_instruction_has_a_model():
    sim = Iss(ISA)
    assert set(sim._exec) == set(ISA.by_mnemonic)


def test_operand_stall_before_a_fault_counts():
    """CYCLES counts every cycle but the one that detects the error: the load-use stall of a
    faulting bn.sw happened before it."""
    sim, h = run("addi x1, x0, 4\nbn.lw w1, 0(x0)\nbn.sw w1, 0(x1)\necall\n")
    assert h.reason == "error" and h.errors == ["BAD_DATA_ADDR"]
    assert h.cycles == cyc("addi", "bn.lw") + 1 and h.insns == 2


def test_wdr_beyond_the_count_faults_as_an_undefined_encoding():
    """w16..w31 make the word undefined (isa.decode gives None): it faults in its first
    cycle like any undefined encoding, without the operand stall a pending w1 would cause
    for a valid reader (the RTL's decode flags are all 0 for it, so no stall there either);
    after the host's next START (reset()) a program runs correctly."""
    sim = Iss(ISA)
    for bad in BAD_WDR:
        src = "bn.lw w1, 0(x0)\n" + bad + "ecall\n"
        sim.reset()
        sim, h = run(src, sim)
        assert h.reason == "error" and h.errors == ["ILLEGAL_INSN"] and h.pc == 4, h
        assert h.cycles == cyc("bn.lw") and h.insns == 1, h
        assert "undefined encoding" in h.message and "16 wide registers" in h.message
        sim.reset()                       # the host's next START, no other reset
        sim, h = run("addi x1, x0, 3\nbn.bcast w15, x1\nbn.addv w14, w15, w15\n"
                     "bn.ext x2, w14, 7\necall\n", sim)
        assert h.ok and sim.gpr.read(2) == 6 << 16 | 6


def test_butterfly_dist_field_outside_the_enum_is_illegal():
    """The 3-bit dist field has 5 names; encodings 5..7 are ILLEGAL_INSN, not a crash."""
    insn = ISA.by_mnemonic["bn.bfly.ct"]
    word = insn.encode({"wa": 1, "wb": 2, "wt": 3, "dist": 0, "tidx": 0})
    dist_lo = insn.operands["dist"].slices[0][0].lo
    from ip.acc.iss import Iss
    for d in (5, 6, 7):
        sim = Iss(ISA)
        sim.load_program([word | d << dist_lo, 0x73])
        h = sim.run(max_cycles=100)
        assert h.reason == "error" and h.errors == ["ILLEGAL_INSN"], h
