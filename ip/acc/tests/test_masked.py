# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""The first-order masked message decoding (ip/acc/kernels/mlkem/masked.py) and K-PKE.Decrypt
(masked_decrypt.py) on the ISS: m0 ^ m1 equals kyber-py's ByteEncode_1(Compress_1(x)) for
every coefficient value and for shares at their extremes, and kyber-py's K-PKE.Decrypt for
512 / 768 / 1024, in a time that depends on nothing, with registers and secret buffers wiped
at the end; the seeded-leak variants compute the same. The leakage assessment itself (RTL
power model) is in test_tvla.py."""
import random

import pytest
from kyber_py.ml_kem.default_parameters import ML_KEM_768

from ip.acc import block
from ip.acc.iss import Iss
from ip.acc.kernels.mlkem.masked import LEAKS, MaskedDecode, Q
from ip.acc.kernels.mlkem.masked_decrypt import masked_decrypt, share_dk_pke
from ip.acc.tools.asm import assemble

R = ML_KEM_768.R


def run(md, x0, x1, entropy):
    sim = Iss(dmem_size=block.DMEM_SIZE, imem_size=block.IMEM_SIZE)
    sim.reset()
    sim.load_program(assemble(md.program(), "masked_decode.s"))
    for a, b in md.image(x0, x1).items():
        sim.dmem.write_bytes(a, b)
    for w in entropy:
        sim.write_entropy(w)
    halt = sim.run(max_cycles=100_000)
    return sim, halt


def run_image(obj, x0: bytes, x1: bytes, entropy, name: str, max_cycles: int = 50_000):
    """obj's program on the ISS with the block's memories, its image of the shares x0 / x1 and
    the ENTROPY words; returns (sim, halt), the halt checked ok."""
    from ip.acc.dv.jobs import image
    sim = Iss(dmem_size=block.DMEM_SIZE, imem_size=block.IMEM_SIZE)
    sim.reset()
    sim.load_program(assemble(obj.program(), name))
    sim.dmem.write_bytes(0, image(obj.image(x0, x1), block.DMEM_SIZE))
    for w in entropy:
        sim.write_entropy(w)
    halt = sim.run(max_cycles=max_cycles)
    assert halt.ok, halt
    return sim, halt


def shares(x, rng):
    x0 = [rng.randrange(Q) for _ in x]
    return x0, [(a - b) % Q for a, b in zip(x, x0)]


def check(md, x, x0, x1, rng):
    sim, halt = run(md, x0, x1, [rng.getrandbits(32) for _ in range(8)])
    assert halt.ok, halt
    m0, m1 = md.outputs(sim.dmem.read_bytes(0, block.DMEM_SIZE))
    assert bytes(a ^ b for a, b in zip(m0, m1)) == R(list(x)).compress(1).encode(1)
    return sim, halt, m0


def test_every_coefficient_value_decodes_as_the_reference():
    """13 polynomials hold every value 0..q-1 once (and a few twice), each in fresh shares."""
    md, rng = MaskedDecode(), random.Random(1)
    values = list(range(Q)) + list(range(13 * 256 - Q))
    rng.shuffle(values)
    cycles = set()
    for i in range(13):
        x = values[256 * i:256 * i + 256]
        _, halt, _ = check(md, x, *shares(x, rng), rng)
        cycles.add(halt.cycles)
    assert len(cycles) == 1


@pytest.mark.parametrize("share0", [0, Q - 1])
def test_shares_at_their_extremes(share0):
    """x0 = 0 or q - 1 everywhere: the sum of the shares is at the ends of [0, 2q)."""
    md, rng = MaskedDecode(), random.Random(2)
    x = [rng.randrange(Q) for _ in range(256)]
    x0 = [share0] * 256
    check(md, x, x0, [(a - share0) % Q for a in x], rng)


def test_time_and_outputs_leave_nothing_behind():
    """The cycles are the same for other x, shares and masks; every register is zero at the end;
    share m0 changes with the masks while m0 ^ m1 does not."""
    md, rng = MaskedDecode(), random.Random(3)
    x = [rng.randrange(Q) for _ in range(256)]
    runs = [check(md, x, *shares(x, rng), rng) for _ in range(2)]
    y = [rng.randrange(Q) for _ in range(256)]
    runs.append(check(md, y, *shares(y, rng), rng))
    assert len({h.cycles for _, h, _ in runs}) == 1
    assert runs[0][2] != runs[1][2]
    sim = runs[0][0]
    assert all(sim.wdr.read(i) == 0 for i in range(16))


@pytest.mark.parametrize("leak", [v for v in LEAKS if v])
def test_the_seeded_leaks_compute_the_same(leak):
    md, rng = MaskedDecode(leak), random.Random(4)
    x = [rng.randrange(Q) for _ in range(256)]
    check(md, x, *shares(x, rng), rng)


def test_without_entropy_the_program_stops_on_rnd():
    md, rng = MaskedDecode(), random.Random(5)
    x = [rng.randrange(Q) for _ in range(256)]
    _, halt = run(md, *shares(x, rng), [])
    assert not halt.ok and "RND" in str(halt)


def test_bad_inputs_are_refused():
    md = MaskedDecode()
    with pytest.raises(ValueError, match="x0"):
        md.image([0] * 255, [0] * 256)
    with pytest.raises(ValueError, match="x1"):
        md.image([0] * 256, [Q] + [0] * 255)
    with pytest.raises(ValueError, match="seeded leak"):
        MaskedDecode("bogus")


# ---------------------------------------------------------------- masked K-PKE.Decrypt


def run_decrypt(param, dk_pke, c, rng):
    md = masked_decrypt(param)
    s0, s1 = share_dk_pke(dk_pke, md.k, rng)
    sim = Iss(dmem_size=block.DMEM_SIZE, imem_size=block.IMEM_SIZE)
    sim.reset()
    words = assemble(md.program(), f"mlkem{param}_decrypt_masked.s")
    sim.load_program(words)
    for a, b in md.image(s0, s1, c).items():
        sim.dmem.write_bytes(a, b)
    for _ in range(8):
        sim.write_entropy(rng.getrandbits(32))
    halt = sim.run(max_cycles=200_000)
    assert halt.ok, halt
    dmem = sim.dmem.read_bytes(0, block.DMEM_SIZE)
    m0, m1 = md.outputs(dmem)
    return md, sim, halt, dmem, bytes(a ^ b for a, b in zip(m0, m1)), len(words) * 4


@pytest.mark.parametrize("param", [512, 768, 1024])
def test_masked_decrypt_is_kpke_decrypt(param):
    """m0 ^ m1 = kyber-py's K-PKE.Decrypt for valid and random ciphertexts, in constant time,
    within the taped-out memories; afterwards DMEM holds nothing but the outputs and public
    bytes (c, the constant tables, what is computed from c alone) and every register is 0."""
    from kyber_py.ml_kem import ML_KEM_512, ML_KEM_768, ML_KEM_1024
    kem = {512: ML_KEM_512, 768: ML_KEM_768, 1024: ML_KEM_1024}[param]
    rng = random.Random(param)
    ek, dk = kem._keygen_internal(rng.randbytes(32), rng.randbytes(32))
    dk_pke = dk[:384 * masked_decrypt(param).k]
    cycles = set()
    for valid in (True, False):
        c = kem._encaps_internal(ek, rng.randbytes(32))[1] if valid else \
            rng.randbytes(masked_decrypt(param).c_len)
        md, sim, halt, dmem, m, imem = run_decrypt(param, dk_pke, c, rng)
        assert m == kem._k_pke_decrypt(dk_pke, c)
        cycles.add(halt.cycles)
        assert imem <= block.IMEM_SIZE and md.END <= block.DMEM_SIZE
        kept = md.public_kept() + [(md.gadget.M0, md.gadget.M0 + 32), (md.gadget.M1, md.gadget.M1 + 32)]
        assert not any(dmem[a] for a in range(md.END) if not any(lo <= a < hi for lo, hi in kept))
        assert all(sim.wdr.read(i) == 0 for i in range(16))
    assert len(cycles) == 1


def test_masked_decrypt_refuses_bad_inputs():
    md, rng = masked_decrypt(768), random.Random(6)
    with pytest.raises(ValueError, match="must be 2, 3 or 4|512, 768, 1024"):
        masked_decrypt(769)
    with pytest.raises(ValueError, match="1152 bytes"):
        share_dk_pke(bytes(1151), 3, rng)
    with pytest.raises(ValueError, match=">= q"):
        share_dk_pke(b"\xff" * 1152, 3, rng)
    with pytest.raises(ValueError, match="c must be 1088"):
        md.image(bytes(1152), bytes(1152), bytes(1087))


def test_the_benchmark_reports_cycles_against_the_unmasked_programs(tmp_path):
    import json
    from ip.acc.dv import bench_masked
    out = tmp_path / "m.json"
    assert bench_masked.main(["--n", "1", "--json", str(out)]) == 0
    rep = json.loads(out.read_text())["programs"]
    assert rep["mlkem_decode_masked"]["cycles"] > 0
    for p in (512, 768, 1024):
        r = rep[f"mlkem{p}_decrypt_masked"]
        assert r["overhead"] == round(r["cycles"] / r["unmasked_decrypt_cycles"][0], 2) and r["overhead"] > 1
        assert r["imem_bytes"] <= block.IMEM_SIZE and r["dmem_bytes"] <= block.DMEM_SIZE
        r = rep[f"mlkem{p}_noise_masked"]
        assert r["overhead"] == round(r["cycles"] / r["unmasked_cycles"], 2) and r["overhead"] > 1
        r = rep[f"mlkem{p}_encrypt_masked"]
        assert r["overhead"] == round(r["cycles"] / r["unmasked_reencrypt_cycles"], 2) and r["overhead"] > 1
        assert rep[f"mlkem{p}_compare_masked"]["dmem_bytes"] <= block.DMEM_SIZE
        r = rep[f"mlkem{p}_decaps_masked"]
        assert r["overhead"] == round(r["cycles"] / r["unmasked_cycles"], 2) and r["overhead"] > 1
        assert sum(r["phases"].values()) == r["cycles"] and r["imem_bytes"] <= block.IMEM_SIZE
    assert 0 < rep["mlkem_b2a_masked"]["cycles"] < 200
    assert bench_masked.main(["--n", "0"]) == 2


@pytest.mark.parametrize("param", [512, 768, 1024])
def test_masked_decrypt_is_constant_time(param):
    """The static check with both shares secret: no address, branch or duration depends on a
    share or on URND's masks; the same program with a branch on m0 is caught."""
    from ip.acc.tools import constant_time as ct, ct_data
    md = masked_decrypt(param)
    rep = ct.check(ct_data.Program.from_asm(md.program()), md.ct_policy())
    assert rep.ok and not rep.violations and not rep.warnings, rep.text()
    seeded = md.program()[:-len("ecall\n")] + \
        f"bn.lw w1, {md.gadget.M0}(x0)\nbn.ext x5, w1, 0\nbeq x5, x0, Lx\nLx:\necall\n"
    rep = ct.check(ct_data.Program.from_asm(seeded), md.ct_policy())
    assert [v.text for v in rep.failures] == ["beq x5, x0, Lx"]


