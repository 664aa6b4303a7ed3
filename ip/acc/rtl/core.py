# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""ACC core: fetch, decode (from isa.yml), control, GPRs, loop stack, CSRs/WSRs, WDRs.

One file of ~630 lines on purpose: it is one pipeline whose stall, fetch-guess, write-back and
wipe signals every instruction class reads and drives; the datapaths with their own interface
are files of their own (decode.py, wide_alu.py, stream_unit.py).

Timing (the ISS in ip/acc/iss counts the same cycles; the lockstep fuzzer checks it):
- IMEM and DMEM are synchronous: an address presented in cycle n gives data in cycle n+1.
  Fetch stage: the IMEM word goes into an instruction register (IR) before it is decoded
  (the OpenRAM macros drive their outputs half a period late, so nothing else may follow
  them in that cycle). The fetch address therefore runs one instruction ahead of execute:
  in the cycle an instruction completes, the core presents the address of the instruction
  after the next one, `next_of(fpc)`: fpc + 4, or the loop start when fpc ends a loop that
  goes round again on the loop stack as the completing instruction leaves it. That guess
  is exact: branches, jumps and loops may not end a loop body (LOOP error), so only a
  2-cycle instruction changes the flow, and it presents its target in its first cycle.
  Straight-line code and loop back-edges issue one instruction per cycle, and every
  instruction takes the same cycles as without the fetch stage (the ISS does not model it).
  The fetch stage costs one cycle after START (uncounted, like the first fetch).
- Instructions with `cycles: 2` in isa.yml (branches, jumps) stay two cycles in execute.
- Late results (isa.yml `latency`): load data (2) is written in the cycle after the load
  (write-back stage WB2); multiplier-unit results (3: wide_alu.py takes half the lanes per
  cycle) two cycles after the issue (p1 -> p2). An instruction that reads such a register
  before then waits. A multiplier op right after another waits a cycle (isa.yml units: mul,
  interval 2); any other instruction issues in that cycle. A write issued while a
  multiplier result to the same register is in flight cancels the result, and in one cycle
  the executing instruction's write wins over WB2 / p2: later in program order wins, as in
  the ISS.
- A faulting instruction is detected in its first non-stalled cycle; that cycle is not
  counted, the registers and DMEM are wiped and ERR_BITS holds the error.
- KMAC side-load (isa.yml group kmac): a hold flop drives `hold`; a kmac.* instruction
  presents its request in each of its cycles (while hold = 1 and the KMAC shows no error) and
  completes in the handshake cycle, kmac.msg in the cycle after it (registered msg.ready: no
  KMAC-to-ACC combinational path into the fetch); an error from the KMAC in any of its cycles
  faults.
  The ISS models the KMAC cycle by cycle (ip/kmac/model/cycle.py) to count the same cycles.
- Stream unit (group smp, ip/acc/rtl/stream_unit.py): smp.run checks its operands (SAMPLER)
  and starts the unit in its cycle; the unit takes digest words itself (its digest.ready is
  OR-ed into the port) and writes DMEM in cycles the core does not use it; smp.wait stalls
  until it is idle. kmac.dig / kmac.rel while it runs are KMAC errors; ecall, an error and
  START abort it.
