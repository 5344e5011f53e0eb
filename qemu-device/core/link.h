/* SPDX-License-Identifier: MIT */
/*
 * The GPU-to-GPU links of the device (SPEC R10): which links exist (the
 * topology: all-to-all, or a ring where GPU k is linked to k - 1 and
 * k + 1), the route of a transfer between two GPUs (a ring takes the
 * shorter way round, clockwise on a tie), the busy intervals of each
 * link in device time, which every transfer crossing it books (a link
 * carries one transfer at a time, both directions included), and the
 * bytes each link carried.
 *
 * A transfer takes the earliest interval, from the time it is ready,
 * that is free on every link of its route: what decides is device time,
 * not which GPU's runner booked first, so a GPU that ran ahead does not
 * make a link look busy at an earlier time to a GPU behind it. Only
 * transfers that overlap in device time share a link.
 *
 * Shared by every GPU's runner: the servers and counts are under the
 * links' own lock, a leaf (nothing else is taken while it is held).
 * Documentation/device-model.rst, "Memory system".
 */
#ifndef VG_LINK_H
#define VG_LINK_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "clock.h"
#include "vmgpu_hw.h"

enum vg_link_topology {
    VG_LINK_ALL_TO_ALL = 0, /* a link between every two GPUs */
    VG_LINK_RING = 1,       /* GPU k linked to k - 1 and k + 1 (mod N) */
};

/*
 * The busy intervals of one link, sorted and disjoint; before @floor it
 * counts as busy (intervals dropped when the calendar was full: the
 * oldest, so a transfer is at worst later, never earlier).
 */
#define VG_LINK_INTERVALS 128

struct vg_link_cal {
    uint32_t n;
    vg_time_t floor;
    vg_time_t start[VG_LINK_INTERVALS];
    vg_time_t end[VG_LINK_INTERVALS];
};

/* One link crossed by a route: its two GPUs, lower first. */
struct vg_link_hop {
    uint8_t a, b;
};

struct vg_links {
    pthread_mutex_t lock;
    uint32_t gpus;
    uint32_t topology; /* enum vg_link_topology */
    /* [a][b] with a < b: the link between GPUs a and b, if it exists. */
    struct vg_link_cal cal[VMGPU_MAX_GPUS][VMGPU_MAX_GPUS];
    uint64_t bytes[VMGPU_MAX_GPUS][VMGPU_MAX_GPUS];
};

void vg_links_init(struct vg_links *l, uint32_t gpus, uint32_t topology);
void vg_links_destroy(struct vg_links *l);
/* Device reset: no booking, no bytes. */
void vg_links_reset(struct vg_links *l);
/*
 * The links a transfer between GPUs @from and @to crosses, in order;
 * returns their number (0 if @from == @to).
 */
uint32_t vg_links_route(const struct vg_links *l, uint32_t from, uint32_t to,
                        struct vg_link_hop *hops);
/*
 * Move @bytes between GPUs @from and @to, @dur on each link of the route
 * (cut-through: the transfer holds every link of its route at once). With
 * @book, it starts at the earliest time from @ready at which every link
 * of the route is free for @dur, and books that interval on each;
 * without, it starts at @ready. Counts the
 * bytes on each link either way. Returns the end (no latency); *@start
 * and *@nhops get the start and the number of links crossed.
 */
vg_time_t vg_links_transfer(struct vg_links *l, uint32_t from, uint32_t to,
                            vg_time_t ready, vg_time_t dur, uint64_t bytes,
                            bool book, vg_time_t *start, uint32_t *nhops);
/* Bytes the link between GPUs @a and @b carried; 0 if there is none. */
uint64_t vg_links_bytes(struct vg_links *l, uint32_t a, uint32_t b);

#endif
