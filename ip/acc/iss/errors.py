# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""Error conditions. The bit of each error comes from isa.yml (errors:)."""


class AccError(Exception):
    """An isa.yml error (name from errors:); halts the program with that error bit."""

    def __init__(self, name: str, msg: str):
        super().__init__(f"{name}: {msg}")
        self.name = name
        self.msg = msg


class Unmodelled(Exception):
    """An instruction the ISS does not model yet (KMAC, stream unit): a defined halt."""
