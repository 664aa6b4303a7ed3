"""`pqsoc gls BLOCK`: gate-level simulation of the netlist that `pqsoc synth` produced and STA measured.

The netlist is built with Verilator, each cell replaced by the function Yosys reads from the PDK's
tt Liberty (Verilator rejects the PDK's UDP-based Verilog models); the clock gates, which have
no Liberty function, get hand models (`clock_gate_models`); other cells without one are refused
by name. The block's cocotb test module runs
on the RTL and on the netlist; the netlist runs with several random initial states
(`--x-initial unique`, a different `+verilator+seed` each), so behaviour that depends on
uninitialised flops shows up. Every test must pass and every cycle count must equal the RTL's.
"""
import re
import subprocess
import sys
from pathlib import Path

from .. import BUILD, FlowError
from .. import blocks as blocks_mod
from ..pdk import SCL, find_pdk
from .synth import load_manifest, run_yosys, synth_dir
from .vsim import run_cocotb

X_ARGS = ["--x-assign", "unique", "--x-initial", "unique"]

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


def flat_netlist(netlist: Path, top: str, pdk, out: Path) -> Path:
    """The netlist with every cell replaced by its Liberty function, flattened into one module.

    Same logic as instantiating per-cell models, but Verilator (with cocotb's --public-flat-rw)
    then sees one module instead of 13 k cell scopes, which cut a 14-minute build to about one.
    Cached next to the netlist's hash.
    """
    flat = out / "netlist_flat.v"
    if flat.is_file():
        return flat
    out.mkdir(parents=True, exist_ok=True)
    script = out / "flatten.ys"
    hand = write_cell_models(out / "cell_models.v")
    script.write_text(f"read_liberty -ignore_miss_func -ignore_miss_dir {pdk.liberty('tt')}\n"
                      f"read_verilog -overwrite {hand}\n"
                      f"read_verilog {netlist}\n"
                      f"hierarchy -check -top {top}\n"
                      "flatten\n"
                      "opt_clean -purge\n"
                      f"write_verilog -noattr {flat}.tmp\n")
    run_yosys(script, out / "flatten.log", "gate-level model generation")
    Path(f"{flat}.tmp").replace(flat)
    return flat


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
    block = blocks_mod.get(name)
    pdk = find_pdk()
    manifest = load_manifest(name, check_rtl=True)
    netlist = synth_dir(name) / "netlist.v"
    check_cells(netlist, pdk)
    build_dir = BUILD / "vsim" / name / f"gls-{manifest['netlist_sha256'][:12]}"
    flat = flat_netlist(netlist, block.top, pdk, build_dir)
    print(f"[gls] {name}: RTL run", flush=True)
    ref = rtl(name)
    if ref.failed or not ref.tests:
        raise FlowError(f"{name}: RTL simulation failed ({ref.failed}/{ref.tests}); log: {ref.log}")
    runs = {}
    for seed in seeds:
        print(f"[gls] {name}: gate-level run, random initial state seed {seed}", flush=True)
        res = run_cocotb(sources=[flat], top=block.top, test_module=_test_module(block),
                         build_dir=build_dir, build_args=X_ARGS, seed=seed,
                         plusargs=["+verilator+rand+reset+2", f"+verilator+seed+{seed}"],
                         label=f"{name} gate level")
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
