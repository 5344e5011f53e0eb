/* SPDX-License-Identifier: MIT */
/*
 * The SM's instruction interpreter: runs one thread block of a loaded
 * kernel (kernel.h) at a time, warp by warp, all lanes of a warp
 * together, its global stores and device-side work (LAUNCH, ENQ) into the
 * block's store log (storelog.h); atomics act on memory at once.
 * Documentation/isa.rst has the details.
 */
#ifndef VG_INTERP_H
#define VG_INTERP_H

#include <stddef.h>
#include <stdint.h>

#include "kernel.h"
#include "memif.h"
#include "storelog.h"
#include "vmgpu_hw.h"
#include "vmgpu_isa.h"

struct vg_interp; /* per-SM scratch, reused for every block */

struct vg_launch { /* per dispatch, shared by all its blocks */
    const struct vg_kernel *kernel;
    const uint8_t *args; /* host copy of the argument block */
    uint32_t args_bytes;
    uint32_t grid[3];       /* blocks in this dispatch */
    uint32_t block[3];      /* threads per block */
    uint32_t origin[3];     /* block index offset of this portion */
    uint32_t grid_total[3]; /* whole index space, in blocks */
    uint32_t shared_bytes;  /* dynamic shared memory, added to static */
    uint32_t gpu;
    const struct vg_memif *mem;
    /*
     * When non-NULL and set non-zero (from any thread), running blocks
     * stop within VG_INTERP_SLICE warp instructions with VG_FAULT_ABORTED:
     * a GPU reset must not wait for a runaway kernel to spend its budget.
     */
    const uint32_t *abort;
};

/*
 * The instruction budget guards against a kernel that does not end, not
 * against a large launch (VMGPU_CAP_BUDGET_PER_WARPS): @base warp
 * instructions for a launch of up to VMGPU_BUDGET_WARPS warps, and @base
 * more for every VMGPU_BUDGET_WARPS warps started beyond (an average of
 * 4096 per warp at the default 2^28), saturating. @grid in blocks, @block
 * in threads.
 */

static inline uint64_t vg_budget_scaled(uint64_t base, const uint32_t grid[3],
                                        const uint32_t block[3])
{
    uint64_t warps_per_block =
        ((uint64_t)block[0] * block[1] * block[2] + VMGPU_WARP_SIZE - 1) /
        VMGPU_WARP_SIZE;
    uint64_t blocks = (uint64_t)grid[0] * grid[1];
    uint64_t units;

    if (!blocks || !grid[2] || !warps_per_block) {
        return base;
    }
    if (blocks > UINT64_MAX / grid[2] / warps_per_block) {
        return UINT64_MAX;
    }
    units = (blocks * grid[2] * warps_per_block + VMGPU_BUDGET_WARPS - 1) /
            VMGPU_BUDGET_WARPS;
    if (units <= 1) {
        return base;
    }
    return base > UINT64_MAX / units ? UINT64_MAX : base * units;
}

/* Warp instructions between two looks at vg_launch.abort. */
#define VG_INTERP_SLICE 65536
/* Internal fault code: the block was stopped by vg_launch.abort. */
#define VG_FAULT_ABORTED VMGPU_FAULT_NUM

struct vg_block_stats { /* accumulated (+=) by vg_interp_run_block */
    uint64_t warp_instrs, thread_instrs;
    uint64_t global_instrs; /* warp-level global loads/stores/atomics */
    uint64_t shared_instrs; /* warp-level shared loads/stores */
    uint64_t barriers;      /* warp-level BAR instructions */
    uint64_t bytes[VMGPU_LOC_COUNT];  /* global bytes moved, by location */
    uint64_t wbytes[VMGPU_LOC_COUNT]; /* of which stores and atomics */
};

struct vg_fault_info {
    uint32_t code; /* VMGPU_FAULT_* */
    uint64_t addr; /* GPU VA (shared: offset) where it applies */
    uint32_t pc;   /* instruction index */
};

struct vg_interp *vg_interp_new(void);
void vg_interp_free(struct vg_interp *it);

/*
 * Run block @pos (0-based within this dispatch's grid) to completion on SM
 * @sm. @log NULL: stores write through. @budget: remaining warp
 * instructions of the dispatch, decremented; running out is a
 * VMGPU_FAULT_BUDGET. Returns 0, or -1 with *fault filled (the block
 * stopped there; the caller discards @log).
 *
 * Launch errors (block size 0 or > VMGPU_MAX_BLOCK_THREADS, shared memory
 * over VMGPU_MAX_SHARED_BYTES, an argument block shorter than the kernel's)
 * fail with VMGPU_FAULT_BAD_EXECUTABLE at pc 0.
 */
int vg_interp_run_block(struct vg_interp *it, const struct vg_launch *l,
                        const uint32_t pos[3], uint32_t sm,
                        struct vg_storelog *log, uint64_t *budget,
                        struct vg_block_stats *stats,
                        struct vg_fault_info *fault);
/*
 * The same for a block of a queue task, which works on the @item_count
 * work items from index @item_base (the ITEM_BASE and ITEM_COUNT special
 * registers; both 0 for other blocks).
 */
int vg_interp_run_items(struct vg_interp *it, const struct vg_launch *l,
                        const uint32_t pos[3], uint32_t item_base,
                        uint32_t item_count, uint32_t sm,
                        struct vg_storelog *log, uint64_t *budget,
                        struct vg_block_stats *stats,
                        struct vg_fault_info *fault);

#endif /* VG_INTERP_H */
