// SPDX-License-Identifier: GPL-2.0-only
/*
 * The runtime's embedded device (libshim/runtime/embedded.c,
 * vmgpu_rt_embedded_open()): the device table shows the GPUs and
 * capabilities of the configuration given; the compiler's corpus gives
 * on an embedded GPU what it gives on the CPU device, byte for byte;
 * memory freed is reused (allocations totalling ten times the guest
 * memory); bad settings are refused naming the setting, and
 * VMGPU_EMBEDDED is read when no configuration is given; a faulting
 * kernel reports its fault and the next one runs; the back end's
 * operations themselves (code loaded once, a freed buffer unmapped on
 * every GPU); several threads and several runtimes use one back end at
 * once.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kselftest_harness.h"

#include "../runtime_cases.h"
#include "testcorpus.h"
#include "vmgpu/compiler.h"

#define N		256

static uint32_t seed = 4242;

static uint32_t rng(void)
{
	seed = seed * 1103515245 + 12345;
	return seed >> 8;
}

static struct vmgpu_program *build(const char *src)
{
	struct vmgpu_program *prog = NULL;
	char *log = NULL;

	if (vmgpu_program_build(src, "-ffp-contract=off", &prog, &log)) {
		fprintf(stderr, "%s\n", log ? log : "build failed");
		abort();
	}
	free(log);
	return prog;
}

/* c = a + b on physical device @phys of @rt; 0 if the result is right. */
static int run_add(struct vmgpu_rt *rt, struct vmgpu_program *prog,
		   uint32_t phys, vmgpu_rt_handle q_or_0, int32_t bias)
{
	vmgpu_rt_handle ctx, k = 0, b[3], q = q_or_0, ev = 0;
	struct vmgpu_rt_arg args[4];
	struct vmgpu_rt_instance inst = {
		.num_args = 4, .args = args, .grid = { N / 64 },
		.block = { 64 },
	};
	int32_t a[N], c[N];
	uint32_t dev, i;
	int r;

	r = vmgpu_rt_logical_device(rt, &phys, 1, &dev);
	if (!r)
		r = vmgpu_rt_context_create(rt, dev, 0, &ctx);
	if (r)
		return r;
	for (i = 0; i < N; i++)
		a[i] = (int32_t)i * 3 + bias;
	r = vmgpu_rt_kernel_from_program(rt, ctx, prog, "add", &k);
	for (i = 0; !r && i < 3; i++) {
		r = vmgpu_rt_buffer_create(rt, ctx, sizeof(a), &b[i]);
		if (!r)
			r = vmgpu_rt_buffer_write(rt, b[i], 0, a, sizeof(a));
	}
	if (!r && !q)
		r = vmgpu_rt_queue_create(rt, ctx, &q);
	if (r)
		return r;
	args[0] = buf_arg(VMGPU_PARAM_BUF_RO, b[0]);
	args[1] = buf_arg(VMGPU_PARAM_BUF_RO, b[1]);
	args[2] = buf_arg(VMGPU_PARAM_BUF_WO, b[2]);
	args[3] = i32_arg(N);
	inst.kernel = k;
	r = vmgpu_rt_enqueue(rt, q, &inst, &ev);
	if (!r)
		r = vmgpu_rt_wait(rt, ev, -1);
	if (!r)
		r = vmgpu_rt_buffer_read(rt, b[2], 0, c, sizeof(c));
	for (i = 0; !r && i < N; i++)
		if (c[i] != 2 * a[i])
			r = -EIO;
	for (i = 0; i < 3; i++)
		vmgpu_rt_release(rt, b[i]);
	vmgpu_rt_release(rt, ev);
	vmgpu_rt_release(rt, k);
	if (!q_or_0)
		vmgpu_rt_release(rt, q);
	vmgpu_rt_release(rt, ctx);
	return r;
}

static struct vmgpu_rt *rt_over(struct vmgpu_rt_backend *be)
{
	struct vmgpu_rt_config cfg = {
		.backends = be, .num_backends = 1, .cpu_threads = 2,
	};
	struct vmgpu_rt *rt = NULL;

	if (vmgpu_rt_create(&cfg, &rt))
		return NULL;
	return rt;
}

