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
import re
import shutil
import subprocess
import time
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from pathlib import Path

from pqsoc import BUILD, REPORTS, FlowError
from pqsoc.flow.fanout import liberty_output_pins
from pqsoc.flow.pdk import CORNERS, PDK, SCL, Pdk, find_pdk
from pqsoc.flow.sta import (DRIVING_CELL, IO_DELAY_FRACTION, LOAD_PF, PATH_GROUPS, UNCERTAINTY_NS,
                            _parse_path)

TOOLS = {"magic": "magic", "netgen": "netgen-lvs", "klayout": "klayout", "sta": "sta"}
STA_CORNERS = ("tt", "ss")
TIMEOUT_S = 3600
# Cells a layout flow adds for the silicon, not the logic: a synthesized netlist has none.
PHYSICAL_ONLY = re.compile(r"^sky130_\w+__(tapvpwrvgnd|tapvgnd2?|tap|fill|decap|diode|fakediode|"
                           r"lpflow_decapkapwr)_\d+$")
# Supply pins of the standard cells -> the net they get in a netlist without power pins.
SUPPLY_NETS = {"VPWR": "VPWR", "VGND": "VGND", "VPB": "VPWR", "VNB": "VGND", "KAPWR": "VPWR"}


@dataclass
class Check:
    status: str = "not-run"          # pass / fail / not-run
    reason: str = ""                 # why not-run or why fail, in words
    log: str = ""
    details: dict = field(default_factory=dict)
    seconds: float = 0.0

    def as_dict(self) -> dict:
        d = {"status": self.status}
        if self.reason:
            d["reason"] = self.reason
        if self.log:
            d["log"] = self.log
        d.update(self.details)
        d["seconds"] = round(self.seconds, 2)
        return d


def _tool(key: str) -> str | None:
    return shutil.which(TOOLS[key])


def _run(cmd, cwd: Path, log: Path, timeout: float) -> int:
    """Run a tool with its output into log (never into memory: a runaway tool can write GBs)."""
    with open(log, "w") as f:
        try:
            return subprocess.run(cmd, cwd=cwd, stdout=f, stderr=subprocess.STDOUT,
                                  stdin=subprocess.DEVNULL, timeout=timeout).returncode
        except subprocess.TimeoutExpired:
            f.write(f"\n[pqsoc] killed after the {timeout} s timeout\n")
            return -1


# ---------------------------------------------------------------- Magic
def magic_tech(pdk: Pdk, out: Path) -> Path:
    """The PDK's Magic tech file with its `requires magic-8.3.111` line commented out
    (8.3.105 segfaults on it); everything else as the PDK has it."""
    src = pdk.base / "libs.tech" / "magic" / f"{PDK}.tech"
    if not src.is_file():
        raise FlowError(f"magic: PDK tech file missing: {src}")
    text = re.sub(r"^(\s*)(requires magic-)", r"\1# (pqsoc: commented out for magic 8.3.105) \2",
                  src.read_text(), flags=re.M)
    out.mkdir(parents=True, exist_ok=True)
    tech = out / f"{PDK}.tech"
    tech.write_text(text)
    return tech


def magic_rc(pdk: Pdk, tech: Path) -> str:
    """Startup script: what the PDK's sky130A.magicrc does, with our tech copy and only the
    standard-cell library's full layout views on the search path."""
    base = pdk.base
    return f"""\
# written by pqsoc/flow/signoff.py
set PDKPATH {{{base}}}
tech load {{{tech}}}
scalegrid 1 2
drc euclidean on
catch {{random seed 1}}
ext2spice scale off
source {{{base / 'libs.tech' / 'magic' / f'{PDK}.tcl'}}}
snap lambda
set VDD VPWR
set GND VGND
set SUB VSUBS
addpath {{{base / 'libs.ref' / SCL / 'mag'}}}
"""


