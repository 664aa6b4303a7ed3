# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""Host side of the LiteX UART bridge ("uartbone") on the chip's bring-up UART.

Wire format: soc/bridge.py. Writes are not acknowledged. The bridge drops bytes that arrive while it sends a reply, so a
read's reply is always awaited before the next command.
"""
import struct
import time

from soc.bridge import CMD_READ, CMD_WRITE, MAX_BURST, frame  # noqa: F401 (the host's API)


class BridgeError(Exception):
    """The bridge could not be opened, or the chip did not answer (the message names the
    address)."""


class UartBone:
    """Reads and writes 32-bit words on the chip's bus. `port`: anything
    serial.serial_for_url opens (/dev/ttyUSB0, socket://127.0.0.1:PORT, loop://).
    `timeout`: seconds without a byte of an awaited reply before BridgeError."""

    def __init__(self, port: str, baudrate: int, timeout: float = 2.0):
        import serial
        self.port, self.timeout = port, timeout
        self.tx_bytes = self.rx_bytes = 0    # bytes on the wire, for the timing figures
        try:
            self.ser = serial.serial_for_url(port, baudrate=baudrate, timeout=timeout)
        except (serial.SerialException, OSError, ValueError) as e:
            raise BridgeError(f"cannot open {port}: {e}") from None

    def close(self) -> None:
        self.ser.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def _send(self, data: bytes, what: str) -> None:
        import serial
        try:
            self.ser.write(data)
            self.ser.flush()
        except (serial.SerialException, OSError) as e:
            raise BridgeError(f"{what}: cannot send on {self.port}: {e}") from None
        self.tx_bytes += len(data)

    def _receive(self, n: int, what: str) -> bytes:
        """n bytes; BridgeError once `timeout` seconds pass without one (a long burst may take
        longer in all, as long as bytes keep coming)."""
        import serial
        got = bytearray()
        while len(got) < n:
            t0 = time.monotonic()
            try:
                chunk = self.ser.read(n - len(got))
            except (serial.SerialException, OSError) as e:
                raise BridgeError(f"{what}: {self.port} failed: {e}") from None
            if not chunk:
                raise BridgeError(
                    f"{what}: no reply from the chip on {self.port} for "
                    f"{time.monotonic() - t0:.1f} s ({len(got)} of {n} bytes received)")
            got += chunk
        self.rx_bytes += n
        return bytes(got)

    def read(self, addr: int, count: int = 1) -> list[int]:
        """`count` words from `addr` up (split into bursts of at most 255)."""
        out = []
        while count > 0:
            n = min(count, MAX_BURST)
            what = f"read of {n} word(s) at {addr:#010x}"
            self.ser.reset_input_buffer()    # a late byte of an earlier failed read is no reply
            self._send(frame(CMD_READ, addr, n), what)
            out += struct.unpack(f">{n}I", self._receive(4 * n, what))
            addr, count = addr + 4 * n, count - n
        return out

    def write(self, addr: int, words) -> None:
        words = list(words)
        for i in range(0, len(words), MAX_BURST):
            chunk = words[i:i + MAX_BURST]
            a = addr + 4 * i
            self._send(frame(CMD_WRITE, a, len(chunk), chunk), f"write at {a:#010x}")

    def read1(self, addr: int) -> int:
        return self.read(addr, 1)[0]
