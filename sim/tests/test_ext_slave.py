# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""The hook for our own Wishbone blocks, end to end: a Verilog slave added with
soc.extslave.add_wishbone_slave is reached by firmware (reads, byte-select writes, err) and
its interrupt line reaches the CPU."""
from pathlib import Path

from firmware import build as fw
from pqsoc import BUILD
from sim.run import build_model, run
from soc.extslave import WishboneSlave
from soc.build import build
from soc.target import EXT_BASE

DATA = Path(__file__).parent / "data"


def test_external_wishbone_slave(tmp_path):
    soc_dir = BUILD / "sim-tests" / "soc-ext"
    slave = WishboneSlave(name="scratch", module="wb_scratch", sources=(DATA / "wb_scratch.v",),
                          origin=EXT_BASE, size=0x1000)
    build(soc_dir, ext_slaves=(slave,), pqc=False)   # the scratch slave takes slot 0
    model = build_model(soc_dir, BUILD / "sim-tests" / "model-ext")
    image = fw.build("ext_scratch", soc_dir, BUILD / "sim-tests" / "firmware-ext", DATA)
    res = run(image, soc_dir, model.parent, tmp_path, 2_000_000, 120)
    assert res.ok, res.problems + [res.uart]
    assert [t["test"] for t in res.tests] == ["ext_id", "ext_byte_selects", "ext_irq", "ext_err"]
