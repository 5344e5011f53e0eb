/* SPDX-License-Identifier: MIT */
/*
 * libvmgpu-opencl: an OpenCL 1.2 platform over the runtime (libvmgpurt),
 * loaded by an ICD loader (Documentation/opencl.rst). What its files
 * share.
 *
 * Objects and their lifetimes. Every object starts with the loader's
 * dispatch table (cl_khr_icd). The platform and its devices live as long
 * as the process: they are made once, on the first call that needs them,
 * as every ICD does (the loader asks for platforms with no handle of
 * ours). Contexts and the objects made in them are reference counted
 * (clRetain* / clRelease*): an object is freed when its count drops to
 * zero and nothing it holds is still in use. Every handle a call gets is
 * looked up in the platform's set of live objects first (vcl_obj_get),
 * under one lock, so a stale or foreign handle is refused with the error
 * the specification names, never dereferenced.
 */
#ifndef VMGPU_OPENCL_INTERNAL_H
#define VMGPU_OPENCL_INTERNAL_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "opencl_dispatch.h"
#include "vmgpu/runtime.h"

/* What a live object is; checked on every handle. */
enum vcl_kind {
	VCL_PLATFORM = 1,
	VCL_DEVICE,
	VCL_CONTEXT,
};

/* The head of every object after the dispatch pointer. */
struct vcl_obj {
	enum vcl_kind kind;
	uint32_t refs;			/* under the platform's lock */
};

struct _cl_platform_id {
	const struct _cl_icd_dispatch *dispatch;
	struct vcl_obj o;
	struct vmgpu_rt *rt;
	struct _cl_device_id *devices;
	cl_uint ndevices;
	/* Live objects, for handle checks: an open-addressed set. */
	pthread_mutex_t lock;
	void **live;
	size_t nlive, nused, cap_live;	/* nused: live + tombstones */
};

struct _cl_device_id {
	const struct _cl_icd_dispatch *dispatch;
	struct vcl_obj o;
	struct _cl_platform_id *platform;
	uint32_t phys;			/* the runtime's physical device */
	cl_device_type type;		/* exactly one bit */
	struct vmgpu_rt_caps caps;
};

struct _cl_context {
	const struct _cl_icd_dispatch *dispatch;
	struct vcl_obj o;
	struct _cl_platform_id *platform;
	cl_device_id *devices;
	cl_uint ndevices;
	cl_context_properties *props;	/* as given, with the 0 ending it */
	size_t nprops;			/* entries, the 0 included; 0: none */
	void (CL_CALLBACK *notify)(const char *, const void *, size_t, void *);
	void *user_data;
	vmgpu_rt_handle rtctx;
};

/*
 * The platform, made on first use; NULL (and *err) if the runtime
 * cannot start.
 */
struct _cl_platform_id *vcl_platform(cl_int *err);

/* Register @o as live / no longer live (the platform's lock is taken). */
int vcl_obj_add(struct _cl_platform_id *p, void *o);
void vcl_obj_remove(struct _cl_platform_id *p, void *o);
/*
 * Whether @o is a live object of @kind, with a reference taken when @ref
 * (drop it with vcl_obj_put). Never dereferences a handle that is not
 * live.
 */
bool vcl_obj_get(struct _cl_platform_id *p, const void *o, enum vcl_kind kind,
		 bool ref);
/* Drop a reference; true when it was the last (the caller frees). */
bool vcl_obj_put(struct _cl_platform_id *p, struct vcl_obj *o);

/*
 * Copy @n bytes of @src to a clGet*Info caller's @value (of @size
 * bytes; NULL: only the size wanted) and the size to *@size_ret.
 * CL_INVALID_VALUE when @value is too small.
 */
cl_int vcl_info(const void *src, size_t n, size_t size, void *value,
		size_t *size_ret);
cl_int vcl_info_str(const char *s, size_t size, void *value,
		    size_t *size_ret);

/* The device's info (device.c), for the context's and the tests' use. */
bool vcl_device_valid(struct _cl_platform_id *p, cl_device_id d);

#endif /* VMGPU_OPENCL_INTERNAL_H */
