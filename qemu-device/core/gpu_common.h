/* SPDX-License-Identifier: MIT */
/*
 * What every unit of one GPU shares, below all of them: the GPU's register
 * file and reset generation, its clock and event queue, interrupts, trace
 * records, counters, and the pricing of memory traffic on its channels.
 * The units (command processor, SMs, copy engine) report through these
 * helpers and never call up into device.c, which owns the event loop and
 * routes each event to the unit it belongs to.
 *
 * Threads and locks (Documentation/device-model.rst, "Threads and locks"):
 *
 * - The register side (regs, mmu_regs, req, mem_time, reset_gen, abort)
 *   is protected by reg_lock. An MMIO access holds it for one register
 *   access; the runner holds it for one register update (a counter
 *   flush, an error report, a ring-head advance, the fence write).
 *   Nobody holds it while a block runs, a kernel loads, a copy moves or a
 *   store log is applied, so an MMIO access waits for nothing longer
 *   than a register update.
 *
 * - The execution side (everything else here, and every unit's state)
 *   belongs to the GPU's runner: the one thread at a time that calls
 *   vg_device_run_gpu() for it (or vg_device_run()). No lock protects it.
 *
 * A reset clears the register side at once under reg_lock, bumps
 * reset_gen and sets abort. The runner stops a block within
 * VG_INTERP_SLICE warp instructions of abort, and at its next event
 * boundary sees reset_gen != exec_gen and drops its execution state.
 * Until then every register update checks the generation under reg_lock
 * (vg_gpu_regs_begin()) and is dropped if it is stale, so no fence,
 * status, counter or interrupt of the old work appears after the reset.
 *
 * The trace sink is shared by all GPUs (its lock). Lock order: a GPU's
 * reg_lock, then the trace sink's lock. The model never holds two
 * reg_locks, and never calls vg_host.raise_irq or vg_host.kick with a
 * lock held (QEMU's raise_irq takes the big QEMU lock, which a vCPU holds
 * while it waits for a reg_lock).
 */
#ifndef VG_GPU_COMMON_H
#define VG_GPU_COMMON_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "clock.h"
#include "config.h"
#include "host.h"
#include "link.h"
#include "mmu.h"
#include "trace.h"
#include "vmgpu_hw.h"

/* The ERR_* registers. */
struct vg_error {
    uint32_t code; /* VMGPU_FAULT_* */
    uint32_t slot;
    uint64_t addr;
    uint32_t pc;
    uint32_t dispatch; /* VMGPU_TRACE_NONE if none */
};

/* The distributor policy registers (WD_MODE, WD_SLOTS, WD_SM_ORDER). */
struct vg_wd_regs {
    uint32_t mode;  /* VMGPU_WD_MODE_* */
    uint32_t slots; /* task-table slots */
    uint8_t order[VMGPU_MAX_SMS];
};

/* The register file of one GPU (under reg_lock). */
struct vg_gpu_regs {
    uint64_t ring_base;
    uint32_t ring_entries;
    uint32_t ring_head;
    uint32_t ring_tail;
    uint64_t fence_addr;
    uint64_t fence;
    uint32_t int_status;
    uint32_t int_mask;
    uint32_t control;
    uint32_t status;      /* VMGPU_STATUS_*, published by the runner */
    bool wait_value;      /* the CP waits for memory (WAIT_VALUE) */
    uint64_t now;         /* the GPU's clock (ps), published by the runner */
    vg_time_t fence_time; /* when the fence register got its value */
    vg_time_t int_time;   /* when the latest interrupt cause was raised */
    /* H when each ring entry became visible (RING_TAIL written). */
    vg_time_t ring_stamp[VMGPU_RING_MAX_ENTRIES];
    uint64_t counters[VMGPU_CNT_NUM];
    uint32_t counter_hi_latch;
    struct vg_error err;
    uint64_t err_seqno;
    struct vg_wd_regs wd_staged; /* what the guest wrote */
    struct vg_wd_regs wd_policy; /* the last accepted commit */
    uint32_t wd_status;          /* VMGPU_WD_STATUS_* */
};

