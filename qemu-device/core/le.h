/* SPDX-License-Identifier: MIT */
/*
 * Little-endian loads and stores at any alignment: how the model reads
 * command words and ring entries and writes trace records, whatever the
 * host's byte order.
 */
#ifndef VG_LE_H
#define VG_LE_H

#include <endian.h>
#include <stdint.h>
#include <string.h>

static inline uint32_t vg_ld_le32(const uint8_t *p)
{
    uint32_t v;

    memcpy(&v, p, 4);
    return le32toh(v);
}

static inline uint64_t vg_ld_le64(const uint8_t *p)
{
    uint64_t v;

    memcpy(&v, p, 8);
    return le64toh(v);
}

static inline void vg_st_le32(uint8_t *p, uint32_t v)
{
    v = htole32(v);
    memcpy(p, &v, 4);
}

static inline void vg_st_le64(uint8_t *p, uint64_t v)
{
    v = htole64(v);
    memcpy(p, &v, 8);
}

#endif
