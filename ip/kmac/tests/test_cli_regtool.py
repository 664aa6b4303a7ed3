# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""`pqsoc kmac` as a subprocess against hashlib / pycryptodome; `pqsoc regtool` outputs."""
import subprocess
import sys
from pathlib import Path

import pytest

from ip.kmac.tests.refs import reference, split_mode

KEY = bytes(range(0x40, 0x60))


def pqsoc(*args):
    return subprocess.run([sys.executable, "-m", "pqsoc.cli", *args], capture_output=True,
                          text=True, cwd=Path(__file__).resolve().parents[3], timeout=120)


@pytest.mark.parametrize("mode,opts,outlen,extra", [
    ("sha3-256", [], 32, {}),
    ("shake256", ["--outlen", "200"], 200, {}),
    ("cshake128", ["--outlen", "40", "--name", "N", "--custom", "S"], 40,
     {"name": b"N", "custom": b"S"}),
    ("kmac128", ["--outlen", "32", "--key", KEY.hex(), "--custom", "My Tagged Application"], 32,
     {"key": KEY, "custom": b"My Tagged Application"}),
    ("kmac256", ["--outlen", "70", "--key", KEY.hex(), "--xof"], 70, {"key": KEY, "xof": True}),
])
def test_pqsoc_kmac(mode, opts, outlen, extra):
    msg = bytes(range(200))
    r = pqsoc("kmac", mode, "--msg", msg.hex(), *opts, "--engine", "rtl")
    assert r.returncode == 0, r.stderr
    family, strength = split_mode(mode)
    if extra.pop("xof", False):
        family = "kmacxof"
    assert r.stdout.strip() == reference(family, strength, msg, outlen, **extra).hex()


def test_pqsoc_kmac_model_engine():
    msg = bytes(range(150))
    r = pqsoc("kmac", "shake128", "--msg", msg.hex(), "--outlen", "200", "--engine", "model")
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == reference("shake", 128, msg, 200).hex()


@pytest.mark.parametrize("args,needle", [
    (["sha3-256", "--msg", "0g"], "--msg"),
    (["shake128", "--msg", "00"], "--outlen"),
    (["kmac128", "--msg", "00", "--outlen", "32"], "--key"),
    (["sha3-512", "--msg", "00", "--custom", "x"], "--custom"),
    (["shake256", "--msg", "00", "--outlen", "8", "--key", "00"], "--key"),
    (["sha3-224", "--msg", "00", "--outlen", "8"], "--outlen"),
])
def test_pqsoc_kmac_errors(args, needle):
    r = pqsoc("kmac", *args)
    assert r.returncode != 0 and needle in r.stderr, r.stderr


def test_regtool(tmp_path):
    yml = Path(__file__).resolve().parents[1] / "data" / "kmac_regs.yml"
    r = pqsoc("regtool", str(yml), "--c", str(tmp_path / "kmac_regs.h"), "--md", str(tmp_path / "r.md"))
    assert r.returncode == 0, r.stderr
    h = (tmp_path / "kmac_regs.h").read_text()
    assert "#define KMAC_CMD_OP_VALUE_START 1u" in h
    assert "#define KMAC_DIGEST7_REG_OFFSET 0x05cu" in h
    assert "#define KMAC_ERR_CODE_OWNER_MASK 0x00000040u" in h
    md = (tmp_path / "r.md").read_text()
    assert "## MSG_LEN" in md and "| 0x020 |" in md
    bad = tmp_path / "bad.yml"
    bad.write_text("name: x\nregisters:\n - {name: A, offset: 2, fields: []}\n")
    r = pqsoc("regtool", str(bad))
    assert r.returncode != 0 and "unaligned" in r.stderr


def test_model_constants_match_register_map():
    """The error bits in the engine/model and the register map are one set of numbers."""
    from ip.kmac.model import transaction as model
    from ip.kmac.rtl.kmac import REGS_YML
    from ip.common.regtool import load
    rm = load(REGS_YML)
    for f in rm.reg("ERR_CODE").fields:
        assert getattr(model, f"ERR_{f.name}") == f.mask
    assert rm.field("STATUS", "PHASE").values == {"IDLE": model.IDLE, "ABSORB": model.ABSORB,
                                                 "SQUEEZE": model.SQUEEZE}


def test_registers_md_up_to_date():
    """ip/kmac/doc/registers.md is regtool's output for the YAML (regenerate when it fails)."""
    from ip.kmac.rtl.kmac import REGS_YML
    from ip.common.regtool import load, markdown
    root = Path(__file__).resolve().parents[3]
    rm = load(REGS_YML.relative_to(root)) if REGS_YML.is_absolute() else load(REGS_YML)
    doc = (root / "ip" / "kmac" / "doc" / "registers.md").read_text()
    assert doc == markdown(rm).replace(str(REGS_YML), "ip/kmac/data/kmac_regs.yml"), \
        "run: pqsoc regtool ip/kmac/data/kmac_regs.yml --md ip/kmac/doc/registers.md"


def test_c_header_compiles(tmp_path):
    import shutil
    cc = shutil.which("gcc") or shutil.which("cc")
    if cc is None:
        pytest.skip("no C compiler")
    from ip.kmac.rtl.kmac import REGS_YML
    from ip.common.regtool import c_header, load
    (tmp_path / "kmac_regs.h").write_text(c_header(load(REGS_YML)))
    (tmp_path / "t.c").write_text('#include "kmac_regs.h"\n'
                                  "_Static_assert(KMAC_MSG_REG_OFFSET == 0x20, \"msg\");\n"
                                  "_Static_assert(KMAC_CFG_STRENGTH_MASK == 0x70, \"cfg\");\n")
    r = subprocess.run([cc, "-std=c11", "-Wall", "-Werror", "-fsyntax-only", "-I", str(tmp_path),
                        str(tmp_path / "t.c")], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