def magic_script(layout: Path, top: str, pdk: Pdk, gds_out: Path | None) -> str:
    if layout.suffix.lower() == ".def":
        read = (f"lef read {{{pdk.base / 'libs.ref' / SCL / 'techlef' / f'{SCL}.tlef'}}}\n"
                f"def read {{{layout}}}")
    else:
        read = f"gds readonly true\ngds read {{{layout}}}"
    write = f'gds write {{{gds_out}}}\nputs "@@gds"' if gds_out else 'puts "@@gds (input is GDS)"'
    return f"""\
# written by pqsoc/flow/signoff.py: read, GDS, DRC, extraction (LVS and RC)
{read}
if {{[lsearch -exact [cellname list allcells] {{{top}}}] < 0}} {{
    puts "@@error no cell {top} in the layout"
    quit -noprompt
}}
load {{{top}}}
select top cell
puts "@@scale [cif scale out]"
{write}
drc style drc(full)
drc check
drc catchup
# the box decides what `drc listall` lists: the whole cell and a margin (an error on the
# bounding box edge is left out otherwise); it lists the errors inside instances too
select top cell
box grow c 1um
puts "@@drc-count"
drc count
puts "@@drc-listall"
set f [open drc.rpt w]
foreach {{why boxes}} [drc listall why] {{
    puts $f "RULE\\t[llength $boxes]\\t$why"
    foreach b $boxes {{ puts $f "\\t$b" }}
}}
close $f
puts "@@drc"
extract do local
extract all
ext2spice lvs
ext2spice -o {{{top}.spice}}
puts "@@ext-lvs"
ext2spice cthresh 0
ext2spice -o {{{top}.rc.spice}}
puts "@@ext-rc"
quit -noprompt
"""


def parse_magic_drc(report: str, scale_um: float) -> dict:
    """drc.rpt (RULE<TAB>count<TAB>message, then the boxes) -> counts by rule and the boxes in um."""
    rules, current = {}, None
    for line in report.splitlines():
        if line.startswith("RULE\t"):
            _, n, why = line.split("\t", 2)
            current = rules.setdefault(why, {"count": 0, "boxes_um": []})
            current["count"] += int(n)
        elif line.startswith("\t") and current is not None:
            nums = [round(float(v) * scale_um, 3) for v in line.split()]
            if len(current["boxes_um"]) < 20:        # a sample to find them; the count is complete
                current["boxes_um"].append(nums)
    return rules


def run_magic(layout: Path, top: str, pdk: Pdk, work: Path, gds_out: Path | None, timeout: float) -> dict:
    """One Magic run: read the layout, write GDS (DEF input), full DRC, extraction. Returns what
    ran: {'log', 'gds', 'drc' (rules) or None, 'spice', 'rc_spice', 'error'}."""
    tech = magic_tech(pdk, work / "tech")
    rc = work / "magicrc.tcl"
    rc.write_text(magic_rc(pdk, tech))
    script = work / "magic.tcl"
    script.write_text(magic_script(layout.resolve(), top, pdk, gds_out))
    log = work / "magic.log"
    for stale in (work / "drc.rpt", work / f"{top}.spice", work / f"{top}.rc.spice"):
        stale.unlink(missing_ok=True)
    if gds_out:
        gds_out.unlink(missing_ok=True)
    rcode = _run([_tool("magic"), "-dnull", "-noconsole", "-rcfile", str(rc), str(script)], work, log, timeout)
    text = log.read_text(errors="replace")
    res = {"log": log, "gds": None, "drc": None, "spice": None, "rc_spice": None, "error": None,
           "warnings": sorted({ln.strip() for ln in text.splitlines() if ln.startswith("Error:")})}
    # a layout Magic could not read completely (a cell the PDK does not have, a bad record):
    # every check on it would judge another layout
    res["read_errors"] = [ln.strip() for ln in text.splitlines()
                          if re.match(r"^(DEF|LEF|GDS|CIF) read.*\((Error|Fatal)\)", ln) or
                          re.match(r"^Error while reading cell", ln)]
    m = re.search(r"^@@error (.*)$", text, re.M)
    if m:
        res["error"] = m.group(1)
        return res
    if rcode != 0:
        res["error"] = f"magic exited with {rcode}"
    if "Error parsing" in text:
        res["error"] = "magic stopped on a script error: " + re.search(r"^Error parsing.*$", text, re.M).group(0)
    if gds_out and "@@gds" in text and gds_out.is_file():
        res["gds"] = gds_out
    if "@@drc\n" in text and (work / "drc.rpt").is_file():
        scale = float(re.search(r"^@@scale (\S+)", text, re.M).group(1))
        res["drc"] = parse_magic_drc((work / "drc.rpt").read_text(), scale)
        counts = text.split("@@drc-count\n", 1)[1].split("@@drc-listall", 1)[0]
        res["drc_tiles_by_cell"] = {c: 1 if n == "just one" else int(n) for c, n in
                                    re.findall(r"Cell (\S+) has (\d+|just one) error tiles?", counts)}
    if "@@ext-lvs" in text and (work / f"{top}.spice").is_file():
        res["spice"] = work / f"{top}.spice"
    if "@@ext-rc" in text and (work / f"{top}.rc.spice").is_file():
        res["rc_spice"] = work / f"{top}.rc.spice"
    if res["error"] is None and res["spice"] is None:
        res["error"] = "magic did not reach the end of its script"
    return res


