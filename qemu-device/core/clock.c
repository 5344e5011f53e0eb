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

uint64_t vg_evq_reserve(struct vg_evq *q)
{
    return q->next_seq++;
}

int vg_evq_push(struct vg_evq *q, vg_time_t time, uint32_t kind, uint32_t gpu,
                uint32_t gen, uint32_t a, uint32_t b)
{
    return vg_evq_push_seq(q, time, q->next_seq++, kind, gpu, gen, a, b);
}

int vg_evq_push_seq(struct vg_evq *q, vg_time_t time, uint64_t seq,
                    uint32_t kind, uint32_t gpu, uint32_t gen, uint32_t a,
                    uint32_t b)
{
    struct vg_event ev = {
        .time = time < q->now ? q->now : time,
        .seq = seq,
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

/* A word's or a line's key: never 0, the two kinds never equal. */
static uint64_t wtimes_key(uint64_t unit, bool line)
{
    return 1ull << 63 | unit << 1 | line;
}

static uint32_t wtimes_hash(uint64_t key, uint32_t cap)
{
    return (uint32_t)((key * 0x9e3779b97f4a7c15ull) >> 32) & (cap - 1);
}

#define WTIMES_INITIAL_CAP 4096

int vg_wtimes_init(struct vg_wtimes *w)
{
    memset(w, 0, sizeof(*w));
    w->slot = calloc(WTIMES_INITIAL_CAP, sizeof(*w->slot));
    if (!w->slot) {
        return -1;
    }
    w->cap = WTIMES_INITIAL_CAP;
    pthread_mutex_init(&w->lock, NULL);
    return 0;
}

void vg_wtimes_destroy(struct vg_wtimes *w)
{
    if (w->slot) {
        pthread_mutex_destroy(&w->lock);
    }
    free(w->slot);
    w->slot = NULL;
}

void vg_wtimes_clear(struct vg_wtimes *w)
{
    pthread_mutex_lock(&w->lock);
    memset(w->slot, 0, (size_t)w->cap * sizeof(*w->slot));
    w->used = 0;
    memset(w->bucket, 0, sizeof(w->bucket));
    pthread_mutex_unlock(&w->lock);
}

/* The line a key covers (a word's line), for the buckets. */
static uint64_t wtimes_key_line(uint64_t key)
{
    uint64_t unit = (key & ~(1ull << 63)) >> 1;

    return key & 1 ? unit
                   : unit >> (VG_WTIMES_LINE_SHIFT - VG_WTIMES_WORD_SHIFT);
}

static void raise_time(vg_time_t *p, vg_time_t t)
{
    *p = t > *p ? t : *p;
}

/* Lock held: every key's time into the buckets; the table empty. */
static void wtimes_fold(struct vg_wtimes *w)
{
    uint32_t i;

    for (i = 0; i < w->cap; i++) {
        if (w->slot[i].key) {
            raise_time(&w->bucket[wtimes_bucket(wtimes_key_line(
                           w->slot[i].key))],
                       w->slot[i].t);
        }
    }
    memset(w->slot, 0, (size_t)w->cap * sizeof(*w->slot));
    w->used = 0;
}

/* Lock held: double the table, or fold it when it may not grow. */
static void wtimes_grow(struct vg_wtimes *w)
{
    struct vg_wtime_slot *n, *old = w->slot;
    uint32_t cap = w->cap * 2, i, h;

    n = cap <= 2 * VG_WTIMES_MAX_KEYS ? calloc(cap, sizeof(*n)) : NULL;
    if (!n) {
        wtimes_fold(w); /* later, never earlier */
        return;
    }
    for (i = 0; i < w->cap; i++) {
        if (!old[i].key) {
            continue;
        }
        h = wtimes_hash(old[i].key, cap);
        while (n[h].key) {
            h = (h + 1) & (cap - 1);
        }
        n[h] = old[i];
    }
    free(old);
    w->slot = n;
    w->cap = cap;
}

/* Lock held. */
static void wtimes_put(struct vg_wtimes *w, uint64_t key, vg_time_t t)
{
    uint32_t h;

    if (2 * (w->used + 1) > w->cap) {
        wtimes_grow(w);
    }
    for (h = wtimes_hash(key, w->cap); w->slot[h].key;
         h = (h + 1) & (w->cap - 1)) {
        if (w->slot[h].key == key) {
            raise_time(&w->slot[h].t, t);
            return;
        }
    }
    w->slot[h].key = key;
    w->slot[h].t = t;
    w->used++;
}

/* Lock held. */
static vg_time_t wtimes_get(const struct vg_wtimes *w, uint64_t key)
{
    uint32_t h;

    for (h = wtimes_hash(key, w->cap); w->slot[h].key;
         h = (h + 1) & (w->cap - 1)) {
        if (w->slot[h].key == key) {
            return w->slot[h].t;
        }
    }
    return 0;
}

void vg_wtimes_record(struct vg_wtimes *w, uint64_t va, uint64_t len,
                      vg_time_t t)
{
    uint64_t line, last, word;

    if (!len || va + len < va) {
        return;
    }
    pthread_mutex_lock(&w->lock);
    if (len <= VG_WTIMES_WORD_MAX) {
        last = (va + len - 1) >> VG_WTIMES_WORD_SHIFT;
        for (word = va >> VG_WTIMES_WORD_SHIFT; word <= last; word++) {
            wtimes_put(w, wtimes_key(word, false), t);
        }
        pthread_mutex_unlock(&w->lock);
        return;
    }
    last = (va + len - 1) >> VG_WTIMES_LINE_SHIFT;
    line = va >> VG_WTIMES_LINE_SHIFT;
    if (last - line >= VG_WTIMES_BUCKETS) {
        /* A large write: every bucket (never too early, only later). */
        for (line = 0; line < VG_WTIMES_BUCKETS; line++) {
            raise_time(&w->bucket[line], t);
        }
    } else {
        for (; line <= last; line++) {
            wtimes_put(w, wtimes_key(line, true), t);
        }
    }
    pthread_mutex_unlock(&w->lock);
}

vg_time_t vg_wtimes_lookup(struct vg_wtimes *w, uint64_t va, uint64_t len)
{
    uint64_t word, last, line;
    vg_time_t t = 0;

    if (!len || va + len < va) {
        return 0;
    }
    last = (va + len - 1) >> VG_WTIMES_WORD_SHIFT;
    pthread_mutex_lock(&w->lock);
    for (word = va >> VG_WTIMES_WORD_SHIFT; word <= last; word++) {
        line = word >> (VG_WTIMES_LINE_SHIFT - VG_WTIMES_WORD_SHIFT);
        raise_time(&t, wtimes_get(w, wtimes_key(word, false)));
        raise_time(&t, wtimes_get(w, wtimes_key(line, true)));
        raise_time(&t, w->bucket[wtimes_bucket(line)]);
    }
    pthread_mutex_unlock(&w->lock);
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
