"""ML-DSA forward NTT (FIPS 204 Algorithm 41) and inverse (Algorithm 42, `intt_program`,
equal to dilithium-py's from_ntt) as straight-line ACC assembly (VMODE 1).

Layout: polynomial at DMEM[POLY] as 32 words of 8 x 32-bit lanes (word r = coefficients
8r..8r+7), result in place. Twiddle table at DMEM[TWID]: 32 words, zeta k (Montgomery form,
zeta * 2^32 mod q) at word k // 8, lane k % 8 (`twiddle_words()`).

A polynomial needs all 32 WDRs, so the transform runs in two passes of two halves:
  pass 1, for p in (0, 1): the 16 registers r = p, p+2, ..., p+30 (w0..w15), layers
          len = 128, 64, 32, 16 (register distance 16, 8, 4, 2 = 8, 4, 2, 1 in w index);
  pass 2, for h in (0, 1): registers 16h..16h+15, layer len = 8 (across registers) and
          len = 4, 2, 1 (within registers, dist l4, l2, l1).
Twiddles in w16..w30. This is the schedule behind doc/architecture.md 3.1 (~290 cycles).
"""
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
    at DMEM twid; mem(addr) is the operand of an absolute address (default addr(x0))."""
    mem = mem or (lambda addr: f"{addr}(x0)")
    out = []
    # pass 1: layers len = 128..16 on the even, then odd registers
    out += [f"bn.lw w16, {mem(twid)}", f"bn.lw w17, {mem(twid + 32)}"]
    for p in (0, 1):
        regs = [p + 2 * i for i in range(16)]
        out += [f"bn.lw w{i}, {off + 32 * r}({src})" for i, r in enumerate(regs)]
        layer, length = 0, 128
        while length >= 16:
            dw = length // 16                      # distance in w index
            for i in range(16):
                if i & dw:
                    continue
                k = (1 << layer) + (8 * regs[i]) // (2 * length)
                out.append(f"bn.bfly.ct w{i}, w{i + dw}, w{16 + k // 8}, r, {k % 8}")
            layer, length = layer + 1, length // 2
        out += [f"bn.sw w{i}, {off + 32 * r}({dst})" for i, r in enumerate(regs)]
    # pass 2: layers len = 8, 4, 2, 1 on registers 16h..16h+15
    for h in (0, 1):
        base = 16 * h
        out += [f"bn.lw w{i}, {off + 32 * (base + i)}({dst})" for i in range(16)]
        # twiddle words needed: len 8: word 2+h; len 4: 4+2h..; len 2: 8+4h..; len 1: 16+8h..
        tw = [2 + h] + [4 + 2 * h + j for j in range(2)] + [8 + 4 * h + j for j in range(4)] \
            + [16 + 8 * h + j for j in range(8)]
        reg_of = {word: 16 + j for j, word in enumerate(tw)}
        out += [f"bn.lw w{16 + j}, {mem(twid + 32 * word)}" for j, word in enumerate(tw)]
        for i in range(0, 16, 2):                  # len = 8: pairs (r, r+1)
            k = 16 + (base + i) // 2
            out.append(f"bn.bfly.ct w{i}, w{i + 1}, w{reg_of[k // 8]}, r, {k % 8}")
        for length, first in ((4, 32), (2, 64), (1, 128)):
            per_reg = 8 // (2 * length)
            for i in range(0, 16, 2):
                k = first + (base + i) * per_reg   # zeta of wa's first group
                out.append(f"bn.bfly.ct w{i}, w{i + 1}, w{reg_of[k // 8]}, l{length}, {k % 8}")
        out += [f"bn.sw w{i}, {off + 32 * (base + i)}({dst})" for i in range(16)]
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
    """intt_program's schedule: polynomial at off(src) -> off(dst); mem as in ntt_body."""
    mem = mem or (lambda addr: f"{addr}(x0)")
    out = []
    for h in (0, 1):
        base = 16 * h
        # twiddle words of this half: len1 8h.., len2 16+4h.., len4 24+2h.., len8 28+h
        tw = [8 * h + j for j in range(8)] + [16 + 4 * h + j for j in range(4)] \
            + [24 + 2 * h + j for j in range(2)] + [28 + h]
        reg_of = {word: 16 + j for j, word in enumerate(tw)}
        out += [f"bn.lw w{reg_of[word]}, {mem(itwid + 32 * word)}" for word in tw]
        out += [f"bn.lw w{i}, {off + 32 * (base + i)}({src})" for i in range(16)]
        for length, first in ((1, 0), (2, 128), (4, 192)):
            per_reg = 8 // (2 * length)
            for i in range(0, 16, 2):
                b = (base + i) * per_reg               # first block of wa
                word, lane = divmod(first + b, 8)
                out.append(f"bn.bfly.gs w{i}, w{i + 1}, w{reg_of[word]}, l{length}, {lane}")
        for i in range(0, 16, 2):                      # len 8: registers (r, r+1), block r/2
            word, lane = divmod(224 + (base + i) // 2, 8)
            out.append(f"bn.bfly.gs w{i}, w{i + 1}, w{reg_of[word]}, r, {lane}")
        out += [f"bn.sw w{i}, {off + 32 * (base + i)}({dst})" for i in range(16)]
    out += [f"bn.lw w{16 + j}, {mem(itwid + 32 * (30 + j))}" for j in range(3)]
    for p in (0, 1):
        regs = [p + 2 * i for i in range(16)]
        out += [f"bn.lw w{i}, {off + 32 * r}({dst})" for i, r in enumerate(regs)]
        for dw, length, tw_reg, lane0 in ((1, 16, 16, 0), (2, 32, 17, 0), (4, 64, 17, 4),
                                          (8, 128, 17, 6)):
            for i in range(16):
                if i & dw:
                    continue
                b = (8 * regs[i]) // (2 * length)      # block of wa
                out.append(f"bn.bfly.gs w{i}, w{i + dw}, w{tw_reg}, r, {lane0 + b}")
        out += [f"bn.mulvm w{i}, w{i}, w18" for i in range(8)]
        out += [f"bn.sw w{i}, {off + 32 * r}({dst})" for i, r in enumerate(regs)]
    return out


def intt_program() -> str:
    """Inverse NTT equal to dilithium-py's PolynomialNTT.from_ntt (with its 256^-1 scaling),
    in place on DMEM[POLY] (32 words), VMODE 1, twiddles at ITWID (itwiddle_words()).
      pass A, for h in (0, 1): registers 16h..16h+15 (w0..w15), layers len = 1, 2, 4
             (within registers, dist l1, l2, l4) and len = 8 (adjacent registers);
             twiddles w16..w30;
      pass B, for p in (0, 1): registers p, p+2, ..., p+30 (w0..w15), layers len = 16, 32,
             64, 128 (w distance 1, 2, 4, 8), then 8 bn.mulvm by 256^-1 on the sums of the
             last layer; twiddle words 30-32 in w16..w18, loaded once.
    """
    out = intt_body()
    out.append("ecall")
    return "\n".join(out) + "\n"
