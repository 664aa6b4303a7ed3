# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""The silicon SoC inside Caravel's `user_project_wrapper`: the pin plan (one table: GPIOs, logic
analyzer, interrupts), the generated wrapper Verilog and `user_defines.v`.

    pqsoc caravel emit [OUT]      -> OUT/user_project_wrapper.v, OUT/user_defines.v, OUT/pins.json
                                     and the SoC (OUT/soc/...: soc.build with caravel=True)

The SoC top (`pqsoc`, soc/target.py with caravel=True) runs on wb_clk_i or user_clock2, takes the
management core's Wishbone as a second outside master (soc/mgmt_port.py; address map there),
and puts both outside masters behind the bus access policy (soc/access.py). The wrapper only
wires pins: its ports are exactly Caravel's (checked against $CARAVEL_ROOT's
verilog/rtl/user_project_wrapper.v by soc/tests/test_caravel.py).

GPIOs: mprj_io[0..4] belong to the management core at power-up (JTAG, housekeeping SPI) and
[5], [6] are its UART; ours start at 7. `io_oeb` is low for our outputs only; every other pad
is an input (oeb high, out low). Unused pads are inputs with pull-down, so nothing floats.
"""
import json
import re
from dataclasses import dataclass
from pathlib import Path

from pqsoc import FlowError, spdx, write_if_changed
from pqsoc.flow import locks
from pqsoc.flow.caravel import caravel_root
from soc.target import PROBES as LA_PROBES, USER_IRQ

MPRJ_IO_PADS = 38
LA_BITS = 128
FIRST_USER_CONFIGURABLE = 5      # user_defines.v sets the power-on mode of GPIO 5..37


@dataclass(frozen=True)
class Pin:
    io: int              # mprj_io index
    port: str            # our SoC top's port (soc/platform.py name), bit-selected if a vector
    output: bool
    mode: str            # user_defines.v power-on mode (Caravel's GPIO_MODE_* name)


def _pins() -> tuple[Pin, ...]:
    p = [Pin(5, "", False, "GPIO_MODE_MGMT_STD_INPUT_NOPULL"),      # management UART rx
         Pin(6, "", True, "GPIO_MODE_MGMT_STD_OUTPUT"),             # management UART tx
         Pin(7, "bringup_rx", False, "GPIO_MODE_USER_STD_INPUT_PULLUP"),
         Pin(8, "bringup_tx", True, "GPIO_MODE_USER_STD_OUTPUT"),
         Pin(9, "uart_rx", False, "GPIO_MODE_USER_STD_INPUT_PULLUP"),
         Pin(10, "uart_tx", True, "GPIO_MODE_USER_STD_OUTPUT")]
    p += [Pin(11 + i, f"gpio_in[{i}]", False, "GPIO_MODE_USER_STD_INPUT_PULLDOWN") for i in range(8)]
    p += [Pin(19 + i, f"gpio_out[{i}]", True, "GPIO_MODE_USER_STD_OUTPUT") for i in range(8)]
    used = {x.io for x in p}
    p += [Pin(i, "", False, "GPIO_MODE_USER_STD_INPUT_PULLDOWN")
          for i in range(FIRST_USER_CONFIGURABLE, MPRJ_IO_PADS) if i not in used]
    return tuple(sorted(p, key=lambda x: x.io))


PINS = _pins()
# Logic analyzer: inputs the management core drives (valid where its la_oenb bit is low, as
# in Caravel's example project), and our probes on la_data_out[0..] (soc/target.py PROBES).
LA_CLK_SEL = 64          # 1: the SoC runs on user_clock2 (change only in reset)
LA_USER_RST = 65         # 1: hold the SoC in reset


def used_pins() -> tuple[str, ...]:
    """The wrapper's pins whose nets reach the SoC's logic (a constant's, a tie cell's beside the
    pin, do not): the management Wishbone, the LA bits read (clk_sel, user_rst: data and oenb)
    and driven (the probes, la_data_out[0..]), the interrupts, user_clock2, and each mprj_io the
    pin plan uses (io_in of an input, io_out of an output; its io_oeb is a constant)."""
    wb = ["wb_clk_i", "wb_rst_i", "wbs_stb_i", "wbs_cyc_i", "wbs_we_i", "wbs_ack_o",
          *(f"wbs_sel_i[{k}]" for k in range(4)),
          *(f"wbs_{n}[{k}]" for n in ("dat_i", "adr_i", "dat_o") for k in range(32))]
    la = [f"la_{n}[{b}]" for b in (LA_CLK_SEL, LA_USER_RST) for n in ("data_in", "oenb")]
    la += [f"la_data_out[{k}]" for k in range(len(LA_PROBES))]
    irq = [f"user_irq[{k}]" for k in range(len(USER_IRQ))]
    io = [f"io_{'out' if p.output else 'in'}[{p.io}]" for p in PINS if p.port]
    return (*wb, *la, *irq, "user_clock2", *io)


def _strip_comments(text: str) -> str:
    return re.sub(r"//[^\n]*|/\*.*?\*/", "", text, flags=re.S)


def wrapper_ports(text: str) -> list[tuple[str, str, str, bool]]:
    """(direction, range text, name, under USE_POWER_PINS) of module user_project_wrapper's
    ports, in order, from Verilog text (Caravel's or ours)."""
    m = re.search(r"module\s+user_project_wrapper\s*(?:#\s*\(.*?\))?\s*\((.*?)\);",
                  _strip_comments(text), re.S)
    if not m:
        raise FlowError("no module user_project_wrapper port list found")
    ports, power = [], False
    for line in m.group(1).splitlines():
        line = line.strip().rstrip(",")
        if line.startswith("`ifdef USE_POWER_PINS"):
            power = True
        elif line.startswith("`endif"):
            power = False
        elif line:
            d = re.fullmatch(r"(input|output|inout)\s*(\[[^\]]*\])?\s*(\w+)", line)
            if not d:
                raise FlowError(f"unexpected port declaration {line!r}")
            ports.append((d.group(1), re.sub(r"\s+", "", d.group(2) or ""), d.group(3), power))
    return ports


def gpio_modes(caravel: Path) -> dict[str, str]:
    """Caravel's GPIO_MODE_* values (name -> Verilog literal) from its user_defines.v."""
    text = (caravel / "verilog" / "rtl" / "user_defines.v").read_text()
    modes = dict(re.findall(r"`define\s+(GPIO_MODE_\w+)\s+(\S+)", text))
    missing = sorted({p.mode for p in PINS} - set(modes))
    if missing:
        raise FlowError(f"{caravel}/verilog/rtl/user_defines.v lacks {', '.join(missing)}")
    return modes


def user_defines(caravel: Path) -> str:
    modes = gpio_modes(caravel)
    lines = [*spdx.header(".v").splitlines(),
             "// Generated by soc/caravel.py (pqsoc caravel emit): the power-on mode of each user GPIO,",
             "// from the pin plan PINS; mode values are Caravel's (its verilog/rtl/user_defines.v).",
             "`default_nettype none", "`ifndef __USER_DEFINES_H", "`define __USER_DEFINES_H", ""]
    lines += [f"`define {name} {value}" for name, value in modes.items()]
    lines.append("")
    for p in PINS:
        use = p.port or ("management UART" if p.mode.startswith("GPIO_MODE_MGMT") else "unused")
        lines.append(f"`define USER_CONFIG_GPIO_{p.io}_INIT `{p.mode}  // {use}")
    lines += ["", "`endif // __USER_DEFINES_H", "`default_nettype wire", ""]
    return "\n".join(lines)


def wrapper_verilog(soc_ports: set[str]) -> str:
    """user_project_wrapper: Caravel's ports, the SoC top `pqsoc` inside, pins per PINS."""
    for p in PINS:
        base = p.port.split("[")[0]
        if p.port and base not in soc_ports:
            raise FlowError(f"pin plan: mprj_io[{p.io}] names {p.port!r}, which the SoC top lacks")
    oeb = ["1'b1"] * MPRJ_IO_PADS
    outs = ["1'b0"] * MPRJ_IO_PADS
    conns = {}
    for p in PINS:
        if not p.port:
            continue
        base, _, bit = p.port.partition("[")
        if p.output:
            oeb[p.io] = "1'b0"
            outs[p.io] = f"{base}_w[{bit[:-1]}]" if bit else f"{base}_w"
        else:
            conns.setdefault(base, {})[bit[:-1] if bit else None] = f"io_in[{p.io}]"
    out_ports = sorted({p.port.split("[")[0] for p in PINS if p.port and p.output})
    width = {b: 1 + max(int(p.port.split("[")[1][:-1]) for p in PINS if p.port.startswith(b + "["))
             for b in out_ports if any(p.port.startswith(b + "[") for p in PINS)}
    in_width = {b: len(v) for b, v in conns.items()}
    L = [*spdx.header(".v").splitlines(),
         "// Generated by soc/caravel.py (pqsoc caravel emit): Caravel's user_project_wrapper around",
         "// the pqsoc SoC. Ports exactly Caravel's; pin plan: soc/caravel.py PINS.",
         "`default_nettype none",
         "// Caravel's MPRJ_IO_PADS: its defines.v (read first by Caravel's flow; a tool that reads each",
         "// file as its own compilation unit gets it here)",
         "`ifndef MPRJ_IO_PADS", "`include \"defines.v\"", "`endif",
         "module user_project_wrapper #(", "    parameter BITS = 32", ") (",
         "`ifdef USE_POWER_PINS"]
    L += [f"    inout {n}," for n in ("vdda1", "vdda2", "vssa1", "vssa2", "vccd1", "vccd2", "vssd1", "vssd2")]
    L += ["`endif",
          "    input wb_clk_i,", "    input wb_rst_i,", "    input wbs_stb_i,", "    input wbs_cyc_i,",
          "    input wbs_we_i,", "    input [3:0] wbs_sel_i,", "    input [31:0] wbs_dat_i,",
          "    input [31:0] wbs_adr_i,", "    output wbs_ack_o,", "    output [31:0] wbs_dat_o,",
          "    input  [127:0] la_data_in,", "    output [127:0] la_data_out,", "    input  [127:0] la_oenb,",
          "    input  [`MPRJ_IO_PADS-1:0] io_in,", "    output [`MPRJ_IO_PADS-1:0] io_out,",
          "    output [`MPRJ_IO_PADS-1:0] io_oeb,", "    inout [`MPRJ_IO_PADS-10:0] analog_io,",
          "    input   user_clock2,", "    output [2:0] user_irq", ");"]
    for b in out_ports:
        w = width.get(b)
        L.append(f"    wire {f'[{w - 1}:0] ' if w else ''}{b}_w;")
    L += [f"    wire [{len(LA_PROBES) - 1}:0] probe_w;",
          f"    assign io_out = {{{', '.join(reversed(outs))}}};",
          f"    assign io_oeb = {{{', '.join(reversed(oeb))}}};",
          f"    assign la_data_out = {{{LA_BITS - len(LA_PROBES)}'b0, probe_w}};", "",
          "    pqsoc soc (",
          "        .wb_clk_i(wb_clk_i), .wb_rst_i(wb_rst_i), .user_clock2(user_clock2),",
          f"        .clk_sel(~la_oenb[{LA_CLK_SEL}] & la_data_in[{LA_CLK_SEL}]),",
          f"        .user_rst(~la_oenb[{LA_USER_RST}] & la_data_in[{LA_USER_RST}]),",
          "        .wbs_cyc_i(wbs_cyc_i), .wbs_stb_i(wbs_stb_i), .wbs_we_i(wbs_we_i), .wbs_sel_i(wbs_sel_i),",
          "        .wbs_adr_i(wbs_adr_i), .wbs_dat_i(wbs_dat_i), .wbs_ack_o(wbs_ack_o), .wbs_dat_o(wbs_dat_o),"]
    for b, bits in sorted(conns.items()):
        if None in bits:
            L.append(f"        .{b}({bits[None]}),")
        else:
            L.append(f"        .{b}({{{', '.join(bits[str(i)] for i in reversed(range(in_width[b])))}}}),")
    for b in out_ports:
        L.append(f"        .{b}({b}_w),")
    L += ["        .user_irq(user_irq),", "        .probe(probe_w)", "    );", "endmodule",
          "`default_nettype wire", ""]
    return "\n".join(L)


def soc_top_ports(verilog: str) -> set[str]:
    m = re.search(r"module\s+pqsoc\s*\((.*?)\);", verilog, re.S)
    if not m:
        raise FlowError("module pqsoc not found in the SoC's Verilog")
    return {re.findall(r"(\w+)\s*$", d.strip())[0] for d in m.group(1).split(",") if d.strip()}


def emit(out: Path) -> dict:
    """The Caravel SoC (soc/silicon.py's, caravel=True) under OUT/soc and the wrapper files in
    OUT. Returns the paths and `sources`: the SoC's files in reading order, then the wrapper."""
    out = Path(out).resolve()
    with locks.exclusive(out):      # one writer per folder (pytest-xdist workers, campaign tasks)
        return _emit(out)


def _emit(out: Path) -> dict:
    from soc import silicon
    caravel = caravel_root()
    sources = silicon.emit(out / "soc", caravel=True)
    top = sources[-1]
    wrapper = wrapper_verilog(soc_top_ports(top.read_text()))
    theirs = wrapper_ports((caravel / "verilog" / "rtl" / "user_project_wrapper.v").read_text())
    if wrapper_ports(wrapper) != theirs:
        raise FlowError("the generated user_project_wrapper's ports differ from Caravel's")
    paths = {"wrapper": out / "user_project_wrapper.v", "user_defines": out / "user_defines.v",
             "pins": out / "pins.json"}
    write_if_changed(paths["wrapper"], wrapper)
    write_if_changed(paths["user_defines"], user_defines(caravel))
    plan = {"pins": [p.__dict__ for p in PINS], "la": {"clk_sel": LA_CLK_SEL, "user_rst": LA_USER_RST,
            "probes": list(LA_PROBES)}, "user_irq": list(USER_IRQ)}
    write_if_changed(paths["pins"], json.dumps(plan, indent=1) + "\n")
    files = json.loads((out / "soc" / "gateware" / "files.json").read_text())
    return {**paths, "soc_dir": out / "soc", "sources": [*sources, paths["wrapper"]],
            "include_paths": files["include_paths"]}


