// SPDX-License-Identifier: GPL-2.0-only
/*
 * The runtime's arguments (libshim/runtime/args.c): a __local argument
 * given by size next to a static local array, on the CPU device and on a
 * GPU of the device model (testrt.h); the old offset form refused for a
 * local parameter; buffers of more access than a parameter needs taken,
 * of less refused, with messages that name the parameter and the types;
 * a missing argument, local memory over the limit, the CPU device's
 * instruction budget (the setting and the environment variable) named in
 * the messages; vmgpu_rt_kernel_param_info().
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kselftest_harness.h"

#include "testrt.h"
#include "vmgpu/compiler.h"

static const char src[] =
"__kernel void lsum(__global const int *in, __global int *out,\n"
"		   __local int *tmp, int n)\n"
"{\n"
"	__local int stat[8];\n"
"	int l = get_local_id(0), g = get_global_id(0);\n"
"\n"
"	if (l < 8)\n"
"		stat[l] = l * 100;\n"
"	tmp[l] = in[g];\n"
"	barrier(CLK_LOCAL_MEM_FENCE);\n"
"	out[g] = tmp[get_local_size(0) - 1 - l] + stat[l % 8] + n;\n"
"}\n"
"__kernel void copy(__global int *x, __global int *y)\n"
"{\n"
"	y[get_global_id(0)] = x[get_global_id(0)];\n"
"}\n"
"__kernel void spin(__global int *o, int n)\n"
"{\n"
"	int s = o[0];\n"
"\n"
"	for (int i = 0; i < n; i++)\n"
"		s = s * 3 + (i ^ s);\n"
"	o[get_global_id(0)] = s;\n"
"}\n"
"__kernel void priv(__global int *o, int k)\n"
"{\n"
"	int a[64];\n"
"\n"
"	for (int i = 0; i < 64; i++)\n"
"		a[i] = o[i] * k;\n"
"	o[get_global_id(0)] = a[(get_global_id(0) * 7 + k) % 64];\n"
"}\n"
"__kernel void offs(__global int *out, __local int *l, uint skew)\n"
"{\n"
"	__local int s[16];\n"
"	int i = get_local_id(0);\n"
"\n"
"	l[skew + i] = i * 3;\n"
"	if (i < 16)\n"
"		s[i] = i + 1000;\n"
"	barrier(CLK_LOCAL_MEM_FENCE);\n"
"	out[get_global_id(0)] = l[skew + i] + s[skew % 16];\n"
"}\n";

#define BLOCK	256
#define GRID	4
#define TOTAL	(BLOCK * GRID)

FIXTURE(args) {
	struct trt *t;
	struct vmgpu_rt *rt;
	struct vmgpu_program *prog;
	uint32_t cpu;
	char msg[512];
};

static struct vmgpu_rt *make_rt(struct trt *t, uint64_t budget)
{
	struct vmgpu_rt_backend be = trt_backend(t);
	struct vmgpu_rt_config cfg = { 0 };
	struct vmgpu_rt *rt = NULL;

	cfg.backends = &be;
	cfg.num_backends = 1;
	cfg.cpu_threads = 2;
	cfg.cpu_budget = budget;
	if (vmgpu_rt_create(&cfg, &rt))
		return NULL;
	return rt;
}

FIXTURE_SETUP(args)
{
	char *log = NULL;

	self->t = trt_new(1, 4, 64);
	ASSERT_NE(NULL, self->t);
	self->rt = make_rt(self->t, 0);
	ASSERT_NE(NULL, self->rt);
	ASSERT_EQ(2, vmgpu_rt_device_count(self->rt));
	self->cpu = 1;
	if (vmgpu_program_build(src, NULL, &self->prog, &log))
		fprintf(stderr, "%s\n", log ? log : "build failed");
	free(log);
	ASSERT_NE(NULL, self->prog);
}

FIXTURE_TEARDOWN(args)
{
	vmgpu_rt_destroy(self->rt);
	vmgpu_program_destroy(self->prog);
	trt_free(self->t);
}

/* A queue on physical device @phys alone, and kernel @name. */
static void on(struct __test_metadata *_metadata, struct vmgpu_rt *rt,
	       const struct vmgpu_program *prog, uint32_t phys,
	       const char *name, vmgpu_rt_handle *ctx, vmgpu_rt_handle *q,
	       vmgpu_rt_handle *k)
{
	uint32_t dev;

	ASSERT_EQ(0, vmgpu_rt_logical_device(rt, &phys, 1, &dev));
	ASSERT_EQ(0, vmgpu_rt_context_create(rt, dev, 0, ctx));
	ASSERT_EQ(0, vmgpu_rt_queue_create(rt, *ctx, q));
	ASSERT_EQ(0, vmgpu_rt_kernel_from_program(rt, *ctx, prog, name, k));
}

