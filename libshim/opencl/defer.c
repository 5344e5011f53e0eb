// SPDX-License-Identifier: MIT
/*
 * libvmgpu-opencl: deferred commands. A command whose wait list holds a
 * user event or a deferred command not done yet — or, in an in-order
 * queue, whose queue still has a deferred command; in an out-of-order
 * one, a deferred barrier; for a marker or barrier with no wait list,
 * any deferred command of its queue — is not done at enqueue time: it is
 * recorded here with its arguments, the caller gets its event (a
 * deferred event, event.c) at once, and the platform's worker thread
 * runs it when what it waits for is done, calling the same entry point
 * (through the dispatch table) with an empty wait list and
 * vcl_in_worker set, so the command is exactly the synchronous one: a
 * kernel is then enqueued to the runtime, a host command done. Its
 * deferred event becomes CL_RUNNING then, and final once the command's
 * own event is (which it keeps in @fwd, for profiling). A failed event of
 * the wait list fails the command without running it, with
 * CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST. A blocking read, write or
 * map waits for its deferred event before returning (a map always does:
 * its pointer is known only then).
 *
 * The fast path: vcl_ev_undone (deferred events not final) is 0 unless a
 * user event or a deferred command is about, and a hook reads only it.
 *
 * Lifetimes. A deferred command (struct cmd) holds a reference to its
 * queue, to each buffer it names, to the kernel it enqueues, to the
 * buffers that kernel's arguments name, to each event it waits for and
 * to its own deferred event; the arguments of a kernel are copied at
 * enqueue time into a clone of the kernel (a live object no program
 * sees, freed with the command), since the program may set others
 * before it runs. A fill's pattern is copied. The worker drops every
 * reference after the command is done, the queue's last: unless that is
 * the queue's last reference (then released unlocked), in the same hold
 * of vcl_ev_lock that takes the command off the list and the queue's
 * ndeferred. So a clFinish of the queue returns with none of them held.
 *
 * Locks. vcl_ev_lock (event.c) guards the list of deferred commands, the
 * queues' ndeferred and nbarriers and every deferred event's status and
 * callbacks; vcl_ev_cond is broadcast at each change, and the worker and
 * every wait for a deferred event or a queue's deferred commands wait on
 * it. It is taken before the platform's lock or a queue's, never after.
 * No lock is held while the worker waits for an event, calls an entry
 * point or the runtime, or while a callback runs (cb_thread).
 */
#include <stdlib.h>
#include <string.h>

#include "opencl_internal.h"

enum cmd_kind { C_READ, C_WRITE, C_COPY, C_FILL, C_MAP, C_UNMAP, C_KERNEL,
		C_MARKER, C_RECT, C_MIGRATE };

struct cmd {
	struct cmd *next;
	enum cmd_kind kind;
	bool running;
	cl_command_type type;
	struct _cl_command_queue *q;
	struct _cl_event *ev;
	struct _cl_event **deps;
	cl_uint ndeps, nwait;		/* the first nwait: its wait list */
	struct _cl_mem *m, *m2;
	struct _cl_kernel *k, *clone;
	struct _cl_mem **argmem;
	cl_uint nargmem;
	cl_map_flags flags;
	size_t off, off2, size, psize;
	void *ptr;
	const void *cptr;
	unsigned char pattern[128];
	cl_uint dim;
	bool has_offset, has_local;
	size_t offset[3], global[3], local[3];
	void **mapped;			/* a map's: the caller's, who waits */
	struct vcl_rect rect;		/* a Rect read's, write's, copy's */
	cl_mem_migration_flags migrate;	/* a migration's (buffers: argmem) */
};

static struct cmd *pending;		/* in enqueue order */
static bool worker_started;

