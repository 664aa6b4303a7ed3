# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""ISS kmac.* group: hashes against hashlib, cycle counts against a co-simulation of the real
KMAC RTL (Amaranth) driven by a small hand-written side-load master that follows the core's
cycle rule (ip/acc/iss/kmac.py), error halts."""
import hashlib
import random

from amaranth.sim import Simulator

from ip.acc.tests.iss_util import ISA, cyc, run
from ip.kmac.rtl.kmac import Kmac
from ip.kmac.model.transaction import ERR_DIGEST_EARLY, ERR_MASK
from ip.kmac.rtl.sideload import OP_FINISH, OP_PAD, OP_START
from ip.acc.tools.asm import assemble
from ip.acc.iss import Iss

KMAC_BIT = 1 << ISA.errors["KMAC"]["bit"]
SHA3, SHAKE = 0, 1
S128, S256 = 0, 2
FULL = 0xFFFF_FFFF


def li(reg, value):
    value &= FULL
    lo = value & 0xFFF
    if lo >= 0x800:
        lo -= 0x1000
    hi = ((value - lo) >> 12) & 0xFFFFF
    return [f"lui x{reg}, {hi}", f"addi x{reg}, x{reg}, {lo}"]


class Prog:
    """An ACC program and, in step, the co-simulation's op list (non-kmac instructions become
    idle cycles by their isa.yml cycle counts; the programs avoid operand stalls)."""

    def __init__(self):
        self.asm = []
        self.ops = []
        self.dmem = bytearray()

    def plain(self, *lines):
        for line in lines:
            self.asm.append(line)
            self.ops.append(("idle", cyc(line.split()[0])))

    def k(self, line, op):
        self.asm.append(line)
        self.ops.append(op)

    def source(self):
        return "\n".join(self.asm) + "\n"


def hash_prog(mode, strength, msg, nwords, declared=False, chunk=32, nops=0, seed=0):
    """Stream msg in chunks of `chunk` bytes (each at a random byte offset when chunk < 32),
    read nwords digest words into DMEM 0x1000.."""
    rng = random.Random(seed)
    p = Prog()
    words = []                                   # (data int, mask)
    for i in range(0, len(msg), chunk):
        part = msg[i:i + chunk]
        lo = rng.randint(0, 32 - len(part))
        buf = bytearray(rng.randbytes(32))
        buf[lo:lo + len(part)] = part
        words.append((int.from_bytes(buf, "little"), ((1 << len(part)) - 1) << lo))
    assert len(words) <= 24
    dmem = b"".join(d.to_bytes(32, "little") for d, _ in words)
    # 16 WDRs: message words rotate through w1..w12 (each reloaded right after its slot's
    # kmac.msg, so no load-use stall), digest words through w13..w15
    slots = 12
    for i in range(min(len(words), slots)):
        p.plain(f"bn.lw w{i + 1}, {32 * i}(x0)")
    p.plain(*li(1, mode | strength << 2), *li(2, len(msg) if declared else 0))
    masks = sorted({m for _, m in words})
    mreg = {}
    for j, m in enumerate(masks):
        mreg[m] = 10 + j
        p.plain(*li(10 + j, m))
    p.plain("addi x0, x0, 0")                    # no stall on the last li
    p.k("kmac.acq", ("acq",))
    p.k("kmac.start x1, x2", ("cmd", OP_START, mode, strength, len(msg) if declared else 0))
    for i, (d, m) in enumerate(words):
        p.k(f"kmac.msg w{i % slots + 1}, x{mreg[m]}", ("msg", d, m))
        if i + slots < len(words):
            p.plain(f"bn.lw w{i % slots + 1}, {32 * (i + slots)}(x0)")
        if nops and i % 2:
            p.plain(*["addi x0, x0, 0"] * nops)
    if not declared:
        p.k("kmac.finish", ("cmd", OP_FINISH, 0, 0, 0))
    for j in range(nwords):
        p.k(f"kmac.dig w{13 + j % 3}", ("dig",))
        p.plain(f"bn.sw w{13 + j % 3}, {0x1000 + 32 * j}(x0)")
    p.k("kmac.rel", ("rel",))
    p.plain("ecall")
    return p, dmem


def run_iss(p, dmem, sim=None):
    sim, h = run(p.source(), sim=sim, dmem={0: dmem})
    return sim, h


def cosim(ops):
    """The op list against the KMAC RTL; returns (cycles, digest words)."""
    dut = Kmac()
    res = {}

    async def bench(ctx):
        sl = dut.sideload
        hold = 0
        cycles = 0
        words = []

        def drive(cmd=None, msg=None, dig=0):
            ctx.set(sl.hold, hold)
            ctx.set(sl.cmd.valid, cmd is not None)
            if cmd is not None:
                op, mode, strength, msg_len = cmd
                ctx.set(sl.cmd.op, op)
                ctx.set(sl.cmd.mode, mode)
                ctx.set(sl.cmd.strength, strength)
                ctx.set(sl.cmd.msg_len, msg_len)
            ctx.set(sl.msg.valid, msg is not None)
            if msg is not None:
                ctx.set(sl.msg.data, msg[0])
                ctx.set(sl.msg.mask, msg[1])
            ctx.set(sl.digest.ready, dig)
            assert not ctx.get(sl.error), f"KMAC error {ctx.get(sl.error_code)} at {cycles}"

        for op in ops:
            kind = op[0]
            if kind == "idle":
                for _ in range(op[1]):
                    drive()
                    await ctx.tick()
                    cycles += 1
            elif kind == "acq":
                drive()
                await ctx.tick()
                cycles += 1
                hold = 1
                while True:
                    drive()
                    g = ctx.get(sl.granted)
                    await ctx.tick()
                    cycles += 1
                    if g:
                        break
            elif kind == "rel":
                drive()
                await ctx.tick()
                cycles += 1
                hold = 0
            else:
                while True:
                    if kind == "cmd":
                        drive(cmd=op[1:])
                        done = ctx.get(sl.cmd.ready)
                    elif kind == "msg":
                        drive(msg=op[1:])
                        done = ctx.get(sl.msg.ready)
                    else:
                        drive(dig=1)
                        done = ctx.get(sl.digest.valid)
                        data = ctx.get(sl.digest.data)
                    await ctx.tick()
                    cycles += 1
                    if done:
                        if kind == "dig":
                            words.append(data)
                        if kind == "msg":          # isa.yml: completes the cycle after
                            drive()
                            await ctx.tick()
                            cycles += 1
                        break
        res["cycles"], res["words"] = cycles, words

    sim = Simulator(dut)
    sim.add_clock(1e-8)
    sim.add_testbench(bench)
    sim.run()
    return res["cycles"], res["words"]


def digest(sim, nwords):
    return sim.dmem.read_bytes()[0x1000:0x1000 + 32 * nwords]


def test_hashes_match_hashlib():
    rng = random.Random(1)
    cases = [(SHAKE, S128, rng.randbytes(300), 3, dict(chunk=32)),
             (SHAKE, S256, rng.randbytes(150), 2, dict(chunk=7, seed=3)),
             (SHA3, S256, rng.randbytes(136), 1, dict(chunk=20, declared=True)),
             (SHA3, S256, b"", 1, {}),
             (SHAKE, S128, b"abc", 1, dict(chunk=3, nops=2))]
    sim = Iss(ISA)
    for mode, strength, msg, nw, kw in cases:
        p, dmem = hash_prog(mode, strength, msg, nw, **kw)
        sim.reset()
        sim, h = run_iss(p, dmem, sim)
        assert h.ok, h
        ref = {(SHAKE, S128): lambda m: hashlib.shake_128(m).digest(32 * nw),
               (SHAKE, S256): lambda m: hashlib.shake_256(m).digest(32 * nw),
               (SHA3, S256): lambda m: hashlib.sha3_256(m).digest()}[(mode, strength)](msg)
        assert digest(sim, nw)[:len(ref)] == ref, (mode, strength, len(msg))
        assert sim.kmac_hold == 0


def test_cycle_counts_match_rtl_cosim():
    rng = random.Random(2)
    progs = [hash_prog(SHAKE, S128, rng.randbytes(400), 8, chunk=32),           # multi-block
             hash_prog(SHA3, S256, rng.randbytes(70), 1, chunk=9, declared=True, nops=3, seed=4),
             hash_prog(SHAKE, S256, rng.randbytes(40), 2, chunk=13, nops=30, seed=5)]
    for p, dmem in progs:
        sim, h = run_iss(p, dmem)
        assert h.ok, h
        cycles, words = cosim(p.ops)
        assert h.cycles == cycles, (h.cycles, cycles)
        got = digest(sim, len(words))
        assert got == b"".join(w.to_bytes(32, "little") for w in words)


def test_back_to_back_operations_and_status_csr():
    """acq/rel twice in one program, PAD_BLOCK, a kmac.dig issued before the digest is ready,
    KMAC_STATUS read; cycle count against the RTL co-simulation."""
    p = Prog()
    p.plain("addi x1, x0, 1", "addi x2, x0, 0", "addi x3, x0, -1", "addi x0, x0, 0")
    for _ in range(2):
        p.k("kmac.acq", ("acq",))
        p.plain("csrrs x5, KMAC_STATUS, x0")
        p.k("kmac.start x1, x2", ("cmd", OP_START, SHAKE, S128, 0))
        p.k("kmac.msg w0, x3", ("msg", 0, FULL))
        p.k("kmac.pad", ("cmd", OP_PAD, 0, 0, 0))
        p.k("kmac.msg w0, x3", ("msg", 0, FULL))
        p.k("kmac.finish", ("cmd", OP_FINISH, 0, 0, 0))
        p.k("kmac.dig w1", ("dig",))
        p.k("kmac.rel", ("rel",))
    p.plain("ecall")
    sim, h = run(p.source())
    assert h.ok, h
    assert sim.gpr.read(5) & 1 == 1                     # granted
    cycles, words = cosim(p.ops)
    assert h.cycles == cycles
    ref = hashlib.shake_128(bytes(32) + bytes(168 - 32) + bytes(32)).digest(32)
    assert sim.wdr.read(1).to_bytes(32, "little") == ref == words[-1].to_bytes(32, "little")


def trace(src):
    """Cycles of each executed instruction (source line, cycles)."""
    sim = Iss(ISA)
    lines = src.splitlines()
    sim.load_program(assemble(src, "t.s", ISA))
    out = []
    while True:
        c, pc = sim.cycles, sim.pc
        h = sim.step()
        out.append((lines[pc // 4].split()[0], sim.cycles - c))
        if h:
            assert h.ok, h
            return out


def test_cycle_figures():
    """SHAKE128 (rate 168 = 5.25 words): acq 3 cycles on a free block, START 1; kmac.msg hands
    its word to the KMAC's intake register and completes the cycle after (2 cycles when the
    register is free), the KMAC packs it from there in 4 lane steps, so each following full
    word waits for those: 5; the 6th word's first lane completes the block and starts the
    permutation, its other 3 lanes wait for it, and FINISH waits for them: 28 (the same 55
    cycles for the 6 words and FINISH as when kmac.msg waited for its own packing: 5 x 5 + 29
    + 1); first digest word 30 cycles after FINISH, then 4 per word while obuf holds lanes, 8
    for the word that waits for the refill; acq right after rel 3."""
    src = ("addi x1, x0, 1\naddi x3, x0, -1\nkmac.acq\nkmac.start x1, x0\n"
           + "kmac.msg w0, x3\n" * 6 + "kmac.finish\n" + "kmac.dig w1\n" * 8
           + "kmac.rel\nkmac.acq\nkmac.rel\necall\n")
    got = [c for _, c in trace(src)]
    assert got == [1, 1, 3, 1] + [2] + [5] * 5 + [28] + [30, 4, 4, 4, 4, 8, 4, 4] + [1, 3, 1, 1]
    # single-byte words: 1 + 1 cycles each
    src = ("addi x1, x0, 1\naddi x3, x0, 1\nkmac.acq\nkmac.start x1, x0\n"
           + "kmac.msg w0, x3\n" * 3 + "kmac.finish\nkmac.dig w1\nkmac.rel\necall\n")
    assert [c for _, c in trace(src)] == [1, 1, 3, 1, 2, 2, 2, 1, 30, 1, 1]


def _then_good(sim):
    sim.reset()
    p, dmem = hash_prog(SHAKE, S128, b"after", 1, chunk=5)
    sim, h = run_iss(p, dmem, sim)
    assert h.ok, h
    assert digest(sim, 1) == hashlib.shake_128(b"after").digest(32)
    assert sim.csr.values["ERR_BITS"] == 0


def test_error_no_hold():
    for src in ("kmac.start x0, x0\necall\n", "kmac.msg w0, x0\necall\n", "kmac.pad\necall\n",
                "kmac.finish\necall\n", "kmac.dig w0\necall\n",
                "kmac.acq\nkmac.rel\nkmac.finish\necall\n"):
        sim, h = run("addi x1, x0, 1\n" + src)
        assert h.reason == "error" and h.err_bits == KMAC_BIT, (src, h)
        assert sim.csr.values["ERR_KMAC"] == 0
        extra = 3 + 1 if "acq" in src else 0
        assert h.cycles == cyc("addi") + extra, (src, h.cycles)
        _then_good(sim)


def test_error_double_acq():
    sim, h = run("kmac.acq\naddi x0, x0, 0\nkmac.acq\necall\n")
    assert h.reason == "error" and h.err_bits == KMAC_BIT
    assert h.cycles == 3 + 1                            # the second acq's cycle is free
    assert sim.kmac_hold == 0
    _then_good(sim)


def test_error_reported_by_kmac():
    """A non-contiguous mask: the word is taken into the KMAC's intake register at once (msg
    completes in 1 + 1 cycles) and refused from there in the next cycle; the KMAC's error shows
    2 cycles after the refusal, in kmac.finish's second cycle."""
    src = ("addi x1, x0, 1\naddi x5, x0, 5\nkmac.acq\nkmac.start x1, x0\nkmac.msg w0, x5\n"
           "kmac.finish\necall\n")
    sim, h = run(src)
    assert h.reason == "error" and h.err_bits == KMAC_BIT, h
    assert sim.csr.values["ERR_KMAC"] == ERR_MASK
    # addi x2, acq 3, start 1, msg 1 + 1 (taken at once, refused in its second cycle), finish
    # 1 (waits: the abort's state wipe), error in finish's second cycle (not counted)
    assert h.cycles == cyc("addi", "addi") + 3 + 1 + 1 + 1 + 1
    assert sim.kmac_hold == 0
    # The error halt drops hold: the KMAC's error ends with that ownership, so the next
    # program's kmac.* instructions start clean (was: the sticky error failed its kmac.acq).
    _then_good(sim)
    # also when the next program starts with other instructions (the release happens while
    # they run), and the KMAC_STATUS error bit reads 0 once granted
    sim.reset()
    sim, h = run("addi x1, x0, 21\nadd x1, x1, x1\nkmac.acq\ncsrrs x5, KMAC_STATUS, x0\n"
                 "kmac.rel\necall\n", sim)
    assert h.ok and sim.gpr.read(1) == 42 and sim.gpr.read(5) & 0b1001 == 0b0001, h
    _then_good(sim)


