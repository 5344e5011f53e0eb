// SPDX-License-Identifier: MIT
/*
 * libvmgpu-opencl: buffers. A buffer is a runtime buffer of its context:
 * the runtime keeps its copies on the devices and the host and moves them
 * on demand. Reads, writes, copies, fills and maps are done on the host
 * when enqueued, through the runtime, which waits for the kernels that
 * use the buffer (data flow); so their events are complete when the call
 * returns, blocking or not.
 *
 * CL_MEM_USE_HOST_PTR: the program's memory is the buffer's as the
 * specification lets an implementation do it — its bytes are copied in
 * at creation and at each unmap of a mapping that could write, and out
 * to it at each map, whose pointer is then into the program's memory.
 */
#include <stdlib.h>
#include <string.h>

#include "opencl_internal.h"

#define VCL_MEM_ACCESS	(CL_MEM_READ_WRITE | CL_MEM_WRITE_ONLY | \
			 CL_MEM_READ_ONLY)
#define VCL_MEM_HOST	(CL_MEM_HOST_WRITE_ONLY | CL_MEM_HOST_READ_ONLY | \
			 CL_MEM_HOST_NO_ACCESS)
#define VCL_MEM_PTR	(CL_MEM_USE_HOST_PTR | CL_MEM_ALLOC_HOST_PTR | \
			 CL_MEM_COPY_HOST_PTR)

static bool one_bit_at_most(cl_mem_flags f)
{
	return !(f & (f - 1));
}

static void mem_free(struct _cl_mem *m)
{
	struct _cl_context *c = m->ctx;
	struct vcl_mem_cb *cb, *next;
	struct vcl_map *mp, *mnext;

	/* Destructor callbacks, the last registered first. */
	for (cb = m->cbs; cb; cb = next) {
		next = cb->next;
		cb->fn(m, cb->user_data);
		free(cb);
	}
	for (mp = m->maps; mp; mp = mnext) {
		mnext = mp->next;
		free(mp);
	}
	if (m->rt_map)
		vmgpu_rt_buffer_unmap(c->platform->rt, m->buf);
	if (m->buf)
		vmgpu_rt_release(c->platform->rt, m->buf);
	pthread_mutex_destroy(&m->lock);
	free(m);
	vcl_context_put(c);
}

cl_mem vcl_clCreateBuffer(cl_context context, cl_mem_flags flags, size_t size,
			  void *host_ptr, cl_int *errcode_ret)
{
	struct _cl_platform_id *p = vcl_platform(NULL);
	const cl_mem_flags known = VCL_MEM_ACCESS | VCL_MEM_HOST | VCL_MEM_PTR;
	struct _cl_mem *m;
	cl_ulong max = 0;
	cl_uint i;
	cl_int err;

	if (!vcl_obj_get(p, context, VCL_CONTEXT, true)) {
		err = CL_INVALID_CONTEXT;
		goto fail;
	}
	if (!(flags & VCL_MEM_ACCESS))
		flags |= CL_MEM_READ_WRITE;
	err = CL_INVALID_VALUE;
	if ((flags & ~known) || !one_bit_at_most(flags & VCL_MEM_ACCESS) ||
	    !one_bit_at_most(flags & VCL_MEM_HOST) ||
	    ((flags & CL_MEM_USE_HOST_PTR) &&
	     (flags & (CL_MEM_ALLOC_HOST_PTR | CL_MEM_COPY_HOST_PTR))))
		goto fail_ctx;
	err = CL_INVALID_HOST_PTR;
	if (!host_ptr != !(flags & (CL_MEM_USE_HOST_PTR |
				    CL_MEM_COPY_HOST_PTR)))
		goto fail_ctx;
	/* No larger than every device of the context takes. */
	for (i = 0; i < context->ndevices; i++) {
		cl_ulong d;

		vcl_clGetDeviceInfo(context->devices[i],
				    CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof(d), &d,
				    NULL);
		if (!i || d < max)
			max = d;
	}
	err = CL_INVALID_BUFFER_SIZE;
	if (!size || size > max)
		goto fail_ctx;
	err = CL_OUT_OF_HOST_MEMORY;
	m = calloc(1, sizeof(*m));
	if (!m)
		goto fail_ctx;
	m->dispatch = &vcl_dispatch;
	m->o.kind = VCL_MEM;
	m->o.refs = 1;
	m->ctx = context;
	m->flags = flags;
	m->size = size;
	m->host_ptr = flags & CL_MEM_USE_HOST_PTR ? host_ptr : NULL;
	pthread_mutex_init(&m->lock, NULL);
	err = CL_MEM_OBJECT_ALLOCATION_FAILURE;
	if (vmgpu_rt_buffer_create(p->rt, context->rtctx, size, &m->buf) ||
	    (host_ptr && vmgpu_rt_buffer_write(p->rt, m->buf, 0, host_ptr,
					       size))) {
		mem_free(m);
		goto fail;
	}
	if (vcl_obj_add(p, m)) {
		err = CL_OUT_OF_HOST_MEMORY;
		mem_free(m);
		goto fail;
	}
	if (errcode_ret)
		*errcode_ret = CL_SUCCESS;
	return m;
fail_ctx:
	vcl_context_put(context);
fail:
	if (errcode_ret)
		*errcode_ret = err;
	return NULL;
}