/* (a) The device table. */
TEST(device_table)
{
	struct vmgpu_rt_backend be;
	struct vmgpu_rt_caps c;
	struct vmgpu_rt *rt;
	char err[256];

	ASSERT_EQ(0, vmgpu_rt_embedded_open("gpus=2,sms=3", &be, err,
					    sizeof(err)));
	rt = rt_over(&be);
	ASSERT_NE(NULL, rt);
	ASSERT_EQ(3, vmgpu_rt_device_count(rt));
	ASSERT_EQ(0, vmgpu_rt_device_caps(rt, 1, &c));
	EXPECT_EQ(VMGPU_RT_TYPE_GPU, c.type);
	EXPECT_EQ(3, c.compute_units);
	EXPECT_EQ(VMGPU_ISA_VERSION, c.isa_version);
	EXPECT_EQ(32, c.warp_width);
	EXPECT_EQ(1500000, c.clock_khz);
	EXPECT_EQ(1024, c.local_mem_mb);
	EXPECT_EQ(VMGPU_MAX_SHARED_BYTES, c.shared_mem_per_block);
	EXPECT_EQ(VMGPU_MAX_BLOCK_THREADS, c.max_block_threads);
	EXPECT_EQ(25000, c.host_bw_mbps);
	EXPECT_EQ(300000, c.peer_bw_mbps);
	EXPECT_EQ(0, strcmp(c.vendor, "vmgpu"));
	ASSERT_EQ(0, vmgpu_rt_device_caps(rt, 2, &c));
	EXPECT_EQ(VMGPU_RT_TYPE_CPU, c.type);
	vmgpu_rt_destroy(rt);
	vmgpu_rt_embedded_close(&be);

	/* the defaults: 4 GPUs; settings reach the caps */
	ASSERT_EQ(0, vmgpu_rt_embedded_open("", &be, err, sizeof(err)));
	EXPECT_EQ(4, be.ops->count(be.opaque));
	vmgpu_rt_embedded_close(&be);
	ASSERT_EQ(0, vmgpu_rt_embedded_open(
			     "gpus=1,clock-khz=1000000,isa-version=1,memory=64",
			     &be, err, sizeof(err)));
	EXPECT_EQ(1, be.ops->count(be.opaque));
	ASSERT_EQ(0, be.ops->query(be.opaque, 0, &c));
	EXPECT_EQ(1000000, c.clock_khz);
	EXPECT_EQ(1, c.isa_version);
	EXPECT_EQ(64, c.local_mem_mb);
	EXPECT_EQ(-ENODEV, be.ops->query(be.opaque, 1, &c));
	vmgpu_rt_embedded_close(&be);
	vmgpu_rt_embedded_close(&be);	/* closed: nothing */
}

/* (d) Bad settings, and the environment variable. */
TEST(settings)
{
	static const struct {
		const char *config, *names;
	} bad[] = {
		{ "gpus=0", "gpus" },
		{ "gpus=x", "gpus" },
		{ "nosuch=1", "nosuch" },
		{ "gpus", "gpus" },
		{ "gpus=-1", "gpus" },
		{ "gpus=99", "gpus" },
		{ "sms=2,sm-threads=1100", "sm-threads" },
		{ "memory=1", "memory" },
		{ "gpus=2,,sms=4294967296", "sms" },
	};
	struct vmgpu_rt_backend be;
	char err[256];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		err[0] = 0;
		EXPECT_EQ(-EINVAL, vmgpu_rt_embedded_open(bad[i].config, &be,
							  err, sizeof(err)));
		EXPECT_EQ(NULL, be.ops);
		if (!strstr(err, bad[i].names)) {
			TH_LOG("%s: message \"%s\"", bad[i].config, err);
			EXPECT_TRUE(0);
		}
	}
	/* the range is named */
	vmgpu_rt_embedded_open("gpus=0", &be, err, sizeof(err));
	EXPECT_NE(NULL, strstr(err, "1..8"));
	/* no room for a message: still refused */
	EXPECT_EQ(-EINVAL, vmgpu_rt_embedded_open("gpus=0", &be, NULL, 0));

	ASSERT_EQ(0, setenv("VMGPU_EMBEDDED", "gpus=3,sms=2", 1));
	ASSERT_EQ(0, vmgpu_rt_embedded_open(NULL, &be, err, sizeof(err)));
	EXPECT_EQ(3, be.ops->count(be.opaque));
	vmgpu_rt_embedded_close(&be);
	/* a configuration given wins */
	ASSERT_EQ(0, vmgpu_rt_embedded_open("gpus=1", &be, err, sizeof(err)));
	EXPECT_EQ(1, be.ops->count(be.opaque));
	vmgpu_rt_embedded_close(&be);
	ASSERT_EQ(0, setenv("VMGPU_EMBEDDED", "gpus=nine", 1));
	EXPECT_EQ(-EINVAL, vmgpu_rt_embedded_open(NULL, &be, err,
						  sizeof(err)));
	EXPECT_NE(NULL, strstr(err, "gpus"));
	ASSERT_EQ(0, setenv("VMGPU_EMBEDDED", "", 1));
	ASSERT_EQ(0, vmgpu_rt_embedded_open(NULL, &be, err, sizeof(err)));
	EXPECT_EQ(4, be.ops->count(be.opaque));
	vmgpu_rt_embedded_close(&be);
	ASSERT_EQ(0, unsetenv("VMGPU_EMBEDDED"));
	ASSERT_EQ(0, vmgpu_rt_embedded_open(NULL, &be, err, sizeof(err)));
	EXPECT_EQ(4, be.ops->count(be.opaque));
	vmgpu_rt_embedded_close(&be);
}

