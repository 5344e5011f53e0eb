// SPDX-License-Identifier: MIT
/*
 * libvmgpu-opencl: the multi-GPU device, "all GPUs as one" (issue 23
 * item 5; Documentation/opencl.rst, *The multi-GPU device*). With two
 * GPUs or more the platform has one more GPU device, after the GPUs and
 * before the CPU device: a context with it is a runtime context over
 * every GPU, and a kernel enqueued on a queue of it is a split instance
 * (VMGPU_RT_INSTANCE_SPLIT, runtime.rst P7): its grid cut along x into
 * one portion per GPU, run at once, the bytes each portion wrote merged
 * — unless its code shows what a split cannot give bit for bit
 * (vmgpu_rt_kernel_split_hazards: global atomics, device-side work),
 * then it runs whole on one GPU as on any GPU device. Buffers are the
 * runtime's: replicated on each GPU a portion runs on, so the device's
 * memory is what one buffer can be, the smallest GPU's.
 */
#include <stdio.h>
#include <string.h>

#include "opencl_internal.h"

#define MIN(a, b)	((a) < (b) ? (a) : (b))

void vcl_multigpu_init(struct _cl_platform_id *p, struct _cl_device_id *d,
		       uint32_t ngpus)
{
	const struct vmgpu_rt_caps *g0 = &p->devices[0].caps;
	struct vmgpu_rt_caps *c = &d->caps;
	uint32_t i;

	d->dispatch = &vcl_dispatch;
	d->o.kind = VCL_DEVICE;
	d->o.refs = 1;
	d->platform = p;
	d->phys = p->devices[0].phys;
	d->type = CL_DEVICE_TYPE_GPU;
	d->multi = ngpus;
	*c = *g0;
	c->compute_units = 0;
	/* What every GPU has: the least of each; units: all of them. */
	for (i = 0; i < ngpus; i++) {
		const struct vmgpu_rt_caps *g = &p->devices[i].caps;

		c->compute_units += g->compute_units;
		c->isa_version = MIN(c->isa_version, g->isa_version);
		c->warp_width = MIN(c->warp_width, g->warp_width);
		c->clock_khz = MIN(c->clock_khz, g->clock_khz);
		c->local_mem_mb = MIN(c->local_mem_mb, g->local_mem_mb);
		c->shared_mem_per_block = MIN(c->shared_mem_per_block,
					      g->shared_mem_per_block);
		c->max_block_threads = MIN(c->max_block_threads,
					   g->max_block_threads);
		c->fp64 = MIN(c->fp64, g->fp64);
	}
	snprintf(c->name, sizeof(c->name), "vmgpu \xc3\x97%u (GPUs %u-%u as one)",
		 ngpus, p->devices[0].phys, p->devices[ngpus - 1].phys);
}

cl_uint vcl_device_phys(const struct _cl_device_id *d, uint32_t *phys)
{
	cl_uint i;

	if (!d->multi) {
		phys[0] = d->phys;
		return 1;
	}
	for (i = 0; i < d->multi; i++)
		phys[i] = d->platform->devices[i].phys;
	return d->multi;
}

uint32_t vcl_split_flags(const struct _cl_command_queue *q,
			 const struct _cl_kernel *k)
{
	struct _cl_platform_id *p = q->ctx->platform;
	uint32_t hazards;

	if (!q->device->multi ||
	    vmgpu_rt_kernel_split_hazards(p->rt, k->k, &hazards) || hazards)
		return 0;
	return VMGPU_RT_INSTANCE_SPLIT;
}
