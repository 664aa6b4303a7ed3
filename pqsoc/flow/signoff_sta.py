# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""Post-route STA of a finished layout (signoff.py): each net's extracted capacitance from
Magic mapped onto the netlist's nets, lumped at the driver in a SPEF, and OpenSTA at the tt
and ss corners against the clock period (no wire resistance: signoff.py says why).
"""
import re
import time
from pathlib import Path

from pqsoc import FlowError
from pqsoc.flow.fanout import liberty_output_pins
from pqsoc.flow.pdk import CORNERS, Pdk
from pqsoc.flow.signoff_check import Check, find_tool, run_tool
from pqsoc.flow.signoff_netlist import SUPPLY_NETS, VERILOG_INSTANCE, VERILOG_MODULE, netlist_nets
from pqsoc.flow.sta import DRIVING_CELL, IO_DELAY_FRACTION, LOAD_PF, PATH_GROUPS, UNCERTAINTY_NS, _parse_path

STA_CORNERS = ("tt", "ss")


# ---------------------------------------------------------------- parasitics + STA
def net_capacitance(rc_spice: str, top: str) -> dict[str, float]:
    """Total capacitance (fF) per node of the top subcircuit in Magic's `ext2spice cthresh 0`
    output: capacitors to the supplies plus coupling capacitors (each counted on both nets)."""
    m = re.search(rf"^\.subckt {re.escape(top)}\b.*?^\.ends", rc_spice, re.M | re.S)
    if not m:
        raise FlowError(f"extraction: no subcircuit {top} in the RC netlist")
    caps: dict[str, float] = {}
    unit = {"f": 1.0, "p": 1e3, "a": 1e-3, "n": 1e6}
    for c in re.finditer(r"^C\S*\s+(\S+)\s+(\S+)\s+([\d.eE+-]+)([fpan]?)F?\s*$", m.group(0), re.M | re.I):
        v = float(c.group(3)) * unit.get(c.group(4).lower(), 1e15 if not c.group(4) else 1.0)
        for node in (c.group(1), c.group(2)):
            caps[node] = caps.get(node, 0.0) + v
    return caps


def map_caps(caps: dict[str, float], netlist_text: str, top: str) -> tuple[dict[str, float], list[str]]:
    """Extracted node names -> netlist nets: a node named like a net or port is that net; an
    unlabelled node is named by Magic after one instance pin (`inst/PIN`), the netlist says
    which net that pin is on. Supplies are left out. Returns ({net: fF}, unmapped nodes)."""
    nets, pins = netlist_nets(netlist_text, top)
    out, unmapped = {}, []
    for node, c in caps.items():
        if node in SUPPLY_NETS or node.split("/")[-1] in SUPPLY_NETS:
            continue
        net = None
        if node in nets:
            net = node
        elif "/" in node:
            inst, pin = node.rsplit("/", 1)
            net = pins.get((inst, pin))
        if net is None:
            unmapped.append(node)
        else:
            out[net] = out.get(net, 0.0) + c
    return out, unmapped


def _spef_name(name: str) -> str:
    """A netlist name in SPEF: characters other than letters, digits, _ and a bus index escaped."""
    m = re.match(r"^(.*?)(\[\d+\])?$", name)
    return re.sub(r"([^A-Za-z0-9_])", r"\\\1", m.group(1)) + (m.group(2) or "")


def lumped_spef(caps: dict[str, float], netlist_text: str, top: str, outputs: dict[str, set[str]]) -> str:
    """A SPEF with one capacitor per net (its extracted total, at the driver) and no resistor:
    the parasitics Magic 8.3.105 can give. outputs: Liberty output pins per cell (drivers)."""
    nets, pins = netlist_nets(netlist_text, top)
    cells = {}
    seg = [p for p in re.split(r"(?=^\s*module\s)", netlist_text, flags=re.M)
           if VERILOG_MODULE.match(p) and VERILOG_MODULE.match(p).group(1).strip().lstrip("\\") == top][0]
    for m in VERILOG_INSTANCE.finditer(seg):
        cells[m.group(3).strip().lstrip("\\")] = m.group(2).strip()
    on_net: dict[str, list[tuple[str, str]]] = {}
    for (inst, pin), net in pins.items():
        on_net.setdefault(net, []).append((inst, pin))
    dirs = {"input": "I", "output": "O", "inout": "B"}
    lines = ['*SPEF "IEEE 1481-1998"', f'*DESIGN "{top}"', '*DATE "-"', '*VENDOR "pqsoc"',
             '*PROGRAM "pqsoc signoff (Magic ext2spice capacitance, lumped)"', '*VERSION "1"',
             '*DESIGN_FLOW "NAME_SCOPE LOCAL" "PIN_CAP NONE"', "*DIVIDER /", "*DELIMITER :",
             "*BUS_DELIMITER [ ]", "*T_UNIT 1 NS", "*C_UNIT 1 FF", "*R_UNIT 1 OHM", "*L_UNIT 1 HENRY", "",
             "*PORTS"]
    lines += [f"{_spef_name(n)} {dirs[k]}" for n, k in nets.items() if k in dirs]
    for net, c in sorted(caps.items()):
        conn, driver = [], None
        if nets.get(net) in dirs:
            conn.append(f"*P {_spef_name(net)} {dirs[nets[net]]}")
            if nets[net] == "input":
                driver = _spef_name(net)
        for inst, pin in sorted(on_net.get(net, [])):
            out = pin in outputs.get(cells.get(inst, ""), set())
            node = f"{_spef_name(inst)}:{pin}"
            conn.append(f"*I {node} {'O' if out else 'I'}")
            if out:
                driver = node
        if driver is None:
            driver = conn[0].split()[1] if conn else None
        if driver is None:
            continue
        lines += ["", f"*D_NET {_spef_name(net)} {c:.4f}", "*CONN", *conn, "*CAP", f"1 {driver} {c:.4f}", "*END"]
    return "\n".join(lines) + "\n"


def signoff_sdc(period: float, clock: str | None) -> str:
    """The flow's STA constraints (pqsoc.flow.sta) without the wire-load model and derate that
    stand in for wires before layout: here the extracted capacitance is the wire."""
    io = round(period * IO_DELAY_FRACTION, 3)
    if clock:
        clk = f"create_clock -name clk -period {period} [get_ports {{{clock}}}]"
        inputs = f"[delete_from_list [all_inputs] [get_ports {{{clock}}}]]"
    else:    # no clock port: a virtual clock times the ports
        clk, inputs = f"create_clock -name clk -period {period}", "[all_inputs]"
    return f"""\
{clk}
set_clock_uncertainty {UNCERTAINTY_NS} [get_clocks clk]
set_input_delay {io} -clock clk {inputs}
set_output_delay {io} -clock clk [all_outputs]
set_driving_cell -lib_cell {DRIVING_CELL} -pin Y {inputs}
set_load {LOAD_PF} [all_outputs]
"""


def sta_tcl(pdk: Pdk, netlist: Path, top: str, sdc: Path, spef: Path) -> str:
    lines = ["define_corners " + " ".join(STA_CORNERS)]
    lines += [f"read_liberty -corner {c} {{{pdk.liberty(c)}}}" for c in STA_CORNERS]
    lines += [f"read_verilog {{{netlist}}}", f"link_design {{{top}}}", f"read_sdc {{{sdc}}}",
              f"read_spef {{{spef}}}"]
    # a path group whose start or end set is empty is an error in OpenSTA: report only those
    # the design has (a purely combinational block has no registers)
    lines += ["set pq_have(reg) [expr {[llength [all_registers]] > 0}]",
              "set pq_have(in) [expr {[llength [all_inputs]] > 0}]",
              "set pq_have(out) [expr {[llength [all_outputs]] > 0}]"]
    for c in STA_CORNERS:
        lines.append(f'puts "@@worst {c}"')
        lines.append(f"report_checks -corner {c} -path_delay max -digits 3")
        for group, sel in PATH_GROUPS.items():
            src, dst = group.split("2")
            lines.append(f'puts "@@group {c} {group}"')
            lines.append(f"if {{$pq_have({src}) && $pq_have({dst})}} "
                         f"{{ report_checks -corner {c} -path_delay max {sel} -digits 3 }}")
        lines.append(f'puts "@@hold {c}"')
        lines.append(f"report_checks -corner {c} -path_delay min -digits 3")
    lines.append('puts "@@end"')
    return "\n".join(lines) + "\n"


def parse_sta(out: str, period: float) -> dict:
    # OpenSTA exits 0 after a failed command; a net or port of the constraints that the netlist
    # lacks is only a warning, but it means the annotation or SDC did not apply
    errors = [ln for ln in out.splitlines() if ln.startswith("Error") or ln.startswith("Warning: cannot")
              or re.match(r"Warning: .*\b(net|port|pin|instance|cell) .* not found", ln)]
    if errors:
        raise FlowError("; ".join(errors[:5]))
    if "@@end" not in out:
        raise FlowError("OpenSTA did not reach the end of its script")
    res = {}
    for c in STA_CORNERS:
        def sect(tag):
            return out.split(f"@@{tag}\n", 1)[1].split("@@", 1)[0]
        worst = _parse_path(sect(f"worst {c}"))
        groups = {g: _parse_path(sect(f"group {c} {g}")) for g in PATH_GROUPS}
        hold = _parse_path(sect(f"hold {c}"))
        r = {"worst_setup_slack_ns": worst["slack_ns"] if worst else None,
             "worst_path": {"start": worst["start"], "end": worst["end"]} if worst else None,
             "hold_slack_ns": hold["slack_ns"] if hold else None,
             "paths": groups}
        if groups["reg2reg"]:
            crit = period - groups["reg2reg"]["slack_ns"]
            r["fmax_mhz"] = round(1000.0 / crit, 1)
        res[c] = r
    return res


def run_sta(netlist: Path, top: str, rc_spice: Path, period: float, clock: str | None,
            pdk: Pdk, work: Path, must_meet: tuple[str, ...], timeout: float) -> Check:
    chk = Check()
    text = netlist.read_text()
    try:
        caps, unmapped = map_caps(net_capacitance(rc_spice.read_text(), top), text, top)
    except FlowError as e:
        chk.status, chk.reason = "fail", str(e)
        return chk
    spef = work / f"{top}.spef"
    outputs = liberty_output_pins(pdk.liberty("tt").read_text())
    spef.write_text(lumped_spef(caps, text, top, outputs))
    sdc = work / "signoff.sdc"
    sdc.write_text(signoff_sdc(period, clock))
    script, log = work / "sta.tcl", work / "sta.log"
    script.write_text(sta_tcl(pdk, netlist.resolve(), top, sdc, spef))
    chk.log = str(log)
    t0 = time.time()
    rcode = run_tool([find_tool("sta"), "-no_splash", "-exit", str(script)], work, log, timeout)
    chk.seconds = time.time() - t0
    chk.details = {"period_ns": period, "clock": clock or "virtual (no clock port)",
                   "parasitics": "lumped: Magic ext2spice cthresh 0 total capacitance per net "
                                 "(coupling counted fully) at the net's driver in a SPEF; no wire "
                                 "resistance (magic 8.3.105 has no usable RC network extraction)",
                   "spef": str(spef),
                   "nets_annotated": len(caps), "extracted_nodes_unmapped": len(unmapped),
                   "nets_in_netlist": len(netlist_nets(text, top)[0]),
                   "unmapped_sample": sorted(unmapped)[:10],
                   "total_wire_cap_ff": round(sum(caps.values()), 3),
                   "liberty": {c: CORNERS[c] for c in STA_CORNERS}, "must_meet": list(must_meet)}
    try:
        if rcode != 0:
            raise FlowError(f"OpenSTA exited with {rcode}")
        res = parse_sta(log.read_text(errors="replace"), period)
    except FlowError as e:
        chk.status, chk.reason = "fail", f"OpenSTA: {e}"
        return chk
    chk.details["corners"] = res
    bad = [f"{c} {kind} slack {v} ns" for c in must_meet
           for kind, v in (("setup", res[c]["worst_setup_slack_ns"]), ("hold", res[c]["hold_slack_ns"]))
           if v is not None and v < 0]
    if all(res[c]["worst_setup_slack_ns"] is None for c in STA_CORNERS):
        bad.append("no constrained path")
    chk.status = "fail" if bad else "pass"
    chk.reason = "; ".join(bad)
    return chk