@pytest.mark.parametrize("param", [512, 768, 1024])
def test_the_shares_meet_only_in_the_gadget(param):
    """ip/acc/tools/share_check.py: no value outside the decoding gadget is computed from both
    shares of s_hat; the same program with x0 + x1 formed before the gadget is caught there."""
    from ip.acc.tools import share_check
    from ip.acc.tools.ct_data import Program
    md, rng = masked_decrypt(param), random.Random(7)
    s0, s1 = share_dk_pke(bytes(384 * md.k), md.k, rng)
    img, ent = md.image(s0, s1, rng.randbytes(md.c_len)), [rng.getrandbits(32) for _ in range(8)]
    pol = md.share_policy()
    assert share_check.check(Program.from_asm(md.program()), img, ent, **pol) == []
    g = md.gadget
    seeded = md.program().replace(f"{g.share_gadget().begin}:\n",
                                  f"bn.lw w1, {g.X0}(x0)\nbn.lw w2, {g.X1}(x0)\nbn.addvm w3, w1, w2\n"
                                  f"bn.xor w3, w3, w3\n{g.share_gadget().begin}:\n")
    found = share_check.check(Program.from_asm(seeded), img, ent, **pol)
    assert [(f.text, f.where) for f in found if f.kind == "value"] == [("bn.addvm w3, w1, w2", "w3")]
    # and as transitions: the two shares' loads back to back on the DMEM read register, the
    # sum on the write-back bus and into w3
    moves = [(f.text, f.where.split(":")[0]) for f in found if f.kind == "transition"]
    assert (f"bn.lw w2, {g.X1}(x0)", "dmem read") in moves
    assert ("bn.addvm w3, w1, w2", "wdr write-back") in moves and ("bn.addvm w3, w1, w2", "w3") in moves


