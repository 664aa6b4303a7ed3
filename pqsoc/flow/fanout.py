# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""Fanout repair of a mapped netlist: buffer trees on nets with more than MAX_FANOUT sinks.

ABC's `buffer` never buffers its primary inputs, and to ABC every flip-flop output is a primary
input: a control flop (e.g. `busy` of the Keccak core, 1320 sinks) stayed unbuffered and STA saw
an 11 ns rise time. OpenROAD's repair_design fixes this after placement; here, where OpenROAD is
not available, this pass does the netlist part of it so that synthesis-level STA is meaningful.

It works on Yosys' `write_verilog -noattr -noexpr` output, where every cell pin connects one bit.
The clock net is left alone (clock tree synthesis is a place-and-route step).
"""
import re
from collections import defaultdict
from pathlib import Path

MAX_FANOUT = 16
# buf_2: with the `_1` drive strengths allowed (session 11's cell list) buf_2 trees cost the
# ACC 1.1 MHz against buf_4 and saved 0.047 mm2; buf_1 saved 0.07 mm2 but cost 7.4 MHz
# (ip/acc/doc/architecture.md 2a). (Before that list, buf_4 had timed as buf_8 at half its
# area.)
BUF_CELL = "sky130_fd_sc_hd__buf_2"

_INST = re.compile(r"^  (\S+) (\S+) \(\n(.*?)\n  \);\n", re.M | re.S)
_PIN = re.compile(r"\.(\w+)\((.*)\)")


def liberty_output_pins(lib_text: str) -> dict[str, set[str]]:
    """Output pin names of each Liberty cell."""
    outs: dict[str, set[str]] = defaultdict(set)
    for cm in re.finditer(r"\n    cell \(\"?(\w+)\"?\) \{(.*?)\n    \}", lib_text, re.S):
        cell, body = cm.group(1), cm.group(2)
        for pm in re.finditer(r"pin \(\"?(\w+)\"?\) \{(.*?)\n        \}", body, re.S):
            if re.search(r"direction\s*:\s*\"?output", pm.group(2)):
                outs[cell].add(pm.group(1))
    return outs


_ABC_BUF = re.compile(r"sky130_fd_sc_hd__buf_\d+$")


def collapse_buffers(netlist: str) -> tuple[str, int]:
    """Remove ABC's buffers (buf_N cells) whose output is not a port: their sinks move to the
    buffer's input net. ABC's `buffer` builds its trees for its own (wire-load free) timing
    and, where it thinks there is slack, chains 20 and more buf_1 in a row (10 ns in the
    ACC's wide ALU); `repair` then builds balanced trees from the drivers. Returns (text,
    buffers removed)."""
    ports = set()
    for m in re.finditer(r"^\s*(?:input|output|inout)\s+(?:\[[^\]]*\]\s*)?(\S+);", netlist, re.M):
        ports.add(m.group(1))
    insts = list(_INST.finditer(netlist))
    # Nets that some pin takes as a vector (an SRAM macro's `.addr0(adr[8:0])`, a concatenation):
    # a buffer driving one of their bits stays, since that connection cannot move to its input.
    declared = set(re.findall(r"^\s*(?:wire|input|output|inout)\s+\[[^\]]*\]\s*(\S+);", netlist, re.M))
    # Every pin line of the file, not only the instances _INST matches: the macros' escaped
    # instance names (`\\memories.rom.bank.ram_r0_c0  (`) are outside its pattern.
    vectors = set()
    for pm in re.finditer(r"^\s*\.\w+\((.*)\),?$", netlist, re.M):
        conn = pm.group(1).strip()
        if re.search(r"\[\d+:\d+\]|\{", conn) or conn in declared:
            vectors.update(n.rstrip() for n in re.findall(r"\\\S+ |[A-Za-z_][\w$]*", conn))
    # Nor can a single-bit connection of an instance that _INST does not match (an escaped
    # macro or submodule instance name) move: its pin lines are never rewritten below.
    rest, pos = [], 0
    for m in insts:
        rest.append(netlist[pos:m.start()])
        pos = m.end()
    rest.append(netlist[pos:])
    for pm in re.finditer(r"^\s*\.\w+\((.*)\),?$", "".join(rest), re.M):
        vectors.update(n.rstrip() for n in re.findall(r"\\\S+ |[A-Za-z_][\w$]*", pm.group(1)))
    alias: dict[str, str] = {}
    drop = set()
    for i, m in enumerate(insts):
        if not _ABC_BUF.match(m.group(1)) or m.group(2).startswith("fanout_buf_cell_"):
            continue
        pins = dict((pm.group(1), pm.group(2).strip()) for pm in map(_PIN.search, m.group(3).split("\n")) if pm)
        a, x = pins.get("A", ""), pins.get("X", "")
        base = x.split(" [")[0].split("[")[0]
        if not a or not x or base in ports or base.rstrip() in ports or base.rstrip() in vectors:
            continue
        alias[x] = a
        drop.add(i)
    if not drop:
        return netlist, 0

    def root(net: str) -> str:
        seen = 0
        while net in alias and seen < len(alias) + 1:
            net, seen = alias[net], seen + 1
        return net

    out, pos = [], 0
    for i, m in enumerate(insts):
        out.append(netlist[pos:m.start()])
        if i not in drop:
            lines = m.group(3).split("\n")
            for j, ln in enumerate(lines):
                pm = _PIN.search(ln)
                if pm and pm.group(2).strip() in alias:
                    lines[j] = ln[:pm.start(2)] + root(pm.group(2).strip()) + " " + ln[pm.end(2):]
            out.append(netlist[m.start():m.start(3)] + "\n".join(lines) + netlist[m.end(3):m.end()])
        pos = m.end()
    out.append(netlist[pos:])

    def assign_rhs(m):
        rhs = m.group(2).strip()
        return f"{m.group(1)}{root(rhs) + ' ' if rhs in alias else m.group(2)};"
    text = re.sub(r"^(  assign .*? = )(.*?);$", assign_rhs, "".join(out), flags=re.M)
    return text, len(drop)


def repair(netlist: str, outputs: dict[str, set[str]], clock,
           max_fanout: int = MAX_FANOUT) -> tuple[str, int]:
    """Return (new netlist text, number of buffers inserted). clock: the clock net's name, or
    a set of names (one module of a hierarchical netlist: its clock ports), left unbuffered.
    The text is one module: new buffers go before its last `endmodule`."""
    clocks = {clock} if isinstance(clock, str) else set(clock)
    insts = list(_INST.finditer(netlist))
    sinks: dict[str, list[tuple[int, int]]] = defaultdict(list)  # net -> [(instance, pin line)]
    bodies = []
    for i, m in enumerate(insts):
        cell = m.group(1)
        lines = m.group(3).split("\n")
        bodies.append(lines)
        for j, ln in enumerate(lines):
            pm = _PIN.search(ln)
            if pm and pm.group(1) not in outputs.get(cell, ()) and pm.group(2).strip():
                sinks[pm.group(2).strip()].append((i, j))

    new_wires, new_cells, nbuf = [], [], 0

    def add_buffer(src: str) -> str:
        nonlocal nbuf
        nbuf += 1
        net = f"fanout_buf_{nbuf}"
        new_wires.append(f"  wire {net};")
        # The space ends an escaped identifier such as `\engine.core.busy`; harmless elsewhere.
        new_cells.append(f"  {BUF_CELL} fanout_buf_cell_{nbuf} (\n    .A({src} ),\n    .X({net})\n  );")
        return net

    for net, loads in sinks.items():
        if len(loads) <= max_fanout or net.lstrip("\\").rstrip() in clocks or net.startswith("1'"):
            continue
        groups = [loads[k:k + max_fanout] for k in range(0, len(loads), max_fanout)]
        group_net: list[str] = [""] * len(groups)

        def build(src: str, items: list[int]) -> None:
            """Drive the sink groups `items` from `src`, at most max_fanout buffers per net."""
            if len(items) <= max_fanout:
                for gi in items:
                    group_net[gi] = add_buffer(src)
                return
            per = -(-len(items) // max_fanout)
            for k in range(0, len(items), per):
                build(add_buffer(src), items[k:k + per])

        # the driver sees one buffer: ABC sized it for the load it saw before this pass (a
        # minimum-size a2111oi driving 16 buffer inputs took 3 ns)
        build(add_buffer(net), list(range(len(groups))))
        for gi, g in enumerate(groups):
            for (i, j) in g:
                ln = bodies[i][j]
                pm = _PIN.search(ln)
                bodies[i][j] = ln[:pm.start(2)] + group_net[gi] + ln[pm.end(2):]

    if not nbuf:
        return netlist, 0
    out, pos = [], 0
    for m, lines in zip(insts, bodies):
        out.append(netlist[pos:m.start(3)])
        out.append("\n".join(lines))
        pos = m.end(3)
    out.append(netlist[pos:])
    text = "".join(out)
    end = text.rindex("endmodule")
    text = text[:end] + "\n".join(new_wires + new_cells) + "\n" + text[end:]
    return text, nbuf


def repair_file(src: Path, dst: Path, liberty: Path, clock: str) -> int:
    text, n = repair(src.read_text(), liberty_output_pins(liberty.read_text()), clock)
    dst.write_text(text)
    return n


# ------------------------------------------------------------------ load-based upsizing
# ABC sized every gate for the loads it saw, i.e. with its own buffers in place; after
# collapse_buffers a gate may drive up to MAX_FANOUT pins itself. A minimum-size gate (the
# `_0` drive strengths have max_capacitance ~0.02 pF) driving 16 mux selects was then
# beyond its Liberty max_capacitance and took ~3 ns on the ACC's critical path. This pass
# is the netlist part of OpenROAD's repair_design for that case: every driver whose load
# (sink pin capacitances plus the Liberty's default wire-load estimate) exceeds
# LOAD_FRACTION of its max_capacitance becomes the smallest drive strength of the same
# cell family (same pins) that keeps it under, or the strongest one.
LOAD_FRACTION = 0.5


class CellLib:
    """What the sizing needs from a Liberty: per cell area, input pin capacitance, output pin
    max_capacitance; drive-strength families (name without the `_N` suffix); wire-load
    table (the default model)."""

    def __init__(self, lib_text: str, dont_use=()):
        self.area, self.pin_cap, self.max_cap = {}, {}, {}
        for cm in re.finditer(r"\n    cell \(\"?(\w+)\"?\) \{(.*?)\n    \}", lib_text, re.S):
            cell, body = cm.group(1), cm.group(2)
            am = re.search(r"\n        area\s*:\s*([\d.eE+-]+)", body)
            self.area[cell] = float(am.group(1)) if am else 0.0
            ins, outs = {}, {}
            for pm in re.finditer(r"\n        pin \(\"?(\w+)\"?\) \{(.*?)\n        \}", body, re.S):
                b = pm.group(2)
                if re.search(r"direction\s*:\s*\"?output", b):
                    mc = re.search(r"\n            max_capacitance\s*:\s*([\d.eE+-]+)", b)
                    outs[pm.group(1)] = float(mc.group(1)) if mc else None
                else:
                    c = re.search(r"\n            capacitance\s*:\s*([\d.eE+-]+)", b)
                    ins[pm.group(1)] = float(c.group(1)) if c else 0.0
            self.pin_cap[cell], self.max_cap[cell] = ins, outs
        self.families: dict[str, list[str]] = defaultdict(list)
        banned = set(dont_use)
        for cell in self.area:
            fm = re.match(r"(.*)_(\d+)$", cell)
            if fm and cell not in banned:
                self.families[fm.group(1)].append(cell)
        for fam in self.families.values():
            fam.sort(key=lambda c: self.area[c])
        self.wire = self._wire_load(lib_text)

    @staticmethod
    def _wire_load(lib_text: str):
        name = re.search(r"default_wire_load\s*:\s*\"?(\w+)", lib_text)
        body = name and re.search(r"wire_load\(\"?%s\"?\)\s*\{(.*?)\}" % name.group(1), lib_text, re.S)
        if not body:
            return lambda n: 0.0
        b = body.group(1)
        cap = float(re.search(r"capacitance\s*:\s*([\d.eE+-]+)", b).group(1))
        slope = float(re.search(r"slope\s*:\s*([\d.eE+-]+)", b).group(1))
        table = {int(f): float(l) for f, l in re.findall(r"fanout_length\(\s*(\d+)\s*,\s*([\d.eE+-]+)\)", b)}
        top = max(table)

        def wire(n: int) -> float:
            if n <= 0:
                return 0.0
            return cap * (table[n] if n in table else table[top] + slope * (n - top))
        return wire

    def variants(self, cell: str) -> list[str]:
        """Same-family cells with the same pins (smallest area first); [] if none."""
        fm = re.match(r"(.*)_(\d+)$", cell)
        if not fm:
            return []
        pins = (set(self.pin_cap[cell]), set(self.max_cap[cell]))
        return [c for c in self.families.get(fm.group(1), ())
                if (set(self.pin_cap[c]), set(self.max_cap[c])) == pins]


def upsize(netlist: str, lib: CellLib, fraction: float = LOAD_FRACTION,
           rounds: int = 3) -> tuple[str, int]:
    """Return (netlist, number of cells changed). Only upsizes; a few rounds because an
    upsized sink loads its own driver more."""
    insts = list(_INST.finditer(netlist))
    cells = [m.group(1) for m in insts]
    pins = []                                    # per instance: [(pin, net)]
    for m in insts:
        pl = []
        for ln in m.group(3).split("\n"):
            pm = _PIN.search(ln)
            if pm and pm.group(2).strip():
                pl.append((pm.group(1), pm.group(2).strip()))
        pins.append(pl)
    changed: set[int] = set()
    for _ in range(rounds):
        load: dict[str, float] = defaultdict(float)
        fanout: dict[str, int] = defaultdict(int)
        drivers: list[tuple[int, str, str]] = []
        for i, cell in enumerate(cells):
            caps, outs = lib.pin_cap.get(cell), lib.max_cap.get(cell)
            if caps is None:                     # macro or unknown cell: not sized, no load
                continue
            for pin, net in pins[i]:
                if pin in outs:
                    drivers.append((i, pin, net))
                else:
                    load[net] += caps.get(pin, 0.0)
                    fanout[net] += 1
        n_round = 0
        for i, pin, net in drivers:
            cell = cells[i]
            need = load[net] + lib.wire(fanout[net])
            mc = lib.max_cap[cell][pin]
            if mc is None or need <= fraction * mc:
                continue
            options = lib.variants(cell)
            if not options:
                continue
            fits = [c for c in options if (lib.max_cap[c][pin] or 0) * fraction >= need]
            best = fits[0] if fits else max(options, key=lambda c: lib.max_cap[c][pin] or 0)
            if lib.area[best] > lib.area[cell]:
                cells[i] = best
                changed.add(i)
                n_round += 1
        if not n_round:
            break
    if not changed:
        return netlist, 0
    out, pos = [], 0
    for i in sorted(changed):
        m = insts[i]
        out.append(netlist[pos:m.start(1)])
        out.append(cells[i])
        pos = m.end(1)
    out.append(netlist[pos:])
    return "".join(out), len(changed)


# ------------------------------------------------------------------ hierarchical netlists
# A block with kept hierarchy (Block.keep_hierarchy) has one Verilog module per kept module plus
# its top. Net names are per module (every module has its `clk`), so each pass above runs on one
# module at a time; an instance of a kept module is, to its parent, like an SRAM macro: its pins
# are neither loads nor drivers there (the module's own ports are buffered inside it).
_MODULE_HEAD = re.compile(r"^module (\\\S+|[\w$]+) ?\(", re.M)
_ANY_INST = re.compile(r"^  (\\\S+ |[\w$]+) +(\\\S+ |[\w$]+) *\(\n(.*?)\n  \);\n", re.M | re.S)
_PORT = re.compile(r"^\s*(input|output|inout)\s+(?:\[[^\]]*\]\s*)?(\\\S+|[\w$]+)\s*;", re.M)


def split_modules(netlist: str) -> list[tuple[str, int, int]]:
    """(module name without the escape backslash, start, end) of each module, in file order;
    text[start:end] runs from `module` to the end of its `endmodule` line."""
    mods = []
    for m in _MODULE_HEAD.finditer(netlist):
        end = netlist.index("\nendmodule", m.start()) + len("\nendmodule")
        if end < len(netlist) and netlist[end] == "\n":
            end += 1
        mods.append((m.group(1).lstrip("\\"), m.start(), end))
    return mods


def module_ports(module_text: str) -> dict[str, str]:
    """Port name (without escape) -> direction of one module's text."""
    return {m.group(2).lstrip("\\"): m.group(1) for m in _PORT.finditer(module_text)}


def instances_of(module_text: str, modules) -> list[tuple[str, str, dict[str, str]]]:
    """Instances of the named modules in one module's text: (module, instance, {pin: net})."""
    found = []
    for m in _ANY_INST.finditer(module_text):
        cell = m.group(1).strip().lstrip("\\")
        if cell in modules:
            pins = {pm.group(1): pm.group(2).strip() for pm in map(_PIN.search, m.group(3).split("\n")) if pm}
            found.append((cell, m.group(2).strip().lstrip("\\"), pins))
    return found


def clock_nets(netlist: str, top: str, clock: str) -> dict[str, set[str]]:
    """Per module, the names of its clock nets: the top's clock port, and in a submodule every
    port that an instance connects to a clock net of its parent."""
    mods = {name: netlist[s:e] for name, s, e in split_modules(netlist)}
    clocks = {name: set() for name in mods}
    clocks.setdefault(top, set()).add(clock)
    todo = [top]
    while todo:
        parent = todo.pop()
        for cell, _, pins in instances_of(mods.get(parent, ""), mods):
            new = {p for p, net in pins.items() if net.lstrip("\\") in clocks[parent]} - clocks[cell]
            if new:
                clocks[cell] |= new
                todo.append(cell)
    return clocks
