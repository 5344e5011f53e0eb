/* SPDX-License-Identifier: MIT */
/*
 * Command processor of one GPU: fetches ring entries, fetches and validates
 * their command buffers through the MMU, and runs the commands in device
 * time (uapi/vmgpu_hw.h; Documentation/device-model.rst gives the rules).
 * Its state (struct vg_cp) is in cp_state.h, shared with launch.c and
 * take.c below it.
 */
#ifndef VG_CMDPROC_H
#define VG_CMDPROC_H

#include <stdbool.h>
#include <stdint.h>

#include "cp_state.h"

int vg_cp_init(struct vg_cp *cp, struct vg_gpu_common *gc, struct vg_mmu *mmu,
               struct vg_wdist *wd, struct vg_sms *sms,
               struct vg_copy_engine *ce);
void vg_cp_destroy(struct vg_cp *cp);
/* Abandon everything (GPU reset): frees kernels, back to idle. */
void vg_cp_reset(struct vg_cp *cp);

/*
 * Event handlers and requests, called by the GPU's runner (device.c's
 * event loop): no lock held; register updates lock the register file
 * themselves.
 */
void vg_cp_step(struct vg_cp *cp);
void vg_cp_dispatch_ready(struct vg_cp *cp, uint32_t index, uint32_t serial);
/* The SMs retired a block (vg_sms_retire()): what it means for its packet. */
void vg_cp_block_retired(struct vg_cp *cp, const struct vg_block_outcome *o);
/* The copy engine's copy in flight ended (VG_EV_COPY_DONE a, b). */
void vg_cp_copy_done(struct vg_cp *cp, uint32_t seq, uint32_t serial);
/* A doorbell, an enable or an error acknowledgement: look at the ring. */
void vg_cp_wake(struct vg_cp *cp);
/* Memory may have changed at time @t: poll again if waiting on memory. */
void vg_cp_memory_poll(struct vg_cp *cp, vg_time_t t);
/* VMGPU_STATUS_* as the command processor's state says. */
uint32_t vg_cp_status(const struct vg_cp *cp);
/*
 * Is the CP waiting for memory to change (WAIT_VALUE, DEP_WAIT), or its
 * copy engine (COPY_ASYNC after an entry)?
 */
static inline bool vg_cp_waits_for_memory(const struct vg_cp *cp)
{
    return cp->state == VG_CP_WAIT_VALUE || cp->ce_waits;
}

#endif
