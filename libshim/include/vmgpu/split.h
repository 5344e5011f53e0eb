/* SPDX-License-Identifier: MIT */
/*
 * libvmgpu's multi-GPU splitter (vmgpu_split_*): a chain of 2-D kernels
 * split over the GPUs of a device by portions and regions, with the
 * dependencies and data movement between them (SPEC R;
 * Documentation/regions.rst, "The splitter"). Part of libvmgpu; the
 * conventions of <vmgpu.h> hold.
 */
#ifndef VMGPU_SPLIT_H
#define VMGPU_SPLIT_H

#include <vmgpu.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ */
/* Multi-GPU splitter (SPEC R; Documentation/regions.rst, "The splitter") */
/* ------------------------------------------------------------------ */

#define VMGPU_SPLIT_MAX_KERNELS		16
#define VMGPU_SPLIT_MAX_READS		4
#define VMGPU_SPLIT_MAX_RESOURCES	32

/* How the GPUs wait for each other between kernels of the chain. */
enum vmgpu_split_mode {
	/* (a) every GPU waits for every portion, then copies all of them */
	VMGPU_SPLIT_BARRIER = 0,
	/* (b) the same wait; halo copies overlap the portion's interior */
	VMGPU_SPLIT_OVERLAP,
	/* (c) a portion waits for the portions it reads (dependency table) */
	VMGPU_SPLIT_PORTION,
	/* (d) a region waits for the regions it reads, signalled per region */
	VMGPU_SPLIT_REGION,
	VMGPU_SPLIT_NUM_MODES
};

/* How data another GPU wrote reaches a reader (modes c and d; SPEC R6). */
enum vmgpu_split_movement {
	/* copy-then-read: after its wait the reader copies what it reads */
	VMGPU_MOVE_PULL = 0,
	/*
	 * the writer's copy engine copies each region, as soon as it is
	 * written, to the GPUs that read it; readers wait for its arrival
	 */
	VMGPU_MOVE_PUSH,
	/*
	 * prefetch (R8): at the start of each kernel the reader's copy
	 * engine queues copies of all its portions' inputs, each starting
	 * as soon as its region is written; units wait for their arrival
	 */
	VMGPU_MOVE_PREFETCH,
	/*
	 * direct remote read: one buffer per resource, each page in the
	 * memory of the GPU that writes it (vmgpu_bo_place()); no copy
	 */
	VMGPU_MOVE_REMOTE,
	/*
	 * hybrid: as REMOTE, and the reader's copy engine brings the pages
	 * it reads of other GPUs into its memory as read replicas as soon
	 * as they are written: reads are remote until they land, then local
	 */
	VMGPU_MOVE_HYBRID,
	VMGPU_MOVE_NUM
};

/*
 * A resource a kernel reads, @radius pixels around each of its pixels,
 * or anywhere (VMGPU_SPLIT_WHOLE in both: a texture sampled at computed
 * coordinates; its portions wait for every portion of the writer).
 */
struct vmgpu_split_read {
	uint32_t resource;
	uint32_t radius[2];		/* x, y; at most one block, or WHOLE */
	uint32_t args_offset;		/* its u64 address in the arguments */
};

#define VMGPU_SPLIT_WHOLE		UINT32_MAX

/*
 * One kernel of the chain: one thread per pixel of the whole image, in
 * blocks of the chain's @block threads (the portion's origin in
 * %ctaid). The splitter writes each resource's address for the GPU that
 * runs it at the given offsets of a copy of @args.
 */
struct vmgpu_split_kernel {
	const struct vmgpu_bo *kernel;
	const void *args;
	uint32_t args_bytes;
	uint32_t num_reads;
	struct vmgpu_split_read reads[VMGPU_SPLIT_MAX_READS];
	uint32_t write;			/* the resource it writes */
	uint32_t write_args_offset;
	uint32_t flags;			/* VMGPU_SPLIT_DRAW */
};

/*
 * A draw-style pass (SPEC R9): its blocks are screen tiles. Each portion
 * is one dispatch whose tiles the device issues in raster order, waiting
 * before it starts for all its tiles read, and signalling each region
 * (rows of tiles) as soon as it is drawn, so compute kernels after it
 * start region by region, and compute before it is waited for as any
 * consumer waits: dependencies in both directions.
 */
#define VMGPU_SPLIT_DRAW		(1u << 0)

/*
 * A chain of kernels over one 2-D index space split across GPUs 0..gpus-1.
 * Every resource is @width x @height pixels of 4 bytes, row-major. A
 * resource with a buffer here is shared by the GPUs (inputs and outputs:
 * read where it is, written by each GPU for its own pixels); one without
 * is kept by the splitter, one copy in each GPU's memory. Each resource is
 * written by at most one kernel, after any kernel that reads it.
 */
struct vmgpu_split_desc {
	uint32_t width, height;
	uint32_t block[2];		/* threads per block; divide the image */
	uint32_t num_kernels;
	struct vmgpu_split_kernel kernels[VMGPU_SPLIT_MAX_KERNELS];
	uint32_t num_resources;
	struct vmgpu_bo *resources[VMGPU_SPLIT_MAX_RESOURCES];
	uint32_t gpus;
	uint32_t mode;			/* VMGPU_SPLIT_* */
	uint32_t movement;		/* VMGPU_MOVE_* (modes c, d) */
	/* Portion grid in x, y, dividing the blocks; 0, 0: by GPU count. */
	uint32_t portions[2];
	/* Mode d: blocks per region, dividing a portion; 0, 0: 4 rows. */
	uint32_t region[2];
	/*
	 * VMGPU_SPLIT_STATIC: portion i runs on GPU i % gpus.
	 * VMGPU_SPLIT_DYNAMIC (R7): the GPUs take portions as they become
	 * free, each walking its own curve (TAKE); mode PORTION only, each
	 * kernel reading at most one resource another kernel writes, and
	 * every resource one buffer the GPUs share (the splitter's own in
	 * GPU r % gpus's memory). Portions default to 8 x 8.
	 */
	uint32_t allocation;
};

#define VMGPU_SPLIT_STATIC		0u
#define VMGPU_SPLIT_DYNAMIC		1u

/* What one run did, in device time (TIMESTAMP at each packet's ends). */
struct vmgpu_split_stats {
	uint64_t makespan_ns;		/* first start to last end */
	uint64_t start_ns[VMGPU_MAX_GPUS], end_ns[VMGPU_MAX_GPUS];
	uint32_t dispatches[VMGPU_MAX_GPUS];
	uint32_t copies[VMGPU_MAX_GPUS];
	uint32_t waits[VMGPU_MAX_GPUS];	/* DEP_WAIT commands */
};

struct vmgpu_split;

/*
 * Plan the chain (every field checked: -EINVAL or -E2BIG with the rule in
 * vmgpu_error_message()) and allocate its per-GPU resources and table.
 */
int vmgpu_split_create(struct vmgpu_device *dev,
		       const struct vmgpu_split_desc *desc,
		       struct vmgpu_split **out);
void vmgpu_split_destroy(struct vmgpu_split *split);
/*
 * Run the chain once on @ctx: one packet per GPU, submitted together,
 * every wait between GPUs done by the GPUs (no interrupt, no register),
 * then wait for them (@timeout_ns each). @stats may be NULL.
 */
int vmgpu_split_run(struct vmgpu_split *split, struct vmgpu_context *ctx,
		    int64_t timeout_ns, struct vmgpu_split_stats *stats);

#ifdef __cplusplus
}
#endif

#endif /* VMGPU_SPLIT_H */
