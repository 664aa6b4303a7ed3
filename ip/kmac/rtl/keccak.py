# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""Keccak-f[1600] permutation core (FIPS 202, section 3), iterative: `rounds_per_cycle` rounds a cycle.

The state is 1600 bits, lane (x, y) at bits [64*(x+5*y), +64), bytes little-endian, so byte k of
the state is bits [8k, 8k+8): the byte order of FIPS 202's bit strings.
"""
from amaranth import Cat, Const, Module, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

LANES = 25
NROUNDS = 24


def rho_offsets() -> dict[tuple[int, int], int]:
    """rho rotation of lane (x, y) (FIPS 202 Algorithm 2)."""
    off = {(0, 0): 0}
    x, y = 1, 0
    for t in range(24):
        off[(x, y)] = ((t + 1) * (t + 2) // 2) % 64
        x, y = y, (2 * x + 3 * y) % 5
    return off


def _rc_bit(t: int) -> int:
    """rc(t) of FIPS 202 Algorithm 5: an LFSR over GF(2)[x]/(x^8+x^6+x^5+x^4+1)."""
    if t % 255 == 0:
        return 1
    r = 0x01
    for _ in range(t % 255):
        r <<= 1
        if r & 0x100:
            r ^= 0x171
    return r & 1


def round_constants() -> list[int]:
    rcs = []
    for ir in range(NROUNDS):
        rc = 0
        for j in range(7):
            rc |= _rc_bit(j + 7 * ir) << ((1 << j) - 1)
        rcs.append(rc)
    return rcs


RHO = rho_offsets()
RC = round_constants()


def _rotl(v, n):
    n %= 64
    return v if n == 0 else Cat(v[64 - n:], v[:64 - n])


def lanes_of(state):
    """The 25 lanes of a 1600-bit value as a[x][y]."""
    return [[state[64 * (x + 5 * y):64 * (x + 5 * y + 1)] for y in range(5)] for x in range(5)]


def theta_rho_pi(m, a, name):
    """theta, rho and pi on lanes a[x][y], returning the lanes b[x][y] that chi reads. They are
    linear over GF(2), so a masked core applies them to each share on its own. Theta's column
    parities are named signals so that simulators and Verilog see shared nets instead of
    duplicated expression trees."""
    c = [Signal(64, name=f"{name}_c{x}") for x in range(5)]
    m.d.comb += [c[x].eq(a[x][0] ^ a[x][1] ^ a[x][2] ^ a[x][3] ^ a[x][4]) for x in range(5)]
    d = [c[(x - 1) % 5] ^ _rotl(c[(x + 1) % 5], 1) for x in range(5)]
    a = [[a[x][y] ^ d[x] for y in range(5)] for x in range(5)]
    b = [[None] * 5 for _ in range(5)]
    for x in range(5):
        for y in range(5):
            b[y][(2 * x + 3 * y) % 5] = _rotl(a[x][y], RHO[(x, y)])
    return b


def keccak_round(m, state, rc, name="r"):
    """One round (theta, rho, pi, chi, iota) into a new 1600-bit signal; rc is 64 bits. The
    round output is a named signal (shared nets, as theta's parities)."""
    b = theta_rho_pi(m, lanes_of(state), name)
    out = [[b[x][y] ^ (~b[(x + 1) % 5][y] & b[(x + 2) % 5][y]) for y in range(5)] for x in range(5)]
    out[0][0] = out[0][0] ^ rc
    res = Signal(1600, name=f"{name}_out")
    m.d.comb += res.eq(Cat(*[out[i % 5][i // 5] for i in range(LANES)]))
    return res


class KeccakCore(wiring.Component):
    """Iterative Keccak-f[1600]: 24 / rounds_per_cycle cycles per permutation.

    `load` writes `load_data` into the state (the sponge XORs its message into it); `start`
    begins a permutation, `busy` is high while it runs and `done` pulses in its last cycle's
    successor (the state then holds the result). `load` and `start` are ignored while busy.
    """
    load: In(1)
    load_data: In(1600)
    start: In(1)
    busy: Out(1)
    done: Out(1)
    state: Out(1600)

    def __init__(self, rounds_per_cycle: int = 1):
        if NROUNDS % rounds_per_cycle:
            self._MustUse__silence = True   # a rejected core is never elaborated: no warning
            raise ValueError(f"rounds_per_cycle must divide 24, got {rounds_per_cycle}")
        self.rounds_per_cycle = rounds_per_cycle
        self.cycles = NROUNDS // rounds_per_cycle
        super().__init__()

    def elaborate(self, platform):
        m = Module()
        rpc = self.rounds_per_cycle
        st = Signal(1600)
        step = Signal(range(self.cycles))
        m.d.comb += self.state.eq(st)

        # Round constants for the rounds of step i, as a small ROM indexed by step.
        nxt = st
        for k in range(rpc):
            rc = Signal(64, name=f"rc{k}")
            with m.Switch(step):
                for i in range(self.cycles):
                    with m.Case(i):
                        m.d.comb += rc.eq(Const(RC[i * rpc + k], 64))
            nxt = keccak_round(m, nxt, rc, name=f"round{k}")

        m.d.sync += self.done.eq(0)
        with m.If(self.busy):
            m.d.sync += st.eq(nxt)
            with m.If(step == self.cycles - 1):
                m.d.sync += [step.eq(0), self.busy.eq(0), self.done.eq(1)]
            with m.Else():
                m.d.sync += step.eq(step + 1)
        with m.Else():
            with m.If(self.load):
                m.d.sync += st.eq(self.load_data)
            with m.If(self.start):
                m.d.sync += self.busy.eq(1)
        return m
