/* Driver for the ACC coprocessor (ip/acc, registers in the generated acc_regs.h, error bits in
 * the generated acc_errors.h from ip/acc/data/isa.yml): load a program into IMEM, data into
 * DMEM, run it (CTRL.START, poll STATUS.STATE until IDLE, with a bound), read the results.
 *
 * IMEM/DMEM are reachable only while the ACC is idle (a busy access is ignored and flagged in
 * HOST_ERR); the calls below check STATUS first. DMEM addresses are byte addresses inside the
 * ACC's data memory (the 32-bit host view of its 256-bit words, little-endian).
 * After an error the ACC wipes its registers and DMEM: reload DMEM before the next run.
 * Word-aligned transfers of 4-byte-aligned buffers go through the ACC's DMA (DMA_* registers:
 * the ACC copies between the bus and its memories, ~2 cycles a word in, ~4 out, where a CPU
 * copy costs ~20); the rest by the CPU over the host port.
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

/* CTRL.START, then poll STATUS up to max_polls times (0: a default bound of ~10^6 polls);
 * on the halt fills *res (may be NULL) and returns ACC_OK or ACC_ERR_PROGRAM. */
int acc_run(struct acc_result *res, uint32_t max_polls);
/* The same steps separately (e.g. to wait for the DONE interrupt in between). */
int acc_start(void);
int acc_wait(struct acc_result *res, uint32_t max_polls);
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
