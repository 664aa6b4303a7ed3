# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
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
Written on virtual registers and made real by asm_util.place_and_schedule (see
ip/acc/kernels/mldsa/ntt.py): NTT 140, INTT 181 cycles (ISS = RTL).
"""
from ip.acc.kernels.asm_util import across, base_of, place_and_schedule, poly_io, twiddle_loads

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


def ntt_body(base="x0", twid=TWID, load=None, store=None, mem=None) -> list[str]:
    """Forward ML-KEM NTT of the polynomial at 0(base), in place (VMODE 0); twiddle table
    at the absolute address twid (not overlapping the polynomial). Written on virtual
    registers, then allocated in w0..w15 and list-scheduled (asm_util.place_and_schedule).
    load(words, base, regs) -> lines that put word words[i] into the virtual register
    regs[i] for pass 1 (default: plain loads, placed next to their first use);
    store(words, base, regs) -> lines that store regs[i] as the word words[i] after pass 2
    (default plain stores). Their temporaries: virtual names of their own ("%name")."""
    mem = mem or (lambda addr: f"{addr}(x0)")
    loads, stores, out = twiddle_loads(mem, twid, 8), {}, []
    for g in range(2):                                   # pass 1: zetas 1..15, tidx = k - 1
        words = [g + 2 * i for i in range(8)]
        regs = {r: f"%a{r}" for r in words}
        poly_io(loads, stores, "%a", words, 0, base, base)
        if load:
            for r in words:
                del loads[regs[r]]
            out += load(words, base, [regs[r] for r in words])
        for layer, length in ((0, 128), (1, 64), (2, 32)):
            out += across(words, regs, length, 16,
                          lambda r, layer=layer, length=length:
                          ("%t0", (1 << layer) + 16 * r // (2 * length) - 1))
    for c in range(2):                                   # pass 2
        words = list(range(8 * c, 8 * c + 8))
        regs = {r: f"%b{r}" for r in words}
        poly_io(loads, stores, "%b", words, 0, base, base)
        for pair in range(4 * c, 4 * c + 4):             # no layer mixes two pairs
            r = 2 * pair
            out += across([r, r + 1], regs, 16, 16, lambda r: ("%t0", 8 + r // 2 - 1))
            for length, first_word in ((8, 1), (4, 2), (2, 4)):
                word, lane = divmod(pair * 2 * (16 // (2 * length)), 16)
                out.append(f"bn.bfly.ct {regs[r]}, {regs[r + 1]}, "
                           f"%t{first_word + word}, l{length}, {lane}")
        if store:
            for r in words:
                del stores[regs[r]]
            out += store(words, base, [regs[r] for r in words])
    return place_and_schedule(out, loads, stores, [(base_of(mem(twid)), base)])


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


def intt_body(base="x0", itwid=ITWID, iscale=ISCALE, mem=None, fin=None, noalias=()) -> list[str]:
    """Inverse ML-KEM NTT of the polynomial at 0(base), in place, with the final bn.mulvm
    by the scale word at the absolute address iscale (VMODE 0; itwid: the inverse twiddle
    table; neither overlaps the polynomial). Allocated in w0..w15 and list-scheduled.
    fin = (consume, loads): the result words are not stored but consumed in registers,
    consume(r, reg) -> lines on virtual registers of their own (decaps: the re-encryption
    compare of u'), loads {virtual name: load line} of their operands (absolute addresses
    apart from the polynomial); noalias: more pairs of base registers that never address the
    same bytes (fin's operands' base and the polynomial's)."""
    mem = mem or (lambda addr: f"{addr}(x0)")
    lane0 = {16: 0, 32: 8, 64: 12, 128: 14}
    loads, stores, out = twiddle_loads(mem, itwid, 8), {}, []
    loads["%s"] = f"bn.lw %s, {mem(iscale)}"
    for c in range(2):                                   # pass A
        words = list(range(8 * c, 8 * c + 8))
        poly_io(loads, stores, "%a", words, 0, base, base)
        for pair in range(4 * c, 4 * c + 4):             # len 2, 4, 8: within the pair
            for length, first_word in ((2, 0), (4, 4), (8, 6)):
                word, lane = divmod(pair * 2 * (16 // (2 * length)), 16)
                out.append(f"bn.bfly.gs %a{2 * pair}, %a{2 * pair + 1}, "
                           f"%t{first_word + word}, l{length}, {lane}")
        for dist, length in ((1, 16), (2, 32), (4, 64)):
            for i in range(8):
                if not i & dist:
                    b = 16 * (8 * c + i) // (2 * length)
                    out.append(f"bn.bfly.gs %a{8 * c + i}, %a{8 * c + i + dist}, %t7, r, "
                               f"{lane0[length] + b}")
    poly_io(loads, stores, "%b", range(16), 0, base, base)
    for g in range(8):                                   # pass B: words (g, g+8)
        out += [f"bn.bfly.gs %b{g}, %b{g + 8}, %t7, r, {lane0[128]}",
                f"bn.mulvm %b{g}, %b{g}, %s", f"bn.mulvm %b{g + 8}, %b{g + 8}, %s"]
        if fin:
            for r in (g, g + 8):
                del stores[f"%b{r}"]
                out += fin[0](r, f"%b{r}")
    if fin:
        loads.update(fin[1])
    return place_and_schedule(out, loads, stores, [(base_of(mem(itwid)), base),
                                                   (base_of(mem(iscale)), base), *noalias])


def intt_program() -> str:
    """FIPS 203 Algorithm 10 (with the final multiplication by 3303), in place."""
    return "\n".join(intt_body() + ["ecall"]) + "\n"


def iscale_word() -> list[int]:
    return [pow(128, -1, Q) * R % Q] * 16
