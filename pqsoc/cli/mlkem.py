# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""`pqsoc mlkem keygen|encaps|decaps --param P ... [--engine iss|rtl|soc]` (decaps
[--masked]: the first-order masked program, every engine), `pqsoc mlkem
check-ek --param P --ek HEX` / `check-dk --param P --dk HEX` (FIPS 203 7.2 / 7.3 key checks, on
the host: exit 0 pass, 1 fail naming the section, 2 bad input), `pqsoc mldsa keygen
--param P --xi HEX`, `pqsoc mldsa sign --param P --sk HEX (--msg HEX [--ctx HEX] [--prehash
ALG] | --mprime HEX | --mu HEX) [--rnd HEX | --deterministic]` and `pqsoc mldsa verify --param
P --pk HEX (--msg HEX [--ctx HEX] [--prehash ALG] | --mprime HEX | --mu HEX) --sig HEX`: the ACC's ML-KEM / ML-DSA programs through the host API
(ip/acc/api.py); `--engine soc` runs them through the firmware API on the simulated SoC
(sim/mlkem_soc.py, sim/mldsa_soc.py) and adds cpu_cycles. Signing is hedged by default
(FIPS 204 3.4: rnd = 32 fresh bytes from os.urandom, not printed); --rnd gives rnd,
--deterministic uses 32 zero bytes.
One JSON line on stdout; exit 0 on success (verify: the signature is valid), 1 when a run fails
(verify: the signature is invalid; the line says why in "status"), 2 with a message on bad
input (wrong length, not hex, a context over 255 bytes, a message over the program's buffer, a
parameter set without a program, conflicting options, a FIPS 203 section 7 input check failed
in the program: "ek check failed: ...", "dk check failed: ..."). HEX may be `@FILE` (a file
holding the hex text)."""
import json
import os
import sys
from pathlib import Path


class _BadInput(Exception):
    pass


def _hex(opt: str, text: str) -> bytes:
    if text.startswith("@"):
        try:
            text = Path(text[1:]).read_text()
        except OSError as e:
            raise _BadInput(f"--{opt}: cannot read {text[1:]}: {e.strerror or e}") from None
    text = "".join(text.split())
    try:
        return bytes.fromhex(text)
    except ValueError:
        raise _BadInput(f"--{opt}: not a hex string") from None


def _hedged_rnd() -> bytes:
    """rnd of a hedged signature: 32 fresh bytes from the OS's CSPRNG (FIPS 204 3.4)."""
    return os.urandom(32)


def _message(args) -> dict:
    """The API's message keywords from --msg [--ctx] [--prehash], --mprime or --mu (one of the
    three forms)."""
    given = [o for o in ("msg", "mprime", "mu") if getattr(args, o) is not None]
    if len(given) != 1:
        raise _BadInput("give one of --msg, --mprime or --mu")
    if given != ["msg"] and (args.ctx is not None or args.prehash is not None):
        raise _BadInput(f"--ctx and --prehash go with --msg, not with --{given[0]}")
    if given == ["msg"]:
        return {"msg": _hex("msg", args.msg), "ctx": b"" if args.ctx is None else _hex("ctx", args.ctx),
                "prehash": args.prehash}
    return {given[0]: _hex(given[0], getattr(args, given[0])), "msg": None}


def _sign(args, api) -> dict:
    kw = _message(args)
    if args.rnd is not None and args.deterministic:
        raise _BadInput("give --rnd or --deterministic, not both")
    sk = _hex("sk", args.sk)
    if args.deterministic:
        rnd = None
    elif args.rnd is not None:
        rnd = _hex("rnd", args.rnd)       # its length: the API's check
    else:
        rnd = _hedged_rnd()
    return api.mldsa_sign(args.param, sk, rnd=rnd, engine=args.engine, **kw)


def _quiet_litex() -> None:
    """LiteX logs its whole SoC build at INFO unless logging is already configured."""
    import logging
    logging.basicConfig(level=logging.WARNING, format="%(name)s: %(message)s")


def _mlkem_soc(op: str, param: int, ins: tuple, **kw) -> dict:
    """ip.acc.api's ML-KEM engine "soc": sim/mlkem_soc.py (the firmware API on the simulated
    SoC), its failures as ApiError (" check failed: ": an input check, exit 2)."""
    from ip.acc import api
    from sim import mlkem_soc
    try:
        return mlkem_soc.run(op, param, ins, **kw)
    except mlkem_soc.SocEngineError as e:
        raise api.ApiError(f"engine soc: {e}") from None


