// SPDX-FileCopyrightText: 2026 pqsoc contributors
// SPDX-License-Identifier: Apache-2.0
// Host-bus driver for the emitted ACC top (`acc`) under Verilator: runs a batch of programs
// back to back (no reset in between) through the Wishbone host interface, as firmware does,
// and prints what the host can see. Used by ip/acc/dv/rtl_runner.py for RTL and netlists.
//
// stdin : "OFFSETS ctrl status err_bits stop_pc cycles insns intr_state intr_enable entropy\n"
//         then per job: "JOB nwords ndmemwords max_cycles nentropy\n", nwords hex words (IMEM
//         from 0), ndmemwords hex 32-bit DMEM words (from 0), nentropy hex words for the
//         ENTROPY register (written before START), each on its own line; "END\n".
// stdout: per job "RES halt err_bits cycles insns stop_pc\n" (halt: ecall|error|cycle_limit)
//         then ndmemwords hex lines (DMEM read back). Exit 2 on a bus that never acknowledges.
// Built with PQSOC_POWER (the power model of ip/acc/dv/power.py), it also appends, per job, the
// toggles of each unit in every cycle from START to the end of the program to the file named by
// PQSOC_POWER_OUT: uint32 cycles, uint32 units, then cycles x units uint16 (little endian).
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
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
    std::vector<uint32_t> known;
    while (fgets(line, sizeof line, stdin)) {
        if (!strncmp(line, "END", 3)) break;
        unsigned nw, nd, ne;
        unsigned long long maxc;
        if (sscanf(line, "JOB %u %u %llu %u", &nw, &nd, &maxc, &ne) != 4) {
            fprintf(stderr, "acc_host: bad job line: %s", line);
            return 3;
        }
        for (unsigned i = 0; i < nw; i++) {
            fgets(line, sizeof line, stdin);
            wr(IMEM + 4 * i, (uint32_t)strtoul(line, nullptr, 16));
        }
        known.resize(nd, 0);
        for (unsigned i = 0; i < nd; i++) {
            fgets(line, sizeof line, stdin);
            uint32_t w = (uint32_t)strtoul(line, nullptr, 16);
            if (w != known[i]) wr(DMEM + 4 * i, w);
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
            wr(OFF_CTRL, 2);  // WIPE aborts the program
            for (unsigned long long k = 0; !top->irq && k < 1000000; k++) tick();
            halt = "cycle_limit";
        }
        uint32_t err = rd(OFF_ERR);
        if (!halt) halt = err ? "error" : "ecall";
        uint32_t cyc = rd(OFF_CYC), ins = rd(OFF_INS), pc = rd(OFF_PC);
        printf("RES %s %u %u %u %u\n", halt, err, cyc, ins, pc);
        for (unsigned i = 0; i < nd; i++) {
            known[i] = rd(DMEM + 4 * i);
            printf("%08x\n", known[i]);
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
