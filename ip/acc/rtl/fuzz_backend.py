"""The RTL side of `pqsoc acc fuzz`: the emitted ACC top under Verilator, driven by cocotb.

Programs are run in batches (one simulator start per batch) through the host bus by
ip/acc/tests/cocotb_acc.py; the Verilator build is cached per emitted-Verilog hash in
build/acc_rtl/<imem>_<dmem>/.
"""
import hashlib
import json
import os
from pathlib import Path

from pqsoc import BUILD, FlowError

from .acc import Acc


def emit(imem_size: int, dmem_size: int, out: Path) -> Path:
    from amaranth.back import verilog
    out.mkdir(parents=True, exist_ok=True)
    text = verilog.convert(Acc(imem_size, dmem_size), name="acc", emit_src=False)
    path = out / "acc.v"
    if not path.is_file() or path.read_text() != text:
        path.write_text(text)
    return path


class RtlBackend:
    def __init__(self, imem_size: int, dmem_size: int, sources: list[Path] | None = None,
                 build_dir: Path | None = None, label: str = "ACC RTL"):
        self.imem_size = imem_size
        self.dmem_size = dmem_size
        self.build_dir = build_dir or BUILD / "acc_rtl" / f"i{imem_size}_d{dmem_size}"
        self.sources = sources or [emit(imem_size, dmem_size, self.build_dir / "rtl")]
        digest = hashlib.sha256(b"".join(p.read_bytes() for p in self.sources)).hexdigest()[:16]
        self.sim_dir = self.build_dir / f"sim_{digest}"
        self.label = label
        self.pending = []

    def run_many(self, jobs) -> list:
        """jobs: (words, dmem bytes, max_cycles) tuples; returns fuzz.RunResult per job."""
        from pqsoc.acc.fuzz import RunResult
        from pqsoc.flow.vsim import run_cocotb
        self.sim_dir.mkdir(parents=True, exist_ok=True)
        jobs_path = self.sim_dir / "jobs.json"
        res_path = self.sim_dir / "results.json"
        res_path.unlink(missing_ok=True)
        jobs_path.write_text(json.dumps([{"words": list(w), "dmem": bytes(d).hex(), "max_cycles": c}
                                         for w, d, c in jobs]))
        os.environ["PQSOC_ACC_JOBS"] = str(jobs_path)
        os.environ["PQSOC_ACC_RESULTS"] = str(res_path)
        r = run_cocotb(sources=self.sources, top="acc", test_module="ip.acc.tests.cocotb_acc",
                       build_dir=self.sim_dir, label=self.label,
                       build_args=["--x-assign", "0", "--x-initial", "0"])
        if r.failed or not res_path.is_file():
            raise FlowError(f"{self.label}: the cocotb batch failed; log: {r.log}")
        return [RunResult(o["halt"], o["err_bits"], o["cycles"], o["insns"], o["stop_pc"],
                          bytes.fromhex(o["dmem"])) for o in json.loads(res_path.read_text())]

    def run(self, program_words, dmem, max_cycles):
        return self.run_many([(program_words, dmem, max_cycles)])[0]


def make_rtl_backend(imem_size: int, dmem_size: int) -> RtlBackend:
    return RtlBackend(imem_size, dmem_size)
