# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""`pqsoc gls BLOCK`: gate-level simulation of the netlist that `pqsoc synth` produced and STA measured.

The netlist is built with Verilator, each cell replaced by the function Yosys reads from the PDK's
tt Liberty (Verilator rejects the PDK's UDP-based Verilog models); the clock gates, which have
no Liberty function, get hand models (`clock_gate_models`); other cells without one are refused
by name. The block's cocotb test module runs
on the RTL and on the netlist; the netlist runs with several random initial states
(`--x-initial unique`, a different `+verilator+seed` each; pqsoc.flow.verilator.X_RANDOM), so
behaviour that depends on uninitialised flops shows up. Models are compiled with clang
(pqsoc.flow.verilator.GL_CXX). Every test must pass and every cycle count must equal the RTL's.

A block that a cocotb test cannot drive hands the flow its own run instead (Block.gls): the ACC's
netlist runs the kernels and random programs in lockstep with the ISS (ip/acc/dv/gls.py), the
silicon SoC's runs firmware at its pins (sim/silicon.py). This module keeps what they share:
cell models, flattening, SRAM macro cycle models, the cycle comparison.
"""
import re
from pathlib import Path

from pqsoc import BUILD, FlowError, write_if_changed
from pqsoc.flow import block as blocks_mod
from pqsoc.flow import locks
from pqsoc.flow.pdk import SCL, find_pdk
from pqsoc.flow.synth import load_manifest, run_yosys, synth_dir
from pqsoc.flow.verilator import GL_CXX, X_RANDOM, gl_cxx, run_cocotb

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
    text = "`verilator_config\n" + "".join(f'public_flat_rw -module "{top}" -var "{n}"\n' for n in names)
    # rewritten only when it changes: Verilator reruns (and the model is compiled again) when an
    # input file is newer, and a campaign's tasks each ask for this file
    write_if_changed(path, text)
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


def rtl(name: str, build_only: bool = False):
    block = blocks_mod.get(name)
    rtl_build = BUILD / "vsim" / name / "rtl"
    return run_cocotb(sources=block.emit_rtl(), top=block.top, test_module=_test_module(block),
                      build_dir=rtl_build, label=f"{name} RTL", build_only=build_only)


def _netlist_model(name: str, log=print):
    """(block, manifest, flat netlist, public-ports file, build folder) of a cocotb-tested block's
    netlist; refused when stale. Under the block's lock: tasks of one campaign share the folder."""
    block = blocks_mod.get(name)
    pdk = find_pdk()
    gl_cxx()
    manifest = load_manifest(name, check_rtl=True)
    netlist = synth_dir(name) / "netlist.v"
    check_cells(netlist, pdk)
    build_dir = BUILD / "vsim" / name / f"gls-{manifest['netlist_sha256'][:12]}"
    with locks.exclusive(BUILD / "vsim" / name):
        flat = flat_netlist(netlist, block.top, pdk, build_dir, log=log)
        ports = public_ports_config(flat, block.top, build_dir / "public_ports.vlt")
    return block, manifest, flat, ports, build_dir


def _gate_level(block, flat, ports, build_dir, seed: int, build_only: bool = False):
    return run_cocotb(sources=[flat], top=block.top, test_module=_test_module(block),
                      build_dir=build_dir, build_args=X_RANDOM + ["--no-public-flat-rw", str(ports)],
                      seed=seed, plusargs=["+verilator+rand+reset+2", f"+verilator+seed+{seed}"],
                      label=f"{block.name} gate level", cxx=GL_CXX, build_only=build_only)


def prepare(name: str, log=print) -> None:
    """Build what every gate-level run of block NAME shares (netlist model, RTL model, firmware),
    once, before a campaign's tasks start (`pqsoc campaign gls`): a task then only runs."""
    block = blocks_mod.get(name)
    if block.gls is not None:
        if block.gls_prepare is not None:
            block.gls_prepare(log=log)
        return
    _test_module(block)
    blk, _, flat, ports, build_dir = _netlist_model(name, log)
    log(f"[gls] {name}: building the RTL's and the gate-level models once for every task")
    rtl(name, build_only=True)
    _gate_level(blk, flat, ports, build_dir, seed=1, build_only=True)


def gls(name: str, seeds=(1, 2, 3)) -> dict:
    block = blocks_mod.get(name)
    if block.gls is not None:        # the block's own gate-level run (Block.gls)
        return block.gls(seeds=tuple(seeds))
    _, manifest, flat, ports, build_dir = _netlist_model(name, log=lambda m: print(m, flush=True))
    return rtl_against_seeds(name, manifest, lambda: rtl(name),
                             lambda seed: _gate_level(block, flat, ports, build_dir, seed), seeds)


def rtl_against_seeds(name: str, manifest: dict, rtl_run, gate_level_run, seeds) -> dict:
    """The RTL run (rtl_run() -> SimResult), then a gate-level run per random initial state
    (gate_level_run(seed) -> SimResult): every one must pass and measure the RTL's figures.
    Returns the block's report entry."""
    print(f"[gls] {name}: RTL run", flush=True)
    ref = rtl_run()
    if ref.failed or not ref.tests:
        raise FlowError(f"{name}: RTL simulation failed ({ref.failed}/{ref.tests}); log: {ref.log}")
    runs = {}
    for seed in seeds:
        print(f"[gls] {name}: gate-level run, random initial state seed {seed}", flush=True)
        res = gate_level_run(seed)
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


def sram_cycle_model(macro: str, words: int, bits: int, gran: int) -> str:
    """A cycle model of an OpenRAM 1rw1r macro with the PDK model's ports and sampled behaviour.

    The PDK's behavioural model registers the inputs at the rising clock edge, blanks dout to 'x
    1 time unit later and drives mem[addr] at the falling edge + 3 (writes also happen at the
    falling edge), so what a flop sees at the next rising edge is: mem[addr] after a read cycle
    (csb low, web high), 'x after any other cycle. Its `#` delays need Verilator's --timing and a
    time-advancing driver; this model gives the same values at every rising edge without delays,
    with a random word for 'x. ip/acc/tests/test_gls.py checks it against the PDK model (Icarus)."""
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


def write_sram_models(macros, geometry: dict, path: Path) -> Path:
    """Cycle models of `macros`; geometry: {macro: (words, bits, write granularity)}."""
    unknown = [m for m in macros if m not in geometry]
    if unknown:
        raise FlowError(f"no simulation model for SRAM macro {', '.join(unknown)}")
    text = SRAM_PRELOAD_IMPORTS + "".join(sram_cycle_model(m, *geometry[m]) for m in macros)
    write_if_changed(path, text)
    return path


def check_macros(netlist: Path, macros) -> None:
    """Every non-standard-cell instance of the netlist must be a macro we have a model for."""
    used = set(re.findall(r"^\s*(sky130_sram_\w+)\s", netlist.read_text(), re.M))
    unmodelled = sorted(used - set(macros))
    if unmodelled:
        raise FlowError(f"netlist uses macros without a simulation model: {', '.join(unmodelled)}")


