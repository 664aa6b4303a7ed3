/* SPDX-FileCopyrightText: 2026 pqsoc contributors */
/* SPDX-License-Identifier: Apache-2.0 */
/* ML-KEM (FIPS 203 KeyGen_internal, Encaps_internal, Decaps_internal) and ML-DSA (FIPS 204
 * KeyGen_internal, Sign_internal, Verify_internal) on the ACC coprocessor, for ML-KEM-512 /
 * -768 / -1024 and ML-DSA-44 / -65 / -87 (the parameter set is an argument; ML-DSA signing
 * has programs for the sets pqc_mldsa_layout.h has rows for, 44 and 65 today: the others are
 * PQC_ERR_PARAM).
 *
 * The ACC programs and their constant tables are NOT part of this library: the silicon SoC's
 * CPU has 6 KiB boot RAM and 2 KiB main SRAM, less than one program. The caller hands each
 * (operation, set) an image (struct pqc_image: program words + constant segments) with
 * pqc_mlkem_set_image(); the image stays where the caller keeps it (ROM, flash, a buffer the
 * host filled) and must stay valid. The images are made by firmware/pqc_layout.py from
 * ip/acc/kernels/mlkem; what this library knows of each program (IMEM size and FNV-1a sum,
 * constant bytes and sum, DMEM addresses of inputs and outputs) is in the generated
 * pqc_mlkem_layout.h, from the same source; for ML-DSA (pqc_mldsa_set_image(), images from
 * firmware/pqc_mldsa_layout.py, ip/acc/kernels/mldsa) in pqc_mldsa_layout.h.
 *
 * Each call:
 *   1. checks the set and that an image is given for (op, set) and that it is the one the
 *      layout describes (op, set, word count; FNV-1a of the program and of the constant
 *      tables at the image's first use after it was registered: a registered image must not
 *      change) and fits this ACC's memories;
 *   2. CTRL.WIPE (known DMEM and registers), the program into IMEM unless it is resident
 *      (IMEM keeps its content across WIPE: loaded once per op/set, tracked here and by
 *      acc_imem_generation(); a host that writes IMEM behind the firmware must call
 *      pqc_forget_program());
 *   3. one DMA list (acc_call; the CPU sleeps, bounded: pqc_set_timeout): constant tables and
 *      inputs into DMEM (straight from the caller's buffers: no copy of a secret on the
 *      stack), the run, the program's status word and the outputs out, the wipe;
 *   4. checks ERR_BITS and the program's status word (its FIPS 203 section 7 input checks:
 *      encaps the modulus of ek, decaps the hash of ek inside dk; codes from
 *      ip/acc/kernels/mlkem/status.py. ML-DSA: sign's OK / M' length, verify's valid or why
 *      not; keygen writes none);
 *   5. a wipe on every path once step 2 began (the list's, or acc_call's after a failure), so
 *      no secret stays in DMEM or the ACC's registers. A call that fails from step 2 on zero-fills its outputs (no partial
 *      result); one refused in step 1 leaves them untouched.
 * Details of the last call (ACC cycles, ERR_BITS, whether the program was loaded): pqc_last().
 * Only available on a SoC with the ACC (ACC_BASE). */
#ifndef PQSOC_PQC_H
#define PQSOC_PQC_H
#include <stddef.h>
#include <stdint.h>
#include "acc.h"
#include "pqc_mlkem_layout.h"   /* generated: enum pqc_mlkem_op, PQC_MLKEM<set>_*_BYTES */
#include "pqc_mldsa_layout.h"   /* generated: enum pqc_mldsa_op, PQC_MLDSA<set>_*_BYTES */

