# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""ip/acc/rtl/stream_unit.py (sampler slice) against its cycle model ip/acc/iss/stream_unit.py and
against kyber-py / dilithium-py.

(a) cycle-exact: random jobs (modes, counts, VMODEs, destinations), random digest valid
    timing, random wr_gnt patterns, back-to-back starts, restarts, aborts: every output of
    the RTL equals the model's in every cycle.
(b) functional: SHAKE128 / SHAKE256 output (hashlib) as digest words; the DMEM words written
    equal ML-KEM SampleNTT / SamplePolyCBD (kyber-py) and ML-DSA RejNTTPoly /
    RejBoundedPoly (dilithium-py). RTL co-simulated with the model for one case per mode,
    the model alone for more seeds.
(d) the masked modes cbd2m / cbd3m: digest words in two shares (share 1 asked for with
    dig_share1, share 0 taken two cycles later), URND's words: E0 + E1 equals kyber-py's
    SamplePolyCBD of the shares' XOR, and (E0, E1) equal ip/acc/iss/masked_cbd.py's gadget
    on the words the unit stepped URND for; the two shares' writes never follow each other.
(c) cycles at the KMAC's pace (a 32-byte word every 4 cycles, 25 cycles per rate block):
    the last write comes within 10 cycles of the last needed digest word.
