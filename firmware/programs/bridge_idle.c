/* SPDX-FileCopyrightText: 2026 pqsoc contributors */
/* SPDX-License-Identifier: Apache-2.0 */
/* Idles for a bring-up session over the UART bridge: the host owns the bus; the CPU sleeps in
 * wfi (no interrupt is enabled, so nothing wakes it: no instruction fetches compete with the
 * bridge on the bus) and never ends the simulation itself. The data/bss/stack it uses are the
 * same as every program's (link.ld), which bringup/'s SRAM check keeps clear of. */
#include <stdio.h>

int main(void)
{
    printf("bridge idle\n");
    for (;;)
        __asm__ volatile("wfi");
}
