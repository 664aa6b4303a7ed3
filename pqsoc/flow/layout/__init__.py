# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""Local layout of a synthesized block with an installable engine: Coriolis (coriolis-eda on PyPI;
placer Etesian, router Katana), set up for sky130_fd_sc_hd from the PDK's tech LEF and cell LEF
(pqsoc.flow.layout.coriolis_tech), checked with Magic's DRC.

Steps, each with its log under build/layout/<block>/:
  blif    the synthesized gate netlist to BLIF, Coriolis' netlist format (Yosys)      blif.log
  pnr     floorplan, placement, well taps, fill, pins, routing; DEF and GDS          pnr.log
  gds     the routed GDS with the PDK's cell GDS in place of the abstracts (KLayout)  gds.log
  drc     Magic full DRC of that GDS with the PDK's tech file                         drc.log
Results: build/layout/<block>/layout.json and reports/layout.json (per block). A step that
fails, an incomplete route or a DRC error raises FlowError naming the step and its log; the
results written before the failure stay (with the failure in them), nothing claims a clean
layout it did not get.
"""
import json
import re
import shutil
import subprocess
import sys
import time
from importlib import metadata
from pathlib import Path

from pqsoc import BUILD, REPO, REPORTS, FlowError
from pqsoc.flow.pdk import PDK, SCL, find_pdk

STEPS = ("blif", "pnr", "gds", "drc")


def layout_dir(name: str) -> Path:
    return BUILD / "layout" / name


def tool_versions() -> dict:
    versions = {}
    for dist in ("coriolis-eda", "pyosys", "klayout"):
        try:
            versions[dist] = metadata.version(dist)
        except metadata.PackageNotFoundError:
            versions[dist] = None
    try:
        out = subprocess.run(["magic", "--version"], capture_output=True,
                             text=True, timeout=30).stdout.strip()
        versions["magic"] = out or None
    except (OSError, subprocess.TimeoutExpired):
        versions["magic"] = None
    return versions


# ---------------------------------------------------------------------------------------------
# PDK facts: the OpenLane configuration of the library names the tap, fill and decap cells, the
# tap distance and the supply pins; the cell LEF gives the cells that exist.

def _tcl_env(path: Path) -> dict[str, str]:
    env = {}
    for m in re.finditer(r'^\s*set\s+::env\((\w+)\)\s+(?:"([^"]*)"|(\S+))', path.read_text(), re.M):
        env[m.group(1)] = m.group(2) if m.group(2) is not None else m.group(3)
    return env


def lef_macros(cell_lef: Path) -> dict[str, float]:
    """Macro name -> width (um) of a cell LEF."""
    out = {}
    for m in re.finditer(r"^MACRO\s+(\S+)\s*$(.*?)^END\s+\1\s*$", cell_lef.read_text(), re.M | re.S):
        size = re.search(r"^\s*SIZE\s+([\d.]+)\s+BY\s+([\d.]+)", m.group(2), re.M)
        if size:
            out[m.group(1)] = float(size.group(1))
    return out


def pdk_facts(pdk) -> dict:
    base = pdk.base
    cfg = {**_tcl_env(base / "libs.tech" / "openlane" / "config.tcl"),
           **_tcl_env(base / "libs.tech" / "openlane" / SCL / "config.tcl")}
    need = ("FP_WELLTAP_CELL", "FP_TAPCELL_DIST", "FILL_CELL", "DECAP_CELL", "VDD_PIN", "GND_PIN",
            "PLACE_SITE", "SYNTH_TIELO_PORT")
    missing = [k for k in need if k not in cfg]
    if missing:
        raise FlowError(f"PDK OpenLane config lacks {', '.join(missing)} "
                        f"({base / 'libs.tech' / 'openlane'})")
    cell_lef = base / "libs.ref" / SCL / "lef" / f"{SCL}.lef"
    tech_lef = base / "libs.ref" / SCL / "techlef" / f"{SCL}.tlef"
    for p in (cell_lef, tech_lef):
        if not p.is_file():
            raise FlowError(f"missing PDK file {p}")
    macros = lef_macros(cell_lef)
    # GDS numbers of the drawn layers, for the routing Coriolis writes
    from pqsoc.flow.pdk_overlay import lefdef_table
    table = lefdef_table(base / "libs.tech" / "klayout" / f"{PDK}.lyt")
    gds_layers = {k.split(".")[0]: [int(v) for v in n.split("/")]
                  for k, n in table.items() if k.endswith(".drawing")}
    # fillers: the library's decap and fill cells (widest first), so a gap of any width closes
    fills = sorted((m for m in macros if m.startswith((cfg["DECAP_CELL"], cfg["FILL_CELL"]))),
                   key=lambda m: (-macros[m], m))
    if not any(macros[m] == min(macros.values()) for m in fills):
        raise FlowError(f"no one-site filler among {fills}")
    return {
        "tech_lef": str(tech_lef), "cell_lef": str(cell_lef),
        "cell_gds": str(base / "libs.ref" / SCL / "gds" / f"{SCL}.gds"),
        "magic_tech": str(base / "libs.tech" / "magic" / f"{PDK}.tech"),
        "site": cfg["PLACE_SITE"], "tap_cell": cfg["FP_WELLTAP_CELL"],
        "tap_distance_um": float(cfg["FP_TAPCELL_DIST"]), "fill_cells": fills,
        "power": cfg["VDD_PIN"], "ground": cfg["GND_PIN"],
        "tie_cell": cfg["SYNTH_TIELO_PORT"].split()[0],
        "gds_layers": gds_layers,
    }


# ---------------------------------------------------------------------------------------------
# Engine settings: what the probe of docs/layout_probe.md found to route best.

ENGINE = {
    "pin_layer": "li1",            # the cells' pins; reached from met1 through mcon
    "top_layer": "met5",
    "power_layers": ["met5"],      # left to a power grid
    "route_top_layer": "met4",
    "net_builder": "HV,3RL+",      # met1 (the first routing layer) is horizontal
    "pin_layer_ns": "met2",        # I/O pins on the north/south edges
    "pin_layer_ew": "met3",        # and on the east/west edges
    "placement_effort": 2,
    "margin_um": 3.0,              # free tracks around the rows (Katana fails on die-edge tracks)
    "aspect": 1.0,
    "buffer_cell": f"{SCL}__buf_2",
}


def _run(cmd: list[str], log: Path, step: str, timeout_s: float, cwd: Path | None = None) -> str:
    t = time.time()
    print(f"[layout] {step} (log: {log})", flush=True)
    try:
        with open(log, "w") as f:
            r = subprocess.run(cmd, stdout=f, stderr=subprocess.STDOUT, cwd=cwd, timeout=timeout_s)
    except subprocess.TimeoutExpired:
        raise FlowError(f"layout step {step}: timed out after {timeout_s:.0f} s (log: {log})")
    text = log.read_text(errors="replace")
    if r.returncode not in (0, 1) or (r.returncode == 1 and step != "pnr"):
        last = [ln for ln in text.splitlines() if ln.strip()][-1:] or ["no output"]
        raise FlowError(f"layout step {step} failed (exit {r.returncode}): {last[0][:200]} "
                        f"(log: {log})")
    print(f"[layout] {step}: {time.time() - t:.1f} s", flush=True)
    return text


def write_blif(netlist: Path, top: str, liberty: Path, out: Path) -> Path:
    blif = out / f"{top}.blif"
    script = out / "blif.ys"
    script.write_text(f"read_liberty -lib {liberty}\nread_verilog {netlist}\n"
                      f"hierarchy -check -top {top}\nwrite_blif -impltf {blif}\n")
    from pqsoc.flow.synth import run_yosys
    run_yosys(script, out / "blif.log", "layout step blif")
    return blif


def katana_stats(log: str) -> dict:
    """Katana's closing statistics: routed/unrouted segments and wire length."""
    out = {}
    m = re.search(r"Track Segment Completion Ratio \.+ ([\d.]+)% \[(\d+)\+(\d+)\]", log)
    if m:
        out["segments_routed"], out["segments_unrouted"] = int(m.group(2)), int(m.group(3))
        out["segment_completion_pct"] = float(m.group(1))
    m = re.search(r"Wire Length Completion Ratio \.+ ([\d.]+)% \[([\d.]+)um\+([\d.]+)", log)
    if m:
        out["wire_length_um"] = float(m.group(2))
        out["wire_length_unrouted_um"] = float(m.group(3))
    elif "segments_routed" not in out and "Routing did not complete" not in log:
        m = re.search(r"Wire Length \.+ ([\d.]+)um", log)
        if m:
            out["wire_length_um"] = float(m.group(1))
    out["router_loop_reports"] = log.count("Katana has detected a loop")
    return out


