# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""The tape-out floorplans, computed from the block definitions and checked (pqsoc/flow/floorplan.py).

Hierarchy planned for Caravel's user_project_wrapper:
- the ACC hard macro (block `acc`): its 16 SRAM macros (IMEM + DMEM, ip/acc/block.py) and its
  logic, in a die this module sizes;
- the KMAC hard macro (block `kmac`): logic only, in a die sized from its logic area;
- the CPU's boot RAM and main SRAM on SRAM macros at the wrapper's top level (soc/target.py);
- the top-level standard cells: Ibex, the LiteX bus and peripherals, glue (block `soc`'s logic
  minus the ACC's and the KMAC's).

Logic areas are the synthesized blocks' (build/synth/<block>/synth.json, checked against their
netlists); die, core, grid and power grid are Caravel's (CARAVEL_ROOT), macro sizes, pins and
power pins their LEFs' (PDK_ROOT), routing pitches the tech LEF's. `pqsoc floorplan` writes
reports/floorplan.{json,png,md}.
"""
import dataclasses
import json
import math
import os
from pathlib import Path

from ip.acc import block as acc_block
from pqsoc import REPO, REPORTS, FlowError
from pqsoc.flow import caravel, openlane
from pqsoc.flow import floorplan as fpm
from pqsoc.flow import pdk_overlay
from pqsoc.flow.pdk import SCL, find_pdk

# LibreLane's FP_MACRO_HORIZONTAL_HALO / FP_MACRO_VERTICAL_HALO default: no cell closer to a macro.
HALO_UM = 10.0
# Share of a channel's routing tracks the SRAM pins may take (the rest: the cells' own wiring,
# detours, the power grid's vias); the channel an SRAM pin edge needs follows from it and the
# tech LEF's pitches (floorplan.channel_widths).
TRACK_USE = 0.5
# A hard macro's pins sit in front of the logic they connect to (its pin order), so its wires
# cross the channel instead of running along it: the channel holds glue cells, 50 um ~ 18 rows.
HARD_MACRO_CHANNEL_UM = 50.0
# Hard macros get their pins on met2 (OpenLane's vertical I/O layer) along one edge, which the
# placer turns towards the cell region.
HARD_MACRO_PIN_LAYER = "met2"
# The standard-cell utilisation a region may have: the project's OpenLane FP_CORE_UTIL.
MAX_UTIL = openlane.DEFAULTS["FP_CORE_UTIL"] / 100
SIGNAL_PIN_LAYERS = ("met2", "met3", "met4")
# Memory sizes the figures compare (KiB): CPU boot RAM x main SRAM; the ACC stays at its block's.
BOOT_RAM_OPTIONS_KIB = (16, 8, 4)
MAIN_SRAM_OPTIONS_KIB = (8, 4, 2)
BLOCKS = ("acc", "kmac", "soc")


@dataclasses.dataclass(frozen=True)
class Context:
    """Everything read once: Caravel's wrapper, the PDK's macro and routing facts, logic areas."""
    wrapper: caravel.Wrapper
    sram: fpm.Abstract
    tech: dict
    macro_pdn: dict          # the PDK's OpenLane PDN values for a hardened macro's own grid
    logic_um2: dict          # acc, kmac, top
    port_bits: dict          # acc, kmac: the hard macros' pins
    sources: dict
    acc_instances: tuple     # (instance path, cell) of the ACC's SRAM macros


def pdk_macro_pdn(pdk) -> dict:
    """A macro's own power grid as OpenLane builds it with this PDK: strap width / spacing from
    its libs.tech/openlane/config.tcl, pitch / offset from there or, for the 2021 subset that
    lacks them, the open_pdks values the overlay adds (pqsoc/flow/pdk_overlay.py)."""
    env = caravel.read_tcl_env([pdk.base / "libs.tech" / "openlane" / "config.tcl"])
    added = {name: value for name, value, _ in pdk_overlay.PDK_ADDITIONS}
    out = {}
    for key in ("FP_PDN_VWIDTH", "FP_PDN_VSPACING", "FP_PDN_VPITCH", "FP_PDN_VOFFSET",
                "FP_PDN_HWIDTH", "FP_PDN_HSPACING", "FP_PDN_HPITCH", "FP_PDN_HOFFSET"):
        v = env.get(key, added.get(key))
        if v is None:
            raise FlowError(f"PDK: {key} neither in its OpenLane config.tcl nor in the overlay's additions")
        out[key] = float(v)
    return out


# The figures the floorplan takes from synthesis (logic area, port bits, the netlist and RTL hashes
# they came from), committed, so that the floorplan check runs on a fresh clone without the
# syntheses (~30 min); `pqsoc floorplan --update-inputs` rewrites them from build/synth, and
# wherever those syntheses exist the check refuses inputs that differ from them.
INPUTS = REPO / "pnr" / "floorplan_inputs.json"


def synthesized_inputs() -> dict:
    """The floorplan's inputs from the stored syntheses (FlowError naming a missing one)."""
    from pqsoc.flow import synth
    out = {}
    for name in BLOCKS:
        try:
            mf = synth.load_manifest(name)
        except FlowError as e:
            raise FlowError(f"floorplan needs the logic area of block {name}: {e} "
                            f"(or `make report`)") from None
        entry = {"top": mf["top"], "cells": mf["cells"], "area_um2": round(mf["area_um2"], 1),
                 "cells_by_type": {c: n for c, n in mf["cells_by_type"].items() if c.startswith("sky130_sram_")},
                 "netlist_sha256": mf["netlist_sha256"], "rtl_sha256": mf["rtl_sha256"]}
        stat = synth.synth_dir(name) / "stat.json"
        if name in ("acc", "kmac"):
            mod = json.loads(stat.read_text())["modules"].get("\\" + mf["top"])
            if mod is None:
                raise FlowError(f"{stat} has no module {mf['top']}")
            entry["port_bits"] = mod["num_port_bits"]
        out[name] = entry
    return out