/* Requests from MMIO (or another GPU) to a GPU's runner. */
enum {
    VG_REQ_WAKE = 1 << 0, /* doorbell or enable: look at the ring */
    VG_REQ_ACK = 1 << 1,  /* error causes acknowledged */
    VG_REQ_MEM = 1 << 2,  /* memory changed: poll WAIT_VALUE again */
    VG_REQ_WD = 1 << 3,   /* WD_* committed: apply regs.wd_policy */
};

/*
 * Work that books shared servers (a block issued, a copy started) and is
 * not priced yet, in the order it began: the event loop prices it in
 * that order (device-model.rst, "Parallel and exact"), before the GPU
 * runs an event at or after @bound, the earliest its end can be.
 */
enum {
    VG_PENDING_BLOCK = 1, /* the SMs' oldest unpriced block */
    VG_PENDING_COPY,      /* the copy engine's started copy */
};

struct vg_pending {
    uint32_t kind;
    vg_time_t bound;
};

/* Where trace records go: one sink for the whole device. */
struct vg_trace_sink {
    pthread_mutex_t lock; /* also the device's global registers */
    struct vg_trace trace;
    bool on; /* keep or DMA: read without the lock as a hint */
};

struct vg_gpu_common {
    uint32_t index;
    const struct vg_config *cfg;
    const struct vg_cost *cost;
    const struct vg_host *host;
    struct vg_trace_sink *sink;
    struct vg_wtimes *wtimes; /* the device's write times (shared) */
    struct vg_links *links;   /* the device's GPU-GPU links (shared) */

    /* ---- Register side: under reg_lock ---- */
    pthread_mutex_t reg_lock;
    struct vg_gpu_regs regs;
    struct vg_mmu_regs mmu_regs;
    uint32_t req;       /* VG_REQ_*; read without the lock as a hint */
    vg_time_t mem_time; /* latest writer's time of a VG_REQ_MEM */
    uint32_t reset_gen; /* bumped by a reset; read without the lock too */
    bool clock_reset;   /* the reset was a device reset: time back to 0 */
    uint32_t abort;     /* set with reset_gen, cleared by the runner */
    struct vg_wd_regs wd_reset; /* WD_* after a reset (settings; const) */

    /* ---- Execution side: owned by the GPU's runner ---- */
    uint32_t exec_gen; /* reset_gen the execution state belongs to */
    struct vg_evq evq; /* this GPU's clock */
    struct vg_server chan[VG_MEM_NUM_CLASSES]; /* memory channels */
    /* The packet being run, for trace records (NULL: none). */
    const struct vmgpu_ring_entry *packet;
    /* Register updates of the current event, flushed after it. */
    uint64_t cnt[VMGPU_CNT_NUM]; /* counter increments */
    bool irq_out;                /* an interrupt cause was raised */
    bool mem_out;                /* this GPU changed memory */
    bool pub_wait_value;         /* last regs.wait_value published */
    /* Not priced yet, in the order begun (a ring of @pending_cap). */
    struct vg_pending *pending;
    uint32_t pending_cap, pending_head, pending_len;
    uint32_t pending_new; /* of which begun since vg_gpu_pending_new() */
};

int vg_gpu_common_init(struct vg_gpu_common *gc, uint32_t index,
                       const struct vg_config *cfg, const struct vg_cost *cost,
                       const struct vg_host *host, struct vg_trace_sink *sink,
                       struct vg_wtimes *wtimes, struct vg_links *links);
void vg_gpu_common_destroy(struct vg_gpu_common *gc);
/*
 * Runner side of a reset: forget events, channel bookings and pending
 * register updates; a device reset (@clock) also sets time back to 0.
 */
void vg_gpu_common_drop(struct vg_gpu_common *gc, bool clock);

