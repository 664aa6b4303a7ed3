/* SPDX-FileCopyrightText: 2026 pqsoc contributors */
/* SPDX-License-Identifier: Apache-2.0 */
/* Prints a result line cut short and exits "successfully": the runner must reject it. */
#include <stdio.h>

int main(void)
{
    printf("{\"test\": \"ok_one\", \"pass\": true, \"cycles\": 1}\n");
    printf("{\"test\": \"cut\", \"pa\n");
    printf("{\"summary\": \"truncated\", \"tests\": 2, \"passed\": 2, \"failed\": 0}\n");
    return 0;
}