def update_inputs() -> Path:
    INPUTS.write_text(json.dumps(synthesized_inputs(), indent=1, sort_keys=True) + "\n")
    return INPUTS


def stored_inputs() -> tuple[dict, str]:
    """(inputs, where from): the syntheses when they exist (and then the committed file must
    equal them), else the committed file."""
    shown = INPUTS.relative_to(REPO) if INPUTS.is_relative_to(REPO) else INPUTS
    committed = json.loads(INPUTS.read_text()) if INPUTS.is_file() else None
    try:
        fresh = synthesized_inputs()
    except FlowError as e:
        if committed is None:
            raise FlowError(f"{e}; and {shown} is missing") from None
        return committed, f"{shown} (committed; no local synthesis)"
    if committed != fresh:
        diff = [n for n in BLOCKS if (committed or {}).get(n) != fresh[n]]
        raise FlowError(f"{shown} differs from the stored syntheses of "
                        f"{', '.join(diff)}: run `pqsoc floorplan --update-inputs` and commit it")
    return fresh, "build/synth (equal to the committed pnr/floorplan_inputs.json)"


def logic_figures() -> tuple[dict, dict, dict]:
    """Logic area (um2, standard cells before placement) of the ACC, the KMAC and the wrapper's
    top level (soc - acc - kmac) from the synthesis figures (stored_inputs), where each came
    from, and the port bits of the ACC and the KMAC (their pins as hard macros)."""
    pdk = find_pdk()
    inputs, origin = stored_inputs()
    sram_area = {}
    logic, sources = {}, {}
    for name in BLOCKS:
        mf = inputs[name]
        macro_area = 0.0
        for cell, count in mf["cells_by_type"].items():
            if cell not in sram_area:
                a = fpm.read_lef(pdk.sram(cell, "lef"))
                sram_area[cell] = a.w * a.h
            macro_area += count * sram_area[cell]
        logic[name] = mf["area_um2"] - macro_area
        sources[name] = (f"synthesis of block {name} (netlist sha256 {mf['netlist_sha256'][:12]}, "
                         f"{mf['cells']} cells; from {origin}): {logic[name]:.0f} um2 of logic")
    top = logic["soc"] - logic["acc"] - logic["kmac"]
    if top <= 0:
        raise FlowError(f"top-level logic soc - acc - kmac = {top:.0f} um2: the stored syntheses disagree")
    ports = {name: inputs[name]["port_bits"] for name in ("acc", "kmac")}
    sources["top"] = ("block soc's logic minus block acc's and block kmac's (the KMAC is flattened "
                      "into soc's netlist, so its share there is block kmac's own synthesis)")
    return {"acc": logic["acc"], "kmac": logic["kmac"], "top": top}, sources, ports


def acc_instances() -> tuple:
    """The ACC's SRAM macro instances by their path in block acc's emitted Verilog."""
    block = acc_block.ACC
    rtl = block.rtl_dir() / f"{block.top}.v"
    if not rtl.is_file():
        block.emit_rtl()
    found = fpm.macro_instances(rtl.read_text(), block.top, (acc_block.SRAM_MACRO,))
    expected = (acc_block.IMEM_SIZE + acc_block.DMEM_SIZE) // acc_block.MACRO_BYTES
    if len(found) != expected:
        raise FlowError(f"{rtl}: {len(found)} {acc_block.SRAM_MACRO} instances, block acc declares {expected}")
    return tuple(found)


def context(logic_um2: dict | None = None, port_bits: dict | None = None, instances: tuple | None = None) -> Context:
    """The facts the floorplans need; logic_um2 / instances given: those instead of the stored
    synthesis and the emitted Verilog (tests use fixture numbers)."""
    pdk = find_pdk()
    tech = fpm.read_tech_lef(pdk.base / "libs.ref" / SCL / "techlef" / f"{SCL}.tlef")
    sources = {"logic": "given (fixture)"}
    if logic_um2 is None:
        logic_um2, sources, port_bits = logic_figures()
    if instances is None:
        instances = acc_instances()
    return Context(wrapper=caravel.wrapper(), sram=fpm.read_lef(pdk.sram(acc_block.SRAM_MACRO, "lef")),
                   tech=tech, macro_pdn=pdk_macro_pdn(pdk), logic_um2=dict(logic_um2),
                   port_bits=dict(port_bits), sources=sources, acc_instances=tuple(instances))


