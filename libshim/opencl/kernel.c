// SPDX-License-Identifier: MIT
/*
 * libvmgpu-opencl: kernels and NDRange launches. A kernel is the
 * runtime's kernel of the program's executable on the context's devices;
 * its parameters come from the executable's signature
 * (vmgpu_rt_kernel_param_info), so clSetKernelArg checks each argument's
 * size and kind against the parameter: a buffer (a cl_mem), a scalar of
 * the parameter's size, or a __local parameter by its size, which the
 * runtime places after the kernel's static local memory.
 *
 * A launch is a runtime instance: grid = global / local size per
 * dimension (OpenCL 1.2: the global size a multiple of the local one);
 * with no local size given, the kernel's reqd_work_group_size, else the
 * largest divisor of the global size in x of at most 256 work-items, 1
 * in y and z. The global work offset and work dimension go with it, for
 * the hidden parameters of the kernel (the ICD builds every program with
 * VMGPU_NDRANGE_OPTION). Its event is the instance's.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "opencl_internal.h"
#include "vmgpu/compiler.h"

static void kernel_free(struct _cl_kernel *k)
{
	struct _cl_program *pr = k->program;
	struct _cl_platform_id *p = pr->ctx->platform;

	if (k->k)
		vmgpu_rt_release(p->rt, k->k);
	pthread_mutex_lock(&pr->lock);
	pr->nkernels--;
	pthread_mutex_unlock(&pr->lock);
	if (k->args)
		vcl_kernel_args_free(k->args, k->nparams);
	free(k->params);
	free(k->args);
	free(k->attributes);
	free(k->name);
	free(k);
	vcl_program_put(pr);
}

cl_kernel vcl_clCreateKernel(cl_program program, const char *kernel_name,
			     cl_int *errcode_ret)
{
	struct _cl_platform_id *p = vcl_platform(NULL);
	struct _cl_kernel *k = NULL;
	cl_int err;
	int n, i;

	if (!vcl_obj_get(p, program, VCL_PROGRAM, true)) {
		err = CL_INVALID_PROGRAM;
		goto fail;
	}
	err = CL_INVALID_VALUE;
	if (!kernel_name)
		goto fail_prog;
	err = CL_OUT_OF_HOST_MEMORY;
	k = calloc(1, sizeof(*k));
	if (!k || !(k->name = strdup(kernel_name)))
		goto fail_prog;
	k->dispatch = &vcl_dispatch;
	k->o.kind = VCL_KERNEL;
	k->o.refs = 1;
	k->program = program;
	pthread_mutex_lock(&program->lock);
	if (!program->prog) {
		err = CL_INVALID_PROGRAM_EXECUTABLE;
	} else {
		int r = vmgpu_rt_kernel_from_program(p->rt,
						     program->ctx->rtctx,
						     program->prog,
						     kernel_name, &k->k);

		err = !r ? CL_SUCCESS : r == -ENOENT ?
			   CL_INVALID_KERNEL_NAME : CL_INVALID_KERNEL_DEFINITION;
		if (!err)
			program->nkernels++;
	}
	pthread_mutex_unlock(&program->lock);
	if (err)
		goto fail_prog;
	n = vmgpu_rt_kernel_param_count(p->rt, k->k);
	err = CL_OUT_OF_RESOURCES;
	if (n < 0) {
		kernel_free(k);
		goto fail;
	}
	k->nparams = (cl_uint)n;
	k->params = calloc(n ? n : 1, sizeof(*k->params));
	k->args = calloc(n ? n : 1, sizeof(*k->args));
	if (!k->params || !k->args) {
		err = CL_OUT_OF_HOST_MEMORY;
		kernel_free(k);
		goto fail;
	}
	for (i = 0; i < n; i++)
		if (vmgpu_rt_kernel_param_info(p->rt, k->k, (uint32_t)i,
					       &k->params[i])) {
			kernel_free(k);
			goto fail;
		}
	if (vcl_kernel_attributes(k) || vcl_obj_add(p, k)) {
		err = CL_OUT_OF_HOST_MEMORY;
		kernel_free(k);
		goto fail;
	}
	if (errcode_ret)
		*errcode_ret = CL_SUCCESS;
	return k;
fail_prog:
	if (k)
		free(k->name);
	free(k);
	vcl_program_put(program);
fail:
	if (errcode_ret)
		*errcode_ret = err;
	return NULL;
}

cl_int vcl_clCreateKernelsInProgram(cl_program program, cl_uint num_kernels,
				    cl_kernel *kernels,
				    cl_uint *num_kernels_ret)
{
	struct _cl_platform_id *p = vcl_platform(NULL);
	cl_int err = CL_SUCCESS;
	bool built;
	cl_uint i, n;

	if (!vcl_obj_get(p, program, VCL_PROGRAM, true))
		return CL_INVALID_PROGRAM;
	pthread_mutex_lock(&program->lock);
	built = program->prog;
	n = built ? (cl_uint)vmgpu_program_kernel_count(program->prog) : 0;
	pthread_mutex_unlock(&program->lock);
	if (!built)
		err = CL_INVALID_PROGRAM_EXECUTABLE;
	else if (kernels && num_kernels < n)
		err = CL_INVALID_VALUE;
	for (i = 0; !err && kernels && i < n; i++) {
		char *name = NULL;

		pthread_mutex_lock(&program->lock);
		if (program->prog)
			name = strdup(vmgpu_program_kernel_name(program->prog,
								i));
		pthread_mutex_unlock(&program->lock);
		if (!name) {
			err = CL_OUT_OF_HOST_MEMORY;
		} else {
			kernels[i] = vcl_clCreateKernel(program, name, &err);
			free(name);
		}
		if (err)
			while (i--)
				vcl_clReleaseKernel(kernels[i]);
	}
	if (!err && num_kernels_ret)
		*num_kernels_ret = n;
	vcl_program_put(program);
	return err;
}

cl_int vcl_clRetainKernel(cl_kernel kernel)
{
	return vcl_obj_get(vcl_platform(NULL), kernel, VCL_KERNEL, true) ?
	       CL_SUCCESS : CL_INVALID_KERNEL;
}

cl_int vcl_clReleaseKernel(cl_kernel kernel)
{
	switch (vcl_obj_release(vcl_platform(NULL), kernel, VCL_KERNEL)) {
	case 1:
		kernel_free(kernel);
		return CL_SUCCESS;
	case 0:
		return CL_SUCCESS;
	default:
		return CL_INVALID_KERNEL;
	}
}

/* Not thread-safe on one kernel, as OpenCL 1.2 allows. */
cl_int vcl_clSetKernelArg(cl_kernel kernel, cl_uint arg_index,
			  size_t arg_size, const void *arg_value)
{
	struct _cl_platform_id *p = vcl_platform(NULL);
	const struct vmgpu_rt_param_info *pi;
	struct vcl_arg na, *a = &na;
	cl_mem m;

	if (!vcl_obj_get(p, kernel, VCL_KERNEL, false))
		return CL_INVALID_KERNEL;
	if (arg_index >= kernel->nparams ||
	    kernel->params[arg_index].kind == VMGPU_RT_PARAM_PRIVATE)
		return CL_INVALID_ARG_INDEX;
	pi = &kernel->params[arg_index];
	/* Made aside: a refused argument leaves the one set before. */
	memset(a, 0, sizeof(*a));
	switch (pi->kind) {
	case VMGPU_RT_PARAM_LOCAL:
		if (arg_value)
			return CL_INVALID_ARG_VALUE;
		if (!arg_size)
			return CL_INVALID_ARG_SIZE;
		a->a.type = VMGPU_RT_ARG_LOCAL;
		a->a.local_bytes = (uint32_t)arg_size;
		if (a->a.local_bytes != arg_size)
			return CL_INVALID_ARG_SIZE;
		break;
	case VMGPU_RT_PARAM_BUFFER:
		if (arg_size != sizeof(cl_mem))
			return CL_INVALID_ARG_SIZE;
		m = arg_value ? *(const cl_mem *)arg_value : NULL;
		a->a.type = VMGPU_PARAM_BUF_RW;
		/* No buffer: a NULL pointer, as OpenCL allows. */
		if (m) {
			if (!vcl_obj_get(p, m, VCL_MEM, false) ||
			    m->ctx != kernel->program->ctx)
				return CL_INVALID_MEM_OBJECT;
			a->a.buf = m->buf;
			a->a.offset = m->origin;	/* a sub-buffer's start */
			a->mem = m;
		}
		break;
	default:
		if (!arg_value)
			return CL_INVALID_ARG_VALUE;
		a->a.type = pi->type;
		if (VMGPU_PARAM_KIND(pi->type) == VMGPU_PARAM_BYTES) {
			/* a vector (a 3-component one of 4's size) or a
			 * struct, by value: exactly its size */
			if (arg_size != pi->size)
				return CL_INVALID_ARG_SIZE;
			a->bytes = malloc(arg_size);
			if (!a->bytes)
				return CL_OUT_OF_HOST_MEMORY;
			memcpy(a->bytes, arg_value, arg_size);
			a->a.bytes = a->bytes;
			break;
		}
		if (arg_size != pi->size) {
			/* char, short, bool: passed in 32 bits, extended
			 * as the declared type says. */
			size_t want;
			bool sign;

			if (pi->size != 4 ||
			    vcl_kernel_arg_narrow(kernel, arg_index, &want,
						  &sign) || arg_size != want)
				return CL_INVALID_ARG_SIZE;
			if (want == 1)
				a->a.i32 = sign ? *(const int8_t *)arg_value :
						  *(const uint8_t *)arg_value;
			else
				a->a.i32 = sign ? *(const int16_t *)arg_value :
						  *(const uint16_t *)arg_value;
			break;
		}
		memcpy(&a->a.i64, arg_value, arg_size);
		break;
	}
	a->set = true;
	free(kernel->args[arg_index].bytes);
	kernel->args[arg_index] = na;
	return CL_SUCCESS;
}

