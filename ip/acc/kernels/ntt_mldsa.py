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
This is the schedule behind doc/architecture.md 3.1 (~290 cycles).
"""
from .asm_util import across

Q = 8380417
R = 1 << 32
POLY = 0
TWID = 1024


def zetas() -> list[int]:
    return [pow(1753, int(f"{i:08b}"[::-1], 2), Q) for i in range(256)]


def twiddle_words() -> list[list[int]]:
    z = [x * R % Q for x in zetas()]
    return [z[8 * w:8 * w + 8] for w in range(32)]


def ntt_body(src: str = "x0", dst: str = "x0", mem=None, off: int = POLY,
             twid: int = TWID) -> list[str]:
    """The forward NTT: polynomial at off(src) -> off(dst) (may be the same), twiddle words
    at DMEM twid; mem(addr) is the operand of an absolute address (default addr(x0)).
    Uses w0..w15 only (see the module docstring)."""
    mem = mem or (lambda addr: f"{addr}(x0)")
    out = [f"bn.lw w8, {mem(twid)}"]                     # zetas 1..7
    for g in range(4):                                   # pass 1
        words = [g + 4 * i for i in range(8)]
        regs = {r: i for i, r in enumerate(words)}
        out += [f"bn.lw w{i}, {off + 32 * r}({src})" for i, r in enumerate(words)]
        for layer, length in ((0, 128), (1, 64), (2, 32)):
            out += across(words, regs, length, 8,
                           lambda r, layer=layer, length=length:
                           (8, ((1 << layer) + 8 * r // (2 * length)) % 8))
        out += [f"bn.sw w{i}, {off + 32 * r}({dst})" for i, r in enumerate(words)]
    out.append(f"bn.lw w9, {mem(twid + 32)}")            # zetas 8..15 (len 16)
    for c in range(4):                                   # pass 2
        words = list(range(8 * c, 8 * c + 8))
        regs = {r: r - 8 * c for r in words}
        tw = {2 + c // 2: 10, 4 + c: 11, 8 + 2 * c: 12, 9 + 2 * c: 13,
              16 + 4 * c: 14, 17 + 4 * c: 15}
        out += [f"bn.lw w{t}, {mem(twid + 32 * word)}" for word, t in tw.items()
                if not (t == 10 and c % 2)]              # word 2 + c // 2 serves two chunks
        out += [f"bn.lw w{i}, {off + 32 * r}({dst})" for i, r in enumerate(words)]
        out += across(words, regs, 16, 8, lambda r: (9, (8 + r // 4) % 8))
        out += across(words, regs, 8, 8, lambda r: (tw[(16 + r // 2) // 8], (16 + r // 2) % 8))
        for length, first in ((4, 32), (2, 64), (1, 128)):
            if length == 1:                              # words 18+4c, 19+4c: into w11, w12
                tw.update({18 + 4 * c: 11, 19 + 4 * c: 12})
                out += [f"bn.lw w11, {mem(twid + 32 * (18 + 4 * c))}",
                        f"bn.lw w12, {mem(twid + 32 * (19 + 4 * c))}"]
            per_reg = 8 // (2 * length)
            for i in range(0, 8, 2):
                k = first + (8 * c + i) * per_reg
                out.append(f"bn.bfly.ct w{i}, w{i + 1}, w{tw[k // 8]}, l{length}, {k % 8}")
        out += [f"bn.sw w{i}, {off + 32 * r}({dst})" for i, r in enumerate(words)]
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
    (pointwise.mldsa_program), like the reference implementation's invntt_tomont."""
    extra = R if mont else 1
    flat = []
    for blocks in (128, 64, 32, 16, 8):
        flat += _ilayer(blocks)
    last = _ilayer(4) + _ilayer(2) + [_ilayer(1)[0] * F * extra % Q, 0]
    words = [flat[8 * i:8 * i + 8] for i in range(len(flat) // 8)] + [last]
    words = [[x * R % Q for x in w] for w in words]
    words.append([F * extra * R % Q] * 8)
    return words


def intt_body(src: str = "x0", dst: str = "x0", mem=None, off: int = POLY,
              itwid: int = ITWID) -> list[str]:
    """intt_program's schedule: polynomial at off(src) -> off(dst); mem as in ntt_body.
    Uses w0..w15 only."""
    mem = mem or (lambda addr: f"{addr}(x0)")
    out = [f"bn.lw w14, {mem(itwid + 32 * 30)}"]
    for c in range(4):                                   # pass A
        words = list(range(8 * c, 8 * c + 8))
        tw = {4 * c + j: 8 + j for j in range(4)}        # len 1: 4 words
        tw.update({24 + c: 12, 28 + c // 2: 13})
        out += [f"bn.lw w{t}, {mem(itwid + 32 * word)}" for word, t in tw.items()
                if not (t == 13 and c % 2)]              # word 28 + c // 2 serves two chunks
        out += [f"bn.lw w{i}, {off + 32 * r}({src})" for i, r in enumerate(words)]
        for length, first in ((1, 0), (2, 128), (4, 192)):
            if length == 2:                              # len 2 words into w15 and w8
                tw.update({16 + 2 * c: 15, 17 + 2 * c: 8})
                out += [f"bn.lw w15, {mem(itwid + 32 * (16 + 2 * c))}",
                        f"bn.lw w8, {mem(itwid + 32 * (17 + 2 * c))}"]
            per_reg = 8 // (2 * length)
            for i in range(0, 8, 2):
                word, lane = divmod(first + (8 * c + i) * per_reg, 8)
                out.append(f"bn.bfly.gs w{i}, w{i + 1}, w{tw[word]}, l{length}, {lane}")
        for i in range(0, 8, 2):                         # len 8: words (r, r+1), block r/2
            word, lane = divmod(224 + (8 * c + i) // 2, 8)
            out.append(f"bn.bfly.gs w{i}, w{i + 1}, w{tw[word]}, r, {lane}")
        for i in (0, 1, 4, 5):                           # len 16: words (r, r+2), word 30
            out.append(f"bn.bfly.gs w{i}, w{i + 2}, w14, r, {(8 * c + i) // 4}")
        out += [f"bn.sw w{i}, {off + 32 * r}({dst})" for i, r in enumerate(words)]
    out += [f"bn.lw w8, {mem(itwid + 32 * 31)}", f"bn.lw w9, {mem(itwid + 32 * 32)}"]
    for g in range(4):                                   # pass B
        words = [g + 4 * i for i in range(8)]
        out += [f"bn.lw w{i}, {off + 32 * r}({dst})" for i, r in enumerate(words)]
        for dist, length, lane0 in ((1, 32, 0), (2, 64, 4), (4, 128, 6)):
            for i in range(8):
                if i & dist:
                    continue
                out.append(f"bn.bfly.gs w{i}, w{i + dist}, w8, r, "
                           f"{lane0 + 8 * words[i] // (2 * length)}")
        out += [f"bn.mulvm w{i}, w{i}, w9" for i in range(4)]
        out += [f"bn.sw w{i}, {off + 32 * r}({dst})" for i, r in enumerate(words)]
    return out


def intt_program() -> str:
    """Inverse NTT equal to dilithium-py's PolynomialNTT.from_ntt (with its 256^-1 scaling),
    in place on DMEM[POLY] (32 words), VMODE 1, twiddles at ITWID (itwiddle_words())."""
    out = intt_body()
    out.append("ecall")
    return "\n".join(out) + "\n"
