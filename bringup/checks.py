# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""The bring-up checks. Each takes a bus (read(addr, count) -> [words], write(addr, words),
read1(addr)) and the SocMap, and returns a dict: "pass", "problems" (what went wrong, with
addresses) and figures. A bus that stops answering raises uartbone.BridgeError.

Addresses: csr.json (SocMap) for CSRs and regions; the blocks' register descriptions
(ip/kmac/data/kmac_regs.yml, ip/acc/data/acc_regs.yml, loaded with ip.common.regtool) for their
register offsets. References: hashlib (KMAC), kyber-py through ip.acc.dv.jobs.kernel_jobs and the
ACC instruction-set simulator (ACC).
"""
import hashlib
import struct
import time

import ip.acc as acc_ip
import ip.entropy as entropy_ip
import ip.kmac as kmac_ip

from firmware.build import acc_segments
from firmware.stack import stack_reserve

KMAC_REGS = kmac_ip.REGS_YML
ACC_REGS = acc_ip.REGS_YML
ACC_ISA = acc_ip.ISA_YML
ENTROPY_REGS = entropy_ip.REGS_YML

IDENT_PREFIX = "pqsoc"
SCRATCH_PATTERNS = (0x00000000, 0xFFFFFFFF, 0xA5A5A5A5, 0x5A5A5A5A, 0x12345678)
SRAM_WORDS = 32          # one word per data bit for the walking-ones pattern
KMAC_MSG = b"pqsoc bring-up!!"   # a multiple of 4 bytes: the bridge writes whole words only
# The ACC's memory windows inside its region (acc_regs.yml's description; the RTL decodes
# them from the word address, ip/acc/rtl/acc.py). sim/tests/test_bringup.py checks the text.
ACC_IMEM_WINDOW, ACC_DMEM_WINDOW = 0x10000, 0x20000
ACC_POLLS = 200          # STATUS reads before giving up on a program (each is a bridge round trip)
ENTROPY_WORDS = 4        # raw words the entropy check reads
ENTROPY_POLLS = 200      # STATUS reads before giving up (each a bridge round trip: ~5 000 cycles
                         # at 1 Mbaud; the start-up window is 1 024 raw bits, 16 384 cycles at DIV 15)
# An illegal instruction (the all-zero word) after one good one: ERR_BITS = ILLEGAL_INSN, STOP_PC 4.
ACC_ILLEGAL_SRC = "addi x1, x0, 1\n.word 0\necall\n"


def _words_le(data: bytes) -> list[int]:
    data = data + bytes(-len(data) % 4)
    return list(struct.unpack(f"<{len(data) // 4}I", data))


def _bytes_le(words) -> bytes:
    return struct.pack(f"<{len(words)}I", *words)


def _compare(problems, base, wrote, got, what, limit=4):
    bad = [(base + 4 * i, w, g) for i, (w, g) in enumerate(zip(wrote, got)) if w != g]
    for a, w, g in bad[:limit]:
        problems.append(f"{what}: {a:#010x} wrote {w:#010x} read {g:#010x}")
    if len(bad) > limit:
        problems.append(f"{what}: {len(bad) - limit} more mismatching words")
    return not bad


# ---- CSRs, memory, timer ------------------------------------------------------------------------

def check_ident(bus, soc) -> dict:
    """LiteX's identifier memory: one character per 32-bit word, NUL-terminated."""
    base = soc.csr_base("identifier_mem")
    chars, problems = [], []
    while len(chars) < 256:
        chunk = bus.read(base + 4 * len(chars), 8)
        if any(w > 0xFF for w in chunk):
            problems.append(f"identifier word above 8 bits at {base + 4 * len(chars):#010x}: "
                            f"{[hex(w) for w in chunk]}")
            break
        if 0 in chunk:
            chars += chunk[:chunk.index(0)]
            break
        chars += chunk
    ident = bytes(c & 0xFF for c in chars).decode("ascii", "replace")
    if not problems and not ident.startswith(IDENT_PREFIX):
        problems.append(f"identifier {ident!r} at {base:#010x} does not start with {IDENT_PREFIX!r}")
    return {"pass": not problems, "ident": ident, "problems": problems}


