/* SPDX-FileCopyrightText: 2026 pqsoc contributors */
/* SPDX-License-Identifier: Apache-2.0 */
/* Firmware runtime: console, cycle counter, traps and interrupts, simulation exit. */
#ifndef PQSOC_RUNTIME_H
#define PQSOC_RUNTIME_H
#include <stdint.h>

/* System clock cycles since reset: the SoC's uptime counter (LiteX timer0), which counts while
 * the CPU sleeps (Ibex's mcycle does not). */
uint64_t cycles(void);

/* Decimal text of a 64-bit count, for printf("%s", u64_dec(x).s): the firmware links picolibc's
 * integer-only printf (firmware/build.py), whose %llu prints only the low 32 bits. The struct is
 * returned by value, so the text lives until the end of the full expression. */
struct u64_text { char s[21]; };
struct u64_text u64_dec(uint64_t v);

/* End the program: in the simulation SoC the harness stops with this exit code (sim control);
 * on the silicon SoC (no sim control) it prints EXIT_MARKER " code=N" on the console, which
 * the silicon harness (and a person at the console) reads, and spins. */
void sim_exit(int code) __attribute__((noreturn));

/* Interrupts: handler for LiteX IRQ n (Ibex fast interrupt n, mcause 16+n). */
typedef void (*irq_handler_t)(void);
void irq_attach(unsigned irq, irq_handler_t handler);
void irq_global_enable(int on);

/* Expected exceptions, for tests of fault paths: after trap_expect(cause), the next exception
 * with that mcause is recorded and the faulting instruction skipped instead of ending the
 * program. trap_seen() returns the mtval of that exception, or -1 if none happened. */
void trap_expect(uint32_t mcause);
int64_t trap_seen(void);

#define MCAUSE_LOAD_ACCESS_FAULT 5u
#define MCAUSE_STORE_ACCESS_FAULT 7u

/* Marker printed (with mcause/mepc/mtval) when an unexpected trap ends the program;
 * the simulation runner looks for it. */
#define TRAP_MARKER "*** TRAP"
/* Printed by sim_exit() on a SoC without sim control, then " code=N". */
#define EXIT_MARKER "*** EXIT"

#endif
