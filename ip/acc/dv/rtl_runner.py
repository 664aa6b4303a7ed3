# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""The RTL side of `pqsoc acc fuzz` (and of the gate-level runs): the ACC top under
Verilator, driven through its host bus by a small C++ driver (ip/acc/dv/acc_host.cpp).

Programs run in batches (one simulator process per batch), back to back without reset, as
firmware would run them. The Verilator model is built (pqsoc.flow.verilator.build_model) once
per (sources, driver, flags, Verilator version) hash into
build/acc_rtl/i<IMEM>_d<DMEM>/model_<hash>/.
"""
import hashlib
import os
import subprocess
from pathlib import Path

from pqsoc import BUILD, FlowError
from pqsoc.flow import verilator as vl
from ip.common.regtool import load

from ip.acc.rtl.acc import REGS_YML
from ip.acc.dv.rtl_top import AccWithKmac

DRIVER = Path(__file__).resolve().parent / "acc_host.cpp"
# The host driver's model: top `acc` (emit below), prefix Vacc, the block warnings.
MODEL = dict(warn=vl.BLOCK_WARNINGS, prefix="Vacc")
FLAGS = vl.model_flags("acc", x=vl.X_ZERO, cxx=vl.BLOCK_RTL_CXX, jobs=0, **MODEL)
REG_ORDER = ("CTRL", "STATUS", "ERR_BITS", "STOP_PC", "CYCLES", "INSNS", "INTR_STATE", "INTR_ENABLE",
             "ENTROPY")


IP = Path(__file__).resolve().parents[2]     # ip/


def _source_key(imem_size: int, dmem_size: int) -> str:
    """What the emitted RTL follows from: every Python and YAML file of ip/ (tests aside), the
    memory sizes and amaranth's version."""
    import amaranth
    h = hashlib.sha256(f"{amaranth.__version__} {imem_size} {dmem_size}".encode())
    for f in sorted(IP.rglob("*")):
        if f.suffix in (".py", ".yml", ".yaml") and "tests" not in f.relative_to(IP).parts:
            h.update(str(f.relative_to(IP)).encode() + b"\0" + f.read_bytes() + b"\0")
    return h.hexdigest()


def emit(imem_size: int, dmem_size: int, out: Path) -> Path:
    """The ACC with its KMAC (rtl_top.AccWithKmac), as the SoC connects them. Converting it takes
    ~13 s (RTLIL alone ~10 s), so the Verilog is kept with the key of its sources (_source_key)
    and converted again only when they change: a campaign's processes each start a fuzz run."""
    path, stamp = out / "acc.v", out / "acc.v.key"
    key = _source_key(imem_size, dmem_size)
    if path.is_file() and stamp.is_file() and stamp.read_text() == key:
        return path
    from amaranth.back import verilog
    out.mkdir(parents=True, exist_ok=True)
    text = verilog.convert(AccWithKmac(imem_size, dmem_size), name="acc", emit_src=False)
    for f, body in ((path, text), (stamp, key)):     # whole or not at all: a campaign's processes
        tmp = f.with_name(f".{f.name}.{os.getpid()}")   # may emit side by side
        tmp.write_text(body)
        os.replace(tmp, f)
    return path


