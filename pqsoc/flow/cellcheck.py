# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""Cross-check of the gate-level cell models against the PDK's own Verilog models, in Icarus.

`pqsoc gls` simulates netlists with cell models that Yosys writes from the tt Liberty
(`read_liberty` + `write_verilog`; see gls.py). This module checks those models: the same
netlist is simulated twice with Icarus Verilog under the same random stimulus, once with the
Yosys-generated models (or any model file given) and once with the PDK's own models
(`sky130_fd_sc_hd.v` + `primitives.v`, UDP based, compiled with -DFUNCTIONAL -DUNIT_DELAY=#1),
and every output is compared every cycle.

The PDK file of this open_pdks build has one line `` `endif SKY130_..._V `` whose macro name is
not commented out; Icarus rejects it. `pdk_models` writes a fixed copy under build/ (the PDK
itself is read-only and never copied into the repository).

Keep designs small: Icarus is slow when cell pins connect to single bits of wide ports.
"""
import hashlib
import random
import re
import shutil
import subprocess
from pathlib import Path

from pqsoc import BUILD, FlowError
from pqsoc.flow.pdk import SCL, find_pdk
from pqsoc.flow.fanout import split_modules
from pqsoc.flow.synth import run_yosys

CELLCHECK = BUILD / "cellcheck"
HALF_PERIOD = 100        # time units; with UNIT_DELAY=#1 a path of up to ~90 cells settles in time
ENDIF_WITH_TEXT = re.compile(r"^(\s*`endif)[ \t]+(?!//)(\S.*)$", re.M)


def _tool(name: str) -> str:
    path = shutil.which(name)
    if not path:
        raise FlowError(f"cell cross-check needs Icarus Verilog: `{name}` not found on PATH "
                        f"(install the `iverilog` package)")
    return path


def pdk_models(pdk=None, out: Path | None = None) -> list[Path]:
    """The PDK's cell Verilog (fixed copy under build/) and its primitives.v, for Icarus."""
    pdk = pdk or find_pdk()
    src = pdk.cell_verilog
    prims = src.parent / "primitives.v"
    for p in (src, prims):
        if not p.is_file():
            raise FlowError(f"PDK: cell Verilog model missing: {p} (a full open_pdks install has "
                            f"libs.ref/{SCL}/verilog/)")
    text = src.read_text(errors="replace")
    fixed_text, n = ENDIF_WITH_TEXT.subn(r"\1 // \2", text)
    digest = hashlib.sha256(fixed_text.encode()).hexdigest()[:12]
    out = out or CELLCHECK / "pdk"
    fixed = out / f"{SCL}.{digest}.v"
    if not fixed.is_file():
        out.mkdir(parents=True, exist_ok=True)
        tmp = fixed.with_suffix(".tmp")
        tmp.write_text(f"// Copy of {src} with {n} `endif line(s) fixed by pqsoc.flow.cellcheck\n"
                       + fixed_text)
        tmp.replace(fixed)
    return [fixed, prims]


def netlist_cells(netlist: Path) -> list[str]:
    """Distinct PDK cell types instantiated in a netlist."""
    return sorted(set(re.findall(rf"^\s*({SCL}__\w+)\s", Path(netlist).read_text(), re.M)))


def yosys_models(netlist: Path, top: str, out: Path, pdk=None) -> Path:
    """Verilog models of the cells `netlist` uses, as Yosys writes them from the tt Liberty."""
    pdk = pdk or find_pdk()
    out.mkdir(parents=True, exist_ok=True)
    models = out / "yosys_models.v"
    script = out / "models.ys"
    # every module of the netlist goes (the top and any kept submodule: Block.keep_hierarchy),
    # the Liberty cells it uses stay
    own = " ".join(name for name, _, _ in split_modules(Path(netlist).read_text()))
    script.write_text(f"read_liberty -ignore_miss_func -ignore_miss_dir {pdk.liberty('tt')}\n"
                      f"read_verilog {netlist}\n"
                      f"hierarchy -check -top {top}\n"
                      f"delete {own or top}\n"
                      f"write_verilog -noattr {models}\n")
    run_yosys(script, out / "models.log", "cell model generation")
    return models


def ports(netlist: Path, top: str) -> list[tuple[str, str, int]]:
    """(direction, name, width) of the top module's ports, in declaration order."""
    text = Path(netlist).read_text()
    m = re.search(rf"^module\s+{re.escape(top)}\s*\((.*?)^endmodule", text, re.M | re.S)
    if not m:
        raise FlowError(f"{netlist}: no module {top}")
    res = []
    decl = r"(input|output)?\s*(?:wire\s+|reg\s+)?(?:\[(\d+):(\d+)\]\s*)?(\w+)"
    header = m.group(1).split(")", 1)[0]
    if re.search(r"\b(input|output)\b", header):          # ANSI style: module t(input [3:0] a, ...)
        d = width = None
        for item in header.split(","):
            im = re.fullmatch(rf"\s*{decl}\s*", item)
            if not im or not (im.group(1) or d):
                raise FlowError(f"{netlist}: cannot read port declaration {item.strip()!r} of {top}")
            if im.group(1):
                d, width = im.group(1), abs(int(im.group(2)) - int(im.group(3))) + 1 if im.group(2) else 1
            res.append((d, im.group(4), width))
    for d, msb, lsb, name in re.findall(rf"^\s*{decl}\s*;", m.group(1), re.M):
        if d:
            res.append((d, name, abs(int(msb) - int(lsb)) + 1 if msb else 1))
    if not any(d == "output" for d, _, _ in res):
        raise FlowError(f"{netlist}: module {top} has no outputs to compare")
    return res


def stimulus(inputs, cycles: int, seed: int, reset: str | None, reset_cycles: int) -> list[str]:
    """One line of 0/1 per cycle: all inputs concatenated in `inputs` order, MSB first."""
    rng = random.Random(seed)
    lines = []
    for c in range(cycles):
        bits = ""
        for name, w in inputs:
            if name == reset:
                v = 1 if c < reset_cycles else int(rng.random() < 1 / 32)
            else:
                v = rng.getrandbits(w)
            bits += format(v, f"0{w}b")
        lines.append(bits)
    return lines


def testbench(top: str, port_list, clock: str | None, cycles: int, stim: Path, trace: Path,
              input_phase: str = "low") -> str:
    """Inputs change while the clock is low (or, input_phase="high", in the middle of its high
    phase, which exercises latches such as the clock gates'); outputs are written one time unit
    before each rising edge."""
    inputs = [(n, w) for d, n, w in port_list if d == "input" and n != clock]
    outputs = [(n, w) for d, n, w in port_list if d == "output"]
    width = sum(w for _, w in inputs)
    decl = lambda kind, n, w: f"  {kind} {f'[{w - 1}:0] ' if w > 1 else ''}{n};\n"
    tb = "`timescale 1ns/1ns\nmodule pqsoc_cellcheck_tb;\n"
    if clock:
        tb += f"  reg {clock} = 1'b0;\n"
    tb += "".join(decl("reg", n, w) for n, w in inputs)
    tb += "".join(decl("wire", n, w) for n, w in outputs)
    tb += f"  reg [{max(width, 1) - 1}:0] vec [0:{cycles - 1}];\n  integer i, f;\n"
    tb += f"  {top} dut ({', '.join(f'.{n}({n})' for _, n, _ in port_list)});\n"
    tb += "  initial begin\n"
    tb += f'    $readmemb("{stim}", vec);\n    f = $fopen("{trace}", "w");\n'
    tb += f"    for (i = 0; i < {cycles}; i = i + 1) begin\n"
    apply = f"      {{{', '.join(n for n, _ in inputs)}}} = vec[i];\n" if inputs else ""
    if input_phase == "low" or not clock:
        tb += apply
    tb += f"      #{HALF_PERIOD - 1};\n"
    fmt = " ".join("%b" for _ in outputs)
    tb += f'      $fdisplay(f, "{fmt}", {", ".join(n for n, _ in outputs)});\n'
    if clock and input_phase == "high":
        tb += (f"      #1 {clock} = 1'b1;\n      #{HALF_PERIOD // 2};\n{apply}"
               f"      #{HALF_PERIOD - HALF_PERIOD // 2} {clock} = 1'b0;\n")
    elif clock:
        tb += f"      #1 {clock} = 1'b1;\n      #{HALF_PERIOD} {clock} = 1'b0;\n"
    else:
        tb += f"      #{HALF_PERIOD + 1};\n"
    tb += "    end\n    $fclose(f);\n    $finish;\n  end\nendmodule\n"
    return tb


def simulate(sources: list[Path], out: Path, defines=(), label: str = "") -> None:
    """Compile with iverilog and run with vvp in `out`; FlowError with the log on failure."""
    iverilog, vvp = _tool("iverilog"), _tool("vvp")
    exe = out / "sim.vvp"
    cmd = [iverilog, "-g2005", "-s", "pqsoc_cellcheck_tb", "-o", str(exe),
           *(f"-D{d}" for d in defines), *map(str, sources)]
    r = subprocess.run(cmd, capture_output=True, text=True)
    (out / "iverilog.log").write_text(r.stdout + r.stderr)
    if r.returncode != 0:
        errs = [ln for ln in (r.stdout + r.stderr).splitlines() if "error" in ln.lower()]
        raise FlowError(f"cell cross-check ({label}): iverilog failed: "
                        f"{(errs or [(r.stdout + r.stderr).strip()[-300:]])[0]} (log: {out / 'iverilog.log'})")
    r = subprocess.run([vvp, "-n", str(exe)], capture_output=True, text=True, cwd=out)
    (out / "vvp.log").write_text(r.stdout + r.stderr)
    if r.returncode != 0:
        raise FlowError(f"cell cross-check ({label}): vvp failed (log: {out / 'vvp.log'})")


def crosscheck(netlist, top: str, cycles: int = 300, seed: int = 1, clock: str | None = "clk",
               reset: str | None = "rst", reset_cycles: int = 2, models: Path | None = None,
               out: Path | None = None, pdk=None, input_phase: str = "low") -> dict:
    """Simulate `netlist` with the Yosys cell models and with the PDK's models; outputs must agree.

    Inputs are random every cycle (the same in both runs); `reset` (if the module has that port)
    is held high for the first `reset_cycles` cycles and then pulsed rarely. Outputs are sampled
    just before each rising edge of `clock` (a purely combinational module may have none) and
    compared from cycle `reset_cycles` on; they must also be free of X/Z there, so that the check
    cannot pass on two equally unknown states. `models` replaces the Yosys-generated cell models
    (to test the check itself, or to check hand models). `input_phase="high"` changes the
    inputs while the clock is high instead of low. Returns cells, cycles compared, and the build folder.
    """
    netlist = Path(netlist)
    if input_phase not in ("low", "high"):
        raise FlowError(f"cell cross-check: input_phase must be low or high, not {input_phase!r}")
    _tool("iverilog"), _tool("vvp")
    if not netlist.is_file():
        raise FlowError(f"cell cross-check: no netlist {netlist}")
    pdk = pdk or find_pdk()
    out = Path(out or CELLCHECK / top)
    out.mkdir(parents=True, exist_ok=True)
    port_list = ports(netlist, top)
    names = {n for _, n, _ in port_list}
    clock = clock if clock in names else None
    reset = reset if reset in names else None
    skip = reset_cycles if reset else 0
    if cycles <= skip:
        raise FlowError(f"cell cross-check: {cycles} cycles leave none to compare after reset")
    inputs = [(n, w) for d, n, w in port_list if d == "input" and n != clock]
    stim = out / "stimulus.txt"
    stim.write_text("\n".join(stimulus(inputs, cycles, seed, reset, reset_cycles) or ["0"]) + "\n")
    traces = {}
    reference = pdk_models(pdk)
    cell_models = Path(models) if models else yosys_models(netlist, top, out, pdk)
    runs = {"yosys": ([cell_models], ()),
            "pdk": (reference, ("FUNCTIONAL", "UNIT_DELAY=#1"))}
    for label, (lib, defines) in runs.items():
        run_dir = out / label
        run_dir.mkdir(exist_ok=True)
        trace = run_dir / "trace.txt"
        trace.unlink(missing_ok=True)
        tbl = run_dir / "tb.v"
        tbl.write_text(testbench(top, port_list, clock, cycles, stim.resolve(), trace.resolve(),
                                 input_phase))
        simulate([tbl, netlist, *lib], run_dir, defines, label)
        if not trace.is_file():
            raise FlowError(f"cell cross-check ({label}): simulation wrote no trace ({run_dir})")
        traces[label] = trace.read_text().splitlines()
        if len(traces[label]) != cycles:
            raise FlowError(f"cell cross-check ({label}): {len(traces[label])} of {cycles} cycles traced")
    outputs = [n for d, n, _ in port_list if d == "output"]
    for c in range(skip, cycles):
        a, b = traces["yosys"][c].split(), traces["pdk"][c].split()
        for n, va, vb in zip(outputs, a, b):
            if va != vb:
                raise FlowError(f"cell cross-check of {top}: cell models differ at cycle {c}: "
                                f"{n} = {va} with the Yosys models, {vb} with the PDK models "
                                f"(seed {seed}; traces under {out})")
            if re.search(r"[xzXZ]", va):
                raise FlowError(f"cell cross-check of {top}: {n} = {va} is unknown at cycle {c} "
                                f"in both runs; nothing was checked (reset port: {reset})")
    return {"top": top, "cells": netlist_cells(netlist), "cycles": cycles - skip,
            "outputs": outputs, "seed": seed, "dir": str(out)}
