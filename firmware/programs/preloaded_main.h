/* SPDX-FileCopyrightText: 2026 pqsoc contributors */
/* SPDX-License-Identifier: Apache-2.0 */
/* The body of the preloaded-ACC programs (mlkem_preloaded.c, mldsa_preloaded.c): each includes
 * its generated <name>_vectors.h (firmware/build.py preloaded_op, write_preload_vectors), then
 * this file. The host has loaded the ACC's IMEM and DMEM (on the chip over the UART bridge;
 * `pqsoc gls soc` loads the same images into the SRAM macro models after reset). The firmware
 * starts the ACC, waits, and checks the output against the reference's (kyber-py /
 * dilithium-py; by SHA3-256 digest, below), ML-DSA's kappa (5 x the reference's iterations)
 * and the ACC's CYCLES against the ISS's. "cycles" is the ACC's CYCLES register, "cpu_cycles"
 * system clock cycles (lib/runtime.c cycles(): the uptime counter) around START + polling. */
#include <stdio.h>
#include <string.h>
#include <generated/mem.h>
#include "runtime.h"
#include "acc.h"
#include "kmac.h"
#include "kmac_regs.h"   /* KMAC_CFG_*_VALUE_*: the streaming hash below */
#ifndef ACC_BASE
#error "a preloaded-ACC program needs a SoC with the ACC"
#endif

/* The output is read back in chunks and hashed with the KMAC block's SHA3-256 as it streams
 * (no CPU buffer the size of a signature: the silicon SoC's main SRAM is 2 KiB); the expected
 * digest is hashlib's of the reference's output. */
#define CHUNK 256

static int output_matches(void)
{
    static uint8_t chunk[CHUNK] __attribute__((aligned(4)));
    uint8_t digest[32];
    int ok = kmac_start(KMAC_CFG_MODE_VALUE_SHA3, KMAC_CFG_STRENGTH_VALUE_L256) == KMAC_OK;
    for (uint32_t off = 0; ok && off < PRELOAD_OUT_LEN; off += CHUNK) {
        uint32_t n = PRELOAD_OUT_LEN - off < CHUNK ? PRELOAD_OUT_LEN - off : CHUNK;
        ok = acc_read_dmem(PRELOAD_OUT_ADDR + off, chunk, n) == ACC_OK;
        if (ok)
            kmac_absorb(chunk, n);
    }
    ok = ok && kmac_finish() == KMAC_OK && kmac_squeeze(digest, sizeof digest) == KMAC_OK;
    ok = kmac_done() == KMAC_OK && ok;
    memset(chunk, 0, sizeof chunk);
    return ok && memcmp(digest, preload_exp_sha3, sizeof digest) == 0;
}

int main(void)
{
    struct acc_result res = {0};
    uint64_t t0 = cycles();
    int r = acc_run(&res, 0);
    uint64_t t1 = cycles();
    /* kappa is read whatever else failed, so that the printed value is the ACC's */
    uint32_t kappa = 0;
    int kappa_ok = PRELOAD_KAPPA_ADDR == 0 ||
                   (acc_read_dmem(PRELOAD_KAPPA_ADDR, &kappa, 4) == ACC_OK && kappa == PRELOAD_KAPPA);
    int ok = r == ACC_OK && res.err_bits == 0 && output_matches() &&
             res.cycles == PRELOAD_ISS_CYCLES && kappa_ok;
    printf("{\"test\": \"%s\", \"pass\": %s, \"cycles\": %lu, \"iss_cycles\": %lu, "
           "\"insns\": %lu, \"cpu_cycles\": %s, \"imem_bytes\": %u, \"out_bytes\": %u, "
           "\"kappa\": %lu, \"rc\": %d, \"err_bits\": %lu}\n",
           PRELOAD_NAME, ok ? "true" : "false", (unsigned long)res.cycles,
           (unsigned long)PRELOAD_ISS_CYCLES, (unsigned long)res.insns,
           u64_dec(t1 - t0).s, (unsigned)PRELOAD_IMEM_BYTES,
           (unsigned)PRELOAD_OUT_LEN, (unsigned long)kappa, r, (unsigned long)res.err_bits);
    printf("{\"summary\": \"%s\", \"tests\": 1, \"passed\": %d, \"failed\": %d}\n",
           PRELOAD_PROGRAM, ok, !ok);
    sim_exit(ok ? 0 : 1);
}
