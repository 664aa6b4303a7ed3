"""ML-DSA forward NTT (FIPS 204 Algorithm 41) as straight-line ACC assembly (VMODE 1).

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


def _tw(word: int) -> int:
    return TWID + 32 * word


def program() -> str:
    out = []
    # pass 1: layers len = 128..16 on the even, then odd registers
    out += [f"bn.lw w16, {_tw(0)}(x0)", f"bn.lw w17, {_tw(1)}(x0)"]
    for p in (0, 1):
        regs = [p + 2 * i for i in range(16)]
        out += [f"bn.lw w{i}, {POLY + 32 * r}(x0)" for i, r in enumerate(regs)]
        layer, length = 0, 128
        while length >= 16:
            dw = length // 16                      # distance in w index
            for i in range(16):
                if i & dw:
                    continue
                k = (1 << layer) + (8 * regs[i]) // (2 * length)
                out.append(f"bn.bfly.ct w{i}, w{i + dw}, w{16 + k // 8}, r, {k % 8}")
            layer, length = layer + 1, length // 2
        out += [f"bn.sw w{i}, {POLY + 32 * r}(x0)" for i, r in enumerate(regs)]
    # pass 2: layers len = 8, 4, 2, 1 on registers 16h..16h+15
    for h in (0, 1):
        base = 16 * h
        out += [f"bn.lw w{i}, {POLY + 32 * (base + i)}(x0)" for i in range(16)]
        # twiddle words needed: len 8: word 2+h; len 4: 4+2h..; len 2: 8+4h..; len 1: 16+8h..
        tw = [2 + h] + [4 + 2 * h + j for j in range(2)] + [8 + 4 * h + j for j in range(4)] \
            + [16 + 8 * h + j for j in range(8)]
        reg_of = {word: 16 + j for j, word in enumerate(tw)}
        out += [f"bn.lw w{16 + j}, {_tw(word)}(x0)" for j, word in enumerate(tw)]
        for i in range(0, 16, 2):                  # len = 8: pairs (r, r+1)
            k = 16 + (base + i) // 2
            out.append(f"bn.bfly.ct w{i}, w{i + 1}, w{reg_of[k // 8]}, r, {k % 8}")
        for length, first in ((4, 32), (2, 64), (1, 128)):
            per_reg = 8 // (2 * length)
            for i in range(0, 16, 2):
                k = first + (base + i) * per_reg   # zeta of wa's first group
                out.append(f"bn.bfly.ct w{i}, w{i + 1}, w{reg_of[k // 8]}, l{length}, {k % 8}")
        out += [f"bn.sw w{i}, {POLY + 32 * (base + i)}(x0)" for i in range(16)]
    out.append("ecall")
    return "\n".join(out) + "\n"