static const char *message(FIXTURE_DATA(args) *self)
{
	vmgpu_rt_error_message(self->rt, self->msg, sizeof(self->msg));
	return self->msg;
}

#define EXPECT_MSG(self, text)						\
	do {								\
		const char *m_ = message(self);				\
		EXPECT_NE(NULL, strstr(m_, text))			\
			TH_LOG("message \"%s\" lacks \"%s\"", m_, text);\
	} while (0)

/*
 * lsum with a local argument by size: every value right on the CPU
 * device and on a GPU (the old code took the local parameter as an i32
 * offset and placed nothing: 0 overlapped the static array).
 */
TEST_F(args, local_by_size_with_static_local)
{
	uint32_t devs[2] = { 0, self->cpu }, d;

	for (d = 0; d < 2; d++) {
		vmgpu_rt_handle ctx, q, k, in, out, ev;
		struct vmgpu_rt_arg a[4] = { 0 };
		struct vmgpu_rt_instance inst = { 0 };
		struct vmgpu_rt_event_info info;
		int32_t host[TOTAL], got[TOTAL];
		uint32_t i, bad = 0;

		on(_metadata, self->rt, self->prog, devs[d], "lsum", &ctx, &q,
		   &k);
		ASSERT_EQ(0, vmgpu_rt_buffer_create(self->rt, ctx, sizeof(host),
						    &in));
		ASSERT_EQ(0, vmgpu_rt_buffer_create(self->rt, ctx, sizeof(host),
						    &out));
		for (i = 0; i < TOTAL; i++)
			host[i] = (int32_t)(i * 7 + 3);
		ASSERT_EQ(0, vmgpu_rt_buffer_write(self->rt, in, 0, host,
						   sizeof(host)));
		a[0].type = VMGPU_PARAM_BUF_RO;
		a[0].buf = in;
		a[1].type = VMGPU_PARAM_BUF_WO;
		a[1].buf = out;
		a[2].type = VMGPU_RT_ARG_LOCAL;
		a[2].local_bytes = BLOCK * 4;
		a[3].type = VMGPU_PARAM_I32;
		a[3].i32 = 5;
		inst.kernel = k;
		inst.num_args = 4;
		inst.args = a;
		inst.grid[0] = GRID;
		inst.block[0] = BLOCK;
		ASSERT_EQ(0, vmgpu_rt_enqueue(self->rt, q, &inst, &ev));
		ASSERT_EQ(0, vmgpu_rt_wait(self->rt, ev, -1));
		ASSERT_EQ(0, vmgpu_rt_event_query(self->rt, ev, &info));
		EXPECT_EQ(devs[d], info.phys);
		ASSERT_EQ(0, vmgpu_rt_buffer_read(self->rt, out, 0, got,
						  sizeof(got)));
		for (i = 0; i < TOTAL; i++) {
			uint32_t l = i % BLOCK, base = i - l;
			int32_t want = host[base + BLOCK - 1 - l] +
				       (int32_t)(l % 8) * 100 + 5;

			bad += got[i] != want;
		}
		EXPECT_EQ(0, bad) TH_LOG("device %u: %u of %u wrong", devs[d],
					 bad, TOTAL);

		/* The old form: an offset for a local parameter. */
		a[2].type = VMGPU_PARAM_I32;
		a[2].i32 = 0;
		EXPECT_EQ(-EINVAL, vmgpu_rt_enqueue(self->rt, q, &inst, &ev));
		EXPECT_MSG(self, "kernel 'lsum': parameter 2 'tmp': a local buffer");
		EXPECT_MSG(self, "VMGPU_RT_ARG_LOCAL");
		EXPECT_MSG(self, "an i32 given");
		/* Over the device's limit, with the static array. */
		a[2].type = VMGPU_RT_ARG_LOCAL;
		a[2].local_bytes = 48 * 1024 - 16;
		EXPECT_EQ(-EINVAL, vmgpu_rt_enqueue(self->rt, q, &inst, &ev));
		EXPECT_MSG(self, "parameter 2 'tmp'");
		EXPECT_MSG(self, "over the limit of 49152");
		EXPECT_MSG(self, "shared_mem_per_block");
		/* A local argument for a scalar. */
		a[2].local_bytes = 64;
		a[3].type = VMGPU_RT_ARG_LOCAL;
		a[3].local_bytes = 64;
		EXPECT_EQ(-EINVAL, vmgpu_rt_enqueue(self->rt, q, &inst, &ev));
		EXPECT_MSG(self, "parameter 3 'n': an i32 expected, a local buffer");
		/* A missing argument. */
		inst.num_args = 3;
		EXPECT_EQ(-EINVAL, vmgpu_rt_enqueue(self->rt, q, &inst, &ev));
		EXPECT_MSG(self, "kernel 'lsum' takes 4 arguments, 3 given");
		EXPECT_MSG(self, "parameter 3 'n' (i32) missing");
		inst.num_args = 2;
		EXPECT_EQ(-EINVAL, vmgpu_rt_enqueue(self->rt, q, &inst, &ev));
		EXPECT_MSG(self, "parameter 2 'tmp' (a local buffer) missing");
		vmgpu_rt_release(self->rt, ev);
		vmgpu_rt_release(self->rt, in);
		vmgpu_rt_release(self->rt, out);
		vmgpu_rt_release(self->rt, k);
		vmgpu_rt_release(self->rt, q);
		vmgpu_rt_release(self->rt, ctx);
	}
}

