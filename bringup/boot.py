"""Booting the silicon SoC over the bridge: its boot memory ("rom" region, at the CPU's reset
address) is a RAM that holds nothing at power-up, and the CPU waits in reset while the
`boot_hold` CSR is 1 (soc/target.py BootHold). `boot` writes a firmware image (a .bin from
`pqsoc soc firmware` built against the silicon SoC's headers) there, reads it back, and only
then releases the CPU. A simulation SoC (its ROM is a real ROM) has no boot_hold: refused."""
from .checks import _compare, _words_le

CHUNK_WORDS = 255   # one bridge burst


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
    hold = soc.csr("boot_hold")
    bus.write(hold, [1])                      # keep (or put) the CPU in reset while loading
    words = _words_le(image)
    for i in range(0, len(words), CHUNK_WORDS):
        bus.write(base + 4 * i, words[i:i + CHUNK_WORDS])
    got = []
    for i in range(0, len(words), CHUNK_WORDS):
        got += bus.read(base + 4 * i, min(CHUNK_WORDS, len(words) - i))
    if not _compare(problems, base, words, got, "boot memory"):
        return {"pass": False, "bytes": len(image), "problems": problems + [
            "the CPU stays in reset (boot_hold = 1)"]}
    bus.write(hold, [0])
    if bus.read1(hold) & 1:
        problems.append(f"boot_hold at {hold:#010x} still reads 1 after writing 0")
    return {"pass": not problems, "bytes": len(image), "problems": problems}
