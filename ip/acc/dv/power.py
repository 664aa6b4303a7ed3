# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""The ACC's RTL power model for leakage assessment (`pqsoc sca tvla --engine rtl`).

Per clock cycle and per unit, the Hamming distance of every register, memory port and bus
between units: the ACC top of `pqsoc acc fuzz` (ip/acc/dv/rtl_runner.emit: the ACC and its KMAC, behavioural memories)
is wrapped: Yosys (pyosys) finds every register (the wires flip-flops drive after `proc`), and
the wrapper registers each once more on the free-running clock and XORs it with itself
(Q(t) ^ Q(t-1): the bits that toggled this cycle, whatever enables, resets or clock gates did),
as it does the memories' ports (address, enables, write data) and the buses (BUSES: wires that
carry one value a cycle from unit to unit, long and loaded on silicon); the toggles are counted per
unit into an output port `pwr_<unit>`,
which the host driver (acc_host.cpp built with PQSOC_POWER) samples every cycle. Units follow
the RTL hierarchy, so a leak points at its place:

    core      the control core (GPRs, loop stack, PC, decode, flags, CSRs)
    wide      the 256-bit datapath: the wide registers w0..w15, the accumulator, the wide ALU
    sampler   the stream unit (sampling straight from the KMAC into DMEM)
    random    RND's entropy pool and URND's PRNG state (the masks' source)
    dmem      DMEM: its read-data register and its write / read ports
    imem      IMEM: the fetch register and ports (program, public)
    bus       the host side: register bank, DMA, the top's flops
    kmac      the KMAC (Keccak state, message and digest paths)
    operands  the wide ALU's operand and result buses, both register files' write-back buses,
              the wide register file's read ports (their muxes' outputs)
    sideload  the side-load port's data wires (message words and their second share, digest)

`--model registers` leaves the last two out (REGISTER_UNITS): the model before 4 Dec, under
which the masked decoding passed; with the buses it leaks (docs/side_channels.md).

