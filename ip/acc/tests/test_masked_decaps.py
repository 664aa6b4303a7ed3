# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""The first-order masked ML-KEM decapsulation as one program (ip/acc/kernels/mlkem/
masked_decaps.py) on the ISS: K0 ^ K1 equals the `cryptography` package's K (ML-KEM-768 /
1024; kyber-py's for 512) on valid ciphertexts and on implicitly rejected ones, for 512 / 768
/ 1024, in a time that depends on ek alone; a corrupted H(ek) gives status DK_HASH_MISMATCH and
zero shares in the same time; afterwards DMEM holds only K's shares, the status slot and
public bytes, every register 0; the program fits the taped-out memories, is constant time and
clean for the share-domain check; `pqsoc mlkem decaps --masked` and the host API run it. The
RTL / gate-level lockstep and the leakage assessment are in test_tvla.py / test_gls.py."""
import json
import random

import pytest
from kyber_py.ml_kem import ML_KEM_512, ML_KEM_768, ML_KEM_1024

from ip.acc import api, block
from ip.acc.dv.jobs import image
from ip.acc.iss import Iss
from ip.acc.kernels.mlkem import status
from ip.acc.kernels.mlkem.codec import absorb_loop
from ip.acc.kernels.mlkem.masked_decaps import MaskedDecaps, _spaced
from ip.acc.tools.asm import assemble

KEMS = {512: ML_KEM_512, 768: ML_KEM_768, 1024: ML_KEM_1024}


def keypair(param: int, rng):
    """(ek, dk, reference decaps): `cryptography`'s for 768 / 1024 (from the seed d || z),
    kyber-py's for 512 (no ML-KEM-512 in `cryptography`)."""
    d, z = rng.randbytes(32), rng.randbytes(32)
    ek, dk = KEMS[param]._keygen_internal(d, z)
    if param == 512:
        return ek, dk, lambda c: KEMS[512].decaps(dk, c)
    from cryptography.hazmat.primitives.asymmetric import mlkem
    key = {768: mlkem.MLKEM768PrivateKey, 1024: mlkem.MLKEM1024PrivateKey}[param].from_seed_bytes(d + z)
    return ek, dk, key.decapsulate


def run(md, words, dk, c, rng):
    sim = Iss(dmem_size=block.DMEM_SIZE, imem_size=block.IMEM_SIZE)
    sim.reset()
    sim.load_program(words)
    sim.dmem.write_bytes(0, image(md.image(md.mask_dk(dk, rng), c), block.DMEM_SIZE))
    for _ in range(8):
        sim.write_entropy(rng.getrandbits(32))
    halt = sim.run(max_cycles=200_000)
    assert halt.ok, halt
    return sim, halt.cycles, sim.dmem.read_bytes(0, block.DMEM_SIZE)


@pytest.mark.parametrize("param", [512, 768, 1024])
def test_masked_decaps_equals_the_reference(param):
    """Per key: a valid ciphertext, one with a flipped bit and a random one (both implicitly
    rejected); K0 ^ K1 is the reference's K, neither share is K; the same cycles for every
    ciphertext of a key; DMEM and registers wiped but K's shares, the status and public bytes."""
    rng = random.Random(param + 41)
    md = MaskedDecaps(param)
    words = assemble(md.program(), "masked_decaps.s")
    assert md.END <= block.DMEM_SIZE and 4 * len(words) <= block.IMEM_SIZE
    for _ in range(2):
        ek, dk, ref = keypair(param, rng)
        K, c = KEMS[param]._encaps_internal(ek, rng.randbytes(32))
        flipped = bytearray(c)
        flipped[rng.randrange(len(c))] ^= 1 << rng.randrange(8)
        cycles = set()
        for ct in (c, bytes(flipped), rng.randbytes(len(c))):
            sim, cyc, dmem = run(md, words, dk, ct, rng)
            k0, k1 = md.outputs(dmem)
            want = ref(ct)
            assert bytes(a ^ b for a, b in zip(k0, k1)) == want
            assert (want == K) == (ct == c) and want not in (k0, k1)
            assert status.read(dmem, md.STATUS) == status.OK
            assert not any(dmem[a] for a in range(block.DMEM_SIZE) if not any(lo <= a < hi for lo, hi in md.kept()))
            assert all(sim.wdr.read(i) == 0 for i in range(16)) and all(sim.gpr.read(i) == 0 for i in range(32))
            cycles.add(cyc)
        assert len(cycles) == 1


