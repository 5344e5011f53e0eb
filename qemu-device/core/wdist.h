/* SPDX-License-Identifier: MIT */
/*
 * The work distribution unit of one GPU (SPEC W): it schedules the thread
 * blocks (CTAs) of many tasks (TMDs) onto the SMs with no driver
 * involvement.
 *
 * - Task management (W1): a submitted TMD waits in the pending list of its
 *   priority level, at the tail or, with @head, at the head.
 * - Task table (W2): a fixed number of slots. A TMD in a slot is executing.
 *   With no slot free, a pending TMD of a strictly more urgent level evicts
 *   the least urgent TMD in the table (the most recently allocated among
 *   equals); the evicted TMD goes back to the head of its pending list and
 *   resumes at its next unissued CTA when it returns. Its CTAs already on
 *   SMs drain: they run to their end and give their resources back. A TMD
 *   leaves the table when its last CTA has finished.
 * - Assignment (W4), per SM: the candidates are table TMDs without a
 *   deallocation request, with CTAs left to issue, whose affinity mask
 *   includes the SM, which are not sequential with a CTA in flight, and
 *   whose launch quota for the current turn is not used up; the most
 *   urgent wins, ties by the oldest allocation order. When every candidate
 *   of the most urgent level has used its quota, a new turn starts for
 *   that level, so equal-priority TMDs with quotas rotate. An SM whose
 *   assigned TMD changes is sent its state (STATE_SYNC) and may receive
 *   CTAs only once it has acknowledged, @sync_latency later. A task that
 *   took the slot of an evicted one is sent to SMs only @evict_latency
 *   after the eviction (the evicted task's state is saved, the new one's
 *   loaded).
 * - CTA issue (W5): an SM is eligible when its state is acknowledged and
 *   it has room for one more CTA of its TMD. In load-balance mode the SM
 *   with the most room (its availability) gets the next CTA, ties broken
 *   by the SM priority list; in round-robin mode the next eligible SM in
 *   that list after the one that got the last CTA.
 * - Exactly once (W8): a TMD's next CTA index only moves forward, across
 *   eviction, resume, quotas and removal.
 *
 * - Throttle mode (W6): while a throttle TMD is in the table, other TMDs
 *   issue nothing more; once their blocks have drained the unit enters
 *   the mode: each SM of a restricted subset is sent a larger portion of
 *   the GPU's shared memory (the whole pool, num_sms x the per-SM
 *   amount, split among the subset: size and base), and only throttle
 *   TMDs run, on those SMs. The unit leaves the mode, and the portions
 *   go back, when no throttle TMD is left and their blocks have drained.
 *
 * - Queue TMDs (W7): a queue task has no grid; kernels append work items
 *   to it and its CTAs are made from them, @coalesce items each (W3's
 *   coalescing rule), or from the 1..coalesce - 1 waiting items once the
 *   oldest waiting item has waited @coalesce_timeout (W5: an SM assigned
 *   a queue task is eligible only then). The unit keeps one timer per
 *   task, as hardware would: it starts when an item arrives to an empty
 *   wait list and restarts when a CTA takes items and some remain. A
 *   queue task with no item waiting is not admitted to the table, and in
 *   the table it is the first to be evicted, whatever its priority: an
 *   idle queue must not keep the work that feeds it out of the table. It
 *   ends when its owner closes it (vg_wdist_close()) and its CTAs drain.
 */
#ifndef VG_WDIST_H
#define VG_WDIST_H

#include <stdbool.h>
#include <stdint.h>

#include "vmgpu_hw.h"

#define VG_WD_LEVELS    16 /* priority levels; larger values count as 15 */
#define VG_WD_MAX_SLOTS 128

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

enum vg_wd_where {
    VG_WD_NONE = 0, /* not submitted, done or removed */
    VG_WD_PENDING,  /* in its pending list */
    VG_WD_TABLE,    /* in a task-table slot */
};