The model is noiseless: a difference in any bit of any cycle is visible to the t-test after few
traces, which is what a pre-silicon assessment should catch; it says nothing of coupling,
glitches or the analog behaviour of a layout (docs/side_channels.md).
"""
import hashlib
import os
import re
import tempfile
from pathlib import Path

import numpy as np

from ip.acc.dv.rtl_runner import DRIVER, RtlBackend
from pqsoc import FlowError
from pqsoc.flow import locks
from pqsoc.flow import verilator as vl

UNITS = ("core", "wide", "sampler", "random", "dmem", "imem", "bus", "kmac", "operands", "sideload")
# the buses between units (wires, not registers), each unit its own: the wide ALU's operands and
# result, the write-back buses of both register files and the wide read ports (port_a/b/c, the
# muxes' outputs: the gate-level model saw them, 5 Dec); the side-load port's data both ways
BUSES = {"operands": r"acc\.core\.(walu\.(a|b|res)|w_val|g_val|port_[abc])",
         "sideload": r"acc\.sideload__(digest__data|msg__data1?)"}
# `--model registers`: the registers and memory ports only (the model before the buses, 4 Dec)
REGISTER_UNITS = tuple(u for u in UNITS if u not in BUSES)

# (unit, pattern on a flattened wire or memory name); first match wins
_RULES = (("wide", r"acc\.core\.(walu\.|w\d+$|acc$)"),
          ("sampler", r"acc\.core\.smp\."),
          ("random", r"acc\.core\.rnd\."),
          ("core", r"acc\.core\."),
          ("dmem", r"acc\.dmem\."),
          ("imem", r"acc\.imem\."),
          ("kmac", r"kmac(\.|$)"),
          ("bus", r""))


FLOPS = ("$dff", "$adff", "$sdff", "$dffe", "$adffe", "$sdffe", "$sdffce", "$dffsr", "$dffsre", "$aldff")
# the memories' ports (their read-data registers are flip-flops of the memory modules)
MEMORY_PORTS = r"acc\.(dmem|imem)\.(?!clk$|rst$)\w+"      # their inputs: address, enables, write data


def unit_of(name: str) -> str:
    name = name.lstrip("\\")
    for unit, pat in _RULES:
        if re.match(pat, name):
            return unit
    return "bus"


def _ident(name: str) -> str:
    """A Verilog identifier for a Yosys name: escaped (`\\name `), which names the same signal
    as the plain form and is also right for a name that is a keyword (a register `wait`)."""
    return f"\\{name[1:] if name.startswith(chr(92)) else name} "


def instrument(src: Path, out: Path, top: str = "acc", clock: str = "clk") -> dict[str, int]:
    """Write out/acc_power.v (SRC's top renamed, inside a wrapper with SRC's ports and the
    pwr_<unit> ports) and out/power_ports.h (the driver's counting code); returns the number of
    bits per unit. The design itself is left as written: the wrapper reads each register by its
    hierarchical name (Yosys finds them: the outputs of every flip-flop after `proc`), so
    Verilator simulates the same code as without the model (a Yosys-flattened copy of the design
    ran 28 times slower). Cached by SRC's contents and this file's."""
    from pyosys import libyosys as ys
    out.mkdir(parents=True, exist_ok=True)
    key = hashlib.sha256(src.read_bytes() + Path(__file__).read_bytes()).hexdigest()
    stamp, vout, hout = out / "power.key", out / "acc_power.v", out / "power_ports.h"
    if stamp.is_file() and vout.is_file() and hout.is_file() and stamp.read_text().startswith(key):
        return {u: int(n) for u, n in (kv.split("=") for kv in stamp.read_text().split()[1:])}
    d = ys.Design()
    for cmd in (f"read_verilog -sv {src}", f"hierarchy -top {top}", "proc"):
        ys.run_pass(cmd, d)
    mods = {m.name.str(): m for m in d.selected_modules()}
    flops = {}            # module -> {wire name: width} of the wires flip-flops drive
    for name, m in mods.items():
        regs = {}
        for cell in m.selected_cells():
            if cell.type.str() in FLOPS:
                for b in cell.getPort(ys.IdString("\\Q")).to_sigbit_vector():
                    if b.wire is not None and b.wire.name.str().startswith("\\"):
                        regs[b.wire.name.str()] = b.wire.width
        flops[name] = regs
    groups: dict[str, list] = {u: [] for u in UNITS}

    def walk(mod: str, path: list[str]):
        m = mods[mod]
        dotted = ".".join(p.lstrip("\\") for p in path)
        for w, width in sorted(flops[mod].items()):
            groups[unit_of(f"{dotted}.{w.lstrip(chr(92))}")].append((path + [w], width))
        for w in m.selected_wires():      # the memories' ports, at the memory modules' boundaries; buses
            full = f"{dotted}.{w.name.str().lstrip(chr(92))}"
            if w.port_input and re.fullmatch(MEMORY_PORTS, full):
                groups[unit_of(full)].append((path + [w.name.str()], w.width))
            bus = next((u for u, pat in BUSES.items() if re.fullmatch(pat, full)), None)
            if bus and w.name.str() not in flops[mod]:
                groups[bus].append((path + [w.name.str()], w.width))
        for cell in m.selected_cells():
            if cell.type.str() in mods:
                walk(cell.type.str(), path + [cell.name.str()])

    walk("\\" + top, [])
    topm = mods["\\" + top]
    ports = [w for w in topm.selected_wires() if w.port_input or w.port_output]
    ports.sort(key=lambda w: w.port_id)
    text = src.read_text()
    inner = f"{top}_inner"
    text, k = re.subn(rf"^module {re.escape(top)}\(", f"module {inner}(", text, count=1, flags=re.M)
    if k != 1:
        raise FlowError(f"{src}: no `module {top}(` to wrap")
    decl = [f"  {'input' if w.port_input else 'output'} " + (f"[{w.width - 1}:0] " if w.width > 1 else "")
            + _ident(w.name.str()) + ";" for w in ports]
    body = [f"  {inner} u (" + ", ".join(f".{_ident(w.name.str())}({_ident(w.name.str())})" for w in ports) + ");"]
    widths, k = {}, 0
    for unit in UNITS:
        parts = []
        for path, width in groups[unit]:
            ref = "u." + ".".join(_ident(p) for p in path)
            body.append(f"  reg [{width - 1}:0] pqsoc_prev{k};")
            body.append(f"  always @(posedge {clock}) pqsoc_prev{k} <= {ref};")
            parts.append(f"$countones({ref} ^ pqsoc_prev{k})")
            k += 1
        widths[unit] = sum(w for _, w in groups[unit])
        if widths[unit] > 0xFFFF:
            raise FlowError(f"{src}: unit {unit} has {widths[unit]} bits, more than a 16-bit count holds")
        if parts:
            # the count, not the toggled bits: concatenating registers into one wide vector per
            # unit took a third of the simulation (Verilator's unaligned wide concatenations)
            decl.append(f"  output [15:0] pwr_{unit};")
            body.append(f"  assign pwr_{unit} = 16'({' + '.join(parts)});")
    names = [_ident(w.name.str()) for w in ports] + [f"pwr_{u}" for u in UNITS if widths[u]]
    wrapper = ("\n// The power model's wrapper (ip/acc/dv/power.py): the design above, each register's\n"
               "// toggles per cycle gathered per unit.\n"
               f"module {top}({', '.join(names)});\n" + "\n".join(decl + body) + "\nendmodule\n")
    tmp = out / ".acc_power.v.tmp"
    tmp.write_text(text + wrapper)
    tmp.replace(vout)
    widths = {u: w for u, w in widths.items() if w}
    hout.write_text(header(widths))
    stamp.write_text(key + "".join(f" {u}={w}" for u, w in widths.items()))
    return widths


def header(widths: dict[str, int]) -> str:
    """The driver's code that reads each unit's toggles in the cycle just simulated (the
    wrapper's pwr_<unit> ports count them)."""
    lines = ["// Generated by ip/acc/dv/power.py: the toggles of each unit in one cycle.",
             "#pragma once",
             f"static const int PQSOC_POWER_UNITS = {len(widths)};",
             "static inline void pqsoc_power_sample(Vacc* top, uint16_t* out) {"]
    for k, unit in enumerate(widths):
        lines.append(f"  out[{k}] = top->pwr_{unit};")
    lines.append("}")
    return "\n".join(lines) + "\n"


class PowerBackend(RtlBackend):
    """The host driver's ACC model with the power ports: run_power(jobs) -> (results, traces),
    a trace being cycles x units toggle counts (units: self.widths' order)."""

    def __init__(self, imem_size: int, dmem_size: int, log=None):
        plain = RtlBackend(imem_size, dmem_size)
        out = plain.build_dir / "power"
        with locks.exclusive(out):
            self.widths = instrument(plain.sources[0], out)
        self.header = out / "power_ports.h"
        super().__init__(imem_size, dmem_size, sources=[out / "acc_power.v"], build_dir=out,
                         label="ACC RTL power model", log=log,
                         extra_flags=["-CFLAGS", f"-DPQSOC_POWER -I{out}"])
        self.key = vl.model_key(self.flags, self.sources, DRIVER, headers=[self.header])
        self.model_dir = self.build_dir / f"model_{self.key}"

    def build(self) -> Path:
        return build_power_model(self)

    def run_power(self, jobs) -> tuple[list, list[np.ndarray]]:
        return run_power(self, jobs, len(self.widths))


def build_power_model(backend) -> Path:
    """The host driver (PQSOC_POWER) on a backend's sources with its power_ports.h (`header`)."""
    model = vl.build_model(flags=backend.flags, sources=backend.sources, driver=DRIVER, headers=[backend.header],
                           out=backend.model_dir, exe="Vacc", label=backend.label, log=backend.log)
    backend.build_seconds = model.seconds
    return model.exe


def run_power(backend, jobs, n_units: int, skip: int = 0) -> tuple[list, list[np.ndarray]]:
    """(results, traces) of backend.run_many(jobs) on a model built with PQSOC_POWER: per job
    the host driver's power file (ip/acc/dv/acc_host.cpp) holds cycles x units toggle counts;
    the first SKIP traces (jobs the backend adds before the caller's, a warm-up) are dropped."""
    with tempfile.TemporaryDirectory(prefix="pqsoc-power-") as tmp:
        path = Path(tmp) / "power.bin"
        backend.env = dict(os.environ, PQSOC_POWER_OUT=str(path))
        try:
            results = backend.run_many(jobs)
        finally:
            backend.env = None
        raw = np.fromfile(path, dtype="<u2")
    traces, k = [], 0
    for _ in range(skip + len(results)):
        if k + 4 > raw.size:
            raise FlowError(f"{backend.label}: the power file ends early ({raw.size * 2} bytes)")
        cycles = int(raw[k]) | int(raw[k + 1]) << 16
        units = int(raw[k + 2]) | int(raw[k + 3]) << 16
        if units != n_units:
            raise FlowError(f"{backend.label}: the power file has {units} units, the model {n_units}")
        traces.append(raw[k + 4:k + 4 + cycles * units].reshape(cycles, units))
        k += 4 + cycles * units
    return results, traces[skip:]
