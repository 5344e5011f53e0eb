// SPDX-License-Identifier: MIT
/*
 * The multi-GPU splitter (vmgpu_split_*): checks a chain, plans it
 * (plan.c, the policy), keeps a copy of each per-GPU resource in its GPU's
 * memory and the dependency table in system memory, and turns each GPU's
 * operations into one command buffer per run.
 *
 * Lifetime: the split holds its own buffers; the kernels and shared
 * resources stay the caller's and must outlive it. One run at a time
 * (split->lock); the epoch goes up every run, so the table needs no
 * clearing and an entry of an earlier run never releases a wait.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "plan.h"
#include "shim_internal.h"
#include "vmgpu.h"
#include "vmgpu/split.h"

struct vmgpu_split {
	struct vmgpu_device *dev;
	struct vmgpu_split_desc desc;
	struct split_plan plan;
	struct vmgpu_bo *copy[VMGPU_SPLIT_MAX_RESOURCES][VMGPU_MAX_GPUS];
	struct vmgpu_bo *table;
	struct vmgpu_bo *stamps;	/* start, end (u64 ns) per GPU */
	/* Dynamic allocation: a task descriptor per kernel, take words. */
	struct vmgpu_bo *tmds, *takes, *args_bo;
	uint8_t *args[VMGPU_SPLIT_MAX_KERNELS][VMGPU_MAX_GPUS];
	struct vmgpu_cmdbuf *cb[VMGPU_MAX_GPUS];
	uint32_t sync[VMGPU_MAX_GPUS];
	pthread_mutex_t lock;		/* one run at a time */
	uint32_t epoch;
};

/* The buffer GPU @gpu reads and writes resource @r in. */
static struct vmgpu_bo *res_bo(const struct vmgpu_split *s, uint32_t r,
			       uint32_t gpu)
{
	return s->desc.resources[r] ? s->desc.resources[r] : s->copy[r][gpu];
}

static int check_desc(struct vmgpu_device *dev, const struct vmgpu_split_desc *d,
		      struct split_geom *g)
{
	uint64_t bytes = (uint64_t)d->width * d->height * 4;
	uint32_t k, i, r, offs[VMGPU_SPLIT_MAX_READS + 1], n;

	memset(g, 0, sizeof(*g));
	if (d->num_kernels > VMGPU_SPLIT_MAX_KERNELS ||
	    d->num_resources > VMGPU_SPLIT_MAX_RESOURCES)
		return shim_set_error(dev, -EINVAL,
				      "split: over %u kernels or %u resources",
				      VMGPU_SPLIT_MAX_KERNELS,
				      VMGPU_SPLIT_MAX_RESOURCES);
	if (d->gpus > dev->num_gpus)
		return shim_set_error(dev, -EINVAL,
				      "split: %u GPUs, the device has %u",
				      d->gpus, dev->num_gpus);
	for (r = 0; r < d->num_resources; r++) {
		const struct vmgpu_bo *bo = d->resources[r];

		if (bo && (bo->dev != dev || bo->size < bytes))
			return shim_set_error(dev, -EINVAL,
					      "split: resource %u is not a %llu-byte buffer of this device",
					      r, (unsigned long long)bytes);
		g->shared[r] = bo != NULL;
	}
	for (k = 0; k < d->num_kernels; k++) {
		const struct vmgpu_split_kernel *sk = &d->kernels[k];

		if (!sk->kernel || sk->kernel->dev != dev ||
		    (sk->args_bytes && !sk->args) ||
		    sk->args_bytes > VMGPU_MAX_ARGS_BYTES)
			return shim_set_error(dev, -EINVAL,
					      "split: kernel %u has no kernel or a bad argument block",
					      k);
		if (sk->num_reads > VMGPU_SPLIT_MAX_READS)
			return shim_set_error(dev, -EINVAL,
					      "split: kernel %u reads over %u resources",
					      k, VMGPU_SPLIT_MAX_READS);
		n = 0;
		offs[n++] = sk->write_args_offset;
		for (i = 0; i < sk->num_reads; i++)
			offs[n++] = sk->reads[i].args_offset;
		for (i = 0; i < n; i++)
			if (offs[i] % 4 || (uint64_t)offs[i] + 8 > sk->args_bytes)
				return shim_set_error(dev, -EINVAL,
						      "split: kernel %u: an address at %u is outside its %u-byte arguments",
						      k, offs[i], sk->args_bytes);
		g->k[k].num_reads = sk->num_reads;
		g->k[k].write = sk->write;
		g->k[k].flags = sk->flags;
		for (i = 0; i < sk->num_reads; i++) {
			g->k[k].read[i] = sk->reads[i].resource;
			g->k[k].radius[i][0] = sk->reads[i].radius[0];
			g->k[k].radius[i][1] = sk->reads[i].radius[1];
		}
	}
	g->width = d->width;
	g->height = d->height;
	g->block[0] = d->block[0];
	g->block[1] = d->block[1];
	g->num_kernels = d->num_kernels;
	g->num_resources = d->num_resources;
	g->gpus = d->gpus;
	g->mode = d->mode;
	g->movement = d->movement;
	g->portions[0] = d->portions[0];
	g->portions[1] = d->portions[1];
	g->region[0] = d->region[0];
	g->region[1] = d->region[1];
	g->allocation = d->allocation;
	return 0;
}