cl_int vcl_clRetainMemObject(cl_mem memobj)
{
	return vcl_obj_get(vcl_platform(NULL), memobj, VCL_MEM, true) ?
	       CL_SUCCESS : CL_INVALID_MEM_OBJECT;
}

cl_int vcl_clReleaseMemObject(cl_mem memobj)
{
	switch (vcl_obj_release(vcl_platform(NULL), memobj, VCL_MEM)) {
	case 1:
		mem_free(memobj);
		return CL_SUCCESS;
	case 0:
		return CL_SUCCESS;
	default:
		return CL_INVALID_MEM_OBJECT;
	}
}

void vcl_mem_put(struct _cl_mem *m)
{
	if (vcl_obj_release(m->ctx->platform, m, VCL_MEM) == 1)
		mem_free(m);
}

cl_int vcl_clSetMemObjectDestructorCallback(cl_mem memobj,
					    void (CL_CALLBACK *pfn_notify)(cl_mem,
									   void *),
					    void *user_data)
{
	struct _cl_platform_id *p = vcl_platform(NULL);
	struct vcl_mem_cb *cb;

	if (!vcl_obj_get(p, memobj, VCL_MEM, true))
		return CL_INVALID_MEM_OBJECT;
	if (!pfn_notify) {
		vcl_mem_put(memobj);
		return CL_INVALID_VALUE;
	}
	cb = malloc(sizeof(*cb));
	if (!cb) {
		vcl_mem_put(memobj);
		return CL_OUT_OF_HOST_MEMORY;
	}
	cb->fn = pfn_notify;
	cb->user_data = user_data;
	pthread_mutex_lock(&memobj->lock);
	cb->next = memobj->cbs;
	memobj->cbs = cb;
	pthread_mutex_unlock(&memobj->lock);
	vcl_mem_put(memobj);
	return CL_SUCCESS;
}

