# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""Synthesis of a block to sky130_fd_sc_hd with Yosys (pyosys), after OpenLane's own recipe.

Steps: read Liberty (cells and SRAM macros as black boxes) -> read the block's Verilog ->
`synth -flatten -noabc` -> `dfflibmap` -> `abc` with the target period and a script that buffers and
sizes -> constants to tie cells -> clean -> check that only Liberty cells remain -> area/stat.
Modules a block names in `keep_hierarchy` are not flattened: each stays one module of the netlist
and ABC maps it on its own; cells and area are the totals over the hierarchy.
Outputs go to build/synth/<block>/: netlist.v, stat.json, yosys.log, synth.json (hashes of the
RTL and netlist, so later steps can refuse a stale netlist).
"""
import dataclasses
import fnmatch
import hashlib
import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

from pqsoc import BUILD, REPO, FlowError
from pqsoc.flow import block as blocks_mod
from pqsoc.flow.pdk import SCL, find_pdk
from pqsoc.flow import fanout, locks

# The project's synthesis exclusion list (OpenLane's SYNTH_EXCLUDED_CELL_FILE in pnr/*/config.json)
SYNTH_EXCLUDE_CELLS = REPO / "pnr" / f"{SCL}.synth_exclude.cells"

# ABC script: map with delay target, then buffer high-fanout nets and size gates. Yosys' default
# `abc -D` script maps with &nf and leaves fanout unbuffered (a 1600-flop Keccak had one nor2
# driving 5 pF), which makes STA meaningless.
# No `dc2` here and `synth -noabc` before: both rewrite Yosys' Brent-Kung carry trees into
# ripple chains (area-oriented), which &nf cannot undo (measured: a registered 64-bit add took
# 14.8 ns at tt with them, 4.2 ns without).
# &fraig's conflict limit (default 10^6 per node) is bounded: on the ACC's wide ALU, SAT sweeping
# tried to prove candidate constants through the multiplier trees for over 40 minutes; with
# -C 1000 it takes 30 s (an unproved candidate is only left unmerged, never merged wrongly).
ABC_SCRIPT = """\
strash
&get -n
&fraig -x -C 1000
&put
scorr
strash
&get -n
&dch -f
&nf -D {period_ps}
&put
buffer -N 12 -S 750.0
upsize -D {period_ps}
dnsize -D {period_ps}
stime -p
"""


# Techmap of Yosys' 1-bit $fa cells (from `extract_fa`) to the sky130 full adder; X is the carry
# (majority), Y the sum. As OpenLane's fa_map.v for sky130_fd_sc_hd.
FA_MAP = f"""\
(* techmap_celltype = "$fa" *)
module _pqsoc_fa (A, B, C, X, Y);
  parameter WIDTH = 1;
  input [WIDTH-1:0] A, B, C;
  output [WIDTH-1:0] X, Y;
  wire _TECHMAP_FAIL_ = WIDTH > 1;
  {SCL}__fa_1 fa (.A(A), .B(B), .CIN(C), .COUT(X), .SUM(Y));
