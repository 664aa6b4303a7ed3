# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""Fixed-vs-random leakage assessment of ACC programs (`pqsoc sca tvla`; docs/side_channels.md).

A program under test names its secret and how to make one trace's inputs: class 0 keeps the
secret fixed, class 1 draws it at random; public inputs are fresh in every trace of both classes
(TVLA's fixed-vs-random test), and the classes are interleaved at random. Each trace is one run
of the program on the power model (ip/acc/dv/power.py: per cycle and unit, the Hamming distance
of every register and memory port), the t-test accumulates online (pqsoc/sca/ttest.py), and the
report names per unit the largest |t|, its cycle and the instruction the ISS ran there.

Programs:
    mlkem<P>_decaps_unmasked   ML-KEM decapsulation (512 / 768 / 1024), secret: the decapsulation
                               key dk (s, z and the hashes of ek in it); public: a ciphertext of
                               its ek, fresh each trace (valid: re-encryption succeeds)
    mlkem768_decaps_control    the same program, both classes drawing dk and c at random (the
                               class decides nothing the program reads): must stay under the
                               threshold, or the assessment itself is biased
    mlkem<P>_decaps_masked     the whole first-order masked decapsulation (ip/acc/kernels/mlkem/
                               masked_decaps.py), secret: s_hat and z (a key pair's seed fixed vs
                               random); fresh each trace: ek and H(ek) of another key pair, a
                               ciphertext of that ek (public inputs must not differ by class:
                               every trace is an implicit rejection), the shares, URND's seed
    mlkem<P>_decrypt_masked    first-order masked K-PKE.Decrypt (ip/acc/kernels/mlkem/masked_decrypt.py),
                               secret: s_hat (the key pair's seed fixed vs random); fresh each
                               trace: a ciphertext of its ek, the arithmetic shares of s_hat,
                               the URND seed
    mlkem_decode_masked        the masked message decoding (ip/acc/kernels/mlkem/masked.py),
                               secret: the polynomial x; public: nothing; fresh each trace: the
                               arithmetic shares of x and the 256 bits of entropy URND is seeded
                               from (ENTROPY register)
    mlkem_decode_masked_sum, mlkem_decode_masked_no_fresh
                               the same with a seeded first-order leak (the input shares added;
                               the DOM ANDs without their fresh r): must be flagged, or the
                               assessment cannot see what it claims to
    mlkem_g_masked             G(m' || h) through the KMAC's masked mode
                               (ip/acc/kernels/mlkem/masked_hash.py), secret: m'; fresh each
                               trace: h, the Boolean shares of m', the entropy URND (and so the
                               KMAC's masks) is seeded from
    mlkem_g_masked_combined    the same with a seeded leak: m' = m0 ^ m1 in a register, sent to
                               the KMAC as a public word
    mlkem_j_masked             J(z || c) through the KMAC's masked mode (ML-KEM-768's c),
                               secret: z; fresh each trace: c, the Boolean shares of z, the
                               entropy URND is seeded from
    mlkem_j_masked_combined    the same with a seeded leak: z combined in a register, sent as a
                               public word
    mlkem_prf_masked           the re-encryption's PRF outputs PRF(r', N), N = 0 .. 2k, through
                               the KMAC's masked mode (ML-KEM-768), secret: r'; fresh each
                               trace: the Boolean shares of r', the entropy URND is seeded from
    mlkem_prf_masked_combined  the same with a seeded leak: r' combined in a register, sent as
                               a public word
    mlkem_cbd_masked           the re-encryption's noise polynomials: each PRF output as above,
                               sampled by the stream unit's masked mode (smp.run cbd2m) into two
                               arithmetic shares; secret: r'; fresh each trace as the PRF's
    mlkem_cbd_masked_combined  the same with the PRF's seeded leak
    mlkem_cbd_masked_joined    the same with a seeded leak after the sampler: a polynomial's
                               first words of share 0 and share 1 loaded into one register
    mlkem_b2a_masked           256 bits in two Boolean shares to two arithmetic shares by the
                               stream unit's b2a1m (m' for re-encryption); secret: the bits
    mlkem_b2a_masked_joined    the same with the output shares joined in a register
    mlkem768_encrypt_masked    the re-encryption of decapsulation up to its comparison
                               (ip/acc/kernels/mlkem/masked_encrypt.py): u', v' in arithmetic
                               shares from m', r' in Boolean shares; secret: m' || r'; fresh
                               each trace: ek (a new key pair), the shares, URND's seed
    mlkem768_encrypt_masked_joined  the same with the last noise polynomial's shares joined in a
                               register, word by word
    mlkem768_compare_masked    the re-encryption check (ip/acc/kernels/mlkem/masked_compare.py):
                               u', v' in arithmetic shares against a ciphertext c, the same in
                               every trace; secret: u', v', fixed (compressing to c: the check
                               passes) vs random (it fails); shares and URND's seed fresh
    mlkem768_compare_masked_no_fresh  the same with the DOM ANDs' fresh words dropped
    mlkem_select_masked        decapsulation's selection on shares (masked_compare.py's
                               MaskedSelect): K = ok ? K' : K-bar; secret: ok, K', K-bar, fixed
                               (ok = 1) vs random; shares and URND's seed fresh
