/* SPDX-FileCopyrightText: 2026 pqsoc contributors */
/* SPDX-License-Identifier: Apache-2.0 */
/* Driver for the entropy source (ip/entropy, registers and its claim in the generated
 * entropy_regs.h): raw bits that passed the block's SP 800-90B health tests, conditioned by
 * SHA3-256 on the KMAC block, and the DRBG (drbg.h) seeded from them.
 *
 * Conditioning (ip/entropy/doc/spec.md): a vetted function gives n bits of full entropy from
 * input holding n + 64 bits of it; at the claimed ENTROPY_H_CLAIM_MILLIBITS per raw bit a
 * 256-bit output takes ENTROPY_SEED_RAW_WORDS raw words. The claim is a design assumption until
 * bring-up measures the source; until then do not rest the chip's randomness on it alone (mix
 * in a host's seed through the DRBG's personalization or a reseed's additional input).
 *
 * Every call returns ENTROPY_OK (0) or a negative error. On ENTROPY_ERR_HEALTH the block's
 * ERR_CODE bits are kept for entropy_last_error() and cleared in the block; the source stays
 * failed (it delivers nothing) until entropy_start. Raw words and digests held here are wiped
 * before return; on any error an output buffer is zero-filled. Only available on a SoC with the
 * block (ENTROPY_BASE). */
#ifndef PQSOC_ENTROPY_H
#define PQSOC_ENTROPY_H
#include <stddef.h>
#include <stdint.h>

enum {
    ENTROPY_OK = 0,
    ENTROPY_ERR_HEALTH = -1,    /* a health test failed (entropy_last_error()): start again */
    ENTROPY_ERR_TIMEOUT = -2,   /* no word within the polling bound: the source is not running */
    ENTROPY_ERR_ARG = -3,       /* bad argument (DIV out of range, NULL with a length): nothing done */
    ENTROPY_ERR_KMAC = -4,      /* the KMAC failed while conditioning (kmac_last_error()) */
    ENTROPY_ERR_DRBG = -5,      /* the DRBG refused its seed (drbg.h's error in entropy_drbg_error()) */
    ENTROPY_ERR_ABSENT = -6,    /* the SoC has no entropy source */
    ENTROPY_ERR_DROPPED = -7,   /* entropy_collect: the source lost a word during the block */
};

#define ENTROPY_DIV_MAX 255u
#define ENTROPY_DROPPED_MAX 0xffffu   /* DROPPED saturates here: from then on it tells nothing */

/* ERR_CODE bits of the last ENTROPY_ERR_HEALTH (ENTROPY_ERR_CODE_*_MASK), 0 if none. */
uint32_t entropy_last_error(void);
/* The DRBG's error behind the last ENTROPY_ERR_DRBG. */
int entropy_drbg_error(void);

/* Stop, then run with a raw bit every div + 1 cycles; returns once the start-up test over the
 * first 1024 raw bits has passed (or ENTROPY_ERR_HEALTH / _TIMEOUT). */
int entropy_start(unsigned div);
/* Stop the rings (EN 0, DIV kept); the block empties its buffers. */
void entropy_stop(void);
/* n health-tested raw words, oldest bit first, as the block delivers them. */
int entropy_read(uint32_t *words, size_t n);
/* For the entropy assessment (ip/entropy/doc/spec.md), not for seeds: n raw words the source
 * delivered one after another (SP 800-90B wants sets of consecutive samples) into `words`, which
 * may be any bus address (the ACC's idle DMEM holds 16 KiB). A word DATA held from before is
 * taken and left out first (*held 1). *lost: DROPPED before the block, the words the source lost
 * since entropy_start. ENTROPY_ERR_DROPPED when the block lost one (this reader was slower than
 * a word every 32 (DIV + 1) cycles), or when DROPPED had saturated (ENTROPY_DROPPED_MAX: no
 * loss can be seen any more; entropy_start clears it). The source must be started. */
int entropy_collect(volatile uint32_t *words, size_t n, uint32_t *lost, int *held);
/* 32 bytes: SHA3-256 of ENTROPY_SEED_RAW_WORDS fresh raw words (little-endian bytes). */
int entropy_condition(uint8_t out[32]);
/* drbg_instantiate with a conditioned output as entropy input and the first half of another as
 * nonce (SP 800-90A 8.6.7: a nonce from the entropy source of half the security strength), and
 * the caller's personalization string. The source must be started. */
int entropy_seed_drbg(const uint8_t *pers, size_t pers_len);
/* drbg_reseed with a conditioned output and the caller's additional input. */
int entropy_reseed_drbg(const uint8_t *add, size_t add_len);
/* The health tests' own failure paths (spec.md "Self-test"): with cutoffs no source passes, the
 * start-up test must fail by the repetition count, then by the adaptive proportion; the reset
 * cutoffs are then restored and the source left stopped. ENTROPY_OK when both failed as they
 * must, ENTROPY_ERR_HEALTH otherwise (entropy_last_error(): the ERR_CODE bits seen). */
int entropy_selftest(void);

#endif
