/* SPDX-FileCopyrightText: 2026 pqsoc contributors */
/* SPDX-License-Identifier: Apache-2.0 */
/* Prints a passing result line but no summary: the runner must reject it. */
#include <stdio.h>

int main(void)
{
    printf("{\"test\": \"lonely\", \"pass\": true, \"cycles\": 1}\n");
    return 0;
}
