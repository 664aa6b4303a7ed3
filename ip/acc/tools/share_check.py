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

What it does not do: follow the stream unit's background DMEM writes (a program that starts a
job is refused), decide whether a gadget is secure (the leakage assessment, `pqsoc sca
tvla`, tests that), nor see transitions (a register overwritten by the other domain's value,
a memory port: the power model sees those).
"""
from dataclasses import dataclass

from ip.acc.tools.ct_data import Program
from ip.acc.tools.isa import load_isa

FULL = 0xFFFF_FFFF
NONE = frozenset()
BOTH = frozenset((0, 1))
_ZEROING = {"bn.xor", "bn.subv", "xor", "sub"}      # op r, a, a is a constant 0
# The masked KMAC's two share states (isa.yml `shares`); a `flow` that names `kmac` moves both.
_KMAC = {"kmac0": (("kmac", 0),), "kmac1": (("kmac", 1),), "kmac": (("kmac", 0), ("kmac", 1))}
_KMAC_WHERE = {"kmac0": "the KMAC's share-0 state", "kmac1": "the KMAC's share-1 state",
               "kmac": "the KMAC state"}


@dataclass(frozen=True)
class Gadget:
    begin: str                 # label of its first instruction
    end: str                   # label after its last
    outputs: tuple             # ((lo, hi, domains), ...): DMEM byte ranges set at `end`


@dataclass(frozen=True)
class Finding:
    pc: int
    text: str
    where: str                 # the location written


def check(program: Program, image: dict, entropy, shares: dict, gadgets=(),
          dmem_size: int = 16384, imem_size: int = 16384, max_cycles: int = 500_000) -> list:
    """Run `program` with DMEM `image` ({addr: bytes}) and the ENTROPY words; `shares`:
    {name: (lo, hi, domain)} DMEM byte ranges holding share `domain` (0 or 1) at entry.
    Returns the findings (empty: clean). Raises RuntimeError when the run does not end in
    ecall or a gadget label is missing."""
    from ip.acc.iss import Iss
    isa = load_isa()
    sim = Iss(dmem_size=dmem_size, imem_size=imem_size)
    sim.reset()
    sim.load_program(program.words)
    for a, b in image.items():
        sim.dmem.write_bytes(a, b)
    for w in entropy:
        sim.write_entropy(w)
    mem = {}                                   # 32-byte word index -> domains
    for lo, hi, dom in shares.values():
        for w in range(lo // 32, (hi + 31) // 32):
            mem[w] = frozenset((dom,))
    regs = {}                                  # ("x", i) / ("w", i) / ("csr", n) / ... -> domains
    spans, ends = [], {}
    for g in gadgets:
        for lab in (g.begin, g.end):
            if lab not in program.labels:
                raise RuntimeError(f"gadget label {lab!r} is not in the program")
        spans.append((program.labels[g.begin], program.labels[g.end]))
        ends[program.labels[g.end]] = g.outputs
    csr_by_addr = {r["addr"]: n for n, r in isa.csrs.items()}
    wsr_by_addr = {r["addr"]: n for n, r in isa.wsrs.items()}
    findings, seen = [], set()

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

    while sim.cycles < max_cycles:
        pc = sim.pc
        for lo, hi, dom in ends.get(pc, ()):
            for w in range(lo // 32, (hi + 31) // 32):
                mem[w] = frozenset(dom)
        insn, ops = isa.decode(program.words[pc // 4])
        if isinstance(insn.stream, dict):
            raise RuntimeError(f"{pc:#x} {program.texts[pc // 4]}: the stream unit's background "
                               "DMEM writes are not followed by this check")
        words = []
        if insn.mem:
            m = insn.mem
            a = (sim.gpr.read(ops[m["base"]]) + ops[m["offset"]]) & FULL
            words = list(range(a // 32, (a + m["bytes"] + 31) // 32))
        same = [ops[n] for n, o in insn.operands.items() if o.kind in ("wdr", "gpr")]
        zeroing = insn.mnemonic in _ZEROING and len(same) == 3 and same[1] == same[2]
        for dsts, srcs in insn.shares or insn.flow:
            dom = NONE
            if not zeroing:
                for loc in srcs:
                    if loc.name == "mem":
                        dom = dom.union(*(mem.get(w, NONE) for w in words))
                    elif loc.name in _KMAC:
                        for k in _KMAC[loc.name]:
                            dom |= regs.get(k, NONE)
                    elif loc.name.startswith(("wsr.", "csr.")):
                        key = tuple(loc.name.split(".", 1))
                        dom |= NONE if secret_source(key) else regs.get(key, NONE)
                    else:
                        key = reg(insn, ops, loc.name)
                        if key is not None and not secret_source(key):
                            dom |= regs.get(key, NONE)
            inside = any(b <= pc < e for b, e in spans)
            for d in dsts:
                if d.name == "mem":
                    where = f"DMEM {32 * words[0]:#x}" if words else "DMEM"
                    for w in words:
                        mem[w] = dom if insn.mem["bytes"] == 32 else mem.get(w, NONE) | dom
                elif d.name in _KMAC:
                    where = _KMAC_WHERE[d.name]
                    for k in _KMAC[d.name]:
                        regs[k] = dom
                elif d.name.startswith(("wsr.", "csr.")):
                    where = d.name
                    regs[tuple(d.name.split(".", 1))] = dom
                else:
                    key = reg(insn, ops, d.name)
                    if key is None:
                        continue
                    where = f"{key[0]}{key[1]}" if key[0] in "xw" else str(key[1])
                    regs[key] = dom
                if dom >= BOTH and not inside and (pc, where) not in seen:
                    seen.add((pc, where))
                    findings.append(Finding(pc, program.texts[pc // 4], where))
        halt = sim.step()
        if halt is not None:
            if not halt.ok:
                raise RuntimeError(f"the run stopped: {halt}")
            return findings
    raise RuntimeError(f"no ecall within {max_cycles} cycles")
