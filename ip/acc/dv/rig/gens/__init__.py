# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""Snippet generators: one module per kind of snippet a random ACC program is made of.

Each takes the program's State (ip/acc/dv/rig/state.py) and returns assembly lines (those
holding a nested block also return its dynamic instruction cost):

    straight_line   plain instructions with random operands, constants (li), CSR / WSR access
    mem             loads and stores into the data area
    hazard          a result-latency producer followed by a reader of its result
    branch          forward branch / jal / jalr over a sub-block
    loop            hardware loops, loop nests, loop-body ends
    kmac            KMAC side-load sessions (and their misuse)
    stream_unit     stream-unit sampling beside a KMAC session (and its misuse)
    errors          one construct per error class (the end of an error program)
"""
