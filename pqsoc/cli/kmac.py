# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""`pqsoc kmac MODE --msg HEX ...`: hash with the KMAC block in the Amaranth simulator, driven
through its CPU registers with the same sequence firmware uses (ip/kmac/dv/wb_driver.py)."""
from pqsoc import FlowError

MODES = ["sha3-224", "sha3-256", "sha3-384", "sha3-512", "shake128", "shake256",
         "cshake128", "cshake256", "kmac128", "kmac256"]


def _hex(what: str, s: str | None) -> bytes:
    if s is None:
        return b""
    try:
        return bytes.fromhex(s)
    except ValueError:
        raise FlowError(f"--{what}: not a hex string: {s!r}")


def plan(args) -> tuple[str, int, list, int]:
    """(engine mode, strength, segments, outlen) for the options, or FlowError naming the
    problem."""
    from ip.kmac.dv import sp800_185
    mode = args.mode
    family, strength = ("sha3", int(mode[5:])) if mode.startswith("sha3-") else (mode[:-3], int(mode[-3:]))
    msg = _hex("msg", args.msg)
    key = _hex("key", args.key)
    allowed = {"sha3": set(), "shake": set(), "cshake": {"name", "custom"},
               "kmac": {"key", "custom", "xof"}}[family]
    for opt in ("key", "name", "custom", "xof"):
        if getattr(args, opt) not in (None, False) and opt not in allowed:
            raise FlowError(f"--{opt} does not apply to {mode}")
    if family == "sha3":
        if args.outlen is not None:
            raise FlowError(f"--outlen does not apply to {mode} (fixed {strength // 8}-byte digest)")
        outlen = strength // 8
    else:
        if args.outlen is None:
            raise FlowError(f"{mode} needs --outlen N (output bytes)")
        if args.outlen <= 0:
            raise FlowError("--outlen must be positive")
        outlen = args.outlen
    if family == "kmac" and args.key is None:
        raise FlowError(f"{mode} needs --key HEX")
    name = (args.name or "").encode()
    custom = (args.custom or "").encode()
    sub = "kmacxof" if family == "kmac" and args.xof else family
    em, es, segs = sp800_185.segments(sub, strength, msg, key=key, name=name, custom=custom,
                                      outlen=outlen)
    return em, es, segs, outlen


def run_rtl(em: str, es: int, segs: list, outlen: int) -> bytes:
    from amaranth.sim import Simulator
    from ip.kmac.dv import wb_driver as wb
    from ip.kmac.rtl.kmac import Kmac
    codes = {"sha3": 0, "shake": 1, "cshake": 2}
    scode = {128: 0, 224: 1, 256: 2, 384: 3, 512: 4}
    dut = Kmac()
    out = {}

    async def bench(ctx):
        out["d"] = await wb.operation(ctx, dut.bus, codes[em], scode[es], segs, outlen)
        out["err"] = await wb.read(ctx, dut.bus, "ERR_CODE")

    sim = Simulator(dut)
    sim.add_clock(1e-8)
    sim.add_testbench(bench)
    sim.run()
    if out["err"]:
        raise FlowError(f"KMAC block reported ERR_CODE {out['err']:#x}")
    return out["d"]


def run_model(em: str, es: int, segs: list, outlen: int) -> bytes:
    from ip.kmac.model.transaction import SpongeModel
    md = SpongeModel()
    md.start({"sha3": 0, "shake": 1, "cshake": 2}[em], {128: 0, 224: 1, 256: 2, 384: 3, 512: 4}[es])
    for s in segs:
        if s == "PAD":
            md.pad_block()
        for i in range(0, len(s) if s != "PAD" else 0, 32):
            part = s[i:i + 32]
            md.message(part + bytes(32 - len(part)), (1 << len(part)) - 1)
    md.finish()
    return b"".join(md.digest_word() for _ in range((outlen + 31) // 32))[:outlen]


def main(args) -> int:
    em, es, segs, outlen = plan(args)
    run = run_rtl if args.engine == "rtl" else run_model
    print(run(em, es, segs, outlen).hex())
    return 0


def add_parser(sub) -> None:
    p = sub.add_parser("kmac", help="SHA3/SHAKE/cSHAKE/KMAC on the KMAC block (simulated)")
    p.add_argument("mode", choices=MODES)
    p.add_argument("--msg", default="", help="message, hex")
    p.add_argument("--key", help="KMAC key, hex")
    p.add_argument("--custom", help="customization string S (cSHAKE, KMAC)")
    p.add_argument("--name", help="function name N (cSHAKE)")
    p.add_argument("--outlen", type=int, help="output bytes (SHAKE, cSHAKE, KMAC)")
    p.add_argument("--xof", action="store_true", help="KMACXOF (right_encode(0))")
    p.add_argument("--engine", choices=["rtl", "model"], default="rtl",
                   help="rtl: Amaranth simulation of the block; model: ip/kmac/model/transaction.py")
    p.set_defaults(func=main)