cl_int vcl_clGetMemObjectInfo(cl_mem memobj, cl_mem_info param_name,
			      size_t param_value_size, void *param_value,
			      size_t *param_value_size_ret)
{
	struct _cl_platform_id *p = vcl_platform(NULL);
	cl_mem_object_type type = CL_MEM_OBJECT_BUFFER;
	cl_uint u;
	size_t zero = 0;
	cl_mem none = NULL;
	cl_int err;

	if (!vcl_obj_get(p, memobj, VCL_MEM, true))
		return CL_INVALID_MEM_OBJECT;
	switch (param_name) {
	case CL_MEM_TYPE:
		err = vcl_info(&type, sizeof(type), param_value_size,
			       param_value, param_value_size_ret);
		break;
	case CL_MEM_FLAGS:
		err = vcl_info(&memobj->flags, sizeof(cl_mem_flags),
			       param_value_size, param_value,
			       param_value_size_ret);
		break;
	case CL_MEM_SIZE:
		err = vcl_info(&memobj->size, sizeof(size_t), param_value_size,
			       param_value, param_value_size_ret);
		break;
	case CL_MEM_HOST_PTR:
		err = vcl_info(&memobj->host_ptr, sizeof(void *),
			       param_value_size, param_value,
			       param_value_size_ret);
		break;
	case CL_MEM_MAP_COUNT:
		pthread_mutex_lock(&memobj->lock);
		{
			struct vcl_map *mp;

			u = 0;
			for (mp = memobj->maps; mp; mp = mp->next)
				u++;
		}
		pthread_mutex_unlock(&memobj->lock);
		err = vcl_info(&u, sizeof(u), param_value_size, param_value,
			       param_value_size_ret);
		break;
	case CL_MEM_REFERENCE_COUNT:
		pthread_mutex_lock(&p->lock);
		u = memobj->o.refs - 1;
		pthread_mutex_unlock(&p->lock);
		err = vcl_info(&u, sizeof(u), param_value_size, param_value,
			       param_value_size_ret);
		break;
	case CL_MEM_CONTEXT:
		err = vcl_info(&memobj->ctx, sizeof(cl_context),
			       param_value_size, param_value,
			       param_value_size_ret);
		break;
	case CL_MEM_ASSOCIATED_MEMOBJECT:
		err = vcl_info(&none, sizeof(none), param_value_size,
			       param_value, param_value_size_ret);
		break;
	case CL_MEM_OFFSET:
		err = vcl_info(&zero, sizeof(zero), param_value_size,
			       param_value, param_value_size_ret);
		break;
	default:
		err = CL_INVALID_VALUE;
	}
	vcl_mem_put(memobj);
	return err;
}

/*
 * What every buffer command checks first: the queue, the buffer of its
 * context, the range; then it waits for its wait list (and the queue's
 * previous command, in order).
 */
static cl_int begin(cl_command_queue q, cl_mem m, size_t offset, size_t size,
		    cl_uint n, const cl_event *list)
{
	struct _cl_platform_id *p = vcl_platform(NULL);
	cl_int err;

	if (!vcl_obj_get(p, q, VCL_QUEUE, false))
		return CL_INVALID_COMMAND_QUEUE;
	if (!vcl_obj_get(p, m, VCL_MEM, false))
		return CL_INVALID_MEM_OBJECT;
	if (m->ctx != q->ctx)
		return CL_INVALID_CONTEXT;
	if (offset > m->size || size > m->size - offset)
		return CL_INVALID_VALUE;
	err = vcl_wait_for(q, n, list);
	return err == CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST ? err :
	       err < 0 ? err : CL_SUCCESS;
}

/* The command's event, complete: @t0 when it began. */
static cl_int end(cl_command_queue q, cl_command_type type, int rterr,
		  cl_ulong t0, cl_event *event)
{
	struct _cl_event *e;

	if (rterr)
		return CL_OUT_OF_RESOURCES;
	e = vcl_event_new(q, type, 0, CL_COMPLETE, t0);
	if (!e)
		return CL_OUT_OF_HOST_MEMORY;
	vcl_command_done(q, e, event);
	return CL_SUCCESS;
}

cl_int vcl_clEnqueueReadBuffer(cl_command_queue command_queue, cl_mem buffer,
			       cl_bool blocking_read, size_t offset,
			       size_t size, void *ptr,
			       cl_uint num_events_in_wait_list,
			       const cl_event *event_wait_list,
			       cl_event *event)
{
	cl_ulong t0 = vcl_now_ns();
	cl_int err = begin(command_queue, buffer, offset, size,
			   num_events_in_wait_list, event_wait_list);

	if (err)
		return err;
	if (!ptr || !size)
		return CL_INVALID_VALUE;
	if (buffer->flags & (CL_MEM_HOST_WRITE_ONLY | CL_MEM_HOST_NO_ACCESS))
		return CL_INVALID_OPERATION;
	return end(command_queue, CL_COMMAND_READ_BUFFER,
		   vmgpu_rt_buffer_read(buffer->ctx->platform->rt, buffer->buf,
					offset, ptr, size), t0, event);
}

