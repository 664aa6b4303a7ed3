/* SPDX-FileCopyrightText: 2026 pqsoc contributors */
/* SPDX-License-Identifier: Apache-2.0 */
/* Self-test of the SoC: console, cycle counter, timer + interrupt, GPIO, main SRAM, bus errors,
 * SHA3-256. */
#include <stdio.h>
#include <string.h>
#include <generated/csr.h>
#include <generated/mem.h>
#include "runtime.h"
#include "results.h"
#include "sha3.h"
#include "sha3_vectors.h"   /* generated at build time: hashlib digests, message formulas */

static int test_uart_hello(void)
{
    return printf("hello from pqsoc\n") == 17;
}

static int test_mcycle(void)
{
    uint64_t a = cycles(), b = cycles();
    return b > a && b - a < 100;
}

/* One-shot timer: polled, then the same with its interrupt. */
static volatile int timer_fired;
static void timer_isr(void)
{
    timer0_ev_pending_write(1);
    timer_fired++;
}

static int test_timer(void)
{
    const uint32_t n = 2000;
    timer0_en_write(0);
    timer0_reload_write(0);
    timer0_load_write(n);
    timer0_ev_pending_write(1);
    uint64_t t0 = cycles();
    timer0_en_write(1);
    while (!(timer0_ev_pending_read() & 1))
        if (cycles() - t0 > 10 * n)
            return 0;
    uint64_t dt = cycles() - t0;
    if (dt < n || dt > n + 500)
        return 0;

    timer0_en_write(0);
    timer0_ev_pending_write(1);
    timer0_ev_enable_write(1);
    irq_attach(TIMER0_INTERRUPT, timer_isr);
    irq_global_enable(1);
    timer_fired = 0;
    timer0_load_write(n);
    timer0_en_write(1);
    t0 = cycles();
    while (!timer_fired && cycles() - t0 < 10 * n)
        ;
    irq_global_enable(0);
    timer0_en_write(0);
    timer0_ev_enable_write(0);
    return timer_fired == 1;
}

/* The simulation harness loops gpio_out back to gpio_in. */
static int test_gpio(void)
{
    static const uint8_t pattern[] = {0x00, 0xff, 0xa5, 0x5a, 0x01, 0x80};
    for (unsigned i = 0; i < sizeof pattern; i++) {
        gpio_out_out_write(pattern[i]);
        if (gpio_in_in_read() != pattern[i])
            return 0;
    }
    return 1;
}

/* Main SRAM between the end of .bss and the stack. */
extern uint32_t _end[], _stack_bottom[];   /* from link.ld */
static int test_sram(void)
{
    volatile uint32_t *lo = _end, *hi = _stack_bottom;
    if (hi <= lo)
        return 0;
    for (volatile uint32_t *p = lo; p < hi; p++)   /* address in address */
        *p = (uint32_t)(uintptr_t)p ^ 0x5a5a5a5a;
    for (volatile uint32_t *p = lo; p < hi; p++)
        if (*p != ((uint32_t)(uintptr_t)p ^ 0x5a5a5a5a))
            return 0;
    for (int bit = 0; bit < 32; bit++) {           /* walking one on the data lines */
        *lo = 1u << bit;
        if (*lo != 1u << bit)
            return 0;
    }
    volatile uint8_t *b = (volatile uint8_t *)lo;  /* byte and halfword lanes */
    *lo = 0;
    b[1] = 0x12;
    b[3] = 0x34;
    ((volatile uint16_t *)lo)[0] |= 0x00ab;
    return *lo == 0x340012abu;   /* b[1] = 0x12, b[3] = 0x34, low half |= 0xab */
}

/* The messages are made here from their formulas (build.py SHA3_FORMULAS), not stored; the
 * buffer is static, not on the stack (the stack reserve of link.ld is the worst case + 25 %). */
static int test_sha3(void)
{
    static uint8_t msg[SHA3_MAX_LEN];
    uint8_t out[32];
    for (unsigned v = 0; v < SHA3_VECTORS; v++) {
        for (uint32_t i = 0; i < sha3_vectors[v].len; i++)
            msg[i] = sha3_msg_byte(v, i);
        sha3_256(msg, sha3_vectors[v].len, out);
        if (memcmp(out, sha3_vectors[v].digest, 32) != 0)
            return 0;
    }
    return 1;
}

/* Unmapped addresses answer with a bus error (the Ibex bridge's timeout), not garbage. */
static int test_bus_error(void)
{
    volatile uint32_t *unmapped = (volatile uint32_t *)0x40000000u;
    trap_expect(MCAUSE_LOAD_ACCESS_FAULT);
    (void)*unmapped;
    if (trap_seen() != 0x40000000)
        return 0;
    trap_expect(MCAUSE_STORE_ACCESS_FAULT);
    unmapped[1] = 1;
    return trap_seen() == 0x40000004;
}

static const struct test tests[] = {
    {"uart_hello", test_uart_hello},
    {"mcycle", test_mcycle},
    {"timer", test_timer},
    {"gpio", test_gpio},
    {"sram", test_sram},
    {"bus_error", test_bus_error},
    {"sha3_256", test_sha3},
};

int main(void)
{
    return run_tests("selftest", tests, sizeof tests / sizeof tests[0]) != 0;
}