endmodule
"""


def sha256_files(paths) -> str:
    h = hashlib.sha256()
    for p in sorted(Path(p) for p in paths):
        h.update(p.name.encode())
        h.update(p.read_bytes())
    return h.hexdigest()


def synth_dir(name: str) -> Path:
    return BUILD / "synth" / name


def read_cell_list(path: Path) -> list[str]:
    """An OpenLane cell list file: one name or wildcard per line, `#` starts a comment."""
    if not path.is_file():
        raise FlowError(f"cell list missing: {path}")
    return [ln.split("#", 1)[0].strip() for ln in path.read_text().splitlines()
            if ln.split("#", 1)[0].strip()]


def dont_use_cells(pdk) -> list[str]:
    """The Liberty cells synthesis may not use: the project's SYNTH_EXCLUDE_CELLS (wildcards)
    and the PDK's drc_exclude.cells, as OpenLane's synthesis excludes both lists."""
    lib = pdk.liberty("tt").read_text()
    names = re.findall(r"cell\s*\(\s*\"?(\w+)\"?\s*\)", lib)
    patterns = read_cell_list(SYNTH_EXCLUDE_CELLS) + read_cell_list(pdk.drc_exclude_file)
    return sorted(c for c in names if any(fnmatch.fnmatchcase(c, p) for p in patterns))


def excluded_cells_sha256(pdk) -> str:
    """Hash of the exclusion list as applied, so a netlist made with another list is refused."""
    return hashlib.sha256("\n".join(dont_use_cells(pdk)).encode()).hexdigest()


def macro_pins(lib_text: str) -> set[str]:
    """Every pin and bus name of an SRAM macro's Liberty (signal and power)."""
    return set(re.findall(r"^\s*(?:pin|bus|pg_pin)\s*\(\s*\"?(\w+)", lib_text, re.M))


def repair_fanout(block, pdk, src: Path, dst: Path) -> int:
    """Fanout repair (fanout.py) of the mapped netlist. SRAM macro pins are neither loads nor
    drivers to it: Yosys connects macro buses as whole vectors (`.addr0(addr[8:0])`), which the
    per-bit rewiring cannot split, so macro instances are left untouched (each macro adds one
    load per address/data bit, not counted; a net is buffered only for its standard-cell loads).
    Then drivers are upsized for the loads they really drive (fanout.upsize)."""
    outputs = fanout.liberty_output_pins(pdk.liberty("tt").read_text())
    for m in block.macros:
        outputs[m] = macro_pins(pdk.sram(m, "lib").read_text())
    lib = fanout.CellLib(pdk.liberty("tt").read_text(), dont_use_cells(pdk))
    text = src.read_text()
    # One module at a time (a block with kept hierarchy has several); an instance of a kept
    # module is left alone in its parent like a macro, and its clock ports stay unbuffered.
    mods = fanout.split_modules(text)
    for name, s, e in mods:
        if name != block.top:
            outputs[name] = set(fanout.module_ports(text[s:e]))
    clocks = fanout.clock_nets(text, block.top, block.clock)
    out, pos, n, nup = [], 0, 0, 0
    for name, s, e in mods:
        body, _ = fanout.collapse_buffers(text[s:e])
        body, nb = fanout.repair(body, outputs, clocks.get(name) or {block.clock})
        body, nu = fanout.upsize(body, lib)
        out += [text[pos:s], body]
        pos, n, nup = e, n + nb, nup + nu
    out.append(text[pos:])
    print(f"[synth] {block.name}: upsized {nup} drivers beyond {fanout.LOAD_FRACTION:g} x "
          f"their max_capacitance", flush=True)
    dst.write_text("".join(out))
    return n


def check_hierarchy(block, netlist: Path) -> None:
    """The mapped netlist holds the top and exactly the modules the block keeps: a kept module
    that is not in the design (misspelt, or renamed by a frontend) would silently be flattened."""
    names = [m[0] for m in fanout.split_modules(netlist.read_text())]
    missing = sorted(set(block.keep_hierarchy) - set(names))
    if missing:
        raise FlowError(f"{block.name}: keep_hierarchy names modules that are not in the netlist: "
                        f"{', '.join(missing)} (modules: {', '.join(names)})")
    extra = sorted(set(names) - set(block.keep_hierarchy) - {block.top})
    if extra:
        raise FlowError(f"{block.name}: modules left unflattened: {', '.join(extra)}")