def _sram(ctx: Context, name: str) -> fpm.Macro:
    ch = fpm.channel_widths(ctx.sram, ctx.tech["routing"], ctx.wrapper.rt_max_layer, TRACK_USE, HALO_UM)
    # the edge with the most pins (port 0's data, on met4) towards the cells
    face = max(ctx.sram.edge_pins().items(), key=lambda kv: sum(kv[1].values()))[0]
    return fpm.Macro(name, ctx.sram, HALO_UM, ch, face=face)


def core_margins(ctx: Context) -> tuple[float, float]:
    """A hard macro's die around its core: the wrapper's own margins (golden DEF rows vs die;
    12 sites and 4 rows, also LibreLane's default core margins)."""
    w = ctx.wrapper
    return round(w.core[0] - w.die[0], 4), round(w.core[1] - w.die[1], 4)


def _hard_macro(ctx: Context, cell: str, die: fpm.Rect, pins: int, pin_edge: str, source: str) -> fpm.Macro:
    """A block to be hardened, as the wrapper sees it: its die, `pins` pins on pin_edge (turned
    towards the wrapper's cells), its own grid's met4 straps as power pins (the PDK's pitch and
    offset)."""
    p = ctx.macro_pdn
    a = fpm.block_abstract(cell, die.w, die.h, {pin_edge: (HARD_MACRO_PIN_LAYER, pins)}, ("vccd1", "vssd1"),
                           "met4", p["FP_PDN_VWIDTH"], p["FP_PDN_VPITCH"], p["FP_PDN_VOFFSET"],
                           p["FP_PDN_VSPACING"], source)
    return fpm.Macro(cell, a, HALO_UM, {pin_edge: HARD_MACRO_CHANNEL_UM}, face=pin_edge)


def _floorplan(name, die, core, ctx, macros, placements, logic, straps, notes=None) -> fpm.Floorplan:
    fp = fpm.Floorplan(name=name, die=die, core=core, site_w=ctx.wrapper.site_w, row_h=ctx.wrapper.row_h,
                       mfg_grid=ctx.tech["manufacturing_grid"], macros={m.name: m for m in macros},
                       placements=placements, logic_um2=logic, max_util=MAX_UTIL, straps=straps,
                       pin_layers=SIGNAL_PIN_LAYERS, notes=notes or {})
    return fpm.fill_rows(fp)


def acc_floorplan(ctx: Context, per_shelf: int, util: float = MAX_UTIL) -> fpm.Floorplan:
    """The ACC macro: its SRAMs in shelves of per_shelf from the south, its logic in the rows
    left; the core as wide as the shelves need and as high as the logic needs at `util`."""
    srams = [_sram(ctx, inst) for inst, _ in ctx.acc_instances]
    width = fpm.shelf_width(srams[:per_shelf], [fpm.orientation_for(m, "S") for m in srams[:per_shelf]],
                            ctx.wrapper.site_w)
    core0, pl0, _ = fpm.size_core(srams, ctx.logic_um2["acc"], util, ctx.wrapper.site_w,
                                  ctx.wrapper.row_h, width, "S", per_shelf)
    mx, my = core_margins(ctx)
    core = fpm.Rect(mx, my, mx + core0.w, my + core0.h)
    die = fpm.Rect(0, 0, core.x1 + mx, core.y1 + my)
    pl = {n: dataclasses.replace(p, x=round(p.x + mx, 4), y=round(p.y + my, 4)) for n, p in pl0.items()}
    p = ctx.macro_pdn
    # the SRAMs' power pins are met4, so the ACC's own grid needs met5 straps over them
    straps = fpm.horizontal_straps("met5", ("vccd1", "vssd1"), p["FP_PDN_HWIDTH"], p["FP_PDN_HSPACING"],
                                   p["FP_PDN_HPITCH"], p["FP_PDN_HOFFSET"], core)
    fp = _floorplan("acc", die, core, ctx, srams, pl, ctx.logic_um2["acc"], straps, {"per_shelf": per_shelf})
    fp.max_util = util
    return fp


def kmac_die(ctx: Context, height: float) -> fpm.Rect:
    """The KMAC macro's die for a core `height` um high (whole rows): as wide as its logic needs
    at MAX_UTIL (whole sites)."""
    w = ctx.wrapper
    rows = max(1, round(height / w.row_h))
    core_h = rows * w.row_h
    core_w = math.ceil(ctx.logic_um2["kmac"] / MAX_UTIL / core_h / w.site_w) * w.site_w
    mx, my = core_margins(ctx)
    return fpm.Rect(0, 0, round(core_w + 2 * mx, 4), round(core_h + 2 * my, 4))


def wrapper_straps(ctx: Context) -> fpm.Straps:
    p = ctx.wrapper.pdn
    h = p.horizontal
    return fpm.horizontal_straps(h.layer, p.nets, h.width, h.spacing, h.pitch, h.offset,
                                 fpm.Rect(*ctx.wrapper.core))


