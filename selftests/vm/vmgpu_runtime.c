// SPDX-License-Identifier: GPL-2.0-only
/*
 * VM selftest: the runtime (libvmgpurt, Documentation/runtime.rst) over
 * the real device through the driver: vmgpu_rt_create(NULL) opens every
 * render node with the back end of libshim/runtime/drm.c. The device
 * table lists every GPU the driver reports (GET_PARAM and
 * vmgpu_device_query() agree) and the CPU device last; the three
 * requests of Documentation/examples/runtime.c (capability request,
 * context, a kernel compiled online, run) give on a GPU the CPU
 * device's bytes; instances with data-flow dependencies (RAW, WAR, WAW)
 * spread over the GPUs give the serial result; a faulting instance ends
 * with -EFAULT and the GPU runs the next one; a released context is
 * refused with -ESTALE ("invalid context"); the CPU takes work only from
 * a context that allows fallback.
 *
 * GPL-2.0-or-later as the runtime it links. Linked dynamically (the
 * runtime's online compilation uses clang and LLVM): it runs in a guest
 * booted with scripts/vm-run --host-libs (scripts/check does).
 */
#include <vmgpu/runtime.h>

#include "kselftest_harness.h"
#include "vmgpu_test_util.h"
#include "../runtime_cases.h"
#include "vmgpu/compiler.h"


/* Documentation/examples/runtime.c's kernel */
static const char scale_src[] =
	"kernel void scale(global const float *x, global float *y,\n"
	"                  float a, int n)\n"
	"{\n"
	"	int i = get_global_id(0);\n"
	"	if (i < n)\n"
	"		y[i] = a * x[i];\n"
	"}\n";

#define N		1024	/* elements of a buffer */
#define WAIT_NS		(60 * SEC_NS)

static uint32_t seed = 2026;

static uint32_t rng(void)
{
	seed = seed * 1103515245 + 12345;
	return seed >> 8;
}

/* GPUs of every vmgpu device, as the driver reports them. */
static uint32_t driver_gpus(struct __test_metadata *_metadata)
{
	int n = vmgpu_device_count(), i;
	uint32_t gpus = 0;

	EXPECT_LT(0, n);
	for (i = 0; i < n; i++) {
		struct vmgpu_device *dev = NULL;
		struct vmgpu_info info;
		uint64_t v = 0;

		ASSERT_EQ(0, vmgpu_device_open(i, &dev, NULL, 0));
		ASSERT_EQ(0, vmgpu_device_query(dev, &info));
		ASSERT_EQ(0, vmgpu_get_param(dev, DRM_VMGPU_PARAM_NUM_GPUS, &v));
		EXPECT_EQ(v, info.num_gpus);
		gpus += info.num_gpus;
		vmgpu_device_close(dev);
	}
	return gpus;
}

FIXTURE(rt) {
	struct vmgpu_rt *rt;
	struct vmgpu_program *prog;
	uint32_t ngpus, cpu;
	uint32_t gpus[VMGPU_RT_MAX_DEVICES];
};

FIXTURE_SETUP(rt)
{
	char *log = NULL;
	int n;

	self->ngpus = driver_gpus(_metadata);
	ASSERT_LT(0, self->ngpus);
	ASSERT_EQ(0, vmgpu_rt_create(NULL, &self->rt));
	n = vmgpu_rt_device_count(self->rt);
	ASSERT_EQ(self->ngpus + 1, n);
	self->cpu = n - 1;
	for (n = 0; n < (int)self->ngpus; n++)
		self->gpus[n] = n;
	if (vmgpu_program_build(rt_kernels_src, NULL, &self->prog, &log))
		TH_LOG("%s", log ? log : "build failed");
	free(log);
	ASSERT_NE(NULL, self->prog);
}

FIXTURE_TEARDOWN(rt)
{
	vmgpu_rt_destroy(self->rt);
	vmgpu_program_destroy(self->prog);
}

static void rt_fail(struct __test_metadata *_metadata, struct vmgpu_rt *rt,
		    int r)
{
	char msg[256];

	if (!r)
		return;
	vmgpu_rt_error_message(rt, msg, sizeof(msg));
	TH_LOG("runtime: %d: %s", r, msg);
}