def check_scratch(bus, soc) -> dict:
    addr = soc.csr("ctrl_scratch")
    old = bus.read1(addr)
    problems = []
    for p in SCRATCH_PATTERNS:
        bus.write(addr, [p])
        got = bus.read1(addr)
        if got != p:
            problems.append(f"ctrl_scratch {addr:#010x}: wrote {p:#010x} read {got:#010x}")
    bus.write(addr, [old])
    return {"pass": not problems, "patterns": len(SCRATCH_PATTERNS), "problems": problems}


def sram_window(soc) -> tuple[int, int]:
    """(first byte, words) of the SRAM slice the check uses: just below the stack. The firmware
    (firmware/lib/link.ld) puts .data and .bss at the bottom of main SRAM and reserves the top
    stack_reserve() bytes for the stack; every program's .bss ends far lower (the linker
    asserts _end < _stack_bottom), so this slice is used by no firmware, unless one such as
    `selftest` tests the free SRAM itself at the same time."""
    base, size = soc.region("sram")
    top = base + size - stack_reserve()
    return top - 4 * SRAM_WORDS, SRAM_WORDS


def sram_patterns(start: int, n: int) -> dict:
    return {"walking_ones": [1 << (i % 32) for i in range(n)],       # each data bit alone
            "walking_zeros": [~(1 << (i % 32)) & 0xFFFFFFFF for i in range(n)],
            "address": [start + 4 * i for i in range(n)]}             # catches address aliasing


def check_sram(bus, soc) -> dict:
    start, n = sram_window(soc)
    problems = []
    for name, words in sram_patterns(start, n).items():
        bus.write(start, words)
        _compare(problems, start, words, bus.read(start, n), f"sram {name}")
    return {"pass": not problems, "addr": f"{start:#010x}", "words": n, "problems": problems}


def _uptime(bus, soc) -> int:
    bus.write(soc.csr("timer0_uptime_latch"), [1])
    words = bus.read(soc.csr("timer0_uptime_cycles"), soc.csr_words("timer0_uptime_cycles"))
    v = 0
    for w in words:                      # LiteX CSRs: the most significant word first
        v = v << 32 | w
    return v


def check_timer(bus, soc) -> dict:
    """Two latched readings of the uptime counter. Between the two latch writes the wire
    carries the first reading (command + reply) and the second latch write, so at the system
    clock the counter must advance at least by those bytes' bit times; and at most by the host
    time that passed (+10 %; a simulated chip runs far slower than its clock)."""
    n = soc.csr_words("timer0_uptime_cycles")
    cycles_per_bit = soc.clock_hz / soc.baudrate
    t0 = time.monotonic()
    a = _uptime(bus, soc)
    b = _uptime(bus, soc)
    elapsed = time.monotonic() - t0
    lo = int((6 + 4 * n + 10 - 1) * 10 * cycles_per_bit)
    hi = int(elapsed * soc.clock_hz * 1.1) + 1
    problems = []
    if not lo <= b - a <= hi:
        problems.append(f"uptime {soc.csr('timer0_uptime_cycles'):#010x} went {a} -> {b} "
                        f"(+{b - a}), expected +{lo}..+{hi}")
    return {"pass": not problems, "first": a, "delta": b - a, "problems": problems}


# ---- KMAC ---------------------------------------------------------------------------------------

def _regmap(path):
    from ip.common.regtool import load
    return load(path)


def _value(rm, reg, field, name) -> int:
    f = rm.field(reg, field)
    return f.values[name] << f.lo


