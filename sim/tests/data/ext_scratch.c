/* SPDX-FileCopyrightText: 2026 pqsoc contributors */
/* SPDX-License-Identifier: Apache-2.0 */
/* Runs on the SoC variant with wb_scratch.v added through soc.extslave (region "scratch"). */
#include <stdint.h>
#include <generated/mem.h>
#include <generated/soc.h>
#include "results.h"
#include "runtime.h"

#define REG(n) (((volatile uint32_t *)SCRATCH_BASE)[n])

static int test_id(void) { return REG(1) == 0x5C7A7C11u; }

static int test_byte_selects(void)
{
    REG(0) = 0x11223344u;
    ((volatile uint8_t *)SCRATCH_BASE)[2] = 0xab;
    ((volatile uint16_t *)SCRATCH_BASE)[0] = 0xcdef;
    return REG(0) == 0x11abcdefu;
}

static volatile int fired;
static void scratch_isr(void)
{
    REG(2) = 0;   /* drop the line */
    fired++;
}

static int test_irq(void)
{
    irq_attach(SCRATCH_INTERRUPT, scratch_isr);
    irq_global_enable(1);
    REG(2) = 1;
    for (int i = 0; i < 1000 && !fired; i++)
        ;
    irq_global_enable(0);
    return fired == 1 && REG(2) == 0;
}

static int test_err(void)
{
    trap_expect(MCAUSE_LOAD_ACCESS_FAULT);
    (void)REG(5);
    return trap_seen() == (int64_t)(SCRATCH_BASE + 20);
}

static const struct test tests[] = {
    {"ext_id", test_id}, {"ext_byte_selects", test_byte_selects}, {"ext_irq", test_irq},
    {"ext_err", test_err},
};

int main(void) { return run_tests("ext_scratch", tests, 4) != 0; }
