/* SPDX-License-Identifier: MIT */
/*
 * Region dependency tables (SPEC R2, R3), the command processor's part:
 * the signals DEP_SIGNAL arms on the packet's dispatches, which write a
 * table entry as soon as the blocks covering a region have finished, and
 * the check of exactly the entries a DEP_WAIT's consumer portions need.
 * The encodings and rules are uapi/vmgpu_region.h's; the command words
 * vmgpu_hw.h's. Documentation/regions.rst explains the scheme.
 */
#ifndef VG_DEPTABLE_H
#define VG_DEPTABLE_H

#include <stdbool.h>
#include <stdint.h>

#include "gpu_common.h"
#include "interp.h"
#include "mmu.h"
#include "vmgpu_hw.h"

struct vg_dep_signal {
    uint32_t dispatch, epoch, first_index, entries;
    uint64_t table_va;
    uint32_t region[3];
    uint32_t pc;   /* word of the DEP_SIGNAL, for error reports */
    uint32_t next; /* next signal on the same dispatch, or ~0 */
    /* Set when the dispatch is set up (vg_deps_arm()). */
    uint32_t rtotal[3]; /* region grid of the index space */
    uint32_t rfirst[3]; /* the dispatch's first region */
    uint32_t rcount[3]; /* its regions per dimension */
    uint32_t *left;     /* blocks not finished, per region of the dispatch */
};

struct vg_deps {
    struct vg_dep_signal sig[VMGPU_DEP_MAX_SIGNALS];
    uint32_t num_signals;
    uint32_t head[VMGPU_MAX_DISPATCHES_PER_PACKET]; /* first signal + 1 */
    uint32_t *left_arena; /* VMGPU_DEP_MAX_SIGNALS x _MAX_SIGNAL_REGIONS */
    /* The DEP_WAIT being run: its entries, found once, checked in order. */
    bool wait_known;
    uint32_t *needs; /* producer portions, ascending */
    uint32_t nneeds, checked;
    uint32_t *bitmap; /* scratch: VMGPU_REGION_MAX_PORTIONS bits */
    uint8_t *row;     /* scratch: one TABLE map row */
    vg_time_t latest; /* latest write time among the entries checked */
    vg_time_t blocked_at;
    bool blocked;
};

enum vg_dep_wait_result {
    VG_DEP_READY = 0, /* every entry READY in the epoch */
    VG_DEP_BLOCKED,   /* an entry is not: poll when memory changes */
    VG_DEP_FAULT,     /* *code and *fault_va say why */
};

int vg_deps_init(struct vg_deps *deps);
void vg_deps_destroy(struct vg_deps *deps);
/* A new packet: no signal, no wait. */
void vg_deps_reset(struct vg_deps *deps);

/* DEP_SIGNAL at word @pc (checked by vmgpu_cmd_check()). */
void vg_deps_add_signal(struct vg_deps *deps, const uint8_t *cmd, uint32_t pc);
/*
 * Dispatch @dispatch (@l set up) is about to run: size the signals armed
 * on it. 0, or VMGPU_FAULT_BAD_COMMAND with *@pc the offending
 * DEP_SIGNAL's word (the dispatch does not cover whole regions, covers
 * too many, or its regions run past the table; or it is a queue task).
 */
int vg_deps_arm(struct vg_deps *deps, uint32_t dispatch,
                const struct vg_launch *l, bool queue, uint32_t *pc);
static inline bool vg_deps_signalled(const struct vg_deps *deps,
                                     uint32_t dispatch)
{
    return dispatch < VMGPU_MAX_DISPATCHES_PER_PACKET && deps->head[dispatch];
}
/*
 * Write entry @index of the table at @table_va READY in @epoch from this
 * GPU (one 64-bit store at the GPU's time). 0 or a fault code.
 */
int vg_deps_write_entry(struct vg_gpu_common *gc, struct vg_mmu *mmu,
                        uint32_t slot, uint64_t table_va, uint32_t index,
                        uint32_t epoch, uint64_t *fault_va);
/*
 * Block @block (linear, of @l's grid) of dispatch @dispatch finished and
 * its stores reached memory: write the entries of the regions it was the
 * last block of (the GPU's time, as one 64-bit store each). 0, or a fault
 * code with *@fault_va and *@pc (the DEP_SIGNAL's word).
 */
int vg_deps_block_done(struct vg_deps *deps, struct vg_gpu_common *gc,
                       struct vg_mmu *mmu, uint32_t slot, uint32_t dispatch,
                       const struct vg_launch *l, uint32_t block,
                       uint64_t *fault_va, uint32_t *pc);

/*
 * Is entry @index of the table at @table_va READY in @epoch? VG_DEP_READY
 * with *@written the device time it was written, VG_DEP_BLOCKED, or
 * VG_DEP_FAULT with *@code and *@fault_va. The caller has published that
 * it waits for memory (vg_gpu_publish_wait()) if it will wait.
 */
enum vg_dep_wait_result vg_deps_entry_check(struct vg_gpu_common *gc,
                                            struct vg_mmu *mmu, uint32_t slot,
                                            uint64_t table_va, uint32_t index,
                                            uint32_t epoch, vg_time_t *written,
                                            int *code, uint64_t *fault_va);
/*
 * Run the DEP_WAIT at @cmd (checked by vmgpu_cmd_check()): find its
 * entries the first time, then check those not yet seen READY.
 * VG_DEP_READY with *@ready_at the time to continue at (the last entry's
 * write, or now); VG_DEP_BLOCKED; or VG_DEP_FAULT with *@code and
 * *@fault_va.
 */
enum vg_dep_wait_result vg_deps_wait(struct vg_deps *deps,
                                     struct vg_gpu_common *gc,
                                     struct vg_mmu *mmu, uint32_t slot,
                                     const uint8_t *cmd, vg_time_t *ready_at,
                                     int *code, uint64_t *fault_va);
/* The DEP_WAIT is left (done or abandoned): forget its entries. */
void vg_deps_wait_end(struct vg_deps *deps);

#endif
