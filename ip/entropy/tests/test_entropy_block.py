# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""The silicon entropy source through synthesis: our Yosys flow (`pqsoc synth`) and LibreLane's
own lint, synthesis and checkers (`pqsoc pnr check --synth`) keep every ring oscillator whole: a
NAND gated by the enable flop and an even number of inverters, closed into a loop of the
declared length. A ring cut, shortened or folded to a constant would give no noise."""
import json
import re
import shutil
import subprocess

import pytest

from pqsoc import REPO
from ip.entropy.block import RING_NAME_RX, ring_sdc
from ip.entropy.rtl.rings import INV, LENGTHS, NAND, module_name

_CELL = re.compile(r"^\s*(?:\(\*[^*]*\*\)\s*)?(sky130_fd_sc_hd__\w+|pqsoc_ring\d+)\s+(\\?\S+)\s*\((.*?)\);", re.M | re.S)
_PIN = re.compile(r"\.(\w+)\s*\(\s*(\\?[^\s()]+(?:\s*\[\d+\])?)\s*\)")
_MODULE = re.compile(r"^module\s+(\S+?)\s*\(.*?\);(.*?)^endmodule", re.M | re.S)
_CONSTANT = re.compile(r"\d*'[bh][01x]+|[01]")


def _closed(cells: list[tuple[str, dict]], n: int, label: str) -> str:
    """The enable net of a ring: one NAND and n - 1 inverters closed into one loop."""
    assert len(cells) == n, f"{label}: {len(cells)} cells, {n} expected"
    nands = [pins for cell, pins in cells if cell == NAND]
    invs = {pins["A"]: pins["Y"] for cell, pins in cells if cell == INV}
    assert len(nands) == 1 and len(invs) == n - 1, f"{label}: not one NAND and {n - 1} inverters"
    node, steps = nands[0]["Y"], 0
    while node in invs and steps < n:          # follow the inverters from the NAND's output
        node, steps = invs[node], steps + 1
    assert steps == n - 1 and node in (nands[0]["A"], nands[0]["B"]), f"{label}: ring not closed"
    return nands[0]["B"] if node == nands[0]["A"] else nands[0]["A"]


def check_rings(netlist: str):
    """Every ring of LENGTHS whole, its enable not a constant: as kept modules (our netlist:
    a module pqsoc_ring<n> of cells, instantiated with `.en(...)`) or flattened (LibreLane's:
    cells named <instance path>.nand0 / .inv<j>)."""
    modules = {name: body for name, body in _MODULE.findall(netlist)}
    rings = {name: body for name, body in modules.items() if re.fullmatch(r"pqsoc_ring\d+", name)}
    if rings:
        assert sorted(rings) == sorted(module_name(n) for n in LENGTHS)
        for name, body in rings.items():
            cells = [(cell, dict(_PIN.findall(pins))) for cell, _, pins in _CELL.findall(body)]
            assert _closed(cells, int(name[len("pqsoc_ring"):]), name) == "en", f"{name}: NAND not on en"
        uses = [(cell, dict(_PIN.findall(pins))) for body in modules.values()
                for cell, _, pins in _CELL.findall(body) if cell in rings]
        assert sorted(cell for cell, _ in uses) == sorted(rings), "each ring module instantiated once"
        enables = [pins["en"] for _, pins in uses]
    else:
        groups = {}
        for cell, name, pins in _CELL.findall(netlist):
            m = re.match(r"\\?(.*)\.(nand0|inv\d+)$", name)
            if m and cell in (NAND, INV):
                groups.setdefault(m.group(1), []).append((cell, dict(_PIN.findall(pins))))
        assert sorted(len(c) for c in groups.values()) == sorted(LENGTHS), "the rings' lengths"
        enables = [_closed(cells, len(cells), path) for path, cells in groups.items()]
    for enable in enables:
        assert not _CONSTANT.fullmatch(enable.strip()), f"a ring's enable tied to {enable}"


def test_our_synthesis_keeps_the_rings_and_they_are_its_only_loops(pdk_root, tmp_path):
    """OpenSTA finds one combinational loop per ring and no other (it cuts each one; the rings'
    outputs reach only the synchronizer flops, whose paths from them are unclocked)."""
    from pqsoc.cli import main
    from pqsoc.flow.pdk import find_pdk
    assert main(["synth", "entropy_src"]) == 0
    netlist = REPO / "build" / "synth" / "entropy_src" / "netlist.v"
    check_rings(netlist.read_text())
    if shutil.which("sta") is None:
        pytest.skip("OpenSTA (sta) is not installed")
    tcl = tmp_path / "loops.tcl"
    tcl.write_text(f"read_liberty {find_pdk().liberty('tt')}\nread_verilog {netlist}\n"
                   "link_design entropy_src\ncheck_setup -verbose -loops\n")
    r = subprocess.run(["sta", "-no_splash", "-exit", str(tcl)], capture_output=True, text=True, timeout=300)
    out = r.stdout + r.stderr
    assert f"There are {len(LENGTHS)} combinational loops" in out, out[-2000:]
    pins = re.findall(r"^  (\S+/\w+)$", out, re.M)
    assert pins and all(re.search(r"ring\d+[./](nand0|inv\d+)/", p) for p in pins)
    # each cell's input and output, and the first pin again after the loop's cut point
    assert len(pins) == sum(2 * n + 1 for n in LENGTHS)


def test_librelanes_synthesis_keeps_the_rings(tmp_path, pdk_root):
    from pqsoc.cli import main
    from pqsoc.flow import prepnr
    out = tmp_path / "pnr_check.json"
    assert main(["pnr", "check", "entropy_src", "--synth", "--json", str(out)]) == 0
    checks = {c["check"]: c for c in json.loads(out.read_text())["blocks"]["entropy_src"]["checks"]}
    for step in prepnr.SYNTH_STEPS:
        assert checks[f"LibreLane {step}"]["ok"], step
    netlist = next((REPO / "build" / "pnr_check" / "entropy_src" / "librelane").glob(
        "*-yosys-synthesis/entropy_src.nl.v"))
    check_rings(netlist.read_text())
    check_ring_names(netlist.read_text())
    check_ring_sdc(netlist, tmp_path)


def _name(s: str) -> str:
    return s.strip().lstrip("\\")


def check_ring_names(netlist: str):
    """RSZ_DONT_TOUCH_RX (block.RING_NAME_RX) names exactly the rings' cells and the nets of their
    loops in LibreLane's flattened netlist: no cell or net of the rest of the design."""
    rx = re.compile(RING_NAME_RX)
    cells = [(cell, _name(name), dict(_PIN.findall(pins))) for cell, name, pins in _CELL.findall(netlist)]
    ring_cells = [(name, pins) for cell, name, pins in cells if re.search(r"\.(nand0|inv\d+)$", name)]
    assert sorted(name for _, name, _ in cells if rx.search(name)) == sorted(name for name, _ in ring_cells)
    assert len(ring_cells) == sum(LENGTHS)
    loop_nets = {_name(pins["Y"]) for _, pins in ring_cells}       # every loop net is a ring cell's output
    wires = {_name(w) for w in re.findall(r"^\s*wire\s+(?:\[[^]]*\]\s*)?(\\?\S+)\s*;", netlist, re.M)}
    named = {w for w in wires if rx.search(w)}
    assert named == loop_nets, (sorted(loop_nets - named)[:5], sorted(named - loop_nets)[:5])


