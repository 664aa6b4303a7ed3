/* SPDX-FileCopyrightText: 2026 pqsoc contributors */
/* SPDX-License-Identifier: Apache-2.0 */
/* HMAC_DRBG with HMAC-SHA3-256 on the KMAC block; see drbg.h. HMAC (FIPS 198-1) over SHA3-256
 * keys a block of the hash's rate, 136 bytes; the DRBG's K is 32 bytes, zero-padded. */
#include <string.h>
#include <generated/mem.h>
#include "drbg.h"

#ifdef KMAC_BASE   /* lib/ is linked into every program; SoC variants without the block skip it */
#include "kmac.h"
#include "kmac_regs.h"

#define OUTLEN 32u
#define RATE 136u   /* SHA3-256's block size for HMAC */

static struct {
    uint8_t K[OUTLEN] __attribute__((aligned(4)));
    uint8_t V[OUTLEN] __attribute__((aligned(4)));
    uint32_t reseed_counter;
    int instantiated;
} st;
static uint32_t reseed_interval = DRBG_RESEED_INTERVAL_MAX;

/* A piece of the HMAC's message (the update's provided_data is up to three concatenated). */
struct piece { const uint8_t *p; size_t n; };

static void wipe(void *p, size_t n)
{
    volatile uint8_t *b = p;
    while (n--)
        *b++ = 0;
}

static void wipe_words(uint32_t *p, size_t n)
{
    volatile uint32_t *w = p;
    while (n--)
        *w++ = 0;
}

static int kmac_ok(int r) { return r == KMAC_OK ? DRBG_OK : DRBG_ERR_KMAC; }

/* SHA3-256 started on (key ^ pad) zero-padded to the rate. Word by word: the key is the
 * state's aligned K, and byte loops here were most of an HMAC's cost. */
static int hmac_key_block(const uint8_t key[OUTLEN], uint8_t pad)
{
    uint32_t blk[RATE / 4];
    const uint32_t *k = (const uint32_t *)key;
    uint32_t pad32 = pad * 0x01010101u;
    for (unsigned i = 0; i < RATE / 4; i++)
        blk[i] = (i < OUTLEN / 4 ? k[i] : 0) ^ pad32;
    int r = kmac_ok(kmac_start(KMAC_CFG_MODE_VALUE_SHA3, KMAC_CFG_STRENGTH_VALUE_L256));
    if (r == DRBG_OK)
        kmac_absorb(blk, RATE);
    wipe_words(blk, RATE / 4);
    return r;
}

/* The digest of what was absorbed, 32 bytes into an aligned buffer (kmac.c then keeps no copy
 * of it), and the block released (DONE wipes its state). */
static int digest(uint8_t out[OUTLEN])
{
    int r = kmac_finish();
    if (r == KMAC_OK)
        r = kmac_squeeze(out, OUTLEN);
    int d = kmac_done();
    return kmac_ok(r != KMAC_OK ? r : d);
}

/* mac = HMAC(key, v [|| sep] || pieces...); sep < 0: none. mac may be key or v. */
static int hmac(const uint8_t key[OUTLEN], const uint8_t v[OUTLEN], int sep,
                const struct piece *pieces, unsigned n, uint8_t mac[OUTLEN])
{
    uint8_t inner[OUTLEN] __attribute__((aligned(4)));
    int r = hmac_key_block(key, 0x36);
    if (r == DRBG_OK) {
        kmac_absorb(v, OUTLEN);
        if (sep >= 0) {
            uint8_t s = (uint8_t)sep;
            kmac_absorb(&s, 1);
        }
        for (unsigned i = 0; i < n; i++)
            kmac_absorb(pieces[i].p, pieces[i].n);
        r = digest(inner);
    }
    if (r == DRBG_OK)
        r = hmac_key_block(key, 0x5c);
    if (r == DRBG_OK) {
        kmac_absorb(inner, OUTLEN);
        r = digest(mac);
    }
    wipe(inner, sizeof inner);
    return r;
}

static void zeroize(void)
{
    wipe(&st, sizeof st);
}

/* HMAC_DRBG_Update (10.1.2.2) with provided_data = the pieces (none: null). On a KMAC failure
 * the instance is zeroized. */
static int update(const struct piece *pieces, unsigned n)
{
    size_t total = 0;
    for (unsigned i = 0; i < n; i++)
        total += pieces[i].n;
    int r = hmac(st.K, st.V, 0x00, pieces, n, st.K);
    if (r == DRBG_OK)
        r = hmac(st.K, st.V, -1, NULL, 0, st.V);
    if (r == DRBG_OK && total) {
        r = hmac(st.K, st.V, 0x01, pieces, n, st.K);
        if (r == DRBG_OK)
            r = hmac(st.K, st.V, -1, NULL, 0, st.V);
    }
    if (r != DRBG_OK)
        zeroize();
    return r;
}

