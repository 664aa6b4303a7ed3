# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""DRC of a finished layout (signoff.py): Magic reads it (a DEF from the PDK's cell views,
or a GDS), writes its GDS, runs the full DRC deck and extracts the netlists for LVS and
the parasitics (run_magic); the PDK's KLayout runset on the GDS (run_klayout); a DEF's
KLayout GDS XORed with Magic's (run_stream_xor). Version notes: signoff.py.
"""
import json
import re
import time
import xml.etree.ElementTree as ET
from pathlib import Path

from pqsoc import FlowError
from pqsoc.flow.pdk import PDK, SCL, Pdk
from pqsoc.flow.signoff_check import Check, find_tool, run_tool


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
# written by pqsoc/flow/signoff_drc.py
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
# written by pqsoc/flow/signoff_drc.py: read, GDS, DRC, extraction (LVS and RC)
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
    rcode = run_tool([find_tool("magic"), "-dnull", "-noconsole", "-rcfile", str(rc), str(script)], work, log, timeout)
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
    rcode = run_tool([find_tool("klayout"), "-b", "-r", str(runset), "-rd", f"input={gds}", "-rd", f"report={report}"],
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
# written by pqsoc/flow/signoff_drc.py: the DEF streamed out by KLayout (PDK LEF, cell GDS, a layer
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
    rcode = run_tool([find_tool("klayout"), "-b", "-r", str(script)], work, log, timeout)
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