def wrapper_floorplan(ctx: Context, acc: fpm.Floorplan, kmac_height: float, boot_ram: int, main_sram: int,
                      kmac_first: bool) -> fpm.Floorplan:
    """The wrapper: the ACC, the KMAC and the CPU's memories (boot_ram + main_sram bytes on
    SRAM macros) in shelves from the north edge, the top-level cells in the rows left (towards
    the south edge, where Caravel's Wishbone and logic-analyzer pins are)."""
    w = ctx.wrapper
    # the ACC's pins on its north edge, beside its cell rows (its SRAM shelves stack from the south)
    acc_m = _hard_macro(ctx, "acc", acc.die, ctx.port_bits["acc"], "N", "block acc's floorplan (this module)")
    kmac_m = _hard_macro(ctx, "kmac", kmac_die(ctx, kmac_height), ctx.port_bits["kmac"], "S",
                         "block kmac's logic / MAX_UTIL")
    cpu = [_sram(ctx, f"boot_ram{k}") for k in range(boot_ram // acc_block.MACRO_BYTES)]
    cpu += [_sram(ctx, f"main_sram{k}") for k in range(main_sram // acc_block.MACRO_BYTES)]
    order = [acc_m] + ([kmac_m] + cpu if kmac_first else cpu + [kmac_m])
    core = fpm.Rect(*w.core)
    pl = fpm.place_shelves(core, order, w.site_w, w.row_h, from_edge="N")
    return _floorplan("user_project_wrapper", fpm.Rect(*w.die), core, ctx, order, pl, ctx.logic_um2["top"],
                      wrapper_straps(ctx),
                      {"boot_ram_bytes": boot_ram, "main_sram_bytes": main_sram, "kmac_height_um": kmac_height,
                       "acc_per_shelf": acc.notes.get("per_shelf")})


# --- the search and the reports -----------------------------------------------------------------
ACC_PER_SHELF = (2, 3, 4)
# Utilisations the ACC macro is also sized at, to say how dense the ACC would have to be for an
# option that does not fit at MAX_UTIL (a figure, not the verdict: the verdict is at MAX_UTIL).
ACC_UTIL_STEPS = (0.50, 0.55, 0.60, 0.65, 0.70)
KMAC_HEIGHTS_IN_SRAMS = (0.5, 0.75, 1.0, 1.25, 1.5, 2.0)   # KMAC core heights tried, in SRAM heights


def acc_candidates(ctx: Context, util: float = MAX_UTIL) -> list[tuple[fpm.Floorplan, list]]:
    """The ACC's floorplans (sized at util) that pass every check, one per shelf width that
    fits the wrapper's core."""
    out = []
    for per in ACC_PER_SHELF:
        try:
            fp = acc_floorplan(ctx, per, util)
        except FlowError:
            continue
        res = fpm.check(fp)
        w = ctx.wrapper
        if all(r["ok"] for r in res) and fp.die.w <= w.core[2] - w.core[0] and fp.die.h <= w.core[3] - w.core[1]:
            out.append((fp, res))
    if not out:
        raise FlowError("no ACC floorplan passes its checks and fits the wrapper's core")
    return out


def best_wrapper(ctx: Context, accs: list, boot_ram: int, main_sram: int) -> dict:
    """Every arrangement tried for these CPU memories (ACC shelf width, KMAC shape, order): the
    first that passes every check with the lowest top-level utilisation, else the closest miss
    (fewest failed checks, then lowest utilisation). {'fp', 'results', 'acc', 'tried'}."""
    tried, best = 0, None
    for acc, _ in accs:
        for f in KMAC_HEIGHTS_IN_SRAMS:
            for kmac_first in (True, False):
                tried += 1
                try:
                    fp = wrapper_floorplan(ctx, acc, f * ctx.sram.h, boot_ram, main_sram, kmac_first)
                except FlowError as e:
                    cand = (10, math.inf, None, [{"name": "placement", "ok": False, "detail": str(e)}], acc)
                else:
                    res = fpm.check(fp)
                    util = fp.logic_um2 / max(fpm.cell_area(fp), 1e-9)
                    cand = (sum(not r["ok"] for r in res), util, fp, res, acc)
                if best is None or cand[:2] < best[:2]:
                    best = cand
    return {"fp": best[2], "results": best[3], "acc": best[4], "tried": tried}


def memory_options(ctx: Context, accs: list) -> list[dict]:
    """Per CPU memory option: macro count and area, logic area, the top-level rows' utilisation
    and the verdict of the best arrangement with the ACC macros `accs` (the plan's ACC
    utilisation), and the lowest ACC utilisation (MAX_UTIL or one of ACC_UTIL_STEPS) at which
    it fits."""
    denser = {}
    for u in (MAX_UTIL, *ACC_UTIL_STEPS):
        try:
            denser[u] = acc_candidates(ctx, u)
        except FlowError:
            continue
    out = []
    for boot in BOOT_RAM_OPTIONS_KIB:
        for main in MAIN_SRAM_OPTIONS_KIB:
            r = best_wrapper(ctx, accs, boot * 1024, main * 1024)
            fits = all(x["ok"] for x in r["results"])
            acc_util_needed = next(
                (u for u, a in denser.items()
                 if all(x["ok"] for x in best_wrapper(ctx, a, boot * 1024, main * 1024)["results"])), None)
            fp = r["fp"]
            n = (boot + main) * 1024 // acc_block.MACRO_BYTES
            area = fpm.cell_area(fp) if fp else 0.0
            out.append({
                "boot_ram_kib": boot, "main_sram_kib": main, "cpu_macros": n,
                "macros": n + len(ctx.acc_instances),
                "macro_um2": round((n + len(ctx.acc_instances)) * ctx.sram.w * ctx.sram.h, 1),
                "logic_um2": round(sum(ctx.logic_um2.values()), 1),
                "top_logic_um2": round(ctx.logic_um2["top"], 1),
                "top_cell_rows_um2": round(area, 1),
                "top_utilisation": round(ctx.logic_um2["top"] / area, 4) if area else None,
                "fits": fits,
                "failed_checks": [x["name"] for x in r["results"] if not x["ok"]],
                "fits_with_acc_utilisation": acc_util_needed,
                # no arrangement at all can fit when this exceeds the core area
                "area_lower_bound_um2": round(area_bound(ctx, n), 1),
                "arrangements_tried": r["tried"],
            })
    return out


def area_bound(ctx: Context, cpu_macros: int) -> float:
    """What any floorplan needs at least: every SRAM macro with its halo (one side's worth: halos
    of neighbours may share) and all logic at MAX_UTIL."""
    a = ctx.sram
    per_macro = (a.w + HALO_UM) * (a.h + HALO_UM)
    return (cpu_macros + len(ctx.acc_instances)) * per_macro + sum(ctx.logic_um2.values()) / MAX_UTIL


def current_sizes() -> tuple[int, int]:
    """The CPU memories soc/target.py declares for silicon (bytes)."""
    from soc import target
    return target.SILICON_ROM_SIZE, target.SILICON_SRAM_SIZE


def plan(ctx: Context, options: bool = True) -> dict:
    """The checked floorplans of the current memory plan (soc/target.py) and, with options, the
    memory options' figures."""
    accs = acc_candidates(ctx, acc_block.CELL_UTIL)
    boot, main = current_sizes()
    chosen = best_wrapper(ctx, accs, boot, main)
    chosen["fits"] = chosen["fp"] is not None and all(r["ok"] for r in chosen["results"])
    return {"accs": accs, "chosen": chosen, "options": memory_options(ctx, accs) if options else None,
            "boot": boot, "main": main}


# --- the physical architectures compared by area (issue #35 deliverable 1) ----------------------
# A hard macro's die holds its logic at this utilisation (LibreLane macros of this size run at
# 45-60 %; the upper end is taken, the most favourable to the hard-macro architectures).
HARD_MACRO_UTIL = 0.55
SILICON_PROVEN_SRAM = "sky130_sram_1kbyte_1rw1r_32x256_8"   # the only one reported working in silicon


def architectures(ctx: Context, cpu_bytes: int | None = None) -> list[dict]:
    """Each candidate physical architecture of the memory plan (ACC 16 + 16 KiB, the CPU's boot
    RAM and SRAM) by area, before any placement: what the macros take (each with its halo), what
    is left of the wrapper's core for standard cells, and the utilisation the logic then needs at
    least. A lower bound: channels, pin escapes and power reach only take more. Candidates:
    - `nested` (the configuration committed today): the ACC a hard macro holding its 16 SRAMs;
      the KMAC a hard macro; the CPU's SRAMs and the rest flat in the wrapper;
    - `hard_logic`: every SRAM at the wrapper level; the ACC's and the KMAC's logic hard macros
      (met4 only) at HARD_MACRO_UTIL; the rest flat;
    - `flat`: every SRAM at the wrapper level, all logic flat in the wrapper (one hardening run);
    - `flat_1k`: as `flat`, on the 1 KiB macro (the only one reported working in silicon)."""
    pdk = find_pdk()
    boot, main = current_sizes() if cpu_bytes is None else (cpu_bytes, 0)
    core_um2 = (ctx.wrapper.core[2] - ctx.wrapper.core[0]) * (ctx.wrapper.core[3] - ctx.wrapper.core[1])
    acc_bytes = acc_block.IMEM_SIZE + acc_block.DMEM_SIZE
    logic = ctx.logic_um2
    from ip.common.sram import MACROS
    out = []
    for name, cell in (("nested", acc_block.SRAM_MACRO), ("hard_logic", acc_block.SRAM_MACRO),
                       ("flat", acc_block.SRAM_MACRO), ("flat_1k", SILICON_PROVEN_SRAM)):
        a = ctx.sram if cell == acc_block.SRAM_MACRO else fpm.read_lef(pdk.sram(cell, "lef"))
        words, bits, _ = MACROS[cell]
        per = words * bits // 8
        n = -(-acc_bytes // per) + -(-(boot + main) // per)
        with_halo = (a.w + 2 * HALO_UM) * (a.h + 2 * HALO_UM)
        macros_um2 = n * with_halo
        flat_logic = logic["top"] + (0 if name in ("nested", "hard_logic") else logic["acc"] + logic["kmac"])
        hard_um2 = 0.0
        if name == "hard_logic":
            hard_um2 = sum(logic[b] / HARD_MACRO_UTIL for b in ("acc", "kmac"))
            hard_um2 += 2 * HARD_MACRO_CHANNEL_UM * math.sqrt(hard_um2)        # their pin channels
        if name == "nested":
            # the ACC die as the committed floorplan sizes it; the KMAC at HARD_MACRO_UTIL
            acc = acc_candidates(ctx, acc_block.CELL_UTIL)[0][0]
            hard_um2 = acc.die.w * acc.die.h + logic["kmac"] / HARD_MACRO_UTIL
            macros_um2 = -(-(boot + main) // per) * with_halo
        rows = core_um2 - macros_um2 - hard_um2
        util = flat_logic / rows if rows > 0 else math.inf
        out.append({"architecture": name, "sram_macro": cell, "sram_macros": n,
                    "macros_with_halo_um2": round(macros_um2, 1), "hard_macro_dies_um2": round(hard_um2, 1),
                    "flat_logic_um2": round(flat_logic, 1), "rows_at_most_um2": round(rows, 1),
                    "utilisation_at_least": round(util, 4) if rows > 0 else None,
                    "fits_area": rows > 0 and util <= ARCH_MAX_UTIL})
    return out


# The densest utilisation an architecture may need at its lower bound to count as buildable: a
# first run with SRAM channels to route leaves at least a third of the rows empty.
ARCH_MAX_UTIL = 0.60


REPORT_NAME = "reports/floorplan.json"


def report(ctx: Context, out: Path | None = None, studies=None, chip=None) -> dict:
    """reports/floorplan.json, floorplan.png, floorplan_nested.png and floorplan.md (into out);
    returns the JSON data. The caller exits non-zero when data['fits'] is false. The modules that
    build on this one (soc/flat_floorplan.py), which the caller passes in: chip(ctx, boot, main,
    path): the chip's floorplan checked (its `wrapper` entry, drawn into path); studies(ctx,
    boot, main): the figures of the flat layouts studied. This module's own plan, the nested
    hierarchy (the ACC a hard macro holding its SRAMs), is kept as the study that rejected it."""
    out = out or REPORTS
    out.mkdir(parents=True, exist_ok=True)
    p = plan(ctx)
    chosen = p["chosen"]
    acc_fp, acc_res = next((a, r) for a, r in p["accs"] if a is chosen["acc"])
    w = ctx.wrapper
    nested = {"fits": chosen["fits"],
              "wrapper": (fpm.summary(chosen["fp"], chosen["results"]) if chosen["fp"] else
                          {"fits": False, "checks": chosen["results"]}),
              "acc": fpm.summary(acc_fp, acc_res),
              "memory_options": p["options"]}
    wrapper = chip(ctx, p["boot"], p["main"], out / "floorplan.png") if chip else nested["wrapper"]
    data = {
        "fits": bool(wrapper.get("fits")),
        "architecture": "flat" if chip else "nested",
        "memory_plan": {"acc_imem_bytes": acc_block.IMEM_SIZE, "acc_dmem_bytes": acc_block.DMEM_SIZE,
                        "boot_ram_bytes": p["boot"], "main_sram_bytes": p["main"],
                        "from": "ip/acc/block.py, soc/target.py SILICON_ROM_SIZE / SILICON_SRAM_SIZE"},
        "wrapper": wrapper,
        "nested": nested,
        "architectures": architectures(ctx),
        "flat_study": studies(ctx, p["boot"], p["main"]) if studies else {},
        "parameters": {"halo_um": HALO_UM, "track_use": TRACK_USE, "hard_macro_channel_um": HARD_MACRO_CHANNEL_UM,
                       "max_utilisation": MAX_UTIL, "arch_max_utilisation": ARCH_MAX_UTIL,
                       "acc_utilisation": acc_block.CELL_UTIL,
                       "sram_macro": ctx.sram.cell,
                       "sram_pin_edges": ctx.sram.edge_pins(),
                       "sram_channels_um": _sram(ctx, "x").channel,
                       "wrapper_pdn": dataclasses.asdict(w.pdn), "rt_max_layer": w.rt_max_layer},
        "logic_um2": {k: round(v, 1) for k, v in ctx.logic_um2.items()},
        "sources": {**ctx.sources, **{f"caravel_{k}": f"$CARAVEL_ROOT/{v}" for k, v in w.sources.items()},
                    "sram": f"$PDK_ROOT/{Path(ctx.sram.source).relative_to(find_pdk().root)}"},
        "core_um2": round((w.core[2] - w.core[0]) * (w.core[3] - w.core[1]), 1),
        "open_items": [
            "the flat floorplan's nets between the owners' logic and each band's share of the "
            "ACC's logic are planning figures (soc/flat_floorplan.py ACC_CONTROL_SHARE, "
            "CONTROL_DATAPATH_NETS): the routing estimate counts the nets in each channel against "
            "half its tracks, but congestion inside a band, pin access and detailed routing are "
            "measured only by a real global route (`make harden`)",
            "the wrapper's SDC is Caravel's base SDC made for LibreLane (soc/caravel_openlane.py "
            "wrapper_sdc: IO_SYNC 0 from Caravel's example config, LibreLane's variable names), "
            "read by OpenSTA against the wrapper's glue netlist with the SoC a black box (a parse "
            "and port check); it constrains wb_clk_i only, not user_clock2 (LA clk_sel); the "
            "SoC's own paths (ACC <-> KMAC side-load, CPU <-> ACC) are in one netlist and timed "
            "by `pqsoc sta soc`, and after placement only in a LibreLane run",
            "the 2 KiB OpenRAM macro is not reported working in silicon (users reported "
            "supply-dependent failures; the 1 KiB one is): the memory plan does not fit on the "
            "1 KiB macro (`architectures`, flat_1k)",
        ],
    }
    (out / "floorplan.json").write_text(json.dumps(data, indent=2) + "\n")
    (out / "floorplan.md").write_text(render_md(data))
    panels = [(acc_fp, acc_res)] + ([(chosen["fp"], chosen["results"])] if chosen["fp"] else [])
    fpm.plot(panels[::-1], out / ("floorplan_nested.png" if chip else "floorplan.png"), ring=ring_rects(ctx),
             inner={"acc": acc_fp}, title=(
                 f"Nested (rejected): user_project_wrapper (left) with CPU boot RAM {p['boot'] // 1024} KiB + "
                 f"main SRAM {p['main'] // 1024} KiB, and the ACC hard macro (right, "
                 f"{len(ctx.acc_instances)} SRAM macros)"))
    return data


# LibreLane has one Liberty per corner; a Macro's `lib` maps corner wildcards to files
# (librelane.config.variable.Macro), so the SRAM's one (TT) file stands for every corner.
ALL_CORNERS = "*"


def sram_views(block_name: str) -> dict:
    """The SRAM macro's views for the configuration of block_name: GDS, LEF and Liberty from the
    PDK (`pdk_dir::`), and the port-only Verilog header that LibreLane's lint and synthesis read
    (`vh`, made from the PDK's model by sram_header). OpenRAM ships one Liberty, TT 1.8 V 25 C
    (analytical timing), for these macros: it serves every corner, and the 40 % pre-layout timing
    margin (issue #35) is partly for that."""
    cell = acc_block.SRAM_MACRO
    base = "pdk_dir::libs.ref/sky130_sram_macros"
    vh = "dir::" + os.path.relpath(openlane.macro_header_path(cell), REPO / "pnr" / block_name)
    return {cell: {"gds": [f"{base}/gds/{cell}.gds"], "lef": [f"{base}/lef/{cell}.lef"],
                   "vh": [vh], "lib": {ALL_CORNERS: [f"{base}/lib/{cell}_TT_1p8V_25C.lib"]}}}


def sram_header() -> Path:
    """The SRAM macro's `vh` view (pqsoc/flow/openlane.py blackbox_header) under build/."""
    cell = acc_block.SRAM_MACRO
    return openlane.write_macro_header(cell, find_pdk().sram(cell, "verilog"))


def ring_rects(ctx: Context) -> list[fpm.Rect]:
    """Caravel's core ring (vccd1 innermost, then the other nets outward), for the picture."""
    w = ctx.wrapper
    p = w.pdn
    out = []
    for k in range(len(p.nets)):
        d = p.ring_offset + k * (p.ring_width + p.ring_spacing)
        x0, y0, x1, y1 = w.core[0] - d - p.ring_width, w.core[1] - d - p.ring_width, w.core[2] + d, w.core[3] + d
        t = p.ring_width
        out += [fpm.Rect(x0, y0, x1 + t, y0 + t), fpm.Rect(x0, y1, x1 + t, y1 + t),
                fpm.Rect(x0, y0, x0 + t, y1 + t), fpm.Rect(x1, y0, x1 + t, y1 + t)]
    return out


def render_md(data: dict) -> str:
    wr = data["wrapper"]
    mp = data["memory_plan"]
    nested = data["nested"]
    where = ("every SRAM macro at the wrapper level, all logic flat (architecture `flat`, layout "
             f"`{wr.get('layout')}`)" if data["architecture"] == "flat" else "the ACC's SRAMs in the ACC macro")
    lines = ["# Floorplan (generated by `pqsoc floorplan`; do not edit)", "",
             f"Memory plan: ACC IMEM {mp['acc_imem_bytes'] // 1024} KiB + DMEM {mp['acc_dmem_bytes'] // 1024} KiB, "
             f"CPU boot RAM {mp['boot_ram_bytes'] // 1024} KiB + main SRAM {mp['main_sram_bytes'] // 1024} KiB; "
             f"{where}. **{'Fits' if data['fits'] else 'Does NOT fit'}** Caravel's user_project_wrapper"
             + (f": logic at {wr['utilisation']:.1%} of {wr['cell_rows_um2'] / 1e6:.2f} mm2 of rows." if wr.get("utilisation")
                else f": {wr['error']}." if wr.get("error") else "."), ""]
    if wr.get("band_utilisation"):
        rw = wr["routing_worst"]
        lines += ["Bands (utilisation): " + ", ".join(f"{n} {u:.1%}" for n, u in wr["band_utilisation"].items())
                  + f" (at most {data['parameters']['arch_max_utilisation']:.0%}); routing: the worst channel's nets "
                  f"take {rw['ratio']:.2f} of its tracks ({rw['line']}; at most "
                  f"{wr['assumptions']['routing_margin']} passes).", ""]
    lines += ["| check | result | detail |", "|---|---|---|"]
    lines += [f"| {r['name']} | {'pass' if r['ok'] else 'FAIL'} | {r['detail']} |" for r in wr.get("checks", [])]
    lines += ["", "![floorplan](floorplan.png)"]
    if data.get("flat_study"):
        lines += ["", "## Flat layouts studied (`soc/flat_floorplan.py`)"]
    for plan, st in (data.get("flat_study") or {}).items():
        if "error" in st:
            lines += ["", f"Flat architecture study {plan}: does NOT fit: {st['error']}"]
            continue
        bands = ", ".join(f"{n} {u:.1%}" for n, u in st["band_utilisation"].items())
        failed = [c["name"] for c in st["checks"] if not c["ok"]]
        lines += ["", f"Flat architecture study {plan}: "
                  f"{'fits' if st['fits'] else 'does NOT fit'}; bands {bands}; unpowered rows "
                  f"{st['unpowered_rows_um2'] / 1e6:.3f} mm2; routing: the worst channel's nets take "
                  f"{st['routing_worst']['ratio']:.2f} of its tracks ({st['routing_worst']['line']}; at most "
                  f"{st['assumptions'].get('routing_margin', 0.5)} passes), {st['routing_lines_over']} lines over"
                  + (f"; failed floorplan checks: {', '.join(failed)}" if failed else "")]
    if data.get("architectures"):
        lines += ["", "## Physical architectures by area", "",
                  "A lower bound (`architectures`): the rows left after the macros and their halos, and the "
                  "utilisation the flat logic needs there.", "",
                  "| architecture | SRAM macro | macros | macros + halos (mm2) | hard macro dies (mm2) | "
                  "flat logic (mm2) | rows at most (mm2) | utilisation at least | fits by area |",
                  "|---|---|---|---|---|---|---|---|---|"]
        for r in data["architectures"]:
            u = r["utilisation_at_least"]
            lines.append(f"| {r['architecture']} | {r['sram_macro']} | {r['sram_macros']} | "
                         f"{r['macros_with_halo_um2'] / 1e6:.3f} | {r['hard_macro_dies_um2'] / 1e6:.3f} | "
                         f"{r['flat_logic_um2'] / 1e6:.3f} | {r['rows_at_most_um2'] / 1e6:.3f} | "
                         f"{'-' if u is None else f'{u:.1%}'} | {'yes' if r['fits_area'] else 'no'} |")
    acc = nested["acc"]
    nw = nested["wrapper"]
    lines += ["", "## The nested architecture (rejected, issue #35; soc/doc/caravel.md \"The physical architecture\")", "",
              f"The ACC a hard macro holding its 16 SRAMs: die {acc['die_um'][2]:.1f} x {acc['die_um'][3]:.1f} um, "
              f"logic {acc['logic_um2'] / 1e6:.3f} mm2 at {acc['utilisation']:.1%} of {acc['cell_rows_um2'] / 1e6:.2f} "
              "mm2 of rows; its floorplan checks " + ("all pass" if acc["fits"] else "FAIL") + "; the wrapper around it "
              + ("passes its floorplan checks" if nw.get("fits") else "fails its floorplan checks: "
                 + ", ".join(r["name"] for r in nw.get("checks", []) if not r["ok"]))
              + ". What rejected it are the checks of `pqsoc pnr check` on its configurations (power grid, power "
              "reach, routing), not these.", "",
              "![nested floorplan](floorplan_nested.png)", "",
              "### Memory options of the nested architecture (ACC 16 + 16 KiB fixed)", "",
              "Each row: the best of the arrangements tried (ACC shelf width, KMAC shape, order), checked.", "",
              f"'fits': with the ACC macro's cells at {data['parameters']['acc_utilisation']:.0%} (the plan's, "
              f"ip/acc/block.py CELL_UTIL), the KMAC's and the top level's at most "
              f"{data['parameters']['max_utilisation']:.0%}; the next column: the lowest ACC utilisation "
              "(ACC die sized for it) at which the option fits.", "",
              "| boot RAM KiB | main SRAM KiB | macros (CPU) | macro mm2 | logic mm2 (top) | top cell rows mm2 "
              "| top utilisation | fits | fits with ACC at | area bound mm2 |",
              "|---:|---:|---:|---:|---:|---:|---:|---|---:|---:|"]
    for o in nested["memory_options"]:
        util = f"{o['top_utilisation']:.1%}" if o["top_utilisation"] else "-"
        lines.append(f"| {o['boot_ram_kib']} | {o['main_sram_kib']} | {o['macros']} ({o['cpu_macros']}) | "
                     f"{o['macro_um2'] / 1e6:.2f} | {o['logic_um2'] / 1e6:.2f} ({o['top_logic_um2'] / 1e6:.2f}) | "
                     f"{o['top_cell_rows_um2'] / 1e6:.2f} | {util} | "
                     + ("yes" if o["fits"] else "no: " + ", ".join(o["failed_checks"])) + " | "
                     + (f"{o['fits_with_acc_utilisation']:.0%}" if o["fits_with_acc_utilisation"] is not None else
                        f"> {ACC_UTIL_STEPS[-1]:.0%}") + f" | {o['area_lower_bound_um2'] / 1e6:.2f} |")
    lines += ["", f"Area bound: every SRAM macro with a halo and all logic at "
              f"{data['parameters']['max_utilisation']:.0%}; above the core's {data['core_um2'] / 1e6:.2f} mm2 no "
              "arrangement fits.", "",
              "## Sources and open items", "",
              "Sources: " + "; ".join(f"{k}: {v}" for k, v in data["sources"].items()) + ".",
              "", "Open items: " + " ".join(f"({i + 1}) {x}." for i, x in enumerate(data["open_items"])), ""]
    return "\n".join(lines) + "\n"
