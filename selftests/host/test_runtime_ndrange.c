// SPDX-License-Identifier: GPL-2.0-only
/*
 * The runtime's global work offset and work dimension
 * (vmgpu_rt_instance.global_offset, work_dim) for kernels compiled with
 * VMGPU_NDRANGE_OPTION: filled into their hidden vmgpu_ndrange0/1 pair on
 * a GPU of the device model (testrt.h), on the CPU device and on every
 * portion of a split instance; offsets in 1, 2 and 3 dimensions; the work
 * dimension as given (2 for a 2-D range of height 1) or, 0, guessed; an
 * offset the 32-bit ids cannot reach refused with a message; the hidden
 * parameters neither counted nor set by the application.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kselftest_harness.h"

#include "testrt.h"
#include "vmgpu/compiler.h"

/* Item i of the range (offset taken off) writes record i. */
static const char src[] =
"__kernel void ids(__global uint *o)\n"
"{\n"
"	uint x = get_global_id(0) - get_global_offset(0);\n"
"	uint y = get_global_id(1) - get_global_offset(1);\n"
"	uint z = get_global_id(2) - get_global_offset(2);\n"
"	uint i = (z * get_global_size(1) + y) * get_global_size(0) + x;\n"
"\n"
"	o[4 * i] = get_global_id(0);\n"
"	o[4 * i + 1] = get_global_id(1);\n"
"	o[4 * i + 2] = get_global_id(2);\n"
"	o[4 * i + 3] = get_work_dim();\n"
"}\n"
"__kernel void fill(__global uint *o)\n"
"{\n"
"	o[get_local_id(0)] = 7;\n"
"}\n";

#define MAX_ITEMS	4096

FIXTURE(nd) {
	struct trt *t;
	struct vmgpu_rt *rt;
	struct vmgpu_program *prog;
	uint32_t cpu;
	char msg[512];
};

FIXTURE_SETUP(nd)
{
	struct vmgpu_rt_backend be;
	struct vmgpu_rt_config cfg = { 0 };
	char *log = NULL;

	self->t = trt_new(2, 4, 64);
	ASSERT_NE(NULL, self->t);
	be = trt_backend(self->t);
	cfg.backends = &be;
	cfg.num_backends = 1;
	cfg.cpu_threads = 2;
	ASSERT_EQ(0, vmgpu_rt_create(&cfg, &self->rt));
	ASSERT_EQ(3, vmgpu_rt_device_count(self->rt));
	self->cpu = 2;
	if (vmgpu_program_build(src, VMGPU_NDRANGE_OPTION, &self->prog, &log))
		fprintf(stderr, "%s\n", log ? log : "build failed");
	free(log);
	ASSERT_NE(NULL, self->prog);
}

FIXTURE_TEARDOWN(nd)
{
	vmgpu_rt_destroy(self->rt);
	vmgpu_program_destroy(self->prog);
	trt_free(self->t);
}

static const char *message(FIXTURE_DATA(nd) *self)
{
	vmgpu_rt_error_message(self->rt, self->msg, sizeof(self->msg));
	return self->msg;
}

/* A context, queue, kernel "ids" and output buffer on @phys (@n). */
struct run {
	vmgpu_rt_handle ctx, q, k, out;
	struct vmgpu_rt_arg arg;
	struct vmgpu_rt_instance inst;
};

static void setup(struct __test_metadata *_metadata,
		  FIXTURE_DATA(nd) *self, const uint32_t *phys, uint32_t n,
		  struct run *r)
{
	uint32_t dev;

	memset(r, 0, sizeof(*r));
	ASSERT_EQ(0, vmgpu_rt_logical_device(self->rt, phys, n, &dev));
	ASSERT_EQ(0, vmgpu_rt_context_create(self->rt, dev, 0, &r->ctx));
	ASSERT_EQ(0, vmgpu_rt_queue_create(self->rt, r->ctx, &r->q));
	ASSERT_EQ(0, vmgpu_rt_kernel_from_program(self->rt, r->ctx,
						  self->prog, "ids", &r->k));
	ASSERT_EQ(0, vmgpu_rt_buffer_create(self->rt, r->ctx,
					    MAX_ITEMS * 16, &r->out));
	r->arg.type = VMGPU_PARAM_BUF_WO;
	r->arg.buf = r->out;
	r->inst.kernel = r->k;
	r->inst.num_args = 1;
	r->inst.args = &r->arg;
}

static void teardown(FIXTURE_DATA(nd) *self, struct run *r)
{
	vmgpu_rt_release(self->rt, r->out);
	vmgpu_rt_release(self->rt, r->k);
	vmgpu_rt_release(self->rt, r->q);
	vmgpu_rt_release(self->rt, r->ctx);
}

