# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""The KMAC's masked mode on the side-load port (ip/kmac/rtl/sponge.py, kmac.py): digests as the
XOR of two shares equal to hashlib's, shares that change with the seed and the message's split,
the latency the cycle model states, the wipe, and a build without the masked core refusing it.
RTL and cycle model run in lock step (every output, every cycle) in the first tests."""
import random

import pytest
from amaranth.sim import Simulator

from ip.kmac.model.cycle import INPUTS, MASKED_CYCLES, NROUNDS
from ip.kmac.model.transaction import ERR_MODE
from ip.kmac.rtl.kmac import Kmac
from ip.kmac.rtl.sideload import OP_FINISH, OP_START
from ip.kmac.tests.refs import reference
from ip.kmac.tests.test_cycle_model import _ports, _reactive, _until

H = {"hold": 1}
CASES = [("sha3", 0, 2, 256, 32), ("sha3", 0, 4, 512, 64), ("shake", 1, 0, 128, 200),
         ("shake", 1, 2, 256, 96)]


def _masked_hash(rng, mode, strength, msg, nbytes, seed, log):
    """One masked operation (random share split of every word); appends to log the digest's two
    shares and the cycles from the FINISH handshake to the first digest word."""
    yield from _until(dict(H, cmd_valid=1, cmd_op=OP_START, cmd_mode=mode, cmd_strength=strength,
                           cmd_masked=1, msg_data=seed), lambda o: o["cmd_ready"])
    for i in range(0, len(msg), 32):
        part = msg[i:i + 32]
        word = int.from_bytes(part, "little")
        r = rng.getrandbits(256)
        yield from _until(dict(H, msg_valid=1, msg_data=word ^ r, msg_data1=r,
                               msg_mask=(1 << len(part)) - 1), lambda o: o["msg_ready"])
    yield from _until(dict(H, cmd_valid=1, cmd_op=OP_FINISH), lambda o: o["cmd_ready"])
    s0, s1, wait = b"", b"", 0
    while len(s0) < nbytes:
        o = yield dict(H, digest_share1=1)          # share 1 of the word, not taken
        if not o["digest_valid"]:
            wait += 0 if s0 else 1
            assert wait < 200
            continue
        s1 += o["digest_data"].to_bytes(32, "little")
        o = yield dict(H, digest_ready=1)           # then share 0, taken
        assert o["digest_valid"]
        s0 += o["digest_data"].to_bytes(32, "little")
    log.append((s0[:nbytes], s1[:nbytes], wait))


@pytest.mark.parametrize("name,mode,strength,bits,nbytes", CASES)
def test_masked_digest_is_the_reference_in_two_shares(name, mode, strength, bits, nbytes):
    rng = random.Random(bits + mode)
    msg = rng.randbytes(150)           # more than one SHA3-512 / SHAKE256 block
    log = []

    def gen():
        yield H
        yield H
        for _ in range(2):             # the same message, another seed and split
            yield from _masked_hash(rng, mode, strength, msg, nbytes, rng.getrandbits(256), log)

    _reactive(gen)
    want = reference(name, bits, msg, nbytes)
    (a0, a1, wait), (b0, b1, _) = log
    assert bytes(x ^ y for x, y in zip(a0, a1)) == want
    assert bytes(x ^ y for x, y in zip(b0, b1)) == want
    # a masked digest: neither share is the digest, and share 0 changes with seed and split
    assert a0 != want and a1 != want and a0 != b0
    # FINISH's permutation and the copy / 4 shifts: 97 cycles a permutation instead of 24
    assert wait == MASKED_CYCLES + 5 and MASKED_CYCLES == 4 * NROUNDS + 1


def test_unmasked_operation_ignores_share_1_and_gives_none():
    """Unmasked START: msg_data1 (random here) changes nothing, share 1 of the digest reads 0."""
    rng = random.Random(5)
    msg = rng.randbytes(40)
    out = []

    def gen():
        yield H
        yield from _until(dict(H, cmd_valid=1, cmd_op=OP_START, cmd_mode=1, cmd_strength=0),
                          lambda o: o["cmd_ready"])
        for i in range(0, len(msg), 32):
            part = msg[i:i + 32]
            yield from _until(dict(H, msg_valid=1, msg_data=int.from_bytes(part, "little"),
                                   msg_data1=rng.getrandbits(256), msg_mask=(1 << len(part)) - 1),
                              lambda o: o["msg_ready"])
        yield from _until(dict(H, cmd_valid=1, cmd_op=OP_FINISH), lambda o: o["cmd_ready"])
        o1 = yield from _until(dict(H, digest_share1=1), lambda o: o["digest_valid"])
        o = yield dict(H, digest_ready=1)
        out.append((o["digest_data"], o1["digest_data"]))

    _reactive(gen)
    assert out == [(int.from_bytes(reference("shake", 128, msg, 32), "little"), 0)]


def _run(dut, script):
    """Present per-cycle inputs; returns each cycle's outputs and, at the end, the probes."""
    log, probes = [], {}

    async def bench(ctx):
        ins, outs = _ports(dut.sideload)
        for inp in script:
            full = {k: int(inp.get(k, 0)) for k in INPUTS}
            for k, sig in ins.items():
                ctx.set(sig, full[k])
            log.append({k: ctx.get(s) for k, s in outs.items()})
            await ctx.tick()
        eng = dut.engine
        if eng.mcore is not None:
            probes.update(state0=ctx.get(eng.mcore.state0), state1=ctx.get(eng.mcore.state1),
                          c0=ctx.get(eng.mcore.c0), c1=ctx.get(eng.mcore.c1))
        else:
            probes["core"] = ctx.get(eng.core.state)

    sim = Simulator(dut)
    sim.add_clock(1e-8)
    sim.add_testbench(bench)
    sim.run()
    return log, probes


def test_release_wipes_both_shares():
    """Dropping hold in the middle of a masked operation (message absorbed, permutation running)
    zeroes both shares of the state once the core is idle."""
    start = dict(H, cmd_valid=1, cmd_op=OP_START, cmd_mode=1, cmd_strength=2, cmd_masked=1,
                 msg_data=0x1234)
    word = dict(H, msg_valid=1, msg_data=(1 << 256) - 1, msg_data1=0x5A5A << 100,
                msg_mask=0xFFFF_FFFF)
    script = [H, H, start, H, word] + [H] * 6 + [dict(H, cmd_valid=1, cmd_op=2)] + [H] * 10
    script += [{}] * (MASKED_CYCLES + 10)
    log, probes = _run(Kmac(masked=True), script)
    assert any(o["granted"] for o in log) and not any(o["error"] for o in log)
    assert probes == {"state0": 0, "state1": 0, "c0": 0, "c1": 0}


def test_build_without_masked_core_refuses_masked_start():
    start = dict(H, cmd_valid=1, cmd_op=OP_START, cmd_mode=1, cmd_strength=0, cmd_masked=1)
    log, _ = _run(Kmac(masked=False), [H, H, start, H, H, H])
    assert log[-1]["error"] == 1 and log[-1]["error_code"] == ERR_MODE
