# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""The OpenLane 2 / LibreLane configurations of the taped-out hierarchy, from its checked floorplans.

Two configurations come from here (wired to the blocks by the registry, pqsoc/cli/blocks.py, and
written by `pqsoc pnr-config`):
- block `acc`, the ACC hard macro: die, core, its 16 SRAM macros at their places, and a power
  grid whose met5 straps lie on the wrapper's vccd1/vssd1 straps where the ACC is placed;
- block `caravel`, Caravel's user_project_wrapper: die, pin template, core ring and power grid
  from Caravel's fixed files (CARAVEL_ROOT, read when the configuration is generated), the ACC,
  the KMAC and the CPU's 6 SRAM macros at their places, the top-level logic (Ibex, LiteX) as
  standard cells around them, under Caravel's base SDC made for LibreLane (wrapper_sdc).
Every number comes from the floorplan (soc/caravel_floorplan.py), the PDK or Caravel's files; see
soc/README.md ("The wrapper's OpenLane configuration") for the choices.
"""
import dataclasses
import functools
import json
import os
import re
import shutil
from pathlib import Path

from ip.acc import block as acc_block
from pqsoc import BUILD, REPO, FlowError
from pqsoc.flow import caravel, harden, openlane
from pqsoc.flow import floorplan as fpm
from soc import caravel_floorplan

# Where `make harden` collects a hardened block's views: the Caravel submission's folders
# (caravel_user_project's layout, pqsoc/flow/tapeout.py caravel_submission), which the wrapper's
# configuration names. Timing: the macro's Liberty per process corner and its parasitics per RC
# corner (LibreLane's corner names: `nom_tt_025C_1v80`, `max_ss_100C_1v60`, ...), so the wrapper's
# STA and CTS time the paths into and between the macros (ACC <-> KMAC side-load, CPU <-> ACC).
# pqsoc/flow/harden.py collect_views copies each from the run's final/ folder.
HARD_MACRO_VIEWS = {"gds": "gds/{top}.gds", "lef": "lef/{top}.lef", "nl": "verilog/gl/{top}.v"}
HARD_MACRO_LIB = {f"*_{c}_*": path for c, path in harden.SUBMISSION_LIB.items()}
HARD_MACRO_SPEF = {f"{rc}_*": path for rc, path in harden.SUBMISSION_SPEF.items()}


def hard_macro_views(name: str) -> dict:
    """The MACROS views of hard macro `name` in the wrapper's configuration: the collected
    GDS / LEF / netlist, Liberty and SPEF (HARD_MACRO_*), and a port-only header (`vh`) that
    LibreLane's lint and synthesis read instead of the netlist."""
    from pqsoc.flow.block import get
    top = get(name).top
    out = {k: [_rel(REPO / v.format(top=top), WRAPPER_BLOCK)] for k, v in HARD_MACRO_VIEWS.items()}
    out["vh"] = [_rel(openlane.macro_header_path(top), WRAPPER_BLOCK)]
    out["lib"] = {k: [_rel(REPO / v.format(top=top), WRAPPER_BLOCK)] for k, v in HARD_MACRO_LIB.items()}
    out["spef"] = {k: [_rel(REPO / v.format(top=top), WRAPPER_BLOCK)] for k, v in HARD_MACRO_SPEF.items()}
    return out
# The wrapper's hard macros (blocks hardened on their own; the floorplan names them by block),
# in the order `make harden` makes them, before the wrapper (tapeout.json lists them so too).
HARD_MACROS = ("kmac", "acc")
WRAPPER_BLOCK = "caravel"
HARDEN_ORDER = (*HARD_MACROS, WRAPPER_BLOCK)
# The wrapper's sources as LibreLane reads them (made by openlane_inputs): numbered copies in
# reading order, the include folders, and Caravel's fixed files.
WRAPPER_SRC = BUILD / "rtl" / "caravel" / "openlane"
# Caravel's defines, which the wrapper includes by this name: an include folder of its own, not a
# source (LibreLane's read_slang takes each source as a unit of its own)
CARAVEL_DEFINES = "defines.v"
CARAVEL_FILES = BUILD / "caravel"
@functools.lru_cache(maxsize=1)
def checked_plan():
    """(context, plan) of the current memory plan; FlowError when it does not fit."""
    ctx = caravel_floorplan.context()
    p = caravel_floorplan.plan(ctx, options=False)
    c = p["chosen"]
    if not c["fits"]:
        failed = ", ".join(r["name"] for r in c["results"] if not r["ok"])
        raise FlowError(f"the current memory plan does not fit Caravel's wrapper ({failed}): "
                        "no OpenLane configuration from a floorplan that fails its checks (`pqsoc floorplan`)")
    return ctx, p


def _rel(path: Path, block_name: str) -> str:
    return "dir::" + os.path.relpath(path, REPO / "pnr" / block_name)


