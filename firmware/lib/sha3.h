/* SPDX-FileCopyrightText: 2026 pqsoc contributors */
/* SPDX-License-Identifier: Apache-2.0 */
#ifndef PQSOC_SHA3_H
#define PQSOC_SHA3_H
#include <stddef.h>
#include <stdint.h>

/* FIPS 202 SHA3-256 in software: a reference for the KMAC block and a CPU benchmark. */
void sha3_256(const uint8_t *msg, size_t len, uint8_t out[32]);
#endif
