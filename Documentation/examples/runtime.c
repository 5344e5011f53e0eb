// SPDX-License-Identifier: MIT
/*
 * The runtime's three requests (SPEC P, Documentation/runtime.rst):
 *  1. a capability request -> a device identifier,
 *  2. a context on it,
 *  3. a kernel compiled online for its devices, run on a queue.
 *
 * Build (in the tree): see Documentation/runtime.rst; test_runtime runs
 * this program's main() as one of its tests.
 */
#include <stdio.h>
#include <stdlib.h>

#include <vmgpu/runtime.h>

static const char source[] =
	"kernel void scale(global const float *x, global float *y,\n"
	"                  float a, int n)\n"
	"{\n"
	"	int i = get_global_id(0);\n"
	"	if (i < n)\n"
	"		y[i] = a * x[i];\n"
	"}\n";

#define N	1024

int main(void)
{
	/* GPUs of ISA version 2 are worth 10, any other device 1. */
	struct vmgpu_rt_cap_term terms[2] = {
		{ .key = VMGPU_RT_CAP_TYPE, .op = VMGPU_RT_OP_EQ,
		  .value = VMGPU_RT_TYPE_GPU, .weight = 8 },
		{ .key = VMGPU_RT_CAP_ISA_VERSION, .op = VMGPU_RT_OP_GE,
		  .value = 1, .weight = 1 },
	};
	struct vmgpu_rt_cap_request req = {
		.mode = VMGPU_RT_MATCH_SCORE, .num_terms = 2, .terms = terms,
	};
	struct vmgpu_compiler *cc = NULL;
	struct vmgpu_kernlib *lib = NULL;
	struct vmgpu_rt *rt = NULL;
	struct vmgpu_rt_event_info info;
	vmgpu_rt_handle ctx, kernel, queue, x, y, ev;
	float in[N], out[N];
	uint32_t device;
	char msg[256];
	int i, r;

	/* The runtime: every render node's GPUs and the CPU device. */
	r = vmgpu_rt_create(NULL, &rt);
	if (r)
		return 1;
	/* 1. What the application needs: a device identifier. */
	r = vmgpu_rt_request(rt, &req, &device);
	/* 2. A context on it (no CPU fallback needed: the CPU matched). */
	if (!r)
		r = vmgpu_rt_context_create(rt, device, 0, &ctx);
	/* 3. The kernel, compiled for each ISA version among the devices. */
	if (!r)
		r = vmgpu_compiler_create(NULL, VMGPU_COMPILER_NO_CACHE, &cc);
	if (!r)
		r = vmgpu_kernlib_create("example", source, NULL, &lib);
	if (!r)
		r = vmgpu_rt_kernel_from_library(rt, ctx, cc, lib, "scale",
						 NULL, &kernel, NULL);
	/* Buffers, then one instance; enqueue returns at once. */
	for (i = 0; i < N; i++)
		in[i] = (float)i;
	if (!r)
		r = vmgpu_rt_buffer_create(rt, ctx, sizeof(in), &x);
	if (!r)
		r = vmgpu_rt_buffer_create(rt, ctx, sizeof(out), &y);
	if (!r)
		r = vmgpu_rt_buffer_write(rt, x, 0, in, sizeof(in));
	if (!r)
		r = vmgpu_rt_queue_create(rt, ctx, &queue);
	if (!r) {
		struct vmgpu_rt_arg args[4] = {
			{ .type = VMGPU_PARAM_BUF_RO, .buf = x },
			{ .type = VMGPU_PARAM_BUF_WO, .buf = y },
			{ .type = VMGPU_PARAM_F32, .f32 = 2.0f },
			{ .type = VMGPU_PARAM_I32, .i32 = N },
		};
		struct vmgpu_rt_instance inst = {
			.kernel = kernel, .num_args = 4, .args = args,
			.grid = { N / 128 }, .block = { 128 },
		};

		r = vmgpu_rt_enqueue(rt, queue, &inst, &ev);
	}
	/* Wait: the instance's own error, if any. */
	if (!r)
		r = vmgpu_rt_wait(rt, ev, -1);
	if (!r)
		r = vmgpu_rt_buffer_read(rt, y, 0, out, sizeof(out));
	if (!r)
		r = vmgpu_rt_event_query(rt, ev, &info);
	if (r) {
		vmgpu_rt_error_message(rt, msg, sizeof(msg));
		fprintf(stderr, "runtime example: %d: %s\n", r, msg);
	} else {
		for (i = 0; i < N; i++)
			if (out[i] != 2.0f * in[i])
				r = 1;
		printf("ran on device %u in %llu ns of device time: %s\n",
		       info.phys, (unsigned long long)info.exec_ns,
		       r ? "wrong" : "right");
	}
	vmgpu_kernlib_destroy(lib);
	vmgpu_compiler_destroy(cc);
	/* Every handle still held goes with the runtime. */
	vmgpu_rt_destroy(rt);
	return r ? 1 : 0;
}
