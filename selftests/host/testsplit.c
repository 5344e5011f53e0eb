// SPDX-License-Identifier: GPL-2.0-only
/* The splitter's plans on the host tests' device model (testsplit.h). */
#include <stdlib.h>
#include <string.h>

#include "testsplit.h"
#include "vmgpu_cmd.h"
#include "vmgpu/split.h"

#define RW (VMGPU_PTE_READ | VMGPU_PTE_WRITE)

static uint64_t loc(uint32_t l)
{
	return (uint64_t)l << VMGPU_PTE_LOC_SHIFT;
}

void ts_split_init(struct ts_split *t, struct testhost *th, struct th_as *as,
		   const struct split_geom *g, const struct ts_kernel *k,
		   const uint64_t *shared_va)
{
	uint64_t bytes = (uint64_t)g->width * g->height * 4;
	const char *why;
	uint32_t r, gpu, i, j;

	memset(t, 0, sizeof(*t));
	t->th = th;
	t->as = as;
	if (split_plan_build(&t->plan, g, &why))
		th_die(why);
	for (r = 0; r < g->num_resources; r++) {
		uint64_t one = 0;

		/*
		 * Dynamic, remote, hybrid: the splitter's resources are one
		 * buffer each, in one GPU's memory or (remote, hybrid) each
		 * page where it is written, as the library's.
		 */
		if (!shared_va[r] && t->plan.g.shared[r]) {
			uint64_t at;

			one = th_as_alloc(th, as, bytes,
					  RW | loc(VMGPU_LOC_GPU(r % g->gpus)));
			for (at = 0; g->allocation != VMGPU_SPLIT_DYNAMIC &&
			     at < bytes; at += VMGPU_PAGE_SIZE)
				th_place(th, as, one + at, VMGPU_PAGE_SIZE,
					 VMGPU_LOC_GPU(split_page_gpu(&t->plan,
								      at)));
		}
		for (gpu = 0; gpu < g->gpus; gpu++)
			t->res_va[r][gpu] = shared_va[r] ? shared_va[r] : one ? one :
				th_as_alloc(th, as, bytes,
					    RW | loc(VMGPU_LOC_GPU(gpu)));
	}
	t->table = th_as_alloc(th, as, (uint64_t)t->plan.entries * 8, RW);
	t->stamps = th_as_alloc(th, as, SPLIT_STAMP_BYTES, RW);
	for (i = 0; i < g->num_kernels; i++) {
		t->k[i] = k[i];
		for (gpu = 0; gpu < g->gpus; gpu++) {
			uint8_t a[64];
			uint64_t va;

			memcpy(a, k[i].args, sizeof(a));
			va = t->res_va[g->k[i].write][gpu];
			memcpy(a + k[i].write_offset, &va, 8);
			for (j = 0; j < g->k[i].num_reads; j++) {
				va = t->res_va[g->k[i].read[j]][gpu];
				memcpy(a + k[i].read_offset[j], &va, 8);
			}
			t->args_va[i][gpu] = th_upload(th, as, a,
						       k[i].args_bytes);
		}
	}
	if (g->allocation == VMGPU_SPLIT_DYNAMIC) {
		struct vmgpu_tmd d[VMGPU_SPLIT_MAX_KERNELS];

		memset(d, 0, sizeof(d));
		for (i = 0; i < g->num_kernels; i++) {
			d[i].code_va = k[i].code_va;
			d[i].args_va = t->args_va[i][0];
			d[i].args_bytes = k[i].args_bytes;
			d[i].grid[0] = t->plan.unit[0];
			d[i].grid[1] = t->plan.unit[1];
			d[i].grid[2] = 1;
			d[i].block[0] = g->block[0];
			d[i].block[1] = g->block[1];
			d[i].block[2] = 1;
			d[i].grid_total[0] = t->plan.blocks[0];
			d[i].grid_total[1] = t->plan.blocks[1];
			d[i].grid_total[2] = 1;
		}
		t->tmds = th_upload(th, as, d, sizeof(d[0]) * g->num_kernels);
		t->takes = th_as_alloc(th, as,
				       SPLIT_TAKE_OFFSET(&t->plan, g->num_kernels),
				       RW);
	}
	t->cb = calloc(1, sizeof(*t->cb));
	if (!t->cb)
		th_die("out of memory");
}

void ts_split_free(struct ts_split *t)
{
	split_plan_free(&t->plan);
	free(t->cb);
	t->cb = NULL;
}

