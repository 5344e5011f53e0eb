// SPDX-License-Identifier: MIT
/*
 * libvmgpu-opencl: command queues. A queue is a runtime queue of its
 * context (kernels go there) and the order of its commands
 * (event.c): in order unless CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE,
 * then only the wait lists and the buffers' data flow order them, as the
 * runtime's data-flow queue does.
 */
#include <stdlib.h>

#include "opencl_internal.h"

static void queue_free(struct _cl_command_queue *q)
{
	struct _cl_context *c = q->ctx;

	vcl_event_put(q->last);
	if (q->rtq)
		vmgpu_rt_release(c->platform->rt, q->rtq);
	pthread_mutex_destroy(&q->lock);
	free(q);
	vcl_context_put(c);
}

cl_command_queue vcl_clCreateCommandQueue(cl_context context,
					  cl_device_id device,
					  cl_command_queue_properties properties,
					  cl_int *errcode_ret)
{
	struct _cl_platform_id *p = vcl_platform(NULL);
	const cl_command_queue_properties known =
		CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE |
		CL_QUEUE_PROFILING_ENABLE;
	struct _cl_command_queue *q;
	cl_int err;

	if (!vcl_obj_get(p, context, VCL_CONTEXT, true)) {
		err = CL_INVALID_CONTEXT;
		goto fail;
	}
	err = CL_INVALID_DEVICE;
	if (!vcl_device_valid(p, device) ||
	    !vcl_context_has_device(context, device))
		goto fail_ctx;
	err = CL_INVALID_VALUE;
	if (properties & ~known)
		goto fail_ctx;
	err = CL_OUT_OF_HOST_MEMORY;
	q = calloc(1, sizeof(*q));
	if (!q)
		goto fail_ctx;
	q->dispatch = &vcl_dispatch;
	q->o.kind = VCL_QUEUE;
	q->o.refs = 1;
	q->ctx = context;		/* the reference taken above */
	q->device = device;
	q->props = properties;
	pthread_mutex_init(&q->lock, NULL);
	if (vmgpu_rt_queue_create(p->rt, context->rtctx, &q->rtq)) {
		err = CL_OUT_OF_RESOURCES;
		queue_free(q);
		goto fail;
	}
	if (vcl_obj_add(p, q)) {
		queue_free(q);
		goto fail;
	}
	if (errcode_ret)
		*errcode_ret = CL_SUCCESS;
	return q;
fail_ctx:
	vcl_context_put(context);
fail:
	if (errcode_ret)
		*errcode_ret = err;
	return NULL;
}

cl_int vcl_clRetainCommandQueue(cl_command_queue command_queue)
{
	return vcl_obj_get(vcl_platform(NULL), command_queue, VCL_QUEUE,
			   true) ? CL_SUCCESS : CL_INVALID_COMMAND_QUEUE;
}

cl_int vcl_clReleaseCommandQueue(cl_command_queue command_queue)
{
	struct _cl_platform_id *p = vcl_platform(NULL);

	/* A reference of this call's own while it flushes. */
	if (!vcl_obj_get(p, command_queue, VCL_QUEUE, true))
		return CL_INVALID_COMMAND_QUEUE;
	/* Released: its commands still complete (clFinish's implicit flush). */
	vmgpu_rt_flush(p->rt, command_queue->rtq);
	if (vcl_obj_release(p, command_queue, VCL_QUEUE) < 0)
		return CL_INVALID_COMMAND_QUEUE;	/* cannot happen */
	if (vcl_obj_release(p, command_queue, VCL_QUEUE) == 1) {
		vmgpu_rt_finish(p->rt, command_queue->rtq);
		queue_free(command_queue);
	}
	return CL_SUCCESS;
}

cl_int vcl_clGetCommandQueueInfo(cl_command_queue command_queue,
				 cl_command_queue_info param_name,
				 size_t param_value_size, void *param_value,
				 size_t *param_value_size_ret)
{
	struct _cl_platform_id *p = vcl_platform(NULL);
	cl_uint refs;
	cl_int err;

	if (!vcl_obj_get(p, command_queue, VCL_QUEUE, true))
		return CL_INVALID_COMMAND_QUEUE;
	switch (param_name) {
	case CL_QUEUE_CONTEXT:
		err = vcl_info(&command_queue->ctx, sizeof(cl_context),
			       param_value_size, param_value,
			       param_value_size_ret);
		break;
	case CL_QUEUE_DEVICE:
		err = vcl_info(&command_queue->device, sizeof(cl_device_id),
			       param_value_size, param_value,
			       param_value_size_ret);
		break;
	case CL_QUEUE_REFERENCE_COUNT:
		pthread_mutex_lock(&p->lock);
		refs = command_queue->o.refs - 1;
		pthread_mutex_unlock(&p->lock);
		err = vcl_info(&refs, sizeof(refs), param_value_size,
			       param_value, param_value_size_ret);
		break;
	case CL_QUEUE_PROPERTIES:
		err = vcl_info(&command_queue->props,
			       sizeof(cl_command_queue_properties),
			       param_value_size, param_value,
			       param_value_size_ret);
		break;
	default:
		err = CL_INVALID_VALUE;
	}
	if (vcl_obj_release(p, command_queue, VCL_QUEUE) == 1)
		queue_free(command_queue);
	return err;
}

