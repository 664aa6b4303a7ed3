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


def pytest_sessionstart(session):
    """`make test` writes reports/pytest.xml (JUnit XML); the commit and the changed files it ran
    on go in as suite properties, so tapeout.json can tell whether the count is for HEAD. Added
    by the process that writes the file (pytest-xdist's controller, or pytest alone): a worker's
    record_testsuite_property would not reach it."""
    import json
    from _pytest.junitxml import xml_key
    if hasattr(session.config, "workerinput"):
        return
    xml = session.config.stash.get(xml_key, None)
    if xml is None:
        return
    from pqsoc.flow import provenance
    st = provenance.stamp()
    xml.add_global_property("commit", st["commit"] or "")
    xml.add_global_property("dirty", json.dumps(st["dirty"]))


# Test files that share build folders with the other system group, placed with the tests they share
# them with: the Caravel wrapper's emit (build/rtl/caravel: LibreLane's checks read it while it is
# emitted), the silicon SoC's firmware (build/firmware/silicon, sim/silicon.py).
GROUP_OF = {"sim/tests/test_caravel.py": "system-flow", "tests/test_firmware_stack.py": "system-sim"}


class _GroupIds:
    """pytest-xdist 3.8 marks a test's group by appending @GROUP to the item's `_nodeid`, which
    pytest 9 no longer reads (a node id is `_id`): without this the groups do not take effect
    (measured 3 Dec: loadgroup handed out single tests and one file's tests ran on both
    workers). On a worker, after xdist's hook, the suffixed id becomes the node id, as xdist
    expects (its scheduler reads the group from the id the worker reports)."""

    @pytest.hookimpl(trylast=True)
    def pytest_collection_modifyitems(self, config, items):
        from _pytest.nodeid import coerce_node_id
        for item in items:
            suffixed = item.__dict__.get("_nodeid")
            if suffixed and suffixed != item.nodeid:
                item._id = coerce_node_id(suffixed)


def pytest_configure(config):
    if hasattr(config, "workerinput") and config.getvalue("loadgroup"):
        config.pluginmanager.register(_GroupIds(), "pqsoc-xdist-group-ids")


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config, items):
    """pytest-xdist (`make test`: -n auto --dist loadgroup): a group runs on one worker (with
    pytest 9, through _GroupIds). tryfirst: the marks must exist before xdist's own hook looks
    for them. ip/'s
    tests run a file at a time on any worker. The rest form two groups, each serial within itself:
    "system-sim" (sim/, bringup/, firmware/: the SoC's simulations, their run folders under
    build/sim) and "system-flow" (tests/, soc/: synthesis, layout, LibreLane, tapeout), with the
    exceptions of GROUP_OF. What the groups still share (build/soc, build/firmware, build/synth,
    Verilator models) is built under pqsoc/flow/locks.py's per-folder locks and rewritten only
    when it changes; the generated SoC files are replaced atomically (a reader never sees half
    a file)."""
    from pqsoc import REPO
    for item in items:
        rel = Path(str(item.fspath)).resolve().relative_to(REPO)
        top = rel.parts[0]
        group = GROUP_OF.get(rel.as_posix()) or (
            str(rel) if top == "ip" else "system-flow" if top in ("tests", "soc") else "system-sim")
        item.add_marker(pytest.mark.xdist_group(group))
