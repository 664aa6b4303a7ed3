# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""How Caravel's management core boots our SoC: the Wishbone writes (management-core addresses,
soc/mgmt_port.py) that put a firmware image into the boot RAM, for a *_preloaded program the
ACC's program and DMEM image into the ACC (firmware/build.py PRELOADED), and then clear
boot_hold. One list, used by the wrapper simulation (sim/caravel.py) and written out as C for
the management firmware (bringup/mgmt.py, `pqsoc bringup --mgmt-image`)."""
import json
from pathlib import Path

from firmware.build import FirmwareError, PRELOADED, preloaded_op


def _words(data: bytes) -> list[int]:
    data = data + bytes(-len(data) % 4)
    return [int.from_bytes(data[i:i + 4], "little") for i in range(0, len(data), 4)]


def load_ops(image: bytes, program: str, soc_dir: Path) -> list[tuple[str, int, int]]:
    """[("W", management address, word), ...] that boot IMAGE (programs/PROGRAM.c built for the
    SoC in SOC_DIR, whose csr.json gives the map); boot_hold is cleared last."""
    from soc.mgmt_port import to_mgmt_address
    csr = json.loads((Path(soc_dir) / "csr.json").read_text())
    regs = csr["csr_registers"]
    if "boot_hold" not in regs:
        raise FirmwareError(f"{soc_dir}/csr.json has no boot_hold register: not a silicon SoC build")
    rom = csr["memories"]["rom"]
    if len(image) > rom["size"]:
        raise FirmwareError(f"{program}: the image is {len(image)} bytes, the boot RAM holds {rom['size']}")
    ops = [("W", to_mgmt_address(rom["base"] + 4 * i), w) for i, w in enumerate(_words(image))]
    if program in PRELOADED:
        c = csr["constants"]
        op = preloaded_op(c["acc_imem_size"], c["acc_dmem_size"], program)
        acc = csr["memories"]["acc"]["base"]
        ops += [("W", to_mgmt_address(acc + 0x1_0000 + 4 * i), w) for i, w in enumerate(op["words"])]
        # DMEM: every word of the image, zeros included: SRAM powers up with random contents
        # (the gate-level run, which starts the macro models random, failed with only the
        # non-zero words written)
        ops += [("W", to_mgmt_address(acc + 0x2_0000 + 4 * i), w) for i, w in enumerate(_words(op["dmem"]))]
    ops.append(("W", to_mgmt_address(regs["boot_hold"]["addr"]), 0))
    return ops