# --- the ACC's met5 straps on the wrapper's ------------------------------------------------------
def aligned_straps(acc: fpm.Floorplan, at: fpm.Placement, wrapper: caravel.Wrapper) -> dict:
    """PDN_HPITCH / HWIDTH / HSPACING / HOFFSET of the ACC's own met5 straps such that, with the
    ACC at `at` in the wrapper, each of its vccd1 / vssd1 straps lies exactly on a wrapper strap
    of the same net (the wrapper's straps then cross the ACC without a short; OpenLane issue
    #1157: overlapping met5 straps of a macro and the top level give DRC errors unless they
    coincide). Same pitch and width as the wrapper; a flipped placement (S, FS) reverses the
    net order, so the spacing becomes pitch - 2 width - the wrapper's spacing."""
    h = wrapper.pdn.horizontal
    vdd_first = h.origin + h.offset                 # the wrapper's first vccd1 strap centre
    flipped = at.orient in ("S", "FS")
    if flipped:   # local y -> at.y + die.h - y
        spacing = h.pitch - 2 * h.width - h.spacing
        first = at.y + acc.die.h - vdd_first
    else:
        spacing = h.spacing
        first = vdd_first - at.y
    offset = (first - acc.core.y0) % h.pitch
    return {"PDN_HPITCH": h.pitch, "PDN_HWIDTH": h.width, "PDN_HSPACING": round(spacing, 4),
            "PDN_HOFFSET": round(offset, 4)}


def acc_straps(acc: fpm.Floorplan, pdn: dict) -> fpm.Straps:
    return fpm.horizontal_straps("met5", acc.power_pins, pdn["PDN_HWIDTH"], pdn["PDN_HSPACING"],
                                 pdn["PDN_HPITCH"], pdn["PDN_HOFFSET"], acc.core)


def strap_misalignments(acc: fpm.Floorplan, at: fpm.Placement, wrapper_fp: fpm.Floorplan,
                        pdn: dict) -> list[str]:
    """Each ACC met5 strap (placed in the wrapper) that does not lie on a wrapper strap of its net."""
    out = []
    theirs = wrapper_fp.straps.by_net
    for net, rects in acc_straps(acc, pdn).by_net.items():
        for r in rects:
            placed = at.transform(wrapper_fp.macros[at.name].abstract, r)
            y0, y1 = sorted((placed.y0, placed.y1))
            if not any(abs(t.y0 - y0) < 1e-3 and abs(t.y1 - y1) < 1e-3 for t in theirs[net]):
                out.append(f"{net} strap at y {y0:.3f}..{y1:.3f} (wrapper)")
    return out


# A hard macro's pin order file (LibreLane's IO_PIN_ORDER_CFG), made by hard_macro_inputs.
def pin_order_path(name: str) -> Path:
    return BUILD / "pnr" / name / "pin_order.cfg"


def pin_order(name: str) -> str:
    """Every pin of hard macro `name` on the edge the wrapper's floorplan turned towards the cells
    (its `face`, in the macro's own coordinates), in LibreLane's pin order format."""
    _, p = checked_plan()
    return f"#{p['chosen']['fp'].macros[name].face}\n.*\n"


def hard_macro_inputs(name: str) -> list[str]:
    """What a hard macro's configuration names under build/: its pin order file and the SRAM
    macro's Verilog header."""
    path = pin_order_path(name)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(pin_order(name))
    caravel_floorplan.sram_header()
    return []


def hard_macro_pins(name: str) -> dict:
    return {"IO_PIN_ORDER_CFG": _rel(pin_order_path(name), name)}


def hard_macro_power(ctx) -> dict:
    """A hard macro's power nets: the wrapper's first domain (Caravel's VDD_NETS[0] / GND_NETS[0],
    vccd1 / vssd1), so its pins are named as PDN_MACRO_CONNECTIONS and its SRAMs' pins are
    (without them LibreLane names the grid after the cells' pins, VPWR / VGND)."""
    nets = ctx.wrapper.pdn.nets
    return {"VDD_NETS": [nets[0]], "GND_NETS": [nets[1]]}


def kmac_config() -> dict:
    """Block kmac's OpenLane variables: the die the wrapper's floorplan placed (as wide as its logic
    needs at the flow's utilisation, its height chosen by the floorplan), the core inside the
    same margins as the ACC's; its grid on met4 only and no met5 routing (LibreLane's
    PDN_MULTILAYER false, "useful when hardening a macro for integrating into a larger top-level
    design"): the wrapper's met5 straps cross it and meet its met4 straps."""
    ctx, p = checked_plan()
    a = p["chosen"]["fp"].macros["kmac"].abstract
    mx, my = caravel_floorplan.core_margins(ctx)
    return {"FP_SIZING": "absolute", "DIE_AREA": [0, 0, round(a.w, 4), round(a.h, 4)],
            "CORE_AREA": [mx, my, round(a.w - mx, 4), round(a.h - my, 4)],
            **hard_macro_power(ctx), **hard_macro_pins("kmac"), "PDN_MULTILAYER": False,
            "RT_MAX_LAYER": "met4"}


