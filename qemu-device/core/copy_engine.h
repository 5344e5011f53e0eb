/* SPDX-License-Identifier: MIT */
/*
 * The copy engine of one GPU: a FIFO of copies (COPY and COPY_ASYNC),
 * 2D (rows with pitches), run one at a time.
 *
 * Every page of a copy is checked and the copy priced when it starts
 * (each side's bytes on the channel of the memory class its pages are
 * in); the bytes move when it completes in device time, so the copy sees
 * every store completed before then. Completion is a VG_EV_COPY_DONE
 * event, which the event loop gives to the command processor. When a
 * queued copy may start (after the entry it waits for) and what its end
 * means (an entry to signal, a COPY to finish) are the command
 * processor's business: the engine only keeps the queue, prices and
 * moves bytes.
 */
#ifndef VG_COPY_ENGINE_H
#define VG_COPY_ENGINE_H

#include <stdbool.h>
#include <stdint.h>

#include "gpu_common.h"
#include "mmu.h"

struct vg_copy {
    uint32_t width, height, src_pitch, dst_pitch;
    uint64_t src, dst;
    uint32_t slot; /* address space */
};

/* One queued copy and what the command processor needs to know of it. */
struct vg_ce_job {
    struct vg_copy copy;
    uint32_t op;    /* VMGPU_CMD_COPY or VMGPU_CMD_COPY_ASYNC */
    uint32_t pc;    /* word of its command, for errors */
    uint32_t flags; /* VMGPU_COPY_* (COPY_ASYNC) */
    uint32_t epoch, after_index, signal_index;
    uint64_t after_table, signal_table;
    vg_time_t start; /* set when it starts */
};

struct vg_copy_engine {
    struct vg_gpu_common *gc;
    struct vg_mmu *mmu;
    struct vg_ce_job queue[VMGPU_COPY_QUEUE_DEPTH];
    uint32_t head, count;
    bool busy;    /* the head copy started; its VG_EV_COPY_DONE is due */
    uint32_t seq; /* tags VG_EV_COPY_DONE; bumped by a reset */
    /* The started copy until it is priced (VG_PENDING_COPY). */
    bool unpriced;
    vg_time_t ready;
    uint64_t ev_seq, bytes_by_loc[VMGPU_LOC_COUNT];
    uint32_t serial, tag; /* tag: seq at the start */
};

void vg_ce_init(struct vg_copy_engine *ce, struct vg_gpu_common *gc,
                struct vg_mmu *mmu);
/*
 * Forget every copy, queued or in flight (GPU reset, abandoned packet);
 * a copy not priced yet still books its bytes when its turn comes.
 */
void vg_ce_reset(struct vg_copy_engine *ce);

static inline bool vg_ce_idle(const struct vg_copy_engine *ce)
{
    return !ce->count;
}

static inline bool vg_ce_full(const struct vg_copy_engine *ce)
{
    return ce->count == VMGPU_COPY_QUEUE_DEPTH;
}

/* The oldest copy (the one running, or next to run); NULL if none. */
static inline struct vg_ce_job *vg_ce_head(struct vg_copy_engine *ce)
{
    return ce->count ? &ce->queue[ce->head] : NULL;
}

/*
 * Queue the COPY or COPY_ASYNC at @cmd (checked by vmgpu_cmd_check(), at
 * word @pc) in address space @slot. The queue must not be full.
 */
void vg_ce_push(struct vg_copy_engine *ce, const uint8_t *cmd, uint32_t pc,
                uint32_t slot);
/*
 * Start the head copy at @ready (not before now): check every page; it
 * is priced by vg_ce_price() (the GPU's VG_PENDING_COPY), and
 * VG_EV_COPY_DONE (a: the engine's seq, b: @serial) follows at its end.
 * Returns VMGPU_FAULT_NONE, or the fault of the first page that cannot
 * be accessed (*fault_va) and starts nothing.
 */
int vg_ce_start(struct vg_copy_engine *ce, vg_time_t ready, uint32_t serial,
                uint64_t *fault_va);
/* Price the started copy: book its bytes, queue its VG_EV_COPY_DONE. */
void vg_ce_price(struct vg_copy_engine *ce);
/*
 * The head copy reached its end: move the bytes and take it off the
 * queue into *@done. Returns VMGPU_FAULT_NONE, or a fault when page
 * tables changed since the start (the copy is then partial).
 */
int vg_ce_finish(struct vg_copy_engine *ce, struct vg_ce_job *done,
                 uint64_t *fault_va);

#endif
