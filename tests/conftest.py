# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""Fixtures of the flow tests: a throwaway block from Verilog text, registered for one test;
the tt Liberty as the fanout repair sees it."""
from pathlib import Path

import pytest

from pqsoc.cli import blocks as blocks_mod


def verilog_block(name: str, text: str, top: str = "counter") -> blocks_mod.Block:
    def emit(out: Path) -> list[Path]:
        out.mkdir(parents=True, exist_ok=True)
        p = out / f"{name}.v"
        p.write_text(text)
        return [p]
    return blocks_mod.register(blocks_mod.Block(name=name, top=top, description="test", emit=emit))


@pytest.fixture
def temp_block():
    made = []

    def make(name, text, top="counter"):
        made.append(name)
        return verilog_block(name, text, top)
    yield make
    for n in made:
        blocks_mod.BLOCKS.pop(n, None)


@pytest.fixture
def cell_lib(pdk_root):
    from pqsoc.flow import fanout, synth
    from pqsoc.flow.pdk import find_pdk
    pdk = find_pdk()
    return fanout.CellLib(pdk.liberty("tt").read_text(), synth.dont_use_cells(pdk))