"""
import hashlib
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import numpy as np

from pqsoc import FlowError

MAX_CYCLES = 200_000


@dataclass(frozen=True)
class Program:
    name: str
    description: str
    words: Callable[[], list]                 # the program, assembled
    inputs: Callable[[object, bytes | None], tuple]   # (rng, fixed secret or None: random) -> (DMEM image,
                                                      # the ENTROPY words the host writes before START)
    fixed_secret: Callable[[object], bytes]   # (rng) -> the fixed class's secret


def _mlkem_decaps(param: int, control: bool = False) -> Program:
    from kyber_py.ml_kem import ML_KEM_512, ML_KEM_768, ML_KEM_1024
    from ip.acc.dv.jobs import image
    from ip.acc.kernels.mlkem.decaps import decaps
    from ip.acc.tools.asm import assemble
    from ip.acc import block
    kem = {512: ML_KEM_512, 768: ML_KEM_768, 1024: ML_KEM_1024}[param]
    obj = decaps(param)

    def keypair(seed: bytes):
        ek, dk = kem._keygen_internal(seed[:32], seed[32:])
        return ek, dk

    def fixed_secret(rng) -> bytes:
        return rng.bytes(64)          # the key's seed: d || z

    def inputs(rng, fixed: bytes | None) -> tuple:
        ek, dk = keypair(fixed if fixed is not None and not control else rng.bytes(64))
        _, c = kem._encaps_internal(ek, rng.bytes(32))
        return image(obj.image(dk, c), block.DMEM_SIZE), ()

    name = f"mlkem{param}_decaps_" + ("control" if control else "unmasked")
    what = ("both classes random (control)" if control else
            "secret dk fixed vs random, ciphertext fresh each trace")
    return Program(name, f"ML-KEM-{param} decapsulation, unmasked: {what}",
                   lambda: assemble(obj.program(), f"{name}.s"), inputs, fixed_secret)


def _mlkem_decode_masked(leak: str | None = None) -> Program:
    from ip.acc.dv.jobs import image
    from ip.acc.kernels.mlkem.masked import MaskedDecode, Q
    from ip.acc.tools.asm import assemble
    from ip.acc import block
    obj = MaskedDecode(leak)

    def fixed_secret(rng) -> bytes:
        return b"".join(int(c).to_bytes(2, "little") for c in rng.integers(0, Q, 256))

    def inputs(rng, fixed: bytes | None) -> tuple:
        x = (np.frombuffer(fixed, "<u2").astype(np.int64) if fixed is not None
             else rng.integers(0, Q, 256))
        x0 = rng.integers(0, Q, 256)
        x1 = (x - x0) % Q
        entropy = _entropy(rng)
        return image(obj.image([int(c) for c in x0], [int(c) for c in x1]), block.DMEM_SIZE), entropy

    name = "mlkem_decode_masked" + (f"_{leak}" if leak else "")
    what = "x fixed vs random, fresh shares and masks each trace" + (
        {None: "", "sum": "; a seeded leak: the shares added at the start",
         "no_fresh": "; a seeded leak: the DOM ANDs without their fresh randomness"}[leak])
    return Program(name, f"ML-KEM message decoding, first-order masked: {what}",
                   lambda: assemble(obj.program(), f"{name}.s"), inputs, fixed_secret)


# the public input of the `_fixed_public` variants: the same in every trace of both classes,
# so the fixed class's outputs are fixed too and what the output wires carry is tested
_PUBLIC_SEED = 0x5EED


def _entropy(rng) -> list[int]:
    """A trace's 8 entropy words (URND's seed through RND)."""
    return [int(w) for w in rng.integers(0, 1 << 32, 8, dtype=np.uint64)]


def _masked_hash(kind: str, leak: str | None = None, fixed_public: bool = False) -> Program:
    """G, J, the PRF (or the PRF sampled by the stream unit: cbd) through the KMAC's masked
    mode (ip/acc/kernels/mlkem/masked_hash.py): a 32-byte secret (m', z or r') fixed vs
    random, its two Boolean shares fresh each trace, with the public input (h, ML-KEM-768's
    c, none: fresh, or with fixed_public the same in every trace) and URND's seed."""
    from ip.acc.dv.jobs import image
    from ip.acc.kernels.mlkem.masked_hash import MaskedCBD, MaskedG, MaskedJ, MaskedPRF
    from ip.acc.tools.asm import assemble
    from ip.acc import block
    make, secret, public, title = {
        "g": (lambda: MaskedG(leak), "m'", "h, ", "ML-KEM G(m' || h)"),
        "j": (lambda: MaskedJ(768, leak), "z", "c, ", "ML-KEM-768 J(z || c)"),
        "prf": (lambda: MaskedPRF(768, leak), "r'", "", "ML-KEM-768 PRF(r', N), N = 0 .. 6,"),
        "cbd": (lambda: MaskedCBD(768, leak), "r'", "",
                "ML-KEM-768 SamplePolyCBD(PRF(r', N)), N = 0 .. 6, the stream unit's masked mode after")}[kind]
    obj = make()        # (only the kind asked for: the seeded leaks differ by kind)
    extra = {"g": lambda rng: (rng.bytes(32),), "j": lambda rng: (rng.bytes(obj.ct_bytes),),
             "prf": lambda rng: (), "cbd": lambda rng: ()}[kind]
    if fixed_public:
        fresh = extra
        extra = lambda rng: fresh(np.random.default_rng(_PUBLIC_SEED))     # noqa: E731

    def fixed_secret(rng) -> bytes:
        return rng.bytes(32)

    def inputs(rng, fixed: bytes | None) -> tuple:
        x = fixed if fixed is not None else rng.bytes(32)
        x1 = rng.bytes(32)
        x0 = bytes(a ^ b for a, b in zip(x, x1))
        entropy = _entropy(rng)
        return image(obj.image(x0, x1, *extra(rng)), block.DMEM_SIZE), entropy

    name = f"mlkem_{kind}_masked" + (f"_{leak}" if leak else "") + ("_fixed_public" if fixed_public else "")
    what = (f"{secret} fixed vs random, {public.rstrip(', ')} the same in every trace; shares and masks fresh"
            if fixed_public else f"{secret} fixed vs random; {public}shares and masks fresh each trace") + (
        {"combined": f"; a seeded leak: {secret} combined in a register and hashed as a public word",
         "joined": "; a seeded leak: the sampled shares' first words loaded into one register"}.get(leak, ""))
    return Program(name, f"{title} in the KMAC's masked mode: {what}",
                   lambda: assemble(obj.program(), f"{name}.s"), inputs, fixed_secret)


