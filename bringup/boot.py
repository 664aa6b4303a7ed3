# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""Booting the silicon SoC over the bridge: its boot memory ("rom" region, at the CPU's reset
address) is a RAM that holds nothing at power-up, and the CPU fetches nothing while the
`boot_hold` CSR is 1 (soc/target.py BootHold; power-up value 1). `boot` holds the CPU and puts
it in reset (LiteX ctrl_reset cpu_rst, so that a chip already running firmware restarts
cleanly), writes a firmware image (a .bin from `pqsoc soc firmware` built against the silicon
SoC's headers) there, reads it back, and only then releases the reset and the hold: the CPU
starts at its reset address. A simulation SoC (its ROM is a real ROM) has no boot_hold: refused."""
from bringup.checks import _compare, _words_le

CHUNK_WORDS = 255   # one bridge burst
CPU_RST = 1 << 1    # LiteX SoCController ctrl_reset: bit 0 soc_rst (pulse), bit 1 cpu_rst (level)


def boot(bus, soc, image: bytes) -> dict:
    problems = []
    if "boot_hold" not in soc.data.get("csr_registers", {}):
        return {"pass": False, "problems": [
            f"{soc.source} has no boot_hold CSR: this SoC boots from its ROM, not from the host "
            f"(the silicon SoC's csr.json is build/rtl/soc/csr.json)"]}
    base, size = soc.region("rom")
    if not image:
        return {"pass": False, "problems": ["the boot image is empty"]}
    if len(image) > size:
        return {"pass": False, "problems": [
            f"the boot image is {len(image)} bytes, the boot memory at {base:#010x} holds {size}"]}
    hold, ctrl_reset = soc.csr("boot_hold"), soc.csr("ctrl_reset")
    bus.write(hold, [1])                      # no fetch while loading
    bus.write(ctrl_reset, [CPU_RST])          # a running CPU stops and restarts at its reset address
    words = _words_le(image)
    for i in range(0, len(words), CHUNK_WORDS):
        bus.write(base + 4 * i, words[i:i + CHUNK_WORDS])
    got = []
    for i in range(0, len(words), CHUNK_WORDS):
        got += bus.read(base + 4 * i, min(CHUNK_WORDS, len(words) - i))
    if not _compare(problems, base, words, got, "boot memory"):
        return {"pass": False, "bytes": len(image), "problems": problems + [
            "the CPU stays held (boot_hold = 1) and in reset"]}
    bus.write(ctrl_reset, [0])
    bus.write(hold, [0])
    if bus.read1(hold) & 1:
        problems.append(f"boot_hold at {hold:#010x} still reads 1 after writing 0")
    return {"pass": not problems, "bytes": len(image), "problems": problems}