static void put_u64(uint8_t *p, uint64_t v)
{
	memcpy(p, &v, 8);	/* little-endian hosts only, as vmgpu_cmd.h */
}

/* Each kernel's argument block per GPU, with its resources' addresses. */
static int build_args(struct vmgpu_split *s)
{
	uint32_t k, g, i;

	for (k = 0; k < s->desc.num_kernels; k++) {
		const struct vmgpu_split_kernel *sk = &s->desc.kernels[k];

		for (g = 0; g < s->desc.gpus; g++) {
			uint8_t *a = malloc(sk->args_bytes ? sk->args_bytes : 1);

			if (!a)
				return -ENOMEM;
			s->args[k][g] = a;
			if (sk->args_bytes)
				memcpy(a, sk->args, sk->args_bytes);
			put_u64(a + sk->write_args_offset,
				vmgpu_bo_gpu_va(res_bo(s, sk->write, g)));
			for (i = 0; i < sk->num_reads; i++)
				put_u64(a + sk->reads[i].args_offset,
					vmgpu_bo_gpu_va(res_bo(s, sk->reads[i].resource,
							       g)));
		}
	}
	return 0;
}

/*
 * Dynamic allocation: each kernel's task descriptor (its grid one
 * portion; the resources are shared, so GPU 0's arguments serve all) and
 * the take words, zero (no epoch) to start.
 */