cl_int vcl_clEnqueueWriteBuffer(cl_command_queue command_queue, cl_mem buffer,
				cl_bool blocking_write, size_t offset,
				size_t size, const void *ptr,
				cl_uint num_events_in_wait_list,
				const cl_event *event_wait_list,
				cl_event *event)
{
	cl_ulong t0 = vcl_now_ns();
	cl_int err = begin(command_queue, buffer, offset, size,
			   num_events_in_wait_list, event_wait_list);

	if (err)
		return err;
	if (!ptr || !size)
		return CL_INVALID_VALUE;
	if (buffer->flags & (CL_MEM_HOST_READ_ONLY | CL_MEM_HOST_NO_ACCESS))
		return CL_INVALID_OPERATION;
	return end(command_queue, CL_COMMAND_WRITE_BUFFER,
		   vmgpu_rt_buffer_write(buffer->ctx->platform->rt, buffer->buf,
					 offset, ptr, size), t0, event);
}

cl_int vcl_clEnqueueCopyBuffer(cl_command_queue command_queue, cl_mem src,
			       cl_mem dst, size_t src_offset,
			       size_t dst_offset, size_t size,
			       cl_uint num_events_in_wait_list,
			       const cl_event *event_wait_list,
			       cl_event *event)
{
	struct _cl_platform_id *p = vcl_platform(NULL);
	cl_ulong t0 = vcl_now_ns();
	void *tmp;
	cl_int err;
	int r;

	if (!vcl_obj_get(p, dst, VCL_MEM, false))
		return CL_INVALID_MEM_OBJECT;
	if (dst_offset > dst->size || size > dst->size - dst_offset || !size)
		return CL_INVALID_VALUE;
	if (src == dst && (src_offset < dst_offset + size &&
			   dst_offset < src_offset + size))
		return CL_MEM_COPY_OVERLAP;
	err = begin(command_queue, src, src_offset, size,
		    num_events_in_wait_list, event_wait_list);
	if (err)
		return err;
	if (dst->ctx != command_queue->ctx)
		return CL_INVALID_CONTEXT;
	tmp = malloc(size);
	if (!tmp)
		return CL_OUT_OF_HOST_MEMORY;
	r = vmgpu_rt_buffer_read(p->rt, src->buf, src_offset, tmp, size);
	if (!r)
		r = vmgpu_rt_buffer_write(p->rt, dst->buf, dst_offset, tmp,
					  size);
	free(tmp);
	return end(command_queue, CL_COMMAND_COPY_BUFFER, r, t0, event);
}

cl_int vcl_clEnqueueFillBuffer(cl_command_queue command_queue, cl_mem buffer,
			       const void *pattern, size_t pattern_size,
			       size_t offset, size_t size,
			       cl_uint num_events_in_wait_list,
			       const cl_event *event_wait_list,
			       cl_event *event)
{
	cl_ulong t0 = vcl_now_ns();
	cl_int err = begin(command_queue, buffer, offset, size,
			   num_events_in_wait_list, event_wait_list);
	unsigned char *tmp;
	size_t i;
	int r;

	if (err)
		return err;
	/* A power of two of at most 128 bytes, dividing offset and size. */
	if (!pattern || !pattern_size || pattern_size > 128 ||
	    (pattern_size & (pattern_size - 1)) || offset % pattern_size ||
	    size % pattern_size)
		return CL_INVALID_VALUE;
	tmp = malloc(size ? size : 1);
	if (!tmp)
		return CL_OUT_OF_HOST_MEMORY;
	for (i = 0; i < size; i += pattern_size)
		memcpy(tmp + i, pattern, pattern_size);
	r = size ? vmgpu_rt_buffer_write(buffer->ctx->platform->rt,
					 buffer->buf, offset, tmp, size) : 0;
	free(tmp);
	return end(command_queue, CL_COMMAND_FILL_BUFFER, r, t0, event);
}

