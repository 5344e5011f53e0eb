/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The SM's instruction interpreter: validates and pre-decodes executables
 * (uapi/vmgpu_isa.h) and runs one thread block at a time, warp by warp,
 * all lanes of a warp together.
 *
 * Memory model: a block's global stores go to a per-block store log that
 * the caller applies when the block completes in virtual time; the block's
 * loads see memory plus its own logged stores; atomics act on memory at
 * once. Documentation/isa.rst has the details.
 */
#ifndef VG_INTERP_H
#define VG_INTERP_H

#include <stddef.h>
#include <stdint.h>

#include "memif.h"
#include "vmgpu_hw.h"
#include "vmgpu_isa.h"

struct vg_kernel;   /* a validated, pre-decoded executable */
struct vg_interp;   /* per-SM scratch, reused for every block */
struct vg_storelog; /* a block's pending global stores */

/*
 * Validate an executable image (header + code, as copied from GPU memory).
 * Returns VMGPU_FAULT_NONE and a kernel, or VMGPU_FAULT_BAD_EXECUTABLE /
 * VMGPU_FAULT_ILLEGAL_INSTR with *bad_pc set where it applies (@bad_pc may
 * be NULL).
 */
int vg_kernel_load(struct vg_kernel **out, const void *image, size_t bytes,
                   uint32_t *bad_pc);
void vg_kernel_free(struct vg_kernel *k);
/* Total image size announced by a header (header + code), 0 if invalid. */
size_t vg_exec_image_bytes(const struct vmgpu_exec_header *hdr);
uint32_t vg_kernel_args_bytes(const struct vg_kernel *k);
uint32_t vg_kernel_shared_bytes(const struct vg_kernel *k); /* static */
uint32_t vg_kernel_regs(const struct vg_kernel *k);
uint32_t vg_kernel_code_insns(const struct vg_kernel *k);

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

/* Warp instructions between two looks at vg_launch.abort. */
#define VG_INTERP_SLICE 65536
/* Internal fault code: the block was stopped by vg_launch.abort. */
#define VG_FAULT_ABORTED VMGPU_FAULT_NUM

struct vg_block_stats { /* accumulated (+=) by vg_interp_run_block */
    uint64_t warp_instrs, thread_instrs;
    uint64_t global_instrs; /* warp-level global loads/stores/atomics */
    uint64_t shared_instrs; /* warp-level shared loads/stores */
    uint64_t barriers;      /* warp-level BAR instructions */
    uint64_t bytes[VMGPU_LOC_COUNT]; /* global bytes moved, by location */
};

struct vg_fault_info {
    uint32_t code; /* VMGPU_FAULT_* */
    uint64_t addr; /* GPU VA (shared: offset) where it applies */
    uint32_t pc;   /* instruction index */
};

struct vg_interp *vg_interp_new(void);
void vg_interp_free(struct vg_interp *it);

struct vg_storelog *vg_storelog_new(void);
void vg_storelog_free(struct vg_storelog *log);
/* Write the logged stores to memory in program order, then empty the log. */
void vg_storelog_apply(struct vg_storelog *log);
/* Drop the logged stores (a faulting block). */
void vg_storelog_discard(struct vg_storelog *log);
/* Number of distinct pages with logged stores (for tests, cost models). */
uint32_t vg_storelog_pages(const struct vg_storelog *log);

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

#endif /* VG_INTERP_H */
