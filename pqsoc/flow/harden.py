"""`pqsoc harden BLOCK`: OpenLane 2 place-and-route of a block with its pnr/<block>/config.json.

OpenLane's steps from Floorplan on need OpenROAD, which no Debian or PyPI package provides: this
runs only inside the Nix shell of flake.nix (`nix develop`). Elsewhere it stops with that message.
"""
import shutil
import subprocess

from pqsoc import REPO, FlowError
from pqsoc.flow import block as blocks_mod
from pqsoc.flow import openlane
from pqsoc.flow.pdk import find_pdk


def harden(name: str) -> None:
    block = blocks_mod.get(name)
    config = openlane.config_path(block)
    shown = config.relative_to(REPO) if config.is_relative_to(REPO) else config
    if not config.is_file():
        raise FlowError(f"no OpenLane config for {name}: expected {shown}")
    if config.read_text() != openlane.render(block):
        raise FlowError(f"{shown} differs from the block's declaration: run `pqsoc pnr-config {name}`")
    missing = [t for t in ("openroad", "openlane") if shutil.which(t) is None]
    if missing:
        raise FlowError(
            f"hardening needs {' and '.join(missing)} on PATH. OpenROAD has no Debian or PyPI package, "
            f"so OpenLane's place-and-route cannot run on this machine: run it in the Nix shell "
            f"(`nix develop`, which brings OpenLane 2 and OpenROAD), then `make harden BLOCKS={name}`. "
            f"Synthesis and STA (`make report`) run without it.")
    pdk = find_pdk()
    block.emit(block.rtl_dir())
    print(f"[harden] {name}: openlane {shown}", flush=True)
    r = subprocess.run(["openlane", "--pdk-root", str(pdk.root), str(config)])
    if r.returncode != 0:
        raise FlowError(f"OpenLane failed for {name} (exit {r.returncode}); see its run folder under pnr/{name}/runs/")
