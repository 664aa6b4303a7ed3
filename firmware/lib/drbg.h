/* SPDX-FileCopyrightText: 2026 pqsoc contributors */
/* SPDX-License-Identifier: Apache-2.0 */
/* The firmware's random bit generator: HMAC_DRBG (NIST SP 800-90A Rev. 1, 10.1.2) with
 * HMAC-SHA3-256 on the KMAC block, security strength 256, no prediction resistance, no
 * derivation function. It makes the operations' own randomness when the caller gives none
 * (lib/pqc.c: ML-KEM d, z, m; ML-DSA xi, rnd) and the ACC's entropy words (pqc_feed_acc_entropy).
 *
 * The seed material comes from outside: the CPU or Caravel's management core passes entropy
 * input it holds (a host's RBG through the UART bridge, an entropy source) to drbg_instantiate
 * and drbg_reseed. This library cannot judge its quality; the caller vouches for 256 bits of
 * entropy in every entropy input (DRBG_MIN_ENTROPY_BYTES bytes at least, full entropy).
 *
 * One instance (the library's state). Every call returns DRBG_OK or a negative error:
 *   - a bad argument (too short an entropy input or nonce, too long an input or request, NULL
 *     with a length) changes nothing;
 *   - a KMAC failure in the middle of an update leaves the state unknown: the instance is
 *     zeroized and must be instantiated again (SP 800-90A 9: the error state);
 *   - drbg_generate zero-fills its output on every error but a request over
 *     DRBG_MAX_REQUEST_BYTES (whose length is the error: nothing is written).
 * The state (K, V) is zeroized by drbg_uninstantiate and on those failures; every HMAC key
 * block and intermediate digest is wiped on return. Not reentrant (one KMAC, no locking). */
#ifndef PQSOC_DRBG_H
#define PQSOC_DRBG_H
#include <stddef.h>
#include <stdint.h>

enum {
    DRBG_OK = 0,
    DRBG_ERR_NOT_INSTANTIATED = -1,   /* generate / reseed before instantiate (or after an error) */
    DRBG_ERR_RESEED_REQUIRED = -2,    /* reseed_counter past the reseed interval: drbg_reseed */
    DRBG_ERR_ENTROPY = -3,            /* entropy input under DRBG_MIN_ENTROPY_BYTES, or nonce under
                                       * DRBG_MIN_NONCE_BYTES */
    DRBG_ERR_LENGTH = -4,             /* an input over DRBG_MAX_INPUT_BYTES, a request over
                                       * DRBG_MAX_REQUEST_BYTES, an interval out of range, NULL
                                       * with a length */
    DRBG_ERR_KMAC = -5,               /* the KMAC block failed (kmac_last_error()): zeroized */
};

#define DRBG_MIN_ENTROPY_BYTES 32u          /* security strength 256 bits */
#define DRBG_MIN_NONCE_BYTES 16u            /* half the security strength (SP 800-90A 8.6.7) */
#define DRBG_MAX_INPUT_BYTES 4096u          /* entropy, nonce, personalization, additional input */
#define DRBG_MAX_REQUEST_BYTES 65536u       /* 2^19 bits per request (Table 2) */
#define DRBG_RESEED_INTERVAL_MAX (1u << 24) /* requests between reseeds (Table 2 allows 2^48) */

int drbg_instantiate(const uint8_t *entropy, size_t entropy_len, const uint8_t *nonce,
                     size_t nonce_len, const uint8_t *pers, size_t pers_len);
int drbg_reseed(const uint8_t *entropy, size_t entropy_len, const uint8_t *add, size_t add_len);
int drbg_generate(uint8_t *out, size_t len, const uint8_t *add, size_t add_len);
void drbg_uninstantiate(void);
/* Requests allowed between reseeds, 1..DRBG_RESEED_INTERVAL_MAX (the default). */
int drbg_set_reseed_interval(uint32_t requests);
int drbg_instantiated(void);

#endif
