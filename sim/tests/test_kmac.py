# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""The KMAC block inside the SoC, driven by firmware/lib/kmac.c: kmac_selftest (known answers
from hashlib / pycryptodome generated at firmware build time, error paths, timings) through
`pqsoc sim run`, and the build plumbing (its port of the PQC subsystem, register header, cache).
The subsystem's own Verilog and the ACC: test_acc.py."""
import json
import re
import shutil

import pytest

from firmware import build as fw
from pqsoc import BUILD
from ip.common.regtool import c_header, load
from sim.run import model_hash
from soc.extslave import WishboneSlave
from soc.target import EXT_BASE, PQSoC


def test_kmac_selftest_passes_in_pqsoc_sim_run(sim_run_json):
    res = sim_run_json("kmac_selftest", timeout_s=120)
    names = [t["test"] for t in res["tests"]]
    assert names == [t[0] for t in fw.KMAC_TESTS] + [
        "sha3_256_split_absorb", "sha3_256_hw_vs_sw", "shake128_squeeze_1024",
        "shake128_squeeze_pieces", "err_digest_before_finish", "err_unsupported_mode",
        "err_bad_arguments", "kmac_irq"]
    assert res["summary"]["failed"] == 0
    t = {x["test"]: x for x in res["tests"]}
    bench = t["sha3_256_hw_vs_sw"]
    assert bench["bytes"] == 1000 and bench["cycles"] * 100 < bench["sw_cycles"]
    assert t["shake128_squeeze_1024"]["bytes"] == 1024


def test_kmac_vectors_cover_every_mode_and_padding_edge():
    ops = {(op, bits) for _, op, bits, *_ in fw.KMAC_TESTS}
    assert ops >= {("sha3", 224), ("sha3", 256), ("sha3", 384), ("sha3", 512), ("shake", 128),
                   ("shake", 256), ("cshake", 128), ("cshake", 256), ("kmac", 128), ("kmac", 256)}
    sha3_256_lens = {len(m) for _, op, bits, m, *_ in fw.KMAC_TESTS if (op, bits) == ("sha3", 256)}
    assert {0, 135, 136, 137} <= sha3_256_lens and max(sha3_256_lens) > 2 * 136
    assert any(t[-1] for t in fw.KMAC_TESTS)                       # KMACXOF
    assert any(t[7] > 168 for t in fw.KMAC_TESTS if t[1] == "shake")   # multi-block output


def test_kmac_is_in_the_soc_build(soc_dir):
    mem = json.loads((soc_dir / "csr.json").read_text())["memories"]
    assert (mem["kmac"]["base"], mem["kmac"]["size"]) == (EXT_BASE, 0x1000)
    assert "KMAC_INTERRUPT" in (soc_dir / "software/include/generated/soc.h").read_text()
    files = json.loads((soc_dir / "gateware" / "files.json").read_text())
    assert str(soc_dir.resolve() / "rtl" / "pqc.v") in files["sources"]
    v = (soc_dir / "gateware" / "pqsoc.v").read_text()
    inst = re.search(r"^pqc pqc\((.*?)\);", v, re.M | re.S).group(1)
    # the KMAC is port kmac_bus of the PQC subsystem; its side-load port is driven by the ACC
    # inside the subsystem, so nothing of it appears at the SoC level
    for port in ("adr", "dat_w", "dat_r", "sel", "cyc", "stb", "we", "ack", "err"):
        assert re.search(rf"\.kmac_bus__{port}\s*\(", inst), port
    assert "sideload" not in inst
    # the instance drives a wire named after the irq (Migen may prefix it)
    assert re.search(r"\.kmac_irq\s*\((\w*kmac_irq)\)", inst)


def test_model_hash_follows_the_pqc_verilog(soc_dir, tmp_path):
    """A changed KMAC / ACC Verilog (rtl/pqc.v) must rebuild the cached Verilator model."""
    d = tmp_path / "soc"
    shutil.copytree(soc_dir / "gateware", d / "gateware")
    shutil.copy(soc_dir / "rtl" / "pqc.v", tmp_path / "pqc.v")
    files = json.loads((d / "gateware" / "files.json").read_text())
    files["sources"] = [str(tmp_path / "pqc.v") if s.endswith("rtl/pqc.v") else s
                        for s in files["sources"]]
    (d / "gateware" / "files.json").write_text(json.dumps(files))
    h0 = model_hash(d)
    assert model_hash(d) == h0   # stable while nothing changes
    with open(tmp_path / "pqc.v", "a") as f:
        f.write("// changed\n")
    assert model_hash(d) != h0


def test_kmac_register_header_is_generated_by_regtool(firmware):
    firmware("kmac_selftest")
    hdr = BUILD / "firmware" / "gen" / "kmac_regs.h"
    assert hdr.read_text() == c_header(load(fw.KMAC_REGS_YML))
    assert not list((fw.HERE).rglob("kmac_regs.h"))   # never committed under firmware/


def test_tie_off_value_must_fit():
    bad = WishboneSlave(name="kmac", module="kmac", sources=(), origin=EXT_BASE, size=0x1000,
                        tie_inputs=(("sideload__hold", 1, 2),))
    with pytest.raises(ValueError, match="does not fit"):
        PQSoC(ext_slaves=(bad,))


def test_kmac_selftest_refuses_a_soc_without_kmac(tmp_path):
    from soc.build import build
    build(tmp_path / "soc", pqc=False)
    with pytest.raises(fw.FirmwareError, match="needs a SoC with the KMAC block"):
        fw.build("kmac_selftest", tmp_path / "soc", tmp_path / "fw")
