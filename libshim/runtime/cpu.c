// SPDX-License-Identifier: MIT
/*
 * libvmgpurt's CPU device (SPEC P6): the same executables as the GPUs,
 * run in the application's process by the device model's ISA
 * interpreter (qemu-device/core/interp.c) on worker threads, one thread
 * block at a time per worker, each block's global stores applied when it
 * ends (its store log), as an SM does.
 *
 * Cost model, on the virtual clock (Documentation/runtime.rst): the CPU
 * is RT_CPU_CORES = the worker count of cores at RT_CPU_CLOCK_KHZ, each
 * running RT_CPU_LANES 32-bit lanes per cycle (AVX2) and moving
 * RT_CPU_CORE_BPNS bytes per ns. A block costs
 *   RT_CPU_BLOCK_NS + ceil(thread instructions / lanes) cycles
 *   + global bytes / RT_CPU_CORE_BPNS,
 * from the interpreter's counts of that block; blocks go to cores in
 * index order, each to the least loaded one, and the launch takes
 * RT_CPU_LAUNCH_NS + the most loaded core's time. The counts, not the
 * host's wall time, make it: the same launch costs the same on any host,
 * and a GPU (4 SMs x 4 warp instructions x 32 lanes at 1.5 GHz) is about
 * 8 times the throughput of 4 such cores, as a discrete GPU is to a
 * desktop CPU.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/interp.h"
#include "core/kernel.h"
#include "rt_internal.h"

#define RT_CPU_CLOCK_KHZ	3000000u
#define RT_CPU_LANES		8u
#define RT_CPU_CORE_BPNS	10u		/* 10 GB/s per core */
#define RT_CPU_BLOCK_NS		50u
#define RT_CPU_LAUNCH_NS	5000u

struct rt_cpu;

struct rt_worker {
	struct rt_cpu *c;
	pthread_t thread;
	uint32_t index;
	struct vg_interp *it;
	struct vg_storelog *log;
};

struct rt_cpu {
	uint32_t n;
	struct rt_worker *w;
	pthread_mutex_t lock;
	pthread_cond_t go, idle;
	bool stop;
	uint64_t job;			/* bumped for each launch */
	uint32_t busy;			/* workers on the current launch */
	/* the current launch */
	const struct rt_cpu_launch *l;
	struct vg_launch vl;
	struct vg_memif memif;
	uint64_t nblocks;
	uint64_t next_block;		/* atomic */
	uint64_t budget;		/* atomic, warp instructions left */
	uint64_t budget0;		/* per launch */
	uint64_t *cost;			/* ns per block */
	uint32_t fault;			/* first fault, atomic */
};

static int cpu_translate(void *opaque, uint64_t va, bool write,
			 struct vg_xlat *out)
{
	const struct rt_cpu_launch *l = opaque;
	uint32_t lo = 0, hi = l->nranges;

	while (lo < hi) {
		uint32_t mid = (lo + hi) / 2;
		const struct rt_cpu_range *r = &l->ranges[mid];

		if (va < r->va) {
			hi = mid;
		} else if (va - r->va >= r->bytes) {
			lo = mid + 1;
		} else {
			uint64_t page = (va - r->va) & ~4095ull;

			if (write && !r->write)
				return VMGPU_FAULT_PERMISSION;
			out->host = r->host + page;
			out->page_va = r->va + page;
			out->loc = VMGPU_LOC_SYSTEM;
			out->writable = r->write;
			return VMGPU_FAULT_NONE;
		}
	}
	return VMGPU_FAULT_UNMAPPED;
}

