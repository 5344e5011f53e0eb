// SPDX-License-Identifier: MIT
/*
 * The copy engine (copy_engine.h).
 */
#include <string.h>

#include "copy_engine.h"
#include "interp.h"
#include "vmgpu_cmd.h"

void vg_ce_init(struct vg_copy_engine *ce, struct vg_gpu_common *gc,
                struct vg_mmu *mmu)
{
    memset(ce, 0, sizeof(*ce));
    ce->gc = gc;
    ce->mmu = mmu;
}

void vg_ce_reset(struct vg_copy_engine *ce)
{
    ce->head = 0;
    ce->count = 0;
    ce->busy = false;
    ce->seq++; /* a VG_EV_COPY_DONE on its way is stale */
}

/*
 * Walk the copy in chunks that stay inside one source and one destination
 * page. With @move false only translate (checking every page and counting
 * bytes by location); with @move true also copy. An in-place @replicate
 * copy reads its pages where they live and writes them into this GPU's
 * memory (vg_mmu_replicate()): its destination is not translated again.
 * Returns a fault code; VG_FAULT_ABORTED when a reset of the GPU (@abort)
 * came first: a guest can make a copy of 2^32 rows of 4 GiB over aliased
 * pages, and a reset must not wait for it.
 */
static int copy_walk(struct vg_mmu *mmu, const struct vg_copy *c, bool move,
                     bool replicate, const uint32_t *abort,
                     uint64_t *bytes_by_loc, uint64_t *fault_va)
{
    uint32_t row, chunks = 0;

    for (row = 0; row < c->height; row++) {
        uint64_t src = c->src + (uint64_t)row * c->src_pitch;
        uint64_t dst = c->dst + (uint64_t)row * c->dst_pitch;
        uint64_t left = c->width;

        while (left) {
            uint64_t n = left;
            uint32_t so = src & (VMGPU_PAGE_SIZE - 1);
            uint32_t dof = dst & (VMGPU_PAGE_SIZE - 1);
            struct vg_xlat xs, xd;
            int code;

            if (n > VMGPU_PAGE_SIZE - so) {
                n = VMGPU_PAGE_SIZE - so;
            }
            if (n > VMGPU_PAGE_SIZE - dof) {
                n = VMGPU_PAGE_SIZE - dof;
            }
            /* Every 256 chunks, of one row or many short ones. */
            if (!(++chunks % 256) &&
                __atomic_load_n(abort, __ATOMIC_RELAXED)) {
                return VG_FAULT_ABORTED;
            }
            code = vg_mmu_translate(mmu, c->slot, src, false, &xs);
            if (code) {
                *fault_va = src;
                return code;
            }
            if (replicate) {
                xd.loc = VMGPU_LOC_GPU(mmu->gpu);
            } else {
                code = vg_mmu_translate(mmu, c->slot, dst, true, &xd);
                if (code) {
                    *fault_va = dst;
                    return code;
                }
                if (move) {
                    memmove(xd.host + dof, xs.host + so, n);
                }
            }
            if (bytes_by_loc) {
                bytes_by_loc[xs.loc] += n;
                bytes_by_loc[xd.loc] += n;
            }
            src += n;
            dst += n;
            left -= n;
        }
    }
    return VMGPU_FAULT_NONE;
}