def check_kmac(bus, soc) -> dict:
    """SHA3-256 of KMAC_MSG through the KMAC block's CPU registers, against hashlib."""
    rm = _regmap(KMAC_REGS)
    base = soc.region("kmac")[0]
    reg = {r.name: base + r.offset for r in rm.registers}
    cmd = lambda op: bus.write(reg["CMD"], [_value(rm, "CMD", "OP", op)])   # noqa: E731
    bus.write(reg["ERR_CODE"], [0xFFFFFFFF])          # w1c: start from a clean slate
    bus.write(reg["CFG"], [_value(rm, "CFG", "MODE", "SHA3") | _value(rm, "CFG", "STRENGTH", "L256")])
    bus.write(reg["MSG_LEN"], [len(KMAC_MSG)])        # the block ends the message by itself
    cmd("START")
    for w in _words_le(KMAC_MSG):                      # MSG is a window: every word to one address
        bus.write(reg["MSG"], [w])
    digest_regs = [reg[f"DIGEST{i}"] for i in range(8)]
    if digest_regs == [digest_regs[0] + 4 * i for i in range(8)]:
        words = bus.read(digest_regs[0], 8)
    else:
        words = [bus.read1(a) for a in digest_regs]
    err = bus.read1(reg["ERR_CODE"])
    cmd("DONE")
    digest = _bytes_le(words)
    want = hashlib.sha3_256(KMAC_MSG).digest()
    problems = []
    if err:
        names = [f.name for f in rm.reg("ERR_CODE").fields if err & f.mask]
        problems.append(f"KMAC ERR_CODE {reg['ERR_CODE']:#010x} = {err:#x} ({'|'.join(names)})")
    if digest != want:
        problems.append(f"SHA3-256 from DIGEST0 {digest_regs[0]:#010x}: {digest.hex()}, "
                        f"hashlib: {want.hex()}")
    return {"pass": not problems, "msg_bytes": len(KMAC_MSG), "digest": digest.hex(),
            "problems": problems}


# ---- entropy source -----------------------------------------------------------------------------

def check_entropy(bus, soc) -> dict:
    """The entropy source (ip/entropy/doc/spec.md): the health tests' self-test (each cutoff set to
    2 in turn: its test must fail in the start-up window, and only it), then a run at the reset
    cutoffs and DIV: the start-up test passes and ENTROPY_WORDS raw words arrive with no error.
    Reports the words and the watermarks (how close the source came to the cutoffs). The words'
    quality is the entropy assessment's, not this check's (bringup/README.md)."""
    rm = _regmap(ENTROPY_REGS)
    base = soc.region("entropy")[0]
    reg = {r.name: base + r.offset for r in rm.registers}
    bit = {(r, f): rm.field(r, f).mask for r, f in (("STATUS", "READY"), ("STATUS", "FAILED"), ("CTRL", "EN"),
                                                    ("ERR_CODE", "RCT"), ("ERR_CODE", "APT"))}
    div = rm.field("CTRL", "DIV")
    problems = []

    def poll(until) -> int | None:
        for _ in range(ENTROPY_POLLS):
            s = bus.read1(reg["STATUS"])
            if s & until:
                return s
        return None

    def stop_and_clear():
        bus.write(reg["CTRL"], [div.reset << div.lo])       # EN 0, DIV at reset
        bus.write(reg["ERR_CODE"], [0xFFFFFFFF])

    stop_and_clear()
    for test in ("RCT", "APT"):
        cutoff = rm.field(f"{test}_CUTOFF", "C")
        bus.write(reg[f"{test}_CUTOFF"], [2])
        bus.write(reg["CTRL"], [bit["CTRL", "EN"]])           # DIV 0: the window passes quickly
        failed = poll(bit["STATUS", "FAILED"])
        err = bus.read1(reg["ERR_CODE"]) & (bit["ERR_CODE", "RCT"] | bit["ERR_CODE", "APT"])
        bus.write(reg[f"{test}_CUTOFF"], [cutoff.reset])
        stop_and_clear()
        if failed is None or err != bit["ERR_CODE", test]:
            problems.append(f"entropy self-test {test}: with {test}_CUTOFF {reg[test + '_CUTOFF']:#010x} = 2, "
                            f"STATUS.FAILED {'set' if failed is not None else 'not set'} after "
                            f"{ENTROPY_POLLS} polls, ERR_CODE {err:#x} (expected only {test})")
    bus.write(reg["CTRL"], [div.reset << div.lo | bit["CTRL", "EN"]])
    words = []
    for _ in range(ENTROPY_WORDS):
        s = poll(bit["STATUS", "READY"] | bit["STATUS", "FAILED"])
        if s is None or s & bit["STATUS", "FAILED"]:
            problems.append(f"entropy: STATUS {reg['STATUS']:#010x} = {s if s is None else hex(s)} "
                            f"after {len(words)} words: "
                            f"{'no word within ' + str(ENTROPY_POLLS) + ' polls' if s is None else 'a health test failed'}")
            break
        words.append(bus.read1(reg["DATA"]))
    err = bus.read1(reg["ERR_CODE"])
    mark = bus.read1(reg["WATERMARK"])
    stop_and_clear()
    if err:
        names = [f.name for f in rm.reg("ERR_CODE").fields if err & f.mask]
        problems.append(f"entropy ERR_CODE {reg['ERR_CODE']:#010x} = {err:#x} ({'|'.join(names)})")
    rct, apt = (rm.field("WATERMARK", f) for f in ("RCT", "APT"))
    out = {"words": [f"{w:08x}" for w in words],
           "watermark_rct": (mark & rct.mask) >> rct.lo, "watermark_apt": (mark & apt.mask) >> apt.lo}
    return {"pass": not problems, **out, "problems": problems}


