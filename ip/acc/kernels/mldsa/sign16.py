# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""ML-DSA-65, ML-DSA-44 and ML-DSA-87 signing (FIPS 204 Alg. 7, ML-DSA.Sign_internal) as ONE
ACC program inside the taped-out memories (ip/acc/block.py IMEM_SIZE / DMEM_SIZE, 16 KiB
each), from one generator: the set is the argument (Sign16(param), signer(param)); the module-level names
(sign_program, image, SIG, SK_LEN, ...) are the ML-DSA-65 instance's. sign.py is the 32 KiB
ML-DSA-65 version. Checked on the ISS against dilithium-py, the signature byte for byte
(ip/acc/tests/test_mldsa_sign16.py).

    src = sign_program()                # ML-DSA-65; signer(44).program() for ML-DSA-44
    img = image(sk, msg, rnd)           # {address: bytes}: constants + inputs
    ... run (16 KiB IMEM and DMEM) ...
    dmem[STATUS] == STATUS_OK           # else STATUS_NAMES says why: nothing signed
    sig = dmem[SIG:SIG + SIG_LEN]       # 3309 bytes

Code: this file holds the layout of ML-DSA-44 / -65, the image and the phases;
sign16_packed.py ML-DSA-87's packed-w layout and phases; sign16_plan.py the DMEM plans
(plan(param)) with the options weighed for ML-DSA-87.

What changes against sign.py (which keeps s1_hat, s2_hat, y_hat, w and two A tiles):
* s1, s2, t0 stay packed in the key (3904 B); each polynomial is decoded + NTT'd where
  it is used (c s2 per polynomial of the r0 check, c t0 per polynomial of the hint, c s1
  per polynomial of z). The decodes, and ExpandMask's y straight from the digest words,
  are unpack.py's: one bn.unpk per output word (~110 cycles a polynomial of s or t0;
  they were 171 (s, 4-bit), 281 (s, 3-bit), 463 (t0) and ~600 (y, 20-bit) by lane
  transposes);
* w = A_hat o y_hat column by column: y_j = ExpandMask(rho'', kappa + j) + NTT (1 KiB),
  then A_hat[i][j] for i < k sampled into two 1 KiB tiles by the parity of i (the next
  entry while the core multiply-accumulates the current one) and accumulated into w_i
  (6 KiB, in DMEM). TILE2 lies over the XC area's per-iteration scratch (HB, FLAG, CNTS,
  HW, CTIL, CNT) and the key's head, all dead while w is computed;
* the checks run r0 first, then c t0 + hint, then z (the order does not change the
  signature: an iteration is accepted iff all three pass; r0, the cheapest, also rejects
  most often; z first would need y_j and w at once): when z is computed w is dead, so
  y_j is regenerated
  (ExpandMask again, same kappa + j), z_j = y_j + INTT(c_hat o NTT(s1_j)) is checked and
  packed at once into the signature, which lies over w;
* the NTT and the INTT are subroutines (jal / jalr x28), not inlined per use;
* the r0 check (rounding.r0_check) runs two words an iteration (_two_words: the list
  scheduler interleaves the two chains), ~80 cycles less a polynomial;
* bn.pk (pack.py): w1Encode absorbed word by word into c_tilde's hash without a buffer
  (HighBits by mulv.hi, whose low 4 bits bn.pk keeps: 3 lane-wise ops and one bn.pk a
  word, against rounding.highbits_word's 7 and its lane shift + unzip tree), and z checked
  and packed in one pass straight from ExpandMask's digest words (pack.z_check_pack: no y
  or z buffer, one bn.pk a word against packing.zpack_group's transposes and per-granule
  stores; YB is unused since); the r0 check's HighBits by mulv.hi too (_r0_check16: 10
  instructions a word against 12).

Inputs placed by the host: the secret key (4032 B) at SK, M' at MSG (at most MSG_MAX =
8192 bytes; image() raises beyond), its length (word) at MLEN, rnd (32 B) at RND, and
const_image(). A length word beyond MSG_MAX is refused: STATUS_MSG_LENGTH and the program stops
before hashing (no signature). sign_program(external_mu=True) is the external-mu form:
the host writes mu = H(tr || M', 64) (64 B) at MU instead of M' (any length M'; image(...,
mu=mu)); 27 instructions fewer, the cycles less the mu hash.

