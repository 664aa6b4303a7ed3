# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""Share-domain check of masked ACC programs (issue #38): outside a declared gadget, no value
is computed from both shares of a secret.

A masked program keeps each secret in two shares; its linear work runs on each share alone,
and only gadgets (masked.MaskedDecode: DOM ANDs with fresh randomness) may combine the two
domains. This check runs the program on the ISS once and follows, per location (GPR, WDR,
CSR / WSR, the KMAC state, each 32-byte DMEM word), the set of share domains its value was
computed from, along isa.yml's `flow` keys (the constant-time check's flows; for the KMAC
instructions their `shares` keys, which follow the masked KMAC's two share states apart: a
two-share word feeds each state from its own register, a public one only share 0's, and
kmac.dig / kmac.dig1 read share 0 / 1): a result's set is the union of its sources'. URND /
RND reads carry none (fresh randomness), a register XOR-ed or subtracted with itself
(zeroing) neither. The masked Keccak itself is a gadget in hardware (DOM ANDs behind fresh
bits, ip/kmac/rtl/keccak_masked.py): this check trusts it, the leakage assessment tests it. A result with both domains at a PC
outside every gadget is a violation. A gadget declares the domains of its outputs, which
its end label gives them (its other writes keep what the flows gave them).

Why one run suffices: the masked programs pass the static constant-time check
(ip/acc/tools/constant_time.py) with both shares secret, so every run executes the same
instructions at the same addresses, and the domains, which depend only on those, are the
same in every run. The constant-time check's taint has one secret label and cannot do this.

Transitions (`transitions=True`, the default): a register, a DMEM word or a bus between units
whose value changes shows, in power, the XOR of its old and new values (their Hamming
distance). So the check also follows each value's fresh masks (the URND / RND words added or
XOR-ed into it and not cancelled since) and flags, inside gadgets too, every place where two
values that follow each other could together reveal a secret: together they hold both domains
and neither is masked by a fresh word the other does not depend on. Places: every register
and DMEM word that is overwritten, and the buses of the RTL (ip/acc/rtl/core.py), one value per
instruction, consecutive instructions back to back (a stall repeats a value; a fetch bubble
between two instructions is ignored, which can only add findings):
    port a / b / c   the wide register file's read ports (a: wrs1 / wa / wrs, b: wrs2 / wb,
                     c: wt, and wrd for bn.sel / bn.ins); 0 when the instruction does not
                     read the port (operand blanking)
    wdr write-back   the value a 1-cycle instruction writes to a WDR (the wide ALU's result,
                     bn.mov, bn.ins, bn.wsrr, kmac.dig*); 0 otherwise
    gpr write-back   the value an instruction writes to a GPR (loads excepted: their data
                     comes a cycle later, from the DMEM read register); 0 otherwise
    dmem read        the DMEM read-data register: the last word loaded
    dmem write       the DMEM write-data port: the word stored; 0 otherwise
    kmac message     the side-load port's message wires (kmac.msg / kmac.msgm's first
                     share, a masked kmac.start's fresh URND word); 0 otherwise
    kmac message 1   its second-share wires (kmac.msgm); 0 otherwise
    kmac digest      its digest wires (kmac.dig / kmac.dig1, one share each); 0 otherwise
