# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""Known answers for the firmware's HMAC_DRBG (lib/drbg.c: SP 800-90A HMAC_DRBG with
HMAC-SHA3-256), from an independent implementation: OpenSSL's HMAC-DRBG (EVP_RAND "HMAC-DRBG",
digest SHA3-256), fed fixed entropy and nonce by OpenSSL's own deterministic parent "TEST-RAND",
as OpenSSL's tests of its DRBGs against NIST's vectors do. OpenSSL is the system's libcrypto
(Debian package libssl3), reached through ctypes: the `cryptography` package has no DRBG.

drbg_kat.h (programs/drbg_kat.c) holds the cases; `draws` gives what the DRBG hands lib/pqc.c
for the API tests (pqc_layout.api_vectors)."""
import ctypes
import ctypes.util
import hashlib
from dataclasses import dataclass, field

MAX_REQUEST_BYTES = 65536     # lib/drbg.h DRBG_MAX_REQUEST_BYTES


class DrbgReferenceError(Exception):
    pass


_OSSL_PARAM_UNSIGNED_INTEGER, _OSSL_PARAM_UTF8_STRING, _OSSL_PARAM_OCTET_STRING = 2, 4, 5


class _Param(ctypes.Structure):     # OSSL_PARAM (openssl/core.h)
    _fields_ = [("key", ctypes.c_char_p), ("data_type", ctypes.c_uint), ("data", ctypes.c_void_p),
                ("data_size", ctypes.c_size_t), ("return_size", ctypes.c_size_t)]


_lib = None


def _libcrypto():
    global _lib
    if _lib is not None:
        return _lib
    path = ctypes.util.find_library("crypto")
    try:
        lib = ctypes.CDLL(path or "libcrypto.so.3")
        lib.EVP_RAND_fetch
    except (OSError, AttributeError) as e:
        raise DrbgReferenceError(f"OpenSSL 3's libcrypto (Debian package libssl3) is needed for the "
                                 f"DRBG's known answers: {e}") from None
    vp, sz, cp, ui = ctypes.c_void_p, ctypes.c_size_t, ctypes.c_char_p, ctypes.c_uint
    for name, res, args in (("EVP_RAND_fetch", vp, [vp, cp, cp]), ("EVP_RAND_free", None, [vp]),
                            ("EVP_RAND_CTX_new", vp, [vp, vp]), ("EVP_RAND_CTX_free", None, [vp]),
                            ("EVP_RAND_CTX_set_params", ctypes.c_int, [vp, vp]),
                            ("EVP_RAND_instantiate", ctypes.c_int, [vp, ui, ctypes.c_int, cp, sz, vp]),
                            ("EVP_RAND_reseed", ctypes.c_int, [vp, ctypes.c_int, cp, sz, cp, sz]),
                            ("EVP_RAND_generate", ctypes.c_int, [vp, cp, sz, ui, ctypes.c_int, cp, sz])):
        f = getattr(lib, name)
        f.restype, f.argtypes = res, args
    _lib = lib
    return lib


def _set(lib, ctx, items, what):
    """EVP_RAND_CTX_set_params with (key, value) items: int -> unsigned, str -> UTF-8, bytes -> octets."""
    arr, keep = (_Param * (len(items) + 1))(), []
    for i, (key, v) in enumerate(items):
        if isinstance(v, int):
            buf, kind, n = ctypes.c_uint(v), _OSSL_PARAM_UNSIGNED_INTEGER, ctypes.sizeof(ctypes.c_uint)
        else:
            raw = v.encode() if isinstance(v, str) else v
            buf = ctypes.create_string_buffer(raw, max(len(raw), 1))
            kind, n = (_OSSL_PARAM_UTF8_STRING if isinstance(v, str) else _OSSL_PARAM_OCTET_STRING), len(raw)
        keep.append(buf)
        arr[i] = _Param(key.encode(), kind, ctypes.cast(ctypes.pointer(buf), ctypes.c_void_p), n, ctypes.c_size_t(-1).value)
    if lib.EVP_RAND_CTX_set_params(ctx, arr) != 1:
        raise DrbgReferenceError(f"OpenSSL refused the DRBG parameters ({what})")


@dataclass
class Case:
    """instantiate(entropy, nonce, pers); reseed(reseed_entropy, reseed_add) if given; then one
    generate of out_len bytes per additional input in `adds` (the shape of drbg_kat.c's cases)."""
    entropy: bytes
    nonce: bytes
    pers: bytes = b""
    reseed_entropy: bytes | None = None
    reseed_add: bytes = b""
    adds: tuple = (b"", b"")
    out_len: int = 32
    outs: list = field(default_factory=list)

    def steps(self) -> list[tuple]:
        pre = [] if self.reseed_entropy is None else [("reseed", self.reseed_entropy, self.reseed_add)]
        return pre + [("generate", self.out_len, a) for a in self.adds]


def run(entropy: bytes, nonce: bytes, pers: bytes, steps: list[tuple], digest: str = "SHA3-256") -> list[bytes]:
    """OpenSSL's HMAC-DRBG instantiated with (entropy, nonce, pers), then the steps in order:
    ("generate", n, additional input) or ("reseed", entropy, additional input). Returns the
    output of each generate."""
    lib = _libcrypto()
    test_rand, hmac_drbg = lib.EVP_RAND_fetch(None, b"TEST-RAND", None), lib.EVP_RAND_fetch(None, b"HMAC-DRBG", None)
    if not test_rand or not hmac_drbg:
        raise DrbgReferenceError("OpenSSL has no TEST-RAND / HMAC-DRBG (its default provider)")
    parent = lib.EVP_RAND_CTX_new(test_rand, None)
    ctx = lib.EVP_RAND_CTX_new(hmac_drbg, parent)
    try:
        _set(lib, parent, [("strength", 256)], "strength")
        _set(lib, ctx, [("digest", digest), ("mac", "HMAC")], "digest")
        _set(lib, parent, [("test_entropy", entropy), ("test_nonce", nonce)], "entropy")
        if lib.EVP_RAND_instantiate(ctx, 256, 0, pers, len(pers), None) != 1:
            raise DrbgReferenceError("OpenSSL's instantiate failed")
        outs = []
        for kind, a, add in steps:
            if kind == "reseed":
                _set(lib, parent, [("test_entropy", a)], "reseed entropy")
                if lib.EVP_RAND_reseed(ctx, 0, None, 0, add, len(add)) != 1:
                    raise DrbgReferenceError("OpenSSL's reseed failed")
                continue
            buf = ctypes.create_string_buffer(max(a, 1))
            if lib.EVP_RAND_generate(ctx, buf, a, 256, 0, add, len(add)) != 1:
                raise DrbgReferenceError("OpenSSL's generate failed")
            outs.append(buf.raw[:a])
        return outs
    finally:
        lib.EVP_RAND_CTX_free(ctx)
        lib.EVP_RAND_CTX_free(parent)
        lib.EVP_RAND_free(hmac_drbg)
        lib.EVP_RAND_free(test_rand)


def _bytes(tag: str, n: int) -> bytes:
    """Fixed test inputs: SHAKE256 of a tag (reproducible, no two alike)."""
    return hashlib.shake_256(b"pqsoc drbg kat " + tag.encode()).digest(n)


def kat_cases() -> list[Case]:
    """Lengths that exercise the implementation's edges: the minimum entropy and nonce, inputs
    that are not whole words, personalization longer than HMAC's block (136 bytes), outputs of
    1 byte, a partial 32-byte block and several blocks, additional input, reseed with and
    without it."""
    b = _bytes
    cases = [Case(b("e0", 32), b("n0", 16)),
             Case(b("e1", 48), b("n1", 24), b("p1", 32), adds=(b("a1", 32), b("b1", 32)), out_len=64),
             Case(b("e2", 32), b("n2", 16), b("p2", 7), reseed_entropy=b("r2", 32), reseed_add=b("ra2", 5),
                  adds=(b"", b("b2", 13)), out_len=100),
             Case(b("e3", 55), b("n3", 17), reseed_entropy=b("r3", 40), out_len=1),
             Case(b("e4", 32), b("n4", 16), b("p4", 137), adds=(b("a4", 200), b""), out_len=256)]
    for c in cases:
        c.outs = run(c.entropy, c.nonce, c.pers, c.steps())
    return cases


def draws(entropy: bytes, nonce: bytes, pers: bytes, sizes: list[int]) -> list[bytes]:
    """What the DRBG instantiated with (entropy, nonce, pers) gives to requests of these sizes,
    no additional input (lib/pqc.c's draws)."""
    return run(entropy, nonce, pers, [("generate", n, b"") for n in sizes])


def _c(b: bytes) -> str:
    return "{" + ", ".join(f"0x{x:02x}" for x in b) + "}" if b else "{0}"


def kat_header() -> str:
    """drbg_kat.h for programs/drbg_kat.c: the cases, and the reseed-interval test's answer
    (case 0's DRBG after two generates, a third refused, a reseed with kat_after_entropy)."""
    cases = kat_cases()
    c0, after = cases[0], _bytes("after", 32)
    after_out = run(c0.entropy, c0.nonce, c0.pers,
                    [("generate", 32, b""), ("generate", 32, b""), ("reseed", after, b""), ("generate", 32, b"")])
    if after_out[:2] != c0.outs:
        raise DrbgReferenceError("OpenSSL's DRBG gave two answers to one input")
    lines = ["/* Generated by firmware/drbg_vectors.py: HMAC_DRBG (HMAC-SHA3-256) known answers from",
             " * OpenSSL's HMAC-DRBG on fixed entropy (TEST-RAND). Do not edit. */",
             "#include <stdint.h>"]
    rows = []
    for i, c in enumerate(cases):
        names = {}
        for key, v in (("e", c.entropy), ("n", c.nonce), ("p", c.pers), ("re", c.reseed_entropy or b""),
                       ("ra", c.reseed_add), ("a0", c.adds[0]), ("a1", c.adds[1]), ("o0", c.outs[0]),
                       ("o1", c.outs[1])):
            names[key] = f"kat{i}_{key}"
            lines.append(f"static const uint8_t {names[key]}[] = {_c(v)};")
        rows.append(f"    {{{names['e']}, {len(c.entropy)}, {names['n']}, {len(c.nonce)}, {names['p']}, "
                    f"{len(c.pers)}, {int(c.reseed_entropy is not None)}, {names['re']}, "
                    f"{len(c.reseed_entropy or b'')}, {names['ra']}, {len(c.reseed_add)}, "
                    f"{{{names['a0']}, {names['a1']}}}, {{{len(c.adds[0])}, {len(c.adds[1])}}}, "
                    f"{c.out_len}, {{{names['o0']}, {names['o1']}}}}},")
    lines += [f"static const uint8_t kat_after_entropy[] = {_c(after)};",
              f"static const uint8_t kat_after_out[] = {_c(after_out[2])};",
              "struct drbg_kat { const uint8_t *e; uint32_t elen; const uint8_t *n; uint32_t nlen;",
              "                  const uint8_t *p; uint32_t plen; int reseed; const uint8_t *re; uint32_t relen;",
              "                  const uint8_t *ra; uint32_t ralen; const uint8_t *add[2]; uint32_t addlen[2];",
              "                  uint32_t out_len; const uint8_t *out[2]; };",
              "static const struct drbg_kat drbg_kats[] = {", *rows, "};",
              f"#define DRBG_KATS {len(rows)}u", f"#define DRBG_KAT_MAX_OUT {max(c.out_len for c in cases)}u", ""]
    return "\n".join(lines)
