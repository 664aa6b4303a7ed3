/* SPDX-FileCopyrightText: 2026 pqsoc contributors */
/* SPDX-License-Identifier: Apache-2.0 */
/* One JSON line per test, then a summary line; sim/run.py parses exactly this format:
 *   {"test": "NAME", "pass": true, "cycles": N}
 *   {"summary": "PROGRAM", "tests": T, "passed": P, "failed": F}                        */
#ifndef PQSOC_RESULTS_H
#define PQSOC_RESULTS_H
#include <stdint.h>
typedef int (*test_fn)(void);   /* returns 1 on pass */
struct test { const char *name; test_fn fn; };
/* Runs the tests, prints the lines, returns the number of failures. */
int run_tests(const char *program, const struct test *tests, int n);
/* n bytes as lower-case hex on stdout, no newline (outputs inside a JSON line). */
void print_hex(const uint8_t *p, uint32_t n);
#endif
