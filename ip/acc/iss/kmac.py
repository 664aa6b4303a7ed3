# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""kmac.* instructions: the side-load master, cycle by cycle against `ip.kmac.model.cycle`.

The core's side of the port (the RTL core is built to this rule):
- a `hold` flop drives the KMAC's hold; kmac.acq sets it at the end of its first cycle,
  kmac.rel, ecall and every error halt clear it at the end of their cycle;
- cmd.valid / msg.valid / digest.ready (digest.share1) are 1 only in the cycles of
  kmac.start|pad|finish, kmac.msg|msgm, kmac.dig (kmac.dig1) (payload = the operands; a masked
  kmac.start's msg.data = URND's next 256 bits, stepped at the handshake) and only while
  hold = 1 and error = 0: in the cycle that detects a KMAC error no request is presented;
- such an instruction presents its request each cycle and completes in the first cycle with
  the handshake (valid & ready); its cycle count is the number of cycles presented; kmac.dig
  writes wrd with digest.data of that cycle;
- kmac.acq completes in the first cycle, from its second on, in which granted = 1;
- KMAC error: start/pad/finish/msg/dig with hold = 0 (first cycle), acq with hold = 1 (first
  cycle), or error = 1 from the KMAC in any cycle of a kmac.* instruction other than rel
  (while hold = 1); ERR_KMAC = error_code (0 for the core's own checks).
The cycles before the detecting one count (sim.py: the detecting cycle itself does not).
The KMAC side (ip/kmac/doc/spec.md): error clears when hold drops (every acquisition starts
clean); digest.ready (or share1) while not squeezing is answered with DIGEST_EARLY, so kmac.dig
(kmac.dig1) before FINISH halts in its second cycle instead of waiting.
"""
import copy

from ip.kmac.model.cycle import IDLE_INPUTS
from ip.kmac.rtl.sideload import OP_FINISH, OP_PAD, OP_START

from ip.acc.iss.errors import AccError
from ip.acc.iss.stream_unit import B2A_MODE, INTERVAL_MODE, MASKED_MODES


class CycleLimit(Exception):
    """The run's cycle limit was reached while an instruction waited on the KMAC."""


def _kmac_error(s, k, code, msg):
    s._kmac_cycles = k                # waited cycles before the detecting one
    s._err_kmac = code
    raise AccError("KMAC", msg)


def _inputs(s, **req):
    inp = dict(IDLE_INPUTS)
    inp["hold"] = s.kmac_hold
    inp.update(req)
    return inp


def _check_limit(s, k):
    if s._limit is not None and s._cycle_base + k >= s._limit:
        s._kmac_cycles = k
        raise CycleLimit()


def _kmac_cycle(s, k, **req):
    """Cycle k of a kmac.* instruction with request `req` (none: idle inputs): the cycle limit,
    then the KMAC's error (a register: no input dependence) faults, else the KMAC and the stream
    unit run one cycle; returns the cycle's KMAC outputs."""
    _check_limit(s, k)
    out = s.kmac.outputs(_inputs(s))
    if out["error"]:
        _kmac_error(s, k, out["error_code"], f"KMAC reported error_code {out['error_code']:#x}")
    return s._cycle(_inputs(s, **req))


def _transfer(s, req, handshake):
    """Present `req` until `handshake(outputs)`; returns the handshake cycle's outputs."""
    if not s.kmac_hold:
        _kmac_error(s, 0, 0, f"{s.insn.mnemonic} without holding the KMAC port (kmac.acq)")
    k = 0
    while True:
        out = _kmac_cycle(s, k, **req)
        k += 1
        if handshake(out):
            s._kmac_cycles = k
            return out


def kmac_acq(s, o):
    if s.kmac_hold:
        _kmac_error(s, 0, 0, "kmac.acq while already holding the KMAC port")
    s._cycle(_inputs(s))                          # first cycle: hold still 0
    s.kmac_hold = 1
    k = 1
    while True:
        out = _kmac_cycle(s, k)
        k += 1
        if out["granted"]:
            s._kmac_cycles = k
            return None


def _unit_owns_stream(s):
    if s.stream_unit.busy:
        _kmac_error(s, 0, 0, f"{s.insn.mnemonic} while the stream unit takes the digest stream")


def kmac_rel(s, o):
    _unit_owns_stream(s)
    s._cycle(_inputs(s))
    s.kmac_hold = 0
    s._kmac_cycles = 1


def _cmd(op):
    def run(s, o):
        req = {"cmd_valid": 1, "cmd_op": op}
        masked = False
        if op == OP_START:
            v = s.gpr.read(o["grs1"])
            masked = bool(v >> 5 & 1)
            req.update(cmd_mode=v & 3, cmd_strength=(v >> 2) & 7, cmd_masked=int(masked),
                       cmd_msg_len=s.gpr.read(o["grs2"]))
            if masked:     # the seed: URND's next 256 bits, on msg.data until the handshake
                s.random.check_free("a masked kmac.start")
                req["msg_data"] = copy.copy(s.random.urnd).output(256)
        _transfer(s, req, lambda out: out["cmd_ready"])
        if masked:         # taken: URND steps as for a URND WSR read
            s.random.urnd.output(256)
    return run


def kmac_msg(s, o):
    share1 = s.wdr.read(o["wrs2"]) if "wrs2" in o else 0      # kmac.msgm; kmac.msg: public
    req = {"msg_valid": 1, "msg_data": s.wdr.read(o["wrs"] if "wrs" in o else o["wrs1"]),
           "msg_data1": share1, "msg_mask": s.gpr.read(o["grs1"])}
    _transfer(s, req, lambda out: out["msg_ready"])
    # completes in the cycle after the handshake (the core registers msg.ready), presenting
    # no request in it; a KMAC error showing in that cycle faults like in any other. The KMAC
    # model packs the word from its intake register from that cycle on (ip/kmac/model/cycle.py)
    _kmac_cycle(s, s._kmac_cycles)
    s._kmac_cycles += 1


def kmac_dig(s, o):
    _unit_owns_stream(s)
    out = _transfer(s, {"digest_ready": 1}, lambda out: out["digest_valid"])
    s.wdr.write(o["wrd"], out["digest_data"])


def kmac_dig1(s, o):
    """Share 1 of the current digest word: digest.share1 until valid, nothing taken."""
    _unit_owns_stream(s)
    out = _transfer(s, {"digest_share1": 1}, lambda out: out["digest_valid"])
    s.wdr.write(o["wrd"], out["digest_data"])


EXEC = {
    "kmac.acq": kmac_acq,
    "kmac.rel": kmac_rel,
    "kmac.start": _cmd(OP_START),
    "kmac.pad": _cmd(OP_PAD),
    "kmac.finish": _cmd(OP_FINISH),
    "kmac.msg": kmac_msg,
    "kmac.msgm": kmac_msg,
    "kmac.dig": kmac_dig,
    "kmac.dig1": kmac_dig1,
}


def kmac_status(s) -> int:
    """KMAC_STATUS CSR in an idle cycle: granted, msg ready, digest valid, error."""
    out = s.kmac.outputs(_inputs(s))
    return (out["granted"] | out["msg_ready"] << 1 | out["digest_valid"] << 2
            | out["error"] << 3)


# ------------------------------------------------------------------------------ stream unit
# smp.run checks (SAMPLER, in its only cycle) and starts the unit in that cycle; smp.wait
# stalls until the unit is idle, and faults (SAMPLER, ERR_KMAC = error_code) if the KMAC shows
# an error while the unit still works (e.g. DIGEST_EARLY: the unit was started before FINISH).
SMP_IMPLEMENTED = 6                   # modes 0..5: uni12 uni23 cbd2 cbd3 eta2 eta4
# and the masked modes (stream_unit.MASKED_MODES: cbd2m cbd3m b2a1m; INTERVAL_MODE: intm), VMODE 0 only


def smp_run(s, o):
    from ip.acc.iss.errors import AccError
    cfg = s.csr.values["SMP_CFG"]
    dst = s.gpr.read(o["grs1"])
    count = s.gpr.read(o["grs2"])
    vmode = s.csr.values["VMODE"] & 1
    lanes = 8 if vmode else 16
    interval = o["mode"] == INTERVAL_MODE
    masked = o["mode"] in MASKED_MODES or interval
    words = 2 if interval else -(-count // lanes) * (2 if masked and not vmode else 1)
    if s.stream_unit.busy:
        raise AccError("SAMPLER", "smp.run while the stream unit is busy")
    if masked and vmode:
        raise AccError("SAMPLER", f"mode {s.insn.operands['mode'].values[o['mode']]} needs "
                       "VMODE 0 (ML-KEM's q)")
    if o["mode"] >= SMP_IMPLEMENTED and not masked:
        raise AccError("SAMPLER", f"mode {s.insn.operands['mode'].values[o['mode']]} is not "
                       "implemented in this stream unit")
    if cfg & 0x60:
        raise AccError("SAMPLER", "SMP_CFG source DMEM / sink KMAC are not implemented")
    if not 1 <= count <= 0xFFFF:
        raise AccError("SAMPLER", f"count {count} outside 1..65535")
    if dst % 32 or dst + 32 * words > s.dmem.size:
        raise AccError("SAMPLER", f"destination {dst:#x} + {words} words misaligned or outside DMEM")
    src = s.csr.values["SMP_SRC"]
    if o["mode"] == B2A_MODE:
        if count > 256:
            raise AccError("SAMPLER", f"b2a1m converts one word of bits: count {count} > 256")
        if src % 32 or src + 96 > s.dmem.size:
            raise AccError("SAMPLER", f"b2a1m's source {src:#x} (3 words: share 0, a public "
                           "word, share 1) misaligned or outside DMEM")
    elif interval:
        n = count // 16
        if count % 16 or count > 256:
            raise AccError("SAMPLER", f"intm takes whole words of 16 coefficients, at most 16: count {count}")
        if src % 32 or src + 64 * n > s.dmem.size:
            raise AccError("SAMPLER", f"intm's source {src:#x} ({n} words of share 0, then {n} of share 1) "
                           "misaligned or outside DMEM")
        pub, pub_words = (cfg >> 8) & 0xFFF, 1 if (cfg >> 7) & 1 else n
        if 32 * (pub + pub_words) > s.dmem.size:
            raise AccError("SAMPLER", f"intm's public words (SMP_CFG[19:8] = {pub}, {pub_words} words) "
                           "outside DMEM")
    elif not s.kmac_hold:
        raise AccError("SAMPLER", "KMAC source without holding the KMAC port")
    s._stream_unit_start = {"start": 1, "mode": o["mode"], "count": count, "dst": dst // 32,
                            "vmode": s.csr.values["VMODE"] & 1, "cfg": cfg, "src": (src // 32) % (s.dmem.size // 32)}


def smp_wait(s, o):
    from ip.acc.iss.errors import AccError
    k = 0
    while True:
        _check_limit(s, k)
        if not s.stream_unit.busy:
            s._cycle()
            s._kmac_cycles = k + 1
            return None
        out = s.kmac.outputs(_inputs(s))
        if s.kmac_hold and out["error"]:
            s._kmac_cycles = k
            s._err_kmac = out["error_code"]
            raise AccError("SAMPLER", f"KMAC reported error_code {out['error_code']:#x} "
                           "while the stream unit was running")
        s._cycle()
        k += 1


def smp_status(s) -> int:
    o = s.stream_unit.outputs()
    return o["busy"] | (o["produced"] & 0xFFFF) << 16


EXEC["smp.run"] = smp_run
EXEC["smp.wait"] = smp_wait