static bool needed(cl_command_queue q, cl_uint n, const cl_event *list,
		   bool all)
{
	struct _cl_platform_id *p;
	cl_uint i;
	bool r;

	if (!__atomic_load_n(&vcl_ev_undone, __ATOMIC_SEQ_CST) ||
	    vcl_in_worker)
		return false;
	p = vcl_platform(NULL);
	/* What the command refuses, it refuses itself. */
	if (!vcl_obj_get(p, q, VCL_QUEUE, false) || (n && !list) ||
	    (!n && list))
		return false;
	for (i = 0; i < n; i++)
		if (!vcl_obj_get(p, list[i], VCL_EVENT, false) ||
		    list[i]->ctx != q->ctx)
			return false;
	for (i = 0; i < n; i++)
		if (vcl_event_undone(list[i]))
			return true;
	pthread_mutex_lock(&vcl_ev_lock);
	r = q->nbarriers || (q->ndeferred &&
			     (all || !(q->props &
				       CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE)));
	pthread_mutex_unlock(&vcl_ev_lock);
	return r;
}

bool vcl_deferred(cl_command_queue q, cl_uint n, const cl_event *list)
{
	return needed(q, n, list, false);
}

bool vcl_deferred_marker(cl_command_queue q, cl_uint n, const cl_event *list)
{
	return needed(q, n, list, !n);
}

static cl_int rect_call(struct cmd *c, cl_event *inner)
{
	const struct _cl_icd_dispatch *d = c->q->dispatch;
	const struct vcl_rect *r = &c->rect;

	switch (c->type) {
	case CL_COMMAND_READ_BUFFER_RECT:
		return d->clEnqueueReadBufferRect(c->q, c->m, CL_FALSE, r->o1,
						  r->o2, r->region, r->rp1,
						  r->sp1, r->rp2, r->sp2,
						  r->ptr, 0, NULL, inner);
	case CL_COMMAND_WRITE_BUFFER_RECT:
		return d->clEnqueueWriteBufferRect(c->q, c->m, CL_FALSE, r->o1,
						   r->o2, r->region, r->rp1,
						   r->sp1, r->rp2, r->sp2,
						   r->ptr, 0, NULL, inner);
	default:
		return d->clEnqueueCopyBufferRect(c->q, c->m, c->m2, r->o1,
						  r->o2, r->region, r->rp1,
						  r->sp1, r->rp2, r->sp2, 0,
						  NULL, inner);
	}
}

/* Run @c's command as the synchronous one; its own event to *@inner. */
static cl_int call(struct cmd *c, cl_event *inner)
{
	const struct _cl_icd_dispatch *d = c->q->dispatch;
	cl_int err = CL_SUCCESS;
	void *ptr;

	switch (c->kind) {
	case C_READ:
		return d->clEnqueueReadBuffer(c->q, c->m, CL_FALSE, c->off,
					      c->size, c->ptr, 0, NULL, inner);
	case C_WRITE:
		return d->clEnqueueWriteBuffer(c->q, c->m, CL_FALSE, c->off,
					       c->size, c->cptr, 0, NULL,
					       inner);
	case C_COPY:
		return d->clEnqueueCopyBuffer(c->q, c->m, c->m2, c->off,
					      c->off2, c->size, 0, NULL,
					      inner);
	case C_FILL:
		return d->clEnqueueFillBuffer(c->q, c->m,
					      c->cptr ? c->pattern : NULL,
					      c->psize, c->off, c->size, 0,
					      NULL, inner);
	case C_MAP:
		ptr = d->clEnqueueMapBuffer(c->q, c->m, CL_FALSE, c->flags,
					    c->off, c->size, 0, NULL, inner,
					    &err);
		*c->mapped = ptr;
		return err;
	case C_UNMAP:
		return d->clEnqueueUnmapMemObject(c->q, c->m, c->ptr, 0, NULL,
						  inner);
	case C_KERNEL:
		return d->clEnqueueNDRangeKernel(c->q, c->clone, c->dim,
						 c->has_offset ? c->offset :
						 NULL, c->global,
						 c->has_local ? c->local :
						 NULL, 0, NULL, inner);
	case C_RECT:
		return rect_call(c, inner);
	case C_MIGRATE:
		return d->clEnqueueMigrateMemObjects(c->q, c->nargmem,
						     c->argmem, c->migrate,
						     0, NULL, inner);
	case C_MARKER:
		return c->type == CL_COMMAND_BARRIER ?
		       d->clEnqueueBarrierWithWaitList(c->q, 0, NULL, inner) :
		       d->clEnqueueMarkerWithWaitList(c->q, 0, NULL, inner);
	}
	return CL_INVALID_OPERATION;
}

