# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""Reference outputs from hashlib / pycryptodome only (never the design's own output).

pycryptodome's public API lacks cSHAKE's N and KMACXOF; both are formed with its own
cSHAKE*._new(data, custom, function) and its KMAC module's encoders, independent of ours.
"""
import hashlib

import Crypto.Hash.cSHAKE128 as _c128
import Crypto.Hash.cSHAKE256 as _c256
import Crypto.Hash.KMAC128 as _k128
from Crypto.Hash import KMAC128, KMAC256

MODES = ["sha3-224", "sha3-256", "sha3-384", "sha3-512", "shake128", "shake256",
         "cshake128", "cshake256", "kmac128", "kmac256"]


def split_mode(mode: str) -> tuple[str, int]:
    """'sha3-256' -> ('sha3', 256), 'kmac128' -> ('kmac', 128)."""
    if mode.startswith("sha3-"):
        return "sha3", int(mode[5:])
    return mode[:-3], int(mode[-3:])


def reference(mode: str, strength: int, msg: bytes, outlen: int, key=b"", name=b"", custom=b""):
    if mode == "sha3":
        return getattr(hashlib, f"sha3_{strength}")(msg).digest()
    if mode == "shake":
        return getattr(hashlib, f"shake_{strength}")(msg).digest(outlen)
    cs = _c128 if strength == 128 else _c256
    if mode == "cshake":
        return cs._new(msg, custom, name).read(outlen)
    if mode == "kmac" and len(key) >= 16 and outlen >= 8:
        return (KMAC128 if strength == 128 else KMAC256).new(
            key=key, data=msg, mac_len=outlen, custom=custom).digest()
    if mode in ("kmac", "kmacxof"):
        rate = 168 if strength == 128 else 136
        suffix = _k128._right_encode(0 if mode == "kmacxof" else 8 * outlen)
        data = _k128._bytepad(_k128._encode_str(key), rate) + msg + suffix
        return cs._new(data, custom, b"KMAC").read(outlen)
    raise ValueError(mode)
