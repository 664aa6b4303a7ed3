"""ML-KEM NTT (FIPS 203 Algorithm 9) and inverse (Algorithm 10) as straight-line ACC assembly.

Layout: polynomial at DMEM[POLY] as 16 words of 16 x 16-bit lanes (word r = coefficients
16r..16r+15), result in place (natural FIPS 203 order). Twiddles at DMEM[TWID]: 8 words of
zetas in Montgomery form (zeta * 2^16 mod q), built by `twiddle_words()`:
  word 0: zetas[1..15] (layers len = 128..16, broadcast with dist r, tidx = k - 1)
  word 1: zetas[16..31] (len = 8), words 2-3: zetas[32..63] (len = 4),
  words 4-7: zetas[64..127] (len = 2).
Registers: w0..w15 data, w16..w23 twiddles. VMODE must be 0.

This is the schedule the architecture's cycle budget assumes (doc/architecture.md 3.1).
"""
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


def butterflies() -> list[str]:
    """The 56 bn.bfly.ct of the forward NTT on w0..w15, twiddle words in w16..w23."""
    lines = []
    k = 1
    length = 128
    while length >= 16:                      # across registers
        dreg = length // 16
        for start in range(0, 256, 2 * length):
            r0 = start // 16
            for r in range(r0, r0 + dreg):
                lines.append(f"bn.bfly.ct w{r}, w{r + dreg}, w16, r, {k - 1}")
            k += 1
        length //= 2
    for length, first_word in ((8, 1), (4, 2), (2, 4)):   # within registers
        groups_per_reg = 16 // (2 * length)
        for pair in range(8):
            g0 = pair * 2 * groups_per_reg               # first block index of wa
            word, lane = divmod(g0, 16)                  # zeta index = 16 * first_word + g0
            lines.append(f"bn.bfly.ct w{2 * pair}, w{2 * pair + 1}, w{16 + first_word + word}, "
                         f"l{length}, {lane}")
    return lines


def program() -> str:
    lines = [f"bn.lw w{r}, {POLY + 32 * r}(x0)" for r in range(16)]
    lines += [f"bn.lw w{16 + t}, {TWID + 32 * t}(x0)" for t in range(8)]
    lines += butterflies()
    lines += [f"bn.sw w{r}, {POLY + 32 * r}(x0)" for r in range(16)]
    lines.append("ecall")
    return "\n".join(lines) + "\n"


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


def inverse_butterflies() -> list[str]:
    """The 56 bn.bfly.gs of the inverse NTT on w0..w15, twiddle words in w16..w23 (the final
    scaling, bn.mulvm by the ISCALE word, is the caller's)."""
    lines = []
    for length, first_word in ((2, 0), (4, 4), (8, 6)):     # within registers
        groups_per_reg = 16 // (2 * length)
        for pair in range(8):
            word, lane = divmod(pair * 2 * groups_per_reg, 16)
            lines.append(f"bn.bfly.gs w{2 * pair}, w{2 * pair + 1}, w{16 + first_word + word}, "
                         f"l{length}, {lane}")
    lane0 = {16: 0, 32: 8, 64: 12, 128: 14}
    for length in (16, 32, 64, 128):                      # across registers
        dreg = length // 16
        for b, start in enumerate(range(0, 256, 2 * length)):
            r0 = start // 16
            for r in range(r0, r0 + dreg):
                lines.append(f"bn.bfly.gs w{r}, w{r + dreg}, w23, r, {lane0[length] + b}")
    return lines


def intt_program() -> str:
    """FIPS 203 Algorithm 10 (with the final multiplication by 3303), in place."""
    lines = [f"bn.lw w{r}, {POLY + 32 * r}(x0)" for r in range(16)]
    lines += [f"bn.lw w{16 + t}, {ITWID + 32 * t}(x0)" for t in range(8)]
    lines.append(f"bn.lw w24, {ISCALE}(x0)")
    lines += inverse_butterflies()
    lines += [f"bn.mulvm w{r}, w{r}, w24" for r in range(16)]
    lines += [f"bn.sw w{r}, {POLY + 32 * r}(x0)" for r in range(16)]
    lines.append("ecall")
    return "\n".join(lines) + "\n"


def iscale_word() -> list[int]:
    return [pow(128, -1, Q) * R % Q] * 16
