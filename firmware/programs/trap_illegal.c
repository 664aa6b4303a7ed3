/* SPDX-FileCopyrightText: 2026 pqsoc contributors */
/* SPDX-License-Identifier: Apache-2.0 */
/* Deliberately executes an illegal instruction: the runner must report mcause 2 and this PC. */
#include <stdio.h>

int main(void)
{
    printf("about to execute an illegal instruction\n");
    __asm__ volatile(".globl illegal_insn\nillegal_insn: .word 0x00000000");
    printf("not reached\n");
    return 0;
}
