# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""The first-order masked re-encryption (ip/acc/kernels/mlkem/masked_encrypt.py) on the ISS:
u'0 + u'1 and v'0 + v'1 equal kyber-py's u and v of K-PKE.Encrypt(ek, m', r') (computed with
kyber-py's own matrix, noise and NTT), and compress to its ciphertext, for 512 / 768 / 1024,
in a time that depends on nothing, with every secret byte and register wiped at the end;
constant time and clean for the share-domain check. The RTL = ISS lockstep and the leakage
assessment are in test_tvla.py."""
import random

import pytest
from kyber_py.ml_kem import ML_KEM_512, ML_KEM_768, ML_KEM_1024

from ip.acc import block
from ip.acc.dv.jobs import image
from ip.acc.iss import Iss
from ip.acc.kernels.mlkem.masked import Q
from ip.acc.kernels.mlkem.masked_encrypt import MaskedEncrypt
from ip.acc.tools.asm import assemble

KEMS = {512: ML_KEM_512, 768: ML_KEM_768, 1024: ML_KEM_1024}


def reference(kem, ek: bytes, m: bytes, r: bytes):
    """kyber-py's u (k polynomials) and v of K-PKE.Encrypt before Compress (FIPS 203 Alg. 14)."""
    t_hat = kem.M.decode_vector(ek[:-32], kem.k, 12, is_ntt=True)
    a_hat_t = kem._generate_matrix_from_seed(ek[-32:], transpose=True)
    y, n = kem._generate_error_vector(r, kem.eta_1, 0)
    e1, n = kem._generate_error_vector(r, kem.eta_2, n)
    e2, _ = kem._generate_polynomial(r, kem.eta_2, n)
    y_hat = y.to_ntt()
    u = (a_hat_t @ y_hat).from_ntt() + e1
    v = t_hat.dot(y_hat).from_ntt() + e2 + kem.R.decode(m, 1).decompress(1)
    return [u[i, 0].coeffs for i in range(kem.k)], v.coeffs      # u: a column vector


def split(x: bytes, rng) -> tuple[bytes, bytes]:
    x1 = rng.randbytes(len(x))
    return bytes(a ^ b for a, b in zip(x, x1)), x1


def run(me, ek, m, r, rng):
    """(sim, halt, outputs) of the program on fresh shares of m and r and fresh entropy."""
    (m0, m1), (r0, r1) = split(m, rng), split(r, rng)
    sim = Iss(dmem_size=block.DMEM_SIZE, imem_size=block.IMEM_SIZE)
    sim.reset()
    sim.load_program(assemble(me.program(), "masked_encrypt.s"))
    sim.dmem.write_bytes(0, image(me.image(ek, r0, r1, m0, m1), block.DMEM_SIZE))
    for _ in range(8):
        sim.write_entropy(rng.getrandbits(32))
    halt = sim.run(max_cycles=100_000)
    assert halt.ok, halt
    return sim, halt, me.outputs(sim.dmem.read_bytes(0, block.DMEM_SIZE))


@pytest.mark.parametrize("param", [512, 768, 1024])
def test_masked_encrypt_is_kpke_encrypt_in_shares(param):
    """Two key pairs, two runs each with fresh m', r', shares and masks: the shares' sums equal
    kyber-py's u and v and compress to its ciphertext, no share equals the value it shares;
    the cycles are the same for one ek (they depend on ek alone: A_hat's rejection sampling
    in the background); afterwards DMEM holds only the outputs and public bytes, and every
    register is 0; the program fits the taped-out memories."""
    kem, rng = KEMS[param], random.Random(param + 5)
    me = MaskedEncrypt(param)
    assert me.END <= block.DMEM_SIZE and 4 * len(assemble(me.program(), "m.s")) <= block.IMEM_SIZE
    cycles = {}
    for n in range(4):
        if n % 2 == 0:
            ek, _dk = kem._keygen_internal(rng.randbytes(32), rng.randbytes(32))
        m, r = rng.randbytes(32), rng.randbytes(32)
        sim, halt, (u0, u1, v0, v1) = run(me, ek, m, r, rng)
        u_ref, v_ref = reference(kem, ek, m, r)
        u = [[(a + b) % Q for a, b in zip(x, y)] for x, y in zip(u0, u1)]
        v = [(a + b) % Q for a, b in zip(v0, v1)]
        assert u == u_ref and v == v_ref
        assert all(x != w for x, w in zip(u0 + u1, u_ref + u_ref)) and v_ref not in (v0, v1)
        c = b"".join(kem.R(p).compress(kem.du).encode(kem.du) for p in u) + \
            kem.R(v).compress(kem.dv).encode(kem.dv)
        assert c == kem._k_pke_encrypt(ek, m, r)
        dmem = sim.dmem.read_bytes(0, block.DMEM_SIZE)
        assert not any(dmem[a] for a in range(me.END) if not any(lo <= a < hi for lo, hi in me.kept()))
        assert dmem[me.EK:me.EK + me.ek_len] == ek
        assert all(sim.wdr.read(i) == 0 for i in range(16)) and all(sim.gpr.read(i) == 0 for i in range(32))
        cycles.setdefault(ek, set()).add(halt.cycles)
    assert all(len(c) == 1 for c in cycles.values())


