// SPDX-License-Identifier: MIT
/*
 * libvmgpu-opencl: the platform and the calls an ICD loader makes first
 * (cl_khr_icd): clIcdGetPlatformIDsKHR, clGetPlatformInfo (the loader
 * reads the extension suffix through it) and
 * clGetExtensionFunctionAddress. These three are the library's only
 * exported symbols (libvmgpu-opencl.map); everything else is reached
 * through the dispatch table at the head of every object.
 *
 * The one platform is made on the first call that needs it and lives as
 * long as the process (an ICD is asked for its platforms with no handle
 * to keep them in): the runtime with every vmgpu render node's GPUs, or,
 * with none, the embedded device's (the device model in-process,
 * VMGPU_EMBEDDED), and the runtime's CPU device; one device object for
 * each, and with two GPUs or more the multi-GPU device (multigpu.c)
 * between the GPUs and the CPU.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "opencl_internal.h"
#include "vmgpu.h"

#define VCL_PLATFORM_NAME	"vmgpu"
#define VCL_VERSION		"OpenCL 1.2 vmgpu " VMGPU_VERSION
#define VCL_EXTENSIONS		"cl_khr_icd"
#define VCL_ICD_SUFFIX		"VMGPU"

static pthread_once_t platform_once = PTHREAD_ONCE_INIT;
static struct _cl_platform_id *the_platform;
static cl_int platform_err = CL_SUCCESS;

static void platform_free(struct _cl_platform_id *p)
{
	vmgpu_rt_destroy(p->rt);
	if (p->embedded.ops)
		vmgpu_rt_embedded_close(&p->embedded);
	free(p->devices);
	free(p->live);
	pthread_mutex_destroy(&p->lock);
	free(p);
}

static void platform_make(void)
{
	struct _cl_platform_id *p = calloc(1, sizeof(*p));
	struct vmgpu_rt_config cfg = { 0 };
	int n, i, j;

	platform_err = CL_OUT_OF_HOST_MEMORY;
	if (!p)
		return;
	p->dispatch = &vcl_dispatch;
	p->o.kind = VCL_PLATFORM;
	p->o.refs = 1;
	pthread_mutex_init(&p->lock, NULL);
	p->cap_live = 64;
	p->live = calloc(p->cap_live, sizeof(*p->live));
	if (!p->live || vmgpu_rt_create(&cfg, &p->rt)) {
		platform_free(p);
		return;
	}
	/*
	 * No vmgpu render node (a plain host): the embedded device, the
	 * device model in-process, configured by VMGPU_EMBEDDED.
	 */
	if (vmgpu_rt_device_count(p->rt) == 1) {
		char err[256];

		if (!vmgpu_rt_embedded_open(NULL, &p->embedded, err,
					    sizeof(err))) {
			vmgpu_rt_destroy(p->rt);
			p->rt = NULL;
			cfg.backends = &p->embedded;
			cfg.num_backends = 1;
			if (vmgpu_rt_create(&cfg, &p->rt)) {
				platform_free(p);
				return;
			}
		} else {
			fprintf(stderr, "vmgpu OpenCL: no embedded GPUs: %s\n",
				err);
		}
	}
	n = vmgpu_rt_device_count(p->rt);
	/* Room for the multi-GPU device too (multigpu.c). */
	p->devices = n > 0 ? calloc((size_t)n + 1, sizeof(*p->devices)) : NULL;
	if (!p->devices) {
		platform_free(p);
		return;
	}
	for (i = 0, j = 0; i < n; i++) {
		struct _cl_device_id *d;

		/* The GPUs, then the CPU (the runtime's last): with 2 GPUs
		 * or more, the multi-GPU device between them. */
		if (i == n - 1 && i >= 2)
			vcl_multigpu_init(p, &p->devices[j++], (uint32_t)i);
		d = &p->devices[j++];
		d->dispatch = &vcl_dispatch;
		d->o.kind = VCL_DEVICE;
		d->o.refs = 1;
		d->platform = p;
		d->phys = (uint32_t)i;
		if (vmgpu_rt_device_caps(p->rt, d->phys, &d->caps)) {
			platform_free(p);
			return;
		}
		d->type = d->caps.type == VMGPU_RT_TYPE_CPU ?
			  CL_DEVICE_TYPE_CPU : CL_DEVICE_TYPE_GPU;
	}
	p->ndevices = (cl_uint)j;
	if (vcl_obj_add(p, p)) {
		platform_free(p);
		return;
	}
	for (i = 0; i < j; i++)
		if (vcl_obj_add(p, &p->devices[i])) {
			platform_free(p);
			return;
		}
	the_platform = p;
	platform_err = CL_SUCCESS;
}