# ---------------------------------------------------------------- KLayout
def klayout_runset(pdk: Pdk) -> Path:
    return pdk.base / "libs.tech" / "klayout" / f"{PDK}.lydrc"


def parse_lyrdb(path: Path) -> dict[str, int]:
    """Items per rule (category) of a KLayout report database."""
    root = ET.parse(path).getroot()
    counts: dict[str, int] = {}
    for cat in root.iter("category"):       # every rule, also those with no item
        name = cat.findtext("name")
        if name is not None:
            counts.setdefault(name.strip("'"), 0)
    items = root.find("items")
    for item in (items if items is not None else []):
        name = (item.findtext("category") or "?").strip("'")
        counts[name] = counts.get(name, 0) + 1
    return counts


def run_klayout(gds: Path, pdk: Pdk, work: Path, timeout: float) -> Check:
    chk = Check()
    runset = klayout_runset(pdk)
    if not runset.is_file():
        chk.reason = f"PDK KLayout DRC runset missing: {runset}"
        return chk
    report, log = work / "klayout_drc.lyrdb", work / "klayout_drc.log"
    report.unlink(missing_ok=True)
    chk.log = str(log)
    t0 = time.time()
    rcode = _run([_tool("klayout"), "-b", "-r", str(runset), "-rd", f"input={gds}", "-rd", f"report={report}"],
                 work, log, timeout)
    chk.seconds = time.time() - t0
    if rcode != 0 or not report.is_file():
        chk.status, chk.reason = "fail", f"klayout exited with {rcode} and no report database"
        return chk
    rules = parse_lyrdb(report)
    total = sum(rules.values())
    chk.details = {"runset": str(runset), "report": str(report), "count": total,
                   "by_rule": {k: v for k, v in sorted(rules.items()) if v},
                   "rules_checked": len(rules)}
    chk.status = "pass" if total == 0 else "fail"
    if total:
        worst = sorted(chk.details["by_rule"].items(), key=lambda kv: -kv[1])[:3]
        chk.reason = f"{total} DRC items: " + "; ".join(f"{n} x {rule}" for rule, n in worst)
        chk.log = str(report)
    return chk


# ---------------------------------------------------------------- KLayout stream-out and XOR
# Layers that only one of the two writers puts out: KLayout writes the DEF's DIEAREA as the
# prBoundary (235/4, per the layer map); Magic writes no die outline.
XOR_IGNORE = {(235, 4): "prBoundary (DIEAREA): KLayout writes it, Magic does not"}

_KLAYOUT_XOR = """\
# written by pqsoc/flow/signoff.py: the DEF streamed out by KLayout (PDK LEF, cell GDS, a layer
# map from the PDK's .lyt), then XORed layer by layer with Magic's GDS of the same DEF
import json
import pya

opt = pya.LoadLayoutOptions()
cfg = opt.lefdef_config
cfg.map_file = {map_file!r}
cfg.lef_files = {lefs!r}
cfg.macro_layout_files = {cell_gds!r}
cfg.macro_resolution_mode = 2          # cells from their GDS, not from LEF abstracts
ours = pya.Layout()
ours.read({def_file!r}, opt)
ours.write({out_gds!r})
theirs = pya.Layout()
theirs.read({magic_gds!r})
result = {{"klayout_tops": [c.name for c in ours.top_cells()], "layers": {{}}}}
shapes = {{}}
for tag, ly in (("klayout", ours), ("magic", theirs)):
    top = [c for c in ly.top_cells() if c.name == {top!r}]
    if not top:
        result["error"] = tag + " GDS has no top cell " + {top!r}
        continue
    for li in ly.layer_indexes():
        info = ly.get_info(li)
        region = pya.Region(top[0].begin_shapes_rec(li))
        region.merge()
        if not region.is_empty():
            shapes.setdefault((info.layer, info.datatype), {{}})[tag] = region
for (layer, dt), pair in sorted(shapes.items()):
    k, m = pair.get("klayout", pya.Region()), pair.get("magic", pya.Region())
    diff = k ^ m
    result["layers"]["%d/%d" % (layer, dt)] = {{"klayout": k.count(), "magic": m.count(),
                                               "xor_polygons": diff.count(), "xor_area_dbu2": diff.area()}}
with open({out_json!r}, "w") as f:
    json.dump(result, f, indent=1)
"""


