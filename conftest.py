"""pytest, every test folder: the blocks registered with the flow as the command line registers
them (pqsoc/cli/blocks.py), so a test can name a block; the PDK fixture."""
import os
from pathlib import Path

import pytest

import pqsoc.cli.blocks  # noqa: F401


@pytest.fixture(scope="session")
def pdk_root() -> Path:
    root = os.environ.get("PDK_ROOT")
    if not root or not (Path(root) / "sky130A").is_dir():
        pytest.fail("PDK_ROOT must point at a folder with sky130A (CI: ../shared/pdk)")
    return Path(root)


@pytest.fixture(scope="session")
def caravel_root() -> Path:
    """Caravel's fixed user-project files (soc/caravel.py; CI: ../shared/caravel)."""
    root = os.environ.get("CARAVEL_ROOT")
    if not root or not (Path(root) / "verilog" / "rtl" / "user_project_wrapper.v").is_file() \
            or not (Path(root) / "openlane" / "user_project_wrapper").is_dir():
        pytest.fail("CARAVEL_ROOT must point at Caravel's user-project files (CI: ../shared/caravel)")
    return Path(root)
