/* SPDX-FileCopyrightText: 2026 pqsoc contributors */
/* SPDX-License-Identifier: Apache-2.0 */
/* Driver for the KMAC block (ip/kmac, registers in the generated kmac_regs.h): SHA3, SHAKE,
 * cSHAKE and KMAC / KMACXOF on the hardware sponge, polling STATUS (no interrupts yet).
 *
 * All calls return KMAC_OK (0) or a negative error. On KMAC_ERR_HW the block's ERR_CODE bits
 * are kept for kmac_last_error(), cleared in the block, and the block is released (CMD.DONE),
 * so the next operation starts clean. Only available on a SoC with the block (KMAC_BASE). */
#ifndef PQSOC_KMAC_H
#define PQSOC_KMAC_H
#include <stddef.h>
#include <stdint.h>

enum {
    KMAC_OK = 0,
    KMAC_ERR_HW = -1,       /* the block set ERR_CODE bits: see kmac_last_error() */
    KMAC_ERR_ARG = -2,      /* bad argument (unsupported size, NULL with a length), nothing done */
    KMAC_ERR_TIMEOUT = -3,  /* the block did not produce output within the polling bound */
};

/* ERR_CODE bits of the last KMAC_ERR_HW (KMAC_ERR_CODE_*_MASK in kmac_regs.h), 0 if none. */
uint32_t kmac_last_error(void);

/* One-shot operations. bits: 224/256/384/512 for SHA3, 128/256 otherwise. Outputs of any
 * length (SHAKE, cSHAKE, KMAC) are squeezed 32 bytes at a time with CMD.NEXT. */
int kmac_sha3(unsigned bits, const void *msg, size_t len, uint8_t *digest);
int kmac_shake(unsigned bits, const void *msg, size_t len, uint8_t *out, size_t out_len);
/* cSHAKE(X, L, N, S); N = S = empty is SHAKE (SP 800-185 3.3). */
int kmac_cshake(unsigned bits, const void *name, size_t name_len, const void *custom,
                size_t custom_len, const void *msg, size_t len, uint8_t *out, size_t out_len);
/* KMAC(K, X, L, S); xof != 0 gives KMACXOF (right_encode(0) instead of right_encode(8L)). */
int kmac_kmac(unsigned bits, const void *key, size_t key_len, const void *custom,
              size_t custom_len, const void *msg, size_t len, uint8_t *out, size_t out_len,
              int xof);

static inline int kmac_sha3_224(const void *m, size_t n, uint8_t d[28]) { return kmac_sha3(224, m, n, d); }
static inline int kmac_sha3_256(const void *m, size_t n, uint8_t d[32]) { return kmac_sha3(256, m, n, d); }
static inline int kmac_sha3_384(const void *m, size_t n, uint8_t d[48]) { return kmac_sha3(384, m, n, d); }
static inline int kmac_sha3_512(const void *m, size_t n, uint8_t d[64]) { return kmac_sha3(512, m, n, d); }
static inline int kmac_shake128(const void *m, size_t n, uint8_t *o, size_t ol) { return kmac_shake(128, m, n, o, ol); }
static inline int kmac_shake256(const void *m, size_t n, uint8_t *o, size_t ol) { return kmac_shake(256, m, n, o, ol); }

/* Step by step (what the one-shot calls use; also for streaming and for fault tests).
 * kmac_start takes the raw CFG fields (mode: KMAC_CFG_MODE_VALUE_*, strength:
 * KMAC_CFG_STRENGTH_VALUE_*) and lets the block judge the combination (ERR_CODE.MODE). */
int kmac_start(unsigned mode, unsigned strength);
void kmac_absorb(const void *data, size_t len);   /* byte-granular: word, halfword, byte stores */
int kmac_pad_block(void);                         /* bytepad's zero fill to the rate */
int kmac_finish(void);
int kmac_squeeze(uint8_t *out, size_t len);       /* continues where the last call stopped */
int kmac_done(void);                              /* wipe and release the block */

#endif