/* Every GPU of the driver, with the figures of GET_PARAM; the CPU last. */
TEST_F(rt, device_table)
{
	int n = vmgpu_device_count(), i;
	uint32_t phys = 0, g;
	struct vmgpu_rt_caps c;

	for (i = 0; i < n; i++) {
		struct vmgpu_device *dev = NULL;
		struct vmgpu_info info;
		uint64_t sms, isa, warp, clk, mem;

		ASSERT_EQ(0, vmgpu_device_open(i, &dev, NULL, 0));
		ASSERT_EQ(0, vmgpu_device_query(dev, &info));
		ASSERT_EQ(0, vmgpu_get_param(dev, DRM_VMGPU_PARAM_SMS_PER_GPU,
					     &sms));
		ASSERT_EQ(0, vmgpu_get_param(dev, DRM_VMGPU_PARAM_ISA_VERSION,
					     &isa));
		ASSERT_EQ(0, vmgpu_get_param(dev, DRM_VMGPU_PARAM_WARP_SIZE,
					     &warp));
		ASSERT_EQ(0, vmgpu_get_param(dev, DRM_VMGPU_PARAM_CLOCK_KHZ,
					     &clk));
		ASSERT_EQ(0, vmgpu_get_param(dev, DRM_VMGPU_PARAM_LOCAL_MEM_MB,
					     &mem));
		EXPECT_EQ(sms, info.sms_per_gpu);
		EXPECT_EQ(isa, info.isa_version);
		EXPECT_EQ(warp, info.warp_size);
		EXPECT_EQ(clk, info.clock_khz);
		EXPECT_EQ(mem, info.local_mem_mb);
		for (g = 0; g < info.num_gpus; g++, phys++) {
			ASSERT_EQ(0, vmgpu_rt_device_caps(self->rt, phys, &c));
			EXPECT_EQ(VMGPU_RT_TYPE_GPU, c.type);
			EXPECT_STREQ("vmgpu", c.vendor);
			EXPECT_EQ(sms, c.compute_units);
			EXPECT_EQ(isa, c.isa_version);
			EXPECT_EQ(warp, c.warp_width);
			EXPECT_EQ(clk, c.clock_khz);
			EXPECT_EQ(mem, c.local_mem_mb);
			EXPECT_NE(NULL, strstr(c.name, info.node));
		}
		vmgpu_device_close(dev);
	}
	EXPECT_EQ(self->cpu, phys);
	ASSERT_EQ(0, vmgpu_rt_device_caps(self->rt, self->cpu, &c));
	EXPECT_EQ(VMGPU_RT_TYPE_CPU, c.type);
	EXPECT_EQ(-ENODEV, vmgpu_rt_device_caps(self->rt, self->cpu + 1, &c));
}

/* scale on @ctx's devices; returns the device it ran on. */
static uint32_t run_scale(struct __test_metadata *_metadata,
			  struct vmgpu_rt *rt, vmgpu_rt_handle ctx,
			  struct vmgpu_compiler *cc, struct vmgpu_kernlib *lib,
			  const float *in, float *out)
{
	vmgpu_rt_handle kernel = 0, queue = 0, x = 0, y = 0, ev = 0;
	struct vmgpu_rt_event_info info = { 0 };
	struct vmgpu_rt_arg args[4];
	struct vmgpu_rt_instance inst = {
		.num_args = 4, .args = args, .grid = { N / 128 },
		.block = { 128 },
	};
	int r;

	r = vmgpu_rt_kernel_from_library(rt, ctx, cc, lib, "scale", NULL,
					 &kernel, NULL);
	if (!r)
		r = vmgpu_rt_buffer_create(rt, ctx, N * 4, &x);
	if (!r)
		r = vmgpu_rt_buffer_create(rt, ctx, N * 4, &y);
	if (!r)
		r = vmgpu_rt_buffer_write(rt, x, 0, in, N * 4);
	if (!r)
		r = vmgpu_rt_queue_create(rt, ctx, &queue);
	if (!r) {
		args[0] = buf_arg(VMGPU_PARAM_BUF_RO, x);
		args[1] = buf_arg(VMGPU_PARAM_BUF_WO, y);
		args[2].type = VMGPU_PARAM_F32;
		args[2].f32 = 2.5f;
		args[3] = i32_arg(N);
		inst.kernel = kernel;
		r = vmgpu_rt_enqueue(rt, queue, &inst, &ev);
	}
	if (!r)
		r = vmgpu_rt_wait(rt, ev, WAIT_NS);
	if (!r)
		r = vmgpu_rt_buffer_read(rt, y, 0, out, N * 4);
	if (!r)
		r = vmgpu_rt_event_query(rt, ev, &info);
	rt_fail(_metadata, rt, r);
	EXPECT_EQ(0, r);
	EXPECT_EQ(VMGPU_RT_EVENT_COMPLETE, info.state);
	/* a GPU's TIMESTAMP difference, the CPU's cost model */
	EXPECT_LT(0, info.exec_ns);
	return info.phys;
}

