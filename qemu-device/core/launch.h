/* SPDX-License-Identifier: MIT */
/*
 * Task launch (launch.c): the tasks of the packet the command processor
 * runs, set up from a DISPATCH, a task descriptor (LAUNCH_TMD, a TAKE's
 * portion) or a kernel's LAUNCH, and a kernel's ENQs into queue tasks.
 * Called by the command processor (cmdproc.c) and by TAKE (take.c);
 * a failure comes back in @err for the CP to report (vg_cp_error()).
 */
#ifndef VG_LAUNCH_H
#define VG_LAUNCH_H

#include <stdbool.h>
#include <stdint.h>

#include "cp_state.h"
#include "vmgpu_cmd.h"

/*
 * Where a task comes from, for its checks and error reports: a command of
 * the packet (its word) or a kernel's LAUNCH (the descriptor's address and
 * the instruction).
 */
struct vg_task_src {
    uint32_t index;    /* its index in the packet */
    uint64_t err_addr; /* reported for a malformed task */
    uint32_t err_pc;
    uint32_t bad_code; /* VMGPU_FAULT_BAD_COMMAND, or _TASK from a kernel */
    uint64_t tmd_va;   /* its descriptor, 0 for a DISPATCH */
    uint32_t parent;   /* the launching task, or VMGPU_TRACE_NONE */
};

/*
 * Task @d is ready (its SYNC producers are done): it reaches the
 * distributor after the launch latency (VG_EV_DISPATCH_READY).
 */
void vg_launch_send(struct vg_cp *cp, struct vg_dispatch *d);
/* Task @src->index from the DISPATCH at @p (launch.c says the rest). */
bool vg_launch_dispatch(struct vg_cp *cp, const struct vg_task_src *src,
                        const uint8_t *p, uint32_t quota, uint64_t sm_mask,
                        const struct vmgpu_tmd_queue_info *q,
                        struct vg_error *err);
/* Task @src->index from the task descriptor bytes @tmd. */
bool vg_launch_from_tmd(struct vg_cp *cp, const struct vg_task_src *src,
                        const uint8_t *tmd, bool queue_ok,
                        struct vg_error *err);
/* LAUNCH_TMD at @p: the next task of the packet from its descriptor. */
bool vg_launch_tmd(struct vg_cp *cp, const uint8_t *p, struct vg_error *err);
/* A completed block's LAUNCH and ENQ records, in program order. */
bool vg_launch_block_work(struct vg_cp *cp, const struct vg_block_outcome *o,
                          struct vg_error *err);

#endif
