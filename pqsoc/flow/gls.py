"""`pqsoc gls BLOCK`: gate-level simulation of the netlist that `pqsoc synth` produced and STA measured.

The netlist is built with Verilator, each cell replaced by the function Yosys reads from the PDK's
tt Liberty (Verilator rejects the PDK's UDP-based Verilog models); the clock gates, which have
no Liberty function, get hand models (`clock_gate_models`); other cells without one are refused
by name. The block's cocotb test module runs
on the RTL and on the netlist; the netlist runs with several random initial states
(`--x-initial unique`, a different `+verilator+seed` each), so behaviour that depends on
uninitialised flops shows up. Every test must pass and every cycle count must equal the RTL's.

The ACC (`gls_acc`) has no cocotb test: its netlist runs under the `pqsoc acc fuzz` harness
(kernels and random programs in lockstep with the ISS; see the ACC section below).
"""
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

from .. import BUILD, FlowError
from .. import blocks as blocks_mod
from ..pdk import SCL, find_pdk
from . import synth as synth_mod
from .synth import load_manifest, run_yosys, synth_dir
from .vsim import run_cocotb

X_ARGS = ["--x-assign", "unique", "--x-initial", "unique"]

# C++ of the big gate-level models (measured on the 252 k-cell silicon SoC: 148 MB of C++).
# clang compiles Verilator's output ~2.5 x faster than gcc at any -O level. Verilator's "Slow"
# files (half the C++ of a flat netlist: the constructor and a settle copy of all combinational
# logic, run once at time 0) compile at -O0; the eval files keep verilated.mk's OPT_FAST (-Os).
# Split into files so that `make -j 2` uses both cores.
GL_CXX = "clang++-14"
GL_CXX_ARGS = ["-MAKEFLAGS", f"CXX={GL_CXX}", "-MAKEFLAGS", "OPT_SLOW=-O0",
               "-CFLAGS", "-Wno-unknown-warning-option",
               "--output-split", "20000", "--output-split-cfuncs", "2000"]


def check_gl_cxx() -> None:
    """The gate-level models' C++ compiler must be there (apt package clang-14, `make setup`)."""
    if shutil.which(GL_CXX) is None:
        raise FlowError(f"{GL_CXX} not found: the gate-level models compile with clang "
                        "(apt package clang-14; `make setup` installs it)")

# The clock gates have no Liberty `function` (only a `statetable`), so Yosys cannot model them;
# these hand models replace the empty modules: GCLK = CLK & latch(GATE [| SCE]), the latch
# transparent while CLK is low. tests/test_cellcheck.py checks them against the PDK's models.
CLOCK_GATE_SIZES = (1, 2, 4)


def clock_gate_models() -> str:
    text = "// Hand models of the sky130_fd_sc_hd clock gates (pqsoc.flow.gls.clock_gate_models)\n"
    for size in CLOCK_GATE_SIZES:
        for cell, enable in (("dlclkp", "GATE"), ("sdlclkp", "GATE | SCE")):
            sce = "input SCE, " if cell == "sdlclkp" else ""
            text += (f"module {SCL}__{cell}_{size}(input CLK, {sce}input GATE, output GCLK);\n"
                     "  reg en;\n"
                     f"  always @* if (!CLK) en = {enable};\n"
                     "  assign GCLK = CLK & en;\n"
                     "endmodule\n")
    return text


def hand_modelled_cells() -> set[str]:
    return set(re.findall(r"^module (\w+)\(", clock_gate_models(), re.M))


