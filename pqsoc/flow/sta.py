# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""Static timing of a synthesized block with OpenSTA (Debian `sta`) at the tt and ss corners.

Constraints (written per block to build/sta/<block>/block.sdc):
- clock on the block's clock port at its target period, 0.25 ns uncertainty;
- inputs driven by sky130_fd_sc_hd__inv_2, outputs loaded with 33.4 fF (OpenLane's defaults),
  input and output delays of 20 % of the period (the block sits between other registers);
- interconnect: the Liberty "Small" wire-load model plus a late derate of 1.05 and an early
  derate of 0.95, a margin for placement and routing parasitics that synthesis cannot see.
fmax is computed from register-to-register paths: fmax = 1 / (period - slack_reg2reg).
I/O paths are reported separately (their slack depends on the assumed I/O delays).
The SRAM macros have only a TT Liberty (analytical timing); it is used at every corner.
Blocks with SRAM macros: reg2reg is flip-flop to flip-flop, and a mem2reg group times macro
outputs to flip-flops. The OpenRAM Liberty launches dout0 at the falling clock edge, so such a path
has half a period: its minimum period is period - 2 * slack, and fmax takes the worse of the two.

`sta` exits 0 even when a command failed: any line starting with "Error", or a slack that is
missing or unparsable, is a failure here.
"""
import json
import re
import shutil
import subprocess
from pathlib import Path

from pqsoc import BUILD, FlowError
from pqsoc.flow import block as blocks_mod
from pqsoc.flow.pdk import CORNERS, find_pdk
from pqsoc.flow.synth import load_manifest, synth_dir

STA_CORNERS = ("tt", "ss")
UNCERTAINTY_NS = 0.25
IO_DELAY_FRACTION = 0.2
DRIVING_CELL = "sky130_fd_sc_hd__inv_2"
LOAD_PF = 0.033442
DERATE_LATE, DERATE_EARLY = 1.05, 0.95
WIRE_LOAD = "Small"

PATH_GROUPS = {
    "reg2reg": "-from [all_registers -clock_pins] -to [all_registers -data_pins]",
    "in2reg": "-from [all_inputs] -to [all_registers -data_pins]",
    "reg2out": "-from [all_registers -clock_pins] -to [all_outputs]",
    "in2out": "-from [all_inputs] -to [all_outputs]",
}


def sdc(block, period: float) -> str:
    io = round(period * IO_DELAY_FRACTION, 3)
    clk = block.clock
    return f"""\
create_clock -name clk -period {period} [get_ports {clk}]
set_clock_uncertainty {UNCERTAINTY_NS} [get_clocks clk]
set_input_delay {io} -clock clk [delete_from_list [all_inputs] [get_ports {clk}]]
set_output_delay {io} -clock clk [all_outputs]
set_driving_cell -lib_cell {DRIVING_CELL} -pin Y [delete_from_list [all_inputs] [get_ports {clk}]]
set_load {LOAD_PF} [all_outputs]
set_wire_load_model -name {WIRE_LOAD}
set_timing_derate -late {DERATE_LATE}
set_timing_derate -early {DERATE_EARLY}
"""


# With SRAM macros (set in tcl()): flip-flops only as reg2reg start points, macros apart.
MACRO_PATH_GROUPS = {
    "reg2reg": "-from $pqsoc_flops -to [all_registers -data_pins]",
    "mem2reg": "-from $pqsoc_macros -to [all_registers -data_pins]",
    "in2reg": PATH_GROUPS["in2reg"],
    "reg2out": PATH_GROUPS["reg2out"],
    "in2out": PATH_GROUPS["in2out"],
}


def path_groups(block) -> dict[str, str]:
    return MACRO_PATH_GROUPS if block.macros else PATH_GROUPS


def tcl(block, pdk, netlist: Path, sdc_path: Path) -> str:
    lines = ["define_corners " + " ".join(STA_CORNERS)]
    for c in STA_CORNERS:
        lines.append(f"read_liberty -corner {c} {pdk.liberty(c)}")
        for m in block.macros:
            lines.append(f"read_liberty -corner {c} {pdk.sram(m, 'lib')}")
    lines += [f"read_verilog {netlist}", f"link_design {block.top}", f"read_sdc {sdc_path}"]
    # every flop / latch / macro clock pin must be reached by the clock (through clock gates
    # too): an unclocked register is left out of every timing check
    lines += ['puts "@@noclock"', "check_setup -verbose -no_clock", 'puts "@@clocked"']
    if block.macros:
        # -hierarchical: without it get_cells sees only the top module's instances, and the flops
        # and macros of a kept module (Block.keep_hierarchy) would drop out of the path groups
        lines.append('set pqsoc_flops [get_cells -hierarchical -filter "ref_name =~ sky130_fd_sc_hd__*df*" *]')
        lines.append("set pqsoc_macros [concat " + " ".join(
            f'[get_cells -hierarchical -filter "ref_name == {m}" *]' for m in block.macros) + "]")
    for c in STA_CORNERS:
        lines.append(f'puts "@@corner {c}"')
        lines.append(f'puts "@@worst {c}"')
        lines.append(f"report_checks -corner {c} -path_delay max -digits 3")
        for group, sel in path_groups(block).items():
            lines.append(f'puts "@@group {c} {group}"')
            lines.append(f"report_checks -corner {c} -path_delay max {sel} -format full -digits 3")
        lines.append(f'puts "@@hold {c}"')
        lines.append(f"report_checks -corner {c} -path_delay min -digits 3")
    lines.append('puts "@@end"')
    return "\n".join(lines) + "\n"


def _parse_one(text: str) -> dict:
    m = re.search(r"^\s*(-?\d+\.\d+)\s+slack \((MET|VIOLATED)\)", text, re.M)
    if not m:
        raise FlowError(f"STA: cannot parse a slack from report:\n{text[:400]}")
    sp = re.search(r"^Startpoint: (\S+)", text, re.M)
    ep = re.search(r"^Endpoint: (\S+)", text, re.M)
    return {"slack_ns": float(m.group(1)), "start": sp.group(1) if sp else "?",
            "end": ep.group(1) if ep else "?"}


def _parse_path(text: str) -> dict | None:
    """The worst path of one report_checks section; None if it had no path. OpenSTA prints one
    path per path group: a design with asynchronous resets (Ibex) has an **async_default**
    group (recovery / removal checks) that comes before the clock's own group."""
    if "No paths found" in text or "Startpoint" not in text:
        return None
    parts = re.split(r"^(?=Startpoint: )", text, flags=re.M)
    paths = [_parse_one(p) for p in parts if p.startswith("Startpoint: ")]
    return min(paths, key=lambda p: p["slack_ns"])


def parse(out: str, period: float, groups_sel: dict | None = None) -> dict:
    errors = [ln for ln in out.splitlines() if ln.startswith("Error") or ln.startswith("Warning: cannot")]
    if errors:
        raise FlowError("STA reported errors: " + "; ".join(errors[:5]))
    if "@@end" not in out:
        raise FlowError("STA did not run to the end of its script")
    if "@@noclock\n" in out:
        noclock = out.split("@@noclock\n", 1)[1].split("@@clocked", 1)[0]
        m = re.search(r"There (?:is|are) (\d+) unclocked register/latch pins?\.", noclock)
        if m:
            pins = [ln.strip() for ln in noclock[m.end():].splitlines() if ln.strip()]
            raise FlowError(f"STA: {m.group(1)} register/latch clock pins are not reached by the "
                            f"clock (untimed): {', '.join(pins[:5])}")
    res = {}
    for c in STA_CORNERS:
        worst = _parse_path(out.split(f"@@worst {c}\n", 1)[1].split("@@", 1)[0])
        if worst is None:
            raise FlowError(f"STA: no constrained path at corner {c}")
        groups = {}
        for g in (groups_sel or PATH_GROUPS):
            part = out.split(f"@@group {c} {g}\n", 1)[1].split("@@", 1)[0]
            groups[g] = _parse_path(part)
        hold = _parse_path(out.split(f"@@hold {c}\n", 1)[1].split("@@", 1)[0])
        r2r = groups["reg2reg"]
        if r2r is None:
            raise FlowError(f"STA: no register-to-register path at corner {c}; fmax undefined")
        crit, cp = period - r2r["slack_ns"], r2r
        m2r = groups.get("mem2reg")
        if m2r is not None and period - 2 * m2r["slack_ns"] > crit:   # half-cycle path
            crit, cp = period - 2 * m2r["slack_ns"], m2r
        res[c] = {
            "wns_ns": min(worst["slack_ns"], 0.0), "worst_slack_ns": worst["slack_ns"],
            "fmax_mhz": round(1000.0 / crit, 1),
            "critical_path_ns": round(crit, 3),
            "critical_path": {"start": cp["start"], "end": cp["end"]},
            "paths": groups,
            "hold_slack_ns": hold["slack_ns"] if hold else None,
        }
    return res


def sta(name: str, synth_out: Path | None = None, out: Path | None = None) -> dict:
    """STA of block NAME's netlist in synth_out (default build/synth/NAME) at its synthesis
    period, into OUT (default build/sta/NAME)."""
    block = blocks_mod.get(name)
    pdk = find_pdk()
    if shutil.which("sta") is None:
        raise FlowError("OpenSTA (`sta`) is not on PATH: run `make setup` (Debian package opensta)")
    synth_out = Path(synth_out) if synth_out is not None else synth_dir(name)
    manifest = load_manifest(name, out=synth_out)
    period = manifest["period_ns"]
    out = Path(out) if out is not None else BUILD / "sta" / name
    out.mkdir(parents=True, exist_ok=True)
    (out / "sta.json").unlink(missing_ok=True)
    sdc_path = out / "block.sdc"
    sdc_path.write_text(sdc(block, period))
    tcl_path = out / "sta.tcl"
    tcl_path.write_text(tcl(block, pdk, synth_out / "netlist.v", sdc_path))
    print(f"[sta] {name}: corners {', '.join(STA_CORNERS)} at {period} ns", flush=True)
    r = subprocess.run(["sta", "-no_splash", "-exit", str(tcl_path)], capture_output=True, text=True)
    log = r.stdout + r.stderr
    (out / "sta.log").write_text(log)
    if r.returncode != 0:
        raise FlowError(f"STA exited with {r.returncode} (log: {out / 'sta.log'})")
    res = parse(log, period, path_groups(block))
    result = {"block": name, "period_ns": period, "netlist_sha256": manifest["netlist_sha256"],
              "corners": res,
              "constraints": {"uncertainty_ns": UNCERTAINTY_NS, "io_delay_fraction": IO_DELAY_FRACTION,
                              "driving_cell": DRIVING_CELL, "load_pf": LOAD_PF, "wire_load": WIRE_LOAD,
                              "derate_late": DERATE_LATE, "derate_early": DERATE_EARLY,
                              "liberty": {c: CORNERS[c] for c in STA_CORNERS}}}
    (out / "sta.json").write_text(json.dumps(result, indent=2) + "\n")
    for c in STA_CORNERS:
        print(f"[sta] {name} {c}: fmax {res[c]['fmax_mhz']} MHz (reg2reg), wns {res[c]['wns_ns']} ns", flush=True)
    return result
