# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""The LibreLane configuration of the taped-out chip, from its checked floorplan.

The physical architecture is `flat` (soc/doc/caravel.md "The physical architecture"): one configuration,
block `caravel`, Caravel's user_project_wrapper (written by `pqsoc pnr-config`, wired to the block
by the registry, pqsoc/cli/blocks.py): die, pin template, core ring and power grid from Caravel's
fixed files (CARAVEL_ROOT, read when the configuration is generated); the SoC's 20 SRAM macros
(the CPU's boot RAM and main SRAM, the ACC's IMEM and DMEM) at the places of the flat floorplan
(soc/flat_floorplan.py, its hybrid layout), under their instance paths in the SoC's RTL; all logic
(Ibex, LiteX, the ACC, the KMAC) as standard cells around them in the one run, under Caravel's
base SDC made for LibreLane (wrapper_sdc). No block is hardened on its own.
"""
import dataclasses
import functools
import json
import os
import re
import shutil
from pathlib import Path

from ip.acc import block as acc_block
from ip.entropy import block as entropy_block
from pqsoc import BUILD, REPO, FlowError
from pqsoc.flow import caravel, openlane
from pqsoc.flow import floorplan as fpm
from soc import caravel_floorplan, flat_floorplan
from soc.target import SILICON_ENTROPY

# The flat architecture hardens no block on its own: the wrapper is the one run.
HARD_MACROS: tuple[str, ...] = ()
WRAPPER_BLOCK = "caravel"
HARDEN_ORDER = (WRAPPER_BLOCK,)
# The floorplan's SRAM names -> where their instances sit in the wrapper's RTL (in RTL order:
# rows, then columns of each SramBank, ip/common/sram.py).
SRAM_GROUPS = (("boot_ram", ".memories.rom."), ("main_sram", ".memories.sram."),
               ("imem", ".pqc.acc.imem."), ("dmem", ".pqc.acc.dmem."))
# The wrapper's sources as LibreLane reads them (made by openlane_inputs): numbered copies in
# reading order, the include folders, and Caravel's fixed files.
WRAPPER_SRC = BUILD / "rtl" / "caravel" / "openlane"
# Caravel's defines, which the wrapper includes by this name: an include folder of its own, not a
# source (LibreLane's read_slang takes each source as a unit of its own)
CARAVEL_DEFINES = "defines.v"
CARAVEL_FILES = BUILD / "caravel"
@functools.lru_cache(maxsize=1)
def checked_plan():
    """(context, study) of the flat floorplan for the current CPU memories (soc/target.py
    SILICON_ROM_SIZE / SILICON_SRAM_SIZE); FlowError when a macro's place fails a floorplan check
    or a row has no power: no configuration from such a floorplan. The study's estimates (the
    routing channels, the bands' utilisation) are verdicts of their own, which `pqsoc floorplan`
    and `pqsoc pnr check` report: a configuration they find at risk is still the one a first run
    would measure."""
    ctx = caravel_floorplan.context()
    boot, main = caravel_floorplan.current_sizes()
    s = flat_floorplan.study(ctx, boot, main, layout=flat_floorplan.CHIP_LAYOUT)
    if not s["placed"]:
        failed = [r["name"] for r in s["results"] if not r["ok"]] + (["power reach"] if s["unpowered_um2"] else [])
        raise FlowError(f"the flat floorplan with CPU memories {boot // 1024} + {main // 1024} KiB fails "
                        f"({', '.join(failed)}): no OpenLane configuration from a floorplan that fails its "
                        "checks (`pqsoc floorplan`)")
    return ctx, s


def _rel(path: Path, block_name: str) -> str:
    return "dir::" + os.path.relpath(path, REPO / "pnr" / block_name)


# A design that holds OpenRAM macros: Magic's DRC reads the DEF with the macros as LEF abstracts
# instead of the whole GDS. On the GDS it checks OpenRAM's bitcells, drawn to the foundry's
# special SRAM rules, and reports them by the million; ERROR_ON_MAGIC_DRC would stop the run
# before the views are written. The macros' own layout is OpenRAM's; the shuttle precheck's
# KLayout DRC reads the whole GDS.
SRAM_DRC = {"MAGIC_DRC_USE_GDS": False}


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


# --- the wrapper ---------------------------------------------------------------------------------
def wrapper_instances() -> dict[str, tuple[str, str]]:
    """The floorplan's SRAM names -> (instance path in the wrapper's RTL, cell), each group
    (SRAM_GROUPS) in the order the RTL holds its instances."""
    from pqsoc.flow.block import get
    block = get("caravel")
    found = fpm.macro_instances(_wrapper_text(block), block.top, (acc_block.SRAM_MACRO,))
    out = {}
    for prefix, where in SRAM_GROUPS:
        paths = [p for p, c in found if where in p]
        for k, path in enumerate(paths):
            out[f"{prefix}{k}"] = (path, acc_block.SRAM_MACRO)
    if stray := sorted({p for p, _ in found} - {p for p, _ in out.values()}):
        raise FlowError(f"SRAM instances in the wrapper's RTL in no group of SRAM_GROUPS: {', '.join(stray)}")
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
    """pnr/caravel/config.json's macros against the flat floorplan and the SRAM instances of the
    wrapper's RTL."""
    ctx, s = checked_plan()
    names = {n: path for n, (path, _) in wrapper_instances().items()}
    return (area_errors(cfg, list(ctx.wrapper.die), list(ctx.wrapper.core))
            + openlane.macro_errors(cfg, _places(s["fp"], names), sorted(names.values())))


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
              "# Appended: user_clock2, on which the SoC runs when LA clk_sel is 1 (USER_CLOCK2_SDC), and\n"
              "# with the entropy source (soc/target.py SILICON_ENTROPY) the false paths through its rings.\n"
              f"set io_sync {io_sync()}\n\n")
    if "usr_clk_max_latency" not in text or "usr_clk_tran" not in text:
        raise FlowError(f"Caravel's {BASE_SDC}: no usr_* clock figures for user_clock2: update "
                        "soc/caravel_openlane.py wrapper_sdc")
    return header + text + USER_CLOCK2_SDC + (entropy_block.ring_sdc() if SILICON_ENTROPY else "")


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
    ctx, st = checked_plan()
    fp = st["fp"]
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
        # OpenROAD's power-grid node check (PSM) reports the macros' internal grids as
        # unconnected nodes; Caravel's own wrapper configuration turns the stop off
        # (FP_PDN_CHECK_NODES 0) and LVS checks every power connection instead
        "ERROR_ON_PDN_VIOLATIONS": False,
        # the entropy source's rings: no repair may resize, buffer or remove their cells and nets
        **({"RSZ_DONT_TOUCH_RX": entropy_block.RING_NAME_RX} if SILICON_ENTROPY else {}),
        # Caravel's constraints (wrapper_sdc, written by wrapper_inputs), not LibreLane's defaults
        "PNR_SDC_FILE": _rel(WRAPPER_PNR_SDC, "caravel"),
        "SIGNOFF_SDC_FILE": _rel(WRAPPER_SDC, "caravel"),
    }
    return cfg


def wrapper_inputs() -> list[str]:
    """What the wrapper's configuration names under build/: its sources in reading order, Ibex'
    include folders, the SRAM macro's port-only header, Caravel's golden DEF (the pin template).
    Returns the problems (each fails `pqsoc pnr check` and stops `pqsoc harden`)."""
    from soc import ibex
    files = _emitted_wrapper()
    caravel_floorplan.sram_header()
    if WRAPPER_SRC.exists():
        shutil.rmtree(WRAPPER_SRC)
    (WRAPPER_SRC / "src").mkdir(parents=True)
    problems = []
    for k, f in enumerate(files):
        if Path(f).name == CARAVEL_DEFINES:   # included by name, `include "defines.v"`
            (WRAPPER_SRC / "include" / "caravel").mkdir(parents=True)
            shutil.copyfile(f, WRAPPER_SRC / "include" / "caravel" / CARAVEL_DEFINES)
            continue
        (WRAPPER_SRC / "src" / f"{k:03d}_{Path(f).name}").write_text(Path(f).read_text())
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
    return tuple(block.emit_rtl())
