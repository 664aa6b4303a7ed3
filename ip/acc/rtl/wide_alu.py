# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""Wide (256-bit) datapath of the ACC coprocessor: vector arithmetic, permutations, butterflies.

Bit-exact with the ISS (ip/acc/iss/insn.py) for any lane values, including values >= q.
Lanes: VMODE 0 = 16 x 16 bits (q = 3329), VMODE 1 = 8 x 32 bits (q = 8380417); lane i of a
word is bits [w*i + w-1 : w*i].

Timing: every op is combinational (`res`, `acc_next`, `popcnt`, `illegal`) except the
multiplier ops and the butterflies (MUL_UNIT_OPS, isa.yml `unit: mul`, `latency: 3`). Their
datapath is built for half the lanes (four 32x32 partial-product arrays, 8 / 4 Montgomery
reducers) and takes the two halves one cycle apart, as a two-stage pipeline:
  issue cycle: operand routing, GS subtraction, partial-product reduction of words 0..3 of
    the routed operands (a carry-save tree of 3:2 compressors over whole rows, no carry
    propagation) into the stage register; words 4..7 go into hx_r / hy_r;
  next cycle: the arrays take words 4..7 from hx_r / hy_r; the second stage (Montgomery
    reduction straight from the carry-save stage register, CT add/subtract, and the product
    adders for mulv.lo / .hi) finishes the low half into out0_lo_r / out1_lo_r. The CT
    add/subtract is built once per Montgomery candidate (v, v - q, v - 2q) and selected
    after it, so its adders do not wait for the candidates' signs;
  the cycle after (`res2_valid`): the second stage finishes the high half; with the low
    half it is un-routed into `res2_a` / `res2_b`, which the core writes at the end of it.
The core issues no other multiplier op in the cycle after an issue (isa.yml units: mul,
interval 2); any other instruction may.

Area notes:
  * Each 32x32 partial-product array serves both modes: in VMODE 0 the rows of the low
    multiplier half see only the low 16 bits of x and the rows of the high half only the
    high 16 bits, so the array holds exactly the two 16-bit lanes' products (lo*lo at bits
    0..31, hi*hi at 32..63) and the cross products are never formed.
  * Lane-wise add/sub (addv, subv, addvm, subvm, ltv, the CT/GS +q/-q) use one 256-bit adder
    per function built of 16-bit chunks whose carry chains into the next chunk only inside a
    32-bit lane in VMODE 1 (`_vadd`), instead of separate 16- and 32-bit lane adders.
  * The Montgomery constants q' and q are sparse: constant multiplications are written as
    carry-save rows in canonical signed digit form (`_cmul_rows`), 3 or 4 terms each,
    so a reduction costs one carry-propagate adder (m stays in carry-save form, see
    `_mont_reduce`); it takes the product in carry-save form straight from the stage
    register (the product adder only feeds mulv.lo/.hi).
  * The butterfly twiddles and bn.bcastl share one 256-bit lane rotator.
  * bn.unpk (`_unpack`): a byte funnel and a spread. The funnel shifts {b, a} right by
    8 * off in five levels of 2:1 muxes (128, 64, 32, 16, 8 bits, largest first), each
    level only as wide as the bits still reachable: 312 + 248 + 216 + 200 + 192 = 1 168 bit
    muxes, giving the 192 stream bits any legal d reads (16 x 12 = 192, 8 x 20 = 160). The
    spread is a one-hot AND-OR per result bit over the (VMODE, d) pairs: lane i bit j of
    d takes stream bit i*d + j for j < d, 16 x (1+4+5+10+11+12) + 8 x (3+4+6+10+13+18+20)
    = 688 + 592 = 1 280 inputs in all, at most 13 on one result bit (bit 0 of a lane). The
    legal set is a 4-bit compare on the d code (UNPK_WIDTHS, UNPK_LEGAL).
  * bn.pk (`_pack`), the inverse: the gather of the lanes' low d bits into P is the same
    one-hot AND-OR (1 280 inputs, P at most 192 bits), then a funnel shifts {P, b} right by
    8 * off, 376 + 312 + 280 + 264 + 256 = 1 488 bit muxes for the 256 result bits.
