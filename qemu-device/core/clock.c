// SPDX-License-Identifier: MIT
/*
 * Virtual time: a GPU's event queue and the cost helpers.
 */
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "vmgpu_hw.h"

#define EVQ_INITIAL_CAP 1024

int vg_evq_init(struct vg_evq *q)
{
    memset(q, 0, sizeof(*q));
    q->heap = calloc(EVQ_INITIAL_CAP, sizeof(*q->heap));
    if (!q->heap) {
        return -1;
    }
    q->cap = EVQ_INITIAL_CAP;
    return 0;
}

void vg_evq_destroy(struct vg_evq *q)
{
    free(q->heap);
    memset(q, 0, sizeof(*q));
}

void vg_evq_clear(struct vg_evq *q)
{
    q->len = 0;
    q->next_seq = 0;
    q->now = 0;
}

void vg_evq_drop(struct vg_evq *q)
{
    q->len = 0;
}

bool vg_evq_peek(const struct vg_evq *q, vg_time_t *time)
{
    if (!q->len) {
        return false;
    }
    *time = q->heap[0].time;
    return true;
}

static bool ev_before(const struct vg_event *a, const struct vg_event *b)
{
    if (a->time != b->time) {
        return a->time < b->time;
    }
    return a->seq < b->seq;
}

int vg_evq_push(struct vg_evq *q, vg_time_t time, uint32_t kind, uint32_t gpu,
                uint32_t gen, uint32_t a, uint32_t b)
{
    struct vg_event ev = {
        .time = time < q->now ? q->now : time,
        .seq = q->next_seq++,
        .kind = kind,
        .gpu = gpu,
        .gen = gen,
        .a = a,
        .b = b,
    };
    size_t i;

    if (q->len == q->cap) {
        /* Grows with the work in flight, then stays. */
        struct vg_event *n = realloc(q->heap, q->cap * 2 * sizeof(*q->heap));

        if (!n) {
            return -1;
        }
        q->heap = n;
        q->cap *= 2;
    }
    i = q->len++;
    while (i > 0) {
        size_t parent = (i - 1) / 2;

        if (!ev_before(&ev, &q->heap[parent])) {
            break;
        }
        q->heap[i] = q->heap[parent];
        i = parent;
    }
    q->heap[i] = ev;
    return 0;
}

bool vg_evq_pop(struct vg_evq *q, struct vg_event *ev)
{
    struct vg_event last;
    size_t i = 0;

    if (!q->len) {
        return false;
    }
    *ev = q->heap[0];
    last = q->heap[--q->len];
    for (;;) {
        size_t l = 2 * i + 1, r = l + 1, min = l;

        if (l >= q->len) {
            break;
        }
        if (r < q->len && ev_before(&q->heap[r], &q->heap[l])) {
            min = r;
        }
        if (!ev_before(&q->heap[min], &last)) {
            break;
        }
        q->heap[i] = q->heap[min];
        i = min;
    }
    if (q->len) {
        q->heap[i] = last;
    }
    if (ev->time > q->now) {
        q->now = ev->time;
    }
    return true;
}

static uint32_t wtimes_bucket(uint64_t line)
{
    /* The top 12 bits of a Fibonacci hash: VG_WTIMES_BUCKETS values. */
    return (uint32_t)((line * 0x9e3779b97f4a7c15ull) >> 52);
}

void vg_wtimes_clear(struct vg_wtimes *w)
{
    uint32_t i;

    for (i = 0; i < VG_WTIMES_BUCKETS; i++) {
        __atomic_store_n(&w->bucket[i], 0, __ATOMIC_RELAXED);
    }
}

void vg_wtimes_record(struct vg_wtimes *w, uint64_t va, uint64_t len,
                      vg_time_t t)
{
    uint64_t line, last;

    if (!len) {
        return;
    }
    last = (va + len - 1) >> VG_WTIMES_LINE_SHIFT;
    line = va >> VG_WTIMES_LINE_SHIFT;
    if (last - line >= VG_WTIMES_BUCKETS) {
        /* A large write: every bucket (never too early, only later). */
        for (line = 0; line < VG_WTIMES_BUCKETS; line++) {
            vg_time_raise(&w->bucket[line], t);
        }
        return;
    }
    for (; line <= last; line++) {
        vg_time_raise(&w->bucket[wtimes_bucket(line)], t);
    }
}

vg_time_t vg_wtimes_lookup(const struct vg_wtimes *w, uint64_t va, uint64_t len)
{
    uint64_t line, last;
    vg_time_t t = 0, b;

    if (!len) {
        return 0;
    }
    last = (va + len - 1) >> VG_WTIMES_LINE_SHIFT;
    for (line = va >> VG_WTIMES_LINE_SHIFT; line <= last; line++) {
        b = __atomic_load_n(&w->bucket[wtimes_bucket(line)], __ATOMIC_RELAXED);
        t = b > t ? b : t;
    }
    return t;
}

enum vg_mem_class vg_mem_class_of(unsigned int loc, unsigned int gpu)
{
    if (loc == VMGPU_LOC_SYSTEM) {
        return VG_MEM_HOST;
    }
    return loc == VMGPU_LOC_GPU(gpu) ? VG_MEM_LOCAL : VG_MEM_LINK;
}

vg_time_t vg_cost_issue(const struct vg_cost *c, uint64_t warp_instrs)
{
    uint64_t cycles = (warp_instrs + c->issue_width - 1) / c->issue_width;
    unsigned __int128 ps = (unsigned __int128)cycles * 1000000000ull;

    /* cycles / (kHz * 1000) seconds = cycles * 1e9 / kHz picoseconds */
    return (vg_time_t)((ps + c->clock_khz - 1) / c->clock_khz);
}

vg_time_t vg_cost_transfer(const struct vg_cost *c, enum vg_mem_class cls,
                           uint64_t bytes)
{
    unsigned __int128 ps = (unsigned __int128)bytes * 1000000000000ull;
    uint64_t bw = c->bw_bytes_per_s[cls];

    return (vg_time_t)((ps + bw - 1) / bw);
}
