/* SPDX-FileCopyrightText: 2026 pqsoc contributors */
/* SPDX-License-Identifier: Apache-2.0 */
/* Never finishes: the runner must stop it at the cycle limit. */
#include <stdio.h>

int main(void)
{
    printf("hanging now\n");
    for (;;)
        __asm__ volatile("");
}
