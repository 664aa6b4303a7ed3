/* SPDX-FileCopyrightText: 2026 pqsoc contributors */
/* SPDX-License-Identifier: Apache-2.0 */
/* Driver for the ACC coprocessor (ip/acc, registers in the generated acc_regs.h, error bits in
 * the generated acc_errors.h from ip/acc/data/isa.yml): load a program into IMEM, data into
 * DMEM, run it (CTRL.START, poll STATUS.STATE until IDLE, with a bound), read the results; or
 * a whole call as one DMA list (acc_list_*, below).
 *
 * IMEM/DMEM are reachable only while the ACC is idle (a busy access is ignored and flagged in
 * HOST_ERR); the calls below check STATUS first. DMEM addresses are byte addresses inside the
 * ACC's data memory (the 32-bit host view of its 256-bit words, little-endian).
 * After an error the ACC wipes its registers and DMEM: reload DMEM before the next run.
 * Word-aligned transfers of 4-byte-aligned buffers longer than 64 bytes go through the ACC's
 * DMA (DMA_* registers: the ACC copies between the bus and its memories in bursts, ~1 cycle a
 * word from LiteX's ROM and SRAM, where a CPU copy costs ~10); the rest by the CPU over the
 * host port.
 * Only available on a SoC with the ACC (ACC_BASE). */
#ifndef PQSOC_ACC_H
#define PQSOC_ACC_H
#include <stddef.h>
#include <stdint.h>

enum {
    ACC_OK = 0,
    ACC_ERR_PROGRAM = -1,   /* the program halted with an error: see acc_result.err_bits */
    ACC_ERR_ARG = -2,       /* outside IMEM/DMEM, nothing done */
    ACC_ERR_TIMEOUT = -3,   /* still running after the polling bound (it keeps running) */
    ACC_ERR_BUSY = -4,      /* the ACC is not idle */
    ACC_ERR_DMA = -5,       /* a DMA transfer failed: the bus answered an error or nothing */
};

struct acc_result {
    uint32_t err_bits;   /* ERR_BITS: 0 = ended with ecall; ACC_ERR_*_MASK (acc_errors.h) */
    uint32_t err_kmac;   /* ERR_KMAC: the KMAC's ERR_CODE when err_bits has KMAC from it */
    uint32_t cycles;     /* CYCLES: ACC cycles from START to the halt */
    uint32_t insns;      /* INSNS: instructions retired */
    uint32_t stop_pc;    /* STOP_PC: byte address of the ecall or the faulting instruction */
};

uint32_t acc_imem_size(void);   /* bytes, from MEM_SIZE */
uint32_t acc_dmem_size(void);
int acc_idle(void);

/* n 32-bit instruction words to IMEM from address 0. */
int acc_load_program(const uint32_t *words, size_t n);
/* Counts acc_load_program calls that wrote IMEM: a caller that keeps a program resident
 * (lib/pqc.c) reloads when it changed. IMEM keeps its content across CTRL.WIPE and errors; a
 * host writing IMEM over the bridge is not counted. */
uint32_t acc_imem_generation(void);
/* n IMEM words from word index `first` (e.g. to check a program someone else loaded). */
int acc_read_imem(uint32_t first, uint32_t *dst, size_t n);
/* Bytes at any alignment (byte-select stores / word reads where unaligned). */
int acc_write_dmem(uint32_t addr, const void *src, size_t len);
int acc_read_dmem(uint32_t addr, void *dst, size_t len);
/* Whole 32-bit words; addr 4-byte aligned. */
int acc_write_dmem_words(uint32_t addr, const uint32_t *src, size_t n);
int acc_read_dmem_words(uint32_t addr, uint32_t *dst, size_t n);

/* n words of entropy (a DRBG's or a TRNG's output) into the ACC's RND pool, which keeps the
 * last 8 (isa.yml RND: a program reads each once; the wipe empties the pool). ACC_ERR_BUSY
 * unless idle. acc_entropy_fresh: the words written and not yet read or wiped (0..8). */
int acc_add_entropy(const uint32_t *words, size_t n);
unsigned acc_entropy_fresh(void);

/* CTRL.START, then poll STATUS up to max_polls times (0: a default bound of ~10^6 polls);
 * on the halt fills *res (may be NULL) and returns ACC_OK or ACC_ERR_PROGRAM. */