static int input_ok(const uint8_t *p, size_t n)
{
    return (p != NULL || n == 0) && n <= DRBG_MAX_INPUT_BYTES;
}

int drbg_instantiate(const uint8_t *entropy, size_t entropy_len, const uint8_t *nonce,
                     size_t nonce_len, const uint8_t *pers, size_t pers_len)
{
    if (!input_ok(entropy, entropy_len) || !input_ok(nonce, nonce_len) || !input_ok(pers, pers_len))
        return DRBG_ERR_LENGTH;
    if (entropy_len < DRBG_MIN_ENTROPY_BYTES || nonce_len < DRBG_MIN_NONCE_BYTES)
        return DRBG_ERR_ENTROPY;
    memset(st.K, 0x00, OUTLEN);
    memset(st.V, 0x01, OUTLEN);
    st.instantiated = 0;
    const struct piece seed[3] = {{entropy, entropy_len}, {nonce, nonce_len}, {pers, pers_len}};
    int r = update(seed, 3);
    if (r == DRBG_OK) {
        st.reseed_counter = 1;
        st.instantiated = 1;
    }
    return r;
}

int drbg_reseed(const uint8_t *entropy, size_t entropy_len, const uint8_t *add, size_t add_len)
{
    if (!st.instantiated)
        return DRBG_ERR_NOT_INSTANTIATED;
    if (!input_ok(entropy, entropy_len) || !input_ok(add, add_len))
        return DRBG_ERR_LENGTH;
    if (entropy_len < DRBG_MIN_ENTROPY_BYTES)
        return DRBG_ERR_ENTROPY;
    const struct piece seed[2] = {{entropy, entropy_len}, {add, add_len}};
    int r = update(seed, 2);
    if (r == DRBG_OK)
        st.reseed_counter = 1;
    return r;
}

int drbg_generate(uint8_t *out, size_t len, const uint8_t *add, size_t add_len)
{
    int r = DRBG_OK;
    if (out == NULL && len)
        return DRBG_ERR_LENGTH;
    if (!st.instantiated)
        r = DRBG_ERR_NOT_INSTANTIATED;
    else if (len > DRBG_MAX_REQUEST_BYTES || !input_ok(add, add_len))
        r = DRBG_ERR_LENGTH;
    else if (st.reseed_counter > reseed_interval)
        r = DRBG_ERR_RESEED_REQUIRED;
    const struct piece extra = {add, add_len};
    if (r == DRBG_OK && add_len)
        r = update(&extra, 1);
    uint8_t block[OUTLEN] __attribute__((aligned(4)));
    for (size_t done = 0; r == DRBG_OK && done < len; done += OUTLEN) {
        r = hmac(st.K, st.V, -1, NULL, 0, st.V);
        if (r != DRBG_OK) {
            zeroize();
            break;
        }
        memcpy(block, st.V, OUTLEN);
        memcpy(out + done, block, len - done < OUTLEN ? len - done : OUTLEN);
    }
    wipe(block, sizeof block);
    if (r == DRBG_OK)
        r = update(&extra, add_len ? 1 : 0);
    if (r == DRBG_OK)
        st.reseed_counter++;
    else if (out != NULL && len <= DRBG_MAX_REQUEST_BYTES)   /* over it, the length is the error */
        wipe(out, len);
    return r;
}

void drbg_uninstantiate(void) { zeroize(); }

int drbg_instantiated(void) { return st.instantiated; }

int drbg_set_reseed_interval(uint32_t requests)
{
    if (requests == 0 || requests > DRBG_RESEED_INTERVAL_MAX)
        return DRBG_ERR_LENGTH;
    reseed_interval = requests;
    return DRBG_OK;
}

#else   /* no KMAC block: nothing to build the DRBG on */
int drbg_instantiate(const uint8_t *e, size_t el, const uint8_t *n, size_t nl, const uint8_t *p, size_t pl)
{ (void)e; (void)el; (void)n; (void)nl; (void)p; (void)pl; return DRBG_ERR_KMAC; }
int drbg_reseed(const uint8_t *e, size_t el, const uint8_t *a, size_t al)
{ (void)e; (void)el; (void)a; (void)al; return DRBG_ERR_NOT_INSTANTIATED; }
int drbg_generate(uint8_t *out, size_t len, const uint8_t *a, size_t al)
{ (void)a; (void)al; if (out) memset(out, 0, len); return DRBG_ERR_NOT_INSTANTIATED; }
void drbg_uninstantiate(void) {}
int drbg_instantiated(void) { return 0; }
int drbg_set_reseed_interval(uint32_t requests) { (void)requests; return DRBG_ERR_LENGTH; }
#endif
