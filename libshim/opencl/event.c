// SPDX-License-Identifier: MIT
/*
 * libvmgpu-opencl: events and the order of a queue's commands.
 *
 * A kernel's event is the runtime's instance event: the runtime runs the
 * instance when its data is ready and stamps it on the virtual clock. The
 * other commands (reads, writes, copies, fills, maps, markers) are done
 * on the host at enqueue time, after what they wait for: their event is
 * complete when the call returns — unless they wait for a user event
 * (then defer.c runs them later, and their event is a deferred one). A command waits for its wait list and,
 * in an in-order queue, for the queue's previous command; the runtime
 * orders kernels by the buffers they use besides.
 *
 * Profiling. A kernel's CL_PROFILING_COMMAND_START and _END are the
 * instance's start and end on the device's virtual clock (ns), QUEUED and
 * SUBMIT the virtual time the instance was ready at (its start less the
 * time moving its buffers took); a host command's four stamps are the
 * host's monotonic clock around its work.
 */
#include <stdlib.h>
#include <time.h>

#include "opencl_internal.h"

/*
 * User events and deferred commands (defer.c) have no runtime event:
 * their status is under vcl_ev_lock, and vcl_ev_cond is broadcast at
 * each change; a wait for one waits on it. Their callbacks, and those of
 * every other event, are called on a thread of the platform made for
 * them (cb_thread), with no lock held, holding a reference to the event
 * until the last returned: a callback may call OpenCL, release its event
 * included.
 */
pthread_mutex_t vcl_ev_lock = PTHREAD_MUTEX_INITIALIZER;
pthread_cond_t vcl_ev_cond = PTHREAD_COND_INITIALIZER;
unsigned long vcl_ev_undone;
__thread bool vcl_in_worker;

struct vcl_event_cb {
	void (CL_CALLBACK *fn)(cl_event, cl_int, void *);
	void *user_data;
	cl_int type;			/* CL_SUBMITTED, CL_RUNNING, CL_COMPLETE */
	struct vcl_event_cb *next;
};

cl_ulong vcl_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (cl_ulong)ts.tv_sec * 1000000000ull + (cl_ulong)ts.tv_nsec;
}

struct _cl_event *vcl_event_new(struct _cl_command_queue *q,
				cl_command_type type, vmgpu_rt_handle rtev,
				cl_int status, cl_ulong queued_ns)
{
	struct _cl_event *e = calloc(1, sizeof(*e));

	if (!e)
		return NULL;
	e->dispatch = &vcl_dispatch;
	e->o.kind = VCL_EVENT;
	e->o.refs = 1;
	e->ctx = q->ctx;
	e->queue = q;
	e->type = type;
	e->rtev = rtev;
	e->status = status;
	e->queued_ns = e->submit_ns = e->start_ns = queued_ns;
	e->end_ns = vcl_now_ns();
	if (vcl_obj_add(q->ctx->platform, e)) {
		free(e);
		return NULL;
	}
	vcl_context_get(q->ctx);
	return e;
}

struct _cl_event *vcl_event_deferred(struct _cl_context *c,
				     struct _cl_command_queue *q,
				     cl_command_type type, cl_int status)
{
	struct _cl_event *e = calloc(1, sizeof(*e));

	if (!e)
		return NULL;
	e->dispatch = &vcl_dispatch;
	e->o.kind = VCL_EVENT;
	e->o.refs = 1;
	e->ctx = c;
	e->queue = q;
	e->type = type;
	e->status = status;
	e->deferred = true;
	e->queued_ns = vcl_now_ns();
	if (vcl_obj_add(c->platform, e)) {
		free(e);
		return NULL;
	}
	vcl_context_get(c);
	__atomic_add_fetch(&vcl_ev_undone, 1, __ATOMIC_SEQ_CST);
	return e;
}

bool vcl_event_undone(struct _cl_event *e)
{
	bool r;

	if (!e->deferred)
		return false;
	pthread_mutex_lock(&vcl_ev_lock);
	r = e->status > CL_COMPLETE;
	pthread_mutex_unlock(&vcl_ev_lock);
	return r;
}

