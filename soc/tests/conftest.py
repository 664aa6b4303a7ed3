# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
import pytest

from pqsoc import BUILD


@pytest.fixture(scope="session")
def soc_dir():
    """The default SoC, generated once per session into build/soc (unchanged files are kept)."""
    from soc.build import build
    build(BUILD / "soc")
    return BUILD / "soc"
