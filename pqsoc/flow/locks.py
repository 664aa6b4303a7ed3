# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""One builder at a time per output: processes that build or run into the same folder (pytest-xdist
workers, a campaign's tasks) take its lock (an flock on `<folder>.lock` beside it) and wait for
one another; the second then finds the first one's output and reuses it. Reentrant within a
process (a builder that calls another on the same folder does not wait for itself)."""
import contextlib
import fcntl
import os
import threading
from pathlib import Path

_held: dict[str, int] = {}
_guard = threading.Lock()


@contextlib.contextmanager
def exclusive(path):
    """Hold the lock of `path` (a folder or file, existing or not) while the block runs."""
    key = os.path.abspath(path)
    with _guard:
        if key in _held:
            _held[key] += 1
            nested = True
        else:
            nested = False
    if nested:
        try:
            yield
        finally:
            with _guard:
                _held[key] -= 1
        return
    lock = Path(key + ".lock")
    lock.parent.mkdir(parents=True, exist_ok=True)
    with open(lock, "a") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        with _guard:
            _held[key] = 1
        try:
            yield
        finally:
            with _guard:
                del _held[key]
            fcntl.flock(f, fcntl.LOCK_UN)
