"""tapeout.json must name only things that exist and must not claim hardening that never ran."""
import json
from pathlib import Path

from pqsoc import blocks as blocks_mod

REPO = Path(__file__).resolve().parent.parent


def test_manifest_is_consistent():
    m = json.loads((REPO / "tapeout.json").read_text())
    assert m["pdk"]["name"] == "sky130A"
    tops = {b.top for b in blocks_mod.BLOCKS.values()}
    for macro in m["macros"]:
        assert macro["name"] in tops, f"{macro['name']} is not a block the flow knows"
        assert (REPO / macro["rtl"]).is_file()
        cfg = json.loads((REPO / macro["openlane_config"]).read_text())
        assert cfg["DESIGN_NAME"] == macro["name"]
        # Nothing is hardened until OpenLane has produced its GDS in the Nix shell.
        assert macro["hardened"] is False or (REPO / macro["gds"]).is_file()
