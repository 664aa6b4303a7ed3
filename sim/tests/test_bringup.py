"""The bring-up path: a host reads and writes the SoC bus over the UART bridge (LiteX uartbone;
command bytes as in litex/tools/remote/comm_uart.py: cmd, word count, word address big-endian,
data big-endian)."""
import json
import struct

CMD_WRITE, CMD_READ = 0x01, 0x02


def _cmd(cmd, addr, words=(), count=None):
    n = len(words) if count is None else count
    return bytes([cmd, n]) + struct.pack(">I", addr // 4) + b"".join(struct.pack(">I", w) for w in words)


def test_host_reads_rom_and_writes_csr_over_bridge(soc_dir, model, firmware, tmp_path):
    from sim.run import run
    image = firmware("bridge_wait")
    regs = json.loads((soc_dir / "csr.json").read_text())["csr_registers"]
    scratch = regs["ctrl_scratch"]["addr"]
    host = [(_cmd(CMD_READ, 0x0, count=2), 8), (_cmd(CMD_WRITE, scratch, [0xB0B0CAFE]), 0)]
    res = run(image, soc_dir, model.parent, tmp_path, 3_000_000, 120, bridge=host)
    assert res.ok, res.problems
    rom = image.read_bytes()[:8]
    assert res.bridge_out == struct.pack(">II", *struct.unpack("<II", rom))
