/* SPDX-License-Identifier: MIT */
/*
 * The device's virtual time: one discrete-event queue (and so one clock)
 * per GPU, and the cost model that prices work in that time.
 *
 * Time is kept in picoseconds (vg_time_t) so that one SM cycle at a GHz
 * clock is not rounded; everything the guest sees (TIMESTAMP, trace
 * records) is in nanoseconds.
 *
 * Events are ordered by (time, sequence number); the sequence number is a
 * counter incremented for every event pushed, so two events at the same
 * time run in the order they were created. Nothing depends on host time or
 * host pointers, so the same inputs give the same timeline on any host.
 *
 * Documentation/device-model.rst describes the model and its parameters.
 */
#ifndef VG_CLOCK_H
#define VG_CLOCK_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef uint64_t vg_time_t; /* picoseconds of device time */

#define VG_PS_PER_NS 1000ull
#define VG_NS(ns)    ((vg_time_t)(ns) * VG_PS_PER_NS)

enum vg_event_kind {
    VG_EV_CP_STEP = 1,    /* command processor: next command */
    VG_EV_DISPATCH_READY, /* a dispatch reaches the distributor */
    VG_EV_BLOCK_DONE,     /* a thread block finished on an SM */
    VG_EV_COPY_DONE,      /* the CP's copy finished */
    VG_EV_WD_WAKE,        /* an SM acknowledged its TMD state */
};

struct vg_event {
    vg_time_t time;
    uint64_t seq;  /* tie-break: creation order */
    uint32_t kind; /* enum vg_event_kind */
    uint32_t gpu;
    uint32_t gen;  /* GPU generation: stale after a reset */
    uint32_t a, b; /* kind-specific */
};

struct vg_evq {
    struct vg_event *heap; /* binary min-heap on (time, seq) */
    size_t len, cap;
    uint64_t next_seq;
    vg_time_t now; /* time of the last event popped */
};

int vg_evq_init(struct vg_evq *q);
void vg_evq_destroy(struct vg_evq *q);
/* Forget every event and go back to time 0. */
void vg_evq_clear(struct vg_evq *q);
/* Forget every event; time stays where it is. */
void vg_evq_drop(struct vg_evq *q);
/* Time of the earliest event; false if the queue is empty. */
bool vg_evq_peek(const struct vg_evq *q, vg_time_t *time);
/*
 * Queue an event at @time (never earlier than now). Returns 0, or -1 when
 * the queue could not grow (the caller reports a device error).
 */
int vg_evq_push(struct vg_evq *q, vg_time_t time, uint32_t kind, uint32_t gpu,
                uint32_t gen, uint32_t a, uint32_t b);
/*
 * A sequence number for an event queued later (vg_evq_push_seq()): it
 * runs among events of its time as if queued now.
 */
uint64_t vg_evq_reserve(struct vg_evq *q);
int vg_evq_push_seq(struct vg_evq *q, vg_time_t time, uint64_t seq,
                    uint32_t kind, uint32_t gpu, uint32_t gen, uint32_t a,
                    uint32_t b);
/* Take the earliest event and advance now to it; false if empty. */
bool vg_evq_pop(struct vg_evq *q, struct vg_event *ev);

/*
 * A FIFO server in virtual time: an SM's issue pipeline or one memory
 * channel of a GPU. Work booked on it starts when both the request and
 * the server are ready, so concurrent users share it in booking order.
 */
struct vg_server {
    vg_time_t free_at;
};

/* Book @dur starting no earlier than @ready; returns the end time. */
static inline vg_time_t vg_server_book(struct vg_server *s, vg_time_t ready,
                                       vg_time_t dur)
{
    vg_time_t start = ready > s->free_at ? ready : s->free_at;

    s->free_at = start + dur;
    return s->free_at;
}

