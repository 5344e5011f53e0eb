/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The multi-GPU splitter's plans (libshim/split/plan.h) run on the
 * device model of the host tests (testhost.h): a sink that writes each
 * GPU's operations as a packet, the buffers placed in GPU memory as the
 * library places them. For the host tests and the benchmark.
 */
#ifndef VMGPU_TESTSPLIT_H
#define VMGPU_TESTSPLIT_H

#include "split/plan.h"
#include "testhost.h"
#include "vmgpu/split.h"

/* A chain's kernels: code, argument template, where its addresses go. */
struct ts_kernel {
	uint64_t code_va;
	uint8_t args[64];
	uint32_t args_bytes;
	uint32_t write_offset;
	uint32_t read_offset[VMGPU_SPLIT_MAX_READS];
};

struct ts_split {
	struct testhost *th;
	struct th_as *as;
	struct split_plan plan;
	struct ts_kernel k[VMGPU_SPLIT_MAX_KERNELS];
	/* Resource r as GPU g sees it: shared, or its own copy. */
	uint64_t res_va[VMGPU_SPLIT_MAX_RESOURCES][VMGPU_MAX_GPUS];
	uint64_t args_va[VMGPU_SPLIT_MAX_KERNELS][VMGPU_MAX_GPUS];
	uint64_t table, stamps;
	uint64_t tmds, takes;	/* dynamic allocation (plan.g.allocation) */
	uint32_t epoch;
	uint64_t seqno;
	struct th_cmdbuf *cb;		/* the packet being written */
	uint32_t gpu;
};

/*
 * Plan @g (aborts the test program on a refused one) and allocate: shared
 * resources at @shared_va[r] (0: a copy per GPU in its local memory), the
 * table and the timestamps in system memory, each kernel's arguments per
 * GPU with its resources' addresses.
 */
void ts_split_init(struct ts_split *t, struct testhost *th, struct th_as *as,
		   const struct split_geom *g, const struct ts_kernel *k,
		   const uint64_t *shared_va);
void ts_split_free(struct ts_split *t);
/*
 * One run: a packet per GPU (new epoch), all rung, then the device run
 * to completion. Returns the makespan in device ns (first start to last
 * end); @start and @end (may be NULL) get each GPU's.
 */
uint64_t ts_split_run(struct ts_split *t, uint64_t *start, uint64_t *end);
/*
 * The same in two halves, for runs the caller drives (runner threads):
 * write and ring each GPU's packet; then, once every GPU's fence shows
 * it, the makespan and each GPU's start and end.
 */
void ts_split_submit(struct ts_split *t);
uint64_t ts_split_result(struct ts_split *t, uint64_t *start, uint64_t *end);

/*
 * The chain of stencils the multi-GPU test and benchmark run. The
 * device: @c's settings on c->gpus GPUs of 16 SMs in @mem_bytes, every
 * GPU's root at @as (from @va0), its trace kept, and each GPU's blocks on
 * an executor thread of its own if @executors; "stencil5"'s code address
 * to *@code.
 */
struct testhost *ts_chain_device(const struct vg_config *c,
				 uint64_t mem_bytes, uint64_t va0,
				 bool executors, struct th_as *as,
				 uint64_t *code);
/*
 * @g's g->num_kernels kernels as the chain: kernel i, "stencil5" at
 * @code, reads resource i (radius 1) and writes resource i + 1, spinning
 * @base per pixel and @extra more in the image's top-left quarter.
 */
void ts_chain_kernels(struct split_geom *g, struct ts_kernel *k,
		      uint64_t code, uint32_t base, uint32_t extra);
/* Resource 0, every GPU's copy of it, filled with the chain's input. */
void ts_chain_fill(struct ts_split *t);

/*
 * Every way the splitter runs the chain: mode, movement (modes c, d) and
 * allocation, named "(LETTER) what" as Documentation/benchmarks.rst
 * names them.
 */
struct ts_chain_run {
	const char *name;
	uint32_t mode, movement, allocation;
};
#define TS_CHAIN_RUNS	9
extern const struct ts_chain_run ts_chain_runs[TS_CHAIN_RUNS];

#endif
