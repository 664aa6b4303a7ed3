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
from ip.entropy.rtl.rings import INV, LENGTHS, NAND

_CELL = re.compile(r"^\s*(sky130_fd_sc_hd__\w+)\s+(\\?\S+)\s*\((.*?)\);", re.M | re.S)
_PIN = re.compile(r"\.(\w+)\s*\(\s*(\\?[^\s()]+(?:\s*\[\d+\])?)\s*\)")


def rings_in(netlist: str) -> dict[int, list[tuple[str, dict]]]:
    """ring number -> its cells (type, pins) from a netlist's ring<i>_* instances."""
    rings = {}
    for cell, name, pins in _CELL.findall(netlist):
        m = re.match(r"\\?(?:.*[./])?ring(\d+)_(nand|inv\d+)$", name.strip())
        if m:
            rings.setdefault(int(m.group(1)), []).append((cell, dict(_PIN.findall(pins))))
    return rings


def check_rings(netlist: str):
    rings = rings_in(netlist)
    assert sorted(rings) == list(range(len(LENGTHS)))
    for i, cells in rings.items():
        assert len(cells) == LENGTHS[i]
        nands = [pins for cell, pins in cells if cell == NAND]
        invs = {pins["A"]: pins["Y"] for cell, pins in cells if cell == INV}
        assert len(nands) == 1 and len(invs) == LENGTHS[i] - 1
        node, steps = nands[0]["Y"], 0
        while node in invs:                 # follow the inverters from the NAND's output
            node, steps = invs[node], steps + 1
        assert steps == LENGTHS[i] - 1 and node in (nands[0]["A"], nands[0]["B"]), f"ring {i} not closed"
        enable = nands[0]["B"] if node == nands[0]["A"] else nands[0]["A"]
        assert not re.fullmatch(r"1'b[01]|\d+'h\w+", enable), f"ring {i}: enable tied to {enable}"


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
    assert pins and all(re.search(r"ring\d+_(nand|inv\d+)/", p) for p in pins)
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


def test_the_ring_check_finds_a_cut_or_tied_ring():
    """The check itself, on the RTL as emitted: it passes, and fails with one inverter's output
    renamed (a cut ring) or a NAND's enable tied to 1."""
    from amaranth.back import verilog
    from ip.entropy.rtl.entropy_src import EntropySource
    netlist = verilog.convert(EntropySource(kind="sky130"), name="entropy_src", emit_src=False)
    check_rings(netlist)
    m = re.search(r"sky130_fd_sc_hd__inv_1\s+ring0_inv5\s*\((.*?)\);", netlist, re.S)
    cut = netlist[:m.start(1)] + re.sub(r"\.Y\(([^)]*)\)", ".Y(cut_net)", m.group(1)) + netlist[m.end(1):]
    with pytest.raises(AssertionError, match="not closed"):
        check_rings(cut)
    m = re.search(r"sky130_fd_sc_hd__nand2_1\s+ring2_nand\s*\((.*?)\);", netlist, re.S)
    tied = netlist[:m.start(1)] + re.sub(r"\.A\(([^)]*)\)", ".A(1'b1)", m.group(1)) + netlist[m.end(1):]
    with pytest.raises(AssertionError, match="tied"):
        check_rings(tied)