def merge_gds(routed: Path, cells_gds: Path, out: Path) -> int:
    """The routed GDS with the PDK's cell layouts instead of the abstracts Coriolis wrote."""
    import klayout.db as kdb
    lay = kdb.Layout()
    lay.read(str(routed))
    top = lay.top_cell()
    prefix = f"{SCL}_"
    n = 0
    for c in list(lay.each_cell()):
        if c.cell_index() == top.cell_index():
            continue
        # Coriolis' BLIF reader names some masters with one underscore (sky130_fd_sc_hd_inv_1)
        if c.name.startswith(prefix) and not c.name.startswith(f"{SCL}__"):
            c.name = f"{SCL}__" + c.name[len(prefix):]
        c.clear()
        n += 1
    for li in list(lay.layer_indexes()):
        # Coriolis' own layers (abutment boxes, blockages) are datatype 0, no sky130 layer
        if lay.get_info(li).datatype == 0:
            lay.clear_layer(li)
    top_name = top.name
    lay.read(str(cells_gds))
    for c in list(lay.top_cells()):     # the library's cells that the design does not use
        if c.name != top_name:
            lay.prune_cell(c.cell_index(), -1)
    lay.write(str(out))
    return n


def render_png(gds: Path, png: Path, full_depth: bool) -> None:
    """A picture of the layout (KLayout): every level for a small design, else the routing
    over the cell outlines."""
    import klayout.lay as klay
    view = klay.LayoutView()
    view.load_layout(str(gds), True)
    if full_depth:
        view.max_hier()
    else:                   # the top level (routing) and the outlines of the cells
        view.max_hier_levels = 1
    view.zoom_fit()
    view.save_image(str(png), 1000, 1000)


