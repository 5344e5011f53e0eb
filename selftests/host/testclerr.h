/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The handles the OpenCL error tests (test_opencl_errors*.c) pass where
 * an object is wanted and none is.
 *
 * A foreign handle is zeroed memory larger than any object whose first
 * word is the platform's dispatch table, as the loader wants (it calls
 * through that word): the platform finds it in no set of live objects.
 * A released handle is freed memory: the loader would read its dispatch
 * word from it, so a call on one — and on NULL, which the loader refuses
 * itself — goes straight to the platform's table, taken from a live
 * object: the platform looks the handle up, never dereferences it. In a
 * list (a wait list, a kernel's buffer argument, an enqueue's buffer) a
 * released handle goes through the loader, which passes it on unread.
 */
#ifndef VMGPU_TESTCLERR_H
#define VMGPU_TESTCLERR_H

#define CL_USE_DEPRECATED_OPENCL_1_1_APIS
#include <string.h>

#include "testcl.h"
#include <CL/cl_icd.h>

struct fake {
	const void *dispatch;
	char zero[1024];
};

static inline void *foreign(struct fake *f, const void *live)
{
	memset(f, 0, sizeof(*f));
	f->dispatch = *(const void *const *)live;
	return f;
}

/* The platform's own table, for NULL and released handles. */
static inline const cl_icd_dispatch *icd(const void *live)
{
	return *(const cl_icd_dispatch *const *)live;
}

#endif /* VMGPU_TESTCLERR_H */
