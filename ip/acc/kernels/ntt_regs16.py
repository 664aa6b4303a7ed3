"""NTTs that use only w0..w15: a study of a 16-register WDR file (doc/architecture.md
2a: the register file is the largest part of the ACC's logic). Same DMEM layout, twiddle
tables and results as ntt_mlkem.program / ntt_mldsa.program; not used by the ML-KEM / ML-DSA
programs, which still use 32 registers.

All run in two passes over chunks of 8 registers (w0..w7), twiddle words in w8..w15:
  ML-DSA (32 words of 8 x 32 bits): pass 1, layers len = 128, 64, 32 on the words
    {g, g+4, ..., g+28} (g = 0..3); pass 2, layers len = 16, 8 (across words) and 4, 2, 1
    (within words) on the words 8c..8c+7 (c = 0..3).
  ML-KEM (16 words of 16 x 16 bits): pass 1, layers len = 128, 64, 32 on the words
    {g, g+2, ..., g+14} (g = 0, 1); pass 2, layer len = 16 (across words) and 8, 4, 2
    (within words) on the words 8c..8c+7 (c = 0, 1).
  ML-DSA inverse (as ntt_mldsa.intt_program): pass A, layers len = 1, 2, 4 (within words) and
    8, 16 (across) on the words 8c..8c+7; pass B, layers len = 32, 64, 128 on the words
    {g, g+4, ..., g+28}, then bn.mulvm by 256^-1 on the last layer's sums.
  ML-KEM inverse (as ntt_mlkem.intt_program): pass A, layers len = 2, 4, 8 (within words) and
    16, 32, 64 (across) on the words 8c..8c+7; pass B, layer len = 128 on the words
    {g, g+8} (g = 4h..4h+3), then bn.mulvm by 128^-1 on every word.
"""
from . import ntt_mldsa, ntt_mlkem


