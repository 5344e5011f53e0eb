// SPDX-License-Identifier: GPL-2.0-only
/*
 * What keeps a kernel's instances from being split bit for bit
 * (vmgpu_rt_kernel_split_hazards, libshim/runtime/splittable.c): global
 * atomics found in the compiled code, local atomics and plain kernels
 * not, device-side work (launch) in an assembled one; its errors. And a
 * split instance's stamps on the device model's GPUs (testrt.h): a span
 * from its first portion's start to its last portion's merge, the
 * transfers before it, the portions' device time together.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kselftest_harness.h"

#include "testrt.h"
#include "vmgpu/compiler.h"

static const char src[] =
"__kernel void plain(__global float *y, __global const float *x)\n"
"{\n"
"	uint i = get_global_id(0);\n"
"	y[i] = 2.0f * x[i] + y[i];\n"
"}\n"
"__kernel void global_atomic(__global uint *bins, __global const uint *d)\n"
"{\n"
"	atomic_inc(&bins[d[get_global_id(0)] & 15]);\n"
"}\n"
"__kernel void local_atomic(__global uint *out, __local uint *n)\n"
"{\n"
"	if (!get_local_id(0))\n"
"		*n = 0;\n"
"	barrier(CLK_LOCAL_MEM_FENCE);\n"
"	atomic_inc(n);\n"
"	barrier(CLK_LOCAL_MEM_FENCE);\n"
"	out[get_global_id(0)] = *n;\n"
"}\n";

FIXTURE(sp) {
	struct trt *t;
	struct vmgpu_rt *rt;
	struct vmgpu_program *prog;
	vmgpu_rt_handle ctx;
};

FIXTURE_SETUP(sp)
{
	struct vmgpu_rt_backend be;
	struct vmgpu_rt_config cfg = { 0 };
	uint32_t gpus[2] = { 0, 1 }, dev;
	char *log = NULL;

	self->t = trt_new(2, 4, 64);
	ASSERT_NE(NULL, self->t);
	be = trt_backend(self->t);
	cfg.backends = &be;
	cfg.num_backends = 1;
	cfg.cpu_threads = 2;
	ASSERT_EQ(0, vmgpu_rt_create(&cfg, &self->rt));
	if (vmgpu_program_build(src, NULL, &self->prog, &log))
		fprintf(stderr, "%s\n", log ? log : "build failed");
	free(log);
	ASSERT_NE(NULL, self->prog);
	ASSERT_EQ(0, vmgpu_rt_logical_device(self->rt, gpus, 2, &dev));
	ASSERT_EQ(0, vmgpu_rt_context_create(self->rt, dev, 0, &self->ctx));
}

FIXTURE_TEARDOWN(sp)
{
	vmgpu_rt_release(self->rt, self->ctx);
	vmgpu_rt_destroy(self->rt);
	vmgpu_program_destroy(self->prog);
	trt_free(self->t);
}

static uint32_t hazards_of(struct __test_metadata *_metadata,
			   FIXTURE_DATA(sp) *self, const char *name)
{
	vmgpu_rt_handle k;
	uint32_t h = 0xdead;

	EXPECT_EQ(0, vmgpu_rt_kernel_from_program(self->rt, self->ctx,
						  self->prog, name, &k));
	EXPECT_EQ(0, vmgpu_rt_kernel_split_hazards(self->rt, k, &h));
	vmgpu_rt_release(self->rt, k);
	return h;
}

TEST_F(sp, hazards_from_the_code)
{
	static const char launcher[] =
		".args 16\n"
		".kernel parent\n"
		".param child, i64, 0\n"
		".param task, i64, 8\n"
		"	ldarg.64 r0, 0\n"
		"	ldarg.64 r2, 8\n"
		"	mov r4, 0\n"
		"	mov r5, 0\n"
		"	launch [r0], r2, r4\n"
		"	exit\n";
	char err[256] = "";
	void *image = NULL;
	size_t bytes = 0;
	vmgpu_rt_handle k;
	uint32_t h;

	EXPECT_EQ(0u, hazards_of(_metadata, self, "plain"));
	EXPECT_EQ(VMGPU_RT_SPLIT_ATOMICS,
		  hazards_of(_metadata, self, "global_atomic"));
	EXPECT_EQ(0u, hazards_of(_metadata, self, "local_atomic"));

	ASSERT_EQ(0, vmgpu_asm_assemble(launcher, &image, &bytes, err,
					sizeof(err))) TH_LOG("%s", err);
	ASSERT_EQ(0, vmgpu_rt_kernel_create(self->rt, self->ctx, image, bytes,
					    0, &k));
	EXPECT_EQ(0, vmgpu_rt_kernel_split_hazards(self->rt, k, &h));
	EXPECT_EQ(VMGPU_RT_SPLIT_DEVICE_WORK, h);

	EXPECT_EQ(-EINVAL, vmgpu_rt_kernel_split_hazards(self->rt, k, NULL));
	EXPECT_EQ(-EINVAL, vmgpu_rt_kernel_split_hazards(NULL, k, &h));
	EXPECT_EQ(-EBADF, vmgpu_rt_kernel_split_hazards(self->rt, self->ctx,
							&h));
	vmgpu_rt_release(self->rt, k);
	EXPECT_EQ(-ESTALE, vmgpu_rt_kernel_split_hazards(self->rt, k, &h));
	free(image);
}

/* The same instance whole on GPU 0 and split over both GPUs. */
TEST_F(sp, split_stamps_are_a_span)
{
	enum { N = 64 * 64 };
	static float x[N], y[N], got[2][N];
	uint32_t s, i;

	for (i = 0; i < N; i++) {
		x[i] = (float)i * 0.5f;
		y[i] = (float)(N - i);
	}
	for (s = 0; s < 2; s++) {
		uint32_t one = 0, dev;
		vmgpu_rt_handle ctx, k, q, bx, by, ev;
		struct vmgpu_rt_event_info info;
		struct vmgpu_rt_arg args[2] = {
			{ .type = VMGPU_PARAM_BUF_RW },
			{ .type = VMGPU_PARAM_BUF_RO },
		};
		struct vmgpu_rt_instance inst = {
			.num_args = 2, .args = args,
			.grid = { N / 64 }, .block = { 64 },
			.flags = s ? VMGPU_RT_INSTANCE_SPLIT : 0,
		};

		if (s) {
			ctx = self->ctx;
		} else {
			ASSERT_EQ(0, vmgpu_rt_logical_device(self->rt, &one, 1,
							     &dev));
			ASSERT_EQ(0, vmgpu_rt_context_create(self->rt, dev, 0,
							     &ctx));
		}
		ASSERT_EQ(0, vmgpu_rt_kernel_from_program(self->rt, ctx,
							  self->prog, "plain",
							  &k));
		ASSERT_EQ(0, vmgpu_rt_queue_create(self->rt, ctx, &q));
		ASSERT_EQ(0, vmgpu_rt_buffer_create(self->rt, ctx, sizeof(x),
						    &bx));
		ASSERT_EQ(0, vmgpu_rt_buffer_create(self->rt, ctx, sizeof(y),
						    &by));
		ASSERT_EQ(0, vmgpu_rt_buffer_write(self->rt, bx, 0, x,
						   sizeof(x)));
		ASSERT_EQ(0, vmgpu_rt_buffer_write(self->rt, by, 0, y,
						   sizeof(y)));
		args[0].buf = by;
		args[1].buf = bx;
		inst.kernel = k;
		ASSERT_EQ(0, vmgpu_rt_enqueue(self->rt, q, &inst, &ev));
		ASSERT_EQ(0, vmgpu_rt_wait(self->rt, ev, -1));
		ASSERT_EQ(0, vmgpu_rt_event_query(self->rt, ev, &info));
		EXPECT_EQ(s ? 2u : 1u, info.parts);
		EXPECT_LT(0, info.exec_ns);
		EXPECT_LT(0, info.transfer_ns);
		/* Execution starts after the transfers, ends by end_ns. */
		EXPECT_LT(info.start_ns + info.transfer_ns, info.end_ns);
		if (s) {
			/* its portions at once, the merge's copies after */
			EXPECT_LE(info.start_ns + info.transfer_ns +
				  info.exec_ns / 2, info.end_ns);
		} else {
			EXPECT_EQ(info.start_ns + info.transfer_ns +
				  info.exec_ns, info.end_ns);
		}
		ASSERT_EQ(0, vmgpu_rt_buffer_read(self->rt, by, 0, got[s],
						  sizeof(y)));
		vmgpu_rt_release(self->rt, ev);
		vmgpu_rt_release(self->rt, bx);
		vmgpu_rt_release(self->rt, by);
		vmgpu_rt_release(self->rt, q);
		vmgpu_rt_release(self->rt, k);
		if (!s)
			vmgpu_rt_release(self->rt, ctx);
	}
	EXPECT_EQ(0, memcmp(got[0], got[1], sizeof(got[0])));
	EXPECT_EQ(2.0f * x[5] + y[5], got[1][5]);
}

TEST_HARNESS_MAIN
