# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""The licence (LICENSE, Apache-2.0) and the SPDX headers (pqsoc/spdx.py, tools/spdx.py): the
header goes after a shebang and a coding line, in each file's comment syntax, once; the check
names each file without it."""
import subprocess
import sys
import tomllib

from pqsoc import REPO, spdx


def git(repo, *args):
    subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True)


def test_license_is_apache_2_at_the_root():
    text = (REPO / "LICENSE").read_text()
    assert "Apache License" in text and "Version 2.0, January 2004" in text
    assert "END OF TERMS AND CONDITIONS" in text
    assert tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["license"] == spdx.LICENSE_ID


def test_header_after_shebang_and_coding_line():
    text = "#!/usr/bin/env python3\n# -*- coding: utf-8 -*-\n\"\"\"doc\"\"\"\n"
    out = spdx.add_header(text, spdx.HASH)
    assert out.splitlines()[:4] == ["#!/usr/bin/env python3", "# -*- coding: utf-8 -*-",
                                   f"# SPDX-FileCopyrightText: {spdx.COPYRIGHT}",
                                   "# SPDX-License-Identifier: Apache-2.0"]
    assert out.endswith('"""doc"""\n')
    assert spdx.add_header(out, spdx.HASH) == out          # once
    assert spdx.has_header(out, spdx.HASH)


def test_header_in_each_syntax():
    assert spdx.add_header("int x;\n", spdx.BLOCK) == (
        f"/* SPDX-FileCopyrightText: {spdx.COPYRIGHT} */\n/* SPDX-License-Identifier: Apache-2.0 */\nint x;\n")
    assert spdx.header(".v") == f"// SPDX-FileCopyrightText: {spdx.COPYRIGHT}\n// SPDX-License-Identifier: Apache-2.0\n"
    assert spdx.header("Makefile").startswith("# SPDX-FileCopyrightText: ")
    assert spdx.add_header("", spdx.HASH) == spdx.header(".py")
    # an identifier somewhere below the head is not the header
    assert not spdx.has_header("x = 1\n# SPDX-License-Identifier: Apache-2.0\n", spdx.HASH)


def test_check_names_each_offender_and_fix_repairs(tmp_path):
    (tmp_path / "a.py").write_text("#!/usr/bin/env python3\nprint(1)\n")
    (tmp_path / "b.c").write_text(spdx.header(".c") + "int b;\n")
    (tmp_path / "c.json").write_text("{}\n")                 # data: no header
    (tmp_path / "d.weird").write_text("?\n")                 # no rule: named as such
    (tmp_path / "third_party").mkdir()
    (tmp_path / "third_party" / "x.py").write_text("x = 1\n")
    git(tmp_path, "init", "-q")
    found = dict(spdx.offenders(tmp_path))
    assert set(found) == {"a.py", "d.weird"}
    assert "no comment syntax known" in found["d.weird"]
    assert spdx.fix(tmp_path) == ["a.py"]
    assert (tmp_path / "a.py").read_text().startswith("#!/usr/bin/env python3\n# SPDX-FileCopyrightText: ")
    assert [p for p, _ in spdx.offenders(tmp_path)] == ["d.weird"]
    r = subprocess.run([sys.executable, str(REPO / "tools" / "spdx.py"), "--check", "--repo", str(tmp_path)],
                       capture_output=True, text=True)
    assert r.returncode == 1 and "d.weird: no comment syntax known" in r.stderr


def test_every_source_file_has_the_header():
    """Each file the project wrote carries `SPDX-License-Identifier: Apache-2.0` at its head
    (fix: `python tools/spdx.py --fix`)."""
    bad = spdx.offenders(REPO)
    assert not bad, "source files without the SPDX header:\n" + "\n".join(f"  {p}: {why}" for p, why in bad)


def test_generated_submission_verilog_has_the_header(caravel_root):
    """The wrapper's Verilog and user_defines.v go into the submission's verilog/rtl, which the
    precheck's SPDX check reads: their generator writes the header."""
    from soc import caravel
    text = caravel.wrapper_verilog({"bringup_rx", "bringup_tx", "uart_rx", "uart_tx", "gpio_in", "gpio_out"})
    assert spdx.has_header(text, spdx.SLASH)
    assert spdx.has_header(caravel.user_defines(caravel_root), spdx.SLASH)