@pytest.mark.parametrize("param", [512, 1024])
def test_a_corrupted_hek_is_reported_in_the_same_time(param):
    rng = random.Random(param + 3)
    md = MaskedDecaps(param)
    words = assemble(md.program(), "masked_decaps.s")
    ek, dk, _ = keypair(param, rng)
    K, c = KEMS[param]._encaps_internal(ek, rng.randbytes(32))
    bad = bytearray(dk)
    bad[-64 + rng.randrange(32)] ^= 0x10               # H(ek)
    _, good_cycles, _ = run(md, words, dk, c, rng)
    _, cycles, dmem = run(md, words, bytes(bad), c, rng)
    assert status.read(dmem, md.STATUS) == status.DK_HASH_MISMATCH and cycles == good_cycles
    assert md.outputs(dmem) == (bytes(32), bytes(32))


@pytest.mark.parametrize("param", [512, 768, 1024])
def test_masked_decaps_is_constant_time_and_its_shares_never_meet(param):
    """The static constant-time check (s_hat's and z's shares and URND secret) and the
    share-domain check (no value or transition joins the two shares outside a gadget) over the
    whole program; a branch on a share of s_hat is caught."""
    from ip.acc.tools import constant_time as ct, share_check
    from ip.acc.tools.ct_data import Program
    md = MaskedDecaps(param)
    prog = Program.from_asm(md.program())
    rep = ct.check(prog, md.ct_policy())
    assert rep.ok and not rep.violations and not rep.warnings, rep.text()
    at = "bn.wsrw ACC, w0\n"                           # the start, the shares in DMEM
    seeded = md.program().replace(at, at + f"bn.lw w1, {md.S[1]}(x0)\nbn.ext x5, w1, 0\n"
                                  "beq x5, x0, Lx\nLx:\n", 1)
    rep = ct.check(Program.from_asm(seeded), md.ct_policy())
    assert [v.text for v in rep.failures] == ["beq x5, x0, Lx"]
    rng = random.Random(param)
    ek, dk, _ = keypair(param, rng)
    _, c = KEMS[param]._encaps_internal(ek, rng.randbytes(32))
    img = md.image(md.mask_dk(dk, rng), c)
    ent = [rng.getrandbits(32) for _ in range(8)]
    assert share_check.check(prog, img, ent, **md.share_policy()) == []
    joined = md.program().replace(at, at + f"bn.lw w1, {md.S[0]}(x0)\nbn.lw w1, {md.S[1]}(x0)\n", 1)
    found = share_check.check(Program.from_asm(joined), img, ent, **md.share_policy())
    assert [f.where.split(":")[0] for f in found] == ["w1", "dmem read"]


def test_j_blocks_go_where_the_permutation_before_has_had_its_time():
    """_spaced (J's message groups among the share passes' chunks): in order, a group where the
    chunks since the one before take the permutation's cycles; where none can, the cheaper of
    waiting and leaving groups for the caller."""
    g = absorb_loop
    chunks = [(100, ["a"]), (20, ["b"]), (100, ["c"]), (30, ["d"])]
    lines, left = _spaced(chunks, [1, 2, 3], 97, lambda n: 1000 * n)
    assert lines == [*g(1), "a", *g(2), "b", "c", *g(3), "d"] and left == []    # b + c >= 97: no wait
    short = [(100, ["a"]), (20, ["b"]), (20, ["c"])]
    lines, left = _spaced(short, [1, 2, 3], 97, lambda n: 10 * n)
    assert lines == [*g(1), "a", *g(2), "b", "c"] and left == [3]        # leaving one: 10 < 77
    lines, left = _spaced(short, [1, 2, 3], 97, lambda n: 1000 * n)
    assert lines == [*g(1), "a", *g(2), "b", *g(3), "c"] and left == []  # waiting 77: < 1000