# A design that holds OpenRAM macros: Magic's DRC reads the DEF with the macros as LEF abstracts
# instead of the whole GDS. On the GDS it checks OpenRAM's bitcells, drawn to the foundry's
# special SRAM rules, and reports them by the million; ERROR_ON_MAGIC_DRC would stop the run
# before the views are written. The macros' own layout is OpenRAM's; the shuttle precheck's
# KLayout DRC reads the whole GDS.
SRAM_DRC = {"MAGIC_DRC_USE_GDS": False}


def acc_config() -> dict:
    """Block acc's OpenLane variables beyond the flow's defaults."""
    ctx, p = checked_plan()
    acc = p["chosen"]["acc"]
    wrapper_fp = p["chosen"]["fp"]
    at = wrapper_fp.placements["acc"]
    pdn = aligned_straps(acc, at, ctx.wrapper)
    if bad := strap_misalignments(acc, at, wrapper_fp, pdn):
        raise FlowError("the ACC's met5 straps miss the wrapper's: " + "; ".join(bad[:4]))
    # the ACC's SRAM checks (met4 power rails crossed by met5 straps of their net) with these straps
    rechecked = fpm.check(dataclasses.replace(acc, straps=acc_straps(acc, pdn)))
    if failed := [r for r in rechecked if not r["ok"]]:
        raise FlowError("the ACC floorplan with the wrapper-aligned straps fails: "
                        + "; ".join(f"{r['name']}: {r['detail']}" for r in failed))
    return {
        **caravel_floorplan.acc_openlane(ctx, acc),
        # the SRAMs' power pins are met4: the ACC's grid has met5 straps to reach them, so no
        # signal routing on met5, which the wrapper's straps cross
        "PDN_MULTILAYER": True,
        "RT_MAX_LAYER": "met4",
        **hard_macro_power(ctx),
        **hard_macro_pins("acc"),
        **pdn,
        **SRAM_DRC,
    }


def _places(fp: fpm.Floorplan, names: dict[str, str] | None = None) -> dict:
    names = names or {n: n for n in fp.placements}
    return {names[n]: (p.x, p.y, p.orient) for n, p in fp.placements.items()}


def area_errors(cfg: dict, die, core) -> list[str]:
    """DIE_AREA / CORE_AREA against the floorplan's die and core (um, to 1 nm)."""
    out = []
    for key, want in (("DIE_AREA", die), ("CORE_AREA", core)):
        got = cfg.get(key) or []
        if len(got) != 4 or any(abs(float(g) - w) > 1e-3 for g, w in zip(got, want)):
            out.append(f"{key} {got}; the floorplan has {[round(w, 4) for w in want]}")
    return out


def acc_check(cfg: dict) -> list[str]:
    """pnr/acc/config.json against the ACC floorplan (die, core, every SRAM's place) and the SRAM
    instances of its RTL."""
    ctx, p = checked_plan()
    acc = p["chosen"]["acc"]
    return (area_errors(cfg, acc.die.as_list(), acc.core.as_list())
            + openlane.macro_errors(cfg, _places(acc), [n for n, _ in ctx.acc_instances]))


def kmac_check(cfg: dict) -> list[str]:
    """pnr/kmac/config.json's die against the one the wrapper's floorplan placed."""
    want = kmac_config()
    return area_errors(cfg, want["DIE_AREA"], want["CORE_AREA"])


# --- the wrapper ---------------------------------------------------------------------------------
def wrapper_instances() -> dict[str, tuple[str, str]]:
    """The floorplan's macro names -> (instance path in the wrapper's RTL, cell): the ACC and the
    KMAC by their module in the SoC, the CPU's SRAM macros in the order the RTL holds them (boot
    RAM = the SoC memories' `rom`, main SRAM = its `sram`)."""
    from pqsoc.flow.block import get
    block = get("caravel")
    src = _wrapper_text(block)
    modules = {"pqc.acc": "acc", "pqc.kmac": "kmac"}
    found = fpm.macro_instances(src, block.top, (acc_block.SRAM_MACRO, *modules))
    out = {}
    for name in HARD_MACROS:
        paths = [p for p, c in found if modules.get(c) == name]
        if len(paths) != 1:
            raise FlowError(f"the wrapper's RTL has {len(paths)} instances of the {name} module, not one")
        out[name] = (paths[0], name)
    for prefix, where in (("boot_ram", ".memories.rom."), ("main_sram", ".memories.sram.")):
        paths = [p for p, c in found if c == acc_block.SRAM_MACRO and where in p]
        for k, path in enumerate(paths):
            out[f"{prefix}{k}"] = (path, acc_block.SRAM_MACRO)
    return out