def _b2a_masked(leak: str | None = None) -> Program:
    """The stream unit's b2a1m (ip/acc/kernels/mlkem/masked_b2a.py): 256 secret bits fixed vs
    random, their Boolean shares, the masks and URND's seed fresh each trace."""
    from ip.acc.dv.jobs import image
    from ip.acc.kernels.mlkem.masked_b2a import MaskedB2A
    from ip.acc.tools.asm import assemble
    from ip.acc import block
    obj = MaskedB2A(leak)

    def inputs(rng, fixed: bytes | None) -> tuple:
        x = fixed if fixed is not None else rng.bytes(32)
        x1 = rng.bytes(32)
        entropy = _entropy(rng)
        return image(obj.image(bytes(a ^ b for a, b in zip(x, x1)), x1), block.DMEM_SIZE), entropy

    name = "mlkem_b2a_masked" + (f"_{leak}" if leak else "")
    return Program(name, "Boolean to arithmetic shares of 256 bits (e.g. m') by the stream unit's "
                   "b2a1m: the bits fixed vs random; shares and masks fresh each trace"
                   + ("; a seeded leak: the two output shares' first words loaded into one register"
                      if leak else ""),
                   lambda: assemble(obj.program(), f"{name}.s"), inputs, lambda rng: rng.bytes(32))