def test_the_masked_key_is_dk_in_shares():
    """mask_dk: s0 + s1 = ByteDecode_12(dk_PKE) mod q, ek and H(ek) as they are, z0 ^ z1 = z;
    fresh shares per call."""
    rng = random.Random(4)
    md = MaskedDecaps(768)
    _, dk, _ = keypair(768, rng)
    a, b = md.mask_dk(dk, rng), md.mask_dk(dk, rng)
    assert a != b
    n = 256 * md.k
    s0, s1 = ([int.from_bytes(a[o + 2 * i:o + 2 * i + 2], "little") for i in range(n)] for o in (0, 2 * n))
    s = [(x + y) % 3329 for x, y in zip(s0, s1)]
    assert ML_KEM_768.M.decode_vector(dk[:384 * md.k], md.k, 12, is_ntt=True) == \
        ML_KEM_768.M.vector([ML_KEM_768.R(s[256 * j:256 * j + 256], is_ntt=True) for j in range(md.k)])
    assert a[4 * n:4 * n + 1216] == dk[1152:2368]
    assert bytes(x ^ y for x, y in zip(a[-64:-32], a[-32:])) == dk[-32:]


def test_bad_inputs_are_refused():
    md = MaskedDecaps(512)
    with pytest.raises(ValueError, match="ML-KEM-640 is not one of"):
        MaskedDecaps(640)
    with pytest.raises(ValueError, match="dk must be 1632 bytes, not 1631"):
        md.mask_dk(bytes(1631), random.Random(1))
    mdk = md.mask_dk(bytes(1632), random.Random(1))
    assert len(mdk) == md.mdk_len == 1408 * 2 + 128
    with pytest.raises(ValueError, match="c must be 768 bytes, not 767"):
        md.image(mdk, bytes(767))
    with pytest.raises(ValueError, match=f"mdk must be {md.mdk_len} bytes, not {md.mdk_len - 1}"):
        md.image(mdk[1:], bytes(768))


def test_the_command_line_and_the_api_run_it(capsys):
    """`pqsoc mlkem decaps --masked`: the same JSON line as the unmasked program, the same K
    (a valid and a rejected ciphertext); the API with a seeded rng (engine soc:
    sim/tests/test_mlkem_api.py); `pqsoc acc ct` / `pqsoc acc shares` know the program."""
    from pqsoc.cli import main
    rng = random.Random(9)
    ek, dk, ref = keypair(768, rng)
    K, c = ML_KEM_768._encaps_internal(ek, rng.randbytes(32))
    for ct in (c, bytes(c[:-1]) + bytes([c[-1] ^ 0x80])):
        assert main(["mlkem", "decaps", "--param", "768", "--dk", dk.hex(), "--c", ct.hex(), "--masked"]) == 0
        out = json.loads(capsys.readouterr().out)
        assert out["K"] == ref(ct).hex() and set(out) == {"K", "cycles"}
    r = api.mlkem_decaps(768, dk, c, masked=True, rng=random.Random(2))
    assert r["K"] == K and r["cycles"] == out["cycles"]
    assert main(["mlkem", "decaps", "--param", "768", "--dk", dk.hex(), "--c", "00" * 5, "--masked"]) == 2
    assert "c is 5 bytes, ML-KEM needs 1088" in capsys.readouterr().err
    # the static checks by name
    assert main(["acc", "ct", "--kernel", "mlkem768_decaps_masked"]) == 0
    assert "PASS" in capsys.readouterr().out
    assert main(["acc", "shares", "--kernel", "mlkem768_decaps_masked"]) == 0
    assert "mlkem768_decaps_masked: clean" in capsys.readouterr().out


def test_nist_acvp_decapsulation_cases_pass_masked(tmp_path, capsys):
    """`pqsoc acvp report --masked`: a sample of NIST's ACVP decapsulation cases of each set
    (ACVP_ROOT) through the masked program, checked against NIST's expected K (make report
    runs all 30)."""
    from pqsoc.cli import main
    out = tmp_path / "acvp_masked.json"
    groups = [x for tg in (4, 5, 6) for x in ("--group", f"ML-KEM-encapDecap-FIPS203:{tg}")]
    assert main(["acvp", "report", "--masked", "--sample", "2", *groups, "--json", str(out)]) == 0
    rep = json.loads(out.read_text())
    assert rep["masked_decaps"] and rep["run"] == rep["passed"] == 6 and rep["failed"] == 0

