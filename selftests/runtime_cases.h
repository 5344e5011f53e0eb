/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the runtime's tests share (host: test_runtime on the device model;
 * VM: vmgpu_runtime through the driver): the kernel library they build
 * online, the argument constructors and a context on a logical device.
 * Header only, as ref_kernels.h.
 */
#ifndef VMGPU_RUNTIME_CASES_H
#define VMGPU_RUNTIME_CASES_H

#include <vmgpu/runtime.h>

#include "kselftest_harness.h"

/* add: c = a + b; mad: y = y * k + x; poke: p[at] = 1 (p: buf_wo). */
static const char rt_kernels_src[] =
	"kernel void add(global const int *a, global const int *b,\n"
	"                global int *c, int n)\n"
	"{\n"
	"	int i = get_global_id(0);\n"
	"	if (i < n)\n"
	"		c[i] = a[i] + b[i];\n"
	"}\n"
	"kernel void mad(global const int *x, global int *y, int k, int n)\n"
	"{\n"
	"	int i = get_global_id(0);\n"
	"	if (i < n)\n"
	"		y[i] = y[i] * k + x[i];\n"
	"}\n"
	"kernel void poke(global int *p, int at)\n"
	"{\n"
	"	p[at] = 1;\n"
	"}\n";

static inline struct vmgpu_rt_arg buf_arg(uint32_t type, vmgpu_rt_handle b)
{
	struct vmgpu_rt_arg a = { .type = type };

	a.buf = b;
	return a;
}

static inline struct vmgpu_rt_arg i32_arg(int32_t v)
{
	struct vmgpu_rt_arg a = { .type = VMGPU_PARAM_I32 };

	a.i32 = v;
	return a;
}

/* A context on the logical device of physical devices @phys[0..n). */
static inline vmgpu_rt_handle ctx_on(struct __test_metadata *_metadata,
				     struct vmgpu_rt *rt, const uint32_t *phys,
				     uint32_t n, uint32_t flags)
{
	vmgpu_rt_handle ctx = 0;
	uint32_t dev;

	EXPECT_EQ(0, vmgpu_rt_logical_device(rt, phys, n, &dev));
	EXPECT_EQ(0, vmgpu_rt_context_create(rt, dev, flags, &ctx));
	return ctx;
}

#endif
