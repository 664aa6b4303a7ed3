# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""The gate-level power model: per clock cycle, the toggles of every net of a flat netlist.

The input is a netlist flattened with the Liberty cell functions (pqsoc.flow.gls.flat_netlist:
one module, every cell a few assigns or a flip-flop). Every net is declared there as a `wire`
or, for a flip-flop's output, a `reg`; a net that is only another net under a second name (an
`assign a = b;`, e.g. a cell's input pin) is left out, so each net counts once. The module
gets more outputs, `pwr_flops` and `pwr_logic` (32-bit counts): the nets in words of GROUP,
each word XOR its value at the last rising clock edge, popcounts summed per unit, so after an
edge they are the flip-flops' and the combinational nets' toggles that edge caused. Words, not
wide vectors: Verilator builds a concatenation of many single bits through temporaries that
grow a word at a time (the model had 4 096-bit chunks; with the host driver's fewer bus
cycles, a trace of the ACC's masked decapsulation went from 10.4 to 5.7 s). The simulator is
cycle based (Verilator): a net's settled value per cycle, no glitches; input ports are the
driver's and are not counted.

A caller may group the nets otherwise or count fewer (`classify`: e.g. the ACC's units and only
the nets of its synthesized netlist, ip/acc/dv/gls_power.py) and count the output ports too
(nets the netlist drives: the ACC's side-load and bus data).
"""
import hashlib
import re
import sys
from pathlib import Path
from typing import Callable

from pqsoc import FlowError

UNITS = ("flops", "logic")
GROUP = 32              # nets per word
SUM = 256               # words per partial sum (one expression each)
_NAME = r"(\\\S+ |[A-Za-z_][\w$]*)"
_DECL = re.compile(rf"^\s*(input|output|wire|reg)\s+(?:\[(\d+):(\d+)\]\s*)?{_NAME};", re.M)
_ALIAS = re.compile(rf"^\s*assign\s+{_NAME}\s*=\s*{_NAME};", re.M)


def nets_of(text: str, count_outputs: bool = False) -> list[tuple[str, int, str]]:
    """(name, width, kind) of every net a flat netlist counts, each once: kind "reg" (a flip-flop's
    output) or "wire"; a second name of a net (`assign a = b;`) and the input ports are left out,
    the output ports too unless count_outputs."""
    inputs, outputs, nets, seen = set(), set(), [], set()
    aliases = {m.group(1) for m in _ALIAS.finditer(text)}
    for kind, hi, lo, name in _DECL.findall(text):
        if kind in ("input", "output"):
            (inputs if kind == "input" else outputs).add(name)
            continue
        if name in inputs or (name in outputs and not count_outputs) or name in aliases or name in seen:
            continue
        seen.add(name)
        nets.append((name, abs(int(hi) - int(lo)) + 1 if hi else 1, kind))
    return nets


def outputs_of(text: str) -> set[str]:
    """The output ports of a flat netlist."""
    return {name for kind, _, _, name in _DECL.findall(text) if kind == "output"}


def by_kind(text: str, nets: list[tuple[str, int, str]]) -> tuple[tuple[str, ...], dict[str, str]]:
    """The default grouping: flip-flops (`reg`) and the rest."""
    return UNITS, {n: "flops" if kind == "reg" else "logic" for n, _, kind in nets}


def instrument(flat: Path, top: str, out: Path, clock: str = "clk", top_class: str = "Vtop",
               classify: Callable = by_kind, count_outputs: bool = False,
               sample_type: str = "uint32_t") -> tuple[Path, dict[str, int]]:
    """out/power_flat.v (FLAT with the pwr_* outputs), out/power_ports.h (the driver's counting
    code for Verilator's class TOP_CLASS, writing SAMPLE_TYPE counts) and the number of nets per
    unit. classify(text, nets) -> (units, {net: unit or None}) groups the nets (nets_of's; None:
    not counted). Cached by
    FLAT's contents, this file's and classify's module's."""
    out.mkdir(parents=True, exist_ok=True)
    text = flat.read_text()
    salt = Path(sys.modules[classify.__module__].__file__).read_bytes()
    key = hashlib.sha256(text.encode() + Path(__file__).read_bytes() + salt).hexdigest()
    vout, stamp = out / "power_flat.v", out / "power.key"
    key += top_class + sample_type + ("+outputs" if count_outputs else "")
    if vout.is_file() and stamp.is_file() and stamp.read_text().startswith(key + " ") and (out / "power_ports.h").is_file():
        return vout, {u: int(n) for u, n in (kv.split("=") for kv in stamp.read_text().split()[1:])}
    if len(re.findall(r"^module ", text, re.M)) != 1:
        raise FlowError(f"{flat}: not a flat netlist (one module expected)")
    found = nets_of(text, count_outputs)
    if not any(kind == "reg" for _, _, kind in found):
        raise FlowError(f"{flat}: no flip-flop outputs (`reg`) found")
    units, unit_of = classify(text, found)
    nets = {u: [] for u in units}
    for name, width, _ in found:
        if unit_of[name] is not None:          # None: a net the caller does not count
            nets[unit_of[name]].append((name, width))
    widths = {u: sum(w for _, w in nets[u]) for u in units}
    head = re.search(rf"^module {re.escape(top)}\((.*?)\);", text, re.M | re.S)
    if head is None:
        raise FlowError(f"{flat}: no `module {top}(`")
    body = ["  // the gate-level power model (pqsoc/sca/netpower.py): each unit's toggles at the last edge"]
    names = []
    for u in units:
        if not widths[u]:
            continue
        # an escaped name (`\a.b `) keeps its closing space, so `[i]` and `,` can follow it
        bits = [f"{n}[{i}]" if w > 1 else n for n, w in nets[u] for i in range(w)]
        counts = []
        for j in range(0, len(bits), GROUP):
            part, word = bits[j:j + GROUP], f"pqsoc_{u}_{j // GROUP}"
            body += [f"  wire [{len(part) - 1}:0] {word} = {{{', '.join(reversed(part))}}};",
                     f"  reg [{len(part) - 1}:0] {word}_q;",
                     f"  always @(posedge {clock}) {word}_q <= {word};"]
            counts.append(f"$countones({word} ^ {word}_q)")
        sums = []
        for k in range(0, len(counts), SUM):
            sums.append(f"pqsoc_{u}_sum{k // SUM}")
            body.append(f"  wire [31:0] {sums[-1]} = {' + '.join(counts[k:k + SUM])};")
        names.append(f"pwr_{u}")
        body += [f"  output [31:0] pwr_{u};", f"  assign pwr_{u} = {' + '.join(sums)};"]
    text = text[:head.end(1)] + ", " + ", ".join(names) + text[head.end(1):]
    end = text.rindex("endmodule")
    tmp = out / ".power_flat.v.tmp"
    tmp.write_text(text[:end] + "\n".join(body) + "\n" + text[end:])
    tmp.replace(vout)
    widths = {u: w for u, w in widths.items() if w}
    (out / "power_ports.h").write_text(header(top_class, widths, sample_type))
    stamp.write_text(key + "".join(f" {u}={w}" for u, w in widths.items()))
    return vout, widths


def header(top_class: str, widths: dict[str, int], sample_type: str = "uint32_t") -> str:
    """power_ports.h: pqsoc_power_sample(top, out) writes each unit's toggles of the last edge
    (as SAMPLE_TYPE; a narrower type than the count saturates, never wraps)."""
    lines = ["// Generated by pqsoc/sca/netpower.py: the toggles of each unit at the last clock edge.",
             "#pragma once", "#include <cstdint>",
             f"static const int PQSOC_POWER_UNITS = {len(widths)};",
             f"static inline void pqsoc_power_sample({top_class}* top, {sample_type}* out) {{"]
    limit = {"uint16_t": 0xFFFF, "uint32_t": None}[sample_type]
    for j, u in enumerate(widths):
        value = f"top->pwr_{u} > {limit}u ? {limit}u : top->pwr_{u}" if limit else f"top->pwr_{u}"
        lines.append(f"  out[{j}] = {value};")
    lines.append("}")
    return "\n".join(lines) + "\n"