int acc_run(struct acc_result *res, uint32_t max_polls);
/* The same steps separately (e.g. to wait for the DONE interrupt in between). */
int acc_start(void);
int acc_wait(struct acc_result *res, uint32_t max_polls);
/* One operation as one DMA list (DMA_CTRL.LIST), the CPU asleep meanwhile: acc_list_init,
 * acc_list_in for each input (bytes to DMEM at addr), acc_list_run, acc_list_out for each
 * output (DMEM at addr to bytes), acc_list_call. The whole words of word-aligned transfers go
 * by the list, the rest by the CPU (inputs before the list; outputs after it). The list ends
 * with the wipe (after the CPU's outputs if any). acc_list_call touches the ACC, the others
 * only build the list; it returns ACC_OK, or, with the ACC wiped: ACC_ERR_PROGRAM (the program
 * halted with an error; *res filled, may be NULL), ACC_ERR_DMA / ACC_ERR_ARG (a transfer failed
 * or was out of range; ACC_ERR_ARG also for a refused entry: out of DMEM, NULL, or more than
 * the list holds), ACC_ERR_TIMEOUT (still running after timeout_cycles, 0: ACC_CALL_TIMEOUT;
 * timer0's countdown bounds the sleep); ACC_ERR_BUSY (nothing done) if the ACC is not idle. */
#define ACC_LIST_MAX 24u
#define ACC_LIST_CPU 8u
#define ACC_CALL_TIMEOUT 200000000u   /* system clock cycles */
struct acc_cpu_copy { uint32_t addr; void *p; uint32_t len; };
struct acc_list {
    uint32_t desc[ACC_LIST_MAX][3];   /* read by the ACC's DMA over the bus */
    unsigned n, n_early, n_late;
    int bad;                          /* an entry was refused */
    uint32_t dmem;                    /* acc_dmem_size() */
    struct acc_cpu_copy early[ACC_LIST_CPU], late[ACC_LIST_CPU];
};
void acc_list_init(struct acc_list *l);
int acc_list_call(struct acc_list *l, uint32_t timeout_cycles, struct acc_result *res);
/* Zero-fills every output buffer of the list (after a failed call: no partial result). */
void acc_list_zero_outputs(const struct acc_list *l);

/* The builders are inline: a call site costs a few instructions where a call of acc.c would
 * cost tens (the CPU fetches its code over the bus). */
#define ACC_DMEM_WINDOW 0x20000u   /* DMEM in the ACC's window (DMA_MEM, descriptors) */
#define ACC_LIST_DESC_FROM_ACC (1u << 31)   /* = acc_regs.h ACC_DMA_LIST_FROM_ACC */
#define ACC_LIST_DESC_RUN (1u << 30)        /* = ACC_DMA_LIST_RUN (checked in acc.c) */

/* A descriptor; the last slot is kept for the wipe acc_list_call adds. */
static inline void acc_list_put(struct acc_list *l, uint32_t sys, uint32_t win, uint32_t len)
{
    if (l->n >= ACC_LIST_MAX - 1) {
        l->bad = 1;
        return;
    }
    uint32_t *d = l->desc[l->n++];
    d[0] = sys, d[1] = win, d[2] = len;
}

/* A transfer: its whole words by the list if both ends are word-aligned, the rest by the CPU
 * (`cpu`: inputs before the list starts, outputs after it ends). */
static inline void acc_list_add(struct acc_list *l, uint32_t addr, const void *p, uint32_t len,
                                uint32_t flags, struct acc_cpu_copy *cpu, unsigned *n_cpu)
{
    if (len == 0)
        return;
    if (p == NULL || addr > l->dmem || len > l->dmem - addr) {
        l->bad = 1;
        return;
    }
    uint32_t dma = (((uintptr_t)p | addr) & 3) == 0 ? len & ~3u : 0;
    if (dma)
        acc_list_put(l, (uintptr_t)p, flags | (ACC_DMEM_WINDOW + addr), dma);
    if (dma != len) {
        if (*n_cpu == ACC_LIST_CPU) {
            l->bad = 1;
            return;
        }
        cpu[*n_cpu].addr = addr + dma;
        cpu[*n_cpu].p = (uint8_t *)(uintptr_t)p + dma;
        cpu[(*n_cpu)++].len = len - dma;
    }
}

static inline void acc_list_in(struct acc_list *l, uint32_t addr, const void *src, uint32_t len)
{
    acc_list_add(l, addr, src, len, 0, l->early, &l->n_early);
}

static inline void acc_list_out(struct acc_list *l, uint32_t addr, void *dst, uint32_t len)
{
    acc_list_add(l, addr, dst, len, ACC_LIST_DESC_FROM_ACC, l->late, &l->n_late);
}

static inline void acc_list_run(struct acc_list *l)
{
    acc_list_put(l, 0, ACC_LIST_DESC_RUN, 0);
}
/* CTRL.WIPE (aborts a running program) and wait for IDLE. */
int acc_wipe(uint32_t max_polls);
/* 1 if DMEM and the core's registers are all zero since a wipe ended (WIPED.CLEAN: no run
 * and no DMEM write since): a wipe before the next operation would change nothing. */
int acc_clean(void);

/* Name of error bit `bit` (isa.yml errors:), or NULL if the bit is unassigned. */
const char *acc_err_name(unsigned bit);
/* ERR_BITS as "NAME|NAME" ("none" for 0, "bitN" for unassigned bits) into buf; returns buf. */
char *acc_err_str(uint32_t err_bits, char *buf, size_t size);

#endif