cl_int vcl_clFlush(cl_command_queue command_queue)
{
	struct _cl_platform_id *p = vcl_platform(NULL);

	if (!vcl_obj_get(p, command_queue, VCL_QUEUE, false))
		return CL_INVALID_COMMAND_QUEUE;
	return vmgpu_rt_flush(p->rt, command_queue->rtq) ?
	       CL_OUT_OF_RESOURCES : CL_SUCCESS;
}

cl_int vcl_clFinish(cl_command_queue command_queue)
{
	struct _cl_platform_id *p = vcl_platform(NULL);
	cl_int err;

	if (!vcl_obj_get(p, command_queue, VCL_QUEUE, true))
		return CL_INVALID_COMMAND_QUEUE;
	vcl_defer_finish(command_queue);
	/* A failed kernel fails its event, not the queue's finish. */
	vmgpu_rt_finish(p->rt, command_queue->rtq);
	err = vcl_wait_for(command_queue, 0, NULL);
	if (vcl_obj_release(p, command_queue, VCL_QUEUE) == 1)
		queue_free(command_queue);
	return err < 0 && err != CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST ?
	       err : CL_SUCCESS;
}

/* A marker or a barrier: done once what it waits for is. */
static cl_int marker(cl_command_queue q, cl_command_type type, cl_uint n,
		     const cl_event *list, cl_event *event)
{
	struct _cl_platform_id *p = vcl_platform(NULL);
	struct _cl_event *e;
	cl_ulong t = vcl_now_ns();
	cl_int err;

	if (!vcl_obj_get(p, q, VCL_QUEUE, false))
		return CL_INVALID_COMMAND_QUEUE;
	if (vcl_deferred_marker(q, n, list))
		return vcl_defer_marker(q, type, n, list, event);
	/* With no list: everything enqueued before. */
	if (!n)
		vmgpu_rt_finish(p->rt, q->rtq);
	err = vcl_wait_for(q, n, list);
	if (err < 0 && err != CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST)
		return err;
	e = vcl_event_new(q, type, 0, CL_COMPLETE, t);
	if (!e)
		return CL_OUT_OF_HOST_MEMORY;
	vcl_command_done(q, e, event);
	return CL_SUCCESS;
}

cl_int vcl_clEnqueueMarkerWithWaitList(cl_command_queue command_queue,
				       cl_uint num_events_in_wait_list,
				       const cl_event *event_wait_list,
				       cl_event *event)
{
	return marker(command_queue, CL_COMMAND_MARKER,
		      num_events_in_wait_list, event_wait_list, event);
}

cl_int vcl_clEnqueueBarrierWithWaitList(cl_command_queue command_queue,
					cl_uint num_events_in_wait_list,
					const cl_event *event_wait_list,
					cl_event *event)
{
	return marker(command_queue, CL_COMMAND_BARRIER,
		      num_events_in_wait_list, event_wait_list, event);
}

cl_int vcl_clEnqueueMarker(cl_command_queue command_queue, cl_event *event)
{
	if (!event)
		return CL_INVALID_VALUE;
	return marker(command_queue, CL_COMMAND_MARKER, 0, NULL, event);
}

cl_int vcl_clEnqueueBarrier(cl_command_queue command_queue)
{
	return marker(command_queue, CL_COMMAND_BARRIER, 0, NULL, NULL);
}

/* Its list is of events, not a wait list: a wrong one is CL_INVALID_EVENT. */
cl_int vcl_clEnqueueWaitForEvents(cl_command_queue command_queue,
				  cl_uint num_events, const cl_event *event_list)
{
	cl_int err;

	if (!vcl_obj_get(vcl_platform(NULL), command_queue, VCL_QUEUE, false))
		return CL_INVALID_COMMAND_QUEUE;
	if (!num_events || !event_list)
		return CL_INVALID_VALUE;
	err = marker(command_queue, CL_COMMAND_MARKER, num_events, event_list,
		     NULL);
	return err == CL_INVALID_EVENT_WAIT_LIST ? CL_INVALID_EVENT : err;
}
