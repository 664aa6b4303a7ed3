/* SPDX-FileCopyrightText: 2026 pqsoc contributors */
/* SPDX-License-Identifier: Apache-2.0 */
/* The bus access policy seen from the firmware's side of a Caravel run (sim/caravel.py,
 * sim/tests/test_caravel.py): the management core loaded the ACC (ML-KEM-768 decaps, as for
 * mlkem_preloaded) and watches the console. While the ACC runs, the management core's reads of
 * the ACC's DMEM are refused ("run" line); after "locked" it may only read the status window
 * (soc/access.py). The firmware leaves a word in the mailbox for it. */
#include <stdio.h>
#include <generated/csr.h>
#include "runtime.h"
#include "acc.h"

#define MAILBOX_DONE 0x600dcafeu

int main(void)
{
    struct acc_result res = {0};
    int r = acc_start();
    printf("run\n");                  /* ~2000 cycles of console; decaps takes ~9 900 */
    if (r == ACC_OK)
        r = acc_wait(&res, 0);
    printf("{\"test\": \"acc_ran\", \"pass\": %s, \"cycles\": %lu}\n",
           r == ACC_OK && res.err_bits == 0 ? "true" : "false", (unsigned long)res.cycles);
    extaccess_mailbox_write(MAILBOX_DONE);
    extaccess_lock_write(1);
    extaccess_lock_write(0);          /* does not unlock: the lock holds until reset */
    int locked = extaccess_status_read() & 1;
    printf("{\"test\": \"locked\", \"pass\": %s, \"cycles\": 0}\n", locked ? "true" : "false");
    printf("{\"summary\": \"caravel_policy\", \"tests\": 2, \"passed\": %d, \"failed\": %d}\n",
           (r == ACC_OK && res.err_bits == 0) + locked, 2 - (r == ACC_OK && res.err_bits == 0) - locked);
    printf("locked\n");
    return 0;
}