def test_dig_while_not_squeezing_is_a_kmac_error():
    """digest.ready while the KMAC is not squeezing (before FINISH, or idle) sets the
    side-load's DIGEST_EARLY error one cycle later: kmac.dig presents it for one cycle, sees
    error in its second and halts (was: waited for ever); while a word is still in the KMAC's
    intake register it waits for it first. A declared-length message that is
    complete counts as squeezing: kmac.dig waits for the digest there (test_hashes_match_
    hashlib)."""
    for body in ("kmac.start x1, x0\nkmac.dig w1\n",            # absorbing
                 "kmac.start x1, x0\nkmac.dig1 w1\n",           # share 1: the same error
                 "kmac.start x1, x0\nkmac.msg w0, x3\nkmac.dig w1\n",
                 "kmac.dig w1\n"):                               # granted, no START
        src = "addi x1, x0, 1\naddi x3, x0, -1\nkmac.acq\n" + body + "ecall\n"
        sim, h = run(src, max_cycles=500)
        assert h.reason == "error" and h.err_bits == KMAC_BIT, (body, h)
        assert sim.csr.values["ERR_KMAC"] == ERR_DIGEST_EARLY, body
        # addi x2, acq 3, start 1, dig 1 (error in its second cycle, not counted); with a
        # full word before it: msg 1 + 1 and dig 3 + 1 more (it waits while the word is in the
        # KMAC's intake register, 4 lane steps), the same 5 cycles as msg 4 + 1 before
        want = cyc("addi", "addi") + 3 + ("start" in body) + 5 * ("msg" in body) + 1
        assert h.cycles == want, (body, h.cycles, want)
        assert sim.kmac_hold == 0
        _then_good(sim)


