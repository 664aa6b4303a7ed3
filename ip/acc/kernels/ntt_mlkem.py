"""ML-KEM NTT (FIPS 203 Algorithm 9) and inverse (Algorithm 10) as straight-line ACC assembly.

Layout: polynomial at DMEM[POLY] as 16 words of 16 x 16-bit lanes (word r = coefficients
16r..16r+15), result in place (natural FIPS 203 order). Twiddles at DMEM[TWID]: 8 words of
zetas in Montgomery form (zeta * 2^16 mod q), built by `twiddle_words()`:
  word 0: zetas[1..15] (layers len = 128..16, broadcast with dist r, tidx = k - 1)
  word 1: zetas[16..31] (len = 8), words 2-3: zetas[32..63] (len = 4),
  words 4-7: zetas[64..127] (len = 2).
VMODE must be 0. Only w0..w15 are used (the ACC has 16 wide registers, doc/architecture.md
2a): two passes over chunks of 8 words in w0..w7, twiddle words in w8..w15:
  forward: pass 1, layers len = 128, 64, 32 on the words {g, g+2, ..., g+14} (g = 0, 1);
           pass 2, layer len = 16 (across words) and 8, 4, 2 (within words) on the words
           8c..8c+7 (c = 0, 1);
  inverse: pass A, layers len = 2, 4, 8 (within words) and 16, 32, 64 (across) on the words
           8c..8c+7; pass B, layer len = 128 on the words {g, g+8} (g = 4h..4h+3), then
           bn.mulvm by the scale word (128^-1) on every word.
"""
from .asm_util import across

Q = 3329
R = 1 << 16
POLY = 0
TWID = 512


def zetas() -> list[int]:
    return [pow(17, int(f"{i:07b}"[::-1], 2), Q) for i in range(128)]


def twiddle_words() -> list[list[int]]:
    """8 words of 16 lanes (Montgomery-form zetas)."""
    z = [x * R % Q for x in zetas()]
    words = [z[1:16] + [0]]
    for base in range(16, 128, 16):
        words.append(z[base:base + 16])
    return words


def _load(words, base="x0"):
    return [f"bn.lw w{i}, {32 * r}({base})" for i, r in enumerate(words)]


def _store(words, base="x0"):
    return [f"bn.sw w{i}, {32 * r}({base})" for i, r in enumerate(words)]


def _forward_pass1(groups, tidx, base="x0", load=_load):
    """Layers len = 128, 64, 32 on each group of 8 words in w0..w7, zetas 1..7 in w8;
    tidx(layer, length, word) is the lane operand of word's butterfly."""
    out = []
    for words in groups:
        regs = {r: i for i, r in enumerate(words)}
        out += load(words, base)
        for layer, length in ((0, 128), (1, 64), (2, 32)):
            out += across(words, regs, length, 16,
                           lambda r, layer=layer, length=length: (8, tidx(layer, length, r)))
        out += _store(words, base)
    return out