def _mlkem_encrypt_masked(leak: str | None = None) -> Program:
    """ML-KEM-768's masked re-encryption (masked_encrypt.py): m' || r' fixed vs random, their
    Boolean shares, ek (a fresh key pair) and URND's seed fresh each trace."""
    from kyber_py.ml_kem import ML_KEM_768
    from ip.acc.dv.jobs import image
    from ip.acc.kernels.mlkem.masked_encrypt import MaskedEncrypt
    from ip.acc.tools.asm import assemble
    from ip.acc import block
    obj = MaskedEncrypt(768, leak)

    def inputs(rng, fixed: bytes | None) -> tuple:
        x = fixed if fixed is not None else rng.bytes(64)
        ek, _ = ML_KEM_768._keygen_internal(rng.bytes(32), rng.bytes(32))
        m1, r1 = rng.bytes(32), rng.bytes(32)
        m0, r0 = (bytes(a ^ b for a, b in zip(x[o:o + 32], s)) for o, s in ((0, m1), (32, r1)))
        entropy = _entropy(rng)
        return image(obj.image(ek, r0, r1, m0, m1), block.DMEM_SIZE), entropy

    name = "mlkem768_encrypt_masked" + (f"_{leak}" if leak else "")
    return Program(name, "ML-KEM-768 re-encryption (K-PKE.Encrypt before Compress), first-order masked: "
                   "m' || r' fixed vs random; ek, shares and masks fresh each trace"
                   + ("; a seeded leak: the last noise polynomial's words loaded into one register, share 0 then share 1"
                      if leak else ""),
                   lambda: assemble(obj.program(), f"{name}.s"), inputs, lambda rng: rng.bytes(64))


def _mlkem_compare_masked(leak: str | None = None) -> Program:
    """ML-KEM-768's masked re-encryption check (masked_compare.py): c fixed for all traces; u',
    v' fixed (c's decompression, so the check passes) vs random; fresh shares and URND seed."""
    from kyber_py.ml_kem import ML_KEM_768
    from ip.acc.dv.jobs import image
    from ip.acc.kernels.mlkem.masked_compare import MaskedCompare
    from ip.acc.tools.asm import assemble
    from ip.acc import block
    obj, R, q = MaskedCompare(768, leak), ML_KEM_768.R, 3329
    pub = np.random.default_rng(_PUBLIC_SEED)
    c = pub.bytes(obj.c_len)
    du, dv, k = obj.du, obj.dv, obj.k
    fixed_polys = [R.decode(c[32 * du * j:32 * du * (j + 1)], du).decompress(du).coeffs for j in range(k)] + \
        [R.decode(c[32 * du * k:], dv).decompress(dv).coeffs]

    def inputs(rng, fixed) -> tuple:
        polys = fixed_polys if fixed is not None else \
            [[int(x) for x in rng.integers(0, q, 256)] for _ in range(k + 1)]
        s0 = [[int(x) for x in rng.integers(0, q, 256)] for _ in range(k + 1)]
        s1 = [[(a - b) % q for a, b in zip(p, r)] for p, r in zip(polys, s0)]
        entropy = _entropy(rng)
        return image(obj.image(s0[:k], s1[:k], s0[k], s1[k], c), block.DMEM_SIZE), entropy

    name = "mlkem768_compare_masked" + (f"_{leak}" if leak else "")
    return Program(name, "ML-KEM-768 re-encryption check, first-order masked: c the same in every trace; u', v' "
                   "fixed (they compress to c) vs random; shares and masks fresh each trace"
                   + ("; a seeded leak: the DOM ANDs without their fresh words" if leak else ""),
                   lambda: assemble(obj.program(), f"{name}.s"), inputs, lambda rng: b"fixed")


