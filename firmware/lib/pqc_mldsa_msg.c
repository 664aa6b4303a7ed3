/* SPDX-FileCopyrightText: 2026 pqsoc contributors */
/* SPDX-License-Identifier: Apache-2.0 */
/* ML-DSA message formation apart from the signing core (pqc.h "HashML-DSA" and "mu of a long
 * M'"): the pre-hash M' of FIPS 204 Alg. 4 / 5, the hash on the KMAC block where the chip has
 * it; mu = H(tr || M', 64) streamed through the KMAC block for an M' of any length. */
#include <string.h>
#include <generated/mem.h>

#ifdef ACC_BASE   /* lib/ is linked into every program; pqc.h's API needs the ACC's SoC */
#include "kmac.h"
#include "kmac_regs.h"   /* generated: CFG mode and strength values */
#include "pqc.h"

/* DER of the hash OIDs 2.16.840.1.101.3.4.2.ph without the last arc */
static const uint8_t oid_prefix[10] = {0x06, 0x09, 0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02};

/* PH's output bytes (FIPS 204 5.4: SHAKE128 256 bits, SHAKE256 512), 0 for an unknown ph. */
static uint32_t digest_bytes(unsigned ph)
{
    static const uint8_t n[] = {0, 32, 48, 64, 28, 28, 32, 28, 32, 48, 64, 32, 64};
    return ph < sizeof n ? n[ph] : 0;
}

/* 1 || len(ctx) || ctx || OID(PH) into mprime; returns its length (where PH(M) goes). */
static uint32_t form(unsigned ph, const uint8_t *ctx, uint32_t ctx_len, uint8_t *mprime)
{
    mprime[0] = 1;
    mprime[1] = (uint8_t)ctx_len;
    if (ctx_len)
        memcpy(mprime + 2, ctx, ctx_len);
    memcpy(mprime + 2 + ctx_len, oid_prefix, sizeof oid_prefix);
    mprime[2 + ctx_len + sizeof oid_prefix] = (uint8_t)ph;
    return 2 + ctx_len + sizeof oid_prefix + 1;
}

static int args_ok(unsigned ph, const uint8_t *ctx, uint32_t ctx_len, uint8_t *mprime, uint32_t *mprime_len)
{
    if (digest_bytes(ph) == 0 || mprime == NULL || mprime_len == NULL || (ctx == NULL && ctx_len))
        return PQC_ERR_PARAM;
    return ctx_len > 255 ? PQC_ERR_LENGTH : PQC_OK;
}

int pqc_mldsa_digest_mprime(unsigned ph, const uint8_t *ctx, uint32_t ctx_len, const uint8_t *digest,
                            uint32_t digest_len, uint8_t *mprime, uint32_t *mprime_len)
{
    int st = args_ok(ph, ctx, ctx_len, mprime, mprime_len);
    if (st == PQC_OK && digest == NULL)
        st = PQC_ERR_PARAM;
    if (st == PQC_OK && digest_len != digest_bytes(ph))
        st = PQC_ERR_LENGTH;
    if (st != PQC_OK)
        return st;
    uint32_t head = form(ph, ctx, ctx_len, mprime);
    memcpy(mprime + head, digest, digest_len);
    *mprime_len = head + digest_len;
    return PQC_OK;
}

/* 1 while a mu stream holds the KMAC block (between pqc_mldsa_mu_begin and _end) */
static int mu_open;

int pqc_mldsa_mu_streaming(void) { return mu_open; }

int pqc_mldsa_hash_mprime(unsigned ph, const uint8_t *ctx, uint32_t ctx_len, const uint8_t *msg,
                          uint32_t msg_len, uint8_t *mprime, uint32_t *mprime_len)
{
    if (mu_open)
        return PQC_ERR_BUSY;
    int st = args_ok(ph, ctx, ctx_len, mprime, mprime_len);
    if (st == PQC_OK && (ph < PQC_PH_SHA3_224 || (msg == NULL && msg_len)))
        st = PQC_ERR_PARAM;   /* SHA-2: the caller's digest (pqc_mldsa_digest_mprime) */
    if (st != PQC_OK)
        return st;
    uint32_t head = form(ph, ctx, ctx_len, mprime), n = digest_bytes(ph);
    uint8_t *out = mprime + head;
    int r = ph == PQC_PH_SHAKE128 ? kmac_shake128(msg, msg_len, out, n)
          : ph == PQC_PH_SHAKE256 ? kmac_shake256(msg, msg_len, out, n)
          : kmac_sha3(8 * n, msg, msg_len, out);
    if (r != KMAC_OK) {
        memset(mprime, 0, head + n);
        return PQC_ERR_KMAC;
    }
    *mprime_len = head + n;
    return PQC_OK;
}

/* ---- mu = H(tr || M', 64) of an M' of any length (FIPS 204 Alg. 7 line 6, Alg. 8 line 7) -- */

int pqc_mldsa_tr(unsigned param, const uint8_t *pk, uint8_t tr[PQC_MLDSA_TR_BYTES])
{
    uint32_t n = param == 44 ? PQC_MLDSA44_PK_BYTES : param == 65 ? PQC_MLDSA65_PK_BYTES
               : param == 87 ? PQC_MLDSA87_PK_BYTES : 0;
    if (n == 0 || pk == NULL || tr == NULL)
        return PQC_ERR_PARAM;
    if (mu_open)
        return PQC_ERR_BUSY;
    if (kmac_shake256(pk, n, tr, PQC_MLDSA_TR_BYTES) != KMAC_OK) {
        memset(tr, 0, PQC_MLDSA_TR_BYTES);
        return PQC_ERR_KMAC;
    }
    return PQC_OK;
}

int pqc_mldsa_mu_begin(const uint8_t tr[PQC_MLDSA_TR_BYTES])
{
    if (tr == NULL)
        return PQC_ERR_PARAM;
    if (mu_open)
        return PQC_ERR_BUSY;
    if (kmac_start(KMAC_CFG_MODE_VALUE_SHAKE, KMAC_CFG_STRENGTH_VALUE_L256) != KMAC_OK)
        return PQC_ERR_KMAC;
    mu_open = 1;
    kmac_absorb(tr, PQC_MLDSA_TR_BYTES);
    return PQC_OK;
}

int pqc_mldsa_mu_absorb(const uint8_t *piece, uint32_t len)
{
    if (!mu_open || (piece == NULL && len))
        return PQC_ERR_PARAM;   /* the stream, if one is open, goes on unchanged */
    kmac_absorb(piece, len);
    return PQC_OK;
}

int pqc_mldsa_mu_end(uint8_t mu[PQC_MLDSA_MU_BYTES])
{
    if (!mu_open || mu == NULL)
        return PQC_ERR_PARAM;
    mu_open = 0;
    /* A misused or failed block shows at FINISH at the latest; the driver releases it then. */
    int r = kmac_finish();
    if (r == KMAC_OK)
        r = kmac_squeeze(mu, PQC_MLDSA_MU_BYTES);
    if (r == KMAC_OK)
        r = kmac_done();
    if (r != KMAC_OK) {
        memset(mu, 0, PQC_MLDSA_MU_BYTES);
        return PQC_ERR_KMAC;
    }
    return PQC_OK;
}

void pqc_mldsa_mu_abort(void)
{
    if (mu_open)
        kmac_done();
    mu_open = 0;
}
#endif
