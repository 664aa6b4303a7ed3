# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""`pqsoc gls acc`: the ACC netlist's gate-level run, the hook the ACC hands the generic flow
(pqsoc/flow/gls.py calls Block.gls; pqsoc/cli/blocks.py wires it).

The ACC has no cocotb test: its gate-level run is the harness of `pqsoc acc fuzz` (C++ host
driver, ip/acc/dv/rtl_runner.py) on a top with the RTL top's ports (ip/acc/dv/gls_top.py: the
netlist, SRAM macro models, the RTL KMAC on the side-load port). It runs the ACC kernels (ISS,
RTL and netlist: equal cycles, registers, DMEM) and random programs in lockstep with the ISS,
once per random initial state.
"""
import time

from ip.acc import block as acc_block
from ip.common.sram import MACROS as SRAM_GEOMETRY
from pqsoc import BUILD, FlowError
from pqsoc.flow import locks
from pqsoc.flow import synth as synth_mod
from pqsoc.flow.gls import (check_cells, check_macros, compare_cycles, flat_netlist, write_sram_models)
from pqsoc.flow.pdk import find_pdk
from pqsoc.flow.synth import load_manifest

ACC_NETLIST_MODULE = "acc_netlist"
ACC_FUZZ_SEED = 1            # `pqsoc acc fuzz` seed of the programs
ACC_FUZZ_PER_SEED = 100      # programs per random initial state (different programs per state)


def acc_gl_model(log=print, top: bool = True):
    """(manifest, Verilog sources of the gate-level top, build folder) of the ACC netlist that
    `pqsoc synth acc` wrote; refused when stale. The build folder is keyed by the netlist hash.
    top=False: no top (None in its place) for a caller that makes its own (the power model's:
    the top's Amaranth conversion is a tenth of a gate-level leakage task)."""
    from ip.acc.dv import gls_top
    block = acc_block.ACC
    pdk = find_pdk()
    manifest = load_manifest("acc", check_rtl=True)
    netlist = synth_mod.synth_dir("acc") / "netlist.v"
    check_cells(netlist, pdk)
    check_macros(netlist, block.macros)
    build_dir = BUILD / "gls" / "acc" / f"gls-{manifest['netlist_sha256'][:12]}"
    t0 = time.monotonic()
    with locks.exclusive(build_dir):     # a campaign's tasks share the folder
        flat = flat_netlist(netlist, block.top, pdk, build_dir, log=log,
                            blackboxes=[pdk.sram(m, "lib") for m in block.macros], rename=ACC_NETLIST_MODULE)
        flatten_s = time.monotonic() - t0
        srams = write_sram_models(block.macros, SRAM_GEOMETRY, build_dir / "sram_models.v")
        top = gls_top.emit(flat.read_text(), ACC_NETLIST_MODULE, build_dir) if top else None
    return manifest, [top, flat, srams], build_dir, flatten_s


def prepare_acc(log=print) -> None:
    """What every gate-level run of the ACC shares (`pqsoc campaign gls`): the netlist's model and
    the RTL model of the kernels' reference run, built once."""
    from ip.acc.dv.rtl_runner import RtlBackend
    log("[gls] acc: building the netlist's and the RTL's models once for every task")
    acc_backend(1, log=log).build()
    RtlBackend(acc_block.IMEM_SIZE, acc_block.DMEM_SIZE, log=log).build()


def acc_backend(seed: int, log=print):
    """The gate-level fuzz backend of the ACC netlist with random initial state `seed`."""
    from ip.acc.dv.gls_top import GateLevelBackend
    _, sources, build_dir, _ = acc_gl_model(log)
    return GateLevelBackend(acc_block.IMEM_SIZE, acc_block.DMEM_SIZE, sources, build_dir, seed,
                            label=f"ACC gate level (seed {seed})", log=log)


SPEED_LOOP = "loopi 400, 2\nloopi 500, 1\naddi x1, x1, 1\necall\n"   # 200 k cycles, no memory


def acc_kernel_jobs() -> list:
    """(key, words, DMEM image, max cycles, check(result) -> error or None) of the ACC kernels
    (ip/acc/dv/jobs.py: NTT/INTT for ML-KEM and ML-DSA, A_hat sampling through KMAC and the stream
    unit; ML-KEM-768 decapsulation, valid and rejected ciphertext, keygen and encapsulation; the
    masked pieces and the whole masked decapsulation), at the block's memory sizes.
    The checks are against kyber-py / dilithium-py (independent of the ACC)."""
    from ip.acc.dv import jobs as bench
    from ip.acc.tools.asm import assemble
    size = acc_block.DMEM_SIZE
    jobs = []
    for key, src, dm, mode, ref, base in bench.kernel_jobs():
        jobs.append((key, assemble(src, f"{key}.s"), bench.image(dm, size), 20_000,
                     bench.kernel_check(mode, ref, base)))
    return (jobs + bench.mlkem_decaps_jobs(mem=size) + mlkem_keygen_encaps_jobs(size)
            + [masked_noise_job(size), masked_b2a_job(size), masked_encrypt_job(size), masked_compare_job(size),
               masked_decaps_job(size)])


def masked_decaps_job(size: int, seed: int = 15) -> tuple:
    """ML-KEM-768's whole masked decapsulation (ip/acc/kernels/mlkem/masked_decaps.py), URND
    seeded from a DMEM word, on an implicitly rejected ciphertext (one bit flipped): K0 ^ K1
    checked against the `cryptography` package's K and the status word OK."""
    import random
    from cryptography.hazmat.primitives.asymmetric import mlkem
    from kyber_py.ml_kem import ML_KEM_768 as K
    from ip.acc.dv.jobs import image
    from ip.acc.kernels.mlkem import status
    from ip.acc.kernels.mlkem.masked_decaps import MaskedDecaps
    from ip.acc.tools.asm import assemble
    f, rng = MaskedDecaps(768), random.Random(seed)
    d, z = rng.randbytes(32), rng.randbytes(32)
    ek, dk = K._keygen_internal(d, z)
    c = bytearray(K._encaps_internal(ek, rng.randbytes(32))[1])
    c[rng.randrange(len(c))] ^= 1 << rng.randrange(8)
    want = mlkem.MLKEM768PrivateKey.from_seed_bytes(d + z).decapsulate(bytes(c))
    img = {**f.image(f.mask_dk(dk, rng), bytes(c)), f.END: rng.randbytes(32)}

    def check(res):
        if res.halt != "ecall":
            return f"{res.halt}, err {res.err_bits:#x}"
        dm = bytes(res.dmem)
        k0, k1 = f.outputs(dm)
        if status.read(dm, f.STATUS) != status.OK:
            return f"status {status.read(dm, f.STATUS):#x}"
        return None if bytes(a ^ b for a, b in zip(k0, k1)) == want else "K differs from cryptography's"
    return ("mlkem768_decaps_masked", assemble(_urnd_from_dmem(f), "mlkem768_decaps_masked.s"),
            image(img, size), 40_000, check)


def masked_encrypt_job(size: int, seed: int = 13) -> tuple:
    """ML-KEM-768's masked re-encryption (ip/acc/kernels/mlkem/masked_encrypt.py), URND seeded
    from a DMEM word: checked against kyber-py's K-PKE.Encrypt (the shares' sums compressed)."""
    import random
    from kyber_py.ml_kem import ML_KEM_768 as K
    from ip.acc.dv.jobs import image
    from ip.acc.kernels.mlkem.masked_encrypt import MaskedEncrypt
    from ip.acc.tools.asm import assemble
    f, rng = MaskedEncrypt(768), random.Random(seed)
    ek, _ = K._keygen_internal(rng.randbytes(32), rng.randbytes(32))
    m, r, m1, r1, urnd = (rng.randbytes(32) for _ in range(5))
    img = {**f.image(ek, bytes(a ^ b for a, b in zip(r, r1)), r1, bytes(a ^ b for a, b in zip(m, m1)), m1),
           f.END: urnd}
    want = K._k_pke_encrypt(ek, m, r)

    def check(res):
        if res.halt != "ecall":
            return f"{res.halt}, err {res.err_bits:#x}"
        u0, u1, v0, v1 = f.outputs(bytes(res.dmem))
        got = b"".join(K.R([(a + b) % 3329 for a, b in zip(x, y)]).compress(10).encode(10) for x, y in zip(u0, u1)) + \
            K.R([(a + b) % 3329 for a, b in zip(v0, v1)]).compress(4).encode(4)
        return None if got == want else "u', v' do not compress to kyber-py's ciphertext"
    return ("mlkem768_encrypt_masked", assemble(_urnd_from_dmem(f), "mlkem768_encrypt_masked.s"),
            image(img, size), 30_000, check)


def masked_compare_job(size: int, seed: int = 14) -> tuple:
    """ML-KEM-768's masked re-encryption check (ip/acc/kernels/mlkem/masked_compare.py) on u', v'
    that compress to c: ok's shares XOR to 1."""
    import random
    from kyber_py.ml_kem import ML_KEM_768 as K
    from ip.acc.dv.jobs import image
    from ip.acc.kernels.mlkem.masked_compare import MaskedCompare
    from ip.acc.tools.asm import assemble
    f, rng = MaskedCompare(768), random.Random(seed)
    polys = [[rng.randrange(3329) for _ in range(256)] for _ in range(4)]
    c = b"".join(K.R(p).compress(10).encode(10) for p in polys[:3]) + K.R(polys[3]).compress(4).encode(4)
    s0 = [[rng.randrange(3329) for _ in range(256)] for _ in polys]
    s1 = [[(a - b) % 3329 for a, b in zip(p, x)] for p, x in zip(polys, s0)]
    img = {**f.image(s0[:3], s1[:3], s0[3], s1[3], c), f.END: rng.randbytes(32)}

    def check(res):
        if res.halt != "ecall":
            return f"{res.halt}, err {res.err_bits:#x}"
        ok0, ok1 = f.outputs(bytes(res.dmem))
        return None if ok0 ^ ok1 == 1 else "the check failed on a matching ciphertext"
    return ("mlkem768_compare_masked", assemble(_urnd_from_dmem(f), "mlkem768_compare_masked.s"),
            image(img, size), 30_000, check)


def masked_b2a_job(size: int, seed: int = 12) -> tuple:
    """m''s B2A by the stream unit (ip/acc/kernels/mlkem/masked_b2a.py), URND seeded from a DMEM
    word: (key, words, DMEM image, max cycles, check: the shares add up to the bits)."""
    import random
    from ip.acc.dv.jobs import image
    from ip.acc.kernels.mlkem.masked_b2a import MaskedB2A
    from ip.acc.tools.asm import assemble
    f = MaskedB2A()
    rng = random.Random(seed)
    x, x1, urnd = rng.randbytes(32), rng.randbytes(32), rng.randbytes(32)
    src = _urnd_from_dmem(f)
    img = {**f.image(bytes(a ^ b for a, b in zip(x, x1)), x1), f.END: urnd}
    bits = [(int.from_bytes(x, "little") >> i) & 1 for i in range(256)]

    def check(res):
        if res.halt != "ecall":
            return f"{res.halt}, err {res.err_bits:#x}"
        e0, e1 = f.outputs(bytes(res.dmem))
        return None if [(a + b) % 3329 for a, b in zip(e0, e1)] == bits else "outputs differ from the bits"
    return ("mlkem_b2a_masked", assemble(src, "mlkem_b2a_masked.s"), image(img, size), 5_000, check)


def _urnd_from_dmem(f) -> str:
    """A masked kernel's body with URND seeded from the DMEM word at f.END (kernel jobs carry no
    ENTROPY words, which its own seed_urnd reads)."""
    from ip.acc.kernels.mlkem.masked import wipe
    tail = f.tail() if hasattr(f, "tail") else []
    return "\n".join([f"bn.lw w0, {f.END}(x0)", "bn.wsrw URND, w0", *wipe("w0"), *f.body(), "ecall", *tail]) + "\n"


def masked_noise_job(size: int, seed: int = 11) -> tuple:
    """ML-KEM-768's noise in two shares (ip/acc/kernels/mlkem/masked_hash.py's MaskedCBD: the
    masked KMAC's PRF, the stream unit's masked CBD mode), URND seeded from a DMEM word (kernel
    jobs carry no ENTROPY words): (key, words, DMEM image, max cycles, check against kyber-py)."""
    import hashlib
    import random
    from kyber_py.ml_kem.default_parameters import ML_KEM_768 as P
    from ip.acc.dv.jobs import image
    from ip.acc.kernels.mlkem.masked_hash import MaskedCBD
    from ip.acc.tools.asm import assemble
    f = MaskedCBD(768)
    rng = random.Random(seed)
    r, r1, urnd = rng.randbytes(32), rng.randbytes(32), rng.randbytes(32)
    src = _urnd_from_dmem(f)
    img = {**f.image(bytes(a ^ b for a, b in zip(r, r1)), r1), f.END: urnd}
    want = [P.R.cbd(hashlib.shake_256(r + bytes([n])).digest(64 * eta), eta).coeffs
            for n, eta in enumerate(f.etas)]

    def check(res):
        if res.halt != "ecall":
            return f"{res.halt}, err {res.err_bits:#x}"
        got = [[(a + b) % 3329 for a, b in zip(e0, e1)] for e0, e1 in f.outputs(bytes(res.dmem))]
        return None if got == want else "outputs differ from kyber-py's"
    return ("mlkem768_noise_masked", assemble(src, "mlkem768_noise_masked.s"), image(img, size), 20_000, check)


def mlkem_keygen_encaps_jobs(size: int, seed: int = 7) -> list:
    """ML-KEM-768 KeyGen_internal and Encaps_internal (issue 23 item 6: every ML-KEM-768
    operation at gate level) with seeds from `seed`: (key, words, DMEM image, max cycles,
    check) with (ek, dk) / (K, c) checked against kyber-py and the status word OK."""
    from kyber_py.ml_kem import ML_KEM_768 as KEM
    from ip.acc.dv.jobs import image
    from ip.acc.kernels.mlkem import status
    from ip.acc.kernels.mlkem.encaps import encaps
    from ip.acc.kernels.mlkem.keygen import keygen
    from ip.acc.tools.asm import assemble
    d, z, m = (bytes([seed + i]) * 32 for i in range(3))
    ek, dk = KEM._keygen_internal(d, z)
    jobs = []
    for key, obj, img, want in (("mlkem768_keygen", keygen(768), None, (ek, dk)),
                                ("mlkem768_encaps", encaps(768), (ek, m), KEM._encaps_internal(ek, m))):
        dm = obj.image(d, z) if img is None else obj.image(*img)

        def check(r, obj=obj, want=want):
            if r.halt != "ecall" or status.read(r.dmem, obj.status_addr) != status.OK:
                return f"{r.halt}, status {status.read(r.dmem, obj.status_addr):#x}, err {r.err_bits:#x}"
            return None if tuple(obj.outputs(r.dmem)) == tuple(want) else "outputs differ from kyber-py's"
        jobs.append((key, assemble(obj.program(), f"{key}.s"), image(dm, size), 100_000, check))
    return jobs


def speed_job() -> tuple:
    from ip.acc.tools.asm import assemble
    return ("speed_loop", assemble(SPEED_LOOP, "speed.s"), bytes(acc_block.DMEM_SIZE), 300_000,
            lambda r: None if r.halt == "ecall" and r.cycles >= 200_000 else f"{r.halt} after {r.cycles} cycles")


def _acc_kernels(jobs, iss_runs, backend, name: str) -> dict:
    """Runs the kernel jobs on a backend; every result must equal the ISS's (full compare)."""
    from ip.acc.dv.lockstep import compare
    t0 = time.monotonic()
    runs = backend.run_many([(w, img, cyc) for _, w, img, cyc, _ in jobs])
    secs = time.monotonic() - t0
    for (key, _, _, cyc, _), r_iss, r in zip(jobs, iss_runs, runs):
        if r.halt == "cycle_limit" and r_iss.halt != "cycle_limit":
            raise FlowError(f"acc {name}: {key} did not halt within its cycle limit of {cyc} "
                            f"(ISS: {r_iss.halt} after {r_iss.cycles} cycles)")
        diffs = compare(r_iss, r, ("iss", name))
        if diffs:
            raise FlowError(f"acc {name}: {key} differs from the ISS: " + "; ".join(diffs[:8]))
    return {"runs": runs, "seconds": secs}


class DmemWindow:
    """A fuzz backend seen through the first `size` bytes of DMEM: the program's DMEM image is
    cut to them (the rest of DMEM keeps what the earlier programs left: zero, wipes, stores) and
    only they are read back and compared. Used on both sides of the gate-level lockstep (ISS and
    netlist), so that a program costs ~2 k cycles of host traffic instead of ~12 k (a random
    16 KiB image written and read back). The fuzz layout keeps data, register dumps and every
    generated load/store in the first 2 KiB; the kernels compare the whole DMEM."""

    def __init__(self, backend, size: int):
        self.backend = backend
        self.size = size

    def run(self, program_words, dmem, max_cycles, entropy=()):
        import dataclasses
        r = self.backend.run(program_words, bytes(dmem)[:self.size], max_cycles, entropy)
        return dataclasses.replace(r, dmem=r.dmem[:self.size])

    def __getattr__(self, name):
        return getattr(self.backend, name)


class DmemWindowMany(DmemWindow):
    def run_many(self, jobs):
        # a job is (words, dmem, max_cycles[, entropy]) (lockstep.Backend.run_many)
        return self.backend.run_many([(j[0], bytes(j[1])[:self.size], *j[2:]) for j in jobs])


ACC_FUZZ_DMEM_WINDOW = 2048


def gls_acc(seeds=(1, 2, 3), fuzz_per_seed: int = ACC_FUZZ_PER_SEED, log=print,
            fuzz_window: int | None = ACC_FUZZ_DMEM_WINDOW) -> dict:
    """`pqsoc gls acc`: the ACC netlist runs the kernels and fuzz_per_seed random programs per
    random initial state, in lockstep with the ISS; kernel cycles must also equal the RTL's."""
    from ip.acc.dv.rtl_runner import RtlBackend
    from ip.acc.dv.gls_top import GateLevelBackend
    from ip.acc.dv.rig import FuzzConfig
    from ip.acc.dv.lockstep import IssBackend, fuzz
    if not seeds or min(seeds) < 1:
        raise FlowError(f"acc: random initial-state seeds are numbered from 1 (got {list(seeds)})")
    size_i, size_d = acc_block.IMEM_SIZE, acc_block.DMEM_SIZE
    manifest, sources, build_dir, flatten_s = acc_gl_model(log)
    jobs = acc_kernel_jobs()
    iss = IssBackend(size_i, size_d)
    iss_runs = [iss.run(w, img, cyc) for _, w, img, cyc, _ in jobs]
    speed = speed_job()
    speed_iss = iss.run(*speed[1:4])
    for (key, *_, check), r in zip(jobs + [speed], iss_runs + [speed_iss]):
        err = check(r)
        if err:
            raise FlowError(f"acc: kernel {key} on the ISS: {err}")
    log("[gls] acc: kernels on the RTL (behavioural memories, same sizes)")
    rtl_res = _acc_kernels(jobs, iss_runs, RtlBackend(size_i, size_d, log=log), "RTL")
    ref = {key: r.cycles for (key, *_), r in zip(jobs, rtl_res["runs"])}
    cfg = FuzzConfig(imem_size=size_i, dmem_size=size_d, kmac=True)
    per_seed = {}
    gl_by_seed = {}
    build = {}
    for k, seed in enumerate(seeds):
        be = GateLevelBackend(size_i, size_d, sources, build_dir, seed,
                              label=f"ACC gate level (seed {seed})", log=log)
        if not build:
            cached = be.built
            be.build()              # logs the build (pqsoc.flow.verilator.build_model)
            build = {"cached": cached, "verilator_build_s": round(be.build_seconds, 1),
                     "flatten_s": round(flatten_s, 1), "model_dir": str(be.model_dir)}
        log(f"[gls] acc: kernels at gate level, random initial state seed {seed}")
        res = _acc_kernels(jobs, iss_runs, be, f"gate level (seed {seed})")
        gl = {key: r.cycles for (key, *_), r in zip(jobs, res["runs"])}
        compare_cycles("acc", ref, gl, seed)
        gl_by_seed[seed] = gl
        kernel_cycles = sum(gl.values())
        # programs by seed, not by place in the list: a run of seed 2 alone (a campaign's task)
        # checks what seed 2 checks in `pqsoc gls acc --seeds 3`
        start = (seed - 1) * fuzz_per_seed
        log(f"[gls] acc: {fuzz_per_seed} random programs (fuzz seed {ACC_FUZZ_SEED}, "
            f"{start}..{start + fuzz_per_seed - 1}) at gate level, seed {seed}")
        be.sim_cycles = 0
        t0 = time.monotonic()
        ref_be, dut_be = IssBackend(size_i, size_d), be
        if fuzz_window:
            ref_be, dut_be = DmemWindow(ref_be, fuzz_window), DmemWindowMany(be, fuzz_window)
        passed, failed, failures = fuzz(fuzz_per_seed, ACC_FUZZ_SEED, ref_be, dut_be, cfg, start=start)
        fsecs = time.monotonic() - t0
        if failures:
            out = BUILD / "gls" / "acc" / "fuzz_failures"
            fl = failures[0]
            stem = fl.write(out)
            raise FlowError(f"acc gate level (seed {seed}): {failed} of {passed + failed} random programs "
                            f"differ from the ISS; first: program {fl.index} of fuzz seed {fl.seed} "
                            f"({stem}.s): " + "; ".join(fl.diffs[:8]))
        per_seed[seed] = {"kernels_s": round(res["seconds"], 1), "kernel_cycles": kernel_cycles,
                          "fuzz_programs": passed + failed, "fuzz_passed": passed, "fuzz_failed": failed,
                          "fuzz_first_program": start, "fuzz_acc_cycles": be.sim_cycles,
                          "fuzz_s": round(fsecs, 1)}
        if k == 0:      # simulation speed: one long loop, no host traffic but the warm-up
            sres = _acc_kernels([speed], [speed_iss], be, f"gate level (seed {seed})")
            build["speed_loop_cycles"] = sres["runs"][0].cycles
            build["speed_loop_s"] = round(sres["seconds"], 2)
            build["cycles_per_s"] = round(sres["runs"][0].cycles / sres["seconds"])
            log(f"[gls] acc: {build['cycles_per_s']} cycles/s at gate level "
                f"({build['speed_loop_cycles']} cycles in {sres['seconds']:.1f} s, process start included)")
        log(f"[gls] acc: seed {seed}: kernels equal to the RTL and the ISS ({res['seconds']:.0f} s), "
            f"{passed} passed, {failed} failed ({fsecs:.0f} s)")
    table = {key: {"iss": r_iss.cycles, "rtl": ref[key], "gls": gl_by_seed[seeds[0]][key]}
             for (key, *_), r_iss in zip(jobs, iss_runs)}
    for key, v in table.items():
        log(f"[gls] acc: {key}: ISS {v['iss']}, RTL {v['rtl']}, gate level {v['gls']}")
    total = sum(v["fuzz_programs"] for v in per_seed.values())
    return {"block": "acc", "netlist_sha256": manifest["netlist_sha256"], "seeds": list(seeds),
            "top": ("ACC netlist (SRAM macros: cycle models, pqsoc.flow.gls.sram_cycle_model) + RTL KMAC "
                    "on the side-load port (ip/acc/dv/gls_top.py)"),
            "cycles": table, "tests": len(jobs) + total,
            "fuzz": {"seed": ACC_FUZZ_SEED, "kmac": True, "programs": total,
                     "dmem_compared_bytes": fuzz_window or size_d,
                     "passed": sum(v["fuzz_passed"] for v in per_seed.values()),
                     "failed": sum(v["fuzz_failed"] for v in per_seed.values())},
            "per_seed": per_seed, "build": build}
