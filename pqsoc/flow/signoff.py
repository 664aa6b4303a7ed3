# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""Local signoff of a finished layout (DEF or GDS): DRC, LVS, extraction and post-route STA.

`pqsoc signoff LAYOUT --netlist V --top NAME` runs, on a layout made by any flow (this
machine's layout flow, or OpenLane's `make harden` in the Nix shell):

| check        | tool (Debian)        | what it covers |
| ---          | ---                  | --- |
| magic_drc    | magic 8.3.105        | DEF -> layout from the PDK's full cell views (`libs.ref/<lib>/mag`, which point at the cell GDS), or the GDS as it is; the PDK tech file's full DRC deck (`drc(full)`, front and back end); violations by rule from `drc listall why` (one per error box) |
| klayout_drc  | klayout 0.28.5       | the PDK's KLayout runset `libs.tech/klayout/sky130A.lydrc` on the GDS (Magic's GDS for a DEF); that 2021 runset has FEOL off: back-end (li1..met5, vias) and off-grid/angle rules only; items per rule from its report database |
| gds_xor      | klayout              | a DEF only: KLayout's own GDS of it (PDK LEF, cell GDS, a layer map made from the PDK's .lyt by pdk_overlay.layer_map) XORed layer by layer with Magic's; any difference fails (the die outline, which only KLayout writes, aside) |
| lvs          | magic + netgen 1.5.133 | Magic `ext2spice lvs` (hierarchical, standard cells as subcircuits) against the gate-level Verilog netlist plus the PDK's cell SPICE, with the PDK's netgen setup; physical-only cells (taps, fill, decap, diodes) that a synthesized netlist does not hold are ignored on both sides; power pins are added to the netlist's cell instances (VPB -> VPWR, VNB -> VGND) when it has none |
| sta          | magic + OpenSTA      | tt and ss Liberty, SDC from the clock period; parasitics: each signal net's total extracted capacitance from Magic (`ext2spice cthresh 0`: wire to substrate plus coupling, coupling counted fully) as one capacitor at the net's driver in a SPEF that OpenSTA reads; no wire resistance (see below). (OpenSTA 2019's `set_load` on a net is accepted and ignored: measured) |

Code: this file runs the checks in order and writes the report; signoff_drc.py (Magic,
KLayout DRC, the GDS XOR), signoff_lvs.py (Netgen), signoff_sta.py (parasitics, SPEF,
OpenSTA), signoff_netlist.py (physical-only cells, power pins, the netlist's nets) and
signoff_check.py (Check, finding and running the tools) hold the steps.

Each check ends `pass`, `fail` (counts and the log) or `not-run` (the reason). Results go to
build/signoff/<top>/ and a JSON report (default reports/signoff/<top>.json).

Version notes (measured with these Debian versions, the reasons for the choices above):
- magic 8.3.105 refuses the PDK tech file (it says `requires magic-8.3.111`, then segfaults:
  exit 139): a copy with only that line commented out is written under build/ and used.
- Magic 8.3.105 has no `ext2spef`; its `extresist` (after `ext2sim`) writes a network whose
  transistors are copied to the top level with zero sizes and an `error` bulk node, so no
  resistance network is usable: STA gets lumped capacitance only, and says so in the report.
- netgen 1.5.133 loops without end (printing a circuit summary, gigabytes of log) when the
  layout holds a subcircuit with no devices (a tap cell) that the schematic lacks: such
  cells are ignored with `ignore class` in a setup script that wraps the PDK's; a timeout
  guards every tool run.
- `ext2spice` prints "Ran out of space for device types!" with this tech file; the cells
  tried here (inv_1, and the tap, fill and decap cells) still come out with all their
  transistors; a device type it dropped would show as an LVS mismatch, not pass silently.
  The message is kept in the report (magic_warnings).
"""
import json
import subprocess
import time
from pathlib import Path

from pqsoc import BUILD, REPORTS, FlowError
from pqsoc.flow.pdk import Pdk, find_pdk
from pqsoc.flow.signoff_check import TIMEOUT_S, TOOLS, Check, find_tool
from pqsoc.flow.signoff_drc import run_klayout, run_magic, run_stream_xor
from pqsoc.flow.signoff_lvs import run_lvs
from pqsoc.flow.signoff_sta import STA_CORNERS, run_sta


# ---------------------------------------------------------------- the whole signoff
def signoff(layout: Path, netlist: Path, top: str, period_ns: float | None = None, clock: str | None = None,
            json_path: Path | None = None, work: Path | None = None, must_meet=("tt",),
            timeout_s: float = TIMEOUT_S, pdk: Pdk | None = None, echo=print) -> dict:
    """Run every check; return (and write) the report. Never raises for a failing check: the
    report says fail / not-run; FlowError only for unusable input (no layout, no netlist)."""
    layout, netlist = Path(layout), Path(netlist)
    if not layout.is_file():
        raise FlowError(f"signoff: layout not found: {layout}")
    if layout.suffix.lower() not in (".def", ".gds", ".gds2", ".gdsii"):
        raise FlowError(f"signoff: {layout} is neither a .def nor a .gds")
    if not netlist.is_file():
        raise FlowError(f"signoff: netlist not found: {netlist}")
    pdk = pdk or find_pdk()
    work = Path(work) if work else BUILD / "signoff" / top
    work.mkdir(parents=True, exist_ok=True)
    json_path = Path(json_path) if json_path else REPORTS / "signoff" / f"{top}.json"
    checks = {k: Check() for k in ("magic_drc", "klayout_drc", "lvs", "sta")}
    missing = {k: TOOLS[k] for k in TOOLS if find_tool(k) is None}

    def say(step, msg):
        echo(f"[signoff] {top} {step}: {msg}", flush=True)

    # Magic: GDS, DRC, extraction
    mag = None
    t0 = time.time()
    if "magic" in missing:
        for k in ("magic_drc", "lvs", "sta"):
            checks[k].reason = "magic (Debian package magic) is not on PATH: run `make setup`"
    else:
        say("magic", f"reading {layout.name}, DRC and extraction (log {work / 'magic.log'})")
        try:
            gds_out = work / f"{top}.gds" if layout.suffix.lower() == ".def" else None
            mag = run_magic(layout, top, pdk, work, gds_out, timeout_s)
        except FlowError as e:
            for k in ("magic_drc", "lvs", "sta"):
                checks[k].reason = str(e)
    magic_s = time.time() - t0
    if mag is not None and mag["read_errors"] and not mag["error"]:
        n = len(mag["read_errors"])
        mag["error"] = f"Magic could not read the layout completely: {n} read errors, first: {mag['read_errors'][0]}"
        mag["spice"] = mag["rc_spice"] = None
        mag["gds"] = None
    if mag is not None:
        d = checks["magic_drc"]
        d.log, d.seconds = str(mag["log"]), magic_s
        if mag["drc"] is None or mag["read_errors"]:
            d.status = "fail" if mag["error"] else "not-run"
            d.reason = mag["error"] or "magic did not reach DRC"
        else:
            total = sum(r["count"] for r in mag["drc"].values())
            tiles = sum(mag.get("drc_tiles_by_cell", {}).values())
            d.details = {"count": total, "by_rule": mag["drc"], "report": str(work / "drc.rpt"),
                         "error_tiles_by_cell": mag.get("drc_tiles_by_cell", {}), "style": "drc(full)"}
            d.status = "pass" if total == 0 and tiles == 0 else "fail"
            if total == 0 and tiles:
                d.reason = f"Magic counts {tiles} error tiles that `drc listall why` did not list"
            if total:
                worst = sorted(mag["drc"].items(), key=lambda kv: -kv[1]["count"])[:3]
                d.reason = f"{total} DRC errors: " + "; ".join(f"{n} x {why}" for why, n in
                                                               ((w, r["count"]) for w, r in worst))
                d.log = str(work / "drc.rpt")
        for k in ("lvs", "sta"):
            if mag["spice"] is None:
                checks[k].status = "fail" if mag["error"] else "not-run"
                checks[k].reason = ("no extraction: Magic could not read the layout completely (magic_drc)"
                                    if mag["read_errors"] else f"extraction failed: {mag['error'] or 'no netlist'}")
                checks[k].log = str(mag["log"])
    say("magic_drc", _line(checks["magic_drc"]))

    # KLayout DRC on the GDS
    gds = layout if layout.suffix.lower() != ".def" else (mag or {}).get("gds")
    if "klayout" in missing:
        checks["klayout_drc"].reason = "klayout (Debian package klayout) is not on PATH: run `make setup`"
    elif gds is None:
        checks["klayout_drc"].reason = ("no complete GDS: Magic could not read the DEF completely (magic_drc)"
                                        if mag and mag["read_errors"] else "no GDS: Magic did not write one from the DEF")
    else:
        say("klayout_drc", f"PDK runset on {gds.name} (log {work / 'klayout_drc.log'})")
        checks["klayout_drc"] = run_klayout(Path(gds).resolve(), pdk, work, timeout_s)
    say("klayout_drc", _line(checks["klayout_drc"]))

    # a DEF: KLayout's own stream-out against Magic's GDS
    if layout.suffix.lower() == ".def":
        checks["gds_xor"] = Check()
        if "klayout" in missing:
            checks["gds_xor"].reason = "klayout (Debian package klayout) is not on PATH: run `make setup`"
        elif gds is None:
            checks["gds_xor"].reason = checks["klayout_drc"].reason
        else:
            say("gds_xor", f"KLayout stream-out of {layout.name} vs Magic's GDS (log {work / 'stream_xor.log'})")
            checks["gds_xor"] = run_stream_xor(layout.resolve(), Path(gds).resolve(), top, pdk, work, timeout_s)
        say("gds_xor", _line(checks["gds_xor"]))

    # LVS
    if mag is not None and mag["spice"] is not None:
        if "netgen" in missing:
            checks["lvs"].reason = "netgen-lvs (Debian package netgen-lvs) is not on PATH: run `make setup`"
        else:
            say("lvs", f"netgen: layout vs {netlist.name} (log {work / 'lvs.log'})")
            checks["lvs"] = run_lvs(mag["spice"], netlist.resolve(), top, pdk, work, timeout_s)
    say("lvs", _line(checks["lvs"]))

    # extraction + STA
    if mag is not None and mag["rc_spice"] is not None:
        if "sta" in missing:
            checks["sta"].reason = "OpenSTA (`sta`, Debian package opensta) is not on PATH: run `make setup`"
        elif period_ns is None:
            checks["sta"].reason = "no clock period: give --period (or a registered block's top)"
        else:
            say("sta", f"OpenSTA at {', '.join(STA_CORNERS)}, {period_ns} ns, extracted capacitance "
                       f"(log {work / 'sta.log'})")
            checks["sta"] = run_sta(netlist, top, mag["rc_spice"], period_ns, clock, pdk, work,
                                    tuple(must_meet), timeout_s)
    say("sta", _line(checks["sta"]))

    report = {"top": top, "layout": str(layout), "netlist": str(netlist), "pdk": str(pdk.base),
              "tools": tool_versions(), "workdir": str(work),
              "magic_seconds": round(magic_s, 2),
              "magic_warnings": (mag or {}).get("warnings", []),
              "checks": {k: c.as_dict() for k, c in checks.items()},
              "passed": all(c.status == "pass" for c in checks.values())}
    json_path.parent.mkdir(parents=True, exist_ok=True)
    json_path.write_text(json.dumps(report, indent=2) + "\n")
    return report


def _line(c: Check) -> str:
    s = c.status
    if c.reason:
        s += f" ({c.reason})"
    if c.status == "fail" and c.log:
        s += f", log {c.log}"
    return s


def tool_versions() -> dict:
    """Installed Debian versions of the tools (dpkg), or 'missing'."""
    out = {}
    for key, pkg in (("magic", "magic"), ("netgen", "netgen-lvs"), ("klayout", "klayout"), ("sta", "opensta")):
        try:
            r = subprocess.run(["dpkg-query", "-W", "-f=${Version}", pkg], capture_output=True, text=True)
            out[key] = r.stdout.strip() if r.returncode == 0 and r.stdout.strip() else "missing"
        except FileNotFoundError:
            out[key] = "unknown (no dpkg)"
    return out