def ntt_body(base="x0", twid=TWID, load=None, store=None, mem=None) -> list[str]:
    """Forward ML-KEM NTT of the polynomial at 0(base), in place (VMODE 0); twiddle table
    at the absolute address twid. load(words, base) -> lines that put word words[i] into
    w{i} for pass 1 (w9..w15 free; default plain loads); store(words, base) -> lines that
    store w0..w7 as the words `words` after pass 2 (w13..w15 free; default plain stores)."""
    mem = mem or (lambda addr: f"{addr}(x0)")
    load = load or _load
    store = store or _store
    out = [f"bn.lw w8, {mem(twid)}"]                    # zetas 1..15, tidx = k - 1
    out += _forward_pass1([[g + 2 * i for i in range(8)] for g in range(2)],
                          lambda layer, length, r: (1 << layer) + 16 * r // (2 * length) - 1,
                          base, load)
    out.append(f"bn.lw w9, {mem(twid + 32)}")           # zetas 16..31 (len 8)
    for c in range(2):                                   # pass 2
        words = list(range(8 * c, 8 * c + 8))
        regs = {r: r - 8 * c for r in words}
        tw = {1: 9, 2 + c: 10, 4 + 2 * c: 11, 5 + 2 * c: 12}
        out += [f"bn.lw w{t}, {mem(twid + 32 * word)}" for word, t in tw.items() if word != 1]
        out += _load(words, base)
        out += across(words, regs, 16, 16, lambda r: (8, 8 + r // 2 - 1))
        for length, first_word in ((8, 1), (4, 2), (2, 4)):
            groups_per_reg = 16 // (2 * length)
            for pair in range(4 * c, 4 * c + 4):
                g0 = pair * 2 * groups_per_reg
                word, lane = divmod(g0, 16)
                out.append(f"bn.bfly.ct w{2 * pair - 8 * c}, w{2 * pair + 1 - 8 * c}, "
                           f"w{tw[first_word + word]}, l{length}, {lane}")
        out += store(words, base)
    return out


def program() -> str:
    return "\n".join(ntt_body() + ["ecall"]) + "\n"


# ---------------------------------------------------------------------------- inverse NTT
ITWID = 1024          # 8 words of negated zetas for the inverse (see itwiddle_words)
ISCALE = ITWID + 256  # one word: 128^-1 = 3303 in Montgomery form, every lane


def itwiddle_words() -> list[list[int]]:
    """GS computes z * (x - y); FIPS 203 Algorithm 10 wants zeta * (y - x): store -zeta.
    Layer with 2^m blocks uses zetas[2^(m+1) - 1 - b] for block b.
    words 0-3: len 2 (64), words 4-5: len 4 (32), word 6: len 8 (16),
    word 7: len 16 (lanes 0-7), 32 (8-11), 64 (12-13), 128 (14)."""
    z = zetas()

    def neg(k):
        return (-z[k]) * R % Q

    flat2 = [neg(127 - b) for b in range(64)]
    flat4 = [neg(63 - b) for b in range(32)]
    flat8 = [neg(31 - b) for b in range(16)]
    last = [neg(15 - b) for b in range(8)] + [neg(7 - b) for b in range(4)] \
        + [neg(3 - b) for b in range(2)] + [neg(1), 0]
    words = [flat2[16 * i:16 * i + 16] for i in range(4)]
    words += [flat4[:16], flat4[16:], flat8, last]
    return words


def intt_body(base="x0", itwid=ITWID, iscale=ISCALE, mem=None) -> list[str]:
    """Inverse ML-KEM NTT of the polynomial at 0(base), in place, with the final bn.mulvm
    by the scale word at the absolute address iscale (VMODE 0; itwid: the inverse twiddle
    table)."""
    mem = mem or (lambda addr: f"{addr}(x0)")
    lane0 = {16: 0, 32: 8, 64: 12, 128: 14}
    out = [f"bn.lw w14, {mem(itwid + 32 * 6)}", f"bn.lw w15, {mem(itwid + 32 * 7)}"]
    for c in range(2):                                   # pass A
        words = list(range(8 * c, 8 * c + 8))
        tw = {2 * c: 8, 2 * c + 1: 9, 4 + c: 10, 6: 14}
        out += [f"bn.lw w{t}, {mem(itwid + 32 * word)}" for word, t in tw.items() if t != 14]
        out += _load(words, base)
        for length, first_word in ((2, 0), (4, 4), (8, 6)):
            groups_per_reg = 16 // (2 * length)
            for pair in range(4 * c, 4 * c + 4):
                word, lane = divmod(pair * 2 * groups_per_reg, 16)
                out.append(f"bn.bfly.gs w{2 * pair - 8 * c}, w{2 * pair + 1 - 8 * c}, "
                           f"w{tw[first_word + word]}, l{length}, {lane}")
        for dist, length in ((1, 16), (2, 32), (4, 64)):
            for i in range(8):
                if not i & dist:
                    b = 16 * (8 * c + i) // (2 * length)
                    out.append(f"bn.bfly.gs w{i}, w{i + dist}, w15, r, {lane0[length] + b}")
        out += _store(words, base)
    out.append(f"bn.lw w8, {mem(iscale)}")
    for h in range(2):                                   # pass B
        words = [r for g in range(4 * h, 4 * h + 4) for r in (g, g + 8)]
        out += _load(words, base)
        out += [f"bn.bfly.gs w{i}, w{i + 1}, w15, r, {lane0[128]}" for i in range(0, 8, 2)]
        out += [f"bn.mulvm w{i}, w{i}, w8" for i in range(8)]
        out += _store(words, base)
    return out


def intt_program() -> str:
    """FIPS 203 Algorithm 10 (with the final multiplication by 3303), in place."""
    return "\n".join(intt_body() + ["ecall"]) + "\n"


def iscale_word() -> list[int]:
    return [pow(128, -1, Q) * R % Q] * 16