struct vg_wd_task { /* a TMD */
    /* Set by the submitter (W3). */
    uint32_t priority;     /* lower = more urgent; level = min(priority, 15) */
    bool head;             /* enter the pending list at its head */
    bool sequential;       /* at most one CTA in flight */
    bool throttle;         /* runs only in throttle mode (W6) */
    uint32_t quota;        /* CTAs per turn; 0: no launch quota */
    uint64_t sm_mask;      /* affinity: SMs it may use (0 = all) */
    uint32_t blocks_total; /* grid tasks */
    struct vg_wd_need need;
    bool queue;                /* a queue task (W7): no grid */
    uint32_t coalesce;         /* queue: items per CTA, >= 1 */
    uint64_t coalesce_timeout; /* queue: device time */
    /* The unit's state of it. */
    uint32_t level;          /* its pending list */
    uint64_t alloc_order;    /* when it (last) entered the table */
    uint32_t next_block;     /* resume location: first CTA not issued */
    uint32_t blocks_running; /* outstanding CTAs on SMs */
    uint32_t quota_used;     /* CTAs issued in the current turn */
    uint32_t evictions;      /* times it was evicted */
    uint32_t items;          /* queue: items appended so far */
    uint32_t items_issued;   /* queue: items given to CTAs */
    uint64_t wait_since;     /* queue: the coalescing timer's start */
    enum vg_wd_where where;
    uint32_t slot;
    struct vg_wd_task *next; /* in its pending list */
    /*
     * Its state cannot reach an SM before then: the slot it took from an
     * evicted task is being saved and reloaded (evict_latency).
     */
    uint64_t ready_at;
};

/* A task's state changes, as the observer sees them (SPEC W, trace). */
enum vg_wd_event {
    VG_WD_EV_PENDING = 1, /* submitted: in its pending list */
    VG_WD_EV_TABLE,       /* allocated a slot */
    VG_WD_EV_EVICTED,     /* left its slot for a more urgent task */
    VG_WD_EV_RESUMED,     /* allocated a slot again after an eviction */
    VG_WD_EV_DONE,        /* left the table: its last block finished */
    VG_WD_EV_REMOVED,     /* deallocation request (vg_wdist_remove) */
};

enum vg_wd_sm_state {
    VG_WD_SM_IDLE = 0, /* no TMD assigned */
    VG_WD_SM_SYNC,     /* state sent, not acknowledged yet */
    VG_WD_SM_LAUNCH,   /* acknowledged: may receive CTAs */
};

struct vg_wd_sm {
    uint32_t threads, regs, shared, blocks; /* resources in use */
    uint32_t shared_size, shared_base;      /* its shared-memory portion */
    struct vg_wd_task *assigned;            /* its TMD (W4) */
    enum vg_wd_sm_state state;
    uint64_t ack_at; /* when the state sync is acknowledged */
};

enum vg_wd_mode {
    VG_WD_LOAD_BALANCE = 0,
    VG_WD_ROUND_ROBIN = 1,
};

/* The unit's tunables (model settings, later GPU registers). */
struct vg_wd_policy {
    uint32_t table_slots; /* 1..VG_WD_MAX_SLOTS */
    enum vg_wd_mode mode;
    bool fifo;             /* ignore priorities (a baseline to compare) */
    uint64_t sync_latency; /* STATE_SYNC to acknowledge, device time */
    uint64_t throttle_sms; /* the throttle-mode subset; 0: first half */
    uint8_t sm_order[VMGPU_MAX_SMS]; /* SM priority list, a permutation */
    /* An eviction to the newcomer's state being sendable, device time. */
    uint64_t evict_latency;
};

struct vg_wd_stats {
    uint64_t issued;      /* CTAs issued */
    uint64_t state_syncs; /* STATE_SYNCs sent to SMs */
    uint64_t evictions;
    uint64_t turns; /* quota turns restarted */
    uint64_t throttle_entries;
    uint64_t portion_syncs; /* shared-memory portions sent to SMs */
};

