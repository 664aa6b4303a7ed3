// SPDX-FileCopyrightText: 2026 pqsoc contributors
// SPDX-License-Identifier: Apache-2.0
// Verilator harness for Caravel's user_project_wrapper around the silicon SoC (soc/caravel.py):
// the chip as the management core sees it. Nothing is preloaded: a model of the management
// firmware (--mgmt FILE, written by sim/caravel.py) drives wbs_* as Caravel's management core
// would, one Wishbone classic access at a time on wb_clk_i: it loads the boot RAM (and the
// ACC's memories for the *_preloaded programs), clears boot_hold, and may check words it reads.
// The console (uart_tx on its mprj_io pin) is decoded; GPIO out is looped back to GPIO in; the
// bridge UART pins idle. The SoC runs on wb_clk_i (clk_sel, on the logic analyzer, stays 0).
//
// --mgmt FILE: one access per line, after the reset:
//   W ADDR DATA            write DATA (hex) at ADDR (hex, the management core's address)
//   R ADDR DATA MASK       read ADDR; (value & MASK) must equal DATA, else the run stops
//   L TEXT                 wait until a console line starting with TEXT has been seen
// Pin numbers come from caravel_pins.h, generated from the pin plan (soc/caravel.py PINS).
// Exit status and the last stderr line: as silicon_harness.cpp (harness_common.h); a failed
// R check ends with reason=mgmt-check, status EXIT_ABNORMAL.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "Vuser_project_wrapper.h"
#include "caravel_pins.h"
#include "harness_common.h"
#include "verilated.h"

static const char EXIT_MARKER[] = "*** EXIT code=";
static const char TRAP_MARKER[] = "*** TRAP";

struct MgmtOp {
    char kind;
    uint32_t addr = 0, data = 0, mask = 0;
    std::string text;
};

static bool load_mgmt(const char *file, std::vector<MgmtOp> &ops) {
    std::ifstream f(file);
    if (!f) {
        std::perror(file);
        return false;
    }
    std::string line;
    while (std::getline(f, line)) {
        if (line.empty()) continue;
        MgmtOp op;
        op.kind = line[0];
        std::istringstream in(line.substr(1));
        if (op.kind == 'W') {
            in >> std::hex >> op.addr >> op.data;
        } else if (op.kind == 'R') {
            in >> std::hex >> op.addr >> op.data >> op.mask;
        } else if (op.kind == 'L') {
            op.text = line.size() > 2 ? line.substr(2) : "";
        } else {
            std::fprintf(stderr, "--mgmt: bad line %s\n", line.c_str());
            return false;
        }
        if (in.fail()) {
            std::fprintf(stderr, "--mgmt: bad line %s\n", line.c_str());
            return false;
        }
        ops.push_back(op);
    }
    return true;
}

// The pins run_cycles (harness_common.h) drives, mapped onto the wrapper's ports.
struct WrapperPins {
    Vuser_project_wrapper *t;
    uint8_t sys_clk = 0, sys_rst = 1, gpio_in = 0, gpio_out = 0, bringup_rx = 1, bringup_tx = 1;
    uint8_t uart_rx = 1, uart_tx = 1;
    static uint64_t bit(uint64_t v, int i) { return (v >> i) & 1; }
    void eval() {
        t->wb_clk_i = sys_clk;
        t->user_clock2 = sys_clk;
        t->wb_rst_i = sys_rst;
        uint64_t in = 0;
        for (int i = 0; i < 8; i++) in |= (uint64_t)((gpio_in >> i) & 1) << PIN_GPIO_IN[i];
        in |= (uint64_t)bringup_rx << PIN_BRINGUP_RX;
        in |= (uint64_t)uart_rx << PIN_UART_RX;
        t->io_in = in;
        t->eval();
        uint64_t out = t->io_out;
        gpio_out = 0;
        for (int i = 0; i < 8; i++) gpio_out |= bit(out, PIN_GPIO_OUT[i]) << i;
        bringup_tx = bit(out, PIN_BRINGUP_TX);
        uart_tx = bit(out, PIN_UART_TX);
    }
};

static void usage() {
    std::fprintf(stderr, "usage: Vuser_project_wrapper --max-cycles N --uart-div CYCLES_PER_BIT --mgmt FILE\n"
                         "              [--timeout-s S] [--uart-fd FD]\n");
    std::exit(2);
}