static void event_free(struct _cl_event *e);

struct cb_job {
	struct _cl_event *e;		/* a reference */
	struct vcl_event_cb *cbs;
};

/* Wait until @e reached @type (or failed); its status then. */
static cl_int exec_status(struct _cl_event *e);
static cl_int reach(struct _cl_event *e, cl_int type)
{
	struct timespec ts = { 0, 50000 };
	cl_int st;

	for (;;) {
		st = exec_status(e);
		if (st <= type)
			return st;
		if (e->deferred) {
			pthread_mutex_lock(&vcl_ev_lock);
			while (e->status > type)
				pthread_cond_wait(&vcl_ev_cond, &vcl_ev_lock);
			st = e->status;
			pthread_mutex_unlock(&vcl_ev_lock);
			return st;
		}
		if (type == CL_COMPLETE)
			return vcl_event_wait(e);
		nanosleep(&ts, NULL);
	}
}

static void *cb_thread(void *arg)
{
	struct cb_job *j = arg;
	struct vcl_event_cb *cb, *next;
	cl_int st;

	for (cb = j->cbs; cb; cb = next) {
		next = cb->next;
		st = reach(j->e, cb->type);
		cb->fn(j->e, st < 0 ? st : cb->type, cb->user_data);
		free(cb);
	}
	vcl_event_put(j->e);
	free(j);
	return NULL;
}

/* Call @cbs (in order) on a thread of their own, once @e reached each. */
static int cb_start(struct _cl_event *e, struct vcl_event_cb *cbs)
{
	struct cb_job *j;
	pthread_attr_t attr;
	pthread_t t;
	int r;

	if (!cbs)
		return 0;
	j = malloc(sizeof(*j));
	if (!j)
		return -1;
	vcl_obj_get(e->ctx->platform, e, VCL_EVENT, true);
	j->e = e;
	j->cbs = cbs;
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	r = pthread_create(&t, &attr, cb_thread, j);
	pthread_attr_destroy(&attr);
	if (r) {
		vcl_event_put(e);
		free(j);
		return -1;
	}
	return 0;
}

bool vcl_event_set(struct _cl_event *e, cl_int status, struct _cl_event *fwd)
{
	struct vcl_event_cb *cb, **pp, *due = NULL, **tail = &due;
	bool final = status <= CL_COMPLETE, set = false;

	pthread_mutex_lock(&vcl_ev_lock);
	if (fwd && !e->fwd) {
		e->fwd = fwd;
		fwd = NULL;
	}
	if (e->status > CL_COMPLETE) {
		set = true;
		e->status = status;
		if (final)
			__atomic_sub_fetch(&vcl_ev_undone, 1,
					   __ATOMIC_SEQ_CST);
	}
	/* The callbacks now due, in the order registered. */
	for (pp = &e->cbs; (cb = *pp);) {
		if (status <= cb->type) {
			*pp = cb->next;
			cb->next = NULL;
			*tail = cb;
			tail = &cb->next;
		} else {
			pp = &cb->next;
		}
	}
	pthread_cond_broadcast(&vcl_ev_cond);
	pthread_mutex_unlock(&vcl_ev_lock);
	vcl_event_put(fwd);	/* NULL, or not taken */
	if (cb_start(e, due))
		for (cb = due; cb; cb = due) {
			due = cb->next;
			free(cb);
		}
	return set;
}

static void event_free(struct _cl_event *e)
{
	struct _cl_context *c = e->ctx;
	struct vcl_event_cb *cb, *next;

	for (cb = e->cbs; cb; cb = next) {
		next = cb->next;
		free(cb);
	}
	if (e->deferred && e->status > CL_COMPLETE)
		__atomic_sub_fetch(&vcl_ev_undone, 1, __ATOMIC_SEQ_CST);
	vcl_event_put(e->fwd);
	if (e->rtev)
		vmgpu_rt_release(c->platform->rt, e->rtev);
	free(e);
	vcl_context_put(c);
}

void vcl_event_put(struct _cl_event *e)
{
	if (e && vcl_obj_release(e->ctx->platform, e, VCL_EVENT) == 1)
		event_free(e);
}