# ---- ACC ----------------------------------------------------------------------------------------

def acc_error_names(bits: int) -> list[str]:
    import yaml
    errors = yaml.safe_load(ACC_ISA.read_text())["errors"]
    return [name for name, e in sorted(errors.items(), key=lambda kv: kv[1]["bit"])
            if bits >> e["bit"] & 1]


def acc_jobs() -> dict:
    """The ACC programs of the check, with their DMEM inputs and references:
    ntt: the ML-KEM forward NTT of one polynomial (output vs kyber-py);
    illegal: ACC_ILLEGAL_SRC (must stop with ILLEGAL_INSN);
    sample: SampleNTT of A_hat[i][j] from a seed, SHAKE128 on the KMAC block through the
    side-load port (output vs kyber-py), run straight after the error: the recovery.
    Each: words, dmem {addr: bytes}, out (addr, expected bytes)."""
    from ip.acc.dv.jobs import kernel_jobs, pack
    from ip.acc.tools.asm import assemble
    jobs = {}
    for key, src, dm, mode, ref, where in kernel_jobs():
        if key in ("ntt_mlkem", "sample_ntt_mlkem"):
            n = mode[0]
            exp = b"".join(pack(ref[i:i + n], mode) for i in range(0, 256, n))
            jobs["ntt" if key == "ntt_mlkem" else "sample"] = {
                "words": assemble(src, f"{key}.s"), "dmem": dm, "out": (where, exp)}
    jobs["illegal"] = {"words": assemble(ACC_ILLEGAL_SRC, "illegal.s"), "dmem": {}, "out": (0, b"")}
    return {k: jobs[k] for k in ("ntt", "illegal", "sample")}


def _iss(soc, job):
    """The instruction-set simulator's run of a job: the cycles, error bits and stop PC the
    hardware must report."""
    from ip.acc.dv.jobs import image
    from ip.acc.dv.lockstep import IssBackend
    dsize = soc.constant("acc_dmem_size")
    iss = IssBackend(soc.constant("acc_imem_size"), dsize)
    return iss.run(job["words"], image(job["dmem"], dsize), 1_000_000)


