/* SPDX-FileCopyrightText: 2026 pqsoc contributors */
/* SPDX-License-Identifier: Apache-2.0 */
/* Raw bits for the entropy assessment (ip/entropy/doc/spec.md; host side: bringup/entropy_raw.py).
 * The host asks through the ctrl scratch register over the bring-up bridge; this program fills
 * the ACC's DMEM (idle, 16 KiB) with consecutive raw words (lib/entropy.c entropy_collect), the
 * host reads them out over the bridge and asks for the next block. Over the bridge alone a host
 * cannot keep up (a read is a round trip of ~100 us at 1 Mbaud); the CPU can at the reset DIV
 * 15, marginally at 7 (sim/tests/test_entropy_raw.py).
 *
 * Command (host -> scratch): COLLECT_TAG << 24 | DIV << 16 | words (1 .. the DMEM's words; 0
 * ends the program). A DIV other than the running one starts the source again at it (the
 * start-up test first). Reply (scratch): DONE_TAG << 24 | status << 20 | held << 16 | lost
 * (entropy_collect's: a word held from before left out; DROPPED before the block; a DROPPED
 * saturated by the host's reads starts the source again first). Status:
 * see enum below. The raw bits leave the chip on purpose: this program is for bring-up, and a
 * seed drawn later comes from later bits. */
#include <stdio.h>
#include <generated/csr.h>
#include <generated/mem.h>
#include "acc.h"
#include "entropy.h"
#include "results.h"
#include "runtime.h"

#define COLLECT_TAG 0xecu
#define DONE_TAG 0xedu
enum { ST_OK, ST_HEALTH, ST_TIMEOUT, ST_DROPPED, ST_ARG, ST_ACC, ST_ABSENT };

static unsigned status_of(int r)
{
    switch (r) {
    case ENTROPY_OK: return ST_OK;
    case ENTROPY_ERR_HEALTH: return ST_HEALTH;
    case ENTROPY_ERR_TIMEOUT: return ST_TIMEOUT;
    case ENTROPY_ERR_DROPPED: return ST_DROPPED;
    case ENTROPY_ERR_ABSENT: return ST_ABSENT;
    default: return ST_ARG;
    }
}

/* Serves blocks until the host ends the session (a command of 0 words); the source is stopped then. */
static int serve(void)
{
    volatile uint32_t *dmem = (volatile uint32_t *)(ACC_BASE + ACC_DMEM_WINDOW);
    uint32_t dmem_words = acc_dmem_size() / 4, blocks = 0;
    int div = -1;   /* the source is not started */
    printf("entropy_collect: ready, %lu words a block at most\n", (unsigned long)dmem_words);
    for (;;) {
        uint32_t cmd = ctrl_scratch_read();
        if (cmd >> 24 != COLLECT_TAG)   /* the reply replaces it: each command is seen once */
            continue;
        unsigned want = (cmd >> 16) & 0xffu, n = cmd & 0xffffu, st;
        uint32_t lost = 0;
        int held = 0;
        if (n == 0)
            break;
        if (n > dmem_words)
            st = ST_ARG;
        else if (!acc_idle())
            st = ST_ACC;
        else {
            int r = ENTROPY_OK;
            if ((int)want != div) {
                r = entropy_start(want);
                div = r == ENTROPY_OK ? (int)want : -1;
            }
            if (r == ENTROPY_OK)
                r = entropy_collect(dmem, n, &lost, &held);
            /* DROPPED saturated while the host read the last blocks out (at DIV 15 and 50 MHz
             * ~20 k words a 16 KiB block): start the source again, which clears it */
            if (r == ENTROPY_ERR_DROPPED && lost == ENTROPY_DROPPED_MAX) {
                r = entropy_start(want);
                if (r == ENTROPY_OK)
                    r = entropy_collect(dmem, n, &lost, &held);
            }
            st = status_of(r);
            if (r == ENTROPY_ERR_HEALTH)
                div = -1;   /* failed: the next block starts it again */
        }
        blocks += st == ST_OK;
        ctrl_scratch_write(DONE_TAG << 24 | st << 20 | (unsigned)held << 16 | (lost & 0xffffu));
    }
    entropy_stop();
    printf("entropy_collect: %lu blocks\n", (unsigned long)blocks);
    return 1;
}

static const struct test tests[] = {{"entropy_collect", serve}};

int main(void) { return run_tests("entropy_collect", tests, 1) != 0; }
