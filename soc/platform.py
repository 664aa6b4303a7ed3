# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""A technology-neutral LiteX platform: the SoC's top-level ports, and a "build" that only writes
Verilog plus a file list (synthesis and simulation are separate flow steps that read them)."""
import json
import os

from litex.build.generic_platform import GenericPlatform, Pins, Subsignal

_IOS = [
    ("sys_clk", 0, Pins(1)),
    ("sys_rst", 0, Pins(1)),
    # Byte-stream UART for simulation (LiteX's RS232PHYModel): no baud-rate cycles to simulate.
    ("serial", 0,
        Subsignal("source_valid", Pins(1)), Subsignal("source_ready", Pins(1)),
        Subsignal("source_data", Pins(8)),
        Subsignal("sink_valid", Pins(1)), Subsignal("sink_ready", Pins(1)),
        Subsignal("sink_data", Pins(8))),
    # Real UART pins for silicon.
    ("uart", 0, Subsignal("tx", Pins(1)), Subsignal("rx", Pins(1))),
    # Bring-up UART: LiteX UART bridge (uartbone) giving a host read/write access to the bus.
    ("bringup", 0, Subsignal("tx", Pins(1)), Subsignal("rx", Pins(1))),
    ("gpio_out", 0, Pins(8)),
    ("gpio_in", 0, Pins(8)),
    ("simctrl", 0, Subsignal("valid", Pins(1)), Subsignal("code", Pins(32))),
    # Caravel (soc/caravel.py): the management core's clock, reset and Wishbone, the second
    # clock and its select, a reset from the logic analyzer, the interrupts to the management
    # core, debug probes.
    ("wb", 0, Subsignal("clk_i", Pins(1)), Subsignal("rst_i", Pins(1))),
    ("wbs", 0,
        Subsignal("cyc_i", Pins(1)), Subsignal("stb_i", Pins(1)), Subsignal("we_i", Pins(1)),
        Subsignal("sel_i", Pins(4)), Subsignal("adr_i", Pins(32)), Subsignal("dat_i", Pins(32)),
        Subsignal("ack_o", Pins(1)), Subsignal("dat_o", Pins(32))),
    ("user_clock2", 0, Pins(1)),
    ("clk_sel", 0, Pins(1)),
    ("user_rst", 0, Pins(1)),
    ("user_irq", 0, Pins(3)),
    ("probe", 0, Pins(7)),     # soc/target.py PROBES
]


class Platform(GenericPlatform):
    def __init__(self):
        super().__init__("generic", _IOS, name="pqsoc")

    def build(self, fragment, build_dir, build_name, **kwargs):
        os.makedirs(build_dir, exist_ok=True)
        top = os.path.join(build_dir, f"{build_name}.v")
        cwd = os.getcwd()
        os.chdir(build_dir)   # migen writes memory .init files next to the current directory
        try:
            v = self.get_verilog(fragment, name=build_name)
            v.write(top)
        finally:
            os.chdir(cwd)
        files = {
            "top": build_name,
            "verilog": [os.path.basename(top)],   # relative to this file's folder
            "sources": [os.path.abspath(f) for f, *_ in self.sources],
            "include_paths": [os.path.abspath(p) for p in self.verilog_include_paths],
        }
        with open(os.path.join(build_dir, "files.json"), "w") as f:
            json.dump(files, f, indent=1)
        return v.ns