def _wrapper_text(block) -> str:
    """The wrapper's Verilog (the generated files, not Ibex' SystemVerilog), emitted when missing."""
    soc = block.rtl_dir() / "soc"
    names = [block.rtl_dir() / f"{block.top}.v", soc / "pqsoc_synth.v", soc / "rtl" / "pqc.v",
             soc / "rtl" / "soc_memories.v"]
    if not all(p.is_file() for p in names):
        _emitted_wrapper()
    return "\n".join(p.read_text() for p in names)


def wrapper_check(cfg: dict) -> list[str]:
    """pnr/caravel/config.json's macros against the wrapper floorplan and the macro instances of
    the wrapper's RTL."""
    ctx, p = checked_plan()
    names = {n: path for n, (path, _) in wrapper_instances().items()}
    return (area_errors(cfg, list(ctx.wrapper.die), list(ctx.wrapper.core))
            + openlane.macro_errors(cfg, _places(p["chosen"]["fp"], names), sorted(names.values())))


def _caravel_settings() -> dict:
    """The wrapper settings Caravel fixes (fixed_wrapper_cfgs.tcl) and its defaults
    (default_wrapper_cfgs.tcl: strap pitch and offset, the only ones a project may change), under
    LibreLane's names; those LibreLane removed are left out, the DEF template is the copy that
    openlane_inputs makes."""
    root = caravel.caravel_root()
    env = caravel.read_tcl_env([root / caravel.DEFAULT_CFG, root / caravel.FIXED_CFG])
    out = {}
    for old, value in env.items():
        var = openlane.librelane_variable(old)
        if var is None:
            continue          # removed from LibreLane (RUN_CVC)
        if old == "FP_DEF_TEMPLATE":
            value = _rel(CARAVEL_FILES / caravel.GOLDEN_DEF.name, "caravel")
        elif old == "DIE_AREA":
            value = [round(float(v), 4) for v in str(value).split()]
        out[var.name] = openlane.typed(var, value)
    return out


# --- the wrapper's SDC ----------------------------------------------------------------------------
# Caravel's base SDC of the wrapper (OpenLane 1) and the SDC made from it for LibreLane (written by
# wrapper_inputs, named by the configuration for place-and-route and signoff).
BASE_SDC = caravel.WRAPPER_DIR / "base_user_project_wrapper.sdc"
WRAPPER_SDC = CARAVEL_FILES / "user_project_wrapper.sdc"
# The same constraints for place-and-route, without the clock propagation commands: LibreLane then
# keeps the clocks ideal before clock-tree synthesis and propagates them after it (its io.tcl
# decides so only when the SDC names neither form); propagated clocks before the tree exists time
# every register as if its clock arrived with no insertion delay at all.
WRAPPER_PNR_SDC = CARAVEL_FILES / "user_project_wrapper.pnr.sdc"
PROPAGATION = re.compile(r"^\s*(?:un)?set_propagated_clock\b.*\n", re.M)


def pnr_sdc(signoff: str) -> str:
    """The place-and-route SDC from the signoff one: every line that sets clock propagation
    removed (and the words gone from comments too, which LibreLane's check also reads)."""
    text, n = PROPAGATION.subn("", signoff)
    if n == 0:
        raise FlowError("the wrapper SDC sets no clock propagation: update soc/caravel_openlane.py pnr_sdc")
    text = text.replace("set_propagated_clock", "clock propagation")
    return ("# Place-and-route form of user_project_wrapper.sdc (soc/caravel_openlane.py pnr_sdc): clock\n"
            "# propagation left to LibreLane, ideal before CTS and propagated after.\n" + text)
# OpenLane 1 variables Caravel's SDC reads -> (the Tcl expression of LibreLane's variable, how
# often the file reads it); SYNTH_TIMING_DERATE was a fraction, TIME_DERATING_CONSTRAINT is a
# percentage.
SDC_RENAMED = {"SYNTH_CLOCK_UNCERTAINTY": ("$::env(CLOCK_UNCERTAINTY_CONSTRAINT)", 2),
               "SYNTH_CLOCK_TRANSITION": ("$::env(CLOCK_TRANSITION_CONSTRAINT)", 2),
               "SYNTH_TIMING_DERATE": ("($::env(TIME_DERATING_CONSTRAINT) / 100.0)", 3)}
# Its blocks that default the clock driving cell (and pin) to the input one: they set variables
# the file never reads (it drives no port with a cell: input transitions instead), and LibreLane
# has no *_DRIVING_CELL_PIN (reading one fails the SDC).
_DRIVING_CELL_DEFAULTS = re.compile(
    r"^if \{ !\[info exists ::env\((SYNTH_CLK_DRIVING_CELL(?:_PIN)?)\)\] \} \{\n[^}]*\}\n", re.M)


