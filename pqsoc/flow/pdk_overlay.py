# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""A LibreLane-loadable view of an old (OpenLane 1 era) sky130A PDK: build/pdk_overlay/sky130A.

LibreLane (ChipFoundry's flow, OpenLane 2's continuation) reads the PDK's
`libs.tech/{librelane,openlane}/config.tcl` and its standard-cell library's `config.tcl`.
A current open_pdks install has configs it accepts: that PDK is used as it is. The trimmed
2021 subset that $PDK_ROOT may point at (see its README) has OpenLane 1 configs, which
LibreLane refuses (missing PDN pitches, routing adjustments, cell padding, a KLayout layer
map; RC values in the old string form). For such a PDK this writes an overlay: symlinks to the
real PDK's folders, plus our own two config.tcl files that source the real ones and then set
what is missing, with the values of current open_pdks sky130A / sky130_fd_sc_hd, and a KLayout
LEF/DEF layer map made from the layer table of the PDK's own KLayout technology file.

The overlay is only for loading and checking configurations (`pqsoc pnr check`); a real
place-and-route run should use a full PDK.
"""
import hashlib
import json
import re
import shutil
from pathlib import Path

from pqsoc import BUILD, FlowError
from pqsoc.flow.pdk import PDK, SCL

OVERLAY = BUILD / "pdk_overlay"
_STAMP = ".overlay.json"

# PDK-level additions (libs.tech/openlane/config.tcl). Each: (variable, Tcl value, why / where from).
# "open_pdks" = sky130/librelane/config.tcl of current open_pdks (what ciel installs as
# libs.tech/librelane/config.tcl), read as a source of facts.
PDK_ADDITIONS = [
    ("FP_PDN_VOFFSET", "16.32",
     "PDN stripe offset (um), vertical; open_pdks. LibreLane: PDN_VOFFSET (required, old name accepted)"),
    ("FP_PDN_VPITCH", "153.6",
     "PDN stripe pitch (um), vertical; open_pdks. LibreLane: PDN_VPITCH (required)"),
    ("FP_PDN_HOFFSET", "16.65",
     "PDN stripe offset (um), horizontal; open_pdks. LibreLane: PDN_HOFFSET (required)"),
    ("FP_PDN_HPITCH", "153.18",
     "PDN stripe pitch (um), horizontal; open_pdks. LibreLane: PDN_HPITCH (required)"),
    ("GRT_LAYER_ADJUSTMENTS", '"0.99,0,0,0,0,0"',
     "global-routing capacity reduction per layer li1..met5; open_pdks. The subset has the same "
     "value under OpenLane 1's name GLB_RT_LAYER_ADJUSTMENTS, which LibreLane does not read"),
    ("LAYERS_RC", "[dict create]",
     "the subset's LAYERS_RC is OpenLane 1's 'layer cap res, ...' string, which LibreLane rejects "
     "(it wants corner -> layer -> {res cap}); current open_pdks sets none, so it is emptied "
     "(LibreLane then takes RC from the tech LEF)"),
    ("KLAYOUT_DRC_TECH_SCRIPT", '"$::env(PDK_ROOT)/$::env(PDK)/libs.tech/klayout/$::env(PDK).lydrc"',
     "KLayout DRC deck (LibreLane: KLAYOUT_DRC_RUNSET; it reads this older name first). The subset "
     "names sky130A_mr.drc, which it does not hold; open_pdks has libs.tech/klayout/drc/sky130A_mr.drc. "
     "The subset's only deck is the 2021 sky130A.lydrc, the same rule deck's predecessor, which also "
     "runs in batch with -rd input=... -rd report=...; it is used here (BEOL + off-grid checks only)"),
    ("KLAYOUT_DEF_LAYER_MAP", '"$::env(PDK_ROOT)/$::env(PDK)/libs.tech/klayout/$::env(PDK).map"',
     "KLayout LEF/DEF -> GDS layer map (required); open_pdks ships libs.tech/klayout/tech/sky130A.map, "
     "the subset has none: this overlay writes one from the <lefdef> layer table of the subset's "
     "own sky130A.lyt (see the map's header)"),
    ("KLAYOUT_XOR_IGNORE_LAYERS", '"81/14"',
     "areaid.lowTapDensity, left out of the KLayout/Magic GDS XOR; open_pdks"),
]

# Library-level additions (libs.tech/openlane/sky130_fd_sc_hd/config.tcl), set after the
# real file so they win: LibreLane evaluates this file after the PDK-level one.
SCL_ADDITIONS = [
    ("GPL_CELL_PADDING", "0",
     "global placement padding (sites); open_pdks sky130_fd_sc_hd (OpenLane 1's CELL_PAD 4 is "
     "not read by LibreLane). Required"),
    ("DPL_CELL_PADDING", "0",
     "detailed placement padding (sites); open_pdks sky130_fd_sc_hd. Required"),
    ("FILL_CELL", '"sky130_fd_sc_hd__fill_2 sky130_fd_sc_hd__fill_1"',
     "fill cells by name; open_pdks. The subset's 'sky130_fd_sc_hd__fill_' is an OpenLane 1 "
     "prefix that LibreLane (FILL_CELLS, a list of names or wildcards) would match nothing with"),
    ("DECAP_CELL", '"sky130_fd_sc_hd__decap_3"',
     "decap cells by name; open_pdks (same prefix problem as FILL_CELL)"),
    ("MAX_TRANSITION_CONSTRAINT", "0.75",
     "max slew (ns); open_pdks. The subset has it as DEFAULT_MAX_TRAN (same value)"),
    ("MAX_CAPACITANCE_CONSTRAINT", "0.2",
     "max load (pF); open_pdks"),
    ("LIB", "[dict create]",
     "timing corners, set here so that LibreLane does not derive them from LIB_SYNTH/SLOWEST/"
     "FASTEST: it would then name sky130's usual corners (ss_100C_1v60, ff_n40C_1v95), which this "
     "subset does not hold. One Liberty per corner the subset has (pqsoc.flow.pdk.CORNERS):"),
]
for _corner in ("tt_025C_1v80", "ss_n40C_1v40", "ff_100C_1v95"):
    SCL_ADDITIONS.append(
        (f"LIB) {{*_{_corner}}}", f'"$::env(PDK_ROOT)/$::env(PDK)/libs.ref/{SCL}/lib/{SCL}__{_corner}.lib"',
         f"the {_corner} Liberty of the subset"))
SCL_ADDITIONS += [
    ("STA_CORNERS", '"nom_tt_025C_1v80 nom_ss_n40C_1v40 nom_ff_100C_1v95"',
     "the corners above, nominal interconnect only: the subset has one tech LEF and one RCX rule "
     "file (no min/max), so LibreLane's min_*/max_* corners would have none"),
    ("DEFAULT_CORNER", '"nom_tt_025C_1v80"', "as LibreLane sets it when it converts an old sky130 config"),
    ("TIMING_VIOLATION_CORNERS", '"*tt*"', "as LibreLane sets it when it converts an old sky130 config"),
]

# Layers of the routing stack the layer map covers: name in the tech LEF (= name in the .lyt table).
_ROUTING = ("li1", "met1", "met2", "met3", "met4", "met5")
_CUTS = ("mcon", "via", "via2", "via3", "via4")


def _real(root: Path) -> Path:
    return root / PDK


def _config_dir(base: Path) -> Path | None:
    for tool in ("librelane", "openlane"):
        if (base / "libs.tech" / tool / "config.tcl").is_file():
            return base / "libs.tech" / tool
    return None


def is_old_openlane_pdk(root: Path) -> bool:
    """True for an OpenLane 1 era config (the 2021 subset): no libs.tech/librelane, and an
    openlane/config.tcl that has none of the variables current open_pdks adds for OpenLane 2."""
    base = _real(root)
    cfg = base / "libs.tech" / "openlane" / "config.tcl"
    if (base / "libs.tech" / "librelane").is_dir() or not cfg.is_file():
        return False
    text = cfg.read_text()
    return "GRT_LAYER_ADJUSTMENTS" not in text and "FP_PDN_VPITCH" not in text


def _tcl_block(title: str, source_line: str, additions) -> str:
    lines = [f"# {title}", "# Written by pqsoc/flow/pdk_overlay.py; regenerated when stale. Do not edit.", ""]
    lines += source_line.splitlines() + [""]
    for name, value, why in additions:
        lines.append(f"# {why}")
        if ") " in name:   # a key of a dict variable: "VAR) {key}"
            var, key = name.split(") ", 1)
            lines.append(f"dict set ::env({var}) {key} {value}")
        else:
            lines.append(f"set ::env({name}) {value}")
    return "\n".join(lines) + "\n"


def pdk_config_tcl(real_cfg: Path) -> str:
    fix = (
        "# The subset's config.tcl reads STD_CELL_LIBRARY_OPT before it sets it (OpenLane 1 set it\n"
        "# beforehand). Default both, as current open_pdks does, then read the real file.\n"
        "if { ![info exists ::env(STD_CELL_LIBRARY)] } { set ::env(STD_CELL_LIBRARY) sky130_fd_sc_hd }\n"
        "if { ![info exists ::env(STD_CELL_LIBRARY_OPT)] } { set ::env(STD_CELL_LIBRARY_OPT) sky130_fd_sc_hd }\n"
        f"source {{{real_cfg}}}")
    return _tcl_block("sky130A OpenLane/LibreLane PDK config: the real one, then what LibreLane needs",
                      fix, PDK_ADDITIONS)


def scl_config_tcl(real_cfg: Path) -> str:
    return _tcl_block(f"{SCL} config: the real one, then what LibreLane needs",
                      f"source {{{real_cfg}}}", SCL_ADDITIONS)


def lefdef_table(lyt: Path) -> dict[str, str]:
    """The `name.purpose : layer/datatype` table in the <lefdef> section of the PDK's .lyt, as
    {"met1.drawing": "68/20", ...}."""
    text = lyt.read_text()
    m = re.search(r"<lefdef>.*?<layer-map>layer_map\((.*?)\)</layer-map>", text, re.S)
    if not m:
        raise FlowError(f"PDK: no LEF/DEF layer table in {lyt}")
    return dict(re.findall(r"'([\w.]+) : (\d+/\d+)'", m.group(1)))


def layer_map(lyt: Path) -> str:
    """KLayout's LEF/DEF layer map (lines `<layer> <purposes> <gds layer> <datatype>`, plus
    `NAME <layer>/PIN` for pin labels and `DIEAREA ALL` for the outline), from the
    `name.purpose : layer/datatype` table in the <lefdef> section of the PDK's .lyt."""
    table = lefdef_table(lyt)

    def num(key: str) -> str:
        if key not in table:
            raise FlowError(f"PDK: {lyt.name} has no {key} in its LEF/DEF layer table")
        return table[key].replace("/", " ")

    out = [f"# KLayout LEF/DEF layer map, made by pqsoc/flow/pdk_overlay.py from the <lefdef>",
           f"# layer table of {lyt.name} (the PDK's own GDS layer/datatype numbers).",
           "# <layer> <purposes> <gds layer> <gds datatype>"]
    out.append(f"DIEAREA ALL {num('prBoundary.boundary')}")
    for layer in _ROUTING + _CUTS:
        out.append(f"{layer} NET,SPNET,VIA,FILL,FILLOPC {num(layer + '.drawing')}")
        out.append(f"{layer} PIN,LEFPIN {num(layer + '.pin')}")
        block = f"{layer}.blockage" if f"{layer}.blockage" in table else f"{layer}.drawing"
        out.append(f"{layer} LEFOBS,BLOCKAGE {num(block)}")
        if f"{layer}.label" in table:
            out.append(f"NAME {layer}/PIN {num(layer + '.label')}")
    return "\n".join(out) + "\n"