def masked_prog(seed, share1):
    """A masked SHAKE256 (kmac.start grs1[5]) of two words, the first in two shares (kmac.msgm),
    the second public (kmac.msg); two digest words read as share 1 then share 0; URND read
    after it. URND is seeded from DMEM 0; the shares and the public word at 32 / 64 / 96."""
    rng = random.Random(7)
    m1, m2 = rng.randbytes(32), rng.randbytes(32)
    s0 = bytes(a ^ b for a, b in zip(m1, share1))
    dmem = seed + s0 + share1 + m2
    src = "\n".join(["bn.lw w1, 0(x0)", "bn.lw w2, 32(x0)", "bn.lw w3, 64(x0)", "bn.lw w4, 96(x0)",
                     "bn.wsrw URND, w1", *li(1, SHAKE | S256 << 2 | 1 << 5), "addi x3, x0, -1",
                     "kmac.acq", "kmac.start x1, x0", "kmac.msgm w2, w3, x3", "kmac.msg w4, x3",
                     "kmac.finish", "kmac.dig1 w5", "kmac.dig w6", "kmac.dig1 w7", "kmac.dig w8",
                     "kmac.rel", "bn.wsrr w9, URND", "ecall"]) + "\n"
    sim, h = run(src, dmem={0: dmem})
    assert h.ok, h
    return sim, hashlib.shake_256(m1 + m2).digest(64)


