# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
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


def _decoded(blob, d, n):
    """ByteDecode_d of blob (little-endian bit stream), n coefficients."""
    v = int.from_bytes(blob, "little")
    return [(v >> (d * i)) & ((1 << d) - 1) for i in range(n)]


def _public_image(ref, p, flat, ek, c):
    """flat (the DMEM image) with what decaps' public buffers hold at the end (kyber-py):
    the decoded u, v (y << (16 - d)) at UC, VC; t_hat = ByteDecode12 of ek in p.t_polys, then the A_hat^T row buffers (p.rows; sampled
    after the t_hat decode): buffer b = A_hat^T[i] = (A_hat[j][i])_j for the last row i with
    i % 2 == b; 16-bit little-endian coefficients."""
    def enc(coeffs):
        return b"".join(x.to_bytes(2, "little") for x in coeffs)
    k = p.k
    t = []
    for i in range(0, 384 * k, 3):
        b0, b1, b2 = ek[i:i + 3]
        t += [b0 | (b1 & 15) << 8, b1 >> 4 | b2 << 4]
    # the decoded ciphertext as the re-encryption check keeps it: y << (16 - d)
    u = _decoded(c[:32 * p.du * k], p.du, 256 * k)
    flat[p.UC:p.UC + 512 * k] = enc([y << (16 - p.du) for y in u])
    v = _decoded(c[32 * p.du * k:], p.dv, 256)
    flat[p.VC:p.VC + 512] = enc([y << (16 - p.dv) for y in v])
    for n, addr in enumerate(p.t_polys):
        flat[addr:addr + 512] = enc(t[256 * n:256 * n + 256])
    a_hat = ref._generate_matrix_from_seed(ek[384 * k:])
    for b in range(2):
        i = max(i for i in range(k) if i % 2 == b)
        for j, addr in enumerate(p.rows[b]):
            flat[addr:addr + 512] = enc(a_hat[j, i].coeffs)
    return flat


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
        # decaps keeps public bytes (Decaps.public_kept: constant tables, ek, H(ek), c, the
        # decoded u, v and t_hat, the A_hat^T rows): they must hold exactly their public values
        flat = bytearray(MEM)
        for a, blob in img.items():
            flat[a:a + len(blob)] = blob
        flat = _public_image(ref, p, flat, ek, c)
        public = {(lo, hi): bytes(flat[lo:hi]) for lo, hi in p.public_kept()}
        keep += list(public)
    if op != "decaps":
        public = {}
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
        for (lo, hi), blob in public.items():
            # the register dump's words (checked zero above) may lie in the 768 row buffers
            top = min(hi, DUMP)
            if bytes(dmem[lo:top]) != blob[:max(0, top - lo)]:
                return f"public bytes [{lo:#x}, {hi:#x}) differ from their image"
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
    """The check fails when the wipe leaves one register or one DMEM word, or a word of the
    kept public bytes (constant tables, ek, c, A_hat^T rows) differs from its image (seeded:
    lines after the wipe, before the dump)."""
    src, img, check = _case("decaps", 512, seed=1)
    from ip.acc.kernels.mlkem.decaps import decaps
    assert any(2400 in range(lo, hi) for lo, hi in decaps(512).public_kept())
    end, msk = decaps(512).END, decaps(512).MSK          # MSK: m' masks, secret, wiped
    assert not any(msk in range(lo, hi) for lo, hi in decaps(512).public_kept())
    assert any(end - 32 in range(lo, hi) for lo, hi in decaps(512).public_kept())
    for extra, want in (("addi x7, x0, 1", "registers not zero"),
                        (f"addi x5, x0, 3\nbn.bcast w5, x5\nbn.sw w5, {msk}(x0)\n"
                         "bn.xor w5, w5, w5\naddi x5, x0, 0", f"DMEM word {msk:#x}"),
                        # a (secret) word over a kept public table
                        ("addi x5, x0, 3\nbn.bcast w5, x5\nbn.sw w5, 2400(x0)\n"
                         "bn.xor w5, w5, w5\naddi x5, x0, 0", "public bytes"),
                        # a word over the kept A_hat^T row buffers (end of the layout)
                        (f"addi x5, x0, 3\nbn.bcast w5, x5\nbn.sw w5, {end - 32}(x0)\n"
                         "bn.xor w5, w5, w5\naddi x5, x0, 0", "public bytes")):
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


def test_zero_dmem_zeroes_its_ranges_and_nothing_else():
    """asm_util.zero_dmem (the masked decryption's buffers between its two share passes; the
    end wipe's gaps): one word, a run past one loopi's 1023 words, nothing outside them."""
    from ip.acc.iss import Iss
    from ip.acc.kernels.asm_util import zero_dmem
    from ip.acc.tools.asm import assemble
    ranges = [(64, 96), (160, 160 + 32 * 1030)]
    sim = Iss(dmem_size=64 * 1024, imem_size=16384)
    sim.reset()
    sim.load_program(assemble("\n".join(["bn.bcast w0, x0"] + zero_dmem(ranges) + ["ecall"]) + "\n"))
    sim.dmem.write_bytes(0, b"\xa5" * (64 * 1024))
    assert sim.run(max_cycles=10_000).ok
    dmem = sim.dmem.read_bytes(0, 64 * 1024)
    for a in range(0, 64 * 1024, 32):
        inside = any(lo <= a < hi for lo, hi in ranges)
        assert dmem[a:a + 32] == (bytes(32) if inside else b"\xa5" * 32), hex(a)