def write_cell_models(path: Path) -> Path:
    """The hand models (clock gates) as a Verilog file that Yosys reads over the Liberty cells."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(clock_gate_models())
    return path


def cells_without_function(lib_text: str) -> set[str]:
    """Liberty cells with an output pin that has no `function` (e.g. the clock gates dlclkp)."""
    bad = set()
    for cm in re.finditer(r"\n    cell \(\"?(\w+)\"?\) \{(.*?)\n    \}", lib_text, re.S):
        for pm in re.finditer(r"pin \(\"?(\w+)\"?\) \{(.*?)\n        \}", cm.group(2), re.S):
            body = pm.group(2)
            # `state_function` / `power_down_function` do not count: Yosys models only `function`.
            if re.search(r"direction\s*:\s*\"?output", body) and not re.search(r"^\s*function\s*:", body, re.M):
                bad.add(cm.group(1))
    return bad


def flat_netlist(netlist: Path, top: str, pdk, out: Path, blackboxes=(), rename: str | None = None,
                 log=None) -> Path:
    """The netlist with every cell replaced by its Liberty function, flattened into one module.

    Same logic as instantiating per-cell models, but Verilator (with cocotb's --public-flat-rw)
    then sees one module instead of 13 k cell scopes, which cut a 14-minute build to about one.
    Cached next to the netlist's hash. blackboxes: Liberty files of cells kept as instances
    (SRAM macros; their simulation model comes separately); rename: the flat module's new name.
    """
    flat = out / "netlist_flat.v"
    script = out / "flatten.ys"
    # `proc` turns the hand models' always blocks into cells: a module with processes left in it
    # is skipped by opt_clean, which then kept every cell pin as a wire of its own plus an
    # assign (a 252 k-cell SoC: 172 MB of Verilog instead of 76, and a slower Verilator build).
    text = (f"read_liberty -ignore_miss_func -ignore_miss_dir {pdk.liberty('tt')}\n"
            + "".join(f"read_liberty -lib {b}\n" for b in blackboxes)
            + f"read_verilog -overwrite {out / 'cell_models.v'}\n"
            f"read_verilog {netlist}\n"
            f"hierarchy -check -top {top}\n"
            "proc\n"
            "flatten\n"
            "opt_clean -purge\n"
            + (f"rename {top} {rename}\n" if rename else "")
            + f"write_verilog -noattr {flat}.tmp\n")
    # cached next to the netlist's hash, and remade when the recipe changed
    if flat.is_file() and script.is_file() and script.read_text() == text:
        return flat
    if log:
        log(f"[gls] flattening {netlist} with the Liberty cell functions (Yosys)")
    out.mkdir(parents=True, exist_ok=True)
    write_cell_models(out / "cell_models.v")
    script.write_text(text)
    run_yosys(script, out / "flatten.log", "gate-level model generation")
    Path(f"{flat}.tmp").replace(flat)
    return flat


def public_ports_config(flat: Path, top: str, path: Path) -> Path:
    """A Verilator configuration file that makes only the top module's ports visible to VPI.

    cocotb's runner builds with `--public-flat-rw`: every net of a flat netlist public, which
    costs symbol tables of every net and keeps Verilator from optimising any of them away (the
    KMAC netlist: 38 MB of C++, a 118 s build; with its ports only: 17 MB, 37 s). The cocotb
    tests drive and read ports only (a netlist has no named internals). The builds pass
    `--no-public-flat-rw` and this file. Verilator 5.006 matches an exact name containing "__"
    only in its encoded form ("a__b" -> "a___05Fb"), so both forms are listed."""
    text = flat.read_text()
    m = re.search(rf"^module {re.escape(top)}\s*\(([^;]*)\);", text, re.M)
    if not m:
        raise FlowError(f"{flat}: no module {top} to take the ports from")
    ports = [p.strip() for p in m.group(1).split(",") if p.strip()]
    bad = [p for p in ports if not re.fullmatch(r"[A-Za-z_]\w*", p)]
    if bad or not ports:
        raise FlowError(f"{flat}: module {top} has port names this flow cannot make public: {bad or 'none'}")
    names = sorted({n for p in ports for n in (p, p.replace("__", "___05F"))})
    path.write_text("`verilator_config\n"
                    + "".join(f'public_flat_rw -module "{top}" -var "{n}"\n' for n in names))
    return path


def check_cells(netlist: Path, pdk) -> None:
    used = set(re.findall(rf"^\s*({SCL}__\w+) ", netlist.read_text(), re.M))
    unmodelled = sorted((used & cells_without_function(pdk.liberty("tt").read_text()))
                        - hand_modelled_cells())
    if unmodelled:
        raise FlowError(f"netlist uses cells without a functional model: {', '.join(unmodelled)}")


def compare_cycles(name: str, rtl_figures: dict, gls_figures: dict, seed: int) -> None:
    """Every figure the RTL run measured must be measured identically at gate level."""
    if not rtl_figures:
        raise FlowError(f"{name}: the RTL run reported no cycle counts to compare")
    diff = {k: {"rtl": v, "gls": gls_figures.get(k)} for k, v in rtl_figures.items()
            if gls_figures.get(k) != v}
    extra = sorted(set(gls_figures) - set(rtl_figures))
    if diff or extra:
        raise FlowError(f"{name}: gate-level cycle counts differ from RTL (seed {seed}): "
                        f"{diff}{f', only at gate level: {extra}' if extra else ''}")


def _test_module(block) -> str:
    if not block.cocotb_test:
        raise FlowError(f"block {block.name} has no cocotb test module for RTL/gate-level simulation")
    return block.cocotb_test


def rtl(name: str):
    block = blocks_mod.get(name)
    sources = block.emit(block.rtl_dir())
    return run_cocotb(sources=sources, top=block.top, test_module=_test_module(block),
                      build_dir=BUILD / "vsim" / name / "rtl", label=f"{name} RTL")


def gls(name: str, seeds=(1, 2, 3)) -> dict:
    if name == "acc":
        return gls_acc(seeds=seeds)
    from .gls_soc import SOC_BLOCKS, gls_soc
    if name in SOC_BLOCKS:
        return gls_soc(seeds=seeds, block=name)
    block = blocks_mod.get(name)
    pdk = find_pdk()
    check_gl_cxx()
    manifest = load_manifest(name, check_rtl=True)
    netlist = synth_dir(name) / "netlist.v"
    check_cells(netlist, pdk)
    build_dir = BUILD / "vsim" / name / f"gls-{manifest['netlist_sha256'][:12]}"
    flat = flat_netlist(netlist, block.top, pdk, build_dir, log=lambda m: print(m, flush=True))
    print(f"[gls] {name}: RTL run", flush=True)
    ref = rtl(name)
    if ref.failed or not ref.tests:
        raise FlowError(f"{name}: RTL simulation failed ({ref.failed}/{ref.tests}); log: {ref.log}")
    ports = public_ports_config(flat, block.top, build_dir / "public_ports.vlt")
    runs = {}
    for seed in seeds:
        print(f"[gls] {name}: gate-level run, random initial state seed {seed}", flush=True)
        res = run_cocotb(sources=[flat], top=block.top, test_module=_test_module(block),
                         build_dir=build_dir, build_args=X_ARGS + ["--no-public-flat-rw", str(ports)],
                         seed=seed,
                         plusargs=["+verilator+rand+reset+2", f"+verilator+seed+{seed}"],
                         label=f"{name} gate level", cxx=GL_CXX)
        if res.failed or not res.tests:
            raise FlowError(f"{name}: gate-level simulation failed with seed {seed} "
                            f"({res.failed}/{res.tests} tests); log: {res.log}")
        compare_cycles(name, ref.figures, res.figures, seed)
        runs[seed] = res.figures
    table = {k: {"rtl": v, "gls": runs[seeds[0]][k]} for k, v in ref.figures.items()}
    for k, v in table.items():
        print(f"[gls] {name}: {k}: RTL {v['rtl']}, gate level {v['gls']}", flush=True)
    return {"block": name, "netlist_sha256": manifest["netlist_sha256"], "seeds": list(seeds),
            "tests": ref.tests, "cycles": table}



# ---------------------------------------------------------------------------------- the ACC
# The ACC has no cocotb test: its gate-level run is the harness of `pqsoc acc fuzz` (C++ host
# driver, ip/acc/rtl/fuzz_backend.py) on a top with the RTL top's ports (ip/acc/rtl/gls_top.py:
# the netlist, SRAM macro models, the RTL KMAC on the side-load port). It runs the ACC kernels
# (ISS, RTL and netlist: equal cycles, registers, DMEM) and random programs in lockstep with
# the ISS, once per random initial state.

ACC_NETLIST_MODULE = "acc_netlist"
ACC_FUZZ_SEED = 1            # `pqsoc acc fuzz` seed of the programs
ACC_FUZZ_PER_SEED = 100      # programs per random initial state (different programs per state)


def sram_cycle_model(macro: str, words: int, bits: int, gran: int) -> str:
    """A cycle model of an OpenRAM 1rw1r macro with the PDK model's ports and sampled behaviour.

    The PDK's behavioural model registers the inputs at the rising clock edge, blanks dout to 'x
    1 time unit later and drives mem[addr] at the falling edge + 3 (writes also happen at the
    falling edge), so what a flop sees at the next rising edge is: mem[addr] after a read cycle
    (csb low, web high), 'x after any other cycle. Its `#` delays need Verilator's --timing and a
    time-advancing driver; this model gives the same values at every rising edge without delays,
    with a random word for 'x. tests/test_gls_acc.py checks it against the PDK model (Icarus)."""
    ab = (words - 1).bit_length()
    nm = bits // gran
    wr = "".join(f"      if (wmask0[{i}]) mem[addr0][{(i + 1) * gran - 1}:{i * gran}] <= "
                 f"din0[{(i + 1) * gran - 1}:{i * gran}];\n" for i in range(nm))
    return (f"// Cycle model of {macro} for gate-level simulation (pqsoc.flow.gls.sram_cycle_model)\n"
            f"module {macro}(clk0, csb0, web0, wmask0, addr0, din0, dout0, clk1, csb1, addr1, dout1);\n"
            f"  input clk0, csb0, web0;\n  input [{nm - 1}:0] wmask0;\n  input [{ab - 1}:0] addr0;\n"
            f"  input [{bits - 1}:0] din0;\n  output reg [{bits - 1}:0] dout0;\n"
            f"  input clk1, csb1;\n  input [{ab - 1}:0] addr1;\n  output reg [{bits - 1}:0] dout1;\n"
            f"  reg [{bits - 1}:0] mem [0:{words - 1}];\n"
            "`ifdef PQSOC_SRAM_PRELOAD\n"
            "  // contents from the harness (sim/silicon_harness.cpp --sram-init): the instance registers\n"
            "  // at time 0; the harness loads it after the power-on reset, as a host does\n"
            "  integer i;\n"
            "  function void pqsoc_sram_load();\n"
            f"    for (i = 0; i < {words}; i = i + 1) mem[i] = pqsoc_sram_word(i);\n"
            "  endfunction\n"
            '  export "DPI-C" function pqsoc_sram_load;\n'
            f"  initial pqsoc_sram_init($sformatf(\"%m\"), {words});\n"
            "`endif\n"
            "  always @(posedge clk0) begin\n"
            "    if (!csb0 && !web0) begin\n" + wr + "    end\n"
            "    dout0 <= (!csb0 && web0) ? mem[addr0] : $random;   // 'x in the macro\n"
            "  end\n"
            "  always @(posedge clk1)\n"
            "    dout1 <= !csb1 ? mem[addr1] : $random;\n"
            "endmodule\n")


# With PQSOC_SRAM_PRELOAD defined, every macro model registers with the harness at time 0 and
# gets its contents when the harness calls its exported pqsoc_sram_load after the power-on reset
# (a bring-up host's load, without hours of bridge traffic at gate level). Not at time 0: in the
# netlist's random initial state the first clock edges in reset can write random words into a
# macro (its csb/web come from flops still in their random state then), which
# corrupted the preloaded ACC DMEM at gate level (ML-DSA signing gave a wrong signature with
# one seed); a host loads after reset too.
SRAM_PRELOAD_IMPORTS = (
    "`ifdef PQSOC_SRAM_PRELOAD\n"
    'import "DPI-C" context function void pqsoc_sram_init(input string inst, input int words);\n'
    'import "DPI-C" function int pqsoc_sram_word(input int addr);\n'
    "`endif\n")


def write_sram_models(macros, path: Path) -> Path:
    from ip.acc.rtl.sram import MACROS
    unknown = [m for m in macros if m not in MACROS]
    if unknown:
        raise FlowError(f"no simulation model for SRAM macro {', '.join(unknown)}")
    text = SRAM_PRELOAD_IMPORTS + "".join(sram_cycle_model(m, *MACROS[m]) for m in macros)
    if not path.is_file() or path.read_text() != text:
        path.write_text(text)
    return path


def check_macros(netlist: Path, macros) -> None:
    """Every non-standard-cell instance of the netlist must be a macro we have a model for."""
    used = set(re.findall(r"^\s*(sky130_sram_\w+)\s", netlist.read_text(), re.M))
    unmodelled = sorted(used - set(macros))
    if unmodelled:
        raise FlowError(f"netlist uses macros without a simulation model: {', '.join(unmodelled)}")


def acc_gl_model(log=print):
    """(manifest, Verilog sources of the gate-level top, build folder) of the ACC netlist that
    `pqsoc synth acc` wrote; refused when stale. The build folder is keyed by the netlist hash."""
    from ip.acc.rtl import gls_top
    block = blocks_mod.get("acc")
    pdk = find_pdk()
    manifest = load_manifest("acc", check_rtl=True)
    netlist = synth_mod.synth_dir("acc") / "netlist.v"
    check_cells(netlist, pdk)
    check_macros(netlist, block.macros)
    build_dir = BUILD / "gls" / "acc" / f"gls-{manifest['netlist_sha256'][:12]}"
    t0 = time.monotonic()
    flat = flat_netlist(netlist, block.top, pdk, build_dir, log=log,
                        blackboxes=[pdk.sram(m, "lib") for m in block.macros], rename=ACC_NETLIST_MODULE)
    flatten_s = time.monotonic() - t0
    srams = write_sram_models(block.macros, build_dir / "sram_models.v")
    top = gls_top.emit(flat.read_text(), ACC_NETLIST_MODULE, build_dir)
    return manifest, [top, flat, srams], build_dir, flatten_s


def acc_backend(seed: int, log=print):
    """The gate-level fuzz backend of the ACC netlist with random initial state `seed`."""
    from ip.acc.rtl.gls_top import GateLevelBackend
    _, sources, build_dir, _ = acc_gl_model(log)
    return GateLevelBackend(blocks_mod.ACC_IMEM, blocks_mod.ACC_DMEM, sources, build_dir, seed,
                            label=f"ACC gate level (seed {seed})", log=log)


SPEED_LOOP = "loopi 400, 2\nloopi 500, 1\naddi x1, x1, 1\necall\n"   # 200 k cycles, no memory


def acc_kernel_jobs() -> list:
    """(key, words, DMEM image, max cycles, check(result) -> error or None) of the ACC kernels
    (ip/acc/bench.py: NTT/INTT for ML-KEM and ML-DSA, A_hat sampling through KMAC and the stream
    unit; ML-KEM-768 decapsulation, valid and rejected ciphertext), at the block's memory sizes.
    The checks are against kyber-py / dilithium-py (independent of the ACC)."""
    from ip.acc import bench
    from ip.acc.kernels import mlkem
    from kyber_py.ml_kem import ML_KEM_768 as KEM
    from pqsoc.acc.asm import assemble
    size = blocks_mod.ACC_DMEM
    jobs = []
    for key, src, dm, mode, ref, base in bench.kernel_jobs():
        def check(r, mode=mode, ref=ref, base=base):
            got = []
            for w in range(256 // mode[0]):
                got += bench.unpack(r.dmem[base + 32 * w:base + 32 * w + 32], mode)
            return None if r.halt == "ecall" and got == ref else f"wrong result ({r.halt}, err {r.err_bits:#x})"
        jobs.append((key, assemble(src, f"{key}.s"), bench.image(dm, size), 20_000, check))
    seed = 7
    ek, dk = KEM._keygen_internal(bytes([seed]) * 32, bytes([seed + 1]) * 32)
    _, c = KEM._encaps_internal(ek, bytes([seed + 2]) * 32)
    bad = bytearray(c)
    bad[5] ^= 1
    words = assemble(mlkem.decaps_program(), "decaps.s")
    for key, ct in (("mlkem768_decaps", c), ("mlkem768_decaps_reject", bytes(bad))):
        def check(r, ct=ct):
            k = r.dmem[mlkem.K_OUT:mlkem.K_OUT + 32]
            return None if r.halt == "ecall" and k == KEM._decaps_internal(dk, ct) else \
                f"wrong K ({r.halt}, err {r.err_bits:#x})"
        jobs.append((key, words, bench.image(mlkem.image(dk=dk, c=ct), size), 100_000, check))
    return jobs


def speed_job() -> tuple:
    from pqsoc.acc.asm import assemble
    return ("speed_loop", assemble(SPEED_LOOP, "speed.s"), bytes(blocks_mod.ACC_DMEM), 300_000,
            lambda r: None if r.halt == "ecall" and r.cycles >= 200_000 else f"{r.halt} after {r.cycles} cycles")


def _acc_kernels(jobs, iss_runs, backend, name: str) -> dict:
    """Runs the kernel jobs on a backend; every result must equal the ISS's (full compare)."""
    from pqsoc.acc.fuzz import compare
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

    def run(self, program_words, dmem, max_cycles):
        import dataclasses
        r = self.backend.run(program_words, bytes(dmem)[:self.size], max_cycles)
        return dataclasses.replace(r, dmem=r.dmem[:self.size])

    def __getattr__(self, name):
        return getattr(self.backend, name)


class DmemWindowMany(DmemWindow):
    def run_many(self, jobs):
        return self.backend.run_many([(w, bytes(d)[:self.size], c) for w, d, c in jobs])


ACC_FUZZ_DMEM_WINDOW = 2048


def gls_acc(seeds=(1, 2, 3), fuzz_per_seed: int = ACC_FUZZ_PER_SEED, log=print,
            fuzz_window: int | None = ACC_FUZZ_DMEM_WINDOW) -> dict:
    """`pqsoc gls acc`: the ACC netlist runs the kernels and fuzz_per_seed random programs per
    random initial state, in lockstep with the ISS; kernel cycles must also equal the RTL's."""
    from ip.acc.rtl.fuzz_backend import RtlBackend
    from ip.acc.rtl.gls_top import GateLevelBackend
    from pqsoc.acc.fuzz import FuzzConfig, IssBackend, fuzz
    size_i, size_d = blocks_mod.ACC_IMEM, blocks_mod.ACC_DMEM
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
            cached = (be.model_dir / "Vacc").is_file()
            if not cached:
                log(f"[gls] acc: building the gate-level model (Verilator, {build_dir})")
            be.build()
            build = {"cached": cached, "verilator_build_s": round(be.build_seconds, 1),
                     "flatten_s": round(flatten_s, 1), "model_dir": str(be.model_dir)}
        log(f"[gls] acc: kernels at gate level, random initial state seed {seed}")
        res = _acc_kernels(jobs, iss_runs, be, f"gate level (seed {seed})")
        gl = {key: r.cycles for (key, *_), r in zip(jobs, res["runs"])}
        compare_cycles("acc", ref, gl, seed)
        gl_by_seed[seed] = gl
        kernel_cycles = sum(gl.values())
        start = k * fuzz_per_seed
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
                    "on the side-load port (ip/acc/rtl/gls_top.py)"),
            "cycles": table, "tests": len(jobs) + total,
            "fuzz": {"seed": ACC_FUZZ_SEED, "kmac": True, "programs": total,
                     "dmem_compared_bytes": fuzz_window or size_d,
                     "passed": sum(v["fuzz_passed"] for v in per_seed.values()),
                     "failed": sum(v["fuzz_failed"] for v in per_seed.values())},
            "per_seed": per_seed, "build": build}
