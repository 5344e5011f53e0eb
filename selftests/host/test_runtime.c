// SPDX-License-Identifier: GPL-2.0-only
/*
 * The parallel runtime (SPEC P1-P6, libshim/runtime/): capability
 * matching by score and all-must-match over a device table of GPUs of
 * two kinds and the CPU; logical devices mixing GPUs and the CPU;
 * context reference counting and stale or foreign handles; instances on
 * the GPUs of the in-process device model (testrt.h) and on the CPU
 * device; random programs of instances with data-flow (RAW, WAR, WAW)
 * and event dependencies, random priorities, on several devices, give
 * the results of serial execution and respect every dependency on the
 * virtual clock; priorities order ready instances; CPU fallback only
 * when allowed, with busy GPUs; errors reach the event, and cancel what
 * depends on it.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kselftest_harness.h"

#include "../runtime_cases.h"
#include "testrt.h"
#include "vmgpu/compiler.h"


#define N	256	/* elements of a test buffer */

static uint32_t seed = 12345;

static uint32_t rng(void)
{
	seed = seed * 1103515245 + 12345;
	return seed >> 8;
}

static struct vmgpu_program *build_kernels(void)
{
	struct vmgpu_program *prog = NULL;
	char *log = NULL;

	if (vmgpu_program_build(rt_kernels_src, NULL, &prog, &log)) {
		fprintf(stderr, "%s\n", log ? log : "build failed");
		abort();
	}
	free(log);
	return prog;
}

/* Two back ends: A with 2 GPUs of 4 SMs, B with 2 GPUs of 2 SMs, ISA 1. */
FIXTURE(rt) {
	struct trt *a, *b;
	struct vmgpu_rt *rt;
	struct vmgpu_program *prog;
	uint32_t cpu;
};

FIXTURE_SETUP(rt)
{
	struct vmgpu_rt_backend be[2];
	struct vmgpu_rt_config cfg = { 0 };

	self->a = trt_new(2, 4, 64);
	self->b = trt_new(2, 2, 64);
	self->b->cfg.isa_version = 1;
	be[0] = trt_backend(self->a);
	be[1] = trt_backend(self->b);
	cfg.backends = be;
	cfg.num_backends = 2;
	cfg.cpu_threads = 2;
	ASSERT_EQ(0, vmgpu_rt_create(&cfg, &self->rt));
	ASSERT_EQ(5, vmgpu_rt_device_count(self->rt));
	self->cpu = 4;
	self->prog = build_kernels();
}

FIXTURE_TEARDOWN(rt)
{
	vmgpu_rt_destroy(self->rt);
	vmgpu_program_destroy(self->prog);
	trt_free(self->a);
	trt_free(self->b);
}

static vmgpu_rt_handle kernel(struct __test_metadata *_metadata,
			      FIXTURE_DATA(rt) *self, vmgpu_rt_handle ctx,
			      const char *name)
{
	vmgpu_rt_handle k = 0;

	EXPECT_EQ(0, vmgpu_rt_kernel_from_program(self->rt, ctx, self->prog,
						  name, &k));
	return k;
}

/* ---- P1 ---- */

TEST_F(rt, device_table)
{
	struct vmgpu_rt_caps c;

	ASSERT_EQ(0, vmgpu_rt_device_caps(self->rt, 0, &c));
	EXPECT_EQ(VMGPU_RT_TYPE_GPU, c.type);
	EXPECT_EQ(4, c.compute_units);
	EXPECT_EQ(VMGPU_ISA_VERSION, c.isa_version);
	EXPECT_EQ(32, c.warp_width);
	EXPECT_EQ(1500000, c.clock_khz);
	ASSERT_EQ(0, vmgpu_rt_device_caps(self->rt, 3, &c));
	EXPECT_EQ(2, c.compute_units);
	EXPECT_EQ(1, c.isa_version);
	ASSERT_EQ(0, vmgpu_rt_device_caps(self->rt, self->cpu, &c));
	EXPECT_EQ(VMGPU_RT_TYPE_CPU, c.type);
	EXPECT_EQ(2, c.compute_units);
	EXPECT_EQ(-ENODEV, vmgpu_rt_device_caps(self->rt, 5, &c));
	EXPECT_EQ(-EINVAL, vmgpu_rt_device_caps(self->rt, 0, NULL));
}

TEST_F(rt, match_all_must_match)
{
	struct vmgpu_rt_cap_term t[2] = {
		{ .key = VMGPU_RT_CAP_TYPE, .op = VMGPU_RT_OP_EQ,
		  .value = VMGPU_RT_TYPE_GPU },
		{ .key = VMGPU_RT_CAP_ISA_VERSION, .op = VMGPU_RT_OP_GE,
		  .value = 2 },
	};
	struct vmgpu_rt_cap_request req = {
		.mode = VMGPU_RT_MATCH_ALL, .num_terms = 2, .terms = t,
	};
	uint32_t phys[8], dev, dev2, members[8];

	ASSERT_EQ(2, vmgpu_rt_match(self->rt, &req, phys, NULL, 8));
	EXPECT_EQ(0, phys[0]);
	EXPECT_EQ(1, phys[1]);
	ASSERT_EQ(0, vmgpu_rt_request(self->rt, &req, &dev));
	ASSERT_EQ(0, vmgpu_rt_request(self->rt, &req, &dev2));
	EXPECT_EQ(dev, dev2);		/* the same set, the same id */
	ASSERT_EQ(2, vmgpu_rt_device_members(self->rt, dev, members, 8));
	EXPECT_EQ(0, members[0]);
	EXPECT_EQ(1, members[1]);
	/* GPUs of ISA version 1 only: the B ones */
	t[1].op = VMGPU_RT_OP_LE;
	t[1].value = 1;
	ASSERT_EQ(2, vmgpu_rt_match(self->rt, &req, phys, NULL, 8));
	EXPECT_EQ(2, phys[0]);
	EXPECT_EQ(3, phys[1]);
	ASSERT_EQ(0, vmgpu_rt_request(self->rt, &req, &dev2));
	EXPECT_NE(dev, dev2);
	/* Nobody has fp64: no device, a clear error. */
	t[1] = (struct vmgpu_rt_cap_term){ .key = VMGPU_RT_CAP_FP64,
					   .op = VMGPU_RT_OP_EQ, .value = 1 };
	EXPECT_EQ(0, vmgpu_rt_match(self->rt, &req, phys, NULL, 8));
	EXPECT_EQ(-ENODEV, vmgpu_rt_request(self->rt, &req, &dev2));
	/* Bad requests. */
	t[1].key = VMGPU_RT_CAP_NUM_KEYS;
	EXPECT_EQ(-EINVAL, vmgpu_rt_match(self->rt, &req, phys, NULL, 8));
	req.mode = 7;
	t[1].key = VMGPU_RT_CAP_FP64;
	EXPECT_EQ(-EINVAL, vmgpu_rt_match(self->rt, &req, phys, NULL, 8));
	EXPECT_EQ(-EINVAL, vmgpu_rt_match(self->rt, NULL, phys, NULL, 8));
}