def _mldsa_soc(op: str, param: int, ins: dict) -> dict:
    """ip.acc.api's ML-DSA engine "soc" (plugged in by _run): sim/mldsa_soc.py, its failures
    as ApiError."""
    from ip.acc import api
    from sim import mldsa_soc
    try:
        return mldsa_soc.run(op, param, ins)
    except mldsa_soc.SocEngineError as e:
        raise api.ApiError(f"engine soc: {e}") from None


def plug_soc_engines() -> None:
    """Engine "soc" of ip.acc.api, which lives a floor below sim/: plugged in from here."""
    from ip.acc import api
    _quiet_litex()
    api.MLKEM_SOC_ENGINE = _mlkem_soc
    api.MLDSA_SOC_ENGINE = _mldsa_soc


def _run(args) -> int:
    from ip.acc import api
    try:
        if getattr(args, "engine", None) == "soc":
            plug_soc_engines()
        if args.scheme == "mldsa" and args.op == "sign":
            r = _sign(args, api)
        elif args.scheme == "mldsa" and args.op == "verify":
            kw = _message(args)
            r = api.mldsa_verify(args.param, _hex("pk", args.pk), kw.pop("msg"), _hex("sig", args.sig),
                                 engine=args.engine, **kw)
        elif args.scheme == "mldsa":
            r = api.mldsa_keygen(args.param, _hex("xi", args.xi), args.engine)
        elif args.op in ("check-ek", "check-dk"):
            key = args.op[-2:]
            check = api.mlkem_check_ek if key == "ek" else api.mlkem_check_dk
            r = check(args.param, _hex(key, getattr(args, key)))
            if not r["valid"]:
                print(f"pqsoc mlkem {args.op}: {key} fails the {r['check']}: {r['reason']}",
                      file=sys.stderr)
        elif args.op == "keygen":
            r = api.mlkem_keygen(args.param, _hex("d", args.d), _hex("z", args.z), args.engine)
        elif args.op == "encaps":
            r = api.mlkem_encaps(args.param, _hex("ek", args.ek), _hex("m", args.m), args.engine)
        else:
            r = api.mlkem_decaps(args.param, _hex("dk", args.dk), _hex("c", args.c), args.engine,
                                 masked=args.masked)
    except (_BadInput, api.ApiError) as e:
        bad_input = isinstance(e, (_BadInput, api.BadInput)) or "bytes, ML-KEM needs" in str(e) \
            or "bytes, ML-DSA needs" in str(e) \
            or "no such parameter set" in str(e) or " check failed: " in str(e)
        print(f"pqsoc {args.scheme} {args.op}: error: {e}", file=sys.stderr)
        return 2 if bad_input else 1
    print(json.dumps({k: (v.hex() if isinstance(v, bytes) else v) for k, v in r.items()}))
    return 0 if r.get("valid", True) else 1


ENGINES = ("iss", "rtl", "gls", "soc")
ENGINE_HELP = ("iss: the ACC's cycle-accurate ISS; rtl: its RTL in Verilator; gls: its synthesized "
               "netlist (`pqsoc synth acc`) at gate level in Verilator; soc: the firmware API "
               "(firmware/lib/pqc.c) on the whole simulated SoC, adds cpu_cycles (gls and soc slow; "
               "default iss)")


def _message_options(q) -> None:
    """The message forms of sign and verify beside --msg / --ctx."""
    from ip.acc.api import PREHASH
    q.add_argument("--prehash", choices=tuple(PREHASH), metavar="ALG",
                   help="HashML-DSA (FIPS 204 Alg. 4 / 5): M' = 1 || len(ctx) || ctx || OID || PH(M), "
                        f"PH one of {', '.join(PREHASH)} (computed on the host)")
    q.add_argument("--mprime", metavar="HEX", help="M' itself (the internal interface, FIPS 204 "
                   "Alg. 7 / 8) instead of --msg / --ctx")
    q.add_argument("--mu", metavar="HEX", help="mu = H(tr || M', 64) (64 bytes) instead of --msg / --ctx")