def io_sync() -> int:
    """IO_SYNC of Caravel's example wrapper configuration: 0, its documented default (the user
    GPIOs asynchronous to the clock), the SoC's case: its pads are UART lines and GPIOs,
    not synchronous to wb_clk_i."""
    value = json.loads((caravel.caravel_root() / caravel.EXAMPLE_CONFIG).read_text()).get("IO_SYNC")
    if value not in (0, 1):
        raise FlowError(f"Caravel's {caravel.EXAMPLE_CONFIG} has IO_SYNC {value!r}, not 0 or 1")
    return value


def _replace(text: str, old: str, new: str, count: int) -> str:
    if text.count(old) != count:
        raise FlowError(f"Caravel's {BASE_SDC} has {text.count(old)} `{old}`, this generator expects "
                        f"{count}: read the new file and update soc/caravel_openlane.py wrapper_sdc")
    return text.replace(old, new)


def wrapper_sdc() -> str:
    """The wrapper's SDC: Caravel's base SDC (read from CARAVEL_ROOT: every number is Caravel's)
    for LibreLane: IO_SYNC, which LibreLane does not define, is set from Caravel's example
    configuration (io_sync); the OpenLane 1 variables are LibreLane's (SDC_RENAMED); the unused
    driving-cell defaults are left out. Any other `$::env(...)` must be a LibreLane variable."""
    text = (caravel.caravel_root() / BASE_SDC).read_text()
    text = _replace(text, "$::env(IO_SYNC)", "$io_sync", 2)
    for old, (new, count) in SDC_RENAMED.items():
        text = _replace(text, f"$::env({old})", new, count)
    text, n = _DRIVING_CELL_DEFAULTS.subn("", text)
    if n != 2 or "DRIVING_CELL" in text:
        raise FlowError(f"Caravel's {BASE_SDC}: its driving-cell defaults are not the two this generator "
                        "leaves out: update soc/caravel_openlane.py wrapper_sdc")
    for name in sdc_variables(text):
        var = openlane.librelane_variable(name)
        if var is None or var.name != name:
            raise FlowError(f"the wrapper SDC reads {name}, which LibreLane does not define under that name")
    header = ("# The wrapper's constraints for LibreLane, made by soc/caravel_openlane.py (wrapper_sdc) from\n"
              f"# Caravel's {BASE_SDC.name} ($CARAVEL_ROOT/{BASE_SDC}): its numbers unchanged; IO_SYNC\n"
              f"# (which LibreLane does not define) from Caravel's example {caravel.EXAMPLE_CONFIG.name}; OpenLane 1\n"
              "# variables renamed to LibreLane's; its unused driving-cell defaults left out.\n"
              "# Appended: user_clock2, on which the SoC runs when LA clk_sel is 1 (USER_CLOCK2_SDC).\n"
              f"set io_sync {io_sync()}\n\n")
    if "usr_clk_max_latency" not in text or "usr_clk_tran" not in text:
        raise FlowError(f"Caravel's {BASE_SDC}: no usr_* clock figures for user_clock2: update "
                        "soc/caravel_openlane.py wrapper_sdc")
    return header + text + USER_CLOCK2_SDC


# Caravel's base SDC constrains wb_clk_i only and says to add user_clock2 with its usr_* figures
# when the design uses it. The SoC's clock is a multiplexer of the two (soc/target.py
# _CaravelCRG, switched in reset), and the management Wishbone stays on wb_clk_i behind a
# toggle handshake with two-flop synchronisers (soc/mgmt_port.py): the two clocks never time a
# path together, so they are asynchronous groups (a path with both ends on the SoC's clock is
# timed under each clock alone).
USER_CLOCK2_SDC = """
# user_clock2: the SoC's clock when LA clk_sel is 1 (soc/target.py _CaravelCRG); the same period,
# Caravel's usr_* source latency and transition; asynchronous to wb_clk_i (a clock multiplexer
# switched in reset, and the management Wishbone's synchronised handshake, soc/mgmt_port.py)
create_clock [get_ports {user_clock2}] -name usr_clk -period $::env(CLOCK_PERIOD)
set_propagated_clock [get_clocks {usr_clk}]
set_clock_uncertainty $::env(CLOCK_UNCERTAINTY_CONSTRAINT) [get_clocks {usr_clk}]
set_clock_transition $::env(CLOCK_TRANSITION_CONSTRAINT) [get_clocks {usr_clk}]
set_clock_latency -source -max $usr_clk_max_latency [get_clocks {usr_clk}]
set_clock_latency -source -min $usr_clk_min_latency [get_clocks {usr_clk}]
set_input_transition $usr_clk_tran [get_ports {user_clock2}]
set_clock_groups -asynchronous -group [get_clocks {clk}] -group [get_clocks {usr_clk}]
"""