enum pqc_status {
    PQC_OK = 0,
    PQC_ERR_PARAM = 1,             /* no such parameter set, or no program of this op for it */
    PQC_ERR_IMAGE_MISSING = 2,     /* no image given for (op, set): pqc_mlkem_set_image() */
    PQC_ERR_IMAGE_WRONG = 3,       /* the image is not the layout's program / tables for (op,
                                    * set) (for an image without words: IMEM does not hold
                                    * the program), or does not fit this ACC's IMEM / DMEM */
    PQC_ERR_ACC = 4,               /* the program stopped with an error (pqc_last()->acc.err_bits), or
                                    * a DMA transfer failed (pqc_last()->acc_rc = ACC_ERR_DMA) */
    PQC_ERR_EK_INVALID = 5,        /* FIPS 203 7.2 modulus check of ek failed (status word) */
    PQC_ERR_DK_HASH_MISMATCH = 6,  /* FIPS 203 7.3 hash check of dk failed (status word) */
    PQC_ERR_TIMEOUT = 7,           /* the ACC did not halt within the polling bound (wiped) */
    PQC_ERR_BUSY = 8,              /* the ACC refused an access (not idle): another user; or a
                                    * mu stream holds the KMAC block (pqc_mldsa_mu_*) */
    PQC_ERR_STATUS = 9,            /* the program's status word is not a known code (or
                                    * NOT_RUN: the program wrote none): pqc_last() */
    PQC_MLDSA_INVALID = 10,        /* ML-DSA verify ran: the signature does not verify (not an
                                    * error of the call; why: pqc_last()->status_word,
                                    * PQC_MLDSA_VERIFY_STATUS_*) */
    PQC_ERR_LENGTH = 11,           /* M' longer than the program's buffer (layout msg_max;
                                    * give mu instead, pqc_mldsa_mu_*): refused before the run */
    PQC_ERR_RANDOM = 12,           /* randomness the caller left to the library could not be
                                    * drawn (lib/drbg.h: not instantiated, reseed required, a
                                    * KMAC failure): nothing run, outputs untouched */
    PQC_ERR_KMAC = 13,             /* the KMAC block failed a hash the CPU asked of it
                                    * (pqc_mlkem_check_dk; kmac_last_error()) */
};

/* Randomness: where a call takes a random input (ML-KEM keypair d and z, encaps m; ML-DSA
 * keypair xi) NULL draws it from the library's DRBG (lib/drbg.h, instantiated by the caller
 * from its entropy), a 64-byte request for keypair's d || z, 32 bytes otherwise, wiped after
 * the call. ML-DSA sign keeps NULL for the deterministic variant; PQC_RND_DRBG draws rnd. */
extern const uint8_t pqc_rnd_drbg[1];
#define PQC_RND_DRBG pqc_rnd_drbg
/* n words from the DRBG into the ACC's RND pool (acc_add_entropy), for programs that read RND
 * (URND's reseed). PQC_ERR_RANDOM if the DRBG cannot give them, PQC_ERR_BUSY unless idle. */
int pqc_feed_acc_entropy(unsigned n);

struct pqc_segment { uint32_t addr; const uint8_t *data; uint32_t len; };   /* DMEM bytes */

/* An ACC program and its constant tables (the format firmware/pqc_layout.py writes).
 * imem == NULL: the program is loaded into IMEM by someone else (on the silicon SoC the host
 * or the management core, from outside the CPU's memory); the API then reads IMEM back and
 * checks its FNV-1a sum against the layout instead of loading it (once, while it stays
 * resident). The constant tables must come with the image: CTRL.WIPE clears DMEM. */
struct pqc_image {
    uint8_t op;                       /* enum pqc_mlkem_op / enum pqc_mldsa_op */
    uint16_t param;                   /* 512, 768, 1024 / 44, 65, 87 */
    const uint32_t *imem; uint32_t imem_words;
    const struct pqc_segment *consts; uint32_t n_consts;   /* in address order */
};

/* Details of the last call. */
struct pqc_info {
    int status;                  /* what the call returned */
    struct acc_result acc;       /* CYCLES, ERR_BITS, ERR_KMAC, INSNS, STOP_PC of the run */
    int loaded;                  /* 1: the program was written to IMEM by this call */
    int checked_imem;            /* 1: an image without words: IMEM was read back and checked */
    int acc_rc;                  /* the failing acc_* driver call's code, ACC_OK if none */
    uint32_t status_word;        /* the program's status word (PQC_MLKEM_STATUS_*,
                                  * PQC_MLDSA_SIGN_STATUS_*, PQC_MLDSA_VERIFY_STATUS_*) */
    uint32_t iterations;         /* ML-DSA sign: iterations of the rejection loop (kappa / l) */
};

/* Remembers img for (img->op, img->param); NULL-safe: PQC_ERR_PARAM for an op or set that has
 * no program. Replacing the image of the resident program forces a reload. */
int pqc_mlkem_set_image(const struct pqc_image *img);
/* Forgets a set image (op, param); the next call of that op returns PQC_ERR_IMAGE_MISSING. */
void pqc_mlkem_clear_image(unsigned op, unsigned param);

/* d, z: 32 bytes (both NULL: from the DRBG) -> ek (PQC_MLKEM<set>_EK_BYTES), dk
 * (PQC_MLKEM<set>_DK_BYTES). */
