/* SPDX-FileCopyrightText: 2026 pqsoc contributors */
/* SPDX-License-Identifier: Apache-2.0 */
/* Waits for a host to write BRIDGE_MAGIC into the ctrl scratch register over the bring-up UART
 * bridge (no CPU involvement on that path), then reports. Used by the bring-up test. */
#include <generated/csr.h>
#include "results.h"
#include "runtime.h"

#define BRIDGE_MAGIC 0xb0b0cafeu

static int test_host_write(void)
{
    uint64_t t0 = cycles();
    while (ctrl_scratch_read() != BRIDGE_MAGIC)
        if (cycles() - t0 > 2000000)
            return 0;
    return 1;
}

static const struct test tests[] = {{"bridge_host_write", test_host_write}};

int main(void) { return run_tests("bridge_wait", tests, 1) != 0; }