/* (c) Allocations totalling ten times the guest memory: reused. */
TEST(memory_reused)
{
	const uint64_t mem = 16ull << 20;
	struct vmgpu_rt_backend be;
	struct vmgpu_program *prog = build(rt_kernels_src);
	uint64_t total = 0, va[4] = { 0 };
	struct vmgpu_rt *rt;
	char err[256];
	void *host;
	int i;

	ASSERT_EQ(0, vmgpu_rt_embedded_open("gpus=2,memory=16", &be, err,
					    sizeof(err)));
	/* the back end itself: four live buffers of up to 3 MiB, churned */
	for (i = 0; total < 10 * mem; i++) {
		uint64_t bytes = (rng() % (3u << 20)) + 1;
		int slot = i % 4;

		if (va[slot])
			be.ops->mem_free(be.opaque, slot % 2, va[slot]);
		ASSERT_EQ(0, be.ops->mem_alloc(be.opaque, slot % 2, bytes,
					       &va[slot], &host));
		memset(host, 0xa5, bytes);	/* ASan: all of it is there */
		total += bytes;
	}
	for (i = 0; i < 4; i++)
		be.ops->mem_free(be.opaque, i % 2, va[i]);
	/* everything back: the whole memory but the setup in one piece */
	ASSERT_EQ(0, be.ops->mem_alloc(be.opaque, 0, mem - (1 << 20), &va[0],
				       &host));
	be.ops->mem_free(be.opaque, 0, va[0]);
	/* too much: refused, not a crash */
	EXPECT_EQ(-ENOMEM, be.ops->mem_alloc(be.opaque, 0, mem, &va[0],
					     &host));
	/* through the runtime: buffers made and released, kernels running */
	rt = rt_over(&be);
	ASSERT_NE(NULL, rt);
	for (total = 0, i = 0; total < 10 * mem; i++) {
		vmgpu_rt_handle ctx, b;
		uint32_t phys = i % 2, dev;
		void *p;

		ASSERT_EQ(0, vmgpu_rt_logical_device(rt, &phys, 1, &dev));
		ASSERT_EQ(0, vmgpu_rt_context_create(rt, dev, 0, &ctx));
		ASSERT_EQ(0, vmgpu_rt_buffer_create(rt, ctx, 4 << 20, &b));
		ASSERT_EQ(0, vmgpu_rt_buffer_map(rt, b, VMGPU_RT_MAP_WRITE,
						 &p));
		ASSERT_EQ(0, vmgpu_rt_buffer_unmap(rt, b));
		ASSERT_EQ(0, run_add(rt, prog, phys, 0, i));
		vmgpu_rt_release(rt, b);
		vmgpu_rt_release(rt, ctx);
		total += (4 << 20) + 3 * N * 4;
	}
	vmgpu_rt_destroy(rt);
	vmgpu_rt_embedded_close(&be);
	vmgpu_program_destroy(prog);
}