/* The GPU's own clock: the time of the event being run. */
static inline vg_time_t vg_gpu_now(const struct vg_gpu_common *gc)
{
    return gc->evq.now;
}

/*
 * Lock the register file for an update, unless a reset made the runner's
 * state stale: then return false without the lock.
 */
bool vg_gpu_regs_begin(struct vg_gpu_common *gc);
void vg_gpu_regs_end(struct vg_gpu_common *gc);
/* A reset is waiting for the runner (a hint, without the lock). */
bool vg_gpu_stale(struct vg_gpu_common *gc);
/* Publish, before reading memory for WAIT_VALUE, that the GPU waits. */
void vg_gpu_publish_wait(struct vg_gpu_common *gc);
/* Raise interrupt causes; between vg_gpu_regs_begin() and _end(). */
void vg_gpu_raise(struct vg_gpu_common *gc, uint32_t bits);
/* One trace record of this GPU (dropped if the work is stale). */
void vg_gpu_trace(struct vg_gpu_common *gc, uint8_t kind, uint16_t sm,
                  vg_time_t start, vg_time_t end, uint32_t dispatch,
                  uint32_t block, uint32_t aux, uint64_t value,
                  uint64_t value2);
/*
 * The same for a record the caller filled (times in ns, kind-specific
 * fields): gpu, seqno and as_slot are filled in here.
 */
void vg_gpu_trace_record(struct vg_gpu_common *gc,
                         struct vmgpu_trace_record *r);
/* Queue an event of this GPU at @time (never before now). */
void vg_gpu_post(struct vg_gpu_common *gc, vg_time_t time, uint32_t kind,
                 uint32_t a, uint32_t b);
/* The same with a sequence number from vg_evq_reserve(&gc->evq). */
void vg_gpu_post_seq(struct vg_gpu_common *gc, vg_time_t time, uint64_t seq,
                     uint32_t kind, uint32_t a, uint32_t b);
/* Work that books shared servers began; priced before @bound. */
void vg_gpu_pending_push(struct vg_gpu_common *gc, uint32_t kind,
                         vg_time_t bound);
/* The oldest work not priced; NULL if none. */
static inline const struct vg_pending *
vg_gpu_pending_head(const struct vg_gpu_common *gc)
{
    return gc->pending_len ? &gc->pending[gc->pending_head] : NULL;
}
/* Forget the oldest (its unit prices it). */
void vg_gpu_pending_pop(struct vg_gpu_common *gc);
/* How much work began since the last call. */
uint32_t vg_gpu_pending_new(struct vg_gpu_common *gc);
/*
 * This GPU changed memory: other GPUs waiting for memory are asked to
 * poll again when the event ends (the event loop sends the requests).
 */
static inline void vg_gpu_memory_changed(struct vg_gpu_common *gc)
{
    gc->mem_out = true;
}
/*
 * This GPU wrote [@va, @va + @len) of GPU virtual memory now: a
 * WAIT_VALUE that reads it later continues no earlier than now.
 */
static inline void vg_gpu_wrote(struct vg_gpu_common *gc, uint64_t va,
                                uint64_t len)
{
    vg_wtimes_record(gc->wtimes, va, len, gc->evq.now);
}
/*
 * Price moving bytes_by_loc (per VMGPU_LOC_*, as the MMU counts them)
 * from @ready: local and host bytes at their bandwidth on the GPU's
 * channels, another GPU's bytes over the links between the two (each
 * owner's bytes one transfer, booked on every link of its route: links
 * are shared with other GPUs' transfers), booked only if @book; then the
 * latency of the slowest class touched (a link's per link crossed).
 * Counts the bytes, traces each link transfer. Returns the end time.
 */
vg_time_t vg_gpu_price_bytes(struct vg_gpu_common *gc, vg_time_t ready,
                             const uint64_t *bytes_by_loc, bool book);

#endif
