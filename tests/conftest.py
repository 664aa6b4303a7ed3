import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="session")
def pdk_root() -> Path:
    root = os.environ.get("PDK_ROOT")
    if not root or not (Path(root) / "sky130A").is_dir():
        pytest.fail("PDK_ROOT must point at a folder with sky130A (CI: ../shared/pdk)")
    return Path(root)