cl_int vcl_clGetKernelInfo(cl_kernel kernel, cl_kernel_info param_name,
			   size_t param_value_size, void *param_value,
			   size_t *param_value_size_ret)
{
	struct _cl_platform_id *p = vcl_platform(NULL);
	cl_uint u;
	cl_int err;

	if (!vcl_obj_get(p, kernel, VCL_KERNEL, true))
		return CL_INVALID_KERNEL;
	switch (param_name) {
	case CL_KERNEL_FUNCTION_NAME:
		err = vcl_info_str(kernel->name, param_value_size, param_value,
				   param_value_size_ret);
		break;
	case CL_KERNEL_NUM_ARGS:
		u = kernel->nparams;
		if (u && kernel->params[u - 1].kind == VMGPU_RT_PARAM_PRIVATE)
			u--;
		err = vcl_info(&u, sizeof(u), param_value_size, param_value,
			       param_value_size_ret);
		break;
	case CL_KERNEL_REFERENCE_COUNT:
		pthread_mutex_lock(&p->lock);
		u = kernel->o.refs - 1;
		pthread_mutex_unlock(&p->lock);
		err = vcl_info(&u, sizeof(u), param_value_size, param_value,
			       param_value_size_ret);
		break;
	case CL_KERNEL_CONTEXT:
		err = vcl_info(&kernel->program->ctx, sizeof(cl_context),
			       param_value_size, param_value,
			       param_value_size_ret);
		break;
	case CL_KERNEL_PROGRAM:
		err = vcl_info(&kernel->program, sizeof(cl_program),
			       param_value_size, param_value,
			       param_value_size_ret);
		break;
	case CL_KERNEL_ATTRIBUTES:
		err = vcl_info_str(kernel->attributes, param_value_size,
				   param_value, param_value_size_ret);
		break;
	default:
		err = CL_INVALID_VALUE;
	}
	if (vcl_obj_release(p, kernel, VCL_KERNEL) == 1)
		kernel_free(kernel);
	return err;
}