/* A kernel's runtime error as OpenCL's execution status. */
static cl_int status_of(int err)
{
	return err ? CL_OUT_OF_RESOURCES : CL_COMPLETE;
}

cl_int vcl_event_wait(struct _cl_event *e)
{
	cl_int st;

	if (e->deferred) {
		pthread_mutex_lock(&vcl_ev_lock);
		while (e->status > CL_COMPLETE)
			pthread_cond_wait(&vcl_ev_cond, &vcl_ev_lock);
		st = e->status;
		pthread_mutex_unlock(&vcl_ev_lock);
		return st;
	}
	if (!e->rtev)
		return e->status;
	return status_of(vmgpu_rt_wait(e->ctx->platform->rt, e->rtev, -1));
}

cl_int vcl_wait_for(struct _cl_command_queue *q, cl_uint n,
		    const cl_event *list)
{
	struct _cl_platform_id *p = q->ctx->platform;
	struct _cl_event *last = NULL;
	cl_int ret = CL_SUCCESS;
	cl_uint i;

	if ((n && !list) || (!n && list))
		return CL_INVALID_EVENT_WAIT_LIST;
	for (i = 0; i < n; i++) {
		if (!vcl_obj_get(p, list[i], VCL_EVENT, false))
			return CL_INVALID_EVENT_WAIT_LIST;
		if (list[i]->ctx != q->ctx)
			return CL_INVALID_CONTEXT;
	}
	for (i = 0; i < n; i++)
		if (vcl_event_wait(list[i]) < 0)
			ret = CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST;
	/* The worker ran the command after its predecessor already. */
	if (!(q->props & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE) &&
	    !vcl_in_worker) {
		pthread_mutex_lock(&q->lock);
		last = q->last;
		if (last)
			vcl_obj_get(p, last, VCL_EVENT, true);
		pthread_mutex_unlock(&q->lock);
		if (last) {
			vcl_event_wait(last);
			vcl_event_put(last);
		}
	}
	return ret;
}

void vcl_command_done(struct _cl_command_queue *q, struct _cl_event *e,
		      cl_event *out)
{
	struct _cl_event *old;

	/* A deferred command's own event: the worker's, not the queue's. */
	if (vcl_in_worker) {
		if (out)
			*out = e;
		else
			vcl_event_put(e);
		return;
	}
	if (out) {
		vcl_obj_get(q->ctx->platform, e, VCL_EVENT, true);
		*out = e;
	}
	pthread_mutex_lock(&q->lock);
	old = q->last;
	q->last = e;
	pthread_mutex_unlock(&q->lock);
	vcl_event_put(old);
}

cl_int vcl_clWaitForEvents(cl_uint num_events, const cl_event *event_list)
{
	struct _cl_platform_id *p = vcl_platform(NULL);
	cl_int ret = CL_SUCCESS;
	cl_uint i;

	if (!num_events || !event_list)
		return CL_INVALID_VALUE;
	for (i = 0; i < num_events; i++) {
		if (!vcl_obj_get(p, event_list[i], VCL_EVENT, false))
			return CL_INVALID_EVENT;
		if (event_list[i]->ctx != event_list[0]->ctx)
			return CL_INVALID_CONTEXT;
	}
	for (i = 0; i < num_events; i++)
		if (vcl_event_wait(event_list[i]) < 0)
			ret = CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST;
	return ret;
}

cl_int vcl_clRetainEvent(cl_event event)
{
	return vcl_obj_get(vcl_platform(NULL), event, VCL_EVENT, true) ?
	       CL_SUCCESS : CL_INVALID_EVENT;
}

cl_int vcl_clReleaseEvent(cl_event event)
{
	switch (vcl_obj_release(vcl_platform(NULL), event, VCL_EVENT)) {
	case 1:
		event_free(event);
		return CL_SUCCESS;
	case 0:
		return CL_SUCCESS;
	default:
		return CL_INVALID_EVENT;
	}
}

