"""Assembly-text helpers shared by the whole-program kernels (mlkem.py, mldsa.py)."""


def u32(vals) -> bytes:
    """32-bit little-endian words (values reduced mod 2^32)."""
    return b"".join((v % (1 << 32)).to_bytes(4, "little") for v in vals)


def li(reg: int, val: int) -> list[str]:
    """Load a 32-bit constant into x{reg}: addi, or lui + addi."""
    hi, lo = (val + 0x800) >> 12, val & 0xFFF
    lo = lo - 0x1000 if lo >= 0x800 else lo
    if hi == 0:
        return [f"addi x{reg}, x0, {lo}"]
    return [f"lui x{reg}, {hi & 0xFFFFF}"] + ([f"addi x{reg}, x{reg}, {lo}"] if lo else [])


def mem(addr: int) -> str:
    """Wide memory operand for an absolute DMEM address: offsets reach 16 KiB from x0, the
    upper 16 KiB go through x30 = 16384 (the programs set it at the start)."""
    assert addr % 32 == 0 and 0 <= addr < 32768, addr
    return f"{addr}(x0)" if addr < 16384 else f"{addr - 16384}(x30)"


def loop(n: int, body: list[str]) -> list[str]:
    """`body` n times with a zero-overhead loopi (no loop for n = 1)."""
    if n == 1:
        return body
    return [f"loopi {n}, {len(body)}"] + body


def across(words, regs, length, lanes, zeta) -> list[str]:
    """CT butterflies (dist r) of one across-register NTT layer on the chunk `words` (word
    index -> register number via regs); the partner of word r is r + length // lanes;
    zeta(word) -> (twiddle register number, tidx)."""
    dist = length // lanes
    out = []
    for r in words:
        if r + dist in words and (r // dist) % 2 == 0:
            t, tidx = zeta(r)
            out.append(f"bn.bfly.ct w{regs[r]}, w{regs[r + dist]}, w{t}, r, {tidx}")
    return out