def check_ring_sdc(netlist, tmp_path):
    """block.ring_sdc on LibreLane's netlist: OpenSTA finds every ring cell and, with the false
    path, no path through a ring; without it, the EN flop's path into a synchronizer is timed
    (so the check can fail)."""
    if shutil.which("sta") is None:
        pytest.skip("OpenSTA (sta) is not installed")
    from pqsoc.flow.pdk import find_pdk
    net = r"rings.ring0.n\[5\]"
    base = [f"read_liberty {find_pdk().liberty('tt')}", f"read_verilog {netlist}", "link_design entropy_src",
            "create_clock -period 20 [get_ports clk]"]
    report = [f"report_checks -unconstrained -through [get_nets {{{net}}}] -format end", 'puts "@@end"']
    outs = []
    for sdc in ("", ring_sdc()):
        tcl = tmp_path / "ring_sdc.tcl"
        tcl.write_text("\n".join(base + [sdc] + report) + "\n")
        r = subprocess.run(["sta", "-no_splash", "-exit", str(tcl)], capture_output=True, text=True, timeout=300)
        outs.append(r.stdout + r.stderr)
        assert "@@end" in outs[-1] and not re.search(r"^Error", outs[-1], re.M), outs[-1][-1500:]
    without, with_sdc = outs
    assert "(MET)" in without or "(VIOLATED)" in without, without[-1500:]
    assert f"entropy source: {sum(LENGTHS)} ring oscillator cells" in with_sdc
    assert "No paths found." in with_sdc, with_sdc[-1500:]


def test_the_ring_check_finds_a_cut_or_tied_ring(tmp_path):
    """The check itself, on the block's Verilog as emitted: it passes, and fails with one
    inverter's output renamed (a cut ring) or a ring's enable tied to 1."""
    from ip.entropy.block import emit
    text = emit(tmp_path)[0].read_text()
    check_rings(text)
    m = re.search(r"sky130_fd_sc_hd__inv_1 inv5 \((.*?)\);", text, re.S)
    cut = text[:m.start(1)] + re.sub(r"\.Y\(([^)]*)\)", ".Y(cut_net)", m.group(1)) + text[m.end(1):]
    with pytest.raises(AssertionError, match="not closed"):
        check_rings(cut)
    m = re.search(r"pqsoc_ring41 ring2 \((.*?)\);", text, re.S)
    tied = text[:m.start(1)] + re.sub(r"\.en\(([^)]*)\)", ".en(1'b1)", m.group(1)) + text[m.end(1):]
    with pytest.raises(AssertionError, match="tied"):
        check_rings(tied)
