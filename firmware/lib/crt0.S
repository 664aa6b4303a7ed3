/* SPDX-FileCopyrightText: 2026 pqsoc contributors */
/* SPDX-License-Identifier: Apache-2.0 */
/* Start-up for Ibex. Ibex fetches its first instruction at boot_addr + 0x80 and traps to
 * boot_addr + 4*cause (mtvec is always vectored), so the ROM starts with 32 vector slots. */
    .section .text.vectors, "ax"
    .option push
    .option norvc          /* each slot must be exactly one 4-byte jump */
    .globl _vectors
_vectors:
    .rept 32
    j _trap_entry
    .endr
_reset:                    /* offset 0x80 */
    j _start
    .option pop

    .text
    .globl _start
    .type _start, @function        /* typed and sized: firmware/stack.py reads where it ends */
_start:
    .option push
    .option norelax
    la gp, __global_pointer$
    .option pop
    la sp, _stack_top
    /* copy .data from ROM to SRAM, clear .bss */
    la a0, _data_start
    la a1, _data_end
    la a2, _data_load
1:  bgeu a0, a1, 2f
    lw t0, 0(a2)
    sw t0, 0(a0)
    addi a0, a0, 4
    addi a2, a2, 4
    j 1b
2:  la a0, _bss_start
    la a1, _bss_end
3:  bgeu a0, a1, 4f
    sw zero, 0(a0)
    addi a0, a0, 4
    j 3b
4:  csrw mcountinhibit, zero   /* make sure mcycle/minstret count */
    call main
    call sim_exit            /* a0 = main's return value */
5:  j 5b
    .size _start, . - _start

/* Save the caller-saved registers, let C handle the trap, restore, return. */
    .globl _trap_entry
    .type _trap_entry, @function
    .balign 4
_trap_entry:
    addi sp, sp, -64
    sw ra, 0(sp);  sw t0, 4(sp);  sw t1, 8(sp);  sw t2, 12(sp)
    sw a0, 16(sp); sw a1, 20(sp); sw a2, 24(sp); sw a3, 28(sp)
    sw a4, 32(sp); sw a5, 36(sp); sw a6, 40(sp); sw a7, 44(sp)
    sw t3, 48(sp); sw t4, 52(sp); sw t5, 56(sp); sw t6, 60(sp)
    csrr a0, mcause
    csrr a1, mepc
    csrr a2, mtval
    call trap_handler
    lw ra, 0(sp);  lw t0, 4(sp);  lw t1, 8(sp);  lw t2, 12(sp)
    lw a0, 16(sp); lw a1, 20(sp); lw a2, 24(sp); lw a3, 28(sp)
    lw a4, 32(sp); lw a5, 36(sp); lw a6, 40(sp); lw a7, 44(sp)
    lw t3, 48(sp); lw t4, 52(sp); lw t5, 56(sp); lw t6, 60(sp)
    addi sp, sp, 64
    mret
    .size _trap_entry, . - _trap_entry
