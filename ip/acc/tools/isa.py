# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""Load and validate the ACC instruction set (ip/acc/data/isa.yml).

The YAML is the single description of every instruction; this module turns it into
`Isa` / `Insn` objects with encode/decode helpers used by the assembler, disassembler, ISS
decoder and the ISA document. Every problem is reported as `IsaError` naming the
instruction (or scheme) and what is wrong.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from ip.acc import ISA_YML

KINDS = ("gpr", "wdr", "csr", "wsr", "uimm", "simm", "pcrel", "enum")
REG_KINDS = {"gpr": 5, "wdr": 5}          # exact widths
ADDR_KINDS = {"csr": 12, "wsr": 8}
SIGNED_KINDS = ("simm", "pcrel")
ALWAYS_ERRORS = ("ILLEGAL_INSN", "BAD_INSN_ADDR")

_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_SLICE = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)(?:\[(\d+)(?::(\d+))?\])?$")
_LITERAL = re.compile(r"^0b[01]+$")


class IsaError(ValueError):
    """A problem in isa.yml; the message names the instruction or scheme."""


@dataclass(frozen=True)
class Field:
    name: str
    hi: int
    lo: int

    @property
    def width(self) -> int:
        return self.hi - self.lo + 1


@dataclass
class Scheme:
    name: str
    fields: dict  # name -> Field, in YAML order (MSB first by convention)


@dataclass
class Operand:
    name: str
    kind: str
    values: tuple = ()          # enum names
    # slices: (field, operand_hi, operand_lo); operand bits hi..lo go to the field
    slices: list = field(default_factory=list)
    width: int = 0              # highest mapped bit + 1 (value range width)
    align: int = 0              # bits below this must be zero

    @property
    def signed(self) -> bool:
        return self.kind in SIGNED_KINDS

    def value_range(self) -> tuple[int, int]:
        if self.kind == "enum":
            return 0, len(self.values) - 1
        if self.signed:
            return -(1 << (self.width - 1)), (1 << (self.width - 1)) - 1
        return 0, (1 << self.width) - 1


@dataclass
class Insn:
    mnemonic: str
    group: str
    syntax: str
    operands: dict             # name -> Operand, in syntax order
    scheme: Scheme
    mask: int                  # fixed bits
    match: int                 # their values
    cycles: int
    cycles_note: str
    errors: tuple
    doc: str
    mapping: dict              # field -> literal or operand spec, as written
    # decode mask: `mask` plus the wdr field bits that must be zero (register >= Isa.wdrs);
    # a word matching mask/match but not dec_mask/match is ILLEGAL_INSN
    dec_mask: int = 0
    # timing beyond `cycles`: results readable `latency` cycles after issue (1: the next
    # instruction); `unit`: a shared unit of Isa.units that accepts one instruction every
    # `interval` cycles
    latency: int = 1
    unit: str = ""
    # information flow (isa.yml flow / mem / control / timing / stream; see its header):
    # flow: [(dsts, srcs)], each a Loc; the others as written in isa.yml (validated)
    flow: list = field(default_factory=list)
    mem: dict = None
    control: dict = None
    timing: tuple = ()
    stream: object = None
    # shares: the flow between the two share states of the masked KMAC (`kmac0`, `kmac1`), for
    # the share-domain check (ip/acc/tools/share_check.py); empty: `flow` holds for both
    shares: list = field(default_factory=list)

    def syntax_tokens(self) -> list:
        """The syntax as a list of ('op', name) / ('lit', text)."""
        return _tokenize(self.syntax, self.operands)

    def encode(self, values: dict) -> int:
        """Word for operand values (integers; enum as index). Raises ValueError on range."""
        word = self.match
        for op in self.operands.values():
            v = values[op.name]
            lo, hi = op.value_range()
            if not lo <= v <= hi:
                raise ValueError(f"{self.mnemonic}: {op.name} = {v} outside {lo}..{hi}")
            if v & ((1 << op.align) - 1):
                raise ValueError(f"{self.mnemonic}: {op.name} = {v} not a multiple of {1 << op.align}")
            u = v & ((1 << op.width) - 1)
            for f, ohi, olo in op.slices:
                bits = (u >> olo) & ((1 << (ohi - olo + 1)) - 1)
                word |= bits << f.lo
        return word

    def decode(self, word: int) -> dict:
        """Operand values of a word that matches this instruction."""
        out = {}
        for op in self.operands.values():
            u = 0
            for f, ohi, olo in op.slices:
                u |= ((word >> f.lo) & ((1 << f.width) - 1)) << olo
            if op.signed and u >> (op.width - 1) & 1:
                u -= 1 << op.width
            out[op.name] = u
        return out


