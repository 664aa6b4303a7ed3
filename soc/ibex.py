# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""Our Ibex CPU for LiteX: the upstream wrapper fixed for the current Ibex RTL.

Checked against litex 2024.12 (litex/soc/cores/cpu/ibex/core.py) and
pythondata-cpu-ibex 0.0.post2937. Upstream's wrapper does not build with that Ibex:
  * its source list lacks packages ibex_top now imports (prim_secded_pkg, prim_mubi_pkg, ...);
  * `alert_major_o` was split into `alert_major_internal_o` / `alert_major_bus_o`;
  * `fetch_enable_i` became a 4-bit multi-bit value. Upstream's 1 works only because a
    non-secure Ibex looks at bit 0 alone; we drive IbexMuBiOn, which SecureIbex requires.
We also report bus errors to the core (upstream ties `*_err_i` to 0) so a load, store or fetch
from an unmapped address traps with an access fault instead of hanging or reading garbage.

LiteX finds CPUs by name in `litex.soc.cores.cpu.CPUS` (filled by scanning its own cpu/ folder);
`register()` adds this class there under the name "pqibex". That table is LiteX's extension point.
"""
import os

from migen import Constant, Mux, Signal, ClockSignal, ResetSignal, Instance, If, FSM, NextState, NextValue, Record

from litex.gen import LiteXModule
from litex import get_data_mod
from litex.soc.interconnect import wishbone
from litex.soc.interconnect.wishbone import CTI_BURST_END as CTI_END
from litex.soc.interconnect.wishbone import CTI_BURST_INCREMENTING as CTI_INCR
from litex.soc.cores.cpu import CPU, CPU_GCC_TRIPLE_RISCV32

NAME = "pqibex"

# OBI (Ibex's memory interface) signals, as seen from the core.
OBI_LAYOUT = [
    ("req", 1), ("gnt", 1), ("addr", 32), ("we", 1), ("be", 4), ("wdata", 32),
    ("rvalid", 1), ("rdata", 32), ("err", 1),
]

# ibex_pkg::IbexMuBiOn / IbexMuBiOff (ibex_mubi_t). SecureIbex fetches only on exactly the On
# pattern; plain Ibex reads bit 0.
IBEX_MUBI_ON = 0b0101
IBEX_MUBI_OFF = 0b1010
# Enum parameters are passed by name: Verilator rejects a plain integer for an SV enum.
# The slow multiplier: shift-add on the divider's datapath, a multiply in up to 33 cycles (it ends
# early once op_b is shifted out: only firmware that multiplies no secret, sim/tests/test_firmware_mul.py).
# The fast one's 17 x 17 array cost 15 000 um2 (`pqsoc synth soc`, 6 Dec) in a CPU that leaves
# the arithmetic to the ACC; that area holds the entropy source (soc/doc/caravel.md).
RV32M = Instance.PreformattedParam("ibex_pkg::RV32MSlow")
RV32B = Instance.PreformattedParam("ibex_pkg::RV32BNone")    # no bit-manipulation extension
REGFILE = Instance.PreformattedParam("ibex_pkg::RegFileFF")  # flip-flops (latches: later, for ASIC)


class OBI2Wishbone(LiteXModule):
    """One outstanding OBI request at a time, turned into one Wishbone cycle.

    The request is registered (grant in IDLE, Wishbone cycle in WAIT). The cycle ends on ack,
    on err, or after `timeout` cycles with no answer (an unmapped address: the LiteX decoder
    selects no slave, so nobody would ever ack); the last two return an OBI error to the core.
    A request waiting when the cycle ends is granted in that cycle and its Wishbone cycle
    follows at once (cyc stays high): the core fetches its code over the bus with no cache, and
    an idle cycle between accesses cost a third of every fetch. The shared bus's arbiter keeps a
    master while its cyc is high; Ibex's prefetch stops requesting when its buffer is full, so
    the bus is released to the data port within a few fetches.

    With `bursting` (the instruction port), a read whose successor is already requested when
    its Wishbone cycle starts (the next word, same 4 KiB page, so the same slave) is one of an
    incrementing burst (cti CTI_INCR, else CTI_END): LiteX's ROM and SRAM on the bursting bus
    then read that next word ahead and ack it in the cycle after, one fetch a cycle instead of
    one every other cycle. The choice is made in the cycle's first cycle and kept (a slave
    latches the burst there); OBI holds a request and its address until granted, and the
    successor is granted when this cycle ends, so the slave's read-ahead always matches.
    """
    def __init__(self, obi, wb, timeout=256, bursting=False):
        self.timeout_error = Signal()   # pulses when a cycle ended by timeout (for debug/tests)
        addr, be, we, wdata = Signal(32), Signal(4), Signal(), Signal(32)
        count = Signal(max=timeout + 1)
        expired = Signal()

        self.comb += expired.eq(count == timeout)
        if bursting:
            first, seq_q, seq = Signal(), Signal(), Signal()
            self.comb += [
                seq.eq(Mux(first, obi.req & ~obi.we & ~we & (obi.addr == addr + 4)
                           & (addr[2:12] != 0x3FF), seq_q)),
                wb.cti.eq(Mux(seq, CTI_INCR, CTI_END)),
            ]
            track = [NextValue(first, 0), If(first, NextValue(seq_q, seq))]
            start = [NextValue(first, 1)]     # the granted request's cycle comes next
        else:
            track, start = [], []
        self.fsm = fsm = FSM(reset_state="IDLE")
        fsm.act("IDLE",
            obi.gnt.eq(1),
            If(obi.req,
                NextValue(addr, obi.addr), NextValue(be, obi.be),
                NextValue(we, obi.we), NextValue(wdata, obi.wdata),
                NextValue(count, 0),
                *start,
                NextState("WAIT"),
            ),
        )
        fsm.act("WAIT",
            wb.adr.eq(addr), wb.sel.eq(be), wb.we.eq(we), wb.dat_w.eq(wdata),
            wb.cyc.eq(~expired), wb.stb.eq(~expired),
            NextValue(count, count + 1),
            *track,
            If(wb.ack | wb.err | expired,
                obi.rvalid.eq(1),
                obi.rdata.eq(wb.dat_r),
                obi.err.eq(wb.err | expired),
                self.timeout_error.eq(expired),
                obi.gnt.eq(1),
                If(obi.req,             # back to back: the next request's cycle follows
                    NextValue(addr, obi.addr), NextValue(be, obi.be),
                    NextValue(we, obi.we), NextValue(wdata, obi.wdata),
                    NextValue(count, 0),
                    *start,
                ).Else(
                    NextState("IDLE"),
                ),
            ),
        )


class PQIbex(CPU):
    category             = "softcore"
    family               = "riscv"
    name                 = NAME
    human_name           = "Ibex (pqsoc)"
    variants             = ["standard"]
    data_width           = 32
    endianness           = "little"
    gcc_triple           = CPU_GCC_TRIPLE_RISCV32
    linker_output_format = "elf32-littleriscv"
    nop                  = "nop"
    io_regions           = {0x8000_0000: 0x8000_0000}  # origin: length; CSRs live here

    # rv32imc; gcc 12 needs zicsr spelled out for csrr/csrw (the default ISA spec is 20191213).
    gcc_flags = "-march=rv32imc_zicsr -mabi=ilp32 -D__ibex__ "

    def __init__(self, platform, variant="standard", bus_timeout=256):
        self.platform     = platform
        self.variant      = variant
        self.reset        = Signal()
        # Stops instruction fetch (Ibex fetch_enable_i off) while 1: the silicon SoC's core waits
        # after power-up until the host has loaded its boot RAM. Not a reset: an asynchronous
        # reset held from time 0 never reaches the flops behind Ibex' clock gate in an
        # event-driven simulation (no edge), so the RTL and gate-level simulations of the
        # silicon SoC could not reset the core while it is held. To restart a running core,
        # the host holds it and pulses LiteX's ctrl cpu_rst (bringup/boot.py).
        self.hold         = Signal()
        self.ibus         = wishbone.Interface(data_width=32, address_width=32, addressing="byte")
        self.dbus         = wishbone.Interface(data_width=32, address_width=32, addressing="byte")
        self.periph_buses = [self.ibus, self.dbus]
        self.memory_buses = []
        self.interrupt    = Signal(15)   # Ibex fast interrupts: mcause = 16 + n

        ibus, dbus = Record(OBI_LAYOUT), Record(OBI_LAYOUT)
        self.ibus_conv = OBI2Wishbone(ibus, self.ibus, bus_timeout, bursting=True)
        self.dbus_conv = OBI2Wishbone(dbus, self.dbus, bus_timeout)
        self.comb += [ibus.we.eq(0), ibus.be.eq(0b1111)]

        self.cpu_params = dict(
            p_RV32E          = 0,
            p_RV32M          = RV32M,
            p_RV32B          = RV32B,
            p_RegFile        = REGFILE,
            i_clk_i          = ClockSignal("sys"),
            i_rst_ni         = ~(ResetSignal("sys") | self.reset),
            i_test_en_i      = 0,
            i_scan_rst_ni    = 1,
            i_ram_cfg_i      = 0,
            i_hart_id_i      = 0,

            o_instr_req_o    = ibus.req,
            i_instr_gnt_i    = ibus.gnt,
            i_instr_rvalid_i = ibus.rvalid,
            o_instr_addr_o   = ibus.addr,
            i_instr_rdata_i  = ibus.rdata,
            i_instr_rdata_intg_i = 0,   # integrity bits only checked with SecureIbex
            i_instr_err_i    = ibus.err,

            o_data_req_o     = dbus.req,
            i_data_gnt_i     = dbus.gnt,
            i_data_rvalid_i  = dbus.rvalid,
            o_data_we_o      = dbus.we,
            o_data_be_o      = dbus.be,
            o_data_addr_o    = dbus.addr,
            o_data_wdata_o   = dbus.wdata,
            i_data_rdata_i   = dbus.rdata,
            i_data_rdata_intg_i = 0,
            i_data_err_i     = dbus.err,

            i_irq_software_i = 0,
            i_irq_timer_i    = 0,
            i_irq_external_i = 0,
            i_irq_fast_i     = self.interrupt,
            i_irq_nm_i       = 0,

            i_scramble_key_valid_i = 0,
            i_scramble_key_i       = 0,
            i_scramble_nonce_i     = 0,

            i_debug_req_i    = 0,
            i_fetch_enable_i = Mux(self.hold, Constant(IBEX_MUBI_OFF, 4), Constant(IBEX_MUBI_ON, 4)),
        )
        add_sources(platform)

    def set_reset_address(self, reset_address):
        # Ibex starts at boot_addr + 0x80 and uses boot_addr as its first mtvec (vectored);
        # the firmware's start-up code places its vector table and entry accordingly.
        self.reset_address = reset_address
        self.cpu_params.update(i_boot_addr_i=Signal(32, reset=reset_address))

    def do_finalize(self):
        assert hasattr(self, "reset_address")
        self.specials += Instance("ibex_top", **self.cpu_params)


# Ibex RTL files in dependency order (packages first). Derived from ibex_top.core / ibex_core.core
# and their lowrisc:prim dependencies in pythondata-cpu-ibex 0.0.post2937.
_PRIM_FILES = [
    "prim_util_pkg.sv", "prim_mubi_pkg.sv", "prim_secded_pkg.sv", "prim_count_pkg.sv",
    "prim_ram_1p_pkg.sv", "prim_cipher_pkg.sv",
    "prim_count.sv", "prim_onehot_check.sv", "prim_secded_inv_39_32_dec.sv",
    "prim_secded_inv_39_32_enc.sv",
]
_IBEX_FILES = [
    "ibex_pkg.sv", "ibex_alu.sv", "ibex_branch_predict.sv", "ibex_compressed_decoder.sv",
    "ibex_controller.sv", "ibex_counter.sv", "ibex_cs_registers.sv", "ibex_csr.sv",
    "ibex_decoder.sv", "ibex_dummy_instr.sv", "ibex_ex_block.sv", "ibex_fetch_fifo.sv",
    "ibex_id_stage.sv", "ibex_if_stage.sv", "ibex_load_store_unit.sv", "ibex_multdiv_fast.sv",
    "ibex_multdiv_slow.sv", "ibex_pmp.sv", "ibex_prefetch_buffer.sv", "ibex_wb_stage.sv",
    "ibex_register_file_ff.sv", "ibex_core.sv", "ibex_lockstep.sv", "ibex_top.sv",
]


def ibex_dir() -> str:
    return get_data_mod("cpu", "ibex").data_location


def include_paths() -> list[str]:
    d = ibex_dir()
    return [os.path.join(d, "rtl"), os.path.join(d, "vendor", "lowrisc_ip", "ip", "prim", "rtl"),
            os.path.join(d, "vendor", "lowrisc_ip", "dv", "sv", "dv_utils")]


def add_sources(platform):
    d = ibex_dir()
    prim = os.path.join(d, "vendor", "lowrisc_ip", "ip", "prim", "rtl")
    prim_generic = os.path.join(d, "vendor", "lowrisc_ip", "ip", "prim_generic", "rtl")
    for p in include_paths():
        platform.add_verilog_include_path(p)
    for f in _PRIM_FILES:
        platform.add_source(os.path.join(prim, f))
    # prim_buf, prim_flop, ... are "virtual" cores in FuseSoC; Ibex's own simulation binds them
    # to the generic technology with the thin wrappers in dv/uvm/core_ibex/common/prim.
    platform.add_source(os.path.join(d, "dv", "uvm", "core_ibex", "common", "prim", "prim_pkg.sv"))
    for f in ["buf", "flop", "and2", "clock_gating", "clock_mux2"]:
        platform.add_source(os.path.join(prim_generic, f"prim_generic_{f}.sv"))
        platform.add_source(os.path.join(d, "dv", "uvm", "core_ibex", "common", "prim", f"prim_{f}.sv"))
    for f in _IBEX_FILES:
        platform.add_source(os.path.join(d, "rtl", f))


def register():
    """Make "pqibex" a CPU name LiteX's SoC.add_cpu() accepts."""
    from litex.soc.cores import cpu
    cpu.CPUS[NAME] = PQIbex
