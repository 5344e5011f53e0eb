// SPDX-License-Identifier: MIT
/*
 * libvmgpurt's GPU back end over a render node, through libvmgpu: the
 * GPUs of one vmgpu device (vmgpu_device_open()), one libvmgpu context,
 * each buffer copy a buffer object in the GPU's local memory
 * (VMGPU_PLACEMENT_GPU), each dispatch one packet between two TIMESTAMPs
 * whose difference is the instance's device time, waited for on a
 * syncobj. vmgpu_rt_create() without back ends opens one per render node.
 *
 * Every buffer the back end holds is declared to every packet: the
 * runtime runs one instance at a time per back end, so the implicit
 * fences this adds never wait for anything but the previous packet.
 * The driver does not report the host bus and link figures placement
 * prices transfers with: the device model's defaults are used
 * (Documentation/runtime.rst). A packet that fails bans the libvmgpu
 * context (library.rst); the back end then makes a new one.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt_internal.h"

#define RT_DRM_WAIT_NS		(10ll * 1000 * 1000 * 1000)

struct rt_drm {
	struct vmgpu_device *dev;
	struct vmgpu_context *ctx;
	struct vmgpu_info info;
	struct vmgpu_bo *stamps;
	uint64_t *stamp;
	uint32_t syncobj;
	struct vmgpu_bo **bos;		/* buffers and kernels */
	uint8_t *is_kernel;
	uint32_t nbos, cap_bos;
};

void rt_drm_free(struct rt_drm *d)
{
	uint32_t i;

	if (!d)
		return;
	for (i = 0; i < d->nbos; i++)
		vmgpu_bo_destroy(d->bos[i]);
	vmgpu_bo_destroy(d->stamps);
	if (d->syncobj)
		vmgpu_syncobj_destroy(d->dev, d->syncobj);
	vmgpu_context_destroy(d->ctx);
	vmgpu_device_close(d->dev);
	free(d->bos);
	free(d->is_kernel);
	free(d);
}

int rt_drm_open(unsigned int index, struct rt_drm **out)
{
	struct rt_drm *d = calloc(1, sizeof(*d));
	void *p;
	int r;

	if (!d)
		return -ENOMEM;
	r = vmgpu_device_open(index, &d->dev, NULL, 0);
	if (!r)
		r = vmgpu_device_query(d->dev, &d->info);
	if (!r)
		r = vmgpu_context_create(d->dev, VMGPU_PRIORITY_NORMAL,
					 &d->ctx);
	if (!r)
		r = vmgpu_syncobj_create(d->dev, &d->syncobj);
	if (!r)
		r = vmgpu_bo_create(d->dev, 4096, 0, VMGPU_PLACEMENT_SYSTEM,
				    &d->stamps);
	if (!r)
		r = vmgpu_bo_map(d->stamps, &p);
	if (r) {
		rt_drm_free(d);
		return r;
	}
	d->stamp = p;
	*out = d;
	return 0;
}

static int drm_keep(struct rt_drm *d, struct vmgpu_bo *bo, bool kernel)
{
	uint32_t cap = d->cap_bos;

	if (vmgpu_grow((void **)&d->bos, &d->cap_bos, d->nbos + 1,
		    sizeof(*d->bos)))
		return -ENOMEM;
	if (d->cap_bos != cap || !d->is_kernel) {
		uint8_t *k = realloc(d->is_kernel, d->cap_bos);

		if (!k)
			return -ENOMEM;
		d->is_kernel = k;
	}
	d->bos[d->nbos] = bo;
	d->is_kernel[d->nbos++] = kernel;
	return 0;
}

static int drm_count(void *be)
{
	struct rt_drm *d = be;

	return (int)d->info.num_gpus;
}

static int drm_query(void *be, uint32_t gpu, struct vmgpu_rt_caps *c)
{
	struct rt_drm *d = be;

	if (gpu >= d->info.num_gpus)
		return -ENODEV;
	memset(c, 0, sizeof(*c));
	c->type = VMGPU_RT_TYPE_GPU;
	strcpy(c->vendor, "vmgpu");
	snprintf(c->name, sizeof(c->name), "%.40s GPU %u", d->info.node, gpu);
	c->isa_version = d->info.isa_version;
	c->compute_units = d->info.sms_per_gpu;
	c->warp_width = d->info.warp_size;
	c->clock_khz = d->info.clock_khz;
	c->local_mem_mb = d->info.local_mem_mb;
	c->shared_mem_per_block = VMGPU_MAX_SHARED_BYTES;
	c->max_block_threads = VMGPU_MAX_BLOCK_THREADS;
	c->fp64 = 0;
	/* the device model's defaults (config.h): not reported */
	c->host_bw_mbps = 25000;
	c->host_lat_ns = 1500;
	c->peer_bw_mbps = 300000;
	c->peer_lat_ns = 1000;
	return 0;
}