def test_the_standalone_gadget_passes_the_share_check():
    from ip.acc.tools import share_check
    from ip.acc.tools.ct_data import Program
    md, rng = MaskedDecode(), random.Random(8)
    x = [rng.randrange(Q) for _ in range(256)]
    img = md.image(*shares(x, rng))
    assert share_check.check(Program.from_asm(md.program()), img,
                             [rng.getrandbits(32) for _ in range(8)], **md.share_policy()) == []


def test_the_share_check_refuses_a_missing_gadget_label():
    from ip.acc.tools import share_check
    from ip.acc.tools.ct_data import Program
    md = MaskedDecode()
    with pytest.raises(RuntimeError, match="not in the program"):
        share_check.check(Program.from_asm("ecall\n"), {}, [], **md.share_policy())


# ---------------------------------------------------------------- G through the masked KMAC
def run_g(g, m, m1, h, entropy):
    from ip.acc.dv.jobs import image
    sim = Iss(dmem_size=block.DMEM_SIZE, imem_size=block.IMEM_SIZE)
    sim.reset()
    sim.load_program(assemble(g.program(), "masked_g.s"))
    m0 = bytes(a ^ b for a, b in zip(m, m1))
    sim.dmem.write_bytes(0, image(g.image(m0, m1, h), block.DMEM_SIZE))
    for w in entropy:
        sim.write_entropy(w)
    halt = sim.run(max_cycles=10_000)
    assert halt.ok, halt
    return sim, halt


