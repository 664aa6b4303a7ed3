# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""KMAC sponge engine: SHA3 / SHAKE / cSHAKE around KeccakCore (FIPS 202, SP 800-185).

Datapath, chosen for area:
- absorb: the message word is packed straight from the port (held by the master until
  ready) through a byte window starting at `ptr`; each cycle up to 8 - sfill bytes move into
  a 64-bit staging lane; a full lane is XORed straight into the
  Keccak state (lane index `lane`), so there is no block buffer and no 1600-bit mux, only a
  per-lane decode. All rates are whole lanes, so the padding needs at most two lane XORs.
- squeeze: the rate lanes are copied into `obuf` (a lane shift register) and the next
  permutation starts in the same cycle (eager refill); one lane per cycle shifts from `obuf`
  into the 256-bit digest word `dword`, so words straddling blocks assemble by themselves.
  Masked, the refill waits until the block is out: share 1's lanes shift from the idle core's
  state (no second output buffer), so the next permutation starts when the last has gone.
Every error aborts the operation and wipes the state; the next START works normally. A START
in any phase (also while the previous output is still shifting) begins from a clean output path.

Masked mode (a START with cmd.masked, built with masked=True): the operation runs on the
two-share core (ip/kmac/rtl/keccak_masked.py, 97 cycles a permutation), reseeded at that START
from `seed`. The datapath above is doubled for the second share (staging lane and digest word: stg1,
dword1, packed by the same byte window and control; share 1's output lanes come from the core),
and the shares
never meet: share 0 goes where the unmasked value goes, share 1 only into share-1 registers;
the padding is XORed into share 0. The same core does the unmasked operations in its unmasked
schedule (share 0 alone, one round a cycle: 24 cycles, as KeccakCore), so public hashing (the
matrix A, H(ek)) keeps its speed without a second core; there data1 is ignored and share 1
stays zero (the core is zeroed at every START and wipe), so share 1 of a digest word reads 0.
Built with masked=False, the engine has KeccakCore alone and refuses a masked START.
"""
from amaranth import Cat, Const, Module, Mux, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from ip.common.trivium import SEED_BITS
from ip.kmac.rtl.keccak import KeccakCore
from ip.kmac.rtl.keccak_masked import MaskedKeccakCore
from ip.kmac.model.transaction import (ABSORB, DSBYTE, ERR_MASK, ERR_MODE, ERR_OVERSIZE, ERR_SEQUENCE, ERR_UNDERSIZE, IDLE, SQUEEZE, rate_bytes)
from ip.kmac.rtl.sideload import OP_FINISH, OP_PAD, OP_START, CmdSignature, DigestSignature, MsgSignature

MAX_RATE_LANES = 21   # SHAKE128: 168 bytes


def mask_decode(m, mask):
    """(contig, lo, hi) of a 32-bit byte mask: one contiguous, non-empty run of ones [lo, hi)?
    lo = the lowest set bit, hi = the highest + 1 (priority encoders)."""
    low = Signal(32)
    contig = Signal()
    lo = Signal(6)
    hi = Signal(6)
    m.d.comb += [low.eq(mask & (~mask + 1)),
                 contig.eq((mask != 0) & (((mask + low)[:32] & mask) == 0))]
    for i in reversed(range(32)):
        with m.If(mask[i]):
            m.d.comb += lo.eq(i)
    for i in range(32):
        with m.If(mask[i]):
            m.d.comb += hi.eq(i + 1)
    return contig, lo, hi


class Sponge(wiring.Component):
    """cmd / msg / digest streams (ip/kmac/rtl/sideload.py); `wipe` aborts silently (release).

    `err` pulses for one cycle with the ERR_* bits in `err_code` when a request fails.
    predecoded=True: the word's mask_decode() comes in on msg_contig / msg_lo / msg_hi (the
    Kmac top computes it before its intake register), else the engine computes it from
    msg.mask (msg_* unused). masked=False builds no masked core: a masked START is ERR_MODE.
    """
    cmd: In(CmdSignature())
    msg: In(MsgSignature())
    digest: Out(DigestSignature())
    wipe: In(1)
    err: Out(1)
    err_code: Out(8)
    phase: Out(2)
    busy: Out(1)
    finishing: Out(1)   # declared length reached, the final block is on its way to SQUEEZE
    msg_contig: In(1)
    msg_lo: In(6)
    msg_hi: In(6)
    seed: In(SEED_BITS)     # the masking PRNG's seed, taken by a masked START

    def __init__(self, rounds_per_cycle: int = 1, predecoded: bool = False, masked: bool = False):
        self.rounds_per_cycle = rounds_per_cycle
        self.predecoded = predecoded
        # one core, built here so benches can probe it
        if masked and rounds_per_cycle != 1:
            self._MustUse__silence = True
            raise ValueError("the masked core does one round a cycle: rounds_per_cycle must be 1")
        self.core = None if masked else KeccakCore(rounds_per_cycle)
        self.mcore = MaskedKeccakCore() if masked else None
        super().__init__()

    def elaborate(self, platform):
        m = Module()
        core, mcore = self.core, self.mcore
        if mcore is not None:
            m.submodules.mcore = mcore
        else:
            m.submodules.core = core
        NL = MAX_RATE_LANES

        phase = Signal(2)
        rl = Signal(5)              # rate in lanes
        ds = Signal(8)              # domain-separation byte
        msg_len = Signal(32)
        count = Signal(32)
        fin_pend = Signal()         # declared length reached: pad when drained
        zap_pend = Signal()         # state still to be wiped (core was busy at abort)
        inword = Signal()           # a message word is being packed, bytes before ptr done
        ptr = Signal(6)
        stg = Signal(64)
        stg1 = Signal(64)
        sfill = Signal(4)
        lane = Signal(5)
        obuf = Signal(64 * NL)
        ocnt = Signal(5)
        dword = Signal(256)
        dword1 = Signal(256)
        refill = Signal()           # masked: a block copied out, its refill waits for ocnt = 0
        dcnt = Signal(3)
        msk = Signal()              # this operation is masked (latched at START)
        cbusy = Signal()            # the operation's core is permuting
        # the core's state, share 1 (0 when unmasked: no masked core, or an unmasked operation)
        cstate = Signal(1600)
        cstate1 = Signal(1600)
        if mcore is not None:
            m.d.comb += [cbusy.eq(mcore.busy), cstate.eq(mcore.state0), cstate1.eq(mcore.state1)]
        else:
            m.d.comb += [cbusy.eq(core.busy), cstate.eq(core.state)]
        m.d.comb += [self.phase.eq(phase), self.finishing.eq(fin_pend),
                     self.busy.eq(cbusy | zap_pend | fin_pend | inword | (sfill == 8))]

        # State update: XOR one lane (message / padding) and/or the final 0x80, or wipe (the
        # core is idle then). Share 1 gets its message lane, never padding.
        x_en = Signal()
        x_idx = Signal(5)
        x_val = Signal(64)
        x_val1 = Signal(64)
        pad_last = Signal()
        zero = Signal()
        starting = Signal()         # START accepted this cycle
        start = Signal()
        lanes_x = []
        lanes_x1 = []
        for i in range(NL):
            li = Signal(64, name=f"xor_lane{i}")
            m.d.comb += li.eq(Mux(x_en & (x_idx == i), x_val, 0) ^
                              Mux(pad_last & (rl == i + 1), Const(0x80 << 56, 64), 0))
            lanes_x.append(li)
            if mcore is not None:
                li1 = Signal(64, name=f"xor1_lane{i}")
                m.d.comb += li1.eq(Mux(x_en & (x_idx == i), x_val1, 0))
                lanes_x1.append(li1)
        update = Signal()
        m.d.comb += update.eq(x_en | pad_last)
        xored = Signal(1600)
        m.d.comb += xored.eq(cstate ^ Cat(*lanes_x))
        if mcore is None:
            m.d.comb += [core.load.eq(update | zero),
                         core.load_data.eq(Mux(zero, 0, xored)),
                         core.start.eq(start)]
        else:
            mx1 = Signal(1600)
            m.d.comb += mx1.eq(mcore.state1 ^ Cat(*lanes_x1))
            m.d.comb += [mcore.masked.eq(msk),
                         mcore.load.eq(update | zero),
                         mcore.load_data0.eq(Mux(zero, 0, xored)),
                         mcore.load_data1.eq(Mux(zero, 0, mx1)),
                         mcore.start.eq(start),
                         mcore.seed.eq(self.seed)]

        err = Signal(8)             # this cycle's error bits
        m.d.sync += [self.err.eq(err != 0), self.err_code.eq(err)]

        def abort(m):
            m.d.sync += [phase.eq(IDLE), fin_pend.eq(0), ptr.eq(0), inword.eq(0), stg.eq(0),
                         stg1.eq(0), sfill.eq(0), lane.eq(0), obuf.eq(0), ocnt.eq(0), refill.eq(0),
                         dword.eq(0), dword1.eq(0), dcnt.eq(0), count.eq(0), zap_pend.eq(1)]

        drained = Signal()
        m.d.comb += drained.eq(~inword & (sfill != 8) & ~cbusy)

        # --- message word intake: mask must be one contiguous, non-empty byte range
        if self.predecoded:
            contig, lo, hi = self.msg_contig, self.msg_lo, self.msg_hi
        else:
            contig, lo, hi = mask_decode(m, self.msg.mask)
        nbytes = Signal(6)
        newcount = Signal(33)
        m.d.comb += [nbytes.eq(hi - lo), newcount.eq(count + nbytes)]

        # The word is packed straight from the port (no intake register): the master holds
        # data and mask while valid & ~ready, and ready rises in the cycle its last byte goes.
        # Checks and the byte count happen in the word's first cycle.
        good = Signal()             # first cycle of an accepted word
        refuse = Signal()           # first cycle of a refused word: consume it, report
        with m.If(self.msg.valid & ~inword & ~self.wipe):
            with m.If((phase != ABSORB) | fin_pend):     # fin_pend: the message is complete
                m.d.comb += [err.eq(ERR_SEQUENCE), refuse.eq(1)]
            with m.Elif(~contig):
                m.d.comb += [err.eq(ERR_MASK), refuse.eq(1)]
            with m.Elif((msg_len != 0) & (newcount > msg_len)):
                m.d.comb += [err.eq(ERR_OVERSIZE), refuse.eq(1)]
            with m.Else():
                m.d.comb += good.eq(1)
                m.d.sync += count.eq(newcount)
                with m.If((msg_len != 0) & (newcount == msg_len)):
                    m.d.sync += fin_pend.eq(1)

        # --- byte packing: word bytes [cur, cur + t) go to staging bytes [sfill, sfill + t)
        have = Signal()
        cur = Signal(6)
        avail = Signal(6)
        t = Signal(4)
        win = Signal(64)
        placed = Signal(64)
        bmask = Signal(8)
        merged = Signal(64)
        win1 = Signal(64)
        merged1 = Signal(64)
        nfill = Signal(4)
        word_done = Signal()
        m.d.comb += [have.eq(inword | good),
                     cur.eq(Mux(inword, ptr, lo)),
                     avail.eq(Mux(have, hi - cur, 0)),
                     t.eq(Mux(avail < 8 - sfill, avail, 8 - sfill)),
                     win.eq(Cat(self.msg.data, Const(0, 64)).bit_select(Cat(Const(0, 3), cur), 64)),
                     placed.eq((win << Cat(Const(0, 3), sfill))[:64]),
                     nfill.eq(sfill + t),
                     word_done.eq(have & (avail == t))]
        m.d.comb += bmask.eq(((Const(1, 9) << nfill) - 1)[:8] & ~((Const(1, 9) << sfill) - 1)[:8])
        bits = Signal(64)
        m.d.comb += bits.eq(Cat(*[bmask[j].replicate(8) for j in range(8)]))
        m.d.comb += merged.eq(stg | (placed & bits))
        if mcore is not None:
            # share 1 through its own window (the same selects); nothing of it when unmasked
            m.d.comb += [win1.eq(Cat(self.msg.data1, Const(0, 64)).bit_select(Cat(Const(0, 3), cur), 64)),
                         merged1.eq(stg1 | ((win1 << Cat(Const(0, 3), sfill))[:64] & bits & msk.replicate(64)))]
        m.d.comb += self.msg.ready.eq(refuse | word_done)

        with m.If((phase == ABSORB) & (have | (sfill == 8))):
            with m.If(have):
                m.d.sync += [inword.eq(~word_done), ptr.eq(cur + t)]
            with m.If((nfill == 8) & ~cbusy):
                m.d.comb += [x_en.eq(1), x_idx.eq(lane), x_val.eq(merged), x_val1.eq(merged1)]
                m.d.sync += [stg.eq(0), stg1.eq(0), sfill.eq(0)]
                with m.If(lane == rl - 1):
                    m.d.comb += start.eq(1)
                    m.d.sync += lane.eq(0)
                with m.Else():
                    m.d.sync += lane.eq(lane + 1)
            with m.Else():
                m.d.sync += [stg.eq(merged), stg1.eq(merged1), sfill.eq(nfill)]

        # --- final padding: ds byte at the next message byte, 0x80 in the last rate byte
        def do_finish(m):
            m.d.comb += [x_en.eq(1), x_idx.eq(lane),
                         x_val.eq(stg | (ds << Cat(Const(0, 3), sfill[:3]))[:64]), x_val1.eq(stg1),
                         pad_last.eq(1), start.eq(1)]
            m.d.sync += [phase.eq(SQUEEZE), stg.eq(0), stg1.eq(0), sfill.eq(0), lane.eq(0),
                         fin_pend.eq(0)]

        with m.If(fin_pend & drained & (phase == ABSORB)):
            do_finish(m)

        # --- commands
        # A message word offered in the same cycle goes first (it precedes the command).
        m.d.comb += self.cmd.ready.eq(drained & ~fin_pend & ~zap_pend & ~self.msg.valid)
        with m.If(self.cmd.valid & self.cmd.ready & ~self.wipe):
            with m.Switch(self.cmd.op):
                with m.Case(OP_START):
                    m.d.comb += [zero.eq(1), starting.eq(1)]
                    abort(m)
                    m.d.sync += [zap_pend.eq(0), msg_len.eq(self.cmd.msg_len)]
                    if mcore is not None:
                        m.d.sync += msk.eq(self.cmd.masked)
                        m.d.comb += mcore.reseed.eq(self.cmd.masked)
                    ok = Signal()
                    with m.Switch(Cat(self.cmd.strength, self.cmd.mode)):
                        for mode in range(3):
                            for sc in range(5):
                                r = rate_bytes(mode, sc)
                                if r is not None:
                                    with m.Case(sc | (mode << 3)):
                                        m.d.comb += ok.eq(1)
                                        m.d.sync += [rl.eq(r // 8), ds.eq(DSBYTE[mode])]
                    # without a masked core, a masked START is refused as an unknown mode
                    usable = ok if mcore is not None else ok & ~self.cmd.masked
                    with m.If(usable):
                        m.d.sync += phase.eq(ABSORB)
                    with m.Else():
                        m.d.comb += err.eq(ERR_MODE)
                with m.Case(OP_PAD):
                    with m.If(phase != ABSORB):
                        m.d.comb += err.eq(ERR_SEQUENCE)
                    with m.Elif((lane != 0) | (sfill != 0)):
                        m.d.comb += [x_en.eq(1), x_idx.eq(lane), x_val.eq(stg), x_val1.eq(stg1),
                                     start.eq(1)]
                        m.d.sync += [stg.eq(0), stg1.eq(0), sfill.eq(0), lane.eq(0)]
                with m.Case(OP_FINISH):
                    with m.If(phase != ABSORB):
                        m.d.comb += err.eq(ERR_SEQUENCE)
                    with m.Elif((msg_len != 0) & (count < msg_len)):
                        m.d.comb += err.eq(ERR_UNDERSIZE)
                    with m.Else():
                        do_finish(m)
                with m.Default():
                    m.d.comb += err.eq(ERR_SEQUENCE)

        # --- squeeze: copy the rate lanes out and permute again at once (eager refill);
        # masked: copy share 0 and permute when its lanes have gone (share 1 shifts from the core)
        take = Signal()
        shift = Signal()
        m.d.comb += [self.digest.valid.eq((dcnt == 4) & (phase == SQUEEZE)),
                     # masked: each share on the wires only while asked for (share 0 with
                     # ready), 0 otherwise, so the two never follow each other on them
                     self.digest.data.eq(Mux(self.digest.share1, dword1,
                                             Mux(~msk | self.digest.ready, dword, 0))),
                     take.eq(self.digest.valid & self.digest.ready),
                     shift.eq((ocnt != 0) & ((dcnt != 4) | take) & ~starting)]
        # Copy and the absorb-side starts are exclusive by phase. A START overrides the copy
        # and the shift: its abort (obuf, ocnt, dword, dcnt cleared) stands, so the new
        # operation begins with an empty output path.
        lane1 = Signal(64)          # share 1 of the lane obuf[:64] holds: lane rl - ocnt
        m.d.comb += lane1.eq(cstate1.word_select((rl - ocnt)[:5], 64))
        with m.If((phase == SQUEEZE) & ~cbusy & (ocnt == 0) & ~starting):
            with m.If(refill):
                m.d.comb += start.eq(1)
                m.d.sync += refill.eq(0)
            with m.Else():
                m.d.comb += start.eq(~msk)
                m.d.sync += [ocnt.eq(rl), refill.eq(msk),
                             obuf.eq(Cat(*[Mux(rl > i, cstate[64 * i:64 * i + 64], 0)
                                           for i in range(NL)]))]
        with m.Elif(shift):
            m.d.sync += [obuf.eq(obuf >> 64), ocnt.eq(ocnt - 1)]
        with m.If(shift):
            m.d.sync += [dword.eq(Cat(dword[64:], obuf[:64])), dword1.eq(Cat(dword1[64:], lane1)),
                         dcnt.eq(Mux(take, 1, dcnt + 1))]
        with m.Elif(take):
            m.d.sync += dcnt.eq(0)

        # --- aborts: error or wipe; the state is zeroed as soon as the core is idle
        with m.If((err != 0) | self.wipe):
            abort(m)
        # zap_pend only ever holds in IDLE, where nothing else drives the core.
        with m.If(zap_pend & ~cbusy):
            m.d.comb += zero.eq(1)
            m.d.sync += zap_pend.eq(0)
        return m
