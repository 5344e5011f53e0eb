// SPDX-License-Identifier: MIT
/*
 * GPU-to-GPU links: topology, routes, per-link servers (link.h).
 */
#include <string.h>

#include "link.h"

void vg_links_init(struct vg_links *l, uint32_t gpus, uint32_t topology)
{
    memset(l, 0, sizeof(*l));
    pthread_mutex_init(&l->lock, NULL);
    l->gpus = gpus;
    l->topology = topology;
}

void vg_links_destroy(struct vg_links *l)
{
    pthread_mutex_destroy(&l->lock);
}

void vg_links_reset(struct vg_links *l)
{
    pthread_mutex_lock(&l->lock);
    memset(l->cal, 0, sizeof(l->cal));
    memset(l->bytes, 0, sizeof(l->bytes));
    pthread_mutex_unlock(&l->lock);
}

static struct vg_link_hop hop(uint32_t x, uint32_t y)
{
    struct vg_link_hop h = {
        .a = (uint8_t)(x < y ? x : y),
        .b = (uint8_t)(x < y ? y : x),
    };

    return h;
}

uint32_t vg_links_route(const struct vg_links *l, uint32_t from, uint32_t to,
                        struct vg_link_hop *hops)
{
    uint32_t n = l->gpus, fwd, i, at, next;

    if (from == to || from >= n || to >= n) {
        return 0;
    }
    if (l->topology != VG_LINK_RING || n <= 3) {
        /* Every two GPUs of a ring of up to 3 are neighbours. */
        hops[0] = hop(from, to);
        return 1;
    }
    fwd = (to + n - from) % n; /* hops going up (k to k + 1) */
    at = from;
    for (i = 0; at != to; i++) {
        next = fwd <= n - fwd ? (at + 1) % n : (at + n - 1) % n;
        hops[i] = hop(at, next);
        at = next;
    }
    return i;
}

/* Lock held: the earliest time from @s at which @c is free for @dur. */
static vg_time_t cal_free_from(const struct vg_link_cal *c, vg_time_t s,
                               vg_time_t dur)
{
    uint32_t i;

    s = s > c->floor ? s : c->floor;
    for (i = 0; i < c->n; i++) {
        if (c->end[i] <= s) {
            continue;
        }
        if (c->start[i] >= s + dur) {
            break; /* the gap before interval i holds it */
        }
        s = c->end[i];
    }
    return s;
}

/* Lock held: mark [@s, @e) busy (free until now, as cal_free_from said). */
static void cal_book(struct vg_link_cal *c, vg_time_t s, vg_time_t e)
{
    uint32_t i = 0, n;

    if (s == e) {
        return;
    }
    while (i < c->n && c->start[i] < s) {
        i++;
    }
    /* Touching neighbours merge: the calendar stays short. */
    if (i > 0 && c->end[i - 1] == s) {
        c->end[i - 1] = e;
        if (i < c->n && c->start[i] == e) {
            c->end[i - 1] = c->end[i];
            n = c->n - i - 1;
            memmove(&c->start[i], &c->start[i + 1], n * sizeof(c->start[0]));
            memmove(&c->end[i], &c->end[i + 1], n * sizeof(c->end[0]));
            c->n--;
        }
        return;
    }
    if (i < c->n && c->start[i] == e) {
        c->start[i] = s;
        return;
    }
    if (c->n == VG_LINK_INTERVALS) {
        /* Full: the oldest interval and all before it count as busy. */
        if (i == 0) {
            c->floor = e; /* the new one is the oldest */
            return;
        }
        c->floor = c->end[0];
        memmove(&c->start[0], &c->start[1], (c->n - 1) * sizeof(c->start[0]));
        memmove(&c->end[0], &c->end[1], (c->n - 1) * sizeof(c->end[0]));
        c->n--;
        i--;
    }
    n = c->n - i;
    memmove(&c->start[i + 1], &c->start[i], n * sizeof(c->start[0]));
    memmove(&c->end[i + 1], &c->end[i], n * sizeof(c->end[0]));
    c->start[i] = s;
    c->end[i] = e;
    c->n++;
}

vg_time_t vg_links_transfer(struct vg_links *l, uint32_t from, uint32_t to,
                            vg_time_t ready, vg_time_t dur, uint64_t bytes,
                            bool book, vg_time_t *start, uint32_t *nhops)
{
    struct vg_link_hop hops[VMGPU_MAX_GPUS];
    uint32_t n = vg_links_route(l, from, to, hops), i;
    vg_time_t s = ready, f;
    bool moved;

    pthread_mutex_lock(&l->lock);
    /* Until one start suits every link of the route. */
    do {
        moved = false;
        for (i = 0; book && i < n; i++) {
            f = cal_free_from(&l->cal[hops[i].a][hops[i].b], s, dur);
            moved |= f != s;
            s = f;
        }
    } while (moved);
    for (i = 0; i < n; i++) {
        if (book) {
            cal_book(&l->cal[hops[i].a][hops[i].b], s, s + dur);
        }
        l->bytes[hops[i].a][hops[i].b] += bytes;
    }
    pthread_mutex_unlock(&l->lock);
    *start = s;
    *nhops = n;
    return s + dur;
}

uint64_t vg_links_bytes(struct vg_links *l, uint32_t a, uint32_t b)
{
    uint64_t v;

    if (a == b || a >= VMGPU_MAX_GPUS || b >= VMGPU_MAX_GPUS) {
        return 0;
    }
    pthread_mutex_lock(&l->lock);
    v = a < b ? l->bytes[a][b] : l->bytes[b][a];
    pthread_mutex_unlock(&l->lock);
    return v;
}