/*
 * offs: an integer added to a local pointer and indexing a static local
 * array is an i32 (the old guess from the code took it for a local
 * buffer: it reached a shared address); the signature types the local
 * pointer VMGPU_PARAM_LOCAL.
 */
TEST_F(args, integer_added_to_local_pointer)
{
	uint32_t devs[2] = { 0, self->cpu }, d;

	for (d = 0; d < 2; d++) {
		vmgpu_rt_handle ctx, q, k, out, ev;
		struct vmgpu_rt_arg a[3] = { 0 };
		struct vmgpu_rt_instance inst = { 0 };
		struct vmgpu_rt_param_info pi;
		int32_t got[64];
		uint32_t i, bad = 0;

		on(_metadata, self->rt, self->prog, devs[d], "offs", &ctx, &q,
		   &k);
		ASSERT_EQ(0, vmgpu_rt_kernel_param_info(self->rt, k, 1, &pi));
		EXPECT_EQ(VMGPU_RT_PARAM_LOCAL, pi.kind);
		ASSERT_EQ(0, vmgpu_rt_kernel_param_info(self->rt, k, 2, &pi));
		EXPECT_EQ(VMGPU_RT_PARAM_SCALAR, pi.kind);
		EXPECT_EQ(VMGPU_PARAM_I32, pi.type);
		ASSERT_EQ(0, vmgpu_rt_buffer_create(self->rt, ctx, sizeof(got),
						    &out));
		a[0].type = VMGPU_PARAM_BUF_RW;
		a[0].buf = out;
		a[1].type = VMGPU_RT_ARG_LOCAL;
		a[1].local_bytes = (64 + 5) * 4;
		a[2].type = VMGPU_PARAM_I32;
		a[2].i32 = 5;
		inst.kernel = k;
		inst.num_args = 3;
		inst.args = a;
		inst.grid[0] = 2;
		inst.block[0] = 32;
		ASSERT_EQ(0, vmgpu_rt_enqueue(self->rt, q, &inst, &ev));
		ASSERT_EQ(0, vmgpu_rt_wait(self->rt, ev, -1));
		vmgpu_rt_release(self->rt, ev);
		ASSERT_EQ(0, vmgpu_rt_buffer_read(self->rt, out, 0, got,
						  sizeof(got)));
		for (i = 0; i < 64; i++)
			bad += got[i] != (int32_t)((i % 32) * 3 + 1005);
		EXPECT_EQ(0, bad) TH_LOG("device %u: %u of 64 wrong (got[1] %d)",
					 devs[d], bad, got[1]);
		/* the integer as a local buffer: refused */
		a[2].type = VMGPU_RT_ARG_LOCAL;
		a[2].local_bytes = 16;
		EXPECT_EQ(-EINVAL, vmgpu_rt_enqueue(self->rt, q, &inst, &ev));
		EXPECT_MSG(self, "parameter 2 'skew': an i32 expected, a local buffer");
		vmgpu_rt_release(self->rt, out);
		vmgpu_rt_release(self->rt, k);
		vmgpu_rt_release(self->rt, q);
		vmgpu_rt_release(self->rt, ctx);
	}
}

