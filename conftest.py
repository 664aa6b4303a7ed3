# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
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


@pytest.fixture(scope="session", autouse=True)
def _junit_provenance(record_testsuite_property):
    """`make test` writes reports/pytest.xml (JUnit XML); the commit and the changed files it ran
    on go in as suite properties, so tapeout.json can tell whether the count is for HEAD."""
    import json
    from pqsoc.flow import provenance
    st = provenance.stamp()
    record_testsuite_property("commit", st["commit"] or "")
    record_testsuite_property("dirty", json.dumps(st["dirty"]))
