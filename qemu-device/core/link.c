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
    memset(l->server, 0, sizeof(l->server));
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

vg_time_t vg_links_transfer(struct vg_links *l, uint32_t from, uint32_t to,
                            vg_time_t ready, vg_time_t dur, uint64_t bytes,
                            bool book, vg_time_t *start, uint32_t *nhops)
{
    struct vg_link_hop hops[VMGPU_MAX_GPUS];
    uint32_t n = vg_links_route(l, from, to, hops), i;
    vg_time_t s = ready;

    pthread_mutex_lock(&l->lock);
    for (i = 0; book && i < n; i++) {
        vg_time_t f = l->server[hops[i].a][hops[i].b].free_at;

        s = f > s ? f : s;
    }
    for (i = 0; i < n; i++) {
        if (book) {
            l->server[hops[i].a][hops[i].b].free_at = s + dur;
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
