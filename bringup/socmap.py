# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""The chip's address map as the LiteX build exported it (build/soc/csr.json): CSR registers,
CSR banks, memory regions and constants. Every address the checks use comes from here or from
the blocks' register descriptions (ip/*/data/*_regs.yml), never from a copied number."""
import json
from pathlib import Path


class MapError(Exception):
    """csr.json is missing, unreadable, or lacks what a check needs."""


class SocMap:
    def __init__(self, data: dict, source: str = "csr.json"):
        self.data, self.source = data, source

    @classmethod
    def load(cls, path) -> "SocMap":
        path = Path(path)
        try:
            return cls(json.loads(path.read_text()), str(path))
        except (OSError, ValueError) as e:
            raise MapError(f"cannot read {path}: {e} (run `pqsoc soc build`, or give --csr)") from None

    def _get(self, section: str, name: str):
        try:
            return self.data[section][name]
        except KeyError:
            raise MapError(f"{self.source} has no {section} entry {name!r}") from None

    def csr(self, name: str) -> int:
        """Byte address of a CSR register (e.g. ctrl_scratch)."""
        return self._get("csr_registers", name)["addr"]

    def csr_words(self, name: str) -> int:
        return self._get("csr_registers", name)["size"]

    def csr_base(self, name: str) -> int:
        return self._get("csr_bases", name)

    def region(self, name: str) -> tuple[int, int]:
        """(base, size) of a memory region (rom, sram, kmac, acc, ...)."""
        r = self._get("memories", name)
        return r["base"], r["size"]

    def has_region(self, name: str) -> bool:
        return name in self.data.get("memories", {})

    def constant(self, name: str):
        return self._get("constants", name)

    @property
    def clock_hz(self) -> int:
        return self.constant("config_clock_frequency")

    @property
    def baudrate(self) -> int:
        return self.constant("bringup_uart_baudrate")
