# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""Gate-level simulation top of the ACC: the synthesized `acc` netlist with a KMAC beside it.

The synthesized block `acc` (pqsoc/cli/blocks.py) is the ACC alone, SRAM macros as black boxes; the
RTL top that `pqsoc acc fuzz` drives (rtl_top.AccWithKmac, emitted as `acc`) also holds a KMAC
on the side-load port. `AccGateLevel` has the same ports as that RTL top and puts the netlist
(its module renamed, e.g. `acc_netlist`) where the RTL ACC was; the KMAC is the **RTL** KMAC
(ip/kmac/rtl/kmac.py, its CPU bus idle; hooked up by ip/acc/rtl/pqc.py's kmac_on_sideload, as in
rtl_top and the SoC), not a KMAC netlist: the gate-level subject is the ACC netlist, the KMAC
only answers its side-load port. The KMAC's own netlist has its own
gate-level run (`pqsoc gls kmac`).

The netlist's ports are read from its Verilog text and each one must map to a signal of the
wrapper (bus__*, sideload__*, dma__*, irq, busy, clk, rst), with the same width, else FlowError
names it. The DMA's master port sees an idle bus (no ack): the host driver never starts the DMA.

`GateLevelBackend` runs the netlist through the RTL fuzz harness (rtl_runner.RtlBackend, the
C++ host driver ip/acc/dv/acc_host.cpp) with random initial state: every flop and SRAM word
starts random (`--x-initial unique`, `+verilator+rand+reset+2`, `+verilator+seed+N`). The host
driver assumes memories that start at zero (it writes only DMEM words that differ from what it
last read), so each simulator process starts with one warm-up job: IMEM written all zero but an
illegal word at 0, which makes the ACC fault and wipe DMEM to zero with its own wipe. That job is
checked against the ISS (error, same ERR_BITS and cycles, DMEM all zero) before any result is
used.
"""
import hashlib
import json
import re
from pathlib import Path

from amaranth import ClockSignal, Instance, Module, ResetSignal
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from ip.common.wishbone import WishboneSignature
from ip.kmac.rtl.sideload import SideloadSignature
from pqsoc import FlowError, write_if_changed
from pqsoc.flow import verilator as vl
from pqsoc.flow.block import amaranth_emit_key
from pqsoc.flow.synth import sha256_files

from ip.acc.dv.rtl_runner import MODEL, RtlBackend
from ip.acc.rtl.pqc import ACC_ADDR_WIDTH, kmac_on_sideload

# block acc's bus address width: the SoC's (ip/acc/block.py); the RTL fuzz top takes it too
# (AccWithKmac(..., addr_width=ADDR_WIDTH) has this top's ports; the host driver runs either)
ADDR_WIDTH = ACC_ADDR_WIDTH


def netlist_ports(text: str, module: str) -> dict[str, tuple[str, int]]:
    """{port: (direction, width)} of `module` in a Verilog netlist written by Yosys."""
    m = re.search(rf"^module\s+\\?{re.escape(module)}\s*\((.*?)\);(.*?)^endmodule", text, re.S | re.M)
    if not m:
        raise FlowError(f"module {module} not found in the netlist")
    names = [p.strip().lstrip("\\") for p in m.group(1).split(",") if p.strip()]
    decl = {}
    for d in re.finditer(r"^\s*(input|output|inout)\s+(?:wire\s+|reg\s+)?(?:\[(\d+):(\d+)\]\s+)?\\?(\S+?)\s*;",
                         m.group(2), re.M):
        width = abs(int(d.group(2)) - int(d.group(3))) + 1 if d.group(2) is not None else 1
        decl[d.group(4)] = (d.group(1), width)
    missing = [n for n in names if n not in decl]
    if missing:
        raise FlowError(f"netlist module {module}: no direction found for ports {', '.join(missing)}")
    return {n: decl[n] for n in names}


def _flat_members(prefix: str, iface) -> dict:
    """{verilog port name: signal} of an interface, named as Amaranth names top-level ports."""
    out = {}
    for path, _flow, value in iface.signature.flatten(iface):
        out["__".join((prefix, *[str(p) for p in path]))] = value
    return out


class AccGateLevel(wiring.Component):
    """Same ports as rtl_top.AccWithKmac at the block's bus width: the ACC netlist (a black-box instance of `module`) and
    an RTL KMAC on its side-load port."""

    def __init__(self, module: str, ports: dict[str, tuple[str, int]]):
        self.module = module
        self.ports = ports
        super().__init__({"bus": In(WishboneSignature(ADDR_WIDTH)), "irq": Out(1), "busy": Out(1)})

    def elaborate(self, platform):
        sl = SideloadSignature().create(path=("acc_sideload",))
        dma = WishboneSignature(30, burst=True).create(path=("acc_dma",))   # nobody answers: never started
        signals = {**_flat_members("bus", self.bus), **_flat_members("sideload", sl),
                   **_flat_members("dma", dma), "irq": self.irq, "busy": self.busy}
        conns = {}
        for name, (direction, width) in self.ports.items():
            if name == "clk":
                conns["i_clk"] = ClockSignal()
                continue
            if name == "rst":
                conns["i_rst"] = ResetSignal()
                continue
            sig = signals.pop(name, None)
            if sig is None:
                raise FlowError(f"netlist port {name} has no counterpart in the gate-level top")
            if len(sig) != width:
                raise FlowError(f"netlist port {name} is {width} bits wide, the top's signal {len(sig)}")
            if direction == "inout":
                raise FlowError(f"netlist port {name} is inout; the ACC has none")
            conns[("i_" if direction == "input" else "o_") + name] = sig
        if signals:
            raise FlowError(f"the netlist lacks the ports {', '.join(sorted(signals))}")
        m = Module()
        m.d.comb += [dma.ack.eq(0), dma.err.eq(0), dma.dat_r.eq(0)]
        kmac_on_sideload(m, sl)
        m.submodules.acc_netlist = Instance(self.module, **conns)
        return m


def emit(netlist_text: str, module: str, out: Path) -> Path:
    """The gate-level top as Verilog (module `acc`, the host driver's top), next to the netlist.
    A netlist with the gate-level power model's outputs (pwr_*, pqsoc/sca/netpower.py) gets
    them passed up to the top's ports, added to the Verilog text: an Amaranth instance takes at
    most 65 536 output bits, the ACC's model has ~180 k."""
    from amaranth.back import verilog
    out.mkdir(parents=True, exist_ok=True)
    ports = netlist_ports(netlist_text, module)
    path, stamp = out / "gls_top.v", out / "gls_top.key"
    # The conversion is ~10 s of a leakage campaign's task; the top is a function of the
    # netlist's ports and the Python that makes it, so an unchanged pair keeps the file.
    key = hashlib.sha256(json.dumps([amaranth_emit_key(), module, sorted(ports.items())]).encode()).hexdigest()
    if path.is_file() and stamp.is_file() and stamp.read_text() == f"{key} {sha256_files([path])}":
        return path
    power = {n: w for n, (d, w) in ports.items() if n.startswith("pwr_") and d == "output"}
    top = AccGateLevel(module, {n: p for n, p in ports.items() if n not in power})
    text = verilog.convert(top, name="acc", emit_src=False)
    if power:
        text = _with_power_ports(text, module, power)
    write_if_changed(path, text)
    stamp.write_text(f"{key} {sha256_files([path])}")
    return path


def _with_power_ports(text: str, module: str, power: dict[str, int]) -> str:
    """TEXT (the top) with the netlist instance's POWER outputs wired to ports of the same name."""
    head = re.search(r"^module acc\((.*?)\);\n", text, re.M | re.S)
    inst = re.search(rf"^  {re.escape(module)} {re.escape(module)} \(\n", text, re.M)
    if head is None or inst is None:
        raise FlowError(f"the gate-level top has no `module acc(` or no instance `{module}` to add power ports to")
    decl = "".join(f"  output [{w - 1}:0] {n};\n" for n, w in power.items())
    conn = "".join(f"    .{n}({n}),\n" for n in power)
    return (text[:head.start(1)] + ", ".join(power) + ", " + text[head.start(1):head.end()] + decl
            + text[head.end():inst.end()] + conn + text[inst.end():])


def gls_flags(jobs: int = 2) -> list[str]:
    """Verilator flags of the gate-level model: the host driver's model (rtl_runner.MODEL) as a
    random-initial-state gate-level model (pqsoc.flow.verilator.gate_level_flags)."""
    return vl.gate_level_flags("acc", jobs=jobs, **MODEL)


WARMUP_WORD = 0xFFFF_FFFF       # an illegal instruction: the ACC faults at pc 0 and wipes DMEM


class GateLevelBackend(RtlBackend):
    """RtlBackend on the netlist top; seed: the random initial state (+verilator+seed)."""

    def __init__(self, imem_size: int, dmem_size: int, sources: list[Path], build_dir: Path,
                 seed: int, label: str = "ACC gate level", log=None, jobs: int = 2, extra_flags=()):
        vl.gl_cxx()
        super().__init__(imem_size, dmem_size, sources=sources, build_dir=build_dir, label=label,
                         log=log, flags=gls_flags(jobs), extra_flags=extra_flags,
                         plusargs=["+verilator+rand+reset+2", f"+verilator+seed+{seed}"])
        self.seed = seed
        self._warm_ref = None

    def warmup_job(self):
        return ([WARMUP_WORD] + [0] * (self.imem_size // 4 - 1), bytes(self.dmem_size), 2 * self.dmem_size)

    def _warm_reference(self):
        if self._warm_ref is None:
            from ip.acc.dv.lockstep import IssBackend
            self._warm_ref = IssBackend(self.imem_size, self.dmem_size).run(*self.warmup_job())
        return self._warm_ref

    def run_many(self, jobs) -> list:
        from ip.acc.dv.lockstep import compare
        ref = self._warm_reference()
        if ref.halt != "error" or any(ref.dmem):
            raise FlowError(f"{self.label}: the warm-up program does not fault and wipe on the ISS "
                            f"({ref.halt}, err {ref.err_bits:#x})")
        res = super().run_many([self.warmup_job(), *jobs])
        diffs = compare(ref, res[0], ("iss", "gate level"))
        if diffs:
            raise FlowError(f"{self.label} (seed {self.seed}): the warm-up program (fault at pc 0, "
                            f"DMEM wipe) differs from the ISS: " + "; ".join(diffs[:6]))
        return res[1:]
