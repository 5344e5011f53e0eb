// SPDX-License-Identifier: MIT
/*
 * The store log (storelog.h): shadow pages, their pool and hash, and
 * applying them to memory.
 */
#include <stdlib.h>
#include <string.h>

#include "storelog.h"

struct vg_storelog *vg_storelog_new(void)
{
    struct vg_storelog *log = calloc(1, sizeof(*log));

    if (!log) {
        return NULL;
    }
    log->hash_mask = 63;
    log->hash = calloc(log->hash_mask + 1, sizeof(*log->hash));
    if (!log->hash) {
        free(log);
        return NULL;
    }
    return log;
}

void vg_storelog_free(struct vg_storelog *log)
{
    uint32_t i;

    if (!log) {
        return;
    }
    for (i = 0; i < log->npages; i++) {
        free(log->pages[i]);
    }
    for (i = 0; i < log->npool; i++) {
        free(log->pool[i]);
    }
    free(log->pages);
    free(log->pool);
    free(log->work);
    free(log->hash);
    free(log);
}

uint32_t vg_storelog_pages(const struct vg_storelog *log)
{
    return log->npages;
}

static void log_hash_insert(struct vg_storelog *log, uint32_t idx)
{
    uint32_t i = vg_storelog_hash(log->pages[idx]->page_va) & log->hash_mask;

    while (log->hash[i]) {
        i = (i + 1) & log->hash_mask;
    }
    log->hash[i] = idx + 1;
}

/* Add the shadow of @page_va (not in the log yet). */
struct vg_logpage *vg_storelog_add(struct vg_storelog *log, uint64_t page_va,
                                   uint8_t *host)
{
    struct vg_logpage *p;
    uint32_t bit;

    if (log->npages == log->cap_pages) {
        uint32_t cap = log->cap_pages ? log->cap_pages * 2 : 16;
        void *n = realloc(log->pages, cap * sizeof(*log->pages));

        if (!n) {
            return NULL;
        }
        log->pages = n;
        log->cap_pages = cap;
    }
    /* Keep the hash at most half full. */
    if ((log->npages + 1) * 2 > log->hash_mask + 1) {
        uint32_t size = (log->hash_mask + 1) * 2, i;
        uint32_t *n = calloc(size, sizeof(*n));

        if (!n) {
            return NULL;
        }
        free(log->hash);
        log->hash = n;
        log->hash_mask = size - 1;
        for (i = 0; i < log->npages; i++) {
            log_hash_insert(log, i);
        }
    }
    if (log->npool) {
        p = log->pool[--log->npool];
    } else {
        p = malloc(sizeof(*p));
        if (!p) {
            return NULL;
        }
    }
    p->page_va = page_va;
    p->host = host;
    memset(p->dirty, 0, sizeof(p->dirty));
    log->pages[log->npages] = p;
    log_hash_insert(log, log->npages);
    log->npages++;
    bit = (page_va >> VMGPU_PAGE_SHIFT) % VG_STORELOG_FILTER_BITS;
    log->filter[bit / 64] |= 1ull << (bit % 64);
    log->last = p;
    return p;
}

static void log_apply_page(const struct vg_logpage *p)
{
    uint32_t w;

    for (w = 0; w < VMGPU_PAGE_SIZE / 64; w++) {
        uint64_t m = p->dirty[w];
        uint32_t off = w * 64;

        if (!m) {
            continue;
        }
        if (m == UINT64_MAX) {
            memcpy(p->host + off, p->data + off, 64);
            continue;
        }
        while (m) {
            uint32_t b = __builtin_ctzll(m);

            p->host[off + b] = p->data[off + b];
            m &= m - 1;
        }
    }
}

/* Empty the log, returning its pages to the pool. */
static void log_reset(struct vg_storelog *log)
{
    uint32_t i;

    for (i = 0; i < log->npages; i++) {
        struct vg_logpage *p = log->pages[i];
        uint32_t h = vg_storelog_hash(p->page_va) & log->hash_mask;

        while (log->hash[h]) {
            log->hash[h] = 0;
            h = (h + 1) & log->hash_mask;
        }
        if (log->npool == log->cap_pool) {
            uint32_t cap = log->cap_pool ? log->cap_pool * 2 : 16;
            void *n = realloc(log->pool, cap * sizeof(*log->pool));

            if (!n) {
                free(p);
                continue;
            }
            log->pool = n;
            log->cap_pool = cap;
        }
        log->pool[log->npool++] = p;
    }
    log->npages = 0;
    log->last = NULL;
    memset(log->filter, 0, sizeof(log->filter));
}

void vg_storelog_apply(struct vg_storelog *log)
{
    uint32_t i;

    if (!log) {
        return;
    }
    for (i = 0; i < log->npages; i++) {
        log_apply_page(log->pages[i]);
    }
    log_reset(log);
}

void vg_storelog_discard(struct vg_storelog *log)
{
    if (log) {
        log_reset(log);
        log->nwork = 0;
    }
}

bool vg_storelog_add_work(struct vg_storelog *log, const struct vg_work *w)
{
    if (log->nwork == log->cap_work) {
        uint32_t cap = log->cap_work ? log->cap_work * 2 : 16;
        void *n;

        if (log->cap_work >= VMGPU_MAX_BLOCK_WORK) {
            return false;
        }
        n = realloc(log->work, cap * sizeof(*log->work));
        if (!n) {
            return false;
        }
        log->work = n;
        log->cap_work = cap;
    }
    log->work[log->nwork++] = *w;
    return true;
}

void vg_storelog_flush(struct vg_storelog *log, uint64_t page_va, uint32_t off,
                       uint32_t size)
{
    struct vg_logpage *p = vg_storelog_find(log, page_va);
    uint64_t m, dirty;
    uint32_t i;

    if (!p) {
        return;
    }
    m = vg_storelog_byte_mask(off, size);
    dirty = p->dirty[off / 64] & m;
    for (i = 0; i < size; i++) {
        if (dirty >> ((off + i) % 64) & 1) {
            p->host[off + i] = p->data[off + i];
        }
    }
    p->dirty[off / 64] &= ~m;
}