def add_parser(sub) -> None:
    p = sub.add_parser("mlkem", help="ML-KEM keygen / encaps / decaps on the ACC (ISS, RTL or the whole "
                                     "SoC), key checks check-ek / check-dk on the host: one JSON line")
    s = p.add_subparsers(dest="op", required=True)
    for op, ins in (("keygen", ("d", "z")), ("encaps", ("ek", "m")), ("decaps", ("dk", "c"))):
        q = s.add_parser(op)
        q.add_argument("--param", type=int, required=True, choices=(512, 768, 1024))
        for name in ins:
            q.add_argument(f"--{name}", required=True, metavar="HEX", help="hex, or @FILE holding it")
        q.add_argument("--engine", choices=ENGINES, default="iss", help=ENGINE_HELP)
        if op == "decaps":
            q.add_argument("--masked", action="store_true",
                           help="the first-order masked program (s_hat and z in fresh shares from "
                                "os.urandom, URND seeded from it; soc: the firmware's "
                                "pqc_mlkem_decaps_masked, its DRBG seeded from os.urandom)")
        q.set_defaults(func=_run, scheme="mlkem")
    for op, key, what in (("check-ek", "ek", "FIPS 203 7.2: length and modulus check"),
                          ("check-dk", "dk", "FIPS 203 7.3: length and hash check H(ek)")):
        q = s.add_parser(op, help=f"{what}, on the host: {{valid, check, reason}}; exit 0 pass, "
                                  "1 fail, 2 bad input")
        q.add_argument("--param", type=int, required=True, choices=(512, 768, 1024))
        q.add_argument(f"--{key}", required=True, metavar="HEX", help="hex, or @FILE holding it")
        q.set_defaults(func=_run, scheme="mlkem")
    p = sub.add_parser("mldsa", help="ML-DSA keygen / sign / verify on the ACC (ISS, RTL or the whole SoC): one JSON line")
    s = p.add_subparsers(dest="op", required=True)
    q = s.add_parser("keygen")
    q.add_argument("--param", type=int, required=True, choices=(44, 65, 87))
    q.add_argument("--xi", required=True, metavar="HEX", help="the 32-byte seed: hex, or @FILE holding it")
    q.add_argument("--engine", choices=ENGINES, default="iss", help=ENGINE_HELP)
    q.set_defaults(func=_run, scheme="mldsa")
    q = s.add_parser("sign", help="ML-DSA.Sign (pure, FIPS 204 Alg. 2), HashML-DSA.Sign (--prehash) "
                     "or Sign_internal from M' or an external mu, ML-DSA-44 / 65 / 87: {sig, cycles, "
                     "iterations}; hedged by default (rnd from os.urandom)")
    q.add_argument("--param", type=int, required=True, choices=(44, 65, 87))
    q.add_argument("--sk", required=True, metavar="HEX", help="the secret key: hex, or @FILE")
    q.add_argument("--msg", metavar="HEX", help="the message M: hex, or @FILE")
    q.add_argument("--ctx", metavar="HEX", help="the context (at most 255 bytes; default empty)")
    _message_options(q)
    q.add_argument("--rnd", metavar="HEX", help="rnd (32 bytes) of a hedged signature (default: "
                   "32 fresh bytes from os.urandom)")
    q.add_argument("--deterministic", action="store_true",
                   help="the deterministic variant (rnd = 32 zero bytes)")
    q.add_argument("--engine", choices=ENGINES, default="iss", help=ENGINE_HELP)
    q.set_defaults(func=_run, scheme="mldsa")
    q = s.add_parser("verify", help="ML-DSA.Verify (pure, FIPS 204 Alg. 3), HashML-DSA.Verify "
                     "(--prehash) or Verify_internal from M' or an external mu: {valid, status, "
                     "cycles}; exit 0 valid, 1 invalid")
    q.add_argument("--param", type=int, required=True, choices=(44, 65, 87))
    q.add_argument("--pk", required=True, metavar="HEX", help="the public key: hex, or @FILE")
    q.add_argument("--sig", required=True, metavar="HEX", help="the signature: hex, or @FILE")
    q.add_argument("--msg", metavar="HEX", help="the message M: hex, or @FILE")
    q.add_argument("--ctx", metavar="HEX", help="the context (at most 255 bytes; default empty)")
    _message_options(q)
    q.add_argument("--engine", choices=ENGINES, default="iss", help=ENGINE_HELP)
    q.set_defaults(func=_run, scheme="mldsa")