int pqc_mlkem_keypair(unsigned param, const uint8_t *d, const uint8_t *z, uint8_t *ek, uint8_t *dk);
/* ek, m (32 bytes; NULL: from the DRBG) -> K (32 bytes), c (PQC_MLKEM<set>_C_BYTES). */
int pqc_mlkem_encaps(unsigned param, const uint8_t *ek, const uint8_t *m, uint8_t *K, uint8_t *c);
/* FIPS 203 7.2 / 7.3 input checks as operations of their own (ACVP's keyCheck modes), on the
 * CPU (no ACC program): ek (PQC_MLKEM<set>_EK_BYTES) passes when every 12-bit coefficient of
 * t_hat is below q (else PQC_ERR_EK_INVALID); dk (PQC_MLKEM<set>_DK_BYTES) passes when the
 * SHA3-256 of its ek, computed on the KMAC block, equals the H(ek) it stores (else
 * PQC_ERR_DK_HASH_MISMATCH; PQC_ERR_KMAC if the block failed). The type check, the length, is
 * the caller's: the set names it. pqc_last()->status holds the result. */
int pqc_mlkem_check_ek(unsigned param, const uint8_t *ek);
int pqc_mlkem_check_dk(unsigned param, const uint8_t *dk);
/* dk, c -> K (32 bytes; the implicit-rejection key for a bad c, as FIPS 203 says). */
int pqc_mlkem_decaps(unsigned param, const uint8_t *dk, const uint8_t *c, uint8_t *K);
/* The first-order masked decapsulation (image op PQC_MLKEM_DECAPS_MASKED;
 * ip/acc/kernels/mlkem/masked_decaps.py, docs/side_channels.md): mdk, the masked key
 * (PQC_MLKEM<set>_MDK_BYTES: s_hat in two arithmetic shares mod q, 16 bits a coefficient, then
 * ek, H(ek) and z in two Boolean shares; what a key store keeping dk masked holds), c -> K in
 * two shares K0, K1 (32 bytes each; K = K0 ^ K1, which the caller forms where it uses K, or
 * never). The masks: 8 words from the library's DRBG into the ACC's RND pool before the run
 * (PQC_ERR_RANDOM, nothing run, if it cannot give them). */
int pqc_mlkem_decaps_masked(unsigned param, const uint8_t *mdk, const uint8_t *c, uint8_t *K0,
                            uint8_t *K1);

/* ML-DSA. The images: op PQC_MLDSA_KEYGEN, _SIGN (from M'), _SIGN_MU (from an external mu),
 * _VERIFY; set with pqc_mldsa_set_image() (PQC_ERR_PARAM for a set the generated layout has
 * no program of). Buffer lengths: PQC_MLDSA<set>_{PK,SK,SIG}_BYTES.
 * Measured on the simulation SoC (sim/api_bench.py, programs/pqc_mldsa_api.c, 3 Dec), ML-DSA-65,
 * ACC cycles / system clock cycles end to end with the program resident (the first call, which
 * loads it, 55-77 k more): keypair 13 439 / 17 923, sign 83 205 / 89 011 (its test message),
 * verify 15 841 / 20 203. */
int pqc_mldsa_set_image(const struct pqc_image *img);
void pqc_mldsa_clear_image(unsigned op, unsigned param);
/* xi (32 bytes; NULL: from the DRBG) -> pk, sk (FIPS 204 Alg. 6 KeyGen_internal). */
int pqc_mldsa_keypair(unsigned param, const uint8_t *xi, uint8_t *pk, uint8_t *sk);
/* sk and either M' (mprime, mprime_len bytes: 0 || len(ctx) || ctx || M for pure ML-DSA, formed
 * by the caller; mu NULL) or mu (64 bytes = H(tr || M', 64), external mu; mprime NULL) -> sig
 * (FIPS 204 Alg. 7 Sign_internal). rnd: 32 bytes (hedged), PQC_RND_DRBG (hedged, rnd from the
 * DRBG), NULL for the deterministic variant (32 zero bytes). M' over the program's buffer: PQC_ERR_LENGTH (give mu: pqc_mldsa_mu_*).
 * pqc_last()->iterations:
 * the rejection loop's iterations. */
int pqc_mldsa_sign(unsigned param, const uint8_t *sk, const uint8_t *mprime, uint32_t mprime_len,
                   const uint8_t *mu, const uint8_t *rnd, uint8_t *sig);
/* pk, sig and either M' or mu (as for sign): PQC_OK when the signature verifies,
 * PQC_MLDSA_INVALID when it does not (malformed hint, z out of range, c_tilde mismatch:
 * pqc_last()->status_word), an error code when the call could not decide. */
int pqc_mldsa_verify(unsigned param, const uint8_t *pk, const uint8_t *mprime, uint32_t mprime_len,
                     const uint8_t *mu, const uint8_t *sig);