/* Where a kernel's event is now, as OpenCL's execution status. */
static cl_int exec_status(struct _cl_event *e)
{
	struct vmgpu_rt_event_info info;
	cl_int st;

	if (e->deferred) {
		pthread_mutex_lock(&vcl_ev_lock);
		st = e->status;
		pthread_mutex_unlock(&vcl_ev_lock);
		return st;
	}
	if (!e->rtev)
		return e->status;
	if (vmgpu_rt_event_query(e->ctx->platform->rt, e->rtev, &info))
		return CL_OUT_OF_RESOURCES;
	switch (info.state) {
	case VMGPU_RT_EVENT_QUEUED:
		return CL_QUEUED;
	case VMGPU_RT_EVENT_SUBMITTED:
		return CL_SUBMITTED;
	case VMGPU_RT_EVENT_RUNNING:
		return CL_RUNNING;
	default:
		return status_of(info.error);
	}
}

cl_int vcl_clGetEventInfo(cl_event event, cl_event_info param_name,
			  size_t param_value_size, void *param_value,
			  size_t *param_value_size_ret)
{
	struct _cl_platform_id *p = vcl_platform(NULL);
	cl_int err, st;
	cl_uint refs;

	if (!vcl_obj_get(p, event, VCL_EVENT, true))
		return CL_INVALID_EVENT;
	switch (param_name) {
	case CL_EVENT_COMMAND_QUEUE:
		err = vcl_info(&event->queue, sizeof(cl_command_queue),
			       param_value_size, param_value,
			       param_value_size_ret);
		break;
	case CL_EVENT_CONTEXT:
		err = vcl_info(&event->ctx, sizeof(cl_context),
			       param_value_size, param_value,
			       param_value_size_ret);
		break;
	case CL_EVENT_COMMAND_TYPE:
		err = vcl_info(&event->type, sizeof(cl_command_type),
			       param_value_size, param_value,
			       param_value_size_ret);
		break;
	case CL_EVENT_COMMAND_EXECUTION_STATUS:
		st = exec_status(event);
		err = vcl_info(&st, sizeof(st), param_value_size, param_value,
			       param_value_size_ret);
		break;
	case CL_EVENT_REFERENCE_COUNT:
		pthread_mutex_lock(&p->lock);
		refs = event->o.refs - 1;
		pthread_mutex_unlock(&p->lock);
		err = vcl_info(&refs, sizeof(refs), param_value_size,
			       param_value, param_value_size_ret);
		break;
	default:
		err = CL_INVALID_VALUE;
	}
	vcl_event_put(event);
	return err;
}

cl_int vcl_clGetEventProfilingInfo(cl_event event,
				   cl_profiling_info param_name,
				   size_t param_value_size, void *param_value,
				   size_t *param_value_size_ret)
{
	struct _cl_platform_id *p = vcl_platform(NULL);
	struct vmgpu_rt_event_info info;
	cl_ulong v[4];
	cl_int err = CL_SUCCESS;

	if (!vcl_obj_get(p, event, VCL_EVENT, true))
		return CL_INVALID_EVENT;
	if (!event->queue ||
	    !(event->queue->props & CL_QUEUE_PROFILING_ENABLE)) {
		vcl_event_put(event);
		return CL_PROFILING_INFO_NOT_AVAILABLE;
	}
	/* A deferred command's stamps: those of the command it ran. */
	if (event->deferred) {
		err = exec_status(event) == CL_COMPLETE && event->fwd ?
		      vcl_clGetEventProfilingInfo(event->fwd, param_name,
						  param_value_size,
						  param_value,
						  param_value_size_ret) :
		      CL_PROFILING_INFO_NOT_AVAILABLE;
		vcl_event_put(event);
		return err;
	}
	v[0] = event->queued_ns;
	v[1] = event->submit_ns;
	v[2] = event->start_ns;
	v[3] = event->end_ns;
	if (event->rtev) {
		if (vmgpu_rt_event_query(p->rt, event->rtev, &info) ||
		    info.state != VMGPU_RT_EVENT_COMPLETE) {
			err = CL_PROFILING_INFO_NOT_AVAILABLE;
		} else {
			v[2] = info.start_ns + info.transfer_ns;
			v[3] = info.end_ns;
			v[0] = v[1] = info.start_ns;
		}
	}
	if (!err) {
		switch (param_name) {
		case CL_PROFILING_COMMAND_QUEUED:
			err = vcl_info(&v[0], sizeof(cl_ulong), param_value_size,
				       param_value, param_value_size_ret);
			break;
		case CL_PROFILING_COMMAND_SUBMIT:
			err = vcl_info(&v[1], sizeof(cl_ulong), param_value_size,
				       param_value, param_value_size_ret);
			break;
		case CL_PROFILING_COMMAND_START:
			err = vcl_info(&v[2], sizeof(cl_ulong), param_value_size,
				       param_value, param_value_size_ret);
			break;
		case CL_PROFILING_COMMAND_END:
			err = vcl_info(&v[3], sizeof(cl_ulong), param_value_size,
				       param_value, param_value_size_ret);
			break;
		default:
			err = CL_INVALID_VALUE;
		}
	}
	vcl_event_put(event);
	return err;
}