def yosys_script(block, rtl: list[Path], pdk, period_ns: float, out: Path) -> str:
    lib = pdk.liberty("tt")
    period_ps = int(round(period_ns * 1000))
    script = ABC_SCRIPT if block.abc_dch else ABC_SCRIPT.replace("&dch -f\n", "")
    (out / "abc.script").write_text(script.format(period_ps=period_ps))
    dont_use = " ".join(f"-dont_use {c}" for c in dont_use_cells(pdk))
    lines = [f"read_liberty -lib {lib}"]
    for macro in block.macros:
        lines.append(f"read_liberty -lib {pdk.sram(macro, 'lib')}")
    if block.yosys_read is not None:
        lines += block.yosys_read(rtl)
    else:
        lines += [f"read_verilog -sv {f}" for f in rtl]
    lines += [
        f"hierarchy -check -top {block.top}",
        # kept modules are not flattened: `synth -flatten` flattens the rest, ABC maps per module
        *(f"setattr -mod -set keep_hierarchy 1 {m}" for m in block.keep_hierarchy),
        f"synth -flatten -noabc -top {block.top}",
    ]
    if block.full_adders:
        (out / "fa_map.v").write_text(FA_MAP)
        # before the purge, while the RTL's wire names (which a selection may name) are there
        lines += [f"extract_fa -fa {block.full_adders}", f"techmap -map {out / 'fa_map.v'}"]
    lines += [
        "opt_clean -purge",
        f"dfflibmap -liberty {lib} {dont_use}",
        "opt_clean",
        f"abc -D {period_ps} -liberty {lib} -script {out / 'abc.script'} {dont_use}",
        "setundef -zero",
        f"hilomap -singleton -hicell {SCL}__conb_1 HI -locell {SCL}__conb_1 LO",
        "opt_clean -purge",
        # -simple-lhs: OpenSTA 2019 cannot read `assign {a, b} = ...` (concatenated left sides).
        f"write_verilog -noattr -noexpr -nohex -nodec -simple-lhs {out / 'netlist.unbuffered.v'}",
    ]
    return "\n".join(lines) + "\n"


def stat_script(block, pdk, out: Path) -> str:
    """Second Yosys run on the final (fanout-repaired) netlist: check it and measure it."""
    libs = [pdk.liberty("tt")] + [pdk.sram(m, "lib") for m in block.macros]
    lines = [f"read_liberty -lib {p}" for p in libs]
    lines += [
        f"read_verilog {out / 'netlist.v'}",
        # No -check: a cell that is not in the Liberty must reach check_mapped(), which names it.
        f"hierarchy -top {block.top}",
        f"tee -q -o {out / 'stat.json'} stat -json" + "".join(f" -liberty {p}" for p in libs),
        f"tee -o {out / 'check.txt'} check -assert",
    ]
    return "\n".join(lines) + "\n"


def run_yosys(script_path: Path, log_path: Path, what: str) -> None:
    """Run a Yosys script in a subprocess; on failure name the step and the Yosys error."""
    with open(log_path, "w") as log:
        r = subprocess.run([sys.executable, "-m", "pqsoc.flow.yosys_run", str(script_path)],
                           stdout=log, stderr=subprocess.STDOUT)
    text = log_path.read_text(errors="replace")
    if r.returncode != 0 or "@@done" not in text:
        steps = re.findall(r"^@@step \d+: (.*)$", text, re.M)
        step = steps[-1] if steps else "(start-up)"
        errs = [ln for ln in text.splitlines() if ln.startswith("ERROR") or "ERROR:" in ln]
        detail = errs[-1] if errs else text.strip().splitlines()[-1] if text.strip() else "no output"
        raise FlowError(f"{what}: Yosys failed at `{step[:120]}`: {detail.strip()} (log: {log_path})")


def design_totals(stat: dict, keep=()) -> tuple[int, float, dict[str, int]]:
    """(cells, area, cells by type) of the whole design from `stat -json` of a netlist whose
    top is set: Yosys counts a kept module's cells once per instance and its area in its
    parent's, but also lists each instance of a kept module as a cell of that module's type;
    those instances are dropped here (they are not cells), and the cells are the sum by type."""
    design = stat.get("design", {})
    by_type = dict(design.get("num_cells_by_type", {}))
    for m in keep:
        by_type.pop(m, None)
    return sum(by_type.values()), design.get("area", 0.0), by_type


