/* SPDX-FileCopyrightText: 2026 pqsoc contributors */
/* SPDX-License-Identifier: Apache-2.0 */
/* The entropy source through firmware/lib/entropy.c on the simulation SoC, whose rings are their
 * model (ip/entropy/rtl/rings.py: the same bits every run, no entropy): the DRBG seeded and
 * reseeded from conditioned raw bits, then the driver's error paths and the health tests'
 * self-test. The first test runs first after reset, so the model's state is its seed; it prints
 * the DRBG's outputs, which sim/tests/test_entropy.py recomputes from the model's definition,
 * hashlib's SHA3-256 and OpenSSL's HMAC-DRBG. One JSON line per test (lib/results.h). */
#include <stdio.h>
#include <string.h>
#include <generated/mem.h>
#include "drbg.h"
#include "entropy.h"
#include "results.h"
#include "runtime.h"
#if !defined(ENTROPY_BASE) || !defined(KMAC_BASE)
#error "entropy_selftest needs a SoC with the entropy source and the KMAC block"
#endif
#include "entropy_regs.h"

#define REG32(off) (*(volatile uint32_t *)(ENTROPY_BASE + (off)))
#define DIV 15u   /* CTRL.DIV's reset value: a raw bit every 16 cycles */
/* The silicon SoC's 6 KiB boot RAM holds the seeding test only (the rest is 0.8 KB too many);
 * the error paths and the self-test run on the simulation SoC, the same driver and block. */
#define ERROR_PATHS (ROM_SIZE > 0x1800)

static const uint8_t pers[] = "pqsoc entropy";   /* short: the silicon boot RAM is full */
static const uint8_t add[] = "reseed";
static uint8_t out[2][32];
#if ERROR_PATHS
static uint32_t words[4];
#endif
static int tests, failed;

static void line(const char *name, int ok, uint64_t dt)
{
    tests++;
    failed += !ok;
    printf("{\"test\": \"%s\", \"pass\": %s, \"cycles\": %s", name, ok ? "true" : "false", u64_dec(dt).s);
}

/* Seeded (a block of raw words conditioned as entropy input, the next as nonce), one output;
 * reseeded (a third block), one more. The DIV and WATERMARK registers' raw values go out too. */
static void seed_and_reseed(void)
{
    uint64_t t0 = cycles();
    int ok = entropy_start(DIV) == ENTROPY_OK &&
             entropy_seed_drbg(pers, sizeof pers - 1) == ENTROPY_OK &&
             drbg_generate(out[0], 32, NULL, 0) == DRBG_OK &&
             entropy_reseed_drbg(add, sizeof add - 1) == ENTROPY_OK &&
             drbg_generate(out[1], 32, NULL, 0) == DRBG_OK;
    uint64_t dt = cycles() - t0;
    entropy_stop();
    drbg_uninstantiate();
    line("entropy_seed_drbg", ok, dt);
    printf(", \"ctrl_watermark\": [%lu, %lu], \"drbg\": \"", (unsigned long)REG32(ENTROPY_CTRL_REG_OFFSET),
           (unsigned long)REG32(ENTROPY_WATERMARK_REG_OFFSET));
    print_hex(out[0], 64);   /* both outputs, one after the other */
    fputs("\"}\n", stdout);
}

#if ERROR_PATHS
static int zero(const void *p, size_t n)
{
    const uint8_t *b = p;
    while (n--)
        if (*b++)
            return 0;
    return 1;
}

/* Stopped: a DATA read is the EMPTY error and returns 0; a DIV past the field is refused with
 * nothing written. */
static int stopped_source(void)
{
    entropy_stop();
    REG32(ENTROPY_ERR_CODE_REG_OFFSET) = ~0u;
    int ok = REG32(ENTROPY_DATA_REG_OFFSET) == 0 &&
             REG32(ENTROPY_ERR_CODE_REG_OFFSET) == ENTROPY_ERR_CODE_EMPTY_MASK;
    REG32(ENTROPY_ERR_CODE_REG_OFFSET) = ~0u;
    uint32_t ctrl = REG32(ENTROPY_CTRL_REG_OFFSET);
    ok &= !(ctrl & ENTROPY_CTRL_EN_MASK) && entropy_start(ENTROPY_DIV_MAX + 1) == ENTROPY_ERR_ARG &&
          REG32(ENTROPY_CTRL_REG_OFFSET) == ctrl;
    ok &= entropy_read(NULL, 1) == ENTROPY_ERR_ARG;
    return ok;
}

/* A health failure while running (the cutoff lowered under the source): the read fails with
 * the RCT bit, its buffer zero-filled; seeding fails and leaves no DRBG; after a new start the
 * source delivers again. */
static int failure_stops_delivery(void)
{
    int ok = entropy_start(0) == ENTROPY_OK && entropy_read(words, 1) == ENTROPY_OK;
    REG32(ENTROPY_RCT_CUTOFF_REG_OFFSET) = 2;
    memset(words, 0xa5, sizeof words);
    ok &= entropy_read(words, 4) == ENTROPY_ERR_HEALTH && zero(words, sizeof words) &&
          entropy_last_error() == ENTROPY_ERR_CODE_RCT_MASK &&
          (REG32(ENTROPY_STATUS_REG_OFFSET) & ENTROPY_STATUS_FAILED_MASK);
    ok &= entropy_seed_drbg(NULL, 0) == ENTROPY_ERR_HEALTH && !drbg_instantiated();
    REG32(ENTROPY_RCT_CUTOFF_REG_OFFSET) = ENTROPY_RCT_CUTOFF_RESET;
    ok &= entropy_start(0) == ENTROPY_OK && entropy_read(words, 1) == ENTROPY_OK;
    entropy_stop();
    return ok;
}

/* The health tests' self-test passes, and leaves the reset cutoffs and the source stopped. */
static int selftest(void)
{
    return entropy_selftest() == ENTROPY_OK && entropy_last_error() == 0 &&
           REG32(ENTROPY_RCT_CUTOFF_REG_OFFSET) == ENTROPY_RCT_CUTOFF_RESET &&
           REG32(ENTROPY_APT_CUTOFF_REG_OFFSET) == ENTROPY_APT_CUTOFF_RESET &&
           !(REG32(ENTROPY_CTRL_REG_OFFSET) & ENTROPY_CTRL_EN_MASK);
}

static void report(const char *name, int ok, uint64_t t0)
{
    line(name, ok, cycles() - t0);
    fputs("}\n", stdout);
}

#endif

int main(void)
{
    seed_and_reseed();
#if ERROR_PATHS
    uint64_t t0 = cycles();
    report("entropy_stopped_source", stopped_source(), t0);
    t0 = cycles();
    report("entropy_failure_stops_delivery", failure_stops_delivery(), t0);
    t0 = cycles();
    report("entropy_health_selftest", selftest(), t0);
#endif
    printf("{\"summary\": \"entropy_selftest\", \"tests\": %d, \"passed\": %d, \"failed\": %d}\n",
           tests, tests - failed, failed);
    return failed != 0;
}
