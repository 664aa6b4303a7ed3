// SPDX-FileCopyrightText: 2026 pqsoc contributors
// SPDX-License-Identifier: Apache-2.0
// Verilator harness for the silicon SoC (soc/silicon.py, top `pqsoc`): its RTL and its
// gate-level netlist, which have the same pins (sys_clk, sys_rst, uart_tx/rx, bringup_tx/rx,
// gpio_in/out) and the same SRAM macros (cycle models, pqsoc.flow.gls.sram_cycle_model, built
// with PQSOC_SRAM_PRELOAD).
//
// What a bring-up host does with the chip, at the pins: the boot RAM is loaded (here the macro
// models get their contents from --sram-init after the power-on reset, which a host would write
// over the bridge: ~10 bytes per word on the wire, hours at gate level), the bridge script (--bridge-in,
// e.g. clearing boot_hold) is played into bringup_rx, the console (uart_tx, --uart-div cycles
// per bit) is decoded, GPIO out is looped back to GPIO in. The firmware ends with a console line
// "*** EXIT code=N" (sim_exit on a SoC without sim control) or "*** TRAP ..." (a fault).
//
// --sram-init FILE: lines "NAME WORDS HEX HEX ..." (NAME: an instance path suffix such as
//   memories.rom.bank.ram_r0_c0; WORDS: the macro's depth). Every line must match exactly one
//   macro instance, else the run stops with an error naming it.
// Exit status: the firmware's exit code (0..255) after "*** EXIT"; EXIT_ABNORMAL after a trap
//   line; EXIT_CYCLES at the cycle limit; EXIT_WALL at the wall-clock limit; 2 on bad arguments
//   or a bad --sram-init. The last line on stderr is always
//   "SIM-END reason=... cycles=N wall_s=S code=C cpu_s=T" (harness_common.h, as harness.cpp).
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "Vpqsoc.h"
#include "Vpqsoc__Dpi.h"
#include "harness_common.h"
#include "verilated.h"

static const char EXIT_MARKER[] = "*** EXIT code=";
static const char TRAP_MARKER[] = "*** TRAP";

// ---- SRAM contents (DPI): each macro model registers from its initial block (its scope is
// kept); after the power-on reset the harness calls the model's exported pqsoc_sram_load in
// that scope, which reads the words with pqsoc_sram_word -----------------------------------
struct Preload {
    std::vector<uint32_t> words;
    int matched = 0;
    svScope scope = nullptr;
};
static Preload *loading = nullptr;  // the macro pqsoc_sram_load is filling
static std::map<std::string, Preload> preloads;

// The entry whose name is a suffix of the instance path at a hierarchy boundary, or null.
static Preload *find_preload(const char *inst) {
    std::string path(inst);
    for (auto &kv : preloads) {
        const std::string &name = kv.first;
        if (path.size() >= name.size() && path.compare(path.size() - name.size(), name.size(), name) == 0 &&
            (path.size() == name.size() || path[path.size() - name.size() - 1] == '.'))
            return &kv.second;
    }
    return nullptr;
}

void pqsoc_sram_init(const char *inst, int words) {
    Preload *p = find_preload(inst);
    if (!p) return;
    if ((int)p->words.size() != words) {
        std::fprintf(stderr, "--sram-init: %s has %d words, the file gives %zu\n", inst, words,
                     p->words.size());
        std::exit(2);
    }
    p->matched++;
    p->scope = svGetScope();
}

int pqsoc_sram_word(int addr) {
    Preload *p = loading;
    return p && addr >= 0 && addr < (int)p->words.size() ? (int)p->words[addr] : 0;
}

static void load_srams() {
    for (auto &kv : preloads) {
        loading = &kv.second;
        svSetScope(kv.second.scope);
        pqsoc_sram_load();
    }
    loading = nullptr;
}

static bool load_preloads(const char *file) {
    std::ifstream f(file);
    if (!f) {
        std::perror(file);
        return false;
    }
    std::string line;
    while (std::getline(f, line)) {
        std::istringstream in(line);
        std::string name;
        size_t n = 0;
        if (!(in >> name)) continue;
        if (!(in >> n) || n == 0) {
            std::fprintf(stderr, "--sram-init: bad line for %s\n", name.c_str());
            return false;
        }
        Preload p;
        std::string hex;
        while (in >> hex) p.words.push_back((uint32_t)std::strtoul(hex.c_str(), nullptr, 16));
        if (p.words.size() != n) {
            std::fprintf(stderr, "--sram-init: %s: %zu words, expected %zu\n", name.c_str(),
                         p.words.size(), n);
            return false;
        }
        preloads[name] = p;
    }
    return true;
}

