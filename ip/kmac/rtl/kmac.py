# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""KMAC block top (Verilog top `kmac`): sponge engine, CPU Wishbone registers, side-load port.

One owner at a time: NONE, CPU (CMD.START .. CMD.DONE) or SIDELOAD (while `hold`, granted
when free; the CPU wins a same-cycle claim). A request from the non-owner is refused with an
error bit (CPU: ERR_CODE.OWNER, side-load: error/error_code) and never reaches the engine.
A digest request while not squeezing is DIGEST_EARLY on both paths. The side-load's error is
sticky within one ownership: the release clears it and the grant drops older codes (every
acquisition starts clean). Message words (CPU and side-load) go through an intake register in
front of the engine (MSG ack / msg.ready = it is empty), which cuts the bus / coprocessor
register read -> mask checks / byte packing -> Keccak state paths.
Masked mode (masked=True; the SoC's KMAC has it, ip/kmac/block.py MASKED) is the
side-load's only (the CPU's CFG has no masked bit; its words have no second share): a masked START reseeds the masking PRNG from the port's msg.data (ip/kmac/rtl/sideload.py),
and the intake register keeps the word's second share beside the first (iw_data1).
The register decode is generated from ip/kmac/data/kmac_regs.yml (ip/common/regtool.py).
"""

from amaranth import Module, Mux, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from ip.kmac import REGS_YML
from ip.common.regbank import RegBank
from ip.common.wishbone import WishboneSignature
from ip.common.regtool import load

from ip.kmac.model.transaction import ERR_DIGEST_EARLY, ERR_OWNER, ERR_SEQUENCE, SQUEEZE
from ip.kmac.rtl.sideload import OP_FINISH, OP_PAD, OP_START, SideloadSignature
from ip.kmac.rtl.sponge import Sponge, mask_decode

_CMD = load(REGS_YML).field("CMD", "OP").values
CMD_START, CMD_PAD_BLOCK, CMD_FINISH, CMD_NEXT, CMD_DONE = (
    _CMD[k] for k in ("START", "PAD_BLOCK", "FINISH", "NEXT", "DONE"))
_OWN = load(REGS_YML).field("STATUS", "OWNER").values
OWNER_NONE, OWNER_CPU, OWNER_SL = _OWN["NONE"], _OWN["CPU"], _OWN["SIDELOAD"]
# The engine's op codes are the CMD codes for the three it shares (the CPU path passes them on).
assert (OP_START, OP_PAD, OP_FINISH) == (CMD_START, CMD_PAD_BLOCK, CMD_FINISH)


class Kmac(wiring.Component):
    def __init__(self, rounds_per_cycle: int = 1, addr_width: int = 30, masked: bool = False):
        self.rounds_per_cycle = rounds_per_cycle
        self.regmap = load(REGS_YML)
        super().__init__({"bus": In(WishboneSignature(addr_width)),
                          "sideload": In(SideloadSignature()),
                          "irq": Out(1)})
        self.addr_width = addr_width
        self.engine = Sponge(rounds_per_cycle, predecoded=True, masked=masked)

    def elaborate(self, platform):
        m = Module()
        m.submodules.engine = eng = self.engine
        m.submodules.regs = rb = RegBank(self.regmap, len(self.bus.adr))
        wiring.connect(m, wiring.flipped(self.bus), rb.bus)
        sl = self.sideload

        owner = Signal(2)
        is_cpu = Signal()
        is_sl = Signal()
        m.d.comb += [is_cpu.eq(owner == OWNER_CPU), is_sl.eq(owner == OWNER_SL)]
        squeezing = Signal()
        # A declared-length message that is complete counts as squeezing: reads then wait.
        m.d.comb += squeezing.eq((eng.phase == SQUEEZE) | eng.finishing)

        # Message intake register, in front of the engine for both owners: a word (the CPU's MSG
        # write or the side-load's msg) is taken into it when it is empty, which is what the
        # side-load's msg.ready is (no path from the offered mask or data to it), and the engine
        # packs it from there from the next cycle on; the CPU's write is acked once the register
        # is empty again (the word packed or refused, as it was acked before); it empties
        # in the cycle the engine's ready rises (last byte packed, or refused) and at a wipe
        # (DONE, release). The owner changes only through a wipe, so a word in it is always the
        # owner's. It cuts the bus / coprocessor register read -> mask checks / byte packing ->
        # Keccak state paths (the SoC's critical paths without it).
        iw_valid = Signal()
        iw_data = Signal(256)
        iw_data1 = Signal(256)           # masked mode: the word's second share
        iw_contig = Signal()             # the word's mask as mask_decode() of it, computed before
        iw_lo = Signal(6)                # the register (the engine needs only these three)
        iw_hi = Signal(6)
        iw_load = Signal()               # the owner offers a word and the register is empty
        cpu_took = Signal()              # the CPU's pending MSG write is in the register (or was)

        # Refusal code for a CPU request it may not make: the side-load owns, or nobody does.
        not_owner = Mux(is_sl, ERR_OWNER, ERR_SEQUENCE)
        ferr = Signal(8)                 # front-end error bits raised this cycle (CPU side)
        cpu_cmd = Signal()
        cpu_next = Signal()
        cpu_claim = Signal()
        wipe = Signal()

        # --- CMD (acked when the engine takes it). A write is acted on from the cycle after it
        # arrives (cq_valid: it is still waiting, as the bus holds it until its ack), so the
        # bus / crossbar paths end in a flop instead of running on through the engine's
        # command logic into the Keccak state; a command costs the CPU one cycle more.
        cq_valid = Signal()
        cq_op = Signal.like(rb.cmd_op)
        m.d.sync += [cq_valid.eq(rb.cmd_req & rb.write & ~rb.cmd_ack), cq_op.eq(rb.cmd_op)]
        op = cq_op
        with m.If(rb.cmd_req & ~rb.write):
            m.d.comb += rb.cmd_ack.eq(1)
        # (not an Elif of the read above, nor gated by cmd_req, which would bring the bus back
        # in: a Wishbone master holds its write until the ack, so cq_valid implies it)
        with m.If(cq_valid):
            with m.If((op == CMD_START) & (owner == OWNER_NONE)):
                m.d.comb += cpu_claim.eq(1)      # owner = CPU now, the START goes next cycle
                m.d.sync += owner.eq(OWNER_CPU)
            with m.Elif((op == CMD_START) | (op == CMD_PAD_BLOCK) | (op == CMD_FINISH)):
                with m.If(is_cpu):
                    m.d.comb += [cpu_cmd.eq(1), rb.cmd_ack.eq(eng.cmd.ready)]
                with m.Else():
                    m.d.comb += [ferr.eq(not_owner), rb.cmd_ack.eq(1)]
            with m.Elif(op == CMD_NEXT):
                with m.If(~is_cpu):
                    m.d.comb += [ferr.eq(not_owner), rb.cmd_ack.eq(1)]
                with m.Elif(~squeezing):
                    m.d.comb += [ferr.eq(ERR_DIGEST_EARLY), rb.cmd_ack.eq(1)]
                with m.Elif(eng.digest.valid):
                    m.d.comb += [cpu_next.eq(1), rb.cmd_ack.eq(1)]
            with m.Elif(op == CMD_DONE):
                m.d.comb += rb.cmd_ack.eq(1)
                with m.If(is_cpu):
                    m.d.comb += wipe.eq(1)
                    m.d.sync += owner.eq(OWNER_NONE)
                with m.Elif(is_sl):
                    m.d.comb += ferr.eq(ERR_OWNER)
            with m.Else():
                m.d.comb += [ferr.eq(ERR_SEQUENCE), rb.cmd_ack.eq(1)]

        # --- MSG window: the bus byte selects are the engine's byte mask
        cpu_msg = Signal()
        with m.If(rb.msg_req):
            with m.If(~rb.write):
                m.d.comb += rb.msg_ack.eq(1)
            with m.Elif(is_cpu):
                # acked when the engine has taken (or refused) the word: from the intake
                # register, two cycles later than straight from the bus; its errors show then
                m.d.comb += [cpu_msg.eq(1), rb.msg_ack.eq(cpu_took & ~iw_valid)]
            with m.Else():
                m.d.comb += [ferr.eq(not_owner), rb.msg_ack.eq(1)]

        # --- DIGEST0..7: wait (bounded) for a word while squeezing, else error and 0
        dig_ok = Signal()
        m.d.comb += dig_ok.eq(is_cpu & squeezing & eng.digest.valid)
        for i in range(8):
            m.d.comb += rb.port(f"DIGEST{i}", "DATA").eq(
                Mux(dig_ok, eng.digest.data[32 * i:32 * i + 32], 0))
            with m.If(getattr(rb, f"digest{i}_req")):
                with m.If(~is_cpu):
                    m.d.comb += [ferr.eq(Mux(is_sl, ERR_OWNER, ERR_DIGEST_EARLY)),
                                 getattr(rb, f"digest{i}_ack").eq(1)]
                with m.Elif(~squeezing):
                    m.d.comb += [ferr.eq(ERR_DIGEST_EARLY), getattr(rb, f"digest{i}_ack").eq(1)]
                with m.Elif(eng.digest.valid | rb.write):
                    m.d.comb += getattr(rb, f"digest{i}_ack").eq(1)

        # --- side-load ownership: granted when free, released (and wiped) when hold drops
        sl_grant = Signal()
        m.d.comb += sl_grant.eq((owner == OWNER_NONE) & sl.hold & ~cpu_claim)
        with m.If(sl_grant):
            m.d.sync += owner.eq(OWNER_SL)
        with m.If(is_sl & ~sl.hold):
            m.d.comb += wipe.eq(1)
            m.d.sync += owner.eq(OWNER_NONE)
        m.d.comb += sl.granted.eq(is_sl)

        # Side-load error: sticky (OR of the codes) until the next accepted START; the codes of
        # an ownership die with it (release) and older ones at the grant, so every
        # acquisition starts clean (the grant and START cycles keep their own new codes).
        sl_err = Signal(8)
        sl_own = Signal(8)               # OWNER: a request while not granted
        sl_early = Signal(8)             # DIGEST_EARLY: digest.ready while not squeezing
        sl_set = Signal(8)
        m.d.comb += [sl.error.eq(sl_err != 0), sl.error_code.eq(sl_err)]
        with m.If(~is_sl):
            # Refused, never forwarded: consume the request and report it.
            m.d.comb += [sl.cmd.ready.eq(1), sl.msg.ready.eq(1)]
            with m.If(sl.cmd.valid | sl.msg.valid):
                m.d.comb += sl_own.eq(ERR_OWNER)
        with m.Else():
            # a word offered with a command goes first: the command waits while it is offered
            # (then while it is in the intake register and being packed: the engine's ready)
            m.d.comb += [sl.cmd.ready.eq(eng.cmd.ready & ~sl.msg.valid), sl.msg.ready.eq(~iw_valid)]
        # As the CPU's NEXT / DIGEST read: asking for a word while not squeezing is an error
        # (the request is consumed; the engine never sees it, as take needs SQUEEZE).
        # A word still in the intake register may complete a declared-length message (the
        # engine sets `finishing` in the word's first cycle there): meanwhile the request waits.
        with m.If(is_sl & (sl.digest.ready | sl.digest.share1) & ~squeezing & ~iw_valid):
            m.d.comb += sl_early.eq(ERR_DIGEST_EARLY)
        m.d.comb += [sl.digest.valid.eq(is_sl & eng.digest.valid), sl.digest.data.eq(eng.digest.data)]
        m.d.comb += sl_set.eq(sl_own | sl_early | Mux(eng.err & is_sl, eng.err_code, 0))
        with m.If(is_sl & ~sl.hold):
            m.d.sync += sl_err.eq(0)
        with m.Elif(sl_grant | (is_sl & sl.cmd.valid & sl.cmd.ready & (sl.cmd.op == OP_START))):
            m.d.sync += sl_err.eq(sl_set)
        with m.Else():
            m.d.sync += sl_err.eq(sl_err | sl_set)

        # --- intake register and engine input
        m.d.comb += iw_load.eq(~iw_valid & Mux(is_cpu, cpu_msg & ~cpu_took, is_sl & sl.msg.valid))
        in_mask = Signal(32)
        m.d.comb += in_mask.eq(Mux(is_cpu, rb.wsel, sl.msg.mask))
        in_contig, in_lo, in_hi = mask_decode(m, in_mask)
        with m.If(wipe | rb.msg_ack):
            m.d.sync += cpu_took.eq(0)
        with m.Elif(iw_load & is_cpu):
            m.d.sync += cpu_took.eq(1)
        with m.If(wipe):                 # the word dies with the ownership (secrets too)
            m.d.sync += [iw_valid.eq(0), iw_data.eq(0), iw_data1.eq(0)]
        with m.Elif(iw_valid):
            with m.If(eng.msg.ready):
                m.d.sync += iw_valid.eq(0)
        with m.Elif(iw_load):
            m.d.sync += [iw_valid.eq(1),
                         iw_data.eq(Mux(is_cpu, rb.wdata, sl.msg.data)),
                         iw_data1.eq(Mux(is_cpu, 0, sl.msg.data1)),
                         iw_contig.eq(in_contig), iw_lo.eq(in_lo), iw_hi.eq(in_hi)]
        m.d.comb += [
            eng.cmd.valid.eq(Mux(is_cpu, cpu_cmd, is_sl & sl.cmd.valid & ~sl.msg.valid)),
            eng.cmd.op.eq(Mux(is_cpu, op[:2], sl.cmd.op)),
            eng.cmd.mode.eq(Mux(is_cpu, rb.cfg_mode, sl.cmd.mode)),
            eng.cmd.strength.eq(Mux(is_cpu, rb.cfg_strength, sl.cmd.strength)),
            eng.cmd.msg_len.eq(Mux(is_cpu, rb.msg_len_len, sl.cmd.msg_len)),
            eng.cmd.masked.eq(is_sl & sl.cmd.masked),
            eng.seed.eq(sl.msg.data),
            eng.msg.valid.eq(iw_valid),
            eng.msg.data.eq(iw_data),
            eng.msg.data1.eq(iw_data1),
            eng.msg_contig.eq(iw_contig), eng.msg_lo.eq(iw_lo), eng.msg_hi.eq(iw_hi),
            eng.digest.ready.eq(Mux(is_cpu, cpu_next, is_sl & sl.digest.ready)),
            eng.digest.share1.eq(is_sl & sl.digest.share1),
            eng.wipe.eq(wipe),
        ]

        # --- CPU status, errors, interrupts
        err_set = Signal(8)
        m.d.comb += err_set.eq(ferr | Mux(eng.err & is_cpu, eng.err_code, 0))
        for f in self.regmap.reg("ERR_CODE").fields:     # bit positions = the ERR_* values
            m.d.comb += rb.port("ERR_CODE", f.name + "_set").eq(err_set[f.lo])
        was_valid = Signal()
        m.d.sync += was_valid.eq(dig_ok)
        m.d.comb += [
            rb.intr_state_done_set.eq(dig_ok & ~was_valid),
            rb.intr_state_error_set.eq(err_set != 0),
            self.irq.eq((rb.intr_state_done & rb.intr_enable_done) |
                        (rb.intr_state_error & rb.intr_enable_error)),
            rb.status_phase.eq(eng.phase),
            rb.status_digest_valid.eq(dig_ok),
            rb.status_busy.eq(eng.busy),
            rb.status_owner.eq(owner),
        ]
        return m
