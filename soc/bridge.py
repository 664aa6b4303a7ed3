# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""The wire format of the SoC's UART bridge (LiteX's uartbone, soc/target.py), written once for
the host (bringup/uartbone.py) and for the simulation harness's boot script (sim/silicon.py).

Facts from LiteX's Stream2Wishbone (litex/soc/cores/uart.py): a command is
  cmd (1 byte: 0x01 write burst, address incrementing; 0x02 read burst, incrementing),
  word count (1 byte, 1..255), word address = byte address // 4 (4 bytes big-endian),
then for a write the data words (big-endian); a read answers with the words (big-endian).
"""
import struct

CMD_WRITE, CMD_READ = 0x01, 0x02
MAX_BURST = 255          # the word count is one byte


def frame(cmd: int, addr: int, count: int, words=()) -> bytes:
    """One bridge command as bytes on the wire."""
    if addr % 4 or not 0 <= addr < 1 << 32:
        raise ValueError(f"address {addr:#x} is not a 32-bit word address")
    if not 1 <= count <= MAX_BURST:
        raise ValueError(f"burst of {count} words (1..{MAX_BURST})")
    return bytes([cmd, count]) + struct.pack(">I", addr // 4) + b"".join(
        struct.pack(">I", w & 0xFFFFFFFF) for w in words)