void *vcl_clEnqueueMapBuffer(cl_command_queue command_queue, cl_mem buffer,
			     cl_bool blocking_map, cl_map_flags map_flags,
			     size_t offset, size_t size,
			     cl_uint num_events_in_wait_list,
			     const cl_event *event_wait_list, cl_event *event,
			     cl_int *errcode_ret)
{
	const cl_map_flags known = CL_MAP_READ | CL_MAP_WRITE |
				   CL_MAP_WRITE_INVALIDATE_REGION;
	struct _cl_platform_id *p = vcl_platform(NULL);
	cl_ulong t0 = vcl_now_ns();
	struct vcl_map *mp = NULL;
	void *base = NULL;
	cl_int err;
	int r = 0;

	err = begin(command_queue, buffer, offset, size,
		    num_events_in_wait_list, event_wait_list);
	if (err)
		goto fail;
	err = CL_INVALID_VALUE;
	if (!size || (map_flags & ~known) ||
	    ((map_flags & CL_MAP_WRITE_INVALIDATE_REGION) &&
	     (map_flags & (CL_MAP_READ | CL_MAP_WRITE))))
		goto fail;
	err = CL_INVALID_OPERATION;
	if ((buffer->flags & CL_MEM_HOST_NO_ACCESS) ||
	    ((buffer->flags & CL_MEM_HOST_WRITE_ONLY) &&
	     (map_flags & CL_MAP_READ)) ||
	    ((buffer->flags & CL_MEM_HOST_READ_ONLY) &&
	     (map_flags & (CL_MAP_WRITE | CL_MAP_WRITE_INVALIDATE_REGION))))
		goto fail;
	err = CL_OUT_OF_HOST_MEMORY;
	mp = calloc(1, sizeof(*mp));
	if (!mp)
		goto fail;
	pthread_mutex_lock(&buffer->lock);
	if (buffer->host_ptr) {
		/* The program's memory gets the buffer's bytes. */
		r = vmgpu_rt_buffer_read(p->rt, buffer->buf, 0,
					 buffer->host_ptr, buffer->size);
		base = buffer->host_ptr;
	} else {
		if (!buffer->rt_map)
			r = vmgpu_rt_buffer_map(p->rt, buffer->buf,
						VMGPU_RT_MAP_READ |
						VMGPU_RT_MAP_WRITE,
						&buffer->rt_map);
		base = buffer->rt_map;
	}
	if (!r) {
		mp->ptr = (char *)base + offset;
		mp->flags = map_flags;
		mp->next = buffer->maps;
		buffer->maps = mp;
	}
	pthread_mutex_unlock(&buffer->lock);
	err = CL_MAP_FAILURE;
	if (r)
		goto fail;
	err = end(command_queue, CL_COMMAND_MAP_BUFFER, 0, t0, event);
	if (errcode_ret)
		*errcode_ret = err;
	return err ? NULL : mp->ptr;
fail:
	free(mp);
	if (errcode_ret)
		*errcode_ret = err;
	return NULL;
}

cl_int vcl_clEnqueueUnmapMemObject(cl_command_queue command_queue,
				   cl_mem memobj, void *mapped_ptr,
				   cl_uint num_events_in_wait_list,
				   const cl_event *event_wait_list,
				   cl_event *event)
{
	struct _cl_platform_id *p = vcl_platform(NULL);
	cl_ulong t0 = vcl_now_ns();
	struct vcl_map **pp, *mp = NULL;
	cl_int err = begin(command_queue, memobj, 0, 0,
			   num_events_in_wait_list, event_wait_list);
	int r = 0;

	if (err)
		return err;
	pthread_mutex_lock(&memobj->lock);
	for (pp = &memobj->maps; *pp; pp = &(*pp)->next)
		if ((*pp)->ptr == mapped_ptr) {
			mp = *pp;
			*pp = mp->next;
			break;
		}
	if (mp && memobj->host_ptr && (mp->flags & ~CL_MAP_READ))
		r = vmgpu_rt_buffer_write(p->rt, memobj->buf, 0,
					  memobj->host_ptr, memobj->size);
	if (mp && !memobj->maps && memobj->rt_map) {
		r = vmgpu_rt_buffer_unmap(p->rt, memobj->buf);
		memobj->rt_map = NULL;
	}
	pthread_mutex_unlock(&memobj->lock);
	if (!mp)
		return CL_INVALID_VALUE;
	free(mp);
	return end(command_queue, CL_COMMAND_UNMAP_MEM_OBJECT, r, t0, event);
}
