# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""NIST SP 800-185 encodings (section 2.3), formed by the driver, not the hardware.

The hardware only knows the cSHAKE padding and PAD_BLOCK (zero-fill and absorb the current
rate block), so cSHAKE = bytepad(encode_string(N) || encode_string(S), rate) streamed, then
PAD_BLOCK, then the message; KMAC adds bytepad(encode_string(K), rate), PAD_BLOCK, and the
message suffix right_encode(L) (right_encode(0) for the XOF variant).
Lengths are in bytes here because the block works on whole bytes; encodings use bits.
"""

RATE = {("sha3", 224): 144, ("sha3", 256): 136, ("sha3", 384): 104, ("sha3", 512): 72,
        ("shake", 128): 168, ("shake", 256): 136, ("cshake", 128): 168, ("cshake", 256): 136}


def left_encode(x: int) -> bytes:
    """left_encode(x): the byte count n first, then x big-endian in n >= 1 bytes."""
    if not 0 <= x < 1 << 2040:
        raise ValueError("left_encode: x out of range")
    n = max(1, (x.bit_length() + 7) // 8)
    return bytes([n]) + x.to_bytes(n, "big")


def right_encode(x: int) -> bytes:
    if not 0 <= x < 1 << 2040:
        raise ValueError("right_encode: x out of range")
    n = max(1, (x.bit_length() + 7) // 8)
    return x.to_bytes(n, "big") + bytes([n])


def encode_string(s: bytes) -> bytes:
    return left_encode(8 * len(s)) + bytes(s)


def bytepad_prefix(x: bytes, w: int) -> bytes:
    """left_encode(w) || x, unpadded: the hardware's PAD_BLOCK supplies the zero fill."""
    return left_encode(w) + bytes(x)


def bytepad(x: bytes, w: int) -> bytes:
    z = bytepad_prefix(x, w)
    return z + bytes(-len(z) % w)


def cshake_prefix(rate: int, name: bytes = b"", custom: bytes = b"") -> bytes:
    """What the driver streams before PAD_BLOCK for cSHAKE(N, S)."""
    return bytepad_prefix(encode_string(name) + encode_string(custom), rate)


def kmac_key_block(rate: int, key: bytes) -> bytes:
    """Streamed after the cSHAKE prefix's PAD_BLOCK, then another PAD_BLOCK."""
    return bytepad_prefix(encode_string(key), rate)


def kmac_suffix(outlen_bytes: int, xof: bool) -> bytes:
    """Appended to the KMAC message: right_encode(L) in bits, right_encode(0) for KMACXOF."""
    return right_encode(0 if xof else 8 * outlen_bytes)


def segments(mode: str, strength: int, msg: bytes, key: bytes = b"", name: bytes = b"",
             custom: bytes = b"", outlen: int = 0) -> tuple[str, int, list]:
    """A user-level operation as (engine mode, strength, [bytes | "PAD"]) for any driver.

    `mode` is sha3 / shake / cshake / kmac / kmacxof. cSHAKE with empty N and S is SHAKE
    (SP 800-185 3.3), so it becomes engine mode shake.
    """
    if mode in ("sha3", "shake"):
        return mode, strength, [msg]
    rate = RATE[("cshake", strength)]
    if mode == "cshake":
        if not name and not custom:
            return "shake", strength, [msg]
        return "cshake", strength, [cshake_prefix(rate, name, custom), "PAD", msg]
    if mode in ("kmac", "kmacxof"):
        return "cshake", strength, [cshake_prefix(rate, b"KMAC", custom), "PAD",
                                    kmac_key_block(rate, key), "PAD",
                                    msg + kmac_suffix(outlen, mode == "kmacxof")]
    raise ValueError(f"unknown mode {mode!r}")