/* HashML-DSA (FIPS 204 Alg. 4 / 5): the pre-hash form of M', 1 || len(ctx) || ctx || OID(PH) ||
 * PH(M), for pqc_mldsa_sign / _verify's mprime (lib/pqc_mldsa_msg.c). ph is the last arc of
 * the hash's OID (2.16.840.1.101.3.4.2.ph), PQC_PH_*. The SHA-3 and SHAKE pre-hashes are
 * computed here from M on the KMAC block (pqc_mldsa_hash_mprime); the SHA-2 ones are the
 * caller's (the host has SHA-2, this chip does not): pqc_mldsa_digest_mprime takes PH(M).
 * mprime needs PQC_MLDSA_PREHASH_MPRIME_MAX bytes; *mprime_len gets the length.
 * PQC_ERR_LENGTH: ctx over 255 bytes, a digest of the wrong length; PQC_ERR_PARAM: an unknown
 * ph, a SHA-2 ph given to the hash form, NULL buffers; PQC_ERR_KMAC: the block failed. */
enum {
    PQC_PH_SHA2_256 = 1, PQC_PH_SHA2_384 = 2, PQC_PH_SHA2_512 = 3, PQC_PH_SHA2_224 = 4,
    PQC_PH_SHA2_512_224 = 5, PQC_PH_SHA2_512_256 = 6, PQC_PH_SHA3_224 = 7, PQC_PH_SHA3_256 = 8,
    PQC_PH_SHA3_384 = 9, PQC_PH_SHA3_512 = 10, PQC_PH_SHAKE128 = 11, PQC_PH_SHAKE256 = 12,
};
#define PQC_MLDSA_PREHASH_MPRIME_MAX (2u + 255u + 11u + 64u)
int pqc_mldsa_hash_mprime(unsigned ph, const uint8_t *ctx, uint32_t ctx_len, const uint8_t *msg,
                          uint32_t msg_len, uint8_t *mprime, uint32_t *mprime_len);
int pqc_mldsa_digest_mprime(unsigned ph, const uint8_t *ctx, uint32_t ctx_len, const uint8_t *digest,
                            uint32_t digest_len, uint8_t *mprime, uint32_t *mprime_len);

/* mu of a long M' (FIPS 204 Alg. 7 line 6, Alg. 8 line 7: mu = H(tr || M', 64)), for an M'
 * over the programs' buffer (pqc_mldsa_sign / _verify: PQC_ERR_LENGTH) or one that is not in
 * memory at once: M' goes through the KMAC block in pieces of any length (lib/pqc_mldsa_msg.c),
 * and the result is sign's / verify's mu. tr is the secret key's bytes 64..127 when signing,
 * pqc_mldsa_tr(pk) (SHAKE256(pk, 64) on the block) when verifying. Pure ML-DSA's M' starts with
 * 0 || len(ctx) || ctx, the caller's first piece. Between _begin and _end the CPU holds the
 * KMAC block: every other call that uses it (the ACC's programs, the DRBG's draws, the
 * pre-hash, the dk check) returns PQC_ERR_BUSY and changes nothing, and so does a second
 * _begin; drbg.h's own calls are the caller's to keep out. _absorb / _end without an open
 * stream, or NULL (with a length; _end's mu): PQC_ERR_PARAM (an open stream goes on
 * unchanged). Otherwise _end closes the stream whatever happens (PQC_ERR_KMAC: the block
 * failed, mu zero-filled); _abort drops an open stream. */
#define PQC_MLDSA_TR_BYTES 64u
int pqc_mldsa_tr(unsigned param, const uint8_t *pk, uint8_t tr[PQC_MLDSA_TR_BYTES]);
int pqc_mldsa_mu_begin(const uint8_t tr[PQC_MLDSA_TR_BYTES]);
int pqc_mldsa_mu_absorb(const uint8_t *piece, uint32_t len);
int pqc_mldsa_mu_end(uint8_t mu[PQC_MLDSA_MU_BYTES]);
void pqc_mldsa_mu_abort(void);
int pqc_mldsa_mu_streaming(void);   /* 1 while a stream is open */

const struct pqc_info *pqc_last(void);
const char *pqc_status_name(int status);
/* System clock cycles a call's DMA list may run before PQC_ERR_TIMEOUT (0: acc.h's
 * ACC_CALL_TIMEOUT). */
void pqc_set_timeout(uint32_t cycles);
/* Forget which program is resident in IMEM (the next call reloads and re-checks it). */
void pqc_forget_program(void);

#endif
