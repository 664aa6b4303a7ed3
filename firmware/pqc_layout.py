# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""The generated C side of the firmware's ML-KEM API (firmware/lib/pqc.c, pqc.h).

One source: the ACC programs of ip/acc/kernels/mlkem (keygen.py, encaps.py, decaps.py). From
each (operation, parameter set) with a program this module takes the program's size and
FNV-1a sum, its constant tables (const_image()), its DMEM layout (the addresses and lengths of
its inputs and outputs, its peak DMEM use) and writes them as C:

- write_layout(path): pqc_mlkem_layout.h, which pqc.c is compiled with: per (op, set) the
  IMEM word count and FNV-1a sum of the program, the byte count and FNV-1a sum of the constant
  tables, the DMEM addresses / lengths of inputs and outputs, the DMEM end, and the byte lengths
  of ek, dk and c per set (for callers' buffers). The API checks every image it is given against
  these before it runs it; no address in pqc.c is typed by hand.
- images_c(param, ...): the images themselves (struct pqc_image, pqc.h) as C data, for a
  firmware that links them in (programs/pqc_mlkem_api.c on the simulation SoC). On the silicon
  SoC the images are data the caller brings (Caravel's flash, the host), in the same format.

Every program writes a 32-bit status word at its layout's status_addr
(ip/acc/kernels/mlkem/status.py: OK, EK_INVALID / DK_HASH_MISMATCH from the FIPS 203 section 7
input checks, NOT_RUN = 0); the codes go into the header as PQC_MLKEM_STATUS_*, from there.
"""
from functools import lru_cache
from pathlib import Path

OPS = ("keygen", "encaps", "decaps", "decaps_masked")   # enum pqc_mlkem_op, in this order
ERROR_TEST_OPS = ("keygen", "encaps", "decaps")   # what programs/pqc_mlkem_api.c's error tests call
PARAMS = (512, 768, 1024)
FNV_INIT, FNV_PRIME = 0x811C9DC5, 0x01000193
# (name of the buffer, attribute holding its DMEM address, length key) per op; lengths from
# the kernel object (ek_len, dk_len, c_len) or 32 (seeds, K).
IO = {"keygen": ((("d", "D", 32), ("z", "Z", 32)), (("ek", "EK", "ek_len"), ("dk", "DK", "dk_len"))),
      "encaps": ((("ek", "EK", "ek_len"), ("m", "M", 32)), (("K", "K_OUT", 32), ("c", "C", "c_len"))),
      "decaps": ((("dk", "DK", "dk_len"), ("c", "CT", "c_len")), (("K", "K_OUT", 32),)),
      # the first-order masked program: the masked key (masked_decaps.py mask_dk), K's two shares
      "decaps_masked": ((("mdk", "MDK", "mdk_len"), ("c", "C", "c_len")),
                        (("K0", "K0_OUT", 32), ("K1", "K1_OUT", 32)))}


class LayoutError(Exception):
    pass


def fnv1a(words, h: int = FNV_INIT) -> int:
    """FNV-1a over 32-bit words (one multiply per word: cheap on the CPU). A check against
    mix-ups and corrupted copies, not an authenticity check."""
    for w in words:
        h = ((h ^ w) * FNV_PRIME) & 0xFFFFFFFF
    return h


def _le_words(b: bytes) -> list[int]:
    if len(b) % 4:
        raise LayoutError(f"a constant table of {len(b)} bytes is not whole words")
    return [int.from_bytes(b[i:i + 4], "little") for i in range(0, len(b), 4)]


def const_segments(image: dict) -> list[tuple[int, bytes]]:
    """A kernel's constant image {addr: bytes} as (addr, bytes) in address order, adjacent
    tables joined: the API writes each segment with one DMA transfer (~400 CPU cycles a call)."""
    out = []
    for addr, data in sorted(image.items()):
        if out and out[-1][0] + len(out[-1][1]) == addr:
            out[-1] = (out[-1][0], out[-1][1] + bytes(data))
        else:
            out.append((addr, bytes(data)))
    return out


def const_fnv(segments) -> int:
    """FNV-1a over the constant segments in order: address, length, then the data words."""
    h = FNV_INIT
    for addr, data in segments:
        h = fnv1a([addr, len(data), *_le_words(data)], h)
    return h


def _kernel(op: str, param: int):
    from ip.acc.kernels.mlkem import decaps, encaps, keygen, masked_decaps
    make = {"keygen": keygen.keygen, "encaps": encaps.encaps, "decaps": decaps.decaps,
            "decaps_masked": masked_decaps.masked_decaps}[op]
    try:
        return make(param)
    except ValueError:   # no program for this set (ML-KEM-1024 decaps, not yet)
        return None


def _length(kern, key) -> int:
    return key if isinstance(key, int) else getattr(kern, key)


@lru_cache(maxsize=None)
def layout(op: str, param: int) -> dict | None:
    """Everything the API needs of one program, or None when the set has none for `op`:
    words, imem_fnv, consts [(addr, bytes)], const_fnv, const_bytes, dmem_end, ins / outs
    [(name, addr, len)], status_addr (None: the program writes no status word yet)."""
    from ip.acc.tools.asm import assemble
    kern = _kernel(op, param)
    if kern is None:
        return None
    words = assemble(kern.program(), f"mlkem{param}_{op}.s")
    consts = const_segments(kern.const_image())
    ins, outs = ([(n, getattr(kern, a), _length(kern, ln)) for n, a, ln in side] for side in IO[op])
    # inputs must not overlap the constant tables (the API writes both before the run)
    spans = [(a, a + len(d), "const") for a, d in consts] + [(a, a + n, name) for name, a, n in ins]
    spans.sort()
    for (a0, e0, n0), (a1, e1, n1) in zip(spans, spans[1:]):
        if a1 < e0:
            raise LayoutError(f"ML-KEM-{param} {op}: {n0} [{a0:#x}, {e0:#x}) overlaps {n1} at {a1:#x}")
    # the status word, written just before ecall: it may lie over dead inputs (decaps: in dk)
    st = kern.status_addr
    if st % 4:
        raise LayoutError(f"ML-KEM-{param} {op}: the status word at {st:#x} is not word-aligned")
    end = max(e for _, e, _ in spans)
    if max([kern.END, end, st + 4] + [a + n for _, a, n in outs]) > kern.END:
        raise LayoutError(f"ML-KEM-{param} {op}: a buffer lies past the program's DMEM end {kern.END:#x}")
    return {"op": op, "param": param, "words": words, "imem_fnv": fnv1a(words),
            "consts": consts, "const_fnv": const_fnv(consts),
            "const_bytes": sum(len(d) for _, d in consts), "dmem_end": kern.END,
            "ins": ins, "outs": outs, "status_addr": st,
            "sizes": {"ek": getattr(kern, "ek_len", None), "dk": getattr(kern, "dk_len", None),
                      "c": getattr(kern, "c_len", None), "mdk": getattr(kern, "mdk_len", None)}}


def layouts() -> list[dict]:
    return [lay for op in OPS for p in PARAMS if (lay := layout(op, p)) is not None]


def sizes(param: int) -> dict:
    """ek, dk, c byte lengths of a set, the same in every program that has them."""
    seen = {}
    for op in OPS:
        lay = layout(op, param)
        for k, v in (lay["sizes"] if lay else {}).items():
            if v is not None and seen.setdefault(k, v) != v:
                raise LayoutError(f"ML-KEM-{param}: {k} is {seen[k]} bytes in one program, {v} in {op}")
    return seen


def _c_bytes(b: bytes) -> str:
    return "{" + ", ".join(f"0x{x:02x}" for x in b) + "}"


def layout_header() -> str:
    lines = ["/* Generated by firmware/pqc_layout.py from ip/acc/kernels/mlkem (keygen.py,",
             " * encaps.py, decaps.py): what firmware/lib/pqc.c knows of each ML-KEM program.",
             " * Do not edit. */",
             "#ifndef PQC_MLKEM_LAYOUT_H_", "#define PQC_MLKEM_LAYOUT_H_", "#include <stdint.h>",
             "enum pqc_mlkem_op { " + ", ".join(f"PQC_MLKEM_{op.upper()} = {i}"
                                                for i, op in enumerate(OPS)) + " };",
             f"#define PQC_MLKEM_OPS {len(OPS)}u",
             f"#define PQC_MLKEM_PARAMS {len(PARAMS)}u",
             "static inline int pqc_mlkem_param_index(unsigned param)",
             "{", "    switch (param) {",
             *[f"    case {p}: return {i};" for i, p in enumerate(PARAMS)],
             "    default: return -1;", "    }", "}",
             "#define PQC_MLKEM_SEED_BYTES 32u   /* d, z, m */",
             "#define PQC_MLKEM_K_BYTES 32u"]
    maxes = {}
    for p in PARAMS:
        for k, v in sizes(p).items():
            lines.append(f"#define PQC_MLKEM{p}_{k.upper()}_BYTES {v}u")
            maxes[k] = max(maxes.get(k, 0), v)
    lines += [f"#define PQC_MLKEM_MAX_{k.upper()}_BYTES {v}u" for k, v in maxes.items()]
    from ip.acc.kernels.mlkem import status
    lines += ["/* the programs' status word (ip/acc/kernels/mlkem/status.py) */"]
    lines += [f"#define PQC_MLKEM_STATUS_{n} 0x{getattr(status, n):08x}u"
              for n in ("NOT_RUN", "OK", "EK_INVALID", "DK_HASH_MISMATCH")]
    lines += [f"#define PQC_FNV_INIT 0x{FNV_INIT:08x}u", f"#define PQC_FNV_PRIME 0x{FNV_PRIME:08x}u",
              "struct pqc_mlkem_buf { uint32_t addr, len; };   /* DMEM byte address, bytes */",
              "struct pqc_mlkem_layout {",
              "    uint8_t op; uint16_t param;",
              "    uint32_t imem_words, imem_fnv;     /* the program: words, FNV-1a of them */",
              "    uint32_t const_bytes, const_fnv;   /* constant tables: bytes, FNV-1a (addr, len, words) */",
              "    uint32_t dmem_end;                 /* DMEM bytes the program uses */",
              "    struct pqc_mlkem_buf in[2], out[2];   /* out[1].len == 0: no second output */",
              "    uint32_t status_addr;              /* the program's status word */",
              "};"]
    rows = []
    for lay in layouts():
        ins = ", ".join(f"{{0x{a:x}, {n}}}" for _, a, n in lay["ins"])
        outs = [f"{{0x{a:x}, {n}}}" for _, a, n in lay["outs"]] + ["{0, 0}"]
        rows.append(f"    {{PQC_MLKEM_{lay['op'].upper()}, {lay['param']}, {len(lay['words'])}, "
                    f"0x{lay['imem_fnv']:08x}, {lay['const_bytes']}, 0x{lay['const_fnv']:08x}, "
                    f"0x{lay['dmem_end']:x}, {{{ins}}}, {{{outs[0]}, {outs[1]}}}, "
                    f"0x{lay['status_addr']:x}}},   /* "
                    f"{', '.join(n for n, _, _ in lay['ins'])} -> {', '.join(n for n, _, _ in lay['outs'])} */")
    lines += [f"#define PQC_MLKEM_LAYOUTS {len(rows)}u",
              "#ifdef PQC_MLKEM_LAYOUT_TABLE   /* defined by pqc.c only */",
              "static const struct pqc_mlkem_layout pqc_mlkem_layouts[PQC_MLKEM_LAYOUTS] = {",
              *rows, "};", "#endif", "#endif", ""]
    return "\n".join(lines)


def image_c(lay: dict, name: str, op_enum: str) -> str:
    """C definition of one image (struct pqc_image, firmware/lib/pqc.h) from a layout row
    (words, consts, param): `static const struct pqc_image <name>`; program and tables
    word-aligned. Shared with pqc_mldsa_layout.py."""
    lines = [f"static const uint32_t {name}_words[] = {{{', '.join(f'0x{w:08x}' for w in lay['words'])}}};"]
    segs = []
    for i, (addr, data) in enumerate(lay["consts"]):
        lines.append(f"static const uint8_t {name}_c{i}[] __attribute__((aligned(4))) = {_c_bytes(data)};")
        segs.append(f"{{0x{addr:x}, {name}_c{i}, {len(data)}}}")
    lines.append(f"static const struct pqc_segment {name}_consts[] = {{{', '.join(segs)}}};")
    lines.append(f"static const struct pqc_image {name} = {{{op_enum}, {lay['param']}, "
                 f"{name}_words, {len(lay['words'])}, {name}_consts, {len(segs)}}};")
    return "\n".join(lines)


def images_c(param: int, ops=OPS, prefix: str = "pqc_img") -> str:
    """C definitions of the images (struct pqc_image, firmware/lib/pqc.h) of `ops` for one set:
    `static const struct pqc_image <prefix>_<op>`; programs and tables word-aligned."""
    return scheme_images_c(layout, "ML-KEM", "PQC_MLKEM", param, ops, prefix)


def scheme_images_c(layout_of, scheme: str, enum: str, param: int, ops, prefix: str) -> str:
    """images_c of either scheme: layout_of(op, param) its layout rows, enum the C prefix of
    its op constants (PQC_MLKEM / PQC_MLDSA)."""
    lines = []
    for op in ops:
        lay = layout_of(op, param)
        if lay is None:
            raise LayoutError(f"{scheme}-{param} has no {op} program")
        lines.append(image_c(lay, f"{prefix}_{op}", f"{enum}_{op.upper()}"))
    return "\n".join(lines)


# ---- programs/pqc_mlkem_api.c ----------------------------------------------------------------

API_PROGRAM = "pqc_mlkem_api"
API_HEADER = "pqc_mlkem_api_vectors.h"
# The default build's inputs (the test firmware): d, z, m; keygen, encaps and decaps each get
# their inputs from kyber-py (not from the previous call), so each op is checked on its own.
API_SEEDS = (bytes(range(0x40, 0x60)), bytes(range(0x60, 0x80)), bytes(range(0x80, 0xA0)))


def default_requests(param: int = 768) -> list[dict]:
    """keygen, encaps, decaps of ML-KEM-`param` with kyber-py's inputs and expected outputs."""
    from kyber_py.ml_kem import ML_KEM_512, ML_KEM_768, ML_KEM_1024
    ref = {512: ML_KEM_512, 768: ML_KEM_768, 1024: ML_KEM_1024}[param]
    d, z, m = API_SEEDS
    ek, dk = ref._keygen_internal(d, z)
    K, c = ref._encaps_internal(ek, m)
    if ref._decaps_internal(dk, c) != K:
        raise LayoutError("kyber-py's decaps disagrees with its encaps")
    return [{"op": "keygen", "in": (d, z), "exp": (ek, dk)},
            {"op": "encaps", "in": (ek, m), "exp": (K, c)},
            {"op": "decaps", "in": (dk, c), "exp": (K,)}]


DRBG_ENTROPY = bytes(range(0x40, 0x60))     # the API test's DRBG instantiation (not secret)
DRBG_NONCE = bytes(range(0x60, 0x70))


def drbg_requests(param: int) -> dict:
    """The API test of randomness left to the library (programs/pqc_mlkem_api.c t_drbg): the DRBG
    instantiated from DRBG_ENTROPY / DRBG_NONCE gives d || z (64 bytes), then m (32 bytes), as
    OpenSSL's HMAC-DRBG computes them; ek, dk, K, c are kyber-py's for those."""
    from kyber_py.ml_kem import ML_KEM_512, ML_KEM_768, ML_KEM_1024
    from firmware import drbg_vectors
    ref = {512: ML_KEM_512, 768: ML_KEM_768, 1024: ML_KEM_1024}[param]
    dz, m = drbg_vectors.draws(DRBG_ENTROPY, DRBG_NONCE, b"", [64, 32])
    ek, dk = ref._keygen_internal(dz[:32], dz[32:])
    K, c = ref._encaps_internal(ek, m)
    return {"entropy": DRBG_ENTROPY, "nonce": DRBG_NONCE, "ek": ek, "dk": dk, "K": K, "c": c}


def api_vectors(param: int, requests: list[dict], error_tests: bool, drbg_seed: bytes | None = None) -> str:
    """pqc_mlkem_api_vectors.h: the images of the ops the requests use (keygen, encaps, decaps
    with error_tests, which need them), each request's inputs and, when given, expected outputs
    (`exp`, from a reference; None: the firmware only prints what it got). drbg_seed (48 bytes:
    entropy || nonce): the firmware instantiates the library's DRBG from it before the calls
    (what the masked decapsulation's masks come from; the host's entropy on the simulated SoC)."""
    ops = ERROR_TEST_OPS if error_tests else tuple(o for o in OPS if any(r["op"] == o for r in requests))
    lines = ["/* Generated by firmware/pqc_layout.py (api_vectors) for programs/pqc_mlkem_api.c:",
             " * the program images of ML-KEM-%d, the calls to make with their inputs and, where" % param,
             " * given, the expected outputs from kyber-py. */",
             "#include <stdint.h>", '#include "pqc.h"',
             f"#define API_PARAM {param}u", f"#define API_ERROR_TESTS {int(error_tests)}",
             f"#define API_DRBG_SEED {int(drbg_seed is not None)}",
             images_c(param, ops, "api_img"),
             f"static const struct pqc_image *const api_images[] = "
             f"{{{', '.join('&api_img_' + o for o in ops)}}};",
             f"#define API_IMAGES {len(ops)}u"]
    rows = []
    for i, r in enumerate(requests):
        lay = layout(r["op"], param)
        if lay is None:
            raise LayoutError(f"ML-KEM-{param} has no {r['op']} program")
        ptr = {}
        for kind, names in (("in", lay["ins"]), ("exp", lay["outs"])):
            vals = r.get(kind)
            ptr[kind] = []
            for j, (name, _, n) in enumerate(names):
                if vals is None:
                    ptr[kind].append("0")
                    continue
                if len(vals[j]) != n:
                    raise LayoutError(f"request {i} ({r['op']}): {name} is {len(vals[j])} bytes, needs {n}")
                lines.append(f"static const uint8_t api_r{i}_{kind}{j}[] __attribute__((aligned(4))) = "
                             f"{_c_bytes(vals[j])};")
                ptr[kind].append(f"api_r{i}_{kind}{j}")
            ptr[kind] += ["0"] * (2 - len(names))
        outs = [(n, ln) for n, _, ln in lay["outs"]] + [("", 0)]
        rows.append(f'    {{"mlkem{param}_{r["op"]}", PQC_MLKEM_{r["op"].upper()}, '
                    f'{{{", ".join(ptr["in"])}}}, {{{", ".join(ptr["exp"])}}}, '
                    f'{{"{outs[0][0]}", "{outs[1][0]}"}}, {{{outs[0][1]}, {outs[1][1]}}}}},')
    lines += [f"#define API_{k.upper()}_BYTES {v}u" for k, v in sizes(param).items()]
    if drbg_seed is not None:
        if len(drbg_seed) != 48:
            raise LayoutError(f"the DRBG seed is {len(drbg_seed)} bytes, needs 48 (entropy 32 || nonce 16)")
        lines += [f"static const uint8_t api_seed_entropy[] = {_c_bytes(drbg_seed[:32])};",
                  f"static const uint8_t api_seed_nonce[] = {_c_bytes(drbg_seed[32:])};"]
    if error_tests:   # inputs that fail the programs' FIPS 203 section 7 checks
        by_op = {r["op"]: r for r in requests}
        bad_ek = bytearray(by_op["encaps"]["in"][0])
        bad_ek[0], bad_ek[1] = 0xFF, bad_ek[1] | 0x0F     # coefficient 0 = 0xfff >= q
        bad_dk = bytearray(by_op["decaps"]["in"][0])
        bad_dk[768 * (param // 256) + 32] ^= 1             # a bit of H(ek) inside dk
        lines += [f"static const uint8_t api_bad_ek[] __attribute__((aligned(4))) = {_c_bytes(bad_ek)};",
                  f"static const uint8_t api_bad_dk[] __attribute__((aligned(4))) = {_c_bytes(bad_dk)};"]
        lines += [f"static const uint8_t api_drbg_{k}[] __attribute__((aligned(4))) = {_c_bytes(v)};"
                  for k, v in drbg_requests(param).items()]
    lines += ["struct api_request { const char *name; uint8_t op; const uint8_t *in[2];",
              "                     const uint8_t *exp[2]; const char *out_name[2];",
              "                     uint32_t out_len[2]; };",
              "static const struct api_request api_requests[] = {", *rows, "};",
              f"#define API_REQUESTS {len(rows)}u", ""]
    return "\n".join(lines)


def keycheck_vectors(root=None, per_outcome: int = 2) -> str:
    """pqc_keycheck_vectors.h for programs/pqc_keycheck.c: from each keyCheck test group of NIST's
    ACVP ML-KEM encapDecap vector set (ACVP_ROOT), the first `per_outcome` cases NIST marks
    passed and the first it marks failed, with NIST's answer (the 128 KiB ROM does not hold all 60)."""
    from ip.acc import acvp
    folder = Path(root or acvp.default_root()) / "ML-KEM-encapDecap-FIPS203"
    try:
        prompt, expected = acvp.load(folder / "prompt.json"), acvp.load(folder / "expectedResults.json")
    except (OSError, acvp.AcvpError) as e:
        raise LayoutError(f"pqc_keycheck needs NIST's ACVP vectors (ACVP_ROOT): {e}") from None
    want = {(g["tgId"], t["tcId"]): t.get("testPassed") for g in expected["testGroups"] for t in g["tests"]}
    lines = ["/* Generated by firmware/pqc_layout.py (keycheck_vectors) from NIST's ACVP vector set",
             " * ML-KEM-encapDecap-FIPS203: keyCheck cases and NIST's testPassed. Do not edit. */",
             "#include <stdint.h>"]
    rows = []
    for g in prompt["testGroups"]:
        if not g["function"].endswith("KeyCheck"):
            continue
        key = "ek" if g["function"] == "encapsulationKeyCheck" else "dk"
        param = int(g["parameterSet"].split("-")[-1])
        picked = {True: [], False: []}
        for t in g["tests"]:
            ok = want[(g["tgId"], t["tcId"])]
            if len(picked[ok]) < per_outcome:
                picked[ok].append(t)
        for ok, tests in picked.items():
            for t in tests:
                name = f"kc_tg{g['tgId']}_tc{t['tcId']}"
                lines.append(f"static const uint8_t {name}[] = {_c_bytes(bytes.fromhex(t[key]))};")
                rows.append(f'    {{{param}u, {int(key == "dk")}, {g["tgId"]}u, {t["tcId"]}u, {name}, {int(ok)}}},')
    lines += ["struct keycheck { uint32_t param; int is_dk; uint32_t tg, tc; const uint8_t *key; int passed; };",
              "static const struct keycheck keychecks[] = {", *rows, "};",
              f"#define KEYCHECKS {len(rows)}u", ""]
    return "\n".join(lines)
