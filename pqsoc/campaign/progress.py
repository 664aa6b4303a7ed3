# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""A campaign's progress: a bar redrawn in place on a terminal, plain lines otherwise (a log, CI):
tasks done of all, failed (failed or error), rate and time left."""
import sys
import time

LINE_EVERY_S = 30.0      # plain lines: at most this far apart, and at every tenth of the tasks


class Progress:
    def __init__(self, total: int, label: str, done: int = 0, failed: int = 0, stream=None):
        self.total, self.label, self.done, self.failed = total, label, done, failed
        self.first = done                        # done before this run (a resumed campaign)
        self.stream = stream or sys.stderr
        self.tty = hasattr(self.stream, "isatty") and self.stream.isatty()
        self.t0 = self.last = time.monotonic()
        self.next_tenth = done + max(1, total // 10)
        self._draw(force=True)

    def text(self) -> str:
        secs = time.monotonic() - self.t0
        ran = self.done - self.first
        rate = ran / secs if secs > 0 else 0.0
        left = (self.total - self.done) / rate if rate > 0 else None
        eta = "?" if left is None else f"{left:.0f} s"
        return (f"[{self.label}] {self.done}/{self.total} done, {self.failed} failed, "
                f"{rate:.2f} tasks/s, ETA {eta}")

    def _draw(self, force: bool = False) -> None:
        if self.tty:
            width = 24
            fill = int(width * self.done / self.total) if self.total else width
            self.stream.write(f"\r{'#' * fill}{'.' * (width - fill)} {self.text()}\x1b[K")
            self.stream.flush()
            return
        now = time.monotonic()
        if force or self.done >= self.next_tenth or now - self.last >= LINE_EVERY_S or self.done == self.total:
            print(self.text(), file=self.stream, flush=True)
            self.last = now
            while self.next_tenth <= self.done:
                self.next_tenth += max(1, self.total // 10)

    def step(self, failed: bool) -> None:
        self.done += 1
        self.failed += bool(failed)
        self._draw()

    def close(self) -> None:
        if self.tty:
            self.stream.write("\n")
            self.stream.flush()