/* (e) A fault reaches the event; the next kernel runs. */
TEST(fault_then_next)
{
	struct vmgpu_rt_backend be;
	struct vmgpu_program *prog = build(rt_kernels_src);
	struct vmgpu_rt *rt;
	char err[256];
	int round;

	ASSERT_EQ(0, vmgpu_rt_embedded_open("gpus=1,memory=64", &be, err,
					    sizeof(err)));
	rt = rt_over(&be);
	ASSERT_NE(NULL, rt);
	for (round = 0; round < 3; round++) {
		uint32_t phys = 0;
		vmgpu_rt_handle ctx = ctx_on(_metadata, rt, &phys, 1, 0);
		vmgpu_rt_handle k, b, q, ev;
		struct vmgpu_rt_arg args[2];
		struct vmgpu_rt_instance inst = {
			.num_args = 2, .args = args, .grid = { 1 },
			.block = { 1 },
		};
		int32_t v[16];

		ASSERT_EQ(0, vmgpu_rt_kernel_from_program(rt, ctx, prog,
							  "poke", &k));
		ASSERT_EQ(0, vmgpu_rt_buffer_create(rt, ctx, sizeof(v), &b));
		ASSERT_EQ(0, vmgpu_rt_queue_create(rt, ctx, &q));
		inst.kernel = k;
		args[0] = buf_arg(VMGPU_PARAM_BUF_WO, b);
		args[1] = i32_arg(-(1 << 28));	/* 1 GiB before it */
		ASSERT_EQ(0, vmgpu_rt_enqueue(rt, q, &inst, &ev));
		EXPECT_EQ(-EFAULT, vmgpu_rt_wait(rt, ev, -1));
		vmgpu_rt_release(rt, ev);
		args[1] = i32_arg(1 << 10);	/* its next page: the guard */
		ASSERT_EQ(0, vmgpu_rt_enqueue(rt, q, &inst, &ev));
		EXPECT_EQ(-EFAULT, vmgpu_rt_wait(rt, ev, -1));
		vmgpu_rt_release(rt, ev);
		args[1] = i32_arg(round + 1);
		ASSERT_EQ(0, vmgpu_rt_enqueue(rt, q, &inst, &ev));
		EXPECT_EQ(0, vmgpu_rt_wait(rt, ev, -1));
		vmgpu_rt_release(rt, ev);
		ASSERT_EQ(0, vmgpu_rt_buffer_read(rt, b, 0, v, sizeof(v)));
		EXPECT_EQ(1, v[round + 1]);
		EXPECT_EQ(0, run_add(rt, prog, 0, 0, round));
		vmgpu_rt_release(rt, b);
		vmgpu_rt_release(rt, q);
		vmgpu_rt_release(rt, k);
		vmgpu_rt_release(rt, ctx);
	}
	vmgpu_rt_destroy(rt);
	vmgpu_rt_embedded_close(&be);
	vmgpu_program_destroy(prog);
}

/* poke's argument block: p, at. */
static uint32_t poke_args(const void *image, size_t bytes, uint64_t p,
			  int32_t at, uint8_t *args)
{
	struct vmgpu_exec_param params[VMGPU_MAX_PARAMS];
	struct vmgpu_exec_header h;
	struct vmgpu_exec_sig sig;
	const char *why;

	vmgpu_exec_header_read(&h, image);
	if (vmgpu_exec_sig_read(&h, image, bytes, &sig, params, &why) != 1 ||
	    sig.num_params != 2 || h.args_bytes > 64)
		return 0;
	memset(args, 0, 64);
	memcpy(args + params[0].offset, &p, 8);
	memcpy(args + params[1].offset, &at, 4);
	return h.args_bytes;
}

