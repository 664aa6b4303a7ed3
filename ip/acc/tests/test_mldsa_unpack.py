# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""ip/acc/kernels/mldsa/unpack.py on the ISS against dilithium-py: the secret key's s1, s2
(3 and 4 bits) and t0 (13 bits) unpacked polynomial by polynomial, and ExpandMask's y
(18 and 20 bits) from the SHAKE256 stream, for ML-DSA-44, -65 and -87; the constant-time
shape (one straight run, no branch, fixed addresses)."""
import random

import pytest
from dilithium_py.ml_dsa import ML_DSA_44, ML_DSA_65, ML_DSA_87

from ip.acc import block as acc_block
from ip.acc.iss import Iss
from ip.acc.kernels.asm_util import li as _li, mem as _m
from ip.acc.kernels.mldsa import sampling, sign16, unpack
from ip.acc.kernels.mldsa.layout import KA, KAPPA, RHOPP, VMODE1
from ip.acc.tools import sched
from ip.acc.tools.asm import assemble

DSA = {44: ML_DSA_44, 65: ML_DSA_65, 87: ML_DSA_87}
Q = 8380417
SKAT, OUT = 8192, 12288        # the key, the output polynomial (free in the constant image)


def _run(param, lines, img):
    src = "\n".join(sched.schedule(VMODE1 + lines + ["ecall"])) + "\n"
    sim = Iss(dmem_size=acc_block.DMEM_SIZE, imem_size=acc_block.IMEM_SIZE)
    sim.load_program(assemble(src, "unpack.s"))
    for a, b in {**sign16.signer(param).const_image(), **img}.items():
        sim.dmem.write_bytes(a, b)
    h = sim.run(max_cycles=100_000)
    assert h.ok, h
    out = sim.dmem.read_bytes(OUT, 1028)
    return [int.from_bytes(out[4 * i:4 * i + 4], "little") for i in range(257)], h.cycles


def _key(param, seed):
    _, sk = DSA[param]._keygen_internal(random.Random(seed).randbytes(32))
    return sk, DSA[param]._unpack_sk(sk)


@pytest.mark.parametrize("param", [44, 65, 87])
def test_unpack_s_t0(param):
    S = sign16.signer(param)
    sk, (_, _, _, s1, s2, t0) = _key(param, param)
    sb = 32 * S.sbits
    eta = [f"bn.lw w14, {_m(S.XA['eta'])}"]
    t0c = [f"bn.lw w15, {_m(S.XA['t0c'])}"]
    cases = [(s1[0, 0], 128, eta + unpack.unpack_eta(S.sbits), sb),
             (s2[S.k - 1, 0], 128 + sb * (S.l + S.k - 1), eta + unpack.unpack_eta(S.sbits), sb),
             (t0[1, 0], 128 + sb * (S.l + S.k) + 416, t0c + unpack.unpack_t0(), 416)]
    for poly, at, code, nbytes in cases:
        got, cyc = _run(param, _li(5, SKAT + at) + _li(6, OUT) + code +
                        _li(7, SKAT + at + nbytes) + ["sub x7, x5, x7", "addi x7, x7, 1", "sw x7, 0(x6)"],
                        {SKAT: sk + bytes(-len(sk) % 32)})
        assert got[:256] == [c % Q for c in poly.coeffs]
        assert got[256] == 1        # x5 advanced past the polynomial, x6 past the output
        print(f"\nML-DSA-{param}: {nbytes} B unpacked in {cyc} cycles")


@pytest.mark.parametrize("param", [44, 65, 87])
def test_unpack_mask(param):
    S = sign16.signer(param)
    rng = random.Random(7 + param)
    rhopp, kappa = rng.randbytes(64), rng.randrange(1 << 15)
    code = ["kmac.acq"] + _li(7, kappa) + sampling.mask_start() + \
        [f"bn.lw w15, {_m(KA['g1'])}"] + _li(6, OUT) + unpack.unpack_mask(S.zbits) + ["kmac.rel"]
    got, cyc = _run(param, code, {RHOPP: rhopp, KAPPA: bytes(4)})
    D = DSA[param]
    ref = D.R.sample_mask_polynomial(rhopp, 0, kappa, D.gamma_1)
    assert got[:256] == [c % Q for c in ref.coeffs]
    print(f"\nML-DSA-{param}: y ({S.zbits}-bit) in {cyc} cycles with its SHAKE256")


def test_unpack_shape():
    """Straight-line bodies (loopi only), fixed addresses (post-increment pointers), every
    legal width; an illegal width named."""
    for code in (unpack.unpack_eta(3), unpack.unpack_eta(4), unpack.unpack_t0(),
                 unpack.unpack_mask(18), unpack.unpack_mask(20)):
        assert not any(x.split()[0] in ("beq", "bne", "blt", "bge", "bltu", "bgeu", "jal",
                                        "jalr", "lw") for x in code)
    assert [unpack.period(d) for d in unpack.LEGAL] == [32, 8, 16, 16, 32, 16, 8]
    with pytest.raises(ValueError, match="no 23-bit fields"):
        unpack.unpack_poly(23, None, None)
