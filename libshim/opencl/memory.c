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
	free(m->shadow);
	if (m->buf && !m->parent)
		vmgpu_rt_release(c->platform->rt, m->buf);
	pthread_mutex_destroy(&m->lock);
	if (m->parent)
		vcl_mem_put(m->parent);
	free(m);
	vcl_context_put(c);
}

static cl_int check_queue_mem(cl_command_queue q, cl_mem m);
static cl_int check_range(cl_command_queue q, cl_mem m, size_t offset,
			  size_t size);
static cl_int end(cl_command_queue q, cl_command_type type, int rterr,
		  cl_ulong t0, cl_event *event);

/* Where a buffer's bytes are: itself, or the buffer a sub-buffer is of. */
static struct _cl_mem *root_of(struct _cl_mem *m)
{
	return m->parent ? m->parent : m;
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

/*
 * Under the root's lock: where the root's bytes are mapped to, the
 * program's memory or the shadow, made now if need be; NULL when out of
 * memory.
 */
static char *map_base(struct _cl_mem *root)
{
	if (!root->host_ptr && !root->shadow)
		root->shadow = malloc(root->size);
	return root->host_ptr ? root->host_ptr : root->shadow;
}

/*
 * Where a map of @m at @offset puts the bytes, the same for a map that
 * runs now and one deferred (whose pointer is given at once), as the
 * map's base stays where it is to the buffer's end. A sub-buffer's bytes
 * are its buffer's, from its origin on. NULL when out of memory.
 */
static void *map_ptr(struct _cl_mem *m, size_t offset)
{
	struct _cl_mem *root = root_of(m);
	char *base;

	pthread_mutex_lock(&root->lock);
	base = map_base(root);
	pthread_mutex_unlock(&root->lock);
	return base ? base + m->origin + offset : NULL;
}

/* Under the root's lock: whether mapping @ptr is of @m's range. */
static cl_uint vcl_map_of(struct _cl_mem *m, void *ptr)
{
	struct _cl_mem *root = root_of(m);
	char *base = root->host_ptr ? root->host_ptr : root->shadow;

	return base && (char *)ptr >= base + m->origin &&
	       (char *)ptr < base + m->origin + m->size;
}

cl_mem vcl_clCreateSubBuffer(cl_mem buffer, cl_mem_flags flags,
			     cl_buffer_create_type buffer_create_type,
			     const void *buffer_create_info,
			     cl_int *errcode_ret)
{
	struct _cl_platform_id *p = vcl_platform(NULL);
	const cl_buffer_region *reg = buffer_create_info;
	const cl_mem_flags known = VCL_MEM_ACCESS | VCL_MEM_HOST;
	struct _cl_mem *m;
	cl_uint i, align = 0;
	cl_int err;

	if (!vcl_obj_get(p, buffer, VCL_MEM, true)) {
		err = CL_INVALID_MEM_OBJECT;
		goto fail;
	}
	err = CL_INVALID_MEM_OBJECT;
	if (buffer->parent)		/* not of a sub-buffer */
		goto fail_put;
	err = CL_INVALID_VALUE;
	if (buffer_create_type != CL_BUFFER_CREATE_TYPE_REGION || !reg ||
	    (flags & ~known) || !one_bit_at_most(flags & VCL_MEM_ACCESS) ||
	    !one_bit_at_most(flags & VCL_MEM_HOST))
		goto fail_put;
	/* Access no wider than the buffer's: a write-only buffer gives no
	 * readable sub-buffer, and the host's likewise. */
	if (((buffer->flags & CL_MEM_WRITE_ONLY) &&
	     (flags & (CL_MEM_READ_WRITE | CL_MEM_READ_ONLY))) ||
	    ((buffer->flags & CL_MEM_READ_ONLY) &&
	     (flags & (CL_MEM_READ_WRITE | CL_MEM_WRITE_ONLY))) ||
	    ((buffer->flags & CL_MEM_HOST_WRITE_ONLY) &&
	     (flags & CL_MEM_HOST_READ_ONLY)) ||
	    ((buffer->flags & CL_MEM_HOST_READ_ONLY) &&
	     (flags & CL_MEM_HOST_WRITE_ONLY)) ||
	    ((buffer->flags & CL_MEM_HOST_NO_ACCESS) &&
	     (flags & (CL_MEM_HOST_READ_ONLY | CL_MEM_HOST_WRITE_ONLY))))
		goto fail_put;
	err = CL_INVALID_BUFFER_SIZE;
	if (!reg->size)
		goto fail_put;
	err = CL_INVALID_VALUE;
	if (reg->origin > buffer->size || reg->size > buffer->size - reg->origin)
		goto fail_put;
	/* The start aligned as every device of the context wants. */
	for (i = 0; i < buffer->ctx->ndevices; i++) {
		cl_uint a;

		vcl_clGetDeviceInfo(buffer->ctx->devices[i],
				    CL_DEVICE_MEM_BASE_ADDR_ALIGN, sizeof(a), &a,
				    NULL);
		if (a > align)
			align = a;
	}
	err = CL_MISALIGNED_SUB_BUFFER_OFFSET;
	if (align && reg->origin % (align / 8))
		goto fail_put;
	err = CL_OUT_OF_HOST_MEMORY;
	m = calloc(1, sizeof(*m));
	if (!m)
		goto fail_put;
	m->dispatch = &vcl_dispatch;
	m->o.kind = VCL_MEM;
	m->o.refs = 1;
	m->ctx = buffer->ctx;
	vcl_context_get(m->ctx);
	/* What it does not say, it inherits. */
	if (!(flags & VCL_MEM_ACCESS))
		flags |= buffer->flags & VCL_MEM_ACCESS;
	if (!(flags & VCL_MEM_HOST))
		flags |= buffer->flags & VCL_MEM_HOST;
	m->flags = flags | (buffer->flags & VCL_MEM_PTR);
	m->size = reg->size;
	m->origin = reg->origin;
	m->host_ptr = buffer->host_ptr ? (char *)buffer->host_ptr +
					 reg->origin : NULL;
	m->buf = buffer->buf;
	m->parent = buffer;		/* the reference taken above */
	pthread_mutex_init(&m->lock, NULL);
	if (vcl_obj_add(p, m)) {
		mem_free(m);
		goto fail;
	}
	if (errcode_ret)
		*errcode_ret = CL_SUCCESS;
	return m;
fail_put:
	vcl_mem_put(buffer);
fail:
	if (errcode_ret)
		*errcode_ret = err;
	return NULL;
}

/*
 * The byte ranges of a rectangular region, row by row: @fn for each
 * row of @region[0] bytes, at the offsets the origins and pitches give
 * (pitches 0: tightly packed, as OpenCL says).
 */
static cl_int rect_check(const size_t *bo, const size_t *ho,
			 const size_t *region, size_t *brp, size_t *bsp,
			 size_t *hrp, size_t *hsp, size_t bsize)
{
	size_t last;

	if (!bo || !ho || !region || !region[0] || !region[1] || !region[2])
		return CL_INVALID_VALUE;
	if (!*brp)
		*brp = region[0];
	if (!*bsp)
		*bsp = region[1] * *brp;
	if (!*hrp)
		*hrp = region[0];
	if (!*hsp)
		*hsp = region[1] * *hrp;
	if (*brp < region[0] || *hrp < region[0] ||
	    *bsp < region[1] * *brp || *hsp < region[1] * *hrp ||
	    *bsp % *brp || *hsp % *hrp)
		return CL_INVALID_VALUE;
	last = (bo[2] + region[2] - 1) * *bsp + (bo[1] + region[1] - 1) * *brp +
	       bo[0] + region[0];
	return last > bsize ? CL_INVALID_VALUE : CL_SUCCESS;
}

/* The queue and buffer checks of a command, before it waits for anything. */
static cl_int check_queue_mem(cl_command_queue q, cl_mem m)
{
	struct _cl_platform_id *p = vcl_platform(NULL);

	if (!vcl_obj_get(p, q, VCL_QUEUE, false))
		return CL_INVALID_COMMAND_QUEUE;
	if (!vcl_obj_get(p, m, VCL_MEM, false))
		return CL_INVALID_MEM_OBJECT;
	return m->ctx != q->ctx ? CL_INVALID_CONTEXT : CL_SUCCESS;
}

static cl_int rect_run(cl_command_queue q, cl_command_type type, cl_mem m,
		       cl_mem m2, const struct vcl_rect *r, cl_event *event);

/*
 * Every Rect command, checked, then deferred behind a user event
 * (defer.c) or done after what it waits for: its arguments are checked
 * first either way, so a deferred one fails at enqueue as a direct one.
 */
static cl_int rect_enqueue(cl_command_queue q, cl_command_type type,
			   cl_mem m, cl_mem m2, struct vcl_rect *r,
			   cl_bool blocking, cl_uint n, const cl_event *list,
			   cl_event *event)
{
	cl_int err;

	if (vcl_deferred(q, n, list))
		return vcl_defer_rect(q, type, m, m2, r, blocking, n, list,
				      event);
	err = vcl_wait_for(q, n, list);
	if (err)
		return err;
	return rect_run(q, type, m, m2, r, event);
}

static cl_int rect_rw(cl_command_queue q, cl_mem buf, bool write,
		      const size_t *bo, const size_t *ho, const size_t *region,
		      size_t brp, size_t bsp, size_t hrp, size_t hsp,
		      void *ptr, cl_bool blocking, cl_uint n,
		      const cl_event *list, cl_event *event)
{
	struct vcl_rect r = { .rp1 = brp, .sp1 = bsp, .rp2 = hrp, .sp2 = hsp,
			      .ptr = ptr };
	cl_int err = check_queue_mem(q, buf);

	if (err)
		return err;
	if (!ptr)
		return CL_INVALID_VALUE;
	err = rect_check(bo, ho, region, &r.rp1, &r.sp1, &r.rp2, &r.sp2,
			 buf->size);
	if (err)
		return err;
	if (buf->flags & (write ? CL_MEM_HOST_READ_ONLY | CL_MEM_HOST_NO_ACCESS :
			  CL_MEM_HOST_WRITE_ONLY | CL_MEM_HOST_NO_ACCESS))
		return CL_INVALID_OPERATION;
	memcpy(r.o1, bo, sizeof(r.o1));
	memcpy(r.o2, ho, sizeof(r.o2));
	memcpy(r.region, region, sizeof(r.region));
	return rect_enqueue(q, write ? CL_COMMAND_WRITE_BUFFER_RECT :
				       CL_COMMAND_READ_BUFFER_RECT,
			    buf, NULL, &r, blocking, n, list, event);
}

/*
 * The rows of a checked Rect command, what it waits for done; m2: a
 * copy's destination.
 */
static cl_int rect_run(cl_command_queue q, cl_command_type type, cl_mem m,
		       cl_mem m2, const struct vcl_rect *r, cl_event *event)
{
	struct vmgpu_rt *rt = q->ctx->platform->rt;
	cl_ulong t0 = vcl_now_ns();
	char *tmp = NULL;
	size_t y, z;
	int rc = 0;

	if (type == CL_COMMAND_COPY_BUFFER_RECT) {
		tmp = malloc(r->region[0]);
		if (!tmp)
			return CL_OUT_OF_HOST_MEMORY;
	}
	for (z = 0; z < r->region[2] && !rc; z++)
		for (y = 0; y < r->region[1] && !rc; y++) {
			size_t a = m->origin + (r->o1[2] + z) * r->sp1 +
				   (r->o1[1] + y) * r->rp1 + r->o1[0];
			size_t b = (r->o2[2] + z) * r->sp2 +
				   (r->o2[1] + y) * r->rp2 + r->o2[0];

			switch (type) {
			case CL_COMMAND_READ_BUFFER_RECT:
				rc = vmgpu_rt_buffer_read(rt, m->buf, a,
							  (char *)r->ptr + b,
							  r->region[0]);
				break;
			case CL_COMMAND_WRITE_BUFFER_RECT:
				rc = vmgpu_rt_buffer_write(rt, m->buf, a,
							   (char *)r->ptr + b,
							   r->region[0]);
				break;
			default:
				rc = vmgpu_rt_buffer_read(rt, m->buf, a, tmp,
							  r->region[0]);
				if (!rc)
					rc = vmgpu_rt_buffer_write(rt, m2->buf,
								   m2->origin + b,
								   tmp,
								   r->region[0]);
			}
		}
	free(tmp);
	return end(q, type, rc, t0, event);
}

cl_int vcl_clEnqueueReadBufferRect(cl_command_queue command_queue,
				   cl_mem buffer, cl_bool blocking_read,
				   const size_t *buffer_offset,
				   const size_t *host_offset,
				   const size_t *region,
				   size_t buffer_row_pitch,
				   size_t buffer_slice_pitch,
				   size_t host_row_pitch,
				   size_t host_slice_pitch, void *ptr,
				   cl_uint num_events_in_wait_list,
				   const cl_event *event_wait_list,
				   cl_event *event)
{
	return rect_rw(command_queue, buffer, false, buffer_offset,
		       host_offset, region, buffer_row_pitch,
		       buffer_slice_pitch, host_row_pitch, host_slice_pitch,
		       ptr, blocking_read, num_events_in_wait_list,
		       event_wait_list, event);
}

cl_int vcl_clEnqueueWriteBufferRect(cl_command_queue command_queue,
				    cl_mem buffer, cl_bool blocking_write,
				    const size_t *buffer_offset,
				    const size_t *host_offset,
				    const size_t *region,
				    size_t buffer_row_pitch,
				    size_t buffer_slice_pitch,
				    size_t host_row_pitch,
				    size_t host_slice_pitch, const void *ptr,
				    cl_uint num_events_in_wait_list,
				    const cl_event *event_wait_list,
				    cl_event *event)
{
	return rect_rw(command_queue, buffer, true, buffer_offset,
		       host_offset, region, buffer_row_pitch,
		       buffer_slice_pitch, host_row_pitch, host_slice_pitch,
		       (void *)ptr, blocking_write, num_events_in_wait_list,
		       event_wait_list, event);
}

cl_int vcl_clEnqueueCopyBufferRect(cl_command_queue command_queue,
				   cl_mem src_buffer, cl_mem dst_buffer,
				   const size_t *src_origin,
				   const size_t *dst_origin,
				   const size_t *region, size_t src_row_pitch,
				   size_t src_slice_pitch, size_t dst_row_pitch,
				   size_t dst_slice_pitch,
				   cl_uint num_events_in_wait_list,
				   const cl_event *event_wait_list,
				   cl_event *event)
{
	struct vcl_rect r = { .rp1 = src_row_pitch, .sp1 = src_slice_pitch,
			      .rp2 = dst_row_pitch, .sp2 = dst_slice_pitch };
	cl_int err = check_queue_mem(command_queue, src_buffer);

	if (!err)
		err = check_queue_mem(command_queue, dst_buffer);
	if (!err)
		err = rect_check(src_origin, dst_origin, region, &r.rp1,
				 &r.sp1, &r.rp2, &r.sp2, src_buffer->size);
	if (!err)
		err = rect_check(dst_origin, src_origin, region, &r.rp2,
				 &r.sp2, &r.rp1, &r.sp1, dst_buffer->size);
	if (err)
		return err;
	/*
	 * One buffer: the same pitches, and no byte in both regions. Each
	 * region's rows start at increasing offsets and are equally long,
	 * so one pass over both lists finds any two that meet.
	 */
	if (root_of(src_buffer) == root_of(dst_buffer)) {
		size_t rows = region[1] * region[2], i = 0, j = 0;

		if (r.rp1 != r.rp2 || r.sp1 != r.sp2)
			return CL_INVALID_VALUE;
		while (i < rows && j < rows) {
			size_t a = src_buffer->origin +
				   (src_origin[2] + i / region[1]) * r.sp1 +
				   (src_origin[1] + i % region[1]) * r.rp1 +
				   src_origin[0];
			size_t b = dst_buffer->origin +
				   (dst_origin[2] + j / region[1]) * r.sp2 +
				   (dst_origin[1] + j % region[1]) * r.rp2 +
				   dst_origin[0];

			if (a < b + region[0] && b < a + region[0])
				return CL_MEM_COPY_OVERLAP;
			if (a < b)
				i++;
			else
				j++;
		}
	}
	memcpy(r.o1, src_origin, sizeof(r.o1));
	memcpy(r.o2, dst_origin, sizeof(r.o2));
	memcpy(r.region, region, sizeof(r.region));
	return rect_enqueue(command_queue, CL_COMMAND_COPY_BUFFER_RECT,
			    src_buffer, dst_buffer, &r, CL_FALSE,
			    num_events_in_wait_list, event_wait_list, event);
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
		{
			struct _cl_mem *root = root_of(memobj);
			struct vcl_map *mp;

			/* This object's mappings: those in its range. */
			pthread_mutex_lock(&root->lock);
			u = 0;
			for (mp = root->maps; mp; mp = mp->next)
				u += vcl_map_of(memobj, mp->ptr);
			pthread_mutex_unlock(&root->lock);
		}
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
		none = memobj->parent;
		err = vcl_info(&none, sizeof(none), param_value_size,
			       param_value, param_value_size_ret);
		break;
	case CL_MEM_OFFSET:
		zero = memobj->origin;
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
static cl_int check_range(cl_command_queue q, cl_mem m, size_t offset,
			  size_t size)
{
	cl_int err = check_queue_mem(q, m);

	if (!err && (offset > m->size || size > m->size - offset))
		err = CL_INVALID_VALUE;
	return err;
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

/* A read or write of @size bytes at @offset: checked, deferred or done. */
static cl_int buffer_rw(cl_command_queue q, cl_mem buf, bool write,
			cl_bool blocking, size_t offset, size_t size,
			void *ptr, cl_uint n, const cl_event *list,
			cl_event *event)
{
	struct vmgpu_rt *rt;
	cl_int err = check_range(q, buf, offset, size);
	cl_ulong t0;
	int r;

	if (!err && (!ptr || !size))
		err = CL_INVALID_VALUE;
	if (!err && (buf->flags & ((write ? CL_MEM_HOST_READ_ONLY :
					    CL_MEM_HOST_WRITE_ONLY) |
				   CL_MEM_HOST_NO_ACCESS)))
		err = CL_INVALID_OPERATION;
	if (err)
		return err;
	if (vcl_deferred(q, n, list))
		return write ? vcl_defer_write(q, buf, blocking, offset, size,
					       ptr, n, list, event) :
			       vcl_defer_read(q, buf, blocking, offset, size,
					      ptr, n, list, event);
	t0 = vcl_now_ns();
	err = vcl_wait_for(q, n, list);
	if (err)
		return err;
	rt = buf->ctx->platform->rt;
	r = write ? vmgpu_rt_buffer_write(rt, buf->buf, buf->origin + offset,
					  ptr, size) :
		    vmgpu_rt_buffer_read(rt, buf->buf, buf->origin + offset,
					 ptr, size);
	return end(q, write ? CL_COMMAND_WRITE_BUFFER : CL_COMMAND_READ_BUFFER,
		   r, t0, event);
}

cl_int vcl_clEnqueueReadBuffer(cl_command_queue command_queue, cl_mem buffer,
			       cl_bool blocking_read, size_t offset,
			       size_t size, void *ptr,
			       cl_uint num_events_in_wait_list,
			       const cl_event *event_wait_list,
			       cl_event *event)
{
	return buffer_rw(command_queue, buffer, false, blocking_read, offset,
			 size, ptr, num_events_in_wait_list, event_wait_list,
			 event);
}

cl_int vcl_clEnqueueWriteBuffer(cl_command_queue command_queue, cl_mem buffer,
				cl_bool blocking_write, size_t offset,
				size_t size, const void *ptr,
				cl_uint num_events_in_wait_list,
				const cl_event *event_wait_list,
				cl_event *event)
{
	return buffer_rw(command_queue, buffer, true, blocking_write, offset,
			 size, (void *)ptr, num_events_in_wait_list,
			 event_wait_list, event);
}

cl_int vcl_clEnqueueCopyBuffer(cl_command_queue command_queue, cl_mem src,
			       cl_mem dst, size_t src_offset,
			       size_t dst_offset, size_t size,
			       cl_uint num_events_in_wait_list,
			       const cl_event *event_wait_list,
			       cl_event *event)
{
	struct _cl_platform_id *p = vcl_platform(NULL);
	cl_int err = check_range(command_queue, src, src_offset, size);
	cl_ulong t0;
	void *tmp;
	int r;

	if (!err)
		err = check_range(command_queue, dst, dst_offset, size);
	if (!err && !size)
		err = CL_INVALID_VALUE;
	if (err)
		return err;
	/* Overlap within one buffer, sub-buffers of it included. */
	if (root_of(src) == root_of(dst) &&
	    src->origin + src_offset < dst->origin + dst_offset + size &&
	    dst->origin + dst_offset < src->origin + src_offset + size)
		return CL_MEM_COPY_OVERLAP;
	if (vcl_deferred(command_queue, num_events_in_wait_list,
			 event_wait_list))
		return vcl_defer_copy(command_queue, src, dst, src_offset,
				      dst_offset, size, num_events_in_wait_list,
				      event_wait_list, event);
	t0 = vcl_now_ns();
	err = vcl_wait_for(command_queue, num_events_in_wait_list,
			   event_wait_list);
	if (err)
		return err;
	tmp = malloc(size);
	if (!tmp)
		return CL_OUT_OF_HOST_MEMORY;
	r = vmgpu_rt_buffer_read(p->rt, src->buf, src->origin + src_offset,
				 tmp, size);
	if (!r)
		r = vmgpu_rt_buffer_write(p->rt, dst->buf,
					  dst->origin + dst_offset, tmp, size);
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
	cl_int err = check_range(command_queue, buffer, offset, size);
	unsigned char *tmp;
	cl_ulong t0;
	size_t i;
	int r;

	/* A power of two of at most 128 bytes, dividing offset and size. */
	if (!err && (!pattern || !pattern_size || pattern_size > 128 ||
		     (pattern_size & (pattern_size - 1)) ||
		     offset % pattern_size || size % pattern_size))
		err = CL_INVALID_VALUE;
	if (err)
		return err;
	if (vcl_deferred(command_queue, num_events_in_wait_list,
			 event_wait_list))
		return vcl_defer_fill(command_queue, buffer, pattern,
				      pattern_size, offset, size,
				      num_events_in_wait_list, event_wait_list,
				      event);
	t0 = vcl_now_ns();
	err = vcl_wait_for(command_queue, num_events_in_wait_list,
			   event_wait_list);
	if (err)
		return err;
	tmp = malloc(size ? size : 1);
	if (!tmp)
		return CL_OUT_OF_HOST_MEMORY;
	for (i = 0; i < size; i += pattern_size)
		memcpy(tmp + i, pattern, pattern_size);
	r = size ? vmgpu_rt_buffer_write(buffer->ctx->platform->rt,
					 buffer->buf, buffer->origin + offset,
					 tmp, size) : 0;
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
	struct vcl_map *mp = NULL;
	struct _cl_mem *root;
	size_t start;
	cl_ulong t0;
	cl_int err;
	int r = 0;

	err = check_range(command_queue, buffer, offset, size);
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
	if (vcl_deferred(command_queue, num_events_in_wait_list,
			 event_wait_list)) {
		void *at = blocking_map ? NULL : map_ptr(buffer, offset);

		err = CL_OUT_OF_HOST_MEMORY;
		if (!blocking_map && !at)
			goto fail;
		return vcl_defer_map(command_queue, buffer, blocking_map,
				     map_flags, offset, size,
				     num_events_in_wait_list, event_wait_list,
				     event, at, errcode_ret);
	}
	t0 = vcl_now_ns();
	err = vcl_wait_for(command_queue, num_events_in_wait_list,
			   event_wait_list);
	if (err)
		goto fail;
	err = CL_OUT_OF_HOST_MEMORY;
	mp = calloc(1, sizeof(*mp));
	if (!mp)
		goto fail;
	root = root_of(buffer);
	start = buffer->origin + offset;
	mp->ptr = map_ptr(buffer, offset);
	if (!mp->ptr)
		goto fail;
	/*
	 * Only the mapped bytes move, so that maps of the buffer's other
	 * bytes, and kernels using those, are left alone; a map that only
	 * writes (CL_MAP_WRITE_INVALIDATE_REGION) moves none.
	 */
	if (!(map_flags & CL_MAP_WRITE_INVALIDATE_REGION))
		r = vmgpu_rt_buffer_read(p->rt, root->buf, start, mp->ptr,
					 size);
	err = CL_MAP_FAILURE;
	if (r)
		goto fail;
	mp->flags = map_flags;
	mp->start = start;
	mp->size = size;
	pthread_mutex_lock(&root->lock);
	mp->next = root->maps;
	root->maps = mp;
	pthread_mutex_unlock(&root->lock);
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
	struct vcl_map **pp, *mp = NULL;
	struct _cl_mem *root;
	cl_int err = check_queue_mem(command_queue, memobj);
	cl_ulong t0;
	int r = 0;

	if (err)
		return err;
	if (vcl_deferred(command_queue, num_events_in_wait_list,
			 event_wait_list))
		return vcl_defer_unmap(command_queue, memobj, mapped_ptr,
				       num_events_in_wait_list, event_wait_list,
				       event);
	t0 = vcl_now_ns();
	err = vcl_wait_for(command_queue, num_events_in_wait_list,
			   event_wait_list);
	if (err)
		return err;
	root = root_of(memobj);
	pthread_mutex_lock(&root->lock);
	for (pp = &root->maps; *pp; pp = &(*pp)->next)
		if ((*pp)->ptr == mapped_ptr) {
			mp = *pp;
			*pp = mp->next;
			break;
		}
	pthread_mutex_unlock(&root->lock);
	if (!mp)
		return CL_INVALID_VALUE;
	/* What the map let the program write goes back: those bytes only. */
	if (mp->flags & ~CL_MAP_READ)
		r = vmgpu_rt_buffer_write(p->rt, root->buf, mp->start, mp->ptr,
					  mp->size);
	free(mp);
	return end(command_queue, CL_COMMAND_UNMAP_MEM_OBJECT, r, t0, event);
}

/*
 * The runtime moves a buffer's bytes to where a kernel runs when it runs,
 * so a migration only orders: it is done when what it waits for is.
 */
cl_int vcl_clEnqueueMigrateMemObjects(cl_command_queue command_queue,
				      cl_uint num_mem_objects,
				      const cl_mem *mem_objects,
				      cl_mem_migration_flags flags,
				      cl_uint num_events_in_wait_list,
				      const cl_event *event_wait_list,
				      cl_event *event)
{
	const cl_mem_migration_flags known = CL_MIGRATE_MEM_OBJECT_HOST |
		CL_MIGRATE_MEM_OBJECT_CONTENT_UNDEFINED;
	struct _cl_platform_id *p = vcl_platform(NULL);
	cl_ulong t0 = vcl_now_ns();
	cl_uint i;
	cl_int err;

	if (!vcl_obj_get(p, command_queue, VCL_QUEUE, false))
		return CL_INVALID_COMMAND_QUEUE;
	if (!num_mem_objects || !mem_objects || (flags & ~known))
		return CL_INVALID_VALUE;
	for (i = 0; i < num_mem_objects; i++) {
		if (!vcl_obj_get(p, mem_objects[i], VCL_MEM, false))
			return CL_INVALID_MEM_OBJECT;
		if (mem_objects[i]->ctx != command_queue->ctx)
			return CL_INVALID_CONTEXT;
	}
	if (vcl_deferred(command_queue, num_events_in_wait_list,
			 event_wait_list))
		return vcl_defer_migrate(command_queue, num_mem_objects,
					 mem_objects, flags,
					 num_events_in_wait_list,
					 event_wait_list, event);
	err = vcl_wait_for(command_queue, num_events_in_wait_list,
			   event_wait_list);
	if (err < 0 && err != CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST)
		return err;
	return end(command_queue, CL_COMMAND_MIGRATE_MEM_OBJECTS, 0, t0, event);
}
