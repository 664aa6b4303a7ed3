# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""The Caravel wrapper (soc/caravel.py): ports exactly Caravel's, the pin plan consistent with the
generated GPIO defaults, the SoC top's Caravel ports."""
import re

import pytest

from pqsoc import BUILD, FlowError
from soc import caravel


@pytest.fixture(scope="module")
def emitted(caravel_root):
    return caravel.emit(BUILD / "rtl" / "caravel")


def test_wrapper_ports_are_caravels(emitted, caravel_root):
    ours = caravel.wrapper_ports(emitted["wrapper"].read_text())
    theirs = caravel.wrapper_ports((caravel_root / "verilog/rtl/user_project_wrapper.v").read_text())
    assert ours == theirs
    assert ("inout", "", "vccd1", True) in ours and ("output", "[2:0]", "user_irq", False) in ours


def test_a_port_list_that_differs_is_seen():
    text = caravel.wrapper_verilog({"bringup_rx", "bringup_tx", "uart_rx", "uart_tx", "gpio_in", "gpio_out"})
    ports = caravel.wrapper_ports(text.replace("output [2:0] user_irq", "output [1:0] user_irq"))
    assert ("output", "[1:0]", "user_irq", False) in ports
    with pytest.raises(FlowError, match="lacks"):
        caravel.wrapper_verilog({"bringup_rx"})


def test_pins_outputs_drive_and_inputs_float_nothing(emitted):
    text = emitted["wrapper"].read_text()
    oeb = re.search(r"assign io_oeb = \{(.*?)\};", text).group(1).split(", ")[::-1]
    assert len(oeb) == caravel.MPRJ_IO_PADS
    for p in caravel.PINS:
        if p.port:
            assert oeb[p.io] == ("1'b0" if p.output else "1'b1"), p
            assert ("OUTPUT" in p.mode) == p.output, p
    assert sorted(p.io for p in caravel.PINS) == list(range(caravel.FIRST_USER_CONFIGURABLE, caravel.MPRJ_IO_PADS))


def test_user_defines_set_every_gpio_with_caravels_values(emitted, caravel_root):
    text = emitted["user_defines"].read_text()
    modes = caravel.gpio_modes(caravel_root)
    for i in range(caravel.FIRST_USER_CONFIGURABLE, caravel.MPRJ_IO_PADS):
        m = re.search(rf"`define USER_CONFIG_GPIO_{i}_INIT `(\w+)", text)
        assert m and m.group(1) in modes and m.group(1) != "GPIO_MODE_INVALID", i
    assert modes["GPIO_MODE_USER_STD_OUTPUT"] in text


def test_soc_top_has_the_caravel_ports(emitted):
    top = (emitted["soc_dir"] / "gateware" / "pqsoc.v").read_text()
    ports = caravel.soc_top_ports(top)
    assert {"wb_clk_i", "wb_rst_i", "user_clock2", "clk_sel", "user_rst", "wbs_adr_i", "wbs_ack_o",
            "user_irq", "probe"} <= ports
    assert "sys_clk" not in ports                     # clocks come from Caravel only
    assert re.search(rf"output\s+wire\s+\[{len(caravel.LA_PROBES) - 1}:0\]\s+probe", top)
