# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""The gate-level netlist as the signoff (signoff.py) reads it: which standard cells are
physical only (PHYSICAL_ONLY: taps, fill, decap, diodes, which a synthesized netlist lacks),
the supply pins a netlist without power pins gets (powered_netlist, for LVS), and the nets
and pin connections of its top module (netlist_nets, for the parasitics of the STA).
"""
import re

from pqsoc import FlowError

# Cells a layout flow adds for the silicon, not the logic: a synthesized netlist has none.
PHYSICAL_ONLY = re.compile(r"^sky130_\w+__(tapvpwrvgnd|tapvgnd2?|tap|fill|decap|diode|fakediode|"
                           r"lpflow_decapkapwr)_\d+$")
# Supply pins of the standard cells -> the net they get in a netlist without power pins.
SUPPLY_NETS = {"VPWR": "VPWR", "VGND": "VGND", "VPB": "VPWR", "VNB": "VGND", "KAPWR": "VPWR"}
VERILOG_MODULE = re.compile(r"^\s*module\s+(\\\S+|[\w$]+)\s*(\((.*?)\))?\s*;", re.M | re.S)
VERILOG_INSTANCE = re.compile(r"^(\s*)(\\\S+\s|[\w$]+)\s+(\\\S+\s|[\w$]+)\s*\((.*?)\)\s*;", re.M | re.S)
VERILOG_KEYWORDS = {"module", "input", "output", "inout", "wire", "reg", "assign", "endmodule",
                    "supply0", "supply1", "parameter", "localparam", "always", "initial", "function", "task"}


def cell_pins(spice_text: str) -> dict[str, list[str]]:
    """Subcircuit name -> pins, from the PDK's cell SPICE."""
    return {m.group(1): m.group(2).split()
            for m in re.finditer(r"^\.subckt\s+(\S+)\s+([^\n]*)$", spice_text, re.M | re.I)}


def powered_netlist(text: str, cells: dict[str, list[str]]) -> tuple[str, int]:
    """The netlist with VPWR/VGND ports on every module, the cells' supply pins connected
    (SUPPLY_NETS) and VPWR/VGND passed to every instance of a module of the netlist.
    Pins the netlist already connects are left as they are. Returns (text, pins added)."""
    modules = {m.group(1).strip() for m in VERILOG_MODULE.finditer(text)}
    added = 0

    def inst(m):
        nonlocal added
        cell = m.group(2).strip()
        if cell in VERILOG_KEYWORDS:
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
        if VERILOG_MODULE.match(part):
            head = VERILOG_MODULE.match(part)
            body = VERILOG_INSTANCE.sub(inst, part[head.end():])
            out.append(module(head) + body)
        else:
            out.append(part)
    return "".join(out), added


def netlist_nets(netlist_text: str, top: str) -> tuple[dict[str, str], dict[tuple[str, str], str]]:
    """({net or port bit: 'input'/'output'/'inout'/'wire'}, {(instance, pin): net}) of the top
    module of a flat netlist; buses are expanded to their bits (`q[3]`)."""
    part = None
    for seg in re.split(r"(?=^\s*module\s)", netlist_text, flags=re.M):
        hm = VERILOG_MODULE.match(seg)
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
    for m in VERILOG_INSTANCE.finditer(part):
        if m.group(2).strip() in VERILOG_KEYWORDS:
            continue
        inst = m.group(3).strip().lstrip("\\")
        for pm in re.finditer(r"\.(\w+)\s*\(\s*([^)]*?)\s*\)", m.group(4)):
            if pm.group(2):
                pins[(inst, pm.group(1))] = pm.group(2).lstrip("\\").strip()
    return nets, pins
