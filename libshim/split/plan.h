/* SPDX-License-Identifier: MIT */
/*
 * The multi-GPU splitter's planner (SPEC R1, R3, R6): from a chain of
 * 2-D kernels over one image-sized index space, what each GPU's packet
 * does, as a list of operations per GPU that name kernels, resources and
 * GPUs, not buffers. vmgpu_split_*() (split.c) turns them into command
 * buffers; the host tests and the benchmark turn the same lists into
 * packets for the device model, so the policy is written once.
 * Documentation/regions.rst, "The splitter", explains the modes.
 *
 * Test-facing: the one private header of libshim that code outside it may
 * include — the host tests and the multi-GPU benchmark drive the planner
 * with their own sink (selftests/host/testsplit.h).
 */
#ifndef VMGPU_SPLIT_PLAN_H
#define VMGPU_SPLIT_PLAN_H

#include <stdint.h>

#include <vmgpu/split.h>

enum split_op_kind {
	SPLIT_OP_DISPATCH,	/* kernel over a rectangle of blocks */
	SPLIT_OP_SIGNAL,	/* DEP_SIGNAL on this GPU's dispatch @dispatch */
	SPLIT_OP_WAIT,		/* DEP_WAIT */
	SPLIT_OP_MARK,		/* write entry @index READY (after a BARRIER) */
	SPLIT_OP_COPY,		/* pixels @rect of @resource: @src_gpu -> @dst_gpu */
	SPLIT_OP_BARRIER,
	SPLIT_OP_TIMESTAMP,	/* slot @index of this GPU's two */
	SPLIT_OP_TAKE,		/* dynamic: take @kernel's portions (R7) */
};

/* A rectangle: x, y, width, height (pixels or blocks, as said). */
struct split_rect {
	uint32_t x, y, w, h;
};

struct split_op {
	uint32_t kind;			/* SPLIT_OP_* */
	uint32_t kernel;		/* DISPATCH */
	struct split_rect blocks;	/* DISPATCH: the blocks it runs */
	uint32_t dispatch;		/* SIGNAL: index in this GPU's packet */
	uint32_t index;			/* SIGNAL, WAIT: first entry; MARK: entry */
	uint32_t region[2];		/* SIGNAL: blocks per region */
	uint32_t grid[2];		/* WAIT: producer = consumer grid */
	uint32_t first[2];		/* WAIT: consumer portion */
	struct vmgpu_region_map map;	/* WAIT, TAKE (kind 0: no wait) */
	struct vmgpu_curve curve;	/* TAKE: this GPU's */
	uint32_t resource, src_gpu, dst_gpu; /* COPY */
	struct split_rect rect;		/* COPY: pixels */
	/* COPY on the copy engine (COPY_ASYNC): entries, or SPLIT_NO_ENTRY */
	uint8_t async, replicate;
	uint32_t after, signal;
};

#define SPLIT_NO_ENTRY		UINT32_MAX

/* How an asynchronous copy is ordered (split_sink.copy). */
struct split_copy_opts {
	uint32_t after;		/* entry it starts after, or SPLIT_NO_ENTRY */
	uint32_t signal;	/* entry it writes when landed, or ... */
	int replicate;		/* in place: read replicas (hybrid) */
};

/* What the planner needs of a chain (vmgpu_split_desc without buffers). */
struct split_geom {
	uint32_t width, height;		/* pixels */
	uint32_t block[2];		/* threads per block, every kernel */
	uint32_t num_kernels, num_resources;
	struct {
		uint32_t num_reads;
		uint32_t read[VMGPU_SPLIT_MAX_READS];	/* resources */
		uint32_t radius[VMGPU_SPLIT_MAX_READS][2];
		uint32_t write;
		uint32_t flags;		/* VMGPU_SPLIT_DRAW */
	} k[VMGPU_SPLIT_MAX_KERNELS];
	/* Resource r is shared (one buffer all GPUs use) or per GPU. */
	uint8_t shared[VMGPU_SPLIT_MAX_RESOURCES];
	uint32_t gpus, mode, movement, allocation;
	uint32_t portions[2];		/* portion grid */
	uint32_t region[2];		/* mode REGION: blocks per region */
};