@pytest.mark.parametrize("leak", [None, "combined"])
def test_masked_g_is_sha3_512_in_two_shares(leak):
    """K'0 ^ K'1 || r'0 ^ r'1 = SHA3-512(m' || h) (hashlib), neither share the digest, in a
    time that depends on nothing; the registers that held shares are zero at the end. The seeded
    leak computes the same."""
    import hashlib
    from ip.acc.kernels.mlkem.masked_hash import MaskedG
    g = MaskedG(leak)
    rng = random.Random(3)
    cycles = set()
    for _ in range(4):
        m, m1, h = rng.randbytes(32), rng.randbytes(32), rng.randbytes(32)
        sim, halt = run_g(g, m, m1, h, [rng.getrandbits(32) for _ in range(8)])
        k0, k1, r0, r1 = g.outputs(sim.dmem.read_bytes())
        ref = hashlib.sha3_512(m + h).digest()
        assert bytes(a ^ b for a, b in zip(k0 + r0, k1 + r1)) == ref
        assert k0 != ref[:32] and r0 != ref[32:] and k1 != ref[:32]
        assert all(sim.wdr.read(i) == 0 for i in (1, 2, 5, 6, 7, 8))
        cycles.add(halt.cycles)
    assert len(cycles) == 1


def test_masked_g_refuses_bad_inputs():
    from ip.acc.kernels.mlkem.masked_hash import MaskedG
    with pytest.raises(ValueError, match="h: 32 bytes"):
        MaskedG().image(bytes(32), bytes(32), bytes(31))
    with pytest.raises(ValueError, match="seeded leak"):
        MaskedG("nosuch")


