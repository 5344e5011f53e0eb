/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Work distributor of one GPU (the issue-3 subset of SPEC W): ready
 * dispatches ("tasks", the TMDs of SPEC W) wait in one list ordered by
 * priority (lower number first) then arrival; thread blocks of the first
 * task are issued one at a time to the SM with the most room for another
 * block of that task (ties: lowest SM number), as long as one fits.
 *
 * The task carries the TMD fields the full unit will use (priority,
 * allocation order, outstanding work, SM affinity); the task table,
 * eviction, quotas, throttling and coalescing come with SPEC W proper and
 * slot in behind vg_wdist_next() without changing its callers.
 */
#ifndef VG_WDIST_H
#define VG_WDIST_H

#include <stdbool.h>
#include <stdint.h>

#include "vmgpu_hw.h"

/* Per-SM capacity; struct vg_config gives the values. */
struct vg_wd_limits {
    uint32_t threads; /* resident threads */
    uint32_t regs;    /* 32-bit registers */
    uint32_t shared;  /* shared memory bytes */
    uint32_t blocks;  /* resident blocks */
};

/* What one block of a task occupies on an SM while it runs. */
struct vg_wd_need {
    uint32_t threads; /* rounded up to whole warps */
    uint32_t regs;    /* per-thread registers x threads */
    uint32_t shared;  /* static + dynamic shared bytes */
};

struct vg_wd_task {       /* a TMD */
    uint32_t priority;    /* lower = more urgent */
    uint64_t alloc_order; /* set by vg_wdist_submit */
    uint32_t blocks_total;
    uint32_t next_block;     /* first block not yet issued */
    uint32_t blocks_running; /* outstanding work on SMs */
    uint64_t sm_mask;        /* affinity: SMs it may use (0 = all) */
    struct vg_wd_need need;
    /* private to the distributor */
    struct vg_wd_task *next;
    bool queued;
};

struct vg_wd_sm { /* resources in use on one SM */
    uint32_t threads, regs, shared, blocks;
};

struct vg_wdist {
    uint32_t num_sms;
    struct vg_wd_limits lim;
    struct vg_wd_sm sm[VMGPU_MAX_SMS];
    struct vg_wd_task *ready; /* sorted: priority, then alloc_order */
    uint64_t next_order;
    uint64_t issued; /* blocks issued (statistics) */
};

void vg_wdist_init(struct vg_wdist *wd, uint32_t num_sms,
                   const struct vg_wd_limits *lim);
/* Drop every task and free every SM (GPU reset). */
void vg_wdist_reset(struct vg_wdist *wd);
/* Can one block with these needs ever run on an (empty) SM? */
bool vg_wdist_fits(const struct vg_wdist *wd, const struct vg_wd_need *need);
/* Blocks of @need an SM can still take now (SPEC W5 availability). */
uint32_t vg_wdist_sm_room(const struct vg_wdist *wd, uint32_t sm,
                          const struct vg_wd_need *need);
/* Make @task (blocks_total >= 1, next_block 0) ready. */
void vg_wdist_submit(struct vg_wdist *wd, struct vg_wd_task *task);
/* Take @task off the ready list (abandoned); its running blocks stay. */
void vg_wdist_remove(struct vg_wdist *wd, struct vg_wd_task *task);
/*
 * Pick the next block to issue: true with the task, SM and block index,
 * the SM's resources reserved; false if nothing is ready or the most
 * urgent task's next block fits nowhere right now.
 */
bool vg_wdist_next(struct vg_wdist *wd, struct vg_wd_task **task, uint32_t *sm,
                   uint32_t *block);
/* A block of @task finished on @sm: give its resources back. */
void vg_wdist_block_done(struct vg_wdist *wd, struct vg_wd_task *task,
                         uint32_t sm);

#endif
