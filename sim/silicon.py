# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""`pqsoc gls soc` / `pqsoc gls soc_acc32k`: firmware on the silicon SoC's gate-level netlist,
against the same SoC's RTL.

The silicon SoC (soc/silicon.py, the configuration `pqsoc synth soc` and `pqsoc sta soc`
measure) has UART pins, a boot RAM that holds nothing at power-up and a CPU that fetches
nothing (`boot_hold`) until the host has loaded it. Both models, RTL and netlist, run in one harness
(sim/silicon_harness.cpp) that does at the pins what a bring-up host does: the boot RAM macros
get the firmware image after the power-on reset (what the host writes over the bridge; SRAM
macros are cycle models, pqsoc.flow.gls.sram_cycle_model), the harness then clears `boot_hold` with a real bridge
write on `bringup_rx`, decodes the console on `uart_tx` and loops GPIO out to in. Firmware is
built for the silicon SoC's memory map (its own generated headers; `sim_exit` prints
"*** EXIT code=N", there being no sim control).

Checked: the firmware's result lines pass on both; at gate level, with each random initial
state (`--x-initial unique`, +verilator+seed), every test's cycle count and the whole run's
cycle count equal the RTL's. The gate-level model is cached by netlist hash, the RTL model by
the hash of its sources.

Two silicon SoC blocks run here (pqsoc/cli/blocks.py): `soc` (ACC memories 16 + 16 KiB) and
`soc_acc32k` (32 + 32 KiB, the only one that can hold ML-DSA-65 signing); each has its own
programs (SOC_BLOCKS), build folders and firmware folder.
"""
import json
import struct
import time
from pathlib import Path

from pqsoc import BUILD, FlowError
from ip.common.sram import MACROS as SRAM_GEOMETRY
from pqsoc.flow import block as blocks_mod
from pqsoc.flow.pdk import find_pdk
from pqsoc.flow import locks
from pqsoc.flow import verilator as vl
from pqsoc.flow.gls import (check_cells, check_macros, compare_cycles, flat_netlist, write_cell_models,
                            write_sram_models)
from pqsoc.flow.synth import load_manifest, synth_dir
from ip.entropy.dv.sim_model import simulable
from soc.target import SILICON_ENTROPY

# Firmware run on each silicon SoC: what fits its boot RAM (6 KiB). The *_preloaded programs run one
# ML-KEM / ML-DSA operation with the ACC's IMEM and DMEM loaded by the host (firmware/build.py
# PRELOADED, preloaded_op): on block soc ML-KEM-768 decaps and ML-DSA-65 signing (sign16) and
# verification, the programs that fit its 16 KiB ACC memories. soc_acc32k runs the operations
# only: its CPU side is block soc's.
SOC_BLOCKS = {"soc": ("selftest", "mlkem_preloaded", "mldsa16_preloaded", "mldsa_verify_preloaded"),
              "soc_acc32k": ("mldsa_preloaded", "mlkem_preloaded")}
SOC_PROGRAMS = SOC_BLOCKS["soc"]
BOOT_RAM_PREFIX = "memories.rom.bank"      # instance path of the boot RAM's macros (soc_memories)
ACC_PREFIX = "pqc.acc"                     # the ACC: its macros are imem.ram_rR_c0, dmem.ram_rR_cC
SOC_SEEDS = (1, 2)
MAX_CYCLES = 5_000_000

# Verilator flags (pqsoc.flow.verilator). RTL: the SoC warnings and fast flops of the
# simulation SoC (sim/run.py) without its host-specific C++. Gate level: the random-initial-state
# set of the ACC's gate-level model (ip/acc/dv/gls_top.py): clang, output split (the build is the
# long part). Both: the macro models' preload (PQSOC_SRAM_PRELOAD, the harness's --sram-init).
_SOC = dict(warn=vl.SOC_WARNINGS, prefix="Vpqsoc", defines=["PQSOC_SRAM_PRELOAD"])
RTL_FLAGS = vl.model_flags("pqsoc", x=vl.X_FAST, cxx=vl.PORTABLE_RTL_CXX, jobs=2, **_SOC)
GL_FLAGS = vl.gate_level_flags("pqsoc", jobs=2, **_SOC)
HARNESS = Path(__file__).resolve().parent / "silicon_harness.cpp"


def _sim():
    import sim.run
    return sim.run


def _block(name: str):
    if name not in SOC_BLOCKS:
        raise FlowError(f"{name!r} is not a silicon SoC block; known: {', '.join(SOC_BLOCKS)}")
    return blocks_mod.get(name)


def silicon_dir(block: str = "soc") -> Path:
    return _block(block).rtl_dir()


def build_model(sources: list[Path], include_paths: list[str], flags: list[str], out: Path,
                label: str, log=print, block: str = "soc") -> tuple[Path, float]:
    """The harness + sources built with Verilator into OUT (cached: rebuilt only when a source,
    the harness, the flags or Verilator changed). Returns (executable, build seconds or 0)."""
    run = _sim()
    model = vl.build_model(flags=flags, sources=sources, driver=HARNESS, headers=run.HEADERS,
                           include_paths=include_paths, out=out, exe="Vpqsoc",
                           label=f"[gls] {block}: {label}", log=log)
    return model.exe, model.seconds


def _macro_models(out: Path, block: str) -> list[Path]:
    return [write_sram_models(_block(block).macros, SRAM_GEOMETRY, out / "sram_models.v"),
            write_cell_models(out / "cell_models.v")]


def rtl_model(log=print, block: str = "soc") -> tuple[Path, float]:
    """The silicon SoC's RTL (the files synthesis reads) with the macro and clock-gate models and
    the entropy source's rings, if it has them, as their simulation model (ip/entropy/dv/sim_model.py)."""
    soc_dir = silicon_dir(block)
    sources = _block(block).emit_rtl()
    files = json.loads((soc_dir / "gateware" / "files.json").read_text())
    out = BUILD / "gls" / block / "rtl"
    out.mkdir(parents=True, exist_ok=True)
    return build_model([*simulable(sources, out, SILICON_ENTROPY), *_macro_models(out, block)], files["include_paths"],
                       RTL_FLAGS, out, "RTL", log, block)