static int ts_dispatch(void *ctx, uint32_t kernel, const uint32_t grid[3],
		       const uint32_t origin[3], const uint32_t total[3])
{
	struct ts_split *t = ctx;
	const uint32_t block[3] = { t->plan.g.block[0], t->plan.g.block[1], 1 };

	TH_CB_PUT(t->cb, vmgpu_encode_dispatch(t->k[kernel].code_va,
					       t->args_va[kernel][t->gpu],
					       t->k[kernel].args_bytes, grid,
					       block, origin, total, 0, 0));
	return 0;
}

static int ts_signal(void *ctx, uint32_t dispatch, uint32_t epoch,
		     uint32_t first_index, const uint32_t region[3])
{
	struct ts_split *t = ctx;

	th_cb_dep_signal(t->cb, dispatch, epoch, t->table, t->plan.entries,
			 first_index, region);
	return 0;
}

static int ts_wait(void *ctx, uint32_t epoch, uint32_t first_index,
		   const uint32_t grid[3], const uint32_t first[3],
		   const struct vmgpu_region_map *map)
{
	struct ts_split *t = ctx;
	const uint32_t one[3] = { 1, 1, 1 };

	th_cb_dep_wait(t->cb, epoch, t->table, t->plan.entries, first_index,
		       grid, grid, first, one, map);
	return 0;
}

static int ts_table_write(void *ctx, uint64_t offset, uint32_t value)
{
	struct ts_split *t = ctx;

	th_cb_write(t->cb, t->table + offset, value);
	return 0;
}

static int ts_copy(void *ctx, uint32_t r, uint32_t src, uint32_t dst,
		   const struct vmgpu_copy_rect *rect, uint32_t epoch,
		   const struct split_copy_opts *async)
{
	struct ts_split *t = ctx;
	struct vmgpu_cmd_copy c = vmgpu_encode_copy(
		t->res_va[r][src] + rect->src_offset,
		t->res_va[r][dst] + rect->dst_offset, rect->width_bytes,
		rect->height, rect->height > 1 ? rect->src_pitch : 0,
		rect->height > 1 ? rect->dst_pitch : 0);
	struct vmgpu_cmd_copy_async a;

	if (!async) {
		TH_CB_PUT(t->cb, c);
		return 0;
	}
	a = vmgpu_encode_copy_async(&c, epoch,
				    async->after == SPLIT_NO_ENTRY ? 0 : t->table,
				    async->after == SPLIT_NO_ENTRY ? 0 : async->after,
				    async->signal == SPLIT_NO_ENTRY ? 0 : t->table,
				    async->signal == SPLIT_NO_ENTRY ? 0 :
				    async->signal);
	if (async->replicate)
		a.flags |= VMGPU_COPY_REPLICATE;
	TH_CB_PUT(t->cb, a);
	return 0;
}

static int ts_barrier(void *ctx)
{
	struct ts_split *t = ctx;

	th_cb_barrier(t->cb);
	return 0;
}

static int ts_timestamp(void *ctx, uint64_t offset)
{
	struct ts_split *t = ctx;

	th_cb_timestamp(t->cb, t->stamps + offset);
	return 0;
}

static int ts_take(void *ctx, uint32_t kernel, uint32_t epoch,
		   uint64_t take_offset, uint32_t signal_index,
		   uint32_t wait_index, uint32_t inflight,
		   const uint32_t pgrid[3], const struct vmgpu_curve *curve,
		   const struct vmgpu_region_map *map)
{
	struct ts_split *t = ctx;

	TH_CB_PUT(t->cb, vmgpu_encode_take(epoch, t->tmds +
					   (uint64_t)kernel * VMGPU_TMD_BYTES,
					   t->takes + take_offset, t->table,
					   t->plan.entries, signal_index,
					   wait_index, inflight, pgrid, curve,
					   map));
	return 0;
}

static const struct split_sink ts_sink = {
	.dispatch = ts_dispatch,
	.signal = ts_signal,
	.wait = ts_wait,
	.table_write = ts_table_write,
	.copy = ts_copy,
	.barrier = ts_barrier,
	.timestamp = ts_timestamp,
	.take = ts_take,
};

void ts_split_submit(struct ts_split *t)
{
	uint32_t gpu;

	t->epoch = vmgpu_dep_epoch_next(t->epoch);
	t->seqno++;
	/* Every packet written first, then every tail, then the doorbells. */
	for (gpu = 0; gpu < t->plan.g.gpus; gpu++) {
		th_cb_init(t->cb);
		t->gpu = gpu;
		split_plan_emit(&t->plan, gpu, t->epoch, &ts_sink, t);
		th_cb_end(t->cb);
		th_push(t->th, gpu, th_cb_upload(t->th, t->as, t->cb),
			t->cb->n * 4, t->seqno, VMGPU_RING_F_IRQ, 0, 0);
	}
	for (gpu = 0; gpu < t->plan.g.gpus; gpu++)
		th_wr(t->th, gpu, VMGPU_GPU_RING_TAIL, t->th->ring_tail[gpu]);
	for (gpu = 0; gpu < t->plan.g.gpus; gpu++)
		th_wr(t->th, gpu, VMGPU_GPU_DOORBELL, 1);
}