/*
 * copy's x is a non-const pointer only read: a read-write buffer is
 * taken for it (as OpenCL programs pass); a read-only buffer for y,
 * which the kernel writes, is refused, naming both.
 */
TEST_F(args, buffer_access)
{
	vmgpu_rt_handle ctx, q, k, x, y, ev;
	struct vmgpu_rt_arg a[2] = { 0 };
	struct vmgpu_rt_instance inst = { 0 };
	int32_t host[64], got[64];
	uint32_t i;

	on(_metadata, self->rt, self->prog, 0, "copy", &ctx, &q, &k);
	ASSERT_EQ(0, vmgpu_rt_buffer_create(self->rt, ctx, sizeof(host), &x));
	ASSERT_EQ(0, vmgpu_rt_buffer_create(self->rt, ctx, sizeof(host), &y));
	for (i = 0; i < 64; i++)
		host[i] = (int32_t)i * 11;
	ASSERT_EQ(0, vmgpu_rt_buffer_write(self->rt, x, 0, host, sizeof(host)));
	a[0].type = VMGPU_PARAM_BUF_RW;
	a[0].buf = x;
	a[1].type = VMGPU_PARAM_BUF_RW;
	a[1].buf = y;
	inst.kernel = k;
	inst.num_args = 2;
	inst.args = a;
	inst.grid[0] = 2;
	inst.block[0] = 32;
	ASSERT_EQ(0, vmgpu_rt_enqueue(self->rt, q, &inst, &ev));
	ASSERT_EQ(0, vmgpu_rt_wait(self->rt, ev, -1));
	vmgpu_rt_release(self->rt, ev);
	ASSERT_EQ(0, vmgpu_rt_buffer_read(self->rt, y, 0, got, sizeof(got)));
	EXPECT_EQ(0, memcmp(host, got, sizeof(got)));

	a[0].type = VMGPU_PARAM_BUF_RO;
	a[1].type = VMGPU_PARAM_BUF_RO;
	EXPECT_EQ(-EINVAL, vmgpu_rt_enqueue(self->rt, q, &inst, &ev));
	EXPECT_MSG(self, "kernel 'copy': parameter 1 'y': a write-only buffer "
		   "expected (only written in the kernel), or a read-write one, "
		   "a read-only buffer given");
	a[0].type = VMGPU_PARAM_BUF_WO;
	a[1].type = VMGPU_PARAM_BUF_WO;
	EXPECT_EQ(-EINVAL, vmgpu_rt_enqueue(self->rt, q, &inst, &ev));
	EXPECT_MSG(self, "parameter 0 'x': a read-only buffer expected (const "
		   "or only read in the kernel), or a read-write one, a "
		   "write-only buffer given");
	a[0].type = VMGPU_PARAM_I64;
	EXPECT_EQ(-EINVAL, vmgpu_rt_enqueue(self->rt, q, &inst, &ev));
	EXPECT_MSG(self, "parameter 0 'x': a read-only buffer expected");
	EXPECT_MSG(self, "an i64 given");
	vmgpu_rt_release(self->rt, x);
	vmgpu_rt_release(self->rt, y);
	vmgpu_rt_release(self->rt, k);
	vmgpu_rt_release(self->rt, q);
	vmgpu_rt_release(self->rt, ctx);
}