@pytest.mark.parametrize("param", [512, 768, 1024])
def test_masked_encrypt_is_constant_time(param):
    """The static check with the shares of m' and r' secret (URND's words too): no address,
    branch or duration depends on them; the A_hat^T rows' rejection sampling runs on a public
    seed (an unmasked kmac.start draws no URND word); a branch on m''s share 0 is caught."""
    from ip.acc.tools import constant_time as ct, ct_data
    me = MaskedEncrypt(param)
    rep = ct.check(ct_data.Program.from_asm(me.program()), me.ct_policy())
    assert rep.ok and not rep.violations and not rep.warnings, rep.text()
    seeded = me.program().replace("ecall\n", f"bn.lw w1, {me.M0}(x0)\nbn.ext x5, w1, 0\nbeq x5, x0, Lx\n"
                                  "Lx:\necall\n", 1)
    rep = ct.check(ct_data.Program.from_asm(seeded), me.ct_policy())
    assert [v.text for v in rep.failures] == ["beq x5, x0, Lx"]


@pytest.mark.parametrize("param", [512, 768, 1024])
def test_the_shares_never_meet(param):
    """ip/acc/tools/share_check.py: no value and no transition (register, bus, DMEM word) joins
    the two shares anywhere in the program; each word of the last noise polynomial loaded into
    one register in share 0, then in share 1, is flagged there and on the DMEM read register."""
    from ip.acc.tools import share_check
    from ip.acc.tools.ct_data import Program
    rng = random.Random(11)
    me = MaskedEncrypt(param)
    ek, _ = KEMS[param]._keygen_internal(rng.randbytes(32), rng.randbytes(32))
    img = me.image(ek, *(rng.randbytes(32) for _ in range(4)))
    ent = [rng.getrandbits(32) for _ in range(8)]
    assert share_check.check(Program.from_asm(me.program()), img, ent, **me.share_policy()) == []
    joined = share_check.check(Program.from_asm(MaskedEncrypt(param, "joined").program()), img, ent,
                               **me.share_policy())
    assert [f.where.split(":")[0] for f in joined] == ["w5", "dmem read"] * 16      # a pair a word


@pytest.mark.parametrize("param", [512, 768, 1024])
def test_share_work_runs_beside_the_noise(param):
    """The DMEM write port keeps the noise jobs' share words and the core's stores apart
    (isa.yml smp.run), so the schedule puts share work beside them: every y job after the
    first has the NTTs of both shares of the y before it beside it, and e2 has share work too."""
    me = MaskedEncrypt(param)
    share = {c[0]: c[1] for c in me._chunks()}
    names = [what for what, _ in me.schedule()]
    beside = {n: names[i + 1:names.index("wait", i)] for i, n in enumerate(names) if n in me._masked_jobs()}
    for j in range(1, me.k):
        assert set(beside[f"y{j}"]) == {f"ntt{j - 1}_0", f"ntt{j - 1}_1"}, beside[f"y{j}"]
    assert any(share[c] in (0, 1) for c in beside["e2"]), beside["e2"]


def test_bad_inputs_are_refused():
    me = MaskedEncrypt(512)
    with pytest.raises(ValueError, match="ML-KEM-640 is not one of"):
        MaskedEncrypt(640)
    with pytest.raises(ValueError, match="seeded leak"):
        MaskedEncrypt(768, "nosuch")
    with pytest.raises(ValueError, match="ek must be 800 bytes, not 799"):
        me.image(bytes(799), *(bytes(32) for _ in range(4)))
    with pytest.raises(ValueError, match="m1 must be 32 bytes, not 33"):
        me.image(bytes(800), bytes(32), bytes(32), bytes(32), bytes(33))


def test_the_command_lines_know_it(capsys):
    """`pqsoc acc ct` and `pqsoc acc shares` run it by name: constant time, clean, and its
    seeded leak reported (exit 1)."""
    from pqsoc import cli
    assert cli.main(["acc", "ct", "--kernel", "mlkem512_encrypt_masked"]) == 0
    assert "PASS" in capsys.readouterr().out
    assert cli.main(["acc", "shares", "--kernel", "mlkem512_encrypt_masked"]) == 0
    assert "mlkem512_encrypt_masked: clean" in capsys.readouterr().out
    assert cli.main(["acc", "shares", "--kernel", "mlkem768_encrypt_masked_joined"]) == 1
    assert "32 findings" in capsys.readouterr().out