static int drm_mem_alloc(void *be, uint32_t gpu, uint64_t bytes,
			 uint64_t *gpu_va, void **host)
{
	struct rt_drm *d = be;
	struct vmgpu_bo *bo;
	int r;

	r = vmgpu_bo_create(d->dev, bytes, 0, VMGPU_PLACEMENT_GPU(gpu), &bo);
	if (r)
		return r;
	r = vmgpu_bo_map(bo, host);
	if (!r)
		r = drm_keep(d, bo, false);
	if (r) {
		vmgpu_bo_destroy(bo);
		return r;
	}
	*gpu_va = vmgpu_bo_gpu_va(bo);
	return 0;
}

static int drm_find(struct rt_drm *d, uint64_t va)
{
	uint32_t i;

	for (i = 0; i < d->nbos; i++)
		if (vmgpu_bo_gpu_va(d->bos[i]) == va)
			return (int)i;
	return -1;
}

static void drm_mem_free(void *be, uint32_t gpu, uint64_t gpu_va)
{
	struct rt_drm *d = be;
	int i = drm_find(d, gpu_va);

	if (i < 0)
		return;
	vmgpu_bo_destroy(d->bos[i]);
	d->bos[i] = d->bos[--d->nbos];
	d->is_kernel[i] = d->is_kernel[d->nbos];
}

static int drm_kernel_load(void *be, uint32_t gpu, const void *image,
			   size_t bytes, uint64_t *code)
{
	struct rt_drm *d = be;
	struct vmgpu_bo *bo;
	int r = vmgpu_kernel_create(d->dev, image, bytes, &bo);

	if (r)
		return r;
	r = drm_keep(d, bo, true);
	if (r) {
		vmgpu_bo_destroy(bo);
		return r;
	}
	*code = vmgpu_bo_gpu_va(bo);
	return 0;
}

static int drm_run(void *be, uint32_t gpu, const struct vmgpu_rt_launch_desc *l,
		   uint64_t *device_ns, uint32_t *fault)
{
	struct rt_drm *d = be;
	struct vmgpu_dispatch_desc dd = {
		.args = l->args, .args_bytes = l->args_bytes,
		.shared_bytes = l->shared_bytes,
	};
	struct vmgpu_sync out = { .handle = d->syncobj };
	struct vmgpu_submit_info si = {
		.gpu = gpu, .out = &out, .out_count = 1,
	};
	struct vmgpu_cmdbuf *cb = NULL;
	uint32_t i;
	int k = drm_find(d, l->code), r;

	if (k < 0 || !d->is_kernel[k])
		return -EINVAL;
	dd.kernel = d->bos[k];
	for (i = 0; i < 3; i++) {
		dd.grid[i] = l->grid[i];
		dd.block[i] = l->block[i];
		dd.origin[i] = l->origin[i];
		dd.grid_total[i] = l->grid_total[i];
	}
	r = vmgpu_cmdbuf_create(d->dev, &cb);
	for (i = 0; !r && i < d->nbos; i++)
		if (!d->is_kernel[i])
			r = vmgpu_cmdbuf_use(cb, d->bos[i], 0);
	if (!r)
		r = vmgpu_cmdbuf_use(cb, d->stamps, 0);
	if (!r)
		r = vmgpu_cmdbuf_dispatch(cb, &dd);
	if (r >= 0)
		r = vmgpu_cmdbuf_barrier(cb);
	/* the dispatch's first block issued .. last done, as traced */
	if (!r)
		r = vmgpu_cmdbuf_dispatch_span(cb, d->stamps, 0);
	if (!r)
		r = vmgpu_submit(d->ctx, cb, &si);
	vmgpu_cmdbuf_destroy(cb);
	if (r < 0)
		return r;
	r = vmgpu_syncobj_wait(d->dev, d->syncobj, 0, RT_DRM_WAIT_NS);
	*fault = VMGPU_FAULT_NONE;
	*device_ns = d->stamp[1] > d->stamp[0] ? d->stamp[1] - d->stamp[0] : 0;
	if (!r)
		return 0;
	if (r == -EFAULT)
		*fault = VMGPU_FAULT_UNMAPPED;
	else if (r == -ETIMEDOUT)
		*fault = VMGPU_FAULT_BUDGET;
	else if (r == -ENOEXEC)
		*fault = VMGPU_FAULT_BAD_EXECUTABLE;
	else
		return r;
	/* The failed packet banned the context: a new one. */
	vmgpu_context_destroy(d->ctx);
	d->ctx = NULL;
	return vmgpu_context_create(d->dev, VMGPU_PRIORITY_NORMAL, &d->ctx);
}

const struct vmgpu_rt_gpu_ops rt_drm_ops = {
	.count = drm_count,
	.query = drm_query,
	.mem_alloc = drm_mem_alloc,
	.mem_free = drm_mem_free,
	.kernel_load = drm_kernel_load,
	.run = drm_run,
};
