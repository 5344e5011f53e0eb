/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The copy engine of one GPU: COPY commands, 2D (rows with pitches).
 *
 * Every page of a copy is checked and the copy priced when it starts
 * (each side's bytes on the channel of the memory class its pages are
 * in); the bytes move when it completes in device time, so the copy sees
 * every store completed before then. Completion is a VG_EV_COPY_DONE
 * event, which the event loop gives to the command processor.
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

struct vg_copy_engine {
    struct vg_gpu_common *gc;
    struct vg_mmu *mmu;
    bool busy;
    struct vg_copy copy; /* the copy in flight */
};

void vg_ce_init(struct vg_copy_engine *ce, struct vg_gpu_common *gc,
                struct vg_mmu *mmu);
/* Forget the copy in flight (GPU reset). */
void vg_ce_reset(struct vg_copy_engine *ce);
/*
 * Decode the COPY command at @cmd and start it in address space @slot
 * after the command processor's overhead; VG_EV_COPY_DONE (a 0, b
 * @serial) follows at its end. Returns VMGPU_FAULT_NONE, or the fault of
 * the first page that cannot be accessed (*fault_va) and starts nothing.
 */
int vg_ce_start(struct vg_copy_engine *ce, const uint8_t *cmd, uint32_t slot,
                uint32_t serial, uint64_t *fault_va);
/*
 * The copy in flight reached its end: move the bytes. Returns
 * VMGPU_FAULT_NONE, or a fault when page tables changed since the start
 * (the copy is then partial). *bytes gets width x height.
 */
int vg_ce_finish(struct vg_copy_engine *ce, uint64_t *fault_va,
                 uint64_t *bytes);

#endif