TEST_F(rt, match_by_score)
{
	struct vmgpu_rt_cap_term t[3] = {
		{ .key = VMGPU_RT_CAP_COMPUTE_UNITS, .op = VMGPU_RT_OP_GE,
		  .value = 4, .weight = 10 },
		{ .key = VMGPU_RT_CAP_ISA_VERSION, .op = VMGPU_RT_OP_GE,
		  .value = 2, .weight = 3 },
		{ .key = VMGPU_RT_CAP_TYPE, .op = VMGPU_RT_OP_EQ,
		  .value = VMGPU_RT_TYPE_GPU, .weight = 1 },
	};
	struct vmgpu_rt_cap_request req = {
		.mode = VMGPU_RT_MATCH_SCORE, .num_terms = 3, .terms = t,
	};
	uint32_t phys[8], scores[8];

	/* A GPUs 14, B GPUs 1, the CPU (2 units, ISA 2) 3. */
	ASSERT_EQ(5, vmgpu_rt_match(self->rt, &req, phys, scores, 8));
	EXPECT_EQ(0, phys[0]);
	EXPECT_EQ(14, scores[0]);
	EXPECT_EQ(1, phys[1]);
	EXPECT_EQ(self->cpu, phys[2]);
	EXPECT_EQ(3, scores[2]);
	EXPECT_EQ(2, phys[3]);
	EXPECT_EQ(1, scores[3]);
	EXPECT_EQ(3, phys[4]);
	/* The best two. */
	req.max_devices = 2;
	ASSERT_EQ(2, vmgpu_rt_match(self->rt, &req, phys, scores, 8));
	/* A required term: GPUs only. */
	req.max_devices = 0;
	t[2].flags = VMGPU_RT_TERM_REQUIRED;
	ASSERT_EQ(4, vmgpu_rt_match(self->rt, &req, phys, scores, 8));
	EXPECT_EQ(0, phys[0]);
	EXPECT_EQ(2, phys[2]);
	/* Only one slot: the count is still all of them. */
	EXPECT_EQ(4, vmgpu_rt_match(self->rt, &req, phys, scores, 1));
}

TEST_F(rt, logical_devices_mix_gpus_and_cpu)
{
	struct vmgpu_rt_cap_term t = {
		.key = VMGPU_RT_CAP_ISA_VERSION, .op = VMGPU_RT_OP_GE,
		.value = 2,
	};
	struct vmgpu_rt_cap_request req = {
		.mode = VMGPU_RT_MATCH_ALL, .num_terms = 1, .terms = &t,
	};
	uint32_t dev, members[8], set[3] = { 2, self->cpu, 0 }, dev2;

	/* GPUs A and the CPU, the most powerful first. */
	ASSERT_EQ(0, vmgpu_rt_request(self->rt, &req, &dev));
	ASSERT_EQ(3, vmgpu_rt_device_members(self->rt, dev, members, 8));
	EXPECT_EQ(0, members[0]);
	EXPECT_EQ(1, members[1]);
	EXPECT_EQ(self->cpu, members[2]);
	ASSERT_EQ(0, vmgpu_rt_logical_device(self->rt, set, 3, &dev2));
	EXPECT_NE(dev, dev2);
	ASSERT_EQ(3, vmgpu_rt_device_members(self->rt, dev2, members, 8));
	EXPECT_EQ(2, members[0]);
	EXPECT_EQ(self->cpu, members[1]);
	set[2] = 2;
	EXPECT_EQ(-EINVAL, vmgpu_rt_logical_device(self->rt, set, 3, &dev2));
	set[2] = 9;
	EXPECT_EQ(-ENODEV, vmgpu_rt_logical_device(self->rt, set, 3, &dev2));
	EXPECT_EQ(-ENODEV, vmgpu_rt_device_members(self->rt, 99, members, 8));
}

/* ---- P2 ---- */

TEST_F(rt, context_refcount_and_stale_handles)
{
	uint32_t phys = 0, dev;
	vmgpu_rt_handle ctx, buf, q, other_ctx, h, foreign;
	uint32_t cpu_only = 0;
	struct vmgpu_rt *other;
	char msg[256];

	ctx = ctx_on(_metadata, self->rt, &phys, 1, 0);
	ASSERT_NE(0, ctx);
	ASSERT_EQ(0, vmgpu_rt_retain(self->rt, ctx));
	ASSERT_EQ(0, vmgpu_rt_release(self->rt, ctx));
	/* Still one reference: usable. */
	ASSERT_EQ(0, vmgpu_rt_buffer_create(self->rt, ctx, 64, &buf));
	ASSERT_EQ(0, vmgpu_rt_context_device(self->rt, ctx, &dev));
	ASSERT_EQ(0, vmgpu_rt_queue_create(self->rt, ctx, &q));
	ASSERT_EQ(0, vmgpu_rt_release(self->rt, ctx));
	/* Released: every use is the invalid-context error. */
	EXPECT_EQ(-ESTALE, vmgpu_rt_buffer_create(self->rt, ctx, 64, &h));
	EXPECT_EQ(0, h);
	vmgpu_rt_error_message(self->rt, msg, sizeof(msg));
	EXPECT_NE(NULL, strstr(msg, "invalid context"));
	EXPECT_NE(NULL, strstr(msg, "released"));
	EXPECT_EQ(-ESTALE, vmgpu_rt_context_device(self->rt, ctx, &dev));
	EXPECT_EQ(-ESTALE, vmgpu_rt_retain(self->rt, ctx));
	EXPECT_EQ(-ESTALE, vmgpu_rt_release(self->rt, ctx));
	EXPECT_EQ(-ESTALE, vmgpu_rt_queue_create(self->rt, ctx, &h));
	/* A new context may reuse the slot: the old handle stays stale. */
	other_ctx = ctx_on(_metadata, self->rt, &phys, 1, 0);
	EXPECT_NE(ctx, other_ctx);
	EXPECT_EQ(-ESTALE, vmgpu_rt_context_device(self->rt, ctx, &dev));
	EXPECT_EQ(0, vmgpu_rt_context_device(self->rt, other_ctx, &dev));
	/* The queue keeps what it needs of its context. */
	EXPECT_EQ(0, vmgpu_rt_finish(self->rt, q));
	/* Wrong kinds, garbage, 0. */
	EXPECT_EQ(-EBADF, vmgpu_rt_context_device(self->rt, buf, &dev));
	EXPECT_EQ(-EBADF, vmgpu_rt_context_device(self->rt, 0, &dev));
	EXPECT_EQ(-EBADF, vmgpu_rt_context_device(self->rt, 0x1234, &dev));
	EXPECT_EQ(-EBADF, vmgpu_rt_context_device(self->rt, ~0ull, &dev));
	EXPECT_EQ(-EBADF, vmgpu_rt_buffer_create(self->rt, q, 64, &h));
	/* A handle of another runtime. */
	ASSERT_EQ(0, vmgpu_rt_create(NULL, &other));
	ASSERT_EQ(0, vmgpu_rt_logical_device(other, &cpu_only, 1, &dev));
	ASSERT_EQ(0, vmgpu_rt_context_create(other, dev, 0, &foreign));
	EXPECT_EQ(-EBADF, vmgpu_rt_context_device(self->rt, foreign, &dev));
	EXPECT_EQ(-EBADF, vmgpu_rt_release(self->rt, foreign));
	EXPECT_EQ(0, vmgpu_rt_release(other, foreign));
	EXPECT_EQ(-ESTALE, vmgpu_rt_release(other, foreign));
	vmgpu_rt_destroy(other);
	EXPECT_EQ(-EINVAL, vmgpu_rt_context_create(self->rt, 0, 0x80, &h));
	EXPECT_EQ(-ENODEV, vmgpu_rt_context_create(self->rt, 99, 0, &h));
	EXPECT_EQ(0, vmgpu_rt_release(self->rt, buf));
	EXPECT_EQ(-ESTALE, vmgpu_rt_release(self->rt, buf));
	EXPECT_EQ(0, vmgpu_rt_release(self->rt, q));
	EXPECT_EQ(0, vmgpu_rt_release(self->rt, other_ctx));
}

