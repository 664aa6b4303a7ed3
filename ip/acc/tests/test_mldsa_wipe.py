# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""End-of-operation wiping of the ML-DSA programs (keygen 44 / 65 / 87, sign16 65 / 44 / 87, sign.py and
the signers' length refusal; issue #24 item 5): after the ecall, every DMEM byte but the
outputs is zero (keygen: pk and sk; signing: the signature, kappa, the status word;
refusal: the status word), and so are every WDR, the ACC WSR and every GPR; the KMAC is
released before. The registers are observed by a dump put before the ecall (wide stores
into a DMEM area that must be zero: iss_util.register_dump), so the same check runs on the
ISS and on the RTL. verify.py reads public data only (pk, M', the signature) and has no
wipe."""
import random

import pytest
from dilithium_py.ml_dsa import ML_DSA_44, ML_DSA_65, ML_DSA_87

from ip.acc import block as acc_block
from ip.acc.dv.jobs import dsa_sign_stages, image
from ip.acc.dv.lockstep import IssBackend
from ip.acc.kernels.mldsa import sign as sign32
from ip.acc.kernels.mldsa import sign16
from ip.acc.kernels.mldsa.keygen import keygen
from ip.acc.tests.iss_util import DUMP_BYTES, dump_before
from ip.acc.tools.asm import assemble

REF = {44: ML_DSA_44, 65: ML_DSA_65, 87: ML_DSA_87}


def _ecall_before(src: str, label: str | None) -> int:
    """Index of the ecall the check observes: the main path's (the one just before `label`,
    or the first ecall for label None)."""
    lines = src.splitlines()
    if label is None:
        return lines.index("ecall")
    i = lines.index(f"{label}:") - 1
    assert lines[i] == "ecall", lines[i - 2:i + 2]
    return i


def _checker(mem, keep, dump, want=None):
    """check(dmem) -> None or the first difference: outputs (want: dmem -> error or None),
    the dumped registers, then every byte outside keep [(lo, hi)] and the dump."""
    def check(dmem):
        if want is not None and (err := want(dmem)):
            return err
        regs = dmem[dump:dump + DUMP_BYTES]
        if any(regs):
            nz = [i // 32 for i in range(0, len(regs), 32) if any(regs[i:i + 32])]
            return f"registers not zero (dump words {nz}: 0..15 WDRs, 16 ACC, 17.. GPRs)"
        for a in range(mem):
            if dmem[a] and not any(lo <= a < hi for lo, hi in keep):
                return f"DMEM byte {a:#x} not zero after the wipe"
        return None
    return check


def _keygen_case(param, seed):
    """(program with the dump, DMEM image, check) of ML-DSA-<param> keygen."""
    mem = acc_block.DMEM_SIZE
    kg = keygen(param)
    xi = random.Random(seed).randbytes(32)
    ref = REF[param]._keygen_internal(xi)
    src = kg.program()
    dump = mem - DUMP_BYTES
    src = dump_before(src, _ecall_before(src, None), dump)
    keep = [(kg.PK, kg.PK + kg.pk_len), (kg.SK, kg.SK + kg.sk_len)]
    return src, image(kg.image(xi), mem), _checker(
        mem, keep, dump, lambda d: None if kg.outputs(d) == ref else "pk / sk differ")


def _sign_case(ms, mem, seed, refuse=False):
    """(program with the dump, DMEM image, check) of one signature by ms: the module sign16
    or sign (ML-DSA-65) or a sign16.Sign16 instance (its set); refuse: a length word
    beyond MSG_MAX (the refusal path)."""
    param = ms.param if isinstance(ms, sign16.Sign16) else 65
    rnd = random.Random(seed)
    _, sk = REF[param]._keygen_internal(rnd.randbytes(32))
    msg, r = rnd.randbytes(45), rnd.randbytes(32)
    src = ms.program() if isinstance(ms, sign16.Sign16) else ms.sign_program()
    dump = 4096                       # wiped in both layouts; x0-based bn.sw reaches it
    if refuse:
        img = ms.image(sk, msg, r, mlen=ms.MSG_MAX + 1)
        src = dump_before(src, _ecall_before(src, "len_ok"), dump)
        st = sign16.STATUS
        keep = [(st, st + 4)]

        def want(d):
            return None if d[st:st + 4] == sign16.STATUS_MSG_LENGTH.to_bytes(4, "little") else "status"
        return src, image(img, mem), _checker(mem, keep, dump, want)
    stages, ref = dsa_sign_stages(sk, msg, r, param)
    label = None if ms is sign32 else "sign_next"
    i = _ecall_before(src, label) if label else len(src.splitlines()) - 1
    src = dump_before(src, i, dump)
    ka, st = sign16.KAPPA, sign16.STATUS
    keep = [(ms.SIG, ms.SIG + ms.SIG_LEN), (ka, ka + 4), (st, st + 4)]

    def want(d):
        if bytes(d[ms.SIG:ms.SIG + ms.SIG_LEN]) != ref:
            return "signature differs from dilithium-py's"
        if int.from_bytes(d[ka:ka + 4], "little") != REF[param].l * len(stages):
            return "kappa"
        return None if d[st:st + 4] == sign16.STATUS_OK.to_bytes(4, "little") else "status"
    return src, image(ms.image(sk, msg, r), mem), _checker(mem, keep, dump, want)


def _run(src, img, mem, cycles=5_000_000):
    r = IssBackend(mem, mem).run(assemble(src, "p.s"), img, cycles)
    assert r.halt == "ecall", r
    return r


@pytest.mark.parametrize("param", [44, 65, 87])
def test_keygen_leaves_only_pk_sk(param):
    src, img, check = _keygen_case(param, seed=param)
    r = _run(src, img, acc_block.DMEM_SIZE)
    assert check(r.dmem) is None, check(r.dmem)


@pytest.mark.parametrize("seed", [4, 33])      # accepted at once; 7 iterations (z, r0, hint)
def test_sign16_leaves_only_the_signature(seed):
    src, img, check = _sign_case(sign16, acc_block.DMEM_SIZE, seed)
    r = _run(src, img, acc_block.DMEM_SIZE)
    assert check(r.dmem) is None, check(r.dmem)


@pytest.mark.parametrize("seed", [15])        # 5 iterations (r0, z, hint, z)
def test_sign16_44_leaves_only_the_signature(seed):
    src, img, check = _sign_case(sign16.signer(44), acc_block.DMEM_SIZE, seed)
    r = _run(src, img, acc_block.DMEM_SIZE)
    assert check(r.dmem) is None, check(r.dmem)


@pytest.mark.parametrize("seed", [0])         # 3 iterations (r0, z, ok)
def test_sign16_87_leaves_only_the_signature(seed):
    """ML-DSA-87 (w packed, one A tile): the same end wipe."""
    src, img, check = _sign_case(sign16.signer(87), acc_block.DMEM_SIZE, seed)
    r = _run(src, img, acc_block.DMEM_SIZE)
    assert check(r.dmem) is None, check(r.dmem)


def test_sign32_leaves_only_the_signature():
    """sign.py (32 KiB memories): the same end wipe over its 32 KiB."""
    src, img, check = _sign_case(sign32, sign32.DMEM, 4)
    r = _run(src, img, sign32.DMEM)
    assert check(r.dmem) is None, check(r.dmem)


def test_refused_length_leaves_only_the_status():
    """sign16's length refusal (the key was placed, nothing hashed): all of DMEM zero but
    the status word 1, every register zero."""
    for ms in (sign16, sign16.signer(44), sign16.signer(87)):
        src, img, check = _sign_case(ms, acc_block.DMEM_SIZE, 5, refuse=True)
        r = _run(src, img, acc_block.DMEM_SIZE, 10_000)
        assert check(r.dmem) is None, check(r.dmem)


def test_kmac_released_before_every_ecall():
    """On each program's text, the last kmac.* instruction before every ecall is kmac.rel
    (the KMAC clears its state on release)."""
    for name, src in [(f"keygen {p}", keygen(p).program()) for p in (44, 65, 87)] + \
            [("sign16", sign16.sign_program()), ("sign16 44", sign16.signer(44).program()),
             ("sign16 87", sign16.signer(87).program()), ("sign", sign32.sign_program())]:
        last = None
        for line in src.splitlines():
            if line.startswith("kmac."):
                last = line.split()[0]
            if line == "ecall":
                assert last == "kmac.rel", (name, last)


def test_seeded_leftovers_are_caught():
    """The check fails when the wipe leaves one register, one whole DMEM word, or the
    partial word before the signature (its 32-bit stores removed)."""
    mem = acc_block.DMEM_SIZE
    src, img, check = _sign_case(sign16, mem, 4)
    first_dump = "bn.sw w0, 4096(x0)"
    for extra, want in (("addi x7, x0, 1", "registers not zero"),
                        ("addi x5, x0, 3\nbn.bcast w5, x5\nbn.sw w5, 12288(x0)\n"
                         "bn.xor w5, w5, w5\naddi x5, x0, 0", "DMEM byte 0x3000")):
        bad = src.replace(first_dump, f"{extra}\n{first_dump}", 1)
        err = check(_run(bad, img, mem).dmem)
        assert err is not None and want in err, err
    # the 16 bytes W..SIG (w's last bytes) are wiped by 32-bit stores only (x5 = W): drop them
    lines = src.splitlines()
    at = max(i for i in range(lines.index("sign_next:")) if lines[i] == f"lui x5, {sign16.W >> 12}")
    drop = [i for i in range(at, len(lines)) if lines[i].startswith("sw x0, ")][:4]
    assert all(lines[i].endswith("(x5)") for i in drop) and sign16.W % 4096 == 0
    bad = "\n".join(l for i, l in enumerate(lines) if i not in drop) + "\n"
    err = check(_run(bad, img, mem).dmem)
    assert err is not None and f"DMEM byte {sign16.W:#x}" in err, err


def test_rtl_wipes_like_the_iss():
    """ML-DSA-44 keygen on the RTL: the same DMEM as the ISS (lockstep compare, dump
    included), and that DMEM passes the wipe check."""
    from ip.acc.dv.lockstep import compare
    from ip.acc.dv.rtl_runner import RtlBackend
    mem = acc_block.DMEM_SIZE
    src, img, check = _keygen_case(44, seed=5)
    job = (assemble(src, "keygen44.s"), img, 500_000)
    iss = IssBackend(mem, mem).run(*job)
    (rtl,) = RtlBackend(mem, mem).run_many([job])
    assert not compare(iss, rtl, ("iss", "rtl"))
    assert rtl.halt == "ecall" and check(rtl.dmem) is None, check(rtl.dmem)