@dataclass(frozen=True)
class Loc:
    """A location of an information flow: `name` is an operand, `mem`, `kmac`, `wsr.NAME`
    or `csr.NAME`; `sel` is "" (all of it), "word" (32-bit word lane `arg`, an operand) or
    "mask" (the bytes selected by the GPR operand `arg`)."""
    name: str
    sel: str = ""
    arg: str = ""

    def __str__(self):
        return f"{self.name}.{self.sel}({self.arg})" if self.sel else self.name


FLOW_STATE = ("mem", "kmac")
# isa.yml `shares:` names the masked KMAC's two share states instead of `kmac`
SHARE_STATE = ("mem", "kmac0", "kmac1")
CONTROL_KINDS = {"branch": ("cond", "target"), "jump": ("target",),
                 "jump-reg": ("base", "offset"), "loop": ("count", "body"), "halt": ()}
_LOC = re.compile(r"^([A-Za-z_][A-Za-z0-9_.]*?)(?:\.(word|mask)\(([A-Za-z_][A-Za-z0-9_]*)\))?$")


def _parse_flow(text, ops, where, wsrs, csrs=(), state=FLOW_STATE) -> list:
    """isa.yml `flow: "d1 d2 <- s1 s2; ..."` -> [(dsts, srcs)] of Loc, names checked; `state`:
    the locations that are not operands or registers (FLOW_STATE, or SHARE_STATE for `shares`)."""
    if not isinstance(text, str):
        raise IsaError(f"{where}: flow must be a string 'dst <- src ...; ...'")
    out = []
    for part in text.split(";"):
        if "<-" not in part:
            raise IsaError(f"{where}: flow {part.strip()!r} has no '<-'")
        lhs, rhs = part.split("<-", 1)
        sides = []
        for side in (lhs, rhs):
            locs = []
            for tok in side.split():
                m = _LOC.match(tok)
                if not m:
                    raise IsaError(f"{where}: flow location {tok!r} is not NAME, NAME.word(OP) or "
                                   f"NAME.mask(OP)")
                name, sel, arg = m.group(1), m.group(2) or "", m.group(3) or ""
                if name[:4] in ("wsr.", "csr."):
                    if name[4:] not in (wsrs if name[0] == "w" else csrs):
                        raise IsaError(f"{where}: flow names unknown {name[:3].upper()} "
                                       f"{name[4:]!r}")
                elif name not in ops and name not in state:
                    raise IsaError(f"{where}: flow names {name!r}, neither an operand nor one of "
                                   f"{', '.join(state)}, wsr.NAME, csr.NAME")
                if sel:
                    if name not in ops or ops[name].kind != "wdr":
                        raise IsaError(f"{where}: flow selector .{sel}() needs a wdr operand, "
                                       f"not {name!r}")
                    want = "uimm" if sel == "word" else "gpr"
                    if arg not in ops or ops[arg].kind != want:
                        raise IsaError(f"{where}: flow {tok!r}: {arg!r} must be a {want} operand")
                if name in ops and ops[name].kind not in ("gpr", "wdr", "csr", "wsr"):
                    raise IsaError(f"{where}: flow location {name!r} is a {ops[name].kind} "
                                   f"operand, not a register")
                locs.append(Loc(name, sel, arg))
            sides.append(locs)
        if not sides[0]:
            raise IsaError(f"{where}: flow {part.strip()!r} writes nothing")
        out.append((tuple(sides[0]), tuple(sides[1])))
    return out