def _mlkem_select_masked() -> Program:
    """MaskedSelect: (ok, K', K-bar) fixed (ok = 1) vs random; fresh shares and URND seed."""
    from ip.acc.dv.jobs import image
    from ip.acc.kernels.mlkem.masked_compare import MaskedSelect
    from ip.acc.tools.asm import assemble
    from ip.acc import block
    obj = MaskedSelect()

    def inputs(rng, fixed) -> tuple:
        x = fixed if fixed is not None else rng.bytes(65)
        ok, kp, kb = x[0] & 1, x[1:33], x[33:65]
        ok1, kp1, kb1 = int(rng.integers(2)), rng.bytes(32), rng.bytes(32)
        entropy = _entropy(rng)
        img = obj.image(ok ^ ok1, ok1, bytes(a ^ b for a, b in zip(kp, kp1)), kp1,
                        bytes(a ^ b for a, b in zip(kb, kb1)), kb1)
        return image(img, block.DMEM_SIZE), entropy

    return Program("mlkem_select_masked", "ML-KEM decapsulation's selection K = ok ? K' : K-bar on shares: "
                   "ok, K', K-bar fixed (ok = 1) vs random; shares and masks fresh each trace",
                   lambda: assemble(obj.program(), "mlkem_select_masked.s"), inputs,
                   lambda rng: b"\x01" + rng.bytes(64))


def _mlkem_decrypt_masked(param: int, fixed_public: bool = False) -> Program:
    """fixed_public: the ciphertext the same in every trace (encapsulated to a fixed public
    key), so the fixed class's v - w, the decoding gadget's input, is fixed too."""
    import random
    from kyber_py.ml_kem import ML_KEM_512, ML_KEM_768, ML_KEM_1024
    from ip.acc.dv.jobs import image
    from ip.acc.kernels.mlkem.masked_decrypt import masked_decrypt, share_dk_pke
    from ip.acc.tools.asm import assemble
    from ip.acc import block
    kem = {512: ML_KEM_512, 768: ML_KEM_768, 1024: ML_KEM_1024}[param]
    obj = masked_decrypt(param)

    def fixed_secret(rng) -> bytes:
        return rng.bytes(64)          # the key pair's seed d || z

    def inputs(rng, fixed: bytes | None) -> tuple:
        seed = fixed if fixed is not None else rng.bytes(64)
        ek, dk = kem._keygen_internal(seed[:32], seed[32:])
        if fixed_public:
            pub = np.random.default_rng(_PUBLIC_SEED)
            _, c = kem._encaps_internal(kem._keygen_internal(pub.bytes(32), pub.bytes(32))[0], pub.bytes(32))
        else:
            _, c = kem._encaps_internal(ek, rng.bytes(32))
        s0, s1 = share_dk_pke(dk[:384 * obj.k], obj.k, random.Random(int(rng.integers(1 << 62))))
        entropy = _entropy(rng)
        return image(obj.image(s0, s1, c), block.DMEM_SIZE), entropy

    name = f"mlkem{param}_decrypt_masked" + ("_fixed_public" if fixed_public else "")
    what = ("the ciphertext the same in every trace; shares and masks fresh" if fixed_public
            else "ciphertext, shares and masks fresh each trace")
    return Program(name, f"ML-KEM-{param} K-PKE.Decrypt, first-order masked: secret s_hat fixed vs "
                   f"random, {what}",
                   lambda: assemble(obj.program(), f"{name}.s"), inputs, fixed_secret)