def rtl_cell_instances(rtl: list[Path]) -> set[str]:
    """Library cells the RTL instantiates by name (e.g. the ACC's clock gate): deliberate, so
    the exclusion list (which only governs what synthesis may infer) does not apply to them."""
    names = set()
    for p in rtl:
        names |= set(re.findall(rf"^\s*({SCL}__\w+)\s", p.read_text(), re.M))
    return names


def check_mapped(stat: dict, pdk, macros, keep=(), rtl_cells=frozenset()) -> None:
    """Every cell left must be a Liberty cell of the library or a declared macro, and none may
    be an excluded cell that the RTL does not instantiate itself (a map file or a flow step
    could put one in)."""
    cells = design_totals(stat, keep)[2]
    bad = sorted(c for c in cells if not (c.startswith(f"{SCL}__") or c in macros))
    if bad:
        raise FlowError(f"unmapped cells after synthesis: {', '.join(bad)}")
    excluded = sorted((set(cells) - set(rtl_cells)) & set(dont_use_cells(pdk)))
    if excluded:
        raise FlowError(f"excluded cells in the netlist ({SYNTH_EXCLUDE_CELLS.name} or the PDK's "
                        f"drc_exclude.cells): {', '.join(excluded)}")


def synth(name: str, period_ns: float | None = None, out: Path | None = None,
          abc_dch: bool | None = None) -> dict:
    """Synthesize block NAME into OUT (default build/synth/NAME, which the flow's later steps
    read); period_ns and abc_dch override the block's (a PPA sweep's point, in a folder of its own)."""
    out = Path(out) if out is not None else synth_dir(name)
    with locks.exclusive(out):   # a second synthesis of the folder would delete the first's netlist
        return _synth(name, period_ns, out, abc_dch)


def _synth(name: str, period_ns: float | None, out: Path, abc_dch: bool | None) -> dict:
    block = blocks_mod.get(name)
    if abc_dch is not None:
        block = dataclasses.replace(block, abc_dch=abc_dch)
    pdk = find_pdk()
    period = period_ns or block.period_ns
    out.mkdir(parents=True, exist_ok=True)
    for stale in ("netlist.unbuffered.v", "netlist.v", "stat.json", "synth.json"):
        (out / stale).unlink(missing_ok=True)

    t0 = time.time()
    print(f"[synth] {name}: emitting Verilog", flush=True)
    rtl = block.emit_rtl()
    script = out / "synth.ys"
    script.write_text(yosys_script(block, rtl, pdk, period, out))
    print(f"[synth] {name}: Yosys at {period} ns (log: {out / 'yosys.log'})", flush=True)
    run_yosys(script, out / "yosys.log", f"synthesis of {name}")
    check_hierarchy(block, out / "netlist.unbuffered.v")
    nbuf = repair_fanout(block, pdk, out / "netlist.unbuffered.v", out / "netlist.v")
    print(f"[synth] {name}: fanout repair inserted {nbuf} buffers (max fanout {fanout.MAX_FANOUT})",
          flush=True)
    (out / "stat.ys").write_text(stat_script(block, pdk, out))
    try:
        run_yosys(out / "stat.ys", out / "yosys_stat.log", f"netlist check of {name}")
    finally:
        # An unmapped cell also fails `check -assert`; name it rather than the generic failure.
        if (out / "stat.json").is_file():
            check_mapped(json.loads((out / "stat.json").read_text()), pdk, block.macros,
                         block.keep_hierarchy, rtl_cell_instances(rtl))
    stat = json.loads((out / "stat.json").read_text())
    cells, area, by_type = design_totals(stat, block.keep_hierarchy)
    netlist = out / "netlist.v"
    manifest = {
        "block": name,
        "top": block.top,
        "period_ns": period,
        "abc_dch": block.abc_dch,
        # files outside build/ (the Ibex sources of the soc) by their full path
        "rtl": [str(p.relative_to(BUILD)) if p.is_relative_to(BUILD) else str(p) for p in rtl],
        "rtl_sha256": sha256_files(rtl),
        "netlist_sha256": sha256_files([netlist]),
        "excluded_cells_sha256": excluded_cells_sha256(pdk),
        "cells": cells,
        "area_um2": area,
        "cells_by_type": by_type,
        "fanout_buffers": nbuf,
        # per kept module: instances, and of one instance its own cells (Yosys' per-module count:
        # without kept modules inside it) and its area (with them)
        **({"kept_modules": {m: {"instances": stat["design"]["num_cells_by_type"].get(m, 0),
                                 "cells": stat["modules"][f"\\{m}"]["num_cells"],
                                 "area_um2": stat["modules"][f"\\{m}"].get("area", 0.0)}
                             for m in block.keep_hierarchy}} if block.keep_hierarchy else {}),
        "seconds": round(time.time() - t0, 1),
    }
    (out / "synth.json").write_text(json.dumps(manifest, indent=2) + "\n")
    print(f"[synth] {name}: {manifest['cells']} cells, {manifest['area_um2']:.0f} um2 "
          f"({manifest['seconds']} s)", flush=True)
    return manifest