def _need_ops(where, what, names, ops, kinds):
    for n in names:
        if n not in ops or ops[n].kind not in kinds:
            raise IsaError(f"{where}: {what} {n!r} must be a {'/'.join(kinds)} operand")


def _parse_ct(raw, ops, where, wsrs, csrs=()) -> dict:
    """The information-flow keys of an instruction (flow, mem, control, timing, stream)."""
    out = {"flow": _parse_flow(raw["flow"], ops, where, wsrs, csrs) if "flow" in raw else []}
    mem = raw.get("mem")
    if mem is not None:
        if (not isinstance(mem, dict) or mem.get("op") not in ("load", "store")
                or mem.get("bytes") not in (4, 32)):
            raise IsaError(f"{where}: mem must be {{op: load|store, bytes: 4|32, base, offset}}")
        _need_ops(where, "mem base", [mem.get("base")], ops, ("gpr",))
        _need_ops(where, "mem offset", [mem.get("offset")], ops, ("simm", "uimm"))
        touches = {l.name for d, s in out["flow"] for l in (d if mem["op"] == "store" else s)}
        if "mem" not in touches:
            raise IsaError(f"{where}: a mem {mem['op']} needs 'mem' on the "
                           f"{'written' if mem['op'] == 'store' else 'read'} side of its flow")
    ctl = raw.get("control")
    if ctl is not None:
        kind = ctl.get("kind") if isinstance(ctl, dict) else None
        if kind not in CONTROL_KINDS or set(ctl) - {"kind"} != set(CONTROL_KINDS[kind]):
            raise IsaError(f"{where}: control must be one of "
                           + "; ".join(f"{{kind: {k}{''.join(', ' + f for f in v)}}}"
                                       for k, v in CONTROL_KINDS.items()))
        if kind == "branch":
            _need_ops(where, "branch cond", ctl["cond"], ops, ("gpr",))
        if "target" in ctl:
            _need_ops(where, "control target", [ctl["target"]], ops, ("pcrel",))
        if kind == "jump-reg":
            _need_ops(where, "jump base", [ctl["base"]], ops, ("gpr",))
        if kind == "loop":
            _need_ops(where, "loop count", [ctl["count"]], ops, ("gpr", "uimm"))
            _need_ops(where, "loop body", [ctl["body"]], ops, ("uimm",))
    timing = tuple(raw.get("timing") or ())
    _need_ops(where, "timing operand", timing, ops, ("gpr",))
    stream = raw.get("stream")
    if stream is not None and stream != "wait":
        if not isinstance(stream, dict) or set(stream) != {"dst", "count", "mode", "data_dependent"}:
            raise IsaError(f"{where}: stream must be 'wait' or {{dst, count, mode, data_dependent}}")
        _need_ops(where, "stream dst/count", [stream["dst"], stream["count"]], ops, ("gpr",))
        _need_ops(where, "stream mode", [stream["mode"]], ops, ("enum",))
        bad = set(stream["data_dependent"]) - set(ops[stream["mode"]].values)
        if bad:
            raise IsaError(f"{where}: stream data_dependent names unknown modes {sorted(bad)}")
    shares = _parse_flow(raw["shares"], ops, where + " shares", wsrs, csrs, SHARE_STATE) \
        if "shares" in raw else []
    if shares and not any(l.name == "kmac" for d, s in out["flow"] for l in d + s):
        raise IsaError(f"{where}: shares is for the instructions whose flow names kmac")
    return {"flow": out["flow"], "mem": mem, "control": ctl, "timing": timing, "stream": stream,
            "shares": shares}


