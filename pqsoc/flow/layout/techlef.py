# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""The facts a placer and router need from a LEF technology file: sites, routing layers (direction,
pitch, offset, width, spacing, minimum area) and cut layers (size, spacing, enclosures).

A small reader of the LEF statements that carry them, so the layout setup takes every number from
the PDK's tech LEF instead of a hand-typed copy. Lengths are in microns.
"""
import re
from dataclasses import dataclass, field
from pathlib import Path

from pqsoc import FlowError


@dataclass
class Site:
    name: str
    width: float
    height: float


@dataclass
class RoutingLayer:
    name: str
    direction: str              # "HORIZONTAL" or "VERTICAL"
    pitch: float                # along the other axis: the distance between two tracks
    offset: float
    width: float
    spacing: float              # the minimum spacing of a wire of the default width
    min_area: float | None = None


@dataclass
class CutLayer:
    name: str
    width: float
    spacing: float
    # LEF `ENCLOSURE BELOW|ABOVE a b`: a on two opposite sides, b on the other two
    below: tuple[float, float] = (0.0, 0.0)
    above: tuple[float, float] = (0.0, 0.0)


@dataclass
class TechLef:
    path: Path
    manufacturing_grid: float
    database_microns: int = 1000    # LEF UNITS: database units per micron
    sites: dict[str, Site] = field(default_factory=dict)
    routing: list[RoutingLayer] = field(default_factory=list)     # bottom to top
    cuts: list[CutLayer] = field(default_factory=list)            # bottom to top
    masterslice: list[str] = field(default_factory=list)          # wells

    def routing_layer(self, name: str) -> RoutingLayer:
        for layer in self.routing:
            if layer.name == name:
                return layer
        raise FlowError(f"{self.path}: no routing layer {name}")

    def cut_between(self, lower: str, upper: str) -> CutLayer:
        names = [r.name for r in self.routing]
        i = names.index(lower)
        if names[i + 1] != upper:
            raise FlowError(f"{self.path}: {lower} and {upper} are not adjacent routing layers")
        return self.cuts[i]


def _strip_comments(text: str) -> str:
    return re.sub(r"#[^\n]*", "", text)


def _floats(words: list[str]) -> list[float]:
    out = []
    for w in words:
        try:
            out.append(float(w))
        except ValueError:
            break
    return out


def _statements(body: str) -> list[list[str]]:
    return [s.split() for s in body.split(";") if s.split()]


def read(path: Path) -> TechLef:
    """Read a tech LEF; a file without routing layers or sites is refused."""
    if not path.is_file():
        raise FlowError(f"tech LEF not found: {path}")
    text = _strip_comments(path.read_text())
    m = re.search(r"MANUFACTURINGGRID\s+([\d.]+)\s*;", text)
    tech = TechLef(path=path, manufacturing_grid=float(m.group(1)) if m else 0.001)
    m = re.search(r"DATABASE\s+MICRONS\s+(\d+)\s*;", text)
    if m:
        tech.database_microns = int(m.group(1))
    for m in re.finditer(r"^\s*SITE\s+(\S+)\s*\n(.*?)^\s*END\s+\1\b", text, re.S | re.M):
        for st in _statements(m.group(2)):
            if st[0] == "SIZE":
                tech.sites[m.group(1)] = Site(m.group(1), float(st[1]), float(st[3]))
    for m in re.finditer(r"^\s*LAYER\s+(\S+)\s*\n(.*?)^\s*END\s+\1\b", text, re.S | re.M):
        name, body = m.group(1), m.group(2)
        stmts = _statements(body)
        kind = next((s[1] for s in stmts if s[0] == "TYPE"), None)
        if kind == "MASTERSLICE":
            tech.masterslice.append(name)
        elif kind == "ROUTING":
            tech.routing.append(_routing_layer(path, name, stmts))
        elif kind == "CUT":
            tech.cuts.append(_cut_layer(path, name, stmts))
    if not tech.routing or not tech.sites:
        raise FlowError(f"{path}: no routing layers or no SITE: not a tech LEF")
    if len(tech.cuts) != len(tech.routing) - 1:
        raise FlowError(f"{path}: {len(tech.routing)} routing layers but {len(tech.cuts)} cut layers")
    return tech


def _routing_layer(path: Path, name: str, stmts: list[list[str]]) -> RoutingLayer:
    vals: dict[str, list[float]] = {}
    direction = None
    spacing = None
    for st in stmts:
        key = st[0]
        if key == "DIRECTION":
            direction = st[1]
        elif key in ("PITCH", "OFFSET", "WIDTH", "AREA") and key not in vals:
            vals[key] = _floats(st[1:])
        elif key == "SPACING" and spacing is None:
            spacing = float(st[1])
        elif key == "SPACINGTABLE" and spacing is None:
            # SPACINGTABLE PARALLELRUNLENGTH 0 WIDTH 0 s0 WIDTH w1 s1 ...: the first row is the
            # spacing of wires of any width below w1, i.e. of the default width
            i = st.index("WIDTH")
            spacing = float(st[i + 2])
    if direction is None or "PITCH" not in vals or "WIDTH" not in vals or spacing is None:
        raise FlowError(f"{path}: routing layer {name} lacks DIRECTION, PITCH, WIDTH or SPACING")
    # PITCH x y / OFFSET x y: the value across the preferred direction is the track pitch
    axis = 1 if direction == "HORIZONTAL" else 0
    pitch = vals["PITCH"][axis] if len(vals["PITCH"]) > 1 else vals["PITCH"][0]
    off = vals.get("OFFSET", [pitch / 2])
    offset = off[axis] if len(off) > 1 else off[0]
    area = vals.get("AREA", [None])[0]
    return RoutingLayer(name, direction, pitch, offset, vals["WIDTH"][0], spacing, area)


def _cut_layer(path: Path, name: str, stmts: list[list[str]]) -> CutLayer:
    cut = CutLayer(name, 0.0, 0.0)
    for st in stmts:
        if st[0] == "WIDTH":
            cut.width = float(st[1])
        elif st[0] == "SPACING" and not cut.spacing:
            cut.spacing = float(st[1])
        elif st[0] == "ENCLOSURE" and st[1] in ("BELOW", "ABOVE"):
            setattr(cut, st[1].lower(), (float(st[2]), float(st[3])))
    if not cut.width or not cut.spacing:
        raise FlowError(f"{path}: cut layer {name} lacks WIDTH or SPACING")
    return cut