def sdc_variables(text: str) -> list[str]:
    """The LibreLane variables an SDC reads (`$::env(NAME)`)."""
    return sorted(set(re.findall(r"::env\((\w+)\)", text)))


def wrapper_glue_netlist(out: Path) -> list[Path]:
    """A cheap gate-level netlist of the wrapper for checking its SDC: Caravel's ports, the
    wrapper's own glue mapped on the tt Liberty (tie cells, the LA gates of clk_sel / user_rst),
    the SoC (`pqsoc`) a black box with its ports. Returns [netlist, black box]."""
    import subprocess
    import sys
    from pqsoc.flow.block import get
    from pqsoc.flow.pdk import find_pdk
    block = get(WRAPPER_BLOCK)
    src = {Path(f).name: Path(f) for f in _emitted_wrapper()}
    lib = find_pdk().liberty("tt")
    out.mkdir(parents=True, exist_ok=True)
    netlist, box = out / "wrapper_glue.v", out / "pqsoc_blackbox.v"
    script = [f"read_verilog -I{src['defines.v'].parent} {src['defines.v']} {block.rtl_dir() / (block.top + '.v')}",
              f"read_verilog -lib {src['pqsoc_synth.v']}",
              f"synth -top {block.top} -flatten", f"dfflibmap -liberty {lib}", f"abc -liberty {lib}",
              "hilomap -hicell sky130_fd_sc_hd__conb_1 HI -locell sky130_fd_sc_hd__conb_1 LO", "opt_clean",
              # ports driven straight by other nets get buffers: OpenSTA reads no `assign {a, b} = ...`
              "splitnets -ports", "insbuf -buf sky130_fd_sc_hd__buf_2 A X", "opt_clean",
              f"write_verilog -noattr {netlist}", f"write_verilog -noattr -blackboxes {box}"]
    (out / "glue.ys").write_text("\n".join(script) + "\n")
    r = subprocess.run([sys.executable, "-m", "pqsoc.flow.yosys_run", str(out / "glue.ys")],
                       capture_output=True, text=True, timeout=600)
    if r.returncode != 0 or "@@done" not in r.stdout:
        raise FlowError(f"Yosys on the wrapper's glue failed: {(r.stdout + r.stderr)[-1500:]}")
    return [netlist, box]


# OpenSTA on the sky130 Liberty files (their default_operating_condition names no condition they
# define): a warning of every read, about the library, not the SDC
LIBERTY_CONDITION_WARNING = re.compile(r"^Warning: \S+\.lib, line \d+ default_operating_condition \S+ not found\.$")


def check_wrapper_sdc(sdc: Path, env: dict[str, str], out: Path) -> tuple[list[str], str]:
    """OpenSTA reads `sdc` against the wrapper's glue netlist (wrapper_glue_netlist) with the
    LibreLane variables it reads set to `env`: (problems, log). A problem is an error or warning
    line (an unknown port or command, a variable not set) or a missing clock on wb_clk_i or
    user_clock2."""
    import shutil
    import subprocess
    from pqsoc.flow.pdk import find_pdk
    if shutil.which("sta") is None:
        raise FlowError("OpenSTA (`sta`) is not on PATH: the wrapper SDC cannot be checked")
    if missing := [v for v in sdc_variables(sdc.read_text()) if v not in env]:
        raise FlowError(f"no value for the SDC's variables {', '.join(missing)}")
    netlist, box = wrapper_glue_netlist(out)
    tcl = [f"set ::env({k}) {{{v}}}" for k, v in sorted(env.items())]
    tcl += [f"read_liberty {find_pdk().liberty('tt')}", f"read_verilog {box}", f"read_verilog {netlist}",
            "link_design user_project_wrapper", f"read_sdc {sdc}",
            'foreach c [all_clocks] { puts "@@clock [get_full_name $c] '
            '[get_full_name [lindex [get_property $c sources] 0]]" }', "report_clock_properties",
            "report_checks -path_delay max -digits 3", 'puts "@@end"']
    (out / "sdc_check.tcl").write_text("\n".join(tcl) + "\n")
    r = subprocess.run(["sta", "-no_splash", "-exit", str(out / "sdc_check.tcl")], capture_output=True,
                       text=True, timeout=600)
    log = r.stdout + r.stderr
    problems = [ln for ln in log.splitlines() if re.match(r"\s*(Error|Warning)", ln)
                and not LIBERTY_CONDITION_WARNING.match(ln.strip())]
    if r.returncode != 0 or "@@end" not in log:
        problems.append(f"sta exited with {r.returncode} before the end of the script")
    for clock, port in (("clk", "wb_clk_i"), ("usr_clk", "user_clock2")):
        if f"@@clock {clock} {port}" not in log:
            problems.append(f"no clock `{clock}` on port {port}")
    return problems, log


