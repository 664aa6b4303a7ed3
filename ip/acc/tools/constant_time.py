# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""Static constant-time check of ACC programs: an information-flow (taint) analysis driven by
isa.yml (each instruction's flow / mem / control / timing / stream keys).

    python -m ip.acc.tools.ct_cli PROG.s --secret 0:1152 --public 1152:2368 ...
    python -m ip.acc.tools.ct_cli --kernel mlkem768_decaps
    pqsoc acc ct ...                    (the same)

Exit 0: no secret reaches a sink; 1: violations (listed with PC, instruction and the taint
path); 2: bad input (unreadable program, bad range, unknown kernel, unresolvable jump).

What is checked. Secrets are declared DMEM byte ranges at entry (and registers, for
subroutine checks); public ranges likewise; the rest of DMEM is secret unless
`rest = public` (so a program that reads a buffer it never wrote is caught). GPRs, WDRs,
CSRs and WSRs start at zero (START wipes them) and public. Taint follows isa.yml's flows
to a fixed point over the control-flow graph; a violation is a secret in
  * a branch condition or a register jump target (control: branch / jump-reg),
  * a loop count (control: loop with a GPR count),
  * a load / store address (mem: base; a CSR marked `ct: address`),
  * an operand that sets a duration (timing:, a CSR marked `ct: timing`), or a
    data-dependent stream-unit job (stream: data_dependent modes) on a secret digest.

How. Abstract execution over (basic block, hardware-loop stack, call stack) contexts (a
subroutine is analysed per call site: `jal` with a link register pushes the return address,
the register jump back to it pops it): GPR values are
tracked as constants where they follow from constants (the ISS's own instruction functions
compute them), so pointers inside constant-count hardware loops stay exact (those loops are
unrolled); branch conditions with known public values take one edge, others both; states
meeting at one context are joined (a differing GPR value becomes unknown) until nothing
changes. Taint is kept per GPR, per byte of each WDR and of DMEM, per CSR / WSR, for the
KMAC state (secret once a secret is absorbed; cleared by acq / rel / a new START; the
digest read by kmac.dig carries it) and for the stream unit's job (its DMEM output carries
the KMAC state's taint: a weak update at smp.run, exact at smp.wait).

Soundness choices (conservative): a load from an unknown address is secret if any DMEM
byte is; a store of secret data to an unknown address makes all of DMEM secret (reported
as a warning: later findings may be its consequence); a public store to an unknown address
changes nothing. Implicit flows (values computed differently on the two sides of a branch)
are not tracked: a secret branch is itself the violation, and an allowed one is a declared
exception. Declared exceptions (`Allow`) name a kind and a place (a branch target label or
a label range) with a reason; an exception that matches nothing is an error, so the list
cannot go stale.

Declared releases (declassification, `release`): DMEM byte ranges whose stored values the
operation publishes (ML-KEM keygen's rho, written into ek: FIPS 203 Alg. 13), with a reason.
A store at a known address into such a range leaves those bytes public whatever the taint of
the data (loads, the KMAC absorbing them, the stream unit's jobs on them are then public);
anything else keeps its taint. The policy's author asserts that every value the program
stores there is published; a release no store reaches is an error (stale), like an exception.

Declassification at a point (`declassify`): when control reaches a label, the bytes of a
DMEM range become public, whatever was stored there before (ML-DSA signing: once the last
rejection check has passed, the hint bitmaps are the signature's published hint). The
author asserts that at that label the range holds only what the operation publishes; a
label the analysis never reaches is an error (stale).
"""
from __future__ import annotations

import time
from types import SimpleNamespace

from ip.acc.iss.csr import Csrs
from ip.acc.iss.random_regs import RandomRegs
from ip.acc.iss.dmem import Dmem
from ip.acc.iss.gpr import Gprs
from ip.acc.iss.insn import executor
from ip.acc.iss.wdr import VMODES, Wdrs
from ip.acc.tools.ct_data import KINDS, Allow, CtError, Policy, Program, Report, Violation
from ip.acc.tools.isa import Isa, load_isa

FULL = 0xFFFF_FFFF               # all 32 bytes of a wide register


# ---------------------------------------------------------------------------- abstract state
class State:
    """Taint and known values at one program point (see the module docstring)."""
    __slots__ = ("gv", "gt", "wt", "cv", "ct", "wsr", "kmac", "job", "smp", "dmem", "chain")

    def key(self):
        return (tuple(self.gv), self.gt, tuple(self.wt), tuple(sorted(self.cv.items())),
                tuple(sorted(self.ct.items())), tuple(sorted(self.wsr.items())), self.kmac,
                self.job, self.smp, self.dmem)

    def copy(self) -> "State":
        s = State()
        s.gv, s.gt, s.wt = list(self.gv), self.gt, list(self.wt)
        s.cv, s.ct, s.wsr = dict(self.cv), dict(self.ct), dict(self.wsr)
        s.kmac, s.job, s.smp, s.dmem = self.kmac, self.job, self.smp, self.dmem
        s.chain = dict(self.chain)
        return s

    def join(self, o: "State") -> "State":
        s = self.copy()
        s.gv = [a if a == b else None for a, b in zip(self.gv, o.gv)]
        s.gt |= o.gt
        s.wt = [a | b for a, b in zip(self.wt, o.wt)]
        s.cv = {k: (v if o.cv.get(k) == v else None) for k, v in self.cv.items()}
        s.ct = {k: v or o.ct.get(k, False) for k, v in self.ct.items()}
        s.wsr = {k: v | o.wsr.get(k, 0) for k, v in self.wsr.items()}
        s.kmac = self.kmac or o.kmac
        if self.job != o.job:
            jobs = [j for j in (self.job, o.job) if j]
            s.job = (min(j[0] for j in jobs), max(j[1] for j in jobs), any(j[2] for j in jobs),
                     False) if len(jobs) == 2 else jobs[0]
        s.smp = self.smp or o.smp
        s.dmem = self.dmem | o.dmem
        for k, v in o.chain.items():
            s.chain.setdefault(k, v)
        return s


def _chain_list(chain, limit=10) -> list:
    """The taint path, newest step first: the first steps, then the root (the declared
    secret it started from)."""
    out = []
    while chain:
        step, chain = chain
        if not out or out[-1] != step:          # an unrolled loop repeats its steps
            out.append(step)
    if len(out) > limit:
        out = out[:limit - 2] + [f"... ({len(out) - limit + 1} more steps)", out[-1]]
    return out


# ---------------------------------------------------------------------------- the analysis
class Checker:
    def __init__(self, program: Program, policy: Policy, isa: Isa | None = None,
                 dmem_size: int = 32 * 1024, max_steps: int = 5_000_000):
        self.isa = isa or load_isa()
        self.prog = program
        self.policy = policy
        self.size = dmem_size
        self.max_steps = max_steps
        self.all_bytes = (1 << dmem_size) - 1
        self.dec = []
        for pc, w in enumerate(program.words):
            d = self.isa.decode(w)
            if d is None:
                raise CtError(f"word {w:#010x} at {4 * pc:#x} is not an instruction")
            self.dec.append(d)
        self.n = len(self.dec)
        self.csr_by_addr = {r["addr"]: n for n, r in self.isa.csrs.items()}
        self.wsr_by_addr = {r["addr"]: n for n, r in self.isa.wsrs.items()}
        self.csr_ro = {n for n, r in self.isa.csrs.items()
                       if str(r["desc"]).lower().startswith("read-only")}
        self.wsr_ro = {n for n, r in self.isa.wsrs.items()
                       if str(r["desc"]).lower().startswith("read-only")}
        self.fake = SimpleNamespace(gpr=Gprs(), csr=Csrs(self.isa, RandomRegs()), wdr=Wdrs(self.isa.wdrs),
                                    dmem=Dmem(dmem_size), pc=0, insn=None, done=False,
                                    lanes=VMODES[0])
        self.exec = {i.mnemonic: executor(i) for i in self.isa.insns}
        self.violations = {}
        self.warnings = []
        self.mem_chain = {}            # 32-byte word -> a chain that made it secret
        self.bounds_used = set()
        self.release_mask, self.releases = 0, []      # [(lo, hi, reason)]
        for r in policy.release:
            try:
                (lo, hi), reason = r["dmem"], r["reason"]
            except (KeyError, TypeError, ValueError):
                raise CtError(f"release {r!r}: want {{dmem: (lo, hi), reason}}") from None
            lo, hi = self._range(f"release {reason!r}", (lo, hi))
            self.releases.append((lo, hi, reason))
            self.release_mask |= ((1 << (hi - lo)) - 1) << lo
        self.releases_used = set()     # (lo, hi, reason) a secret store was released by
        self.releases_reached = set()  # (lo, hi, reason) some store reached
        self.declass = {}              # pc -> [(mask, (label, lo, hi, reason))]
        for d in policy.declassify:
            try:
                label, (lo, hi), reason = d["at"], d["dmem"], d["reason"]
            except (KeyError, TypeError, ValueError):
                raise CtError(f"declassify {d!r}: want {{at: label, dmem: (lo, hi), reason}}") \
                    from None
            lo, hi = self._range(f"declassify {reason!r}", (lo, hi))
            if label not in program.labels:
                raise CtError(f"declassify {reason!r} names label {label!r}, which the program "
                              "lacks")
            self.declass.setdefault(program.labels[label], []).append(
                (((1 << (hi - lo)) - 1) << lo, (label, lo, hi, reason)))
        self.declass_reached = set()

    # ------------------------------------------------------------------ entry state
    def _range(self, name, rng) -> tuple:
        try:
            lo, hi = int(rng[0]), int(rng[1])
        except (TypeError, ValueError, IndexError):
            raise CtError(f"range {name}: {rng!r} is not (lo, hi)") from None
        if not 0 <= lo < hi <= self.size:
            raise CtError(f"range {name}: {lo}:{hi} is not inside DMEM (0:{self.size})")
        return lo, hi

    def entry(self) -> State:
        s = State()
        s.gv, s.gt, s.wt = [0] * 32, 0, [0] * self.isa.wdrs
        s.cv = {n: 0 for n in self.isa.csrs}
        s.ct = {n: False for n in self.isa.csrs}
        s.wsr = {n: 0 for n in self.isa.wsrs}
        s.kmac, s.job, s.smp, s.chain = False, None, False, {}
        pol = self.policy
        if pol.rest not in ("secret", "public"):
            raise CtError(f"rest must be secret or public, not {pol.rest!r}")
        declared = 0
        for name, rng in list(pol.secret.items()) + list(pol.public.items()):
            lo, hi = self._range(name, rng)
            declared |= ((1 << (hi - lo)) - 1) << lo
        dm = 0
        if pol.rest == "secret":
            dm = self.all_bytes & ~declared
            for w in range(self.size // 32):
                if dm >> (32 * w) & FULL:
                    self.mem_chain[w] = ("undeclared DMEM (policy rest = secret)", None)
        for name, rng in pol.public.items():
            lo, hi = self._range(name, rng)
            dm &= ~(((1 << (hi - lo)) - 1) << lo)
        for name, rng in pol.secret.items():
            lo, hi = self._range(name, rng)
            dm |= ((1 << (hi - lo)) - 1) << lo
            for w in range(lo // 32, (hi + 31) // 32):
                self.mem_chain[w] = (f"secret {name} = DMEM[{lo}:{hi}]", None)
        s.dmem = dm
        for r in pol.secret_regs:
            if r[:1] == "x" and r[1:].isdigit() and 0 < int(r[1:]) < 32:
                s.gt |= 1 << int(r[1:])
                s.gv[int(r[1:])] = None
                s.chain[("x", int(r[1:]))] = (f"secret register {r}", None)
            elif r[:1] == "w" and r[1:].isdigit() and int(r[1:]) < self.isa.wdrs:
                s.wt[int(r[1:])] = FULL
                s.chain[("w", int(r[1:]))] = (f"secret register {r}", None)
            else:
                raise CtError(f"secret register {r!r}: want x1..x31 or w0..w{self.isa.wdrs - 1}")
        return s

    # ------------------------------------------------------------------ helpers
    def _mem_range(self, s, insn, ops):
        m = insn.mem
        base = s.gv[ops[m["base"]]]
        if base is None:
            return None
        a = (base + ops[m["offset"]]) & FULL
        if a + m["bytes"] > self.size:
            return None
        return a, a + m["bytes"]

    def _mem_chain(self, lo, hi):
        for w in range(lo // 32, (hi + 31) // 32):
            if w in self.mem_chain:
                return self.mem_chain[w]
        return ("DMEM", None)

    def _set_mem_chain(self, lo, hi, chain):
        for w in range(lo // 32, (hi + 31) // 32):
            self.mem_chain[w] = chain

    def _violate(self, pc, kind, why, chain):
        key = (pc, kind, why)
        if key not in self.violations:
            self.violations[key] = Violation(pc, self.prog.texts[pc // 4], kind, why,
                                             _chain_list(chain))

    def _reg_name(self, insn, ops, name):
        kind = insn.operands[name].kind
        v = ops[name]
        if kind == "gpr":
            return ("x", v)
        if kind == "wdr":
            return ("w", v)
        if kind == "csr":
            return ("csr", self.csr_by_addr.get(v))
        return ("wsr", self.wsr_by_addr.get(v))

    def _src(self, s, insn, ops, loc, mrange, pc):
        """(byte mask of a 32-byte value or 0/FULL, chain) of a flow source."""
        name = loc.name
        if name == "mem":
            if mrange is None:
                mrange = self._bound(pc, insn, ops)
            if mrange is None:
                return (FULL if s.dmem else 0), ("a load from an unknown address", None)
            lo, hi = mrange
            if mrange != self._mem_range(s, insn, ops):      # a bound: any byte of it
                bits = (s.dmem >> lo) & ((1 << (hi - lo)) - 1)
                return (FULL if bits else 0), self._mem_chain(lo, hi) if bits else None
            bits = (s.dmem >> lo) & ((1 << (hi - lo)) - 1)
            return bits, self._mem_chain(lo, hi) if bits else None
        if name == "kmac":
            return (FULL if s.kmac else 0), s.chain.get("kmac")
        if name == "wsr.URND" and insn.mnemonic == "kmac.start":
            mode = s.gv[ops["grs1"]]
            if mode is not None and not mode >> 5 & 1:
                return 0, None        # an unmasked START ignores URND's word (isa.yml kmac.start)
        if name.startswith("wsr."):
            w = name[4:]
            return s.wsr[w], s.chain.get(("wsr", w))
        if name.startswith("csr."):
            c = name[4:]
            return (FULL if s.ct[c] else 0), s.chain.get(("csr", c))
        kind, idx = self._reg_name(insn, ops, name)
        if kind == "x":
            t = FULL if s.gt >> idx & 1 else 0
            return t, s.chain.get(("x", idx))
        if kind == "w":
            t = s.wt[idx]
            if loc.sel == "word":
                t = FULL if (t >> (4 * ops[loc.arg])) & 0xF else 0
            elif loc.sel == "mask":
                mv = s.gv[ops[loc.arg]]
                t = FULL if (t & (FULL if mv is None else mv)) else 0
            return t, s.chain.get(("w", idx))
        if kind == "csr":
            if idx is None:
                return 0, None
            if self.isa.csrs[idx].get("ct") == "stream":
                return (FULL if s.smp else 0), s.chain.get("smp")
            if self.isa.csrs[idx].get("ct") == "secret":      # RND, URND
                return FULL, None
            if idx in self.csr_ro:
                return 0, None
            return (FULL if s.ct[idx] else 0), s.chain.get(("csr", idx))
        if idx is not None and self.isa.wsrs[idx].get("ct") == "secret":
            return FULL, None
        if idx is None or idx in self.wsr_ro:
            return 0, None
        return s.wsr[idx], s.chain.get(("wsr", idx))

    def _values(self, s, insn, ops, pc):
        """Run the ISS's instruction function on the known values; returns the fake machine
        (or None when it faults) and the next PC it returned."""
        f = self.fake
        f.gpr.regs = [v or 0 for v in s.gv]
        f.csr.values = {k: (v or 0) for k, v in s.cv.items()}
        f.pc, f.insn = pc, insn
        try:
            nxt = self.exec[insn.mnemonic](f, ops)
        except Exception:                              # a fault: no value follows
            return None, None
        return f, nxt

    # ------------------------------------------------------------------ one instruction
    def step(self, s: State, pc: int):
        insn, ops = self.dec[pc // 4]
        here = f"{pc:#06x} {self.prog.texts[pc // 4]}"

        def gtaint(name):
            return bool(s.gt >> ops[name] & 1) if ops[name] else False

        def chain_of(name):
            return s.chain.get(("x", ops[name]))

        # ---- sinks, on the state before the instruction
        mrange = None
        if insn.mem:
            b = insn.mem["base"]
            if gtaint(b):
                self._violate(pc, "address", f"base register x{ops[b]} is secret", chain_of(b))
            mrange = self._mem_range(s, insn, ops)
        ctl = insn.control or {}
        if ctl.get("kind") == "branch":
            for c in ctl["cond"]:
                if gtaint(c):
                    self._violate(pc, "branch", f"condition register x{ops[c]} is secret",
                                  chain_of(c))
        elif ctl.get("kind") == "jump-reg" and gtaint(ctl["base"]):
            self._violate(pc, "branch", f"jump target register x{ops[ctl['base']]} is secret",
                          chain_of(ctl["base"]))
        elif ctl.get("kind") == "loop" and insn.operands[ctl["count"]].kind == "gpr" \
                and gtaint(ctl["count"]):
            self._violate(pc, "loop-count", f"count register x{ops[ctl['count']]} is secret",
                          chain_of(ctl["count"]))
        for t in insn.timing:
            if gtaint(t):
                self._violate(pc, "timing", f"x{ops[t]} sets the duration and is secret",
                              chain_of(t))
        st = insn.stream
        if isinstance(st, dict) and gtaint(st["dst"]):
            self._violate(pc, "address", f"stream destination x{ops[st['dst']]} is secret",
                          chain_of(st["dst"]))
        if isinstance(st, dict):
            mode = insn.operands[st["mode"]].values[ops[st["mode"]]]
            if mode in st["data_dependent"] and s.kmac:
                self._violate(pc, "timing", f"{mode} rejection sampling: the run time depends on "
                              "the digest, and the KMAC absorbed a secret", s.chain.get("kmac"))

        # ---- values (constants) and the next PC
        new = s.copy()
        fake, nxt = None, None
        need_exec = ctl.get("kind") in ("branch", "jump-reg")
        for dsts, srcs in insn.flow:
            for d in dsts:
                if d.name in insn.operands and insn.operands[d.name].kind in ("gpr", "csr"):
                    need_exec = True
        if need_exec:
            fake, nxt = self._values(s, insn, ops, pc)

        # ---- flows (sources from the old state, all at once)
        outs = []
        for dsts, srcs in insn.flow:
            taint, chain, known = 0, None, True
            for loc in srcs:
                t, c = self._src(s, insn, ops, loc, mrange, pc)
                if t and chain is None:
                    chain = c
                taint |= t
                if loc.name in insn.operands and insn.operands[loc.name].kind == "gpr":
                    known &= s.gv[ops[loc.name]] is not None
                elif loc.name in insn.operands and insn.operands[loc.name].kind == "csr":
                    cn = self.csr_by_addr.get(ops[loc.name])
                    known &= cn is not None and cn not in self.csr_ro and s.cv.get(cn) is not None
                else:
                    known = False
            bytewise = len(srcs) == 1 and srcs[0].name == "mem"
            outs.append((dsts, srcs, taint, bytewise, (here, chain) if taint else None, known))
        for dsts, srcs, taint, bytewise, chain, known in outs:
            for d in dsts:
                self._write(new, insn, ops, d, taint, bytewise, chain, known, fake, mrange, pc)

        # ---- the stream unit
        if isinstance(st, dict):
            self._stream_run(s, new, insn, ops, pc, here)
        elif st == "wait" and new.job:
            lo, hi, taint, exact = new.job
            if exact:
                m = ((1 << (hi - lo)) - 1) << lo
                new.dmem = (new.dmem & ~m) | (m if taint else 0)
            new.job = None
        return new, nxt

    def _write(self, new, insn, ops, d, taint, bytewise, chain, known, fake, mrange, pc):
        name = d.name
        anyt = bool(taint)
        if name == "mem":
            if mrange is None:
                b = self._bound(pc, insn, ops)
                if b is not None:
                    lo, hi = b
                    if anyt:
                        new.dmem |= ((1 << (hi - lo)) - 1) << lo
                        self._set_mem_chain(lo, hi, chain)
                    return
                if anyt:
                    if new.dmem != self.all_bytes:
                        self.warnings.append(f"{pc:#06x} {self.prog.texts[pc // 4]}: secret "
                                             "stored through an unknown address: all of DMEM "
                                             "is treated as secret from here")
                    new.dmem = self.all_bytes
                return
            lo, hi = mrange
            n = hi - lo
            bits = (taint & ((1 << n) - 1)) if n == 32 else ((1 << n) - 1 if anyt else 0)
            m = ((1 << n) - 1) << lo
            if m & self.release_mask:
                bits = self._release(lo, hi, bits)
            new.dmem = (new.dmem & ~m) | (bits << lo)
            if bits:
                self._set_mem_chain(lo, hi, chain)
            return
        if name == "kmac":
            new.kmac = anyt
            self._chain(new, "kmac", chain)
            return
        if name.startswith("wsr."):
            new.wsr[name[4:]] = FULL if anyt else 0
            self._chain(new, ("wsr", name[4:]), chain)
            return
        kind, idx = self._reg_name(insn, ops, name)
        if kind == "x":
            if idx == 0:
                return
            new.gt = (new.gt | 1 << idx) if anyt else (new.gt & ~(1 << idx))
            new.gv[idx] = fake.gpr.read(idx) if (known and fake is not None) else None
            self._chain(new, ("x", idx), chain)
        elif kind == "w":
            if d.sel == "word":
                k = ops[d.arg]
                m = 0xF << (4 * k)
                new.wt[idx] = (new.wt[idx] & ~m) | (m if anyt else 0)
                if anyt:
                    self._chain(new, ("w", idx), chain)
            else:
                new.wt[idx] = (taint if bytewise else FULL if anyt else 0) & FULL
                self._chain(new, ("w", idx), chain)
        elif kind == "csr":
            if idx is None or idx in self.csr_ro:
                return
            sink = self.isa.csrs[idx].get("ct")
            if anyt and sink in ("address", "timing"):
                self._violate(pc, sink, f"a secret is written to CSR {idx}, used as "
                              f"{'an address' if sink == 'address' else 'a duration'}", chain)
            new.ct[idx] = anyt
            new.cv[idx] = fake.csr.values[idx] if (known and fake is not None) else None
            self._chain(new, ("csr", idx), chain)
        elif kind == "wsr":
            if idx is None or idx in self.wsr_ro:
                return
            new.wsr[idx] = FULL if anyt else 0
            self._chain(new, ("wsr", idx), chain)

    def _release(self, lo, hi, bits):
        """The taint bits of a store to DMEM[lo:hi) with the declared releases' bytes cleared."""
        for r in self.releases:
            if r[0] < hi and lo < r[1]:
                self.releases_reached.add(r)
                keep = ((1 << (min(hi, r[1]) - max(lo, r[0]))) - 1) << (max(lo, r[0]) - lo)
                if bits & keep:
                    self.releases_used.add(r)
                bits &= ~keep
        return bits

    def _bound(self, pc, insn, ops):
        """The declared bound of an access at pc with an unknown address: the first whose
        label range holds pc and whose `base` GPRs (all, when not given) hold its base."""
        for b in self.policy.bounds:
            lo, hi = self._label(b["within"][0]), self._label(b["within"][1])
            bases = b.get("base")
            if bases is not None and f"x{ops[insn.mem['base']]}" not in bases:
                continue
            if lo <= pc < hi:
                self.bounds_used.add(b["reason"])
                return self._range(b["reason"], b["dmem"])
        return None

    @staticmethod
    def _chain(new, key, chain):
        if chain:
            new.chain[key] = chain
        else:
            new.chain.pop(key, None)

    def _stream_run(self, s, new, insn, ops, pc, here):
        st = insn.stream
        dst, count = s.gv[ops[st["dst"]]], s.gv[ops[st["count"]]]
        vm = s.cv.get("VMODE")
        lanes = 16 if vm == 0 else 8                 # unknown VMODE: the larger footprint
        mode = insn.operands[st["mode"]].values[ops[st["mode"]]]
        taint = s.kmac
        words = -(-count // lanes) if count is not None else None
        if mode == "intm":              # ok's two shares, from the (secret) shares in DMEM
            words, taint = 2, True
        if dst is not None and words is not None and 0 < count and dst + 32 * words <= self.size:
            lo, hi, exact = dst, dst + 32 * words, True
        else:
            lo, hi, exact = 0, self.size, False
        if taint:
            new.dmem |= ((1 << (hi - lo)) - 1) << lo
            self._set_mem_chain(lo, hi, (here, s.chain.get("kmac")))
        new.job = (lo, hi, taint, exact)
        new.smp = taint and mode in st["data_dependent"]
        self._chain(new, "smp", (here, s.chain.get("kmac")) if new.smp else None)

    # ------------------------------------------------------------------ control flow
    def blocks(self) -> dict:
        """Basic blocks {start pc: [pcs]} (static CFG: branch / jump targets, after control
        transfers, loop bodies' first instruction and the one after their end)."""
        leaders = {0}
        ends = set()
        for i, (insn, ops) in enumerate(self.dec):
            pc = 4 * i
            ctl = insn.control
            if not ctl:
                continue
            leaders.add(pc + 4)
            if "target" in ctl:
                leaders.add(pc + ops[ctl["target"]])
            if ctl["kind"] == "loop":
                end = pc + 4 * ops[ctl["body"]]
                ends.add(end)
                leaders.add(end + 4)
        for e in ends:
            leaders.add(e + 4)
        starts = sorted(a for a in leaders if 0 <= a < 4 * self.n)
        out = {}
        for k, a in enumerate(starts):
            b = starts[k + 1] if k + 1 < len(starts) else 4 * self.n
            out[a] = list(range(a, b, 4))
        return out

    def _successors(self, s, pc, nxt, stack):
        """[(pc, stack)] after the instruction at pc (the last of a block)."""
        insn, ops = self.dec[pc // 4]
        ctl = insn.control or {}
        kind = ctl.get("kind")
        if kind == "halt":
            return []
        if kind == "branch":
            vals = [s.gv[ops[c]] for c in ctl["cond"]]
            taken = pc + ops[ctl["target"]]
            if None not in vals:
                defaults = [taken if nxt is not None else pc + 4]
            else:
                defaults = [taken, pc + 4]
        elif kind == "jump":
            defaults = [pc + ops[ctl["target"]]]
        elif kind == "jump-reg":
            base = s.gv[ops[ctl["base"]]]
            if base is None:
                raise CtError(f"{pc:#06x} {self.prog.texts[pc // 4]}: jump through a register "
                              "whose value is unknown: this check cannot follow it")
            defaults = [(base + ops[ctl["offset"]]) & FULL & ~1]
        elif kind == "loop":
            cnt = ops[ctl["count"]] if insn.operands[ctl["count"]].kind == "uimm" \
                else s.gv[ops[ctl["count"]]]
            if cnt == 0:
                return []                             # LOOP error: the program halts
            body = ops[ctl["body"]]
            stack = stack + ((pc + 4, pc + 4 * body, cnt),)
            defaults = [pc + 4]
        else:
            defaults = [pc + 4]
        out = []
        for d in defaults:
            out += self._loop_ends(pc, d, stack)
        return out

    def _calls(self, pc, calls, succs):
        """Subroutine calls, analysed per call site (so a return address stays a known
        constant): a jal with a link register pushes its return address on the context's
        call stack, a register jump to the address on top pops it. [(pc, stack, calls)]."""
        insn, ops = self.dec[pc // 4]
        kind = (insn.control or {}).get("kind")
        if kind == "jump" and ops.get("grd", 0):
            if len(calls) >= 8:
                raise CtError(f"{pc:#06x} {self.prog.texts[pc // 4]}: calls nested deeper "
                              "than 8")
            calls = calls + (pc + 4,)
        elif kind == "jump-reg" and calls and succs and succs[0][0] == calls[-1]:
            calls = calls[:-1]
        return [(p, st, calls) for p, st in succs]

    def _loop_ends(self, pc, default, stack):
        """The hardware loop stack after the instruction at pc retires (LoopStack.next_pc),
        with an unknown remaining count taking both ways."""
        if not stack or stack[-1][1] != pc:
            return [(default, stack)]
        start, end, rem = stack[-1]
        if rem is None:
            return [(start, stack)] + self._loop_ends(pc, default, stack[:-1])
        if rem > 1:
            return [(start, stack[:-1] + ((start, end, rem - 1),))]
        return self._loop_ends(pc, default, stack[:-1])

    # ------------------------------------------------------------------ fixed point
    def run(self) -> Report:
        t0 = time.time()
        blocks = self.blocks()
        block_of = {}
        for a, pcs in blocks.items():
            for p in pcs:
                block_of[p] = a
        states = {}
        work = []
        entry = (0, (), ())
        states[entry] = self.entry()
        work.append(entry)
        steps = 0
        while work:
            key = work.pop()
            pc, stack, calls = key
            if not 0 <= pc < 4 * self.n:
                raise CtError(f"control reaches {pc:#x}, outside the program (0..{4 * self.n:#x})")
            s = states[key]
            # run from pc to the end of its block, or to a loop-body end on the stack
            while True:
                for mask, d in self.declass.get(pc, ()):
                    s = s.copy()
                    s.dmem &= ~mask
                    self.declass_reached.add(d)
                s, nxt = self.step(s, pc)
                steps += 1
                if steps > self.max_steps:
                    raise CtError(f"more than {self.max_steps} instruction steps: the program's "
                                  "loops do not converge in this analysis")
                insn = self.dec[pc // 4][0]
                at_end = (pc + 4 not in block_of or block_of[pc + 4] == pc + 4 or insn.control
                          or (stack and stack[-1][1] == pc))
                if not at_end:
                    pc += 4
                    continue
                break
            for succ in self._calls(pc, calls, self._successors(s, pc, nxt, stack)):
                if succ in states:
                    joined = states[succ].join(s)
                    if joined.key() == states[succ].key():
                        continue
                    states[succ] = joined
                else:
                    states[succ] = s
                work.append(succ)
        self._apply_allows()
        self._unused += [Allow("release", reason, within=(lo, hi)) for lo, hi, reason in
                         self.releases if (lo, hi, reason) not in self.releases_reached]
        self._unused += [Allow("declassify", d[3], target=d[0]) for ds in self.declass.values()
                         for _, d in ds if d not in self.declass_reached]
        viol = sorted(self.violations.values(), key=lambda v: (v.pc, v.kind))
        warnings = self.warnings + [f"assumption used: {r}" for r in sorted(self.bounds_used)]
        warnings += [f"release used: DMEM[{lo}:{hi}] ({reason})"
                     for lo, hi, reason in sorted(self.releases_used)]
        warnings += [f"declassified at {label}: DMEM[{lo}:{hi}] ({reason})"
                     for label, lo, hi, reason in sorted(self.declass_reached)]
        return Report(viol, warnings, self._unused, self.n, len(blocks), len(states), steps,
                      time.time() - t0)

    def _label(self, name):
        if name not in self.prog.labels:
            raise CtError(f"declared exception names label {name!r}, which the program lacks")
        return self.prog.labels[name]

    def _apply_allows(self):
        used = set()
        for a in self.policy.allow:
            if a.kind not in KINDS:
                raise CtError(f"declared exception kind {a.kind!r}: want one of {', '.join(KINDS)}")
            if bool(a.target) == bool(a.within):
                raise CtError(f"declared exception {a.reason!r}: give target or within")
            if a.target:
                tgt = self._label(a.target)

                def match(v, tgt=tgt):
                    insn, ops = self.dec[v.pc // 4]
                    ctl = insn.control or {}
                    return "target" in ctl and v.pc + ops[ctl["target"]] == tgt
            else:
                lo, hi = self._label(a.within[0]), self._label(a.within[1])

                def match(v, lo=lo, hi=hi):
                    return lo <= v.pc < hi
            for v in self.violations.values():
                if v.allowed_by is None and v.kind == a.kind and match(v):
                    v.allowed_by = a
                    used.add(a)
        self._unused = [a for a in self.policy.allow if a not in used]


_ISA = []


def check(program: Program, policy: Policy | dict, isa: Isa | None = None, **kw) -> Report:
    if isa is None:
        if not _ISA:
            _ISA.append(load_isa())
        isa = _ISA[0]
    if isinstance(policy, dict):
        policy = Policy.from_dict(policy)
    return Checker(program, policy, isa, **kw).run()