int main(int argc, char **argv) {
    HarnessArgs args;
    HostUart console, bridge;
    const char *mgmt_file = nullptr;
    parse_args(argc, argv, args, bridge, [&](const char *opt, const char *val) {
        if (!std::strcmp(opt, "--uart-div"))
            console.div = (unsigned)std::strtoul(val, nullptr, 0);
        else if (!std::strcmp(opt, "--mgmt"))
            mgmt_file = val;
        else
            return false;
        return true;
    }, usage);
    if (args.max_cycles == 0 || console.div < 4 || !mgmt_file) usage();
    std::vector<MgmtOp> ops;
    if (!load_mgmt(mgmt_file, ops)) return 2;
    FILE *uart = open_uart(args.uart_fd);
    if (!uart) return 2;

    auto ctx = std::make_unique<VerilatedContext>();
    ctx->commandArgs(argc, argv);
    auto top = std::make_unique<Vuser_project_wrapper>(ctx.get());
    WrapperPins pins{top.get()};
    const RunClock clock;
    // logic analyzer: the management core drives nothing (la_oenb high): clk_sel 0, user_rst 0
    for (int i = 0; i < 4; i++) top->la_oenb[i] = 0xffffffffu;
    pins.eval();
    // Power-on reset, as the management core holds wb_rst_i. The SoC's reset comes through two
    // synchronizer flops (soc/target.py _CaravelCRG), which at gate level start random: if they
    // start at 1 the reset never makes an edge, and Ibex's flops behind its clock gate (no clock
    // in reset) see no asynchronous reset. So: 16 clocked cycles in reset, 3 released (the CPU
    // stays held: boot_hold got its reset value), then reset again, which now falls on Ibex's
    // rst_ni; run_cycles releases it at its cycle 16.
    auto clocked = [&](int n, uint8_t rst) {
        for (int i = 0; i < n; i++) {
            pins.sys_rst = rst;
            pins.sys_clk = 1;
            pins.eval();
            pins.sys_clk = 0;
            pins.eval();
        }
    };
    clocked(16, 1);
    clocked(3, 0);
    clocked(4, 1);

    RunEnd end;
    size_t line_start = 0, next_op = 0;
    bool active = false, exited = false;
    std::vector<std::string> lines;
    uint64_t mgmt_accesses = 0;
    run_cycles(pins, args, bridge, end, clock, [&](uint64_t cycle) {
        if (exited && !active && next_op >= ops.size()) return Step::STOP;
        // management core: one access at a time, after the reset
        if (active && top->wbs_ack_o) {
            const MgmtOp &op = ops[next_op];
            top->wbs_cyc_i = top->wbs_stb_i = 0;
            active = false;
            mgmt_accesses++;
            if (op.kind == 'R' && (top->wbs_dat_o & op.mask) != op.data) {
                std::fprintf(stderr, "mgmt: read %08x = %08x, expected %08x (mask %08x)\n", op.addr,
                             top->wbs_dat_o, op.data, op.mask);
                end.reason = "mgmt-check";
                end.status = EXIT_ABNORMAL;
                return Step::STOP;
            }
            next_op++;
        } else if (!active && cycle > 64 && next_op < ops.size()) {
            const MgmtOp &op = ops[next_op];
            if (op.kind == 'L') {
                for (auto &l : lines)
                    if (l.rfind(op.text, 0) == 0) {
                        next_op++;
                        break;
                    }
            } else {
                top->wbs_adr_i = op.addr;
                top->wbs_dat_i = op.data;
                top->wbs_we_i = op.kind == 'W';
                top->wbs_sel_i = 0xf;
                top->wbs_cyc_i = top->wbs_stb_i = 1;
                active = true;
            }
        }
        size_t before = console.from_soc.size();
        pins.uart_rx = cycle < 64 ? 1 : console.step(pins.uart_tx);
        if (console.from_soc.size() == before) return Step::RUN;
        char c = console.from_soc.back();
        std::fputc(c, uart);
        if (c != '\n') return Step::RUN;
        std::fflush(uart);
        std::string line = console.from_soc.substr(line_start);
        line_start = console.from_soc.size();
        lines.push_back(line);
        if (line.rfind(EXIT_MARKER, 0) == 0) {
            end.code = (uint32_t)std::strtoul(line.c_str() + sizeof EXIT_MARKER - 1, nullptr, 10);
            end.reason = "exit";
            end.status = (int)(end.code & 0xff);
            // the management core's accesses after the firmware ended still run
            exited = true;
            return next_op < ops.size() ? Step::RUN : Step::STOP_AFTER;
        }
        if (line.find(TRAP_MARKER) != std::string::npos) {
            end.reason = "abnormal";
            end.status = EXIT_ABNORMAL;
            return Step::STOP_AFTER;
        }
        return Step::RUN;
    }, [](uint64_t) {});
    std::fflush(uart);
    if (!std::strcmp(end.reason, "exit") && next_op < ops.size()) {
        std::fprintf(stderr, "mgmt: %zu of %zu accesses left when the run ended\n", ops.size() - next_op,
                     ops.size());
        end.reason = "mgmt-check";
        end.status = EXIT_ABNORMAL;
    }
    std::fprintf(stderr, "MGMT accesses=%llu\n", (unsigned long long)mgmt_accesses);
    top->final();
    return report_end(end, clock);
}
