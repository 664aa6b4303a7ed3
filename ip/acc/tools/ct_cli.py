# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""The constant-time check's command line and its built-in programs:

    python -m ip.acc.tools.ct_cli PROG.s --secret 0:1152 --public 1152:2368 ...
    python -m ip.acc.tools.ct_cli --kernel mlkem768_decaps
    pqsoc acc ct ...                    (the same)

Exit 0: no secret reaches a sink; 1: violations; 2: bad input (constant_time.py's
docstring). kernels(): every ACC program with a declared policy (ct_policy), by name.
"""
import argparse
import sys

from ip.acc.tools.constant_time import check
from ip.acc.tools.ct_data import Allow, CtError, Policy, Program


def kernels() -> dict:
    """name -> (assembly text function, policy function) of the programs with a declared
    constant-time policy."""
    from ip.acc.kernels.mldsa import sign, sign16
    from ip.acc.kernels.mldsa.keygen import keygen as mldsa_keygen
    from ip.acc.kernels.mldsa.verify import verify
    from ip.acc.kernels.mlkem import decaps
    from ip.acc.kernels.mlkem.encaps import encaps
    from ip.acc.kernels.mlkem.keygen import keygen
    from ip.acc.kernels.mlkem.masked_decrypt import masked_decrypt
    from ip.acc.kernels.mlkem.masked_compare import MaskedCompare, MaskedSelect
    from ip.acc.kernels.mlkem.masked_encrypt import MaskedEncrypt
    from ip.acc.kernels.mlkem.masked_decaps import MaskedDecaps
    out = {"mlkem768_decaps": (decaps.decaps_program, decaps.ct_policy)}
    for p in (512, 1024):
        out[f"mlkem{p}_decaps"] = (lambda p=p: decaps.decaps(p).program(),
                                   lambda p=p: decaps.decaps(p).ct_policy())
    for p in (512, 768, 1024):
        out[f"mlkem{p}_keygen"] = (lambda p=p: keygen(p).program(),
                                   lambda p=p: keygen(p).ct_policy())
        out[f"mlkem{p}_encaps"] = (lambda p=p: encaps(p).program(),
                                   lambda p=p: encaps(p).ct_policy())
        out[f"mlkem{p}_decrypt_masked"] = (lambda p=p: masked_decrypt(p).program(),
                                           lambda p=p: masked_decrypt(p).ct_policy())
        out[f"mlkem{p}_encrypt_masked"] = (lambda p=p: MaskedEncrypt(p).program(),
                                           lambda p=p: MaskedEncrypt(p).ct_policy())
        out[f"mlkem{p}_compare_masked"] = (lambda p=p: MaskedCompare(p).program(),
                                           lambda p=p: MaskedCompare(p).ct_policy())
        out[f"mlkem{p}_decaps_masked"] = (lambda p=p: MaskedDecaps(p).program(),
                                          lambda p=p: MaskedDecaps(p).ct_policy())
    out["mlkem_select_masked"] = (lambda: MaskedSelect().program(), lambda: MaskedSelect().ct_policy())
    out["mldsa65_sign"] = (sign.sign_program, sign.ct_policy)
    for p in (44, 65, 87):
        out[f"mldsa{p}_keygen"] = (lambda p=p: mldsa_keygen(p).program(),
                                   lambda p=p: mldsa_keygen(p).ct_policy())
    for p in (44, 65, 87):
        out[f"mldsa{p}_verify"] = (lambda p=p: verify(p).program(),
                                   lambda p=p: verify(p).ct_policy())
    out["mldsa65_sign16"] = (sign16.sign_program, sign16.ct_policy)
    out["mldsa44_sign16"] = (lambda: sign16.signer(44).program(),
                             lambda: sign16.signer(44).ct_policy())
    out["mldsa87_sign16"] = (lambda: sign16.signer(87).program(),
                             lambda: sign16.signer(87).ct_policy())
    return out


def _parse_range(text):
    name, _, rng = text.rpartition("=")
    lo, sep, hi = rng.partition(":")
    try:
        return (name or rng), (int(lo, 0), int(hi, 0))
    except ValueError:
        raise CtError(f"range {text!r}: want LO:HI or NAME=LO:HI (bytes, hi exclusive)") from None


def _parse_allow(text):
    parts = text.split(":", 2)
    if len(parts) < 2:
        raise CtError(f"--allow {text!r}: want KIND:LABEL[:REASON] or KIND:LABEL1..LABEL2[:REASON]")
    kind, where = parts[0], parts[1]
    reason = parts[2] if len(parts) > 2 else "declared on the command line"
    if ".." in where:
        return Allow(kind, reason, within=tuple(where.split("..", 1)))
    return Allow(kind, reason, target=where)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(
        prog="constant_time",
        description="Static constant-time (information-flow) check of an ACC program.")
    ap.add_argument("program", nargs="?", help="assembly (.s) or hex words (.hex)")
    ap.add_argument("--kernel", help="check a built-in program with its declared policy "
                    "(one of: mlkem{512,768,1024}_decaps, mlkem{512,768,1024}_encaps, mldsa65_sign, "
                    "mldsa{65,44,87}_sign16, mldsa{44,65,87}_verify)")
    ap.add_argument("--secret", action="append", default=[], metavar="[NAME=]LO:HI",
                    help="DMEM bytes secret at entry (repeatable)")
    ap.add_argument("--public", action="append", default=[], metavar="[NAME=]LO:HI",
                    help="DMEM bytes public at entry (repeatable)")
    ap.add_argument("--rest", choices=("secret", "public"), default="secret",
                    help="undeclared DMEM bytes (default: secret)")
    ap.add_argument("--secret-reg", action="append", default=[], metavar="xN|wN")
    ap.add_argument("--allow", action="append", default=[], metavar="KIND:LABEL[:REASON]",
                    help="declared exception: KIND (branch, loop-count, address, timing) at a "
                         "branch to LABEL or in LABEL1..LABEL2")
    ap.add_argument("--dmem", type=int, default=32 * 1024, help="DMEM bytes (default 32768)")
    a = ap.parse_args(argv)
    try:
        if a.kernel:
            ks = kernels()
            if a.kernel not in ks:
                raise CtError(f"unknown kernel {a.kernel!r} (known: {', '.join(ks)})")
            src_fn, pol_fn = ks[a.kernel]
            print(f"{a.kernel}: generating the program", flush=True)
            prog = Program.from_asm(src_fn(), a.kernel)
            pol = Policy.from_dict(pol_fn())
        elif a.program:
            prog = Program.from_file(a.program)
            pol = Policy(dict(_parse_range(t) for t in a.secret),
                         dict(_parse_range(t) for t in a.public), a.rest,
                         tuple(a.secret_reg), tuple(_parse_allow(t) for t in a.allow))
        else:
            raise CtError("give a PROGRAM or --kernel NAME")
        print(f"analysing {len(prog.words)} instructions", flush=True)
        rep = check(prog, pol, dmem_size=a.dmem)
    except CtError as exc:
        print(f"constant_time: error: {exc}", file=sys.stderr)
        return 2
    print(rep.text())
    return 0 if rep.ok else 1


if __name__ == "__main__":
    sys.exit(main())
