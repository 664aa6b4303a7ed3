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
BUF_CELL = "sky130_fd_sc_hd__buf_8"

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
    alias: dict[str, str] = {}
    drop = set()
    for i, m in enumerate(insts):
        if not _ABC_BUF.match(m.group(1)) or m.group(2).startswith("fanout_buf_cell_"):
            continue
        pins = dict((pm.group(1), pm.group(2).strip()) for pm in map(_PIN.search, m.group(3).split("\n")) if pm)
        a, x = pins.get("A", ""), pins.get("X", "")
        base = x.split(" [")[0].split("[")[0]
        if not a or not x or base in ports or base.rstrip() in ports:
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


def repair(netlist: str, outputs: dict[str, set[str]], clock: str,
           max_fanout: int = MAX_FANOUT) -> tuple[str, int]:
    """Return (new netlist text, number of buffers inserted)."""
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
        if len(loads) <= max_fanout or net in (clock, f"\\{clock} ") or net.startswith("1'"):
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
