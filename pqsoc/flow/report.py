# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""`make report` / `pqsoc ppa`: synthesis + STA (+ block benchmarks) -> reports/ppa.json, ppa.md, ppa.png.

All figures are computed before anything is written; on any failure the old reports are removed,
so reports/ never holds an empty or stale PPA report.
"""
import datetime as dt
import json
import re
import subprocess
from pathlib import Path

from pqsoc import BUILD, REPORTS, FlowError
from pqsoc.flow import block as blocks_mod
from pqsoc.flow.pdk import PDK, find_pdk, open_pdks_rev
from pqsoc.flow import sta as sta_mod
from pqsoc.flow import synth as synth_mod
from pqsoc.flow import fanout
from pqsoc.flow import provenance

OUTPUTS = ("ppa.json", "ppa.md", "ppa.png")


def lef_size_um(lef: Path) -> tuple[float, float]:
    m = re.search(r"^\s*SIZE\s+([\d.]+)\s+BY\s+([\d.]+)", lef.read_text(), re.M)
    if not m:
        raise FlowError(f"no SIZE in {lef}")
    return float(m.group(1)), float(m.group(2))


def tool_versions() -> dict:
    from pyosys import libyosys as ys
    vers = {"yosys": ys.yosys_maybe_version().split(" (")[0].removeprefix("Yosys ")}
    try:
        vers["opensta"] = subprocess.run(["sta", "-version"], capture_output=True, text=True).stdout.strip()
    except FileNotFoundError:
        vers["opensta"] = None
    import amaranth
    vers["amaranth"] = amaranth.__version__
    return vers


def _flop_nets(text: str) -> dict[str, str]:
    return {m.group(1): m.group(2).strip().lstrip("\\").replace(" [", "[") for m in
            re.finditer(r"^  sky130_fd_sc_hd__\w*df\w* (\S+) \(.*?\.Q\(([^)]*)\)", text, re.M | re.S)}


def register_names(netlist: Path, top: str | None = None) -> dict[str, str]:
    """Instance name -> the net its Q pin drives, so a path reads `busy -> st[123]`. In a netlist
    with kept modules (Block.keep_hierarchy) a flop inside one is named as OpenSTA names it,
    by its instance path (`pqc.acc/_123_`), and its net gets the same prefix
    (`pqc.acc.core.ir[16]`)."""
    text = netlist.read_text()
    mods = {name: text[s:e] for name, s, e in fanout.split_modules(text)}
    if len(mods) <= 1:
        return _flop_nets(text)
    if top is None:
        inner = {cell for body in mods.values() for cell, _, _ in fanout.instances_of(body, mods)}
        tops = [m for m in mods if m not in inner]
        if len(tops) != 1:
            raise FlowError(f"{netlist}: cannot tell the top module among {', '.join(tops)}")
        top = tops[0]
    names: dict[str, str] = {}

    def walk(mod: str, inst_prefix: str, net_prefix: str) -> None:
        body = mods[mod]
        names.update({inst_prefix + i: net_prefix + q for i, q in _flop_nets(body).items()})
        for cell, inst, _ in fanout.instances_of(body, mods):
            walk(cell, f"{inst_prefix}{inst}/", f"{net_prefix}{inst}.")
    walk(top, "", "")
    return names


def load_results(name: str) -> tuple[dict, dict]:
    """The stored synthesis manifest and STA result of a block, refused if stale (RTL changed since
    synthesis, or STA run on another netlist)."""
    syn = synth_mod.load_manifest(name, check_rtl=True)
    path = BUILD / "sta" / name / "sta.json"
    if not path.is_file():
        raise FlowError(f"no STA result for {name}: run `pqsoc sta {name}` first")
    tim = json.loads(path.read_text())
    if tim.get("netlist_sha256") != syn["netlist_sha256"]:
        raise FlowError(f"STA result of {name} is for another netlist: run `pqsoc sta {name}` again")
    return syn, tim


def block_entry(name: str, reuse: bool = False) -> dict:
    """One block's PPA figures: synthesis and STA are run again unless reuse, which takes the
    stored results of `pqsoc synth/sta` (checked against the current RTL)."""
    block = blocks_mod.get(name)
    pdk = find_pdk()
    if reuse:
        syn, tim = load_results(name)
    else:
        syn = synth_mod.synth(name)
        tim = sta_mod.sta(name)
    macros = {}
    for m in block.macros:
        w, h = lef_size_um(pdk.sram(m, "lef"))
        count = syn["cells_by_type"].get(m, 0)
        macros[m] = {"count": count, "w_um": w, "h_um": h, "area_um2": round(count * w * h, 1)}
    macro_area = sum(v["area_um2"] for v in macros.values())
    macro_count = sum(v["count"] for v in macros.values())
    logic_area = syn["area_um2"] - macro_area   # Yosys counts macro area too when their Liberty has one
    regs = register_names(synth_mod.synth_dir(name) / "netlist.v", block.top)

    def reg(x: str) -> str:
        """A flop by the net it drives; anything else (a macro inside a kept module,
        `pqc.acc/imem.ram_r0_c0`) by its dotted path. OpenSTA may escape the dots of a
        hierarchical instance name."""
        plain = x.replace("\\", "")
        return regs.get(x) or regs.get(plain) or plain.replace("/", ".")
    for v in tim["corners"].values():
        cp = v["critical_path"]
        cp["start"], cp["end"] = reg(cp["start"]), reg(cp["end"])
    by_type = dict(sorted(syn["cells_by_type"].items(), key=lambda kv: -kv[1]))
    entry = {
        "description": block.description,
        "top": block.top,
        "period_ns": syn["period_ns"],
        "cells": syn["cells"],
        "logic_cells": syn["cells"] - macro_count,
        "macro_count": macro_count,
        "flops": sum(v for k, v in by_type.items() if re.search(r"__(s?df|edf|dl)", k)),
        "area_um2": {"logic": round(logic_area, 1), "macros": round(macro_area, 1),
                     "total": round(logic_area + macro_area, 1)},
        "macros": macros,
        "fanout_buffers": syn["fanout_buffers"],
        "fmax_mhz": {c: v["fmax_mhz"] for c, v in tim["corners"].items()},
        "critical_path": {c: v["critical_path"] | {"delay_ns": v["critical_path_ns"]}
                          for c, v in tim["corners"].items()},
        "io_slack_ns": {c: {g: (p["slack_ns"] if p else None) for g, p in v["paths"].items()
                            if g not in ("reg2reg", "mem2reg")}
                        for c, v in tim["corners"].items()},
        "hold_slack_ns": {c: v["hold_slack_ns"] for c, v in tim["corners"].items()},
        "cells_by_type": by_type,
        "netlist_sha256": syn["netlist_sha256"],
    }
    if block.floorplan is not None:
        # the checked floorplan (placed macros, halos, channels, power, rows), or why it could not run
        try:
            entry["floorplan"] = block.floorplan(entry)
        except FlowError as e:
            entry["floorplan"] = {"fits": None, "status": "not-run", "reason": str(e)}
    if block.macros:
        entry["macro_timing"] = ("SRAM macro Liberty exists only for TT (tt_1p8V_25C, OpenRAM analytical "
                                 "timing); it is used at every STA corner, so macro delays at ss are optimistic")
    if block.notes:
        entry["notes"] = block.notes
    if block.bench is not None:
        print(f"[ppa] {name}: running its benchmark", flush=True)
        entry["perf"] = block.bench()
    return entry


def render_md(data: dict) -> str:
    lines = ["# PPA report (generated by `make report`; do not edit)", "",
             f"Generated {data['generated']} with {data['pdk']['name']} ({data['pdk']['library']}), "
             f"Yosys {data['tools']['yosys']}, OpenSTA {data['tools']['opensta']}.", "",
             "fmax is register-to-register: 1 / (period - slack). Constraints: "
             + ", ".join(f"{k} {v}" for k, v in data["constraints"].items() if k != "liberty") + ".",
             "Area is standard-cell area from Liberty (before placement, no fill/tap cells) plus SRAM macro "
             "area from the macros' LEF. Cells synthesis may not use: pnr/sky130_fd_sc_hd.synth_exclude.cells "
             "and the PDK's drc_exclude.cells (as OpenLane's synthesis with pnr/*/config.json).", "",
             "| block | period ns | logic cells | flops | logic um2 | macros | macros um2 | total um2 "
             "| fmax tt MHz | fmax ss MHz | critical path (tt) |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|"]
    for name, b in data["blocks"].items():
        cp = b["critical_path"]["tt"]
        nmac = b.get("macro_count", 0)
        lines.append(f"| {name} | {b['period_ns']} | {b.get('logic_cells', b['cells'] - nmac)} | {b['flops']} | "
                     f"{b['area_um2']['logic']:.0f} | {nmac} | {b['area_um2']['macros']:.0f} | "
                     f"{b['area_um2']['total']:.0f} | {b['fmax_mhz']['tt']} | {b['fmax_mhz']['ss']} | "
                     f"{cp['start']} -> {cp['end']} ({cp['delay_ns']} ns) |")
    for name, b in data["blocks"].items():
        if b.get("macros"):
            lines += ["", f"## {name}: SRAM macros (area from the LEF SIZE)", "",
                      "| macro | count | size um | area um2 |", "|---|---:|---|---:|"]
            lines += [f"| {m} | {v['count']} | {v['w_um']} x {v['h_um']} | {v['area_um2']:.0f} |"
                      for m, v in b["macros"].items()]
            cps = b["critical_path"]["ss"]
            lines += ["", f"Critical path (ss): {cps['start']} -> {cps['end']} ({cps['delay_ns']} ns)."]
        if b.get("floorplan"):
            f = b["floorplan"]
            if f.get("status") == "not-run":
                verdict = f"not checked: {f['reason']}"
            else:
                failed = [c["name"] for c in f.get("checks", []) if not c["ok"]]
                verdict = ("fits, every check passes" if f["fits"] else f"does NOT fit (failed: {', '.join(failed)})")
                if f.get("utilisation") is not None:
                    verdict += f"; standard cells at {f['utilisation']:.1%} of the cell rows"
            lines += ["", f"Floorplan ({name}): {verdict}" + (f" ({f['report']})" if f.get("report") else "") + "."]
        if b.get("adds"):
            a = b["adds"]
            lines += ["", f"What {a['feature']} adds ({name} against {a['against']}): {a['logic_um2']:+.0f} um2 "
                      f"of logic (x{a['logic_ratio']}), {a['cells']:+d} cells, {a['flops']:+d} flops, fmax "
                      + ", ".join(f"{c} {v:+} MHz" for c, v in a["fmax_mhz"].items()) + "."]
        for key in ("macro_timing", "notes"):
            if b.get(key):
                lines += ["", f"Note ({name}): {b[key].rstrip('.')}."]
        if b.get("perf"):
            lines += ["", f"## {name}: measured performance", "", "| figure | value |", "|---|---:|"]
            lines += [f"| {k} | {v} |" for k, v in b["perf"].items()]
        lines += ["", f"## {name}: I/O slack (ns, constraints above)", "",
                  "| corner | " + " | ".join(next(iter(b["io_slack_ns"].values())).keys()) + " |",
                  "|---|" + "---:|" * len(next(iter(b["io_slack_ns"].values())))]
        for c, groups in b["io_slack_ns"].items():
            lines.append(f"| {c} | " + " | ".join("-" if v is None else str(v) for v in groups.values()) + " |")
        lines += ["", "Top cell types: " + ", ".join(f"{k.split('__')[-1]} {v}"
                                                       for k, v in list(b["cells_by_type"].items())[:10])]
    lines += ["", "![area and fmax](ppa.png)", ""]
    return "\n".join(lines)


def plot(data: dict, path: Path) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    names = list(data["blocks"])
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(9, 3.2))
    logic = [data["blocks"][n]["area_um2"]["logic"] / 1e6 for n in names]
    macro = [data["blocks"][n]["area_um2"]["macros"] / 1e6 for n in names]
    a1.barh(names, logic, label="logic")
    a1.barh(names, macro, left=logic, label="SRAM macros")
    a1.set_xlabel("area (mm2)")
    a1.legend(fontsize=8)
    for i, corner in enumerate(("tt", "ss")):
        a2.barh([y + 0.4 * i for y in range(len(names))], [data["blocks"][n]["fmax_mhz"][corner] for n in names],
                height=0.4, label=corner)
    a2.set_yticks([y + 0.2 for y in range(len(names))], names)
    a2.axvline(50, color="k", lw=0.8, ls="--", label="50 MHz target")
    a2.set_xlabel("fmax reg2reg (MHz)")
    a2.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110, format="png")
    plt.close(fig)


def added(entry: dict, base: dict, base_name: str, what: str) -> dict:
    """What a block's one feature more costs against its baseline block's figures."""
    return {"feature": what, "against": base_name,
            "logic_um2": round(entry["area_um2"]["logic"] - base["area_um2"]["logic"], 1),
            "logic_ratio": round(entry["area_um2"]["logic"] / base["area_um2"]["logic"], 3),
            "cells": entry["cells"] - base["cells"], "flops": entry["flops"] - base["flops"],
            "fmax_mhz": {c: round(v - base["fmax_mhz"][c], 1) for c, v in entry["fmax_mhz"].items()}}


def ppa(names: list[str] | None = None, reuse: bool = False) -> dict:
    """reuse: take each block's stored synthesis/STA results (see block_entry) instead of running them."""
    names = names or list(blocks_mod.BLOCKS)
    if reuse:
        # a missing or stale stored result is bad input, not a failed step: refuse it before
        # anything is written, so the reports already there stay
        for name in names:
            load_results(name)
    REPORTS.mkdir(exist_ok=True)
    try:
        pdk = find_pdk()
        data = {
            "generated": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
            "provenance": provenance.stamp(),     # the design these figures describe
            "pdk": {"name": PDK, "library": "sky130_fd_sc_hd", "root_is_full_install": (pdk.root / PDK / "libs.ref" / "sky130_fd_pr").is_dir(),
                    "open_pdks_rev_for_full_install": open_pdks_rev()},
            "tools": tool_versions(),
            "constraints": {"uncertainty_ns": sta_mod.UNCERTAINTY_NS, "io_delay_fraction": sta_mod.IO_DELAY_FRACTION,
                            "wire_load": sta_mod.WIRE_LOAD, "derate_late": sta_mod.DERATE_LATE,
                            "max_fanout": synth_mod.fanout.MAX_FANOUT,
                            "liberty": {c: f"sky130_fd_sc_hd__{v}" for c, v in
                                        {"tt": "tt_025C_1v80", "ss": "ss_n40C_1v40"}.items()}},
            "blocks": {},
        }
        for i, name in enumerate(names, 1):
            print(f"[ppa] block {i}/{len(names)}: {name}", flush=True)
            data["blocks"][name] = block_entry(name, reuse=reuse)
        for name, entry in data["blocks"].items():
            base = blocks_mod.get(name).baseline
            if base and base[0] in data["blocks"]:
                entry["adds"] = added(entry, data["blocks"][base[0]], *base)
        md = render_md(data)
        plot(data, REPORTS / "ppa.png.tmp")
    except BaseException:
        for f in OUTPUTS:
            (REPORTS / f).unlink(missing_ok=True)
        (REPORTS / "ppa.png.tmp").unlink(missing_ok=True)
        raise
    (REPORTS / "ppa.png.tmp").replace(REPORTS / "ppa.png")
    (REPORTS / "ppa.json").write_text(json.dumps(data, indent=2) + "\n")
    (REPORTS / "ppa.md").write_text(md)
    print(f"[ppa] wrote {REPORTS / 'ppa.json'} and ppa.md ({len(names)} blocks)", flush=True)
    return data