def flow_covers_registers(insn: Insn) -> list:
    """Register operands of insn that none of its information-flow keys mentions (the
    constant-time check needs every one described)."""
    named = {l.name for d, s in insn.flow for l in d + s}
    named |= {l.arg for d, s in insn.flow for l in d + s if l.arg}
    if insn.mem:
        named.add(insn.mem["base"])
    if insn.control:
        for k in ("cond",):
            named.update(insn.control.get(k, ()))
        for k in ("base", "count"):
            if k in insn.control:
                named.add(insn.control[k])
    named.update(insn.timing)
    if isinstance(insn.stream, dict):
        named.update((insn.stream["dst"], insn.stream["count"]))
    return [n for n, op in insn.operands.items()
            if op.kind in ("gpr", "wdr", "csr", "wsr") and n not in named]


@dataclass
class Isa:
    insns: list
    by_mnemonic: dict
    schemes: dict
    errors: dict
    csrs: dict
    wsrs: dict
    groups: dict
    kinds: dict
    version: int = 1
    wdrs: int = 32             # wide data registers w0..w<wdrs-1>
    units: dict = None         # unit name -> {interval, desc}: see Insn.unit
    loop_depth: int = 8        # entries of the hardware loop stack

    def decode(self, word: int, any_wdr: bool = False):
        """(Insn, operand values) for a word, or None when no instruction matches. A wdr
        field >= wdrs matches nothing (ILLEGAL_INSN) unless any_wdr (for messages)."""
        for insn in self.insns:
            if word & insn.mask == insn.match:
                if not any_wdr and word & insn.dec_mask != insn.match:
                    return None
                return insn, insn.decode(word)
        return None

    def bad_wdrs(self, insn: Insn, values: dict) -> list:
        """Names of the wdr operands whose value is not a register (>= wdrs)."""
        return [n for n, op in insn.operands.items() if op.kind == "wdr" and values[n] >= self.wdrs]


def _tokenize(syntax: str, operands) -> list:
    toks, pos = [], 0
    for m in _IDENT.finditer(syntax):
        if m.start() > pos:
            toks.append(("lit", syntax[pos:m.start()]))
        name = m.group(0)
        toks.append(("op", name) if name in operands else ("word", name))
        pos = m.end()
    if pos < len(syntax):
        toks.append(("lit", syntax[pos:]))
    return toks


def _bits(spec, where: str) -> tuple[int, int]:
    m = re.fullmatch(r"\s*(\d+)\s*(?::\s*(\d+)\s*)?", str(spec))
    if not m:
        raise IsaError(f"{where}: bad bit range {spec!r} (want 'hi:lo' or 'bit')")
    hi = int(m.group(1))
    lo = int(m.group(2)) if m.group(2) is not None else hi
    if hi < lo:
        raise IsaError(f"{where}: bit range {spec!r} has hi < lo")
    if hi > 31:
        raise IsaError(f"{where}: bit range {spec!r} does not fit in 32 bits")
    return hi, lo


def _parse_scheme(name: str, raw) -> Scheme:
    where = f"encoding scheme {name}"
    if not isinstance(raw, dict) or not raw:
        raise IsaError(f"{where}: must be a mapping field -> 'hi:lo'")
    fields, used = {}, 0
    for fname, spec in raw.items():
        if not isinstance(fname, str):
            raise IsaError(f"{where}: field name {fname!r} is not a string (quote it in YAML)")
        hi, lo = _bits(spec, f"{where}, field {fname}")
        bits = ((1 << (hi - lo + 1)) - 1) << lo
        if used & bits:
            raise IsaError(f"{where}: field {fname} ({spec}) overlaps another field")
        used |= bits
        fields[fname] = Field(fname, hi, lo)
    if used != 0xFFFFFFFF:
        missing = [b for b in range(32) if not used >> b & 1]
        raise IsaError(f"{where}: fields leave bits {missing} uncovered")
    return Scheme(name, fields)


def _need(d: dict, key: str, where: str):
    if key not in d:
        raise IsaError(f"{where}: missing '{key}'")
    return d[key]