static void run(struct cmd *c)
{
	struct _cl_event *inner = NULL;
	cl_int st = CL_COMPLETE, r;
	cl_uint i;

	for (i = 0; i < c->ndeps; i++)
		if (vcl_event_wait(c->deps[i]) < 0 && i < c->nwait)
			st = CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST;
	if (st == CL_COMPLETE) {
		vcl_event_set(c->ev, CL_RUNNING, NULL);
		vcl_in_worker = true;
		r = call(c, &inner);
		vcl_in_worker = false;
		if (r)
			st = r < 0 ? r : CL_OUT_OF_RESOURCES;
		else if (inner)
			st = vcl_event_wait(inner);
	}
	vcl_event_set(c->ev, st, inner);
}

/* Drop every reference of @c but its queue's. */
static void drop_objects(struct cmd *c)
{
	const struct _cl_icd_dispatch *d = c->q->dispatch;
	struct _cl_platform_id *p = c->q->ctx->platform;
	cl_uint i;

	for (i = 0; i < c->ndeps; i++)
		vcl_event_put(c->deps[i]);
	free(c->deps);
	for (i = 0; i < c->nargmem; i++)
		d->clReleaseMemObject(c->argmem[i]);
	free(c->argmem);
	if (c->clone) {
		vcl_obj_remove(p, c->clone);
		vcl_kernel_args_free(c->clone->args, c->clone->nparams);
		free(c->clone->args);
		free(c->clone);
	}
	if (c->k)
		d->clReleaseKernel(c->k);
	if (c->m)
		d->clReleaseMemObject(c->m);
	if (c->m2)
		d->clReleaseMemObject(c->m2);
	vcl_event_put(c->ev);
}

/* A command never recorded: every reference dropped, @c freed. */
static void drop(struct cmd *c)
{
	struct _cl_command_queue *q = c->q;

	drop_objects(c);
	free(c);
	q->dispatch->clReleaseCommandQueue(q);
}

/* Whether every deferred event @c waits for is final. Under the lock. */
static bool ready(const struct cmd *c)
{
	cl_uint i;

	for (i = 0; i < c->ndeps; i++)
		if (c->deps[i]->deferred && c->deps[i]->status > CL_COMPLETE)
			return false;
	return true;
}

static void *worker(void *arg)
{
	struct _cl_command_queue *q;
	struct cmd *c, **pp;
	bool last;

	(void)arg;
	pthread_mutex_lock(&vcl_ev_lock);
	for (;;) {
		for (c = pending; c; c = c->next)
			if (!c->running && ready(c))
				break;
		if (!c) {
			pthread_cond_wait(&vcl_ev_cond, &vcl_ev_lock);
			continue;
		}
		c->running = true;
		pthread_mutex_unlock(&vcl_ev_lock);
		run(c);
		q = c->q;
		drop_objects(c);
		/*
		 * Off the queue's count only with every reference gone, the
		 * queue's own included: a clFinish that returns leaves no
		 * object of the queue's commands held here.
		 */
		pthread_mutex_lock(&vcl_ev_lock);
		for (pp = &pending; *pp != c; pp = &(*pp)->next)
			;
		*pp = c->next;
		q->ndeferred--;
		if (c->type == CL_COMMAND_BARRIER)
			q->nbarriers--;
		/*
		 * The last reference (the caller released the queue) is
		 * released unlocked, as it frees the queue; then no clFinish
		 * of it can be waiting.
		 */
		last = !vcl_obj_put_shared(q->ctx->platform, q, VCL_QUEUE);
		pthread_cond_broadcast(&vcl_ev_cond);
		pthread_mutex_unlock(&vcl_ev_lock);
		free(c);
		if (last)
			q->dispatch->clReleaseCommandQueue(q);
		pthread_mutex_lock(&vcl_ev_lock);
	}
	return NULL;
}

/*
 * Record @c (its queue's reference taken, its objects' too) behind its
 * wait list and what its queue's order puts before it; its event to
 * *@event. @all: behind every command of the queue.
 */
