/* SPDX-FileCopyrightText: 2026 pqsoc contributors */
/* SPDX-License-Identifier: Apache-2.0 */
#include <stdio.h>
#include "runtime.h"
#include "results.h"

int run_tests(const char *program, const struct test *tests, int n)
{
    int failed = 0;
    for (int i = 0; i < n; i++) {
        uint64_t t0 = cycles();
        int ok = tests[i].fn();
        uint64_t dt = cycles() - t0;
        failed += !ok;
        printf("{\"test\": \"%s\", \"pass\": %s, \"cycles\": %s}\n", tests[i].name,
               ok ? "true" : "false", u64_dec(dt).s);
    }
    printf("{\"summary\": \"%s\", \"tests\": %d, \"passed\": %d, \"failed\": %d}\n", program, n,
           n - failed, failed);
    return failed;
}

void print_hex(const uint8_t *p, uint32_t n)
{
    static const char digits[] = "0123456789abcdef";
    char buf[65];
    while (n) {
        uint32_t k = n < 32 ? n : 32, j = 0;
        for (uint32_t i = 0; i < k; i++) {
            buf[j++] = digits[p[i] >> 4];
            buf[j++] = digits[p[i] & 15];
        }
        buf[j] = 0;
        fputs(buf, stdout);
        p += k;
        n -= k;
    }
}
