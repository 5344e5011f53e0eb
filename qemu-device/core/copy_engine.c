// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The copy engine (copy_engine.h).
 */
#include <string.h>

#include "copy_engine.h"
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
    ce->busy = false;
}

/*
 * Walk the copy in chunks that stay inside one source and one destination
 * page. With @move false only translate (checking every page and counting
 * bytes by location); with @move true also copy. Returns a fault code.
 */
static int copy_walk(struct vg_mmu *mmu, const struct vg_copy *c, bool move,
                     uint64_t *bytes_by_loc, uint64_t *fault_va)
{
    uint32_t row;

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
            code = vg_mmu_translate(mmu, c->slot, src, false, &xs);
            if (code) {
                *fault_va = src;
                return code;
            }
            code = vg_mmu_translate(mmu, c->slot, dst, true, &xd);
            if (code) {
                *fault_va = dst;
                return code;
            }
            if (move) {
                memmove(xd.host + dof, xs.host + so, n);
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

int vg_ce_start(struct vg_copy_engine *ce, const uint8_t *cmd, uint32_t slot,
                uint32_t serial, uint64_t *fault_va)
{
    struct vg_gpu_common *gc = ce->gc;
    uint64_t bytes_by_loc[VMGPU_LOC_COUNT] = { 0 };
    struct vg_copy *c = &ce->copy;
    vg_time_t end;
    int code;

    c->width = VMGPU_CMD_U32(cmd, vmgpu_cmd_copy, width_bytes);
    c->src = VMGPU_CMD_U64(cmd, vmgpu_cmd_copy, src_va);
    c->dst = VMGPU_CMD_U64(cmd, vmgpu_cmd_copy, dst_va);
    c->height = VMGPU_CMD_U32(cmd, vmgpu_cmd_copy, height);
    c->src_pitch = VMGPU_CMD_U32(cmd, vmgpu_cmd_copy, src_pitch);
    c->dst_pitch = VMGPU_CMD_U32(cmd, vmgpu_cmd_copy, dst_pitch);
    c->slot = slot;
    code = copy_walk(ce->mmu, c, false, bytes_by_loc, fault_va);
    if (code) {
        return code;
    }
    end = vg_gpu_price_bytes(gc, vg_gpu_now(gc) + gc->cost->cp_cmd,
                             bytes_by_loc, true);
    ce->busy = true;
    gc->cnt[VMGPU_CNT_BYTES_COPY] += (uint64_t)c->width * c->height;
    vg_gpu_post(gc, end, VG_EV_COPY_DONE, 0, serial);
    return VMGPU_FAULT_NONE;
}

int vg_ce_finish(struct vg_copy_engine *ce, uint64_t *fault_va, uint64_t *bytes)
{
    uint32_t row;
    int code;

    ce->busy = false;
    *bytes = (uint64_t)ce->copy.width * ce->copy.height;
    code = copy_walk(ce->mmu, &ce->copy, true, NULL, fault_va);
    for (row = 0; row < ce->copy.height; row++) {
        vg_gpu_wrote(ce->gc, ce->copy.dst + (uint64_t)row * ce->copy.dst_pitch,
                     ce->copy.width);
    }
    vg_gpu_memory_changed(ce->gc);
    return code;
}