/*
 * The three requests: a capability request for a GPU -> a device
 * identifier -> a context -> the kernel compiled for it and run; the
 * bytes are the CPU device's and C's.
 */
TEST_F(rt, three_requests_on_a_gpu)
{
	struct vmgpu_rt_cap_term terms[2] = {
		{ .key = VMGPU_RT_CAP_TYPE, .op = VMGPU_RT_OP_EQ,
		  .value = VMGPU_RT_TYPE_GPU, .weight = 1 },
		{ .key = VMGPU_RT_CAP_ISA_VERSION, .op = VMGPU_RT_OP_GE,
		  .value = 1, .weight = 1 },
	};
	struct vmgpu_rt_cap_request req = {
		.mode = VMGPU_RT_MATCH_ALL, .num_terms = 2, .terms = terms,
	};
	static float in[N], gpu_out[N], cpu_out[N];
	struct vmgpu_compiler *cc = NULL;
	struct vmgpu_kernlib *lib = NULL;
	uint32_t device, members[VMGPU_RT_MAX_DEVICES], phys;
	vmgpu_rt_handle ctx, cpu_ctx;
	int i, n;

	for (i = 0; i < N; i++)
		in[i] = (float)(int)(rng() % 2001 - 1000) / 8.0f;
	ASSERT_EQ(0, vmgpu_rt_request(self->rt, &req, &device));
	n = vmgpu_rt_device_members(self->rt, device, members,
				    VMGPU_RT_MAX_DEVICES);
	ASSERT_EQ(self->ngpus, n);
	for (i = 0; i < n; i++)
		EXPECT_GT(self->cpu, members[i]);
	ASSERT_EQ(0, vmgpu_rt_context_create(self->rt, device, 0, &ctx));
	ASSERT_EQ(0, vmgpu_compiler_create(NULL, VMGPU_COMPILER_NO_CACHE, &cc));
	ASSERT_EQ(0, vmgpu_kernlib_create("example", scale_src, NULL, &lib));

	phys = run_scale(_metadata, self->rt, ctx, cc, lib, in, gpu_out);
	EXPECT_GT(self->cpu, phys);
	cpu_ctx = ctx_on(_metadata, self->rt, &self->cpu, 1, 0);
	phys = run_scale(_metadata, self->rt, cpu_ctx, cc, lib, in, cpu_out);
	EXPECT_EQ(self->cpu, phys);
	EXPECT_EQ(0, memcmp(gpu_out, cpu_out, sizeof(gpu_out)));
	for (i = 0; i < N; i++)
		if (gpu_out[i] != 2.5f * in[i])
			break;
	EXPECT_EQ(N, i);
	vmgpu_kernlib_destroy(lib);
	vmgpu_compiler_destroy(cc);
}

#define NBUF	4
#define NINST	16

/*
 * Instances of add and mad on four buffers, each reading and writing
 * what others wrote and read (RAW, WAR, WAW), placed round robin over
 * every GPU: the result of running them in order.
 */