void vg_ce_push(struct vg_copy_engine *ce, const uint8_t *cmd, uint32_t pc,
                uint32_t slot)
{
    struct vg_ce_job *j =
        &ce->queue[(ce->head + ce->count++) % VMGPU_COPY_QUEUE_DEPTH];
    struct vg_copy *c = &j->copy;

    memset(j, 0, sizeof(*j));
    /* COPY_ASYNC begins with COPY's rectangle, word for word. */
    c->width = VMGPU_CMD_U32(cmd, vmgpu_cmd_copy, width_bytes);
    c->src = VMGPU_CMD_U64(cmd, vmgpu_cmd_copy, src_va);
    c->dst = VMGPU_CMD_U64(cmd, vmgpu_cmd_copy, dst_va);
    c->height = VMGPU_CMD_U32(cmd, vmgpu_cmd_copy, height);
    c->src_pitch = VMGPU_CMD_U32(cmd, vmgpu_cmd_copy, src_pitch);
    c->dst_pitch = VMGPU_CMD_U32(cmd, vmgpu_cmd_copy, dst_pitch);
    c->slot = slot;
    j->op = VMGPU_CMD_OP(vmgpu_cmd_ld32(cmd));
    j->pc = pc;
    if (j->op != VMGPU_CMD_COPY_ASYNC) {
        return;
    }
    j->flags = VMGPU_CMD_U32(cmd, vmgpu_cmd_copy_async, flags);
    j->epoch = VMGPU_CMD_U32(cmd, vmgpu_cmd_copy_async, epoch);
    j->after_table = VMGPU_CMD_U64(cmd, vmgpu_cmd_copy_async, after_table);
    j->after_index = VMGPU_CMD_U32(cmd, vmgpu_cmd_copy_async, after_index);
    j->signal_table = VMGPU_CMD_U64(cmd, vmgpu_cmd_copy_async, signal_table);
    j->signal_index = VMGPU_CMD_U32(cmd, vmgpu_cmd_copy_async, signal_index);
}

int vg_ce_start(struct vg_copy_engine *ce, vg_time_t ready, uint32_t serial,
                uint64_t *fault_va)
{
    struct vg_gpu_common *gc = ce->gc;
    struct vg_ce_job *j = vg_ce_head(ce);
    int code;

    if (ready < vg_gpu_now(gc)) {
        ready = vg_gpu_now(gc);
    }
    /* One of an abandoned packet not priced yet: its turn is now. */
    vg_ce_price(ce);
    memset(ce->bytes_by_loc, 0, sizeof(ce->bytes_by_loc));
    code = copy_walk(ce->mmu, &j->copy, false, j->flags & VMGPU_COPY_REPLICATE,
                     &gc->abort, ce->bytes_by_loc, fault_va);
    if (code) {
        return code;
    }
    j->start = ready;
    ce->busy = true;
    ce->unpriced = true;
    ce->ready = ready + gc->cost->cp_cmd;
    ce->serial = serial;
    ce->tag = ce->seq;
    ce->ev_seq = vg_evq_reserve(&gc->evq);
    gc->cnt[VMGPU_CNT_BYTES_COPY] += (uint64_t)j->copy.width * j->copy.height;
    vg_gpu_pending_push(gc, VG_PENDING_COPY, ce->ready);
    return VMGPU_FAULT_NONE;
}

void vg_ce_price(struct vg_copy_engine *ce)
{
    struct vg_gpu_common *gc = ce->gc;
    vg_time_t end;

    if (!ce->unpriced) {
        return;
    }
    ce->unpriced = false;
    end = vg_gpu_price_bytes(gc, ce->ready, ce->bytes_by_loc, true);
    vg_gpu_post_seq(gc, end, ce->ev_seq, VG_EV_COPY_DONE, ce->tag, ce->serial);
}

int vg_ce_finish(struct vg_copy_engine *ce, struct vg_ce_job *done,
                 uint64_t *fault_va)
{
    const struct vg_copy *c;
    uint32_t row;
    int code;

    *done = *vg_ce_head(ce);
    ce->head = (ce->head + 1) % VMGPU_COPY_QUEUE_DEPTH;
    ce->count--;
    ce->busy = false;
    c = &done->copy;
    if (done->flags & VMGPU_COPY_REPLICATE) {
        /* The bytes are where they were: only reads move to this GPU. */
        code = copy_walk(ce->mmu, c, false, true, &ce->gc->abort, NULL,
                         fault_va);
        for (row = 0; !code && row < c->height; row++) {
            vg_mmu_replicate(ce->mmu, c->slot,
                             c->src + (uint64_t)row * c->src_pitch, c->width);
        }
        return code;
    }
    code = copy_walk(ce->mmu, c, true, false, &ce->gc->abort, NULL, fault_va);
    for (row = 0; code != VG_FAULT_ABORTED && row < c->height; row++) {
        vg_gpu_wrote(ce->gc, c->dst + (uint64_t)row * c->dst_pitch, c->width);
    }
    vg_gpu_memory_changed(ce->gc);
    return code;
}