def gl_model(log=print, block: str = "soc") -> tuple[dict, Path, dict]:
    """The netlist `pqsoc synth soc` wrote (refused when stale), its rings' modules (if any) the model,
    flattened onto the Liberty cell functions, with the macro models. Cached by netlist hash.
    Returns (manifest, executable, build seconds: flatten_s, verilator_s (0 where cached), total_s)."""
    blk = _block(block)
    pdk = find_pdk()
    vl.gl_cxx()
    manifest = load_manifest(block, check_rtl=True)
    netlist = synth_dir(block) / "netlist.v"
    check_cells(netlist, pdk)
    check_macros(netlist, blk.macros)
    out = BUILD / "gls" / block / f"gls-{manifest['netlist_sha256'][:12]}"
    t0 = time.monotonic()
    (modelled,) = simulable([netlist], out, SILICON_ENTROPY)
    flat = flat_netlist(modelled, blk.top, pdk, out, log=log,
                        blackboxes=[pdk.sram(m, "lib") for m in blk.macros])
    flatten_s = time.monotonic() - t0
    sram = write_sram_models(blk.macros, SRAM_GEOMETRY, out / "sram_models.v")
    exe, secs = build_model([flat, sram], [], GL_FLAGS, out, "gate-level", log, block)
    build = {"flatten_s": round(flatten_s, 1), "verilator_s": round(secs, 1),
             "total_s": round(flatten_s + secs, 1)}
    if secs:
        log(f"[gls] {block}: gate-level model built in {build['total_s']:.0f} s (flatten "
            f"{flatten_s:.0f} s, Verilator and C++ {secs:.0f} s)")
    return manifest, exe, build