TEST_F(rt, dataflow_across_gpus)
{
	static uint32_t ref[NBUF][N], got[N];
	vmgpu_rt_handle ctx, kadd = 0, kmad = 0, q, buf[NBUF], ev[NINST];
	uint32_t used = 0, b, i, j;
	int r;

	ASSERT_EQ(0, vmgpu_rt_set_policy(self->rt,
					 VMGPU_RT_POLICY_ROUND_ROBIN));
	ctx = ctx_on(_metadata, self->rt, self->gpus, self->ngpus, 0);
	ASSERT_EQ(0, vmgpu_rt_kernel_from_program(self->rt, ctx, self->prog,
						  "add", &kadd));
	ASSERT_EQ(0, vmgpu_rt_kernel_from_program(self->rt, ctx, self->prog,
						  "mad", &kmad));
	ASSERT_EQ(0, vmgpu_rt_queue_create(self->rt, ctx, &q));
	for (b = 0; b < NBUF; b++) {
		for (j = 0; j < N; j++)
			ref[b][j] = rng() % 1000;
		ASSERT_EQ(0, vmgpu_rt_buffer_create(self->rt, ctx, N * 4,
						    &buf[b]));
		ASSERT_EQ(0, vmgpu_rt_buffer_write(self->rt, buf[b], 0,
						   ref[b], N * 4));
	}
	for (i = 0; i < NINST; i++) {
		uint32_t x = rng() % NBUF, y = (x + 1 + rng() % (NBUF - 1)) % NBUF;
		struct vmgpu_rt_arg args[4];
		struct vmgpu_rt_instance inst = {
			.num_args = 4, .args = args, .grid = { N / 64 },
			.block = { 64 },
		};

		if (i % 3 == 2) {
			/* add: c = a + b, c neither a nor b */
			uint32_t c = 0;

			while (c == x || c == y)
				c++;
			inst.kernel = kadd;
			args[0] = buf_arg(VMGPU_PARAM_BUF_RO, buf[x]);
			args[1] = buf_arg(VMGPU_PARAM_BUF_RO, buf[y]);
			args[2] = buf_arg(VMGPU_PARAM_BUF_WO, buf[c]);
			args[3] = i32_arg(N);
			for (j = 0; j < N; j++)
				ref[c][j] = ref[x][j] + ref[y][j];
		} else {
			int32_t k = (int32_t)(rng() % 5) - 2;

			inst.kernel = kmad;
			args[0] = buf_arg(VMGPU_PARAM_BUF_RO, buf[x]);
			args[1] = buf_arg(VMGPU_PARAM_BUF_RW, buf[y]);
			args[2] = i32_arg(k);
			args[3] = i32_arg(N);
			for (j = 0; j < N; j++)
				ref[y][j] = ref[y][j] * (uint32_t)k + ref[x][j];
		}
		ASSERT_EQ(0, vmgpu_rt_enqueue(self->rt, q, &inst, &ev[i]));
	}
	r = vmgpu_rt_finish(self->rt, q);
	rt_fail(_metadata, self->rt, r);
	ASSERT_EQ(0, r);
	for (i = 0; i < NINST; i++) {
		struct vmgpu_rt_event_info info;

		ASSERT_EQ(0, vmgpu_rt_event_query(self->rt, ev[i], &info));
		EXPECT_EQ(0, info.error);
		ASSERT_GT(self->cpu, info.phys);
		used |= 1u << info.phys;
	}
	EXPECT_EQ((1u << self->ngpus) - 1, used);
	for (b = 0; b < NBUF; b++) {
		ASSERT_EQ(0, vmgpu_rt_buffer_read(self->rt, buf[b], 0, got,
						  N * 4));
		for (j = 0; j < N; j++)
			if (got[j] != ref[b][j])
				break;
		EXPECT_EQ(N, j) {
			TH_LOG("buffer %u [%u]: %u, not %u", b, j,
			       j < N ? got[j] : 0, j < N ? ref[b][j] : 0);
		}
	}
}

/*
 * A store far outside every buffer faults the packet (the driver bans
 * the back end's libvmgpu context): the instance ends with -EFAULT, one
 * that writes what it wrote is cancelled, and the next instance on that
 * GPU runs (the back end made a new context).
 */
TEST_F(rt, fault_then_next_runs)
{
	vmgpu_rt_handle ctx = ctx_on(_metadata, self->rt, self->gpus, 1, 0);
	vmgpu_rt_handle k = 0, q, b[2], ev[3];
	int32_t at[3] = { 1 << 28, 3, 5 }, got = 0;
	uint32_t i;

	ASSERT_EQ(0, vmgpu_rt_kernel_from_program(self->rt, ctx, self->prog,
						  "poke", &k));
	ASSERT_EQ(0, vmgpu_rt_queue_create(self->rt, ctx, &q));
	for (i = 0; i < 2; i++)
		ASSERT_EQ(0, vmgpu_rt_buffer_create(self->rt, ctx, 64, &b[i]));
	for (i = 0; i < 3; i++) {
		struct vmgpu_rt_arg args[2];
		struct vmgpu_rt_instance inst = {
			.kernel = k, .num_args = 2, .args = args,
			.grid = { 1 }, .block = { 1 },
		};

		/*
		 * 0: faults; 1: after it (WAW), cancelled; 2, once they
		 * ended: another buffer, runs.
		 */
		args[0] = buf_arg(VMGPU_PARAM_BUF_WO, b[i == 2]);
		args[1] = i32_arg(at[i]);
		ASSERT_EQ(0, vmgpu_rt_enqueue(self->rt, q, &inst, &ev[i]));
		if (i != 1)
			continue;
		EXPECT_EQ(-EFAULT, vmgpu_rt_wait(self->rt, ev[0], WAIT_NS));
		EXPECT_EQ(-ECANCELED, vmgpu_rt_wait(self->rt, ev[1], WAIT_NS));
	}
	EXPECT_EQ(0, vmgpu_rt_wait(self->rt, ev[2], WAIT_NS));
	ASSERT_EQ(0, vmgpu_rt_buffer_read(self->rt, b[1], 20, &got, 4));
	EXPECT_EQ(1, got);
}