/* ---- P3, P5: one instance on a GPU, on the CPU ---- */

static void add_on(struct __test_metadata *_metadata, FIXTURE_DATA(rt) *self,
		   uint32_t phys)
{
	vmgpu_rt_handle ctx = ctx_on(_metadata, self->rt, &phys, 1, 0);
	vmgpu_rt_handle k = kernel(_metadata, self, ctx, "add");
	vmgpu_rt_handle a, b, c, q, ev;
	struct vmgpu_rt_event_info info;
	int32_t x[N], y[N], z[N];
	struct vmgpu_rt_arg args[4];
	struct vmgpu_rt_instance inst = {
		.kernel = k, .num_args = 4, .args = args,
		.grid = { N / 64 }, .block = { 64 },
	};
	int i;

	for (i = 0; i < N; i++) {
		x[i] = (int32_t)rng();
		y[i] = (int32_t)rng();
	}
	ASSERT_EQ(0, vmgpu_rt_buffer_create(self->rt, ctx, sizeof(x), &a));
	ASSERT_EQ(0, vmgpu_rt_buffer_create(self->rt, ctx, sizeof(y), &b));
	ASSERT_EQ(0, vmgpu_rt_buffer_create(self->rt, ctx, sizeof(z), &c));
	ASSERT_EQ(0, vmgpu_rt_buffer_write(self->rt, a, 0, x, sizeof(x)));
	ASSERT_EQ(0, vmgpu_rt_buffer_write(self->rt, b, 0, y, sizeof(y)));
	ASSERT_EQ(0, vmgpu_rt_queue_create(self->rt, ctx, &q));
	args[0] = buf_arg(VMGPU_PARAM_BUF_RO, a);
	args[1] = buf_arg(VMGPU_PARAM_BUF_RO, b);
	args[2] = buf_arg(VMGPU_PARAM_BUF_WO, c);
	args[3] = i32_arg(N);
	ASSERT_EQ(0, vmgpu_rt_enqueue(self->rt, q, &inst, &ev));
	ASSERT_EQ(0, vmgpu_rt_event_query(self->rt, ev, &info));
	EXPECT_EQ(VMGPU_RT_EVENT_QUEUED, info.state);
	ASSERT_EQ(0, vmgpu_rt_wait(self->rt, ev, -1));
	ASSERT_EQ(0, vmgpu_rt_event_query(self->rt, ev, &info));
	EXPECT_EQ(VMGPU_RT_EVENT_COMPLETE, info.state);
	EXPECT_EQ(phys, info.phys);
	EXPECT_LT(0, info.exec_ns);
	/* Two inputs moved to the GPU over the host bus; none to the CPU. */
	if (phys == self->cpu) {
		EXPECT_EQ(0, info.transfer_ns);
	} else {
		EXPECT_LT(0, info.transfer_ns);
	}
	EXPECT_EQ(info.start_ns + info.transfer_ns + info.exec_ns, info.end_ns);
	ASSERT_EQ(0, vmgpu_rt_buffer_read(self->rt, c, 0, z, sizeof(z)));
	for (i = 0; i < N; i++)
		ASSERT_EQ((int32_t)((uint32_t)x[i] + (uint32_t)y[i]), z[i]);
	EXPECT_EQ(0, vmgpu_rt_release(self->rt, ev));
	EXPECT_EQ(-ESTALE, vmgpu_rt_wait(self->rt, ev, -1));
	EXPECT_EQ(0, vmgpu_rt_release(self->rt, q));
	EXPECT_EQ(0, vmgpu_rt_release(self->rt, k));
	EXPECT_EQ(0, vmgpu_rt_release(self->rt, ctx));
	/* Buffers a, b, c left to vmgpu_rt_destroy(). */
}

TEST_F(rt, instance_on_gpu)
{
	add_on(_metadata, self, 0);
}

TEST_F(rt, instance_on_isa1_gpu)
{
	add_on(_metadata, self, 3);
}

TEST_F(rt, instance_on_cpu)
{
	add_on(_metadata, self, self->cpu);
}

