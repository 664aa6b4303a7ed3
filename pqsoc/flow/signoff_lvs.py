# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""LVS of a finished layout (signoff.py): Netgen compares Magic's extracted netlist with the
gate-level netlist (power pins added, physical-only cells ignored) under the PDK's setup.
"""
import json
import re
import time
from pathlib import Path

from pqsoc.flow.pdk import PDK, SCL, Pdk
from pqsoc.flow.signoff_check import Check, find_tool, run_tool
from pqsoc.flow.signoff_netlist import PHYSICAL_ONLY, cell_pins, powered_netlist


# ---------------------------------------------------------------- LVS
def netgen_setup(pdk: Pdk) -> str:
    src = pdk.base / "libs.tech" / "netgen" / f"{PDK}_setup.tcl"
    return f"""\
# written by pqsoc/flow/signoff_lvs.py: the PDK's setup, then physical-only cells ignored on
# both sides (a synthesized netlist has no taps, fill, decap or diodes; a place-and-route
# tool's netlist may have them)
source {{{src}}}
foreach {{side cells}} [list 1 $cells1 2 $cells2] {{
    foreach cell $cells {{
        if {{[regexp {{{PHYSICAL_ONLY.pattern}}} $cell]}} {{
            puts stdout "pqsoc: ignoring physical-only cell $cell in circuit $side"
            ignore class "-circuit$side $cell"
        }}
    }}
}}
"""


def parse_lvs(log_text: str, json_path: Path, top: str) -> dict:
    res = {"match": None}
    m = re.findall(r"^Result: (.*)$", log_text, re.M)
    if m:
        res["result"] = m[-1].strip()
        res["match"] = m[-1].strip().startswith("Circuits match")
    if json_path.is_file():
        data = json.loads(json_path.read_text())
        for circ in data:
            if circ.get("name", [None])[0] == top or circ.get("name", [None, None])[1] == top:
                devs = [sum(n for _, n in side) for side in circ.get("devices", [[], []])]
                res.update({"devices": {"layout": devs[0], "netlist": devs[1]},
                            "nets": {"layout": circ["nets"][0], "netlist": circ["nets"][1]},
                            "bad_nets": len(circ.get("badnets", [])),
                            "bad_devices": len(circ.get("badelements", [])),
                            "pins_equal": circ.get("pins", [[], []])[0] == circ.get("pins", [[], []])[1]})
        mism = [c["name"][0] for c in data if c.get("badnets") or c.get("badelements")]
        res["mismatched_circuits"] = mism
    return res


def run_lvs(spice: Path, netlist: Path, top: str, pdk: Pdk, work: Path, timeout: float) -> Check:
    chk = Check()
    cells_spice = pdk.base / "libs.ref" / SCL / "spice" / f"{SCL}.spice"
    setup_src = pdk.base / "libs.tech" / "netgen" / f"{PDK}_setup.tcl"
    for p in (cells_spice, setup_src):
        if not p.is_file():
            chk.reason = f"PDK file missing: {p}"
            return chk
    if not re.search(rf"^\.subckt {re.escape(top)}\s", spice.read_text(errors="replace"), re.M):
        chk.status = "fail"
        chk.reason = (f"the extracted netlist {spice} has no subcircuit {top}: Magic found no ports on "
                      f"the top cell (the layout's pins were not read as labelled ports)")
        return chk
    powered, added = powered_netlist(netlist.read_text(), cell_pins(cells_spice.read_text()))
    pv = work / f"{top}.powered.v"
    pv.write_text(powered)
    setup = work / "netgen_setup.tcl"
    setup.write_text(netgen_setup(pdk))
    script, log = work / "lvs.tcl", work / "lvs.log"
    report, jpath = work / "lvs.report", work / "lvs.json"
    for stale in (report, jpath):
        stale.unlink(missing_ok=True)
    script.write_text(f"""\
# written by pqsoc/flow/signoff_lvs.py
set layout [readnet spice {{{spice}}}]
set schem [readnet spice {{{cells_spice}}}]
readnet verilog {{{pv}}} $schem
lvs "$layout {{{top}}}" "$schem {{{top}}}" {{{setup}}} {{{report}}} -json
""")
    chk.log = str(log)
    t0 = time.time()
    rcode = run_tool([find_tool("netgen"), "-batch", "source", str(script)], work, log, timeout)
    chk.seconds = time.time() - t0
    text = log.read_text(errors="replace")[-2_000_000:]
    res = parse_lvs(text + (report.read_text(errors="replace") if report.is_file() else ""), jpath, top)
    chk.details = {"report": str(report), "powered_netlist": str(pv), "supply_pins_added": added, **res}
    if res["match"] is None:
        chk.status = "fail"
        chk.reason = f"netgen gave no result (exit {rcode})"
    elif res["match"]:
        chk.status = "pass"
    else:
        chk.status = "fail"
        chk.reason = (f"netlists do not match: {res.get('bad_nets', '?')} bad nets, "
                      f"{res.get('bad_devices', '?')} bad devices")
    return chk
