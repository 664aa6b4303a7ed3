# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""pqsoc/flow/locks.py: one builder at a time per output folder across processes (pytest-xdist
workers, campaign tasks), reentrant within a process."""
import subprocess
import sys
import time

from pqsoc.flow import locks

HOLD = """
import sys, time
from pqsoc.flow import locks
with locks.exclusive(sys.argv[1]):
    open(sys.argv[2], "a").write("in\\n")
    time.sleep(float(sys.argv[3]))
    open(sys.argv[2], "a").write("out\\n")
"""


def test_a_second_process_waits_for_the_first(tmp_path):
    folder, log = tmp_path / "model", tmp_path / "log"
    first = subprocess.Popen([sys.executable, "-c", HOLD, str(folder), str(log), "1.5"])
    t0 = time.monotonic()
    while not log.is_file():
        assert time.monotonic() - t0 < 30
        time.sleep(0.05)
    second = subprocess.Popen([sys.executable, "-c", HOLD, str(folder), str(log), "0"])
    assert first.wait(30) == 0 and second.wait(30) == 0
    assert log.read_text() == "in\nout\nin\nout\n"          # never interleaved
    assert (tmp_path / "model.lock").is_file()


def test_the_lock_is_reentrant_in_one_process(tmp_path):
    with locks.exclusive(tmp_path / "x"):
        with locks.exclusive(tmp_path / "x"):      # a builder calling another on the same folder
            pass
        with locks.exclusive(tmp_path / "y"):
            pass
    with locks.exclusive(tmp_path / "x"):          # released: taken again at once
        pass