/*
 * Run @r's instance and check every record: global id = offset + the
 * item's place, the work dimension @dim. Returns the parts it ran in.
 */
static uint32_t run_check(struct __test_metadata *_metadata,
			  FIXTURE_DATA(nd) *self, struct run *r, uint32_t dim)
{
	static uint32_t got[MAX_ITEMS * 4];
	const struct vmgpu_rt_instance *in = &r->inst;
	struct vmgpu_rt_event_info info;
	uint32_t n[3], i, x, y, z, bad = 0;
	vmgpu_rt_handle ev;

	for (i = 0; i < 3; i++)
		n[i] = (in->grid[i] ? in->grid[i] : 1) *
		       (in->block[i] ? in->block[i] : 1);
	if (n[0] * n[1] * n[2] > MAX_ITEMS)
		abort();
	memset(got, 0xff, sizeof(got));
	EXPECT_EQ(0, vmgpu_rt_buffer_write(self->rt, r->out, 0, got,
					   sizeof(got)));
	EXPECT_EQ(0, vmgpu_rt_enqueue(self->rt, r->q, in, &ev))
		TH_LOG("%s", message(self));
	EXPECT_EQ(0, vmgpu_rt_wait(self->rt, ev, -1));
	EXPECT_EQ(0, vmgpu_rt_event_query(self->rt, ev, &info));
	vmgpu_rt_release(self->rt, ev);
	EXPECT_EQ(0, vmgpu_rt_buffer_read(self->rt, r->out, 0, got,
					  sizeof(got)));
	for (z = 0; z < n[2]; z++)
		for (y = 0; y < n[1]; y++)
			for (x = 0; x < n[0]; x++) {
				const uint32_t *p = &got[4 * ((z * n[1] + y) *
							      n[0] + x)];

				bad += p[0] != (uint32_t)in->global_offset[0] + x ||
				       p[1] != (uint32_t)in->global_offset[1] + y ||
				       p[2] != (uint32_t)in->global_offset[2] + z ||
				       p[3] != dim;
			}
	EXPECT_EQ(0u, bad) TH_LOG("%u of %u records wrong (first: %u %u %u %u)",
				  bad, n[0] * n[1] * n[2], got[0], got[1],
				  got[2], got[3]);
	return info.parts;
}

/* Offsets in 1, 2 and 3 dimensions, on a GPU and on the CPU device. */
TEST_F(nd, offsets_in_1_2_3_dims)
{
	uint32_t devs[2] = { 0, self->cpu }, d;
	struct run r;

	for (d = 0; d < 2; d++) {
		setup(_metadata, self, &devs[d], 1, &r);
		r.inst.grid[0] = 4;
		r.inst.block[0] = 64;
		r.inst.global_offset[0] = 1000;
		r.inst.work_dim = 1;
		EXPECT_EQ(1u, run_check(_metadata, self, &r, 1));

		r.inst.grid[0] = 3;
		r.inst.grid[1] = 5;
		r.inst.block[0] = 8;
		r.inst.block[1] = 4;
		r.inst.global_offset[0] = 7;
		r.inst.global_offset[1] = 123456;
		r.inst.work_dim = 2;
		run_check(_metadata, self, &r, 2);

		r.inst.grid[2] = 3;
		r.inst.block[2] = 2;
		r.inst.global_offset[0] = 0;
		r.inst.global_offset[2] = 99;
		r.inst.work_dim = 3;
		run_check(_metadata, self, &r, 3);

		/* the last ids there are: offset + size = 2^32 */
		r.inst.grid[1] = r.inst.grid[2] = 1;
		r.inst.block[1] = r.inst.block[2] = 1;
		r.inst.global_offset[0] = (1ull << 32) - 24;
		r.inst.global_offset[1] = r.inst.global_offset[2] = 0;
		r.inst.work_dim = 1;
		run_check(_metadata, self, &r, 1);
		teardown(self, &r);
	}
}

/* Every portion of a split instance gets the same offset. */
TEST_F(nd, split_portions_share_the_offset)
{
	uint32_t gpus[3] = { 0, 1, self->cpu };
	struct run r;

	setup(_metadata, self, gpus, 3, &r);
	r.inst.flags = VMGPU_RT_INSTANCE_SPLIT;
	r.inst.grid[0] = 32;
	r.inst.block[0] = 32;
	r.inst.global_offset[0] = 5000;
	r.inst.work_dim = 1;
	EXPECT_LT(1u, run_check(_metadata, self, &r, 1));

	r.inst.grid[0] = 16;
	r.inst.grid[1] = 3;
	r.inst.block[0] = 16;
	r.inst.block[1] = 2;
	r.inst.global_offset[0] = 3;
	r.inst.global_offset[1] = 40;
	r.inst.global_offset[2] = 11;
	r.inst.work_dim = 3;
	EXPECT_LT(1u, run_check(_metadata, self, &r, 3));
	teardown(self, &r);
}