def boot_ram_init(image: bytes, soc_dir: Path) -> str:
    """--sram-init lines for the boot RAM's macros: the image, zero-padded to the boot RAM."""
    from ip.common.sram import MACROS
    from soc.silicon import SRAM_MACRO
    consts = json.loads((soc_dir / "csr.json").read_text())
    rom_size = consts["memories"]["rom"]["size"]
    words, bits, _ = MACROS[SRAM_MACRO]
    per_macro = words * bits // 8
    if len(image) > rom_size:
        raise FlowError(f"firmware image is {len(image)} bytes, the silicon SoC's boot RAM holds {rom_size}")
    image = image + bytes(rom_size - len(image))
    return "".join(_macro_line(f"{BOOT_RAM_PREFIX}.ram_r{r}_c0", image[r * per_macro:(r + 1) * per_macro],
                               words) + "\n" for r in range(rom_size // per_macro))


def _macro_line(name: str, data: bytes, words: int) -> str:
    ws = [int.from_bytes(data[i:i + 4], "little") for i in range(0, 4 * words, 4)]
    return f"{name} {words} " + " ".join(f"{w:08x}" for w in ws)


def acc_init(words: list[int], dmem: bytes, soc_dir: Path) -> str:
    """--sram-init lines for the ACC's macros: the program in IMEM (32-bit words, rows of one
    macro each) and the DMEM image (256-bit words: byte 4c..4c+3 of each word in column c's
    macro; rows of one macro depth), both zero-padded to the SoC's ACC memory sizes."""
    from ip.common.sram import MACROS
    from soc.silicon import SRAM_MACRO
    c = json.loads((soc_dir / "csr.json").read_text())["constants"]
    imem_size, dmem_size = c["acc_imem_size"], c["acc_dmem_size"]
    depth = MACROS[SRAM_MACRO][0]
    imem = b"".join(w.to_bytes(4, "little") for w in words)
    if len(imem) > imem_size or len(dmem) > dmem_size:
        raise FlowError(f"ACC preload of {len(imem)} B program / {len(dmem)} B DMEM exceeds the "
                        f"silicon SoC's IMEM / DMEM ({imem_size} / {dmem_size} B)")
    imem += bytes(imem_size - len(imem))
    dmem += bytes(dmem_size - len(dmem))
    lines = [_macro_line(f"{ACC_PREFIX}.imem.ram_r{r}_c0", imem[4 * depth * r:4 * depth * (r + 1)], depth)
             for r in range(imem_size // (4 * depth))]
    for r in range(dmem_size // (32 * depth)):
        rows = [dmem[32 * w:32 * w + 32] for w in range(depth * r, depth * (r + 1))]
        for col in range(8):
            data = b"".join(row[4 * col:4 * col + 4] for row in rows)
            lines.append(_macro_line(f"{ACC_PREFIX}.dmem.ram_r{r}_c{col}", data, depth))
    return "\n".join(lines) + "\n"


def preload_text(name: str, fw: Path, soc_dir: Path) -> str:
    """What the host loads before releasing the CPU: the boot RAM, and for the programs in
    firmware.build.PRELOADED the ACC's memories."""
    from firmware.build import PRELOADED, preloaded_op
    text = boot_ram_init(fw.read_bytes(), soc_dir)
    if name in PRELOADED:
        c = json.loads((soc_dir / "csr.json").read_text())["constants"]
        op = preloaded_op(c["acc_imem_size"], c["acc_dmem_size"], name)
        text += acc_init(op["words"], op["dmem"], soc_dir)
    return text


def boot_script(soc_dir: Path, release: bool = True) -> bytes:
    """The host's bridge commands after loading: clear boot_hold (one write, no reply);
    release=False writes 1 instead (the CPU must then never run)."""
    from soc.bridge import CMD_WRITE, frame
    regs = json.loads((soc_dir / "csr.json").read_text())["csr_registers"]
    if "boot_hold" not in regs:
        raise FlowError(f"{soc_dir / 'csr.json'} has no boot_hold register: not a silicon SoC build")
    cmd = frame(CMD_WRITE, regs["boot_hold"]["addr"], 1, [0 if release else 1])
    return struct.pack("<HH", len(cmd), 0) + cmd


def divisors(soc_dir: Path) -> tuple[int, int]:
    """(console, bridge) cycles per bit, from the SoC's exported constants."""
    c = json.loads((soc_dir / "csr.json").read_text())["constants"]
    f = c["config_clock_frequency"]
    return round(f / c["uart_baudrate"]), round(f / c["bringup_uart_baudrate"])


SILICON_FIRMWARE_DIR = BUILD / "firmware" / "silicon"


def firmware_dir(block: str = "soc") -> Path:
    return SILICON_FIRMWARE_DIR if block == "soc" else BUILD / "firmware" / f"silicon-{_block(block).name}"


def silicon_headers(block: str = "soc") -> Path:
    """The silicon SoC build folder with its generated headers, emitted first where missing or
    where its boot RAM / main SRAM are not soc/target.py's SILICON_* (a build from before a
    change of the memory plan: firmware linked against it would check the wrong sizes)."""
    from soc.target import SILICON_ROM_SIZE, SILICON_SRAM_SIZE
    soc_dir = silicon_dir(block)
    csr = soc_dir / "csr.json"
    mem = json.loads(csr.read_text())["memories"] if csr.is_file() else {}
    if {k: mem.get(k, {}).get("size") for k in ("rom", "sram")} != \
            {"rom": SILICON_ROM_SIZE, "sram": SILICON_SRAM_SIZE}:
        _block(block).emit_rtl()
    return soc_dir


def firmware(names=SOC_PROGRAMS, block: str = "soc") -> list[Path]:
    """The programs built against the silicon SoC's headers (`pqsoc soc firmware --silicon`)."""
    from firmware.build import build
    return [build(n, silicon_headers(block), firmware_dir(block)) for n in names]


def run(exe: Path, fw: Path, run_dir: Path, max_cycles: int = MAX_CYCLES, timeout_s: float = 3600,
        seed: int | None = None, echo=None, release: bool = True, block: str = "soc"):
    """One firmware run on a built model; returns sim.run.Result, judged as `pqsoc sim run`
    judges (result lines, summary, traps, limits)."""
    run_mod = _sim()
    soc_dir = silicon_dir(block)
    run_dir.mkdir(parents=True, exist_ok=True)
    (run_dir / "sram.init").write_text(preload_text(fw.stem, fw, soc_dir))
    (run_dir / "bridge.in").write_bytes(boot_script(soc_dir, release))
    uart_div, bridge_div = divisors(soc_dir)
    cmd = [str(exe), "--max-cycles", str(max_cycles), "--timeout-s", str(timeout_s),
           "--uart-div", str(uart_div), "--bridge-div", str(bridge_div),
           "--bridge-in", "bridge.in", "--sram-init", "sram.init"]
    if seed is not None:
        cmd += ["+verilator+rand+reset+2", f"+verilator+seed+{seed}"]
    return run_mod._Model(cmd, run_dir, timeout_s, echo).finish(max_cycles, fw)


def _figures(res) -> dict:
    figs = {f"{t['test']}": t["cycles"] for t in res.tests}
    figs["run_total"] = res.cycles
    return figs


def _models(log, block: str, programs) -> tuple:
    manifest, gl_exe, gl_build = gl_model(log, block)   # first: refuse a stale netlist before any work
    rtl_exe, rtl_build_s = rtl_model(log, block)
    return manifest, gl_exe, gl_build, rtl_exe, rtl_build_s, firmware(programs, block)


def prepare_soc(log=print, block: str = "soc") -> None:
    """What every gate-level run of the block shares (`pqsoc campaign gls`): the netlist's and the
    RTL's models and the firmware, built once."""
    with locks.exclusive(BUILD / "gls" / block):
        _models(log, block, SOC_BLOCKS[_block(block).name])


def gls_soc(seeds=SOC_SEEDS, programs=None, log=print, block: str = "soc") -> dict:
    """`pqsoc gls soc` (or soc_acc32k): each program on the RTL, then on the netlist with each
    random initial state; all tests must pass and every cycle count must equal the RTL's."""
    programs = tuple(programs or SOC_BLOCKS[_block(block).name])
    out = BUILD / "gls" / block / "runs"
    refs = {}
    # the models, the firmware and the RTL runs under the block's lock: a campaign's tasks (one
    # per seed) share them; each gate-level run has a folder of its own
    with locks.exclusive(BUILD / "gls" / block):
        manifest, gl_exe, gl_build, rtl_exe, rtl_build_s, fws = _models(log, block, programs)
        for name, fw in zip(programs, fws):
            log(f"[gls] {block}: {name} on the RTL")
            refs[name] = ref = run(rtl_exe, fw, out / name / "rtl", block=block)
            if not ref.ok:
                raise FlowError(f"{block} RTL: {name} failed: " + "; ".join(ref.problems))
    table, speed = {}, {}
    for name, fw in zip(programs, fws):
        ref = refs[name]
        for seed in seeds:
            log(f"[gls] {block}: {name} at gate level, random initial state seed {seed}")
            t0 = time.monotonic()
            res = run(gl_exe, fw, out / name / f"gls-{seed}", seed=seed, block=block)
            if not res.ok:
                raise FlowError(f"{block} gate level (seed {seed}): {name} failed: " + "; ".join(res.problems))
            compare_cycles(f"{block} {name}", _figures(ref), _figures(res), seed)
            if seed == seeds[0]:
                table[name] = {k: {"rtl": v, "gls": _figures(res)[k]} for k, v in _figures(ref).items()}
            speed.setdefault(name, {"cycles": res.cycles, "cpu_s": round(res.cpu_s, 1),
                                    "cycles_per_cpu_s": round(res.cycles_per_cpu_s),
                                    "wall_s": round(time.monotonic() - t0, 1)})
            log(f"[gls] {block}: {name}: {len(res.tests)} tests pass, cycles equal to the RTL "
                f"({res.cycles} cycles, {res.cycles_per_cpu_s:.0f} cycles per CPU-second)")
        for k, v in table[name].items():
            log(f"[gls] {block}: {name}: {k}: RTL {v['rtl']}, gate level {v['gls']}")
    return {"block": block, "netlist_sha256": manifest["netlist_sha256"], "seeds": list(seeds),
            "top": ("silicon SoC netlist (SRAM macros: cycle models, boot RAM loaded after the power-on reset, "
                    "boot_hold cleared over the UART bridge; sim/silicon_harness.cpp)"),
            "programs": list(programs), "cycles": table, "speed": speed,
            "build": {"gate_level": gl_build, "gate_level_compiler": vl.GL_CXX,
                      "rtl_build_s": round(rtl_build_s, 1), "cached": gl_build["verilator_s"] == 0}}