TEST_F(rt, bad_arguments)
{
	uint32_t phys = 0;
	vmgpu_rt_handle ctx = ctx_on(_metadata, self->rt, &phys, 1, 0);
	vmgpu_rt_handle k = kernel(_metadata, self, ctx, "poke");
	vmgpu_rt_handle b, q, ev = 7;
	struct vmgpu_rt_arg args[2];
	struct vmgpu_rt_instance inst = {
		.kernel = k, .num_args = 2, .args = args, .grid = { 1 },
		.block = { 1 },
	};
	void *p;

	ASSERT_EQ(2, vmgpu_rt_kernel_param_count(self->rt, k));
	ASSERT_EQ(0, vmgpu_rt_buffer_create(self->rt, ctx, 64, &b));
	ASSERT_EQ(0, vmgpu_rt_queue_create(self->rt, ctx, &q));
	args[0] = i32_arg(1);		/* a buffer expected */
	args[1] = i32_arg(0);
	EXPECT_EQ(-EINVAL, vmgpu_rt_enqueue(self->rt, q, &inst, &ev));
	EXPECT_EQ(0, ev);
	args[0] = buf_arg(VMGPU_PARAM_BUF_WO, b);
	inst.num_args = 1;
	EXPECT_EQ(-EINVAL, vmgpu_rt_enqueue(self->rt, q, &inst, &ev));
	inst.num_args = 2;
	args[0].buf = ctx;		/* not a buffer */
	EXPECT_EQ(-EBADF, vmgpu_rt_enqueue(self->rt, q, &inst, &ev));
	args[0].buf = b;
	inst.kernel = b;
	EXPECT_EQ(-EBADF, vmgpu_rt_enqueue(self->rt, q, &inst, &ev));
	inst.kernel = k;
	inst.block[0] = 4096;
	EXPECT_EQ(-EINVAL, vmgpu_rt_enqueue(self->rt, q, &inst, &ev));
	inst.block[0] = 1;
	/* A mapped buffer cannot be used. */
	ASSERT_EQ(0, vmgpu_rt_buffer_map(self->rt, b, VMGPU_RT_MAP_READ, &p));
	EXPECT_EQ(-EBUSY, vmgpu_rt_enqueue(self->rt, q, &inst, &ev));
	ASSERT_EQ(0, vmgpu_rt_buffer_unmap(self->rt, b));
	ASSERT_EQ(0, vmgpu_rt_enqueue(self->rt, q, &inst, &ev));
	EXPECT_EQ(0, vmgpu_rt_wait(self->rt, ev, -1));
	EXPECT_EQ(0, vmgpu_rt_finish(self->rt, q));
	/* Not an executable. */
	EXPECT_EQ(-EINVAL, vmgpu_rt_kernel_create(self->rt, ctx, "xx", 2, 0,
						  &k));
	EXPECT_EQ(-EINVAL, vmgpu_rt_enqueue(self->rt, q, NULL, &ev));
	EXPECT_EQ(-EINVAL, vmgpu_rt_enqueue(NULL, q, &inst, &ev));
}

/* A fault reaches the event; an instance waiting for it is cancelled. */
TEST_F(rt, errors_and_cancellation)
{
	uint32_t phys[2] = { 0, self->cpu }, i;

	for (i = 0; i < 2; i++) {
		vmgpu_rt_handle ctx = ctx_on(_metadata, self->rt, &phys[i], 1,
					     0);
		vmgpu_rt_handle k = kernel(_metadata, self, ctx, "poke");
		vmgpu_rt_handle b, q, ev[3];
		struct vmgpu_rt_arg args[2];
		struct vmgpu_rt_instance inst = {
			.kernel = k, .num_args = 2, .args = args,
			.grid = { 1 }, .block = { 1 },
		};
		struct vmgpu_rt_event_info info;

		ASSERT_EQ(0, vmgpu_rt_buffer_create(self->rt, ctx, 64, &b));
		ASSERT_EQ(0, vmgpu_rt_queue_create(self->rt, ctx, &q));
		args[0] = buf_arg(VMGPU_PARAM_BUF_WO, b);
		args[1] = i32_arg(1 << 24);	/* 64 MiB past it */
		ASSERT_EQ(0, vmgpu_rt_enqueue(self->rt, q, &inst, &ev[0]));
		args[1] = i32_arg(1);
		ASSERT_EQ(0, vmgpu_rt_enqueue(self->rt, q, &inst, &ev[1]));
		inst.num_wait = 1;
		inst.wait = &ev[0];
		/* another buffer: only the event orders it */
		ASSERT_EQ(0, vmgpu_rt_buffer_create(self->rt, ctx, 64,
						    &args[0].buf));
		ASSERT_EQ(0, vmgpu_rt_enqueue(self->rt, q, &inst, &ev[2]));
		EXPECT_EQ(-EFAULT, vmgpu_rt_wait(self->rt, ev[0], -1));
		EXPECT_EQ(-ECANCELED, vmgpu_rt_wait(self->rt, ev[1], -1));
		EXPECT_EQ(-ECANCELED, vmgpu_rt_wait(self->rt, ev[2], -1));
		ASSERT_EQ(0, vmgpu_rt_event_query(self->rt, ev[2], &info));
		EXPECT_EQ(-ECANCELED, info.error);
		EXPECT_EQ(-EFAULT, vmgpu_rt_finish(self->rt, q));
		EXPECT_EQ(0, vmgpu_rt_finish(self->rt, q));
	}
}

/* ---- P5: random programs against serial execution ---- */

#define NBUF	5
#define NINST	48

struct op {
	int kind;			/* 0 add, 1 mad */
	int a, b, c;			/* buffers */
	int k;
};

static void serial(int32_t (*m)[N], const struct op *o)
{
	int i;

	for (i = 0; i < N; i++) {
		if (o->kind == 0)
			m[o->c][i] = (int32_t)((uint32_t)m[o->a][i] +
					       (uint32_t)m[o->b][i]);
		else
			m[o->c][i] = (int32_t)((uint32_t)m[o->c][i] *
					       (uint32_t)o->k +
					       (uint32_t)m[o->a][i]);
	}
}