class _Acc:
    def __init__(self, bus, soc):
        self.bus, self.rm = bus, _regmap(ACC_REGS)
        self.base = soc.region("acc")[0]
        self.reg = {r.name: self.base + r.offset for r in self.rm.registers}

    def pulse(self, field):
        self.bus.write(self.reg["CTRL"], [1 << self.rm.field("CTRL", field).lo])

    def wait_idle(self) -> bool:
        st = self.rm.field("STATUS", "STATE")
        for _ in range(ACC_POLLS):
            if (self.bus.read1(self.reg["STATUS"]) & st.mask) >> st.lo == st.values["IDLE"]:
                return True
        return False

    def run(self, job, problems, what) -> dict:
        """Loads IMEM and DMEM, starts, waits; returns the registers after the halt."""
        bus = self.bus
        bus.write(self.base + ACC_IMEM_WINDOW, job["words"])
        # one bridge burst per contiguous run (each command costs 6 bytes on the wire);
        # DMEM was wiped: padding zeros are right
        for addr, blob in acc_segments(job["dmem"]):
            bus.write(self.base + ACC_DMEM_WINDOW + addr, _words_le(blob))
        bus.write(self.reg["HOST_ERR"], [0xFFFFFFFF])     # w1c
        self.pulse("START")
        if not self.wait_idle():
            problems.append(f"{what}: ACC STATUS {self.reg['STATUS']:#010x} not idle after "
                            f"{ACC_POLLS} reads")
        regs = {name: bus.read1(self.reg[name])
                for name in ("ERR_BITS", "STOP_PC", "CYCLES", "INSNS", "HOST_ERR")}
        if regs["HOST_ERR"]:
            problems.append(f"{what}: HOST_ERR {self.reg['HOST_ERR']:#010x} = {regs['HOST_ERR']:#x}")
        addr, exp = job["out"]
        if exp:
            got = _bytes_le(bus.read(self.base + ACC_DMEM_WINDOW + addr, len(exp) // 4))
            if got != exp:
                bad = next(i for i in range(len(exp)) if got[i] != exp[i])
                problems.append(f"{what}: output at DMEM {addr:#x} (bus "
                                f"{self.base + ACC_DMEM_WINDOW + addr + bad:#010x}) differs from "
                                f"kyber-py from byte {bad}: {got[bad:bad + 8].hex()} != "
                                f"{exp[bad:bad + 8].hex()}")
        return regs


def check_acc(bus, soc) -> dict:
    """The ML-KEM NTT (output vs kyber-py, CYCLES vs the ISS), then an illegal instruction
    (ERR_BITS must name ILLEGAL_INSN; the ACC then wipes itself), then SampleNTT through the
    KMAC side-load port straight after the error (recovery)."""
    acc, problems, out = _Acc(bus, soc), [], {}
    acc.pulse("WIPE")                    # whatever the firmware left: abort, clear DMEM
    if not acc.wait_idle():
        problems.append(f"ACC STATUS {acc.reg['STATUS']:#010x} not idle after a wipe")
        return {"pass": False, "problems": problems}
    for name, job in acc_jobs().items():
        ref = _iss(soc, job)
        regs = acc.run(job, problems, f"acc {name}")
        want_err = ["ILLEGAL_INSN"] if name == "illegal" else []
        got_err = acc_error_names(regs["ERR_BITS"])
        if got_err != want_err or acc_error_names(ref.err_bits) != want_err:
            problems.append(f"acc {name}: ERR_BITS {acc.reg['ERR_BITS']:#010x} = "
                            f"{regs['ERR_BITS']:#x} ({'|'.join(got_err) or 'none'}), expected "
                            f"{'|'.join(want_err) or 'none'}")
        for reg, iss_value in (("CYCLES", ref.cycles), ("STOP_PC", ref.stop_pc)):
            if regs[reg] != iss_value:
                problems.append(f"acc {name}: {reg} {acc.reg[reg]:#010x} = {regs[reg]}, "
                                f"the ISS says {iss_value}")
        out[f"{name}_cycles"] = regs["CYCLES"]
    return {"pass": not problems, **out, "problems": problems}


def mlkem_jobs(param: int = 768) -> dict:
    """ML-KEM-`param` keygen, encaps and decaps as the firmware API runs them (the programs,
    constant tables and DMEM layout of firmware/pqc_layout.py), on kyber-py's inputs from
    fixed seeds, each op with its own reference inputs: {op: job} with words, dmem (tables +
    inputs), outs [(name, addr, expected bytes)]."""
    from firmware import pqc_layout
    jobs = {}
    for req in pqc_layout.default_requests(param):
        lay = pqc_layout.layout(req["op"], param)
        dmem = dict(lay["consts"])
        dmem.update({a: v for (_, a, _), v in zip(lay["ins"], req["in"])})
        jobs[req["op"]] = {"words": lay["words"], "dmem": dmem, "status_addr": lay["status_addr"],
                           "outs": [(n, a, v) for (n, a, _), v in zip(lay["outs"], req["exp"])]}
    return jobs


def check_mlkem(bus, soc) -> dict:
    """ML-KEM-768 keygen, encaps and decaps over the bridge, as a host without firmware help
    runs them: per op a wipe, the whole program into IMEM, constant tables and inputs into DMEM,
    START, the outputs compared with kyber-py's, CYCLES with the instruction-set simulator's,
    ERR_BITS 0, the program's status word OK (ip/acc/kernels/mlkem/status.py), then a wipe (no secret left in DMEM). ~45 KB over the bridge: named
    explicitly (not in the default list)."""
    acc, problems, out = _Acc(bus, soc), [], {}
    for op, job in mlkem_jobs().items():
        acc.pulse("WIPE")
        if not acc.wait_idle():
            problems.append(f"mlkem {op}: ACC STATUS {acc.reg['STATUS']:#010x} not idle after a wipe")
            break
        first, *rest = job["outs"]
        regs = acc.run({**job, "out": first[1:]}, problems, f"mlkem {op} {first[0]}")
        for name, addr, exp in rest:
            got = _bytes_le(bus.read(acc.base + ACC_DMEM_WINDOW + addr, len(exp) // 4))
            if got != exp:
                bad = next(i for i in range(len(exp)) if got[i] != exp[i])
                problems.append(f"mlkem {op} {name}: output at DMEM {addr:#x} differs from "
                                f"kyber-py from byte {bad}: {got[bad:bad + 8].hex()} != "
                                f"{exp[bad:bad + 8].hex()}")
        from ip.acc.kernels.mlkem import status
        word = bus.read1(acc.base + ACC_DMEM_WINDOW + job["status_addr"])
        if word != status.OK:
            problems.append(f"mlkem {op}: status word {word:#010x} at DMEM {job['status_addr']:#x}: "
                            f"{status.message(word)}")
        ref = _iss(soc, job)
        if regs["ERR_BITS"] or regs["CYCLES"] != ref.cycles:
            problems.append(f"mlkem {op}: ERR_BITS {regs['ERR_BITS']:#x}, CYCLES {regs['CYCLES']} "
                            f"(the ISS says {ref.cycles})")
        out[f"{op}_cycles"] = regs["CYCLES"]
    acc.pulse("WIPE")
    acc.wait_idle()
    return {"pass": not problems, **out, "problems": problems}


CHECKS = {"ident": check_ident, "scratch": check_scratch, "sram": check_sram,
          "timer": check_timer, "kmac": check_kmac, "entropy": check_entropy, "acc": check_acc}
# Run only when named (`pqsoc bringup PORT mlkem`): long transfers.
EXTRA_CHECKS = {"mlkem": check_mlkem}