def wrapper_config() -> dict:
    """Block caravel's OpenLane variables beyond the flow's defaults."""
    from soc import ibex
    ctx, p = checked_plan()
    fp = p["chosen"]["fp"]
    w = ctx.wrapper
    names = wrapper_instances()
    if missing := sorted(set(fp.placements) - set(names)):
        raise FlowError(f"floorplan macros {', '.join(missing)} have no instance in the wrapper's RTL")
    if extra := sorted(set(names) - set(fp.placements)):
        raise FlowError(f"the wrapper's RTL has macros the floorplan does not place: {', '.join(extra)}")
    # the floorplan under the RTL's instance paths
    renamed = dataclasses.replace(fp, placements={names[n][0]: p for n, p in fp.placements.items()},
                                  macros={names[n][0]: fp.macros[n] for n in fp.placements})
    views = caravel_floorplan.sram_views(WRAPPER_BLOCK)
    for name in HARD_MACROS:
        views[name] = hard_macro_views(name)
    cfg = {
        "VERILOG_FILES": _rel(WRAPPER_SRC / "src" / "*", "caravel"),
        "VERILOG_INCLUDE_DIRS": [_rel(WRAPPER_SRC / "include" / "caravel", "caravel"),
                                 *(_rel(WRAPPER_SRC / "include" / str(k), "caravel")
                                   for k in range(len(ibex.include_paths())))],
        "VERILOG_DEFINES": ["SYNTHESIS"],
        "USE_SLANG": True,
        **_caravel_settings(),
        **openlane.floorplan_variables(renamed, views, power=(w.pdn.nets[0], w.pdn.nets[1])),
        # the core (standard-cell rows) as Caravel's golden DEF has it
        "CORE_AREA": [round(v, 4) for v in w.core],
        "RT_MAX_LAYER": w.rt_max_layer,
        # standard cells at the top level: the rails stay on (Caravel's example, a macro-only
        # wrapper, turns them off)
        "PDN_ENABLE_RAILS": True,
        **SRAM_DRC,
        # OpenROAD's power-grid node check (PSM) on a wrapper of hard macros reports the macros'
        # internal grids as unconnected nodes; Caravel's own wrapper configuration turns the stop
        # off (FP_PDN_CHECK_NODES 0) and LVS checks every power connection instead
        "ERROR_ON_PDN_VIOLATIONS": False,
        # Caravel's constraints (wrapper_sdc, written by wrapper_inputs), not LibreLane's defaults
        "PNR_SDC_FILE": _rel(WRAPPER_PNR_SDC, "caravel"),
        "SIGNOFF_SDC_FILE": _rel(WRAPPER_SDC, "caravel"),
    }
    return cfg


def wrapper_inputs() -> list[str]:
    """What the wrapper's configuration names under build/: its sources in reading order, with
    the PQC subsystem (pqc.v) emitted with the ACC and the KMAC as black-box instances of the
    hardened cells (pqc_with_hard_macros), Ibex' include folders, Caravel's golden DEF (the pin
    template). Returns the problems (each fails `pqsoc pnr check` and stops `pqsoc harden`)."""
    from soc import ibex
    files = _emitted_wrapper()
    caravel_floorplan.sram_header()
    for name in HARD_MACROS:      # their `vh` views, from the RTL the macros are hardened from
        from pqsoc.flow.block import get
        b = get(name)
        openlane.write_macro_header(b.top, b.rtl_dir() / f"{b.top}.v")
    if WRAPPER_SRC.exists():
        shutil.rmtree(WRAPPER_SRC)
    (WRAPPER_SRC / "src").mkdir(parents=True)
    problems = []
    for k, f in enumerate(files):
        if Path(f).name == CARAVEL_DEFINES:   # included by name, `include "defines.v"`
            (WRAPPER_SRC / "include" / "caravel").mkdir(parents=True)
            shutil.copyfile(f, WRAPPER_SRC / "include" / "caravel" / CARAVEL_DEFINES)
            continue
        text = Path(f).read_text()
        if Path(f).name == "pqc.v":
            try:
                text = pqc_with_hard_macros(text)
            except FlowError as e:
                problems.append(f"black boxes: {e}")
        (WRAPPER_SRC / "src" / f"{k:03d}_{Path(f).name}").write_text(text)
    for k, d in enumerate(ibex.include_paths()):
        shutil.copytree(d, WRAPPER_SRC / "include" / str(k),
                        ignore=shutil.ignore_patterns("*.core", "*.md", "*.py", "*.hjson"))
    CARAVEL_FILES.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(caravel.caravel_root() / caravel.GOLDEN_DEF, CARAVEL_FILES / caravel.GOLDEN_DEF.name)
    try:
        WRAPPER_SDC.write_text(wrapper_sdc())
        WRAPPER_PNR_SDC.write_text(pnr_sdc(WRAPPER_SDC.read_text()))
    except FlowError as e:
        problems.append(f"wrapper SDC: {e}")
    return problems