static void random_program(struct __test_metadata *_metadata,
			   FIXTURE_DATA(rt) *self, const uint32_t *phys,
			   uint32_t nphys, uint32_t policy, uint32_t round)
{
	static int32_t init[NBUF][N], want[NBUF][N], got[N];
	vmgpu_rt_handle ctx = ctx_on(_metadata, self->rt, phys, nphys, 0);
	vmgpu_rt_handle kadd = kernel(_metadata, self, ctx, "add");
	vmgpu_rt_handle kmad = kernel(_metadata, self, ctx, "mad");
	vmgpu_rt_handle buf[NBUF], q[2], ev[NINST];
	struct vmgpu_rt_event_info info[NINST];
	int waits[NINST][2], nwaits[NINST];
	struct op ops[NINST];
	uint32_t used[VMGPU_RT_MAX_DEVICES] = { 0 };
	int i, j, w, n;

	ASSERT_EQ(0, vmgpu_rt_set_policy(self->rt, policy));
	for (i = 0; i < NBUF; i++) {
		for (j = 0; j < N; j++)
			init[i][j] = want[i][j] = (int32_t)(rng() % 1000);
		ASSERT_EQ(0, vmgpu_rt_buffer_create(self->rt, ctx,
						    sizeof(init[i]), &buf[i]));
		ASSERT_EQ(0, vmgpu_rt_buffer_write(self->rt, buf[i], 0,
						   init[i], sizeof(init[i])));
	}
	ASSERT_EQ(0, vmgpu_rt_queue_create(self->rt, ctx, &q[0]));
	ASSERT_EQ(0, vmgpu_rt_queue_create(self->rt, ctx, &q[1]));
	for (i = 0; i < NINST; i++) {
		struct op *o = &ops[i];
		struct vmgpu_rt_arg args[4];
		vmgpu_rt_handle wait[2];
		struct vmgpu_rt_instance inst = {
			.args = args, .grid = { N / 32 }, .block = { 32 },
			.priority = (int32_t)(rng() % 4),
			.wait = wait,
		};

		o->kind = rng() % 2;
		o->a = rng() % NBUF;
		o->b = rng() % NBUF;
		o->c = rng() % NBUF;
		o->k = (int)(rng() % 5) - 2;
		if (o->kind == 0) {
			inst.kernel = kadd;
			inst.num_args = 4;
			args[0] = buf_arg(VMGPU_PARAM_BUF_RO, buf[o->a]);
			args[1] = buf_arg(VMGPU_PARAM_BUF_RO, buf[o->b]);
			args[2] = buf_arg(VMGPU_PARAM_BUF_WO, buf[o->c]);
			args[3] = i32_arg(N);
			if (o->c == o->a || o->c == o->b)
				o->c = (o->c + 1) % NBUF;
			if (o->c == o->a || o->c == o->b)
				o->c = (o->c + 1) % NBUF;
			args[2].buf = buf[o->c];
		} else {
			if (o->a == o->c)
				o->a = (o->a + 1) % NBUF;
			inst.kernel = kmad;
			inst.num_args = 4;
			args[0] = buf_arg(VMGPU_PARAM_BUF_RO, buf[o->a]);
			args[1] = buf_arg(VMGPU_PARAM_BUF_RW, buf[o->c]);
			args[2] = i32_arg(o->k);
			args[3] = i32_arg(N);
		}
		nwaits[i] = 0;
		for (w = 0; w < 2 && i > 0; w++)
			if (rng() % 3 == 0) {
				waits[i][nwaits[i]] = rng() % i;
				wait[nwaits[i]] = ev[waits[i][nwaits[i]]];
				nwaits[i]++;
			}
		inst.num_wait = nwaits[i];
		ASSERT_EQ(0, vmgpu_rt_enqueue(self->rt, q[rng() % 2], &inst,
					      &ev[i]));
		serial(want, o);
		/* Sometimes hand what is there to the scheduler. */
		if (rng() % 8 == 0)
			ASSERT_EQ(0, vmgpu_rt_flush(self->rt, q[rng() % 2]));
	}
	ASSERT_EQ(0, vmgpu_rt_finish(self->rt, q[0]));
	ASSERT_EQ(0, vmgpu_rt_finish(self->rt, q[1]));
	for (i = 0; i < NBUF; i++) {
		ASSERT_EQ(0, vmgpu_rt_buffer_read(self->rt, buf[i], 0, got,
						  sizeof(got)));
		for (j = 0; j < N; j++)
			if (got[j] != want[i][j]) {
				TH_LOG("round %u buffer %d [%d]: %d, serial %d",
				       round, i, j, got[j], want[i][j]);
				ASSERT_EQ(want[i][j], got[j]);
			}
	}
	/* Every dependency held on the virtual clock and on the host. */
	for (i = 0; i < NINST; i++) {
		ASSERT_EQ(0, vmgpu_rt_event_query(self->rt, ev[i], &info[i]));
		ASSERT_EQ(VMGPU_RT_EVENT_COMPLETE, info[i].state);
		ASSERT_EQ(0, info[i].error);
		used[info[i].phys]++;
	}
	for (i = 0; i < NINST; i++) {
		for (w = 0; w < nwaits[i]; w++) {
			EXPECT_LE(info[waits[i][w]].end_ns, info[i].start_ns);
			EXPECT_LT(info[waits[i][w]].order, info[i].order);
		}
		for (j = 0; j < i; j++) {
			const struct op *a = &ops[j], *b = &ops[i];
			bool conflict =
				a->c == b->c ||			/* WAW */
				(b->kind == 0 && (a->c == b->a || a->c == b->b)) ||
				(b->kind == 1 && a->c == b->a) ||	/* RAW */
				b->c == a->a ||			/* WAR */
				(a->kind == 0 && b->c == a->b);
			if (conflict) {
				EXPECT_LE(info[j].end_ns, info[i].start_ns);
				EXPECT_LT(info[j].order, info[i].order);
			}
		}
	}
	for (n = 0, i = 0; i < VMGPU_RT_MAX_DEVICES; i++)
		n += used[i] != 0;
	if (nphys > 1 && policy == VMGPU_RT_POLICY_ROUND_ROBIN) {
		EXPECT_EQ(nphys, n);
	}
	for (i = 0; i < NINST; i++)
		vmgpu_rt_release(self->rt, ev[i]);
	for (i = 0; i < NBUF; i++)
		vmgpu_rt_release(self->rt, buf[i]);
	vmgpu_rt_release(self->rt, q[0]);
	vmgpu_rt_release(self->rt, q[1]);
	vmgpu_rt_release(self->rt, kadd);
	vmgpu_rt_release(self->rt, kmad);
	vmgpu_rt_release(self->rt, ctx);
}

TEST_F(rt, random_dataflow_and_events_match_serial)
{
	uint32_t all[5] = { 0, 1, 2, 3, self->cpu }, one = 1;
	uint32_t round;

	for (round = 0; round < 6; round++) {
		seed = 1000 + round;
		random_program(_metadata, self, all, 5,
			       round % 3 == 0 ? VMGPU_RT_POLICY_DMDA :
			       round % 3 == 1 ? VMGPU_RT_POLICY_ROUND_ROBIN :
						VMGPU_RT_POLICY_DMDA_MEAN,
			       round);
	}
	random_program(_metadata, self, &one, 1, VMGPU_RT_POLICY_DMDA, round);
}

/* ---- P5: priorities ---- */

