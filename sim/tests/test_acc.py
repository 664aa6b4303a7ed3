# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""The ACC coprocessor inside the SoC (PQC subsystem: ACC + KMAC, side-load wired inside),
driven by firmware/lib/acc.c: acc_selftest (NTT / INTT kernels against kyber-py / dilithium-py,
SHAKE128 through the side-load port against hashlib, error paths, the KMAC from the CPU after
the ACC, the DONE irq) through `pqsoc sim run`, and the build plumbing (memory map, generated
Verilog and headers)."""
import json
import re

import yaml

from firmware import build as fw
from pqsoc import BUILD
from ip.common.regtool import c_header, load
from soc.build import emit_pqc
from soc.target import ACC_SIZE, EXT_BASE, EXT_STRIDE

ACC_TESTS = ["acc_mlkem_ntt", "acc_mlkem_intt", "acc_mldsa_ntt", "acc_kmac_shake128",
             "kmac_cpu_after_acc", "acc_err_illegal_insn", "acc_ok_after_error",
             "acc_entropy_in", "acc_rnd", "acc_err_rnd", "acc_dmem_bytes_and_args", "acc_dma_errors", "acc_list_calls", "acc_irq"]


def test_acc_selftest_passes_in_pqsoc_sim_run(sim_run_json):
    from ip.acc.dv.jobs import measure
    res = sim_run_json("acc_selftest", timeout_s=120)
    assert [t["test"] for t in res["tests"]] == ACC_TESTS
    assert res["summary"]["failed"] == 0 and all(t["pass"] for t in res["tests"])
    t = {x["test"]: x for x in res["tests"]}
    # "cycles" of a kernel is the ACC's CYCLES register: the ISS's count (the golden model)
    iss = measure(rtl=False)
    for name, key in (("acc_mlkem_ntt", "ntt_mlkem"), ("acc_mlkem_intt", "intt_mlkem"),
                      ("acc_mldsa_ntt", "ntt_mldsa"), ("acc_ok_after_error", "ntt_mlkem")):
        assert t[name]["cycles"] == iss[f"{key}_cycles"], name
        assert t[name]["cpu_cycles"] > t[name]["cycles"] and t[name]["total_cycles"] > 0
    err = t["acc_err_illegal_insn"]
    assert (err["err"], err["err_bits"], err["stop_pc"]) == ("ILLEGAL_INSN", 1, fw.ACC_ILLEGAL_PC)


def test_acc_is_in_the_soc_build(soc_dir):
    mem = json.loads((soc_dir / "csr.json").read_text())["memories"]
    assert (mem["acc"]["base"], mem["acc"]["size"]) == (EXT_BASE + EXT_STRIDE, ACC_SIZE)
    assert ACC_SIZE == 0x40000
    soc_h = (soc_dir / "software/include/generated/soc.h").read_text()
    assert "ACC_INTERRUPT" in soc_h and "KMAC_INTERRUPT" in soc_h
    v = (soc_dir / "gateware" / "pqsoc.v").read_text()
    assert len(re.findall(r"^pqc pqc\(", v, re.M)) == 1     # one module, two slave ports
    inst = re.search(r"^pqc pqc\((.*?)\);", v, re.M | re.S).group(1)
    for port in ("adr", "dat_w", "dat_r", "sel", "cyc", "stb", "we", "ack", "err"):
        assert re.search(rf"\.acc_bus__{port}\s*\(", inst), port
    # the instance drives a wire named after the irq (Migen may prefix it)
    assert re.search(r"\.acc_irq\s*\((\w*acc_irq)\)", inst)
    # 256 KiB window: 16 word-address bits reach the ACC (its IMEM/DMEM decode needs bits 14-15)
    assert re.search(r"wire\s+\[15:0\]\s+" + re.search(r"\.acc_bus__adr\s*\((\w+)\)", inst)[1], v)
    pqc_v = (soc_dir / "rtl" / "pqc.v").read_text()
    assert re.search(r"^module pqc\(", pqc_v, re.M)


def test_pqc_verilog_is_rewritten_only_when_changed(soc_dir):
    """Converted afresh (not the process's cached text), the same design gives the same text, so
    the file and everything built from it stay."""
    from soc.build import pqc_verilog
    v = soc_dir / "rtl" / "pqc.v"
    before = v.stat().st_mtime_ns
    pqc_verilog.cache_clear()
    emit_pqc(soc_dir / "rtl")
    assert v.stat().st_mtime_ns == before


def test_acc_headers_are_generated(firmware):
    firmware("acc_selftest")
    gen = BUILD / "firmware" / "gen"
    regs, header = (gen / "acc_regs.h").read_text(), c_header(load(fw.ACC_REGS_YML))
    end = header.rindex("#endif")
    assert regs.startswith(header[:end]) and regs.endswith(header[end:])
    # and the DMA list's descriptor flags, from the RTL's constants
    from ip.acc.rtl import dma
    for name, bit in (("FROM_ACC", dma.DESC_FROM_ACC), ("RUN", dma.DESC_RUN), ("WIPE", dma.DESC_WIPE)):
        assert f"#define ACC_DMA_LIST_{name} (1u << {bit})" in regs
    errors = yaml.safe_load(fw.ACC_ISA_YML.read_text())["errors"]
    text = (gen / "acc_errors.h").read_text()
    names = re.search(r"ACC_ERR_NAMES\[.*?\] = \{(.*?)\};", text, re.S)[1]
    table = re.findall(r'"(\w+)"|\b0,', names)
    assert {b: n for b, n in enumerate(table) if n} == {e["bit"]: n for n, e in errors.items()}
    for h in ("acc_regs.h", "acc_errors.h", "acc_vectors.h"):
        assert not list(fw.HERE.rglob(h))   # never committed under firmware/
