// SPDX-License-Identifier: MIT
/*
 * libvmgpu-opencl: contexts. A context is a set of the platform's
 * devices and a runtime context over the logical device of those
 * physical devices (vmgpu_rt_logical_device; the multi-GPU device is
 * every GPU), so that everything made in it later (buffers, queues,
 * kernels) is the runtime's, placed and moved by it.
 */
#include <stdlib.h>
#include <string.h>

#include "opencl_internal.h"

static void context_free(struct _cl_context *c)
{
	if (c->rtctx)
		vmgpu_rt_release(c->platform->rt, c->rtctx);
	free(c->devices);
	free(c->props);
	free(c);
}

/* The properties: CL_CONTEXT_PLATFORM (ours) at most once, 0 last. */
static cl_int check_props(struct _cl_platform_id *p,
			  const cl_context_properties *props, size_t *n)
{
	bool platform_seen = false;
	size_t i;

	*n = 0;
	if (!props)
		return CL_SUCCESS;
	for (i = 0; props[i]; i += 2) {
		switch (props[i]) {
		case CL_CONTEXT_PLATFORM:
			if (platform_seen)
				return CL_INVALID_PROPERTY;
			platform_seen = true;
			if ((cl_platform_id)props[i + 1] != p)
				return CL_INVALID_PLATFORM;
			break;
		case CL_CONTEXT_INTEROP_USER_SYNC:
			if (props[i + 1] != CL_TRUE && props[i + 1] != CL_FALSE)
				return CL_INVALID_PROPERTY;
			break;
		default:
			return CL_INVALID_PROPERTY;
		}
	}
	*n = i + 1;
	return CL_SUCCESS;
}

static cl_context make_context(struct _cl_platform_id *p,
			       const cl_context_properties *props,
			       cl_uint ndevices, const cl_device_id *devices,
			       void (CL_CALLBACK *notify)(const char *,
							  const void *, size_t,
							  void *),
			       void *user_data, cl_int *errcode_ret)
{
	struct _cl_context *c;
	uint32_t *phys, logical, mine[VMGPU_RT_MAX_DEVICES];
	size_t nprops;
	cl_int err;
	cl_uint i, j, k, nd, nphys = 0;

	err = check_props(p, props, &nprops);
	if (err)
		goto fail;
	c = calloc(1, sizeof(*c));
	phys = calloc(p->ndevices, sizeof(*phys));
	err = CL_OUT_OF_HOST_MEMORY;
	if (!c || !phys) {
		free(c);
		free(phys);
		goto fail;
	}
	c->dispatch = &vcl_dispatch;
	c->o.kind = VCL_CONTEXT;
	c->o.refs = 1;
	c->platform = p;
	c->notify = notify;
	c->user_data = user_data;
	c->devices = calloc(ndevices, sizeof(*c->devices));
	c->props = nprops ? calloc(nprops, sizeof(*c->props)) : NULL;
	if (!c->devices || (nprops && !c->props))
		goto fail_free;
	if (nprops)
		memcpy(c->props, props, nprops * sizeof(*props));
	c->nprops = nprops;
	/* Each device once, in the order given; each physical one once. */
	for (i = 0; i < ndevices; i++) {
		for (j = 0; j < c->ndevices; j++)
			if (c->devices[j] == devices[i])
				break;
		if (j < c->ndevices)
			continue;
		c->devices[c->ndevices++] = devices[i];
		nd = vcl_device_phys(devices[i], mine);
		for (k = 0; k < nd; k++) {
			for (j = 0; j < nphys; j++)
				if (phys[j] == mine[k])
					break;
			if (j == nphys)
				phys[nphys++] = mine[k];
		}
	}
	err = CL_OUT_OF_RESOURCES;
	if (vmgpu_rt_logical_device(p->rt, phys, nphys, &logical) ||
	    vmgpu_rt_context_create(p->rt, logical, 0, &c->rtctx))
		goto fail_free;
	err = CL_OUT_OF_HOST_MEMORY;
	if (vcl_obj_add(p, c))
		goto fail_free;
	free(phys);
	if (errcode_ret)
		*errcode_ret = CL_SUCCESS;
	return c;
fail_free:
	free(phys);
	context_free(c);
fail:
	if (errcode_ret)
		*errcode_ret = err;
	return NULL;
}

