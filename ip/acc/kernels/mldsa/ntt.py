# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""ML-DSA forward NTT (FIPS 204 Algorithm 41) and inverse (Algorithm 42, `intt_program`,
equal to dilithium-py's from_ntt) as straight-line ACC assembly (VMODE 1).

Layout: polynomial at DMEM[POLY] as 32 words of 8 x 32-bit lanes (word r = coefficients
8r..8r+7), result in place. Twiddle table at DMEM[TWID]: 32 words, zeta k (Montgomery form,
zeta * 2^32 mod q) at word k // 8, lane k % 8 (`twiddle_words()`).

Only w0..w15 are used (the ACC has 16 wide registers, doc/architecture.md 2a): two passes
over chunks of 8 words in w0..w7, twiddle words in w8..w15:
  forward: pass 1, layers len = 128, 64, 32 on the words {g, g+4, ..., g+28} (g = 0..3);
           pass 2, layers len = 16, 8 (across words) and 4, 2, 1 (within words) on the
           words 8c..8c+7 (c = 0..3);
  inverse: pass A, layers len = 1, 2, 4 (within words) and 8, 16 (across) on the words
           8c..8c+7; pass B, layers len = 32, 64, 128 on the words {g, g+4, ..., g+28},
           then bn.mulvm by 256^-1 on the last layer's sums.
