# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""Cycle-exact model of the KMAC top (`ip/kmac/rtl/kmac.py`, rounds_per_cycle=1) as seen from the
side-load port, CPU bus idle. For the coprocessor ISS, whose cycle counts must equal the RTL's.

It mirrors the RTL register by register (owner, side-load error, message intake register, the sponge engine's FSM,
staging lane, output shift buffer, Keccak core busy/step), so every output is exact in every
cycle; the Keccak state itself is computed with `model.keccak_f` when a permutation starts and
becomes visible 24 cycles later, as in the iterative core. Masked mode (a START with
cmd_masked): both shares of every register the RTL doubles (stg1, dword1, the intake's
second share), the masking PRNG (Trivium, reseeded from msg_data at that START) and the masked
core's permutation, exact share for share (ip/kmac/model/masked_keccak.py), 97 cycles.

    m = KmacCycleModel()
    out = m.outputs(inp)    # this cycle's outputs for this cycle's master inputs
    m.tick(inp)             # clock edge

Inputs (dict, missing keys = 0): hold, cmd_valid, cmd_op, cmd_mode, cmd_strength, cmd_msg_len,
cmd_masked, msg_valid, msg_data, msg_data1, msg_mask, digest_ready, digest_share1. Outputs:
granted, cmd_ready, msg_ready, digest_valid, digest_data (share 1 while digest_share1), error,
error_code.

Combinational paths (inputs -> outputs in the same cycle), from the RTL:
- cmd_ready <- msg_valid (a word offered with a command goes first: ready = 0 while granted;
  then the word waits in the intake register and is packed, and cmd_ready waits for that).
- msg_ready: registers only ("the side-load intake register is empty"; a word is taken into
  it and packed by the engine from the next cycle on), so nothing of the offered word (mask,
  data) reaches an output or, past the register, the engine in the cycle it is offered.
- granted, digest_valid, error, error_code: registers only.
- digest_data <- digest_share1 (share 1 instead of share 0) and, in a masked operation,
  digest_ready (share 0 only while taken, else 0: the two shares never follow each other on
  the wires).
When not granted, cmd_ready = msg_ready = 1 (requests are consumed and flagged ERR_OWNER).

Timing summary (rpc = 1; see the RTL for the exact rules):
- hold seen in cycle t (block free) -> granted from t+1; hold dropped -> owner NONE (wipe) after
  one cycle, so a new hold is granted 2 cycles after the drop at the earliest.
- message word: taken into the intake register when it is empty (msg_ready = 1); the engine
  packs it from the next cycle, one cycle per staging-lane step (<= 8 bytes, not crossing a
  lane boundary), and the register is empty again (msg_ready = 1) from the cycle after the
  one of its last byte: a full aligned word every 5 cycles. A completed rate block starts a
  24-cycle permutation and the next lane write waits for it. The word's checks (mask,
  oversize, sequence) happen in its first engine cycle, the cycle after it was taken.
- FINISH (or the declared length reached) pads in one cycle and permutes (24); then 1 cycle
  copy into the output buffer (and the next permutation starts there), 4 lane shifts: the
  first digest word is valid 29 cycles after the edge that takes FINISH. Masked: every
  permutation takes 97 cycles instead of 24 (so 102 after FINISH), and the copy does not
  start the next one: it starts when the block's last lane has shifted out (share 1's lanes
  shift from the core's state, there is no second output buffer).