# ---------------------------------------------------------------- J through the masked KMAC
@pytest.mark.parametrize("param", [512, 768, 1024])
def test_masked_j_is_shake256_in_two_shares(param):
    """K-bar0 ^ K-bar1 = SHAKE256(z || c, 32) (hashlib) for every set's ciphertext length,
    neither share the output, in a time that depends on nothing; the share registers zeroed."""
    import hashlib
    from ip.acc.dv.jobs import image
    from ip.acc.kernels.mlkem.masked_hash import CT_BYTES, MaskedJ
    j = MaskedJ(param)
    rng = random.Random(param)
    cycles = set()
    for _ in range(3):
        z, z1, c = rng.randbytes(32), rng.randbytes(32), rng.randbytes(CT_BYTES[param])
        sim = Iss(dmem_size=block.DMEM_SIZE, imem_size=block.IMEM_SIZE)
        sim.reset()
        sim.load_program(assemble(j.program(), "masked_j.s"))
        sim.dmem.write_bytes(0, image(j.image(bytes(a ^ b for a, b in zip(z, z1)), z1, c), block.DMEM_SIZE))
        for _ in range(8):
            sim.write_entropy(rng.getrandbits(32))
        halt = sim.run(max_cycles=50_000)
        assert halt.ok, halt
        k0, k1 = j.outputs(sim.dmem.read_bytes())
        ref = hashlib.shake_256(z + c).digest(32)
        assert bytes(a ^ b for a, b in zip(k0, k1)) == ref
        assert k0 != ref and k1 != ref
        assert all(sim.wdr.read(i) == 0 for i in (1, 2, 5, 6))
        cycles.add(halt.cycles)
    assert len(cycles) == 1


def test_masked_j_refuses_bad_inputs():
    from ip.acc.kernels.mlkem.masked_hash import MaskedJ
    with pytest.raises(ValueError, match="c: 1088 bytes expected for ML-KEM-768"):
        MaskedJ(768).image(bytes(32), bytes(32), bytes(768))
    with pytest.raises(ValueError, match="no such parameter set"):
        MaskedJ(640)
    with pytest.raises(ValueError, match="seeded leak"):
        MaskedJ(768, "nosuch")


# ---------------------------------------------------------------- the share check through the KMAC
def test_the_share_check_follows_the_kmac_s_two_share_states():
    """isa.yml `shares`: G and J keep m' / z's shares in their own KMAC share states and read
    K' / r' / K-bar's shares out of them, so the share-domain check passes them. Seeded: the
    leak that XORs the shares, a share sent as a public word (it joins share 0's state), and
    a digest's two shares read into one register are each caught where they happen."""
    from ip.acc.kernels.mlkem.masked_hash import SEP, MaskedG, MaskedJ
    from ip.acc.tools import share_check
    from ip.acc.tools.ct_data import Program
    rng = random.Random(11)
    ent = [rng.getrandbits(32) for _ in range(8)]
    g, j = MaskedG(), MaskedJ(512)
    g_img = g.image(rng.randbytes(32), rng.randbytes(32), rng.randbytes(32))
    j_img = j.image(rng.randbytes(32), rng.randbytes(32), rng.randbytes(j.ct_bytes))

    def findings(prog, img, pol, kind="value"):
        return [(f.text, f.where) for f in share_check.check(Program.from_asm(prog), img, ent, **pol)
                if f.kind == kind]

    for prog, img, pol in ((g.program(), g_img, g.share_policy()), (j.program(), j_img, j.share_policy())):
        assert share_check.check(Program.from_asm(prog), img, ent, **pol) == []   # transitions too
    # the XOR, then everything computed from it: share 0's state, K'0 and r'0 and their
    # stores; share 1's state and outputs stay clean
    derived = [("kmac.msg w3, x3", "the KMAC's share-0 state"), ("kmac.dig w5", "w5"), ("kmac.dig w7", "w7"),
               (f"bn.sw w5, {g.K0}(x0)", f"DMEM {g.K0:#x}"), (f"bn.sw w7, {g.R0}(x0)", f"DMEM {g.R0:#x}")]
    assert findings(MaskedG("combined").program(), g_img, g.share_policy()) == \
        [("bn.xor w1, w1, w2", "w1"), ("kmac.msg w1, x3", "the KMAC's share-0 state")] + derived
    assert findings(MaskedJ(512, "combined").program(), j_img, j.share_policy())[:2] == \
        [("bn.xor w1, w1, w2", "w1"), ("kmac.msg w1, x3", "the KMAC's share-0 state")]
    # share 1 of m' also sent as a public word: share 0's state now holds both domains
    public = g.program().replace("kmac.msgm w1, w2, x3\n", "kmac.msgm w1, w2, x3\nkmac.msg w2, x3\n")
    assert findings(public, g_img, g.share_policy()) == [("kmac.msg w2, x3", "the KMAC's share-0 state")] + derived
    # K''s two shares XOR-ed after they are read
    read = f"kmac.dig1 w6\n{SEP}\nkmac.dig w5\n"
    assert read in g.program()
    joined = g.program().replace(read, read + "bn.xor w9, w5, w6\n")
    assert findings(joined, g_img, g.share_policy()) == [("bn.xor w9, w5, w6", "w9")]