"""
import hashlib
import random

import pytest
from amaranth.sim import Simulator

from dilithium_py.ml_dsa import ML_DSA_44, ML_DSA_65
from kyber_py.ml_kem import ML_KEM_768
from ip.acc.rtl.stream_unit import StreamUnit
from ip.acc.iss.stream_unit import Q, StreamUnitModel

DMEM_WORDS = 512
OUTS = ("dig_ready", "dig_share1", "urnd_step", "masked_busy", "wr_req", "wr_addr", "wr_data", "busy", "produced",
        "rd_req", "rd_addr")
IDLE = dict(start=0, mode=0, count=0, dst=0, vmode=0, cfg=0, dig_valid=0, dig_data=0,
            wr_gnt=0, abort=0, urnd=0, src=0, rd_gnt=0, rd_data=0)
MODES = {"uni12": 0, "uni23": 1, "cbd2": 2, "cbd3": 3, "eta2": 4, "eta4": 5}


def _words(stream):
    stream = stream + bytes(-len(stream) % 32)
    return [int.from_bytes(stream[i:i + 32], "little") for i in range(0, len(stream), 32)]


def _run(stim, ncycles, rtl=True):
    """Drive `stim` (an object with inputs(cycle, outs) and observe(cycle, inputs, outs)) for
    ncycles on the model, and on the RTL in lock-step (comparing every output every cycle)."""
    model = StreamUnitModel(DMEM_WORDS)

    def cycle(c, get_rtl):
        outs = model.outputs()
        inp = dict(IDLE)
        inp.update(stim.inputs(c, outs))
        if get_rtl is not None:
            got = get_rtl(inp)
            for k in OUTS:
                assert got[k] == outs[k], f"cycle {c}: {k} rtl {got[k]:#x} model {outs[k]:#x}"
        stim.observe(c, inp, outs)
        return inp

    if not rtl:
        for c in range(ncycles):
            model.tick(cycle(c, None))
            if stim.done(c, model.outputs()):
                break
        return

    dut = StreamUnit(DMEM_WORDS)

    async def tb(ctx):
        def get_rtl(inp):
            for k, v in inp.items():
                ctx.set(getattr(dut, k), v)
            return {k: ctx.get(getattr(dut, k)) for k in OUTS}

        for c in range(ncycles):
            inp = cycle(c, get_rtl)
            await ctx.tick()
            model.tick(inp)
            if stim.done(c, model.outputs()):
                break

    sim = Simulator(dut)
    sim.add_clock(1e-6)
    sim.add_testbench(tb)
    sim.run()


class Writer:
    """DMEM side: wr_gnt pattern, records writes."""

    def __init__(self, rng=None, p=1.0):
        self.rng, self.p = rng, p
        self.writes = []            # (cycle, addr, data)
        self.gnt = 1

    def next(self):
        if self.rng is None:
            self.gnt = 1
        elif self.rng.random() < 0.05:                          # occasional burst of 0s
            self.gnt = 0
        else:
            self.gnt = int(self.rng.random() < self.p)
        return self.gnt

    def observe(self, c, inp, outs):
        if outs["wr_req"] and inp["wr_gnt"]:
            self.writes.append((c, outs["wr_addr"], outs["wr_data"]))


class Job:
    """One smp.run on a fixed digest stream, with a digest arrival pattern."""

    def __init__(self, mode, count, vmode, dst, stream, writer, pace=None, rng=None, pv=1.0):
        self.mode, self.count, self.vmode, self.dst = mode, count, vmode, dst
        self.words = _words(stream)
        self.writer, self.pace, self.rng, self.pv = writer, pace, rng, pv
        self.idx = 0
        self.xfer = []              # cycle of each digest word transfer
        self.avail = 1              # cycle from which the next word is valid (pace)
        self.start_cycle = 0

    def inputs(self, c, outs):
        inp = {"wr_gnt": self.writer.next()}
        if c == self.start_cycle:
            inp.update(start=1, mode=self.mode, count=self.count, dst=self.dst,
                       vmode=self.vmode)
            return inp
        if self.idx < len(self.words):
            if self.pace is not None:
                v = c >= self.avail
            elif self.rng is not None:
                v = self.rng.random() < self.pv
            else:
                v = True
            if v:
                inp.update(dig_valid=1, dig_data=self.words[self.idx])
        return inp

    def observe(self, c, inp, outs):
        self.writer.observe(c, inp, outs)
        if inp["dig_valid"] and outs["dig_ready"]:
            self.xfer.append(c)
            self.idx += 1
            if self.pace is not None:
                k = self.idx                         # next word: its last byte's block
                blk = (32 * k + 31) // self.pace
                self.avail = max(1 + 25 * blk, c + 4)

    def done(self, c, outs):
        return c > self.start_cycle and not outs["busy"]


def _mem(writes):
    mem = {}
    for _, a, d in writes:
        mem[a] = d
    return mem


def _coeffs(mem, dst, count, vmode):
    lanes, w = (8, 32) if vmode else (16, 16)
    nwords = -(-count // lanes)
    out = []
    for k in range(nwords):
        d = mem[dst + k]
        out += [(d >> (w * i)) & ((1 << w) - 1) for i in range(lanes)]
    for v in out[count:]:
        assert v == 0, "unused lanes of the last word must be zero"
    assert set(mem) == set(range(dst, dst + nwords)), "writes outside the destination"
    return out[:count]


def _sample(mode, count, vmode, stream, rtl, rng=None, pace=None, p_gnt=1.0, pv=1.0,
            dst=3):
    writer = Writer(rng if p_gnt < 1.0 else None, p_gnt)
    job = Job(mode, count, vmode, dst, stream, writer, pace=pace, rng=rng, pv=pv)
    _run(job, 20000, rtl=rtl)
    return _coeffs(_mem(writer.writes), dst, count, vmode), job, writer


# ----------------------------------------------------------------------- (b) references
KEM = ML_KEM_768
DSA = ML_DSA_65


def _kem_a_case(seed, i, j):
    rho = hashlib.sha3_256(bytes([seed])).digest()
    stream = KEM._xof(rho, bytes([j]), bytes([i]))                 # rho || j || i, 840 B
    return stream, list(KEM.R.ntt_sample(stream).coeffs)


def _dsa_a_case(seed, i, j):
    rho = hashlib.sha3_256(bytes([seed, 1])).digest()
    ref = list(DSA.R.rejection_sample_ntt_poly(rho, i, j).coeffs)    # rho || j || i
    stream = hashlib.shake_128(rho + bytes([j, i])).digest(32 * 48)
    return stream, ref


def _cbd_case(seed, eta, n):
    sigma = hashlib.sha3_256(bytes([seed, 2])).digest()
    stream = KEM._prf(eta, sigma, bytes([n]))                       # SHAKE256(s || N)
    return stream, list(KEM.R.cbd(stream, eta).coeffs)


def _eta_case(seed, eta, r):
    rho = hashlib.sha3_256(bytes([seed, 3])).digest()
    dsa = ML_DSA_65 if eta == 4 else ML_DSA_44
    assert dsa.eta == eta
    ref = [c % Q[1] for c in dsa.R.rejection_bounded_poly(rho, r, eta).coeffs]
    stream = hashlib.shake_256(rho + r.to_bytes(2, "little")).digest(32 * 24)
    return stream, ref


CASES = {
    "uni12": lambda s: _kem_a_case(s, s % 3, (s // 3) % 3),
    "uni23": lambda s: _dsa_a_case(s, s % 6, (s // 6) % 5),
    "cbd2": lambda s: _cbd_case(s, 2, s),
    "cbd3": lambda s: _cbd_case(s, 3, s),
    "eta2": lambda s: _eta_case(s, 2, s),
    "eta4": lambda s: _eta_case(s, 4, s),
}


def _ref_vmode(name):
    return 1 if name in ("uni23", "eta2", "eta4") else 0


@pytest.mark.parametrize("name", list(CASES))
def test_reference_rtl(name):
    """RTL + model in lock-step on one reference case per mode, random gnt/valid timing."""
    rng = random.Random(name)
    stream, ref = CASES[name](7)
    vm = _ref_vmode(name)
    got, _, _ = _sample(MODES[name], 256, vm, stream, rtl=True, rng=rng, p_gnt=0.6, pv=0.5)
    assert got == ref


@pytest.mark.parametrize("name", list(CASES))
def test_reference_model(name):
    """Model alone, more seeds, both VMODEs where the values are meaningful."""
    rng = random.Random(name + "m")
    for seed in range(6):
        stream, ref = CASES[name](seed)
        vm = _ref_vmode(name)
        got, _, _ = _sample(MODES[name], 256, vm, stream, rtl=False, rng=rng,
                            p_gnt=rng.choice([1.0, 0.5]), pv=rng.choice([1.0, 0.3]))
        assert got == ref
        if name in ("cbd2", "cbd3", "eta2", "eta4"):     # output mod q of the other VMODE
            q0, q1 = Q[vm], Q[1 - vm]
            got, _, _ = _sample(MODES[name], 256, 1 - vm, stream, rtl=False)
            assert got == [c if c < q0 // 2 else c - q0 + q1 for c in ref]
        else:                                          # short counts: a prefix of the poly
            n = rng.randrange(1, 256)
            got, _, _ = _sample(MODES[name], n, vm, stream, rtl=False)
            assert got == ref[:n]


def test_cbd_takes_exactly_the_needed_words():
    """Deterministic modes take exactly ceil(bytes/32) digest words."""
    for name, eta in (("cbd2", 2), ("cbd3", 3)):
        stream, _ = _cbd_case(1, eta, 0)
        stream = stream + bytes(256)
        _, job, _ = _sample(MODES[name], 256, 0, stream, rtl=False)
        assert len(job.xfer) == 64 * eta // 32


# ----------------------------------------------------------------------- (c) cycles
@pytest.mark.parametrize("name,case", [("uni12", lambda: _kem_a_case(5, 1, 2)),
                                       ("uni23", lambda: _dsa_a_case(5, 3, 4))])
def test_cycles_kmac_pace(name, case):
    stream, ref = case()
    vm = _ref_vmode(name)
    got, job, writer = _sample(MODES[name], 256, vm, stream, rtl=True, pace=168)
    assert got == ref
    # the last byte the reference algorithm needs
    pos, k = 0, 0
    while k < 256:
        b = stream[pos:pos + 3]
        if name == "uni12":
            k += b[0] + 256 * (b[1] & 15) < 3329
            k += k < 256 and (b[1] >> 4) + 16 * b[2] < 3329
        else:
            k += (b[0] | b[1] << 8 | (b[2] & 127) << 16) < 8380417
        pos += 3
    last_word = (pos - 1) // 32
    t_last_word = job.xfer[last_word]
    t_last_write = writer.writes[-1][0]
    print(f"\n{name}: {pos} bytes ({last_word + 1} words); first digest word at cycle "
          f"{job.xfer[0]}, last needed word at {t_last_word}, last write at {t_last_write}: "
          f"{t_last_write - job.xfer[0]} cycles from the first word, "
          f"{t_last_write - t_last_word} after the last needed word; words taken {len(job.xfer)}")
    assert t_last_write - t_last_word <= 10
    assert len(job.xfer) == last_word + 1, "the unit takes exactly the words it needs"


def test_verilog_converts():
    from amaranth.back import verilog
    text = verilog.convert(StreamUnit(DMEM_WORDS), name="stream_unit")
    assert "module stream_unit" in text


# ----------------------------------------------------------------------- (a) random
class RandomStim:
    """Random jobs back to back, random valid / gnt timing, restarts and aborts."""

    def __init__(self, rng):
        self.rng = rng
        self.next_start = 2
        self.abort_at = None
        self.pv = 1.0
        self.writer = Writer(rng, 0.7)
        self.jobs = 0
        self.aborts = 0
        self.writes = 0

    def inputs(self, c, outs):
        rng = self.rng
        inp = {"wr_gnt": self.writer.next(), "urnd": rng.getrandbits(256),
               "rd_gnt": int(rng.random() < 0.7), "rd_data": rng.getrandbits(256)}
        if rng.random() < self.pv:
            inp.update(dig_valid=1, dig_data=rng.getrandbits(256))
        elif rng.random() < 0.3:
            inp["dig_data"] = rng.getrandbits(256)          # garbage while not valid
        if not outs["busy"] and self.next_start is None:
            self.next_start = c + rng.choice([0, 0, 0, 1, 3])
        if self.abort_at == c:
            inp["abort"] = 1
            self.abort_at = None
            self.aborts += 1
            self.next_start = c + rng.choice([0, 1, 2])  # 0: abort + start together
        if self.next_start == c:
            self.next_start = None
            r = rng.random()
            count = (rng.randrange(1, 40) if r < 0.4 else rng.randrange(40, 300) if r < 0.9
                     else rng.choice([1, 8, 16, 256, 512]))
            mode = rng.choice([0, 1, 2, 3, 4, 5, 9, 10, 10, 11, 12])
            if mode == 11:                  # b2a1m: one word of bits (the core refuses more)
                count = rng.randint(1, 256)
            if mode == 12:                  # intm: whole words of 16, at most 16 (likewise)
                count = 16 * rng.randint(1, 16)
            inp.update(start=1, mode=mode, count=count, src=rng.randrange(DMEM_WORDS),
                       dst=rng.randrange(DMEM_WORDS), vmode=rng.randrange(2),
                       cfg=rng.getrandbits(32))
            self.jobs += 1
            self.pv = rng.choice([1.0, 0.8, 0.3, 0.1])
            self.writer.p = rng.choice([1.0, 0.9, 0.5, 0.2])
            if rng.random() < 0.2:
                self.abort_at = c + rng.randrange(1, 60)
            elif rng.random() < 0.05:
                self.next_start = c + rng.randrange(1, 30)   # restart while busy
        if rng.random() < 0.01:
            inp["start"] = inp.get("start", 0)
            inp["abort"] = 1 if not inp.get("start") else inp.get("abort", 0)
        if rng.random() < 0.01 and not inp.get("start"):   # spurious-looking inputs
            inp.update(mode=rng.randrange(16), count=rng.getrandbits(16))
        return inp

    def observe(self, c, inp, outs):
        if outs["wr_req"] and inp["wr_gnt"]:
            self.writes += 1

    def done(self, c, outs):
        return False


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_random_cycle_exact(seed):
    stim = RandomStim(random.Random(seed))
    _run(stim, 6000)
    assert stim.jobs > 20 and stim.writes > 200


# ----------------------------------------------------------------------- (d) masked modes
class MaskedJob:
    """One masked job: the digest stream in two shares, a URND output every cycle, DMEM
    writes recorded in order."""

    def __init__(self, mode, count, dst, b0, b1, rng, p_gnt=1.0, pv=1.0):
        self.mode, self.count, self.dst = mode, count, dst
        self.w0, self.w1 = _words(b0), _words(b1)
        self.rng, self.p_gnt, self.pv = rng, p_gnt, pv
        self.k = 0
        self.words = []            # URND's 32-bit words the unit stepped for, in order
        self.writes = []           # (cycle, address, data)
        self.on_port = []          # (wr_req, wr_addr) every cycle

    def inputs(self, c, outs):
        rng = self.rng
        inp = {"wr_gnt": int(rng.random() < self.p_gnt), "urnd": rng.getrandbits(256)}
        if c == 0:
            inp.update(start=1, mode=self.mode, count=self.count, dst=self.dst)
        if rng.random() < self.pv:
            inp["dig_valid"] = 1
            if outs["dig_share1"]:
                inp["dig_data"] = self.w1[self.k]
            elif outs["dig_ready"]:
                inp["dig_data"] = self.w0[self.k]
        return inp

    def observe(self, c, inp, outs):
        if outs["dig_ready"] and inp.get("dig_valid"):
            self.k += 1
        if outs["urnd_step"]:
            ws = [(inp["urnd"] >> (32 * j)) & 0xFFFF_FFFF for j in range(8)]
            self.words += ws[:6] if self.mode == 10 else ws
        if outs["wr_req"] and inp["wr_gnt"]:
            self.writes.append((c, outs["wr_addr"], outs["wr_data"]))
        self.on_port.append((outs["wr_req"], outs["wr_addr"], outs["wr_data"]))

    def done(self, c, outs):
        return c > 0 and not outs["busy"]


def _masked_case(eta, count, rtl, seed, p_gnt=1.0, pv=1.0, dst=8):
    rng = random.Random(seed)
    n = 64 * eta * -(-count // 256)
    b = rng.randbytes(n)
    b0 = rng.randbytes(n)
    b1 = bytes(x ^ y for x, y in zip(b, b0))
    job = MaskedJob(9 if eta == 2 else 10, count, dst, b0, b1, rng, p_gnt, pv)
    _run(job, 6000, rtl=rtl)
    words = -(-count // 16)
    mem0 = _mem([w for w in job.writes if w[1] < dst + words])
    mem1 = _mem([w for w in job.writes if w[1] >= dst + words])
    return job, b, b0, b1, _coeffs(mem0, dst, count, 0), _coeffs(mem1, dst + words, count, 0)


@pytest.mark.parametrize("eta,rtl,p_gnt,pv", [(2, True, 1.0, 1.0), (3, True, 0.6, 0.5),
                                              (2, False, 0.3, 0.3), (3, False, 1.0, 1.0)])
def test_masked_cbd_modes_share_kyber_py_cbd(eta, rtl, p_gnt, pv):
    from ip.acc.iss import masked_cbd as mc
    job, b, b0, b1, e0, e1 = _masked_case(eta, 256, rtl, 10 * eta + rtl, p_gnt, pv)
    want = _kem_cbd(b, eta)
    assert [(x + y) % Q[0] for x, y in zip(e0, e1)] == want
    assert e0 != want and e1 != want
    assert (e0, e1) == mc.masked_cbd(b0, b1, eta, job.words)
    assert job.k == 2 * eta                     # exactly the digest words it needs
    # a word of share 0 and one of share 1 never on the write port in consecutive cycles
    words = 16
    for (r0, a0, d0), (r1, a1, d1) in zip(job.on_port, job.on_port[1:]):
        if d0 and d1:
            assert (a0 < 8 + words) == (a1 < 8 + words), "the two shares' words follow each other"
    assert all(d == 0 for r, _, d in job.on_port if not r), "data on the port without a write"


@pytest.mark.parametrize("eta,count", [(2, 1), (2, 17), (3, 5), (3, 33)])
def test_masked_cbd_short_counts(eta, count):
    job, b, b0, b1, e0, e1 = _masked_case(eta, count, True, count)
    assert [(x + y) % Q[0] for x, y in zip(e0, e1)] == _kem_cbd(b[:64 * eta], eta)[:count]


def _kem_cbd(b, eta):
    from kyber_py.ml_kem.default_parameters import ML_KEM_768 as P
    return P.R.cbd(b, eta).coeffs


class B2aJob(MaskedJob):
    """b2a1m: DMEM words src (share 0), src + 1 (public), src + 2 (share 1) read through the
    unit's read port (data the cycle after the grant)."""

    def __init__(self, count, dst, src, mem, rng, p_gnt=1.0):
        super().__init__(11, count, dst, b"", b"", rng, p_gnt)
        self.src, self.mem, self.pending, self.reads = src, mem, None, []

    def inputs(self, c, outs):
        inp = super().inputs(c, outs)
        inp.pop("dig_valid", None)
        if c == 0:
            inp["src"] = self.src
        inp["rd_gnt"] = int(self.rng.random() < self.p_gnt)
        inp["rd_data"] = self.mem.get(self.pending, self.rng.getrandbits(256)) if self.pending is not None else 0
        return inp

    def observe(self, c, inp, outs):
        super().observe(c, inp, outs)
        self.pending = outs["rd_addr"] if outs["rd_req"] and inp["rd_gnt"] else None
        if self.pending is not None:
            self.reads.append(self.pending)


