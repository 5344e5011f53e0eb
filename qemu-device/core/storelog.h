/* SPDX-License-Identifier: MIT */
/*
 * The store log: the memory model's half of a block. A block's global
 * stores go to its log, not to memory; its loads see memory overlaid with
 * its own logged stores; the SM applies the log when the block completes
 * in device time, or discards it (a fault, a reset, an abandoned packet).
 * Documentation/isa.rst ("Memory model") gives the rules. The lookups
 * the interpreter makes per access are inline here.
 *
 * The device-side work a block asks for (LAUNCH, ENQ) is an effect like
 * its stores: the log keeps it in program order, and whoever applies the
 * log acts on it (vg_storelog_work()); discarding the log drops it.
 */
#ifndef VG_STORELOG_H
#define VG_STORELOG_H

#include <endian.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "vmgpu_hw.h"

/*
 * One shadow page per page the block stored to: the bytes stored and a
 * bitmap of which bytes are valid. Later stores overwrite earlier ones in
 * the shadow, so applying the shadow gives program order. Pages are kept in
 * a pool and reused, so a steady state does not allocate.
 */
struct vg_logpage {
    uint64_t page_va;
    uint8_t *host;
    uint64_t dirty[VMGPU_PAGE_SIZE / 64];
    uint8_t data[VMGPU_PAGE_SIZE];
};

#define VG_STORELOG_FILTER_BITS 4096

/* A LAUNCH or ENQ of one lane, in program order. */
enum vg_work_kind {
    VG_WORK_LAUNCH = 1, /* child task from the descriptor at @va */
    VG_WORK_ENQ,        /* item @value to the queue task at @va */
};

struct vg_work {
    uint32_t kind;    /* enum vg_work_kind */
    uint32_t value;   /* ENQ: the item; LAUNCH: blocks in x, 0: TMD's */
    uint64_t va;      /* the task descriptor */
    uint64_t args_va; /* LAUNCH: argument block, 0: the TMD's */
    uint32_t pc;      /* for error reports */
};

struct vg_storelog {
    struct vg_logpage **pages; /* in use */
    uint32_t npages, cap_pages;
    struct vg_logpage **pool; /* free */
    uint32_t npool, cap_pool;
    uint32_t *hash; /* page index + 1, 0 = empty */
    uint32_t hash_mask;
    struct vg_logpage *last; /* last page found, checked first */
    /*
     * One bit per (page number mod LOG_FILTER_BITS): loads from pages
     * whose bit is clear skip the log.
     */
    uint64_t filter[VG_STORELOG_FILTER_BITS / 64];
    struct vg_work *work; /* the block's LAUNCH and ENQ records */
    uint32_t nwork, cap_work;
};

struct vg_storelog *vg_storelog_new(void);
void vg_storelog_free(struct vg_storelog *log);
/*
 * Write the logged stores to memory in program order, then empty the
 * log's pages. The work records stay for the caller (vg_storelog_work())
 * until the next block starts with the log (vg_storelog_begin()).
 */
void vg_storelog_apply(struct vg_storelog *log);
/* Drop the logged stores and work (a faulting block). */
void vg_storelog_discard(struct vg_storelog *log);
/* A block starts with the log: forget the previous block's work. */
static inline void vg_storelog_begin(struct vg_storelog *log)
{
    log->nwork = 0;
}
/*
 * Record a LAUNCH or ENQ. Returns false when the block already holds
 * VMGPU_MAX_BLOCK_WORK records, or out of memory.
 */
bool vg_storelog_add_work(struct vg_storelog *log, const struct vg_work *w);
/* The work records of the block whose log was applied, in program order. */
static inline const struct vg_work *vg_storelog_work(
    const struct vg_storelog *log, uint32_t *n)
{
    *n = log ? log->nwork : 0;
    return log ? log->work : NULL;
}
/* Number of distinct pages with logged stores (for tests, cost models). */
uint32_t vg_storelog_pages(const struct vg_storelog *log);
/* Add the shadow of @page_va, not in the log yet; NULL when out of memory. */
struct vg_logpage *vg_storelog_add(struct vg_storelog *log, uint64_t page_va,
                                   uint8_t *host);
/* Make the block's own pending bytes of [off, off + size) visible. */
void vg_storelog_flush(struct vg_storelog *log, uint64_t page_va, uint32_t off,
                       uint32_t size);

static inline uint32_t vg_storelog_hash(uint64_t page_va)
{
    uint64_t x = (page_va >> VMGPU_PAGE_SHIFT) * 0x9e3779b97f4a7c15ull;

    return (uint32_t)(x >> 32);
}

static inline bool vg_storelog_may_hold(const struct vg_storelog *log,
                                        uint64_t page_va)
{
    uint32_t bit = (page_va >> VMGPU_PAGE_SHIFT) % VG_STORELOG_FILTER_BITS;

    return log->filter[bit / 64] >> (bit % 64) & 1;
}

/* The shadow of @page_va, NULL if the block did not store to it. */
static inline struct vg_logpage *vg_storelog_find(struct vg_storelog *log,
                                                  uint64_t page_va)
{
    uint32_t i;

    if (log->last && log->last->page_va == page_va) {
        return log->last;
    }
    if (!vg_storelog_may_hold(log, page_va)) {
        return NULL;
    }
    for (i = vg_storelog_hash(page_va) & log->hash_mask; log->hash[i];
         i = (i + 1) & log->hash_mask) {
        struct vg_logpage *p = log->pages[log->hash[i] - 1];

        if (p->page_va == page_va) {
            log->last = p;
            return p;
        }
    }
    return NULL;
}

/* Find or add the shadow of @page_va. NULL only when out of memory. */
static inline struct vg_logpage *vg_storelog_get(struct vg_storelog *log,
                                                 uint64_t page_va,
                                                 uint8_t *host)
{
    struct vg_logpage *p = vg_storelog_find(log, page_va);

    return p ? p : vg_storelog_add(log, page_va, host);
}

static inline uint64_t vg_storelog_byte_mask(uint32_t off, uint32_t size)
{
    uint64_t m = size == 8 ? 0xff : (1u << size) - 1;

    return m << (off % 64);
}

/* Read @size bytes at page offset @off: memory overlaid with the shadow. */
static inline uint64_t vg_storelog_read(const struct vg_logpage *p,
                                        uint32_t off, uint32_t size)
{
    uint64_t m = vg_storelog_byte_mask(off, size),
             dirty = p->dirty[off / 64] & m;
    uint64_t v = 0;
    uint32_t i;

    if (!dirty) {
        memcpy(&v, p->host + off, size);
    } else if (dirty == m) {
        memcpy(&v, p->data + off, size);
    } else {
        for (i = 0; i < size; i++) {
            uint8_t byte = dirty >> ((off + i) % 64) & 1 ? p->data[off + i]
                                                         : p->host[off + i];

            v |= (uint64_t)byte << (8 * i);
        }
    }
    return le64toh(v);
}

static inline void vg_storelog_write(struct vg_logpage *p, uint32_t off,
                                     uint32_t size, uint64_t v)
{
    v = htole64(v);
    memcpy(p->data + off, &v, size);
    p->dirty[off / 64] |= vg_storelog_byte_mask(off, size);
}

#endif