# ---------------------------------------------------------------- the PRF through the masked KMAC
@pytest.mark.parametrize("param", [512, 768, 1024])
def test_masked_prf_is_shake256_in_two_shares(param):
    """Share 0 ^ share 1 of each output = SHAKE256(r' || N, 64 eta) (hashlib) with FIPS 203's
    etas (eta1 for N < k, eta2 after), neither share the output, in a time that depends on
    nothing; the share registers zeroed; the share-domain check clean."""
    import hashlib
    from ip.acc.kernels.mlkem.masked_hash import MaskedPRF
    from ip.acc.tools import share_check
    from ip.acc.tools.ct_data import Program
    f = MaskedPRF(param)
    k = {512: 2, 768: 3, 1024: 4}[param]
    assert [n for _, n in f.spans] == [{512: 192}.get(param, 128)] * k + [128] * (k + 1)
    assert f.END <= block.DMEM_SIZE
    rng = random.Random(param)
    cycles = set()
    for _ in range(3):
        r, r1 = rng.randbytes(32), rng.randbytes(32)
        r0 = bytes(a ^ b for a, b in zip(r, r1))
        ent = [rng.getrandbits(32) for _ in range(8)]
        sim, halt = run_image(f, r0, r1, ent, "masked_prf.s")
        for n, (o0, o1) in enumerate(f.outputs(sim.dmem.read_bytes())):
            ref = hashlib.shake_256(r + bytes([n])).digest(len(o0))
            assert bytes(a ^ b for a, b in zip(o0, o1)) == ref
            assert o0 != ref and o1 != ref
        assert all(sim.wdr.read(i) == 0 for i in (1, 2, 5, 6))
        cycles.add(halt.cycles)
    assert len(cycles) == 1
    assert share_check.check(Program.from_asm(f.program()), f.image(r0, r1), ent, **f.share_policy()) == []
    found = share_check.check(Program.from_asm(MaskedPRF(param, "combined").program()), f.image(r0, r1), ent,
                              **f.share_policy())
    first = [f for f in found if f.kind == "value"][0]
    assert (first.text, first.where) == ("bn.xor w1, w1, w2", "w1")


@pytest.mark.parametrize("param", [512, 768, 1024])
def test_masked_cbd_is_kyber_py_s_noise_in_two_arithmetic_shares(param):
    """Each polynomial's share 0 + share 1 mod q = kyber-py's SamplePolyCBD_eta(PRF_eta(r',
    N)) with FIPS 203's etas (the stream unit's cbd3m for ML-KEM-512's y, cbd2m otherwise),
    neither share the polynomial, in a time that depends on nothing; r''s registers zeroed;
    the share-domain check clean, and flagged when r' is combined first."""
    import hashlib
    from kyber_py.ml_kem.default_parameters import ML_KEM_512 as P
    from ip.acc.kernels.mlkem.masked_hash import MaskedCBD
    from ip.acc.tools import share_check
    from ip.acc.tools.ct_data import Program
    f = MaskedCBD(param)
    assert f.END <= block.DMEM_SIZE
    assert f.etas == {512: [3, 3, 2, 2, 2], 768: [2] * 7, 1024: [2] * 9}[param]
    rng = random.Random(param + 1)
    cycles = set()
    for _ in range(2):
        r, r1 = rng.randbytes(32), rng.randbytes(32)
        r0 = bytes(a ^ b for a, b in zip(r, r1))
        ent = [rng.getrandbits(32) for _ in range(8)]
        sim, halt = run_image(f, r0, r1, ent, "masked_cbd.s")
        for n, (e0, e1) in enumerate(f.outputs(sim.dmem.read_bytes())):
            eta = f.etas[n]
            want = P.R.cbd(hashlib.shake_256(r + bytes([n])).digest(64 * eta), eta).coeffs
            assert [(a + b) % Q for a, b in zip(e0, e1)] == want, n
            assert e0 != want and e1 != want
        assert all(sim.wdr.read(i) == 0 for i in (1, 2))
        cycles.add(halt.cycles)
    assert len(cycles) == 1
    assert share_check.check(Program.from_asm(f.program()), f.image(r0, r1), ent, **f.share_policy()) == []
    found = share_check.check(Program.from_asm(MaskedCBD(param, "combined").program()), f.image(r0, r1), ent,
                              **f.share_policy())
    assert [x.text for x in found if x.kind == "value"][0] == "bn.xor w1, w1, w2"