def _parse_insn(raw, schemes, errors, groups, wdrs: int = 32, units=None,
                wsrs_names=None, csrs_names=None) -> Insn:
    if not isinstance(raw, dict):
        raise IsaError(f"instruction entry {raw!r}: must be a mapping")
    mn = raw.get("mnemonic")
    if not isinstance(mn, str) or not mn:
        raise IsaError(f"instruction entry {raw!r}: missing 'mnemonic'")
    where = f"instruction {mn}"
    group = _need(raw, "group", where)
    if group not in groups:
        raise IsaError(f"{where}: unknown group {group!r} (known: {', '.join(groups)})")
    syntax = _need(raw, "syntax", where)
    if not isinstance(syntax, str):
        raise IsaError(f"{where}: syntax must be a string")
    raw_ops = raw.get("operands") or {}
    if not isinstance(raw_ops, dict):
        raise IsaError(f"{where}: operands must be a mapping name -> {{kind: ...}}")

    ops = {}
    for oname, ospec in raw_ops.items():
        if not isinstance(oname, str):
            raise IsaError(f"{where}: operand name {oname!r} is not a string (quote it in YAML)")
        if not isinstance(ospec, dict) or "kind" not in ospec:
            raise IsaError(f"{where}: operand {oname} needs a 'kind'")
        kind = ospec["kind"]
        if kind not in KINDS:
            raise IsaError(f"{where}: operand {oname} has unknown operand kind {kind!r} "
                           f"(known: {', '.join(KINDS)})")
        values = ()
        if kind == "enum":
            values = tuple(str(v) for v in ospec.get("values") or ())
            if not values:
                raise IsaError(f"{where}: enum operand {oname} needs a non-empty 'values' list")
            if len(set(values)) != len(values):
                raise IsaError(f"{where}: enum operand {oname} has duplicate values")
        ops[oname] = Operand(oname, kind, values)

    # syntax: every operand exactly once, in syntax order; no stray identifiers
    toks = _tokenize(syntax, ops)
    order = [t for k, t in toks if k == "op"]
    stray = [t for k, t in toks if k == "word"]
    if stray:
        raise IsaError(f"{where}: syntax {syntax!r} names {stray}, which are not operands")
    for oname in ops:
        if order.count(oname) != 1:
            raise IsaError(f"{where}: operand {oname} must appear exactly once in syntax {syntax!r}")
    ops = {n: ops[n] for n in order}

    enc = _need(raw, "encoding", where)
    sname = _need(enc, "scheme", where + " encoding")
    if sname not in schemes:
        raise IsaError(f"{where}: unknown encoding scheme {sname!r}")
    scheme = schemes[sname]
    mapping = _need(enc, "mapping", where + " encoding")
    if set(mapping) != set(scheme.fields):
        extra = sorted(set(mapping) - set(scheme.fields))
        missing = sorted(set(scheme.fields) - set(mapping))
        raise IsaError(f"{where}: mapping does not match scheme {sname}: "
                       f"unknown fields {extra}, unmapped fields {missing}")
    mask = match = 0
    for fname, val in mapping.items():
        f = scheme.fields[fname]
        if isinstance(val, int):
            raise IsaError(f"{where}: field {fname}: write literals as '0b...' strings (got {val})")
        val = str(val)
        if _LITERAL.match(val):
            bits = val[2:]
            if len(bits) != f.width:
                raise IsaError(f"{where}: field {fname} is {f.width} bits but literal {val} has "
                               f"{len(bits)} (field overflow)")
            mask |= ((1 << f.width) - 1) << f.lo
            match |= int(bits, 2) << f.lo
            continue
        m = _SLICE.match(val)
        if not m or m.group(1) not in ops:
            raise IsaError(f"{where}: field {fname} maps to {val!r}, which is neither a '0b' literal "
                           f"nor an operand")
        op = ops[m.group(1)]
        if m.group(2) is None:
            ohi, olo = f.width - 1, 0
        else:
            ohi = int(m.group(2))
            olo = int(m.group(3)) if m.group(3) is not None else ohi
        if ohi < olo or ohi - olo + 1 != f.width:
            raise IsaError(f"{where}: field {fname} is {f.width} bits but {val!r} is "
                           f"{ohi - olo + 1} (field overflow)")
        op.slices.append((f, ohi, olo))

    for op in ops.values():
        if not op.slices:
            raise IsaError(f"{where}: operand {op.name} is not encoded in any field")
        covered = 0
        for _f, ohi, olo in op.slices:
            bits = ((1 << (ohi - olo + 1)) - 1) << olo
            if covered & bits:
                raise IsaError(f"{where}: operand {op.name} has overlapping slices")
            covered |= bits
        op.width = covered.bit_length()
        op.align = (covered & -covered).bit_length() - 1
        if covered >> op.align != (1 << (op.width - op.align)) - 1:
            raise IsaError(f"{where}: operand {op.name} slices leave a gap")
        if op.kind in REG_KINDS and (op.width, op.align) != (REG_KINDS[op.kind], 0):
            raise IsaError(f"{where}: register operand {op.name} must be encoded in exactly "
                           f"{REG_KINDS[op.kind]} bits")
        if op.kind in ADDR_KINDS and (op.width, op.align) != (ADDR_KINDS[op.kind], 0):
            raise IsaError(f"{where}: {op.kind} operand {op.name} must be encoded in exactly "
                           f"{ADDR_KINDS[op.kind]} bits")
        if op.kind == "enum":
            if op.align:
                raise IsaError(f"{where}: enum operand {op.name} must start at bit 0")
            if len(op.values) > 1 << op.width:
                raise IsaError(f"{where}: enum operand {op.name} has {len(op.values)} values, more "
                               f"than its {op.width}-bit field holds (field overflow)")

    cycles = raw.get("cycles")
    if not isinstance(cycles, int) or isinstance(cycles, bool) or cycles < 1:
        raise IsaError(f"{where}: 'cycles' must be a positive integer (got {cycles!r})")
    errs = tuple(raw.get("errors") or ())
    for e in errs:
        if e not in errors:
            raise IsaError(f"{where}: unknown error {e!r} (known: {', '.join(errors)})")
    doc = raw.get("doc")
    if not isinstance(doc, str) or not doc.strip():
        raise IsaError(f"{where}: missing 'doc' (semantics summary)")
    # register indices >= wdrs have some bit at or above log2(wdrs) set (wdrs a power of 2)
    dec_mask = mask
    for op in ops.values():
        if op.kind == "wdr":
            for f, ohi, olo in op.slices:
                for b in range(max(olo, wdrs.bit_length() - 1), ohi + 1):
                    dec_mask |= 1 << (f.lo + b - olo)
    latency = raw.get("latency", 1)
    if not isinstance(latency, int) or isinstance(latency, bool) or latency < 1:
        raise IsaError(f"{where}: 'latency' must be a positive integer (got {latency!r})")
    unit = raw.get("unit") or ""
    if unit and unit not in (units or {}):
        raise IsaError(f"{where}: unknown unit {unit!r} (known: {', '.join(units or {}) or 'none'})")
    ct = _parse_ct(raw, ops, where, wsrs_names or {}, csrs_names or {})
    return Insn(mn, group, syntax, ops, scheme, mask, match, cycles,
                str(raw.get("cycles_note") or ""), errs, doc.strip(), dict(mapping), dec_mask,
                latency, unit, ct["flow"], ct["mem"], ct["control"], ct["timing"], ct["stream"],
                ct["shares"])