TEST_F(args, param_info)
{
	static const struct {
		const char *name;
		uint32_t kind, type, size, access;
	} want[] = {
		{ "in", VMGPU_RT_PARAM_BUFFER, VMGPU_PARAM_BUF_RO, 0,
		  VMGPU_RT_MAP_READ },
		{ "out", VMGPU_RT_PARAM_BUFFER, VMGPU_PARAM_BUF_WO, 0,
		  VMGPU_RT_MAP_WRITE },
		{ "tmp", VMGPU_RT_PARAM_LOCAL, VMGPU_RT_ARG_LOCAL, 0, 0 },
		{ "n", VMGPU_RT_PARAM_SCALAR, VMGPU_PARAM_I32, 4, 0 },
	};
	struct vmgpu_rt_param_info pi;
	vmgpu_rt_handle ctx, q, k;
	uint32_t i;

	on(_metadata, self->rt, self->prog, self->cpu, "lsum", &ctx, &q, &k);
	ASSERT_EQ(4, vmgpu_rt_kernel_param_count(self->rt, k));
	for (i = 0; i < 4; i++) {
		ASSERT_EQ(0, vmgpu_rt_kernel_param_info(self->rt, k, i, &pi));
		EXPECT_STREQ(want[i].name, pi.name);
		EXPECT_EQ(want[i].kind, pi.kind);
		EXPECT_EQ(want[i].type, pi.type);
		EXPECT_EQ(want[i].size, pi.size);
		EXPECT_EQ(want[i].access, pi.access);
	}
	EXPECT_EQ(-ERANGE, vmgpu_rt_kernel_param_info(self->rt, k, 4, &pi));
	EXPECT_MSG(self, "kernel 'lsum' has 4 parameters");
	EXPECT_EQ(-EINVAL, vmgpu_rt_kernel_param_info(self->rt, k, 0, NULL));
	vmgpu_rt_release(self->rt, k);
	/* x is not const but only read: read-only. */
	ASSERT_EQ(0, vmgpu_rt_kernel_from_program(self->rt, ctx, self->prog,
						  "copy", &k));
	ASSERT_EQ(0, vmgpu_rt_kernel_param_info(self->rt, k, 0, &pi));
	EXPECT_STREQ("x", pi.name);
	EXPECT_EQ(VMGPU_RT_PARAM_BUFFER, pi.kind);
	EXPECT_EQ(VMGPU_RT_MAP_READ, pi.access);
	vmgpu_rt_release(self->rt, k);
	/* The private buffer: the last parameter, the runtime's. */
	ASSERT_EQ(0, vmgpu_rt_kernel_from_program(self->rt, ctx, self->prog,
						  "priv", &k));
	ASSERT_EQ(2, vmgpu_rt_kernel_param_count(self->rt, k));
	ASSERT_EQ(0, vmgpu_rt_kernel_param_info(self->rt, k, 1, &pi));
	EXPECT_STREQ("k", pi.name);
	EXPECT_EQ(VMGPU_RT_PARAM_SCALAR, pi.kind);
	ASSERT_EQ(0, vmgpu_rt_kernel_param_info(self->rt, k, 2, &pi));
	EXPECT_STREQ("vmgpu_private", pi.name);
	EXPECT_EQ(VMGPU_RT_PARAM_PRIVATE, pi.kind);
	EXPECT_EQ(VMGPU_RT_MAP_READ | VMGPU_RT_MAP_WRITE, pi.access);
	EXPECT_EQ(-ERANGE, vmgpu_rt_kernel_param_info(self->rt, k, 3, &pi));
	vmgpu_rt_release(self->rt, k);
	vmgpu_rt_release(self->rt, q);
	vmgpu_rt_release(self->rt, ctx);
}

