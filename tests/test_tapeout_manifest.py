"""tapeout.json must name only things that exist and must not claim hardening that never ran."""
import json
from pathlib import Path

from ip.common import SYS_CLK_PERIOD_NS
from pqsoc.cli import blocks as blocks_mod

REPO = Path(__file__).resolve().parent.parent


def test_manifest_is_consistent():
    m = json.loads((REPO / "tapeout.json").read_text())
    assert m["pdk"]["name"] == "sky130A"
    assert m["target"]["clock_mhz"] == 1e3 / SYS_CLK_PERIOD_NS     # the one system clock
    tops = {b.top for b in blocks_mod.BLOCKS.values()}
    for macro in m["macros"]:
        assert macro["name"] in tops, f"{macro['name']} is not a block the flow knows"
        assert (REPO / macro["rtl"]).is_file()
        cfg = json.loads((REPO / macro["openlane_config"]).read_text())
        assert cfg["DESIGN_NAME"] == macro["name"]
        # Nothing is hardened until OpenLane has produced its GDS in the Nix shell.
        assert macro["hardened"] is False or (REPO / macro["gds"]).is_file()


def test_manifest_sram_macros_match_the_silicon_soc():
    """The macro count in tapeout.json is the silicon SoC's (soc/silicon.py), not a copied number."""
    from ip.common.sram import MACROS
    from soc import silicon
    from soc.target import SILICON_ROM_SIZE, SILICON_SRAM_SIZE
    m = json.loads((REPO / "tapeout.json").read_text())
    words, bits, _ = MACROS[silicon.SRAM_MACRO]
    per_macro = words * bits // 8
    want = (silicon.ACC_IMEM_SIZE + silicon.ACC_DMEM_SIZE + SILICON_ROM_SIZE + SILICON_SRAM_SIZE) // per_macro
    assert m["sram_macros"] == [{"name": silicon.SRAM_MACRO, "count": want, "use": m["sram_macros"][0]["use"]}]
    assert m["top"]["name"] == blocks_mod.get("soc").top and m["top"]["hardened"] is False