- error / error_code: sticky until the next accepted START, the release (the cycle that sees
  hold low while granted clears them) or the grant (keeps only that cycle's new codes), so
  every acquisition starts clean. Engine errors appear 2 cycles after the offending cycle
  (registered in the engine, then in the front-end; for a word, 3 cycles after it was taken);
  ERR_OWNER and ERR_DIGEST_EARLY
  (digest_ready while not squeezing: not in SQUEEZE, no declared-length message
  complete and no word in the intake register, which may complete one) 1 cycle after.
- a START while the previous output is still shifting begins from an empty output path.
"""
import numpy as np

from ip.common.trivium import Trivium
from ip.kmac.model import masked_keccak
from ip.kmac.model.transaction import (ABSORB, DSBYTE, ERR_DIGEST_EARLY, ERR_MASK, ERR_MODE, ERR_OVERSIZE, ERR_OWNER, ERR_SEQUENCE, ERR_UNDERSIZE, IDLE, SQUEEZE, keccak_f, rate_bytes)
from ip.kmac.rtl.keccak_masked import SLICES
from ip.kmac.rtl.sideload import OP_FINISH, OP_PAD, OP_START

NROUNDS = 24
MASKED_CYCLES = NROUNDS * SLICES + 1
M64 = (1 << 64) - 1
M256 = (1 << 256) - 1
MAX_RATE_LANES = 21
OWNER_NONE, OWNER_SL = 0, 2
INPUTS = ("hold", "cmd_valid", "cmd_op", "cmd_mode", "cmd_strength", "cmd_msg_len", "cmd_masked",
          "msg_valid", "msg_data", "msg_data1", "msg_mask", "digest_ready", "digest_share1")
IDLE_INPUTS = {k: 0 for k in INPUTS}


def _mask_lo_hi(mask):
    """(contig, lo, hi) as the RTL computes them (lo = lowest set bit, hi = highest + 1)."""
    if mask == 0:
        return False, 0, 0
    low = mask & -mask
    contig = ((mask + low) & 0xFFFF_FFFF & mask) == 0
    return contig, low.bit_length() - 1, mask.bit_length()


def masked_permutation(s0: list[int], s1: list[int], prng: Trivium) -> tuple[list[int], list[int]]:
    """The masked core's permutation of two 25-lane shares, drawing its fresh bits from prng
    (advanced as the RTL's: 400 bits in each of its 96 cross-term cycles)."""
    a0 = np.array([s0], dtype=np.uint64)
    a1 = np.array([s1], dtype=np.uint64)
    for a0, a1, _, _ in masked_keccak.permute(a0, a1, masked_keccak.prng_fresh(prng, SLICES), SLICES):
        pass
    return [int(v) for v in a0[0]], [int(v) for v in a1[0]]


class KmacCycleModel:
    """masked: the KMAC has its masked mode (Kmac(masked=True)); without it a masked START is
    refused with MODE, as the RTL's."""

    def __init__(self, masked: bool = True):
        self.has_masked = masked
        self.reset()

    def reset(self):
        # front-end
        self.owner = OWNER_NONE
        self.sl_err = 0
        self.iw_valid = 0              # message intake register (the side-load fills it here)
        self.iw_data = 0
        self.iw_data1 = 0
        self.iw_mask = 0
        # engine
        self.phase = IDLE
        self.rl = 0
        self.ds = 0
        self.msg_len = 0
        self.count = 0
        self.fin_pend = 0
        self.zap_pend = 0
        self.inword = 0
        self.ptr = 0
        self.stg = 0
        self.stg1 = 0
        self.sfill = 0
        self.lane = 0
        self.obuf = [0] * MAX_RATE_LANES
        self.refill = 0                # masked: a block copied out, its permutation waits
        self.ocnt = 0
        self.dword = [0] * 4           # lane 0 = bits [63:0]
        self.dword1 = [0] * 4
        self.dcnt = 0
        self.msk = 0                   # the operation is masked
        self.err = 0                   # engine's registered err / err_code
        self.err_code = 0
        # The Keccak state of an unmasked operation, the shares of a masked one, the PRNG. The
        # RTL holds both in one core (share 0 is the unmasked state); kept apart here, which
        # no output can tell, since every START and wipe zeroes both. busy / step: the core's
        self.state = [0] * 25
        self.mstate0 = [0] * 25
        self.mstate1 = [0] * 25
        self.prng = Trivium()
        self.busy = 0
        self.step = 0
        self._next_state = None
        self._reseed = None            # set by _eval, applied by tick: the PRNG's new seed
        self._permute = False          # set by _eval, done by tick: a masked permutation starts
        self.cycle = 0

    # ------------------------------------------------------------------ combinational
    def _eval(self, inp):
        """All combinational values of the current cycle, plus the next-state updates."""
        g = lambda k: int(inp.get(k, 0))
        hold = g("hold")
        is_sl = self.owner == OWNER_SL
        wipe = is_sl and not hold
        e_cmd_valid = is_sl and g("cmd_valid") and not g("msg_valid")   # the word goes first
        # the engine packs the word held in the intake register, not the port's
        e_msg_valid = is_sl and self.iw_valid
        e_dig_ready = is_sl and g("digest_ready")
        mask = self.iw_mask
        data = self.iw_data
        data1 = self.iw_data1 if self.msk else 0      # share 1 reaches nothing when unmasked
        busy = self.busy
        n = {}                         # next register values (sync, last assignment wins)

        err = 0
        x_en = 0
        x_idx = 0
        x_val = 0
        x_val1 = 0
        pad_last = 0
        zero = 0
        starting = 0
        start = 0

        def abort():
            n.update(phase=IDLE, fin_pend=0, ptr=0, inword=0, stg=0, stg1=0, sfill=0, lane=0,
                     obuf=[0] * MAX_RATE_LANES, ocnt=0, refill=0,
                     dword=[0] * 4, dword1=[0] * 4, dcnt=0, count=0, zap_pend=1)

        drained = (not self.inword) and self.sfill != 8 and not busy

        contig, lo, hi = _mask_lo_hi(mask)
        nbytes = (hi - lo) & 63
        newcount = self.count + nbytes
        good = refuse = 0
        if e_msg_valid and not self.inword and not wipe:
            if self.phase != ABSORB or self.fin_pend:
                err, refuse = ERR_SEQUENCE, 1
            elif not contig:
                err, refuse = ERR_MASK, 1
            elif self.msg_len != 0 and newcount > self.msg_len:
                err, refuse = ERR_OVERSIZE, 1
            else:
                good = 1
                n["count"] = newcount & 0xFFFF_FFFF
                if self.msg_len != 0 and newcount == self.msg_len:
                    n["fin_pend"] = 1

        # byte packing
        have = self.inword or good
        cur = self.ptr if self.inword else lo
        avail = (hi - cur) & 63 if have else 0
        room = 8 - self.sfill
        t = avail if avail < room else room
        nfill = self.sfill + t
        word_done = have and avail == t
        win = (data >> (8 * cur)) & M64 if cur < 32 else 0
        placed = (win << (8 * self.sfill)) & M64
        bmask = ((1 << (8 * nfill)) - 1) & ~((1 << (8 * self.sfill)) - 1) & M64
        merged = self.stg | (placed & bmask)
        win1 = (data1 >> (8 * cur)) & M64 if cur < 32 else 0
        merged1 = self.stg1 | ((win1 << (8 * self.sfill)) & M64 & bmask)
        msg_ready_e = refuse or word_done

        if self.phase == ABSORB and (have or self.sfill == 8):
            if have:
                n["inword"] = int(not word_done)
                n["ptr"] = (cur + t) & 63
            if nfill == 8 and not busy:
                x_en, x_idx, x_val, x_val1 = 1, self.lane, merged, merged1
                n["stg"] = n["stg1"] = 0
                n["sfill"] = 0
                if self.lane == self.rl - 1:
                    start = 1
                    n["lane"] = 0
                else:
                    n["lane"] = (self.lane + 1) & 31
            else:
                n["stg"] = merged
                n["stg1"] = merged1
                n["sfill"] = nfill & 15

        def do_finish():
            nonlocal x_en, x_idx, x_val, x_val1, pad_last, start
            x_en, x_idx = 1, self.lane
            x_val = (self.stg | (self.ds << (8 * (self.sfill & 7)))) & M64
            x_val1 = self.stg1
            pad_last, start = 1, 1
            n.update(phase=SQUEEZE, stg=0, stg1=0, sfill=0, lane=0, fin_pend=0)

        if self.fin_pend and drained and self.phase == ABSORB:
            do_finish()

        cmd_ready_e = drained and not self.fin_pend and not self.zap_pend and not e_msg_valid
        if e_cmd_valid and cmd_ready_e and not wipe:
            op = g("cmd_op")
            if op == OP_START:
                zero, starting = 1, 1
                abort()
                n["zap_pend"] = 0
                n["msg_len"] = g("cmd_msg_len") & 0xFFFF_FFFF
                masked = g("cmd_masked") & 1
                if self.has_masked:
                    n["msk"] = masked
                    if masked:
                        n["_reseed"] = g("msg_data") & M256
                r = rate_bytes(g("cmd_mode"), g("cmd_strength"))
                if r is not None and (self.has_masked or not masked):
                    n["rl"] = r // 8
                    n["ds"] = DSBYTE[g("cmd_mode")]
                    n["phase"] = ABSORB
                else:
                    err = ERR_MODE
            elif op == OP_PAD:
                if self.phase != ABSORB:
                    err = ERR_SEQUENCE
                elif self.lane != 0 or self.sfill != 0:
                    x_en, x_idx, x_val, x_val1, start = 1, self.lane, self.stg, self.stg1, 1
                    n.update(stg=0, stg1=0, sfill=0, lane=0)
            elif op == OP_FINISH:
                if self.phase != ABSORB:
                    err = ERR_SEQUENCE
                elif self.msg_len != 0 and self.count < self.msg_len:
                    err = ERR_UNDERSIZE
                else:
                    do_finish()
            else:
                err = ERR_SEQUENCE

        # squeeze
        dig_valid_e = self.dcnt == 4 and self.phase == SQUEEZE
        take = dig_valid_e and e_dig_ready
        shift = self.ocnt != 0 and (self.dcnt != 4 or take) and not starting
        if self.phase == SQUEEZE and not busy and self.ocnt == 0 and not starting:
            if self.refill:            # masked: the block is out, permute now
                start = 1
                n["refill"] = 0
            else:                      # copy (unmasked: and permute at once, eager refill)
                start = 0 if self.msk else 1
                n["refill"] = self.msk
                n["ocnt"] = self.rl
                src0 = self.mstate0 if self.msk else self.state
                n["obuf"] = [src0[i] if i < self.rl else 0 for i in range(MAX_RATE_LANES)]
        elif shift:
            n["obuf"] = self.obuf[1:] + [0]
            n["ocnt"] = self.ocnt - 1
        if shift:
            # share 1 of the lane leaving obuf, straight from the (idle) masked core's state
            lane1 = self.mstate1[(self.rl - self.ocnt) % 32] if self.msk and (self.rl - self.ocnt) % 32 < 25 else 0
            n["dword"] = self.dword[1:] + [self.obuf[0]]
            n["dword1"] = self.dword1[1:] + [lane1]
            n["dcnt"] = 1 if take else self.dcnt + 1
        elif take:
            n["dcnt"] = 0

        if err or wipe:
            abort()
        if self.zap_pend and not busy:
            zero = 1
            n["zap_pend"] = 0

        n["err"] = int(err != 0)
        n["err_code"] = err

        # Keccak cores (the operation's core; a wipe zeroes both, both idle then)
        if not busy:
            if zero:
                n.update(state=[0] * 25, mstate0=[0] * 25, mstate1=[0] * 25)
            elif x_en or pad_last:
                st = list(self.mstate0 if self.msk else self.state)
                st1 = list(self.mstate1)
                for i in range(MAX_RATE_LANES):
                    v = x_val if (x_en and x_idx == i) else 0
                    if pad_last and self.rl == i + 1:
                        v ^= 0x80 << 56
                    st[i] ^= v
                    if x_en and x_idx == i:
                        st1[i] ^= x_val1
                if self.msk:
                    n.update(mstate0=st, mstate1=st1)
                else:
                    n["state"] = st
            if start:
                n["busy"] = 1
                n["step"] = 0
                if self.msk:
                    n["_permute"] = True
                else:
                    n["_next_state"] = keccak_f(n.get("state", self.state))
        else:
            if self.step == (MASKED_CYCLES if self.msk else NROUNDS) - 1:
                if self.msk:
                    n.update(step=0, busy=0, mstate0=self._next_state[0],
                             mstate1=self._next_state[1], _next_state=None)
                else:
                    n.update(step=0, busy=0, state=self._next_state, _next_state=None)
            else:
                n["step"] = self.step + 1

        # --- front-end (Kmac top)
        if not is_sl:
            cmd_ready = msg_ready = 1
            sl_set = ERR_OWNER if (g("cmd_valid") or g("msg_valid")) else 0
        else:
            cmd_ready = int(cmd_ready_e and not g("msg_valid"))
            msg_ready = int(not self.iw_valid)
            sl_set = 0
        # intake register: filled when empty, emptied when the engine takes the word's last
        # byte (or refuses it) and at the release
        if wipe:
            n.update(iw_valid=0, iw_data=0, iw_data1=0)
        elif self.iw_valid:
            if msg_ready_e:
                n["iw_valid"] = 0
        elif is_sl and g("msg_valid"):
            n.update(iw_valid=1, iw_data=g("msg_data") & M256, iw_data1=g("msg_data1") & M256,
                     iw_mask=g("msg_mask") & 0xFFFF_FFFF)
        if (is_sl and (g("digest_ready") or g("digest_share1"))
                and not (self.phase == SQUEEZE or self.fin_pend)
                and not self.iw_valid):        # a word in the intake register: wait
            sl_set |= ERR_DIGEST_EARLY
        if self.err and is_sl:
            sl_set |= self.err_code
        grant = self.owner == OWNER_NONE and hold
        if wipe:                       # release: the ownership's codes die with it
            n["sl_err"] = 0
        elif grant or (is_sl and g("cmd_valid") and cmd_ready and g("cmd_op") == OP_START):
            n["sl_err"] = sl_set       # a grant / START drops the older codes
        else:
            n["sl_err"] = self.sl_err | sl_set
        if grant:
            n["owner"] = OWNER_SL
        if wipe:
            n["owner"] = OWNER_NONE

        out = {
            "granted": int(is_sl),
            "cmd_ready": cmd_ready,
            "msg_ready": msg_ready,
            "digest_valid": int(is_sl and dig_valid_e),
            "digest_data": sum(v << (64 * i) for i, v in enumerate(
                self.dword1 if is_sl and g("digest_share1")
                else self.dword if not self.msk or (is_sl and g("digest_ready")) else [0] * 4)),
            "error": int(self.sl_err != 0),
            "error_code": self.sl_err,
        }
        return out, n

    # ------------------------------------------------------------------ public
    def outputs(self, inputs=None) -> dict:
        return self._eval(inputs or IDLE_INPUTS)[0]

    def tick(self, inputs=None) -> dict:
        """Advance one clock edge; returns the outputs of the cycle that just ended."""
        out, n = self._eval(inputs or IDLE_INPUTS)
        for k, v in n.items():
            setattr(self, k, v)
        if self._reseed is not None:         # a masked START: the PRNG's new seed
            self.prng.seed(self._reseed)
            self._reseed = None
        if self._permute:                    # its fresh bits come from the seed just loaded
            self._next_state = masked_permutation(self.mstate0, self.mstate1, self.prng)
            self._permute = False
        self.cycle += 1
        return out

    def _quiescent(self, hold) -> bool:
        """True when an idle cycle (no request) with this hold changes no register."""
        if self.busy or self.zap_pend or self.err or self.iw_valid:
            return False
        if hold != (self.owner == OWNER_SL):
            return False
        if self.phase == IDLE:
            return True
        if self.phase == ABSORB:
            return not self.inword and self.sfill != 8 and not self.fin_pend
        return self.ocnt != 0 and self.dcnt == 4

    def tick_idle(self, hold):
        """tick() with no request (valids and digest_ready 0), fast when nothing moves."""
        if self._quiescent(hold):
            self.cycle += 1
        else:
            inp = dict(IDLE_INPUTS)
            inp["hold"] = hold
            self.tick(inp)

    # convenience for the ISS
    @property
    def squeezing(self) -> bool:
        return self.phase == SQUEEZE or bool(self.fin_pend)