/*
 * The work dimension is the enqueue's: 2 for a 2-D range of height 1
 * (no longer guessed as 1); 0 asks for the guess.
 */
TEST_F(nd, work_dim_as_given)
{
	uint32_t devs[2] = { 0, self->cpu }, d;
	struct run r;

	for (d = 0; d < 2; d++) {
		setup(_metadata, self, &devs[d], 1, &r);
		r.inst.grid[0] = 4;
		r.inst.block[0] = 16;
		r.inst.grid[1] = r.inst.block[1] = 1;
		r.inst.work_dim = 2;
		run_check(_metadata, self, &r, 2);
		r.inst.work_dim = 3;
		run_check(_metadata, self, &r, 3);
		r.inst.work_dim = 0;
		run_check(_metadata, self, &r, 1);
		r.inst.grid[1] = 2;
		run_check(_metadata, self, &r, 2);
		teardown(self, &r);
	}
}

/* Past the 32-bit ids, or a work dimension over 3: refused, said why. */
TEST_F(nd, overflow_refused)
{
	uint32_t gpu = 0;
	vmgpu_rt_handle ev = 0;
	struct run r;

	setup(_metadata, self, &gpu, 1, &r);
	r.inst.grid[0] = 2;
	r.inst.block[0] = 16;
	r.inst.grid[1] = 1;
	r.inst.global_offset[1] = 1ull << 32;
	EXPECT_EQ(-EINVAL, vmgpu_rt_enqueue(self->rt, r.q, &r.inst, &ev));
	EXPECT_NE(NULL, strstr(message(self), "kernel 'ids': global offset "
			       "4294967296 + 1 work-items in dimension 1 pass "
			       "the 32-bit ids")) TH_LOG("%s", self->msg);
	r.inst.global_offset[1] = 0;
	r.inst.global_offset[0] = (1ull << 32) - 31;
	EXPECT_EQ(-EINVAL, vmgpu_rt_enqueue(self->rt, r.q, &r.inst, &ev));
	EXPECT_NE(NULL, strstr(message(self), "+ 32 work-items in dimension 0"))
		TH_LOG("%s", self->msg);
	r.inst.global_offset[0] = 0;
	r.inst.work_dim = 4;
	EXPECT_EQ(-EINVAL, vmgpu_rt_enqueue(self->rt, r.q, &r.inst, &ev));
	EXPECT_NE(NULL, strstr(message(self), "work_dim 4 (0..3)"))
		TH_LOG("%s", self->msg);
	EXPECT_EQ(0, ev);
	teardown(self, &r);
}

/*
 * The hidden pair is the runtime's: not counted, NDRANGE in the
 * parameter info; a kernel that reads no id has none.
 */
TEST_F(nd, hidden_parameters)
{
	struct vmgpu_rt_param_info pi;
	uint32_t gpu = 0;
	vmgpu_rt_handle k;
	struct run r;

	setup(_metadata, self, &gpu, 1, &r);
	EXPECT_EQ(1, vmgpu_rt_kernel_param_count(self->rt, r.k));
	ASSERT_EQ(0, vmgpu_rt_kernel_param_info(self->rt, r.k, 1, &pi));
	EXPECT_EQ(VMGPU_RT_PARAM_NDRANGE, pi.kind);
	EXPECT_STREQ(VMGPU_NDRANGE_PARAM0, pi.name);
	ASSERT_EQ(0, vmgpu_rt_kernel_param_info(self->rt, r.k, 2, &pi));
	EXPECT_EQ(VMGPU_RT_PARAM_NDRANGE, pi.kind);
	EXPECT_STREQ(VMGPU_NDRANGE_PARAM1, pi.name);
	EXPECT_EQ(-ERANGE, vmgpu_rt_kernel_param_info(self->rt, r.k, 3, &pi));
	/* an argument for it is one too many */
	r.inst.num_args = 2;
	r.inst.grid[0] = 1;
	EXPECT_EQ(-EINVAL, vmgpu_rt_enqueue(self->rt, r.q, &r.inst, &k));
	EXPECT_NE(NULL, strstr(message(self), "takes 1 arguments, 2 given"))
		TH_LOG("%s", self->msg);

	ASSERT_EQ(0, vmgpu_rt_kernel_from_program(self->rt, r.ctx, self->prog,
						  "fill", &k));
	EXPECT_EQ(1, vmgpu_rt_kernel_param_count(self->rt, k));
	EXPECT_EQ(-ERANGE, vmgpu_rt_kernel_param_info(self->rt, k, 1, &pi));
	vmgpu_rt_release(self->rt, k);
	teardown(self, &r);
}

TEST_HARNESS_MAIN