@functools.lru_cache(maxsize=1)
def _emitted_wrapper() -> tuple[Path, ...]:
    """The wrapper's sources in reading order, emitted once per process (the LiteX build takes
    ~15 s; `pqsoc harden` runs in a process of its own, after its own emission)."""
    from pqsoc.flow.block import get
    block = get("caravel")
    return tuple(block.emit(block.rtl_dir()))


@functools.lru_cache(maxsize=None)
def hardened_ports(name: str) -> dict[str, str]:
    """The ports of block `name` as hardened: its Verilog emitted afresh (once a process: an
    emission left by an earlier version of the block must not stand for it)."""
    from pqsoc.flow.block import get
    b = get(name)
    b.emit(b.rtl_dir())
    return module_ports((b.rtl_dir() / f"{b.top}.v").read_text(), b.top)


def _width(decl: str) -> int:
    m = re.search(r"\[(\d+):(\d+)\]", decl)
    return abs(int(m.group(1)) - int(m.group(2))) + 1 if m else 1


def hard_macro_instance(m, cell: str, component, ports: dict[str, str]):
    """An Amaranth Instance of the hardened `cell` (ports: module_ports of its Verilog) wired to
    `component`'s interface signals by name (Amaranth's flattened names, `bus__adr`), clk / rst to
    the domain's clock and reset. A port of the cell with no signal, a signal with no port, a
    direction or a width that differs is an error: the hardened cell must be the SoC's component
    (blocks acc and kmac take the SoC's bus widths, ip/acc/rtl/pqc.py), nothing is extended or
    cut on the way."""
    from amaranth.hdl import ClockSignal, Instance, ResetSignal, Signal
    from amaranth.lib.wiring import In
    signals = {"__".join(str(x) for x in path): (value, member.flow == In)
               for path, member, value in component.signature.flatten(component)}
    errors, kw = [], {}
    for name, decl in ports.items():
        is_input = decl.startswith("input")
        if name in ("clk", "rst") and is_input and name not in signals:
            kw[f"i_{name}"] = ClockSignal() if name == "clk" else ResetSignal()
            continue
        if name not in signals:
            errors.append(f"{cell} port {name} has no signal in the SoC's {cell}")
            continue
        value, value_is_input = signals[name]
        if value_is_input != is_input:
            errors.append(f"{cell} port {name} is an {decl.split()[0]}, the SoC's signal is not")
            continue
        if _width(decl) != len(value):
            errors.append(f"{cell} port {name} is {_width(decl)} bits wide, the SoC's signal {len(value)}")
            continue
        wire = Signal(len(value), name=f"{cell}_{name}")
        m.d.comb += wire.eq(value) if is_input else value.eq(wire)
        kw[("i_" if is_input else "o_") + name] = wire
    errors += [f"the SoC's {cell} signal {n} is no port of the hardened {cell}" for n in signals if n not in ports]
    if errors:
        raise FlowError("; ".join(errors))
    return Instance(cell, **kw)


def _not_elaborated(obj, seen=None) -> None:
    """Tells Amaranth that obj and the elaboratables it holds are meant not to be elaborated
    (a black box stands for them), so it does not warn about them as unused."""
    from amaranth.hdl import Elaboratable
    seen = seen if seen is not None else set()
    if id(obj) in seen or not isinstance(obj, Elaboratable):
        return
    seen.add(id(obj))
    obj._MustUse__silence = True
    for v in vars(obj).values():
        _not_elaborated(v, seen)


def pqc_with_hard_macros(original: str) -> str:
    """The PQC subsystem (module pqc, ports as in `original`, the SoC's pqc.v) with the ACC and the
    KMAC as black-box instances of the hardened blocks acc and kmac (their emitted ports)."""
    from amaranth.back import verilog
    from ip.acc.rtl.pqc import PqcSubsystem
    from soc import silicon
    ports = {name: hardened_ports(name) for name in HARD_MACROS}

    class WithHardMacros(PqcSubsystem):
        def add_block(self, m, name, component):
            m.submodules[name] = hard_macro_instance(m, name, component, ports[name])
            _not_elaborated(component)

    # as soc/build.py emit_pqc makes the silicon SoC's (its module ports are checked equal below)
    top = WithHardMacros(silicon.ACC_IMEM_SIZE, silicon.ACC_DMEM_SIZE, sram_macro=silicon.SRAM_MACRO,
                         clock_gate="sky130")
    text = verilog.convert(top, name="pqc", emit_src=False)
    if module_ports(text, "pqc") != module_ports(original, "pqc"):
        raise FlowError("the PQC subsystem with hard macros has other ports than the SoC's pqc")
    return text


# one place that reads a module's ports (pqsoc/flow/openlane.py); named here for its callers
module_ports = openlane.module_ports
