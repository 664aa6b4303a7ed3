# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""The bus access policy for outside masters (soc/access.py) and the management Wishbone port
across clocks (soc/mgmt_port.py), in Migen's simulator: each refusal, and that what is allowed
still reaches the bus."""
from migen import Module, Signal, run_simulation
from litex.soc.interconnect import wishbone

from soc.access import ExtAccess, ExtGuard
from soc.mgmt_port import MgmtPort, to_mgmt_address, to_soc_address

ACC = (0x8100_0000, 0x4_0000)
STATUS = (0x8200_0000, 0x800)


class _Slave(Module):
    """Acks every access the next cycle; reads return the word address + 1; remembers writes."""
    def __init__(self, bus):
        self.writes = []
        self.sync += [bus.ack.eq(bus.cyc & bus.stb & ~bus.ack), bus.dat_r.eq(bus.adr + 1)]


class _Dut(Module):
    def __init__(self):
        self.master = wishbone.Interface(data_width=32, address_width=32, addressing="word")
        self.acc_busy = Signal()
        self.submodules.ext = ExtAccess(("bridge",))
        self.comb += self.ext.acc_busy.eq(self.acc_busy)
        self.submodules.guard = ExtGuard(self.master, ACC, STATUS, self.ext.acc_busy, self.ext.locked)
        self.comb += self.ext.refused_set["bridge"].eq(self.guard.refused)
        self.submodules.slave = _Slave(self.guard.bus)
        self.seen = []       # (byte address, we) of the accesses that reached the bus


def _access(dut, byte_addr, we=0, data=0):
    m = dut.master
    yield m.adr.eq(byte_addr >> 2)
    yield m.we.eq(we)
    yield m.dat_w.eq(data)
    yield m.sel.eq(0xF)
    yield m.cyc.eq(1)
    yield m.stb.eq(1)
    reached = False
    for _ in range(20):
        yield
        if (yield dut.guard.bus.cyc) and (yield dut.guard.bus.stb):
            reached = True
        if (yield m.ack):
            break
    else:
        raise AssertionError("no ack")
    value = yield m.dat_r
    yield m.cyc.eq(0)
    yield m.stb.eq(0)
    yield
    return reached, value


def _run(body):
    dut = _Dut()
    out = {}

    def gen():
        out.update((yield from body(dut)))
    run_simulation(dut, gen())
    return out


def test_acc_window_is_refused_only_while_the_acc_runs():
    def body(dut):
        r = {}
        r["idle"] = yield from _access(dut, ACC[0] + 0x2_0000)            # DMEM, ACC idle
        r["flag0"] = yield dut.ext.refused["bridge"]
        yield dut.acc_busy.eq(1)
        r["busy_dmem"] = yield from _access(dut, ACC[0] + 0x2_0000)
        r["busy_regs"] = yield from _access(dut, ACC[0] + 0x10, we=1, data=1)
        r["busy_kmac"] = yield from _access(dut, 0x8000_0000)             # not the ACC
        r["busy_rom"] = yield from _access(dut, 0x0)
        r["flag1"] = yield dut.ext.refused["bridge"]
        return r
    r = _run(body)
    assert r["idle"] == (True, ((ACC[0] + 0x2_0000) >> 2) + 1)
    assert r["flag0"] == 0
    assert r["busy_dmem"] == (False, 0) and r["busy_regs"] == (False, 0)
    assert r["busy_kmac"][0] and r["busy_rom"][0]
    assert r["flag1"] == 1                              # sticky


def test_lock_is_sticky_and_leaves_only_status_reads():
    def body(dut):
        r = {}
        yield dut.ext.lock.storage.eq(1)
        yield dut.ext.lock.re.eq(1)
        yield
        yield dut.ext.lock.re.eq(0)
        yield dut.ext.lock.storage.eq(0)                # a write of 0 does not unlock
        yield dut.ext.lock.re.eq(1)
        yield
        yield dut.ext.lock.re.eq(0)
        yield
        r["locked"] = yield dut.ext.locked
        r["flag_before"] = yield dut.ext.refused["bridge"]
        r["rom"] = yield from _access(dut, 0x0)
        r["kmac"] = yield from _access(dut, 0x8000_0000, we=1, data=5)
        r["status_read"] = yield from _access(dut, STATUS[0] + 4)
        r["status_write"] = yield from _access(dut, STATUS[0] + 0x10, we=1, data=7)
        r["past_status"] = yield from _access(dut, STATUS[0] + STATUS[1])
        # the CPU clears the refusal flag; the lock stays
        yield dut.ext.clear.storage.eq(1)
        yield dut.ext.clear.re.eq(1)
        yield
        yield dut.ext.clear.re.eq(0)
        yield
        r["after_clear"] = (yield dut.ext.locked), (yield dut.ext.refused["bridge"])
        return r
    r = _run(body)
    assert r["locked"] == 1 and r["flag_before"] == 0
    assert r["rom"] == (False, 0) and r["kmac"] == (False, 0)
    assert r["status_read"] == (True, ((STATUS[0] + 4) >> 2) + 1)
    assert r["status_write"] == (False, 0)
    assert r["past_status"] == (False, 0)
    assert r["after_clear"] == (1, 0)                   # still locked, flag cleared


def test_management_addresses_map_onto_our_bus():
    assert to_soc_address(0x3000_0000) == 0
    assert to_soc_address(0x3100_0010) == 0x0100_0010
    assert to_soc_address(0x3900_0000) == 0x8100_0000
    assert to_mgmt_address(0x8200_0004) == 0x3A00_0004
    for a in (0x2FFF_FFFC, 0x4000_0000):
        try:
            to_soc_address(a)
        except ValueError as e:
            assert "user window" in str(e)
        else:
            raise AssertionError(a)


class _PortDut(Module):
    def __init__(self):
        self.submodules.port = MgmtPort()
        self.submodules.slave = _Slave(self.port.master)


def _mgmt_access(dut, addr, we=0, data=0):
    p = dut.port
    yield p.wbs_adr_i.eq(addr)
    yield p.wbs_we_i.eq(we)
    yield p.wbs_dat_i.eq(data)
    yield p.wbs_sel_i.eq(0xF)
    yield p.wbs_cyc_i.eq(1)
    yield p.wbs_stb_i.eq(1)
    for n in range(100):
        yield
        if (yield p.wbs_ack_o):
            break
    else:
        raise AssertionError("no ack from the management port")
    value = yield p.wbs_dat_o
    yield p.wbs_cyc_i.eq(0)
    yield p.wbs_stb_i.eq(0)
    yield
    return value, n


def test_management_port_crosses_clocks_and_answers_each_access_once():
    """Two unrelated clocks (periods 10 and 7): every access reaches our bus once, at the mapped
    address, and its read data come back."""
    dut = _PortDut()
    seen, out = [], []

    def mgmt():
        for a in (0x3000_0040, 0x3900_0000, 0x3A00_0008):
            out.append((yield from _mgmt_access(dut, a)))
        out.append((yield from _mgmt_access(dut, 0x3100_0000, we=1, data=0x1234)))

    def monitor():
        m = dut.port.master
        while True:
            if (yield m.cyc) and (yield m.stb) and (yield m.ack):
                seen.append(((yield m.adr) << 2, (yield m.we), (yield m.dat_w)))
            yield

    monitor.passive = True
    from migen.sim import passive
    run_simulation(dut, {"mgmt": [mgmt()], "sys": [passive(monitor)()]},
                   clocks={"sys": 7, "mgmt": 10})
    assert [v for v, _ in out[:3]] == [(0x40 >> 2) + 1, (0x8100_0000 >> 2) + 1, (0x8200_0008 >> 2) + 1]
    assert seen == [(0x40, 0, 0), (0x8100_0000, 0, 0), (0x8200_0008, 0, 0), (0x0100_0000, 1, 0x1234)]