static void cpu_blocks(struct rt_worker *w)
{
	struct rt_cpu *c = w->c;
	const struct vg_launch *l = &c->vl;

	for (;;) {
		uint64_t i = __atomic_fetch_add(&c->next_block, 1,
						__ATOMIC_RELAXED);
		struct vg_block_stats st = { 0 };
		struct vg_fault_info f = { 0 };
		uint64_t before, budget, bytes = 0;
		uint32_t pos[3], k;

		if (i >= c->nblocks ||
		    __atomic_load_n(&c->fault, __ATOMIC_RELAXED))
			return;
		pos[0] = i % l->grid[0];
		pos[1] = (i / l->grid[0]) % l->grid[1];
		pos[2] = i / ((uint64_t)l->grid[0] * l->grid[1]);
		before = budget = __atomic_load_n(&c->budget, __ATOMIC_RELAXED);
		vg_storelog_begin(w->log);
		if (vg_interp_run_block(w->it, l, pos, w->index, w->log, &budget,
					&st, &f)) {
			uint32_t none = 0;

			vg_storelog_discard(w->log);
			__atomic_compare_exchange_n(&c->fault, &none,
						    f.code ? f.code :
						    VMGPU_FAULT_BAD_EXECUTABLE,
						    false, __ATOMIC_SEQ_CST,
						    __ATOMIC_SEQ_CST);
			return;
		}
		vg_storelog_apply(w->log);
		__atomic_fetch_sub(&c->budget, before - budget,
				   __ATOMIC_RELAXED);
		for (k = 0; k < VMGPU_LOC_COUNT; k++)
			bytes += st.bytes[k];
		c->cost[i] = RT_CPU_BLOCK_NS +
			     ((st.thread_instrs + RT_CPU_LANES - 1) /
			      RT_CPU_LANES) * 1000000 / RT_CPU_CLOCK_KHZ +
			     bytes / RT_CPU_CORE_BPNS;
	}
}

static void *cpu_worker(void *arg)
{
	struct rt_worker *w = arg;
	struct rt_cpu *c = w->c;
	uint64_t seen = 0;

	pthread_mutex_lock(&c->lock);
	for (;;) {
		while (!c->stop && c->job == seen)
			pthread_cond_wait(&c->go, &c->lock);
		if (c->stop)
			break;
		seen = c->job;
		pthread_mutex_unlock(&c->lock);
		cpu_blocks(w);
		pthread_mutex_lock(&c->lock);
		if (!--c->busy)
			pthread_cond_broadcast(&c->idle);
	}
	pthread_mutex_unlock(&c->lock);
	return NULL;
}

void rt_cpu_free(struct rt_cpu *c)
{
	uint32_t i;

	if (!c)
		return;
	pthread_mutex_lock(&c->lock);
	c->stop = true;
	pthread_cond_broadcast(&c->go);
	pthread_mutex_unlock(&c->lock);
	for (i = 0; i < c->n; i++) {
		if (c->w[i].thread)
			pthread_join(c->w[i].thread, NULL);
		vg_interp_free(c->w[i].it);
		vg_storelog_free(c->w[i].log);
	}
	pthread_cond_destroy(&c->go);
	pthread_cond_destroy(&c->idle);
	pthread_mutex_destroy(&c->lock);
	free(c->w);
	free(c);
}

int rt_cpu_new(uint32_t threads, uint64_t *budget, const char **from,
	       struct rt_cpu **out)
{
	struct rt_cpu *c = calloc(1, sizeof(*c));
	const char *env = getenv("VMGPU_RT_CPU_BUDGET");
	uint32_t i;