def run_stream_xor(def_file: Path, magic_gds: Path, top: str, pdk: Pdk, work: Path, timeout: float) -> Check:
    """KLayout's own GDS of the DEF (an independent reading of it) XORed with Magic's: every
    layer must agree but XOR_IGNORE."""
    from pqsoc.flow.pdk_overlay import layer_map
    chk = Check()
    lyt = pdk.base / "libs.tech" / "klayout" / f"{PDK}.lyt"
    lefs = [pdk.base / "libs.ref" / SCL / "techlef" / f"{SCL}.tlef", pdk.base / "libs.ref" / SCL / "lef" / f"{SCL}.lef"]
    cell_gds = pdk.base / "libs.ref" / SCL / "gds" / f"{SCL}.gds"
    for p in (lyt, *lefs, cell_gds):
        if not p.is_file():
            chk.reason = f"PDK file missing: {p}"
            return chk
    map_file = work / f"{PDK}.map"
    map_file.write_text(layer_map(lyt))
    out_gds, out_json = work / f"{top}.klayout.gds", work / "xor.json"
    for stale in (out_gds, out_json):
        stale.unlink(missing_ok=True)
    script, log = work / "stream_xor.py", work / "stream_xor.log"
    script.write_text(_KLAYOUT_XOR.format(map_file=str(map_file), lefs=[str(p) for p in lefs],
                                          cell_gds=[str(cell_gds)], def_file=str(def_file), out_gds=str(out_gds),
                                          magic_gds=str(magic_gds), top=top, out_json=str(out_json)))
    chk.log = str(log)
    t0 = time.time()
    rcode = _run([_tool("klayout"), "-b", "-r", str(script)], work, log, timeout)
    chk.seconds = time.time() - t0
    if rcode != 0 or not out_json.is_file():
        chk.status, chk.reason = "fail", f"KLayout stream-out / XOR exited with {rcode} and no result"
        return chk
    res = json.loads(out_json.read_text())
    if res.get("error"):
        chk.status, chk.reason = "fail", res["error"]
        return chk
    ignored = {f"{k[0]}/{k[1]}": why for k, why in XOR_IGNORE.items()}
    differ = {k: v for k, v in res["layers"].items() if v["xor_polygons"] and k not in ignored}
    chk.details = {"klayout_gds": str(out_gds), "layer_map": str(map_file), "layers_compared": len(res["layers"]),
                   "layers_differing": differ, "ignored": ignored}
    chk.status = "fail" if differ else "pass"
    if differ:
        chk.reason = "KLayout's and Magic's GDS of the DEF differ on " + ", ".join(
            f"{k} ({v['xor_polygons']} polygons)" for k, v in sorted(differ.items()))
    return chk


# ---------------------------------------------------------------- netlist with power pins
_MODULE = re.compile(r"^\s*module\s+(\\\S+|[\w$]+)\s*(\((.*?)\))?\s*;", re.M | re.S)
_INSTANCE = re.compile(r"^(\s*)(\\\S+\s|[\w$]+)\s+(\\\S+\s|[\w$]+)\s*\((.*?)\)\s*;", re.M | re.S)
_KEYWORDS = {"module", "input", "output", "inout", "wire", "reg", "assign", "endmodule", "supply0",
             "supply1", "parameter", "localparam", "always", "initial", "function", "task"}


def cell_pins(spice_text: str) -> dict[str, list[str]]:
    """Subcircuit name -> pins, from the PDK's cell SPICE."""
    return {m.group(1): m.group(2).split()
            for m in re.finditer(r"^\.subckt\s+(\S+)\s+([^\n]*)$", spice_text, re.M | re.I)}


