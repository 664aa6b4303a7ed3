# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""Benchmark of the first-order masked ML-KEM pieces (issue #38) on the ACC ISS: cycles, IMEM
and DMEM of the masked decoding gadget, of masked K-PKE.Decrypt and of the re-encryption's
masked noise sampling (PRF + the stream unit's masked CBD), of the masked re-encryption and
of its check for every parameter set, of the whole masked decapsulation (per phase), against
the same work unmasked where it is separate, and of m''s B2A by the same unit; every case checked against kyber-py
(m0 ^ m1 = K-PKE.Decrypt(dk_PKE, c), valid and random ciphertexts, fresh shares and masks).

    python -m ip.acc.dv.bench_masked --n 20 --seed 1 --json reports/masked_bench.json

The cycles must not depend on the key, the ciphertext, the shares or the masks (the benchmark
fails otherwise). ISS = RTL for these programs is checked by ip/acc/tests/test_tvla.py.
"""
import argparse
import json
import random
import sys
from pathlib import Path

from ip.acc import block
from ip.acc.iss import Iss
from ip.acc.tools.asm import assemble

MAX_CYCLES = 200_000


def _loaded(words, img: dict, entropy) -> Iss:
    """An ISS with the program, the DMEM image and the entropy words, before its first step."""
    sim = Iss(dmem_size=block.DMEM_SIZE, imem_size=block.IMEM_SIZE)
    sim.reset()
    sim.load_program(words)
    for a, b in img.items():
        sim.dmem.write_bytes(a, b)
    for w in entropy:
        sim.write_entropy(w)
    return sim


def _run(words, img: dict, entropy) -> tuple:
    sim = _loaded(words, img, entropy)
    halt = sim.run(max_cycles=MAX_CYCLES)
    if not halt.ok:
        raise RuntimeError(f"run failed: {halt}")
    return halt.cycles, sim.dmem.read_bytes(0, block.DMEM_SIZE)


def bench(n: int, seed: int, log=print) -> dict:
    from kyber_py.ml_kem import ML_KEM_512, ML_KEM_768, ML_KEM_1024
    from ip.acc.kernels.mlkem.decaps import decaps
    from ip.acc.kernels.mlkem.masked import MaskedDecode, Q
    from ip.acc.kernels.mlkem.masked_decrypt import masked_decrypt, share_dk_pke
    rng = random.Random(seed)
    out = {"n": n, "seed": seed, "engine": "iss", "reference": "kyber-py", "programs": {}}

    def entropy():
        return [rng.getrandbits(32) for _ in range(8)]

    md = MaskedDecode()
    words = assemble(md.program(), "masked_decode.s")
    cycles = set()
    for _ in range(n):
        x = [rng.randrange(Q) for _ in range(256)]
        x0 = [rng.randrange(Q) for _ in range(256)]
        c, dm = _run(words, md.image(x0, [(a - b) % Q for a, b in zip(x, x0)]), entropy())
        m0, m1 = md.outputs(dm)
        assert bytes(a ^ b for a, b in zip(m0, m1)) == ML_KEM_768.R(x).compress(1).encode(1)
        cycles.add(c)
    out["programs"]["mlkem_decode_masked"] = _figures(cycles, words, md.END)
    log(f"[masked] decode: {sorted(cycles)} cycles")
    for param, kem in ((512, ML_KEM_512), (768, ML_KEM_768), (1024, ML_KEM_1024)):
        mk, plain = masked_decrypt(param), decaps(param)
        mw = assemble(mk.program(), f"mlkem{param}_decrypt_masked.s")
        pw = assemble(plain.decrypt_program(), f"mlkem{param}_decrypt.s")
        mc, pc = set(), set()
        for case in range(n):
            ek, dk = kem._keygen_internal(rng.randbytes(32), rng.randbytes(32))
            ct = kem._encaps_internal(ek, rng.randbytes(32))[1] if case % 2 == 0 else rng.randbytes(mk.c_len)
            dk_pke = dk[:384 * mk.k]
            ref = kem._k_pke_decrypt(dk_pke, ct)
            s0, s1 = share_dk_pke(dk_pke, mk.k, rng)
            c, dm = _run(mw, mk.image(s0, s1, ct), entropy())
            m0, m1 = mk.outputs(dm)
            assert bytes(a ^ b for a, b in zip(m0, m1)) == ref, (param, case)
            mc.add(c)
            c, dm = _run(pw, plain.image(dk_pke=dk_pke, c=ct), ())
            assert dm[plain.MOUT:plain.MOUT + 32] == ref, (param, case)
            pc.add(c)
        fig = _figures(mc, mw, mk.END)
        fig["unmasked_decrypt_cycles"] = sorted(pc)
        fig["overhead"] = round(min(mc) / min(pc), 2)
        out["programs"][f"mlkem{param}_decrypt_masked"] = fig
        log(f"[masked] ML-KEM-{param} decrypt: {sorted(mc)} cycles masked, {sorted(pc)} unmasked "
            f"({fig['overhead']}x)")
        out["programs"][f"mlkem{param}_noise_masked"] = fig = _noise(param, n, rng, entropy)
        log(f"[masked] ML-KEM-{param} noise (PRF + CBD, {fig['polynomials']} polynomials): "
            f"{fig['cycles']} cycles masked, {fig['unmasked_cycles']} unmasked ({fig['overhead']}x)")
    out["programs"]["mlkem_b2a_masked"] = fig = _b2a(n, rng, entropy)
    log(f"[masked] B2A of 256 bits (m'): {fig['cycles']} cycles")
    for param in (512, 768, 1024):
        out["programs"][f"mlkem{param}_encrypt_masked"] = fig = _encrypt(param, n, rng, entropy)
        log(f"[masked] ML-KEM-{param} re-encryption: {fig['cycles']} cycles masked, "
            f"{fig['unmasked_reencrypt_cycles']} in the unmasked decapsulation ({fig['overhead']}x)")
        out["programs"][f"mlkem{param}_compare_masked"] = fig = _compare(param, n, rng, entropy)
        log(f"[masked] ML-KEM-{param} re-encryption check: {fig['cycles']} cycles masked "
            f"(fused into the unmasked decapsulation's INTTs)")
    for param in (512, 768, 1024):
        out["programs"][f"mlkem{param}_decaps_masked"] = fig = _decaps(param, n, rng, entropy)
        log(f"[masked] ML-KEM-{param} decapsulation: {fig['cycles']} cycles masked, "
            f"{fig['unmasked_cycles']} unmasked ({fig['overhead']}x); phases {fig['phases']}")
    return out


def _decaps(param: int, n: int, rng, entropy) -> dict:
    """The whole masked decapsulation (ip/acc/kernels/mlkem/masked_decaps.py): K0 ^ K1 = kyber-py's
    K on valid and random ciphertexts (fresh keys, shares and masks), against the unmasked
    program on the same inputs; the cycles of each phase (from the program's md_* labels)."""
    from kyber_py.ml_kem import ML_KEM_512, ML_KEM_768, ML_KEM_1024
    from ip.acc.kernels.mlkem.decaps import decaps
    from ip.acc.kernels.mlkem.masked_decaps import MaskedDecaps
    from ip.acc.tools.ct_data import Program
    kem = {512: ML_KEM_512, 768: ML_KEM_768, 1024: ML_KEM_1024}[param]
    f, plain = MaskedDecaps(param), decaps(param)
    prog = Program.from_asm(f.program())
    words = prog.words
    pw = assemble(plain.program(), f"mlkem{param}_decaps.s")
    mc, pc = set(), set()
    for case in range(n):
        ek, dk = kem._keygen_internal(rng.randbytes(32), rng.randbytes(32))
        c = kem._encaps_internal(ek, rng.randbytes(32))[1] if case % 2 == 0 else rng.randbytes(f.c_len)
        img, ent = f.image(f.mask_dk(dk, rng), c), entropy()
        cyc, dm = _run(words, img, ent)
        k0, k1 = f.outputs(dm)
        assert bytes(a ^ b for a, b in zip(k0, k1)) == kem.decaps(dk, c), (param, case)
        mc.add(cyc)
        cyc, dm = _run(pw, plain.image(dk, c), ())
        assert plain.outputs(dm) == kem.decaps(dk, c), (param, case)
        pc.add(cyc)
    fig = _figures(mc, words, f.END)
    if len(pc) != 1:
        raise RuntimeError(f"the unmasked decapsulation's cycles depend on the inputs: {sorted(pc)}")
    fig.update(unmasked_cycles=min(pc), overhead=round(min(mc) / min(pc), 2),
               phases=_phases(prog, img, ent, [f"md_{p}" for p in f.PHASES]))
    return fig


def _phases(prog, img: dict, entropy, labels: list) -> dict:
    """{label: cycles from it to the next label (the first from the start, the last to the
    end)} of one run: they add up to the run's cycles."""
    sim = _loaded(prog.words, img, entropy)
    at, first = {prog.labels[x]: x for x in labels}, {}
    while sim.cycles < MAX_CYCLES:
        if sim.pc in at and at[sim.pc] not in first:
            first[at[sim.pc]] = sim.cycles
        if sim.step() is not None:
            break
    starts = [0] + [first[x] for x in labels[1:]]            # the first from the start
    return {x[3:]: e - b for x, b, e in zip(labels, starts, starts[1:] + [sim.cycles])}


def _compare(param: int, n: int, rng, entropy) -> dict:
    """The masked re-encryption check (ip/acc/kernels/mlkem/masked_compare.py): ok = 1 for u', v'
    whose compression (kyber-py) is c, 0 with one bit of c flipped."""
    from kyber_py.ml_kem import ML_KEM_512, ML_KEM_768, ML_KEM_1024
    from ip.acc.kernels.mlkem.masked_compare import MaskedCompare
    kem = {512: ML_KEM_512, 768: ML_KEM_768, 1024: ML_KEM_1024}[param]
    f = MaskedCompare(param)
    words = assemble(f.program(), f"mlkem{param}_compare_masked.s")
    cycles = set()
    for case in range(n):
        polys = [[rng.randrange(3329) for _ in range(256)] for _ in range(f.k + 1)]
        ds = [f.du] * f.k + [f.dv]
        c = bytearray(b"".join(kem.R(p).compress(d).encode(d) for p, d in zip(polys, ds)))
        if case % 2:
            c[rng.randrange(len(c))] ^= 1 << rng.randrange(8)
        s0 = [[rng.randrange(3329) for _ in range(256)] for _ in polys]
        s1 = [[(a - b) % 3329 for a, b in zip(p, r)] for p, r in zip(polys, s0)]
        cyc, dm = _run(words, f.image(s0[:-1], s1[:-1], s0[-1], s1[-1], bytes(c)), entropy())
        ok0, ok1 = f.outputs(dm)
        assert ok0 ^ ok1 == 1 - case % 2, (param, case)
        cycles.add(cyc)
    return _figures(cycles, words, f.END)


def _encrypt(param: int, n: int, rng, entropy) -> dict:
    """The masked re-encryption (ip/acc/kernels/mlkem/masked_encrypt.py), u' and v' from its
    shares compressed = kyber-py's K-PKE.Encrypt(ek, m', r'), against the unmasked
    decapsulation's re-encryption and comparison (its phases after G up to the selection,
    the difference of two prefix runs, unscheduled across the seams)."""
    from kyber_py.ml_kem import ML_KEM_512, ML_KEM_768, ML_KEM_1024
    from ip.acc.kernels.mlkem.decaps import decaps
    from ip.acc.kernels.mlkem.masked_encrypt import MaskedEncrypt
    kem = {512: ML_KEM_512, 768: ML_KEM_768, 1024: ML_KEM_1024}[param]
    f = MaskedEncrypt(param)
    words = assemble(f.program(), f"mlkem{param}_encrypt_masked.s")
    cycles = set()
    for _ in range(n):
        ek, dk = kem._keygen_internal(rng.randbytes(32), rng.randbytes(32))
        m, r, m1, r1 = (rng.randbytes(32) for _ in range(4))
        c, dm = _run(words, f.image(ek, bytes(a ^ b for a, b in zip(r, r1)), r1,
                                    bytes(a ^ b for a, b in zip(m, m1)), m1), entropy())
        u0, u1, v0, v1 = f.outputs(dm)
        got = b"".join(kem.R([(a + b) % 3329 for a, b in zip(x, y)]).compress(kem.du).encode(kem.du)
                       for x, y in zip(u0, u1)) + \
            kem.R([(a + b) % 3329 for a, b in zip(v0, v1)]).compress(kem.dv).encode(kem.dv)
        assert got == kem._k_pke_encrypt(ek, m, r), param
        cycles.add(c)
    fig = _figures(cycles, words, f.END)
    plain = decaps(param)
    ph = plain.phases()
    img = plain.image(dk=dk, c=kem._encaps_internal(ek, m)[1])

    def prefix(k):
        src = "\n".join(["lui x30, 4"] + [x for _, body in ph[:k] for x in body] + ["kmac.rel", "ecall"]) + "\n"
        return _run(assemble(src, "prefix.s"), img, ())[0]
    assert [name for name, _ in ph[:3]] == ["init", "decrypt (+ J absorb)", "G"] and ph[-2][0] == "select"
    fig["unmasked_reencrypt_cycles"] = prefix(len(ph) - 2) - prefix(3)
    fig["overhead"] = round(fig["cycles"] / fig["unmasked_reencrypt_cycles"], 2)
    return fig


def _b2a(n: int, rng, entropy) -> dict:
    """m''s B2A by the stream unit (ip/acc/kernels/mlkem/masked_b2a.py), checked bit by bit."""
    from ip.acc.kernels.mlkem.masked_b2a import MaskedB2A
    f = MaskedB2A()
    words = assemble(f.program(), "mlkem_b2a_masked.s")
    cycles = set()
    for _ in range(n):
        x, x1 = rng.randbytes(32), rng.randbytes(32)
        c, dm = _run(words, f.image(bytes(a ^ b for a, b in zip(x, x1)), x1), entropy())
        e0, e1 = f.outputs(dm)
        assert [(a + b) % 3329 for a, b in zip(e0, e1)] == [(int.from_bytes(x, "little") >> i) & 1
                                                             for i in range(256)]
        cycles.add(c)
    return _figures(cycles, words, f.END)


def _plain_noise(f) -> str:
    """The same PRF calls and samplings without masking: the KMAC's unmasked mode, r' as one
    word, the stream unit's cbd2 / cbd3 (one polynomial each, at the same places)."""
    from ip.acc.kernels.mlkem.masked_hash import SHAKE256_MASKED
    L = [f"bn.lw w1, {f.R0}(x0)", f"bn.lw w3, {f.NW}(x0)", f"addi x1, x0, {SHAKE256_MASKED & 0x1F}",
         "addi x3, x0, -1", f"addi x10, x0, {f.P}", "addi x5, x0, 256", "kmac.acq"]
    for n, eta in enumerate(f.etas):
        L += ["kmac.start x1, x0", "kmac.msg w1, x3", f"addi x4, x0, {1 << n}", "kmac.msg w3, x4",
              "kmac.finish", f"smp.run x10, x5, cbd{eta}", "smp.wait", f"addi x10, x10, {f.POLY}"]
    return "\n".join(L + ["kmac.rel", "ecall"]) + "\n"


def _noise(param: int, n: int, rng, entropy) -> dict:
    """The re-encryption's noise polynomials: masked (ip/acc/kernels/mlkem/masked_hash.py's
    MaskedCBD, the stream unit's masked modes) against the same work unmasked; both checked
    against kyber-py's SamplePolyCBD(PRF(r', N))."""
    import hashlib
    from kyber_py.ml_kem.default_parameters import ML_KEM_768 as P
    from ip.acc.kernels.mlkem.masked_hash import MaskedCBD
    f = MaskedCBD(param)
    mw = assemble(f.program(), f"mlkem{param}_noise_masked.s")
    pw = assemble(_plain_noise(f), f"mlkem{param}_noise.s")
    mc, pc = set(), set()
    for _ in range(n):
        r, r1 = rng.randbytes(32), rng.randbytes(32)
        want = [P.R.cbd(hashlib.shake_256(r + bytes([k])).digest(64 * eta), eta).coeffs
                for k, eta in enumerate(f.etas)]
        c, dm = _run(mw, f.image(bytes(a ^ b for a, b in zip(r, r1)), r1), entropy())
        assert [[(a + b) % 3329 for a, b in zip(e0, e1)] for e0, e1 in f.outputs(dm)] == want, param
        mc.add(c)
        c, dm = _run(pw, f.image(r, bytes(32)), ())
        assert [e0 for e0, _ in f.outputs(dm)] == want, param
        pc.add(c)
    fig = _figures(mc, mw, f.END)
    fig.update(polynomials=len(f.etas), unmasked_cycles=min(pc), overhead=round(min(mc) / min(pc), 2))
    return fig


def _figures(cycles: set, words, dmem_end: int) -> dict:
    if len(cycles) != 1:
        raise RuntimeError(f"the cycles depend on the inputs: {sorted(cycles)}")
    return {"cycles": min(cycles), "imem_bytes": 4 * len(words), "dmem_bytes": dmem_end}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=20, help="cases per program")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--json", type=Path)
    a = ap.parse_args(argv)
    if a.n < 1:
        print("bench_masked: --n must be at least 1", file=sys.stderr)
        return 2
    try:
        rep = bench(a.n, a.seed)
    except (AssertionError, RuntimeError) as e:
        print(f"bench_masked: FAILED: {e}", file=sys.stderr)
        return 1
    if a.json:
        a.json.parent.mkdir(parents=True, exist_ok=True)
        a.json.write_text(json.dumps(rep, indent=1) + "\n")
        print(f"wrote {a.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