"""
from amaranth import Array, Cat, Const, Module, Mux, Shape, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from ip.acc.tools.isa import load_isa

from ip.kmac.rtl.sideload import OP_FINISH, OP_PAD, OP_START, SideloadSignature

from ip.acc.rtl.decode import Decoder
from ip.acc.rtl.random_regs import RandomRegs
from ip.acc.rtl.stream_unit import B2A_MODE, INTERVAL_MODE, MASKED_MODES, StreamUnit
from ip.acc.rtl.wide_alu import WIDE_OP_OF_MNEMONIC, WideAlu, WideOp, uses_mul_unit

IMPLEMENTED_GROUPS = ("base", "loop", "wide-mem", "vec", "ntt", "kmac", "smp")
SMP_IMPLEMENTED_MODES = 6             # uni12 uni23 cbd2 cbd3 eta2 eta4 (stream_unit.py)
SMP_MASKED_MODES = tuple(MASKED_MODES) + (INTERVAL_MODE,)  # cbd2m cbd3m b2a1m intm: VMODE 0 only

ST_IDLE, ST_RUN, ST_WIPE, ST_FETCH = 0, 1, 2, 3
ST_FETCH2 = 4                          # internal: IR loads word 0 (shown to the host as RUN)

_ALU = ("add", "sub", "sll", "slt", "sltu", "xor", "srl", "sra", "or", "and")
_ALUI = {"addi": "add", "slti": "slt", "sltiu": "sltu", "xori": "xor", "ori": "or", "andi": "and",
         "slli": "sll", "srli": "srl", "srai": "sra"}
_BRANCH = ("beq", "bne", "blt", "bge", "bltu", "bgeu")


def _sig1(m, expr, name):
    """A named 1-bit comb signal (one select net per register, shared by its 256 bits)."""
    sig = Signal(name=name)
    m.d.comb += sig.eq(expr)
    return sig


class AccCore(wiring.Component):
    def __init__(self, imem_words: int, dmem_words: int, isa=None):
        self.isa = isa or load_isa()
        self.imem_words = imem_words
        self.dmem_words = dmem_words
        self.ia_bits = max(1, (imem_words - 1).bit_length())
        self.da_bits = max(1, (dmem_words - 1).bit_length())
        super().__init__({
            "imem_addr": Out(self.ia_bits), "imem_rdata": In(32),
            "dmem_addr": Out(self.da_bits), "dmem_re": Out(1), "dmem_we": Out(32),
            "dmem_wdata": Out(256), "dmem_rdata": In(256),
            "start": In(1), "wipe": In(1),
            "entropy_we": In(1), "entropy": In(32), "entropy_fresh": Out(4),   # ENTROPY (idle)
            # rows a wipe clears, from 0 (Acc: those written since the last wipe)
            "wipe_rows": In(self.da_bits + 1),
            "state": Out(2), "done": Out(1),
            "err_bits": Out(8), "cycles": Out(32), "insns": Out(32), "stop_pc": Out(32),
            "err_kmac": Out(8),
            "sideload": Out(SideloadSignature()),
        })

    def elaborate(self, platform):
        m = Module()
        isa = self.isa
        err_bit = {name: 1 << e["bit"] for name, e in isa.errors.items()}
        imem_bytes = self.imem_words * 4
        dmem_bytes = self.dmem_words * 32

        state = Signal(3)
        m.d.comb += self.state.eq(Mux((state == ST_FETCH) | (state == ST_FETCH2), ST_RUN, state[:2]))
        pc = Signal(32)                    # PC of the instruction in IR (execute)
        ir = Signal(32)                    # instruction register (fetch stage)
        fpc = Signal(32)                   # address presented last cycle: the word on imem_rdata
        cnt = Signal()                     # second cycle of a 2-cycle instruction
        clear = Signal()                   # wipe registers this cycle

        # ------------------------------------------------------------------ state
        gpr = Array(Signal(32, name=f"x{i}") for i in range(32))
        # isa.yml wdrs registers; an instruction naming another one does not decode
        nwdr = isa.wdrs
        wbits = max(1, (nwdr - 1).bit_length())
        wdr = Array(Signal(256, name=f"w{i}") for i in range(nwdr))
        vmode = Signal()
        smp_cfg = Signal(32)
        smp_src = Signal(32)
        acc = Signal(256)
        m.submodules.rnd = rnd = RandomRegs()      # RND's entropy pool, URND's PRNG
        m.d.comb += [rnd.entropy_we.eq(self.entropy_we), rnd.entropy.eq(self.entropy),
                     self.entropy_fresh.eq(rnd.fresh)]
        depth = isa.loop_depth
        l_start = [Signal(32, name=f"loop{i}_start") for i in range(depth)]
        l_end = [Signal(32, name=f"loop{i}_end") for i in range(depth)]
        l_rem = [Signal(32, name=f"loop{i}_rem") for i in range(depth)]
        l_valid = [Signal(name=f"loop{i}_valid") for i in range(depth)]   # entry 0 = top
        # the loop stack as the executing instruction leaves it (fetch looks ahead with it)
        n_start = [Signal(32, name=f"loop{i}_start_next") for i in range(depth)]
        n_end = [Signal(32, name=f"loop{i}_end_next") for i in range(depth)]
        n_rem = [Signal(32, name=f"loop{i}_rem_next") for i in range(depth)]
        n_valid = [Signal(name=f"loop{i}_valid_next") for i in range(depth)]
        for i in range(depth):
            m.d.comb += [n_start[i].eq(l_start[i]), n_end[i].eq(l_end[i]),
                         n_rem[i].eq(l_rem[i]), n_valid[i].eq(l_valid[i])]
            m.d.sync += [l_start[i].eq(n_start[i]), l_end[i].eq(n_end[i]),
                         l_rem[i].eq(n_rem[i]), l_valid[i].eq(n_valid[i])]

        # ------------------------------------------------------------------ decode
        # IR loads in the cycle an instruction completes, in ST_FETCH2 and on clear; the
        # decoder's match flags load with it (predecode in the fetch stage)
        ir_load = Signal()
        ir_next = Signal(32)
        with m.If(ir_load):
            m.d.sync += ir.eq(ir_next)
        dec = Decoder(m, ir, isa, IMPLEMENTED_GROUPS, word=ir_next, load=ir_load)
        rs1 = dec.operand("grs1", "gpr")
        rs2 = dec.operand("grs2", "gpr")
        rd = dec.operand("grd", "gpr")
        rs1_i = dec.index(["grs1"], "gpr")
        rs2_i = dec.index(["grs2"], "gpr")
        g1 = gpr[rs1_i]
        g2 = gpr[rs2_i]
        # wide read ports: A = wrs1 / wa / wrs, B = wrs2 / wb, C = wt / wrd (bn.sel, bn.ins);
        # indices from the fetch stage (don't-care for instructions without the operand:
        # every use is gated by the instruction's flags)
        wa_i = dec.index(["wrs1", "wa", "wrs"], "wdr", wbits)
        wb_i = dec.index(["wrs2", "wb"], "wdr", wbits)
        wc_i = dec.index(["wt", "wrd"], "wdr", wbits)
        wd_i = dec.index(["wrd"], "wdr", wbits)   # destination wrd

        def mn(name):
            return dec.with_operand(name, "wdr")

        # wide ALU ops; is_wide2: the multiplier unit's (isa.yml unit: mul)
        wide_ops = {mnem: op for mnem, op in WIDE_OP_OF_MNEMONIC.items() if mnem in dec._is}
        is_wide2 = dec.any_of([k for k, v in wide_ops.items() if uses_mul_unit(v)])

        # which ports an instruction reads (the result-latency stall; as the ISS's wdr_reads:
        # wrd is only read by bn.sel and bn.ins), predecoded into one flop per port
        def reads(port, mnems):
            return dec.encode({x: 1 for x in sorted(set(mnems))}, 1, "reads_" + port)
        port_mnems = {"a": mn("wrs1") + mn("wa") + mn("wrs"), "b": mn("wrs2") + mn("wb"),
                      "c": mn("wt") + ["bn.sel", "bn.ins"]}
        reads_a, reads_b, reads_c = (reads(p, port_mnems[p]) for p in "abc")
        # Operand blanking: a port the instruction does not read carries 0, not whatever its
        # index field happens to name (an addi after kmac.msgm would put one share on the bus
        # the other had just left), and the wide ALU sees operands only in its own
        # instructions (kmac.msgm's two shares would otherwise meet in its adder: its op
        # field is 0, ADDVM, outside them). docs/side_channels.md. The selects are flops: one
        # AND after the read mux on each path.
        alu_a, alu_b, alu_c = (reads("alu_" + p, [x for x in port_mnems[p] if x in wide_ops])
                               for p in "abc")
        # The read ports: an AND-OR mux on one-hot select flops that are zero unless the
        # instruction reads the port. A binary mux on the index field (blanked after it, as
        # above) followed every instruction's field: port c's is most instructions' destination,
        # so `kmac.msgm w1, w2` then `bn.bcast w1` then `bn.bcast w2` put share 1, share 0 and
        # share 1 on its nets (the gate-level t-test flagged it, docs/side_channels.md), and a
        # mux tree's inner nodes meet two registers whenever an index bit changes.
        port_index = {"a": ["wrs1", "wa", "wrs"], "b": ["wrs2", "wb"], "c": ["wt", "wrd"]}
        sel = {p: dec.select(port_index[p], "wdr", nwdr, port_mnems[p], "sel_" + p) for p in "abc"}
        rA, rB, rC = (Signal(256, name=f"port_{p}") for p in "abc")
        for port, sig in zip("abc", (rA, rB, rC)):
            terms = [wdr[k] & sel[port][k].replicate(256) for k in range(nwdr)]
            value = terms[0]
            for t in terms[1:]:
                value = value | t
            m.d.comb += sig.eq(value)
        wA, wB, wC = rA, rB, rC            # zero unless read: the selects blank them
        reads_g1 = dec.any_of(dec.with_operand("grs1", "gpr"))
        reads_g2 = dec.any_of(dec.with_operand("grs2", "gpr"))

        # ------------------------------------------------------------------ write-back stages
        wb2_load_w = Signal()              # bn.lw data -> wdr[wb2_l], the cycle after issue
        wb2_l = Signal(wbits)
        wb2_load_g = Signal()              # lw data -> gpr[wb2_g]
        wb2_g = Signal(5)
        wb2_word = Signal(3)
        m.d.sync += [wb2_load_w.eq(0), wb2_load_g.eq(0)]
        # multiplier-unit results in flight (isa.yml latency 3): p1 = issued last cycle, p2 =
        # issued two cycles ago, written from walu.res2_a / res2_b at the end of this cycle.
        # a = wrd or wa, b = wb (butterflies).
        p1_a_v, p1_b_v, p2_a_v, p2_b_v = (Signal(name=n) for n in ("p1_a_v", "p1_b_v",
                                                                    "p2_a_v", "p2_b_v"))
        p1_a, p1_b, p2_a, p2_b = (Signal(wbits, name=n) for n in ("p1_a", "p1_b", "p2_a", "p2_b"))
        m.d.sync += [p1_a_v.eq(0), p1_b_v.eq(0), p2_a.eq(p1_a), p2_b.eq(p1_b)]
        mul_busy = p1_a_v                  # every multiplier op sets p1_a_v (isa.yml interval 2)

        hazard = Signal()
        bad_pc = Signal()                  # the fetched word is garbage: no operands, no stall

        def reads_w(idx):
            return (reads_a & (wa_i == idx)) | (reads_b & (wb_i == idx)) | (reads_c & (wc_i == idx))
        op_hazard = Signal()
        m.d.comb += op_hazard.eq(~bad_pc & (
            (wb2_load_w & reads_w(wb2_l))
            | (p1_a_v & reads_w(p1_a)) | (p1_b_v & reads_w(p1_b))
            | (p2_a_v & reads_w(p2_a)) | (p2_b_v & reads_w(p2_b))
            | (wb2_load_g & ((reads_g1 & (rs1_i == wb2_g)) | (reads_g2 & (rs2_i == wb2_g))))
            | (is_wide2 & mul_busy)))
        # the write port's separation while the stream unit runs a masked mode (isa.yml
        # smp.run): a store right after the unit's masked write waits a cycle, after the
        # operand stall (the ISS's order), and the unit does not write in that cycle
        is_store = dec.any_of(["sw", "bn.sw", "bn.sw.pi"])
        smp_wr_q = Signal()                # the unit wrote a masked mode's word last cycle
        port_wait = Signal()
        m.d.comb += [port_wait.eq(~bad_pc & ~op_hazard & is_store & smp_wr_q),
                     hazard.eq(op_hazard | port_wait)]

        # ------------------------------------------------------------------ wide ALU
        m.submodules.walu = walu = WideAlu()
        # predecoded in the fetch stage: the op selects the butterfly routing and the
        # multiplier operands ahead of the partial-product trees (a chain of per-mnemonic
        # muxes here cost ~2.7 ns of the issue cycle)
        wop = dec.encode({mnem: op.value for mnem, op in wide_ops.items()},
                         Shape.cast(WideOp).width, "wop")
        is_wide = dec.any_of(list(wide_ops))
        is_bfly = dec.any_of(["bn.bfly.ct", "bn.bfly.gs"])
        lane = dec.operand("lane")
        shamt = dec.operand("shamt")
        walu_imm = Mux(is_bfly, dec.operand("tidx"), shamt | lane | dec.operand("off"))
        m.d.comb += [walu.op.eq(wop), walu.vmode.eq(vmode), walu.a.eq(rA & alu_a.replicate(256)),
                     walu.b.eq(rB & alu_b.replicate(256)), walu.t.eq(rC & alu_c.replicate(256)),
                     walu.imm.eq(walu_imm[:5]), walu.dist.eq(dec.operand("dist")[:3]),
                     walu.width.eq(dec.operand("d")[:4]), walu.gpr.eq(g1), walu.acc.eq(acc)]

        # ------------------------------------------------------------------ fault detection
        first = Signal()                   # first non-stalled cycle of the instruction
        run = Signal()
        m.d.comb += [run.eq(state == ST_RUN), first.eq(run & ~hazard & ~cnt)]
        faults = Signal(8)
        m.d.comb += bad_pc.eq((pc[:2] != 0) | (pc >= imem_bytes))

        off = dec.operand("offset")
        ea = Signal(32)
        m.d.comb += ea.eq(g1 + off)
        is_lw, is_sw = dec.is_("lw"), dec.is_("sw")
        is_wl = dec.any_of(["bn.lw", "bn.lw.pi"])
        is_ws = dec.any_of(["bn.sw", "bn.sw.pi"])
        is_pi = dec.any_of(["bn.lw.pi", "bn.sw.pi"])
        bad32 = (ea[:2] != 0) | (ea > dmem_bytes - 4)
        bad256 = (ea[:5] != 0) | (ea > dmem_bytes - 32)
        bad_data = ((is_lw | is_sw) & bad32) | ((is_wl | is_ws) & bad256)
        # smp.run operand checks (SAMPLER); the unit and hold flop are declared further down
        smp_busy = Signal()
        smp_masked_busy = Signal()
        hold_q = Signal()
        smp_mode = dec.operand("mode")
        smp_masked = Signal()
        m.d.comb += smp_masked.eq(Cat(*[smp_mode == k for k in SMP_MASKED_MODES]).any())
        # a masked mode writes two polynomials, share 1's after share 0's; intm two words
        smp_int = smp_mode == INTERVAL_MODE
        smp_words = Mux(vmode, (g2 + 7) >> 3, Mux(smp_int, 2, Mux(smp_masked, ((g2 + 15) >> 4) << 1, (g2 + 15) >> 4)))
        # b2a1m reads its three words (share 0, public, share 1) from SMP_SRC, not the KMAC;
        # intm its groups' shares from SMP_SRC and public words from SMP_CFG[19:8] (a word index)
        smp_b2a = smp_mode == B2A_MODE
        smp_pub_end = (smp_cfg[8:20] + Mux(smp_cfg[7], 1, g2[4:9])) << 5
        smp_err = dec.is_("smp.run") & (
            smp_busy | ((smp_mode >= SMP_IMPLEMENTED_MODES) & ~(smp_masked & ~vmode))
            | ((smp_cfg & 0x60) != 0)
            | (g2 == 0) | (g2 > 0xFFFF) | (g1[:5] != 0)
            | ((g1 + (smp_words << 5)) > dmem_bytes) | (~hold_q & ~smp_b2a & ~smp_int)
            | (smp_b2a & ((g2 > 256) | (smp_src[:5] != 0) | ((smp_src + 96) > dmem_bytes)))
            | (smp_int & ((g2[:4] != 0) | (g2 > 256) | (smp_src[:5] != 0) | ((smp_src + (g2 << 2)) > dmem_bytes)
                          | (smp_pub_end > dmem_bytes))))

        # CSRs / WSRs by name from isa.yml
        csr_addr = dec.operand("csr")[:12]
        wsr_addr = dec.operand("wsr")[:8]
        csr_known = Cat(*[csr_addr == r["addr"] for r in isa.csrs.values()]).any()
        csr_ro = Cat(*[csr_addr == r["addr"] for r in isa.csrs.values()
                       if r["desc"].strip().lower().startswith("read-only")]).any()
        wsr_known = Cat(*[wsr_addr == r["addr"] for r in isa.wsrs.values()]).any()
        wsr_ro = Cat(*[wsr_addr == r["addr"] for r in isa.wsrs.values()
                       if r["desc"].strip().lower().startswith("read-only")]).any()
        is_csr = dec.any_of(["csrrw", "csrrs", "csrrc"])
        csr_writes = dec.is_("csrrw") | (dec.any_of(["csrrs", "csrrc"]) & (rs1[:5] != 0))
        illegal = (~dec.valid
                   | (is_csr & (~csr_known | (csr_writes & csr_ro)))
                   | (dec.is_("bn.wsrr") & ~wsr_known)
                   | (dec.is_("bn.wsrw") & (~wsr_known | wsr_ro))
                   | (dec.any_of(["bn.ins", "bn.ext"]) & (lane >= 8))
                   | (is_wide & walu.illegal))

        # the random registers: a read of RND without fresh entropy faults (isa.yml RND)
        rd_csr = {n: is_csr & (csr_addr == isa.csrs[n]["addr"]) for n in ("RND", "URND")}
        rd_wsr = {n: dec.is_("bn.wsrr") & (wsr_addr == isa.wsrs[n]["addr"]) for n in ("RND", "URND")}
        rnd_empty = (rd_csr["RND"] & (rnd.fresh == 0)) | (rd_wsr["RND"] & (rnd.fresh != 8))
        # URND steps for the stream unit in every cycle of a masked mode: the core may not draw
        # from it (or reseed it) meanwhile, or the two would use the same words (SAMPLER)
        wr_urnd = dec.is_("bn.wsrw") & (wsr_addr == isa.wsrs["URND"]["addr"])
        urnd_err = smp_masked_busy & (rd_csr["URND"] | rd_wsr["URND"] | wr_urnd
                                      | (dec.is_("kmac.start") & g1[5]))

        # loops
        is_loop = dec.any_of(["loop", "loopi"])
        l_count = Mux(dec.is_("loop"), g1, dec.operand("iters"))
        l_body = dec.operand("bodysize")
        new_end = Signal(32)
        m.d.comb += new_end.eq(pc + (l_body << 2))
        loop_err = is_loop & ((l_count == 0) | (l_body == 0) | l_valid[depth - 1]
                              | (l_valid[0] & (new_end > l_end[0])))
        no_last = dec.any_of([i.mnemonic for i in dec.insns if "LOOP" in i.errors])
        last_err = no_last & l_valid[0] & (l_end[0] == pc)

        with m.If(bad_pc):
            m.d.comb += faults.eq(err_bit["BAD_INSN_ADDR"])
        with m.Elif(illegal):
            m.d.comb += faults.eq(err_bit["ILLEGAL_INSN"])
        with m.Elif(rnd_empty):
            m.d.comb += faults.eq(err_bit["RND"])
        with m.Elif(loop_err | last_err):
            m.d.comb += faults.eq(err_bit["LOOP"])
        with m.Elif(smp_err | urnd_err):
            m.d.comb += faults.eq(err_bit["SAMPLER"])
        with m.Elif(bad_data):
            m.d.comb += faults.eq(err_bit["BAD_DATA_ADDR"])
        # KMAC side-load: faults in any cycle of a kmac.* instruction (not only its first)
        sl = self.sideload
        hold = Signal()
        acq_wait = Signal()                # kmac.acq past its first cycle (hold raised)
        is_acq = dec.is_("kmac.acq")
        is_kcmd = dec.any_of(["kmac.start", "kmac.pad", "kmac.finish"])
        is_kmsg = dec.any_of(["kmac.msg", "kmac.msgm"])
        is_kdig = dec.any_of(["kmac.dig", "kmac.dig1"])      # dig1: share 1, nothing taken
        core_step256 = Signal()            # the core draws 256 bits from URND
        is_kmstart = Signal()              # a masked kmac.start (grs1[5]): URND seeds the KMAC
        m.d.comb += is_kmstart.eq(dec.is_("kmac.start") & g1[5])
        is_kreq = is_kcmd | is_kmsg | is_kdig
        kcycle = Signal()                  # a kmac.* instruction (not rel) is in execute
        m.d.comb += kcycle.eq(run & ~hazard & ~bad_pc & (is_acq | is_kreq))
        m.submodules.smp = smp = StreamUnit(self.dmem_words)
        is_srun, is_swait = dec.is_("smp.run"), dec.is_("smp.wait")
        is_krel = dec.is_("kmac.rel")
        kfault = Signal()
        kbits = Signal(8)                  # error bit of a kmac.* / smp.wait fault
        kcode = Signal(8)
        m.d.comb += kbits.eq(err_bit["KMAC"])
        with m.If(run & ~hazard & ~bad_pc & (is_kdig | is_krel) & smp.busy):
            m.d.comb += kfault.eq(1)           # the stream unit owns the digest stream
        with m.Elif(run & ~hazard & ~bad_pc & is_swait & smp.busy & hold & sl.error):
            m.d.comb += [kfault.eq(1), kbits.eq(err_bit["SAMPLER"]), kcode.eq(sl.error_code)]
        with m.Elif(kcycle):
            with m.If(is_acq & ~acq_wait & hold):
                m.d.comb += kfault.eq(1)
            with m.Elif(is_kreq & ~hold):
                m.d.comb += kfault.eq(1)
            with m.Elif((acq_wait | is_kreq) & sl.error):
                m.d.comb += [kfault.eq(1), kcode.eq(sl.error_code)]
        # kmac.msg completes in the cycle after its handshake (msg.ready registered here, so
        # it never steers the fetch and the core's write enables in the same cycle); no request
        # is presented in that completion cycle. The KMAC takes the word into its intake
        # register (its msg.ready is that register's "empty", a flop) and packs it from there:
        # nothing of the offered mask / data reaches the KMAC's checks in the offering cycle.
        kmsg_took = Signal()
        present = Signal()
        m.d.comb += present.eq(kcycle & is_kreq & hold & ~sl.error & ~(is_kmsg & kmsg_took))
        m.d.sync += kmsg_took.eq(present & is_kmsg & sl.msg.ready)
        m.d.comb += [sl.hold.eq(hold),
                     sl.cmd.valid.eq(present & is_kcmd),
                     sl.cmd.op.eq(Mux(dec.is_("kmac.start"), OP_START,
                                      Mux(dec.is_("kmac.pad"), OP_PAD, OP_FINISH))),
                     sl.cmd.mode.eq(g1[0:2]), sl.cmd.strength.eq(g1[2:5]), sl.cmd.msg_len.eq(g2),
                     sl.cmd.masked.eq(g1[5]),
                     sl.msg.valid.eq(present & is_kmsg), sl.msg.mask.eq(g1),
                     # zero outside a message word or a masked START: the wires to the KMAC
                     # would otherwise follow the operand bus (both domains' shares) every cycle
                     sl.msg.data.eq(Mux(is_kmstart, rnd.urnd256, Mux(is_kmsg, wA, 0))),
                     # kmac.msg's word is public in a masked operation: share 1 = 0
                     sl.msg.data1.eq(Mux(dec.is_("kmac.msgm"), wB, 0)),
                     sl.digest.ready.eq((present & dec.is_("kmac.dig")) | smp.dig_ready),
                     sl.digest.share1.eq((present & dec.is_("kmac.dig1")) | smp.dig_share1)]
        kdone = Signal()                   # the kmac.* instruction completes this cycle
        m.d.comb += kdone.eq((is_acq & acq_wait & sl.granted)
                             | (is_kcmd & sl.cmd.ready) | (is_kmsg & kmsg_took)
                             | (is_kdig & sl.digest.valid) | is_krel | (is_swait & ~smp.busy))
        fault = Signal()
        m.d.comb += fault.eq((first & (faults != 0)) | (kfault & (faults == 0)))
        m.d.comb += [smp_busy.eq(smp.busy), smp_masked_busy.eq(smp.masked_busy), hold_q.eq(hold)]

        # ------------------------------------------------------------------ execute
        two_cycle = dec.any_of([i.mnemonic for i in dec.insns if i.cycles == 2])
        go = Signal()                      # the instruction completes this cycle
        adv = Signal()                     # ... unless it faults (for the fetch address only)
        m.d.comb += [adv.eq(run & ~hazard & (cnt | ~two_cycle)
                            & (kdone | ~(is_acq | is_kreq | is_swait))),
                     go.eq(adv & ~fault)]
        with m.If(kcycle & ~fault & is_acq):
            m.d.sync += [hold.eq(1), acq_wait.eq(~kdone)]
        with m.If(run & ~hazard & ~fault & two_cycle):
            m.d.sync += cnt.eq(~cnt)

        # GPR result of 1-cycle instructions
        g_we = Signal()
        g_val = Signal(32)
        imm = dec.operand("imm")
        b_op = Mux(dec.any_of(list(_ALUI)), Mux(dec.any_of(["slli", "srli", "srai"]), shamt, imm), g2)
        alu_sel = {name: dec.any_of([name] + [k for k, v in _ALUI.items() if v == name])
                   for name in _ALU}
        sh = b_op[:5]
        alu_val = Signal(32)
        m.d.comb += alu_val.eq(
            Mux(alu_sel["add"], g1 + b_op, 0)
            | Mux(alu_sel["sub"], g1 - b_op, 0)
            | Mux(alu_sel["sll"], (g1 << sh)[:32], 0)
            | Mux(alu_sel["slt"], g1.as_signed() < b_op.as_signed(), 0)
            | Mux(alu_sel["sltu"], g1 < b_op, 0)
            | Mux(alu_sel["xor"], g1 ^ b_op, 0)
            | Mux(alu_sel["srl"], g1 >> sh, 0)
            | Mux(alu_sel["sra"], (g1.as_signed() >> sh).as_unsigned(), 0)
            | Mux(alu_sel["or"], g1 | b_op, 0)
            | Mux(alu_sel["and"], g1 & b_op, 0))

        csr_old = Signal(32)
        for name, r in isa.csrs.items():
            src = {"VMODE": vmode, "SMP_CFG": smp_cfg, "SMP_SRC": smp_src, "RND": rnd.rnd_word,
                   "URND": rnd.urnd32,
                   "KMAC_STATUS": Cat(sl.granted, sl.msg.ready, sl.digest.valid, sl.error),
                   "SMP_STATUS": Cat(smp.busy, Const(0, 15), smp.produced)}.get(name, 0)
            with m.If(csr_addr == r["addr"]):
                m.d.comb += csr_old.eq(src)
        csr_new = Mux(dec.is_("csrrw"), g1, Mux(dec.is_("csrrs"), csr_old | g1, csr_old & ~g1))

        word_lane = lane[:3]
        ext_val = Array(wA[32 * k:32 * k + 32] for k in range(8))[word_lane]
        with m.If(dec.any_of(list(_ALU) + list(_ALUI))):
            m.d.comb += [g_we.eq(1), g_val.eq(alu_val)]
        with m.Elif(dec.is_("lui")):
            m.d.comb += [g_we.eq(1), g_val.eq(imm << 12)]
        with m.Elif(dec.any_of(["jal", "jalr"])):
            m.d.comb += [g_we.eq(1), g_val.eq(pc + 4)]
        with m.Elif(is_csr):
            m.d.comb += [g_we.eq(1), g_val.eq(csr_old)]
        with m.Elif(dec.is_("bn.ext")):
            m.d.comb += [g_we.eq(1), g_val.eq(ext_val)]
        with m.Elif(dec.is_("bn.or.acc")):
            m.d.comb += [g_we.eq(1), g_val.eq(walu.popcnt)]
        with m.Elif(is_pi):
            m.d.comb += [g_we.eq(1), g_val.eq(g1 + 32)]
        g_dst = Mux(is_pi, rs1[:5], rd[:5])

        # WDR result of 1-cycle instructions
        w_we = Signal()
        w_val = Signal(256)
        ins_val = Signal(256)
        m.d.comb += ins_val.eq(wC)
        with m.Switch(word_lane):
            for k in range(8):
                with m.Case(k):
                    m.d.comb += ins_val[32 * k:32 * k + 32].eq(g1)
        wsr_val = Mux(wsr_addr == isa.wsrs["ACC"]["addr"], acc,
                      Mux(wsr_addr == isa.wsrs["RND"]["addr"], rnd.rnd_all, rnd.urnd256))
        with m.If(is_wide & ~is_wide2 & ~dec.is_("bn.or.acc")):
            m.d.comb += [w_we.eq(1), w_val.eq(walu.res)]
        with m.Elif(dec.is_("bn.mov")):
            m.d.comb += [w_we.eq(1), w_val.eq(wA)]
        with m.Elif(dec.is_("bn.ins")):
            m.d.comb += [w_we.eq(1), w_val.eq(ins_val)]
        with m.Elif(is_kdig):
            m.d.comb += [w_we.eq(1), w_val.eq(sl.digest.data)]
        with m.Elif(dec.is_("bn.wsrr")):
            m.d.comb += [w_we.eq(1), w_val.eq(wsr_val)]

        # next PC: branches, jumps, then the loop stack
        taken = Signal()
        m.d.comb += taken.eq(
            (dec.is_("beq") & (g1 == g2)) | (dec.is_("bne") & (g1 != g2))
            | (dec.is_("blt") & (g1.as_signed() < g2.as_signed()))
            | (dec.is_("bge") & (g1.as_signed() >= g2.as_signed()))
            | (dec.is_("bltu") & (g1 < g2)) | (dec.is_("bgeu") & (g1 >= g2)))
        seq_pc = Signal(32)
        m.d.comb += seq_pc.eq(pc + 4)
        with m.If(taken | dec.is_("jal")):
            m.d.comb += seq_pc.eq(pc + off)
        with m.Elif(dec.is_("jalr")):
            m.d.comb += seq_pc.eq((g1 + off) & ~1)
        next_pc = Signal(32)
        m.d.comb += next_pc.eq(seq_pc)

        def loop_walk(at, start, end, rem, valid, name):
            """Loop stack at the instruction at `at` (not a loop instruction): entries
            0..k-1 end there and are finished; entry k loops back. Returns (back: index + 1
            of the entry that loops back or 0, pops, the next PC)."""
            ends_here = [valid[i] & (end[i] == at) for i in range(depth)]
            pops = Signal(range(depth + 1), name=f"{name}_pops")
            back = Signal(range(depth + 1), name=f"{name}_back")
            nxt = Signal(32, name=f"{name}_next")
            m.d.comb += nxt.eq(at + 4)
            finished = [ends_here[j] & (rem[j] == 1) for j in range(depth)]
            for k in range(depth):
                before = Cat(*finished[:k]).all() if k else Const(1)
                after = ~ends_here[k + 1] if k + 1 < depth else Const(1)
                with m.If(before & ends_here[k] & (rem[k] != 1)):
                    m.d.comb += [back.eq(k + 1), pops.eq(k), nxt.eq(start[k])]
                with m.If(before & finished[k] & after):
                    m.d.comb += pops.eq(k + 1)
            return back, pops, nxt

        back_x, pops_x, loop_next = loop_walk(pc, l_start, l_end, l_rem, l_valid, "exec")
        back = Mux(is_loop, 0, back_x)
        pops = Mux(is_loop, 0, pops_x)
        with m.If(~is_loop & (back_x != 0)):
            m.d.comb += next_pc.eq(loop_next)
        # fetch look-ahead: the successor of the word now on imem_rdata (at fpc)
        _, _, fetch_next = loop_walk(fpc, n_start, n_end, n_rem, n_valid, "fetch")

        # ------------------------------------------------------------------ state updates
        ldata_word = Array(self.dmem_rdata[32 * k:32 * k + 32] for k in range(8))[wb2_word]
        with m.If(wb2_load_g):
            m.d.sync += gpr[wb2_g].eq(ldata_word)
        # WDR writes as one AND-OR per register with its selects decided from flops and
        # decode (priority: clear, then the executing instruction's wrd, then load data, then
        # the multiplier's b, then its a), so the late wide-ALU results pass two gate levels,
        # not a chain of one 2:1 mux per write source. A write issued while a multiplier
        # result is in flight to the same register cancels that result (p1 -> p2 below), so
        # load data and a multiplier result never meet on one register.
        for i in range(nwdr):
            hit_w = go & w_we & (wd_i == i)
            hit_l = wb2_load_w & (wb2_l == i)
            hit_b = p2_b_v & (p2_b == i)
            hit_a = p2_a_v & (p2_a == i)
            live = ~clear & ~hit_w
            sel_w = _sig1(m, hit_w & ~clear, f"w{i}_sel_w")
            sel_l = _sig1(m, live & hit_l, f"w{i}_sel_l")
            sel_b = _sig1(m, live & ~hit_l & hit_b, f"w{i}_sel_b")
            sel_a = _sig1(m, live & ~hit_l & ~hit_b & hit_a, f"w{i}_sel_a")
            keep = _sig1(m, live & ~hit_l & ~hit_b & ~hit_a, f"w{i}_keep")
            m.d.sync += wdr[i].eq(
                ((sel_w.replicate(256) & w_val) | (sel_l.replicate(256) & self.dmem_rdata))
                | ((sel_b.replicate(256) & walu.res2_b) | (sel_a.replicate(256) & walu.res2_a))
                | (keep.replicate(256) & wdr[i]))
        # in-flight results move p1 -> p2 every cycle (stalls do not hold the pipeline); a
        # WDR write issued now to the same register cancels one
        w_issue = go & (w_we | is_wl)
        m.d.sync += [p2_a_v.eq(p1_a_v & ~(w_issue & (wd_i == p1_a))),
                     p2_b_v.eq(p1_b_v & ~(w_issue & (wd_i == p1_b)))]

        m.d.comb += walu.issue.eq(go & is_wide2)
        # fetch: hold the word on imem_rdata while execute stalls; a 2-cycle instruction
        # presents its target in its first cycle; a completing one moves the word into IR
        # and presents the successor of that word. The fault term is left out of the address
        # choice (adv, not go): a faulting instruction's fetch is harmless (the core stops,
        # START fetches from 0 again), and the fault's operand checks (GPR reads, address
        # adders and compares) stay off the path into the IMEM macros.
        fetch_addr = Signal(32)
        m.d.comb += fetch_addr.eq(fpc)
        with m.If(run & ~hazard & two_cycle & ~cnt):
            m.d.comb += fetch_addr.eq(next_pc)
        m.d.comb += self.imem_addr.eq(fetch_addr[2:2 + self.ia_bits])
        with m.If(adv):
            m.d.comb += fetch_addr.eq(fetch_next)
        with m.If(go):
            m.d.sync += [pc.eq(next_pc), self.insns.eq(self.insns + 1)]
            m.d.comb += [ir_load.eq(1), ir_next.eq(self.imem_rdata)]
            with m.If(g_we & (g_dst != 0)):
                m.d.sync += gpr[g_dst].eq(g_val)
            with m.If(is_csr & csr_writes):
                with m.If(csr_addr == isa.csrs["VMODE"]["addr"]):
                    m.d.sync += vmode.eq(csr_new[0])
                with m.If(csr_addr == isa.csrs["SMP_CFG"]["addr"]):
                    m.d.sync += smp_cfg.eq(csr_new)
                with m.If(csr_addr == isa.csrs["SMP_SRC"]["addr"]):
                    m.d.sync += smp_src.eq(csr_new)
            with m.If(dec.is_("bn.wsrw") & (wsr_addr == isa.wsrs["ACC"]["addr"])):
                m.d.sync += acc.eq(wA)
            m.d.comb += [rnd.take_word.eq(rd_csr["RND"]), rnd.take_all.eq(rd_wsr["RND"]),
                         rnd.step32.eq(rd_csr["URND"]),
                         core_step256.eq(rd_wsr["URND"] | is_kmstart),    # (go: the handshake)
                         rnd.reseed.eq(wr_urnd)]
            with m.If(dec.is_("bn.or.acc")):
                m.d.sync += acc.eq(walu.acc_next)
            # write-back stage
            with m.If(is_lw & (rd[:5] != 0)):
                m.d.sync += [wb2_load_g.eq(1), wb2_g.eq(rd[:5]), wb2_word.eq(ea[2:5])]
            with m.If(is_wl):
                m.d.sync += [wb2_load_w.eq(1), wb2_l.eq(wd_i)]
            with m.If(is_bfly):
                m.d.sync += [p1_a_v.eq(1), p1_a.eq(wa_i), p1_b_v.eq(1), p1_b.eq(wb_i)]
            with m.Elif(is_wide2):
                m.d.sync += [p1_a_v.eq(1), p1_a.eq(wd_i)]
        # loop stack: updated on adv, not go, so that the fault checks (GPR reads, address
        # adders) stay off the fetch look-ahead (fetch_next reads n_*) and the IMEM address.
        # A faulting instruction's update is harmless: the fault clears every entry's valid
        # bit (clear, below), and no entry is read unless valid.
        with m.If(adv):
            with m.If(is_loop):
                for i in range(depth):
                    src = (pc + 4, new_end, l_count, Const(1)) if i == 0 else \
                        (l_start[i - 1], l_end[i - 1], l_rem[i - 1], l_valid[i - 1])
                    m.d.comb += [n_start[i].eq(src[0]), n_end[i].eq(src[1]),
                                 n_rem[i].eq(src[2]), n_valid[i].eq(src[3])]
            with m.Elif(back != 0):
                with m.Switch(pops):
                    for k in range(depth):
                        with m.Case(k):
                            for i in range(depth):
                                j = i + k
                                if j < depth:
                                    rem = l_rem[j] - 1 if i == 0 else l_rem[j]
                                    m.d.comb += [n_start[i].eq(l_start[j]), n_end[i].eq(l_end[j]),
                                                 n_rem[i].eq(rem), n_valid[i].eq(l_valid[j])]
                                else:
                                    m.d.comb += n_valid[i].eq(0)
            with m.Elif(pops != 0):
                with m.Switch(pops):
                    for k in range(1, depth + 1):
                        with m.Case(k):
                            for i in range(depth):
                                j = i + k
                                if j < depth:
                                    m.d.comb += [n_start[i].eq(l_start[j]), n_end[i].eq(l_end[j]),
                                                 n_rem[i].eq(l_rem[j]), n_valid[i].eq(l_valid[j])]
                                else:
                                    m.d.comb += n_valid[i].eq(0)

        # DMEM port: loads/stores of the executing instruction, or the wipe counter
        wipe_addr = Signal(self.da_bits + 1)
        m.d.comb += self.dmem_addr.eq(ea[5:5 + self.da_bits])
        with m.If(go & (is_lw | is_wl)):
            m.d.comb += self.dmem_re.eq(1)
        with m.If(go & is_sw):
            m.d.comb += [self.dmem_we.eq(Const(0xF, 4) << (ea[2:5] * 4)),
                         self.dmem_wdata.eq(g2.replicate(8))]
        with m.If(go & is_ws):
            m.d.comb += [self.dmem_we.eq(Const(0xFFFF_FFFF, 32)), self.dmem_wdata.eq(wA)]
        # the stream unit writes in cycles the core does not use the port; a masked mode's
        # word also not in the cycle after a core store nor in a store's port_wait cycle (the
        # write wires carry 0 between the core's words and the unit's shares)
        core_mem = go & (is_lw | is_sw | is_wl | is_ws)
        core_st_q = Signal()
        m.d.sync += core_st_q.eq(go & is_store)
        smp_wr_gnt = ~core_mem & ~(run & port_wait) & ~(core_st_q & smp.masked_busy)
        m.d.sync += smp_wr_q.eq(smp.wr_req & smp_wr_gnt & smp.masked_busy)
        m.d.comb += [smp.wr_gnt.eq(smp_wr_gnt), smp.dig_valid.eq(sl.digest.valid),
                     smp.dig_data.eq(sl.digest.data), smp.urnd.eq(rnd.urnd256),
                     smp.start.eq(go & is_srun), smp.mode.eq(dec.operand("mode")[:4]),
                     smp.count.eq(g2[:16]), smp.dst.eq(g1[5:5 + self.da_bits]),
                     smp.vmode.eq(vmode), smp.cfg.eq(smp_cfg),
                     smp.src.eq(smp_src[5:5 + self.da_bits]), smp.rd_gnt.eq(~core_mem),
                     smp.rd_data.eq(self.dmem_rdata)]
        with m.If(smp.rd_req & ~core_mem):      # b2a1m's reads, in cycles the core leaves free
            m.d.comb += [self.dmem_addr.eq(smp.rd_addr), self.dmem_re.eq(1)]
        # URND steps for the core or for the stream unit's masked modes, never both (urnd_err)
        m.d.comb += rnd.step256.eq(core_step256 | smp.urnd_step)
        with m.If(smp.wr_req & smp_wr_gnt):
            m.d.comb += [self.dmem_addr.eq(smp.wr_addr), self.dmem_we.eq(Const(0xFFFF_FFFF, 32)),
                         self.dmem_wdata.eq(smp.wr_data)]

        # ------------------------------------------------------------------ counters, halt
        with m.If(run & ~fault):
            m.d.sync += self.cycles.eq(self.cycles + 1)
        m.d.sync += self.done.eq(0)
        is_ecall = dec.is_("ecall")
        with m.If(go & (is_ecall | dec.is_("kmac.rel"))):
            m.d.sync += hold.eq(0)
        with m.If(go & is_ecall):
            m.d.comb += smp.abort.eq(1)
            m.d.sync += [state.eq(ST_IDLE), self.stop_pc.eq(pc), self.done.eq(1)]
        with m.If(fault):
            m.d.sync += [hold.eq(0), acq_wait.eq(0), self.err_kmac.eq(kcode)]
            m.d.comb += smp.abort.eq(1)
            m.d.sync += [state.eq(ST_WIPE), self.stop_pc.eq(pc),
                         self.err_bits.eq(Mux(faults != 0, faults, kbits)),
                         wipe_addr.eq(0)]
            m.d.comb += clear.eq(1)

        with m.If(state == ST_WIPE):
            m.d.comb += [self.dmem_addr.eq(wipe_addr[:self.da_bits]),
                         self.dmem_we.eq(Const(0xFFFF_FFFF, 32)), self.dmem_wdata.eq(0)]
            m.d.sync += wipe_addr.eq(wipe_addr + 1)
            with m.If(wipe_addr + 1 >= self.wipe_rows):
                m.d.sync += [state.eq(ST_IDLE), self.done.eq(1)]

        m.d.sync += fpc.eq(fetch_addr)
        with m.If(state == ST_FETCH):       # first instruction word arrives next cycle
            m.d.sync += state.eq(ST_FETCH2)
            m.d.comb += fetch_addr.eq(0)
        with m.If(state == ST_FETCH2):      # word 0 into IR; present its successor
            m.d.sync += state.eq(ST_RUN)
            m.d.comb += [ir_load.eq(1), ir_next.eq(self.imem_rdata)]
            m.d.comb += fetch_addr.eq(fetch_next)

        with m.If(self.start & (state == ST_IDLE)):
            m.d.sync += [state.eq(ST_FETCH), pc.eq(0), cnt.eq(0), self.cycles.eq(0),
                         self.insns.eq(0), self.err_bits.eq(0), self.stop_pc.eq(0),
                         self.err_kmac.eq(0)]
            m.d.comb += clear.eq(1)
        with m.Elif(self.wipe & (state != ST_WIPE)):
            m.d.sync += [hold.eq(0), acq_wait.eq(0)]
            m.d.sync += [state.eq(ST_WIPE), wipe_addr.eq(0), cnt.eq(0)]
            m.d.comb += clear.eq(1)

        m.d.comb += [rnd.seed.eq(wA), rnd.start.eq(self.start & (state == ST_IDLE))]
        with m.If(fault | (self.wipe & (state != ST_WIPE) & ~(self.start & (state == ST_IDLE)))):
            m.d.comb += rnd.wipe.eq(1)            # as the wipe below: START wins when idle
        with m.If(clear):
            m.d.comb += smp.abort.eq(1)
            for i in range(32):
                m.d.sync += gpr[i].eq(0)         # WDRs: see the write AND-OR
            m.d.comb += [ir_load.eq(1), ir_next.eq(0)]
            m.d.sync += [vmode.eq(0), smp_cfg.eq(0), smp_src.eq(0), acc.eq(0), cnt.eq(0), kmsg_took.eq(0),
                         wb2_load_w.eq(0), wb2_load_g.eq(0),
                         p1_a_v.eq(0), p1_b_v.eq(0), p2_a_v.eq(0), p2_b_v.eq(0)]
            for i in range(depth):
                m.d.sync += l_valid[i].eq(0)
        return m