"""
from amaranth.hdl import Cat, Const, Module, Mux, Signal
from amaranth.lib import enum, wiring
from amaranth.lib.wiring import In, Out

__all__ = ["WideOp", "WideAlu", "WIDE_OP_OF_MNEMONIC", "MUL_UNIT_OPS", "uses_mul_unit",
           "DIST_NAMES", "MODES", "UNPK_WIDTHS", "UNPK_LEGAL"]

# (lanes, lane width, q) per VMODE
MODES = ((16, 16, 3329), (8, 32, 8380417))
DIST_NAMES = ("r", "l1", "l2", "l4", "l8")     # isa.yml order of the `dist` enum
UNPK_WIDTHS = (1, 3, 4, 5, 6, 10, 11, 12, 13, 18, 20)   # isa.yml order of bn.unpk's `d` enum
UNPK_LEGAL = ((1, 4, 5, 10, 11, 12), (3, 4, 6, 10, 13, 18, 20))   # the d legal per VMODE


class WideOp(enum.Enum, shape=5):
    ADDVM = 0
    SUBVM = 1
    ADDV = 2
    SUBV = 3
    MULVM = 4
    MULV_LO = 5
    MULV_HI = 6
    LTV = 7
    AND = 8
    OR = 9
    XOR = 10
    SEL = 11
    OR_ACC = 12
    SHLV = 13
    SHRV = 14
    SRAV = 15
    TRN1 = 16
    TRN2 = 17
    UNZIP_LO = 18
    UNZIP_HI = 19
    BCASTL = 20
    BCAST = 21
    BFLY_CT = 22
    BFLY_GS = 23
    UNPK = 24
    PK = 25


WIDE_OP_OF_MNEMONIC = {
    "bn.addvm": WideOp.ADDVM, "bn.subvm": WideOp.SUBVM,
    "bn.addv": WideOp.ADDV, "bn.subv": WideOp.SUBV,
    "bn.mulvm": WideOp.MULVM, "bn.mulv.lo": WideOp.MULV_LO, "bn.mulv.hi": WideOp.MULV_HI,
    "bn.ltv": WideOp.LTV,
    "bn.and": WideOp.AND, "bn.or": WideOp.OR, "bn.xor": WideOp.XOR, "bn.sel": WideOp.SEL,
    "bn.or.acc": WideOp.OR_ACC,
    "bn.shlv": WideOp.SHLV, "bn.shrv": WideOp.SHRV, "bn.srav": WideOp.SRAV,
    "bn.trn1": WideOp.TRN1, "bn.trn2": WideOp.TRN2,
    "bn.unzip.lo": WideOp.UNZIP_LO, "bn.unzip.hi": WideOp.UNZIP_HI,
    "bn.bcastl": WideOp.BCASTL, "bn.bcast": WideOp.BCAST,
    "bn.bfly.ct": WideOp.BFLY_CT, "bn.bfly.gs": WideOp.BFLY_GS,
    "bn.unpk": WideOp.UNPK, "bn.pk": WideOp.PK,
}

# The ops of the multiplier unit (isa.yml `unit: mul`): results in res2_a / res2_b two
# cycles after issue.
MUL_UNIT_OPS = frozenset({WideOp.MULVM, WideOp.MULV_LO, WideOp.MULV_HI,
                          WideOp.BFLY_CT, WideOp.BFLY_GS})


def uses_mul_unit(op) -> bool:
    return WideOp(op) in MUL_UNIT_OPS


# ------------------------------------------------------------------------------ helpers
def _sig(m, expr, name):
    """expr through a named comb Signal: keeps the expression trees small (Amaranth walks
    shared sub-expressions once per use) and the netlist readable."""
    sig = Signal(len(expr), name=name)
    m.d.comb += sig.eq(expr)
    return sig


def _lanes(v, w):
    return [v[i * w:(i + 1) * w] for i in range(len(v) // w)]


def _csd(c):
    """Canonical signed digits of c > 0: [(shift, +1 | -1)], the fewest add/sub terms."""
    out, s = [], 0
    while c:
        if c & 1:
            d = 2 - (c & 3)          # +1 if c = 1 mod 4, -1 if c = 3 mod 4
            out.append((s, d))
            c -= d
        c >>= 1
        s += 1
    return out


def _csa_reduce(m, rows, width, name):
    """Rows to two (sum, carry) whose sum is the rows' sum mod 2^width: 3:2 compressors over
    whole rows (Wallace), so the depth is ~log1.5(len(rows)) full adders and no carry
    propagates."""
    level = 0
    while len(rows) > 2:
        nxt = []
        for i in range(0, len(rows) - 2, 3):
            a, b, c = rows[i:i + 3]
            nxt.append(_sig(m, a ^ b ^ c, f"{name}_l{level}s{i // 3}"))
            nxt.append(_sig(m, Cat(Const(0, 1), (a & b) | (a & c) | (b & c))[:width],
                            f"{name}_l{level}c{i // 3}"))
        nxt += rows[len(rows) - len(rows) % 3:]
        rows, level = nxt, level + 1
    return rows


def _cmul_rows(x, c, width):
    """Rows whose sum is (x * c) mod 2^width for a constant c: one row per canonical signed
    digit, a subtracted term as its complement (-v = ~v + 1); returns (rows, the +1s)."""
    rows, ones = [], 0
    for s, d in _csd(c):
        v = Cat(Const(0, s), x, Const(0, width))[:width] if s else Cat(x, Const(0, width))[:width]
        rows.append(v if d > 0 else ~v)
        ones += d < 0
    return rows, ones


def _csa_sum(m, rows, const, width, name):
    """sum(rows) + const mod 2^width: a carry-save tree, then one carry-propagate adder."""
    rows = list(rows) + ([Const(const % (1 << width), width)] if const % (1 << width) else [])
    a, b = _csa_reduce(m, rows, width, name) if len(rows) > 2 else (rows + [Const(0, width)])[:2]
    return _sig(m, (a + b)[:width], f"{name}_sum")


def _mont_reduce(m, ts, tc, w, q, name, en=None):
    """ISS _mont of the product t = ts + tc, given in carry-save form (the stage register):
    m = t*q' mod R; u = (t + m*q) / R; d = u - q if u >= q. No carry-propagate adder before
    the last one: t mod R enters the q' rows as two operands and m stays in carry-save form
    (ms, mc), so m' = ms + mc = m + k*R with k = 0 or 1 (the carry out of bit w, computed
    beside the rest: it is needed only by the final select). t + m'*q = R*(u + k*q), so the
    tree of the ms*q, mc*q, ts and tc rows gives v = u + k*q, and three adders side by side
    give v, v - q and v - 2q; their signs and k select d (k = 0: v >= q ? v - q : v; k = 1,
    v = u + q: v - q >= q ? v - 2q : v - q), exactly the ISS's value for any lane inputs.
    ts + tc = t exactly (no carry is ever dropped: see the stage register in WideAlu), and
    the low w bits of the sums are 0. Returns d as one-hot (select, value) terms, each
    select ANDed with `en`."""
    r = 1 << w
    width = 2 * w + 2                # t + m'*q < 2^(2w) + 2^(w+1)*q, and a sign bit below 0
    qinv = (-pow(q, -1, r)) % r
    rs, ones_s = _cmul_rows(ts[:w], qinv, w)
    rc, ones_c = _cmul_rows(tc[:w], qinv, w)
    const_m = (ones_s + ones_c) % r
    ms, mc = _csa_reduce(m, rs + rc + ([Const(const_m, w)] if const_m else []), w, f"{name}_m")
    k = _sig(m, (ms + mc)[w], f"{name}_k")
    rows_s, ones_a = _cmul_rows(ms, q, width)
    rows_c, ones_b = _cmul_rows(mc, q, width)
    a, b = _csa_reduce(m, rows_s + rows_c + [Cat(ts, Const(0, 2)), Cat(tc, Const(0, 2))],
                       width, f"{name}_t")
    ones = ones_a + ones_b
    v = _csa_sum(m, [a, b], ones, width, f"{name}_v")
    v_q = _csa_sum(m, [a, b], ones - (q << w), width, f"{name}_vq")
    v_2q = _csa_sum(m, [a, b], ones - (2 * q << w), width, f"{name}_v2q")
    # k = 0: v_q < 0 ? v : v_q; k = 1: v_2q < 0 ? v_q : v_2q. Returned as three one-hot
    # (select, value) terms, for the caller to merge with its mode select into one AND-OR
    # (the signs arrive with the sums: two levels of muxes after them cost ~0.6 ns).
    n_q, n_2q = v_q[width - 1], v_2q[width - 1]
    en = Const(1) if en is None else en
    sel_v = _sig(m, en & ~k & n_q, f"{name}_sv")
    sel_vq = _sig(m, en & Mux(k, n_2q, ~n_q), f"{name}_svq")
    sel_v2q = _sig(m, en & k & ~n_2q, f"{name}_sv2q")
    return [(sel_v, v[w:2 * w]), (sel_vq, v_q[w:2 * w]), (sel_v2q, v_2q[w:2 * w])]


def _and_or(terms, width, wide_sel=False):
    """OR of the selected (one-hot) terms as a balanced tree (the flow keeps the structure).
    wide_sel: each select is already `width` bits (one per result bit)."""
    vals = [(sel if wide_sel else sel.replicate(width)) & v for sel, v in terms]
    while len(vals) > 1:
        vals = [vals[i] | vals[i + 1] if i + 1 < len(vals) else vals[i]
                for i in range(0, len(vals), 2)]
    return vals[0]


def _vadd(m, x, y, cin, vmode, name):
    """Lane-wise x + y + cin (256 or 128 bits). 16-bit chunks; in VMODE 1 the even chunk's
    carry goes into the odd chunk (32-bit lanes). Returns (sum, [lane carry-out per chunk])."""
    sums, couts = [], []
    n = len(x) // 16
    for c in range(n):
        ci = cin if c % 2 == 0 else Mux(vmode, couts[c - 1], cin)
        s = _sig(m, x[16 * c:16 * c + 16] + y[16 * c:16 * c + 16] + ci, f"{name}{c}")
        sums.append(s[:16])
        couts.append(s[16])
    lane_cout = [Mux(vmode, couts[c | 1], couts[c]) for c in range(n)]
    return Cat(*sums), lane_cout


def _chunk_mux(flags, if1, if0):
    """Per 16-bit chunk c: if1 chunk where flags[c], else if0 chunk."""
    return Cat(*(Mux(f, p, n) for f, p, n in zip(flags, _lanes(if1, 16), _lanes(if0, 16))))


def _qvec(vmode, width=256):
    q0 = sum(MODES[0][2] << (16 * i) for i in range(width // 16))
    q1 = sum(MODES[1][2] << (32 * i) for i in range(width // 32))
    return Mux(vmode, Const(q1, width), Const(q0, width))


def _vadd3(m, x, y, z, cin, vmode, name):
    """Lane-wise x + y + z + cin: one row of 3:2 compressors (carries stay inside a lane),
    then _vadd. Returns (sum mod 2^w, [per chunk: the lane's total >= 2^w]); the total is
    < 3 * 2^w, so that flag is the compressor's lane-top carry or the adder's carry out."""
    sm = _sig(m, x ^ y ^ z, f"{name}_s")
    mj = _sig(m, (x & y) | (x & z) | (y & z), f"{name}_c")
    sh = []
    n = len(x) // 16
    for c in range(n):
        into = mj[16 * c - 1] & vmode if c % 2 else Const(0, 1)   # from the chunk below
        sh.append(Cat(into, mj[16 * c:16 * c + 15]))
    ctop = [Mux(vmode, mj[16 * (c | 1) + 15], mj[16 * c + 15]) for c in range(n)]
    total, cout = _vadd(m, sm, Cat(*sh), cin, vmode, name)
    return total, [a | b for a, b in zip(ctop, cout)]


def _modarith(m, x, y, vmode, name):
    """Lane-wise (x + y, x - y, addvm, subvm, x >= y flags) exactly as the ISS
    (_addvm / _subvm truncated to the lane width). The +-q corrections are computed beside
    the plain sum / difference (three-operand adds), not after them, so addvm / subvm cost
    one carry-propagate adder in depth instead of two."""
    q = _qvec(vmode, len(x))
    s, s_c = _vadd(m, x, y, 0, vmode, f"{name}_add")
    d, d_nb = _vadd(m, x, ~y, 1, vmode, f"{name}_sub")     # carry out = no borrow = x >= y
    # x + y - q = x + y + ~q + 1; its lane flag: x + y >= q
    s_mq, s_ge_q = _vadd3(m, x, y, ~q, 1, vmode, f"{name}_addq")
    addvm = _sig(m, _chunk_mux(s_ge_q, s_mq, s), f"{name}_addvm")
    d_pq, _ = _vadd3(m, x, ~y, q, 1, vmode, f"{name}_subq")    # x - y + q
    subvm = _sig(m, _chunk_mux(d_nb, d, d_pq), f"{name}_subvm")
    return s, d, addvm, subvm, d_nb, d_pq


def _rev_lanes(v, w):
    return Cat(*(lane[::-1] for lane in _lanes(v, w)))


def _shift_mode(m, x, amt, left, arith, w):
    """Per w-bit lane: x << amt (left), else x >> amt (arith: sign fill). Left shifts are
    right shifts of the bit-reversed lane, so each lane has one shifter."""
    amt = Mux(amt >= w, w, amt) if w < 32 else amt     # any amt >= w: all fill
    src = _sig(m, Mux(left, _rev_lanes(x, w), x), f"shift{w}_in")
    out = []
    for lane in _lanes(src, w):
        fill = (arith & ~left & lane[w - 1]).replicate(w)
        out.append((Cat(lane, fill) >> amt)[:w])
    r = _sig(m, Cat(*out), f"shift{w}_out")
    return Mux(left, _rev_lanes(r, w), r)


def _bfly_pairs(lanes, dist):
    """Butterfly j -> (x source, y source, zeta group) as (reg, lane) with reg 0 = wa, 1 = wb;
    same order as the ISS _bfly (groups numbered wa first, then wb)."""
    if dist == "r":
        return [((0, j), (1, j), 0) for j in range(lanes)]
    n = int(dist[1:])
    out = []
    for reg in (0, 1):
        for p in range(lanes // 2):
            i = (p // n) * 2 * n + p % n
            out.append(((reg, i), (reg, i + n), reg * (lanes // (2 * n)) + p // n))
    return out


def _legal_dists(vmode):
    """(enum index, name) of the dists legal in a mode; r last: it is the Switch default."""
    lanes = MODES[vmode][0]
    legal = [(k, d) for k, d in enumerate(DIST_NAMES) if d == "r" or 2 * int(d[1:]) <= lanes]
    return legal[1:] + legal[:1]


def _unpack(m, a, b, off, code, vmode):
    """bn.unpk: lane i = bits [i*d, i*d + d) of {b, a} >> 8 off (d = UNPK_WIDTHS[code]),
    and whether code names a d legal in this VMODE (see the module docstring for the
    cost)."""
    need = max(lanes * d for (lanes, _, _), ds in zip(MODES, UNPK_LEGAL) for d in ds)
    v = Cat(a, b)
    for bit, shift in ((4, 128), (3, 64), (2, 32), (1, 16), (0, 8)):
        width = need + shift - 8            # the bits the smaller shifts can still reach
        v = _sig(m, Mux(off[bit], v[shift:shift + width], v[:width]), f"unpk_f{bit}")
    terms, legal = [], []
    for mode, ((lanes, w, _), ds) in enumerate(zip(MODES, UNPK_LEGAL)):
        for d in ds:
            sel = _sig(m, (code == UNPK_WIDTHS.index(d)) & (vmode == mode), f"unpk_{mode}_{d}")
            terms.append((sel, Cat(*(Cat(v[i * d:i * d + d], Const(0, w - d))
                                     for i in range(lanes)))))
            legal.append(sel)
    return _sig(m, _and_or(terms, 256), "unpk"), Cat(*legal).any()


def _pack(m, a, b, off, code, vmode):
    """bn.pk: bytes off .. off + 31 of {P, b}, P the low d bits of a's lanes packed (lane i at
    bits [i*d, i*d + d)); the inverse of _unpack (cost in the module docstring)."""
    terms = []
    for mode, ((lanes, w, _), ds) in enumerate(zip(MODES, UNPK_LEGAL)):
        for d in ds:
            sel = (code == UNPK_WIDTHS.index(d)) & (vmode == mode)
            terms.append((sel, Cat(*(lane[:d] for lane in _lanes(a, w)))))
    need = max(len(v) for _, v in terms)
    v = Cat(b, _sig(m, _and_or([(s, Cat(t, Const(0, need - len(t)))) for s, t in terms], need),
                    "pk_bits"))
    for bit, shift in ((4, 128), (3, 64), (2, 32), (1, 16), (0, 8)):
        width = 256 + shift - 8             # the bits the smaller shifts can still reach
        v = _sig(m, Mux(off[bit], v[shift:shift + width], v[:width]), f"pk_f{bit}")
    return v


# ------------------------------------------------------------------------------ component
class WideAlu(wiring.Component):
    op: In(WideOp)
    vmode: In(1)
    a: In(256)
    b: In(256)
    t: In(256)
    imm: In(5)
    dist: In(3)             # a butterfly's dist; 0 (r) for every other op (the core's
                            # decoder gives 0 for instructions without the field)
    width: In(4)            # bn.unpk's d field (index into UNPK_WIDTHS)
    gpr: In(32)
    acc: In(256)
    issue: In(1)

    res: Out(256)
    acc_next: Out(256)
    popcnt: Out(32)
    illegal: Out(1)
    res2_a: Out(256)
    res2_b: Out(256)
    res2_valid: Out(1)

    def elaborate(self, platform):
        m = Module()
        op, vmode, a, b = self.op, self.vmode, self.a, self.b
        is_ct, is_gs = op == WideOp.BFLY_CT, op == WideOp.BFLY_GS
        is_bfly = is_ct | is_gs
        lat2 = 0
        for o in sorted(MUL_UNIT_OPS, key=lambda op: op.value):
            lat2 = lat2 | (op == o)

        unpk, unpk_legal = _unpack(m, a, b, self.imm, self.width, vmode)
        pk = _pack(m, a, b, self.imm, self.width, vmode)

        # ---- illegal combinations (the ISS raises ILLEGAL_INSN)
        dist = self.dist
        with m.Switch(op):
            with m.Case(WideOp.SHLV):
                m.d.comb += self.illegal.eq(~vmode & self.imm[4])        # shamt >= 16
            with m.Case(WideOp.BCASTL):
                m.d.comb += self.illegal.eq(Mux(vmode, self.imm[3:] != 0, self.imm[4]))
            with m.Case(WideOp.BFLY_CT, WideOp.BFLY_GS):
                m.d.comb += self.illegal.eq(
                    (dist >= len(DIST_NAMES))                   # no such enum value
                    | ((dist == 4) & vmode)                      # l8 in VMODE 1
                    | ((dist == 0) & vmode & self.imm[3]))       # dist r, tidx >= 8
            with m.Case(WideOp.UNPK, WideOp.PK):
                m.d.comb += self.illegal.eq(~unpk_legal)

        # ---- lane rotator: twiddles rot[g] = t[(tidx + g) mod L]; bcastl lane = rot[0]
        amt = self.imm
        rot = Signal(256)
        rot_k = Mux(vmode, Cat(Const(0, 1), amt[:3]), amt[:4])      # in 16-bit chunks
        v = Mux(op == WideOp.BCASTL, a, self.t)
        for s in range(4):
            v = _sig(m, Mux(rot_k[s], v.rotate_right(16 << s), v), f"rot{s}")
        m.d.comb += rot.eq(v)

        # ---- butterfly operand routing: lane j of X / Y / Z = x / y / zeta of butterfly j.
        # Non-butterfly ops come with dist 0 (r: see the port), so X = a and Y = b for them;
        # the routing selects decode only the dist flops (not the op: through it they came
        # ~2.5 ns late to the 256-bit routing and the GS subtraction behind it)
        xyz = {}
        for mode, (lanes, w, _) in enumerate(MODES):
            regs = (_lanes(a, w), _lanes(b, w))
            rz = _lanes(rot, w)
            x, y, z = Signal(256, name=f"x{mode}"), Signal(256, name=f"y{mode}"), \
                Signal(256, name=f"z{mode}")
            with m.Switch(dist):
                for k, d in _legal_dists(mode):
                    pairs = _bfly_pairs(lanes, d)
                    with (m.Case(k) if k else m.Default()):
                        m.d.comb += [
                            x.eq(Cat(*(regs[r][i] for (r, i), _, _ in pairs))),
                            y.eq(Cat(*(regs[r][i] for _, (r, i), _ in pairs))),
                            z.eq(Cat(*(rz[g] for _, _, g in pairs))),
                        ]
            xyz[mode] = (x, y, z)
        X = _sig(m, Mux(vmode, xyz[1][0], xyz[0][0]), "bx")
        Y = _sig(m, Mux(vmode, xyz[1][1], xyz[0][1]), "by")
        Z = _sig(m, Mux(vmode, xyz[1][2], xyz[0][2]), "bz")

        # ---- lane-wise add/sub family (also the GS first step)
        s_xy, d_xy, addvm_xy, subvm_xy, ge_xy, dpq_xy = _modarith(m, X, Y, vmode, "xy")

        # ---- multipliers: CT z*y, GS z*(x -q y), mul ops a*b. Half the lanes per cycle:
        # words 0..3 of the routed operands (butterflies 0..L/2-1) in the issue cycle, words
        # 4..7 from hx_r / hy_r in the next one (the core issues no other multiplier op then).
        # Operand isolation: the arrays see zeros unless the op is a multiplier op, so that
        # the other instructions' operands do not toggle them (power) and the stage registers
        # below, which load every cycle, never hold a product of two unrelated instructions'
        # operands (a masked program's shares would meet there: docs/side_channels.md).
        mul_x = _sig(m, Mux(is_gs, subvm_xy, Mux(is_ct, Y, X)), "mul_x")   # high half: hx_r
        mul_y = _sig(m, Mux(is_bfly, Z, Y) & lat2.replicate(256), "mul_y")
        hx_r = Signal(128, reset_less=True)
        hy_r = Signal(128, reset_less=True)
        hi_phase = Signal()                 # the cycle after an issue: the high half
        st2_hi = Signal()                   # the cycle after that: res2 valid
        m.d.sync += [hi_phase.eq(self.issue & lat2), st2_hi.eq(hi_phase)]
        with m.If(self.issue & lat2):
            m.d.sync += [hx_r.eq(mul_x[128:]), hy_r.eq(mul_y[128:])]
        arr_y = _sig(m, Mux(hi_phase, hy_r, mul_y[:128]), "arr_y")
        psum, pcarry = [], []
        vmode_r = Signal()                  # the issued op's VMODE (also for its high half)

        def arr_x(masked):
            """The arrays' x operand, masked per 16-bit chunk (VMODE 0: the low multiplier
            rows see only the low 16 bits of a word, the high rows only the high 16): the
            GS difference's +q choice, the CT / mul operand, hx_r and the mask as one
            AND-OR per bit with selects from flops and the lane borrows, not a chain of
            muxes after the subtraction."""
            out = []
            for c in range(8):
                ch = slice(16 * c, 16 * c + 16)
                now = ~hi_phase & vmode if masked[c % 2] else ~hi_phase
                hi = hi_phase & vmode_r if masked[c % 2] else hi_phase
                gs = now & is_gs
                out.append(_and_or([(gs & ge_xy[c], d_xy[ch]), (gs & ~ge_xy[c], dpq_xy[ch]),
                                    (now & is_ct, Y[ch]), (now & lat2 & ~is_bfly, X[ch]),
                                    (hi, hx_r[ch])], 16))
            return Cat(*out)
        arr_x_lo = _sig(m, arr_x((False, True)), "mulx_lo")
        arr_x_hi = _sig(m, arr_x((True, False)), "mulx_hi")
        for k in range(4):
            y = arr_y[32 * k:32 * k + 32]
            x_lo, x_hi = arr_x_lo[32 * k:32 * k + 32], arr_x_hi[32 * k:32 * k + 32]
            rows = [Cat(Const(0, i), Mux(y[i], x_lo if i < 16 else x_hi, 0))[:64]
                    if i else Mux(y[0], x_lo, 0) for i in range(32)]
            rows = [_sig(m, Cat(r, Const(0, 64 - len(r))) if len(r) < 64 else r,
                         f"pp{k}_{i}") for i, r in enumerate(rows)]
            # block `acc` (pqsoc/cli/blocks.py, full_adders) selects these trees by the `csa` names
            # to map their full adders to fa_1 cells: keep the names
            s_k, c_k = _csa_reduce(m, rows, 64, f"csa{k}")
            psum.append(s_k)
            pcarry.append(c_k)
        # product = sum + carry: VMODE 0 lane i at [32i+31:32i], VMODE 1 lane k at [64k+63:64k]

        # ---- stage register: the products of the half in the arrays this cycle
        # Data registers need no reset (res2 is only meaningful after an issue): saves the
        # sync-reset gate of ~770 flops. The product's sum and carry add up to it exactly
        # (all rows are non-negative and the product < 2^64, so the tree never drops a
        # carry out of bit 63, nor, in VMODE 0, out of the low lane's bit 31).
        ps_r = Signal(256, reset_less=True)
        pc_r = Signal(256, reset_less=True)
        m.d.sync += [ps_r.eq(Cat(*psum)), pc_r.eq(Cat(*pcarry))]
        # CT: x; GS: x +q y (the new x). The low half is read by the second stage in the
        # cycle after the issue, then replaced by the high half for the cycle after that.
        s_r = Signal(256, reset_less=True)
        with m.If(self.issue & lat2):
            m.d.sync += s_r.eq(Mux(is_gs, addvm_xy, X))
        with m.Else():
            m.d.sync += s_r[:128].eq(s_r[128:])
        is_ct_r = Signal()
        # one-hot result selects, decided at issue so that the late data (the Montgomery
        # and CT sums) meets only AND-ORs in the second stage, not a chain of muxes
        sel_conds = {"mont": (op == WideOp.MULVM) | is_gs, "lo": op == WideOp.MULV_LO,
                     "hi": op == WideOp.MULV_HI}
        for mode in (0, 1):
            legal = _legal_dists(mode)
            named = [dist == k for k, _ in legal[:-1]]          # the last one is r / default
            for (k, d), hit in zip(legal, named + [~Cat(*named).any()]):
                sel_conds[f"bfly_{d}_{mode}"] = is_bfly & hit
        sel_r = {}
        for name, cond in sel_conds.items():
            mode = int(name[-1]) if name.startswith("bfly") else None
            for md in ((mode,) if mode is not None else (0, 1)):
                key = name if mode is not None else f"{name}_{md}"
                sel_r[key] = Signal(name=f"sel_{key}_r")
                with m.If(self.issue & lat2):
                    m.d.sync += sel_r[key].eq(cond & (vmode == md))
        mulop_r = Signal()                  # mulvm / mulv.lo / mulv.hi: res2_a = out1
        with m.If(self.issue & lat2):
            m.d.sync += [is_ct_r.eq(is_ct), mulop_r.eq(~is_bfly), vmode_r.eq(vmode)]

        # ---- second stage, on one half: Montgomery reduction, CT add/sub; product adders
        # for mulv.lo / .hi. out0 = new x of a butterfly, out1 = its new y or the mul result.
        p_r = Cat(*(_sig(m, (ps_r[64 * k:64 * k + 64] + pc_r[64 * k:64 * k + 64])[:64], f"prod{k}")
                    for k in range(4)))
        # the reducers' final selects and the mode select form one AND-OR per bit: the
        # three (select, value) terms of each lane in each mode, the selects gated by vmode_r
        mont_terms = []
        cand_sel = [[], [], []]         # per candidate j: its select per 16-bit chunk
        cand_val = [[], [], []]         # per candidate j: its 128-bit value per mode
        for md, (lanes, w, q) in enumerate(MODES):
            per_lane = [_mont_reduce(m, ps_r[2 * w * i:2 * w * i + 2 * w],
                                     pc_r[2 * w * i:2 * w * i + 2 * w], w, q,
                                     f"mont{w}_{i}", vmode_r if md else ~vmode_r)
                        for i in range(lanes // 2)]
            for j in range(3):          # lane selects spread over their lane's bits
                mont_terms.append((Cat(*(lt[j][0].replicate(w) for lt in per_lane)),
                                   Cat(*(lt[j][1] for lt in per_lane))))
                cand_sel[j].append([per_lane[c * 16 // w][j][0] for c in range(8)])
                cand_val[j].append(Cat(*(lt[j][1] for lt in per_lane)))
        mont = _sig(m, _and_or([(sel, val) for sel, val in mont_terms], 128, wide_sel=True),
                    "mont")
        lo_m = [Cat(*(p_r[32 * i:32 * i + 16] for i in range(8))),
                Cat(*(p_r[64 * k:64 * k + 32] for k in range(4)))]
        hi_m = [Cat(*(p_r[32 * i + 16:32 * i + 32] for i in range(8))),
                Cat(*(p_r[64 * k + 32:64 * k + 64] for k in range(4)))]
        s_h = s_r[:128]
        # CT: x + d and x - d mod q (as _modarith) for each of the reducers' three
        # candidates d (v, v - q, v - 2q) side by side, so that the adders start from the
        # candidates' sums and not after the select on their signs (~1.5 ns); the select
        # (one-hot per lane), the +-q choice and is_ct_r form one AND-OR behind them.
        q_h = _qvec(vmode_r, 128)
        t0, t1 = [((~is_ct_r).replicate(128), s_h)], []
        for j in range(3):
            d = _sig(m, Mux(vmode_r, cand_val[j][1], cand_val[j][0]), f"ct{j}_d")
            ct_s, _ = _vadd(m, s_h, d, 0, vmode_r, f"ct{j}_add")
            ct_d, ct_nb = _vadd(m, s_h, ~d, 1, vmode_r, f"ct{j}_sub")      # no borrow: x >= d
            ct_smq, ct_ge = _vadd3(m, s_h, d, ~q_h, 1, vmode_r, f"ct{j}_addq")   # x + d - q
            ct_dpq, _ = _vadd3(m, s_h, ~d, q_h, 1, vmode_r, f"ct{j}_subq")      # x - d + q
            ge, lt, nb, br = [], [], [], []
            for c in range(8):
                cs = _sig(m, is_ct_r & (cand_sel[j][0][c] | cand_sel[j][1][c]), f"ct{j}_sel{c}")
                ge.append((cs & ct_ge[c]).replicate(16))
                lt.append((cs & ~ct_ge[c]).replicate(16))
                nb.append((cs & ct_nb[c]).replicate(16))
                br.append((cs & ~ct_nb[c]).replicate(16))
            t0 += [(Cat(*ge), ct_smq), (Cat(*lt), ct_s)]
            t1 += [(Cat(*nb), ct_d), (Cat(*br), ct_dpq)]
        out0 = _sig(m, _and_or(t0, 128, wide_sel=True), "out0")
        terms1 = t1 + [((sel_r["mont_0"] | sel_r["mont_1"]).replicate(128), mont)]
        for md in (0, 1):
            terms1 += [(sel_r[f"lo_{md}"].replicate(128), lo_m[md]),
                       (sel_r[f"hi_{md}"].replicate(128), hi_m[md])]
        out1 = _sig(m, _and_or(terms1, 128, wide_sel=True), "out1")
        # the low half's results wait a cycle for the high half's
        out0_lo_r = Signal(128, reset_less=True)
        out1_lo_r = Signal(128, reset_less=True)
        with m.If(hi_phase):
            m.d.sync += [out0_lo_r.eq(out0), out1_lo_r.eq(out1)]
        out0_w = Cat(out0_lo_r, out0)
        out1_w = Cat(out1_lo_r, out1)

        # ---- un-routing (valid in the cycle after the high half: st2_hi)
        # Per result bit, the (select, source bit) pairs; the selects of one source bit are
        # OR-ed (flops only), so each bit is an AND-OR over its distinct sources (3 or 4)
        # instead of over all 10 routes.
        srcs = ({b: {(1, b): [mulop_r]} for b in range(256)}, {b: {} for b in range(256)})
        for md, (lanes, w, _) in enumerate(MODES):
            for _, d in _legal_dists(md):
                sel = sel_r[f"bfly_{d}_{md}"]
                for j, (xs, ys, _) in enumerate(_bfly_pairs(lanes, d)):
                    for o, (reg, i) in ((0, xs), (1, ys)):
                        for bit in range(w):
                            srcs[reg][w * i + bit].setdefault((o, w * j + bit), []).append(sel)
        out_w = (out0_w, out1_w)
        or_sel = {}

        def sel_of(sels):
            key = tuple(sorted(s.name for s in sels))
            if key not in or_sel:
                or_sel[key] = _sig(m, Cat(*sels).any(), "rsel_" + "_".join(key))
            return or_sel[key]
        res2 = [Cat(*(_and_or([(sel_of(sels), out_w[o][p]) for (o, p), sels in srcs[r][b].items()], 1)
                      for b in range(256))) for r in (0, 1)]
        m.d.comb += [self.res2_a.eq(res2[0]), self.res2_b.eq(res2[1]),
                     self.res2_valid.eq(st2_hi)]

        # ---- or.acc
        acc_next = _sig(m, self.acc | (a ^ b), "acc_or")
        nz = [c != 0 for c in _lanes(acc_next, 16)]
        cnt0 = sum(nz)
        cnt1 = sum(nz[2 * k] | nz[2 * k + 1] for k in range(8))
        m.d.comb += [self.acc_next.eq(acc_next), self.popcnt.eq(Mux(vmode, cnt1, cnt0))]

        # ---- one-cycle results
        def per_mode(fn):
            """fn(lanes, w) -> 256-bit value for that mode; selected by vmode."""
            return Mux(vmode, fn(*MODES[1][:2]), fn(*MODES[0][:2]))

        def perm(fn):
            return per_mode(lambda lanes, w: Cat(*fn(_lanes(a, w), _lanes(b, w))))

        # one shifter per lane serves shlv / shrv / srav
        shifted = per_mode(lambda lanes, w: _shift_mode(m, a, self.imm, op == WideOp.SHLV,
                                                        op == WideOp.SRAV, w))

        def interleave(la, lb, k):
            return [v for i in range(0, len(la), 2) for v in (la[i + k], lb[i + k])]

        lt_mask = Cat(*((~f).replicate(16) for f in ge_xy))
        with m.Switch(op):
            for o, val in (
                    (WideOp.ADDVM, addvm_xy), (WideOp.SUBVM, subvm_xy),
                    (WideOp.ADDV, s_xy), (WideOp.SUBV, d_xy), (WideOp.LTV, lt_mask),
                    (WideOp.AND, a & b), (WideOp.OR, a | b), (WideOp.XOR, a ^ b),
                    (WideOp.SEL, (self.t & a) | (~self.t & b)),
                    (WideOp.OR_ACC, acc_next),
                    (WideOp.SHLV, shifted), (WideOp.SHRV, shifted), (WideOp.SRAV, shifted),
                    (WideOp.TRN1, perm(lambda la, lb: interleave(la, lb, 0))),
                    (WideOp.TRN2, perm(lambda la, lb: interleave(la, lb, 1))),
                    (WideOp.UNZIP_LO, perm(lambda la, lb: la[0::2] + lb[0::2])),
                    (WideOp.UNZIP_HI, perm(lambda la, lb: la[1::2] + lb[1::2])),
                    (WideOp.BCASTL, Mux(vmode, rot[:32].replicate(8), rot[:16].replicate(16))),
                    (WideOp.BCAST, Mux(vmode, self.gpr.replicate(8),
                                       self.gpr[:16].replicate(16))),
                    (WideOp.UNPK, unpk), (WideOp.PK, pk)):
                with m.Case(o):
                    m.d.comb += self.res.eq(val)
        return m