def magic_tech(pdk_tech: Path, out: Path) -> Path:
    """Debian's magic 8.3.105 segfaults on the PDK tech file's `requires magic-8.3.111`: a copy
    with that line commented out."""
    text = pdk_tech.read_text()
    patched, n = re.subn(r"(?m)^(\s*)(requires\s+magic-\S+)", r"\1# \2 (pqsoc: for magic 8.3.105)",
                         text, count=1)
    tech = out / pdk_tech.name
    tech.write_text(patched)
    return tech


DRC_TCL = """\
gds read {gds}
load {top}
select top cell
drc euclidean on
drc style drc(full)
drc check
drc catchup
set total [drc list count total]
puts "PQSOC_DRC_TOTAL $total"
# listing every error box takes Magic minutes when there are 10^5 of them
if {{$total <= {max_listed}}} {{
    foreach {{msg boxes}} [drc listall why] {{ puts "PQSOC_DRC_RULE [llength $boxes] $msg" }}
}}
quit -noprompt
"""


DRC_MAX_LISTED = 20000     # above this many errors, no count per rule


def magic_drc(gds: Path, top: str, tech: Path, out: Path, timeout_s: float) -> dict:
    script = out / "drc.tcl"
    script.write_text(DRC_TCL.format(gds=gds, top=top, max_listed=DRC_MAX_LISTED))
    log = out / "drc.log"
    text = _run(["magic", "-dnull", "-noconsole", "-T", str(tech.resolve()), str(script.resolve())],
                log, "drc", timeout_s, cwd=out)
    if "Failed to load technology" in text:
        raise FlowError(f"layout step drc: Magic could not load {tech} (log: {log})")
    m = re.search(r"^PQSOC_DRC_TOTAL (\d+)", text, re.M)
    if not m:
        raise FlowError(f"layout step drc: Magic gave no DRC count (log: {log})")
    # per rule: the number of error boxes Magic lists (one error can span several boxes)
    rules = {msg.strip(): int(n) for n, msg in re.findall(r"^PQSOC_DRC_RULE (\d+) (.*)$", text, re.M)}
    total = int(m.group(1))
    return {"tool": "magic", "errors": total,
            "by_rule": rules if total <= DRC_MAX_LISTED else None}


