/* SPDX-FileCopyrightText: 2026 pqsoc contributors */
/* SPDX-License-Identifier: Apache-2.0 */
/* Deliberately loads from an unmapped address: the runner must report a load access fault. */
#include <stdio.h>
#include <stdint.h>

int main(void)
{
    printf("about to read an unmapped address\n");
    volatile uint32_t *p = (volatile uint32_t *)0x40000000u;
    printf("read 0x%08lx\n", (unsigned long)*p);
    return 0;
}
