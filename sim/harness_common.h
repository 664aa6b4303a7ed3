/* SPDX-FileCopyrightText: 2026 pqsoc contributors */
/* SPDX-License-Identifier: Apache-2.0 */
// What the Verilator harnesses of the pqsoc SoCs share (harness.cpp: the simulation SoC;
// silicon_harness.cpp: the silicon SoC's RTL and gate-level netlist): the exit statuses, the
// options both take, the clock loop with its reset release, GPIO loopback, bridge UART and
// limits, and the summary line that ends every run. Each harness keeps what is its own (sim
// control or console markers, the TCP bridge, traces, SRAM preloads) in the hooks it passes.
#pragma once
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <iterator>

#include "host_uart.h"

enum { EXIT_ABNORMAL = 100, EXIT_CYCLES = 101, EXIT_WALL = 102 };

// The options both harnesses take; argv words starting with '+' are left to Verilator.
struct HarnessArgs {
    uint64_t max_cycles = 0;
    double timeout_s = 0;
    int uart_fd = 1;
    const char *bridge_in = nullptr;
};

// Parses argv: the common options into `a` (--bridge-div into bridge.div), the harness's own
// through own(option, value) -> true when it took them (every option has one value); anything
// else, or an option without its value, calls usage().
template <class Own>
void parse_args(int argc, char **argv, HarnessArgs &a, HostUart &bridge, Own own, void (*usage)()) {
    for (int i = 1; i < argc; i++) {
        const char *opt = argv[i];
        if (opt[0] == '+') continue;  // leave plusargs to Verilator
        if (i + 1 >= argc) usage();
        const char *val = argv[++i];
        if (!std::strcmp(opt, "--max-cycles"))
            a.max_cycles = std::strtoull(val, nullptr, 0);
        else if (!std::strcmp(opt, "--timeout-s"))
            a.timeout_s = std::strtod(val, nullptr);
        else if (!std::strcmp(opt, "--uart-fd"))
            a.uart_fd = std::atoi(val);
        else if (!std::strcmp(opt, "--bridge-div"))
            bridge.div = (unsigned)std::strtoul(val, nullptr, 0);
        else if (!std::strcmp(opt, "--bridge-in"))
            a.bridge_in = val;
        else if (!own(opt, val))
            usage();
    }
}

// The bridge script (--bridge-in) into the host's transmitter; false (and why on stderr) when
// the file cannot be read.
inline bool load_bridge_script(HostUart &bridge, const char *file) {
    std::ifstream f(file, std::ios::binary);
    if (!f) {
        std::perror(file);
        return false;
    }
    bridge.script.assign(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
    return true;
}

// The UART gets its own stream (--uart-fd) so that RTL $display messages (stdout) never mix
// into it; null (and why on stderr) when the descriptor cannot be opened.
inline FILE *open_uart(int fd) {
    FILE *uart = fd == 1 ? stdout : fdopen(fd, "w");
    if (!uart) std::perror("--uart-fd");
    return uart;
}

// How a run ended, for the summary line and the exit status.
struct RunEnd {
    const char *reason = "cycles";
    int status = EXIT_CYCLES;
    uint32_t code = 0;
    uint64_t cycle = 0;
};

// Wall-clock and CPU time since the model was made (CPU time: the model's speed without the
// other jobs of a shared machine).
struct RunClock {
    std::chrono::steady_clock::time_point t0 = std::chrono::steady_clock::now();
    std::clock_t c0 = std::clock();
    double wall() const {
        return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    }
    double cpu() const { return double(std::clock() - c0) / CLOCKS_PER_SEC; }
};

// What a harness's per-cycle hook tells the loop.
enum class Step {
    RUN,         // clock this cycle, go on
    STOP,        // stop now, this cycle not clocked (not counted)
    STOP_AFTER,  // clock this cycle (counted), then stop
};

// The clock loop, up to --max-cycles: reset released at cycle 16, GPIO out looped to GPIO in,
// the bridge UART on bringup_rx/tx from cycle 64 (after reset), then before(cycle) (the
// harness's own inputs and stop conditions), the rising and falling clock edges (after_edge(t)
// after each, t = 2 * cycle + 1, + 2), and every 64 Ki cycles the wall-clock limit.
template <class Top, class Before, class AfterEdge>
void run_cycles(Top &top, const HarnessArgs &a, HostUart &bridge, RunEnd &end, const RunClock &clock,
                Before before, AfterEdge after_edge) {
    uint64_t cycle = 0;
    for (; cycle < a.max_cycles; cycle++) {
        if (cycle == 16) top.sys_rst = 0;
        top.gpio_in = top.gpio_out;
        top.bringup_rx = cycle < 64 ? 1 : bridge.step(top.bringup_tx);
        const Step step = before(cycle);
        if (step == Step::STOP) break;
        top.sys_clk = 1;
        top.eval();
        after_edge(2 * cycle + 1);
        top.sys_clk = 0;
        top.eval();
        after_edge(2 * cycle + 2);
        if (a.timeout_s > 0 && (cycle & 0xffff) == 0 && clock.wall() > a.timeout_s) {
            end.reason = "wall";
            end.status = EXIT_WALL;
            break;
        }
        if (step == Step::STOP_AFTER) {
            cycle++;
            break;
        }
    }
    end.cycle = cycle;
}

// The last line on stderr of every run; returns the exit status.
inline int report_end(const RunEnd &end, const RunClock &clock) {
    std::fprintf(stderr, "SIM-END reason=%s cycles=%llu wall_s=%.3f code=0x%x cpu_s=%.3f\n", end.reason,
                 (unsigned long long)end.cycle, clock.wall(), end.code, clock.cpu());
    return end.status;
}
