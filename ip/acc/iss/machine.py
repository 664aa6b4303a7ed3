# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""Fetch, decode (ip.acc.tools.isa only), execute, count cycles; halts are defined results.

    iss = Iss()                       # DMEM 32 KiB, IMEM 32 KiB (isa parameters)
    iss.load_program(words); iss.dmem.write_bytes(0, data)
    halt = iss.run(max_cycles=10_000) # Halt(reason, err_bits, ...)
    iss.reset()                       # wipe registers / loop stack / PC; IMEM, DMEM kept

Cycles: each instruction costs its isa.yml `cycles`, after a stall while a register it reads
is not ready (isa.yml `latency`: load data from the synchronous DMEM 2, the multiplier /
butterfly results 3; bn.lw.pi's pointer update is not late) or its unit is busy (`unit: mul`,
one multiply or butterfly every 2 cycles): see timing.Scoreboard.
KMAC: `Iss.kmac` (ip.kmac.model.cycle) is ticked once for every cycle the core spends (operand
stalls, every instruction's cycles, the faulting cycle), with the core's hold flop
`Iss.kmac_hold` and no request outside kmac.* instructions; kmac.* instructions take as many
cycles as their handshakes need (iss/kmac.py). ecall and error halts clear the hold flop.
Stream unit: `Iss.stream_unit` (iss/stream_unit.py, exact model of ip/acc/rtl/stream_unit.py) runs in the
background with the KMAC: each cycle its digest.ready is OR-ed into the KMAC's, and its DMEM
write happens in cycles the core does not use DMEM (the go cycle of lw/sw/bn.lw/bn.sw).
smp.run starts it in its (only) cycle; ecall, an error and START abort it.
A faulting instruction does not retire and adds no cycles (only an operand stall before it
counts: CYCLES counts every cycle from START to the halt except the one that detects the
error); the state is wiped (registers and
DMEM to zero, see secure_wipe) and its error bit goes to ERR_BITS.
"""
from dataclasses import dataclass, field

from ip.acc.tools.isa import load_isa

from ip.acc.iss.csr import Csrs, Wsrs
from ip.acc.iss.dmem import Dmem
from ip.kmac.model.cycle import IDLE_INPUTS, KmacCycleModel

from ip.acc.iss.errors import AccError, Unmodelled
from ip.acc.iss.gpr import Gprs
from ip.acc.iss.insn import executor
from ip.acc.iss.kmac import CycleLimit, kmac_status, smp_status
from ip.acc.iss.loop import LoopStack
from ip.acc.iss.random_regs import RandomRegs
from ip.acc.iss.stream_unit import StreamUnitModel
from ip.acc.iss.timing import Scoreboard
from ip.acc.iss.wdr import VMODES, Wdrs

_ISA = None
_DMEM_INSNS = ("lw", "sw", "bn.lw", "bn.lw.pi", "bn.sw", "bn.sw.pi")
_STORE_INSNS = ("sw", "bn.sw", "bn.sw.pi")


def _default_isa():
    global _ISA
    if _ISA is None:
        _ISA = load_isa()
    return _ISA


@dataclass
class Halt:
    """Why a run stopped. reason: 'ecall', 'error', 'unmodelled' or 'cycle_limit'."""
    reason: str
    cycles: int
    insns: int
    pc: int
    err_bits: int = 0
    errors: list = field(default_factory=list)   # isa.yml error names
    message: str = ""

    @property
    def ok(self) -> bool:
        return self.reason == "ecall"

    def __str__(self):
        s = f"{self.reason} at pc {self.pc:#x}: {self.cycles} cycles, {self.insns} instructions"
        if self.err_bits:
            s += f", ERR_BITS {self.err_bits:#x} ({', '.join(self.errors)})"
        if self.message:
            s += f": {self.message}"
        return s


class Iss:
    def __init__(self, isa=None, dmem_size: int = 32 * 1024, imem_size: int = 32 * 1024,
                 kmac_masked: bool = True):
        self.isa = isa or _default_isa()
        if imem_size <= 0 or imem_size % 4:
            raise ValueError(f"IMEM size {imem_size} must be a positive multiple of 4 bytes")
        self.imem_size = imem_size
        self.imem = [0] * (imem_size // 4)
        self.dmem = Dmem(dmem_size)
        self.gpr = Gprs()
        self.wdr = Wdrs(self.isa.wdrs)
        self.random = RandomRegs()      # RND's entropy pool, URND's generator
        # the stream unit's masked modes step URND every cycle: the core may not use it then
        self.random.busy = lambda: self.stream_unit.masked_mode()
        self.csr = Csrs(self.isa, self.random)
        self.wsr = Wsrs(self.isa, self.random)
        self.loops = LoopStack(self.isa.loop_depth)
        self._exec = {i.mnemonic: executor(i) for i in self.isa.insns}
        self.timing = Scoreboard(self.isa)
        self._decoded = {}
        # not reset by reset(): a separate block; with its masked mode, as the ACC's test tops'
        # KMAC (ip/acc/rtl/pqc.py DV_KMAC_MASKED) and the SoC's; kmac_masked=False models a KMAC
        # built without it (block kmac_unmasked)
        self.kmac = KmacCycleModel(masked=kmac_masked)
        self.stream_unit = StreamUnitModel(self.dmem.size // 32)
        self._stream_unit_start = None           # start inputs for the stream unit in this cycle
        self._smp_read = None                    # the DMEM word the unit read last cycle (data)
        # the write port's separation while a masked mode runs (isa.yml smp.run): the unit
        # wrote a masked mode's word last cycle / the core stored last cycle
        self._smp_wrote = self._core_stored = False
        self.kmac_hold = 0
        self._limit = None
        self.reset()

    # -------------------------------------------------------------------- host interface
    def reset(self):
        """Wipe the core state for a new run; IMEM and DMEM contents are kept."""
        self.gpr.reset()
        self.wdr.reset()
        self.csr.reset()
        self.wsr.reset()
        self.random.start()
        self.loops.reset()
        self.pc = 0
        self.cycles = 0
        self.insns = 0
        self.done = False
        self.halt = None
        self.insn = None
        self.timing.reset()          # results in flight, busy units
        self.kmac_hold = 0
        self._err_kmac = 0
        self.stream_unit.tick({"abort": 1})      # START aborts the stream unit
        self._stream_unit_start = None
        self._smp_read = None
        self._smp_wrote = self._core_stored = False
        # Between programs the KMAC runs on (a permutation in flight, the wipe after the
        # release) while the host reads results and loads the next program: hundreds of
        # cycles at least. The model lets it settle, so each program starts from the idle KMAC
        # the hardware has by then (a START within ~30 cycles of a halt would find it busy).
        for _ in range(1000):
            if self.kmac._quiescent(0):
                break
            self.kmac.tick_idle(0)

    def secure_wipe(self):
        """What the hardware does after an error (and on the host's WIPE command): registers,
        loop stack, CSRs/WSRs and DMEM to zero. IMEM is kept; ERR_BITS is set afterwards."""
        self.gpr.reset()
        self.wdr.reset()
        self.csr.reset()
        self.wsr.reset()
        self.random.wipe()
        self.loops.reset()
        self.timing.reset()
        self.dmem.clear()

    def write_entropy(self, word: int):
        """The host's ENTROPY register write (the core idle): one word into RND's pool."""
        self.random.write_entropy(word)

    def load_program(self, words, addr: int = 0):
        if addr % 4 or addr < 0 or addr + 4 * len(words) > self.imem_size:
            raise ValueError(f"{len(words)} words at {addr:#x} do not fit IMEM of "
                             f"{self.imem_size:#x} bytes")
        self.imem[addr // 4:addr // 4 + len(words)] = [w & 0xFFFF_FFFF for w in words]
        self._decoded = {}

    @property
    def lanes(self):
        return VMODES[self.csr.values["VMODE"] & 1]

    # -------------------------------------------------------------------- execution
    def _decode(self, word: int):
        if word not in self._decoded:
            self._decoded[word] = self.isa.decode(word)
        return self._decoded[word]

    def _undefined(self, word: int) -> str:
        """The message for a word that decodes to nothing: a wdr field >= isa.wdrs makes an
        otherwise valid encoding undefined (isa.decode), named here for the reader."""
        raw = self.isa.decode(word, any_wdr=True)
        if raw is not None:
            insn, ops = raw
            regs = ", ".join(f"{n} = w{ops[n]}" for n in self.isa.bad_wdrs(insn, ops))
            return (f"undefined encoding {word:#010x}: {insn.mnemonic} with {regs} "
                    f"(the ACC has {self.isa.wdrs} wide registers)")
        return f"undefined encoding {word:#010x}"

    def step(self):
        """Execute one instruction; returns a Halt when the run ends, else None."""
        if self.halt is not None:
            raise RuntimeError(f"simulator halted ({self.halt.reason}); call reset() first")
        pc = self.pc
        stall = 0
        self._kmac_cycles = None
        try:
            if pc % 4 or not 0 <= pc < self.imem_size:
                raise AccError("BAD_INSN_ADDR", f"fetch at {pc:#x} outside IMEM "
                               f"(size {self.imem_size:#x}) or misaligned")
            word = self.imem[pc // 4]
            dec = self._decode(word)
            if dec is None:
                raise AccError("ILLEGAL_INSN", self._undefined(word))
            insn, ops = dec
            stall = self.timing.stall(insn, ops, self.cycles)
            self._kmac_idle(stall)
            if self._smp_wrote and insn.mnemonic in _STORE_INSNS:
                # a store right after a masked mode's write waits a cycle (the port carries 0)
                self._cycle(port_wait=True)
                stall += 1
            if "LOOP" in insn.errors and self.loops.is_body_end(pc):
                raise AccError("LOOP", f"{insn.mnemonic} is the last instruction of a loop body")
            self.insn = insn
            self._cycle_base = self.cycles + stall
            if insn.mnemonic.startswith("csrr"):
                self.csr.set_hw("KMAC_STATUS", kmac_status(self))
                self.csr.set_hw("SMP_STATUS", smp_status(self))
            nxt = self._exec[insn.mnemonic](self, ops)
        except AccError as e:
            # the operand stall and any KMAC wait cycles happened; the fault cycle is free
            self.cycles += stall + (self._kmac_cycles or 0)
            self._cycle(abort=True)                # the fault cycle: the unit is aborted
            self.kmac_hold = 0
            return self._stop("error", e.msg, [e.name])
        except CycleLimit:
            self.cycles += stall + self._kmac_cycles
            return self._stop("cycle_limit", f"no ecall within {self._limit} cycles "
                              f"(waiting in {insn.mnemonic})")
        except Unmodelled as e:
            return self._stop("unmodelled", str(e))
        if self._kmac_cycles is None:             # not a kmac.* instruction
            self._kmac_cycles = insn.cycles
            for k in range(insn.cycles):
                last = k == insn.cycles - 1
                self._cycle(core_dmem=last and insn.mnemonic in _DMEM_INSNS,
                            core_store=last and insn.mnemonic in _STORE_INSNS,
                            abort=last and self.done)
        self.cycles += self._kmac_cycles + stall
        self.insns += 1
        self.timing.issue(insn, ops, self.cycles - 1)
        if self.done:
            self.kmac_hold = 0
            return self._stop("ecall")
        self.pc = self.loops.next_pc(pc, pc + 4 if nxt is None else nxt)
        return None

    def _stop(self, reason: str, message: str = "", errors=()):
        bits = 0
        for name in errors:
            bits |= 1 << self.isa.errors[name]["bit"]
        if reason == "error":
            self.secure_wipe()
        if bits:
            self.csr.set_hw("ERR_BITS", bits)
            if "KMAC" in errors or "SAMPLER" in errors:
                self.csr.set_hw("ERR_KMAC", self._err_kmac)
        self.halt = Halt(reason, self.cycles, self.insns, self.pc, bits, list(errors), message)
        return self.halt

    def _kmac_idle(self, n: int):
        """n core cycles without a side-load request and without a DMEM access."""
        for _ in range(n):
            self._cycle()

    def _cycle(self, kinp=None, core_dmem: bool = False, abort: bool = False,
               core_store: bool = False, port_wait: bool = False) -> dict | None:
        """One clock cycle of the background blocks: the KMAC with the core's side-load
        inputs `kinp` (None: no request) and the stream unit (granted DMEM unless the core uses
        it; a masked mode's write also not in the cycle after a core store, nor in a store's
        port_wait cycle). Returns the KMAC outputs of the cycle when kinp is given."""
        u = self.stream_unit
        start = self._stream_unit_start
        self._stream_unit_start = None
        core_stored, self._core_stored, self._smp_wrote = self._core_stored, core_store, False
        if not u.busy and start is None and not abort:          # fast path: the unit is idle
            if kinp is None:
                self.kmac.tick_idle(self.kmac_hold)
                return None
            out = self.kmac.outputs(kinp)
            self.kmac.tick(kinp)
            return out
        uo = u.outputs()
        if kinp is None:
            kinp = dict(IDLE_INPUTS)
            kinp["hold"] = self.kmac_hold
        if uo["dig_ready"]:
            kinp = dict(kinp, digest_ready=1)
        if uo["dig_share1"]:
            kinp = dict(kinp, digest_share1=1)
        kout = self.kmac.outputs(kinp)
        wr_gnt = not (core_dmem or port_wait or (core_stored and uo["masked_busy"]))
        uin = {"dig_valid": kout["digest_valid"], "dig_data": kout["digest_data"],
               "wr_gnt": int(wr_gnt), "abort": int(abort)}
        if uo["urnd_step"]:                      # a masked mode's step: URND's next 256 bits
            uin["urnd"] = self.random.urnd.output(256)
        if self._smp_read is not None:           # b2a1m: the word read last cycle
            uin["rd_data"] = self._smp_read
        self._smp_read = None
        if uo["rd_req"] and not core_dmem:       # (read now: the port is the unit's this cycle)
            uin["rd_gnt"] = 1
            self._smp_read = self.dmem.load(uo["rd_addr"] * 32, 32)
        if start is not None:
            uin.update(start)
        if uo["wr_req"] and wr_gnt:
            self.dmem.store(uo["wr_addr"] * 32, 32, uo["wr_data"])
            self._smp_wrote = bool(uo["masked_busy"])
        self.kmac.tick(kinp)
        u.tick(uin)
        return kout

    def run(self, max_cycles: int | None = None) -> Halt:
        self._limit = max_cycles
        while True:
            if max_cycles is not None and self.cycles >= max_cycles:
                return self._stop("cycle_limit", f"no ecall within {max_cycles} cycles")
            halt = self.step()
            if halt is not None:
                return halt