Measured (ISS, `python -m ip.acc.dv.jobs mldsa65_sign --program sign16 --n 20 --seed 2`;
every signature equal to dilithium-py's and verified), against sign.py on the same 20
signatures (`--program sign`; iterations median 5, mean 4.8):

| program | IMEM B | peak DMEM B | median cycles | mean | min | max |
|---|---|---|---|---|---|---|
| sign.py (32 KiB memories) | 21 428 | 31 776 | 139 496 | 136 983 | 47 117 | 265 250 |
| sign16, one A tile | 10 332 | 15 968 | 190 527 | 184 466 | 55 304 | 356 673 |
| sign16, two A tiles | 10 680 | 16 384 | 173 181 | 167 806 | 51 835 | 322 029 |
| sign16, + each ExpandMask SHAKE256 started early | 10 728 | 16 384 | 172 391 | 167 038 | 51 565 | 320 609 |
| sign16, + end-of-operation wipe | 11 296 | 16 384 | 172 871 | 167 518 | 52 045 | 321 089 |
| sign16, + bn.unpk unpacking (unpack.py), r0 check two words an iteration | 8 560 | 16 384 | 148 006.5 | 143 348 | 43 563 | 276 373 |
| sign16, + bn.pk: w1Encode and z (pack.py), r0 check by mulv.hi (this program) | 7 544 | 16 384 | 136 146.5 | 131 792 | 39 210 | 255 483 |

(Fitted cycles = a + b x iterations over these 20: this program 18 509 + 23 601 n, 138 872
at FIPS 204's expected 5.1 iterations; before bn.pk 21 617 + 25 360 n, 150 956.)

(sign.py measured before its M' length check, which adds 5 cycles to each.) The 4-iteration
signature of mldsa_preloaded (firmware mldsa16_preloaded) takes 121 707 ACC cycles on the
ISS (133 459 before bn.pk); before unpack.py the silicon SoC's RTL (block soc, 16 KiB ACC memories,
sim/tests/test_silicon.py) took 157 361, equal to the ISS (156 881 before the end wipe),
and was not re-run since; ip/acc/tests/test_rtl_acc.py signs once per set on the ACC's
RTL, cycles and DMEM equal to the ISS's (ML-DSA-65 seed 4: 43 733 cycles before bn.pk,
39 380 on the ISS now; not re-run on the RTL until it has bn.pk).

Wipe (issue #24 item 5; +480 cycles a signature, +568 B IMEM, no DMEM): after sigEncode
(the KMAC released after z), all of DMEM zeroed but the signature (with the 3 zero bytes
after it), kappa (the host reads the iteration count) and the status word, then every WDR,
ACC and GPR (sign.end_wipe, asm_util.wipe_all_but); the length refusal wipes all but the
status word (the key the host placed included). ip/acc/tests/test_mldsa_wipe.py checks
every byte and register.

NTT / INTT as subroutines instead of inline (measured on the two-tile version): IMEM
10 680 B instead of 21 284 B for +184 cycles per signature accepted at once (seeds 4 and 13:
52 005 / 106 615 against 51 821 / 106 239). One iteration (seed 4, ISS cycles by phase, the
two-tile version): w = A y 12.4 k (5 ExpandMask + NTT,
30 A entries), 6 INTT 2.0 k, HighBits + c_tilde 2.7 k, SampleInBall + NTT(c) 1.8 k, r0 9.7 k
(6 x s2 decode + NTT + c s2 + check), c t0 + hint 11.1 k, z 12.5 k (5 x ExpandMask again,
s1 decode + NTT, c s1, check, pack), pre-loop 0.2 k, sigEncode 1.1 k: an iteration costs
~28.9 k when rejected at r0, ~40.1 k at the hint, ~52.6 k at z (sign.py: ~20.4 k at z,
~26.3 k at r0, its order). With unpack.py and the two-word r0 check (seed 4, 43 733
cycles): w = A y 9.1 k, 6 INTT 2.0 k, HighBits + c_tilde 2.4 k, SampleInBall + NTT(c)
1.8 k, r0 8.4 k, c t0 + hint 8.9 k, z 9.2 k, sigEncode 1.1 k, wipe 0.5 k: ~23.8 k an
iteration rejected at r0, ~32.8 k at the hint, ~42.0 k at z. This program (+ bn.pk, pack.py;
seed 4, 39 380 cycles; RTL not run yet: bn.pk): w = A y 9.1 k, 6 INTT 2.0 k, HighBits +
c_tilde 1.2 k, SampleInBall + NTT(c) 1.8 k, r0 8.1 k, c t0 + hint 8.9 k, z 6.4 k, sigEncode
1.0 k, wipe 0.5 k: ~22.2 k an iteration rejected at r0, ~31.1 k at the hint, ~37.5 k at z.

DMEM layout (bytes; peak = END = 16 384 of 16 384):

| region | address | bytes | lifetime |
|---|---|---|---|
| RHO, RHOPP, MU, KAPPA, RND, MLEN, STATUS | 0..256 | 256 | whole run |
| TWID, ITWID, KC constants (layout) | 256..2784 | 2528 | whole run |
| XC constant words, DBT (layout.x_area at XC) | 2784..3264 | 480 | whole run |
| TILE2: A tile over HB, FLAG, CNTS, HW (x_area), CTIL, CNT and the key's rho / K / tr (SK = 4160) | 3264..4288 | 1024 | A tile while w is computed; hint area, c_tilde after; key head before the loop |
| KEYP: s1 | s2 | t0 packed (the key's own bytes) | 4288..8192 | 3904 | whole run |
| W: w (6 polys), then w - c s2; then SIG (3309 B at W + 16), YB, SB (y_j / z_j, c s1_j) | 8192..14336 | 6144 | iteration; M' before the loop (MSG = 8192) |
| YJ: y_hat_j; then CH c_hat | 14336..15360 | 1024 | iteration |
| TILE: A tile; then W1E + SIB (challenge); then T (c s2 / c t0 scratch) | 15360..16384 | 1024 | iteration |

ML-DSA-44 (signer(44): k = l = 4, eta = 2, gamma1 = 2^17, gamma2 = (q-1)/88, tau = 39,
lambda = 128, omega = 80): the same program, phases and order, with the set's pieces, each
a parameter of the library kernel (no per-set copy):
* HighBits for gamma2 = (q-1)/88 (44 values): t = bits 11.. of mulv.hi(r + gamma2 - 1,
  ceil(2^43 / alpha)), t = 44 (the q - 1 wrap) -> 0; w1Encode 6-bit by a bn.pk stream
  absorbed word by word into c_tilde = H(mu || w1Encode(w1)) (pack.highbits6_phases); the
  r0 check (r0 = v - r1 alpha) and MakeHint (HighBits compared after the wrap) on the same
  formula (rounding.r0_check / hint_body with m = 44);
* ExpandMask with 18-bit fields (unpack.unpack_mask: bn.unpk on the 18 digest words);
  z checked and packed 18-bit from the digest words (pack.z_check_pack);
* s1 / s2 decoded from 3 bits (unpack.unpack_eta); 32-byte c_tilde, tau = 39; 84 hint
  bytes (96 hint words: layout.x_area(hw_words), 3 wide stores, 12 zero bytes after the
  signature, kept by the wipe).
DMEM (bytes; peak = END = 14 912, plan(44)): constants, XC words and TILE2 as above (the
hint words end at 3840, CTIL 3840, CNT 3904, SK 4160); KEYP 4288..6720 (s1 | s2 3-bit, t0);
W 6720..10816 (w; then the 2420-byte signature at W, SIG = W; M' before the loop,
MSG_MAX = 9664); YJ / CH 10816..11840; TILE
11840..12864; YB 12864..13888 (the signature fills w; unused since pack.z_check_pack, kept
so the layout stays plan(44)'s); SB 13888..14912.

Measured (ISS, `python -m ip.acc.dv.jobs mldsa44_sign --n 20 --seed 2`; every signature
equal to dilithium-py's and verified; iterations median 4, mean 5.6, max 19 (FIPS 204's
expected 4.25); rejections 54 at z, 38 at r0):

| program | IMEM B | peak DMEM B | median cycles | mean | min | max |
|---|---|---|---|---|---|---|
| sign16, ML-DSA-44 | 15 852 | 14 912 | 117 646.5 | 154 377 | 40 162 | 510 957 |
| sign16, ML-DSA-44, + bn.unpk unpacking (unpack.py), r0 check two words an iteration | 12 320 | 14 912 | 97 114.5 | 126 923 | 32 778 | 420 053 |
| sign16, ML-DSA-44, + bn.pk: 6-bit w1Encode and z (pack.py) (this program) | 9 148 | 14 912 | 89 307 | 116 281 | 29 619 | 385 664 |

(Fitted cycles = a + b x iterations over these 20: this program 10 335 + 18 919 n, 90 741
at FIPS 204's expected 4.25 iterations; before bn.pk 11 992 + 20 523 n, 99 216. One
iteration accepted at once: 29 371 cycles, test seed 0 (RTL not run yet: bn.pk); 32 530
before bn.pk (RTL = ISS), 39 914 before unpack.py; 5 iterations r0, z, hint, z, ok (seed
15): 98 169, 105 420 before bn.pk, 126 804 before unpack.py. Per phase, seed 0: w = A y
5.5 k, 4 INTT 1.4 k, HighBits + c_tilde 1.3 k (2.3 k before bn.pk), SampleInBall + NTT(c)
1.5 k, r0 5.6 k, c t0 + hint 7.0 k, z 5.1 k (7.2 k), sigEncode 1.2 k, wipe 0.5 k. The 18-bit y and the
3-bit s, subroutines before (IMEM), are now short enough to inline.) The end wipe and the length refusal as for ML-DSA-65
(ip/acc/tests/test_mldsa_wipe.py); the constant-time check (mldsa44_sign16) finds what it
finds for ML-DSA-65, with the same declared exceptions.

ML-DSA-87 (signer(87): k = 8, l = 7, eta = 2, gamma1 = 2^19, gamma2 = (q-1)/32, tau = 60,
lambda = 256, omega = 75) does not fit the layout above (plan(87): 19 296 B of DMEM). In
the w = A y phase, the peak of every layout, the constants (3264 B), the packed key
(4768 B), w (8 KiB), y_hat_j and the A tiles are all live: 16 384 - 3264 - 4768 = 8352 B
for w, y_hat_j and the tiles, so w must be packed while it is accumulated, and one tile
only (plan(87)["options"], each option's peak: one tile 18 272, w 24-bit packed 17 248,
23-bit 16 992, both 16 224; rows one at a time with y regenerated 16 480; t0 streamed by
the host 15 968 but a host protocol; the INTT without ITWID, 16 256 with w packed and two
tiles, needs a lane reversal the ACC lacks). Its program runs on plan(87)["chosen"] (peak
16 320 B, every phase listed there):
* w packed 24-bit from w = A y to the z phase (products.pack24: a group of 4 words -> 3 by
  lane-wise shifts and masks, no lane moves; 768 B a polynomial; 24 is no bn.pk / bn.unpk
  width: see below);
* w = A y: the column loop as above, one A tile (TILEA, over the hint scratch and the
  key's head as TILE2), the entry multiply-accumulated into the packed w_i
  (products.mac_acc24_body: unpack, add, pack in registers) while the sampler still
  writes it: groups 0..2 each once SMP_STATUS counts its coefficients, then once all 256
  (the unit writes twice as fast as the MAC reads; the next entry, or the next column's
  SHAKE256, starts once the last group's tile words are loaded and multiplied, so it
  never overwrites an unread word; A is public, so is the wait); column 0 writes w_i =
  A_i0 o y_0 packed without reading w (_mac_set24_body: 23 instructions a group against
  40; no w = 0 pass);
* per polynomial: w_i unpacked into YJ, INTT, its HighBits + w1Encode words absorbed one
  by one into c_tilde = H(mu || w1Encode(w1)) (no w1Encode buffer; pack.hb4_word: HighBits
  by mulv.hi, 8 bn.pk a word); w_i stays w_hat_i (NTT domain) in W;
* r0: T = NTT(s2_r), then T = unpack(w_hat_r) - c_hat o T in one pass (both carry the
  Montgomery 2^-32 the INTT removes), INTT: T = w_r - c s2_r (one INTT a polynomial
  instead of HighBits' result packed back and a second INTT for c s2_r), the check on T
  (_r0_check16 with subtract=False), T packed into w_r for the hint;
* hint: the polynomials in reverse order, so the bitmaps HB lie in w_7's last 256 B (dead
  once w_7 is read), above the signature and YB; for w_7, c t0_7 packed in place in T, per
  4-word group c t0 and w - c s2 unpacked into SCR0 / SCR1 (T's last 256 B) and
  rounding.hint_body run on them; for the others, c t0_r read unpacked from T, w - c s2
  unpacked into SCRV (w_7's dead head), no pack; sigEncode takes HB there and the hint
  words in TILEA;
* z, sigEncode, the end wipe and the length refusal as above (YB unused since
  pack.z_check_pack); SampleInBall from a 64-byte c_tilde.
DMEM (bytes; peak = END = 16 320, plan(87)["chosen"]): constants, XC words, DBT 0..3264;
TILEA 3264..4288 (A tile; SIB; T with SCR0 4032, SCR1 4160; SB; FLAG; HW; the key's head rho
/ K / tr at SK = 4160 before the loop); KEYP 4288..9056 (s1 | s2 3-bit, t0); W 9056..15200
(w packed; the 4627-byte signature at W, YB 13696..14720, HB 14944..15200; M' before the
loop, MSG_MAX = 7328; SCRV 14432..14560 in the hint); YJ / CH 15200..16224; CTIL
16224..16288; CNT 16288..16320.

Measured (ISS, `python -m ip.acc.dv.jobs mldsa87_sign --n 20 --seed 2`; every signature
equal to dilithium-py's and verified; iterations median 3, mean 4.45, max 17 (FIPS 204's
expected 3.85); rejections 39 at r0, 30 at z in dilithium-py's order):

| program | IMEM B | peak DMEM B | median cycles | mean | min | max |
|---|---|---|---|---|---|---|
| sign16, ML-DSA-87, sample then MAC (one tile) | 11 972 | 16 320 | 216 314.5 | 321 329 | 97 580 | 1 155 562 |
| sign16, ML-DSA-87, MAC following the sampler | 12 372 | 16 320 | 204 887.5 | 304 392 | 93 774 | 1 090 724 |
| sign16, ML-DSA-87, + bn.unpk unpacking (unpack.py), r0 check two words an iteration | 9 748 | 16 320 | 178 646.5 | 265 199 | 79 871 | 954 915 |
| sign16, ML-DSA-87, + the sampler restarted inside the last MAC group | 10 068 | 16 320 | 174 407.5 | 258 923 | 78 462 | 931 030 |
| sign16, ML-DSA-87, + the hint without c t0's pack / unpack after w_7 | 11 200 | 16 320 | 172 393.5 | 255 801 | 76 448 | 922 974 |
| sign16, ML-DSA-87, + r0's subtract and pack in one pass | 11 152 | 16 320 | 171 241.5 | 254 092 | 76 064 | 916 446 |
| sign16, ML-DSA-87, + HighBits packing w_i back as it loads it | 11 148 | 16 320 | 170 089.5 | 252 384 | 75 680 | 909 918 |
| sign16, ML-DSA-87, + bn.pk: w1Encode and z (pack.py), column 0 without w, r0 check by mulv.hi | 11 528 | 16 320 | 157 241.5 | 233 274 | 68 760 | 843 920 |
| sign16, ML-DSA-87, + the sampler restarted after the last group's tile loads | 11 872 | 16 320 | 155 306.5 | 230 378 | 68 107 | 832 615 |
| sign16, ML-DSA-87, + w_hat kept, r0's w - c s2 by one INTT (this program) | 11 768 | 16 320 | 152 426.5 | 226 106 | 67 147 | 816 295 |

Fitted cycles = a + b x iterations over the 20 (least squares): this program 16 476 + 47 108
n, 197 841 at FIPS 204's expected 3.85 iterations (within the 220 k target; the mean of these
20, at 4.45 iterations, is above it); the two rows before it 16 476 + 48 068 n (201 537) and
16 455 + 48 723 n (204 040); before bn.pk 18 813 + 52 488 n, 220 891 at 3.85. The
w = A y phase, 22.9 k an iteration, is the largest: 48 A entries of 365 cycles, 320 of
them the packed MAC (40 instructions a 4-word group: 11 loads, 4 products, 10 to unpack,
4 sums, 8 to pack, 3 stores; 3 polls, the 20-cycle restart of the sampler and the
pointers the rest), and column 0's 8 of 271. Neither bn.unpk nor bn.pk reaches
it: 24 is not one of their widths (VMODE 1: 3 4 6 10 13 18 20), and 23 bits as 20 + 3 (or
13 + 10) take two streams, a shift and an or: 14 instructions a group to pack and 16 to
unpack against 8 and 10 (the lane-wise products.pack24, every field in its lane; a width of
24 would unpack a group in 4, but packing fields back to back moves bytes across lanes by
lane-dependent amounts, which the lane-wise shifts and whole-lane bn.trn / bn.unzip do not
do in fewer than the 6 instructions it would save).

This program, one iteration (test seed 3, accepted at once: 67 155 cycles; RTL not run yet:
bn.pk): w = A y 22.9 k (365 cycles an A entry, 271 in column 0; the 7 y_j ~180 cycles
each with their SHAKE256), unpack / INTT + HighBits + c_tilde 5.4 k,
SampleInBall + NTT(c) 2.1 k, r0 12.0 k, c t0 + hint 13.6 k (w_7 1.9 k, the others 1.7 k
each), z 8.9 k (y, z + check, pack in one pass from the digest words), sigEncode 1.5 k, wipe
0.4 k: ~42.4 k an iteration rejected at r0, ~56 k at the hint, ~65 k at z (before bn.pk:
75 692; ~47 k, ~61 k, ~73.5 k; before the four changes ahead of it: 79 879).

Before unpack.py (seed 3, accepted at once: 93 782 cycles; ISS cycles by phase): w = A y
29.5 k (56 A entries, ~526 cycles each: 7 ExpandMask + NTT, the packed MAC 329 alone, the
sampler 158 alone), unpack / INTT / pack + HighBits + c_tilde 8.1 k, SampleInBall + NTT(c)
2.1 k, r0 15.6 k, c t0 + hint 18.4 k, z 17.8 k, sigEncode 1.5 k, wipe 0.4 k: ~56 k an
iteration rejected at r0, ~74 k at the hint, ~92 k at z (the program checks r0 first). The one-tile MAC without the
SMP_STATUS wait (sample, then MAC): +3.8 k an iteration (97 592 cycles for seed 3).
The constant-time check (mldsa87_sign16) finds what it finds for ML-DSA-44 / -65, with
the same declared exceptions; the end wipe as for the other sets
(ip/acc/tests/test_mldsa_wipe.py).
"""
from ip.acc.kernels.asm_util import a32, li as _li, loop as _loop, mem as _m, wipe_all_but
from ip.acc.kernels.mldsa import layout, pack, packing, params, rounding, sampling, sign16_packed, unpack
from ip.acc.kernels.mldsa import sign as sign32
from ip.acc.kernels.mldsa.layout import INTT_X8 as INTT, KA, KAPPA, NTT_X8 as NTT, VMODE1
from ip.acc.kernels.mldsa.products import mac_acc_body, pw_inplace_body
from ip.acc.kernels.mldsa.sign16_plan import DMEM
from ip.acc.kernels.sample import SHAKE128, SHAKE256, start as _smp_start
from ip.acc.tools import sched

RHO, RHOPP, MU = layout.RHO, layout.RHOPP, layout.MU
RND, MLEN, STATUS = sign32.RND, sign32.MLEN, sign32.STATUS
STATUS_OK, STATUS_MSG_LENGTH, STATUS_NAMES = sign32.STATUS_OK, sign32.STATUS_MSG_LENGTH, sign32.STATUS_NAMES


def subroutines():
    return (["ntt_x8:"] + layout.fwd_ntt(8, 8) + ["jalr x0, 0(x28)"] +
            ["intt_x8:"] + layout.inv_ntt(8, 8) + ["jalr x0, 0(x28)"])


def _swap(lines, old, new):
    """lines with the block `old` (if present: once at most) replaced by `new`, the count
    of every loopi whose body holds the block adjusted."""
    n = len(old)
    at = [i for i in range(len(lines) - n + 1) if lines[i:i + n] == old]
    assert len(at) <= 1 and not any(x.endswith(":") for x in old + new)
    if not at:
        return lines
    a = at[0]
    out = list(lines[:a]) + new + list(lines[a + n:])
    for j in range(a):
        if lines[j].startswith("loopi "):
            cnt, size = (int(v) for v in lines[j][6:].split(","))
            body = [i for i in range(j + 1, len(lines)) if not lines[i].endswith(":")][:size]
            if body and body[0] <= a and a + n - 1 <= body[-1]:
                out[j] = f"loopi {cnt}, {size + len(new) - n}"
    return out


def _reject(tag):
    """To sign_next (kappa += l, next iteration) unless x9 = 0."""
    return [f"beq x9, x0, pass_{tag}", "jal x0, sign_next", f"pass_{tag}:"]


class Sign16:
    """The 16 KiB signing program and its DMEM layout for one parameter set (44, 65 or 87;
    87 on plan(87)["chosen"]: w packed 24-bit, one A tile)."""

    def __init__(self, param: int):
        if param not in (44, 65, 87):
            raise ValueError(f"ML-DSA sign16: parameter set must be 44, 65 or 87, not {param}")
        self.param = param
        P = params.FULL[param]
        self.P = P
        self.k, self.l = k, l = P["k"], P["l"]
        self.omega, self.tau = P["omega"], P["tau"]
        self.ctil_len = P["lam"] // 4
        self.zbits = P["gamma1"].bit_length()              # 18 or 20
        self.sbits = 3 if P["eta"] == 2 else 4
        self.m = (params.Q - 1) // (2 * P["gamma2"])       # 16 or 44 HighBits values
        self.hw_words = -(-(self.omega + k) // 32) * 32     # hint bytes, one per word
        self.packed = param == 87                # w packed 24-bit: plan(87)["chosen"]
        if self.packed:
            sign16_packed.lay_out(self)
            return
        # ------------------------------------------------------------ DMEM layout (bytes)
        self.XC = layout.KC + 32 * len(layout.CONST_NAMES)
        self.XAREA = xar = layout.x_area(self.XC, k=k, hw_words=self.hw_words)
        self.XA = xar["XA"]
        self.CTIL = xar["XEND"]
        self.CNT = self.CTIL + 64
        self.TILE2 = xar["HB"]                   # 2nd A tile over HB .. CNT + the key's head
        self.KEYP = self.TILE2 + 1024            # s1 (l) | s2 (k) | t0 (k x 416) packed
        sb = 32 * self.sbits
        self.S1P, self.S2P = self.KEYP, self.KEYP + l * sb
        self.T0P = self.KEYP + (l + k) * sb
        self.SK = self.KEYP - 128                # rho | K | tr (dead after the pre-loop)
        self.SK_LEN = 128 + (l + k) * sb + k * 416
        self.W = self.T0P + k * 416
        self.YJ = self.W + k * 1024
        self.CH = self.YJ
        self.TILE = self.YJ + 1024
        self.W1E, self.SIB, self.T = self.TILE, self.TILE + 768, self.TILE
        self.MSG = self.W
        self.MSG_MAX = DMEM - self.MSG
        self.SIG = self.W + (-self.ctil_len) % 32        # z part 32-byte aligned
        self.SIG_Z = self.SIG + self.ctil_len
        self.SIG_LEN = self.ctil_len + l * 32 * self.zbits + self.omega + k
        # the hint bytes are stored a wide word at a time: zero bytes up to a word's end
        self.SIG_PAD = self.SIG_Z + l * 32 * self.zbits + a32(self.omega + k) - \
            self.SIG - self.SIG_LEN
        self.END = self.TILE + 1024
        if a32(self.SIG + self.SIG_LEN + self.SIG_PAD) + 2048 <= self.YJ:
            self.YB = a32(self.SIG + self.SIG_LEN + self.SIG_PAD)   # y_j, then z_j
        else:                                   # the signature fills w: past TILE
            self.YB = self.END
            self.END += 2048
        self.SB = self.YB + 1024                 # c s1_j
        assert self.CNT + 32 <= self.SK and self.SK + 128 == self.KEYP
        assert self.END <= DMEM and k % 2 == 0
        assert self.SB + 1024 <= self.YJ or self.YB >= self.TILE + 1024
        assert all(a % 32 == 0 for a in (self.CTIL, self.CNT, self.XC, self.TILE2, self.KEYP,
                                         self.W, self.YJ, self.TILE, self.SIG_Z, self.YB,
                                         self.SB))

    # ---------------------------------------------------------------- image
    def const_image(self) -> dict:
        return layout.const_image(xc_at=self.XC, param=self.param)

    def check_inputs(self, sk: bytes, msg: bytes, rnd: bytes) -> None:
        """ValueError naming the input the program cannot take: sk or rnd of a wrong
        length, M' longer than MSG_MAX."""
        if len(sk) != self.SK_LEN or len(rnd) != 32:
            raise ValueError(f"ML-DSA-{self.param} sign: sk must be {self.SK_LEN} bytes and rnd "
                             f"32, got {len(sk)} and {len(rnd)}")
        if len(msg) > self.MSG_MAX:
            raise ValueError(f"ML-DSA-{self.param} sign: M' of {len(msg)} bytes exceeds the "
                             f"program's buffer ({self.MSG_MAX} bytes); hash it outside "
                             f"(external mu) or split")

    def image(self, sk: bytes, msg: bytes, rnd: bytes, mlen: int | None = None,
              mu: bytes | None = None) -> dict:
        """DMEM image {address: bytes}: constants and the inputs. mlen: the length word the
        host writes (default len(msg); a larger one tests the program's refusal). mu: for
        program(external_mu=True), mu = H(tr || M', 64) computed by the host (msg is then
        not placed)."""
        if self.param == 65:
            sign32.check_inputs(sk, msg, rnd, self.MSG_MAX)
        else:
            self.check_inputs(sk, msg, rnd)
        img = self.const_image()
        img[self.SK] = sk
        img[RND] = rnd
        if mu is not None:
            if len(mu) != 64:
                raise ValueError(f"ML-DSA-{self.param} sign: mu must be 64 bytes, got {len(mu)}")
            img[MU] = mu
            return img
        img[self.MSG] = msg
        img[MLEN] = (len(msg) if mlen is None else mlen).to_bytes(4, "little")
        return img

    # ---------------------------------------------------------------- pieces
    def mask_unpack(self, dst):
        """y = ExpandMask(rho'', kappa) (one polynomial, plain) -> dst from the SHAKE256
        started by sampling.mask_start (its permutations run while the core did other
        work): unpack.unpack_mask, bn.unpk straight from the digest words. Port held."""
        return [f"bn.lw w15, {_m(KA['g1'])}"] + _li(6, dst) + unpack.unpack_mask(self.zbits)

    def dec_eta(self, dst):
        """s (eta 4 or 2) at x5 (post-incremented by 32 sbits) -> dst (unpack.unpack_eta),
        then NTT in place."""
        return [f"bn.lw w14, {_m(self.XA['eta'])}"] + _li(6, dst) + \
            unpack.unpack_eta(self.sbits) + _li(8, dst) + NTT

    def subroutines(self):
        """NTT and INTT (the unpacks are short enough to inline at each use)."""
        return subroutines()

    def _times_c(self, buf):
        """buf = INTT(c_hat o buf) (the INTT removes the 2^-32)."""
        return _li(12, self.CH) + _li(10, buf) + _li(11, buf) + \
            _loop(8, pw_inplace_body()) + _li(8, buf) + INTT

    def aw_column_phases(self):
        """w = INTT(A_hat o y_hat) -> W, column by column (y_hat_j at YJ; A_hat[i][j]
        sampled into TILE / TILE2 by the parity of i, the next entry while the core
        multiply-accumulates the current one; x21 = j + 256 i, the sampler's suffix;
        x22 -> w_i)."""
        if self.packed:
            return sign16_packed.aw_phases(self)
        K, L, W, YJ, TILE, TILE2 = self.k, self.l, self.W, self.YJ, self.TILE, self.TILE2
        zero = [f"bn.lw w0, {_m(KA['zero'])}"] + _li(6, W) + \
            _loop(K * 32, ["bn.sw.pi w0, 0(x6)"])

        def start_a(tile):
            return _smp_start(SHAKE128, RHO, 0, 2, tile, "uni23", suffix_base="x21")

        def mac(tile):
            return _li(10, tile) + _li(15, YJ) + ["addi x20, x22, 0", "addi x23, x22, 0"] + \
                _loop(8, mac_acc_body()) + ["addi x22, x20, 0"]
        nxt = ["smp.wait", "addi x21, x21, 256"]
        pair = nxt + start_a(TILE2) + mac(TILE) + nxt + start_a(TILE) + mac(TILE2)
        # the next column's SHAKE256 starts as soon as the sampler is done (the last
        # column starts an unused one)
        last = nxt + start_a(TILE2) + mac(TILE) + ["smp.wait"] + sampling.mask_start() + \
            mac(TILE2)
        col = self.mask_unpack(YJ) + start_a(TILE) + _li(8, YJ) + NTT + _li(22, W) + \
            (_loop(K // 2 - 1, pair) if K > 2 else []) + last + \
            [f"addi x21, x21, {1 - 256 * (K - 1)}"]
        ph = [("w = 0", VMODE1 + zero)]
        ph.append((f"{L} columns: ExpandMask y_j + NTT, {K} x [sample A_ij, w_i += A_ij o y_j]",
                   ["kmac.acq", f"lw x7, {KAPPA}(x0)", "addi x21, x0, 0"] +
                   sampling.mask_start() + _loop(L, col) +
                   ["kmac.rel"]))
        ph.append((f"{K} x INTT(w_i)", _li(8, W) + _loop(K, INTT + ["addi x8, x8, 1024"])))
        return ph

    def r0_phases(self):
        """Per polynomial r: s2_r decoded + NTT -> T, c s2_r = INTT(c_hat o .), w_r - c s2_r
        -> W (kept), ||LowBits|| check; x9 = 0 iff all pass."""
        if self.packed:
            return sign16_packed.r0_phases(self)
        T = self.T
        # x13 / x15 (-> w_r) kept across the decode, the NTT and the INTT
        check = rounding.r0_check16(self.XA, _li(14, T)) if self.m == 16 else \
            rounding.r0_check(_li(14, T), m=self.m, xa=self.XA)
        body = self.dec_eta(T) + self._times_c(T) + rounding.two_words(check)
        ptr = _li(13, self.W) + _li(15, self.W)
        return [(f"{self.k} x [s2_r decode + NTT, c s2_r, r0 check]",
                 VMODE1 + [f"bn.lw w15, {_m(KA['zero'])}", "bn.wsrw ACC, w15"] +
                 _li(5, self.S2P) + ptr + _loop(self.k, body))]

    def z_phases(self):
        """Per polynomial j: s1_j decoded + NTT -> SB and c s1_j while the KMAC computes
        the stream of y_j (ExpandMask again, kappa + j); then pack.z_check_pack: y_j read
        from the digest words, z_j = y_j + c s1_j, the ||z|| check and z_j's bn.pk stream
        into the signature, in one pass with no y / z buffer (x26 -> s1_j, x27 -> the
        signature's z part); x9 = 0 iff all pass."""
        SB = self.SB
        consts = [f"bn.lw w{12 + q}, {_m(KA[n])}" for q, n in enumerate(("zb", "z2b", "ones",
                                                                        "g1"))]
        body = sampling.mask_start() + ["addi x5, x26, 0"] + self.dec_eta(SB) + \
            ["addi x26, x5, 0"] + self._times_c(SB) + consts + _li(11, SB) + \
            pack.z_check_pack(self.zbits)
        return [(f"{self.l} x [ExpandMask y_j, s1_j decode + NTT, c s1_j, z_j + check, pack]",
                 VMODE1 + [f"bn.lw w15, {_m(KA['zero'])}", "bn.wsrw ACC, w15", "kmac.acq",
                           f"lw x7, {KAPPA}(x0)"] + _li(26, self.S1P) + _li(27, self.SIG_Z) +
                 _loop(self.l, body) + ["kmac.rel"])]

    def length_check(self):
        """After x4 = len(M'): STATUS_MSG_LENGTH and stop when it exceeds MSG_MAX."""
        return sign32.length_check(self.MSG_MAX, DMEM)

    def highbits_phases(self):
        if self.packed:
            return sign16_packed.highbits_phases(self)
        if self.m == 16:
            return pack.highbits_phases(self.W, self.CTIL, self.k, self.XA)
        return pack.highbits6_phases(self.W, self.CTIL, self.k, self.m, self.XA)

    def challenge_phases(self):
        chal = sampling.challenge_phases(ctil=self.CTIL, sib=self.SIB, ch=self.CH,
                                         ctil_len=self.ctil_len, tau=self.tau)
        assert chal[-1][0] == "NTT(c)"
        return chal[:-1] + [("NTT(c)", _li(8, self.CH) + NTT), ("release", ["kmac.rel"])]

    def ct0_hint_phases(self):
        if self.packed:
            return sign16_packed.hint_phases(self)
        ph = rounding.ct0_hint_t0_phases(ch=self.CH, t=self.T, w=self.W, t0p=self.T0P,
                                         cnt=self.CNT, xc=self.XC, ntt_x8=NTT,
                                         intt_x8=INTT, k=self.k, omega=self.omega, m=self.m,
                                         hw_words=self.hw_words)
        # its t0 decode (packing.dec_t0_poly, same x5 / x6 contract) by unpack.unpack_t0
        out = [(n, _swap(lines, packing.dec_t0_poly(), unpack.unpack_t0())) for n, lines in ph]
        assert sum(a != b for (_, a), (_, b) in zip(out, ph)) == 1
        return out

    def sig_encode_phases(self):
        return packing.sig_encode_phases(ctil=self.CTIL, z=None, sig=self.SIG, xc=self.XC,
                                         k=self.k, l=self.l, omega=self.omega,
                                         ctil_len=self.ctil_len, zbits=self.zbits,
                                         hw_words=self.hw_words,
                                         **(dict(hb=self.HB, hw=self.HW) if self.packed else {}))

    def end_wipe(self):
        """sign.end_wipe: all of DMEM zeroed but the signature (with the zero bytes the
        hint packing writes after it), kappa and the status word (STATUS_OK first), then
        every register."""
        end = self.SIG + self.SIG_LEN + self.SIG_PAD
        assert end % 4 == 0
        return _li(5, STATUS_OK) + [f"sw x5, {STATUS}(x0)"] + wipe_all_but(
            [(self.SIG, end), (KAPPA, KAPPA + 4), (STATUS, STATUS + 4)], DMEM)

    def phases(self, external_mu=False):
        """[(name, lines)] of the whole program up to the final ecall; the loop body starts
        at label sign_iter. external_mu: mu is given by the host at MU (FIPS 204's
        external-mu form: M' of any length, hashed outside), not hashed from M'."""
        ph = [("status = 0", [f"sw x0, {STATUS}(x0)"])]
        if external_mu:
            # the registers the rho'' phase expects after the mu hash: mode, mask, mu in
            # w1, w2
            ph.append(("mu from the host", VMODE1 + [
                "kmac.acq", f"addi x1, x0, {SHAKE256}", "addi x3, x0, -1",
                f"bn.lw w1, {_m(MU)}", f"bn.lw w2, {_m(MU + 32)}"]))
            ph += sign32.hash_phases(self.SK, self.MSG)[1:]
        else:
            ph += sign32.hash_phases(self.SK, self.MSG, head=self.length_check())
        it = self.aw_column_phases()
        it[0] = (it[0][0], ["sign_iter:"] + it[0][1])
        ph += it
        ph += self.highbits_phases()
        ph += self.challenge_phases()
        ph += self.r0_phases()
        ph.append(("r0 rejected?", _reject("r0")))
        ph += self.ct0_hint_phases()
        ph.append(("c t0 / hint rejected?", _reject("ct0")))
        ph += self.z_phases()
        ph.append(("z rejected?", _reject("z")))
        ph.append(("kappa += l", [f"lw x1, {KAPPA}(x0)", f"addi x1, x1, {self.l}",
                                  f"sw x1, {KAPPA}(x0)"]))
        ph += self.sig_encode_phases()
        ph.append(("wipe: DMEM but the signature, kappa, status; every register",
                   self.end_wipe()))
        return ph

    def program(self, external_mu=False) -> str:
        lines = []
        for _, body in self.phases(external_mu):
            lines += body
        lines += ["ecall", "sign_next:", f"lw x1, {KAPPA}(x0)", f"addi x1, x1, {self.l}",
                  f"sw x1, {KAPPA}(x0)", "jal x0, sign_iter"] + self.subroutines()
        return "\n".join(sched.schedule(lines)) + "\n"

    def ct_policy(self, external_mu=False) -> dict:
        """sign.sign_policy on this layout: K, s1, s2, t0 and rnd secret; rho, tr, M', its
        length and the constants public (external_mu: mu public, no M'); other DMEM bytes
        secret. Declared exception: the rejection loop's iteration count (the three
        accepting branches); c_tilde released and the hint bitmaps declassified once
        accepted (sign_policy says why); pointer bounds the analysis cannot derive."""
        k = self.k
        hb = self.HB if self.packed else self.XAREA["HB"]
        pol = sign32.sign_policy(self.SK, (self.S1P, self.T0P), (self.T0P, self.T0P + k * 416),
                                 self.MSG, self.MSG_MAX, MLEN, self.CH, self.SIB,
                                 self.const_image(), ctil=(self.CTIL, self.CTIL + 64),
                                 hb=(hb, hb + 32 * k),
                                 dbt=layout.x_area(self.XC, k, self.hw_words)["DBT"],
                                 accept="pass_z")
        if external_mu:
            public = pol["public"]
            del public["M'"], public["len(M')"]
            public["mu"] = (MU, MU + 64)
            pol["bounds"] = [b for b in pol["bounds"] if b["within"] != ("mu_msg", "mu_dig")]
        return pol


_SIGNERS = {}


def signer(param: int) -> Sign16:
    """The 16 KiB signer of ML-DSA-44, -65 or -87 (built once)."""
    if param not in _SIGNERS:
        _SIGNERS[param] = Sign16(param)
    return _SIGNERS[param]


# ------------------------------------------------------------------ the ML-DSA-65 instance
# (module-level names: ip/acc/api.py, firmware/build.py, ip/acc/dv/jobs.py and the tests)
_S65 = signer(65)
K, L = _S65.k, _S65.l
XC, XAREA, XA, CTIL, CNT = _S65.XC, _S65.XAREA, _S65.XA, _S65.CTIL, _S65.CNT
TILE2, KEYP, S1P, S2P, T0P = _S65.TILE2, _S65.KEYP, _S65.S1P, _S65.S2P, _S65.T0P
SK, SK_LEN, W, YJ, CH, TILE = _S65.SK, _S65.SK_LEN, _S65.W, _S65.YJ, _S65.CH, _S65.TILE
W1E, SIB, T, END = _S65.W1E, _S65.SIB, _S65.T, _S65.END
MSG, MSG_MAX, SIG, SIG_LEN, YB, SB = _S65.MSG, _S65.MSG_MAX, _S65.SIG, _S65.SIG_LEN, _S65.YB, _S65.SB
assert SIG_LEN == layout.SIG_LEN


def const_image() -> dict:
    return _S65.const_image()


def image(sk: bytes, msg: bytes, rnd: bytes, mlen: int | None = None,
          mu: bytes | None = None) -> dict:
    return _S65.image(sk, msg, rnd, mlen, mu)


def sign_phases(external_mu=False):
    return _S65.phases(external_mu)


def sign_program(external_mu=False) -> str:
    return _S65.program(external_mu)


def ct_policy(external_mu=False) -> dict:
    return _S65.ct_policy(external_mu)


def length_check():
    return _S65.length_check()
