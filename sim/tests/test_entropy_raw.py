# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""Raw bits for the entropy assessment (bringup/entropy_raw.py with
firmware/programs/entropy_collect.c) on the simulated chip, whose rings are their model: every
block is the model's own consecutive words (ip/entropy/tests/model_ref.py), where the words the
block's DROPPED register counted and the held word left out put it; a reader too slow for the
rate is refused by name; the host's file and summary."""
import json
import math

import pytest

from bringup import cli, entropy_raw
from bringup.socmap import SocMap
from bringup.uartbone import UartBone
from ip.entropy.tests.model_ref import expected_words

SIM_TIMEOUT_S = 300


def _session(soc_dir, model, firmware, tmp_path, body, max_cycles=30_000_000):
    from sim.run import serve_bridge
    soc = SocMap.load(soc_dir / "csr.json")
    with serve_bridge(firmware("entropy_collect"), soc_dir, model.parent, tmp_path, max_cycles,
                      SIM_TIMEOUT_S) as b:
        with UartBone(b.url, soc.baudrate, timeout=30) as bus:
            out = body(bus, soc)
            entropy_raw.finish(bus, soc)
            b.wait()
    assert b.result.reason == "exit" and b.result.ok, b.result.problems
    return out


def test_blocks_are_the_models_consecutive_words_where_dropped_puts_them(soc_dir, model, firmware, tmp_path):
    div, per = 15, 40

    def body(bus, soc):
        res = entropy_raw.collect(bus, soc, 3 * per * 32, div, per)
        # a block larger than the DMEM: the firmware refuses it by its status
        too_big = entropy_raw.ask(bus, soc.csr("ctrl_scratch"),
                                  entropy_raw.command(div, soc.constant("acc_dmem_size") // 4 + 1), 30)
        summary = entropy_raw.write(tmp_path / "raw.bin", res, div, soc)
        return res, too_big, summary, soc.clock_hz

    res, too_big, summary, clock_hz = _session(soc_dir, model, firmware, tmp_path, body)
    blocks = res["blocks"]
    assert [b["words"] for b in blocks] == [per] * 3 and res["dropped_blocks"] == 0
    # the CPU answers the host's polls slower than the source delivers: words are lost between
    # blocks (counted), none inside one
    assert blocks[1]["lost"] > blocks[0]["lost"]
    exp = expected_words(3 * per + 2 * 3 + blocks[-1]["lost"] + 1, div)
    taken = 0
    for k, b in enumerate(blocks):
        first = taken + b["held"] + b["lost"]
        assert res["words"][k * per:(k + 1) * per] == exp[first:first + per], k
        taken += b["held"] + per
    assert too_big["status"] == "arg"
    raw = (tmp_path / "raw.bin").read_bytes()
    assert len(raw) == 3 * per * 32 and set(raw) <= {0, 1}
    assert raw[:32] == bytes((res["words"][0] >> i) & 1 for i in range(32))
    on_disk = json.loads((tmp_path / "raw.bin.json").read_text())
    assert on_disk == summary and summary["samples"] == len(raw) and summary["div"] == div
    assert summary["sample_rate_hz"] == clock_hz / (div + 1)
    assert 0 < summary["mcv_min_entropy"] <= 1


def test_a_reader_slower_than_the_source_is_refused(soc_dir, model, firmware, tmp_path):
    """DIV 0 (a word every 32 cycles): the CPU's loop over the bus is slower, every block loses
    words, and after DROPPED_RETRIES blocks the host gives up naming the cause."""
    def body(bus, soc):
        with pytest.raises(entropy_raw.CollectError, match="blocks in a row lost a word at DIV 0"):
            entropy_raw.collect(bus, soc, 32 * 32, 0, 32)

    _session(soc_dir, model, firmware, tmp_path, body)


def test_most_common_value_estimate():
    """SP 800-90B 6.3.1 by hand: 600 ones in 1 000 samples, p = 0.6, its upper bound
    0.6 + 2.576 sqrt(0.6 * 0.4 / 999) = 0.639927, min-entropy -log2 of it = 0.644020."""
    assert math.isclose(entropy_raw.most_common_value(bytes([1] * 600 + [0] * 400)), 0.644020, abs_tol=1e-6)
    assert entropy_raw.most_common_value(bytes([0] * 10)) == 0.0
    with pytest.raises(ValueError):
        entropy_raw.most_common_value(b"\x01")


def test_replies_and_samples_decode():
    assert entropy_raw.reply(0x12345678) is None
    assert entropy_raw.reply(0xED31_0007) == {"status": "dropped", "held": 1, "lost": 7}
    assert entropy_raw.reply(0xED90_0000)["status"] == "unknown (9)"
    assert entropy_raw.command(15, 4096) == 0xEC0F_1000
    assert entropy_raw.samples([0x8000_0001]) == bytes([1] + [0] * 30 + [1])


def test_raw_entropy_takes_no_check(capsys):
    assert cli.main(["loop://", "--raw-entropy", "x.bin", "ident"]) == 2
    assert "--raw-entropy takes no CHECK" in capsys.readouterr().err


def test_block_sizes_outside_the_dmem_are_refused(soc_dir):
    soc = SocMap.load(soc_dir / "csr.json")
    for per in (31, soc.constant("acc_dmem_size") // 4 + 1):
        with pytest.raises(entropy_raw.CollectError, match="a block of"):
            entropy_raw.collect(None, soc, 1024, 15, per)
    with pytest.raises(entropy_raw.CollectError, match="DIV 256"):
        entropy_raw.collect(None, soc, 1024, 256, 32)
