/* SPDX-FileCopyrightText: 2026 pqsoc contributors */
/* SPDX-License-Identifier: Apache-2.0 */
#include <stdio.h>
#include <generated/csr.h>
#include "runtime.h"

/* ---- console: picolibc stdio on the LiteX UART ---- */
static int uart_putc(char c, FILE *f)
{
    (void)f;
    while (uart_txfull_read())
        ;
    uart_rxtx_write((unsigned char)c);
    return (unsigned char)c;
}

static int uart_getc(FILE *f)
{
    (void)f;
    while (uart_rxempty_read())
        ;
    int c = uart_rxtx_read();
    uart_ev_pending_write(1u << CSR_UART_EV_PENDING_RX_OFFSET);
    return c;
}

static FILE console = FDEV_SETUP_STREAM(uart_putc, uart_getc, NULL, _FDEV_SETUP_RW);
FILE *const stdin = &console;
FILE *const stdout = &console;
FILE *const stderr = &console;

/* ---- cycles ---- */
/* The SoC's uptime counter (LiteX timer0, system clock cycles since reset): it counts while
 * the CPU sleeps in wfi, which Ibex's mcycle does not (the core's clock is gated then), so a
 * call that waits for the ACC or its DMA asleep is timed whole. */
uint64_t cycles(void)
{
    timer0_uptime_latch_write(1);
    return timer0_uptime_cycles_read();
}

struct u64_text u64_dec(uint64_t v)
{
    /* long division by 10 over four 16-bit digits: 32-bit divides only (no __udivdi3) */
    uint16_t d[4] = {v >> 48, v >> 32, v >> 16, v};
    char rev[20];
    int n = 0;
    do {
        uint32_t rem = 0, nz = 0;
        for (int i = 0; i < 4; i++) {
            uint32_t cur = rem << 16 | d[i];
            d[i] = cur / 10;
            rem = cur % 10;
            nz |= d[i];
        }
        rev[n++] = (char)('0' + rem);
        if (!nz)
            break;
    } while (1);
    struct u64_text t;
    for (int i = 0; i < n; i++)
        t.s[i] = rev[n - 1 - i];
    t.s[n] = 0;
    return t;
}

/* ---- exit ---- */
static void uart_drain(void)
{
    /* the UART TX FIFO must be empty before the harness stops the clock */
    while (!uart_txempty_read())
        ;
}

void sim_exit(int code)
{
#ifndef CSR_SIMCTRL_BASE
    printf(EXIT_MARKER " code=%d\n", code & 0xff);
#endif
    uart_drain();
#ifdef CSR_SIMCTRL_BASE
    simctrl_finish_write((uint32_t)code & 0xff);
#endif
    for (;;)
        ;
}

/* ---- traps and interrupts ---- */
#define MCAUSE_IRQ 0x80000000u
#define FAST_IRQ_BASE 16u

static irq_handler_t handlers[15];

void irq_attach(unsigned irq, irq_handler_t handler)
{
    handlers[irq] = handler;
    uint32_t bit = 1u << (FAST_IRQ_BASE + irq);
    __asm__ volatile("csrs mie, %0" ::"r"(bit));
}

void irq_global_enable(int on)
{
    if (on)
        __asm__ volatile("csrsi mstatus, 8");
    else
        __asm__ volatile("csrci mstatus, 8");
}

static void fatal(uint32_t mcause, uint32_t mepc, uint32_t mtval)
{
    printf("\n" TRAP_MARKER " mcause=0x%08lx mepc=0x%08lx mtval=0x%08lx\n",
           (unsigned long)mcause, (unsigned long)mepc, (unsigned long)mtval);
    uart_drain();
#ifdef CSR_SIMCTRL_BASE
    simctrl_finish_write(0x100 | (mcause & 0xff));
#endif
    for (;;)
        ;
}

#define NO_TRAP 0xffffffffu
static volatile uint32_t expected_cause = NO_TRAP;
static volatile int64_t seen_tval = -1;

void trap_expect(uint32_t mcause)
{
    seen_tval = -1;
    expected_cause = mcause;
}

int64_t trap_seen(void)
{
    expected_cause = NO_TRAP;
    return seen_tval;
}

void trap_handler(uint32_t mcause, uint32_t mepc, uint32_t mtval)
{
    if (mcause == expected_cause) {
        expected_cause = NO_TRAP;
        seen_tval = mtval;
        /* resume after the faulting instruction: 2 bytes if compressed, else 4 */
        uint16_t insn = *(const volatile uint16_t *)mepc;
        mepc += (insn & 3) == 3 ? 4 : 2;
        __asm__ volatile("csrw mepc, %0" ::"r"(mepc));
        return;
    }
    if (mcause & MCAUSE_IRQ) {
        uint32_t n = (mcause & 0x1f) - FAST_IRQ_BASE;
        if ((mcause & 0x1f) >= FAST_IRQ_BASE && n < 15 && handlers[n]) {
            handlers[n]();
            return;
        }
    }
    fatal(mcause, mepc, mtval);
}
