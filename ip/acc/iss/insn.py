# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""One function per instruction of isa.yml; each reads like the `doc:` it implements.

Every function takes (state, ops) -- ops are the operand values decoded by ip.acc.tools.isa --
and returns the next PC or None (fall through). Errors raise AccError with the isa.yml
error name; stream-unit instructions raise Unmodelled. The kmac.* group lives in kmac.py
(cycle by cycle against the KMAC cycle model).
"""
from ip.acc.iss.errors import AccError, Unmodelled
from ip.acc.iss.kmac import EXEC as KMAC_EXEC
from ip.acc.iss.gpr import MASK32, sext32
from ip.acc.iss.wdr import MASK256, word32

EXEC = {}


def insn(*mnemonics):
    def reg(fn):
        for m in mnemonics:
            EXEC[m] = fn
        return fn
    return reg


# ------------------------------------------------------------------------------ base ALU
def _alu(fn):
    def run(s, o):
        s.gpr.write(o["grd"], fn(s.gpr.read(o["grs1"]), s.gpr.read(o["grs2"])))
    return run


def _alui(fn):
    def run(s, o):
        s.gpr.write(o["grd"], fn(s.gpr.read(o["grs1"]), o["imm"] & MASK32))
    return run


_ALU = {
    "add": lambda a, b: a + b,
    "sub": lambda a, b: a - b,
    "sll": lambda a, b: a << (b & 31),
    "slt": lambda a, b: int(sext32(a) < sext32(b)),
    "sltu": lambda a, b: int(a < b),
    "xor": lambda a, b: a ^ b,
    "srl": lambda a, b: a >> (b & 31),
    "sra": lambda a, b: sext32(a) >> (b & 31),
    "or": lambda a, b: a | b,
    "and": lambda a, b: a & b,
}
for _m, _f in _ALU.items():
    EXEC[_m] = _alu(_f)
for _m, _r in (("addi", "add"), ("slti", "slt"), ("sltiu", "sltu"), ("xori", "xor"),
               ("ori", "or"), ("andi", "and")):
    EXEC[_m] = _alui(_ALU[_r])


@insn("slli")
def slli(s, o):
    s.gpr.write(o["grd"], s.gpr.read(o["grs1"]) << o["shamt"])


@insn("srli")
def srli(s, o):
    s.gpr.write(o["grd"], s.gpr.read(o["grs1"]) >> o["shamt"])


@insn("srai")
def srai(s, o):
    s.gpr.write(o["grd"], sext32(s.gpr.read(o["grs1"])) >> o["shamt"])


@insn("lui")
def lui(s, o):
    s.gpr.write(o["grd"], o["imm"] << 12)


# ------------------------------------------------------------------------------ base memory
@insn("lw")
def lw(s, o):
    s.gpr.write(o["grd"], s.dmem.load((s.gpr.read(o["grs1"]) + o["offset"]) & MASK32, 4))


@insn("sw")
def sw(s, o):
    s.dmem.store((s.gpr.read(o["grs1"]) + o["offset"]) & MASK32, 4, s.gpr.read(o["grs2"]))


# ------------------------------------------------------------------------------ control flow
_BRANCH = {
    "beq": lambda a, b: a == b,
    "bne": lambda a, b: a != b,
    "blt": lambda a, b: sext32(a) < sext32(b),
    "bge": lambda a, b: sext32(a) >= sext32(b),
    "bltu": lambda a, b: a < b,
    "bgeu": lambda a, b: a >= b,
}


def _branch(cond):
    def run(s, o):
        if cond(s.gpr.read(o["grs1"]), s.gpr.read(o["grs2"])):
            return (s.pc + o["offset"]) & MASK32
        return None
    return run


for _m, _c in _BRANCH.items():
    EXEC[_m] = _branch(_c)


@insn("jal")
def jal(s, o):
    target = (s.pc + o["offset"]) & MASK32
    s.gpr.write(o["grd"], s.pc + 4)
    return target


@insn("jalr")
def jalr(s, o):
    target = (s.gpr.read(o["grs1"]) + o["offset"]) & MASK32 & ~1
    s.gpr.write(o["grd"], s.pc + 4)
    return target


# ------------------------------------------------------------------------------ CSRs, halt
def _csr(op):
    def run(s, o):
        src = s.gpr.read(o["grs1"])
        writes = op == "w" or o["grs1"] != 0
        if writes:
            s.csr.check_write(o["csr"])
        old = s.csr.read(o["csr"]) if (o["grd"] != 0 or op != "w") else 0
        if op == "w":
            new = src
        elif op == "s":
            new = old | src
        else:
            new = old & ~src
        if writes:
            s.csr.write(o["csr"], new)
        s.gpr.write(o["grd"], old)
    return run


EXEC["csrrw"], EXEC["csrrs"], EXEC["csrrc"] = _csr("w"), _csr("s"), _csr("c")


@insn("ecall")
def ecall(s, o):
    s.done = True


# ------------------------------------------------------------------------------ loops
def _loop(s, count, bodysize):
    if count == 0:
        raise AccError("LOOP", "zero iterations")
    if bodysize == 0:
        raise AccError("LOOP", "zero body size")
    s.loops.push(s.pc + 4, s.pc + 4 * bodysize, count)


@insn("loop")
def loop(s, o):
    _loop(s, s.gpr.read(o["grs1"]), o["bodysize"])


@insn("loopi")
def loopi(s, o):
    _loop(s, o["iters"], o["bodysize"])


# ------------------------------------------------------------------------------ wide memory
def _waddr(s, o):
    return (s.gpr.read(o["grs1"]) + o["offset"]) & MASK32


@insn("bn.lw", "bn.lw.pi")
def bn_lw(s, o):
    s.wdr.write(o["wrd"], s.dmem.load(_waddr(s, o), 32))
    if s.insn.mnemonic.endswith(".pi"):
        s.gpr.write(o["grs1"], s.gpr.read(o["grs1"]) + 32)


@insn("bn.sw", "bn.sw.pi")
def bn_sw(s, o):
    s.dmem.store(_waddr(s, o), 32, s.wdr.read(o["wrs"]))
    if s.insn.mnemonic.endswith(".pi"):
        s.gpr.write(o["grs1"], s.gpr.read(o["grs1"]) + 32)


@insn("bn.mov")
def bn_mov(s, o):
    s.wdr.write(o["wrd"], s.wdr.read(o["wrs"]))


@insn("bn.bcast")
def bn_bcast(s, o):
    lm = s.lanes
    s.wdr.write(o["wrd"], lm.join([s.gpr.read(o["grs1"]) & lm.mask] * lm.lanes))


def _word_lane(o):
    if o["lane"] >= 8:
        raise AccError("ILLEGAL_INSN", f"word lane {o['lane']} >= 8")
    return o["lane"]


@insn("bn.ins")
def bn_ins(s, o):
    k = _word_lane(o)
    old = s.wdr.read(o["wrd"]) & ~(0xFFFF_FFFF << (32 * k))
    s.wdr.write(o["wrd"], old | (s.gpr.read(o["grs1"]) << (32 * k)))


@insn("bn.ext")
def bn_ext(s, o):
    k = _word_lane(o)
    s.gpr.write(o["grd"], word32(s.wdr.read(o["wrs"]), k))


@insn("bn.wsrr")
def bn_wsrr(s, o):
    s.wdr.write(o["wrd"], s.wsr.read(o["wsr"]))


@insn("bn.wsrw")
def bn_wsrw(s, o):
    s.wsr.write(o["wsr"], s.wdr.read(o["wrs"]))


# ------------------------------------------------------------------------------ vector
def _lanewise(fn):
    def run(s, o):
        lm = s.lanes
        a, b = lm.split(s.wdr.read(o["wrs1"])), lm.split(s.wdr.read(o["wrs2"]))
        s.wdr.write(o["wrd"], lm.join([fn(lm, x, y) for x, y in zip(a, b)]))
    return run


def _addvm(lm, a, b):
    d = a + b
    return d - lm.q if d >= lm.q else d


def _subvm(lm, a, b):
    d = a - b
    return d + lm.q if d < 0 else d


def _mont(lm, a, b):
    """The exact hardware algorithm of isa.yml bn.mulvm (defined for any lane inputs)."""
    r = 1 << lm.width
    t = (a & lm.mask) * (b & lm.mask)
    m = (t * lm.qneg_inv) % r
    u = (t + m * lm.q) >> lm.width
    return (u - lm.q if u >= lm.q else u) & lm.mask


_VEC = {
    "bn.addvm": _addvm,
    "bn.subvm": _subvm,
    "bn.addv": lambda lm, a, b: a + b,
    "bn.subv": lambda lm, a, b: a - b,
    "bn.mulvm": _mont,
    "bn.mulv.lo": lambda lm, a, b: a * b,
    "bn.mulv.hi": lambda lm, a, b: (a * b) >> lm.width,
    "bn.ltv": lambda lm, a, b: lm.mask if a < b else 0,
}
for _m, _f in _VEC.items():
    EXEC[_m] = _lanewise(_f)


def _bitwise(fn):
    def run(s, o):
        s.wdr.write(o["wrd"], fn(s.wdr.read(o["wrs1"]), s.wdr.read(o["wrs2"])))
    return run


EXEC["bn.and"] = _bitwise(lambda a, b: a & b)
EXEC["bn.or"] = _bitwise(lambda a, b: a | b)
EXEC["bn.xor"] = _bitwise(lambda a, b: a ^ b)


@insn("bn.sel")
def bn_sel(s, o):
    d = s.wdr.read(o["wrd"])
    a, b = s.wdr.read(o["wrs1"]), s.wdr.read(o["wrs2"])
    s.wdr.write(o["wrd"], (d & a) | (~d & MASK256 & b))


@insn("bn.or.acc")
def bn_or_acc(s, o):
    addr = next(a for a, n in s.wsr.by_addr.items() if n == "ACC")
    acc = s.wsr.read(addr) | (s.wdr.read(o["wrs1"]) ^ s.wdr.read(o["wrs2"]))
    s.wsr.write(addr, acc)
    s.gpr.write(o["grd"], sum(1 for x in s.lanes.split(acc) if x))


def _shift(fn, strict):
    def run(s, o):
        lm = s.lanes
        if strict and o["shamt"] >= lm.width:
            raise AccError("ILLEGAL_INSN", f"shift {o['shamt']} >= lane width {lm.width}")
        a = lm.split(s.wdr.read(o["wrs1"]))
        s.wdr.write(o["wrd"], lm.join([fn(lm, x, o["shamt"]) for x in a]))
    return run


EXEC["bn.shlv"] = _shift(lambda lm, x, n: x << n, True)
EXEC["bn.shrv"] = _shift(lambda lm, x, n: x >> n, False)
EXEC["bn.srav"] = _shift(lambda lm, x, n: lm.signed(x) >> n, False)


# ------------------------------------------------------------------------------ ntt permutations
def _perm(fn):
    def run(s, o):
        lm = s.lanes
        a, b = lm.split(s.wdr.read(o["wrs1"])), lm.split(s.wdr.read(o["wrs2"]))
        s.wdr.write(o["wrd"], lm.join(fn(a, b)))
    return run


def _interleave(a, b, k):
    d = []
    for i in range(0, len(a), 2):
        d += [a[i + k], b[i + k]]
    return d


EXEC["bn.trn1"] = _perm(lambda a, b: _interleave(a, b, 0))
EXEC["bn.trn2"] = _perm(lambda a, b: _interleave(a, b, 1))
EXEC["bn.unzip.lo"] = _perm(lambda a, b: a[0::2] + b[0::2])
EXEC["bn.unzip.hi"] = _perm(lambda a, b: a[1::2] + b[1::2])


# bn.unpk: the field widths each lane width takes (isa.yml doc)
UNPK_WIDTHS = {16: (1, 4, 5, 10, 11, 12), 32: (3, 4, 6, 10, 13, 18, 20)}


def _field_width(s, o) -> int:
    """bn.unpk / bn.pk: the field width d, ILLEGAL_INSN unless legal in this VMODE."""
    lm = s.lanes
    names = s.insn.operands["d"].values
    if o["d"] >= len(names):
        raise AccError("ILLEGAL_INSN", f"d field {o['d']} is not one of {', '.join(names)}")
    d = int(names[o["d"]])
    if d not in UNPK_WIDTHS[lm.width]:
        raise AccError("ILLEGAL_INSN", f"d = {d} with {lm.width}-bit lanes (legal: "
                       f"{', '.join(map(str, UNPK_WIDTHS[lm.width]))})")
    return d


@insn("bn.unpk")
def bn_unpk(s, o):
    lm = s.lanes
    d = _field_width(s, o)
    x = s.wdr.read(o["wrs2"]) << 256 | s.wdr.read(o["wrs1"])
    stream = x >> (8 * o["off"])
    s.wdr.write(o["wrd"], lm.join([(stream >> (d * i)) & ((1 << d) - 1)
                                   for i in range(lm.lanes)]))


@insn("bn.pk")
def bn_pk(s, o):
    lm = s.lanes
    d = _field_width(s, o)
    packed = sum((lane & ((1 << d) - 1)) << (d * i)
                 for i, lane in enumerate(lm.split(s.wdr.read(o["wrs1"]))))
    x = packed << 256 | s.wdr.read(o["wrs2"])
    s.wdr.write(o["wrd"], (x >> (8 * o["off"])) & ((1 << 256) - 1))


@insn("bn.bcastl")
def bn_bcastl(s, o):
    lm = s.lanes
    if o["lane"] >= lm.lanes:
        raise AccError("ILLEGAL_INSN", f"lane {o['lane']} >= lane count {lm.lanes}")
    x = lm.split(s.wdr.read(o["wrs1"]))[o["lane"]]
    s.wdr.write(o["wrd"], lm.join([x] * lm.lanes))


# ------------------------------------------------------------------------------ butterflies
def _ct(lm, x, y, z):
    p = _mont(lm, z, y)
    return _addvm(lm, x, p) & lm.mask, _subvm(lm, x, p) & lm.mask


def _gs(lm, x, y, z):
    return _addvm(lm, x, y) & lm.mask, _mont(lm, z, _subvm(lm, x, y) & lm.mask)


def _bfly(kernel):
    def run(s, o):
        lm = s.lanes
        names = s.insn.operands["dist"].values
        if o["dist"] >= len(names):
            raise AccError("ILLEGAL_INSN", f"dist field {o['dist']} is not one of {', '.join(names)}")
        dist = names[o["dist"]]
        tidx = o["tidx"]
        if dist == "l8" and lm.lanes == 8:
            raise AccError("ILLEGAL_INSN", "dist l8 in VMODE 1")
        a, b = lm.split(s.wdr.read(o["wa"])), lm.split(s.wdr.read(o["wb"]))
        t = lm.split(s.wdr.read(o["wt"]))
        if dist == "r":
            if tidx >= lm.lanes:
                raise AccError("ILLEGAL_INSN", f"tidx {tidx} >= lane count {lm.lanes}")
            for i in range(lm.lanes):
                a[i], b[i] = kernel(lm, a[i], b[i], t[tidx])
        else:
            n = int(dist[1:])
            g = 0
            for reg in (a, b):                      # groups numbered wa first, then wb
                for blk in range(0, lm.lanes, 2 * n):
                    z = t[(tidx + g) % lm.lanes]
                    g += 1
                    for i in range(blk, blk + n):
                        reg[i], reg[i + n] = kernel(lm, reg[i], reg[i + n], z)
        s.wdr.write(o["wa"], lm.join(a))
        s.wdr.write(o["wb"], lm.join(b))
    return run


EXEC["bn.bfly.ct"] = _bfly(_ct)
EXEC["bn.bfly.gs"] = _bfly(_gs)


# ------------------------------------------------------------------------------ not modelled yet
def _unmodelled(s, o):
    raise Unmodelled(f"{s.insn.mnemonic} ({s.insn.group} group) is not yet modelled in the ISS")


EXEC.update(KMAC_EXEC)
UNMODELLED_GROUPS = ()


def executor(insn):
    """The function for an isa.yml instruction; groups not modelled yet get a halting stub."""
    if insn.group in UNMODELLED_GROUPS:
        return _unmodelled
    if insn.mnemonic not in EXEC:
        raise KeyError(f"ISS has no model of {insn.mnemonic} (add it to ip/acc/iss/insn.py)")
    return EXEC[insn.mnemonic]


# WDR operands an instruction reads (for the result-latency stall); by operand name:
# wrd is written only, except where the doc reads it (bn.sel mask, bn.ins partial write).
WRD_READ = ("bn.sel", "bn.ins")


def wdr_reads(insn, ops) -> set:
    out = set()
    for name, op in insn.operands.items():
        if op.kind != "wdr":
            continue
        if name == "wrd" and insn.mnemonic not in WRD_READ:
            continue
        out.add(ops[name])
    return out


def wdr_writes(insn, ops) -> set:
    names = ("wa", "wb") if insn.group == "ntt" and "wa" in insn.operands else ("wrd",)
    return {ops[n] for n in names if n in insn.operands and insn.operands[n].kind == "wdr"}


# GPR operands by name: grs* are read, grd is written (x0 never creates a hazard).
def gpr_reads(insn, ops) -> set:
    return {ops[n] for n, op in insn.operands.items()
            if op.kind == "gpr" and n.startswith("grs") and ops[n] != 0}


def gpr_writes(insn, ops) -> set:
    return {ops["grd"]} - {0} if "grd" in insn.operands and insn.operands["grd"].kind == "gpr" else set()


def operand_reads(insn, ops) -> set:
    """Registers read, as ('w', n) / ('g', n), for the result-latency stall."""
    return {("w", n) for n in wdr_reads(insn, ops)} | {("g", n) for n in gpr_reads(insn, ops)}