def test_masked_prf_refuses_bad_inputs():
    from ip.acc.kernels.mlkem.masked_hash import MaskedPRF
    with pytest.raises(ValueError, match="r1: 32 bytes expected"):
        MaskedPRF(768).image(bytes(32), bytes(31))
    with pytest.raises(ValueError, match="no such parameter set"):
        MaskedPRF(640)
    with pytest.raises(ValueError, match="seeded leak"):
        MaskedPRF(768, "nosuch")


@pytest.mark.parametrize("which", ["g", "j", "prf", "cbd"])
def test_the_masked_hashes_are_constant_time(which):
    """The static check with both shares secret (what lets the share-domain check run once): no
    address, branch or duration depends on a share or on URND's masks; a branch on share 0 is
    caught."""
    from ip.acc.kernels.mlkem.masked_hash import MaskedCBD, MaskedG, MaskedJ, MaskedPRF
    from ip.acc.tools import constant_time as ct, ct_data
    obj = {"g": MaskedG(), "j": MaskedJ(1024), "prf": MaskedPRF(512), "cbd": MaskedCBD(512)}[which]
    rep = ct.check(ct_data.Program.from_asm(obj.program()), obj.ct_policy())
    assert rep.ok and not rep.violations and not rep.warnings, rep.text()
    share0 = next(iter(obj.ct_policy()["secret"].values()))[0]
    seeded = obj.program()[:-len("ecall\n")] + f"bn.lw w1, {share0}(x0)\nbn.ext x5, w1, 0\nbeq x5, x0, Lx\nLx:\necall\n"
    rep = ct.check(ct_data.Program.from_asm(seeded), obj.ct_policy())
    assert [v.text for v in rep.failures] == ["beq x5, x0, Lx"]


def test_masked_b2a_gives_m_prime_s_bits_in_arithmetic_shares():
    """The stream unit's b2a1m on 256 bits in Boolean shares (ip/acc/kernels/mlkem/masked_b2a.py):
    share 0 + share 1 = each bit mod q, neither share the bits, the same cycles for every input
    and mask; constant time, clean for the share check, and its seeded leak flagged."""
    from ip.acc.kernels.mlkem.masked_b2a import MaskedB2A
    from ip.acc.tools import constant_time as ct, ct_data, share_check
    from ip.acc.tools.ct_data import Program
    f = MaskedB2A()
    rng = random.Random(21)
    cycles = set()
    for x in (bytes(32), b"\xff" * 32, rng.randbytes(32)):
        x1 = rng.randbytes(32)
        x0 = bytes(a ^ b for a, b in zip(x, x1))
        ent = [rng.getrandbits(32) for _ in range(8)]
        sim, halt = run_image(f, x0, x1, ent, "masked_b2a.s", 10_000)
        e0, e1 = f.outputs(sim.dmem.read_bytes())
        bits = [(int.from_bytes(x, "little") >> i) & 1 for i in range(256)]
        assert [(a + b) % Q for a, b in zip(e0, e1)] == bits
        assert e0 != bits and e1 != bits
        cycles.add(halt.cycles)
    assert len(cycles) == 1
    rep = ct.check(ct_data.Program.from_asm(f.program()), f.ct_policy())
    assert rep.ok and not rep.violations and not rep.warnings, rep.text()
    assert share_check.check(Program.from_asm(f.program()), f.image(x0, x1), ent, **f.share_policy()) == []
    joined = share_check.check(Program.from_asm(MaskedB2A("joined").program()), f.image(x0, x1), ent,
                               **f.share_policy())
    assert [x.where.split(":")[0] for x in joined] == ["w5", "dmem read"]
    with pytest.raises(ValueError, match="x1: 32 bytes expected"):
        f.image(bytes(32), bytes(31))
    with pytest.raises(ValueError, match="seeded leak"):
        MaskedB2A("nosuch")