/* A released context: -ESTALE, the design's "invalid context". */
TEST_F(rt, stale_context)
{
	vmgpu_rt_handle ctx = ctx_on(_metadata, self->rt, self->gpus, 1, 0);
	vmgpu_rt_handle b, q, k;
	char msg[256];

	ASSERT_EQ(0, vmgpu_rt_release(self->rt, ctx));
	EXPECT_EQ(-ESTALE, vmgpu_rt_buffer_create(self->rt, ctx, 64, &b));
	vmgpu_rt_error_message(self->rt, msg, sizeof(msg));
	EXPECT_NE(NULL, strstr(msg, "invalid context")) {
		TH_LOG("message: %s", msg);
	}
	EXPECT_EQ(-ESTALE, vmgpu_rt_queue_create(self->rt, ctx, &q));
	EXPECT_EQ(-ESTALE, vmgpu_rt_kernel_from_program(self->rt, ctx,
							self->prog, "poke",
							&k));
	EXPECT_EQ(-ESTALE, vmgpu_rt_release(self->rt, ctx));
	EXPECT_EQ(-EBADF, vmgpu_rt_buffer_create(self->rt, 0, 64, &b));
}

/*
 * Every GPU taken by graphics: a context that allows CPU fallback runs on
 * the CPU; one that does not waits until a GPU takes work.
 */
TEST_F(rt, cpu_fallback_only_when_allowed)
{
	vmgpu_rt_handle ctx[2], k[2], q[2], b[2], ev[2];
	struct vmgpu_rt_event_info info;
	uint32_t i, g;
	int got[2];

	for (g = 0; g < self->ngpus; g++)
		ASSERT_EQ(0, vmgpu_rt_set_graphics_load(self->rt, g, 100));
	for (i = 0; i < 2; i++) {
		struct vmgpu_rt_arg args[2];
		struct vmgpu_rt_instance inst = {
			.num_args = 2, .args = args, .grid = { 1 },
			.block = { 1 },
		};

		ctx[i] = ctx_on(_metadata, self->rt, self->gpus, self->ngpus,
				i ? VMGPU_RT_CTX_CPU_FALLBACK : 0);
		ASSERT_EQ(0, vmgpu_rt_kernel_from_program(self->rt, ctx[i],
							  self->prog, "poke",
							  &k[i]));
		ASSERT_EQ(0, vmgpu_rt_queue_create(self->rt, ctx[i], &q[i]));
		ASSERT_EQ(0, vmgpu_rt_buffer_create(self->rt, ctx[i], 64,
						    &b[i]));
		inst.kernel = k[i];
		args[0] = buf_arg(VMGPU_PARAM_BUF_WO, b[i]);
		args[1] = i32_arg(3);
		ASSERT_EQ(0, vmgpu_rt_enqueue(self->rt, q[i], &inst, &ev[i]));
	}
	ASSERT_EQ(0, vmgpu_rt_wait(self->rt, ev[1], WAIT_NS));
	ASSERT_EQ(0, vmgpu_rt_event_query(self->rt, ev[1], &info));
	EXPECT_EQ(self->cpu, info.phys);
	EXPECT_EQ(-ETIME, vmgpu_rt_wait(self->rt, ev[0], 100 * 1000 * 1000));
	ASSERT_EQ(0, vmgpu_rt_event_query(self->rt, ev[0], &info));
	EXPECT_EQ(VMGPU_RT_EVENT_SUBMITTED, info.state);
	ASSERT_EQ(0, vmgpu_rt_set_graphics_load(self->rt, self->ngpus - 1, 0));
	ASSERT_EQ(0, vmgpu_rt_wait(self->rt, ev[0], WAIT_NS));
	ASSERT_EQ(0, vmgpu_rt_event_query(self->rt, ev[0], &info));
	EXPECT_EQ(self->ngpus - 1, info.phys);
	for (i = 0; i < 2; i++) {
		ASSERT_EQ(0, vmgpu_rt_buffer_read(self->rt, b[i], 12, &got[i],
						  4));
		EXPECT_EQ(1, got[i]);
	}
}

TEST_HARNESS_MAIN
