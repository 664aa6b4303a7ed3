# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""Transaction-level model of the KMAC sponge engine (ip/kmac/rtl/sponge.py): same commands, same
errors, same output stream, no cycles. Meant for the coprocessor ISS and as a test oracle for
sequencing (never for hash values: those come from hashlib / pycryptodome).

Missing (later): a cycle model (permutation latency 24/rpc, lane-serial absorb 1 lane/cycle,
squeeze 1 lane/cycle into the 256-bit digest word, eager refill timing) and the front-end
arbitration (owner CPU / side-load).
"""
from dataclasses import dataclass, field

from ip.kmac.rtl.keccak import RC, RHO

SHA3, SHAKE, CSHAKE = 0, 1, 2
STRENGTHS = {0: 128, 1: 224, 2: 256, 3: 384, 4: 512}
DSBYTE = {SHA3: 0x06, SHAKE: 0x1F, CSHAKE: 0x04}
OP_START, OP_PAD, OP_FINISH = 1, 2, 3
IDLE, ABSORB, SQUEEZE = 0, 1, 2

# Error bits, shared with the RTL (ip/kmac/rtl/sponge.py) and the register map.
ERR_MODE, ERR_MASK, ERR_OVERSIZE, ERR_UNDERSIZE, ERR_SEQUENCE = 1, 2, 4, 8, 16
ERR_DIGEST_EARLY, ERR_OWNER = 32, 64


def rate_bytes(mode: int, strength_code: int) -> int | None:
    """Rate for a (mode, strength code), None when the combination is unsupported."""
    s = STRENGTHS.get(strength_code)
    if mode == SHA3 and s in (224, 256, 384, 512):
        return 200 - 2 * s // 8
    if mode in (SHAKE, CSHAKE) and s in (128, 256):
        return 200 - 2 * s // 8
    return None


def keccak_f(lanes: list[int]) -> list[int]:
    """Keccak-f[1600] on 25 lanes (index x + 5y), FIPS 202 section 3.3."""
    a = list(lanes)
    m = (1 << 64) - 1
    rot = lambda v, n: ((v << n) | (v >> (64 - n))) & m if n % 64 else v
    for rc in RC:
        c = [a[x] ^ a[x + 5] ^ a[x + 10] ^ a[x + 15] ^ a[x + 20] for x in range(5)]
        d = [c[(x - 1) % 5] ^ rot(c[(x + 1) % 5], 1) for x in range(5)]
        a = [a[i] ^ d[i % 5] for i in range(25)]
        b = [0] * 25
        for x in range(5):
            for y in range(5):
                b[y + 5 * ((2 * x + 3 * y) % 5)] = rot(a[x + 5 * y], RHO[(x, y)])
        a = [b[i] ^ (~b[(i % 5 + 1) % 5 + 5 * (i // 5)] & b[(i % 5 + 2) % 5 + 5 * (i // 5)])
             for i in range(25)]
        a[0] ^= rc
    return a


def mask_range(mask: int) -> tuple[int, int] | None:
    """[lo, hi) of a contiguous non-empty 32-bit byte mask, None otherwise."""
    if mask == 0 or mask >> 32:
        return None
    low = mask & -mask
    if (mask + low) & mask:
        return None
    return low.bit_length() - 1, mask.bit_length()


@dataclass
class SpongeModel:
    phase: int = IDLE
    error: int = 0                 # bits of the last failing request (cleared by START)
    _rate: int = 0
    _ds: int = 0
    _len: int = 0
    _count: int = 0
    _buf: bytearray = field(default_factory=bytearray)
    _lanes: list = field(default_factory=lambda: [0] * 25)
    _out: bytearray = field(default_factory=bytearray)

    def _abort(self, code: int) -> int:
        self.error |= code
        self.phase = IDLE
        self._buf = bytearray()
        self._lanes = [0] * 25
        self._out = bytearray()
        return code

    def _absorb_block(self, block: bytes):
        for i in range(len(block) // 8):
            self._lanes[i] ^= int.from_bytes(block[8 * i:8 * i + 8], "little")
        self._lanes = keccak_f(self._lanes)

    def start(self, mode: int, strength: int, msg_len: int = 0) -> int:
        """Returns the error bits raised (0 = accepted)."""
        self._abort(0)
        self.error = 0
        r = rate_bytes(mode, strength)
        if r is None:
            return self._abort(ERR_MODE)
        self._rate, self._ds, self._len, self._count = r, DSBYTE[mode], msg_len, 0
        self.phase = ABSORB
        return 0

    def message(self, data: bytes, mask: int) -> int:
        """One 32-byte word with a byte mask; the selected bytes are appended."""
        if self.phase != ABSORB:
            return self._abort(ERR_SEQUENCE)
        rng = mask_range(mask)
        if rng is None:
            return self._abort(ERR_MASK)
        chunk = bytes(data[rng[0]:rng[1]])
        if self._len and self._count + len(chunk) > self._len:
            return self._abort(ERR_OVERSIZE)
        self._count += len(chunk)
        self._buf += chunk
        while len(self._buf) >= self._rate:
            self._absorb_block(bytes(self._buf[:self._rate]))
            del self._buf[:self._rate]
        if self._len and self._count == self._len:
            self._finish()
        return 0

    def pad_block(self) -> int:
        if self.phase != ABSORB:
            return self._abort(ERR_SEQUENCE)
        if self._buf:
            self._absorb_block(bytes(self._buf) + bytes(self._rate - len(self._buf)))
            self._buf = bytearray()
        return 0

    def finish(self) -> int:
        if self.phase != ABSORB:
            return self._abort(ERR_SEQUENCE)
        if self._len and self._count < self._len:
            return self._abort(ERR_UNDERSIZE)
        self._finish()
        return 0

    def _finish(self):
        blk = bytearray(self._buf) + bytes([self._ds]) + bytes(self._rate - len(self._buf) - 1)
        blk[-1] |= 0x80
        self._absorb_block(bytes(blk))
        self._buf = bytearray()
        self.phase = SQUEEZE

    def digest_word(self) -> bytes:
        """Next 32 bytes of the output stream (word k = bytes [32k, 32k+32))."""
        if self.phase != SQUEEZE:
            self._abort(ERR_SEQUENCE)
            return bytes(32)
        while len(self._out) < 32:
            self._out += b"".join(l.to_bytes(8, "little") for l in self._lanes)[:self._rate]
            self._lanes = keccak_f(self._lanes)
        w = bytes(self._out[:32])
        del self._out[:32]
        return w