@pytest.mark.parametrize("count,rtl,p_gnt", [(256, True, 1.0), (256, True, 0.5), (77, True, 0.8),
                                             (256, False, 0.3)])
def test_b2a1m_converts_a_word_of_bits_read_from_dmem(count, rtl, p_gnt):
    """E0 + E1 = each bit of share 0 ^ share 1 (mod q), neither share the bits; the unit reads
    share 0, the public word, share 1 in that order (the read register never goes from one
    share to the other); (E0, E1) are masked_cbd's one-bit gadget on the words it stepped for."""
    from ip.acc.iss import masked_cbd as mc
    rng = random.Random(count + rtl)
    x, x0 = rng.getrandbits(256), rng.getrandbits(256)
    src, dst = 40, 8
    mem = {src: x0, src + 1: 0, src + 2: x ^ x0}
    job = B2aJob(count, dst, src, mem, rng, p_gnt)
    _run(job, 2000, rtl=rtl)
    assert job.reads == [src, src + 1, src + 2]
    words = -(-count // 16)
    e0 = _coeffs(_mem([w for w in job.writes if w[1] < dst + words]), dst, count, 0)
    e1 = _coeffs(_mem([w for w in job.writes if w[1] >= dst + words]), dst + words, count, 0)
    bits = [(x >> i) & 1 for i in range(count)]
    assert [(a + b) % Q[0] for a, b in zip(e0, e1)] == bits
    assert e0 != bits and e1 != bits
    r = [mc.r_of_word(w) for w in job.words]
    b0 = [(x0 >> i) & 1 for i in range(count)]
    b1 = [((x ^ x0) >> i) & 1 for i in range(count)]
    ref = [mc.stage1([p], [q_], [rr], signs=(1,)) for p, q_, rr in zip(b0, b1, r)]
    assert e0 == [v for v, _ in ref]
    assert e1 == [mc.stage2(a, [p], signs=(1,)) for (_, a), p in zip(ref, b0)]


class IntmJob(B2aJob):
    """intm: per group g, DMEM words src + g (share 0), a public word, src + n + g (share 1),
    the public word again, through the unit's read port."""

    def __init__(self, count, dst, src, mem, cfg, rng, p_gnt=1.0):
        super().__init__(count, dst, src, mem, rng, p_gnt)
        self.mode, self.cfg = 12, cfg

    def inputs(self, c, outs):
        inp = super().inputs(c, outs)
        if c == 0:
            inp["cfg"] = self.cfg
        return inp


@pytest.mark.parametrize("count,stride0,rtl,p_gnt", [(256, False, True, 1.0), (64, False, True, 0.5),
                                                     (48, True, True, 0.8), (256, True, False, 0.3)])
def test_intm_gives_each_interval_bit_in_two_boolean_shares(count, stride0, rtl, p_gnt):
    """ok0 ^ ok1 at dst / dst + 1 = [(x - lo) mod q < w_base + delta] per coefficient (bit i),
    neither share the bits; the reads alternate share, public, share, public (the read register
    never goes from one share to the other), and nothing but the two words is written."""
    rng = random.Random(count + 2 * stride0 + rtl)
    n = count // 16
    src, pub, dst, w_base = 40, 100, 8, 208
    xs = [rng.randrange(Q[0]) for _ in range(count)]
    lo = [rng.randrange(Q[0]) for _ in range(16 if stride0 else count)]
    delta = [rng.randrange(2) for _ in lo]
    x0 = [rng.randrange(Q[0]) for _ in xs]
    x1 = [(x - a) % Q[0] for x, a in zip(xs, x0)]

    def word(vals):
        return sum(v << (16 * i) for i, v in enumerate(vals))
    mem = {}
    for g in range(n):
        mem[src + g], mem[src + n + g] = word(x0[16 * g:16 * g + 16]), word(x1[16 * g:16 * g + 16])
    for g in range(1 if stride0 else n):
        mem[pub + g] = word([a | d << 12 for a, d in zip(lo[16 * g:16 * g + 16], delta[16 * g:16 * g + 16])])
    job = IntmJob(count, dst, src, mem, w_base << 20 | pub << 8 | stride0 << 7, rng, p_gnt)
    _run(job, 8000, rtl=rtl)
    want_reads = []
    for g in range(n):
        p = pub if stride0 else pub + g
        want_reads += [src + g, p, src + n + g, p]
    assert job.reads == want_reads
    assert [a for _, a, _ in job.writes] == [dst, dst + 1]
    ok0, ok1 = job.writes[0][2], job.writes[1][2]
    want = sum(int((x - lo[i % 16 if stride0 else i]) % Q[0] < w_base + delta[i % 16 if stride0 else i]) << i
               for i, x in enumerate(xs))
    assert ok0 ^ ok1 == want and ok0 != want and ok1 != want
    assert all(d == 0 for r, _, d in job.on_port if not r), "data on the port without a write"