def test_masked_operation_gives_the_digest_in_two_shares():
    """Shares XOR to hashlib's digest; share 0 is not the digest and changes with the URND seed
    and with the message's split; the masked START took URND's next 256 bits (the next URND
    read is the 256 after them)."""
    from ip.common.trivium import Trivium
    rng = random.Random(8)
    runs = []
    for seed, share1 in ((rng.randbytes(32), rng.randbytes(32)), (rng.randbytes(32), rng.randbytes(32)),
                         (None, None)):
        if seed is None:                        # the first seed again, another split
            seed, share1 = runs[0][0], rng.randbytes(32)
        sim, ref = masked_prog(seed, share1)
        w = [sim.wdr.read(i).to_bytes(32, "little") for i in range(5, 10)]
        got = bytes(a ^ b for a, b in zip(w[0] + w[2], w[1] + w[3]))
        assert got == ref
        assert w[1] != ref[:32] and w[3] != ref[32:]
        t = Trivium()
        t.seed(int.from_bytes(seed, "little"))
        t.output(256)                           # the KMAC's seed
        assert int.from_bytes(w[4], "little") == t.output(256)
        runs.append((seed, w[1]))
    assert len({r[1] for r in runs}) == 3


def test_unmasked_operation_share_1_reads_zero():
    src = "\n".join([*li(1, SHAKE | S128 << 2), "addi x3, x0, -1", "bn.wsrr w5, URND",
                     "kmac.acq", "kmac.start x1, x0", "kmac.msgm w0, w5, x3", "kmac.finish",
                     "kmac.dig1 w6", "kmac.dig w7", "kmac.rel", "ecall"]) + "\n"
    sim, h = run(src)
    assert h.ok, h
    assert sim.wdr.read(6) == 0                 # share 1 of an unmasked digest
    # unmasked: wrs2 of kmac.msgm is ignored, the word is w0 (zero)
    assert sim.wdr.read(7).to_bytes(32, "little") == hashlib.shake_128(bytes(32)).digest(32)


def test_kmac_without_masked_mode_refuses_a_masked_start():
    """Iss(kmac_masked=False) models a KMAC built without its masked mode (block kmac_unmasked): a masked START is
    refused with MODE, which halts the program with the KMAC error, as on that RTL."""
    from ip.kmac.model.transaction import ERR_MODE
    src = "\n".join([*li(1, SHAKE | S128 << 2 | 1 << 5), "kmac.acq", "kmac.start x1, x0",
                     "addi x0, x0, 0", "addi x0, x0, 0", "kmac.finish", "ecall"]) + "\n"
    sim = Iss(ISA, kmac_masked=False)
    sim, h = run(src, sim=sim)
    assert h.reason == "error" and h.err_bits == KMAC_BIT, h
    assert sim.csr.values["ERR_KMAC"] == ERR_MODE
    sim, h = run(src)                            # the ACC's test tops' KMAC takes it
    assert h.ok, h
