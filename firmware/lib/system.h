/* SPDX-FileCopyrightText: 2026 pqsoc contributors */
/* SPDX-License-Identifier: Apache-2.0 */
/* LiteX's generated csr.h includes <system.h>, which each LiteX CPU provides for its cache
 * maintenance. Ibex here has no caches, so there is nothing to declare. */
#ifndef PQSOC_SYSTEM_H
#define PQSOC_SYSTEM_H
static inline void flush_cpu_icache(void) {}
static inline void flush_cpu_dcache(void) {}
#endif
