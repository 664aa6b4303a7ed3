# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""ISS vector and NTT groups against plain reference arithmetic, in both VMODEs.

Reference: lanes of 16 bits / q = 3329 (FIPS 203) and 32 bits / q = 8380417 (FIPS 204);
Montgomery product a*b*R^-1 mod q with R = 2^lanewidth; butterflies as FIPS 203 Alg. 9/10
and FIPS 204 Alg. 41/42 with the twiddle given in Montgomery form (zeta*R mod q).
"""
import random

import pytest

from ip.acc.tests.iss_util import DSA, KEM, SET_VMODE1, cyc, pack, run, unpack, w256

MODES = {"kem": (KEM, ""), "dsa": (DSA, SET_VMODE1)}


def _operands(mode, rng, reduced=True):
    lanes, w, q = mode
    top = q if reduced else 1 << w
    return [rng.randrange(top) for _ in range(lanes)], [rng.randrange(top) for _ in range(lanes)]


def _run2(pre, op, a, b, mode, extra=""):
    src = pre + "bn.lw w1, 0(x0)\nbn.lw w2, 32(x0)\nbn.lw w3, 64(x0)\n" + op + extra + "ecall\n"
    return run(src, dmem={0: w256(pack(a, mode)), 32: w256(pack(b, mode)), 64: w256(0)})


def _ref(op, mode, x, y):
    lanes, w, q = mode
    m = (1 << w) - 1
    rinv = pow(2 ** w, -1, q)
    return {
        "bn.addvm": (x + y) % q, "bn.subvm": (x - y) % q,
        "bn.addv": (x + y) & m, "bn.subv": (x - y) & m,
        "bn.mulvm": x * y * rinv % q,
        "bn.mulv.lo": (x * y) & m, "bn.mulv.hi": (x * y) >> w,
        "bn.ltv": m if x < y else 0,
    }[op]


@pytest.mark.parametrize("mname", sorted(MODES))
@pytest.mark.parametrize("op", ["bn.addvm", "bn.subvm", "bn.addv", "bn.subv", "bn.mulvm",
                                "bn.mulv.lo", "bn.mulv.hi", "bn.ltv"])
def test_lanewise_arithmetic(op, mname):
    mode, pre = MODES[mname]
    rng = random.Random(op + mname)
    reduced = op in ("bn.addvm", "bn.subvm", "bn.mulvm")
    for _ in range(4):
        a, b = _operands(mode, rng, reduced)
        sim, h = _run2(pre, f"{op} w4, w1, w2\n", a, b, mode)
        assert h.ok, h
        assert unpack(sim.wdr.read(4), mode) == [_ref(op, mode, x, y) for x, y in zip(a, b)]


def test_bitwise_sel_and_or_acc():
    rng = random.Random(3)
    a, b, m = rng.getrandbits(256), rng.getrandbits(256), rng.getrandbits(256)
    src = ("bn.lw w1, 0(x0)\nbn.lw w2, 32(x0)\nbn.lw w5, 64(x0)\nbn.and w3, w1, w2\n"
           "bn.or w4, w1, w2\nbn.xor w6, w1, w2\nbn.sel w5, w1, w2\necall\n")
    sim, h = run(src, dmem={0: w256(a), 32: w256(b), 64: w256(m)})
    full = (1 << 256) - 1
    assert (sim.wdr.read(3), sim.wdr.read(4), sim.wdr.read(6)) == (a & b, a | b, a ^ b)
    assert sim.wdr.read(5) == (m & a) | (~m & full & b)
    # or.acc: differing lanes 2 and 9 -> popcount 2, accumulated into ACC
    x = [rng.randrange(3329) for _ in range(16)]
    y = list(x)
    y[2] ^= 1
    y[9] ^= 0x100
    src = ("bn.lw w1, 0(x0)\nbn.lw w2, 32(x0)\nbn.or.acc x5, w1, w1\nbn.or.acc x6, w1, w2\n"
           "bn.or.acc x7, w2, w2\nbn.wsrr w3, ACC\necall\n")
    sim, h = run(src, dmem={0: w256(pack(x)), 32: w256(pack(y))})
    assert h.ok and (sim.gpr.read(5), sim.gpr.read(6), sim.gpr.read(7)) == (0, 2, 2)
    assert sim.wdr.read(3) == pack(x) ^ pack(y)


@pytest.mark.parametrize("mname", sorted(MODES))
def test_shifts(mname):
    mode, pre = MODES[mname]
    lanes, w, q = mode
    rng = random.Random(mname)
    a = [rng.getrandbits(w) for _ in range(lanes)]
    sim, h = _run2(pre, "bn.shlv w4, w1, 3\nbn.shrv w5, w1, 5\nbn.srav w6, w1, 7\n", a, a, mode)
    assert h.ok
    m = (1 << w) - 1

    def sgn(v):
        return v - (1 << w) if v >> (w - 1) else v
    assert unpack(sim.wdr.read(4), mode) == [(x << 3) & m for x in a]
    assert unpack(sim.wdr.read(5), mode) == [x >> 5 for x in a]
    assert unpack(sim.wdr.read(6), mode) == [(sgn(x) >> 7) & m for x in a]


@pytest.mark.parametrize("mname", sorted(MODES))
def test_permutations(mname):
    mode, pre = MODES[mname]
    lanes = mode[0]
    a = list(range(100, 100 + lanes))
    b = list(range(200, 200 + lanes))
    sim, h = _run2(pre, "bn.trn1 w4, w1, w2\nbn.trn2 w5, w1, w2\nbn.unzip.lo w6, w1, w2\n"
                   "bn.unzip.hi w7, w1, w2\nbn.bcastl w8, w2, 3\n", a, b, mode)
    assert h.ok
    assert unpack(sim.wdr.read(4), mode) == [v for i in range(0, lanes, 2) for v in (a[i], b[i])]
    assert unpack(sim.wdr.read(5), mode) == [v for i in range(1, lanes, 2)
                                             for v in (a[i], b[i])]
    assert unpack(sim.wdr.read(6), mode) == [a[i] for i in range(0, lanes, 2)] + \
        [b[i] for i in range(0, lanes, 2)]
    assert unpack(sim.wdr.read(7), mode) == [a[i] for i in range(1, lanes, 2)] + \
        [b[i] for i in range(1, lanes, 2)]
    assert unpack(sim.wdr.read(8), mode) == [b[3]] * lanes


def _ref_bfly(kind, mode, a, b, t, dist, tidx):
    """Reference butterflies: pairs and zetas from the isa.yml text, FIPS arithmetic."""
    lanes, w, q = mode
    rinv = pow(2 ** w, -1, q)
    a, b = list(a), list(b)
    pairs = []   # (reg, i, j, zeta_index)
    if dist == "r":
        pairs = [("ab", i, i, tidx) for i in range(lanes)]
    else:
        n = int(dist[1:])
        per_reg = lanes // (2 * n)
        for r, reg in enumerate("ab"):
            for i in range(lanes):
                if not i & n:
                    g = r * per_reg + i // (2 * n)
                    pairs.append((reg, i, i + n, (tidx + g) % lanes))
    for reg, i, j, k in pairs:
        zeta = t[k] * rinv % q          # twiddle given in Montgomery form
        xs = a if reg in ("a", "ab") else b
        ys = b if reg == "ab" else xs
        x, y = xs[i], ys[j]
        if kind == "ct":
            xs[i], ys[j] = (x + zeta * y) % q, (x - zeta * y) % q
        else:
            xs[i], ys[j] = (x + y) % q, zeta * (x - y) % q
    return a, b


@pytest.mark.parametrize("kind", ["ct", "gs"])
@pytest.mark.parametrize("mname,dist", [("kem", d) for d in ("r", "l1", "l2", "l4", "l8")]
                         + [("dsa", d) for d in ("r", "l1", "l2", "l4")])
def test_butterflies(kind, mname, dist):
    mode, pre = MODES[mname]
    lanes, w, q = mode
    rng = random.Random(kind + mname + dist)
    for tidx in (0, 3, lanes - 1):
        a, b = _operands(mode, rng)
        t = [rng.randrange(q) for _ in range(lanes)]
        src = pre + ("bn.lw w1, 0(x0)\nbn.lw w2, 32(x0)\nbn.lw w3, 64(x0)\n"
                     f"bn.bfly.{kind} w1, w2, w3, {dist}, {tidx}\necall\n")
        sim, h = run(src, dmem={0: w256(pack(a, mode)), 32: w256(pack(b, mode)),
                                64: w256(pack(t, mode))})
        assert h.ok, h
        ra, rb = _ref_bfly(kind, mode, a, b, t, dist, tidx)
        assert unpack(sim.wdr.read(1), mode) == ra
        assert unpack(sim.wdr.read(2), mode) == rb


def test_result_latency_stall():
    """isa.yml latency / unit: a multiplier-unit result (bn.mulvm / mulv / bfly, latency 3)
    read 1 or 2 cycles later waits 2 or 1 cycles; a second multiplier op right behind waits 1
    (interval 2); a load (latency 2) read right away waits 1; a later write replaces a
    pending result (writers never wait)."""
    base = cyc("bn.lw", "bn.lw", "bn.lw", "addi", "ecall")   # addi: w3's load is not waited for
    cases = [
        ("bn.mulvm w4, w1, w2\nbn.addvm w5, w4, w1\n", 2),
        ("bn.mulvm w4, w1, w2\nbn.addvm w5, w1, w2\n", 0),
        ("bn.mulvm w4, w1, w2\nbn.addvm w5, w1, w2\nbn.addvm w6, w4, w1\n", 1),
        ("bn.mulvm w4, w1, w2\nbn.addvm w5, w1, w2\nbn.addv w7, w1, w1\nbn.addvm w6, w4, w1\n", 0),
        ("bn.bfly.ct w1, w2, w3, r, 0\nbn.sw w2, 96(x0)\n", 2),
        ("bn.bfly.gs w1, w2, w3, l1, 0\nbn.bfly.gs w1, w2, w3, l2, 0\n", 2),
        ("bn.bfly.ct w1, w2, w3, r, 0\nbn.bfly.ct w4, w5, w3, r, 0\n", 1),       # unit busy
        ("bn.bfly.ct w1, w2, w3, r, 0\nbn.lw w6, 0(x0)\nbn.bfly.ct w4, w5, w3, r, 0\n", 0),
        ("bn.mulv.hi w4, w1, w2\nbn.sel w4, w1, w2\n", 2),
        ("bn.mulvm w4, w1, w2\nbn.xor w4, w1, w2\nbn.addvm w5, w4, w4\n", 0),  # replaced
        ("bn.mulvm w4, w1, w2\nbn.lw w4, 0(x0)\nbn.addvm w5, w4, w4\n", 1),    # the load's
        ("bn.addvm w4, w1, w2\nbn.addvm w5, w4, w4\n", 0),
        ("bn.lw w4, 0(x0)\nbn.addvm w5, w4, w1\n", 1),
        ("bn.lw.pi w4, 0(x1)\nbn.lw w5, 0(x1)\n", 0),
    ]
    for body, stall in cases:
        sim, h = _run2("", "addi x0, x0, 0\n" + body, [1] * 16, [2] * 16, KEM)
        ops = [line.split()[0] for line in body.splitlines()]
        assert h.ok and h.cycles == base + cyc(*ops) + stall, body


# ------------------------------------------------------------------------------ bn.unpk
UNPK_LEGAL = {"kem": (1, 4, 5, 10, 11, 12), "dsa": (3, 4, 6, 10, 13, 18, 20)}
UNPK_CODES = (1, 3, 4, 5, 6, 10, 11, 12, 13, 18, 20)     # the d field's values, in order


def _unpk_ref(data: bytes, off: int, d: int, lanes: int) -> list:
    """Lane i = d bits from bit i*d of the byte string data[off:], read bit by bit (bit b of
    a byte string is bit b % 8 of byte b // 8, FIPS 203 BytesToBits)."""
    out = []
    for i in range(lanes):
        v = 0
        for j in range(d):
            b = i * d + j
            v |= ((data[off + b // 8] >> (b % 8)) & 1) << j
        out.append(v)
    return out


@pytest.mark.parametrize("mname", sorted(MODES))
def test_unpk_every_width_and_offset(mname):
    mode, pre = MODES[mname]
    lanes = mode[0]
    rng = random.Random("unpk" + mname)
    for d in UNPK_LEGAL[mname]:
        for off in sorted({0, 1, 2, 8, 20, 31, rng.randrange(32)}):
            data = bytes(rng.getrandbits(8) for _ in range(64))
            src = (pre + "bn.lw w1, 0(x0)\nbn.lw w2, 32(x0)\n"
                   f"bn.unpk w4, w1, w2, {d}, {off}\necall\n")
            sim, h = run(src, dmem={0: data})
            assert h.ok, h
            assert unpack(sim.wdr.read(4), mode) == _unpk_ref(data, off, d, lanes), (d, off)
            # one cycle, latency 1: as bn.or in its place
            _, h_or = run(src.replace(f"bn.unpk w4, w1, w2, {d}, {off}", "bn.or w4, w1, w2"),
                          dmem={0: data})
            assert h.cycles == h_or.cycles


def test_unpk_is_bytedecode():
    """FIPS 203 ByteDecode_d (Alg. 6) of 32 d bytes, 16 coefficients per bn.unpk from a
    stream of aligned wide words: chunk k (2d bytes) at off = 2dk mod 32."""
    rng = random.Random(203)
    for d in UNPK_LEGAL["kem"]:
        data = bytes(rng.getrandbits(8) for _ in range(32 * d)) + bytes(32)
        bits = [(data[b // 8] >> (b % 8)) & 1 for b in range(256 * d)]
        want = [sum(bits[i * d + j] << j for j in range(d)) for i in range(256)]
        lines = []
        for k in range(16):
            w, off = divmod(2 * d * k, 32)
            lines += [f"addi x1, x0, {32 * w}", "bn.lw w1, 0(x1)", "bn.lw w2, 32(x1)",
                      f"bn.unpk w3, w1, w2, {d}, {off}", f"bn.sw w3, {1024 + 32 * k}(x0)"]
        sim, h = run("\n".join(lines) + "\necall\n", dmem={0: data})
        assert h.ok, h
        got = sim.dmem.read_bytes(1024, 512)
        assert [int.from_bytes(got[2 * i:2 * i + 2], "little") for i in range(256)] == want, d


@pytest.mark.parametrize("mn", ["bn.unpk", "bn.pk"])
@pytest.mark.parametrize("mname", sorted(MODES))
def test_field_insn_illegal_width(mname, mn):
    """bn.unpk and bn.pk share the legal d per VMODE; the others and the reserved d codes
    are ILLEGAL_INSN."""
    _, pre = MODES[mname]
    for d in UNPK_CODES:
        sim, h = run(pre + f"{mn} w4, w1, w2, {d}, 3\necall\n")
        if d in UNPK_LEGAL[mname]:
            assert h.ok, (d, h)
        else:
            assert h.reason == "error" and h.errors == ["ILLEGAL_INSN"], (d, h)
            assert "lanes" in h.message
    # the d field's codes past the list (not writable in assembly)
    from ip.acc.tests.iss_util import ISA
    from ip.acc.iss import Iss
    insn = ISA.by_mnemonic[mn]
    for code in range(len(UNPK_CODES), 16):
        word = insn.encode({"wrd": 4, "wrs1": 1, "wrs2": 2, "d": 0, "off": 3})
        word |= code << insn.operands["d"].slices[0][0].lo
        sim = Iss(ISA)
        sim.load_program([word])
        h = sim.run()
        assert h.reason == "error" and h.errors == ["ILLEGAL_INSN"], (code, h)


# ------------------------------------------------------------------------------ bn.pk
def _bits_to_bytes(bits: list) -> bytes:
    """FIPS 203 BitsToBytes: bit b of the string is bit b % 8 of byte b // 8."""
    return bytes(sum(bits[8 * i + j] << j for j in range(8)) for i in range(len(bits) // 8))


@pytest.mark.parametrize("mname", sorted(MODES))
def test_pk_every_width_and_offset(mname):
    """wrd = bytes off .. off + 31 of the 64-byte string wrs2 || chunk, the chunk being the
    lanes' low d bits in order (lane bits above d are dropped), built here bit by bit."""
    mode, pre = MODES[mname]
    lanes, w, _ = mode
    rng = random.Random("pk" + mname)
    for d in UNPK_LEGAL[mname]:
        for off in sorted({0, 1, 2, 8, 20, 31, rng.randrange(32)}):
            vals = [rng.getrandbits(w) for _ in range(lanes)]      # bits above d set too
            low = bytes(rng.getrandbits(8) for _ in range(32))
            chunk = _bits_to_bytes([(v >> j) & 1 for v in vals for j in range(d)])
            want = (low + chunk + bytes(32 - len(chunk)))[off:off + 32]
            src = (pre + "bn.lw w1, 0(x0)\nbn.lw w2, 32(x0)\n"
                   f"bn.pk w4, w1, w2, {d}, {off}\nbn.sw w4, 64(x0)\necall\n")
            sim, h = run(src, dmem={0: w256(pack(vals, mode)), 32: low})
            assert h.ok, h
            assert sim.dmem.read_bytes(64, 32) == want, (d, off)
            _, h_or = run(src.replace(f"bn.pk w4, w1, w2, {d}, {off}", "bn.or w4, w1, w2"),
                          dmem={0: w256(pack(vals, mode)), 32: low})
            assert h.cycles == h_or.cycles


def _encode_stream(d: int, chunk: int, n_chunks: int, src: int, dst: int) -> list:
    """Assembly that packs n_chunks lane words at src into a byte stream at dst, as isa.yml's
    bn.pk doc says: w3 holds the f pending bytes on top; a chunk that does not fit gives the
    full word (off = 32 - f) and the next one (off = chunk)."""
    lines, f, out = [], 0, 0
    for k in range(n_chunks):
        lines.append(f"bn.lw w1, {src + 32 * k}(x0)")
        if f + chunk > 32:
            lines += [f"bn.pk w4, w1, w3, {d}, {32 - f}", f"bn.sw w4, {dst + 32 * out}(x0)"]
            out += 1
        lines.append(f"bn.pk w3, w1, w3, {d}, {chunk}")
        f = (f + chunk) % 32 if f + chunk != 32 else 32
        if f == 32:
            lines.append(f"bn.sw w3, {dst + 32 * out}(x0)")
            out, f = out + 1, 0
    return lines


@pytest.mark.parametrize("mname", sorted(MODES))
def test_pk_is_byteencode(mname):
    """FIPS 203 ByteEncode_d (Alg. 5) / FIPS 204 SimpleBitPack of 256 d-bit values: the
    stream of chunks the doc describes equals the bit string, for every legal d."""
    mode, pre = MODES[mname]
    lanes, w, _ = mode
    rng = random.Random(204)
    for d in UNPK_LEGAL[mname]:
        vals = [rng.getrandbits(d) for _ in range(256)]
        want = _bits_to_bytes([(v >> j) & 1 for v in vals for j in range(d)])
        n = 256 // lanes
        words = {32 * k: w256(pack(vals[k * lanes:(k + 1) * lanes], mode)) for k in range(n)}
        lines = _encode_stream(d, lanes * d // 8, n, 0, 8192)
        sim, h = run(pre + "\n".join(lines) + "\necall\n", dmem=words)
        assert h.ok, h
        assert sim.dmem.read_bytes(8192, len(want)) == want, d