cl_context vcl_clCreateContext(const cl_context_properties *properties,
			       cl_uint num_devices, const cl_device_id *devices,
			       void (CL_CALLBACK *pfn_notify)(const char *,
							      const void *,
							      size_t, void *),
			       void *user_data, cl_int *errcode_ret)
{
	struct _cl_platform_id *p = vcl_platform(NULL);
	cl_uint i;

	if (!devices || !num_devices || (!pfn_notify && user_data)) {
		if (errcode_ret)
			*errcode_ret = CL_INVALID_VALUE;
		return NULL;
	}
	for (i = 0; i < num_devices; i++)
		if (!vcl_device_valid(p, devices[i])) {
			if (errcode_ret)
				*errcode_ret = CL_INVALID_DEVICE;
			return NULL;
		}
	return make_context(p, properties, num_devices, devices, pfn_notify,
			    user_data, errcode_ret);
}

cl_context vcl_clCreateContextFromType(const cl_context_properties *properties,
				       cl_device_type device_type,
				       void (CL_CALLBACK *pfn_notify)(const char *,
								      const void *,
								      size_t,
								      void *),
				       void *user_data, cl_int *errcode_ret)
{
	struct _cl_platform_id *p = vcl_platform(NULL);
	cl_device_id *devices;
	cl_uint n = 0;
	cl_context c;
	cl_int err;

	if (!pfn_notify && user_data) {
		err = CL_INVALID_VALUE;
		goto fail;
	}
	err = vcl_clGetDeviceIDs(p, device_type, 0, NULL, &n);
	if (err)
		goto fail;
	devices = calloc(n, sizeof(*devices));
	if (!devices) {
		err = CL_OUT_OF_HOST_MEMORY;
		goto fail;
	}
	vcl_clGetDeviceIDs(p, device_type, n, devices, NULL);
	c = make_context(p, properties, n, devices, pfn_notify, user_data,
			 errcode_ret);
	free(devices);
	return c;
fail:
	if (errcode_ret)
		*errcode_ret = err;
	return NULL;
}

void vcl_context_get(struct _cl_context *c)
{
	pthread_mutex_lock(&c->platform->lock);
	c->o.refs++;
	pthread_mutex_unlock(&c->platform->lock);
}

void vcl_context_put(struct _cl_context *c)
{
	if (vcl_obj_release(c->platform, c, VCL_CONTEXT) == 1)
		context_free(c);
}

bool vcl_context_has_device(const struct _cl_context *c, cl_device_id d)
{
	cl_uint i;

	for (i = 0; i < c->ndevices; i++)
		if (c->devices[i] == d)
			return true;
	return false;
}

cl_int vcl_clRetainContext(cl_context context)
{
	return vcl_obj_get(vcl_platform(NULL), context, VCL_CONTEXT, true) ?
	       CL_SUCCESS : CL_INVALID_CONTEXT;
}

cl_int vcl_clReleaseContext(cl_context context)
{
	struct _cl_platform_id *p = vcl_platform(NULL);

	switch (vcl_obj_release(p, context, VCL_CONTEXT)) {
	case 1:
		context_free(context);
		return CL_SUCCESS;
	case 0:
		return CL_SUCCESS;
	default:
		return CL_INVALID_CONTEXT;
	}
}

cl_int vcl_clGetContextInfo(cl_context context, cl_context_info param_name,
			    size_t param_value_size, void *param_value,
			    size_t *param_value_size_ret)
{
	struct _cl_platform_id *p = vcl_platform(NULL);
	cl_uint u;
	cl_int err;

	if (!vcl_obj_get(p, context, VCL_CONTEXT, true))
		return CL_INVALID_CONTEXT;
	switch (param_name) {
	case CL_CONTEXT_REFERENCE_COUNT:
		pthread_mutex_lock(&p->lock);
		u = context->o.refs - 1;	/* not this call's own */
		pthread_mutex_unlock(&p->lock);
		err = vcl_info(&u, sizeof(u), param_value_size, param_value,
			       param_value_size_ret);
		break;
	case CL_CONTEXT_NUM_DEVICES:
		err = vcl_info(&context->ndevices, sizeof(cl_uint),
			       param_value_size, param_value,
			       param_value_size_ret);
		break;
	case CL_CONTEXT_DEVICES:
		err = vcl_info(context->devices,
			       context->ndevices * sizeof(cl_device_id),
			       param_value_size, param_value,
			       param_value_size_ret);
		break;
	case CL_CONTEXT_PROPERTIES:
		err = vcl_info(context->props,
			       context->nprops * sizeof(cl_context_properties),
			       param_value_size, param_value,
			       param_value_size_ret);
		break;
	default:
		err = CL_INVALID_VALUE;
	}
	vcl_context_put(context);
	return err;
}