/* spin in @blocks warps on the CPU device of @rt: its message. */
static void spin(struct __test_metadata *_metadata, FIXTURE_DATA(args) *self,
		 struct vmgpu_rt *rt, uint32_t blocks, const char *want)
{
	vmgpu_rt_handle ctx, q, k, o, ev;
	struct vmgpu_rt_arg a[2] = { 0 };
	struct vmgpu_rt_instance inst = { 0 };
	char msg[512];

	on(_metadata, rt, self->prog, 1, "spin", &ctx, &q, &k);
	ASSERT_EQ(0, vmgpu_rt_buffer_create(rt, ctx, 4096, &o));
	a[0].type = VMGPU_PARAM_BUF_RW;
	a[0].buf = o;
	a[1].type = VMGPU_PARAM_I32;
	a[1].i32 = 1 << 30;
	inst.kernel = k;
	inst.num_args = 2;
	inst.args = a;
	inst.grid[0] = blocks;
	inst.block[0] = 32;
	ASSERT_EQ(0, vmgpu_rt_enqueue(rt, q, &inst, &ev));
	EXPECT_EQ(-ETIMEDOUT, vmgpu_rt_wait(rt, ev, -1));
	vmgpu_rt_error_message(rt, msg, sizeof(msg));
	EXPECT_STREQ(want, msg);
	EXPECT_EQ(-ETIMEDOUT, vmgpu_rt_finish(rt, q));
	vmgpu_rt_error_message(rt, msg, sizeof(msg));
	EXPECT_STREQ(want, msg);
	vmgpu_rt_release(rt, ev);
	vmgpu_rt_release(rt, o);
	vmgpu_rt_release(rt, k);
	vmgpu_rt_release(rt, q);
	vmgpu_rt_release(rt, ctx);
}

TEST_F(args, cpu_budget)
{
	struct vmgpu_rt *rt = make_rt(self->t, 100000);

	ASSERT_NE(NULL, rt);
	spin(_metadata, self, rt, 1,
	     "kernel 'spin' on the CPU device: stopped after 100000 warp "
	     "instructions (the CPU budget: 100000 per 65536 warps; vmgpu_rt_config.cpu_budget)");
	/* A larger launch is given more: 131073 warps, 3 x 65536 started. */
	spin(_metadata, self, rt, 131073,
	     "kernel 'spin' on the CPU device: stopped after 300000 warp "
	     "instructions (the CPU budget: 100000 per 65536 warps; vmgpu_rt_config.cpu_budget)");
	vmgpu_rt_destroy(rt);

	setenv("VMGPU_RT_CPU_BUDGET", "5000", 1);
	rt = make_rt(self->t, 0);
	ASSERT_NE(NULL, rt);
	spin(_metadata, self, rt, 1,
	     "kernel 'spin' on the CPU device: stopped after 5000 warp "
	     "instructions (the CPU budget: 5000 per 65536 warps; VMGPU_RT_CPU_BUDGET)");
	vmgpu_rt_destroy(rt);
	/* The setting wins over the environment. */
	rt = make_rt(self->t, 7000);
	ASSERT_NE(NULL, rt);
	spin(_metadata, self, rt, 1,
	     "kernel 'spin' on the CPU device: stopped after 7000 warp "
	     "instructions (the CPU budget: 7000 per 65536 warps; vmgpu_rt_config.cpu_budget)");
	vmgpu_rt_destroy(rt);
	setenv("VMGPU_RT_CPU_BUDGET", "many", 1);
	EXPECT_EQ(NULL, make_rt(self->t, 0));
	unsetenv("VMGPU_RT_CPU_BUDGET");
}

TEST_HARNESS_MAIN
