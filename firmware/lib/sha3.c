/* SPDX-FileCopyrightText: 2026 pqsoc contributors */
/* SPDX-License-Identifier: Apache-2.0 */
/* Straightforward Keccak-f[1600] on 25 64-bit lanes (FIPS 202, section 3). Small, not fast. */
#include <string.h>
#include "sha3.h"

static const uint64_t RC[24] = {
    0x0000000000000001ull, 0x0000000000008082ull, 0x800000000000808aull, 0x8000000080008000ull,
    0x000000000000808bull, 0x0000000080000001ull, 0x8000000080008081ull, 0x8000000000008009ull,
    0x000000000000008aull, 0x0000000000000088ull, 0x0000000080008009ull, 0x000000008000000aull,
    0x000000008000808bull, 0x800000000000008bull, 0x8000000000008089ull, 0x8000000000008003ull,
    0x8000000000008002ull, 0x8000000000000080ull, 0x000000000000800aull, 0x800000008000000aull,
    0x8000000080008081ull, 0x8000000000008080ull, 0x0000000080000001ull, 0x8000000080008008ull,
};

static uint64_t rol(uint64_t x, unsigned n) { return n ? (x << n) | (x >> (64 - n)) : x; }

static void keccak_f1600(uint64_t a[25])
{
    for (int round = 0; round < 24; round++) {
        uint64_t c[5], d, b[25];
        /* theta */
        for (int x = 0; x < 5; x++)
            c[x] = a[x] ^ a[x + 5] ^ a[x + 10] ^ a[x + 15] ^ a[x + 20];
        for (int x = 0; x < 5; x++) {
            d = c[(x + 4) % 5] ^ rol(c[(x + 1) % 5], 1);
            for (int y = 0; y < 25; y += 5)
                a[y + x] ^= d;
        }
        /* rho and pi: lane (x, y) moves to (y, 2x + 3y), rotated by the offset of step t */
        {
            int x = 1, y = 0;
            b[0] = a[0];
            for (int t = 0; t < 24; t++) {
                int nx = y, ny = (2 * x + 3 * y) % 5;
                b[nx + 5 * ny] = rol(a[x + 5 * y], ((t + 1) * (t + 2) / 2) % 64);
                x = nx;
                y = ny;
            }
        }
        /* chi */
        for (int y = 0; y < 25; y += 5)
            for (int x = 0; x < 5; x++)
                a[y + x] = b[y + x] ^ (~b[y + (x + 1) % 5] & b[y + (x + 2) % 5]);
        /* iota */
        a[0] ^= RC[round];
    }
}

static void absorb_block(uint64_t a[25], const uint8_t *p, size_t rate)
{
    for (size_t i = 0; i < rate / 8; i++) {
        uint64_t lane = 0;
        for (int k = 7; k >= 0; k--)
            lane = (lane << 8) | p[8 * i + k];   /* lanes are little-endian */
        a[i] ^= lane;
    }
}

void sha3_256(const uint8_t *msg, size_t len, uint8_t out[32])
{
    enum { RATE = 136 };
    uint64_t a[25] = {0};
    uint8_t block[RATE];

    while (len >= RATE) {
        absorb_block(a, msg, RATE);
        keccak_f1600(a);
        msg += RATE;
        len -= RATE;
    }
    memset(block, 0, RATE);
    memcpy(block, msg, len);
    block[len] ^= 0x06;        /* SHA-3 domain bits 01, then pad10*1 */
    block[RATE - 1] ^= 0x80;
    absorb_block(a, block, RATE);
    keccak_f1600(a);
    for (int i = 0; i < 32; i++)
        out[i] = (uint8_t)(a[i / 8] >> (8 * (i % 8)));
}