/* *@p = max(*@p, @t), atomically: values shared between GPUs' runners. */
static inline void vg_time_raise(vg_time_t *p, vg_time_t t)
{
    vg_time_t old = __atomic_load_n(p, __ATOMIC_RELAXED);

    /* A failed exchange reloads old. */
    while (old < t) {
        if (__atomic_compare_exchange_n(p, &old, t, true, __ATOMIC_RELAXED,
                                        __ATOMIC_RELAXED)) {
            break;
        }
    }
}

/*
 * Write times of the whole device (Documentation/device-model.rst,
 * "Device time across GPUs"): the latest device time a GPU wrote each
 * word of GPU virtual memory that a command may wait for. Exact, not
 * hashed: a small write (up to VG_WTIMES_WORD_MAX bytes: WRITE_VALUE,
 * TIMESTAMP, a dependency entry, a queue item) records each 8-byte word
 * it covers, a larger one (a block's stores, a copy's rows) each 64-byte
 * line, under its own key, so a write to one entry never makes another
 * entry look later. The table holds up to VG_WTIMES_MAX_KEYS keys; past
 * that its times are folded into buckets of lines (the latest write of
 * any line hashing to the bucket) and it starts again empty, so a
 * lookup is never earlier than the real write, at worst later, and only
 * after that many distinct words and lines were written. Shared by every
 * GPU's runner, under its own lock (a leaf).
 */
#define VG_WTIMES_LINE_SHIFT 6
#define VG_WTIMES_WORD_SHIFT 3
#define VG_WTIMES_WORD_MAX   16
#define VG_WTIMES_BUCKETS    4096
#define VG_WTIMES_MAX_KEYS   (1u << 18)

struct vg_wtime_slot {
    uint64_t key; /* 0: empty */
    vg_time_t t;
};

struct vg_wtimes {
    pthread_mutex_t lock;
    struct vg_wtime_slot *slot; /* open addressing, cap a power of 2 */
    uint32_t cap, used;
    vg_time_t bucket[VG_WTIMES_BUCKETS]; /* times folded out of slot[] */
};

int vg_wtimes_init(struct vg_wtimes *w);
void vg_wtimes_destroy(struct vg_wtimes *w);
/* Forget every write (device reset). */
void vg_wtimes_clear(struct vg_wtimes *w);
/* A GPU wrote [@va, @va + @len) at @t. */
void vg_wtimes_record(struct vg_wtimes *w, uint64_t va, uint64_t len,
                      vg_time_t t);
/* The latest GPU write to [@va, @va + @len); 0: none. */
vg_time_t vg_wtimes_lookup(struct vg_wtimes *w, uint64_t va, uint64_t len);

/* Memory classes as seen from the executing GPU. */
enum vg_mem_class {
    VG_MEM_LOCAL = 0, /* the executing GPU's own memory */
    VG_MEM_LINK,      /* another GPU's memory, over a link */
    VG_MEM_HOST,      /* system memory, over the host bus */
    VG_MEM_NUM_CLASSES
};

/* The cost parameters in device units, derived from struct vg_config. */
struct vg_cost {
    vg_time_t cycle_ps; /* one SM clock cycle, rounded up */
    uint32_t clock_khz;
    uint32_t issue_width; /* warp instructions per cycle per SM */
    uint64_t bw_bytes_per_s[VG_MEM_NUM_CLASSES];
    vg_time_t lat[VG_MEM_NUM_CLASSES];
    vg_time_t cp_cmd;       /* CP overhead per command */
    vg_time_t launch;       /* dispatch: CP hand-off to first block */
    vg_time_t block_launch; /* per block: SM setup */
    vg_time_t fence;        /* fence write + interrupt message */
};

/* Class of a page at location @loc (VMGPU_LOC_*) for GPU @gpu. */
enum vg_mem_class vg_mem_class_of(unsigned int loc, unsigned int gpu);
/* Time to issue @warp_instrs on one SM (whole cycles). */
vg_time_t vg_cost_issue(const struct vg_cost *c, uint64_t warp_instrs);
/* Time to move @bytes at class @cls's bandwidth (no latency). */
vg_time_t vg_cost_transfer(const struct vg_cost *c, enum vg_mem_class cls,
                           uint64_t bytes);

#endif