TEST_F(rt, priorities_order_ready_instances)
{
	uint32_t phys = 0;
	vmgpu_rt_handle ctx = ctx_on(_metadata, self->rt, &phys, 1, 0);
	vmgpu_rt_handle k = kernel(_metadata, self, ctx, "poke");
	vmgpu_rt_handle q, b[16], ev[16];
	struct vmgpu_rt_event_info info[16];
	int32_t prio[16];
	int i, j;

	ASSERT_EQ(0, vmgpu_rt_queue_create(self->rt, ctx, &q));
	for (i = 0; i < 16; i++) {
		struct vmgpu_rt_arg args[2];
		struct vmgpu_rt_instance inst = {
			.kernel = k, .num_args = 2, .args = args,
			.grid = { 1 }, .block = { 1 },
		};

		/* Independent: a buffer each. */
		ASSERT_EQ(0, vmgpu_rt_buffer_create(self->rt, ctx, 64, &b[i]));
		args[0] = buf_arg(VMGPU_PARAM_BUF_WO, b[i]);
		args[1] = i32_arg(0);
		prio[i] = inst.priority = (int32_t)(rng() % 5) - 2;
		ASSERT_EQ(0, vmgpu_rt_enqueue(self->rt, q, &inst, &ev[i]));
	}
	ASSERT_EQ(0, vmgpu_rt_finish(self->rt, q));
	for (i = 0; i < 16; i++)
		ASSERT_EQ(0, vmgpu_rt_event_query(self->rt, ev[i], &info[i]));
	/* Higher priority first; equal ones in enqueue order. */
	for (i = 0; i < 16; i++)
		for (j = 0; j < 16; j++)
			if (prio[i] > prio[j] || (prio[i] == prio[j] && i < j)) {
				EXPECT_LT(info[i].order, info[j].order);
				EXPECT_LE(info[i].end_ns, info[j].start_ns);
			}
}

/* ---- P6: CPU fallback only when allowed ---- */

TEST_F(rt, cpu_fallback_only_when_allowed)
{
	uint32_t gpus[2] = { 0, 1 }, i;
	vmgpu_rt_handle ctx[2], k[2], q[2], b[2], ev[2];
	struct vmgpu_rt_event_info info;
	struct vmgpu_rt_status st;

	ASSERT_EQ(0, vmgpu_rt_set_graphics_load(self->rt, 0, 100));
	ASSERT_EQ(0, vmgpu_rt_set_graphics_load(self->rt, 1, 100));
	EXPECT_EQ(-EINVAL, vmgpu_rt_set_graphics_load(self->rt, 1, 101));
	EXPECT_EQ(-ENODEV, vmgpu_rt_set_graphics_load(self->rt, self->cpu,
						      10));
	for (i = 0; i < 2; i++) {
		struct vmgpu_rt_arg args[2];
		struct vmgpu_rt_instance inst = {
			.num_args = 2, .args = args, .grid = { 1 },
			.block = { 1 },
		};

		ctx[i] = ctx_on(_metadata, self->rt, gpus, 2,
				i ? VMGPU_RT_CTX_CPU_FALLBACK : 0);
		k[i] = kernel(_metadata, self, ctx[i], "poke");
		ASSERT_EQ(0, vmgpu_rt_queue_create(self->rt, ctx[i], &q[i]));
		ASSERT_EQ(0, vmgpu_rt_buffer_create(self->rt, ctx[i], 64,
						    &b[i]));
		inst.kernel = k[i];
		args[0] = buf_arg(VMGPU_PARAM_BUF_WO, b[i]);
		args[1] = i32_arg(3);
		ASSERT_EQ(0, vmgpu_rt_enqueue(self->rt, q[i], &inst, &ev[i]));
	}
	/* Allowed: on the CPU. */
	ASSERT_EQ(0, vmgpu_rt_wait(self->rt, ev[1], -1));
	ASSERT_EQ(0, vmgpu_rt_event_query(self->rt, ev[1], &info));
	EXPECT_EQ(self->cpu, info.phys);
	/* Not allowed: it waits for a GPU. */
	EXPECT_EQ(-ETIME, vmgpu_rt_wait(self->rt, ev[0], 50 * 1000 * 1000));
	ASSERT_EQ(0, vmgpu_rt_event_query(self->rt, ev[0], &info));
	EXPECT_EQ(VMGPU_RT_EVENT_SUBMITTED, info.state);
	ASSERT_EQ(0, vmgpu_rt_device_status(self->rt, 1, &st));
	EXPECT_EQ(1, st.queued);
	EXPECT_EQ(100, st.graphics_load);
	ASSERT_EQ(0, vmgpu_rt_set_graphics_load(self->rt, 1, 0));
	ASSERT_EQ(0, vmgpu_rt_wait(self->rt, ev[0], -1));
	ASSERT_EQ(0, vmgpu_rt_event_query(self->rt, ev[0], &info));
	EXPECT_EQ(1, info.phys);
	ASSERT_EQ(0, vmgpu_rt_device_status(self->rt, self->cpu, &st));
	EXPECT_EQ(1, st.instances);
}

/* Busy, not blocked: a GPU at 90 % graphics is slow; the CPU takes the
 * work only when allowed. */
TEST_F(rt, busy_gpu_placement)
{
	uint32_t gpu = 0, f;

	for (f = 0; f < 2; f++) {
		vmgpu_rt_handle ctx = ctx_on(_metadata, self->rt, &gpu, 1,
					     f ? VMGPU_RT_CTX_CPU_FALLBACK : 0);
		vmgpu_rt_handle k = kernel(_metadata, self, ctx, "mad");
		vmgpu_rt_handle q, x, y, ev[8];
		struct vmgpu_rt_event_info info;
		uint32_t on_cpu = 0, i;

		ASSERT_EQ(0, vmgpu_rt_set_graphics_load(self->rt, 0, 0));
		ASSERT_EQ(0, vmgpu_rt_queue_create(self->rt, ctx, &q));
		ASSERT_EQ(0, vmgpu_rt_buffer_create(self->rt, ctx, 4 * N, &x));
		for (i = 0; i < 8; i++) {
			struct vmgpu_rt_arg args[4];
			struct vmgpu_rt_instance inst = {
				.kernel = k, .num_args = 4, .args = args,
				.grid = { N / 32 }, .block = { 32 },
			};

			/* the first two measure the GPU, unloaded */
			if (i == 2)
				ASSERT_EQ(0, vmgpu_rt_set_graphics_load(
						     self->rt, 0, 99));
			ASSERT_EQ(0, vmgpu_rt_buffer_create(self->rt, ctx,
							    4 * N, &y));
			args[0] = buf_arg(VMGPU_PARAM_BUF_RO, x);
			args[1] = buf_arg(VMGPU_PARAM_BUF_RW, y);
			args[2] = i32_arg(3);
			args[3] = i32_arg(N);
			ASSERT_EQ(0, vmgpu_rt_enqueue(self->rt, q, &inst,
						      &ev[i]));
			ASSERT_EQ(0, vmgpu_rt_wait(self->rt, ev[i], -1));
			ASSERT_EQ(0, vmgpu_rt_event_query(self->rt, ev[i],
							  &info));
			on_cpu += info.phys == self->cpu;
			vmgpu_rt_release(self->rt, y);
		}
		if (f) {
			EXPECT_LT(0, on_cpu);
		} else {
			EXPECT_EQ(0, on_cpu);
		}
	}
}