/* The operations themselves: code kept once, a freed buffer unmapped. */
TEST(ops)
{
	struct vmgpu_program *prog = build(rt_kernels_src);
	struct vmgpu_rt_launch_desc l = {
		.grid = { 1, 1, 1 }, .block = { 1, 1, 1 },
		.grid_total = { 1, 1, 1 },
	};
	struct vmgpu_rt_backend be;
	uint64_t code, code2, va, ns;
	const void *image;
	uint8_t args[64];
	uint32_t fault;
	int32_t *host;
	size_t bytes;
	char err[256];

	ASSERT_EQ(0, vmgpu_program_kernel_image(prog, "poke", &image, &bytes));
	ASSERT_EQ(0, vmgpu_rt_embedded_open("gpus=2,memory=16", &be, err,
					    sizeof(err)));
	ASSERT_EQ(0, be.ops->kernel_load(be.opaque, 0, image, bytes, &code));
	ASSERT_EQ(0, be.ops->kernel_load(be.opaque, 1, image, bytes, &code2));
	EXPECT_EQ(code, code2);
	EXPECT_EQ(-EINVAL, be.ops->kernel_load(be.opaque, 0, "xx", 2, &code2));
	EXPECT_EQ(-ENODEV, be.ops->kernel_load(be.opaque, 2, image, bytes,
					       &code2));
	ASSERT_EQ(0, be.ops->mem_alloc(be.opaque, 1, 4096, &va,
				       (void **)&host));
	l.code = code;
	l.args = args;
	l.args_bytes = poke_args(image, bytes, va, 3, args);
	ASSERT_LT(0, l.args_bytes);
	ASSERT_EQ(0, be.ops->run(be.opaque, 1, &l, &ns, &fault));
	EXPECT_EQ(VMGPU_FAULT_NONE, fault);
	EXPECT_EQ(1, host[3]);
	EXPECT_LT(0, ns);
	EXPECT_EQ(-ENODEV, be.ops->run(be.opaque, 2, &l, &ns, &fault));
	/* freed: unmapped, on the GPU that used it too (its TLB) */
	be.ops->mem_free(be.opaque, 1, va);
	ASSERT_EQ(0, be.ops->run(be.opaque, 1, &l, &ns, &fault));
	EXPECT_EQ(VMGPU_FAULT_UNMAPPED, fault);
	ASSERT_EQ(0, be.ops->run(be.opaque, 0, &l, &ns, &fault));
	EXPECT_EQ(VMGPU_FAULT_UNMAPPED, fault);
	be.ops->mem_free(be.opaque, 1, va);	/* twice: nothing */
	/* and the GPU runs the next one */
	ASSERT_EQ(0, be.ops->mem_alloc(be.opaque, 1, 64, &va,
				       (void **)&host));
	l.args_bytes = poke_args(image, bytes, va, 5, args);
	ASSERT_EQ(0, be.ops->run(be.opaque, 1, &l, &ns, &fault));
	EXPECT_EQ(VMGPU_FAULT_NONE, fault);
	EXPECT_EQ(1, host[5]);
	vmgpu_rt_embedded_close(&be);
	vmgpu_program_destroy(prog);
}

/* Several threads on one runtime, several runtimes on one back end. */
struct worker {
	struct vmgpu_rt *rt;
	struct vmgpu_program *prog;
	uint32_t phys;
	int id, failed;
};

static void *worker_fn(void *arg)
{
	struct worker *w = arg;
	int i;

	for (i = 0; i < 12 && !w->failed; i++)
		w->failed = run_add(w->rt, w->prog, w->phys, 0,
				    w->id * 1000 + i);
	return NULL;
}

TEST(threads)
{
	struct vmgpu_rt_backend be;
	struct vmgpu_program *prog = build(rt_kernels_src);
	struct vmgpu_rt *rt[2];
	struct worker w[4];
	pthread_t t[4];
	char err[256];
	int i;

	ASSERT_EQ(0, vmgpu_rt_embedded_open("gpus=2,sms=2,memory=64", &be,
					    err, sizeof(err)));
	rt[0] = rt_over(&be);
	rt[1] = rt_over(&be);
	ASSERT_NE(NULL, rt[0]);
	ASSERT_NE(NULL, rt[1]);
	for (i = 0; i < 4; i++) {
		w[i] = (struct worker){
			.rt = rt[i / 2], .prog = prog, .phys = i % 2, .id = i,
		};
		ASSERT_EQ(0, pthread_create(&t[i], NULL, worker_fn, &w[i]));
	}
	for (i = 0; i < 4; i++) {
		pthread_join(t[i], NULL);
		EXPECT_EQ(0, w[i].failed);
	}
	vmgpu_rt_destroy(rt[0]);
	vmgpu_rt_destroy(rt[1]);
	vmgpu_rt_embedded_close(&be);
	vmgpu_program_destroy(prog);
}

/* ---- (b) The corpus: an embedded GPU and the CPU alike ---- */

TEST(corpus_identical_on_embedded_gpu_and_cpu)
{
	struct vmgpu_rt_backend be;
	char err[256];

	ASSERT_EQ(0, vmgpu_rt_embedded_open("gpus=1,memory=64", &be, err,
					    sizeof(err)));
	corpus_check(_metadata, &be, 4242);
	vmgpu_rt_embedded_close(&be);
}

TEST_HARNESS_MAIN
