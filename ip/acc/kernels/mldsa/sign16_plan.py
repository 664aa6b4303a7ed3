# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""The DMEM plans of the 16 KiB ML-DSA signer (sign16.py) for ML-DSA-44 / -65 / -87: the
regions each layout needs, the options that were weighed to make ML-DSA-87 fit (plan()
["options"], with their verdicts) and the one chosen (plan(87)["chosen"]: w packed 24-bit,
one A tile), with the building-block cycles that priced it. Sizes only: no code is
generated here; sign16.Sign16 lays its DMEM out to these figures (checked there and in
ip/acc/tests/test_mldsa_sign16.py).
"""
from ip.acc.kernels.asm_util import a32
from ip.acc.kernels.mldsa import layout, params

DMEM = 16 * 1024             # ip/acc/block.py DMEM_SIZE (checked in the tests)

# FIPS 204 Table 1 / 2, signature side: set -> (lambda bits, gamma1 bits, omega); with
# params.SETS' (k, l, eta). Checked against dilithium-py in the tests.
SIG_SETS = {44: (128, 17, 80), 65: (192, 19, 55), 87: (256, 19, 75)}

# ML-DSA-87 building-block cycles (ISS; ip/acc/tests/test_mldsa_sign16.py::test_mac_acc24
# measures them): one A_hat entry multiply-accumulated into a 32-bit w_i (mac_acc_body, x 8),
# into a 24-bit packed w_i (products.mac_acc24_body, x 8), and one uni23 entry sampled alone
ENTRY_CYCLES = {"mac32": 191, "mac24": 321, "sample": 161}


def plan(param: int) -> dict:
    """This program's DMEM plan for ML-DSA-44 / -65 / -87 (bytes; the layout of 44 and 65;
    87 runs on plan(87)["chosen"]): the regions in address order and END, the peak. The sets differ
    in the packed key (s in 3 or 4 bits, t0), w (k KiB), the hint area (k bitmaps, omega
    + k hint bytes) and the signature, which must fit with y_j / c s1_j (2 KiB) over w,
    else past TILE. "options": the layouts considered to fit 16 KiB (name -> peak of the
    w = A y phase, which is the peak of every option: constants, key, w, y_hat_j and the A
    tiles are all live there); "chosen": _chosen_plan (ML-DSA-87)."""
    k, l, eta = params.SETS[param]
    lam, g1bits, omega = SIG_SETS[param]
    sbits = 3 if eta == 2 else 4
    sig_len = lam // 4 + l * 32 * (g1bits + 1) + omega + k
    hw = -(-(omega + k) // 32) * 32 * 4            # hint bytes, one per word
    xc = layout.KC + 32 * len(layout.CONST_NAMES)
    hb = xc + 32 * len(layout._XC_NAMES) + 128     # after the XC words and the DBT
    scratch = hb + 32 * k + 64 + hw + 96           # HB, FLAG, CNTS, HW, CTIL, CNT
    keyp = max(hb + 1024, scratch + 128)           # TILE2 over the scratch, key head
    key = (k + l) * 32 * sbits + k * 416
    w = keyp + key
    tile = w + k * 1024 + 1024
    end = tile + 1024
    extra = 0 if 16 + sig_len + 3 + 2048 <= k * 1024 else 2048
    regions = {"constants": (0, xc), "XC words + DBT": (xc, hb),
               "TILE2 over HB / FLAG / CNTS / HW / CTIL / CNT / key head": (hb, keyp),
               "key: s1 | s2 | t0 packed": (keyp, w), "W (w, then SIG, YB, SB)": (w, w + k * 1024),
               "YJ / CH": (w + k * 1024, tile), "TILE": (tile, end)}
    if extra:
        regions["YB, SB (past TILE: the signature fills w)"] = (end, end + extra)
    peak = end + extra
    # name -> (peak of the w = A y phase, verdict)
    options = {
        "this layout (two A tiles, w 32-bit)": (peak, "ML-DSA-44 / -65"),
        "t0 streamed by the host per polynomial": (
            peak - k * 416, "rejected: a host protocol in the middle of the program"),
        "(a) one A tile": (peak - 1024, "too large alone"),
        "(b) w packed 24-bit, two A tiles": (peak - 256 * k, "too large alone"),
        "(b') w packed 23-bit, two A tiles": (peak - 288 * k, "too large alone"),
        "(a) + (b): one A tile, w packed 24-bit": (
            peak - 1024 - 256 * k, "chosen (plan()['chosen'])"),
        # rows one at a time, y_j regenerated for every row: the finished rows packed,
        # one row 32-bit, y_hat_j, one tile
        "(g) row by row, y regenerated, w packed 24-bit, one A tile": (
            keyp + key + 768 * (k - 1) + 1024 + 1024, "too large, and k x the ExpandMask"),
        # ITWID's words 0..30 are TWID's 31..1 negated in reverse lane order, but the
        # within-word GS butterflies take consecutive lanes and the ACC has no lane
        # reversal: an INTT on TWID alone is a new transform
        "(f) + (b): the INTT without ITWID (1056 B; its 64-byte last words kept), w packed, "
        "two A tiles": (peak - 256 * k - 1056 + 64, "rejected: needs a lane reversal"),
        # (c) w - c s2 kept denser, (d) more overlaps (signature, M', y_j / z_j, hint
        # scratch: all already over w or the tile) and (e) the key (already packed and
        # decoded on the fly, its head under the tile) change nothing in the w = A y
        # phase, the peak
    }
    out = {"regions": regions, "END": peak, "sig_len": sig_len, "key_packed": key,
           "fits": peak <= DMEM, "options": {n: {"peak": p, "fits": p <= DMEM, "verdict": v}
                                             for n, (p, v) in options.items()}}
    if param == 87:
        out["chosen"] = _chosen_plan(k, l, hb, keyp, key, sig_len, xc)
    return out


def _chosen_plan(k, l, hb, keyp, key, sig_len, xc):
    """ML-DSA-87 in 16 KiB: (a) + (b), the only option that fits without a host protocol
    or a lane reversal (plan()["options"]): w stays packed 24-bit (products.pack24, 768 B a
    polynomial) from w = 0 to the z phase, and one A tile lies over the hint scratch and
    the key's head (as TILE2 does). Regions and per-phase use (bytes):
    * TILEA (hb..keyp, 1024): the A tile; SIB; T (c s2_r: r0; c t0_r then packed in
      place, the upper 256 B the hint's unpack scratch); FLAG; SB (c s1_j: z); HW (hint
      bytes: sigEncode);
    * the key (s1 | s2 | t0 packed, the host's bytes; SK = keyp - 128 under TILEA);
    * W (6144): w packed. w = A y: mac_acc24_body (unpack, add, pack in registers); then
      per polynomial: unpack into YJ, INTT, HighBits absorbed into the c_tilde hash word
      by word (no w1Encode buffer), w_hat kept; r0: T = INTT(unpack(w_hat_r) - c_hat o
      s2_hat_r), the check on T, T packed into w_r; hint: c t0_r packed in place in T, per 4-word group
      c t0 and w - c s2 unpacked into T's upper 256 B and rounding.hint_body run on them,
      polynomials in reverse order with the bitmaps HB_r in w_{k-1}'s last 256 B (dead
      once w_{k-1} is read); z: the signature at W (4627 B + 13 zero bytes), YB after it
      (1024), HB untouched above;
    * YJ (1024): y_hat_j; then the unpack + INTT scratch; CH (c_hat);
    * tail: CTIL (64), CNT (32).
    The cycle cost (ENTRY_CYCLES, the building blocks measured on the ISS): an A entry
    takes ~max(sample, mac32) with two tiles, sample + mac24 with one packed tile done one
    after the other: +291 cycles an entry, +16.3 k an iteration (56 entries). The program
    (Sign16(87)) lets the MAC follow the sampler through SMP_STATUS's count of written
    coefficients instead (~526 cycles an entry in the program, the module docstring)."""
    kp = keyp
    w = kp + key
    yj = w + 768 * k
    tail = yj + 1024
    ctil, cnt = tail, tail + 64
    end = cnt + 32
    regions = {"constants, XC words + DBT": (0, hb), "TILEA": (hb, kp), "key": (kp, w),
               "W (w packed 24-bit)": (w, yj), "YJ / CH": (yj, tail), "CTIL": (ctil, cnt),
               "CNT": (cnt, end)}
    sig_end = a32(w + sig_len) + 32            # the hint words end within 32 B
    hb_bitmaps = yj - 32 * k
    base = kp + key + 768 * k + 1024            # constants, TILEA, key, W, YJ
    live = {                # phase -> bytes in use (the highest address used)
        "w = A y": base,
        "INTT + HighBits + c_tilde (CTIL)": base + 64,
        "challenge (SIB in TILEA, CH at YJ)": base + 64,
        "r0 (T in TILEA)": base + 64,
        "c t0 + hint (+ CNT; HB in w_(k-1))": base + 96,
        "z (signature + YB over W, SB in TILEA)": base + 96,
        "sigEncode (HW in TILEA)": base + 96,
    }
    assert sig_end + 1024 <= hb_bitmaps               # the signature and YB below HB
    assert max(live.values()) == end
    return {"name": "(a) + (b): one A tile, w packed 24-bit", "regions": regions,
            "END": end, "phases": live, "fits": end <= DMEM, "entry_cycles": ENTRY_CYCLES,
            "extra_cycles_per_entry": ENTRY_CYCLES["sample"] + ENTRY_CYCLES["mac24"] -
            max(ENTRY_CYCLES["sample"], ENTRY_CYCLES["mac32"])}