/* ---- P4: online compilation for each device's ISA version ---- */

TEST_F(rt, kernels_compiled_online_per_isa_version)
{
	static const char lcount_src[] =
		"kernel void lcount(global int *out)\n"
		"{\n"
		"	local int c;\n"
		"	if (get_local_id(0) == 0)\n"
		"		c = 0;\n"
		"	barrier(CLK_LOCAL_MEM_FENCE);\n"
		"	atomic_inc(&c);\n"
		"	barrier(CLK_LOCAL_MEM_FENCE);\n"
		"	if (get_local_id(0) == 0)\n"
		"		out[get_group_id(0)] = c;\n"
		"}\n";
	uint32_t mixed[3] = { 0, 2, self->cpu }, isa1 = 2, both[2] = { 0, 2 };
	struct vmgpu_compiler_stats st;
	struct vmgpu_compiler *cc;
	struct vmgpu_kernlib *lib, *lib2;
	struct vmgpu_program *prog = NULL;
	vmgpu_rt_handle ctx, c1, c2, k, k2, q, b, ev, q2, b2, evs[6];
	struct vmgpu_rt_event_info info;
	struct vmgpu_rt_arg args[2];
	struct vmgpu_rt_instance inst = {
		.num_args = 2, .args = args, .grid = { 1 }, .block = { 1 },
	};
	char *log = NULL;
	int32_t v[4];
	int i;

	ASSERT_EQ(0, vmgpu_compiler_create(NULL, VMGPU_COMPILER_NO_CACHE, &cc));
	ASSERT_EQ(0, vmgpu_kernlib_create("t", rt_kernels_src, NULL, &lib));
	ctx = ctx_on(_metadata, self->rt, mixed, 3, 0);
	ASSERT_EQ(0, vmgpu_rt_kernel_from_library(self->rt, ctx, cc, lib,
						  "poke", NULL, &k, &log));
	ASSERT_NE(NULL, log);
	free(log);
	ASSERT_EQ(0, vmgpu_compiler_get_stats(cc, &st));
	EXPECT_EQ(2, st.compiles);	/* for ISA 2 and for ISA 1 */
	/* Runs on the ISA 1 GPU. */
	c1 = ctx_on(_metadata, self->rt, &isa1, 1, 0);
	ASSERT_EQ(0, vmgpu_rt_queue_create(self->rt, c1, &q));
	ASSERT_EQ(0, vmgpu_rt_buffer_create(self->rt, c1, 64, &b));
	inst.kernel = k;
	args[0] = buf_arg(VMGPU_PARAM_BUF_WO, b);
	args[1] = i32_arg(2);
	ASSERT_EQ(0, vmgpu_rt_enqueue(self->rt, q, &inst, &ev));
	ASSERT_EQ(0, vmgpu_rt_wait(self->rt, ev, -1));
	ASSERT_EQ(0, vmgpu_rt_event_query(self->rt, ev, &info));
	EXPECT_EQ(2, info.phys);
	ASSERT_EQ(0, vmgpu_rt_buffer_read(self->rt, b, 0, v, 16));
	EXPECT_EQ(1, v[2]);
	/* A library of an ISA 2 executable (local atomics), no source. */
	ASSERT_EQ(0, vmgpu_program_build(lcount_src, NULL, &prog, &log));
	free(log);
	ASSERT_EQ(0, vmgpu_kernlib_create("t2", NULL, NULL, &lib2));
	ASSERT_EQ(0, vmgpu_kernlib_add_program(lib2, prog, NULL, 0));
	c2 = ctx_on(_metadata, self->rt, both, 2, 0);
	ASSERT_EQ(0, vmgpu_rt_kernel_from_library(self->rt, c2, cc, lib2,
						  "lcount", NULL, &k2, NULL));
	inst.kernel = k2;
	inst.num_args = 1;
	inst.grid[0] = 4;
	inst.block[0] = 32;
	/* Not on the ISA 1 GPU alone: no executable for it. */
	args[0] = buf_arg(VMGPU_PARAM_BUF_WO, b);
	EXPECT_EQ(-ENOEXEC, vmgpu_rt_enqueue(self->rt, q, &inst, &ev));
	/* On the pair, only on the ISA 2 GPU. */
	ASSERT_EQ(0, vmgpu_rt_queue_create(self->rt, c2, &q2));
	for (i = 0; i < 6; i++) {
		ASSERT_EQ(0, vmgpu_rt_buffer_create(self->rt, c2, 64, &b2));
		args[0] = buf_arg(VMGPU_PARAM_BUF_WO, b2);
		ASSERT_EQ(0, vmgpu_rt_enqueue(self->rt, q2, &inst, &evs[i]));
	}
	ASSERT_EQ(0, vmgpu_rt_finish(self->rt, q2));
	for (i = 0; i < 6; i++) {
		ASSERT_EQ(0, vmgpu_rt_event_query(self->rt, evs[i], &info));
		EXPECT_EQ(0, info.phys);
	}
	ASSERT_EQ(0, vmgpu_rt_buffer_read(self->rt, b2, 0, v, 16));
	for (i = 0; i < 4; i++)
		EXPECT_EQ(32, v[i]);
	/* Nothing for any device: -ENOEXEC. */
	EXPECT_EQ(-ENOEXEC, vmgpu_rt_kernel_from_library(self->rt, c1, cc,
							 lib2, "lcount", NULL,
							 &k2, NULL));
	vmgpu_program_destroy(prog);
	vmgpu_kernlib_destroy(lib);
	vmgpu_kernlib_destroy(lib2);
	vmgpu_compiler_destroy(cc);
}

/* ---- P7: one instance split across GPUs and the CPU ---- */