struct _cl_platform_id *vcl_platform(cl_int *err)
{
	pthread_once(&platform_once, platform_make);
	if (err)
		*err = platform_err;
	return the_platform;
}

cl_int vcl_clGetPlatformIDs(cl_uint num_entries, cl_platform_id *platforms,
			    cl_uint *num_platforms)
{
	struct _cl_platform_id *p;
	cl_int err;

	if ((!num_entries && platforms) || (!platforms && !num_platforms))
		return CL_INVALID_VALUE;
	p = vcl_platform(&err);
	if (!p)
		return err;
	if (platforms)
		platforms[0] = p;
	if (num_platforms)
		*num_platforms = 1;
	return CL_SUCCESS;
}

__attribute__((visibility("default")))
cl_int clIcdGetPlatformIDsKHR(cl_uint num_entries, cl_platform_id *platforms,
			      cl_uint *num_platforms)
{
	return vcl_clGetPlatformIDs(num_entries, platforms, num_platforms);
}

cl_int vcl_clGetPlatformInfo(cl_platform_id platform,
			     cl_platform_info param_name,
			     size_t param_value_size, void *param_value,
			     size_t *param_value_size_ret)
{
	struct _cl_platform_id *p = vcl_platform(NULL);
	const char *s;

	/* NULL: the one platform, as the specification allows. */
	if (platform && platform != p)
		return CL_INVALID_PLATFORM;
	if (!p)
		return CL_INVALID_PLATFORM;
	switch (param_name) {
	case CL_PLATFORM_PROFILE:
		s = "FULL_PROFILE";
		break;
	case CL_PLATFORM_VERSION:
		s = VCL_VERSION;
		break;
	case CL_PLATFORM_NAME:
		s = VCL_PLATFORM_NAME;
		break;
	case CL_PLATFORM_VENDOR:
		s = "vmgpu";
		break;
	case CL_PLATFORM_EXTENSIONS:
		s = VCL_EXTENSIONS;
		break;
	case CL_PLATFORM_ICD_SUFFIX_KHR:
		s = VCL_ICD_SUFFIX;
		break;
	default:
		return CL_INVALID_VALUE;
	}
	return vcl_info_str(s, param_value_size, param_value,
			    param_value_size_ret);
}

__attribute__((visibility("default")))
cl_int clGetPlatformInfo(cl_platform_id platform, cl_platform_info param_name,
			 size_t param_value_size, void *param_value,
			 size_t *param_value_size_ret)
{
	return vcl_clGetPlatformInfo(platform, param_name, param_value_size,
				     param_value, param_value_size_ret);
}

/* The extension functions this platform has: none beyond the ICD's. */
void *vcl_clGetExtensionFunctionAddress(const char *func_name)
{
	if (func_name && !strcmp(func_name, "clIcdGetPlatformIDsKHR"))
		return (void *)clIcdGetPlatformIDsKHR;
	return NULL;
}

void *vcl_clGetExtensionFunctionAddressForPlatform(cl_platform_id platform,
						    const char *func_name)
{
	if (platform != vcl_platform(NULL))
		return NULL;
	return vcl_clGetExtensionFunctionAddress(func_name);
}

__attribute__((visibility("default")))
void *clGetExtensionFunctionAddress(const char *func_name)
{
	return vcl_clGetExtensionFunctionAddress(func_name);
}

/*
 * The platform is never freed (the loader keeps its handle until the
 * process ends), so the embedded device's trace=FILE is written here,
 * when the library is unloaded or the process exits: the whole run.
 */
__attribute__((destructor))
static void platform_exit(void)
{
	if (the_platform && the_platform->embedded.ops)
		vmgpu_rt_embedded_trace_write(&the_platform->embedded);
}