cl_int vcl_clGetKernelWorkGroupInfo(cl_kernel kernel, cl_device_id device,
				    cl_kernel_work_group_info param_name,
				    size_t param_value_size, void *param_value,
				    size_t *param_value_size_ret)
{
	struct _cl_platform_id *p = vcl_platform(NULL);
	size_t sizes[3] = { 0, 0, 0 }, sz;
	cl_ulong ul;

	if (!vcl_obj_get(p, kernel, VCL_KERNEL, false))
		return CL_INVALID_KERNEL;
	if (!device && kernel->program->ctx->ndevices == 1)
		device = kernel->program->ctx->devices[0];
	if (!vcl_context_has_device(kernel->program->ctx, device))
		return CL_INVALID_DEVICE;
	switch (param_name) {
	case CL_KERNEL_WORK_GROUP_SIZE:
		/* reqd_work_group_size: the one size it runs with */
		sz = kernel->reqd[0] ? kernel->reqd[0] * kernel->reqd[1] *
				       kernel->reqd[2] :
				       device->caps.max_block_threads;
		if (sz > device->caps.max_block_threads)
			sz = device->caps.max_block_threads;
		return vcl_info(&sz, sizeof(sz), param_value_size, param_value,
				param_value_size_ret);
	case CL_KERNEL_COMPILE_WORK_GROUP_SIZE:
		memcpy(sizes, kernel->reqd, sizeof(sizes));
		return vcl_info(sizes, sizeof(sizes), param_value_size,
				param_value, param_value_size_ret);
	case CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE:
		sz = device->caps.warp_width ? device->caps.warp_width : 1;
		return vcl_info(&sz, sizeof(sz), param_value_size, param_value,
				param_value_size_ret);
	case CL_KERNEL_LOCAL_MEM_SIZE:
	case CL_KERNEL_PRIVATE_MEM_SIZE:
		ul = 0;
		return vcl_info(&ul, sizeof(ul), param_value_size, param_value,
				param_value_size_ret);
	default:
		return CL_INVALID_VALUE;
	}
}

