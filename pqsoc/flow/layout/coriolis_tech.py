# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""Coriolis (coriolis-eda) technology and library setup for a LEF standard-cell library: the
sky130_fd_sc_hd cells of the PDK, from its tech LEF and cell LEF.

Imported only inside the Coriolis subprocess (pqsoc.flow.layout.pnr): Coriolis keeps one global
database per process. Every number comes from the tech LEF (techlef.read) or from the PDK's
OpenLane configuration (the cell names); nothing here names a block.

The layers carry the names the LEF uses (li1, mcon, met1, via, ...), which is how Coriolis' LEF
reader matches cell pins and obstructions to layers. Routing gauge, bottom to top: li1 holds the
cell pins only (Coriolis reaches a pin with an mcon from met1), met1..met4 route, met5 is left to
the power grid.
"""
import re
from pathlib import Path

from coriolis import CRL, Cfg
from coriolis.CRL import AllianceFramework, CellGauge, LefImport, RoutingGauge, RoutingLayerGauge
from coriolis.Hurricane import BasicLayer, DataBase, DbU, Layer, Library, Technology, ViaLayer
from coriolis.Anabatic import StyleFlags
from coriolis.helpers import u
from coriolis.helpers.overlay import CfgCache

from pqsoc import FlowError
from pqsoc.flow.layout.techlef import TechLef

GAUGE = "pqsoc_hd"          # the name of our routing gauge inside Coriolis


def cell_gauge_name(site: str) -> str:
    """Coriolis' LEF reader matches a macro's SITE to the cell gauge named `LEF.<site>`."""
    return f"LEF.{site}"

def _basic_layer(tech, name, material, size=None, spacing=None, area=None, gds=None):
    layer = BasicLayer.create(tech, name, BasicLayer.Material(material))
    if size is not None:
        layer.setMinimalSize(u(size))
    if spacing is not None:
        layer.setMinimalSpacing(u(spacing))
    if area is not None:
        layer.setMinimalArea(area)
    if gds and name in gds:          # the GDS numbers Coriolis writes the routing with
        layer.setGds2Layer(gds[name][0])
        layer.setGds2Datatype(gds[name][1])
    return layer


def _enclosure(via, metal, along: float, across: float, horizontal: bool):
    """LEF gives an enclosure pair (a, b) on opposite sides; the larger one goes along the metal's
    routing direction, so a via on a track does not widen the wire across the track."""
    big, small = max(along, across), min(along, across)
    h, v = (big, small) if horizontal else (small, big)
    via.setEnclosure(metal, u(h), Layer.EnclosureH)
    via.setEnclosure(metal, u(v), Layer.EnclosureV)


def setup_technology(lef: TechLef, gds_layers: dict[str, list[int]]) -> None:
    """Create the Coriolis database and the technology from the tech LEF; gds_layers: layer name
    -> [GDS layer, datatype] of its drawing (from the PDK's KLayout layer table)."""
    db = DataBase.create()
    CRL.System.get()
    tech = Technology.create(db, "sky130")
    # Coriolis' LEF reader takes the centre line of each pin rectangle, which falls on half a
    # LEF database unit (a 0.17 um wide pin at x=3.865 has its axis at 3.9325): the database
    # grid is that half unit. The router still puts its wires on the tracks of the tech LEF.
    grid = 0.5 / lef.database_microns
    DbU.setPrecision(2)
    DbU.setPhysicalsPerGrid(grid, DbU.UnitPowerMicro)
    with CfgCache(priority=Cfg.Parameter.Priority.ConfigurationFile) as cfg:
        cfg.gdsDriver.metricDbu = 1e-09
        cfg.gdsDriver.dbuPerUu = 0.001
    DbU.setGridsPerLambda(2)
    DbU.setSymbolicSnapGridStep(DbU.fromGrid(1.0))
    DbU.setPolygonStep(DbU.fromGrid(1.0))
    DbU.setStringMode(DbU.StringModePhysical, DbU.UnitPowerMicro)

    for well in lef.masterslice:
        _basic_layer(tech, well, BasicLayer.Material.nWell if well.startswith("n")
                     else BasicLayer.Material.pWell, gds=gds_layers)
    metals = {}
    for i, r in enumerate(lef.routing):
        metals[r.name] = _basic_layer(tech, r.name, BasicLayer.Material.metal, r.width, r.spacing,
                                      r.min_area, gds_layers)
        blockage = _basic_layer(tech, f"{r.name}.block", BasicLayer.Material.blockage)
        metals[r.name].setBlockageLayer(blockage)
        if i < len(lef.cuts):
            c = lef.cuts[i]
            cut = _basic_layer(tech, c.name, BasicLayer.Material.cut, c.width, c.spacing,
                               gds=gds_layers)
            # cells carry obstructions on cut layers too (mcon)
            cut.setBlockageLayer(_basic_layer(tech, f"{c.name}.block", BasicLayer.Material.blockage))
    for i, c in enumerate(lef.cuts):
        lower, upper = lef.routing[i], lef.routing[i + 1]
        via = ViaLayer.create(tech, f"{lower.name}_{upper.name}", metals[lower.name],
                              tech.getLayer(c.name), metals[upper.name])
        via.setMinimalSize(u(c.width))
        _enclosure(via, metals[lower.name], *c.below, lower.direction == "HORIZONTAL")
        _enclosure(via, metals[upper.name], *c.above, upper.direction == "HORIZONTAL")
    # layers Coriolis' engines expect to exist
    for name, material in (("text.cell", "other"), ("text.instance", "other"), ("SPL1", "other"),
                           ("AutoLayer", "other"), ("gmetalh", "metal"), ("gcontact", "cut"),
                           ("gmetalv", "metal")):
        BasicLayer.create(tech, name, BasicLayer.Material(getattr(BasicLayer.Material, material)))


def setup_gauges(lef: TechLef, site: str, pin_layer: str, top_layer: str,
                 power_layers: tuple[str, ...]) -> None:
    """Routing gauge (pin layer, routing layers, power-only layers) and cell gauge (the site)."""
    af = AllianceFramework.get()
    tech = DataBase.getDB().getTechnology()
    rg = RoutingGauge.create(GAUGE)
    rg.setSymbolic(False)
    top = [r.name for r in lef.routing].index(top_layer)
    for depth, r in enumerate(lef.routing[:top + 1]):
        # the via side: the cut to the layer above; the top layer takes the one below it
        cut = lef.cuts[min(depth, len(lef.cuts) - 1)]
        if r.name == pin_layer:
            usage = RoutingLayerGauge.PinOnly
        elif r.name in power_layers:
            usage = RoutingLayerGauge.PowerSupply
        else:
            usage = RoutingLayerGauge.Default
        direction = (RoutingLayerGauge.Horizontal if r.direction == "HORIZONTAL"
                     else RoutingLayerGauge.Vertical)
        rg.addLayerGauge(RoutingLayerGauge.create(
            tech.getLayer(r.name), direction, usage, depth, 0.0,
            u(r.offset), u(r.pitch), u(r.width), u(r.width), u(cut.width), u(0.0)))
    af.addRoutingGauge(rg)
    af.setRoutingGauge(GAUGE)
    s = lef.sites[site]
    # Cell gauge: pitch = the first horizontal routing pitch, which divides the row height
    # (met1: 8 tracks of 0.34 um per 2.72 um row), so pins line up with the tracks; step = the
    # site width. (The placer itself grids rows on the site width: see pnr.py.)
    hpitch = next(r.pitch for r in lef.routing if r.direction == "HORIZONTAL")
    if abs(s.height / hpitch - round(s.height / hpitch)) > 1e-6:
        raise FlowError(f"row height {s.height} um is not a multiple of the {hpitch} um pitch")
    cg = CellGauge.create(cell_gauge_name(site), pin_layer, u(hpitch), u(s.height), u(s.width))
    af.addCellGauge(cg)
    af.setCellGauge(cell_gauge_name(site))


def configure(site: str, net_builder: str, power: str, ground: str, fill_cells: list[str],
              tie_cells: tuple[str, str], buffer: str, clock_regex: str, top_layer: str,
              density_margin: float, effort: int, overrides: dict | None = None) -> None:
    """The engines' parameters: supply names, filler cells, placement margin, router limits."""
    af = AllianceFramework.get()
    with CfgCache(priority=Cfg.Parameter.Priority.ConfigurationFile) as cfg:
        cfg.lefImport.minTerminalWidth = 0.0
        cfg.crlcore.groundName = ground
        cfg.crlcore.powerName = power
        cfg.etesian.bloat = "disabled"
        cfg.etesian.aspectRatio = 1.0
        cfg.etesian.spaceMargin = density_margin
        cfg.etesian.uniformDensity = True
        cfg.etesian.routingDriven = False
        cfg.etesian.latchUpDistance = 0       # the flow places the well taps (pnr.py)
        cfg.etesian.feedNames = ",".join(fill_cells)
        cfg.etesian.defaultFeed = fill_cells[-1]
        cfg.etesian.cell.zero = tie_cells[0]
        cfg.etesian.cell.one = tie_cells[1]
        cfg.etesian.effort = effort
        cfg.etesian.graphics = 3
        cfg.anabatic.routingGauge = GAUGE
        cfg.anabatic.cellGauge = cell_gauge_name(site)
        cfg.anabatic.topRoutingLayer = top_layer
        cfg.anabatic.globalLengthThreshold = 1450
        cfg.anabatic.saturateRatio = 0.90
        cfg.anabatic.saturateRp = 10
        cfg.anabatic.edgeLength = 192
        cfg.anabatic.edgeWidth = 32
        cfg.anabatic.edgeCostH = 9.0
        cfg.anabatic.edgeCostK = -10.0
        cfg.anabatic.edgeHInc = 1.0
        cfg.anabatic.edgeHScaling = 1.0
        cfg.anabatic.globalIterations = 10
        # "HV,3RL+": the first routing layer above the pins is horizontal, "VH,3RL+": vertical
        cfg.anabatic.netBuilderStyle = net_builder
        cfg.anabatic.routingStyle = StyleFlags.HV if net_builder.startswith("HV") else StyleFlags.VH
        cfg.katana.disableStackedVias = False
        cfg.katana.hTracksReservedLocal = 4
        cfg.katana.vTracksReservedLocal = 3
        cfg.katana.termSatReservedLocal = 8
        cfg.katana.termSatThreshold = 9
        cfg.katana.eventsLimit = 4000002
        cfg.katana.ripupCost = 3
        cfg.katana.strapRipupLimit = 16
        cfg.katana.localRipupLimit = 9
        cfg.katana.globalRipupLimit = 5
        cfg.katana.longGlobalRipupLimit = 5
        # the block plugin wants a buffer cell (for spare cells and clock trees, which we leave off)
        cfg.spares.buffer = buffer
        cfg.spares.maxSinks = 20
        cfg.clockTree.buffer = buffer
        cfg.clockTree.placerEngine = "Etesian"
        cfg.misc.logMode = True
        cfg.misc.verboseLevel1 = True
        cfg.misc.verboseLevel2 = False
        cfg.misc.catchCore = False
        # per-run overrides, e.g. {"katana.hTracksReservedLocal": 2}
        for key, value in (overrides or {}).items():
            section, name = key.split(".", 1)
            node = getattr(cfg, section)
            for part in name.split(".")[:-1]:
                node = getattr(node, part)
            setattr(node, name.split(".")[-1], value)
        env = af.getEnvironment()
        env.setCLOCK(clock_regex)


def routing_view(src: Path, dst: Path, drop_layers: list[str]) -> tuple[Path, list[str]]:
    """A copy of a cell LEF that Coriolis' LEF reader takes: without the geometry on
    `drop_layers` (the wells: the reader knows only the tech LEF's routing and cut layers and
    fails on a pin port drawn in pwell) and without macros that have no PIN (the reader crashes
    on them; they are fillers whose supply rails are obstructions, e.g. sky130_ef_sc_hd__fill_12).
    Returns the copy and the names of the macros left out."""
    text = src.read_text()
    dropped = []
    macros = re.split(r"(?m)^(?=MACRO\s)", text)
    kept = []
    for chunk in macros:
        m = re.match(r"MACRO\s+(\S+)", chunk)
        if m and not re.search(r"(?m)^\s*PIN\s", chunk):
            dropped.append(m.group(1))
            # keep what follows the macro's END (the file trailer)
            end = re.search(rf"(?m)^END\s+{re.escape(m.group(1))}\s*$", chunk)
            chunk = chunk[end.end():] if end else ""
        kept.append(chunk)
    out, skipping = [], False
    for line in "".join(kept).splitlines(keepends=True):
        words = line.split()
        if words[:1] == ["LAYER"]:
            skipping = words[1] in drop_layers
            if skipping:
                continue
        elif words[:1] in (["END"], ["PORT"], ["OBS"], ["PIN"]):
            skipping = False
        if not skipping:
            out.append(line)
    dst.write_text("".join(out))
    return dst, dropped


def load_cells(tech_lef: Path, cell_lef: Path, workdir: Path, well_layers: list[str],
               library: str = "sky130_fd_sc_hd") -> Library:
    """Import the cell abstracts (LEF) into a library the framework searches for cell masters.
    Coriolis' LEF reader wants a `.lef` name: a `.tlef` is linked under workdir as one."""
    if tech_lef.suffix != ".lef":
        link = workdir / (tech_lef.stem + ".tech.lef")
        link.unlink(missing_ok=True)
        link.symlink_to(tech_lef.resolve())
        tech_lef = link
    af = AllianceFramework.get()
    db = DataBase.getDB()
    lib = Library.create(db.getRootLibrary(), library)
    af.wrapLibrary(lib, 0)
    LefImport.load(str(tech_lef))
    LefImport.setMergeLibrary(lib)
    view, _ = routing_view(cell_lef, workdir / cell_lef.name, well_layers)
    LefImport.load(str(view))
    af.wrapLibrary(lib, 1)
    return lib
