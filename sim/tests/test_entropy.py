# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""The entropy source inside the simulation SoC (its rings the model: the same bits every run),
driven by firmware/lib/entropy.c (programs/entropy_selftest.c): the DRBG seeded and reseeded
from raw bits conditioned by SHA3-256 on the KMAC, recomputed here from the model's definition
(ip/entropy/tests/model_ref.py), hashlib's SHA3-256 and OpenSSL's HMAC-DRBG; the driver's error
paths and the health tests' self-test; the block's place in the SoC and its header."""
import hashlib
import json

from firmware import drbg_vectors
from ip.entropy import health
from ip.entropy.tests.model_ref import expected_words
from soc.target import ENTROPY_BASE, ENTROPY_SIZE, EXT_BASE, KMAC_SIZE

PERS, ADD = b"pqsoc entropy", b"reseed"     # programs/entropy_selftest.c
SEED_WORDS = -(-health.raw_bits_for(256) // 32)
MAX_GAP = 400              # words dropped in a pause: the DRBG's instantiation takes < 400 x 512 cycles
MAX_WORDS = 3 * SEED_WORDS + MAX_GAP


def conditioned(words: list[int]) -> bytes:
    return hashlib.sha3_256(b"".join(w.to_bytes(4, "little") for w in words)).digest()


def test_drbg_seeded_from_the_source_matches_the_reference(sim_run_json):
    res = sim_run_json("entropy_selftest", timeout_s=300)
    check_entropy_selftest(res["tests"])


def check_entropy_selftest(lines: list[dict], error_paths: bool = True):
    """programs/entropy_selftest.c's lines (on the simulation SoC, or the silicon SoC's RTL with the
    rings' model, sim/tests/test_silicon.py, whose boot RAM holds no error_paths): every test
    passed, and the DRBG's outputs are those of the model's raw words conditioned and fed to
    OpenSSL's HMAC-DRBG."""
    tests = {t["test"]: t for t in lines}
    assert list(tests) == ["entropy_seed_drbg"] + error_paths * [
        "entropy_stopped_source", "entropy_failure_stops_delivery", "entropy_health_selftest"]
    assert all(t["pass"] for t in lines)
    seed = tests["entropy_seed_drbg"]
    assert SEED_WORDS == 20
    # The words the firmware read are the model's stream after the start-up window, each block
    # of SEED_WORDS read back to back; while the CPU hashes and runs the DRBG between blocks the
    # source goes on, DATA keeps the first word completed and drops the later ones (doc/spec.md),
    # so a block after a pause starts with that word and goes on after the dropped ones. The
    # pauses' lengths (in words) are found by trying each: only the right ones give the outputs.
    ctrl, watermark = seed["ctrl_watermark"]         # CTRL after the stop (DIV kept), WATERMARK
    div = ctrl >> 8 & 0xFF
    assert ctrl & 1 == 0 and div == 15                # stopped; programs/entropy_selftest.c's DIV
    first, reseeded = seed["drbg"][:64], seed["drbg"][64:]
    stream = expected_words(MAX_WORDS, div)

    def block(start: int, gap: int) -> tuple[list[int], int]:
        """The block after the word before `start`, with `gap` words dropped after its first."""
        if gap == 0:
            return stream[start:start + SEED_WORDS], start + SEED_WORDS
        rest = start + 1 + gap
        return [stream[start]] + stream[rest:rest + SEED_WORDS - 1], rest + SEED_WORDS - 1

    entropy = conditioned(stream[:SEED_WORDS])
    found = {}
    for g1 in range(MAX_GAP):
        nonce_words, after = block(SEED_WORDS, g1)
        if drbg_vectors.run(entropy, conditioned(nonce_words)[:16], PERS, [("generate", 32, b"")])[0].hex() == first:
            found["nonce"] = g1
            break
    assert "nonce" in found, "no nonce block of the model's stream gives the DRBG's first output"
    for g2 in range(MAX_GAP):
        words, end = block(after, g2)
        if end > len(stream):
            break
        out = drbg_vectors.run(entropy, conditioned(nonce_words)[:16], PERS,
                               [("generate", 32, b""), ("reseed", conditioned(words), ADD), ("generate", 32, b"")])
        if out[1].hex() == reseeded:
            found["reseed"] = g2
            break
    assert "reseed" in found, "no reseed block of the model's stream gives the DRBG's second output"
    # (found here, 6 Dec: 2 words dropped while SHA3-256 conditions the first block, 75 while
    # the DRBG is instantiated and generates)
    # the model is no noise source, but a healthy-looking one: far from the cutoffs
    rct, apt = watermark & 0xFF, watermark >> 16 & 0x7FF      # WATERMARK.RCT, .APT
    assert 0 < rct < 41 and 0 < apt < 793


def test_entropy_source_sits_after_the_kmac_in_the_soc(soc_dir, firmware):
    """Region "entropy" right after the KMAC's in ext slot 0, in csr.json and mem.h, and the
    register header with what the driver takes from health.py."""
    csr = json.loads((soc_dir / "csr.json").read_text())
    region = csr["memories"]["entropy"]
    assert (region["base"], region["size"]) == (ENTROPY_BASE, ENTROPY_SIZE) == (EXT_BASE + KMAC_SIZE, 0x1000)
    firmware("entropy_selftest")
    from pqsoc import BUILD
    header = (BUILD / "firmware" / "gen" / "entropy_regs.h").read_text()
    for line in ("#define ENTROPY_SEED_RAW_WORDS 20u", "#define ENTROPY_APT_WINDOW 1024u",
                 "#define ENTROPY_RCT_CUTOFF_RESET 41u", "#define ENTROPY_APT_CUTOFF_RESET 793u",
                 "#define ENTROPY_H_CLAIM_MILLIBITS 500u", "#define ENTROPY_DATA_REG_OFFSET 0x00cu"):
        assert line in header