static void usage() {
    std::fprintf(stderr,
                 "usage: Vpqsoc --max-cycles N --uart-div CYCLES_PER_BIT [--timeout-s S] [--uart-fd FD]\n"
                 "              [--sram-init FILE] [--bridge-div CYCLES_PER_BIT --bridge-in FILE]\n");
    std::exit(2);
}

int main(int argc, char **argv) {
    HarnessArgs args;
    HostUart console, bridge;
    const char *sram_init = nullptr;
    parse_args(argc, argv, args, bridge, [&](const char *opt, const char *val) {
        if (!std::strcmp(opt, "--uart-div"))
            console.div = (unsigned)std::strtoul(val, nullptr, 0);
        else if (!std::strcmp(opt, "--sram-init"))
            sram_init = val;
        else
            return false;
        return true;
    }, usage);
    if (args.max_cycles == 0 || console.div < 4 || (args.bridge_in && bridge.div < 4)) usage();
    if (args.bridge_in && !load_bridge_script(bridge, args.bridge_in)) return 2;
    if (sram_init && !load_preloads(sram_init)) return 2;
    FILE *uart = open_uart(args.uart_fd);
    if (!uart) return 2;

    auto ctx = std::make_unique<VerilatedContext>();
    ctx->commandArgs(argc, argv);
    auto top = std::make_unique<Vpqsoc>(ctx.get());
    const RunClock clock;

    top->sys_clk = 0;
    top->sys_rst = 0;
    top->uart_rx = 1;
    top->bringup_rx = 1;
    top->eval();  // the macro models' initial blocks run here (pqsoc_sram_init)
    for (auto &kv : preloads) {
        if (kv.second.matched != 1) {
            std::fprintf(stderr, "--sram-init: %s matched %d macro instances (expected 1)\n",
                         kv.first.c_str(), kv.second.matched);
            return 2;
        }
    }
    // Power-on reset. The gate-level netlist starts in a random state, in which the registers
    // that also drive the CPU's reset (LiteX ctrl cpu_rst / soc_rst) may read 1, so a reset
    // pulse on sys_rst need not make an edge on Ibex' asynchronous reset; and flops behind
    // Ibex' clock gate see no clock in reset. So: 16 clocked cycles in reset (every register on
    // the free-running clock takes its reset value, cpu_rst and soc_rst 0), then sys_rst
    // released and asserted again with the clock stopped (nothing is clocked, but Ibex'
    // asynchronous reset now falls: every Ibex flop resets, as a level-sensitive reset does in
    // silicon). The counted cycles start after this, still in reset (the loop below).
    top->sys_rst = 1;
    for (int i = 0; i < 16; i++) {
        top->sys_clk = 1;
        top->eval();
        top->sys_clk = 0;
        top->eval();
    }
    // Every flop on the free-running clock now holds its reset value, so no macro is selected:
    // load the memories here (the host's load), not at time 0, where the first clock edge can
    // still write a random word (csb/web from flops in their random initial state).
    load_srams();
    top->sys_rst = 0;
    top->eval();
    top->sys_rst = 1;
    top->eval();

    RunEnd end;
    size_t line_start = 0;  // start of the current console line in console.from_soc
    run_cycles(*top, args, bridge, end, clock, [&](uint64_t cycle) {
        size_t before = console.from_soc.size();
        top->uart_rx = cycle < 64 ? 1 : console.step(top->uart_tx);  // listen after reset
        if (console.from_soc.size() == before) return Step::RUN;
        char c = console.from_soc.back();
        std::fputc(c, uart);
        if (c != '\n') return Step::RUN;
        std::fflush(uart);
        std::string line = console.from_soc.substr(line_start);
        line_start = console.from_soc.size();
        // The line's cycle is still clocked and counted, as the run ends after it.
        if (line.rfind(EXIT_MARKER, 0) == 0) {
            end.code = (uint32_t)std::strtoul(line.c_str() + sizeof EXIT_MARKER - 1, nullptr, 10);
            end.reason = "exit";
            end.status = (int)(end.code & 0xff);
            return Step::STOP_AFTER;
        }
        if (line.find(TRAP_MARKER) != std::string::npos) {
            end.reason = "abnormal";
            end.status = EXIT_ABNORMAL;
            return Step::STOP_AFTER;
        }
        return Step::RUN;
    }, [](uint64_t) {});
    std::fflush(uart);
    top->final();
    return report_end(end, clock);
}
