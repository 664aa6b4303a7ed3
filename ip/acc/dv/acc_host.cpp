// SPDX-FileCopyrightText: 2026 pqsoc contributors
// SPDX-License-Identifier: Apache-2.0
// Host-bus driver for the emitted ACC top (`acc`) under Verilator: runs a batch of programs
// back to back (no reset in between) through the Wishbone host interface, as firmware does,
// and prints what the host can see. Used by ip/acc/dv/rtl_runner.py for RTL and netlists.
//
// stdin : "OFFSETS ctrl status err_bits stop_pc cycles insns intr_state intr_enable entropy\n"
//         then per job: "JOB nwords ndmemwords max_cycles nentropy nread wipe\n", nwords hex
//         words (IMEM from 0), ndmemwords hex 32-bit DMEM words (from 0), nentropy hex words for
//         the ENTROPY register (written before START), each on its own line; "END\n".
// stdout: per job "RES halt err_bits cycles insns stop_pc\n" (halt: ecall|error|cycle_limit)
//         then nread hex lines (DMEM read back from 0); with wipe 1, CTRL.WIPE after them (as
//         firmware ends an operation). Exit 2 on a bus that never acknowledges.
// The host writes only the words that differ from what it knows of the memories: IMEM as it
// last wrote it (the ACC never writes IMEM), DMEM as read back (the rest unknown: written) or
// zero after a wipe and after reset. Jobs run back to back without a reset: START zeroes the
// registers, but RND's pool keeps what a program left unread for the next unless the job wipes
// (the ISS backend, ip/acc/dv/lockstep.py, keeps it too).
// Built with PQSOC_POWER (the power model of ip/acc/dv/power.py), it also appends, per job, the
// toggles of each unit in every cycle from START to the end of the program to the file named by
// PQSOC_POWER_OUT: uint32 cycles, uint32 units, then cycles x units uint16 (little endian).
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <algorithm>
#include <string>
#include <vector>

#include "Vacc.h"
#include "verilated.h"
#ifdef PQSOC_POWER
#include "power_ports.h"
#endif

// Verilator escapes the double underscore of the Amaranth port names (bus__adr).
#define BUS(name) bus___05F##name

static Vacc* top;
static const uint32_t IMEM = 0x10000, DMEM = 0x20000;
static uint32_t OFF_CTRL, OFF_STATUS, OFF_ERR, OFF_PC, OFF_CYC, OFF_INS, OFF_IST, OFF_IEN, OFF_ENT;

static void tick() {
    top->clk = 1;
    top->eval();
    top->clk = 0;
    top->eval();
}

static uint32_t access(uint32_t addr, uint32_t data, bool we, uint32_t sel = 0xF) {
    top->BUS(adr) = addr >> 2;
    top->BUS(dat_w) = data;
    top->BUS(sel) = sel;
    top->BUS(we) = we;
    top->BUS(cyc) = 1;
    top->BUS(stb) = 1;
    for (int i = 0; i < 1000; i++) {
        tick();
        if (top->BUS(ack)) {
            uint32_t v = top->BUS(dat_r);
            top->BUS(cyc) = 0;
            top->BUS(stb) = 0;
            top->BUS(we) = 0;
            top->eval();
            return v;
        }
    }
    fprintf(stderr, "acc_host: no bus acknowledge at %#x\n", addr);
    exit(2);
}

static uint32_t rd(uint32_t a) { return access(a, 0, false); }
static void wr(uint32_t a, uint32_t d) { access(a, d, true); }

// CTRL.WIPE and wait for its DONE (also aborts a program that runs); INTR_STATE cleared
// before (a program's DONE) and after.
static void wipe() {
    wr(OFF_IST, 1);
    wr(OFF_CTRL, 2);
    for (unsigned long long k = 0; !top->irq; k++) {
        if (k == 1000000) {
            fprintf(stderr, "acc_host: no DONE after a wipe\n");
            exit(4);
        }
        tick();
    }
    wr(OFF_IST, 1);
}

