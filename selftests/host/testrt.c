// SPDX-License-Identifier: GPL-2.0-only
/*
 * The runtime's GPU back end on the host tests' device model (testrt.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testrt.h"
#include "vmgpu_cmd.h"

#define TRT_VA0		0x100000000ull
#define TRT_RW		(VMGPU_PTE_READ | VMGPU_PTE_WRITE)

struct trt *trt_new(unsigned int gpus, unsigned int sms, unsigned int mem_mb)
{
	struct trt *t = calloc(1, sizeof(*t));
	unsigned int g;

	if (!t)
		th_die("out of memory");
	t->th = th_new((uint64_t)mem_mb << 20);
	vg_config_defaults(&t->cfg);
	t->cfg.gpus = gpus;
	if (sms)
		t->cfg.sms = sms;
	th_device_new(t->th, &t->cfg, gpus);
	th_as_init(t->th, &t->as, TRT_VA0);
	for (g = 0; g < gpus; g++) {
		th_gpu_setup(t->th, g, 64);
		th_set_root(t->th, g, 0, &t->as);
		t->cb_va[g] = th_as_alloc(t->th, &t->as, 4096, TRT_RW);
		t->args_va[g] = th_as_alloc(t->th, &t->as, 4096, TRT_RW);
		t->stamp_va[g] = th_as_alloc(t->th, &t->as, 4096, TRT_RW);
	}
	return t;
}

void trt_free(struct trt *t)
{
	if (!t)
		return;
	th_free(t->th);
	free(t);
}

static int trt_count(void *be)
{
	struct trt *t = be;

	return (int)t->cfg.gpus;
}

static int trt_query(void *be, uint32_t gpu, struct vmgpu_rt_caps *c)
{
	struct trt *t = be;

	if (gpu >= t->cfg.gpus)
		return -ENODEV;
	memset(c, 0, sizeof(*c));
	c->type = VMGPU_RT_TYPE_GPU;
	strcpy(c->vendor, "vmgpu");
	snprintf(c->name, sizeof(c->name), "vmgpu model GPU %u", gpu);
	c->isa_version = t->cfg.isa_version;
	c->compute_units = t->cfg.sms;
	c->warp_width = VMGPU_WARP_SIZE;
	c->clock_khz = t->cfg.clock_khz;
	c->local_mem_mb = t->cfg.local_mem_mb;
	c->shared_mem_per_block = VMGPU_MAX_SHARED_BYTES;
	c->max_block_threads = VMGPU_MAX_BLOCK_THREADS;
	c->fp64 = 0;
	c->host_bw_mbps = t->cfg.host_bw_mbps;
	c->host_lat_ns = t->cfg.host_lat_ns;
	c->peer_bw_mbps = t->cfg.link_bw_mbps;
	c->peer_lat_ns = t->cfg.link_lat_ns;
	return 0;
}

static int trt_mem_alloc(void *be, uint32_t gpu, uint64_t bytes,
			 uint64_t *gpu_va, void **host)
{
	struct trt *t = be;

	if (gpu >= t->cfg.gpus)
		return -ENODEV;
	if (bytes + 8192 > t->th->mem_bytes - t->th->next_page)
		return -ENOMEM;
	*gpu_va = th_as_alloc(t->th, &t->as, bytes,
			      TRT_RW | VMGPU_PTE_LOC(VMGPU_LOC_GPU(gpu)));
	/* th_as_alloc's pages are contiguous in the fake guest memory. */
	*host = th_va(t->th, &t->as, *gpu_va);
	return 0;
}

static void trt_mem_free(void *be, uint32_t gpu, uint64_t gpu_va)
{
}

static int trt_kernel_load(void *be, uint32_t gpu, const void *image,
			   size_t bytes, uint64_t *code)
{
	struct trt *t = be;

	if (bytes + 8192 > t->th->mem_bytes - t->th->next_page)
		return -ENOMEM;
	*code = th_upload(t->th, &t->as, image, bytes);
	return 0;
}

static int trt_run(void *be, uint32_t gpu, const struct vmgpu_rt_launch_desc *l,
		   uint64_t *device_ns, uint32_t *fault)
{
	struct trt *t = be;
	struct th_cmdbuf *cb = malloc(sizeof(*cb));
	uint64_t *stamp = th_va(t->th, &t->as, t->stamp_va[gpu]);
	uint32_t status;

	if (!cb)
		return -ENOMEM;
	if (l->args_bytes > 4096) {
		free(cb);
		return -E2BIG;
	}
	memcpy(th_va(t->th, &t->as, t->args_va[gpu]), l->args, l->args_bytes);
	th_cb_init(cb);
	th_cb_timestamp(cb, t->stamp_va[gpu]);
	TH_CB_PUT(cb, vmgpu_encode_dispatch(l->code, t->args_va[gpu],
					    l->args_bytes, l->grid, l->block,
					    l->origin, l->grid_total,
					    l->shared_bytes, 0));
	th_cb_barrier(cb);
	th_cb_timestamp(cb, t->stamp_va[gpu] + 8);
	th_cb_end(cb);
	memcpy(th_va(t->th, &t->as, t->cb_va[gpu]), cb->w, cb->n * 4);
	stamp[0] = stamp[1] = 0;
	th_push(t->th, gpu, t->cb_va[gpu], cb->n * 4, ++t->seqno[gpu],
		VMGPU_RING_F_IRQ, 0, 0);
	free(cb);
	th_doorbell(t->th, gpu);
	vg_device_run(t->th->dev);
	if (th_fence_mem(t->th, gpu) != t->seqno[gpu])
		return -EIO;
	status = th_rd(t->th, gpu, VMGPU_GPU_INT_STATUS);
	*fault = VMGPU_FAULT_NONE;
	if (status & VMGPU_INT_ERROR_MASK)
		*fault = th_rd(t->th, gpu, VMGPU_GPU_ERR_CODE);
	th_ack_all(t->th, gpu);
	*device_ns = stamp[1] > stamp[0] ? stamp[1] - stamp[0] : 0;
	t->runs++;
	if (t->spike_period && t->runs % t->spike_period == 0) {
		*device_ns *= t->spike_factor;
		t->spikes++;
	} else if (t->spike_first_mask & (1u << gpu)) {
		unsigned int i;

		for (i = 0; i < 32; i++)
			if (!t->seen[gpu][i].code ||
			    (t->seen[gpu][i].code == l->code &&
			     t->seen[gpu][i].grid == l->grid[0]))
				break;
		if (i < 32) {
			t->seen[gpu][i].code = l->code;
			t->seen[gpu][i].grid = l->grid[0];
			if (t->seen[gpu][i].runs++ < t->spike_first) {
				*device_ns *= t->spike_factor;
				t->spikes++;
			}
		}
	}
	return 0;
}

static const struct vmgpu_rt_gpu_ops trt_ops = {
	.count = trt_count,
	.query = trt_query,
	.mem_alloc = trt_mem_alloc,
	.mem_free = trt_mem_free,
	.kernel_load = trt_kernel_load,
	.run = trt_run,
};

struct vmgpu_rt_backend trt_backend(struct trt *t)
{
	return (struct vmgpu_rt_backend){ .ops = &trt_ops, .opaque = t };
}
