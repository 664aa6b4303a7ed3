# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""The share-domain check's command line (ip/acc/tools/share_check.py) on the masked programs:

    pqsoc acc shares --kernel mlkem768_decrypt_masked [--seed S] [--no-transitions] [--limit N]
    python -m ip.acc.tools.share_cli --list

Runs the program once on the ISS with random inputs in two shares (one run covers every run:
the masked programs are constant time) and prints each finding: its PC, instruction, kind
(`value`: a value of both share domains outside a gadget; `transition`: two values that follow
each other in a register, DMEM word or bus together show a secret) and place. Exit 0: clean;
1: findings; 2: bad input. The `_sum`, `_no_fresh` and `_combined` programs carry a seeded
leak, which must be found.
"""
import argparse
import random
import sys


def _decode(leak=None):
    from ip.acc.kernels.mlkem.masked import MaskedDecode, Q
    md = MaskedDecode(leak)

    def image(rng):
        x1 = [rng.randrange(Q) for _ in range(256)]
        x0 = [rng.randrange(Q) for _ in range(256)]
        return md.image(x0, x1)
    return md, image


def _decrypt(param):
    from ip.acc.kernels.mlkem.masked_decrypt import masked_decrypt, share_dk_pke
    from ip.acc.kernels.mlkem.masked import Q
    md = masked_decrypt(param)

    def image(rng):
        s = [rng.randrange(Q) for _ in range(256 * md.k)]
        dk = b"".join((s[i] | s[i + 1] << 12).to_bytes(3, "little") for i in range(0, len(s), 2))
        s0, s1 = share_dk_pke(dk, md.k, rng)
        return md.image(s0, s1, rng.randbytes(md.c_len))
    return md, image


def _encrypt(param, leak=None):
    from kyber_py.ml_kem import ML_KEM_512, ML_KEM_768, ML_KEM_1024
    from ip.acc.kernels.mlkem.masked_encrypt import MaskedEncrypt
    me = MaskedEncrypt(param, leak)
    kem = {512: ML_KEM_512, 768: ML_KEM_768, 1024: ML_KEM_1024}[param]

    def image(rng):
        ek, _ = kem._keygen_internal(rng.randbytes(32), rng.randbytes(32))
        return me.image(ek, *(rng.randbytes(32) for _ in range(4)))
    return me, image


def _compare(param, leak=None):
    from ip.acc.kernels.mlkem.masked_compare import MaskedCompare
    from ip.acc.kernels.mlkem.masked import Q
    mc = MaskedCompare(param, leak)

    def image(rng):
        def polys(n):
            return [[rng.randrange(Q) for _ in range(256)] for _ in range(n)]
        (v0,), (v1,) = polys(1), polys(1)
        return mc.image(polys(mc.k), polys(mc.k), v0, v1, rng.randbytes(mc.c_len))
    return mc, image


def _decaps(param):
    from kyber_py.ml_kem import ML_KEM_512, ML_KEM_768, ML_KEM_1024
    from ip.acc.kernels.mlkem.masked_decaps import MaskedDecaps
    md = MaskedDecaps(param)
    kem = {512: ML_KEM_512, 768: ML_KEM_768, 1024: ML_KEM_1024}[param]

    def image(rng):
        ek, dk = kem._keygen_internal(rng.randbytes(32), rng.randbytes(32))
        return md.image(md.mask_dk(dk, rng), kem._encaps_internal(ek, rng.randbytes(32))[1])
    return md, image


def _select():
    from ip.acc.kernels.mlkem.masked_compare import MaskedSelect
    f = MaskedSelect()

    def image(rng):
        return f.image(rng.randrange(2), rng.randrange(2), *(rng.randbytes(32) for _ in range(4)))
    return f, image


def _hash(kind, param=768, leak=None):
    from ip.acc.kernels.mlkem.masked_hash import MaskedG, MaskedJ, MaskedPRF
    obj = {"g": lambda: MaskedG(leak), "j": lambda: MaskedJ(param, leak),
           "prf": lambda: MaskedPRF(param, leak)}[kind]()
    extra = {"g": lambda rng: (rng.randbytes(32),), "j": lambda rng: (rng.randbytes(obj.ct_bytes),),
             "prf": lambda rng: ()}[kind]
    return obj, lambda rng: obj.image(rng.randbytes(32), rng.randbytes(32), *extra(rng))


def kernels() -> dict:
    """name -> () -> (program object with program() and share_policy(), image(rng) -> DMEM)."""
    out = {"mlkem_decode_masked": _decode}
    for leak in ("sum", "no_fresh"):
        out[f"mlkem_decode_masked_{leak}"] = lambda leak=leak: _decode(leak)
    for p in (512, 768, 1024):
        out[f"mlkem{p}_decrypt_masked"] = lambda p=p: _decrypt(p)
        out[f"mlkem{p}_encrypt_masked"] = lambda p=p: _encrypt(p)
        out[f"mlkem{p}_compare_masked"] = lambda p=p: _compare(p)
        out[f"mlkem{p}_decaps_masked"] = lambda p=p: _decaps(p)
        out[f"mlkem{p}_j_masked"] = lambda p=p: _hash("j", p)
        out[f"mlkem{p}_prf_masked"] = lambda p=p: _hash("prf", p)
    out["mlkem_g_masked"] = lambda: _hash("g")
    out["mlkem768_encrypt_masked_joined"] = lambda: _encrypt(768, "joined")
    out["mlkem768_compare_masked_no_fresh"] = lambda: _compare(768, "no_fresh")
    out["mlkem_select_masked"] = _select
    for kind in ("g", "j", "prf"):
        name = "mlkem_g_masked" if kind == "g" else f"mlkem768_{kind}_masked"
        out[name + "_combined"] = lambda kind=kind: _hash(kind, leak="combined")
    return out


def main(argv=None) -> int:
    from ip.acc.tools import share_check
    from ip.acc.tools.ct_data import Program
    ap = argparse.ArgumentParser(prog="share_check",
                                 description="Share-domain check of a masked ACC program.")
    ap.add_argument("--kernel", help="a built-in masked program (--list)")
    ap.add_argument("--list", action="store_true", help="the built-in programs")
    ap.add_argument("--seed", type=int, default=1, help="the inputs' and masks' seed")
    ap.add_argument("--no-transitions", action="store_true",
                    help="values of both domains only, not the registers' and buses' changes")
    ap.add_argument("--limit", type=int, default=40, help="findings printed (default 40)")
    a = ap.parse_args(argv)
    ks = kernels()
    if a.list:
        print("\n".join(ks))
        return 0
    if a.kernel not in ks:
        print(f"share_check: error: {'give --kernel NAME' if not a.kernel else f'unknown kernel {a.kernel!r}'}"
              f" (known: {', '.join(ks)})", file=sys.stderr)
        return 2
    rng = random.Random(a.seed)
    obj, image = ks[a.kernel]()
    prog = Program.from_asm(obj.program(), a.kernel)
    print(f"[shares] {a.kernel}: running {len(prog.words)} instructions on the ISS", flush=True)
    found = share_check.check(prog, image(rng), [rng.getrandbits(32) for _ in range(8)],
                              transitions=not a.no_transitions, **obj.share_policy())
    for f in found[:a.limit]:
        print(f"  {f.pc:#07x}  {f.text:32s} {f.kind:10s} {f.where}")
    if len(found) > a.limit:
        print(f"  ... and {len(found) - a.limit} more")
    print(f"[shares] {a.kernel}: " + (f"{len(found)} findings" if found else "clean"))
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