static cl_int defer(struct cmd *c, cl_uint n, const cl_event *list,
		    bool all, cl_event *event, bool blocking)
{
	struct _cl_command_queue *q = c->q;
	struct _cl_platform_id *p = q->ctx->platform;
	struct _cl_event *e, *last = NULL;
	struct cmd *o;
	cl_uint i, max;
	cl_int st;

	if (!(q->props & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE)) {
		pthread_mutex_lock(&q->lock);
		last = q->last;
		if (last)
			vcl_obj_get(p, last, VCL_EVENT, true);
		pthread_mutex_unlock(&q->lock);
	}
	e = vcl_event_deferred(q->ctx, q, c->type, CL_QUEUED);
	if (!e) {
		vcl_event_put(last);
		drop(c);
		return CL_OUT_OF_HOST_MEMORY;
	}
	vcl_obj_get(p, e, VCL_EVENT, true);
	c->ev = e;
	pthread_mutex_lock(&vcl_ev_lock);
	max = n + 1;
	for (o = pending; o; o = o->next)
		max++;
	c->deps = calloc(max, sizeof(*c->deps));
	if (!c->deps) {
		pthread_mutex_unlock(&vcl_ev_lock);
		vcl_event_put(last);
		vcl_event_set(e, CL_OUT_OF_HOST_MEMORY, NULL);
		vcl_event_put(e);
		drop(c);
		return CL_OUT_OF_HOST_MEMORY;
	}
	for (i = 0; i < n; i++) {
		vcl_obj_get(p, list[i], VCL_EVENT, true);
		c->deps[c->ndeps++] = list[i];
	}
	c->nwait = n;
	if (last)
		c->deps[c->ndeps++] = last;
	for (o = pending; o; o = o->next)
		if (o->q == q && (all || o->type == CL_COMMAND_BARRIER)) {
			vcl_obj_get(p, o->ev, VCL_EVENT, true);
			c->deps[c->ndeps++] = o->ev;
		}
	c->next = NULL;
	for (o = pending; o && o->next; o = o->next)
		;
	*(o ? &o->next : &pending) = c;
	q->ndeferred++;
	if (c->type == CL_COMMAND_BARRIER)
		q->nbarriers++;
	if (!worker_started) {
		pthread_attr_t attr;
		pthread_t t;

		pthread_attr_init(&attr);
		pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
		worker_started = !pthread_create(&t, &attr, worker, NULL);
		pthread_attr_destroy(&attr);
	}
	pthread_cond_broadcast(&vcl_ev_cond);
	pthread_mutex_unlock(&vcl_ev_lock);
	/* The creation reference becomes the queue's last command's. */
	vcl_command_done(q, e, event);
	if (!blocking)
		return CL_SUCCESS;
	st = vcl_event_wait(e);
	return st < 0 ? st : CL_SUCCESS;
}

/* A new command of @q on buffers @m and @m2 (either NULL). */
static cl_int cmd_new(struct cmd **cp, enum cmd_kind kind,
		      cl_command_type type, cl_command_queue q, cl_mem m,
		      cl_mem m2)
{
	struct _cl_platform_id *p = q->ctx->platform;
	struct cmd *c;

	if ((m && !vcl_obj_get(p, m, VCL_MEM, false)) ||
	    (m2 && !vcl_obj_get(p, m2, VCL_MEM, false)))
		return CL_INVALID_MEM_OBJECT;
	c = calloc(1, sizeof(*c));
	if (!c)
		return CL_OUT_OF_HOST_MEMORY;
	if (!vcl_obj_get(p, q, VCL_QUEUE, true)) {
		free(c);
		return CL_INVALID_COMMAND_QUEUE;
	}
	c->kind = kind;
	c->type = type;
	c->q = q;
	if (m && vcl_obj_get(p, m, VCL_MEM, true))
		c->m = m;
	if (m2 && vcl_obj_get(p, m2, VCL_MEM, true))
		c->m2 = m2;
	*cp = c;
	return CL_SUCCESS;
}

