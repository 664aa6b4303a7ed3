# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""The generated C side of the firmware's ML-DSA API (firmware/lib/pqc.c, pqc.h): the sibling
of pqc_layout.py (ML-KEM), with its FNV-1a sums and image format.

One source: the ACC programs of ip/acc/kernels/mldsa: keygen.py keygen(param) (44, 65, 87),
sign16.py (signer(param): ML-DSA-44 and -65; program() from M', program(external_mu=True)
from mu) and verify.py Verify(param) (44, 65, 87). From each (operation, set) with a program
this module takes the program's size and FNV-1a sum, its constant tables, the DMEM addresses
of its inputs / outputs / status word and its peak DMEM, and writes them as C:

- layout_header(): pqc_mldsa_layout.h, which pqc.c is compiled with: one row per (op, set),
  the byte lengths of each set (pk, sk, sig and the signature's three parts), the programs'
  status words with their names (verify.py STATUS_NAMES, sign.py STATUS_NAMES: the C names
  are those of the modules' STATUS_* constants). A set without a row for an op (signing for
  ML-DSA-87 today) is refused by the API with PQC_ERR_PARAM.
- images_c(param, ops, prefix): the images (struct pqc_image) as C data, for a firmware that
  links them in (programs/pqc_mldsa_api.c on the simulation SoC).
- api_vectors(param, requests, error_tests): pqc_mldsa_api_vectors.h for programs/pqc_mldsa_api.c.
"""
from functools import lru_cache

from firmware.pqc_layout import LayoutError, _c_bytes, const_fnv, const_segments, fnv1a
from ip.acc.block import DMEM_SIZE   # the taped-out DMEM the kernels are laid out in

OPS = ("keygen", "sign", "sign_mu", "verify")   # enum pqc_mldsa_op, in this order
PARAMS = (44, 65, 87)
NO_ADDR = 0xFFFFFFFF
# the DMEM address fields of a layout row (NO_ADDR where a program has none), in C order
FIELDS = ("xi", "pk", "sk", "rnd", "msg", "msg_max", "mlen", "mu", "ext_mu", "sig", "kappa",
          "ctil", "z", "hint")
SEED_BYTES, RND_BYTES, MU_BYTES = 32, 32, 64


def _sign16():
    from ip.acc.kernels.mldsa import sign16
    return sign16


def _signer(param):
    """sign16's program for the set, or None where the generator has none (it refuses the set)."""
    try:
        return _sign16().signer(param)
    except ValueError:
        return None


def _sign_params() -> tuple:
    """The sets sign16 has a signing program for."""
    return tuple(p for p in PARAMS if _signer(p) is not None)


def _keygen_layout(param):
    from ip.acc.kernels.mldsa.keygen import keygen
    kg = keygen(param)
    fields = {"xi": kg.XI, "pk": kg.PK, "sk": kg.SK}
    spans = [("xi", kg.XI, SEED_BYTES)]
    return kg.program(), kg.const_image(), fields, spans, kg.END, NO_ADDR


def _sign_layout(param, external_mu):
    s, m = _signer(param), _sign16()     # the set's layout; the fixed header words (RND, ...)
    if s is None:
        return None
    from ip.acc.kernels.mldsa.layout import KAPPA
    fields = {"sk": s.SK, "rnd": m.RND, "sig": s.SIG, "kappa": KAPPA}
    spans = [("sk", s.SK, s.SK_LEN), ("rnd", m.RND, RND_BYTES)]
    if external_mu:
        fields["mu"] = m.MU
        spans.append(("mu", m.MU, MU_BYTES))
    else:
        fields.update(msg=s.MSG, msg_max=s.MSG_MAX, mlen=m.MLEN)
        spans += [("M'", s.MSG, s.MSG_MAX), ("len(M')", m.MLEN, 4)]
    return s.program(external_mu=external_mu), s.const_image(), fields, spans, s.END, m.STATUS


def _verify_layout(param):
    from ip.acc.kernels.mldsa.verify import Verify
    v = Verify(param)
    z_len = v.l * v.zb
    fields = {"pk": v.PK, "msg": v.MSG, "msg_max": v.MSG_MAX, "mlen": v.MLEN, "mu": v.MU,
              "ext_mu": v.EXT_MU, "ctil": v.CTIL, "z": v.ZP, "hint": v.HINT}
    # M' and mu are alternatives (the length word and the flag both written every call)
    spans = [("pk", v.PK, v.pk_len), ("c_tilde", v.CTIL, v.ctil_len), ("z", v.ZP, z_len),
             ("hint", v.HINT, v.omega + v.k), ("len(M')", v.MLEN, 4), ("ext_mu", v.EXT_MU, 4)]
    alts = [("M'", v.MSG, v.MSG_MAX), ("mu", v.MU, MU_BYTES)]
    return v.program(), v.const_image(), fields, (spans, alts), v.END, v.STATUS


def _check_spans(name, consts, spans, status_addr, dmem_end):
    """No input overlaps a constant table or another input (the API writes them all before
    the run); every buffer lies inside the program's DMEM."""
    fixed, alts = spans if isinstance(spans, tuple) else (spans, [])
    for alt in [None, *alts]:
        ss = [(a, a + len(d), "const") for a, d in consts] + [(a, a + n, nm) for nm, a, n in fixed]
        if alt is not None:
            ss.append((alt[1], alt[1] + alt[2], alt[0]))
        ss.sort()
        for (a0, e0, n0), (a1, e1, n1) in zip(ss, ss[1:]):
            if a1 < e0:
                raise LayoutError(f"{name}: {n0} [{a0:#x}, {e0:#x}) overlaps {n1} at {a1:#x}")
        if ss[-1][1] > max(dmem_end, DMEM_SIZE):   # M' may run past the working set
            raise LayoutError(f"{name}: {ss[-1][2]} ends past DMEM at {ss[-1][1]:#x}")
    if status_addr != NO_ADDR and status_addr % 4:
        raise LayoutError(f"{name}: the status word at {status_addr:#x} is not word-aligned")


@lru_cache(maxsize=None)
def layout(op: str, param: int) -> dict | None:
    """One program's row, or None when the set has no program for `op`: words, imem_fnv,
    consts [(addr, bytes)], const_fnv, const_bytes, dmem_end, status_addr (NO_ADDR: keygen
    writes none), fields {name: DMEM address} (FIELDS)."""
    from ip.acc.tools.asm import assemble
    if op not in OPS:
        raise LayoutError(f"ML-DSA: no operation {op!r} (one of {', '.join(OPS)})")
    if param not in PARAMS:
        return None
    made = {"keygen": lambda: _keygen_layout(param), "sign": lambda: _sign_layout(param, False),
            "sign_mu": lambda: _sign_layout(param, True), "verify": lambda: _verify_layout(param)}[op]()
    if made is None:
        return None
    program, const_image, fields, spans, end, status_addr = made
    consts = const_segments(const_image)
    _check_spans(f"ML-DSA-{param} {op}", consts, spans, status_addr, end)
    words = assemble(program, f"mldsa{param}_{op}.s")
    return {"op": op, "param": param, "words": words, "imem_fnv": fnv1a(words), "consts": consts,
            "const_fnv": const_fnv(consts), "const_bytes": sum(len(d) for _, d in consts),
            "dmem_end": end, "status_addr": status_addr,
            "fields": {f: fields.get(f, NO_ADDR) for f in FIELDS}}


def layouts() -> list[dict]:
    return [lay for op in OPS for p in PARAMS if (lay := layout(op, p)) is not None]


@lru_cache(maxsize=None)
def sizes(param: int) -> dict:
    """Byte lengths of a set (keygen's pk / sk, verify's signature parts; sign16's sk and
    signature checked equal for the set it signs) and l (the signer's kappa step)."""
    from ip.acc.kernels.mldsa.keygen import keygen
    from ip.acc.kernels.mldsa.verify import Verify
    kg, v = keygen(param), Verify(param)
    if kg.pk_len != v.pk_len:
        raise LayoutError(f"ML-DSA-{param}: pk is {kg.pk_len} bytes in keygen, {v.pk_len} in verify")
    if param in _sign_params() and _signer(param).SIG_LEN != v.sig_len:
        raise LayoutError(f"ML-DSA-{param}: sig is {_signer(param).SIG_LEN} bytes in sign16, {v.sig_len} in verify")
    return {"pk": kg.pk_len, "sk": kg.sk_len, "sig": v.sig_len, "ctil": v.ctil_len,
            "z": v.l * v.zb, "hint": v.omega + v.k, "l": v.l}


def _status_names(module) -> list[tuple[str, int, str]]:
    """(C suffix, value, text) of each code in the module's STATUS_NAMES, the suffix from the
    module's STATUS_<NAME> constant of that value."""
    out = []
    for value, text in sorted(module.STATUS_NAMES.items()):
        names = [n for n in dir(module) if n.startswith("STATUS_") and n != "STATUS_NAMES"
                 and getattr(module, n) == value]
        if len(names) != 1:
            raise LayoutError(f"{module.__name__}: status {value:#x} has constants {names}, needs one")
        out.append((names[0][len("STATUS_"):], value, text))
    return out


def _status_lines(kind: str, module) -> list[str]:
    codes = _status_names(module)
    lines = [f"/* the {kind} programs' status word ({module.__name__}.STATUS_NAMES) */"]
    lines += [f"#define PQC_MLDSA_{kind.upper()}_STATUS_{n} 0x{v:08x}u" for n, v, _ in codes]
    lines += [f"static inline const char *pqc_mldsa_{kind}_status_text(uint32_t word)",
              "{", "    switch (word) {"]
    lines += [f"    case PQC_MLDSA_{kind.upper()}_STATUS_{n}: return \"{t}\";" for n, _, t in codes]
    lines += ["    default: return \"not a status the program writes\";", "    }", "}"]
    return lines


def layout_header() -> str:
    from ip.acc.kernels.mldsa import sign, verify
    lines = ["/* Generated by firmware/pqc_mldsa_layout.py from ip/acc/kernels/mldsa (keygen.py,",
             " * sign16.py, verify.py): what firmware/lib/pqc.c knows of each ML-DSA program.",
             " * Do not edit. */",
             "#ifndef PQC_MLDSA_LAYOUT_H_", "#define PQC_MLDSA_LAYOUT_H_", "#include <stdint.h>",
             "enum pqc_mldsa_op { " + ", ".join(f"PQC_MLDSA_{op.upper()} = {i}"
                                                for i, op in enumerate(OPS)) + " };",
             f"#define PQC_MLDSA_OPS {len(OPS)}u", f"#define PQC_MLDSA_PARAMS {len(PARAMS)}u",
             "static inline int pqc_mldsa_param_index(unsigned param)",
             "{", "    switch (param) {",
             *[f"    case {p}: return {i};" for i, p in enumerate(PARAMS)],
             "    default: return -1;", "    }", "}",
             f"#define PQC_MLDSA_SEED_BYTES {SEED_BYTES}u   /* xi */",
             f"#define PQC_MLDSA_RND_BYTES {RND_BYTES}u",
             f"#define PQC_MLDSA_MU_BYTES {MU_BYTES}u",
             f"#define PQC_MLDSA_NO_ADDR 0x{NO_ADDR:08x}u"]
    maxes = {}
    for p in PARAMS:
        for k, v in sizes(p).items():
            suffix = "L" if k == "l" else f"{k.upper()}_BYTES"
            lines.append(f"#define PQC_MLDSA{p}_{suffix} {v}u")
            maxes[suffix] = max(maxes.get(suffix, 0), v)
    lines += [f"#define PQC_MLDSA_MAX_{k} {v}u" for k, v in maxes.items()]
    lines += _status_lines("verify", verify) + _status_lines("sign", sign)
    lines += ["struct pqc_mldsa_set { uint16_t param; uint32_t pk, sk, sig, ctil, z, hint, l; };",
              "struct pqc_mldsa_layout {",
              "    uint8_t op; uint16_t param;",
              "    uint32_t imem_words, imem_fnv;     /* the program: words, FNV-1a of them */",
              "    uint32_t const_bytes, const_fnv;   /* constant tables: bytes, FNV-1a (addr, len, words) */",
              "    uint32_t dmem_end;                 /* DMEM bytes the program uses */",
              "    uint32_t status_addr;              /* PQC_MLDSA_NO_ADDR: none (keygen) */",
              "    /* DMEM byte addresses (msg_max: bytes); PQC_MLDSA_NO_ADDR where unused */",
              "    uint32_t " + ", ".join(FIELDS) + ";",
              "};"]
    rows = []
    for lay in layouts():
        addrs = ", ".join(f"0x{lay['fields'][f]:x}" for f in FIELDS)
        rows.append(f"    {{PQC_MLDSA_{lay['op'].upper()}, {lay['param']}, {len(lay['words'])}, "
                    f"0x{lay['imem_fnv']:08x}, {lay['const_bytes']}, 0x{lay['const_fnv']:08x}, "
                    f"0x{lay['dmem_end']:x}, 0x{lay['status_addr']:x}, {addrs}}},")
    sets = []
    for p in PARAMS:
        n = sizes(p)
        sets.append(f"    {{{p}, {n['pk']}, {n['sk']}, {n['sig']}, {n['ctil']}, {n['z']}, "
                    f"{n['hint']}, {n['l']}}},")
    lines += [f"#define PQC_MLDSA_LAYOUTS {len(rows)}u",
              "#ifdef PQC_MLDSA_LAYOUT_TABLE   /* defined by pqc.c only */",
              "static const struct pqc_mldsa_layout pqc_mldsa_layouts[PQC_MLDSA_LAYOUTS] = {",
              *rows, "};",
              "static const struct pqc_mldsa_set pqc_mldsa_sets[PQC_MLDSA_PARAMS] = {", *sets, "};",
              "#endif", "#endif", ""]
    return "\n".join(lines)


def images_c(param: int, ops=OPS, prefix: str = "pqc_dsa_img") -> str:
    """C definitions of the images (struct pqc_image, pqc.h) of `ops` for one set:
    `static const struct pqc_image <prefix>_<op>`."""
    from firmware.pqc_layout import scheme_images_c
    return scheme_images_c(layout, "ML-DSA", "PQC_MLDSA", param, ops, prefix)


# ---- programs/pqc_mldsa_api.c ----------------------------------------------------------------

API_PROGRAM = "pqc_mldsa_api"
API_HEADER = "pqc_mldsa_api_vectors.h"
# The default build's inputs (the test firmware): xi, rnd, the message and its context.
API_XI, API_RND = bytes(range(0x20, 0x40)), bytes(range(0xA0, 0xC0))
API_MSG, API_CTX = b"pqsoc firmware API, ML-DSA", b"fw"


def m_prime(msg: bytes, ctx: bytes) -> bytes:
    """M' = 0 || len(ctx) || ctx || msg (FIPS 204 Alg. 2 / 3, pure ML-DSA)."""
    return bytes([0, len(ctx)]) + bytes(ctx) + bytes(msg)


def default_requests(param: int = 65) -> list[dict]:
    """keygen, sign (from M', then from the external mu = H(tr || M', 64): the same signature),
    verify of ML-DSA-`param` with dilithium-py's expected outputs; each op gets its inputs from
    dilithium-py (not from the previous call), so each is checked alone."""
    import hashlib
    from dilithium_py.ml_dsa import ML_DSA_44, ML_DSA_65, ML_DSA_87
    ref = {44: ML_DSA_44, 65: ML_DSA_65, 87: ML_DSA_87}[param]
    pk, sk = ref._keygen_internal(API_XI)
    mp = m_prime(API_MSG, API_CTX)
    sig = ref._sign_internal(sk, mp, API_RND)
    if not ref._verify_internal(pk, mp, sig):
        raise LayoutError("dilithium-py's verify rejects its own signature")
    return [{"op": "keygen", "in": {"xi": API_XI}, "exp": {"pk": pk, "sk": sk}},
            {"op": "sign", "in": {"sk": sk, "msg": mp, "rnd": API_RND}, "exp": {"sig": sig}},
            {"op": "sign", "in": {"sk": sk, "mu": hashlib.shake_256(sk[64:128] + mp).digest(64),
                                  "rnd": API_RND}, "exp": {"sig": sig}},
            {"op": "verify", "in": {"pk": pk, "msg": mp, "sig": sig}, "exp": {"valid": True}}]


def drbg_requests(param: int) -> dict:
    """The API test of randomness left to the library (programs/pqc_mldsa_api.c t_drbg): the DRBG
    instantiated as pqc_layout's ML-KEM test does gives xi (32 bytes), then the hedged rnd (32
    bytes), as OpenSSL's HMAC-DRBG computes them; pk, sk are dilithium-py's keygen of xi, sig
    its signature of the default requests' M' under their sk (API_XI's) with that rnd."""
    from dilithium_py.ml_dsa import ML_DSA_44, ML_DSA_65, ML_DSA_87
    from firmware import drbg_vectors
    from firmware.pqc_layout import DRBG_ENTROPY, DRBG_NONCE
    ref = {44: ML_DSA_44, 65: ML_DSA_65, 87: ML_DSA_87}[param]
    xi, rnd = drbg_vectors.draws(DRBG_ENTROPY, DRBG_NONCE, b"", [32, 32])
    pk, sk = ref._keygen_internal(xi)
    _, api_sk = ref._keygen_internal(API_XI)
    sig = ref._sign_internal(api_sk, m_prime(API_MSG, API_CTX), rnd)
    return {"entropy": DRBG_ENTROPY, "nonce": DRBG_NONCE, "pk": pk, "sk": sk, "sig": sig}


# The long M' of the mu-stream tests (programs/pqc_mldsa_api.c t_mu_*): longer than every
# program's buffer, byte i = LONG_PATTERN[i % 256], so the firmware streams it from 256 bytes.
LONG_MPRIME_BYTES = 10_000
LONG_PATTERN = bytes((131 * i + 7) % 256 for i in range(256))


def long_requests(param: int) -> dict:
    """The mu-stream tests' expected values for the default requests' keys (API_XI's): mu =
    H(tr || M', 64) of the long M' (hashlib's SHAKE256 over dilithium-py's tr), and
    dilithium-py's Sign_internal of that M' with API_RND."""
    import hashlib
    from dilithium_py.ml_dsa import ML_DSA_44, ML_DSA_65, ML_DSA_87
    ref = {44: ML_DSA_44, 65: ML_DSA_65, 87: ML_DSA_87}[param]
    _, sk = ref._keygen_internal(API_XI)
    mp = (LONG_PATTERN * (LONG_MPRIME_BYTES // 256 + 1))[:LONG_MPRIME_BYTES]
    return {"mu": hashlib.shake_256(sk[64:128] + mp).digest(MU_BYTES),
            "sig": ref._sign_internal(sk, mp, API_RND)}


def request_name(param: int, r: dict) -> str:
    """The firmware's name of a request's result line: mldsa65_sign, mldsa65_sign_mu, ..."""
    return f"mldsa{param}_{request_op(param, r)}"


def streamed(param: int, r: dict) -> bool:
    """The request's M' is over its program's buffer: the firmware streams mu = H(tr || M', 64)
    through the KMAC block (pqc.h pqc_mldsa_mu_*) and runs the program from that mu."""
    if r["op"] == "keygen" or "msg" not in r["in"]:
        return False
    lay = layout(r["op"], param)
    return lay is not None and len(r["in"]["msg"]) > lay["fields"]["msg_max"]


def request_op(param: int, r: dict) -> str:
    """The program a request runs: sign from mu (given, or streamed from a long M') is its own
    program (sign_mu)."""
    return "sign_mu" if r["op"] == "sign" and ("mu" in r["in"] or streamed(param, r)) else r["op"]


def api_vectors(param: int, requests: list[dict], error_tests: bool) -> str:
    """pqc_mldsa_api_vectors.h: the images of the programs the requests use (keygen, sign and
    verify with error_tests), each request's inputs ({"xi"} / {"sk", "msg" (M') or "mu",
    "rnd"} / {"pk", "msg" or "mu", "sig"}) and, when given, its expected outputs ("exp":
    {"pk", "sk"} / {"sig"} / {"valid"}; None: the firmware only prints what it got)."""
    used = {request_op(param, r) for r in requests} | ({"keygen", "sign", "verify"} if error_tests else set())
    ops = tuple(o for o in OPS if o in used)
    n = sizes(param)
    lines = ["/* Generated by firmware/pqc_mldsa_layout.py (api_vectors) for programs/pqc_mldsa_api.c:",
             f" * the program images of ML-DSA-{param}, the calls to make with their inputs and,",
             " * where given, the expected outputs from dilithium-py. */",
             "#include <stdint.h>", '#include "pqc.h"',
             f"#define API_PARAM {param}u", f"#define API_ERROR_TESTS {int(error_tests)}",
             images_c(param, ops, "api_img"),
             f"static const struct pqc_image *const api_images[] = "
             f"{{{', '.join('&api_img_' + o for o in ops)}}};",
             f"#define API_IMAGES {len(ops)}u"]
    need = {"keygen": {"xi": SEED_BYTES}, "sign": {"sk": n["sk"], "rnd": RND_BYTES},
            "verify": {"pk": n["pk"], "sig": n["sig"]}}
    outs = {"keygen": {"pk": n["pk"], "sk": n["sk"]}, "sign": {"sig": n["sig"]}, "verify": {}}
    rows = []
    for i, r in enumerate(requests):
        op, ins, exp = r["op"], r["in"], r.get("exp")
        if op not in need:
            raise LayoutError(f"request {i}: no operation {op!r}")
        if layout(request_op(param, r), param) is None:
            raise LayoutError(f"ML-DSA-{param} has no {request_op(param, r)} program")

        def blob(tag, data, length=None):
            if length is not None and len(data) != length:
                raise LayoutError(f"request {i} ({op}): {tag} is {len(data)} bytes, needs {length}")
            lines.append(f"static const uint8_t api_r{i}_{tag}[] __attribute__((aligned(4))) = "
                         f"{_c_bytes(data) if data else '{0}'};")
            return f"api_r{i}_{tag}"
        a = [blob(k, ins[k], ln) for k, ln in need[op].items()] + ["0"] * (2 - len(need[op]))
        msg, mlen, mu = "0", 0, "0"
        if op != "keygen":
            if ("mu" in ins) == ("msg" in ins):
                raise LayoutError(f"request {i} ({op}): give msg (M') or mu, one of them")
            if "mu" in ins:
                mu = blob("mu", ins["mu"], MU_BYTES)
            else:
                msg, mlen = blob("msg", ins["msg"]), len(ins["msg"])
        e = ["0", "0"]
        valid = -1
        if exp is not None:
            for j, (k, ln) in enumerate(outs[op].items()):
                e[j] = blob("exp_" + k, exp[k], ln)
            valid = int(exp["valid"]) if op == "verify" else -1
        o = list(outs[op].items()) + [("", 0)] * (2 - len(outs[op]))
        rows.append(f'    {{"{request_name(param, r)}", PQC_MLDSA_{op.upper()}, {{{a[0]}, {a[1]}}}, '
                    f'{msg}, {mlen}u, {mu}, {int(streamed(param, r))}, {{{e[0]}, {e[1]}}}, {valid}, '
                    f'{{"{o[0][0]}", "{o[1][0]}"}}, {{{o[0][1]}u, {o[1][1]}u}}}},')
    lines += [f"#define API_{k.upper()}_BYTES {v}u" for k, v in n.items() if k != "l"]
    if error_tests:
        lines += [f"static const uint8_t api_drbg_{k}[] __attribute__((aligned(4))) = {_c_bytes(v)};"
                  for k, v in drbg_requests(param).items()]
        lines += [f"#define API_LONG_MPRIME_BYTES {LONG_MPRIME_BYTES}u",
                  f"static const uint8_t api_long_pattern[256] = {_c_bytes(LONG_PATTERN)};"]
        lines += [f"static const uint8_t api_long_{k}[] __attribute__((aligned(4))) = {_c_bytes(v)};"
                  for k, v in long_requests(param).items()]
    lines += ["/* op: keygen in = {xi}, sign {sk, rnd}, verify {pk, sig}; msg (M', mlen bytes)",
              " * or mu; stream: M' is over the program's buffer, its mu is streamed through the",
              " * KMAC block; exp_valid: -1 not checked / not verify, else 0 / 1 */",
              "struct api_request { const char *name; uint8_t op; const uint8_t *in[2];",
              "                     const uint8_t *msg; uint32_t mlen; const uint8_t *mu; int stream;",
              "                     const uint8_t *exp[2]; int exp_valid;",
              "                     const char *out_name[2]; uint32_t out_len[2]; };",
              "static const struct api_request api_requests[] = {", *rows, "};",
              f"#define API_REQUESTS {len(rows)}u", ""]
    return "\n".join(lines)


def prehash_vectors() -> str:
    """pqc_prehash_vectors.h for programs/pqc_prehash.c: per HashML-DSA pre-hash of FIPS 204
    (ip/acc/acvp.py PREHASH: the ones NIST's vectors use), a context and message (lengths 0 to
    255 and across the KMAC's rates), hashlib's PH(M) and M' as the ACVP client forms it (which
    passes NIST's 360 sigGen cases)."""
    import hashlib
    from ip.acc import acvp
    lines = ["/* Generated by firmware/pqc_mldsa_layout.py (prehash_vectors): HashML-DSA M' per pre-hash,",
             " * digests from hashlib, M' from ip/acc/acvp.py. Do not edit. */", "#include <stdint.h>"]
    rows = []
    ctx_lens, msg_lens = (0, 1, 255, 17, 64), (0, 200, 33, 137, 1000)
    for i, (alg, (_, _, ph)) in enumerate(acvp.PREHASH.items()):
        ctx = hashlib.shake_256(f"ctx {alg}".encode()).digest(ctx_lens[i % 5])
        msg = hashlib.shake_256(f"msg {alg}".encode()).digest(msg_lens[i % 5])
        mprime = acvp._hash_m_prime({"hashAlg": alg}, ctx, msg, alg)
        name, out, _ = acvp.PREHASH[alg]
        h = hashlib.new(name, msg)
        digest = h.digest(out) if out else h.digest()
        for tag, v in (("ctx", ctx), ("msg", msg), ("digest", digest), ("mprime", mprime)):
            lines.append(f"static const uint8_t ph{i}_{tag}[] = {_c_bytes(v) if v else '{0}'};")
        rows.append(f'    {{"{alg}", {ph}u, ph{i}_ctx, {len(ctx)}u, ph{i}_msg, {len(msg)}u, ph{i}_digest, '
                    f'{len(digest)}u, ph{i}_mprime, {len(mprime)}u}},')
    lines += ["struct prehash_case { const char *alg; uint32_t ph; const uint8_t *ctx; uint32_t ctx_len;",
              "                      const uint8_t *msg; uint32_t msg_len; const uint8_t *digest;",
              "                      uint32_t digest_len; const uint8_t *mprime; uint32_t mprime_len; };",
              "static const struct prehash_case prehash_cases[] = {", *rows, "};",
              f"#define PREHASH_CASES {len(rows)}u", ""]
    return "\n".join(lines)