	if (!c)
		return -ENOMEM;
	*from = "vmgpu_rt_config.cpu_budget";
	if (!*budget && env && *env) {
		char *end;
		unsigned long long v = strtoull(env, &end, 0);

		if (*end || !v) {
			free(c);
			return -EINVAL;
		}
		*budget = v;
		*from = "VMGPU_RT_CPU_BUDGET";
	}
	if (!*budget)
		*budget = VMGPU_RT_CPU_BUDGET_DEFAULT;
	c->budget0 = *budget;
	pthread_mutex_init(&c->lock, NULL);
	pthread_cond_init(&c->go, NULL);
	pthread_cond_init(&c->idle, NULL);
	c->w = calloc(threads, sizeof(*c->w));
	if (!c->w) {
		rt_cpu_free(c);
		return -ENOMEM;
	}
	c->n = threads;
	for (i = 0; i < threads; i++) {
		struct rt_worker *w = &c->w[i];

		w->c = c;
		w->index = i;
		w->it = vg_interp_new();
		w->log = vg_storelog_new();
		if (!w->it || !w->log ||
		    pthread_create(&w->thread, NULL, cpu_worker, w)) {
			w->thread = 0;
			rt_cpu_free(c);
			return -ENOMEM;
		}
	}
	*out = c;
	return 0;
}

void rt_cpu_caps(const struct rt_cpu *c, struct vmgpu_rt_caps *caps)
{
	memset(caps, 0, sizeof(*caps));
	caps->type = VMGPU_RT_TYPE_CPU;
	strcpy(caps->vendor, "vmgpu");
	strcpy(caps->name, "vmgpu CPU device (ISA interpreter)");
	caps->isa_version = VMGPU_ISA_VERSION;
	caps->compute_units = c->n;
	caps->warp_width = RT_CPU_LANES;
	caps->clock_khz = RT_CPU_CLOCK_KHZ;
	caps->local_mem_mb = 0;
	caps->shared_mem_per_block = VMGPU_MAX_SHARED_BYTES;
	caps->max_block_threads = VMGPU_MAX_BLOCK_THREADS;
	caps->fp64 = 0;
}

int rt_cpu_run(struct rt_cpu *c, const struct rt_cpu_launch *l,
	       uint64_t *device_ns, uint32_t *fault)
{
	uint64_t nblocks = 1, *core, i, max = 0;
	uint32_t k, j;

	for (k = 0; k < 3; k++)
		nblocks *= l->grid[k];
	if (!nblocks || nblocks > VMGPU_MAX_GRID_BLOCKS)
		return -EINVAL;
	c->cost = calloc(nblocks, sizeof(*c->cost));
	core = calloc(c->n, sizeof(*core));
	if (!c->cost || !core) {
		free(c->cost);
		free(core);
		c->cost = NULL;
		return -ENOMEM;
	}
	memset(&c->vl, 0, sizeof(c->vl));
	c->vl.kernel = l->kernel;
	c->vl.args = l->args;
	c->vl.args_bytes = l->args_bytes;
	c->vl.shared_bytes = l->shared_bytes;
	for (k = 0; k < 3; k++) {
		c->vl.grid[k] = l->grid[k];
		c->vl.block[k] = l->block[k];
		c->vl.origin[k] = l->origin[k];
		c->vl.grid_total[k] = l->grid_total[k];
	}
	c->memif.translate = cpu_translate;
	c->memif.opaque = (void *)l;
	c->vl.mem = &c->memif;
	c->l = l;
	c->nblocks = nblocks;
	c->next_block = 0;
	c->budget = vg_budget_scaled(c->budget0, c->vl.grid, c->vl.block);
	c->fault = 0;

	pthread_mutex_lock(&c->lock);
	c->busy = c->n;
	c->job++;
	pthread_cond_broadcast(&c->go);
	while (c->busy)
		pthread_cond_wait(&c->idle, &c->lock);
	pthread_mutex_unlock(&c->lock);

	*fault = c->fault;
	/* Blocks in index order, each to the least loaded core. */
	for (i = 0; i < nblocks; i++) {
		uint32_t best = 0;

		for (j = 1; j < c->n; j++)
			if (core[j] < core[best])
				best = j;
		core[best] += c->cost[i];
	}
	for (j = 0; j < c->n; j++)
		if (core[j] > max)
			max = core[j];
	*device_ns = RT_CPU_LAUNCH_NS + max;
	free(core);
	free(c->cost);
	c->cost = NULL;
	return 0;
}