cl_int vcl_defer_read(cl_command_queue q, cl_mem m, cl_bool blocking,
		      size_t offset, size_t size, void *ptr, cl_uint n,
		      const cl_event *list, cl_event *event)
{
	struct cmd *c;
	cl_int err = cmd_new(&c, C_READ, CL_COMMAND_READ_BUFFER, q, m, NULL);

	if (err)
		return err;
	c->off = offset;
	c->size = size;
	c->ptr = ptr;
	return defer(c, n, list, false, event, blocking);
}

cl_int vcl_defer_write(cl_command_queue q, cl_mem m, cl_bool blocking,
		       size_t offset, size_t size, const void *ptr, cl_uint n,
		       const cl_event *list, cl_event *event)
{
	struct cmd *c;
	cl_int err = cmd_new(&c, C_WRITE, CL_COMMAND_WRITE_BUFFER, q, m, NULL);

	if (err)
		return err;
	c->off = offset;
	c->size = size;
	c->cptr = ptr;
	return defer(c, n, list, false, event, blocking);
}

cl_int vcl_defer_copy(cl_command_queue q, cl_mem src, cl_mem dst,
		      size_t src_offset, size_t dst_offset, size_t size,
		      cl_uint n, const cl_event *list, cl_event *event)
{
	struct cmd *c;
	cl_int err = cmd_new(&c, C_COPY, CL_COMMAND_COPY_BUFFER, q, src, dst);

	if (err)
		return err;
	c->off = src_offset;
	c->off2 = dst_offset;
	c->size = size;
	return defer(c, n, list, false, event, false);
}

cl_int vcl_defer_fill(cl_command_queue q, cl_mem m, const void *pattern,
		      size_t pattern_size, size_t offset, size_t size,
		      cl_uint n, const cl_event *list, cl_event *event)
{
	struct cmd *c;
	cl_int err = cmd_new(&c, C_FILL, CL_COMMAND_FILL_BUFFER, q, m, NULL);

	if (err)
		return err;
	c->off = offset;
	c->size = size;
	c->psize = pattern_size;
	c->cptr = pattern;
	if (pattern && pattern_size <= sizeof(c->pattern))
		memcpy(c->pattern, pattern, pattern_size);
	return defer(c, n, list, false, event, false);
}

/* @at: where a map that does not block maps (memory.c), given at once. */
void *vcl_defer_map(cl_command_queue q, cl_mem m, cl_bool blocking,
		    cl_map_flags flags, size_t offset, size_t size, cl_uint n,
		    const cl_event *list, cl_event *event, void *at,
		    cl_int *errcode_ret)
{
	void *mapped = blocking ? NULL : at;
	struct cmd *c;
	cl_int err = cmd_new(&c, C_MAP, CL_COMMAND_MAP_BUFFER, q, m, NULL);

	if (!err) {
		c->flags = flags;
		c->off = offset;
		c->size = size;
		c->mapped = blocking ? &mapped : &c->ptr;
		err = defer(c, n, list, false, event, blocking);
	}
	if (errcode_ret)
		*errcode_ret = err;
	return err ? NULL : mapped;
}

cl_int vcl_defer_unmap(cl_command_queue q, cl_mem m, void *ptr, cl_uint n,
		       const cl_event *list, cl_event *event)
{
	struct cmd *c;
	cl_int err = cmd_new(&c, C_UNMAP, CL_COMMAND_UNMAP_MEM_OBJECT, q, m,
			     NULL);

	if (err)
		return err;
	c->ptr = ptr;
	return defer(c, n, list, false, event, false);
}

cl_int vcl_defer_rect(cl_command_queue q, cl_command_type type, cl_mem m,
		      cl_mem m2, const struct vcl_rect *rect, cl_bool blocking,
		      cl_uint n, const cl_event *list, cl_event *event)
{
	struct cmd *c;
	cl_int err = cmd_new(&c, C_RECT, type, q, m, m2);

	if (err)
		return err;
	c->rect = *rect;
	return defer(c, n, list, false, event, blocking);
}

