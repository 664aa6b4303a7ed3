# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""KmacCycleModel against the real Kmac RTL (Amaranth simulator, CPU bus idle): a random
side-load master, every output compared in every cycle; digests of clean operations checked
against hashlib / pycryptodome. A third of the operations are masked: every message word split
into two random shares, the digest the XOR of the two it comes in (share 1 asked for first, then
share 0 taken)."""
import random

import pytest
from amaranth.sim import Simulator

from ip.kmac.model.cycle import INPUTS, KmacCycleModel
from ip.kmac.rtl.kmac import Kmac
from ip.kmac.model.transaction import ERR_DIGEST_EARLY, ERR_MASK, ERR_MODE, ERR_OWNER, ERR_SEQUENCE
from ip.kmac.rtl.sideload import OP_FINISH, OP_PAD, OP_START

from ip.kmac.tests.refs import reference

OUTPUTS = ("granted", "cmd_ready", "msg_ready", "digest_valid", "digest_data", "error",
           "error_code")
MODES = [("sha3", 0, 1, 224), ("sha3", 0, 2, 256), ("sha3", 0, 3, 384), ("sha3", 0, 4, 512),
         ("shake", 1, 0, 128), ("shake", 1, 2, 256)]
TIMEOUT = 300


def _ports(sl):
    ins = {"hold": sl.hold, "cmd_valid": sl.cmd.valid, "cmd_op": sl.cmd.op,
           "cmd_mode": sl.cmd.mode, "cmd_strength": sl.cmd.strength,
           "cmd_msg_len": sl.cmd.msg_len, "cmd_masked": sl.cmd.masked, "msg_valid": sl.msg.valid,
           "msg_data": sl.msg.data, "msg_data1": sl.msg.data1, "msg_mask": sl.msg.mask,
           "digest_ready": sl.digest.ready, "digest_share1": sl.digest.share1}
    outs = {"granted": sl.granted, "cmd_ready": sl.cmd.ready, "msg_ready": sl.msg.ready,
            "digest_valid": sl.digest.valid, "digest_data": sl.digest.data,
            "error": sl.error, "error_code": sl.error_code}
    return ins, outs


class Done(Exception):
    pass


class Master:
    """Random side-load master as a generator: yields this cycle's inputs, receives this
    cycle's outputs. Keeps valid and payload stable until ready (the protocol)."""

    def __init__(self, rng, ncycles, kmac_masked=True):
        self.rng = rng
        self.kmac_masked = kmac_masked     # the KMAC has its masked mode (else: refused, MODE)
        self.ncycles = ncycles
        self.inp = {k: 0 for k in INPUTS}
        self.checked = []            # (what, got, expected) of clean operations
        self.stats = {"ops": 0, "clean": 0, "masked": 0, "errors": 0, "releases": 0, "blocks": 0}
        self.cycle = 0
        self.masked = False          # the current operation's START was masked

    def _junk(self):
        """Random payload where it is ignored (valid low)."""
        r = self.rng
        if not self.inp["cmd_valid"]:
            self.inp.update(cmd_op=r.randrange(4), cmd_mode=r.randrange(4),
                            cmd_strength=r.randrange(8), cmd_msg_len=r.getrandbits(32),
                            cmd_masked=r.randrange(2))
        if not self.inp["msg_valid"]:
            # (a masked START's seed is what msg_data holds in its handshake cycle)
            self.inp.update(msg_data=r.getrandbits(256), msg_data1=r.getrandbits(256),
                            msg_mask=r.getrandbits(32))

    def cyc(self):
        self._junk()
        out = yield dict(self.inp)
        self.cycle += 1
        if self.cycle >= self.ncycles:
            raise Done
        return out

    def idle(self, n):
        for _ in range(n):
            out = yield from self.cyc()
        return None if n == 0 else out

    def cmd(self, op, mode=0, strength=0, msg_len=0, with_digest_ready=False, masked=0):
        self.inp.update(cmd_valid=1, cmd_op=op, cmd_mode=mode, cmd_strength=strength,
                        cmd_msg_len=msg_len, cmd_masked=masked)
        for _ in range(TIMEOUT):
            if with_digest_ready:
                self.inp["digest_ready"] = self.rng.random() < 0.5
            out = yield from self.cyc()
            if out["cmd_ready"]:
                break
        else:
            raise AssertionError("cmd never ready")
        self.inp.update(cmd_valid=0, digest_ready=0)

    def msg(self, data: bytes, lo: int, mask=None):
        buf = bytearray(self.rng.randbytes(32))
        buf[lo:lo + len(data)] = data
        if mask is None:
            mask = ((1 << len(data)) - 1) << lo
        word = int.from_bytes(buf, "little")
        share1 = self.rng.getrandbits(256)
        # masked: two random shares; unmasked: data1 is ignored, whatever it holds
        data = word ^ share1 if self.masked else word
        self.inp.update(msg_valid=1, msg_data=data, msg_data1=share1, msg_mask=mask)
        # sometimes offer a command in the same cycles (the word goes first)
        both = self.rng.random() < 0.1
        if both:
            self.inp.update(cmd_valid=1, cmd_op=OP_PAD)
        for _ in range(TIMEOUT):
            out = yield from self.cyc()
            if both and out["cmd_ready"]:
                self.inp["cmd_valid"] = 0
                both = False
            if out["msg_ready"]:
                break
        else:
            raise AssertionError("msg never ready")
        self.inp["msg_valid"] = 0
        if both:                                  # keep the command until taken
            for _ in range(TIMEOUT):
                out = yield from self.cyc()
                if out["cmd_ready"]:
                    break
            self.inp["cmd_valid"] = 0
        return both

    def read(self, nwords, p_ready):
        """Masked: each word's share 1 (digest_share1 until valid), then share 0 (taken).
        Unmasked: share 1 asked for now and then, and it reads 0."""
        out_bytes = bytearray()
        share1 = None
        for _ in range(TIMEOUT * 4):
            if len(out_bytes) >= 32 * nwords:
                break
            r = self.rng.random()
            peek = share1 is None if self.masked else r < 0.1
            self.inp["digest_share1"] = int(peek)
            self.inp["digest_ready"] = int(not peek and r < p_ready)
            out = yield from self.cyc()
            if not out["digest_valid"]:
                continue
            if peek:
                share1 = out["digest_data"]
                assert self.masked or share1 == 0, "share 1 of an unmasked digest"
            elif self.inp["digest_ready"]:
                out_bytes += (out["digest_data"] ^ (share1 or 0)).to_bytes(32, "little")
                share1 = None
        else:
            raise AssertionError("digest stalled")
        self.inp.update(digest_ready=0, digest_share1=0)
        return bytes(out_bytes)

    def acquire(self):
        self.inp["hold"] = 1
        for i in range(10):
            out = yield from self.cyc()
            if out["granted"]:
                # every acquisition starts clean (the release / grant clear error); granted
                # at once: release(0) never dropped hold, the ownership goes on
                assert i == 0 or not out["error"], (self.cycle, out["error_code"])
                return
        raise AssertionError("no grant")

    def release(self, gap):
        self.inp.update(hold=0, cmd_valid=0, msg_valid=0, digest_ready=0)
        self.stats["releases"] += 1
        yield from self.idle(gap)

    def operation(self):
        """One random operation; returns early (with a release) at random points."""
        r = self.rng
        name, mode, sc, strength = r.choice(MODES)
        big = r.random() < 0.4
        msg = r.randbytes(r.choice([0, 1, 7, 8, 31, 32, 33]) if not big
                          else r.randrange(100, 400))
        declared = r.random() < 0.3 and len(msg) > 0
        pad_at = r.randrange(len(msg) + 1) if (r.random() < 0.15 and mode == 1) else None
        bail = r.random() < 0.15                   # release somewhere in the middle
        misuse = r.choice([None] * 8 + ["mask", "finish_early", "op0", "mode", "msg_idle",
                                         "dig_early"])
        self.stats["ops"] += 1
        masked = int(r.random() < 0.33)
        if masked and not self.kmac_masked:
            misuse = "masked"                      # refused (MODE): no digest comes
        if misuse == "msg_idle":                   # message before START: SEQUENCE
            yield from self.msg(b"x", 0)
        if misuse == "mode":
            yield from self.cmd(OP_START, r.choice([0, 3]), r.choice([0, 5, 6, 7]))
            yield from self.idle(r.randrange(3))
        yield from self.cmd(OP_START, mode, sc, len(msg) if declared else 0, masked=masked)
        self.masked = bool(masked)
        self.stats["masked"] += masked
        yield from self.idle(r.choice([0, 0, 1, 5]))
        i = 0
        padded = False
        while i < len(msg):
            if pad_at is not None and i >= pad_at and not padded:
                yield from self.cmd(OP_PAD)
                padded = True
            n = r.randint(1, min(32, len(msg) - i)) if r.random() < 0.6 else min(32, len(msg) - i)
            lo = r.randint(0, 32 - n) if r.random() < 0.5 else 0
            if misuse == "mask" and r.random() < 0.3:
                yield from self.msg(msg[i:i + n], lo, mask=0b101 << lo if lo < 29 else 0)
                misuse = "done"
                break
            if (yield from self.msg(msg[i:i + n], lo)):
                misuse = "both"                   # a PAD went with it (maybe after the end)
            i += n
            if r.random() < 0.2:
                yield from self.idle(r.randrange(1, 6))
            if bail and r.random() < 0.2:
                yield from self.release(r.randrange(0, 4))
                yield from self.acquire()
                return
        if misuse == "dig_early":                 # digest.ready while absorbing: DIGEST_EARLY
            # (no error when a declared-length message is complete: it waits, squeezing);
            # asking for share 1 is the same error
            self.inp[r.choice(["digest_ready", "digest_share1"])] = 1
            yield from self.cyc()
            self.inp.update(digest_ready=0, digest_share1=0)
        if misuse == "finish_early" and declared:
            yield from self.cmd(OP_FINISH)        # declared length reached: SEQUENCE
        elif misuse == "op0":
            yield from self.cmd(0)
        if not declared:
            yield from self.cmd(OP_FINISH, with_digest_ready=r.random() < 0.3)
        if bail and r.random() < 0.5:
            yield from self.idle(r.randrange(0, 30))
            yield from self.release(r.randrange(0, 4))
            yield from self.acquire()
            return
        outlen = 32 * r.choice([1, 1, 2, 6, 12]) if mode == 1 else 32 * ((strength // 8 + 31) // 32)
        if misuse is None:
            # sometimes only part of the stream: the next START comes while it still shifts
            nread = outlen // 32 if r.random() < 0.7 else r.randrange(outlen // 32 + 1)
            got = yield from self.read(nread, r.choice([0.2, 0.7, 1.0]))
            if pad_at is None and nread:
                want = reference(name, strength, msg, outlen if name == "shake" else strength // 8)
                want = want[:len(got)]
                self.checked.append(((name, strength, len(msg), masked), got[:len(want)], want))
                self.stats["clean"] += 1
        else:
            # after an error the digest never comes: just idle a little
            yield from self.idle(r.randrange(3, 40))
            self.stats["errors"] += 1

    def run(self):
        r = self.rng
        try:
            # not granted: requests are consumed and flagged OWNER
            yield from self.cmd(OP_START, 1, 0)
            yield from self.idle(3)
            while True:
                yield from self.acquire()
                for _ in range(r.randrange(1, 4)):
                    yield from self.operation()
                    yield from self.idle(r.choice([0, 0, 1, 3]))
                yield from self.release(r.choice([0, 0, 1, 2, 5, 30]))
                if r.random() < 0.15:               # misuse while not holding
                    yield from self.msg(b"zz", 3)
                    yield from self.idle(2)
        except Done:
            return


def cosim(seed, ncycles, masked=True):
    dut = Kmac(masked=masked)
    model = KmacCycleModel(masked=masked)
    rng = random.Random(seed)
    master = Master(rng, ncycles, kmac_masked=masked)
    res = {"mismatch": None, "errcodes": set(), "max_ready_wait": 0}

    async def bench(ctx):
        ins, outs = _ports(dut.sideload)
        gen = master.run()
        inp = next(gen)
        for cyc in range(ncycles + 5):
            for k, sig in ins.items():
                ctx.set(sig, int(inp[k]))
            got = {k: ctx.get(s) for k, s in outs.items()}
            exp = model.outputs(inp)
            if got != exp:
                diff = {k: (got[k], exp[k]) for k in OUTPUTS if got[k] != exp[k]}
                res["mismatch"] = (cyc, inp, diff)
                return
            res["errcodes"].add(got["error_code"])
            model.tick(inp)
            await ctx.tick()
            try:
                inp = gen.send(got)
            except StopIteration:
                return

    sim = Simulator(dut)
    sim.add_clock(1e-8)
    sim.add_testbench(bench)
    sim.run()
    return master, res


@pytest.mark.parametrize("seed,ncycles,masked", [(1, 7000, True), (2, 7000, True), (4, 4000, False)])
def test_cycle_model_matches_rtl(seed, ncycles, masked):
    """masked=False: a KMAC built without its masked mode (block kmac_unmasked), which refuses a masked START."""
    master, res = cosim(seed, ncycles, masked)
    assert res["mismatch"] is None, res["mismatch"]
    bad = [(w, g.hex(), e.hex()) for w, g, e in master.checked if g != e]
    assert not bad, bad
    assert master.stats["clean"] >= 3, master.stats
    # the random master reached the error paths too
    assert ERR_OWNER in res["errcodes"], (res["errcodes"], master.stats)
    assert any(c & ERR_DIGEST_EARLY for c in res["errcodes"]), res["errcodes"]
    if not masked:                   # its masked STARTs were refused
        assert any(c & ERR_MODE for c in res["errcodes"]), res["errcodes"]
    else:
        assert master.stats["masked"] >= 10, master.stats


def _scripted(script):
    """Run a fixed list of per-cycle inputs through model and RTL; return model outputs."""
    dut = Kmac(masked=True)
    model = KmacCycleModel()
    log = []

    async def bench(ctx):
        ins, outs = _ports(dut.sideload)
        for inp in script:
            full = {k: inp.get(k, 0) for k in INPUTS}
            for k, sig in ins.items():
                ctx.set(sig, int(full[k]))
            got = {k: ctx.get(s) for k, s in outs.items()}
            assert got == model.outputs(full), (len(log), got, model.outputs(full))
            log.append(got)
            model.tick(full)
            await ctx.tick()

    sim = Simulator(dut)
    sim.add_clock(1e-8)
    sim.add_testbench(bench)
    sim.run()
    return log


def test_combinational_paths_and_error_codes():
    """cmd_ready falls with msg_valid in the same cycle; msg_ready is the intake register's
    "empty" (it never follows the offered mask); errors are sticky and cleared by the next
    accepted START."""
    H = {"hold": 1}
    start = dict(H, cmd_valid=1, cmd_op=OP_START, cmd_mode=1, cmd_strength=0)
    script = [H, H, H, start, H,
              dict(H, cmd_valid=1, cmd_op=OP_FINISH, msg_valid=1, msg_mask=1),  # word first
              H, dict(H, msg_valid=1, msg_mask=0b101), H, H, H,                 # bad mask
              dict(H, cmd_valid=1, cmd_op=OP_FINISH), H, H, H,
              start, H, H, dict(H, cmd_valid=1, cmd_op=OP_FINISH, cmd_msg_len=0), H, H]
    log = _scripted(script)
    assert log[0]["granted"] == 0 and log[1]["granted"] == 1      # hold seen in 0: granted in 1
    assert log[5]["cmd_ready"] == 0 and log[5]["msg_ready"] == 1  # the word goes first
    assert log[6]["cmd_ready"] == 0 and log[6]["msg_ready"] == 0  # packed from the register
    assert log[7]["msg_ready"] == 1                       # its 1 byte went in cycle 6
    assert log[8]["msg_ready"] == 0                       # bad mask: checked in the register
    assert log[9]["msg_ready"] == 1                       # refused word consumed at once
    assert log[9]["error"] == 0 and log[10]["error_code"] == ERR_MASK    # 3 cycles after taken
    assert log[12]["cmd_ready"] == 0                      # state wipe after the abort
    assert log[13]["error_code"] == ERR_MASK | ERR_SEQUENCE              # sticky, OR-ed
    assert log[15]["error"] == 1 and log[16]["error"] == 0               # cleared by START


def _reactive(genfn):
    """Run a side-load master generator (yields inputs, receives that cycle's outputs)
    through model and RTL, comparing every output in every cycle."""
    dut = Kmac(masked=True)
    model = KmacCycleModel()

    async def bench(ctx):
        ins, outs = _ports(dut.sideload)
        gen = genfn()
        inp = next(gen)
        ncyc = 0
        while True:
            full = {k: int(inp.get(k, 0)) for k in INPUTS}
            for k, sig in ins.items():
                ctx.set(sig, full[k])
            got = {k: ctx.get(s) for k, s in outs.items()}
            assert got == model.outputs(full), (ncyc, full, got, model.outputs(full))
            model.tick(full)
            await ctx.tick()
            ncyc += 1
            assert ncyc < 5000
            try:
                inp = gen.send(got)
            except StopIteration:
                return

    sim = Simulator(dut)
    sim.add_clock(1e-8)
    sim.add_testbench(bench)
    sim.run()


def _until(inp, cond):
    """Present inp until cond(outputs) holds in a cycle (that cycle included)."""
    for _ in range(TIMEOUT):
        out = yield inp
        if cond(out):
            return out
    raise AssertionError(("timeout", inp))


def _hash(mode, strength, msg, nwords, H, with_start=None):
    """One SHAKE/SHA3 operation on the side-load (32-byte aligned words, FINISH); returns the
    first nwords digest words as bytes. with_start: extra inputs presented with the START."""
    yield from _until(dict(H, cmd_valid=1, cmd_op=OP_START, cmd_mode=mode,
                           cmd_strength=strength, **(with_start or {})),
                      lambda o: o["cmd_ready"])
    for i in range(0, len(msg), 32):
        part = msg[i:i + 32]
        yield from _until(dict(H, msg_valid=1, msg_data=int.from_bytes(part, "little"),
                               msg_mask=(1 << len(part)) - 1), lambda o: o["msg_ready"])
    yield from _until(dict(H, cmd_valid=1, cmd_op=OP_FINISH), lambda o: o["cmd_ready"])
    out = b""
    for _ in range(nwords):
        o = yield from _until(dict(H, digest_ready=1), lambda o: o["digest_valid"])
        out += o["digest_data"].to_bytes(32, "little")
    return out


@pytest.mark.parametrize("wait,gap", [(0, 0), (20, 0), (20, 2), (20, "with_take"),
                                      (20, "in_take")])
def test_start_while_squeezing_restarts_output(wait, gap):
    """A START accepted while the previous output is still shifting (obuf lanes left, the
    digest word half assembled) begins from a clean output path: the new digest stream is
    right from its first word (was: the shift overrode START's abort and old lanes leaked
    in). wait: cycles after 2 words (20: the refill permutation is over, START is taken at
    once); then a third word is taken and START follows `gap` cycles later, or is presented
    with the digest.ready from the first cycle (with_take) or from the take cycle (in_take)."""
    H = {"hold": 1}
    rng = random.Random(wait)
    m1, m2 = rng.randbytes(50), rng.randbytes(70)
    res = {}

    def gen():
        yield from _until(H, lambda o: o["granted"])
        res["a"] = yield from _hash(1, 0, m1, 2, H)      # SHAKE128: takes 2 of 5.25 words
        for _ in range(wait):
            yield H
        extra = None
        if gap == "with_take":
            extra = {"digest_ready": 1}
        elif gap == "in_take":
            yield from _until(H, lambda o: o["digest_valid"])
            extra = {"digest_ready": 1}
        else:
            yield from _until(dict(H, digest_ready=1), lambda o: o["digest_valid"])
            for _ in range(gap):
                yield H
        res["b"] = yield from _hash(1, 0, m2, 8, H, extra)   # obuf lanes left, shifting
        res["c"] = yield from _hash(0, 2, b"", 1, H)     # after 8 words: mid-block again
        out = yield H
        res["err"] = out["error"]

    _reactive(gen)
    assert res["a"] == reference("shake", 128, m1, 64)
    assert res["b"] == reference("shake", 128, m2, 256)
    assert res["c"] == reference("sha3", 256, b"", 32)
    assert res["err"] == 0


def test_release_clears_side_load_error():
    """error / error_code belong to one ownership: the release clears them (and the grant
    drops older ones), so the next acquisition starts with error = 0."""
    H = {"hold": 1}
    log = {}

    def gen():
        yield from _until(H, lambda o: o["granted"])
        yield from _until(dict(H, cmd_valid=1, cmd_op=OP_START, cmd_mode=1),
                          lambda o: o["cmd_ready"])
        yield from _until(dict(H, msg_valid=1, msg_mask=0b101), lambda o: o["msg_ready"])
        yield H
        yield H
        out = yield H
        log["err"] = out["error_code"]                   # 3 cycles after the refused word
        out = yield {"hold": 0}                          # release cycle: still shown
        log["rel"] = out["error_code"]
        out = yield {}
        log["after"] = (out["granted"], out["error"])
        yield {"msg_valid": 1, "msg_mask": 1}            # not holding: OWNER (consumed)
        out = yield {}
        log["own"] = out["error_code"]
        out = yield from _until(H, lambda o: o["granted"])
        log["grant"] = out["error"]                      # the grant dropped the OWNER code
        log["b"] = yield from _hash(1, 2, b"next", 1, H)
        out = yield H
        log["end"] = out["error"]

    _reactive(gen)
    assert log == {"err": ERR_MASK, "rel": ERR_MASK, "after": (0, 0), "own": ERR_OWNER,
                   "grant": 0, "b": reference("shake", 256, b"next", 32), "end": 0}


def test_digest_ready_while_not_squeezing_is_an_error():
    """digest.ready outside SQUEEZE (and not with a complete declared-length message) sets
    DIGEST_EARLY one cycle later and is consumed; while squeezing it just waits."""
    H = {"hold": 1}
    log = []

    def gen():
        yield from _until(H, lambda o: o["granted"])
        yield dict(H, digest_ready=1)                    # IDLE
        out = yield H
        log.append(out["error_code"])
        yield from _until(dict(H, cmd_valid=1, cmd_op=OP_START, cmd_mode=1, cmd_msg_len=3),
                          lambda o: o["cmd_ready"])
        out = yield H
        log.append(out["error_code"])                    # START cleared it
        yield dict(H, digest_ready=1)                    # ABSORB
        out = yield H
        log.append(out["error_code"])
        yield from _until(dict(H, cmd_valid=1, cmd_op=OP_START, cmd_mode=1, cmd_msg_len=3),
                          lambda o: o["cmd_ready"])
        # declared length reached: squeezing from the cycle after the word's first cycle
        yield from _until(dict(H, msg_valid=1, msg_data=0x636261, msg_mask=0b111),
                          lambda o: o["msg_ready"])
        o = yield from _until(dict(H, digest_ready=1), lambda o: o["digest_valid"] or o["error"])
        log.append((o["error"], o["digest_data"].to_bytes(32, "little")))

    _reactive(gen)
    assert log == [ERR_DIGEST_EARLY, 0, ERR_DIGEST_EARLY,
                   (0, reference("shake", 128, b"abc", 32))]


def test_tick_idle_fast_path_equals_tick():
    """Model only: tick_idle (used by the ISS) changes exactly what tick would."""
    master = Master(random.Random(7), 6000)
    a, b = KmacCycleModel(), KmacCycleModel()
    gen = master.run()
    inp = next(gen)
    idle = {k: 0 for k in INPUTS}
    try:
        while True:
            out = a.outputs(inp)
            assert out == b.outputs(inp)
            a.tick(inp)
            if not (inp["cmd_valid"] or inp["msg_valid"] or inp["digest_ready"]):
                b.tick_idle(inp["hold"])
                assert all(getattr(a, k) == getattr(b, k) for k in vars(a)), a.cycle
            else:
                b.tick(inp)
            inp = gen.send(out)
    except StopIteration:
        pass
    assert idle


def test_intake_register_word_timing():
    """The side-load message word goes through the KMAC's intake register: msg_ready is that
    register's "empty" (no path from the offered mask or data), the word is packed from the
    register from the next cycle on, so the master may change data and mask right after the
    handshake, and back-to-back full aligned words are taken every 5 cycles (1 cycle into the
    register, 4 lane steps) until a rate block completes (SHA3-256: 136 bytes, the 5th word
    waits for the permutation, so the 6th is taken late)."""
    H = {"hold": 1}
    msg = random.Random(5).randbytes(32 * 6)
    taken = []
    res = {}

    def gen():
        yield from _until(H, lambda o: o["granted"])
        yield from _until(dict(H, cmd_valid=1, cmd_op=OP_START, cmd_mode=0, cmd_strength=2),
                          lambda o: o["cmd_ready"])
        cyc = 0
        for i in range(0, len(msg), 32):
            while True:
                out = yield dict(H, msg_valid=1, msg_data=int.from_bytes(msg[i:i + 32], "little"),
                                 msg_mask=0xFFFF_FFFF)
                cyc += 1
                if out["msg_ready"]:
                    taken.append(cyc)
                    break
            out = yield dict(H, msg_data=(1 << 256) - 1, msg_mask=0b101)   # junk, not valid
            cyc += 1
            assert out["msg_ready"] == 0 and out["cmd_ready"] == 0
        yield from _until(dict(H, cmd_valid=1, cmd_op=OP_FINISH), lambda o: o["cmd_ready"])
        o = yield from _until(dict(H, digest_ready=1), lambda o: o["digest_valid"])
        res["digest"] = o["digest_data"].to_bytes(32, "little")
        out = yield H
        res["err"] = out["error"]

    _reactive(gen)
    steps = [b - a for a, b in zip(taken, taken[1:])]
    assert steps[:4] == [5, 5, 5, 5], taken
    assert steps[4] > 5 + 20, taken                      # the block's permutation (24 cycles)
    assert res == {"digest": reference("sha3", 256, msg, 32), "err": 0}

    # the outputs of a cycle do not depend on the word offered in it
    model = KmacCycleModel()
    model.tick(H)
    for mask in (0, 1, 0b101, 0xFFFF_FFFF):
        assert model.outputs(dict(H, msg_valid=1, msg_mask=mask, msg_data=mask)) == \
            model.outputs(dict(H, msg_valid=1))