def powered_netlist(text: str, cells: dict[str, list[str]]) -> tuple[str, int]:
    """The netlist with VPWR/VGND ports on every module, the cells' supply pins connected
    (SUPPLY_NETS) and VPWR/VGND passed to every instance of a module of the netlist.
    Pins the netlist already connects are left as they are. Returns (text, pins added)."""
    modules = {m.group(1).strip() for m in _MODULE.finditer(text)}
    added = 0

    def inst(m):
        nonlocal added
        cell = m.group(2).strip()
        if cell in _KEYWORDS:
            return m.group(0)
        if cell in cells:
            want = {p: SUPPLY_NETS[p] for p in cells[cell] if p in SUPPLY_NETS}
        elif cell in modules:
            want = {"VPWR": "VPWR", "VGND": "VGND"}
        else:
            return m.group(0)
        body = m.group(4)
        extra = [f".{p}({n})" for p, n in want.items() if not re.search(rf"\.{p}\s*\(", body)]
        if not extra:
            return m.group(0)
        added += len(extra)
        sep = ", " if body.strip() else ""
        return f"{m.group(1)}{m.group(2)} {m.group(3).strip()} ({body.rstrip()}{sep}{', '.join(extra)});"

    def module(m):
        ports = m.group(3)
        plist = [p.strip() for p in (ports or "").split(",") if p.strip()]
        new = [p for p in ("VPWR", "VGND") if p not in plist]
        if not new:
            return m.group(0)
        head = f"module {m.group(1)}({', '.join(plist + new)});"
        return head + "".join(f"\n  inout {p};" for p in new)

    out = []
    for part in re.split(r"(?=^\s*module\s)", text, flags=re.M):
        if _MODULE.match(part):
            head = _MODULE.match(part)
            body = _INSTANCE.sub(inst, part[head.end():])
            out.append(module(head) + body)
        else:
            out.append(part)
    return "".join(out), added


# ---------------------------------------------------------------- LVS
def netgen_setup(pdk: Pdk) -> str:
    src = pdk.base / "libs.tech" / "netgen" / f"{PDK}_setup.tcl"
    return f"""\
# written by pqsoc/flow/signoff.py: the PDK's setup, then physical-only cells ignored on
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
# written by pqsoc/flow/signoff.py
set layout [readnet spice {{{spice}}}]
set schem [readnet spice {{{cells_spice}}}]
readnet verilog {{{pv}}} $schem
lvs "$layout {{{top}}}" "$schem {{{top}}}" {{{setup}}} {{{report}}} -json
""")
    chk.log = str(log)
    t0 = time.time()
    rcode = _run([_tool("netgen"), "-batch", "source", str(script)], work, log, timeout)
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


def netlist_nets(netlist_text: str, top: str) -> tuple[dict[str, str], dict[tuple[str, str], str]]:
    """({net or port bit: 'input'/'output'/'inout'/'wire'}, {(instance, pin): net}) of the top
    module of a flat netlist; buses are expanded to their bits (`q[3]`)."""
    part = None
    for seg in re.split(r"(?=^\s*module\s)", netlist_text, flags=re.M):
        hm = _MODULE.match(seg)
        if hm and hm.group(1).strip().lstrip("\\") == top:
            part = seg
    if part is None:
        raise FlowError(f"netlist has no module {top}")
    nets: dict[str, str] = {}
    for m in re.finditer(r"^\s*(input|output|inout|wire)\s+(?:\[\s*(\d+)\s*:\s*(\d+)\s*\]\s*)?(\\\S+|[\w$]+)",
                         part, re.M):
        kind, name = m.group(1), m.group(4).lstrip("\\")
        if m.group(2) is None:
            bits = [name]
        else:
            lo, hi = sorted((int(m.group(2)), int(m.group(3))))
            bits = [f"{name}[{i}]" for i in range(lo, hi + 1)]
        for b in bits:
            if kind != "wire" or b not in nets:     # a port's direction wins over its wire line
                nets[b] = kind
    pins = {}
    for m in _INSTANCE.finditer(part):
        if m.group(2).strip() in _KEYWORDS:
            continue
        inst = m.group(3).strip().lstrip("\\")
        for pm in re.finditer(r"\.(\w+)\s*\(\s*([^)]*?)\s*\)", m.group(4)):
            if pm.group(2):
                pins[(inst, pm.group(1))] = pm.group(2).lstrip("\\").strip()
    return nets, pins


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
           if _MODULE.match(p) and _MODULE.match(p).group(1).strip().lstrip("\\") == top][0]
    for m in _INSTANCE.finditer(seg):
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
    rcode = _run([_tool("sta"), "-no_splash", "-exit", str(script)], work, log, timeout)
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
    missing = {k: TOOLS[k] for k in TOOLS if _tool(k) is None}

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


__all__ = ["Check", "PHYSICAL_ONLY", "TOOLS", "map_caps", "net_capacitance", "parse_lyrdb",
           "parse_magic_drc", "powered_netlist", "signoff"]
