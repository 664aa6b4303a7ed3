/* SPDX-FileCopyrightText: 2026 pqsoc contributors */
/* SPDX-License-Identifier: Apache-2.0 */
// Host end of a UART of the pqsoc SoC, shared by the Verilator harnesses (harness.cpp for the
// simulation SoC, silicon_harness.cpp for the silicon SoC's RTL and gate-level netlist).
#pragma once
#include <cstdint>
#include <algorithm>
#include <deque>
#include <string>

// One UART host end (8N1, `div` cycles per bit): plays a script into the SoC's rx pin and
// collects what the SoC sends on its tx pin (a console needs no script). The script is a list of chunks
// [u16 send length, u16 reply length (little-endian), send bytes]: like a real bridge host, it
// sends a command and then waits for its reply before the next one (the LiteX bridge drops
// bytes that arrive while it answers).
struct HostUart {
    unsigned div = 0;
    std::deque<uint8_t> script, to_soc;
    std::string from_soc;
    size_t await_total = 0;  // reply bytes the host waits for before its next chunk
    // transmitter: frame = start(0) + 8 data bits LSB first + stop(1)
    unsigned tx_bit = 0, tx_count = 0;
    uint16_t tx_frame = 0;
    bool tx_busy = false;
    // receiver
    bool rx_busy = false;
    unsigned rx_count = 0, rx_bit = 0;
    uint8_t rx_byte = 0;

    // Called once per cycle; returns the level to drive on the SoC's rx pin.
    int step(int soc_tx) {
        if (!div) return 1;
        if (rx_busy) {
            if (--rx_count == 0) {
                if (rx_bit < 8) {
                    rx_byte |= (soc_tx & 1) << rx_bit++;
                    rx_count = div;
                } else {  // stop bit sampled
                    from_soc.push_back((char)rx_byte);
                    rx_busy = false;
                }
            }
        } else if (!soc_tx) {  // start bit: sample the data bits in their middle
            rx_busy = true;
            rx_bit = 0;
            rx_byte = 0;
            rx_count = div + div / 2;
        }
        if (!tx_busy && to_soc.empty() && script.size() >= 4 && from_soc.size() >= await_total) {
            size_t n = script[0] | (script[1] << 8);
            await_total += script[2] | (script[3] << 8);
            script.erase(script.begin(), script.begin() + 4);
            n = std::min(n, script.size());
            to_soc.assign(script.begin(), script.begin() + n);
            script.erase(script.begin(), script.begin() + n);
        }
        if (!tx_busy && !to_soc.empty()) {
            tx_frame = (uint16_t)(0x200 | (to_soc.front() << 1));
            to_soc.pop_front();
            tx_busy = true;
            tx_bit = 0;
            tx_count = div;
        }
        if (!tx_busy) return 1;
        int level = (tx_frame >> tx_bit) & 1;
        if (--tx_count == 0) {
            tx_count = div;
            if (++tx_bit == 10) tx_busy = false;
        }
        return level;
    }
};