cl_int vcl_defer_migrate(cl_command_queue q, cl_uint nmem, const cl_mem *mem,
			 cl_mem_migration_flags flags, cl_uint n,
			 const cl_event *list, cl_event *event)
{
	struct _cl_platform_id *p = q->ctx->platform;
	struct cmd *c;
	cl_int err = cmd_new(&c, C_MIGRATE, CL_COMMAND_MIGRATE_MEM_OBJECTS, q,
			     NULL, NULL);
	cl_uint i;

	if (err)
		return err;
	c->argmem = calloc(nmem, sizeof(*c->argmem));
	if (!c->argmem) {
		drop(c);
		return CL_OUT_OF_HOST_MEMORY;
	}
	for (i = 0; i < nmem; i++)
		if (vcl_obj_get(p, mem[i], VCL_MEM, true))
			c->argmem[c->nargmem++] = mem[i];
	c->migrate = flags;
	return defer(c, n, list, false, event, false);
}

/* A clone of @k with the arguments it has now: a live kernel object. */
static cl_int clone_kernel(struct cmd *c, struct _cl_kernel *k)
{
	struct _cl_platform_id *p = c->q->ctx->platform;
	struct _cl_kernel *kc = malloc(sizeof(*kc));
	cl_uint i;

	if (!kc)
		return CL_OUT_OF_HOST_MEMORY;
	*kc = *k;
	kc->o.refs = 1;
	kc->args = malloc((k->nparams ? k->nparams : 1) * sizeof(*kc->args));
	c->argmem = calloc(k->nparams ? k->nparams : 1, sizeof(*c->argmem));
	if (!kc->args || !c->argmem || vcl_obj_add(p, kc)) {
		free(kc->args);
		free(kc);
		return CL_OUT_OF_HOST_MEMORY;
	}
	memcpy(kc->args, k->args, k->nparams * sizeof(*kc->args));
	if (vcl_kernel_args_dup(kc->args, k->nparams)) {
		vcl_obj_remove(p, kc);
		free(kc->args);
		free(kc);
		return CL_OUT_OF_HOST_MEMORY;
	}
	c->clone = kc;
	for (i = 0; i < k->nparams; i++)
		if (kc->args[i].set && kc->args[i].mem &&
		    vcl_obj_get(p, kc->args[i].mem, VCL_MEM, true))
			c->argmem[c->nargmem++] = kc->args[i].mem;
	return CL_SUCCESS;
}

cl_int vcl_defer_kernel(cl_command_queue q, cl_kernel k, cl_uint dim,
			const size_t *offset, const size_t *global,
			const size_t *local, cl_uint n, const cl_event *list,
			cl_event *event)
{
	struct _cl_platform_id *p = q->ctx->platform;
	struct cmd *c;
	cl_uint i;
	cl_int err;

	/* vcl_clEnqueueNDRangeKernel checked every argument before. */
	err = cmd_new(&c, C_KERNEL, CL_COMMAND_NDRANGE_KERNEL, q, NULL, NULL);
	if (err)
		return err;
	if (!vcl_obj_get(p, k, VCL_KERNEL, true)) {
		drop(c);
		return CL_INVALID_KERNEL;
	}
	c->k = k;
	err = clone_kernel(c, k);
	if (err) {
		drop(c);
		return err;
	}
	c->dim = dim;
	c->has_offset = offset;
	c->has_local = local;
	for (i = 0; i < dim; i++) {
		c->offset[i] = offset ? offset[i] : 0;
		c->global[i] = global[i];
		c->local[i] = local ? local[i] : 1;
	}
	return defer(c, n, list, false, event, false);
}

cl_int vcl_defer_marker(cl_command_queue q, cl_command_type type, cl_uint n,
			const cl_event *list, cl_event *event)
{
	struct cmd *c;
	cl_int err = cmd_new(&c, C_MARKER, type, q, NULL, NULL);

	if (err)
		return err;
	return defer(c, n, list, !n, event, false);
}

void vcl_defer_finish(struct _cl_command_queue *q)
{
	pthread_mutex_lock(&vcl_ev_lock);
	while (q->ndeferred)
		pthread_cond_wait(&vcl_ev_cond, &vcl_ev_lock);
	pthread_mutex_unlock(&vcl_ev_lock);
}
