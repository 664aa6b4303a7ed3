/* The body of the preloaded-ACC programs (mlkem_preloaded.c, mldsa_preloaded.c): each includes
 * its generated <name>_vectors.h (firmware/build.py preloaded_op, write_preload_vectors), then
 * this file. The host has loaded the ACC's IMEM and DMEM (on the chip over the UART bridge;
 * `pqsoc gls soc` loads the same images into the SRAM macro models after reset). The firmware
 * starts the ACC, waits, and checks the output against the reference's (kyber-py /
 * dilithium-py; by SHA3-256 digest, below), ML-DSA's kappa (5 x the reference's iterations)
 * and the ACC's CYCLES against the ISS's. "cycles" is the ACC's CYCLES register, "cpu_cycles"
 * mcycle around START + polling. */
#include <stdio.h>
#include <string.h>
#include <generated/mem.h>
#include "runtime.h"
#include "acc.h"
#include "kmac.h"
#ifndef ACC_BASE
#error "a preloaded-ACC program needs a SoC with the ACC"
#endif

/* The output is read back and hashed with the KMAC block's SHA3-256; the expected digest is
 * hashlib's of the reference's output (the whole expected signature would not fit the boot RAM). */
static uint8_t out[PRELOAD_OUT_LEN] __attribute__((aligned(4)));

static int output_matches(void)
{
    uint8_t digest[32];
    return acc_read_dmem(PRELOAD_OUT_ADDR, out, sizeof out) == ACC_OK &&
           kmac_sha3_256(out, sizeof out, digest) == KMAC_OK &&
           memcmp(digest, preload_exp_sha3, sizeof digest) == 0;
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
           "\"insns\": %lu, \"cpu_cycles\": %llu, \"imem_bytes\": %u, \"out_bytes\": %u, "
           "\"kappa\": %lu, \"rc\": %d, \"err_bits\": %lu}\n",
           PRELOAD_NAME, ok ? "true" : "false", (unsigned long)res.cycles,
           (unsigned long)PRELOAD_ISS_CYCLES, (unsigned long)res.insns,
           (unsigned long long)(t1 - t0), (unsigned)PRELOAD_IMEM_BYTES,
           (unsigned)sizeof out, (unsigned long)kappa, r, (unsigned long)res.err_bits);
    printf("{\"summary\": \"%s\", \"tests\": 1, \"passed\": %d, \"failed\": %d}\n",
           PRELOAD_PROGRAM, ok, !ok);
    sim_exit(ok ? 0 : 1);
}