static int build_takes(struct vmgpu_split *s)
{
	const struct split_plan *p = &s->plan;
	struct vmgpu_bo *args;
	uint8_t *a, *t;
	uint32_t k;
	int ret;

	ret = vmgpu_bo_create(s->dev, (uint64_t)VMGPU_TMD_BYTES *
			      s->desc.num_kernels, VMGPU_BO_GPU_READ_ONLY,
			      VMGPU_PLACEMENT_SYSTEM, &s->tmds);
	if (!ret)
		ret = vmgpu_bo_create(s->dev, SPLIT_TAKE_OFFSET(p,
				      s->desc.num_kernels), 0,
				      VMGPU_PLACEMENT_SYSTEM, &s->takes);
	if (!ret)
		ret = vmgpu_bo_create(s->dev, (uint64_t)VMGPU_MAX_ARGS_BYTES *
				      s->desc.num_kernels,
				      VMGPU_BO_GPU_READ_ONLY,
				      VMGPU_PLACEMENT_SYSTEM, &args);
	if (ret)
		return ret;
	s->args_bo = args;
	ret = vmgpu_bo_map(s->tmds, (void **)&t);
	if (!ret)
		ret = vmgpu_bo_map(args, (void **)&a);
	if (ret)
		return ret;
	for (k = 0; k < s->desc.num_kernels; k++) {
		const struct vmgpu_split_kernel *sk = &s->desc.kernels[k];
		struct vmgpu_tmd d;

		memcpy(a + (size_t)k * VMGPU_MAX_ARGS_BYTES, s->args[k][0],
		       sk->args_bytes);
		memset(&d, 0, sizeof(d));
		d.code_va = vmgpu_bo_gpu_va(sk->kernel);
		d.args_va = sk->args_bytes ? vmgpu_bo_gpu_va(args) +
				(uint64_t)k * VMGPU_MAX_ARGS_BYTES : 0;
		d.args_bytes = sk->args_bytes;
		d.grid[0] = p->unit[0];
		d.grid[1] = p->unit[1];
		d.grid[2] = 1;
		d.block[0] = s->desc.block[0];
		d.block[1] = s->desc.block[1];
		d.block[2] = 1;
		d.grid_total[0] = p->blocks[0];
		d.grid_total[1] = p->blocks[1];
		d.grid_total[2] = 1;
		memcpy(t + (size_t)k * VMGPU_TMD_BYTES, &d, sizeof(d));
	}
	return 0;
}

/*
 * Put each page of a shared resource in the memory of the GPU that
 * writes its first pixel (runs of pages in one call).
 */
static int place_pages(struct vmgpu_split *s, struct vmgpu_bo *bo)
{
	uint64_t size = vmgpu_bo_size(bo), at, run = 0;
	uint32_t gpu = split_page_gpu(&s->plan, 0), g;
	int ret = 0;

	for (at = 0; !ret && at <= size; at += VMGPU_PAGE_SIZE) {
		g = at < size ? split_page_gpu(&s->plan, at) : UINT32_MAX;
		if (g == gpu)
			continue;
		ret = vmgpu_bo_place(bo, run, at - run, VMGPU_PLACEMENT_GPU(gpu));
		run = at;
		gpu = g;
	}
	return ret;
}

int vmgpu_split_create(struct vmgpu_device *dev,
		       const struct vmgpu_split_desc *desc,
		       struct vmgpu_split **out)
{
	uint64_t bytes;
	struct split_geom g;
	struct vmgpu_split *s;
	const char *why;
	uint32_t r, gpu;
	int ret;

	if (!dev || !desc || !out)
		return -EINVAL;
	*out = NULL;
	ret = check_desc(dev, desc, &g);
	if (ret)
		return ret;
	s = calloc(1, sizeof(*s));
	if (!s)
		return shim_set_error(dev, -ENOMEM, "split: out of memory");
	s->dev = dev;
	s->desc = *desc;
	pthread_mutex_init(&s->lock, NULL);
	ret = split_plan_build(&s->plan, &g, &why);
	if (ret) {
		free(s);
		return shim_set_error(dev, ret, "split: %s", why);
	}
	bytes = (uint64_t)desc->width * desc->height * 4;
	for (r = 0; !ret && r < desc->num_resources; r++) {
		if (desc->resources[r])
			continue;
		if (split_all_shared(&g)) {
			/* One buffer all GPUs use, in one GPU's memory, */
			ret = vmgpu_bo_create(dev, bytes, 0,
					      VMGPU_PLACEMENT_GPU(r % desc->gpus),
					      &s->copy[r][0]);
			for (gpu = 1; gpu < desc->gpus; gpu++)
				s->copy[r][gpu] = s->copy[r][0];
			/* or each page where it is written (R6 remote). */
			if (!ret && desc->allocation != VMGPU_SPLIT_DYNAMIC)
				ret = place_pages(s, s->copy[r][0]);
			continue;
		}
		for (gpu = 0; !ret && gpu < desc->gpus; gpu++)
			ret = vmgpu_bo_create(dev, bytes, 0,
					      VMGPU_PLACEMENT_GPU(gpu),
					      &s->copy[r][gpu]);
	}
	if (!ret)
		ret = vmgpu_bo_create(dev, (uint64_t)s->plan.entries *
				      VMGPU_DEP_ENTRY_BYTES, 0,
				      VMGPU_PLACEMENT_SYSTEM, &s->table);
	if (!ret)
		ret = vmgpu_bo_create(dev, SPLIT_STAMP_BYTES, 0,
				      VMGPU_PLACEMENT_SYSTEM, &s->stamps);
	if (!ret)
		ret = build_args(s);
	if (!ret && desc->allocation == VMGPU_SPLIT_DYNAMIC)
		ret = build_takes(s);
	for (gpu = 0; !ret && gpu < desc->gpus; gpu++) {
		ret = vmgpu_cmdbuf_create(dev, &s->cb[gpu]);
		if (!ret)
			ret = vmgpu_syncobj_create(dev, &s->sync[gpu]);
	}
	if (ret) {
		vmgpu_split_destroy(s);
		return ret;
	}
	*out = s;
	return 0;
}