def load_manifest(name: str, check_rtl: bool = False, out: Path | None = None) -> dict:
    """The synthesis manifest of a block (in OUT, default build/synth/NAME), refusing a missing
    or stale netlist.

    With check_rtl, the block's Verilog is emitted again and must hash to what was synthesized.
    """
    out = Path(out) if out is not None else synth_dir(name)
    mf = out / "synth.json"
    netlist = out / "netlist.v"
    if not mf.is_file() or not netlist.is_file():
        raise FlowError(f"no netlist for {name}: run `pqsoc synth {name}` first")
    manifest = json.loads(mf.read_text())
    if sha256_files([netlist]) != manifest["netlist_sha256"]:
        raise FlowError(f"netlist of {name} does not match its synthesis manifest (edited or stale): "
                        f"run `pqsoc synth {name}` again")
    if manifest.get("excluded_cells_sha256") != excluded_cells_sha256(find_pdk()):
        raise FlowError(f"netlist of {name} was mapped with another list of excluded cells "
                        f"({SYNTH_EXCLUDE_CELLS.name} or the PDK's drc_exclude.cells); run "
                        f"`pqsoc synth {name}` again")
    if check_rtl:
        check_rtl_current(blocks_mod.get(name), manifest, out)
    return manifest


def check_rtl_current(block, manifest: dict, out: Path) -> None:
    """Refuse a netlist whose block's RTL, emitted again, differs from what was synthesized.

    A block with an emit_key skips the emission when the key, the manifest's RTL hash and the
    emitted files are as the last passed check (OUT/rtl_check.json) recorded them."""
    stamp = out / "rtl_check.json"
    key = block.emit_key() if block.emit_key is not None else None
    files = [BUILD / p for p in manifest.get("rtl", [])]      # a manifest without the list: emit
    record = {"emit_key": key, "rtl_sha256": manifest["rtl_sha256"]}
    if key is not None and files and stamp.is_file() and json.loads(stamp.read_text()) == record \
            and all(p.is_file() for p in files) and sha256_files(files) == manifest["rtl_sha256"]:
        return
    if sha256_files(block.emit_rtl()) != manifest["rtl_sha256"]:
        raise FlowError(f"netlist of {block.name} is stale: its RTL changed since synthesis; "
                        f"run `pqsoc synth {block.name}` again")
    if key is not None:     # whole or not at all: a campaign's tasks check at once
        tmp = stamp.with_name(f"{stamp.name}.{os.getpid()}")
        tmp.write_text(json.dumps(record) + "\n")
        tmp.replace(stamp)