/* The largest divisor of @n of at most @max. */
static size_t divisor_at_most(size_t n, size_t max)
{
	size_t d;

	for (d = max < n ? max : n; d > 1; d--)
		if (n % d == 0)
			return d;
	return 1;
}

cl_int vcl_clEnqueueNDRangeKernel(cl_command_queue command_queue,
				  cl_kernel kernel, cl_uint work_dim,
				  const size_t *global_work_offset,
				  const size_t *global_work_size,
				  const size_t *local_work_size,
				  cl_uint num_events_in_wait_list,
				  const cl_event *event_wait_list,
				  cl_event *event)
{
	struct _cl_platform_id *p = vcl_platform(NULL);
	struct vmgpu_rt_instance inst;
	struct vmgpu_rt_arg *args = NULL;
	vmgpu_rt_handle *waits = NULL, rtev = 0;
	struct _cl_command_queue *q = command_queue;
	struct _cl_event *e, *last = NULL;
	cl_ulong t0 = vcl_now_ns();
	size_t local[3] = { 1, 1, 1 }, total = 1;
	cl_uint i, nw = 0;
	cl_int err;

	if (!vcl_obj_get(p, q, VCL_QUEUE, false))
		return CL_INVALID_COMMAND_QUEUE;
	if (!vcl_obj_get(p, kernel, VCL_KERNEL, false))
		return CL_INVALID_KERNEL;
	if (kernel->program->ctx != q->ctx)
		return CL_INVALID_CONTEXT;
	if (work_dim < 1 || work_dim > 3)
		return CL_INVALID_WORK_DIMENSION;
	if (!global_work_size)
		return CL_INVALID_GLOBAL_WORK_SIZE;
	/* Ids are 32-bit (the ISA's): the offset and size must fit them. */
	if (global_work_offset)
		for (i = 0; i < work_dim; i++)
			if (global_work_offset[i] &&
			    ((uint64_t)global_work_size[i] > (1ull << 32) ||
			     (uint64_t)global_work_offset[i] >
			     (1ull << 32) - (uint64_t)global_work_size[i]))
				return CL_INVALID_GLOBAL_OFFSET;
	/* reqd_work_group_size: that size, in every dimension */
	if (kernel->reqd[0] && local_work_size)
		for (i = 0; i < 3; i++)
			if ((i < work_dim ? local_work_size[i] : 1) !=
			    kernel->reqd[i])
				return CL_INVALID_WORK_GROUP_SIZE;
	for (i = 0; i < work_dim; i++) {
		if (!global_work_size[i])
			return CL_INVALID_GLOBAL_WORK_SIZE;
		if (local_work_size || kernel->reqd[0]) {
			/* no local size: the required one (OpenCL 1.2 may
			 * refuse it; later versions and PoCL take it) */
			local[i] = local_work_size ? local_work_size[i] :
						     kernel->reqd[i];
			if (!local[i] || global_work_size[i] % local[i])
				return CL_INVALID_WORK_GROUP_SIZE;
		} else if (!i) {
			local[0] = divisor_at_most(global_work_size[0], 256);
		}
		total *= local[i];
		if (local[i] > q->device->caps.max_block_threads ||
		    global_work_size[i] / local[i] > UINT32_MAX)
			return local[i] > q->device->caps.max_block_threads ?
			       CL_INVALID_WORK_ITEM_SIZE :
			       CL_INVALID_GLOBAL_WORK_SIZE;
	}
	if (total > q->device->caps.max_block_threads)
		return CL_INVALID_WORK_GROUP_SIZE;
	if ((num_events_in_wait_list && !event_wait_list) ||
	    (!num_events_in_wait_list && event_wait_list))
		return CL_INVALID_EVENT_WAIT_LIST;
	for (i = 0; i < num_events_in_wait_list; i++) {
		if (!vcl_obj_get(p, event_wait_list[i], VCL_EVENT, false))
			return CL_INVALID_EVENT_WAIT_LIST;
		if (event_wait_list[i]->ctx != q->ctx)
			return CL_INVALID_CONTEXT;
	}
	for (i = 0; i < kernel->nparams; i++)
		if (kernel->params[i].kind != VMGPU_RT_PARAM_PRIVATE &&
		    !kernel->args[i].set)
			return CL_INVALID_KERNEL_ARGS;
	/* Checked: behind a user event it runs later (defer.c). */
	if (vcl_deferred(q, num_events_in_wait_list, event_wait_list))
		return vcl_defer_kernel(q, kernel, work_dim, global_work_offset,
					global_work_size, local_work_size,
					num_events_in_wait_list,
					event_wait_list, event);
	args = calloc(kernel->nparams ? kernel->nparams : 1, sizeof(*args));
	waits = calloc(num_events_in_wait_list + 1, sizeof(*waits));
	err = CL_OUT_OF_HOST_MEMORY;
	if (!args || !waits)
		goto out;
	for (i = 0; i < kernel->nparams; i++)
		if (kernel->params[i].kind != VMGPU_RT_PARAM_PRIVATE)
			args[i] = kernel->args[i].a;
	/*
	 * The runtime waits for kernels itself; a host command's event is
	 * complete already (or failed: then so does this command).
	 */
	err = CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST;
	for (i = 0; i < num_events_in_wait_list; i++) {
		struct _cl_event *w = event_wait_list[i];

		if (w->rtev)
			waits[nw++] = w->rtev;
		else if (w->status < 0)
			goto out;
	}
	if (!(q->props & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE)) {
		pthread_mutex_lock(&q->lock);
		last = q->last;
		if (last)
			vcl_obj_get(p, last, VCL_EVENT, true);
		pthread_mutex_unlock(&q->lock);
		if (last && last->rtev)
			waits[nw++] = last->rtev;
	}
	memset(&inst, 0, sizeof(inst));
	inst.kernel = kernel->k;
	inst.num_args = kernel->nparams;
	inst.args = args;
	for (i = 0; i < 3; i++) {
		inst.block[i] = (uint32_t)local[i];
		inst.grid[i] = i < work_dim ?
			       (uint32_t)(global_work_size[i] / local[i]) : 1;
		inst.global_offset[i] = i < work_dim && global_work_offset ?
					global_work_offset[i] : 0;
	}
	inst.work_dim = work_dim;	/* the kernel's get_work_dim() */
	inst.num_wait = nw;
	inst.wait = waits;
	inst.flags = vcl_split_flags(q, kernel);	/* multigpu.c */
	err = vmgpu_rt_enqueue(p->rt, q->rtq, &inst, &rtev) ?
	      CL_INVALID_KERNEL_ARGS : CL_SUCCESS;
	if (err)
		goto out;
	/* Enqueued work starts without a clFlush, as programs expect. */
	vmgpu_rt_flush(p->rt, q->rtq);
	e = vcl_event_new(q, CL_COMMAND_NDRANGE_KERNEL, rtev, CL_QUEUED, t0);
	if (!e) {
		vmgpu_rt_release(p->rt, rtev);
		err = CL_OUT_OF_HOST_MEMORY;
		goto out;
	}
	vcl_command_done(q, e, event);
out:
	vcl_event_put(last);
	free(args);
	free(waits);
	return err;
}

cl_int vcl_clEnqueueTask(cl_command_queue command_queue, cl_kernel kernel,
			 cl_uint num_events_in_wait_list,
			 const cl_event *event_wait_list, cl_event *event)
{
	const size_t one = 1;

	return vcl_clEnqueueNDRangeKernel(command_queue, kernel, 1, NULL, &one,
					  &one, num_events_in_wait_list,
					  event_wait_list, event);
}