Stalls: an instruction that reads a WDR a load or a multiplier op has not written yet waits,
and in its waiting cycle the register file still gives that register's old value, the other
operands their current ones, and the wide ALU computes on them: in that cycle two port values
that together hold both domains, neither masked by a fresh word the other does not depend on,
are flagged (kind "stall"), inside gadgets too; the ports' changes through the stall are
followed as transitions.
The rule is conservative: the domains do not say which secret a share belongs to, so two
shares of unrelated secrets side by side are flagged too, and a value of both domains is
flagged even where it is in fact a product of unrelated shares (a DOM AND's cross term before
its fresh mask). What it cannot see: glitches and the wide ALU's inner nodes, the GPR read
ports (masked programs keep no share in a GPR), the stream unit's write-port timing (its words
are labelled when its job starts); nor
does it decide whether a gadget is secure: the
leakage assessment, `pqsoc sca tvla` (ip/acc/dv/power.py's buses are these), tests that.
"""
from dataclasses import dataclass
from itertools import count

from ip.acc.tools.ct_data import Program
from ip.acc.tools.isa import load_isa

FULL = 0xFFFF_FFFF
NONE = frozenset()
BOTH = frozenset((0, 1))
_ZEROING = {"bn.xor", "bn.subv", "xor", "sub"}      # op r, a, a is a constant 0
# ops whose result is a sum of their sources: a fresh mask in one source stays (two equal
# masks cancel under XOR; under addition they do not, which the rule below does not count on)
_LINEAR = {"bn.xor", "bn.addvm", "bn.subvm", "bn.addv", "bn.subv", "xor", "add", "sub"}
# The masked KMAC's two share states (isa.yml `shares`); a `flow` that names `kmac` moves both.
_KMAC = {"kmac0": (("kmac", 0),), "kmac1": (("kmac", 1),), "kmac": (("kmac", 0), ("kmac", 1))}
_KMAC_WHERE = {"kmac0": "the KMAC's share-0 state", "kmac1": "the KMAC's share-1 state",
               "kmac": "the KMAC state"}
# the wide register file's read ports (ip/acc/rtl/core.py): operand names per port
_PORTS = {"a": ("wrs1", "wa", "wrs"), "b": ("wrs2", "wb"), "c": ("wt",)}
_PORT_C_WRD = {"bn.sel", "bn.ins"}                 # the two that read wrd, on port c
# 1-cycle instructions whose WDR result goes over the write-back bus (not loads: their data
# comes from the DMEM read register; not the multiplier unit's: from its pipeline)
_WB_GROUPS = ("vec", "ntt", "wide-mem", "kmac")
_MASKED_STREAM = ("cbd2m", "cbd3m", "b2a1m", "intm")   # smp.run modes whose writes are followed
_PLAIN_STREAM = ("uni12", "uni23", "cbd2", "cbd3", "eta2", "eta4")   # one output, from KMAC share 0


def takes_write_back(insn) -> bool:
    """Whether the instruction's WDR result goes over the write-back bus (w_val in the RTL)."""
    return insn.group in _WB_GROUPS and not insn.mem and insn.unit != "mul"


@dataclass(frozen=True)
class Label:
    """What a value was computed from: share domains, and fresh random words (URND / RND
    reads): `masks` those added or XOR-ed in and not cancelled, `rand` all of them."""
    doms: frozenset = NONE
    masks: frozenset = NONE
    rand: frozenset = NONE

    def __str__(self):
        return ("domains " + "+".join(map(str, sorted(self.doms))) if self.doms else "public") + \
            (f", masked ({len(self.masks)})" if self.masks else "")


PUBLIC = Label()


def _combine(labels, linear: bool) -> Label:
    live = [x for x in labels if x.doms or x.rand]
    if not live:
        return PUBLIC
    masks = NONE
    if linear:
        for x in live:
            masks = masks ^ x.masks
    elif len(live) == 1:
        masks = live[0].masks
    return Label(frozenset().union(*(x.doms for x in live)), masks,
                 frozenset().union(*(x.rand for x in live)))


def leaks(old: Label, new: Label) -> bool:
    """Whether a wire or register going from `old` to `new` can show a secret at first order:
    together they hold both domains, and neither is masked by a fresh word the other does not
    depend on (such a word makes it uniform and independent of the other)."""
    if not (old.doms | new.doms) >= BOTH:
        return False
    return not (old.masks - new.rand or new.masks - old.rand)


@dataclass(frozen=True)
class Gadget:
    begin: str                 # label of its first instruction
    end: str                   # label after its last
    outputs: tuple             # ((lo, hi, domains), ...): DMEM byte ranges set at `end`
    # ((label, (("w12", 0), ("w13", 1))), ...): registers that hold a fresh sharing's shares
    # from `label` on (a DOM AND's outputs, masked with the same fresh word): its claim. They
    # take that domain alone; the fresh words they depend on stay theirs.
    refresh: tuple = ()


@dataclass(frozen=True)
class Finding:
    pc: int
    text: str
    where: str                 # the location written, or the wire / register that changed
    kind: str = "value"        # "value": both domains in one value; "transition": in a change;
    #                            "stall": side by side on the ports in a stall cycle


def check(program: Program, image: dict, entropy, shares: dict, gadgets=(),
          dmem_size: int = 16384, imem_size: int = 16384, max_cycles: int = 500_000,
          transitions: bool = True) -> list:
    """Run `program` with DMEM `image` ({addr: bytes}) and the ENTROPY words; `shares`:
    {name: (lo, hi, domain)} DMEM byte ranges holding share `domain` (0 or 1) at entry.
    Returns the findings (empty: clean); `transitions` adds the changes of registers, DMEM
    words and buses (the module's docstring). Raises RuntimeError when the run does not end
    in ecall or a gadget label is missing."""
    from ip.acc.iss import Iss
    isa = load_isa()
    sim = Iss(dmem_size=dmem_size, imem_size=imem_size)
    sim.reset()
    sim.load_program(program.words)
    for a, b in image.items():
        sim.dmem.write_bytes(a, b)
    for w in entropy:
        sim.write_entropy(w)
    mem = {}                                   # 32-byte word index -> Label
    for lo, hi, dom in shares.values():
        for w in range(lo // 32, (hi + 31) // 32):
            mem[w] = Label(frozenset((dom,)))
    regs = {}                                  # ("x", i) / ("w", i) / ("csr", n) / ... -> Label
    spans, ends, marks = [], {}, {}
    for g in gadgets:
        for lab in (g.begin, g.end):
            if lab not in program.labels:
                raise RuntimeError(f"gadget label {lab!r} is not in the program")
        spans.append((program.labels[g.begin], program.labels[g.end]))
        ends[program.labels[g.end]] = g.outputs
        for lab, regs_doms in g.refresh:
            if lab not in program.labels:
                raise RuntimeError(f"gadget label {lab!r} is not in the program")
            marks.setdefault(program.labels[lab], []).extend(regs_doms)
    csr_by_addr = {r["addr"]: n for n, r in isa.csrs.items()}
    wsr_by_addr = {r["addr"]: n for n, r in isa.wsrs.items()}
    findings, seen = [], set()
    fresh = count()
    buses = {}                                 # bus name -> (Label, text of the instruction)
    before = {}                                # WDR key -> its label before a pending write

    def reg(insn, ops, name):
        kind = insn.operands[name].kind
        v = ops[name]
        if kind == "gpr":
            return ("x", v) if v else None
        if kind == "wdr":
            return ("w", v)
        if kind == "csr":
            return ("csr", csr_by_addr.get(v))
        if kind == "wsr":
            return ("wsr", wsr_by_addr.get(v))
        return None

    def secret_source(key):
        table = {"csr": isa.csrs, "wsr": isa.wsrs}.get(key[0])
        return table is not None and key[1] in table and table[key[1]].get("ct") == "secret"

    def report(pc, where, kind):
        if (pc, where) not in seen:
            seen.add((pc, where))
            findings.append(Finding(pc, program.texts[pc // 4], where, kind))

    def read(insn, ops, name):
        key = reg(insn, ops, name)
        if key is None:
            return PUBLIC
        if secret_source(key):             # a URND / RND read: a fresh word
            r = frozenset((next(fresh),))
            return Label(NONE, r, r)
        return regs.get(key, PUBLIC)

    def overwrite(pc, where, old, new):
        if transitions and leaks(old, new):
            report(pc, f"{where}: {old} then {new}", "transition")

    def stream_job(pc, insn, ops):
        """smp.run in a masked mode: the unit writes share 0's words from the KMAC's share-0
        state (b2a1m: from its source's first word), then share 1's from its share-1 state
        (b2a1m: its third word), both masked by the unit's fresh URND words (a gadget in hardware, like the masked Keccak; its tests and the assessment
        check it). The words are labelled when the job starts (the program waits for it
        before it touches them). The unmasked modes (_PLAIN_STREAM) write one output from the
        digest, i.e. from the KMAC's share-0 state, and carry its label (public for a public
        seed, e.g. A_hat's rho). Other modes are refused: their writes are not followed."""
        mode = insn.operands["mode"].values[ops["mode"]]
        dst, cnt = sim.gpr.read(ops["grs1"]) // 32, sim.gpr.read(ops["grs2"])
        if mode in _PLAIN_STREAM:
            lanes = 16 if sim.csr.values["VMODE"] == 0 else 8
            src = regs.get(("kmac", 0), PUBLIC)
            for w in range(dst, dst + -(-cnt // lanes)):
                old, mem[w] = mem.get(w, PUBLIC), src
                overwrite(pc, f"DMEM {32 * w:#x} (stream unit)", old, src)
            return
        if mode not in _MASKED_STREAM:
            raise RuntimeError(f"{pc:#x} {program.texts[pc // 4]}: the stream unit's background "
                               f"DMEM writes in mode {mode} are not followed by this check")
        nw = -(-cnt // 16)
        r = frozenset((next(fresh),))
        sources = [regs.get(("kmac", share), PUBLIC) for share in (0, 1)]

        def unit_reads(addrs):
            """The unit's DMEM reads, in order, through the read register."""
            read = [mem.get(w, PUBLIC) for w in addrs]
            for k, lab in enumerate(read):
                old = buses.get("dmem read", (PUBLIC, ""))[0]
                if transitions and leaks(old, lab):
                    report(pc, f"dmem read (stream unit, word {k}): {old} then {lab}", "transition")
                buses["dmem read"] = (lab, program.texts[pc // 4])
            return read
        if mode == "b2a1m":        # DMEM: share 0, a public word, share 1, through the read register
            w0 = sim.csr.values["SMP_SRC"] // 32
            read = unit_reads([w0, w0 + 1, w0 + 2])
            sources = [read[0], read[2]]
        elif mode == "intm":       # per group: share 0, public, share 1, public; ok's two words
            w0, n, cfg = sim.csr.values["SMP_SRC"] // 32, cnt // 16, sim.csr.values["SMP_CFG"]
            pubs = [((cfg >> 8) & 0xFFF) + (0 if (cfg >> 7) & 1 else g) for g in range(n)]
            read = unit_reads([w for g in range(n) for w in (w0 + g, pubs[g], w0 + n + g, pubs[g])])
            sources = [_combine(read[0::4], True), _combine(read[2::4], True)]
            nw = 1
        for share in (0, 1):
            src = sources[share]
            for w in range(dst + share * nw, dst + (share + 1) * nw):
                old, mem[w] = mem.get(w, PUBLIC), Label(src.doms, r, r | src.rand)
                overwrite(pc, f"DMEM {32 * w:#x} (stream unit)", old, mem[w])

    while sim.cycles < max_cycles:
        pc = sim.pc
        for lo, hi, dom in ends.get(pc, ()):
            for w in range(lo // 32, (hi + 31) // 32):
                mem[w] = Label(frozenset(dom))
        for name, dom in marks.get(pc, ()):        # a fresh sharing's share: its domain is
            key = (name[0], int(name[1:]))          # `dom`; its masks are what they were
            old = regs.get(key, PUBLIC)
            regs[key] = Label(frozenset((dom,)), old.masks, old.rand)
        insn, ops = isa.decode(program.words[pc // 4])
        text = program.texts[pc // 4]
        if isinstance(insn.stream, dict):
            stream_job(pc, insn, ops)
        words = []
        if insn.mem:
            m = insn.mem
            a = (sim.gpr.read(ops[m["base"]]) + ops[m["offset"]]) & FULL
            words = list(range(a // 32, (a + m["bytes"] + 31) // 32))
        same = [ops[n] for n, o in insn.operands.items() if o.kind in ("wdr", "gpr")]
        zeroing = insn.mnemonic in _ZEROING and len(same) == 3 and same[1] == same[2]
        # this instruction's values on the buses (reads before its writes)
        now = {}
        for port, names in _PORTS.items():
            names = names + (("wrd",) if port == "c" and insn.mnemonic in _PORT_C_WRD else ())
            for n in names:
                if n in insn.operands and insn.operands[n].kind == "wdr":
                    now["port " + port] = read(insn, ops, n)
        # a stall on a pending WDR: its cycle puts the register's old value on its port
        stalled = {}
        for port, names in _PORTS.items():
            names = names + (("wrd",) if port == "c" and insn.mnemonic in _PORT_C_WRD else ())
            for n in names:
                if n in insn.operands and insn.operands[n].kind == "wdr" and \
                        sim.timing.ready.get(("w", ops[n]), 0) > sim.cycles and ("w", ops[n]) in before:
                    stalled["port " + port] = before[("w", ops[n])]
        if stalled:
            during = {**{k: v for k, v in now.items() if k.startswith("port ")}, **stalled}
            vals = sorted(during.items())
            for i, (pa, la) in enumerate(vals):
                for pb, lb in vals[i + 1:]:
                    if leaks(la, lb):
                        def side(p, lab):
                            return f"{p}{' (old value)' if p in stalled else ''}: {lab}"
                        report(pc, f"{side(pa, la)} with {side(pb, lb)}", "stall")
            if transitions:
                for name, lab in during.items():
                    old, old_text = buses.get(name, (PUBLIC, ""))
                    if leaks(old, lab):
                        report(pc, f"{name} (stall): {old} ({old_text}) then {lab}", "transition")
                    buses[name] = (lab, text + " (stall)")
        linear = insn.mnemonic in _LINEAR
        inside = any(b <= pc < e for b, e in spans)
        for dsts, srcs in insn.shares or insn.flow:
            if zeroing:
                lab = PUBLIC
            else:
                got = []
                for loc in srcs:
                    if loc.name == "mem":
                        got += [mem.get(w, PUBLIC) for w in words]
                    elif loc.name in _KMAC:
                        got += [regs.get(k, PUBLIC) for k in _KMAC[loc.name]]
                    elif loc.name.startswith(("wsr.", "csr.")):
                        key = tuple(loc.name.split(".", 1))
                        got.append(PUBLIC if secret_source(key) else regs.get(key, PUBLIC))
                    else:
                        got.append(read(insn, ops, loc.name))
                lab = _combine(got, linear)
                if insn.mnemonic == "bn.sel":
                    # t ? a : b = (t & (a ^ b)) ^ b: a fresh word in both a and b stays in it
                    a, b = read(insn, ops, "wrs1"), read(insn, ops, "wrs2")
                    lab = Label(lab.doms, a.masks & b.masks, lab.rand)
            for d in dsts:
                if d.name == "mem":
                    where = f"DMEM {32 * words[0]:#x}" if words else "DMEM"
                    now["dmem write"] = lab
                    for w in words:
                        old = mem.get(w, PUBLIC)
                        mem[w] = lab if insn.mem["bytes"] == 32 else _combine([old, lab], False)
                        overwrite(pc, f"DMEM {32 * w:#x}", old, mem[w])
                elif d.name in _KMAC:
                    where = _KMAC_WHERE[d.name]
                    for k in _KMAC[d.name]:
                        regs[k] = lab          # inside the masked Keccak: trusted
                else:
                    key = (tuple(d.name.split(".", 1)) if d.name.startswith(("wsr.", "csr."))
                           else reg(insn, ops, d.name))
                    if key is None:
                        continue
                    where = f"{key[0]}{key[1]}" if key[0] in "xw" else str(key[1])
                    overwrite(pc, where, regs.get(key, PUBLIC), lab)
                    if key[0] == "w" and insn.latency > 1:
                        before[key] = regs.get(key, PUBLIC)
                    regs[key] = lab
                    if key[0] == "w" and takes_write_back(insn):
                        now["wdr write-back"] = _combine([now.get("wdr write-back", PUBLIC), lab], False)
                    elif key[0] == "x" and not insn.mem:
                        now["gpr write-back"] = lab
                if lab.doms >= BOTH and not inside:
                    report(pc, where, "value")
        if insn.mem and insn.mem["op"] == "load":     # the read register holds until the next
            now["dmem read"] = _combine([mem.get(w, PUBLIC) for w in words], False)
        if insn.mnemonic in ("kmac.msg", "kmac.msgm"):
            now["kmac message"] = now.get("port a", PUBLIC)
        if insn.mnemonic == "kmac.msgm":
            now["kmac message 1"] = now.get("port b", PUBLIC)
        if insn.mnemonic == "kmac.start" and sim.gpr.read(ops["grs1"]) & 0x20:
            r = frozenset((next(fresh),))
            now["kmac message"] = Label(NONE, r, r)
        if insn.mnemonic in ("kmac.dig", "kmac.dig1"):
            now["kmac digest"] = now.get("wdr write-back", PUBLIC)
        if transitions:
            for name in ("port a", "port b", "port c", "wdr write-back", "gpr write-back",
                         "dmem read", "dmem write", "kmac message", "kmac message 1", "kmac digest"):
                if name == "dmem read" and name not in now:
                    continue
                old, old_text = buses.get(name, (PUBLIC, ""))
                new = now.get(name, PUBLIC)
                if leaks(old, new):
                    report(pc, f"{name}: {old} ({old_text}) then {new}", "transition")
                buses[name] = (new, text)
        halt = sim.step()
        if halt is not None:
            if not halt.ok:
                raise RuntimeError(f"the run stopped: {halt}")
            return findings
    raise RuntimeError(f"no ecall within {max_cycles} cycles")
