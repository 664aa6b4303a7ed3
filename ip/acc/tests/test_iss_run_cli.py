# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""python -m ip.acc.tools.run: exit codes and output."""
import subprocess
import sys

from ip.acc.tests.iss_util import ISA
from ip.acc.tools.asm import assemble
from pqsoc import REPO


def _cli(tmp_path, src, *args):
    prog = tmp_path / "p.hex"
    prog.write_text("".join(f"{w:08x}\n" for w in assemble(src, "p.s", ISA)))
    return subprocess.run([sys.executable, "-m", "ip.acc.tools.run", str(prog), *args],
                          capture_output=True, text=True, cwd=REPO)


def test_run_ok_with_dmem_in_out(tmp_path):
    din, dout = tmp_path / "in.bin", tmp_path / "out.bin"
    din.write_bytes((5).to_bytes(4, "little"))
    r = _cli(tmp_path, "lw x1, 0(x0)\nadd x1, x1, x1\nsw x1, 4(x0)\necall\n",
             "--dmem-in", str(din), "--dmem-out", str(dout))
    assert r.returncode == 0, r.stderr
    assert "cycles: 5" in r.stdout and "instructions: 4" in r.stdout   # 1 load-use stall and "ecall" in r.stdout
    out = dout.read_bytes()
    assert len(out) == 32 * 1024 and out[4:8] == (10).to_bytes(4, "little")


def test_run_error_and_cycle_limit_exit_nonzero(tmp_path):
    r = _cli(tmp_path, "lw x1, 2(x0)\necall\n")
    assert r.returncode == 1 and "BAD_DATA_ADDR" in r.stdout + r.stderr
    r = _cli(tmp_path, "top:\njal x0, top\n", "--max-cycles", "50")
    assert r.returncode == 2 and "cycle_limit" in r.stderr
