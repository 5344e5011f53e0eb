/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Every kernel of the compiler's test corpus (compiler_corpus.h) through
 * the runtime on the CPU device and on a GPU of a back end, from the same
 * inputs: every buffer identical byte for byte afterwards (SPEC P6: the
 * CPU device runs the same executables). compact's output order depends
 * on the order its blocks' atomics run in, on any device: its count is
 * compared, and its output as a sorted set. And each kernel but the two
 * that combine blocks' results with atomics (compact, dot_int) split
 * across the GPU and the CPU (SPEC P7): identical too. One check for
 * every GPU back end (test_runtime_corpus: the host tests' device model;
 * test_runtime_embedded: the embedded device). Header only: only the
 * runtime's tests link the runtime and the compiler.
 */
#ifndef VMGPU_TESTCORPUS_H
#define VMGPU_TESTCORPUS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kselftest_harness.h"

#include "compiler_corpus.h"
#include "vmgpu/compiler.h"
#include "vmgpu/runtime.h"

#define BUF_BYTES	(128 * 1024)
#define MAX_BUFS	8

static uint32_t corpus_seed;

static inline uint32_t corpus_rng(void)
{
	corpus_seed = corpus_seed * 1103515245 + 12345;
	return corpus_seed >> 8;
}

/* The launch of a corpus kernel: threads and block shape. */
struct shape {
	const char *name;
	uint32_t grid[2], block[2];
};

static const struct shape shapes[] = {
	{ "nbody", { 2, 1 }, { 128, 1 } },
	{ "bitonic256", { 4, 1 }, { 128, 1 } },
	{ "laplace2d", { 2, 2 }, { 16, 16 } },
	{ "transpose_naive", { 2, 2 }, { 16, 16 } },
	{ "transpose_tiled", { 2, 2 }, { 16, 16 } },
	{ "blur_clamp", { 2, 2 }, { 16, 16 } },
	{ "sobel", { 2, 2 }, { 16, 16 } },
	{ "mandel", { 2, 2 }, { 16, 16 } },
	{ "gemv_local", { 1, 1 }, { 64, 1 } },
};

static inline void shape_of(const char *k, uint32_t grid[3], uint32_t block[3])
{
	size_t i;

	grid[0] = 8, grid[1] = grid[2] = 1;
	block[0] = 128, block[1] = block[2] = 1;
	for (i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++)
		if (!strcmp(shapes[i].name, k)) {
			grid[0] = shapes[i].grid[0];
			grid[1] = shapes[i].grid[1];
			block[0] = shapes[i].block[0];
			block[1] = shapes[i].block[1];
		}
}

/* A scalar argument by its name; false if the name is unknown. */
static inline bool scalar(const char *k, const struct vmgpu_exec_param *p,
		   struct vmgpu_rt_arg *a)
{
	int64_t v;

	a->type = p->type;
	if (!strcmp(p->name, "eps2") || !strcmp(p->name, "a")) {
		if (p->type != VMGPU_PARAM_F32)
			return false;
		a->f32 = !strcmp(p->name, "a") ? 1.5f : 0.01f;
		return true;
	}
	if (!strcmp(p->name, "n"))
		v = !strcmp(k, "nbody") || !strcmp(k, "gemv_local") ? 256 :
		    1024;
	else if (!strcmp(p->name, "m"))
		v = !strcmp(k, "gemv_local") ? 64 : 1024;
	else if (!strcmp(p->name, "w") || !strcmp(p->name, "h"))
		v = 32;
	else if (!strcmp(p->name, "maxit"))
		v = 64;
	else if (!strcmp(p->name, "deg"))
		v = 5;
	else if (!strcmp(p->name, "thr"))
		v = 0;
	else if (!strcmp(p->name, "stride"))
		v = 7;
	else if (!strcmp(p->name, "bias"))
		v = -3;
	else
		return false;
	if (p->type == VMGPU_PARAM_I32)
		a->i32 = (int32_t)v;
	else if (p->type == VMGPU_PARAM_I64)
		a->i64 = v;
	else
		return false;
	return true;
}

