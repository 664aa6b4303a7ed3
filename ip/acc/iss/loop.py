# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""Hardware loop stack: entries (start, end, remaining), isa.yml loop_depth of them."""
from dataclasses import dataclass

from ip.acc.iss.errors import AccError


@dataclass
class LoopEntry:
    start: int      # address of the first body instruction
    end: int        # address of the last body instruction
    remaining: int  # iterations still to run, including the current one


class LoopStack:
    def __init__(self, depth: int):
        self.depth = depth
        self.stack = []

    def reset(self):
        self.stack = []

    def push(self, start: int, end: int, count: int):
        if len(self.stack) >= self.depth:
            raise AccError("LOOP", f"loop stack overflow ({self.depth + 1}th nested loop)")
        if self.stack and end > self.stack[-1].end:
            raise AccError("LOOP", f"bad nesting: inner loop body ends at {end:#x}, after the "
                           f"enclosing body's end {self.stack[-1].end:#x}")
        self.stack.append(LoopEntry(start, end, count))

    def is_body_end(self, pc: int) -> bool:
        return bool(self.stack) and self.stack[-1].end == pc

    def next_pc(self, pc: int, default: int) -> int:
        """After the instruction at pc retires: loop back, or pop finished loops."""
        while self.stack and self.stack[-1].end == pc:
            top = self.stack[-1]
            if top.remaining > 1:
                top.remaining -= 1
                return top.start
            self.stack.pop()
        return default