void vmgpu_split_destroy(struct vmgpu_split *s)
{
	uint32_t r, g, k;

	if (!s)
		return;
	for (g = 0; g < VMGPU_MAX_GPUS; g++) {
		vmgpu_cmdbuf_destroy(s->cb[g]);
		if (s->sync[g])
			vmgpu_syncobj_destroy(s->dev, s->sync[g]);
		for (r = 0; r < VMGPU_SPLIT_MAX_RESOURCES; r++)
			if (!g || s->copy[r][g] != s->copy[r][0])
				vmgpu_bo_destroy(s->copy[r][g]);
		for (k = 0; k < VMGPU_SPLIT_MAX_KERNELS; k++)
			free(s->args[k][g]);
	}
	vmgpu_bo_destroy(s->table);
	vmgpu_bo_destroy(s->stamps);
	vmgpu_bo_destroy(s->tmds);
	vmgpu_bo_destroy(s->takes);
	vmgpu_bo_destroy(s->args_bo);
	split_plan_free(&s->plan);
	pthread_mutex_destroy(&s->lock);
	free(s);
}

/* Every buffer of the chain, declared: the GPUs order them themselves. */
static int declare(struct vmgpu_split *s, struct vmgpu_cmdbuf *cb)
{
	uint32_t r, g;
	int ret = vmgpu_cmdbuf_use(cb, s->table, VMGPU_USE_EXPLICIT);

	if (!ret)
		ret = vmgpu_cmdbuf_use(cb, s->stamps, VMGPU_USE_EXPLICIT);
	for (r = 0; !ret && r < s->desc.num_resources; r++) {
		for (g = 0; !ret && g < s->desc.gpus; g++) {
			ret = vmgpu_cmdbuf_use(cb, res_bo(s, r, g),
					       VMGPU_USE_EXPLICIT);
			if (s->desc.resources[r])
				break;
		}
	}
	for (r = 0; !ret && r < s->desc.num_kernels; r++)
		ret = vmgpu_cmdbuf_use(cb, s->desc.kernels[r].kernel,
				       VMGPU_USE_READ);
	if (!ret && s->takes)
		ret = vmgpu_cmdbuf_use(cb, s->takes, VMGPU_USE_EXPLICIT);
	if (!ret && s->args_bo)
		ret = vmgpu_cmdbuf_use(cb, s->args_bo, VMGPU_USE_READ);
	return ret;
}

/* The sink of one GPU's packet: vmgpu_cmdbuf calls. */
struct split_cb {
	struct vmgpu_split *s;
	struct vmgpu_cmdbuf *cb;
	uint32_t gpu;
};