The bodies are written on virtual registers (%a<word>, %b<word>, %t<twiddle word>) and
made real by asm_util.place_and_schedule: loads / stores next to their uses, FIFO
allocation in w0..w15 (so one chunk's loads can go ahead of the last chunk's stores) and
the list scheduler of sched.py (the multiplier takes a butterfly every 2 cycles: the
loads and stores fill the cycles between). NTT 306, INTT 336 cycles (ISS = RTL).
"""
from ip.acc.kernels.asm_util import across, base_of, place_and_schedule, poly_io, twiddle_loads

Q = 8380417
R = 1 << 32
POLY = 0
TWID = 1024


def zetas() -> list[int]:
    return [pow(1753, int(f"{i:08b}"[::-1], 2), Q) for i in range(256)]


def twiddle_words() -> list[list[int]]:
    z = [x * R % Q for x in zetas()]
    return [z[8 * w:8 * w + 8] for w in range(32)]


def _finish(lines, loads, stores, src, dst, mem, table):
    """The promises to the scheduler: src and dst are the same or disjoint polynomials
    (each word is read before it is written, in pass order, either way), and the twiddle
    table overlaps neither."""
    return place_and_schedule(lines, loads, stores, [(src, dst), (base_of(mem(table)), src),
                                                     (base_of(mem(table)), dst)])


def ntt_body(src: str = "x0", dst: str = "x0", mem=None, off: int = POLY,
             twid: int = TWID) -> list[str]:
    """The forward NTT: polynomial at off(src) -> off(dst) (the same or disjoint), twiddle
    words at DMEM twid; mem(addr) is the operand of an absolute address (default
    addr(x0)). Uses any of w0..w15 (see the module docstring)."""
    mem = mem or (lambda addr: f"{addr}(x0)")
    loads, stores, out = twiddle_loads(mem, twid, 32), {}, []
    for g in range(4):                                   # pass 1
        words = [g + 4 * i for i in range(8)]
        regs = {r: f"%a{r}" for r in words}
        poly_io(loads, stores, "%a", words, off, src, dst)
        out += ntt_pass1(words, regs)
    for c in range(4):                                   # pass 2
        words = list(range(8 * c, 8 * c + 8))
        regs = {r: f"%b{r}" for r in words}
        poly_io(loads, stores, "%b", words, off, dst, dst)
        out += ntt_pass2(words, regs)
    return _finish(out, loads, stores, src, dst, mem, twid)


def ntt_pass1(words, regs) -> list[str]:
    """ntt_body's pass 1 on group words (4 m + g): layers of length 128, 64, 32 (twiddle %t0)."""
    out = []
    for layer, length in ((0, 128), (1, 64), (2, 32)):
        out += across(words, regs, length, 8,
                      lambda r, layer=layer, length=length:
                      ("%t0", ((1 << layer) + 8 * r // (2 * length)) % 8))
    return out


def ntt_pass2(words, regs) -> list[str]:
    """ntt_body's pass 2 on chunk words (8 c .. 8 c + 7): layers of length 16 .. 1."""
    out = []
    for half in (words[:4], words[4:]):              # no layer mixes the two halves
        out += across(half, regs, 16, 8, lambda r: ("%t1", (8 + r // 4) % 8))
        out += across(half, regs, 8, 8,
                      lambda r: (f"%t{(16 + r // 2) // 8}", (16 + r // 2) % 8))
        for length, first in ((4, 32), (2, 64), (1, 128)):
            per_reg = 8 // (2 * length)
            for r in half[::2]:
                k = first + r * per_reg
                out.append(f"bn.bfly.ct {regs[r]}, {regs[r + 1]}, "
                           f"%t{k // 8}, l{length}, {k % 8}")
    return out


def program() -> str:
    out = ntt_body()
    out.append("ecall")
    return "\n".join(out) + "\n"


# ---------------------------------------------------------------------------- inverse NTT
ITWID = 2048          # 33 words, built by itwiddle_words(): see there
F = pow(256, -1, Q)   # dilithium-py's ntt_f


def _ilayer(blocks: int) -> list[int]:
    """Twiddles of the inverse layer with `blocks` blocks, block b first: dilithium-py's
    from_ntt uses zeta = -zetas[k] with k = 2 * blocks - 1 - b (GS: (a, b) ->
    (a + b, zeta * (a - b)))."""
    z = zetas()
    return [(-z[2 * blocks - 1 - b]) % Q for b in range(blocks)]


def itwiddle_words(mont: bool = False) -> list[list[int]]:
    """Inverse twiddles in Montgomery form (value * 2^32 mod q), 33 words of 8 lanes:
      words  0-15: len 1 (128 blocks)      words 16-23: len 2 (64 blocks)
      words 24-27: len 4 (32 blocks)       words 28-29: len 8 (16 blocks)
      word  30: len 16 (8 blocks)          word 31: len 32 (lanes 0-3), 64 (4-5), 128 (6)
      word  32: the scale 256^-1 in every lane.
    The final multiplication by 256^-1 is folded into the last layer: its twiddle (word 31
    lane 6) is -zetas[1] * 256^-1, and only the 16 sum outputs of that layer get a
    bn.mulvm by word 32. With mont=True every output carries an extra factor 2^32: the
    INTT then also removes the 2^-32 left by bn.mulvm-based pointwise products
    (mldsa.products.pointwise_program), like the reference implementation's invntt_tomont."""
    extra = R if mont else 1
    flat = []
    for blocks in (128, 64, 32, 16, 8):
        flat += _ilayer(blocks)
    last = _ilayer(4) + _ilayer(2) + [_ilayer(1)[0] * F * extra % Q, 0]
    words = [flat[8 * i:8 * i + 8] for i in range(len(flat) // 8)] + [last]
    words = [[x * R % Q for x in w] for w in words]
    words.append([F * extra * R % Q] * 8)
    return words


def intt_pass_a(regs: list[str], c: int) -> list[str]:
    """The butterflies of intt_body's pass A on chunk c (words 8c .. 8c + 7 in regs): layers
    of length 1 .. 16, twiddles %t0 .. %t30 (twiddle_loads)."""
    out = []
    for half in (0, 4):                              # no layer mixes the two halves
        for length, first in ((1, 0), (2, 128), (4, 192)):
            per_reg = 8 // (2 * length)
            for i in range(half, half + 4, 2):
                word, lane = divmod(first + (8 * c + i) * per_reg, 8)
                out.append(f"bn.bfly.gs {regs[i]}, {regs[i + 1]}, %t{word}, l{length}, {lane}")
        for i in range(half, half + 4, 2):           # len 8: words (r, r+1), block r/2
            word, lane = divmod(224 + (8 * c + i) // 2, 8)
            out.append(f"bn.bfly.gs {regs[i]}, {regs[i + 1]}, %t{word}, r, {lane}")
        for i in (half, half + 1):                   # len 16: words (r, r+2), word 30
            out.append(f"bn.bfly.gs {regs[i]}, {regs[i + 2]}, %t30, r, {(8 * c + i) // 4}")
    return out


def intt_body(src: str = "x0", dst: str = "x0", mem=None, off: int = POLY,
              itwid: int = ITWID) -> list[str]:
    """intt_program's schedule: polynomial at off(src) -> off(dst) (the same or disjoint);
    mem as in ntt_body. Uses any of w0..w15."""
    mem = mem or (lambda addr: f"{addr}(x0)")
    loads, stores, out = twiddle_loads(mem, itwid, 33), {}, []
    for c in range(4):                                   # pass A
        words = list(range(8 * c, 8 * c + 8))
        regs = [f"%a{r}" for r in words]
        poly_io(loads, stores, "%a", words, off, src, dst)
        out += intt_pass_a(regs, c)
    for g in range(4):                                   # pass B
        words = [g + 4 * i for i in range(8)]
        regs = [f"%b{r}" for r in words]
        poly_io(loads, stores, "%b", words, off, dst, dst)
        out += intt_pass_b(words, regs)
    return _finish(out, loads, stores, src, dst, mem, itwid)


def intt_pass_b(words, regs) -> list[str]:
    """intt_body's pass B on group words (g + 4 i) in regs: layers of length 32, 64, 128
    (twiddle %t31), then the 256^-1 scale of the first four words (%t32)."""
    out = []
    for dist, length, lane0 in ((1, 32, 0), (2, 64, 4), (4, 128, 6)):
        for i in range(8):
            if i & dist:
                continue
            out.append(f"bn.bfly.gs {regs[i]}, {regs[i + dist]}, %t31, r, "
                       f"{lane0 + 8 * words[i] // (2 * length)}")
    return out + [f"bn.mulvm {regs[i]}, {regs[i]}, %t32" for i in range(4)]


def intt_program() -> str:
    """Inverse NTT equal to dilithium-py's PolynomialNTT.from_ntt (with its 256^-1 scaling),
    in place on DMEM[POLY] (32 words), VMODE 1, twiddles at ITWID (itwiddle_words())."""
    out = intt_body()
    out.append("ecall")
    return "\n".join(out) + "\n"