def _fingerprint(root: Path) -> str:
    """What the overlay depends on: the real PDK's place and config files, and this generator."""
    base = _real(root)
    h = hashlib.sha256()
    h.update(str(base.resolve()).encode())
    for p in (base / "libs.tech" / "openlane" / "config.tcl",
              base / "libs.tech" / "openlane" / SCL / "config.tcl",
              base / "libs.tech" / "klayout" / f"{PDK}.lyt",
              Path(__file__)):
        h.update(p.name.encode())
        h.update(p.read_bytes() if p.is_file() else b"<missing>")
    return h.hexdigest()


def _link_children(src: Path, dst: Path, skip=()) -> None:
    dst.mkdir(parents=True, exist_ok=True)
    for child in sorted(src.iterdir()):
        if child.name not in skip:
            (dst / child.name).symlink_to(child.resolve())


def overlay(root: Path, where: Path = OVERLAY) -> tuple[Path, bool]:
    """The overlay's PDK root for the PDK at root, (re)written if missing or stale.
    Returns (overlay root, whether it was written now)."""
    base = _real(root)
    fp = _fingerprint(root)
    stamp = where / _STAMP
    if stamp.is_file():
        try:
            if json.loads(stamp.read_text()).get("fingerprint") == fp:
                return where, False
        except ValueError:
            pass
    if where.exists():
        shutil.rmtree(where)
    out = where / PDK
    _link_children(base, out, skip=("libs.tech",))
    tech = out / "libs.tech"
    _link_children(base / "libs.tech", tech, skip=("openlane", "klayout"))
    _link_children(base / "libs.tech" / "klayout", tech / "klayout")
    (tech / "klayout" / f"{PDK}.map").write_text(layer_map(base / "libs.tech" / "klayout" / f"{PDK}.lyt"))
    ol = tech / "openlane"
    _link_children(base / "libs.tech" / "openlane", ol, skip=("config.tcl", SCL))
    (ol / "config.tcl").write_text(pdk_config_tcl((base / "libs.tech" / "openlane" / "config.tcl").resolve()))
    _link_children(base / "libs.tech" / "openlane" / SCL, ol / SCL, skip=("config.tcl",))
    (ol / SCL / "config.tcl").write_text(
        scl_config_tcl((base / "libs.tech" / "openlane" / SCL / "config.tcl").resolve()))
    stamp.write_text(json.dumps({"pdk": str(base.resolve()), "fingerprint": fp}, indent=2) + "\n")
    return where, True


def loader_pdk_root(root: Path, where: Path = OVERLAY) -> tuple[Path, str | None]:
    """The PDK root to hand LibreLane: root itself for a PDK with a current config, else the
    overlay. Returns (pdk root, None) or (overlay root, 'generated' / 'up to date')."""
    if not is_old_openlane_pdk(root):
        return root, None
    path, written = overlay(root, where)
    return path, "generated" if written else "up to date"


__all__ = ["OVERLAY", "PDK_ADDITIONS", "SCL_ADDITIONS", "is_old_openlane_pdk", "layer_map",
           "loader_pdk_root", "overlay"]