static int cb_dispatch(void *ctx, uint32_t kernel, const uint32_t grid[3],
		       const uint32_t origin[3], const uint32_t total[3])
{
	struct split_cb *c = ctx;
	const struct vmgpu_split_kernel *sk = &c->s->desc.kernels[kernel];
	struct vmgpu_dispatch_desc d = {
		.kernel = sk->kernel,
		.args = c->s->args[kernel][c->gpu],
		.args_bytes = sk->args_bytes,
		.block = { c->s->desc.block[0], c->s->desc.block[1], 1 },
	};
	int ret;

	memcpy(d.grid, grid, sizeof(d.grid));
	memcpy(d.origin, origin, sizeof(d.origin));
	memcpy(d.grid_total, total, sizeof(d.grid_total));
	ret = vmgpu_cmdbuf_dispatch(c->cb, &d);
	return ret < 0 ? ret : 0;
}

static int cb_signal(void *ctx, uint32_t dispatch, uint32_t epoch,
		     uint32_t first_index, const uint32_t region[3])
{
	struct split_cb *c = ctx;
	struct vmgpu_dep_table t = { c->s->table, 0, c->s->plan.entries };

	return vmgpu_cmdbuf_dep_signal(c->cb, dispatch, epoch, &t, first_index,
				       region);
}

static int cb_wait(void *ctx, uint32_t epoch, uint32_t first_index,
		   const uint32_t grid[3], const uint32_t first[3],
		   const struct vmgpu_region_map *map)
{
	struct split_cb *c = ctx;
	struct vmgpu_dep_table t = { c->s->table, 0, c->s->plan.entries };
	const uint32_t one[3] = { 1, 1, 1 };

	return vmgpu_cmdbuf_dep_wait(c->cb, epoch, &t, first_index, grid,
				     grid, first, one, map);
}

static int cb_table_write(void *ctx, uint64_t offset, uint32_t value)
{
	struct split_cb *c = ctx;

	return vmgpu_cmdbuf_write_value(c->cb, c->s->table, offset, value);
}

static int cb_copy(void *ctx, uint32_t r, uint32_t src, uint32_t dst,
		   const struct vmgpu_copy_rect *rect, uint32_t epoch,
		   const struct split_copy_opts *async)
{
	struct split_cb *c = ctx;
	struct vmgpu_dep_ref after = { { c->s->table, 0, c->s->plan.entries },
				       0 };
	struct vmgpu_dep_ref signal = after;
	const struct vmgpu_dep_ref *a = NULL, *sg = NULL;

	if (!async)
		return vmgpu_cmdbuf_copy_rect(c->cb, res_bo(c->s, r, src),
					      res_bo(c->s, r, dst), rect);
	if (async->after != SPLIT_NO_ENTRY) {
		after.index = async->after;
		a = &after;
	}
	if (async->signal != SPLIT_NO_ENTRY) {
		signal.index = async->signal;
		sg = &signal;
	}
	if (async->replicate)
		return vmgpu_cmdbuf_replicate(c->cb, res_bo(c->s, r, src), rect,
					      epoch, a, sg);
	return vmgpu_cmdbuf_copy_async(c->cb, res_bo(c->s, r, src),
				       res_bo(c->s, r, dst), rect, epoch, a,
				       sg);
}

static int cb_barrier(void *ctx)
{
	struct split_cb *c = ctx;

	return vmgpu_cmdbuf_barrier(c->cb);
}

static int cb_timestamp(void *ctx, uint64_t offset)
{
	struct split_cb *c = ctx;

	return vmgpu_cmdbuf_timestamp(c->cb, c->s->stamps, offset);
}