def layout_netlist(name: str, netlist: Path, top: str, *, utilisation: float = 0.5,
                   route: bool = True, timeout_s: float = 3600.0, out: Path | None = None) -> dict:
    """Place, route and check one gate netlist; results in out/layout.json."""
    if not 0 < utilisation <= 1:
        raise FlowError(f"layout of {name}: utilisation {utilisation} is not in (0, 1]")
    pdk = find_pdk()
    out = (out or layout_dir(name)).resolve()
    out.mkdir(parents=True, exist_ok=True)
    for stale in ("layout.json", "pnr.json", f"{top}.gds", f"{top}_export.def", "full.gds"):
        (out / stale).unlink(missing_ok=True)
    facts = pdk_facts(pdk)
    result = {"block": name, "top": top, "engine": "coriolis", "utilisation_target": utilisation,
              "tools": tool_versions(), "seconds": {}, "status": "running"}

    def save(status: str) -> None:
        result["status"] = status
        (out / "layout.json").write_text(json.dumps(result, indent=2) + "\n")

    try:
        t = time.time()
        print(f"[layout] blif (log: {out / 'blif.log'})", flush=True)
        blif = write_blif(netlist, top, pdk.liberty("tt"), out)
        result["seconds"]["blif"] = round(time.time() - t, 1)

        job = {**facts, **ENGINE, "out": str(out.resolve()), "top": top, "blif": blif.name,
               "clock_regex": "^clk$", "utilisation": utilisation, "route": route}
        (out / "job.json").write_text(json.dumps(job, indent=2) + "\n")
        t = time.time()
        text = _run([sys.executable, "-m", "pqsoc.flow.layout.pnr", str(out / "job.json")],
                    out / "pnr.log", "pnr", timeout_s)
        result["seconds"]["pnr"] = round(time.time() - t, 1)
        pnr = json.loads((out / "pnr.json").read_text()) if (out / "pnr.json").is_file() else {}
        if pnr:
            result.update({k: pnr[k] for k in ("cells", "taps", "fillers", "rows", "io_pins")})
            result["core_um"] = [round(v, 3) for v in pnr["core_um"]]
            result["die_um"] = [round(v, 3) for v in pnr["die_um"]]
            result["cell_area_um2"] = round(pnr["cell_area_um2"], 2)
            core = pnr["core_um"][0] * pnr["core_um"][1]
            result["utilisation"] = round(pnr["cell_area_um2"] / core, 4)
            result["cells_after_fill"] = pnr["cells"] + pnr["taps"] + pnr["fillers"]
            result["steps_s"] = pnr["seconds"]
        if not pnr.get("complete"):
            steps = re.findall(r"^\[pnr\] (?!core )(.*)$", text, re.M)
            errors = [ln for ln in text.splitlines() if "Error" in ln or "ERROR" in ln]
            result["failed_step"] = steps[-1] if steps else "start-up"
            result["error"] = errors[-1].strip()[:300] if errors else None
            raise FlowError(f"layout step pnr failed at `{result['failed_step']}`"
                            + (f": {result['error']}" if result["error"] else "")
                            + f" (log: {out / 'pnr.log'})")
        result["routed"] = pnr["detailed_routing_success"]
        result.update(katana_stats(text))

        t = time.time()
        print(f"[layout] gds (log: {out / 'gds.log'})", flush=True)
        n = merge_gds(out / f"{top}.gds", Path(facts["cell_gds"]), out / "full.gds")
        (out / "gds.log").write_text(f"{n} cell masters replaced by the PDK's GDS\n")
        gds = (out / "full.gds").resolve()
        result["gds"] = str(gds.relative_to(REPO) if gds.is_relative_to(REPO) else gds)
        render_png(out / "full.gds", out / "layout.png", full_depth=pnr["cells"] <= 2000)
        result["seconds"]["gds"] = round(time.time() - t, 1)

        t = time.time()
        tech = magic_tech(Path(facts["magic_tech"]), out)
        result["drc"] = magic_drc(out / "full.gds", top, tech, out, timeout_s)
        result["seconds"]["drc"] = round(time.time() - t, 1)
    except FlowError:
        save("failed")
        raise
    if route and not result["routed"]:
        save("unrouted")
        raise FlowError(f"layout of {name}: step route left {result.get('segments_unrouted', '?')} "
                        f"segments unrouted ({result.get('wire_length_unrouted_um', '?')} um of "
                        f"wire) and Magic counts {result['drc']['errors']} DRC errors "
                        f"(log: {out / 'pnr.log'}, {out / 'drc.log'})")
    if result["drc"]["errors"]:
        save("drc errors")
        raise FlowError(f"layout of {name}: step drc: {result['drc']['errors']} Magic DRC errors "
                        f"(log: {out / 'drc.log'})")
    save("clean" if route else "placed")
    return result


def record(result: dict, reports: Path | None = None) -> Path:
    """Merge one block's result into reports/layout.json."""
    reports = reports or REPORTS
    reports.mkdir(parents=True, exist_ok=True)
    path = reports / "layout.json"
    data = json.loads(path.read_text()) if path.is_file() else {"blocks": {}}
    data["blocks"][result["block"]] = result
    path.write_text(json.dumps(data, indent=2) + "\n")
    return path


def layout(name: str, utilisation: float = 0.5, timeout_s: float = 3600.0) -> dict:
    """`pqsoc layout BLOCK`: the block's synthesized netlist through the layout steps."""
    from pqsoc.flow import synth
    manifest = synth.load_manifest(name)
    netlist = synth.synth_dir(name) / "netlist.v"
    out = layout_dir(name)
    (out / "layout.json").unlink(missing_ok=True)
    try:
        result = layout_netlist(name, netlist, manifest["top"], utilisation=utilisation,
                                timeout_s=timeout_s, out=out)
    finally:
        if (out / "layout.json").is_file():
            path = record(json.loads((out / "layout.json").read_text()))
            if (out / "layout.png").is_file():
                shutil.copyfile(out / "layout.png", path.parent / f"layout_{name}.png")
    return result