/* A buffer's initial contents, by kernel and parameter. */
static inline void fill(const char *k, const char *param, uint32_t *w)
{
	uint32_t i, n = BUF_BYTES / 4;

	for (i = 0; i < n; i++) {
		float f = (float)(corpus_rng() % 8000) / 1000.0f - 4.0f;

		memcpy(&w[i], &f, 4);
		if (!strcmp(k, "collatz"))
			w[i] = corpus_rng() % 10000 + 1;
		else if (!strcmp(k, "classify"))
			w[i] = (uint32_t)((int32_t)(corpus_rng() % 65536) - 32768);
		else if (!strcmp(k, "spmv_csr") && !strcmp(param, "rows"))
			w[i] = 4 * i;
		else if (!strcmp(k, "spmv_csr") && !strcmp(param, "cols"))
			w[i] = corpus_rng() % 1024;
		else if (!strcmp(k, "compact") && !strcmp(param, "count"))
			w[i] = 0;
		else if (!strcmp(k, "gcd") || !strcmp(k, "dot_int") ||
			 !strcmp(k, "median8") || !strcmp(k, "bitonic256"))
			w[i] = corpus_rng();
	}
}

static inline int cmp_i32(const void *a, const void *b)
{
	int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * The corpus through a runtime over @be's first GPU and the CPU device,
 * @seed choosing the inputs: on the GPU, on the CPU, split across both.
 */
static inline void corpus_check(struct __test_metadata *_metadata,
				struct vmgpu_rt_backend *be, uint32_t seed)
{
	struct vmgpu_rt_config cfg = {
		.backends = be, .num_backends = 1, .cpu_threads = 2,
	};
	struct vmgpu_program *prog = NULL;
	struct vmgpu_rt *rt;
	vmgpu_rt_handle ctx[3], q[3];
	uint32_t phys, kn, nk, d, ran = 0, on[3] = { 0 }, split = 0;
	char *log = NULL;
	static uint32_t init[MAX_BUFS][BUF_BYTES / 4];
	static uint32_t out[3][MAX_BUFS][BUF_BYTES / 4];

	corpus_seed = seed;
	ASSERT_EQ(0, vmgpu_program_build(corpus_src, "-ffp-contract=off",
					 &prog, &log));
	free(log);
	ASSERT_EQ(0, vmgpu_rt_create(&cfg, &rt));
	for (d = 0; d < 3; d++) {
		uint32_t dev, both[2] = { 0, 1 };

		phys = d;		/* 0: the GPU, 1: the CPU, 2: both */
		ASSERT_EQ(0, vmgpu_rt_logical_device(rt, d < 2 ? &phys : both,
						     d < 2 ? 1 : 2, &dev));
		ASSERT_EQ(0, vmgpu_rt_context_create(rt, dev, 0, &ctx[d]));
		ASSERT_EQ(0, vmgpu_rt_queue_create(rt, ctx[d], &q[d]));
	}
	nk = vmgpu_program_kernel_count(prog);
	ASSERT_LT(20, nk);
	for (kn = 0; kn < nk; kn++) {
		const char *name = vmgpu_program_kernel_name(prog, kn);
		struct vmgpu_exec_param params[VMGPU_MAX_PARAMS];
		struct vmgpu_exec_header h;
		struct vmgpu_exec_sig sig;
		const char *why;
		const void *image;
		size_t bytes;
		uint32_t nbufs = 0, i, b, nparams;
		bool changed = false;
		int priv = vmgpu_program_kernel_private_bytes(prog, name);

		ASSERT_EQ(0, vmgpu_program_kernel_image(prog, name, &image,
							&bytes));
		vmgpu_exec_header_read(&h, image);
		ASSERT_EQ(1, vmgpu_exec_sig_read(&h, image, bytes, &sig, params,
						 &why));
		nparams = sig.num_params - (priv > 0);
		for (i = 0; i < nparams; i++)
			if (vmgpu_param_is_buffer(params[i].type)) {
				ASSERT_GT(MAX_BUFS, nbufs);
				fill(name, params[i].name, init[nbufs++]);
			}
		bool splittable = strcmp(name, "compact") &&
				  strcmp(name, "dot_int");

		for (d = 0; d < (splittable ? 3u : 2u); d++) {
			struct vmgpu_rt_arg args[VMGPU_MAX_PARAMS];
			vmgpu_rt_handle k, bufs[MAX_BUFS], ev;
			struct vmgpu_rt_event_info info;
			struct vmgpu_rt_instance inst = {
				.num_args = nparams, .args = args,
			};

			ASSERT_EQ(0, vmgpu_rt_kernel_from_program(rt, ctx[d],
								  prog, name,
								  &k));
			ASSERT_EQ(nparams, vmgpu_rt_kernel_param_count(rt, k));
			for (i = 0, b = 0; i < nparams; i++) {
				if (!vmgpu_param_is_buffer(params[i].type)) {
					if (!scalar(name, &params[i], &args[i])) {
						TH_LOG("%s: no value for %s", name,
						       params[i].name);
						ASSERT_TRUE(0);
					}
					continue;
				}
				ASSERT_EQ(0, vmgpu_rt_buffer_create(
						     rt, ctx[d], BUF_BYTES,
						     &bufs[b]));
				ASSERT_EQ(0, vmgpu_rt_buffer_write(
						     rt, bufs[b], 0, init[b],
						     BUF_BYTES));
				args[i].type = params[i].type;
				args[i].buf = bufs[b];
				args[i].offset = 0;
				b++;
			}
			inst.kernel = k;
			inst.flags = d == 2 ? VMGPU_RT_INSTANCE_SPLIT : 0;
			shape_of(name, inst.grid, inst.block);
			ASSERT_EQ(0, vmgpu_rt_enqueue(rt, q[d], &inst, &ev));
			if (vmgpu_rt_wait(rt, ev, -1)) {
				char msg[256];

				vmgpu_rt_error_message(rt, msg, sizeof(msg));
				TH_LOG("%s on %s: %s", name,
				       d ? "CPU" : "GPU", msg);
				ASSERT_TRUE(0);
			}
			ASSERT_EQ(0, vmgpu_rt_event_query(rt, ev, &info));
			if (d < 2) {
				ASSERT_EQ(d, info.phys);
				if (!d)
					EXPECT_LT(0, info.exec_ns);
			} else {
				split += info.parts == 2;
			}
			on[d]++;
			for (b = 0; b < nbufs; b++) {
				ASSERT_EQ(0, vmgpu_rt_buffer_read(
						     rt, bufs[b], 0, out[d][b],
						     BUF_BYTES));
				vmgpu_rt_release(rt, bufs[b]);
			}
			vmgpu_rt_release(rt, ev);
			vmgpu_rt_release(rt, k);
		}
		for (b = 0; b < nbufs; b++) {
			if (!strcmp(name, "compact") && b == 1) {
				/* out[]: as sets, count entries (buffer 2) */
				uint32_t cnt = out[0][2][0];

				ASSERT_EQ(cnt, out[1][2][0]);
				ASSERT_GE(BUF_BYTES / 4, cnt);
				ASSERT_LT(0, cnt);
				qsort(out[0][1], cnt, 4, cmp_i32);
				qsort(out[1][1], cnt, 4, cmp_i32);
			}
			if (memcmp(out[0][b], out[1][b], BUF_BYTES)) {
				TH_LOG("%s: buffer %u differs on the CPU", name,
				       b);
				ASSERT_TRUE(0);
			}
			if (splittable &&
			    memcmp(out[0][b], out[2][b], BUF_BYTES)) {
				TH_LOG("%s: buffer %u differs split", name, b);
				ASSERT_TRUE(0);
			}
			changed |= memcmp(out[0][b], init[b], BUF_BYTES) != 0;
		}
		/* Every kernel wrote something: the comparison means it. */
		if (!changed) {
			TH_LOG("%s changed no buffer", name);
			ASSERT_TRUE(0);
		}
		ran++;
	}
	EXPECT_EQ(nk, ran);
	EXPECT_EQ(nk, on[0]);
	EXPECT_EQ(nk, on[1]);
	EXPECT_EQ(nk - 2, on[2]);
	/* in two parts, but those of one block row (gemv_local) */
	EXPECT_LE(nk - 3, split);
	vmgpu_rt_destroy(rt);
	vmgpu_program_destroy(prog);
}

#endif /* VMGPU_TESTCORPUS_H */