def parse_isa(data) -> Isa:
    """Validate a parsed YAML document (dict) or YAML text and build the Isa."""
    if isinstance(data, str):
        try:
            data = yaml.safe_load(data)
        except yaml.YAMLError as exc:
            raise IsaError(f"isa.yml is not valid YAML: {exc}") from exc
    if not isinstance(data, dict):
        raise IsaError("isa.yml: top level must be a mapping")
    for key in ("errors", "operand-kinds", "encoding-schemes", "groups", "insns"):
        if key not in data:
            raise IsaError(f"isa.yml: missing top-level '{key}'")
    kinds = data["operand-kinds"]
    unknown = sorted(set(kinds) - set(KINDS))
    if unknown:
        raise IsaError(f"isa.yml: operand-kinds {unknown} have no implementation in ip.acc.tools.isa")
    errors = data["errors"]
    for always in ALWAYS_ERRORS:
        if always not in errors:
            raise IsaError(f"isa.yml: errors must define {always}")
    bits = [e.get("bit") for e in errors.values()]
    if len(set(bits)) != len(bits):
        raise IsaError("isa.yml: two errors share a bit")
    wdrs = data.get("wdrs", 1 << REG_KINDS["wdr"])
    if (not isinstance(wdrs, int) or isinstance(wdrs, bool) or wdrs < 1
            or wdrs > 1 << REG_KINDS["wdr"] or wdrs & (wdrs - 1)):
        raise IsaError(f"isa.yml: wdrs must be a power of two from 1 to {1 << REG_KINDS['wdr']} "
                       f"(got {wdrs!r})")
    # the prose must not drift from the count (the ISA document prints it)
    if "wdr" in kinds and f"w0..w{wdrs - 1}" not in str(kinds["wdr"]):
        raise IsaError(f"isa.yml: operand-kinds wdr must say w0..w{wdrs - 1} (wdrs: {wdrs})")
    groups = data["groups"]
    depth = data.get("loop_depth", 8)
    if not isinstance(depth, int) or isinstance(depth, bool) or depth < 1:
        raise IsaError(f"isa.yml: loop_depth must be a positive integer (got {depth!r})")
    if "loop" in groups and f"{depth}-deep" not in str(groups["loop"]):
        raise IsaError(f"isa.yml: groups loop must say {depth}-deep (loop_depth: {depth})")
    schemes = {n: _parse_scheme(n, s) for n, s in data["encoding-schemes"].items()}
    for table in ("csrs", "wsrs"):
        addrs = [r["addr"] for r in (data.get(table) or {}).values()]
        if len(set(addrs)) != len(addrs):
            raise IsaError(f"isa.yml: two {table} share an address")
        for name, r in (data.get(table) or {}).items():
            if r.get("ct", "address") not in ("address", "timing", "stream", "secret"):
                raise IsaError(f"isa.yml: {table} {name}: ct {r['ct']!r} is not address, "
                               "timing, stream or secret")

    units = dict(data.get("units") or {})
    for name, u in units.items():
        iv = u.get("interval") if isinstance(u, dict) else None
        if not isinstance(iv, int) or isinstance(iv, bool) or iv < 1:
            raise IsaError(f"isa.yml: unit {name}: 'interval' must be a positive integer (got {iv!r})")
    insns, by_mn = [], {}
    for raw in data["insns"] or ():
        insn = _parse_insn(raw, schemes, errors, groups, wdrs, units, data.get("wsrs") or {},
                           data.get("csrs") or {})
        if insn.mnemonic in by_mn:
            raise IsaError(f"instruction {insn.mnemonic}: defined twice")
        insns.append(insn)
        by_mn[insn.mnemonic] = insn

    # Two encodings overlap when some word matches both: their fixed bits agree wherever
    # both are fixed.
    for i, a in enumerate(insns):
        for b in insns[i + 1:]:
            common = a.mask & b.mask
            if (a.match ^ b.match) & common == 0:
                raise IsaError(f"instruction {b.mnemonic}: encoding overlaps {a.mnemonic} "
                               f"(fixed bits {a.mask:#010x}/{a.match:#010x} vs "
                               f"{b.mask:#010x}/{b.match:#010x})")
    return Isa(insns, by_mn, schemes, errors, dict(data.get("csrs") or {}),
               dict(data.get("wsrs") or {}), groups, kinds, int(data.get("version", 1)), wdrs,
               units, depth)


def load_isa(path: Path | str = ISA_YML) -> Isa:
    return parse_isa(Path(path).read_text())