int main(int argc, char** argv) {
    Verilated::commandArgs(argc, argv);
    top = new Vacc;
    top->clk = 0;
    top->rst = 1;
    top->BUS(cyc) = 0;
    top->BUS(stb) = 0;
    top->eval();
    for (int i = 0; i < 4; i++) tick();
    top->rst = 0;
    top->eval();
    char line[256];
    if (!fgets(line, sizeof line, stdin) ||
        sscanf(line, "OFFSETS %x %x %x %x %x %x %x %x %x", &OFF_CTRL, &OFF_STATUS, &OFF_ERR, &OFF_PC,
               &OFF_CYC, &OFF_INS, &OFF_IST, &OFF_IEN, &OFF_ENT) != 9) {
        fprintf(stderr, "acc_host: expected an OFFSETS line\n");
        return 3;
    }
    wr(OFF_IEN, 1);
#ifdef PQSOC_POWER
    const char* power_path = getenv("PQSOC_POWER_OUT");
    FILE* power = power_path ? fopen(power_path, "wb") : nullptr;
    if (!power) {
        fprintf(stderr, "acc_host: PQSOC_POWER_OUT names no file that can be written\n");
        return 3;
    }
    std::vector<uint16_t> samples;
#endif
    // what the host knows of IMEM and DMEM (a word's value, or unknown); memories are zero
    // after reset (the RTL's initial contents; the gate-level run's warm-up wipes)
    const unsigned WORDS = 1u << 16;
    std::vector<uint32_t> imem(WORDS, 0), dmem(WORDS, 0);
    std::vector<bool> imem_known(WORDS, false), dmem_known(WORDS, true);
    while (fgets(line, sizeof line, stdin)) {
        if (!strncmp(line, "END", 3)) break;
        unsigned nw, nd, ne, nread, wipe_after;
        unsigned long long maxc;
        if (sscanf(line, "JOB %u %u %llu %u %u %u", &nw, &nd, &maxc, &ne, &nread, &wipe_after) != 6 ||
            nw > WORDS || nd > WORDS || nread > nd || wipe_after > 1) {
            fprintf(stderr, "acc_host: bad job line: %s", line);
            return 3;
        }
        for (unsigned i = 0; i < nw; i++) {
            fgets(line, sizeof line, stdin);
            uint32_t w = (uint32_t)strtoul(line, nullptr, 16);
            if (!imem_known[i] || w != imem[i]) wr(IMEM + 4 * i, w);
            imem[i] = w;
            imem_known[i] = true;
        }
        for (unsigned i = 0; i < nd; i++) {
            fgets(line, sizeof line, stdin);
            uint32_t w = (uint32_t)strtoul(line, nullptr, 16);
            if (!dmem_known[i] || w != dmem[i]) wr(DMEM + 4 * i, w);
        }
        for (unsigned i = 0; i < ne; i++) {
            fgets(line, sizeof line, stdin);
            wr(OFF_ENT, (uint32_t)strtoul(line, nullptr, 16));
        }
        wr(OFF_IST, 1);
        wr(OFF_CTRL, 1);  // START
        const char* halt = nullptr;
        unsigned long long n = 0;
#ifdef PQSOC_POWER
        samples.clear();
        while (!top->irq && n < maxc + 16) {
            tick();
            n++;
            uint16_t s[PQSOC_POWER_UNITS];
            pqsoc_power_sample(top, s);
            samples.insert(samples.end(), s, s + PQSOC_POWER_UNITS);
        }
        uint32_t head[2] = {(uint32_t)(samples.size() / PQSOC_POWER_UNITS), (uint32_t)PQSOC_POWER_UNITS};
        fwrite(head, sizeof head, 1, power);
        fwrite(samples.data(), sizeof(uint16_t), samples.size(), power);
#else
        while (!top->irq && n < maxc + 16) { tick(); n++; }
#endif
        if (!top->irq) {
            wipe();  // aborts the program
            halt = "cycle_limit";
        }
        uint32_t err = rd(OFF_ERR);
        if (!halt) halt = err ? "error" : "ecall";
        uint32_t cyc = rd(OFF_CYC), ins = rd(OFF_INS), pc = rd(OFF_PC);
        printf("RES %s %u %u %u %u\n", halt, err, cyc, ins, pc);
        for (unsigned i = 0; i < WORDS; i++) dmem_known[i] = i < nread;
        for (unsigned i = 0; i < nread; i++) {
            dmem[i] = rd(DMEM + 4 * i);
            printf("%08x\n", dmem[i]);
        }
        if (wipe_after || !strcmp(halt, "cycle_limit")) {
            if (wipe_after) wipe();
            std::fill(dmem.begin(), dmem.end(), 0);
            std::fill(dmem_known.begin(), dmem_known.end(), true);
        }
        if (rd(OFF_STATUS) != 0) {
            fprintf(stderr, "acc_host: core not idle after a program\n");
            return 4;
        }
        fflush(stdout);
    }
#ifdef PQSOC_POWER
    fclose(power);
#endif
    top->final();
    delete top;
    return 0;
}