static int cb_take(void *ctx, uint32_t kernel, uint32_t epoch,
		   uint64_t take_offset, uint32_t signal_index,
		   uint32_t wait_index, uint32_t inflight,
		   const uint32_t pgrid[3], const struct vmgpu_curve *curve,
		   const struct vmgpu_region_map *map)
{
	struct split_cb *c = ctx;
	struct vmgpu_take_desc t = {
		.epoch = epoch,
		.tmd_bo = c->s->tmds,
		.tmd_offset = (uint64_t)kernel * VMGPU_TMD_BYTES,
		.take_bo = c->s->takes,
		.take_offset = take_offset,
		.table = { c->s->table, 0, c->s->plan.entries },
		.signal_index = signal_index,
		.wait_index = wait_index,
		.inflight = inflight,
		.curve = *curve,
	};

	memcpy(t.pgrid, pgrid, sizeof(t.pgrid));
	if (map)
		t.map = *map;
	return vmgpu_cmdbuf_take(c->cb, &t);
}

static const struct split_sink cb_sink = {
	.dispatch = cb_dispatch,
	.signal = cb_signal,
	.wait = cb_wait,
	.table_write = cb_table_write,
	.copy = cb_copy,
	.barrier = cb_barrier,
	.timestamp = cb_timestamp,
	.take = cb_take,
};

static void stats_of(struct vmgpu_split *s, struct vmgpu_split_stats *st)
{
	const struct split_plan *p = &s->plan;
	uint64_t *t = NULL, first = UINT64_MAX, last = 0;
	uint32_t g, i;

	memset(st, 0, sizeof(*st));
	if (vmgpu_bo_map(s->stamps, (void **)&t))
		return;
	for (g = 0; g < s->desc.gpus; g++) {
		st->start_ns[g] = t[2 * g];
		st->end_ns[g] = t[2 * g + 1];
		if (t[2 * g] < first)
			first = t[2 * g];
		if (t[2 * g + 1] > last)
			last = t[2 * g + 1];
		for (i = 0; i < p->nops[g]; i++) {
			st->dispatches[g] += p->ops[g][i].kind == SPLIT_OP_DISPATCH;
			st->copies[g] += p->ops[g][i].kind == SPLIT_OP_COPY;
			st->waits[g] += p->ops[g][i].kind == SPLIT_OP_WAIT;
		}
	}
	st->makespan_ns = last > first ? last - first : 0;
}

int vmgpu_split_run(struct vmgpu_split *s, struct vmgpu_context *ctx,
		    int64_t timeout_ns, struct vmgpu_split_stats *stats)
{
	uint32_t g, i;
	int ret = 0, err;

	if (!s || !ctx || ctx->dev != s->dev)
		return -EINVAL;
	pthread_mutex_lock(&s->lock);
	s->epoch = vmgpu_dep_epoch_next(s->epoch);
	for (g = 0; !ret && g < s->desc.gpus; g++) {
		struct split_cb c = { s, s->cb[g], g };

		vmgpu_cmdbuf_reset(s->cb[g]);
		ret = declare(s, s->cb[g]);
		if (!ret)
			ret = split_plan_emit(&s->plan, g, s->epoch, &cb_sink, &c);
	}
	/* Every packet is built before any is submitted: all or none run. */
	pthread_mutex_lock(&s->dev->gang_lock);
	for (g = 0; !ret && g < s->desc.gpus; g++) {
		struct vmgpu_sync out = { s->sync[g], 0 };
		struct vmgpu_submit_info info = {
			.gpu = g, .out = &out, .out_count = 1,
		};

		ret = vmgpu_submit(ctx, s->cb[g], &info);
		if (ret > 0)
			ret = 0;
		if (ret) {
			/*
			 * GPUs already running would wait for this one's
			 * entries: their packets fail by the driver's
			 * timeout, not silently.
			 */
			break;
		}
	}
	pthread_mutex_unlock(&s->dev->gang_lock);
	for (i = 0; i < g; i++) {
		err = vmgpu_syncobj_wait(s->dev, s->sync[i], 0, timeout_ns);
		if (err && !ret)
			ret = err;
	}
	if (!ret && stats)
		stats_of(s, stats);
	pthread_mutex_unlock(&s->lock);
	return ret;
}