TEST_F(rt, split_instance_matches_one_device)
{
	uint32_t all[4] = { 0, 1, 3, self->cpu }, one = 2, i, round;
	static int32_t x[4096], y0[4096], got[2][4096];

	for (i = 0; i < 4096; i++) {
		x[i] = (int32_t)rng();
		y0[i] = (int32_t)rng();
	}
	for (round = 0; round < 3; round++) {
		uint32_t s;

		for (s = 0; s < 2; s++) {
			vmgpu_rt_handle ctx = ctx_on(_metadata, self->rt,
						     s ? all : &one, s ? 4 : 1,
						     0);
			vmgpu_rt_handle k = kernel(_metadata, self, ctx, "mad");
			vmgpu_rt_handle q, bx, by, ev;
			struct vmgpu_rt_event_info info;
			struct vmgpu_rt_arg args[4];
			struct vmgpu_rt_instance inst = {
				.kernel = k, .num_args = 4, .args = args,
				.grid = { 4096 / 64 - round }, .block = { 64 },
				.flags = s ? VMGPU_RT_INSTANCE_SPLIT : 0,
			};

			ASSERT_EQ(0, vmgpu_rt_queue_create(self->rt, ctx, &q));
			ASSERT_EQ(0, vmgpu_rt_buffer_create(self->rt, ctx,
							    sizeof(x), &bx));
			ASSERT_EQ(0, vmgpu_rt_buffer_create(self->rt, ctx,
							    sizeof(x), &by));
			ASSERT_EQ(0, vmgpu_rt_buffer_write(self->rt, bx, 0, x,
							   sizeof(x)));
			ASSERT_EQ(0, vmgpu_rt_buffer_write(self->rt, by, 0, y0,
							   sizeof(y0)));
			args[0] = buf_arg(VMGPU_PARAM_BUF_RO, bx);
			args[1] = buf_arg(VMGPU_PARAM_BUF_RW, by);
			args[2] = i32_arg(7 + (int)round);
			args[3] = i32_arg(4096 - 100 * (int)round);
			ASSERT_EQ(0, vmgpu_rt_enqueue(self->rt, q, &inst, &ev));
			/* twice: the second on the merged result */
			ASSERT_EQ(0, vmgpu_rt_enqueue(self->rt, q, &inst, &ev));
			ASSERT_EQ(0, vmgpu_rt_wait(self->rt, ev, -1));
			ASSERT_EQ(0, vmgpu_rt_event_query(self->rt, ev, &info));
			EXPECT_EQ(s ? 4 : 1, info.parts);
			ASSERT_EQ(0, vmgpu_rt_buffer_read(self->rt, by, 0,
							  got[s], sizeof(y0)));
			vmgpu_rt_release(self->rt, ctx);
		}
		for (i = 0; i < 4096; i++)
			ASSERT_EQ(got[0][i], got[1][i]);
		/* and the work was done: y = (y * k + x) * k + x */
		EXPECT_EQ((int32_t)(((uint32_t)y0[5] * (7 + round) +
				     (uint32_t)x[5]) * (7 + round) +
				    (uint32_t)x[5]), got[1][5]);
	}
}

/* ---- Threads: one runtime used from several at once ---- */

struct worker {
	FIXTURE_DATA(rt) *self;
	uint32_t phys[2], nphys;
	int seed, errors;
};

/* A chain of mad on a buffer of its own, checked against C. */
static void *worker_fn(void *arg)
{
	struct worker *w = arg;
	struct vmgpu_rt *rt = w->self->rt;
	vmgpu_rt_handle ctx, k, q, x, y, ev[20];
	int32_t xv[N], yv[N], want[N];
	uint32_t dev, s = (uint32_t)w->seed;
	int i, j;

	if (vmgpu_rt_logical_device(rt, w->phys, w->nphys, &dev) ||
	    vmgpu_rt_context_create(rt, dev, 0, &ctx) ||
	    vmgpu_rt_kernel_from_program(rt, ctx, w->self->prog, "mad", &k) ||
	    vmgpu_rt_queue_create(rt, ctx, &q) ||
	    vmgpu_rt_buffer_create(rt, ctx, sizeof(xv), &x) ||
	    vmgpu_rt_buffer_create(rt, ctx, sizeof(yv), &y)) {
		w->errors++;
		return NULL;
	}
	for (i = 0; i < N; i++) {
		s = s * 1103515245 + 12345;
		xv[i] = (int32_t)(s >> 8);
		want[i] = yv[i] = i;
	}
	if (vmgpu_rt_buffer_write(rt, x, 0, xv, sizeof(xv)) ||
	    vmgpu_rt_buffer_write(rt, y, 0, yv, sizeof(yv)))
		w->errors++;
	for (j = 0; j < 20; j++) {
		struct vmgpu_rt_arg args[4];
		struct vmgpu_rt_instance inst = {
			.kernel = k, .num_args = 4, .args = args,
			.grid = { N / 64 }, .block = { 64 },
		};

		args[0] = buf_arg(VMGPU_PARAM_BUF_RO, x);
		args[1] = buf_arg(VMGPU_PARAM_BUF_RW, y);
		args[2] = i32_arg(j % 3 + 1);
		args[3] = i32_arg(N);
		if (vmgpu_rt_enqueue(rt, q, &inst, &ev[j]))
			w->errors++;
		for (i = 0; i < N; i++)
			want[i] = (int32_t)((uint32_t)want[i] * (j % 3 + 1) +
					    (uint32_t)xv[i]);
		if (j % 7 == 0)
			vmgpu_rt_flush(rt, q);
	}
	/* Released before they ran: the instances still run. */
	for (j = 0; j < 19; j++)
		if (vmgpu_rt_release(rt, ev[j]))
			w->errors++;
	if (vmgpu_rt_wait(rt, ev[19], -1) ||
	    vmgpu_rt_buffer_read(rt, y, 0, yv, sizeof(yv)))
		w->errors++;
	for (i = 0; i < N; i++)
		if (yv[i] != want[i])
			w->errors++;
	vmgpu_rt_release(rt, ev[19]);
	vmgpu_rt_release(rt, x);
	vmgpu_rt_release(rt, y);
	vmgpu_rt_release(rt, q);
	vmgpu_rt_release(rt, k);
	vmgpu_rt_release(rt, ctx);
	return NULL;
}

TEST_F(rt, threads_share_a_runtime)
{
	struct worker w[4];
	pthread_t t[4];
	int i;

	for (i = 0; i < 4; i++) {
		w[i] = (struct worker){ .self = self, .seed = 100 + i };
		w[i].phys[0] = (uint32_t)i;
		w[i].phys[1] = self->cpu;
		w[i].nphys = 2;
		ASSERT_EQ(0, pthread_create(&t[i], NULL, worker_fn, &w[i]));
	}
	for (i = 0; i < 4; i++) {
		pthread_join(t[i], NULL);
		EXPECT_EQ(0, w[i].errors);
	}
}

TEST_HARNESS_MAIN
