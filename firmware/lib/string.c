/* SPDX-FileCopyrightText: 2026 pqsoc contributors */
/* SPDX-License-Identifier: Apache-2.0 */
/* memset and memcpy a word at a time where the pointers allow it. They replace picolibc's
 * (the linker takes these before the library's): those are built for size and move a byte
 * per loop turn, and the CPU fetches every instruction over the bus (~5 cycles each), so
 * zeroing a 44-byte struct cost ~800 cycles. The loops must not be turned back into calls
 * of the functions they implement: no-tree-loop-distribute-patterns. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define NO_LIBCALL __attribute__((optimize("no-tree-loop-distribute-patterns")))

NO_LIBCALL void *memset(void *dst, int c, size_t n)
{
    uint8_t *d = dst;
    for (; n && ((uintptr_t)d & 3); n--)
        *d++ = (uint8_t)c;
    uint32_t w = (uint8_t)c * 0x01010101u;
    for (; n >= 4; n -= 4, d += 4)
        *(uint32_t *)d = w;
    while (n--)
        *d++ = (uint8_t)c;
    return dst;
}

NO_LIBCALL void *memcpy(void *restrict dst, const void *restrict src, size_t n)
{
    uint8_t *d = dst;
    const uint8_t *s = src;
    if ((((uintptr_t)d ^ (uintptr_t)s) & 3) == 0) {
        for (; n && ((uintptr_t)d & 3); n--)
            *d++ = *s++;
        for (; n >= 4; n -= 4, d += 4, s += 4)
            *(uint32_t *)d = *(const uint32_t *)s;
    }
    while (n--)
        *d++ = *s++;
    return dst;
}