class RtlBackend:
    def __init__(self, imem_size: int, dmem_size: int, sources: list[Path] | None = None,
                 build_dir: Path | None = None, label: str = "ACC RTL", extra_flags=(), log=None,
                 flags: list[str] | None = None, plusargs=()):
        """flags: the Verilator flags instead of FLAGS (extra_flags are added to either);
        plusargs: arguments of every simulator run (e.g. +verilator+seed+N)."""
        self.imem_size = imem_size
        self.dmem_size = dmem_size
        self.build_dir = build_dir or BUILD / "acc_rtl" / f"i{imem_size}_d{dmem_size}"
        self.sources = sources or [emit(imem_size, dmem_size, self.build_dir / "rtl")]
        self.flags = list(FLAGS if flags is None else flags) + list(extra_flags)
        self.plusargs = list(plusargs)
        self.key = vl.model_key(self.flags, self.sources, DRIVER)
        self.model_dir = self.build_dir / f"model_{self.key}"
        self.label = label
        self.log = log
        regs = load(REGS_YML)
        offs = {r.name: r.offset for r in regs.registers}
        self.offsets = " ".join(f"{offs[n]:x}" for n in REG_ORDER)
        self.build_seconds = 0.0
        self.sim_cycles = 0
        self.env = None          # the simulator's environment (None: this process's)

    @property
    def built(self) -> bool:
        return vl.is_built(self.model_dir, "Vacc", self.key)

    def build(self) -> Path:
        model = vl.build_model(flags=self.flags, sources=self.sources, driver=DRIVER,
                               out=self.model_dir, exe="Vacc", label=self.label, log=self.log)
        self.build_seconds = model.seconds
        return model.exe

    def run_many(self, jobs) -> list:
        """jobs: (words, dmem bytes, max_cycles[, entropy words[, readback[, wipe]]]) tuples;
        returns lockstep.RunResult per job, its dmem the first READBACK bytes of DMEM after the
        run (default: as many as the job's image; 0 when only the halt and counters matter, e.g.
        a leakage trace: reading 16 KiB back costs more bus cycles than the program runs).
        WIPE (default False): CTRL.WIPE after the job, as firmware ends an operation, so the
        next starts with RND's pool empty and DMEM zero (only its image's nonzero words are
        then written); without it the next job sees the entropy this one left unread, as on
        lockstep's IssBackend (START zeroes the registers either way)."""
        from ip.acc.dv.lockstep import RunResult
        exe = self.build()
        lines = [f"OFFSETS {self.offsets}"]
        sizes = []
        for words, dmem, cyc, *rest in jobs:
            entropy = list(rest[0]) if rest else []
            dmem = bytes(dmem)
            readback = rest[1] if len(rest) > 1 else len(dmem)
            wipe = bool(rest[2]) if len(rest) > 2 else False
            if len(dmem) % 4 or len(dmem) > self.dmem_size:
                raise FlowError(f"{self.label}: DMEM image of {len(dmem)} bytes does not fit "
                                f"{self.dmem_size} bytes")
            if readback % 4 or not 0 <= readback <= len(dmem):
                raise FlowError(f"{self.label}: cannot read back {readback} bytes of a "
                                f"{len(dmem)}-byte DMEM image (whole words, at most the image)")
            if 4 * len(words) > self.imem_size:
                raise FlowError(f"{self.label}: {len(words)} instructions do not fit IMEM")
            sizes.append(readback)
            lines.append(f"JOB {len(words)} {len(dmem) // 4} {cyc} {len(entropy)} {readback // 4} {int(wipe)}")
            lines += [f"{w:08x}" for w in words]
            lines += [f"{int.from_bytes(dmem[i:i + 4], 'little'):08x}" for i in range(0, len(dmem), 4)]
            lines += [f"{w:08x}" for w in entropy]
        lines.append("END")
        r = subprocess.run([str(exe), *self.plusargs], input="\n".join(lines) + "\n", capture_output=True, text=True,
                           env=self.env)
        if r.returncode != 0:
            raise FlowError(f"{self.label}: simulation failed (exit {r.returncode}): {r.stderr.strip()[-500:]}")
        out = r.stdout.splitlines()
        results, k = [], 0
        for n in sizes:
            head = out[k].split()
            if head[0] != "RES":
                raise FlowError(f"{self.label}: garbled driver output: {out[k]!r}")
            words = out[k + 1:k + 1 + n // 4]
            k += 1 + n // 4
            blob = b"".join(int(w, 16).to_bytes(4, "little") for w in words)
            results.append(RunResult(head[1], int(head[2]), int(head[3]), int(head[4]), int(head[5]), blob))
            self.sim_cycles += int(head[3])
        return results

    def run(self, program_words, dmem, max_cycles, entropy=()):
        return self.run_many([(program_words, dmem, max_cycles, entropy)])[0]


def make_rtl_backend(imem_size: int, dmem_size: int) -> RtlBackend:
    return RtlBackend(imem_size, dmem_size, log=lambda s: print(s, flush=True))