struct vg_wdist {
    uint32_t num_sms;
    struct vg_wd_limits lim;
    struct vg_wd_policy pol;
    struct vg_wd_sm sm[VMGPU_MAX_SMS];
    struct vg_wd_task *pending[VG_WD_LEVELS];  /* heads */
    struct vg_wd_task *table[VG_WD_MAX_SLOTS]; /* NULL: free */
    /* Bit i set: table[i] holds a task (the scans visit only those). */
    uint64_t occupied[VG_WD_MAX_SLOTS / 64];
    uint64_t next_order;
    int32_t last_sm; /* position in sm_order of the last CTA's SM, or -1 */
    bool throttle;   /* in throttle mode */
    uint32_t running_normal, running_throttle; /* CTAs on SMs */
    struct vg_wd_stats stats;
    /*
     * Optional observer of the tasks' state changes (the trace), set by
     * the GPU's wiring; kept across vg_wdist_reset(). Called with the
     * task's slot still in t->slot (for TABLE..REMOVED).
     */
    void (*observe)(void *opaque, const struct vg_wd_task *t,
                    enum vg_wd_event ev);
    void *observe_opaque;
};

void vg_wdist_init(struct vg_wdist *wd, uint32_t num_sms,
                   const struct vg_wd_limits *lim);
/* The default policy: 32 slots, load-balance, no latencies, SMs in order. */
void vg_wdist_default_policy(struct vg_wd_policy *pol, uint32_t num_sms);
/* Change the policy (between CTAs; assignments are redone). -1 if invalid. */
int vg_wdist_set_policy(struct vg_wdist *wd, const struct vg_wd_policy *pol);
/* Drop every task and free every SM (GPU reset). */
void vg_wdist_reset(struct vg_wdist *wd);
/* The mask of this GPU's SMs. */
static inline uint64_t vg_wdist_all_sms(const struct vg_wdist *wd)
{
    return wd->num_sms >= 64 ? ~0ull : (1ull << wd->num_sms) - 1;
}
/*
 * Can one block with these needs ever run on an (empty) SM: in normal
 * mode, or for a throttle task in throttle mode's larger portions?
 */
bool vg_wdist_fits(const struct vg_wdist *wd, const struct vg_wd_need *need,
                   bool throttle);
/* The SMs of the throttle-mode subset. */
uint64_t vg_wdist_throttle_sms(const struct vg_wdist *wd);
/* Blocks of @need an SM can still take now (SPEC W5 availability). */
uint32_t vg_wdist_sm_room(const struct vg_wdist *wd, uint32_t sm,
                          const struct vg_wd_need *need);
/*
 * Submit @task (a grid task with blocks_total >= 1, or a queue task with
 * coalesce >= 1): pending, then table.
 */
void vg_wdist_submit(struct vg_wdist *wd, struct vg_wd_task *task);
/* @n more work items for queue task @task at device time @now. */
void vg_wdist_add_items(struct vg_wdist *wd, struct vg_wd_task *task,
                        uint32_t n, uint64_t now);
/*
 * No more items will come to queue task @task, which has none waiting: it
 * leaves the pending list or the table. True if it has no CTA running
 * (it is done); else its last CTA's vg_wdist_block_done() finishes it.
 */
bool vg_wdist_close(struct vg_wdist *wd, struct vg_wd_task *task);
/* Items waiting in queue task @task for a CTA. */
static inline uint32_t vg_wdist_items_waiting(const struct vg_wd_task *task)
{
    return task->items - task->items_issued;
}
/*
 * Deallocation request (the task was abandoned): it leaves the pending
 * list or the table now and issues nothing more; its running blocks stay
 * until they finish.
 */
void vg_wdist_remove(struct vg_wdist *wd, struct vg_wd_task *task);
/* A CTA the unit issues. */
struct vg_wd_cta {
    struct vg_wd_task *task;
    uint32_t sm;
    uint32_t block;      /* grid: index in the grid; queue: CTA number */
    uint32_t item_base;  /* queue: its first item */
    uint32_t item_count; /* queue: its items; 0 for a grid task */
};

/*
 * The next CTA at device time @now: true with @cta filled, the SM's
 * resources reserved. False if none can be issued now; then *@wake is
 * the time an SM's acknowledgement or a coalescing timeout makes one
 * possible, or 0 if only a finished block or new work can.
 */
bool vg_wdist_next(struct vg_wdist *wd, uint64_t now, struct vg_wd_cta *cta,
                   uint64_t *wake);
/* A block of @task finished on @sm: give its resources back. */
void vg_wdist_block_done(struct vg_wdist *wd, struct vg_wd_task *task,
                         uint32_t sm);

#endif