cl_event vcl_clCreateUserEvent(cl_context context, cl_int *errcode_ret)
{
	struct _cl_platform_id *p = vcl_platform(NULL);
	struct _cl_event *e = NULL;
	cl_int err = CL_INVALID_CONTEXT;

	if (vcl_obj_get(p, context, VCL_CONTEXT, true)) {
		e = vcl_event_deferred(context, NULL, CL_COMMAND_USER,
				       CL_SUBMITTED);
		err = e ? CL_SUCCESS : CL_OUT_OF_HOST_MEMORY;
		vcl_context_put(context);
	}
	if (errcode_ret)
		*errcode_ret = err;
	return e;
}

cl_int vcl_clSetUserEventStatus(cl_event event, cl_int execution_status)
{
	struct _cl_platform_id *p = vcl_platform(NULL);
	cl_int err = CL_SUCCESS;

	if (!vcl_obj_get(p, event, VCL_EVENT, true))
		return CL_INVALID_EVENT;
	if (event->queue || !event->deferred)
		err = CL_INVALID_EVENT;
	else if (execution_status > CL_COMPLETE)
		err = CL_INVALID_VALUE;
	/* Once: vcl_event_set checks and sets under the same lock. */
	if (!err && !vcl_event_set(event, execution_status, NULL))
		err = CL_INVALID_OPERATION;
	vcl_event_put(event);
	return err;
}

cl_int vcl_clSetEventCallback(cl_event event, cl_int command_exec_callback_type,
			      void (CL_CALLBACK *pfn_notify)(cl_event, cl_int,
							     void *),
			      void *user_data)
{
	struct _cl_platform_id *p = vcl_platform(NULL);
	struct vcl_event_cb *cb;
	cl_int err = CL_SUCCESS;
	bool later = false;

	if (!vcl_obj_get(p, event, VCL_EVENT, true))
		return CL_INVALID_EVENT;
	if (!pfn_notify || (command_exec_callback_type != CL_SUBMITTED &&
			    command_exec_callback_type != CL_RUNNING &&
			    command_exec_callback_type != CL_COMPLETE)) {
		vcl_event_put(event);
		return CL_INVALID_VALUE;
	}
	cb = calloc(1, sizeof(*cb));
	if (!cb) {
		vcl_event_put(event);
		return CL_OUT_OF_HOST_MEMORY;
	}
	cb->fn = pfn_notify;
	cb->user_data = user_data;
	cb->type = command_exec_callback_type;
	/*
	 * A deferred event not there yet keeps it for vcl_event_set; any
	 * other gets a thread that waits for it (cb_thread).
	 */
	if (event->deferred) {
		pthread_mutex_lock(&vcl_ev_lock);
		if (event->status > cb->type) {
			struct vcl_event_cb **pp = &event->cbs;

			while (*pp)
				pp = &(*pp)->next;
			*pp = cb;
			later = true;
		}
		pthread_mutex_unlock(&vcl_ev_lock);
	}
	if (!later && cb_start(event, cb)) {
		free(cb);
		err = CL_OUT_OF_HOST_MEMORY;
	}
	vcl_event_put(event);
	return err;
}
