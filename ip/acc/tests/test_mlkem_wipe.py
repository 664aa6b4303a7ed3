"""End-of-operation wiping of the ML-KEM programs (keygen, encaps, decaps; every set): after
the ecall, all of DMEM but the outputs and the status slot is zero, and so are every WDR, the
ACC WSR and every GPR. The registers are observed by a dump epilogue put before the main
path's ecall (wide stores into a DMEM area that must be zero), so the same check runs on the
ISS and on the RTL."""
import random

import pytest
from kyber_py.ml_kem import ML_KEM_512, ML_KEM_768, ML_KEM_1024

from ip.acc import block as acc_block
from ip.acc.dv.jobs import image
from ip.acc.dv.lockstep import IssBackend
from ip.acc.kernels.mlkem import status
from ip.acc.tools.asm import assemble
from ip.acc.tests.iss_util import DUMP_BYTES, dump_before, register_dump

REF = {512: ML_KEM_512, 768: ML_KEM_768, 1024: ML_KEM_1024}
MEM = acc_block.DMEM_SIZE
DUMP = MEM - DUMP_BYTES       # 16 WDRs, ACC, 4 words of GPRs (x1..x31 packed by bn.ins)


def _dump():
    return register_dump(DUMP)


def _with_dump(src: str) -> str:
    """The program with the dump before its first (main path's) ecall."""
    return dump_before(src, src.splitlines().index("ecall"), DUMP)


def _case(op, param, seed, bad_ek=False):
    """(program with the dump, DMEM image, keep ranges, check(dmem) -> None or error)."""
    ref = REF[param]
    rnd = random.Random(seed)
    d, z, m = rnd.randbytes(32), rnd.randbytes(32), rnd.randbytes(32)
    ek, dk = ref._keygen_internal(d, z)
    if op == "keygen":
        from ip.acc.kernels.mlkem.keygen import keygen
        p = keygen(param)
        img, keep = p.image(d, z), [(p.DK, p.DK + p.dk_len)]
        want = (ek, dk)
    elif op == "encaps":
        from ip.acc.kernels.mlkem.encaps import encaps
        p = encaps(param)
        if bad_ek:                                   # t_hat[0] = 4095 >= q
            ek = b"\xff" + bytes([ek[1] | 0x0F]) + ek[2:]
        img, keep = p.image(ek, m), ([] if bad_ek else [(p.C, p.C + p.c_len),
                                                        (p.K_OUT, p.K_OUT + 32)])
        want = None if bad_ek else ref._encaps_internal(ek, m)
    else:
        from ip.acc.kernels.mlkem.decaps import decaps
        p = decaps(param)
        _, c = ref._encaps_internal(ek, m)
        img, keep = p.image(dk=dk, c=c), [(p.K_OUT, p.K_OUT + 32)]
        want = ref._decaps_internal(dk, c)
    keep.append((p.status_addr, p.status_addr + 32))
    code = status.EK_INVALID if bad_ek else status.OK

    def check(dmem):
        if status.read(dmem, p.status_addr) != code:
            return f"status {status.read(dmem, p.status_addr):#x}"
        if want is not None and p.outputs(dmem) != want:
            return "outputs differ from kyber-py"
        if any(dmem[p.status_addr + 4:p.status_addr + 32]):
            return "status slot beyond the word not zero"
        regs = dmem[DUMP:MEM]
        if any(regs):
            nz = [i for i in range(0, len(regs), 32) if any(regs[i:i + 32])]
            return f"registers not zero (dump words {[i // 32 for i in nz]}: 0..15 WDRs, 16 ACC, 17.. GPRs)"
        for a in range(0, MEM, 32):
            if not any(lo <= a < hi for lo, hi in keep) and any(dmem[a:a + 32]):
                return f"DMEM word {a:#x} not zero after the wipe"
        return None
    return _with_dump(p.program()), img, check


@pytest.mark.parametrize("param", [512, 768, 1024])
@pytest.mark.parametrize("op", ["keygen", "encaps", "decaps"])
def test_nothing_but_outputs_survives_on_the_iss(op, param):
    src, img, check = _case(op, param, seed=param + len(op))
    r = IssBackend(acc_block.IMEM_SIZE, MEM).run(assemble(src, f"{op}.s"), image(img, MEM), 200_000)
    assert r.halt == "ecall", r
    assert check(r.dmem) is None, check(r.dmem)


@pytest.mark.parametrize("param", [512, 1024])
def test_failed_ek_check_leaves_only_the_status(param):
    """The encaps failure path (ek check) wipes too: all of DMEM zero but EK_INVALID."""
    src, img, check = _case("encaps", param, seed=3, bad_ek=True)
    # the dump sits on the main path; the failure path's registers: dump before its ecall
    lines = src.splitlines()
    j = len(lines) - 1 - lines[::-1].index("ecall")
    src = "\n".join(lines[:j] + _dump() + lines[j:]) + "\n"
    r = IssBackend(acc_block.IMEM_SIZE, MEM).run(assemble(src, "encaps.s"), image(img, MEM), 200_000)
    assert r.halt == "ecall", r
    assert check(r.dmem) is None, check(r.dmem)


def test_seeded_leftover_is_caught():
    """The check fails when the wipe leaves one register or one DMEM word (seeded: lines
    after the wipe, before the dump)."""
    src, img, check = _case("decaps", 512, seed=1)
    for extra, want in (("addi x7, x0, 1", "registers not zero"),
                        ("addi x5, x0, 3\nbn.bcast w5, x5\nbn.sw w5, 8192(x0)\n"
                         "bn.xor w5, w5, w5\naddi x5, x0, 0", "DMEM word 0x2000")):
        bad = src.replace(f"bn.sw w0, {DUMP}(x0)", f"{extra}\nbn.sw w0, {DUMP}(x0)", 1)
        r = IssBackend(acc_block.IMEM_SIZE, MEM).run(assemble(bad, "d.s"), image(img, MEM), 200_000)
        assert r.halt == "ecall"
        assert want in (check(r.dmem) or ""), check(r.dmem)


def test_rtl_wipes_like_the_iss():
    """ML-KEM-768 decaps and encaps on the RTL: the same DMEM as the ISS (lockstep compare,
    dump included), and that DMEM passes the wipe check."""
    from ip.acc.dv.lockstep import compare
    from ip.acc.dv.rtl_runner import RtlBackend
    jobs, checks = [], []
    for op in ("decaps", "encaps"):
        src, img, check = _case(op, 768, seed=5)
        jobs.append((assemble(src, f"{op}.s"), image(img, MEM), 200_000))
        checks.append(check)
    iss = [IssBackend(acc_block.IMEM_SIZE, MEM).run(*j) for j in jobs]
    rtl = RtlBackend(acc_block.IMEM_SIZE, MEM).run_many(jobs)
    for a, b, check in zip(iss, rtl, checks):
        assert not compare(a, b, ("iss", "rtl"))
        assert b.halt == "ecall" and check(b.dmem) is None, check(b.dmem)