def _across(words, regs, length, lanes, zeta):
    """Butterflies of one across-register layer on the chunk `words` (word index -> reg via
    regs); the partner of word r is r + length // lanes; zeta(word) -> (twiddle reg, tidx)."""
    dist = length // lanes
    out = []
    for i, r in enumerate(words):
        if r + dist in words and (r // dist) % 2 == 0:
            t, tidx = zeta(r)
            out.append(f"bn.bfly.ct w{regs[r]}, w{regs[r + dist]}, w{t}, r, {tidx}")
    return out


def _load(words):
    return [f"bn.lw w{i}, {32 * r}(x0)" for i, r in enumerate(words)]


def _store(words):
    return [f"bn.sw w{i}, {32 * r}(x0)" for i, r in enumerate(words)]


def _forward_pass1(groups, lanes, tidx):
    """Layers len = 128, 64, 32 on each group of 8 words in w0..w7, zetas 1..7 in w8;
    tidx(layer, length, word) is the lane operand of word's butterfly."""
    out = []
    for words in groups:
        regs = {r: i for i, r in enumerate(words)}
        out += _load(words)
        for layer, length in ((0, 128), (1, 64), (2, 32)):
            out += _across(words, regs, length, lanes,
                           lambda r, layer=layer, length=length: (8, tidx(layer, length, r)))
        out += _store(words)
    return out


def mldsa_program() -> str:
    twid = ntt_mldsa.TWID
    out = ["addi x31, x0, 1", "csrrw x0, VMODE, x31", f"bn.lw w8, {twid}(x0)"]   # zetas 1..7
    out += _forward_pass1([[g + 4 * i for i in range(8)] for g in range(4)], 8,
                          lambda layer, length, r: ((1 << layer) + 8 * r // (2 * length)) % 8)
    out.append(f"bn.lw w9, {twid + 32}(x0)")             # zetas 8..15 (len 16)
    for c in range(4):                                   # pass 2
        words = list(range(8 * c, 8 * c + 8))
        regs = {r: r - 8 * c for r in words}
        tw = {2 + c // 2: 10, 4 + c: 11, 8 + 2 * c: 12, 9 + 2 * c: 13,
              16 + 4 * c: 14, 17 + 4 * c: 15}
        out += [f"bn.lw w{t}, {twid + 32 * word}(x0)" for word, t in tw.items()
                if not (t == 10 and c % 2)]              # word 2 + c // 2 serves two chunks
        out += _load(words)
        out += _across(words, regs, 16, 8, lambda r: (9, (8 + r // 4) % 8))
        out += _across(words, regs, 8, 8, lambda r: (tw[(16 + r // 2) // 8], (16 + r // 2) % 8))
        for length, first in ((4, 32), (2, 64), (1, 128)):
            if length == 1:                              # words 18+4c, 19+4c: into w11, w12
                tw.update({18 + 4 * c: 11, 19 + 4 * c: 12})
                out += [f"bn.lw w{tw[18 + 4 * c]}, {twid + 32 * (18 + 4 * c)}(x0)",
                        f"bn.lw w{tw[19 + 4 * c]}, {twid + 32 * (19 + 4 * c)}(x0)"]
            per_reg = 8 // (2 * length)
            for i in range(0, 8, 2):
                k = first + (8 * c + i) * per_reg
                out.append(f"bn.bfly.ct w{i}, w{i + 1}, w{tw[k // 8]}, l{length}, {k % 8}")
        out += _store(words)
    out.append("ecall")
    return "\n".join(out) + "\n"


def mlkem_program() -> str:
    twid = ntt_mlkem.TWID
    out = [f"bn.lw w8, {twid}(x0)"]                      # zetas 1..15, tidx = k - 1
    out += _forward_pass1([[g + 2 * i for i in range(8)] for g in range(2)], 16,
                          lambda layer, length, r: (1 << layer) + 16 * r // (2 * length) - 1)
    out.append(f"bn.lw w9, {twid + 32}(x0)")             # zetas 16..31 (len 8)
    for c in range(2):                                   # pass 2
        words = list(range(8 * c, 8 * c + 8))
        regs = {r: r - 8 * c for r in words}
        tw = {1: 9, 2 + c: 10, 4 + 2 * c: 11, 5 + 2 * c: 12}
        out += [f"bn.lw w{t}, {twid + 32 * word}(x0)" for word, t in tw.items() if word != 1]
        out += _load(words)
        out += _across(words, regs, 16, 16, lambda r: (8, 8 + r // 2 - 1))
        for length, first_word in ((8, 1), (4, 2), (2, 4)):
            groups_per_reg = 16 // (2 * length)
            for pair in range(4 * c, 4 * c + 4):
                g0 = pair * 2 * groups_per_reg
                word, lane = divmod(g0, 16)
                out.append(f"bn.bfly.ct w{2 * pair - 8 * c}, w{2 * pair + 1 - 8 * c}, "
                           f"w{tw[first_word + word]}, l{length}, {lane}")
        out += _store(words)
    out.append("ecall")
    return "\n".join(out) + "\n"


def mldsa_intt_program() -> str:
    itw = ntt_mldsa.ITWID
    out = ["addi x31, x0, 1", "csrrw x0, VMODE, x31", f"bn.lw w14, {itw + 32 * 30}(x0)"]
    for c in range(4):                                   # pass A
        words = list(range(8 * c, 8 * c + 8))
        tw = {4 * c + j: 8 + j for j in range(4)}        # len 1: 4 words
        tw.update({24 + c: 12, 28 + c // 2: 13})
        out += [f"bn.lw w{t}, {itw + 32 * word}(x0)" for word, t in tw.items()
                if not (t == 13 and c % 2)]              # word 28 + c // 2 serves two chunks
        out += _load(words)
        for length, first in ((1, 0), (2, 128), (4, 192)):
            if length == 2:                              # len 2 words into w15 and w8
                tw.update({16 + 2 * c: 15, 17 + 2 * c: 8})
                out += [f"bn.lw w15, {itw + 32 * (16 + 2 * c)}(x0)",
                        f"bn.lw w8, {itw + 32 * (17 + 2 * c)}(x0)"]
            per_reg = 8 // (2 * length)
            for i in range(0, 8, 2):
                word, lane = divmod(first + (8 * c + i) * per_reg, 8)
                out.append(f"bn.bfly.gs w{i}, w{i + 1}, w{tw[word]}, l{length}, {lane}")
        for i in range(0, 8, 2):                         # len 8: words (r, r+1), block r/2
            word, lane = divmod(224 + (8 * c + i) // 2, 8)
            out.append(f"bn.bfly.gs w{i}, w{i + 1}, w{tw[word]}, r, {lane}")
        for i in (0, 1, 4, 5):                           # len 16: words (r, r+2), word 30
            out.append(f"bn.bfly.gs w{i}, w{i + 2}, w14, r, {(8 * c + i) // 4}")
        out += _store(words)
    out += [f"bn.lw w8, {itw + 32 * 31}(x0)", f"bn.lw w9, {itw + 32 * 32}(x0)"]
    for g in range(4):                                   # pass B
        words = [g + 4 * i for i in range(8)]
        out += _load(words)
        for dist, length, lane0 in ((1, 32, 0), (2, 64, 4), (4, 128, 6)):
            for i in range(8):
                if i & dist:
                    continue
                out.append(f"bn.bfly.gs w{i}, w{i + dist}, w8, r, "
                           f"{lane0 + 8 * words[i] // (2 * length)}")
        out += [f"bn.mulvm w{i}, w{i}, w9" for i in range(4)]
        out += _store(words)
    out.append("ecall")
    return "\n".join(out) + "\n"


def mlkem_intt_program() -> str:
    itw, lane0 = ntt_mlkem.ITWID, {16: 0, 32: 8, 64: 12, 128: 14}
    out = [f"bn.lw w14, {itw + 32 * 6}(x0)", f"bn.lw w15, {itw + 32 * 7}(x0)"]
    for c in range(2):                                   # pass A
        words = list(range(8 * c, 8 * c + 8))
        tw = {2 * c: 8, 2 * c + 1: 9, 4 + c: 10, 6: 14}
        out += [f"bn.lw w{t}, {itw + 32 * word}(x0)" for word, t in tw.items() if t != 14]
        out += _load(words)
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
        out += _store(words)
    out.append(f"bn.lw w8, {ntt_mlkem.ISCALE}(x0)")
    for h in range(2):                                   # pass B
        words = [r for g in range(4 * h, 4 * h + 4) for r in (g, g + 8)]
        out += _load(words)
        out += [f"bn.bfly.gs w{i}, w{i + 1}, w15, r, {lane0[128]}" for i in range(0, 8, 2)]
        out += [f"bn.mulvm w{i}, w{i}, w8" for i in range(8)]
        out += _store(words)
    out.append("ecall")
    return "\n".join(out) + "\n"