def _mlkem_decaps_masked(param: int) -> Program:
    """The whole masked decapsulation (masked_decaps.py). The secret, fixed vs random: s_hat and
    z (a key pair's seed d || z gives them). Public and fresh each trace in both classes: ek and
    H(ek) of another fresh key pair and a ciphertext encapsulated to that ek (the classes'
    public inputs must not differ: a fixed ek would be flagged for what is public; the
    decryption then gives an m' that does not re-encrypt to c: K is K-bar in every trace, the
    same work as a valid ciphertext's); shares and URND's seed fresh."""
    from kyber_py.ml_kem import ML_KEM_512, ML_KEM_768, ML_KEM_1024
    from ip.acc.dv.jobs import image
    from ip.acc.kernels.mlkem.masked_decaps import MaskedDecaps
    from ip.acc.tools.asm import assemble
    from ip.acc import block
    import random
    kem = {512: ML_KEM_512, 768: ML_KEM_768, 1024: ML_KEM_1024}[param]
    obj = MaskedDecaps(param)
    k = obj.k

    def inputs(rng, fixed: bytes | None) -> tuple:
        seed = fixed if fixed is not None else rng.bytes(64)
        _, dk = kem._keygen_internal(seed[:32], seed[32:])
        ek, other = kem._keygen_internal(rng.bytes(32), rng.bytes(32))
        _, c = kem._encaps_internal(ek, rng.bytes(32))
        dk = dk[:384 * k] + other[384 * k:768 * k + 64] + dk[-32:]        # s_hat, ek, H(ek), z
        mdk = obj.mask_dk(dk, random.Random(int(rng.integers(1 << 62))))
        entropy = _entropy(rng)
        return image(obj.image(mdk, c), block.DMEM_SIZE), entropy

    name = f"mlkem{param}_decaps_masked"
    return Program(name, f"ML-KEM-{param} decapsulation, first-order masked: s_hat and z fixed vs random; "
                   "ek, H(ek), the ciphertext, shares and masks fresh each trace",
                   lambda: assemble(obj.program(), f"{name}.s"), inputs, lambda rng: rng.bytes(64))


def programs() -> dict[str, Callable[[], Program]]:
    out = {f"mlkem{p}_decaps_unmasked": (lambda p=p: _mlkem_decaps(p)) for p in (512, 768, 1024)}
    out["mlkem768_decaps_control"] = lambda: _mlkem_decaps(768, control=True)
    out.update({f"mlkem{p}_decaps_masked": (lambda p=p: _mlkem_decaps_masked(p)) for p in (512, 768, 1024)})
    out.update({f"mlkem{p}_decrypt_masked": (lambda p=p: _mlkem_decrypt_masked(p)) for p in (512, 768, 1024)})
    out["mlkem_decode_masked"] = lambda: _mlkem_decode_masked()
    out["mlkem_decode_masked_sum"] = lambda: _mlkem_decode_masked("sum")
    out["mlkem_decode_masked_no_fresh"] = lambda: _mlkem_decode_masked("no_fresh")
    out["mlkem_g_masked"] = lambda: _masked_hash("g")
    out["mlkem_g_masked_combined"] = lambda: _masked_hash("g", "combined")
    out["mlkem_j_masked"] = lambda: _masked_hash("j")
    out["mlkem_j_masked_combined"] = lambda: _masked_hash("j", "combined")
    out["mlkem_prf_masked"] = lambda: _masked_hash("prf")
    out["mlkem_prf_masked_combined"] = lambda: _masked_hash("prf", "combined")
    out["mlkem_cbd_masked"] = lambda: _masked_hash("cbd")
    out["mlkem_cbd_masked_combined"] = lambda: _masked_hash("cbd", "combined")
    out["mlkem_cbd_masked_joined"] = lambda: _masked_hash("cbd", "joined")
    out["mlkem_b2a_masked"] = lambda: _b2a_masked()
    out["mlkem_b2a_masked_joined"] = lambda: _b2a_masked("joined")
    out["mlkem768_encrypt_masked"] = lambda: _mlkem_encrypt_masked()
    out["mlkem768_encrypt_masked_joined"] = lambda: _mlkem_encrypt_masked("joined")
    out["mlkem768_compare_masked"] = lambda: _mlkem_compare_masked()
    out["mlkem768_compare_masked_no_fresh"] = lambda: _mlkem_compare_masked("no_fresh")
    out["mlkem_select_masked"] = lambda: _mlkem_select_masked()
    out["mlkem_g_masked_fixed_public"] = lambda: _masked_hash("g", fixed_public=True)
    out["mlkem_j_masked_fixed_public"] = lambda: _masked_hash("j", fixed_public=True)
    out.update({f"mlkem{p}_decrypt_masked_fixed_public": (lambda p=p: _mlkem_decrypt_masked(p, fixed_public=True))
                for p in (512, 768, 1024)})
    return out


def program(name: str) -> Program:
    table = programs()
    if name not in table:
        raise FlowError(f"unknown program {name!r} for a leakage assessment; known: {', '.join(sorted(table))}")
    return table[name]()


