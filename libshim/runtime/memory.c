// SPDX-License-Identifier: MIT
/*
 * libvmgpurt buffers (SPEC P3): host memory the application maps, and
 * copies in device memory made on demand. A buffer is valid on the host,
 * on some GPUs, or both; an instance that writes it leaves it valid only
 * where it ran. Moving it is real (the bytes are copied) and priced on
 * the virtual clock: host <-> GPU at the GPU's host bus (latency +
 * bytes / bandwidth), GPU -> GPU of one back end over the link, other
 * pairs through the host. The CPU device works on the host copy.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "rt_internal.h"

#define RT_PAGE		4096ull

void rt_buffer_free(struct vmgpu_rt *rt, struct rt_buffer *b)
{
	uint32_t d;

	for (d = 0; d < rt->nphys; d++) {
		const struct rt_phys *p = &rt->phys[d];

		if (b->copy[d].va && p->backend >= 0) {
			pthread_mutex_lock(&rt->be_lock);
			rt->backends[p->backend].ops->mem_free(
				rt->backends[p->backend].opaque, p->index,
				b->copy[d].va);
			pthread_mutex_unlock(&rt->be_lock);
		}
	}
	free(b->readers);
	free(b->host);
	free(b);
}

static void buffer_release(struct vmgpu_rt *rt, struct rt_obj *o)
{
	rt_buffer_free(rt, (struct rt_buffer *)o);
}

int rt_buffer_alloc(struct vmgpu_rt *rt, uint64_t bytes,
		    struct rt_buffer **out)
{
	struct rt_buffer *b;
	uint64_t alloc = (bytes + RT_PAGE - 1) & ~(RT_PAGE - 1);

	if (!bytes || bytes > (1ull << 40))
		return rt_err(rt, -EINVAL, "buffer of %llu bytes",
			      (unsigned long long)bytes);
	b = calloc(1, sizeof(*b));
	if (!b)
		return rt_err(rt, -ENOMEM, "out of memory");
	b->host = aligned_alloc(RT_PAGE, alloc);
	if (!b->host) {
		free(b);
		return rt_err(rt, -ENOMEM, "out of memory for %llu bytes",
			      (unsigned long long)bytes);
	}
	memset(b->host, 0, alloc);
	b->o.kind = RT_KIND_BUFFER;
	b->o.refs = 1;
	b->o.release = buffer_release;
	b->bytes = bytes;
	b->alloc_bytes = alloc;
	b->host_valid = true;
	/* CPU addresses: one unmapped page between buffers. */
	b->cpu_va = rt->next_cpu_va;
	rt->next_cpu_va += alloc + RT_PAGE;
	*out = b;
	return 0;
}

int vmgpu_rt_buffer_create(struct vmgpu_rt *rt, vmgpu_rt_handle ctx,
			   uint64_t bytes, vmgpu_rt_handle *buf)
{
	struct rt_buffer *b;
	struct rt_obj *o;
	int r;

	if (!rt || !buf)
		return -EINVAL;
	*buf = 0;
	pthread_mutex_lock(&rt->lock);
	r = rt_lookup(rt, ctx, RT_KIND_CONTEXT, &o);
	if (!r)
		r = rt_buffer_alloc(rt, bytes, &b);
	if (!r) {
		r = rt_handle_new(rt, &b->o, buf);
		if (r)
			rt_buffer_free(rt, b);
	}
	pthread_mutex_unlock(&rt->lock);
	return r;
}

static uint64_t xfer_ns(uint64_t bytes, uint32_t bw_mbps, uint32_t lat_ns)
{
	if (!bytes)
		return 0;
	if (!bw_mbps)
		bw_mbps = 1;
	/* MB/s = bytes per us: ns = bytes * 1000 / MB/s */
	return lat_ns + (bytes * 1000 + bw_mbps - 1) / bw_mbps;
}

/* A GPU holding a valid copy (the lowest), or -1. */
static int valid_gpu(struct vmgpu_rt *rt, const struct rt_buffer *b)
{
	uint32_t d;

	for (d = 0; d < rt->nphys; d++)
		if (d != rt->cpu && b->copy[d].valid)
			return (int)d;
	return -1;
}

uint64_t rt_transfer_estimate(struct vmgpu_rt *rt, const struct rt_buffer *b,
			      uint32_t phys, uint64_t *ns)
{
	const struct rt_phys *to = &rt->phys[phys];
	int src;

	*ns = 0;
	if (phys == rt->cpu) {
		if (b->host_valid)
			return 0;
		src = valid_gpu(rt, b);
		if (src < 0)
			return 0;
		*ns = xfer_ns(b->bytes, rt->phys[src].caps.host_bw_mbps,
			      rt->phys[src].caps.host_lat_ns);
		return b->bytes;
	}
	if (b->copy[phys].valid)
		return 0;
	if (b->host_valid) {
		*ns = xfer_ns(b->bytes, to->caps.host_bw_mbps,
			      to->caps.host_lat_ns);
		return b->bytes;
	}
	src = valid_gpu(rt, b);
	if (src < 0)
		return 0;
	if (rt->phys[src].backend == to->backend)
		*ns = xfer_ns(b->bytes, to->caps.peer_bw_mbps,
			      to->caps.peer_lat_ns);
	else
		*ns = xfer_ns(b->bytes, rt->phys[src].caps.host_bw_mbps,
			      rt->phys[src].caps.host_lat_ns) +
		      xfer_ns(b->bytes, to->caps.host_bw_mbps,
			      to->caps.host_lat_ns);
	return b->bytes;
}

static int ensure_copy(struct vmgpu_rt *rt, struct rt_buffer *b, uint32_t d)
{
	const struct rt_phys *p = &rt->phys[d];
	const struct vmgpu_rt_backend *be = &rt->backends[p->backend];
	int r;

	if (b->copy[d].va)
		return 0;
	pthread_mutex_lock(&rt->be_lock);
	r = be->ops->mem_alloc(be->opaque, p->index, b->alloc_bytes,
			       &b->copy[d].va, &b->copy[d].host);
	pthread_mutex_unlock(&rt->be_lock);
	if (r)
		return r;
	if (!b->copy[d].va || !b->copy[d].host)
		return -EIO;
	return 0;
}

int rt_buffer_to_host(struct vmgpu_rt *rt, struct rt_buffer *b)
{
	int src;

	if (b->host_valid)
		return 0;
	src = valid_gpu(rt, b);
	if (src < 0)
		return -EIO;
	memcpy(b->host, b->copy[src].host, b->bytes);
	b->host_valid = true;
	return 0;
}

int rt_buffer_make_valid(struct vmgpu_rt *rt, struct rt_buffer *b,
			 uint32_t phys, uint64_t *ns, uint64_t *moved)
{
	int r;

	*moved = rt_transfer_estimate(rt, b, phys, ns);
	if (phys == rt->cpu)
		return rt_buffer_to_host(rt, b);
	r = ensure_copy(rt, b, phys);
	if (r)
		return r;
	if (b->copy[phys].valid)
		return 0;
	if (!b->host_valid) {
		int src = valid_gpu(rt, b);

		if (src < 0)
			return -EIO;
		memcpy(b->copy[phys].host, b->copy[src].host, b->bytes);
	} else {
		memcpy(b->copy[phys].host, b->host, b->bytes);
	}
	b->copy[phys].valid = true;
	return 0;
}

uint64_t rt_buffer_va(struct vmgpu_rt *rt, const struct rt_buffer *b,
		      uint32_t phys)
{
	return phys == rt->cpu ? b->cpu_va : b->copy[phys].va;
}
