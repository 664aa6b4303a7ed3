# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""`pqsoc sca tvla` on the ACC's RTL power model (issue #38, CI-sized): today's unmasked ML-KEM
decapsulation is flagged, confirmed by both independent halves of the traces; the control (the
same program, classes that differ in nothing it reads) stays under the threshold at the first and
second order; G, J and the PRF through the masked KMAC stay under it, and so does the masked
decryption and its decoding gadget on the buses between units too (the ports blanked, the
gadget's schedule disciplined; flagged there before 4 Dec); the seeded leaks of the decoding gadget and of G, J and the PRF are
flagged; the model covers the registers the ISA names and the buses."""
import json

import pytest

from pqsoc import cli


@pytest.fixture(scope="module")
def power_model():
    from ip.acc import block
    from ip.acc.dv.power import PowerBackend
    be = PowerBackend(block.IMEM_SIZE, block.DMEM_SIZE)
    be.build()
    return be


def test_the_model_covers_the_architectural_registers(power_model):
    from ip.acc.tools.isa import load_isa
    w = power_model.widths
    isa = load_isa()
    assert w["wide"] >= isa.wdrs * 256 + 256           # w0.. and the accumulator
    assert w["core"] >= 32 * 31                        # x1..x31 at least
    assert w["dmem"] >= 256 + 256                      # read-data register and write data
    assert w["kmac"] >= 1600                           # the Keccak state
    assert w["random"] >= 288 + 8 * 32                 # URND's state, RND's pool
    assert w["operands"] >= 4 * 256 + 32               # the wide ALU's a, b, result; both write-backs
    assert w["sideload"] >= 3 * 256                    # message words, their second share, digest


def test_a_port_the_instruction_does_not_read_carries_0(power_model):
    """Operand blanking (ip/acc/rtl/core.py): port b's register index is bits 20..24 of every
    word, addi's immediate there; `addi x4, x0, 1` or `, 2` names w1 (all ones) or w2 (zero)
    without reading either, and the operand buses, the read ports' mux outputs among them,
    toggle the same in both runs; so with port c, whose index is most instructions'
    destination (`bn.bcast w1` or `w2` writes and reads nothing). The control: bn.and reading
    w1 or w2 on port b (a real read) toggles them differently."""
    import numpy as np
    from ip.acc.dv.power import UNITS
    from ip.acc.dv.tvla import MAX_CYCLES
    from ip.acc.tools.asm import assemble
    from ip.acc.tools.isa import load_isa
    bn_and = next(i for i in load_isa().insns if i.mnemonic == "bn.and")
    assert bn_and.operands["wrs2"].slices[0][0].lo == 20
    dmem = b"\xff" * 32 + bytes(32)
    col = list(power_model.widths).index("operands")
    assert "operands" in UNITS

    def operands(middle):
        words = assemble(f"bn.lw w1, 0(x0)\nbn.lw w2, 32(x0)\naddi x5, x0, 0\n{middle}\naddi x5, x0, 0\necall\n")
        (res,), (trace,) = power_model.run_power([(words, dmem, MAX_CYCLES, [])])
        assert res.halt == "ecall"
        return trace[:, col]

    assert np.array_equal(operands("addi x4, x0, 1"), operands("addi x4, x0, 2"))
    assert np.array_equal(operands("bn.bcast w1, x0"), operands("bn.bcast w2, x0"))
    assert not np.array_equal(operands("bn.and w3, w0, w1"), operands("bn.and w3, w0, w2"))


@pytest.fixture(scope="module")
def unmasked(power_model, tmp_path_factory):
    out = tmp_path_factory.mktemp("sca") / "u.json"
    assert cli.main(["sca", "tvla", "mlkem768_decaps_unmasked", "--traces", "100", "--expect-leak",
                     "--json", str(out)]) == 0
    return out


def test_unmasked_decaps_is_flagged(unmasked):
    rep = json.loads(unmasked.read_text())
    first = rep["orders"]["1"]
    assert first["leaks"] and first["max_abs_t"] > 4.5
    assert rep["traces"]["fixed"] + rep["traces"]["random"] == 100 and min(rep["traces"].values()) > 30
    assert rep["first_flagged_at_traces"] is not None
    # where it leaks: the secret's own datapath (its largest |t| outside the public imem / bus)
    assert first["unit"] not in ("imem", "bus")
    assert unmasked.with_suffix(".png").stat().st_size > 1000


def test_a_campaign_of_chunks_is_the_serial_assessment(unmasked, tmp_path, monkeypatch, capsys):
    """The same 100 traces in two tasks of 50 (pqsoc campaign tvla): the merged accumulators give
    the serial run's t values, so its report's figures are the serial one's."""
    from pqsoc.cli import campaign
    monkeypatch.setattr(campaign, "CAMPAIGNS", tmp_path)
    out = tmp_path / "camp.json"
    assert cli.main(["campaign", "tvla", "mlkem768_decaps_unmasked", "--traces", "100", "--chunk", "50",
                     "--workers", "2", "--name", "tv", "--json", str(out)]) == 0
    assert "LEAKS" in capsys.readouterr().out
    serial, merged = json.loads(unmasked.read_text()), json.loads(out.read_text())
    assert merged["traces"] == serial["traces"] and merged["tasks"]["passed"] == 2
    for unit, s in serial["orders"]["1"]["units"].items():
        m = merged["orders"]["1"]["units"][unit]
        assert m["max_abs_t"] == pytest.approx(s["max_abs_t"], abs=0.011) and m["cycle"] == s["cycle"]
        assert m["cycles_confirmed"] == s["cycles_confirmed"]
    assert (tmp_path / "tv_t.png").is_file()


def test_a_resume_must_measure_what_its_finished_tasks_did(unmasked, tmp_path, monkeypatch, capsys):
    """--resume checks, before a task runs, that the finished chunks measured the program and
    power model the rest would (their fingerprint) and hold the traces their task ran: traces of
    two programs, or another run's, must not merge into one t-test. Here a finished chunk's tag
    is made another's, as a program changed between sessions would leave it, then its file
    holds both chunks' traces."""
    from pqsoc import REPO
    from pqsoc.campaign.db import CampaignDB
    from pqsoc.cli import campaign
    from pqsoc.sca.ttest import Assessment
    monkeypatch.setattr(campaign, "CAMPAIGNS", tmp_path)
    argv = ["campaign", "tvla", "mlkem768_decaps_unmasked", "--traces", "100", "--chunk", "50", "--workers", "1",
            "--name", "tv", "--seed", "3"]

    def second_pending():
        db = CampaignDB(tmp_path / "tv.sqlite")
        with db.con:
            db.con.execute("UPDATE tasks SET state = 'pending' WHERE key = 't000000050'")
        db.close()
    assert cli.main(argv) == 0
    second_pending()
    assert cli.main(argv + ["--resume"]) == 0
    assert "1 finished tasks measured what the rest will" in capsys.readouterr().err
    first = REPO / "build" / "sca" / "mlkem768_decaps_unmasked-s3" / "000000000+50.npz"
    ours = Assessment.load(first)
    part = Assessment.load(first)
    part.tag = "0" * 16
    part.save(first)
    second_pending()
    assert cli.main(argv + ["--resume"]) == 2
    err = capsys.readouterr().err
    assert "task t000000000 measured mlkem768_decaps_unmasked as 0000000000000000" in err and "changed" in err
    # the merge refuses it too (a campaign whose chunks were not checked: the summary of all rows)
    with pytest.raises(Exception, match="another measurement"):
        Assessment.load(first).merge(Assessment.load(first.with_name("000000050+50.npz")))
    # the right measurement, but not the traces the task ran (another run wrote the file)
    ours.merge(Assessment.load(first.with_name("000000050+50.npz")))
    ours.save(first)
    assert cli.main(argv + ["--resume"]) == 2
    assert "holds 100 traces, the task ran 50" in capsys.readouterr().err


def test_the_control_stays_under_the_threshold(power_model, tmp_path):
    out = tmp_path / "c.json"
    assert cli.main(["sca", "tvla", "mlkem768_decaps_control", "--traces", "100", "--order", "2",
                     "--expect-pass", "--json", str(out)]) == 0
    rep = json.loads(out.read_text())
    assert not rep["orders"]["1"]["leaks"] and not rep["orders"]["2"]["leaks"]
    assert rep["first_flagged_at_traces"] is None


def test_the_masked_decryption_stays_under_the_threshold(power_model, tmp_path):
    """Masked K-PKE.Decrypt (ip/acc/kernels/mlkem/masked_decrypt.py: per-share products and INTT,
    then the masked decoding gadget): s_hat fixed vs random, the ciphertext the same in every
    trace (so the fixed class's v - w, the gadget's input, is fixed too); shares and masks fresh.
    Every unit, the buses included. Before the multiplier's operand isolation
    (ip/acc/rtl/wide_alu.py) its stage register mixed two instructions' operands and the
    gadget was flagged after 200 traces; before the bus discipline (4 Dec) its operand buses."""
    out = tmp_path / "m.json"
    assert cli.main(["sca", "tvla", "mlkem768_decrypt_masked_fixed_public", "--traces", "200",
                     "--batch", "100", "--expect-pass", "--json", str(out)]) == 0
    rep = json.loads(out.read_text())
    assert min(rep["traces"].values()) > 60 and rep["first_flagged_at_traces"] is None
    assert rep["model"] == "buses" and rep["orders"]["1"]["units"]["operands"]["max_abs_t"] > 0
    assert rep["orders"]["1"]["units"]["wide"]["max_abs_t"] > 0


def test_the_masked_decoding_passes_on_the_buses(power_model, tmp_path):
    """The buses between units (4 Dec, docs/side_channels.md): the decoding gadget took one
    domain's share and then the other's on the same operand bus (flagged at 200 traces: 20
    confirmed cycles in `operands`). With the ports blanked (ip/acc/rtl/core.py) and its schedule
    following the bus discipline (share_check's transitions clean), it passes there."""
    out = tmp_path / "d.json"
    assert cli.main(["sca", "tvla", "mlkem_decode_masked", "--traces", "200", "--batch", "100",
                     "--expect-pass", "--json", str(out)]) == 0
    rep = json.loads(out.read_text())
    assert rep["model"] == "buses" and rep["first_flagged_at_traces"] is None
    units = rep["orders"]["1"]["units"]
    assert units["operands"]["cycles_confirmed"] == 0 and units["operands"]["max_abs_t"] > 0


@pytest.mark.parametrize("name", ["mlkem_decode_masked", "mlkem768_decrypt_masked", "mlkem_g_masked",
                                  "mlkem_j_masked", "mlkem_prf_masked", "mlkem_cbd_masked",
                                  "mlkem_b2a_masked", "mlkem768_encrypt_masked", "mlkem768_compare_masked",
                                  "mlkem_select_masked", "mlkem512_decaps_masked", "mlkem768_decaps_masked",
                                  "mlkem1024_decaps_masked"])
def test_the_masked_programs_are_the_same_on_rtl_and_iss(power_model, name):
    """ISS = RTL: cycles, halt and the whole DMEM (outputs, planes, the wipe)."""
    import numpy as np
    from ip.acc import block
    from ip.acc.dv.lockstep import IssBackend
    from ip.acc.dv.tvla import MAX_CYCLES, program
    prog = program(name)
    dmem, entropy = prog.inputs(np.random.default_rng(9), None)
    (rtl,), (trace,) = power_model.run_power([(prog.words(), dmem, MAX_CYCLES, entropy)])
    iss = IssBackend(block.IMEM_SIZE, block.DMEM_SIZE).run(prog.words(), dmem, MAX_CYCLES, entropy)
    assert rtl.halt == iss.halt == "ecall"
    assert (rtl.cycles, rtl.insns, rtl.dmem) == (iss.cycles, iss.insns, iss.dmem)
    assert trace.shape[0] >= rtl.cycles


@pytest.mark.parametrize("leak, traces", [("sum", 50), ("no_fresh", 300)])
def test_seeded_leaks_in_the_masked_decoding_are_flagged(power_model, tmp_path, leak, traces):
    """The shares added at the start (flagged at once), and DOM ANDs without their fresh r
    (one share and the unmasked other operand together: flagged after ~300 traces)."""
    out = tmp_path / f"{leak}.json"
    assert cli.main(["sca", "tvla", f"mlkem_decode_masked_{leak}", "--traces", str(traces),
                     "--batch", "100", "--model", "registers", "--expect-leak", "--json", str(out)]) == 0
    rep = json.loads(out.read_text())
    assert rep["orders"]["1"]["unit"] == "wide"


def test_g_through_the_masked_kmac_stays_under_and_its_seeded_leak_does_not(power_model, tmp_path):
    """G(m' || h) with m' in two shares through the KMAC's masked mode, h the same in every trace
    (so the fixed class's K' and r' are fixed and the digest wires' values tested): under the
    threshold in every unit (the KMAC's registers and the buses included); m' combined in a
    register and hashed as a public word: flagged in the KMAC (its intake and state) and the
    wide registers."""
    out = tmp_path / "g.json"
    assert cli.main(["sca", "tvla", "mlkem_g_masked_fixed_public", "--traces", "200", "--batch", "100",
                     "--expect-pass", "--json", str(out)]) == 0
    rep = json.loads(out.read_text())
    assert min(rep["traces"].values()) > 60 and rep["first_flagged_at_traces"] is None
    out = tmp_path / "combined.json"
    assert cli.main(["sca", "tvla", "mlkem_g_masked_combined", "--traces", "100", "--batch", "50",
                     "--expect-leak", "--json", str(out)]) == 0
    units = json.loads(out.read_text())["orders"]["1"]["units"]
    assert units["kmac"]["cycles_confirmed"] > 0 and units["wide"]["cycles_confirmed"] > 0


@pytest.mark.parametrize("kind", ["j", "prf", "cbd"])
def test_j_and_the_prf_through_the_masked_kmac_stay_under_and_their_seeded_leaks_do_not(power_model, tmp_path,
                                                                                          kind):
    """J(z || c) with z in two shares and c public, the same in every trace, PRF(r', N) for
    N = 0 .. 6 with r' in two shares, and the same PRF outputs sampled by the stream unit's
    masked mode: under the threshold in every unit, the buses included. The PRF (r' fixed in
    class 0, so its output too) was flagged at once on the side-load's digest wires while
    kmac.dig1 and kmac.dig put a word's two shares on them back to back; the KMAC now drives
    each share only while asked for and the programs read them a cycle apart (masked_hash.SEP).
    The secret combined in a register and hashed as a public word: flagged in the KMAC."""
    out = tmp_path / f"{kind}.json"
    name = {"j": "mlkem_j_masked_fixed_public", "prf": "mlkem_prf_masked", "cbd": "mlkem_cbd_masked"}[kind]
    assert cli.main(["sca", "tvla", name, "--traces", "100", "--batch", "50",
                     "--expect-pass", "--json", str(out)]) == 0
    rep = json.loads(out.read_text())
    assert min(rep["traces"].values()) > 30 and rep["first_flagged_at_traces"] is None
    out = tmp_path / "combined.json"
    assert cli.main(["sca", "tvla", f"mlkem_{kind}_masked_combined", "--traces", "100", "--batch", "50",
                     "--expect-leak", "--json", str(out)]) == 0
    assert json.loads(out.read_text())["orders"]["1"]["units"]["kmac"]["cycles_confirmed"] > 0


def assess(tmp_path, name: str, traces: int, batch: int, expect: str) -> dict:
    """`pqsoc sca tvla NAME` with --expect-pass / --expect-leak (its exit code 0 asserted); the report."""
    out = tmp_path / f"{name}.json"
    assert cli.main(["sca", "tvla", name, "--traces", str(traces), "--batch", str(batch),
                     f"--expect-{expect}", "--json", str(out)]) == 0
    return json.loads(out.read_text())


def test_m_prime_s_b2a_by_the_stream_unit_stays_under_and_its_joined_outputs_do_not(power_model, tmp_path):
    """256 secret bits (m') from Boolean to arithmetic shares by smp.run b2a1m, the bits fixed
    vs random: under the threshold in every unit, its reads through the DMEM read register and
    its writes included; the two output shares' first words loaded into one register after
    it: flagged (on the DMEM read register and the wide registers)."""
    assert assess(tmp_path, "mlkem_b2a_masked", 200, 200, "pass")["first_flagged_at_traces"] is None
    rep = assess(tmp_path, "mlkem_b2a_masked_joined", 600, 200, "leak")
    assert rep["orders"]["1"]["units"]["dmem"]["cycles_confirmed"] > 0


def test_the_masked_re_encryption_stays_under_and_its_joined_noise_does_not(power_model, tmp_path):
    """m' || r' fixed vs random, a fresh key pair each trace: under the threshold in every unit;
    the last noise polynomial's words loaded into one register in share 0 and then share 1:
    flagged on the DMEM read register."""
    assert assess(tmp_path, "mlkem768_encrypt_masked", 100, 100, "pass")["first_flagged_at_traces"] is None
    rep = assess(tmp_path, "mlkem768_encrypt_masked_joined", 400, 200, "leak")
    assert rep["orders"]["1"]["units"]["dmem"]["cycles_confirmed"] > 0


def test_the_masked_re_encryption_check_stays_under_and_its_unmasked_ands_do_not(power_model, tmp_path):
    """u', v' fixed (they compress to c, the check passes) vs random (it fails), c the same in
    every trace: under the threshold (its first version leaked at once on the operand buses:
    a load's reader stalled with the other domain's value still in the register, now a SEP);
    its DOM ANDs without their fresh words: flagged."""
    assert assess(tmp_path, "mlkem768_compare_masked", 100, 100, "pass")["first_flagged_at_traces"] is None
    assess(tmp_path, "mlkem768_compare_masked_no_fresh", 100, 100, "leak")


def test_the_masked_selection_stays_under(power_model, tmp_path):
    """K = ok ? K' : K-bar on shares, (ok, K', K-bar) fixed (ok = 1) vs random: under the
    threshold in every unit."""
    assert assess(tmp_path, "mlkem_select_masked", 200, 200, "pass")["first_flagged_at_traces"] is None


def test_the_masked_decapsulation_stays_under(power_model, tmp_path):
    """The whole masked decapsulation, s_hat and z fixed vs random, ek, H(ek) and c fresh in
    both classes: under the threshold in every unit (CI's size; reports/sca/ holds the long
    run)."""
    assert assess(tmp_path, "mlkem768_decaps_masked", 100, 100, "pass")["first_flagged_at_traces"] is None


def test_a_window_is_the_start_of_the_whole_run(power_model):
    """--cycles: each trace stopped after its first cycles (and the driver's 16) is the whole
    run's over those cycles. With a trace per simulator (batch 1) both start from reset and the
    t values are equal; in a batch, a trace also sees what the one before left (a stopped run
    leaves other state than a finished one: a few early cycles differ, of a trace of an
    independent class). A window is its own measurement (fingerprint): no campaign merges it
    with whole runs."""
    import numpy as np
    from ip.acc.dv import tvla
    quiet = lambda m: None                                   # noqa: E731
    _, whole, _ = tvla.assess("mlkem768_decaps_unmasked", 12, batch=1, log=quiet)
    rep, window, _ = tvla.assess("mlkem768_decaps_unmasked", 12, batch=1, log=quiet, cycles=300)
    n = window.whole().t(1).shape[0]
    assert n == 316 and rep["window_cycles"] == 300 and whole.whole().t(1).shape[0] > 5000
    assert np.array_equal(window.whole().t(1), whole.whole().t(1)[:n], equal_nan=True)
    assert window.tag != whole.tag
    assert window.tag == tvla.measured("mlkem768_decaps_unmasked", cycles=300)


def test_bad_requests_are_refused_by_name(capsys, tmp_path, monkeypatch):
    assert cli.main(["sca", "tvla", "nosuch", "--traces", "10"]) == 2
    assert "unknown program 'nosuch'" in capsys.readouterr().err
    # the gate-level model needs the netlist of `pqsoc synth acc`: without one, it says so
    from pqsoc.flow import synth
    monkeypatch.setattr(synth, "synth_dir", lambda name: tmp_path / "no_synth" / name)
    assert cli.main(["sca", "tvla", "mlkem768_decaps_unmasked", "--traces", "10", "--engine", "gls"]) == 2
    assert "pqsoc synth acc" in capsys.readouterr().err
    for cmd in ("sca", "campaign"):
        assert cli.main([cmd, "tvla", "mlkem768_decaps_unmasked", "--traces", "10", "--engine", "gls",
                         "--model", "registers"]) == 2
        assert "gate-level model counts every net" in capsys.readouterr().err
    assert cli.main(["sca", "tvla", "keccak_masked", "--traces", "10", "--model", "registers"]) == 2
    assert "no buses to leave out" in capsys.readouterr().err
    for cmd in ("sca", "campaign"):
        assert cli.main([cmd, "tvla", "keccak_masked", "--traces", "10", "--cycles", "100"]) == 2
        assert "one permutation" in capsys.readouterr().err