struct split_plan {
	struct split_geom g;
	uint32_t blocks[2];		/* the index space in blocks */
	uint32_t unit[2];		/* blocks per signalled unit */
	uint32_t units[2];		/* unit grid */
	/*
	 * Table entries: per kernel a section of one entry per unit
	 * (produced), one more per kernel (pushed to its readers) and one
	 * per kernel and reading GPU (fetched by it): units x kernels x
	 * (2 + gpus).
	 */
	uint32_t entries;
	uint32_t writer[VMGPU_SPLIT_MAX_RESOURCES]; /* kernel, or ~0 */
	struct split_op *ops[VMGPU_MAX_GPUS];
	uint32_t nops[VMGPU_MAX_GPUS], cap[VMGPU_MAX_GPUS];
	uint32_t dispatches[VMGPU_MAX_GPUS];
};

/*
 * Where a plan's operations go: one call per command, with everything
 * computed but the addresses, which the sink knows (resources by index
 * and GPU, the table and timestamp buffers by offset).
 */
struct split_sink {
	int (*dispatch)(void *ctx, uint32_t kernel, const uint32_t grid[3],
			const uint32_t origin[3], const uint32_t total[3]);
	int (*signal)(void *ctx, uint32_t dispatch, uint32_t epoch,
		      uint32_t first_index, const uint32_t region[3]);
	int (*wait)(void *ctx, uint32_t epoch, uint32_t first_index,
		    const uint32_t grid[3], const uint32_t first[3],
		    const struct vmgpu_region_map *map);
	int (*table_write)(void *ctx, uint64_t offset, uint32_t value);
	/*
	 * @rect's pixels of resource @r, from @src's buffer to @dst's: a
	 * COPY with @async NULL, else a COPY_ASYNC ordered by it in @epoch.
	 */
	int (*copy)(void *ctx, uint32_t r, uint32_t src, uint32_t dst,
		    const struct vmgpu_copy_rect *rect, uint32_t epoch,
		    const struct split_copy_opts *async);
	int (*barrier)(void *ctx);
	int (*timestamp)(void *ctx, uint64_t offset);
	/*
	 * TAKE of @kernel's portions (its descriptor: portion-sized grid),
	 * take words at @take_offset of the take buffer; @wait_index
	 * VMGPU_TAKE_NO_WAIT (and @map NULL) for none.
	 */
	int (*take)(void *ctx, uint32_t kernel, uint32_t epoch,
		    uint64_t take_offset, uint32_t signal_index,
		    uint32_t wait_index, uint32_t inflight,
		    const uint32_t pgrid[3], const struct vmgpu_curve *curve,
		    const struct vmgpu_region_map *map);
};

/* Portions a dynamic TAKE keeps in flight on one GPU. */
#define SPLIT_TAKE_INFLIGHT	8
/* Take words of kernel @k: one u32 per portion. */
#define SPLIT_TAKE_OFFSET(p, k)	(4ull * (k) * (p)->units[0] * (p)->units[1])

/* Bytes of the timestamp buffer: start and end (u64 ns) per GPU. */
#define SPLIT_STAMP_BYTES	(16 * VMGPU_MAX_GPUS)

/* Emit GPU @gpu's operations for the run of @epoch into @sink. */
int split_plan_emit(const struct split_plan *p, uint32_t gpu, uint32_t epoch,
		    const struct split_sink *sink, void *ctx);

/*
 * Check @g (every rule of vmgpu_split_desc, documented in vmgpu.h) and
 * plan it. Returns 0, or -EINVAL/-E2BIG/-ENOMEM with *@why set.
 */
int split_plan_build(struct split_plan *p, const struct split_geom *g,
		     const char **why);
void split_plan_free(struct split_plan *p);
/* GPU that owns portion (px, py) of the portion grid. */
uint32_t split_portion_gpu(const struct split_plan *p, uint32_t px,
			   uint32_t py);
/*
 * Where the page at byte @offset of a resource lives when resources are
 * one shared buffer with pages at their writers (movements REMOTE and
 * HYBRID): the GPU whose portion holds the page's first pixel.
 */
uint32_t split_page_gpu(const struct split_plan *p, uint64_t offset);
/* Do the GPUs share one buffer per resource (every resource)? */
int split_all_shared(const struct split_geom *g);

#endif
