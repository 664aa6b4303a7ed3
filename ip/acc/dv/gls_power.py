# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""The ACC's gate-level power model for leakage assessment (`pqsoc sca tvla --engine gls`).

Per clock cycle and per unit, the toggles of every net of the synthesized ACC netlist
(pqsoc/sca/netpower.py on the flat netlist of `pqsoc gls acc`: each cell's output, every
flip-flop, the SRAM macros' pins, the output ports the netlist drives; not the nodes the flat
netlist adds inside a cell's function), cycle based (Verilator: settled values, no glitches).
The gate-level top is `pqsoc gls acc`'s (ip/acc/dv/gls_top.py: SRAM macro models, the RTL KMAC
on the side-load port), so the KMAC is not in this model (its masked core has its own
gate-level assessment, `pqsoc sca tvla keccak_masked --engine gls`), and the SRAMs count at
their pins.

The nets are grouped into the RTL model's units (ip/acc/dv/power.py), so a leak points at its
place: a net with a name from the RTL (a register: Yosys keeps its name on the flip-flop's
output; a kept module's wire) by the RTL model's rules, an SRAM's pins by the macro's instance
(DMEM or IMEM), an output port by its name; a net Yosys named (`_123_`, the logic between
registers) goes to the unit of the nearest of those it feeds (breadth first, backwards through
the cells' functions): the logic that computes a unit's next state counts as that unit.
"""
import re
from collections import deque
from pathlib import Path

import numpy as np

from ip.acc.dv import gls_top, power
from ip.acc.dv.rtl_runner import DRIVER
from pqsoc import FlowError
from pqsoc.flow import locks
from pqsoc.flow import verilator as vl
from pqsoc.sca import netpower

# power.UNITS without the KMAC (the RTL KMAC beside the netlist is not counted)
UNITS = tuple(u for u in power.UNITS if u != "kmac")
DESCRIPTION = ("per cycle and unit: toggles of every net of the synthesized ACC netlist (each cell's output, the "
               "flip-flops, the SRAM macros' pins, the output ports), cycle based (no glitches); a combinational "
               "net goes to the unit it feeds first (ip/acc/dv/gls_power.py); the KMAC (RTL beside the netlist) "
               "is not counted")

_ID = r"\\\S+ |(?<![\w$'\\])[A-Za-z_][\w$]*"
_ASSIGN = re.compile(rf"^\s*assign\s+({_ID})\s*(?:\[[^\]]*\])?\s*=\s*([^;]*);", re.M)
_NONBLOCKING = re.compile(rf"({_ID})\s*(?:\[[^\]]*\])?\s*<=\s*([^;]*);")
_INSTANCE = re.compile(rf"^\s*(\\\S+ |[A-Za-z_][\w$]*)\s+({_ID})\s*\((.*?)\);", re.M | re.S)
_PIN = re.compile(r"\.([A-Za-z_]\w*)\s*\(([^()]*)\)")
_MODULE = re.compile(r"^module\s+(\\\S+ |[A-Za-z_][\w$]*)\s*\(.*?\);(.*?)^endmodule", re.M | re.S)
_NET = re.compile(r"\s*(\\\S+|[A-Za-z_][\w$]*)\s*(?:\[\d+\])?\s*")      # one net (of a cell pin)
_NOT_INSTANCES = {"module", "assign", "always", "input", "output", "inout", "wire", "reg", "if", "else"}


def _ids(expr: str) -> list[str]:
    return re.findall(_ID, expr)


def _plain(name: str) -> str:
    """A name unescaped, without its closing space or a bit select."""
    return name.strip().lstrip("\\").split(" ")[0]


def rtl_names(netlist: str, top: str) -> dict[str, str]:
    """{a flat netlist's cell-pin name ("core.walu._0669_.A"): the name of the net on that pin
    in the synthesized netlist, with its instance path ("core.walu.b")}. The flat netlist names
    each net after one of its cell pins; the synthesized netlist keeps Yosys' names of the RTL
    (a flip-flop's output: its register; a kept module's ports and wires: theirs)."""
    modules = {_plain(m.group(1)): m.group(2) for m in _MODULE.finditer(netlist)}
    if top not in modules:
        raise FlowError(f"the synthesized netlist has no module {top}")
    names: dict[str, str] = {}

    def walk(module: str, prefix: str):
        for m in _INSTANCE.finditer(modules[module]):
            kind, inst = _plain(m.group(1)), _plain(m.group(2))
            if kind in _NOT_INSTANCES:
                continue
            if kind in modules:                  # a kept module: its cells under the instance's path
                walk(kind, f"{prefix}{inst}.")
                continue
            for pin, expr in _PIN.findall(m.group(3)):
                net = _NET.fullmatch(expr)
                if net:
                    names[f"{prefix}{inst}.{pin}"] = prefix + _plain(net.group(1))
    walk(top, "")
    return names


def rule_unit(name: str) -> str | None:
    """The unit a synthesized netlist's net belongs to by the RTL model's rules (its names lack
    the RTL top's `acc.` prefix), or None for a name Yosys or the flow made up (`_123_`, `$12`,
    `fanout_buf_7`: a net of the logic between registers, placed by what it feeds)."""
    last = name.rsplit(".", 1)[-1]
    if last.startswith(("_", "$", "fanout_buf")):
        return None
    full = "acc." + name
    for unit, pat in power.BUSES.items():
        if re.fullmatch(pat, full):
            return unit
    unit = power.unit_of(full)
    return None if unit == "kmac" else unit


def classifier(netlist: Path, top: str = "acc"):
    """netpower's classify for the flat ACC netlist made from NETLIST (the synthesized one, whose
    names place the nets): (UNITS, {net: unit, or None for a node inside a cell's function}).
    Counted are the synthesized netlist's nets: every cell's output, the flip-flops, the SRAM
    macros' pins, the output ports; not the nodes the flat netlist adds inside a cell's
    function (a cell's own internal switching is not what its output net carries, and they are
    five in six of the flat netlist's nets)."""
    def classify(text: str, nets: list[tuple[str, int, str]]) -> tuple[tuple[str, ...], dict[str, str]]:
        names = rtl_names(netlist.read_text(), top)
        drivers: dict[str, set[str]] = {}       # net -> the nets its value is computed from
        for m in _ASSIGN.finditer(text):
            drivers.setdefault(m.group(1), set()).update(_ids(m.group(2)))
        for m in _NONBLOCKING.finditer(text):
            drivers.setdefault(m.group(1), set()).update(_ids(m.group(2)))
        counted = {n for n, _, kind in nets if kind == "reg" or _plain(n) in names}
        counted |= netpower.outputs_of(text)
        seeds: list[tuple[str, str]] = []       # (net, unit) the search starts from, first wins
        for m in _INSTANCE.finditer(text):      # the SRAM macros: every pin their unit's
            if _plain(m.group(1)) in _NOT_INSTANCES:
                continue
            unit = power.unit_of("acc." + _plain(m.group(2)))
            if unit in ("dmem", "imem"):
                pins = [n for _, expr in _PIN.findall(m.group(3)) for n in _ids(expr)]
                seeds += [(n, unit) for n in pins]
                counted.update(pins)
        for name, _, _ in nets:
            plain = _plain(name)
            unit = rule_unit(names.get(plain, plain))
            if unit is not None:
                seeds.append((name, unit))
        if not seeds:
            raise FlowError("the ACC netlist has no net the power model's units name")
        unit_of: dict[str, str] = {}
        queue = deque()
        for name, unit in seeds:
            if name not in unit_of:
                unit_of[name] = unit
                queue.append(name)
        while queue:                            # breadth first, backwards through the logic
            name = queue.popleft()
            for src in sorted(drivers.get(name, ())):
                if src not in unit_of:
                    unit_of[src] = unit_of[name]
                    queue.append(src)
        return UNITS, {n: unit_of.get(n, "bus") if n in counted else None for n, _, _ in nets}
    return classify


class GateLevelPowerBackend(gls_top.GateLevelBackend):
    """The ACC netlist's gate-level run (`pqsoc gls acc`'s top and host driver) with the power
    ports: run_power(jobs) -> (results, traces), a trace being cycles x units (self.widths' order)."""

    def __init__(self, seed: int = 1, log=None):
        from ip.acc import block
        from ip.acc.dv.gls import ACC_NETLIST_MODULE, acc_gl_model
        from pqsoc.flow import synth
        _, (_, flat, srams), build_dir, _ = acc_gl_model(log or (lambda m: None), top=False)
        netlist = synth.synth_dir("acc") / "netlist.v"
        out = build_dir / "power"
        with locks.exclusive(out):
            src, self.widths = netpower.instrument(flat, ACC_NETLIST_MODULE, out, top_class="Vacc",
                                                   classify=classifier(netlist), count_outputs=True, sample_type="uint16_t")
            top = gls_top.emit(src.read_text(), ACC_NETLIST_MODULE, out)
        self.header = out / "power_ports.h"
        # -fno-dfg: Verilator's DFG optimiser ran out of memory on an instrumented netlist (the Keccak core's)
        super().__init__(block.IMEM_SIZE, block.DMEM_SIZE, [top, src, srams], out, seed,
                         label=f"ACC gate-level power model (seed {seed})", log=log,
                         extra_flags=["-fno-dfg", "-CFLAGS", f"-DPQSOC_POWER -I{out}"])
        self.key = vl.model_key(self.flags, self.sources, DRIVER, headers=[self.header])
        self.model_dir = out / f"model_{self.key}"

    def build(self) -> Path:
        return power.build_power_model(self)

    def run_power(self, jobs) -> tuple[list, list[np.ndarray]]:
        # the warm-up job first (gls_top.GateLevelBackend.run_many): its trace is dropped
        return power.run_power(self, jobs, len(self.widths), skip=1)