uint64_t ts_split_result(struct ts_split *t, uint64_t *start, uint64_t *end)
{
	uint64_t *stamp = th_va(t->th, t->as, t->stamps);
	uint64_t first = UINT64_MAX, last = 0;
	uint32_t gpu;

	for (gpu = 0; gpu < t->plan.g.gpus; gpu++) {
		if (th_fence_mem(t->th, gpu) != t->seqno)
			th_die("a GPU's packet of the chain did not complete");
		if (stamp[2 * gpu] < first)
			first = stamp[2 * gpu];
		if (stamp[2 * gpu + 1] > last)
			last = stamp[2 * gpu + 1];
		if (start)
			start[gpu] = stamp[2 * gpu];
		if (end)
			end[gpu] = stamp[2 * gpu + 1];
	}
	return last - first;
}

uint64_t ts_split_run(struct ts_split *t, uint64_t *start, uint64_t *end)
{
	ts_split_submit(t);
	vg_device_run(t->th->dev);
	return ts_split_result(t, start, end);
}

struct testhost *ts_chain_device(const struct vg_config *c,
				 uint64_t mem_bytes, uint64_t va0,
				 bool executors, struct th_as *as,
				 uint64_t *code)
{
	struct testhost *th = th_new(mem_bytes);
	uint32_t gpu;

	th_device_new(th, c, c->gpus);
	if (executors && vg_device_executors(th->dev, true))
		th_die("vg_device_executors failed");
	vg_device_trace_keep(th->dev, true);
	th_as_init(th, as, va0);
	for (gpu = 0; gpu < c->gpus; gpu++) {
		th_gpu_setup(th, gpu, 16);
		th_set_root(th, gpu, 0, as);
	}
	*code = th_builtin(th, as, "stencil5");
	return th;
}

void ts_chain_kernels(struct split_geom *g, struct ts_kernel *k,
		      uint64_t code, uint32_t base, uint32_t extra)
{
	/* stencil5's arguments: the size, the hot quarter, the spins. */
	uint32_t args[10] = { g->width, g->height, 0, 0, 0, 0, extra,
			      g->width / 2, g->height / 2, base };
	uint32_t i;

	g->num_resources = g->num_kernels + 1;
	memset(k, 0, sizeof(*k) * g->num_kernels);
	for (i = 0; i < g->num_kernels; i++) {
		g->k[i].num_reads = 1;
		g->k[i].read[0] = i;
		g->k[i].radius[0][0] = g->k[i].radius[0][1] = 1;
		g->k[i].write = i + 1;
		k[i].code_va = code;
		k[i].args_bytes = sizeof(args);
		memcpy(k[i].args, args, sizeof(args));
		k[i].read_offset[0] = 8;
		k[i].write_offset = 16;
	}
}

void ts_chain_fill(struct ts_split *t)
{
	uint32_t n = t->plan.g.width * t->plan.g.height, gpu, i;

	for (gpu = 0; gpu < t->plan.g.gpus; gpu++) {
		float *in = th_va(t->th, t->as, t->res_va[0][gpu]);

		for (i = 0; i < n; i++)
			in[i] = (float)((i * 2654435761u) >> 20);
	}
}

const struct ts_chain_run ts_chain_runs[TS_CHAIN_RUNS] = {
	{ "(a) barrier+copy-all", VMGPU_SPLIT_BARRIER, 0, 0 },
	{ "(b) copy overlapped", VMGPU_SPLIT_OVERLAP, 0, 0 },
	{ "(c) per-portion", VMGPU_SPLIT_PORTION, 0, 0 },
	{ "(d) per-region", VMGPU_SPLIT_REGION, VMGPU_MOVE_PULL, 0 },
	{ "(d) region push", VMGPU_SPLIT_REGION, VMGPU_MOVE_PUSH, 0 },
	{ "(d) region prefetch", VMGPU_SPLIT_REGION, VMGPU_MOVE_PREFETCH, 0 },
	{ "(d) region remote", VMGPU_SPLIT_REGION, VMGPU_MOVE_REMOTE, 0 },
	{ "(d) region hybrid", VMGPU_SPLIT_REGION, VMGPU_MOVE_HYBRID, 0 },
	{ "(c) dynamic, 8x8", VMGPU_SPLIT_PORTION, 0, VMGPU_SPLIT_DYNAMIC },
};