def instruction_map(prog: Program, inputs: tuple) -> list[tuple[int, int, str]]:
    """[(first cycle, pc, disassembly)] of each instruction the ISS runs on these inputs
    ((DMEM image, entropy words))."""
    from ip.acc import block
    from ip.acc.iss import Iss
    from ip.acc.tools.dis import Disassembler
    words = prog.words()
    sim = Iss(dmem_size=block.DMEM_SIZE, imem_size=block.IMEM_SIZE)
    sim.reset()
    sim.load_program(words)
    dmem, entropy = inputs
    sim.dmem.write_bytes(0, dmem)
    for w in entropy:
        sim.write_entropy(w)
    dis, out = Disassembler(), []
    while sim.cycles < MAX_CYCLES:
        out.append((sim.cycles, sim.pc, dis.line(words[sim.pc // 4], sim.pc)))
        if sim.step() is not None:
            break
    return out


def fingerprint(words: list, backend, engine: str, model: str, cycles: int | None = None) -> str:
    """What a trace measures: the program's words, the engine and model, the window (`cycles`),
    and the contents of the power model's sources, driver and header (not the model's build key:
    that holds paths and the host's CPU, which differ between a cluster's nodes running the same
    measurement)."""
    from ip.acc.dv.rtl_runner import DRIVER
    tag = f"{engine} {model}" + (f" window {cycles}" if cycles else "")
    h = hashlib.sha256(f"{tag}\n".encode() + b"".join(int(w).to_bytes(4, "little") for w in words))
    for p in [*map(Path, backend.sources), Path(DRIVER), Path(backend.header)]:
        h.update(p.read_bytes())
    return h.hexdigest()[:16]


def measured(name: str, engine: str = "rtl", model: str = "buses", seed: int = 1, cycles: int | None = None) -> str:
    """The fingerprint a run of `assess` with these arguments tags its accumulators with (the
    power model's sources made, not built)."""
    from ip.acc import block
    if engine == "gls":
        from ip.acc.dv.gls_power import GateLevelPowerBackend
        be = GateLevelPowerBackend(seed=seed)
    else:
        from ip.acc.dv.power import PowerBackend
        be = PowerBackend(block.IMEM_SIZE, block.DMEM_SIZE)
    return fingerprint(program(name).words(), be, engine, model, cycles)


MODELS = {"buses": "per cycle and unit: Hamming distance of every register, memory port and bus between "
                    "units (ip/acc/dv/power.py)",
          "registers": "per cycle and unit: Hamming distance of every register and memory port, no buses "
                       "(ip/acc/dv/power.py REGISTER_UNITS)"}


def assess(name: str, traces: int, seed: int = 1, batch: int = 50, order: int = 1, log=print,
           state_out: Path | None = None, start: int = 0, model: str = "buses", engine: str = "rtl",
           cycles: int | None = None) -> tuple:
    """Run `traces` traces (classes at random) through the power model; returns (the report,
    the t-tests' accumulators: pqsoc.sca.ttest.Assessment, the units). engine "rtl" (ip/acc/dv/
    power.py) or "gls" (the synthesized netlist, ip/acc/dv/gls_power.py); model (RTL only):
    "buses" (every unit) or "registers" (power.REGISTER_UNITS: the buses between units left out).
    seed / start: trace k's inputs come from (seed, start + k), so chunks of one assessment run
    apart (a campaign's tasks) and merge to the whole (state_out: the accumulators, .npz).
    cycles: a window, the first `cycles` (+ the driver's 16) cycles of each trace: the run is
    stopped there (the ACC wiped), so a long assessment of a program's start costs what its
    window does. A trace's window is what the whole run gives in those cycles up to the state
    the previous trace left (wiped either way; a previous trace is of an independent class)."""
    from ip.acc import block
    from ip.acc.dv.power import REGISTER_UNITS, UNITS, PowerBackend
    from pqsoc.sca.ttest import Assessment
    if model not in MODELS:
        raise FlowError(f"unknown power model {model!r}; known: {', '.join(MODELS)}")
    if engine not in ("rtl", "gls"):
        raise FlowError(f"unknown engine {engine!r}; known: rtl, gls")
    if engine == "gls" and model != "buses":
        raise FlowError(f"--model {model}: an option of the RTL model; the gate-level model counts every net")
    if cycles is not None and not 1 <= cycles <= MAX_CYCLES:
        raise FlowError(f"--cycles {cycles}: a window of 1 .. {MAX_CYCLES} cycles")
    prog = program(name)
    words = prog.words()
    fixed = prog.fixed_secret(np.random.default_rng([seed, 0xF1C5]))
    if engine == "gls":
        from ip.acc.dv.gls_power import GateLevelPowerBackend
        be = GateLevelPowerBackend(seed=seed, log=log)
    else:
        be = PowerBackend(block.IMEM_SIZE, block.DMEM_SIZE, log=log)
    be.build()
    units = [u for u in UNITS if u in be.widths and (model == "buses" or u in REGISTER_UNITS)]
    columns = [list(be.widths).index(u) for u in units]
    tt, length, t0 = None, None, time.monotonic()
    history = []            # (traces so far, max |t| first order, a confirmed leak) after each batch
    done = 0
    while done < traces:
        n = min(batch, traces - done)
        classes, jobs = [], []
        for k in range(start + done, start + done + n):
            rng = np.random.default_rng([seed, k])
            c = int(rng.integers(0, 2))
            classes.append(c)
            dmem, entropy = prog.inputs(rng, fixed if c == 0 else None)
            # no DMEM read back (only the halt is checked), then a wipe: each trace starts from
            # a zero DMEM and an empty RND pool, whatever the last one left
            jobs.append((words, dmem, cycles or MAX_CYCLES, entropy, 0, True))
        results, power = be.run_power(jobs)
        for r in results:
            if r.halt != "ecall" and not (cycles and r.halt == "cycle_limit"):
                raise FlowError(f"{name}: a trace ended in {r.halt} (err bits {r.err_bits:#x}), not ecall")
        lens = {p.shape[0] for p in power}
        if length is None:
            length = min(lens)
        if lens != {length}:
            raise FlowError(f"{name}: traces of {sorted(lens)} cycles: the program's time depends on its "
                            "inputs (not constant time), so its traces cannot be compared cycle by cycle")
        if tt is None:
            tt = Assessment((length, len(units)), fingerprint(words, be, engine, model, cycles))
        tt.add(np.stack(power)[:, :, columns], np.array(classes), np.arange(start + done, start + done + n))
        done += n
        if min(tt.counts) >= 2:
            history.append((done, float(np.abs(tt.whole().t(1)).max()), bool(tt.confirmed(1).any())))
            log(f"[sca] {name}: {done}/{traces} traces, max |t| {history[-1][1]:.1f} (first order)"
                + (", a leak confirmed by both halves" if history[-1][2] else ""))
    if state_out is not None:
        tt.save(state_out)
    rep = report(name, prog, tt, units, order, history, seed, time.monotonic() - t0, start, model, engine)
    return ({**rep, "window_cycles": cycles} if cycles else rep), tt, units


def report(name: str, prog: Program, tt, units: list[str], order: int, history, seed: int, seconds: float,
           start: int = 0, model: str = "buses", engine: str = "rtl") -> dict:
    rng = np.random.default_rng([seed, 0xF1C5])
    imap = instruction_map(prog, prog.inputs(np.random.default_rng([seed, 1 << 40]), prog.fixed_secret(rng)))
    starts = [c for c, _, _ in imap]

    def insn_at(cycle: int) -> dict:
        k = max(0, np.searchsorted(starts, cycle, side="right") - 1)
        return {"pc": imap[k][1], "insn": imap[k][2]}

    from pqsoc.sca.report import summary
    if engine == "gls":
        from ip.acc.dv.gls_power import DESCRIPTION
        described = {"power_model": DESCRIPTION}
    else:
        described = {"power_model": MODELS[model], "model": model}
    return {"program": name, "description": prog.description, "engine": engine, **described,
            "fingerprint": tt.tag, "seed": seed, "first_trace": start, "seconds": round(seconds, 1),
            **summary(tt, units, order, history, insn_at)}


def picture(rep: dict, tt, units: list[str], path: Path) -> Path:
    """|t| (first order) over the cycles, one line per unit, and the threshold."""
    from pqsoc.sca.plot import picture as plot
    return plot(rep, tt, units, path, xlabel="cycle from START")
