// SPDX-License-Identifier: MIT
/*
 * libvmgpurt: the application's access to a buffer's bytes (map, unmap,
 * read, write). Each waits until no queued or running instance uses the
 * buffer the way the access would conflict with, so it sits above the
 * queues (queue.c) and the buffers' copies (memory.c), which it calls.
 */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "rt_internal.h"

/* Wait (rt->lock held) until no unfinished instance uses @b as @write says. */
static void wait_idle(struct vmgpu_rt *rt, struct rt_buffer *b, bool write)
{
	rt_flush_all(rt);
	while (b->writer || (write && b->nreaders))
		pthread_cond_wait(&rt->done, &rt->lock);
}

int vmgpu_rt_buffer_map(struct vmgpu_rt *rt, vmgpu_rt_handle buf,
			uint32_t flags, void **ptr)
{
	struct rt_buffer *b;
	struct rt_obj *o;
	uint32_t d;
	int r;

	if (!rt || !ptr)
		return -EINVAL;
	*ptr = NULL;
	pthread_mutex_lock(&rt->lock);
	r = rt_lookup(rt, buf, RT_KIND_BUFFER, &o);
	if (r)
		goto out;
	b = (struct rt_buffer *)o;
	if (!flags || flags & ~(VMGPU_RT_MAP_READ | VMGPU_RT_MAP_WRITE)) {
		r = rt_err(rt, -EINVAL, "bad map flags %#x", flags);
		goto out;
	}
	if (b->mapped) {
		r = rt_err(rt, -EBUSY, "buffer already mapped");
		goto out;
	}
	wait_idle(rt, b, flags & VMGPU_RT_MAP_WRITE);
	r = rt_buffer_to_host(rt, b);
	if (r) {
		r = rt_err(rt, r, "buffer has no valid copy");
		goto out;
	}
	if (flags & VMGPU_RT_MAP_WRITE)
		for (d = 0; d < rt->nphys; d++)
			b->copy[d].valid = false;
	b->mapped = true;
	*ptr = b->host;
out:
	pthread_mutex_unlock(&rt->lock);
	return r;
}

int vmgpu_rt_buffer_unmap(struct vmgpu_rt *rt, vmgpu_rt_handle buf)
{
	struct rt_buffer *b;
	struct rt_obj *o;
	int r;

	if (!rt)
		return -EINVAL;
	pthread_mutex_lock(&rt->lock);
	r = rt_lookup(rt, buf, RT_KIND_BUFFER, &o);
	if (!r) {
		b = (struct rt_buffer *)o;
		if (!b->mapped)
			r = rt_err(rt, -EINVAL, "buffer not mapped");
		b->mapped = false;
	}
	pthread_mutex_unlock(&rt->lock);
	return r;
}

/*
 * A read or write of part of a buffer: under the runtime's lock, not
 * through a map, so that accesses to one buffer from several threads, and
 * a kernel using it meanwhile, do not find it taken (a map is exclusive);
 * it waits, as a map would, for the instances it conflicts with.
 */
static int rt_copy(struct vmgpu_rt *rt, vmgpu_rt_handle buf, uint64_t offset,
		   void *data, uint64_t bytes, bool write)
{
	struct rt_buffer *b;
	struct rt_obj *o;
	uint32_t d;
	int r;

	if (!rt || (!data && bytes))
		return -EINVAL;
	pthread_mutex_lock(&rt->lock);
	r = rt_lookup(rt, buf, RT_KIND_BUFFER, &o);
	if (r)
		goto out;
	b = (struct rt_buffer *)o;
	if (offset > b->bytes || bytes > b->bytes - offset) {
		r = rt_err(rt, -EINVAL, "range %llu+%llu outside %llu",
			   (unsigned long long)offset,
			   (unsigned long long)bytes,
			   (unsigned long long)b->bytes);
		goto out;
	}
	wait_idle(rt, b, write);
	r = rt_buffer_to_host(rt, b);
	if (r) {
		r = rt_err(rt, r, "buffer has no valid copy");
		goto out;
	}
	if (write) {
		for (d = 0; d < rt->nphys; d++)
			b->copy[d].valid = false;
		memcpy((uint8_t *)b->host + offset, data, bytes);
	} else {
		memcpy(data, (uint8_t *)b->host + offset, bytes);
	}
out:
	pthread_mutex_unlock(&rt->lock);
	return r;
}

int vmgpu_rt_buffer_write(struct vmgpu_rt *rt, vmgpu_rt_handle buf,
			  uint64_t offset, const void *data, uint64_t bytes)
{
	return rt_copy(rt, buf, offset, (void *)data, bytes, true);
}

int vmgpu_rt_buffer_read(struct vmgpu_rt *rt, vmgpu_rt_handle buf,
			 uint64_t offset, void *data, uint64_t bytes)
{
	return rt_copy(rt, buf, offset, data, bytes, false);
}
